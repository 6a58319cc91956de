//! Diagnostics for tools (`--error-format json`): every error, warning and note the `cajetac`
//! command prints, as one JSON object per line on stderr, in the versioned schema [`SCHEMA`]
//! (docs/cli.md, "JSON diagnostics", is the reference for the fields).
//!
//! A [`Record`] comes from a compile [`Diagnostic`] ([`Record::compile`]), a runtime error of
//! host code (`host::interp::HostError::record`) or a message of the command itself
//! ([`Record::plain`]). Positions are resolved against the [`SourceMap`] when the record is
//! made, so a record owns all it prints. Its `rendered` field is the exact text the human
//! format prints for it: the two formats cannot say different things.
//!
//! Versioning: adding a field or a new value of `kind` keeps [`SCHEMA`]; removing or renaming
//! a field, or changing what one means, makes it `cajetac-diagnostics/2`.

use super::render::render_one;
use super::{Diagnostic, Severity, SourceMap, Span};
use serde::Serialize;

/// The `schema` field of every record.
pub const SCHEMA: &str = "cajetac-diagnostics/1";

/// What failed, which also fixes the exit status (docs/cli.md, "Exit status").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// The program does not compile, or cannot be run as asked (exit status 1).
    Compile,
    /// A bad option value or combination (exit status 2).
    Usage,
    /// A file the command reads or writes (exit status 2).
    Io,
    /// Host code failed while running: its own error, a launch, the device (exit status 3).
    Runtime,
}

/// How serious a record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// The command fails.
    Error,
    /// The command goes on (a precision fallback, …).
    Warning,
    /// Information (`note: the program has no kernels …`).
    Note,
}

impl Level {
    fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Note => "note",
        }
    }
}

/// A span of source with what it says: the primary label is where the problem is, secondary
/// ones related places. Lines and columns are 1-based and count as the human format does
/// (columns in characters); the end is the position just past the span's last byte, so an
/// empty span (an insertion point) has equal start and end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Label {
    /// The file's name as given on the command line (`<stdlib>/…` for the prelude).
    pub file: String,
    /// First byte, 0-based.
    pub byte_start: usize,
    /// One past the last byte.
    pub byte_end: usize,
    /// Line of the first byte.
    pub line_start: usize,
    /// Column of the first byte.
    pub column_start: usize,
    /// Line of the end position.
    pub line_end: usize,
    /// Column of the end position.
    pub column_end: usize,
    /// Whether this is the primary label (exactly one per record that has labels).
    pub primary: bool,
    /// The text printed under the span; empty when there is none.
    pub label: String,
}

impl Label {
    /// A label at `span`, cut to its file's text as the human format cuts it.
    pub fn new(map: &SourceMap, span: Span, primary: bool, label: impl Into<String>) -> Label {
        let bytes = map.clamp(span);
        let (line_start, column_start) = map.line_col_at(span.file, bytes.start);
        let (line_end, column_end) = map.line_col_at(span.file, bytes.end);
        Label {
            file: map.name(span.file).to_string(),
            byte_start: bytes.start,
            byte_end: bytes.end,
            line_start,
            column_start,
            line_end,
            column_end,
            primary,
            label: label.into(),
        }
    }
}

/// What a note is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NoteLevel {
    /// More about the problem.
    Note,
    /// A suggested fix.
    Help,
}

/// A note under a diagnostic (`= help: add a cast` in the human format).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    /// `help` for a suggested fix, else `note`.
    pub level: NoteLevel,
    /// The text, without its `help: ` prefix.
    pub message: String,
}

impl Note {
    /// A note (never a suggested fix).
    pub fn plain(message: impl Into<String>) -> Note {
        Note {
            level: NoteLevel::Note,
            message: message.into(),
        }
    }

    /// A diagnostic's note: `help: …` is a suggested fix, anything else a note.
    fn from_text(text: &str) -> Note {
        match text.strip_prefix("help: ") {
            Some(rest) => Note {
                level: NoteLevel::Help,
                message: rest.to_string(),
            },
            None => Note::plain(text),
        }
    }
}

/// One error, warning or note of the command: one line of `--error-format json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Record {
    /// What failed.
    pub kind: Kind,
    /// How serious it is.
    pub severity: Level,
    /// The stable code of a compile diagnostic (`E0008`); `null` for everything else.
    pub code: Option<&'static str>,
    /// What is wrong, in one line.
    pub message: String,
    /// Where, primary label first; empty when the record has no source position.
    pub labels: Vec<Label>,
    /// Notes and suggested fixes, in order.
    pub notes: Vec<Note>,
    /// The record as the human format prints it, ending in a newline.
    pub rendered: String,
}

impl Record {
    /// A compile diagnostic.
    pub fn compile(map: &SourceMap, d: &Diagnostic) -> Record {
        let primary = Label::new(map, d.primary, true, d.primary_label.as_str());
        let secondary = d
            .secondary
            .iter()
            .map(|(span, text)| Label::new(map, *span, false, text.as_str()));
        Record {
            kind: Kind::Compile,
            severity: match d.severity {
                Severity::Error => Level::Error,
                Severity::Warning => Level::Warning,
            },
            code: Some(d.code.as_str()),
            message: d.message.clone(),
            labels: std::iter::once(primary).chain(secondary).collect(),
            notes: d.notes.iter().map(|n| Note::from_text(n)).collect(),
            rendered: render_one(map, d),
        }
    }

    /// A message without a source position, printed as `severity: message`.
    pub fn plain(kind: Kind, severity: Level, message: impl Into<String>) -> Record {
        let message = message.into();
        Record {
            kind,
            severity,
            code: None,
            rendered: format!("{}: {message}\n", severity.as_str()),
            message,
            labels: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// The record as one line of JSON (no newline), its `schema` field first.
    pub fn to_json(&self) -> String {
        #[derive(Serialize)]
        struct Line<'a> {
            schema: &'static str,
            #[serde(flatten)]
            record: &'a Record,
        }
        serde_json::to_string(&Line {
            schema: SCHEMA,
            record: self,
        })
        .expect("a record serializes")
    }
}

/// Renders compile diagnostics for tools: one [`Record`] per line, each line ending in a
/// newline (what `--error-format json` prints for them).
pub fn render_json(map: &SourceMap, diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .map(|d| Record::compile(map, d).to_json() + "\n")
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Code;

    /// A span over two lines after a multi-byte character, and one past the end of its file:
    /// lines and columns as the human format counts them, the end just past the last byte.
    #[test]
    fn labels_have_start_and_end_positions() {
        let mut map = SourceMap::new();
        let text = "ab\n\u{e9}cd\nef\n";
        let f = map.add("x.cajeta", text);
        let c = text.find('c').unwrap();
        let e = text.find('e').unwrap();
        let d = Diagnostic::error(Code::TypeMismatch, Span::new(f, c, e + 1), "m")
            .with_label("here")
            .with_secondary(Span::new(f, 1, 99), "cut")
            .with_note("help: fix it")
            .with_note("a note");
        let r = Record::compile(&map, &d);
        let p = &r.labels[0];
        assert!(p.primary && p.label == "here");
        assert_eq!((p.byte_start, p.byte_end), (c, e + 1));
        assert_eq!((p.line_start, p.column_start), (2, 2));
        assert_eq!((p.line_end, p.column_end), (3, 2));
        let s = &r.labels[1];
        assert!(!s.primary);
        assert_eq!((s.byte_start, s.byte_end), (1, text.len()));
        assert_eq!((s.line_end, s.column_end), (4, 1));
        assert_eq!(
            r.notes,
            vec![
                Note {
                    level: NoteLevel::Help,
                    message: "fix it".into()
                },
                Note {
                    level: NoteLevel::Note,
                    message: "a note".into()
                }
            ]
        );
        assert!(r.rendered.contains("x.cajeta:2:2"), "{}", r.rendered);
        let line = r.to_json();
        assert!(!line.contains('\n'));
        assert!(line.starts_with(r#"{"schema":"cajetac-diagnostics/1","kind":"compile","#));
    }
}
