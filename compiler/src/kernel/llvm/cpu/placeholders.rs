//! Definitions, for the CPU target, of the SPIR-V placeholder functions the shared lowering
//! declares (`../spirv_ops.rs`): on SPIR-V they become instructions after code generation;
//! on the CPU they are small LLVM functions the optimizer inlines. A placeholder without a
//! definition here is refused, naming the instruction.

use rspirv::spirv::Op;

/// The definition replacing `decl` (a `declare` line of a placeholder), `Ok(None)` when
/// `decl` declares no placeholder, or the instruction's name when the CPU target has none.
pub(crate) fn define(decl: &str) -> Result<Option<String>, String> {
    let Some(rest) = decl.strip_prefix("declare ") else {
        return Ok(None);
    };
    let Some(at) = rest.find("@\"spirv.op.") else {
        return Ok(None);
    };
    let ret = rest[..at].trim();
    let name_end = rest[at + 2..]
        .find('"')
        .map(|i| at + 2 + i + 1)
        .unwrap_or(rest.len());
    let name = &rest[at..name_end];
    let op = name
        .trim_start_matches("@\"spirv.op.")
        .trim_end_matches('"');
    let op = op.rsplit_once('.').map_or(op, |(o, _sig)| o);
    let params_text = rest[name_end..]
        .trim_start()
        .strip_prefix('(')
        .map(until_closing)
        .unwrap_or("");
    let params: Vec<&str> = params_text.split(", ").filter(|p| !p.is_empty()).collect();
    let args: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{t} %a{i}"))
        .collect();
    let scalar = |t: &str| !t.starts_with('<');
    let body = match (op, params.as_slice()) {
        ("AtomicCompareExchange", [ptr, _, _, _, ty, _]) => format!(
            "  %r = cmpxchg {ptr} %a0, {ty} %a5, {ty} %a4 seq_cst seq_cst\n  %v = extractvalue {{ {ty}, i1 }} %r, 0\n  ret {ty} %v\n"
        ),
        ("BitCount", [ty]) if *ty == ret => {
            format!("  %r = call {ty} @llvm.ctpop.{}({ty} %a0)\n  ret {ty} %r\n", mangle(ty))
        }
        ("BitReverse", [ty]) if *ty == ret => format!(
            "  %r = call {ty} @llvm.bitreverse.{}({ty} %a0)\n  ret {ty} %r\n",
            mangle(ty)
        ),
        ("IsNan", [ty]) if scalar(ty) => {
            format!("  %r = fcmp uno {ty} %a0, %a0\n  ret i1 %r\n")
        }
        ("IsInf", [ty]) if scalar(ty) => {
            let inf = if *ty == "half" {
                "0xH7C00"
            } else {
                "0x7FF0000000000000"
            };
            format!(
                "  %m = call {ty} @llvm.fabs.{}({ty} %a0)\n  %r = fcmp oeq {ty} %m, {inf}\n  ret i1 %r\n",
                mangle(ty)
            )
        }
        _ => return Err(describe(op)),
    };
    Ok(Some(format!(
        "define internal {ret} {name}({}) alwaysinline {{\n{body}}}",
        args.join(", ")
    )))
}

/// `text` up to the parenthesis closing the one before it (types nest: `ptr addrspace(11)`).
fn until_closing(text: &str) -> &str {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return &text[..i],
            ')' => depth -= 1,
            _ => {}
        }
    }
    text
}

/// The LLVM intrinsic suffix of a scalar type.
fn mangle(ty: &str) -> String {
    match ty {
        "float" => "f32".into(),
        "double" => "f64".into(),
        "half" => "f16".into(),
        t => t.into(),
    }
}

/// A readable name of placeholder operation `op` (`core.<opcode>`, `glsl.<number>` or a
/// named instruction).
fn describe(op: &str) -> String {
    if let Some(n) = op.strip_prefix("core.") {
        let code = n.split('.').next().and_then(|c| c.parse::<u32>().ok());
        if let Some(o) = code.and_then(Op::from_u32) {
            return format!("the SPIR-V instruction `Op{o:?}`");
        }
    }
    if let Some(n) = op.strip_prefix("glsl.") {
        return format!("the `GLSL.std.450` instruction {n}");
    }
    format!("the SPIR-V instruction `Op{op}`")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_exchange_becomes_cmpxchg() {
        let d = define("declare i32 @\"spirv.op.AtomicCompareExchange.i32_ptraddrspace11_i32_i32_i32_i32_i32\"(ptr addrspace(11), i32, i32, i32, i32, i32) convergent")
            .unwrap()
            .unwrap();
        assert!(
            d.contains("cmpxchg ptr addrspace(11) %a0, i32 %a5, i32 %a4"),
            "{d}"
        );
    }

    #[test]
    fn unknown_instruction_is_named() {
        let e = define("declare float @\"spirv.op.glsl.40.float_float\"(float) memory(none)")
            .unwrap_err();
        assert_eq!(e, "the `GLSL.std.450` instruction 40");
    }

    #[test]
    fn other_declarations_are_left_alone() {
        assert_eq!(define("declare float @llvm.sqrt.f32(float)").unwrap(), None);
    }
}
