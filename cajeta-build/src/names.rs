//! Rust spellings of Cajeta names and types in the generated bindings.

/// Rust's keywords (strict and reserved), which a generated name escapes.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// `camelCase` → `camel_case`, escaped if it is a keyword: Cajeta methods and fields follow
/// Java's naming, the generated functions and fields Rust's.
pub fn snake_case(name: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() && prev_lower {
            out.push('_');
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        out.push(c.to_ascii_lowercase());
    }
    escape(out)
}

/// `name` usable as a Rust identifier: `r#match`; `self_`, `crate_`… for the keywords a raw
/// identifier cannot spell.
pub fn escape(name: String) -> String {
    match name.as_str() {
        "self" | "Self" | "super" | "crate" => format!("{name}_"),
        n if KEYWORDS.contains(&n) => format!("r#{name}"),
        _ => name,
    }
}

/// A scalar type's Rust type and std430 size, for the scalars Rust can hold as is (no
/// `float16`/`bfloat16`, no precision types).
pub fn scalar(ty: &str) -> Option<(&'static str, u32)> {
    Some(match ty {
        "boolean" => ("bool", 4),
        "int8" => ("i8", 1),
        "int16" => ("i16", 2),
        "int32" => ("i32", 4),
        "int64" => ("i64", 8),
        "uint8" => ("u8", 1),
        "uint16" => ("u16", 2),
        "uint32" => ("u32", 4),
        "uint64" => ("u64", 8),
        "float32" => ("f32", 4),
        "float64" => ("f64", 8),
        _ => return None,
    })
}

/// `Vector<float32,3>` → the lane's Rust type, its size, and the lane count (not for
/// `boolean` lanes, whose std430 form is not a Rust array's).
pub fn vector(ty: &str) -> Option<(&'static str, u32, u32)> {
    let inner = ty.strip_prefix("Vector<")?.strip_suffix('>')?;
    let (lane, n) = inner.split_once(',')?;
    let (rust, size) = scalar(lane.trim()).filter(|(r, _)| *r != "bool")?;
    Some((rust, size, n.trim().parse().ok()?))
}
