//! Inputs for the robustness oracles: random bytes, token-level mutations of the corpus
//! (`tests/**/*.cajeta`, `examples/*.cajeta`, generated programs), and deep-nesting /
//! size-stress generators. Every input is a pure function of `(seed, index)` so any finding
//! reproduces from its index alone.

use super::rng::Rng;
use std::path::{Path, PathBuf};

/// Fragments inserted by the mutator: tokens that matter to the grammar, the checker and the
/// backend, and boundary literals.
pub const FRAGMENTS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ",",
    ".",
    "<",
    ">",
    ">>",
    ">>>",
    "=",
    "+=",
    "?",
    ":",
    "!",
    "~",
    "-",
    "++",
    "@Kernel",
    "@Device",
    "@FastMath",
    "return",
    "break",
    "continue",
    "for",
    "while",
    "do",
    "if",
    "else",
    "static",
    "uint32",
    "float32",
    "int64",
    "int8",
    "uint16",
    "bfloat16",
    "float16",
    "boolean",
    "KernelBuffer<float32>",
    "KernelBuffer<int8>",
    "Image2D",
    "Vector<float32, 4>",
    "0",
    "-1",
    "2147483648",
    "0xFFFFFFFF",
    "0x8000000000000000L",
    "1.5f",
    "1e999",
    "0.0f",
    "\"s\"",
    "x",
    "i",
    "n",
    "out",
    "heap",
    "/*",
    "*/",
    "//",
    "launch",
    "x++",
    "KernelThread.globalIdX()",
    "Workgroup.barrier();",
    "Math.sqrt(",
    "Atomic.add(",
    "Shared<float32>",
    "label:",
    "null",
    "true",
    "\\",
    "'",
    "\u{0}",
    "é",
    "\u{FEFF}",
];

/// The kinds of input, in the proportions the campaign draws them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InputKind {
    /// Random bytes and character soup (the lexer's target).
    Bytes,
    /// Token mutations of a corpus file or a generated program.
    Mutation,
    /// A deep-nesting or size-stress program.
    Nesting,
}

/// The corpus files: every `.cajeta` under `tests/` and `examples/`, sorted, except
/// `tests/fuzz_findings/` (reproducers of crashes: mutants of them would crash too).
pub fn corpus_files(tests_dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                if !p.ends_with("fuzz_findings") {
                    walk(&p, out);
                }
            } else if p.extension().is_some_and(|x| x == "cajeta") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(tests_dir, &mut out);
    if let Some(root) = tests_dir.parent() {
        walk(&root.join("examples"), &mut out);
    }
    out.sort();
    out
}

/// Reads the corpus (lossily: some diagnostics tests hold invalid UTF-8 on purpose).
pub fn load_corpus(tests_dir: &Path) -> Vec<String> {
    corpus_files(tests_dir)
        .iter()
        .filter_map(|p| std::fs::read(p).ok())
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .collect()
}

/// Splits text into tokens: runs of identifier characters, runs of whitespace, single other
/// characters. Concatenating the tokens gives the text back.
pub fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let class = |c: char| {
        if c.is_alphanumeric() || c == '_' {
            0
        } else if c.is_whitespace() {
            1
        } else {
            2
        }
    };
    let mut prev: Option<u8> = None;
    for (i, c) in text.char_indices() {
        let k = class(c);
        if prev.is_some_and(|p| p != k || k == 2) {
            out.push(&text[start..i]);
            start = i;
        }
        prev = Some(k);
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// Random bytes (decoded lossily) or a soup of valid-looking tokens.
pub fn random_bytes(rng: &mut Rng) -> String {
    let len = rng.below(300);
    if rng.chance(50) {
        let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        String::from_utf8_lossy(&bytes).into_owned()
    } else {
        (0..len / 3)
            .map(|_| {
                let f = *rng.pick(FRAGMENTS);
                if rng.chance(50) {
                    format!("{f} ")
                } else {
                    f.to_string()
                }
            })
            .collect()
    }
}

/// Applies 1–3 token-level mutations to `base`; `donor` supplies spliced fragments.
pub fn mutate(rng: &mut Rng, base: &str, donor: &str) -> String {
    let mut toks: Vec<String> = tokens(base).into_iter().map(str::to_string).collect();
    let donor_toks = tokens(donor);
    for _ in 0..rng.range(1, 3) {
        if toks.is_empty() {
            toks.push(rng.pick(FRAGMENTS).to_string());
        }
        let len = toks.len();
        let i = rng.below(len);
        let run = rng.range(1, 8).min(len - i);
        match rng.below(11) {
            0 => {
                toks.drain(i..i + run);
            }
            1 => {
                let copy: Vec<String> = toks[i..i + run].to_vec();
                let at = rng.below(len + 1);
                toks.splice(at..at, copy);
            }
            2 => {
                // Swap two runs (the second after the first, not overlapping).
                let j = rng.below(len);
                let (a, b) = (i.min(j), i.max(j));
                let r = run.min(b - a).min(len - b);
                if r > 0 {
                    let second: Vec<String> = toks[b..b + r].to_vec();
                    let first: Vec<String> = toks.splice(a..a + r, second).collect();
                    toks.splice(b..b + r, first);
                }
            }
            3 | 4 => toks.insert(i, rng.pick(FRAGMENTS).to_string()),
            5 if !donor_toks.is_empty() => {
                // Splice a run of the donor in place of a run here.
                let d = rng.below(donor_toks.len());
                let dr = rng.range(1, 40).min(donor_toks.len() - d);
                let piece: Vec<String> = donor_toks[d..d + dr]
                    .iter()
                    .map(|s| s.to_string())
                    .collect();
                toks.splice(i..i + run, piece);
            }
            6 | 9 => {
                // Replace an identifier or number by another from the same text.
                let words: Vec<String> = toks
                    .iter()
                    .filter(|t| t.chars().next().is_some_and(|c| c.is_alphanumeric()))
                    .cloned()
                    .collect();
                if !words.is_empty() {
                    toks[i] = rng.pick(&words).clone();
                }
            }
            7 | 10 => {
                let lit = *rng.pick(&[
                    "0",
                    "1",
                    "-1",
                    "255",
                    "256",
                    "65536",
                    "2147483647",
                    "2147483648",
                    "4294967296",
                    "9223372036854775807L",
                    "0x7FFFFFFF",
                    "0xFFFFFFFFFFFFFFFFL",
                    "1.0e38f",
                    "3.5e38f",
                    "1e-45f",
                    "0.1",
                    "-0.0f",
                    "1_000",
                ]);
                toks[i] = lit.to_string();
            }
            _ => {
                // A byte-level change inside one token.
                let t = &toks[i];
                let mut bytes = t.as_bytes().to_vec();
                if !bytes.is_empty() {
                    let k = rng.below(bytes.len());
                    bytes[k] = rng.next_u64() as u8;
                }
                toks[i] = String::from_utf8_lossy(&bytes).into_owned();
            }
        }
    }
    toks.concat()
}

/// Wraps a kernel body expression in a complete, otherwise valid program.
fn in_kernel(body: &str) -> String {
    format!(
        "package f;\nimport cajeta.xpu.*;\n\npublic final class F {{\n    @Kernel\n    public static void k(KernelBuffer<int32> out, uint32 n) {{\n        int32 x = (int32) n;\n        boolean c = n > 3;\n{body}\n    }}\n}}\n"
    )
}

/// Size-stress programs: long operator chains, nested blocks, nested `?:`, prefix-operator
/// runs, nested parentheses and calls, long identifiers, invalid characters, many locals.
/// `size` is the nesting depth or length; the name says which shape (for the report).
pub fn nesting(rng: &mut Rng, size: usize) -> (&'static str, String) {
    let n = size.max(1);
    match rng.below(10) {
        0 => (
            "plus-chain",
            in_kernel(&format!("        out[0] = x{};", " + x".repeat(n))),
        ),
        1 => (
            "nested-blocks",
            in_kernel(&format!("{}out[0] = x;{}", "{".repeat(n), "}".repeat(n))),
        ),
        2 => (
            "nested-ternary",
            in_kernel(&format!(
                "        out[0] = {}x{};",
                "c ? (".repeat(n),
                ") : 1".repeat(n)
            )),
        ),
        3 => {
            let ops: String = (0..n).map(|_| *rng.pick(&["~", "-", "+"])).collect();
            // A space between prefix operators keeps `--`/`++` from lexing as one token.
            let spaced: String = ops.chars().map(|c| format!("{c} ")).collect();
            (
                "prefix-run",
                in_kernel(&format!("        out[0] = {spaced}x;")),
            )
        }
        4 => (
            "nested-parens",
            in_kernel(&format!(
                "        out[0] = {}x{};",
                "(".repeat(n),
                ")".repeat(n)
            )),
        ),
        5 => {
            let name: String = (0..n).map(|i| if i % 7 == 0 { 'Q' } else { 'a' }).collect();
            let declared = rng.chance(50);
            let body = if declared {
                format!("        int32 {name} = x;\n        out[0] = {name};")
            } else {
                format!("        out[0] = {name};")
            };
            ("long-identifier", in_kernel(&body))
        }
        6 => {
            let junk: String = (0..n)
                .map(|_| *rng.pick(&['#', '$', '`', '§', '\u{1}']))
                .collect();
            ("invalid-chars", in_kernel(&format!("        {junk}")))
        }
        7 => {
            let body: String = (0..n.min(20_000))
                .map(|i| format!("        int32 l{i} = x + {i};\n"))
                .collect();
            (
                "many-locals",
                in_kernel(&format!("{body}        out[0] = x;")),
            )
        }
        8 => (
            "nested-ifs",
            in_kernel(&format!(
                "{}out[0] = x;{}",
                "if (c) { ".repeat(n),
                " }".repeat(n)
            )),
        ),
        _ => (
            "nested-calls",
            in_kernel(&format!(
                "        out[0] = {}x{};",
                "Math.abs(".repeat(n),
                ")".repeat(n)
            )),
        ),
    }
}

/// Draws the size of a nesting input: log-uniform in `1..=max`, so small and large sizes
/// are both common.
pub fn nesting_size(rng: &mut Rng, max: usize) -> usize {
    let bits = usize::BITS - max.max(1).leading_zeros();
    let cap = 1usize << rng.range(0, bits as usize);
    rng.range(1, cap).min(max)
}

/// Greedy reduction: removes ever smaller runs of tokens (then single characters) while
/// `still_fails` holds. Used to shrink findings to a minimal reproducer.
/// Stops after `budget` attempts or 10 seconds, whichever comes first.
pub fn reduce(text: &str, mut still_fails: impl FnMut(&str) -> bool, budget: usize) -> String {
    let start = std::time::Instant::now();
    let mut toks: Vec<String> = tokens(text).into_iter().map(str::to_string).collect();
    let mut tries = 0;
    let mut chunk = (toks.len() / 2).max(1);
    while chunk >= 1 && tries < budget {
        let mut i = 0;
        while i < toks.len() && tries < budget && start.elapsed().as_secs() < 10 {
            let end = (i + chunk).min(toks.len());
            let candidate: String = toks[..i].concat() + &toks[end..].concat();
            tries += 1;
            if still_fails(&candidate) {
                toks.drain(i..end);
            } else {
                i += chunk;
            }
        }
        if chunk == 1 {
            break;
        }
        chunk /= 2;
    }
    toks.concat()
}
