//! Shrinking a generated program with a wrong result while its kernel and host halves stay
//! in step (`cajeta-fuzz --reduce-program`, docs/fuzzing.md).
//!
//! A generated program states every kernel statement twice: once in the kernel and once,
//! indented deeper, in the host's recomputation of the expected values. An edit of one copy
//! alone makes a difference of its own, so every edit here is made on the text of a line or
//! an expression wherever it occurs. Three kinds, tried largest first:
//! - a block (`if`, `for`, `while`, a bare `{`) deleted whole, or unwrapped (its header and
//!   closing brace deleted, its body kept);
//! - a parenthesized expression replaced by one of the parenthesized expressions directly
//!   inside it (a cast's operand, an operator's operand, a branch of `?:`);
//! - a line deleted.
//!
//! What moves data to and from the device stays, and so does every write of an output or a
//! shared array (a buffer nothing writes holds whatever the memory held, on NVIDIA not
//! zeros), though the value written may shrink. Loop counters and loop headers stay too: a
//! loop that no longer ends would hang the device instead of failing. The predicate decides
//! what still counts as the same failure; a candidate that does not compile is refused by it.

/// Whether the reducer must keep `line` (trimmed) as it is.
fn keep_line(line: &str) -> bool {
    writes_memory(line)
        || line.contains("++")
        || line.contains("--")
        || line.contains("bad++")
        || line.contains("System.out.println(")
        || line.starts_with("for (")
        || line.contains(": for (")
        || line.starts_with("while (")
        || line.starts_with("public ")
        || line.starts_with("package ")
        || line.starts_with("import ")
        || line == "}"
        || [
            "launch(",
            "download(",
            "upload(",
            "heap KernelBuffer",
            "s.sync()",
            "return ",
        ]
        .iter()
        .any(|k| line.contains(k))
}

/// `name[index] = value;`: a write of an output buffer or a shared array.
fn writes_memory(line: &str) -> bool {
    let target = line.split(" = ").next().unwrap_or("");
    let name = target.split('[').next().unwrap_or("");
    line.contains(" = ")
        && target.ends_with(']')
        && !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The trimmed headers of the host's checks: blocks whose body counts a difference
/// (`bad++`). A check may go whole, but unwrapped or with its condition edited it would count
/// every element, a failure of its own.
fn check_headers(text: &str) -> std::collections::HashSet<String> {
    let lines: Vec<&str> = text.lines().collect();
    (0..lines.len())
        .filter(|&i| lines[i].trim_end().ends_with('{'))
        .filter_map(|i| {
            let end = block_end(&lines, i).filter(|&e| e > i)?;
            // Directly in the block, not in a block inside it.
            let mut depth = 0;
            let counts = lines[i + 1..end].iter().any(|l| {
                let direct = depth == 0 && l.trim() == "bad++;";
                depth += brace_delta(l);
                direct
            });
            counts.then(|| lines[i].trim().to_string())
        })
        .collect()
}

/// The change in brace depth a line makes.
fn brace_delta(line: &str) -> i32 {
    line.chars()
        .map(|c| match c {
            '{' => 1,
            '}' => -1,
            _ => 0,
        })
        .sum()
}

/// For a line that opens a block, the index of the line that closes it.
fn block_end(lines: &[&str], start: usize) -> Option<usize> {
    let mut depth = 0;
    for (i, l) in lines.iter().enumerate().skip(start) {
        depth += brace_delta(l);
        if depth == 0 {
            return Some(i);
        }
        if depth < 0 {
            return None;
        }
    }
    None
}

/// The header of the early return of the invocations past a generated kernel's `n`.
const GUARD: &str = "if (gid >= n) {";

/// Applies `edit` to every block whose trimmed header is `header`: `unwrap` keeps the body.
fn edit_blocks(text: &str, header: &str, unwrap: bool) -> Option<String> {
    if unwrap && check_headers(text).contains(header) {
        return None;
    }
    // The guard of a kernel's idle invocations stays: without it they read and write past
    // the buffers' ends (seed 151 program 264 was reduced so, before this).
    if header == GUARD {
        return None;
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut drop = vec![false; lines.len()];
    let mut any = false;
    for (i, l) in lines.iter().enumerate() {
        if l.trim() != header || drop[i] {
            continue;
        }
        let end = block_end(&lines, i).filter(|&e| e > i)?;
        // `} else {` ends one block and starts another: leave such chains whole.
        if lines[end].trim() != "}" {
            return None;
        }
        // A write that goes leaves its slot holding whatever the memory held: another failure.
        if !unwrap && lines[i + 1..end].iter().any(|l| writes_memory(l.trim())) {
            return None;
        }
        any = true;
        if unwrap {
            drop[i] = true;
            drop[end] = true;
        } else {
            drop[i..=end].iter_mut().for_each(|d| *d = true);
        }
    }
    any.then(|| {
        lines
            .iter()
            .zip(&drop)
            .filter(|(_, d)| !**d)
            .map(|(l, _)| format!("{l}\n"))
            .collect()
    })
}

/// The trimmed headers of the blocks the reducer may delete or unwrap, outermost first.
fn block_headers(text: &str) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    text.lines()
        .map(str::trim)
        .filter(|l| l.ends_with('{') && !l.starts_with('}') && !l.starts_with("public "))
        .filter(|l| seen.insert(l.to_string()))
        .map(str::to_string)
        .collect()
}

/// The balanced parenthesized groups of `line` with the groups directly inside each.
fn groups(line: &str) -> Vec<(String, Vec<String>)> {
    let b = line.as_bytes();
    let mut open: Vec<(usize, Vec<(usize, usize)>)> = Vec::new();
    let mut out = Vec::new();
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'(' => open.push((i, Vec::new())),
            b')' => {
                let Some((s, kids)) = open.pop() else {
                    return Vec::new();
                };
                if let Some((_, parent)) = open.last_mut() {
                    parent.push((s, i + 1));
                }
                let kids = kids.iter().map(|&(a, z)| line[a..z].to_string()).collect();
                out.push((line[s..=i].to_string(), kids));
            }
            _ => {}
        }
    }
    out
}

/// `int8` … `float64`, `bool`: the parenthesized type of a cast, never an operand.
fn is_type_name(s: &str) -> bool {
    let t = s.trim_start_matches('u');
    [
        "int8", "int16", "int32", "int64", "float16", "float32", "float64", "bfloat16", "bool",
    ]
    .contains(&t)
}

/// Expression replacements: (group, a group directly inside it), largest group first.
fn expression_edits(text: &str) -> Vec<(String, String)> {
    let mut seen = std::collections::HashSet::new();
    let mut edits: Vec<(String, String)> = Vec::new();
    let checks = check_headers(text);
    for line in text.lines().map(str::trim) {
        // Loop headers, checks, launches and transfers stay as they are; the value an output
        // write stores may shrink.
        let head =
            line.starts_with("for (") || line.starts_with("while (") || checks.contains(line);
        if head || (keep_line(line) && !writes_memory(line)) {
            continue;
        }
        // Of a write, only the value: an index that moves leaves a slot unwritten.
        let value = match line.split_once(" = ") {
            Some((_, v)) if writes_memory(line) => v,
            _ => line,
        };
        for (g, kids) in groups(value) {
            for k in kids
                .into_iter()
                .filter(|k| !is_type_name(&k[1..k.len() - 1]))
            {
                if seen.insert((g.clone(), k.clone())) {
                    edits.push((g.clone(), k));
                }
            }
        }
    }
    edits.sort_by_key(|(g, _)| std::cmp::Reverse(g.len()));
    edits
}

/// Shrinks `text` while `fails` holds, reporting each smaller program to `progress`.
pub fn shrink(
    mut text: String,
    mut fails: impl FnMut(&str) -> bool,
    mut progress: impl FnMut(&str),
) -> String {
    loop {
        let mut changed = false;
        for header in block_headers(&text) {
            for unwrap in [false, true] {
                if let Some(c) = edit_blocks(&text, &header, unwrap) {
                    if fails(&c) {
                        text = c;
                        progress(&text);
                        changed = true;
                        break;
                    }
                }
            }
        }
        for (group, kid) in expression_edits(&text) {
            if !text.contains(&group) {
                continue;
            }
            let c = text.replace(&group, &kid);
            if fails(&c) {
                text = c;
                progress(&text);
                changed = true;
            }
        }
        let mut lines: Vec<String> = text.lines().map(|l| l.trim().to_string()).collect();
        lines.sort();
        lines.dedup();
        for line in lines.into_iter().filter(|l| !l.is_empty() && !keep_line(l)) {
            let c: String = text
                .lines()
                .filter(|l| l.trim() != line)
                .map(|l| format!("{l}\n"))
                .collect();
            if c != text && fails(&c) {
                text = c;
                progress(&text);
                changed = true;
            }
        }
        if !changed {
            return text;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROGRAM: &str = "k {\n    int32 a = ((int32) (x + 1));\n    if (a > 0) {\n        a = a * 2;\n    }\n    out[gid] = (a + (b * c));\n}\nhost {\n        int32 a = ((int32) (x + 1));\n        if (a > 0) {\n            a = a * 2;\n        }\n        int32 want = (a + (b * c));\n}\n";

    #[test]
    fn blocks_are_deleted_or_unwrapped_in_both_halves() {
        let deleted = edit_blocks(PROGRAM, "if (a > 0) {", false).unwrap();
        assert!(!deleted.contains("a * 2"), "{deleted}");
        let unwrapped = edit_blocks(PROGRAM, "if (a > 0) {", true).unwrap();
        assert_eq!(unwrapped.matches("a = a * 2;").count(), 2, "{unwrapped}");
        assert!(!unwrapped.contains("if ("), "{unwrapped}");
        assert_eq!(brace_delta(&unwrapped), 0);
    }

    #[test]
    fn expressions_shrink_to_their_operands_everywhere() {
        let edits = expression_edits(PROGRAM);
        assert!(edits.contains(&("((int32) (x + 1))".into(), "(x + 1)".into())));
        assert!(edits.contains(&("(a + (b * c))".into(), "(b * c)".into())));
        // Largest first.
        assert!(edits.windows(2).all(|w| w[0].0.len() >= w[1].0.len()));
        // The kernel's and the host's copies shrink together: the first edit that keeps
        // "x" in both halves wins.
        let out = shrink(
            PROGRAM.to_string(),
            |t| t.matches("(x + 1)").count() == 2,
            |_| {},
        );
        assert_eq!(out.matches("(x + 1)").count(), 2, "{out}");
        assert!(!out.contains("(int32) (x"), "{out}");
        assert!(
            out.contains("out[gid] ="),
            "a write of an output stays: {out}"
        );
    }

    #[test]
    fn checks_go_whole_or_stay() {
        let t = "for (g = 0; g < n; g++) {\n    int32 want = (a + b);\n    if (!(dev == want)) {\n        bad++;\n    }\n}\n";
        assert!(check_headers(t).contains("if (!(dev == want)) {"));
        assert!(!check_headers(t).contains("for (g = 0; g < n; g++) {"));
        assert!(edit_blocks(t, "if (!(dev == want)) {", true).is_none());
        assert!(edit_blocks(t, "if (!(dev == want)) {", false).is_some());
        assert!(expression_edits(t).iter().all(|(g, _)| !g.contains("dev")));
    }

    #[test]
    fn writes_stay_with_their_index() {
        let t = "if (c) {\n    out[(g + 1)] = (a + (b * 2));\n}\n";
        assert!(edit_blocks(t, "if (c) {", false).is_none());
        assert!(edit_blocks(t, "if (c) {", true).is_some());
        let edits = expression_edits(t);
        assert!(edits.iter().all(|(g, _)| g != "(g + 1)"), "{edits:?}");
        assert!(edits.contains(&("(a + (b * 2))".into(), "(b * 2)".into())));
    }

    #[test]
    fn loop_counters_headers_and_the_guard_stay() {
        assert!(keep_line("w10++;"));
        assert!(keep_line("while (w10 < 4) {"));
        assert!(keep_line("out[gid * 3 + 1] = (a + b);"));
        assert!(!keep_line("int32 v4 = ((int32) acc);"));
        let guarded = "k {\n    if (gid >= n) {\n        return;\n    }\n}\n";
        assert_eq!(edit_blocks(guarded, GUARD, false), None);
        assert_eq!(edit_blocks(guarded, GUARD, true), None);
        let lines = "while (w < 4) {\n    w++;\n    s = (s + (w * 2));\n}\n";
        assert!(expression_edits(lines)
            .iter()
            .all(|(g, _)| !g.contains("w < 4")));
    }
}
