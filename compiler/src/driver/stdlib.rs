//! The stdlib prelude, compiled into the binary so `cajetac` needs no install tree, and the
//! pruning that keeps only what a program can reach of it for parsing.

use super::stdlib_scan::{class_spans, classes_named_in, is_word_byte, ClassSpan};

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
    (
        "cajeta/comm.cajeta",
        include_str!("../../../stdlib/cajeta/comm.cajeta"),
    ),
    (
        "cajeta/blas.cajeta",
        include_str!("../../../stdlib/cajeta/blas.cajeta"),
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

pub(crate) use super::stdlib_scan::ALSO_NAMES;

/// The build script's index of the stdlib (`build.rs` runs [`class_spans`] over the files
/// listed above): per file, its length and its classes with their members.
type GeneratedIndex = [(usize, &'static [GeneratedClass])];
/// One class of [`GeneratedIndex`]: name, start, end, members (name, start, end).
type GeneratedClass = (
    &'static str,
    usize,
    usize,
    &'static [(&'static str, usize, usize)],
);
include!(concat!(env!("OUT_DIR"), "/stdlib_index.rs"));
// `STDLIB_REFS` (same file): per class of the index, in file order, per member, the classes
// its text names (`classes_named_in`, sorted, without repeats), so that pruning does not look
// up every capitalized word of every kept member on every compile.

/// The classes of stdlib file `f`: from the build script's index when it was made from this
/// very text (same length; a test checks it equals a fresh scan), else scanned now.
#[cfg(test)]
fn spans_of(f: usize, text: &'static str) -> Vec<ClassSpan> {
    match STDLIB_INDEX.get(f) {
        Some(&(len, classes)) if len == text.len() => classes
            .iter()
            .map(|&(name, start, end, members)| ClassSpan {
                file: f,
                name,
                start,
                end,
                members: members.to_vec(),
            })
            .collect(),
        _ => class_spans(f, text),
    }
}

/// One class of the stdlib as [`pruned_stdlib`] reads it: borrowed from the build script's
/// index (no copy of its members on every compile) or from a fresh scan.
struct Class<'a> {
    file: usize,
    name: &'static str,
    start: usize,
    end: usize,
    members: &'a [(&'static str, usize, usize)],
}

/// The words of a program as a set: a bit per hash of each word (FNV-1a), 64K bits. A
/// collision only keeps a stdlib member or class that was not needed (correct, a little
/// slower); it replaced collecting, sorting and bisecting the words, a tenth of a small
/// program's compile.
struct WordSet([u64; 1024]);

impl WordSet {
    fn hash(w: &str) -> usize {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for &b in w.as_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        (h ^ (h >> 32)) as usize & 0xffff
    }

    fn insert(&mut self, w: &str) {
        self.set(Self::hash(w));
    }

    fn set(&mut self, h: usize) {
        self.0[h / 64] |= 1 << (h % 64);
    }

    /// Inserts every word of `text` ([`words`]' words, the same hashes as [`Self::insert`])
    /// in one pass over its bytes, hashing as it goes: going through `words` and hashing
    /// each word after was 26 instructions a byte, 2.9% of a 200-kernel build.
    fn insert_words(&mut self, text: &str) {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut in_word = false;
        for &b in text.as_bytes() {
            if is_word_byte(b) {
                h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
                in_word = true;
            } else if in_word {
                self.set((h ^ (h >> 32)) as usize & 0xffff);
                h = 0xcbf2_9ce4_8422_2325;
                in_word = false;
            }
        }
        if in_word {
            self.set((h ^ (h >> 32)) as usize & 0xffff);
        }
    }

    fn contains(&self, w: &str) -> bool {
        let h = Self::hash(w);
        self.0[h / 64] & (1 << (h % 64)) != 0
    }
}

/// The parts of every stdlib file to parse for a program made of `user` files (byte ranges,
/// in order): everything but what the program cannot reach. A class is reachable when the
/// program's text names it (or an older name of it), when the checker reaches it implicitly
/// ([`ALWAYS`]), or when a kept member of a reachable class names it; a member of a reachable
/// class is kept when the program's text contains its name (overloads share it, so all of
/// them stay). Package and import lines stay, and the parser is given the parts at their
/// offsets in the real file (`syntax::parse_file_parts`), so spans are as before.
///
/// Parsing the whole prelude was most of a small program's compile time. A program that uses
/// something dropped fails to check; the driver then checks it again with the whole stdlib,
/// so what compiles and every diagnostic are as before.
pub fn pruned_stdlib(user: &[(String, String)]) -> Vec<Vec<(usize, usize)>> {
    // Files the build-time index does not describe (edited since) are scanned now.
    let scanned: Vec<Option<Vec<ClassSpan>>> = STDLIB_FILES
        .iter()
        .enumerate()
        .map(|(f, (_, text))| match STDLIB_INDEX.get(f) {
            Some(&(len, _)) if len == text.len() => None,
            _ => Some(class_spans(f, text)),
        })
        .collect();
    let mut spans: Vec<Class> = Vec::with_capacity(96);
    for (f, scan) in scanned.iter().enumerate() {
        match scan {
            None => spans.extend(
                STDLIB_INDEX[f]
                    .1
                    .iter()
                    .map(|&(name, start, end, members)| Class {
                        file: f,
                        name,
                        start,
                        end,
                        members,
                    }),
            ),
            Some(classes) => spans.extend(classes.iter().map(|c| Class {
                file: f,
                name: c.name,
                start: c.start,
                end: c.end,
                members: &c.members,
            })),
        }
    }
    // The classes each member names: from the build script when it indexed every file as
    // it is now (class numbers are positions in `spans`), else found now.
    let refs_current = scanned.iter().all(Option::is_none) && STDLIB_REFS.len() == spans.len();
    let names: Vec<&str> = match refs_current {
        true => Vec::new(),
        false => spans.iter().map(|c| c.name).collect(),
    };
    let mut named = WordSet([0; 1024]);
    for w in IMPLICIT_MEMBERS {
        named.insert(w);
    }
    for (_, text) in user {
        named.insert_words(text);
    }
    // A class is reached implicitly, or named by its own name or an older one.
    let class_named = |c: &Class| {
        ALWAYS.contains(&c.name)
            || named.contains(c.name)
            || ALSO_NAMES
                .iter()
                .any(|(old, new)| *new == c.name && named.contains(old))
    };
    let mut keep = vec![false; spans.len()];
    let mut todo: Vec<usize> = (0..spans.len())
        .filter(|&i| class_named(&spans[i]))
        .collect();
    while let Some(c) = todo.pop() {
        if std::mem::replace(&mut keep[c], true) {
            continue;
        }
        let s = &spans[c];
        for (m, &(_, a, b)) in s.members.iter().enumerate() {
            if !named.contains(s.members[m].0) {
                continue;
            }
            if refs_current {
                let refs = STDLIB_REFS[c][m].iter().map(|&d| usize::from(d));
                todo.extend(refs.filter(|&d| !keep[d]));
            } else {
                let text = &STDLIB_FILES[s.file].1[a..b];
                todo.extend(
                    classes_named_in(text, &names)
                        .into_iter()
                        .filter(|&d| !keep[d]),
                );
            }
        }
    }
    STDLIB_FILES
        .iter()
        .enumerate()
        .map(|(f, (_, text))| {
            // What is dropped, in file order (classes are, and members within them).
            let mut dropped = Vec::new();
            for (s, &k) in spans.iter().zip(&keep).filter(|(s, _)| s.file == f) {
                if !k {
                    dropped.push((s.start, s.end));
                    continue;
                }
                dropped.extend(
                    s.members
                        .iter()
                        .filter(|m| !named.contains(m.0))
                        .map(|&(_, a, b)| (a, b)),
                );
            }
            let mut parts = Vec::with_capacity(dropped.len() + 1);
            let mut at = 0;
            for (a, b) in dropped {
                if a > at {
                    parts.push((at, a));
                }
                at = b;
            }
            if text.len() > at {
                parts.push((at, text.len()));
            }
            parts
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::stdlib_scan::{is_word_byte, member_name};
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
    fn build_index_is_current() {
        for (f, (name, text)) in STDLIB_FILES.iter().enumerate() {
            assert_eq!(STDLIB_INDEX[f].0, text.len(), "{name}");
            assert_eq!(spans_of(f, text), class_spans(f, text), "{name}");
        }
        assert_eq!(STDLIB_INDEX.len(), STDLIB_FILES.len());
    }

    /// The build script's list of the classes each member names is what pruning would find
    /// by looking the member's words up now.
    #[test]
    fn build_refs_are_current() {
        let classes: Vec<ClassSpan> = STDLIB_FILES
            .iter()
            .enumerate()
            .flat_map(|(f, (_, text))| class_spans(f, text))
            .collect();
        let names: Vec<&str> = classes.iter().map(|c| c.name).collect();
        assert_eq!(STDLIB_REFS.len(), classes.len());
        let mut some = 0;
        for (c, refs) in classes.iter().zip(STDLIB_REFS) {
            assert_eq!(refs.len(), c.members.len(), "{}", c.name);
            for (&(member, a, b), built) in c.members.iter().zip(refs.iter()) {
                let mut now = classes_named_in(&STDLIB_FILES[c.file].1[a..b], &names);
                now.sort_unstable();
                now.dedup();
                let built: Vec<usize> = built.iter().map(|&d| usize::from(d)).collect();
                assert_eq!(built, now, "{}.{member}", c.name);
                some += usize::from(!now.is_empty());
            }
        }
        assert!(some > 10, "only {some} members name a class");
    }

    /// Hashing the words of a text in one pass sets the bits that inserting each of its
    /// words does.
    #[test]
    fn insert_words_is_inserting_each_word() {
        for text in [
            "",
            "a",
            "_x1 y",
            "  KernelBuffer<float32> b = heap KernelBuffer<float32>(n);\n// é ü x",
            STDLIB_FILES[0].1,
        ] {
            let mut one_pass = WordSet([0; 1024]);
            one_pass.insert_words(text);
            let mut each = WordSet([0; 1024]);
            for w in crate::driver::stdlib_scan::words(text) {
                each.insert(w);
            }
            assert!(one_pass.0 == each.0, "{text:?}");
        }
    }

    #[test]
    fn word_bytes_are_ascii_letters_digits_and_underscore() {
        for b in 0..=255u8 {
            assert_eq!(
                is_word_byte(b),
                b.is_ascii_alphanumeric() || b == b'_',
                "{b}"
            );
        }
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
        assert_eq!(members.len(), 11, "{members:?}");
        assert!(members.contains(&"deviceClock"), "{members:?}");
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

    /// Parsing the kept parts gives the tree (spans included) of parsing the file with the
    /// rest blanked out.
    #[test]
    fn parts_parse_like_the_blanked_file() {
        let user = vec![(
            "a.cajeta".to_string(),
            "class A { void f(KernelBuffer<float32> b, Texture2D t) { b.atomicAdd(0, 1.0f); } }"
                .to_string(),
        )];
        for (f, ((_, text), parts)) in STDLIB_FILES.iter().zip(pruned_stdlib(&user)).enumerate() {
            let mut bytes: Vec<u8> = text
                .bytes()
                .map(|b| if b == b'\n' { b } else { b' ' })
                .collect();
            for &(a, b) in &parts {
                bytes[a..b].copy_from_slice(&text.as_bytes()[a..b]);
            }
            let blanked = String::from_utf8(bytes).unwrap();
            let whole = crate::syntax::parse_file(f, &blanked).unwrap();
            let pruned = crate::syntax::parse_file_parts(f, text, &parts).unwrap();
            assert_eq!(whole, pruned, "{}", STDLIB_FILES[f].0);
        }
    }

    #[test]
    fn blanks_only_unreachable_classes() {
        let user = vec![(
            "a.cajeta".to_string(),
            "import cajeta.xpu.*; class A { void f(Buffer<int32> b) { Math.abs(1); } }".to_string(),
        )];
        // The kept parts, with what is dropped blanked (newlines kept).
        let pruned: Vec<String> = STDLIB_FILES
            .iter()
            .zip(pruned_stdlib(&user))
            .map(|((_, text), parts)| {
                let mut bytes: Vec<u8> = text
                    .bytes()
                    .map(|b| if b == b'\n' { b } else { b' ' })
                    .collect();
                for (a, b) in parts {
                    bytes[a..b].copy_from_slice(&text.as_bytes()[a..b]);
                }
                String::from_utf8(bytes).unwrap()
            })
            .collect();
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
