//! The stdlib prelude as the editor sees it: its classes and members with their declarations
//! and doc comments (for hover and completion), and a copy of its files on disk that
//! "go to definition" can open.
//!
//! The prelude is compiled into the binary (`driver::STDLIB_FILES`), so an installed
//! `cajetac` may have no `stdlib/` folder beside it. The files are written once into the
//! compiler's cache folder, in a folder named after a hash of their text: a new compiler with a changed prelude gets a
//! folder of its own, and an editor never shows text that differs from what was checked.

use crate::driver::STDLIB_FILES;
use crate::syntax::ast::{Member, SourceFile};
use std::path::PathBuf;
use std::sync::OnceLock;

/// A member (method or field) of a stdlib class.
#[derive(Debug)]
pub struct StdMember {
    /// Its name.
    pub name: String,
    /// The declaration as written, annotations included, on one line.
    pub decl: String,
    /// The `//` comment lines right above it, without their `//`.
    pub doc: String,
    /// A method (else a field, such as an enum constant).
    pub is_method: bool,
    /// `static`: called on the class (`Math.sqrt`), else on a value (`img.store`).
    pub is_static: bool,
    /// Byte range of its name in its file.
    pub name_range: (usize, usize),
}

/// A class of the prelude. A class declared in two files (`Precision`) is two entries.
#[derive(Debug)]
pub struct StdClass {
    /// Its name.
    pub name: String,
    /// Index of its file in `STDLIB_FILES`.
    pub file: usize,
    /// The `//` comment lines right above it.
    pub doc: String,
    /// Byte range of its name in its file.
    pub name_range: (usize, usize),
    /// Its members in declaration order.
    pub members: Vec<StdMember>,
}

/// Every class of the prelude.
pub struct StdlibIndex {
    /// In file order, then declaration order.
    pub classes: Vec<StdClass>,
}

impl StdlibIndex {
    /// The index, built on first use (parsing the prelude takes about a millisecond).
    pub fn get() -> &'static StdlibIndex {
        static INDEX: OnceLock<StdlibIndex> = OnceLock::new();
        INDEX.get_or_init(StdlibIndex::build)
    }

    fn build() -> StdlibIndex {
        let mut classes = Vec::new();
        for (file, (_, text)) in STDLIB_FILES.iter().enumerate() {
            // A prelude that does not parse is caught by every other test; here it has no
            // classes rather than a panic.
            if let Ok(ast) = crate::syntax::parse_file(file, text) {
                classes.extend(classes_of(file, text, &ast));
            }
        }
        StdlibIndex { classes }
    }

    /// The classes named `name`, or named by its older spelling (`Buffer`, `Thread`…).
    pub fn classes_named<'a>(&'a self, name: &str) -> Vec<&'a StdClass> {
        let found: Vec<&StdClass> = self.classes.iter().filter(|c| c.name == name).collect();
        if !found.is_empty() {
            return found;
        }
        let Some((_, real)) = crate::driver::stdlib::ALSO_NAMES
            .iter()
            .find(|(alias, _)| *alias == name)
        else {
            return found;
        };
        self.classes.iter().filter(|c| c.name == *real).collect()
    }

    /// The members of the classes named `class` called `member`, with their class (several
    /// for overloads).
    pub fn members_named<'a>(
        &'a self,
        class: &str,
        member: &str,
    ) -> Vec<(&'a StdClass, &'a StdMember)> {
        self.classes_named(class)
            .into_iter()
            .flat_map(|c| {
                c.members
                    .iter()
                    .filter(move |m| m.name == member)
                    .map(move |m| (c, m))
            })
            .collect()
    }
}

fn classes_of(file: usize, text: &str, ast: &SourceFile) -> Vec<StdClass> {
    ast.classes
        .iter()
        .map(|c| {
            let start = c
                .annotations
                .first()
                .map_or(c.name.span.start as usize, |a| a.span.start as usize);
            StdClass {
                name: c.name.name.clone(),
                file,
                doc: doc_above(text, start),
                name_range: (c.name.span.start as usize, c.name.span.end as usize),
                members: c
                    .members
                    .iter()
                    .filter_map(|m| member_of(text, m))
                    .collect(),
            }
        })
        .collect()
}

fn member_of(text: &str, m: &Member) -> Option<StdMember> {
    match m {
        Member::Method(d) => {
            let (s, e) = (d.span.start as usize, d.span.end as usize);
            Some(StdMember {
                name: d.name.name.clone(),
                decl: one_line(&text[s..e]),
                doc: doc_above(text, s),
                is_method: true,
                is_static: d.has_modifier("static"),
                name_range: (d.name.span.start as usize, d.name.span.end as usize),
            })
        }
        Member::Field(f) => {
            let s = f
                .annotations
                .first()
                .map_or(f.ty.span.start as usize, |a| a.span.start as usize);
            let e = text[f.name.span.end as usize..]
                .find(';')
                .map_or(f.name.span.end as usize, |i| {
                    f.name.span.end as usize + i + 1
                });
            Some(StdMember {
                name: f.name.name.clone(),
                decl: one_line(&text[s.min(e)..e]),
                doc: doc_above(text, s),
                is_method: false,
                is_static: f.modifiers.iter().any(|m| m == "static"),
                name_range: (f.name.span.start as usize, f.name.span.end as usize),
            })
        }
        Member::Constructor(_) => None,
    }
}

/// A declaration on one line: runs of white space become one space.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The `//` comment lines directly above the line holding byte `start` (the prelude's doc
/// comments are plain line comments right above what they describe).
pub fn doc_above(text: &str, start: usize) -> String {
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let mut lines = Vec::new();
    let mut end = line_start;
    while end > 0 {
        let prev_start = text[..end - 1].rfind('\n').map_or(0, |i| i + 1);
        let line = text[prev_start..end - 1].trim();
        let Some(comment) = line.strip_prefix("//") else {
            break;
        };
        lines.push(comment.strip_prefix(' ').unwrap_or(comment).to_string());
        end = prev_start;
    }
    lines.reverse();
    lines.join("\n")
}

/// The folder holding a copy of the prelude's files (written on first call), or `None` when
/// no cache folder can be written.
pub fn stdlib_folder() -> Option<&'static PathBuf> {
    static FOLDER: OnceLock<Option<PathBuf>> = OnceLock::new();
    FOLDER.get_or_init(write_stdlib_copy).as_ref()
}

/// The path of stdlib file `file` in [`stdlib_folder`].
pub fn stdlib_file_path(file: usize) -> Option<PathBuf> {
    let (name, _) = STDLIB_FILES.get(file)?;
    Some(stdlib_folder()?.join(name))
}

fn write_stdlib_copy() -> Option<PathBuf> {
    // FNV-1a 64 over names and texts: stable across builds and platforms, unlike std's hasher.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for (name, text) in STDLIB_FILES {
        for b in name.bytes().chain([0]).chain(text.bytes()) {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    // The compiler's cache folder (`CAJETA_CACHE_DIR`, else `$XDG_CACHE_HOME/cajeta`); with
    // caches off, the system's temporary folder.
    let base =
        cajeta_runtime::cache_dir_from_env().unwrap_or_else(|| std::env::temp_dir().join("cajeta"));
    let dir = base.join(format!("stdlib-{hash:016x}"));
    for (name, text) in STDLIB_FILES {
        let path = dir.join(name);
        if std::fs::read_to_string(&path).is_ok_and(|t| t == *text) {
            continue;
        }
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|_| std::fs::write(&path, text));
        if let Err(e) = written {
            eprintln!(
                "cajetac lsp: cannot write the stdlib copy `{}`: {e}",
                path.display()
            );
            return None;
        }
    }
    Some(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Members carry their declaration and the comment right above them, and older class
    /// spellings find the class.
    #[test]
    fn members_have_declarations_and_docs() {
        let index = StdlibIndex::get();
        let clock = index.members_named("KernelThread", "clock");
        assert_eq!(clock.len(), 1);
        assert!(clock[0].1.decl.contains("public static uint64 clock()"));
        assert!(
            clock[0].1.doc.contains("64-bit counter"),
            "{}",
            clock[0].1.doc
        );
        assert!(index.members_named("KernelThread", "x")[0].1.doc.is_empty());
        assert!(!index.members_named("Thread", "globalIdX").is_empty());
        let sqrt = index.members_named("Math", "sqrt");
        assert!(!sqrt.is_empty() && sqrt[0].1.is_static);
        let store = index.members_named("Image2D", "store");
        assert!(!store.is_empty() && !store[0].1.is_static);
    }
}
