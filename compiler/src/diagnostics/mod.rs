//! Diagnostics: spans, error codes, and rendering with codespan-reporting (SPEC §10) and as
//! JSON for tools ([`json`]).

mod codes;
pub mod json;
mod render;
pub mod similar;

pub use codes::Code;
pub use json::render_json;
pub use render::{render_human, SourceMap};

/// Identifies a source file in a [`SourceMap`].
pub type FileId = usize;

/// A byte range in one source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// The file.
    pub file: FileId,
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// A span from byte offsets.
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span {
            file,
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// Severity of a diagnostic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// Compilation fails.
    Error,
    /// Compilation continues.
    Warning,
}

/// One compiler message: a code, a primary span, optional secondary labels and notes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Stable code (`E0001`…).
    pub code: Code,
    /// What is wrong.
    pub message: String,
    /// Where.
    pub primary: Span,
    /// Text attached to the primary span.
    pub primary_label: String,
    /// Related places.
    pub secondary: Vec<(Span, String)>,
    /// Notes and suggested fixes (`help: …`).
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error with a code, message and primary span.
    pub fn error(code: Code, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            primary: span,
            primary_label: String::new(),
            secondary: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// A warning: reported, and compilation goes on.
    pub fn warning(code: Code, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, span, message)
        }
    }

    /// Sets the label under the primary span.
    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.primary_label = label.into();
        self
    }

    /// Adds a related span.
    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, label.into()));
        self
    }

    /// Adds a note (`help: add a cast` …).
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }
}
