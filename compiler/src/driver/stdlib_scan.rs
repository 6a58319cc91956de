//! Finding the classes and members of a stdlib file, for pruning what a program cannot reach
//! (`stdlib.rs`). Also compiled into the build script (`build.rs`, by path), which indexes the
//! embedded stdlib once at build time, so this file uses nothing from the crate.

/// A top-level class of a stdlib file: its name, the bytes it spans (from just after the
/// previous top-level item, so its comments go with it, to its closing brace) and its members
/// (each from just after the previous member or the class's `{` to its `;`, with its name).
#[derive(Debug, Clone, PartialEq)]
pub struct ClassSpan {
    /// Index of the file in the stdlib list.
    pub file: usize,
    /// The class name.
    pub name: &'static str,
    /// First byte (just after the previous top-level item).
    pub start: usize,
    /// One past the closing brace.
    pub end: usize,
    /// Members: name, first byte (after the previous member or the `{`), one past the `;`.
    pub members: Vec<(&'static str, usize, usize)>,
}

/// Older names (SPEC §1) and spellings that stand for a stdlib class (also what `cajetac lsp`
/// resolves them to).
pub const ALSO_NAMES: &[(&str, &str)] = &[
    ("Buffer", "KernelBuffer"),
    ("Stream", "KernelStream"),
    ("Thread", "KernelThread"),
    ("GpuThread", "KernelThread"),
    ("GpuStream", "KernelStream"),
    ("System", "SystemOut"),
];

/// The classes `text` names, as indices into `names` (every class of a name: a class may be
/// declared in parts, in several files): each word that starts with a capital, an older name
/// ([`ALSO_NAMES`]) standing for its class. In the order of the words, repeats included.
pub fn classes_named_in(text: &str, names: &[&str]) -> Vec<usize> {
    let mut out = Vec::new();
    for w in words(text) {
        if !w.as_bytes()[0].is_ascii_uppercase() {
            continue;
        }
        let w = ALSO_NAMES
            .iter()
            .find(|(a, _)| *a == w)
            .map_or(w, |(_, c)| *c);
        out.extend((0..names.len()).filter(|&i| names[i] == w));
    }
    out
}

/// Whether `b` can be part of an identifier.
#[inline]
pub fn is_word_byte(b: u8) -> bool {
    // A table: pruning asks this of every byte of the program (a 200-kernel file is 71 KB),
    // and one load is a third of the comparisons it replaces.
    WORD_BYTES[usize::from(b)]
}

/// [`is_word_byte`] of every byte: ASCII letters and digits, and `_`.
static WORD_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).is_ascii_alphanumeric() || b == b'_' as usize;
        b += 1;
    }
    table
};

/// The identifier-like words of `text`, comments and strings included (a spurious word only
/// keeps something that was not needed). Byte-wise: this runs on every compile.
pub fn words(text: &str) -> impl Iterator<Item = &str> {
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
pub fn member_name(text: &'static str) -> &'static str {
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
pub fn class_spans(file: usize, text: &'static str) -> Vec<ClassSpan> {
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
