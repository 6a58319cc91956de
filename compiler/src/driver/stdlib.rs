//! The stdlib prelude, compiled into the binary so `cajetac` needs no install tree, and the
//! pruning that keeps only what a program can reach of it for parsing.

use std::collections::HashSet;

/// (file name, source) of every stdlib file.
pub const STDLIB_FILES: &[(&str, &str)] = &[
    (
        "cajeta/xpu.cajeta",
        include_str!("../../../stdlib/cajeta/xpu.cajeta"),
    ),
    (
        "cajeta/memory.cajeta",
        include_str!("../../../stdlib/cajeta/memory.cajeta"),
    ),
    (
        "cajeta/lang.cajeta",
        include_str!("../../../stdlib/cajeta/lang.cajeta"),
    ),
    (
        "cajeta/vector.cajeta",
        include_str!("../../../stdlib/cajeta/vector.cajeta"),
    ),
    (
        "cajeta/int_precision.cajeta",
        include_str!("../../../stdlib/cajeta/int_precision.cajeta"),
    ),
    (
        "cajeta/precision.cajeta",
        include_str!("../../../stdlib/cajeta/precision.cajeta"),
    ),
    (
        "cajeta/io.cajeta",
        include_str!("../../../stdlib/cajeta/io.cajeta"),
    ),
    (
        "cajeta/device.cajeta",
        include_str!("../../../stdlib/cajeta/device.cajeta"),
    ),
];

/// Classes the checker reaches without the program naming them: `System.out` is
/// `SystemOut`, `shared T[n]` has type `Shared<T>`, vector and matrix values come out of
/// swizzles and texture reads, a stream out of launches, and `for … : range` loops call
/// `KernelThread`. Their members are still kept only when named.
const ALWAYS: &[&str] = &[
    "KernelThread",
    "SystemOut",
    "Shared",
    "Vector",
    "Matrix",
    "KernelStream",
];

/// Member names the checker calls without the program naming them (`for … : range`).
const IMPLICIT_MEMBERS: &[&str] = &["globalIdX", "globalSizeX"];

/// Older names (SPEC §1) and spellings that stand for a stdlib class.
const ALSO_NAMES: &[(&str, &str)] = &[
    ("Buffer", "KernelBuffer"),
    ("Stream", "KernelStream"),
    ("Thread", "KernelThread"),
    ("System", "SystemOut"),
];

/// A top-level class of a stdlib file: its name, the bytes it spans (from just after the
/// previous top-level item, so its comments go with it, to its closing brace) and its members
/// (each from just after the previous member or the class's `{` to its `;`, with its name).
#[derive(Debug, Clone, PartialEq)]
struct ClassSpan {
    file: usize,
    name: &'static str,
    start: usize,
    end: usize,
    members: Vec<(&'static str, usize, usize)>,
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The identifier-like words of `text`, comments and strings included (a spurious word only
/// keeps something that was not needed). Byte-wise: this runs on every compile.
fn words(text: &str) -> impl Iterator<Item = &str> {
    let b = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() {
            if is_word_byte(b[i]) && (i == 0 || !is_word_byte(b[i - 1])) {
                let start = i;
                while i < b.len() && is_word_byte(b[i]) {
                    i += 1;
                }
                return Some(&text[start..i]);
            }
            i += 1;
        }
        None
    })
}

/// The name a member declares (its text without the `;`): for a method the word before its
/// parameter list (the last `(`; parameters hold no parentheses), for a constant the last
/// word (an annotation's parentheses come before it).
fn member_name(text: &'static str) -> &'static str {
    let head = match text.trim_end().ends_with(')') {
        true => text.rfind('(').map_or(text, |p| &text[..p]),
        false => text,
    };
    // The last word, found from the end (a forward scan of every member was measurable).
    let b = head.as_bytes();
    let end = b
        .iter()
        .rposition(|&c| is_word_byte(c))
        .map_or(0, |e| e + 1);
    let start = b[..end]
        .iter()
        .rposition(|&c| !is_word_byte(c))
        .map_or(0, |s| s + 1);
    &head[start..end]
}

/// Finds the top-level classes of one stdlib file and their members, line by line: the
/// stdlib is written one member per line, a class opening on its declaration's line and
/// closing on a line of its own, comments on lines of their own (a test checks this against
/// a byte-wise scanner that knows comments, literals and braces). This runs on every compile,
/// so it looks at each line's ends only.
fn class_spans(file: usize, text: &'static str) -> Vec<ClassSpan> {
    let mut out = Vec::new();
    let (mut pos, mut item_start, mut member_start) = (0usize, 0usize, 0usize);
    let mut current: Option<ClassSpan> = None;
    for line in text.split_inclusive('\n') {
        let ls = pos;
        pos += line.len();
        let t = line.trim();
        if t.is_empty() || t.starts_with("//") {
            continue;
        }
        match current.as_mut() {
            None => {
                if let (Some(c), Some(open)) = (line.find("class "), line.find('{')) {
                    let name = words(&text[ls + c + 6..pos]).next().unwrap_or("");
                    current = Some(ClassSpan {
                        file,
                        name,
                        start: item_start,
                        end: 0,
                        members: Vec::new(),
                    });
                    member_start = ls + open + 1;
                    if let Some(close) = line[open..].find('}') {
                        let mut c = current.take().unwrap_or_else(|| unreachable!());
                        c.end = ls + open + close + 1;
                        item_start = c.end;
                        out.push(c);
                    }
                } else if let Some(semi) = line.rfind(';') {
                    item_start = ls + semi + 1;
                }
            }
            Some(c) => {
                if t.starts_with('}') {
                    c.end = ls + line.find('}').unwrap_or(0) + 1;
                    item_start = c.end;
                    out.extend(current.take());
                } else if let Some(semi) = line.find(';') {
                    let end = ls + semi + 1;
                    c.members
                        .push((member_name(&text[member_start..end - 1]), member_start, end));
                    member_start = end;
                }
            }
        }
    }
    out
}

/// The stdlib sources to parse for a program made of `user` files, with what the program
/// cannot reach blanked out. A class is reachable when the program's text names it (or an
/// older name of it), when the checker reaches it implicitly ([`ALWAYS`]), or when a kept
/// member of a reachable class names it; a member of a reachable class is kept when the
/// program's text contains its name (overloads share it, so all of them stay). Blanking keeps
/// every newline and replaces every other byte with a space, so package and import lines stay
/// and spans into what is kept point into the real file as before.
///
/// Parsing the whole prelude was most of a small program's compile time. A program that uses
/// something blanked fails to check; the driver then checks it again with the whole stdlib,
/// so what compiles and every diagnostic are as before.
pub fn pruned_stdlib(user: &[(String, String)]) -> Vec<String> {
    let spans: Vec<ClassSpan> = STDLIB_FILES
        .iter()
        .enumerate()
        .flat_map(|(f, (_, text))| class_spans(f, text))
        .collect();
    // Every class of that name (a class may be declared in parts, in several files).
    let index = |w: &str| -> Vec<usize> {
        if !w.as_bytes()[0].is_ascii_uppercase() {
            return Vec::new();
        }
        let w = ALSO_NAMES
            .iter()
            .find(|(a, _)| *a == w)
            .map_or(w, |(_, c)| *c);
        (0..spans.len()).filter(|&i| spans[i].name == w).collect()
    };
    let mut named: HashSet<&str> = IMPLICIT_MEMBERS.iter().copied().collect();
    for (_, text) in user {
        named.extend(words(text));
    }
    let mut keep = vec![false; spans.len()];
    let mut todo: Vec<usize> = ALWAYS.iter().flat_map(|n| index(n)).collect();
    todo.extend(named.iter().flat_map(|w| index(w)));
    while let Some(c) = todo.pop() {
        if std::mem::replace(&mut keep[c], true) {
            continue;
        }
        let s = &spans[c];
        for &(_, a, b) in s.members.iter().filter(|m| named.contains(m.0)) {
            let text = &STDLIB_FILES[s.file].1[a..b];
            todo.extend(words(text).flat_map(index).filter(|&d| !keep[d]));
        }
    }
    STDLIB_FILES
        .iter()
        .enumerate()
        .map(|(f, (_, text))| {
            let mut bytes = text.as_bytes().to_vec();
            // Newlines are found with `str::find` (memchr) and the runs between them filled.
            let mut blank = |mut a: usize, b: usize| {
                while let Some(n) = text[a..b].find('\n') {
                    bytes[a..a + n].fill(b' ');
                    a += n + 1;
                }
                bytes[a..b].fill(b' ');
            };
            for (s, &k) in spans.iter().zip(&keep).filter(|(s, _)| s.file == f) {
                if !k {
                    blank(s.start, s.end);
                    continue;
                }
                for &(_, a, b) in s.members.iter().filter(|m| !named.contains(m.0)) {
                    blank(a, b);
                }
            }
            // Whole characters are blanked: every range starts and ends at an ASCII byte.
            String::from_utf8(bytes).unwrap_or_else(|_| (*text).to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte-wise scanner [`class_spans`] is checked against: comments, string and
    /// character literals and brace depth (stdlib members have no bodies).
    fn careful_spans(file: usize, text: &'static str) -> Vec<ClassSpan> {
        let b = text.as_bytes();
        let (mut i, mut depth, mut item_start, mut member_start) = (0usize, 0usize, 0usize, 0usize);
        let mut current: Option<ClassSpan> = None;
        let mut out = Vec::new();
        while i < b.len() {
            match b[i] {
                b'/' if b.get(i + 1) == Some(&b'/') => {
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                    continue;
                }
                b'/' if b.get(i + 1) == Some(&b'*') => {
                    i += 2;
                    while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                        i += 1;
                    }
                    i += 2;
                    continue;
                }
                q @ (b'"' | b'\'') => {
                    i += 1;
                    while i < b.len() && b[i] != q {
                        i += if b[i] == b'\\' { 2 } else { 1 };
                    }
                }
                b'{' => {
                    depth += 1;
                    member_start = i + 1;
                }
                b'}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        if let Some(mut c) = current.take() {
                            c.start = item_start;
                            c.end = i + 1;
                            out.push(c);
                        }
                        item_start = i + 1;
                    }
                }
                b';' if depth == 0 => item_start = i + 1,
                b';' if depth == 1 => {
                    if let Some(c) = current.as_mut() {
                        let m = &text[member_start..i];
                        c.members.push((member_name(m), member_start, i + 1));
                    }
                    member_start = i + 1;
                }
                c if depth == 0 && is_word_byte(c) && (i == 0 || !is_word_byte(b[i - 1])) => {
                    let end = (i..b.len())
                        .find(|&j| !is_word_byte(b[j]))
                        .unwrap_or(b.len());
                    if &text[i..end] == "class" && current.is_none() {
                        let s = (end..b.len())
                            .find(|&j| is_word_byte(b[j]))
                            .unwrap_or(b.len());
                        let e = (s..b.len())
                            .find(|&j| !is_word_byte(b[j]))
                            .unwrap_or(b.len());
                        current = Some(ClassSpan {
                            file,
                            name: &text[s..e],
                            start: 0,
                            end: 0,
                            members: Vec::new(),
                        });
                    }
                    i = end;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        out
    }

    #[test]
    fn line_scanner_agrees_with_the_careful_one() {
        for (f, (name, text)) in STDLIB_FILES.iter().enumerate() {
            assert_eq!(class_spans(f, text), careful_spans(f, text), "{name}");
        }
    }

    #[test]
    fn finds_every_stdlib_class() {
        let names: Vec<&str> = STDLIB_FILES
            .iter()
            .enumerate()
            .flat_map(|(f, (_, t))| careful_spans(f, t))
            .map(|s| s.name)
            .collect();
        let declared = STDLIB_FILES
            .iter()
            .map(|(_, t)| t.matches("public final class ").count())
            .sum::<usize>();
        assert_eq!(names.len(), declared, "{names:?}");
        for n in ["KernelBuffer", "Math", "Files", "Vector", "MemoryOrder"] {
            assert!(names.contains(&n), "{n} missing from {names:?}");
        }
        let spans = class_spans(0, STDLIB_FILES[0].1);
        let thread = spans.iter().find(|s| s.name == "KernelThread").unwrap();
        let members: Vec<&str> = thread.members.iter().map(|m| m.0).collect();
        assert_eq!(members.len(), 9, "{members:?}");
        assert!(members.contains(&"globalIdX"), "{members:?}");
        assert_eq!(
            member_name("@Constant(0) public static final MemoryOrder Relaxed"),
            "Relaxed"
        );
        assert_eq!(
            member_name("@Intrinsic(\"a.b\") public <I> T atomicAdd(I i, T v)"),
            "atomicAdd"
        );
    }

    #[test]
    fn blanks_only_unreachable_classes() {
        let user = vec![(
            "a.cajeta".to_string(),
            "import cajeta.xpu.*; class A { void f(Buffer<int32> b) { Math.abs(1); } }".to_string(),
        )];
        let pruned = pruned_stdlib(&user);
        let joined = pruned.concat();
        // Named (through an older name), implicit, and named by a kept class.
        for kept in [
            "class KernelBuffer",
            "class Math",
            "class Shared",
            "class SystemOut",
        ] {
            assert!(joined.contains(kept), "{kept} was blanked");
        }
        // Members: only the named ones (both overloads of `abs`, if any), not `sqrt`.
        assert!(joined.contains("abs("), "Math.abs was blanked");
        assert!(!joined.contains("sqrt("), "Math.sqrt was kept");
        assert!(
            !joined.contains("atomicAdd("),
            "KernelBuffer.atomicAdd was kept"
        );
        assert!(!joined.contains("class Files"), "Files was kept");
        assert!(
            !joined.contains("class TextureCube"),
            "TextureCube was kept"
        );
        for ((_, full), p) in STDLIB_FILES.iter().zip(&pruned) {
            assert_eq!(full.len(), p.len());
            assert_eq!(full.matches('\n').count(), p.matches('\n').count());
            assert!(p.contains("package "));
        }
    }
}
