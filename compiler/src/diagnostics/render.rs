//! Rendering diagnostics for people (codespan-reporting) and for tools (JSON).

use super::{Diagnostic, FileId, Severity, Span};
use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::{Files, SimpleFiles};
use codespan_reporting::term;

/// The source files of one compilation, for rendering and for `file:line:col` positions.
#[derive(Default)]
pub struct SourceMap {
    files: SimpleFiles<String, String>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Adds a file and returns its id.
    pub fn add(&mut self, name: impl Into<String>, source: impl Into<String>) -> FileId {
        self.files.add(name.into(), source.into())
    }

    /// The source text of a file.
    pub fn source(&self, file: FileId) -> &str {
        self.files
            .get(file)
            .map(|f| f.source().as_str())
            .unwrap_or("")
    }

    /// The name of a file.
    pub fn name(&self, file: FileId) -> &str {
        self.files
            .get(file)
            .map(|f| f.name().as_str())
            .unwrap_or("<unknown>")
    }

    /// 1-based line and column of the span's start.
    pub fn line_col(&self, span: Span) -> (usize, usize) {
        let start = span.start as usize;
        match self.files.location(span.file, start) {
            Ok(loc) => (loc.line_number, loc.column_number),
            Err(_) => (0, 0),
        }
    }

    /// `file:line:col` of the span's start.
    pub fn position(&self, span: Span) -> String {
        let (line, col) = self.line_col(span);
        format!("{}:{}:{}", self.name(span.file), line, col)
    }

    fn clamp(&self, span: Span) -> std::ops::Range<usize> {
        let len = self.source(span.file).len();
        let start = (span.start as usize).min(len);
        let end = (span.end as usize).clamp(start, len);
        start..end
    }
}

fn to_codespan(map: &SourceMap, d: &Diagnostic) -> cs::Diagnostic<FileId> {
    let mut labels = vec![cs::Label::primary(d.primary.file, map.clamp(d.primary))
        .with_message(d.primary_label.clone())];
    for (span, text) in &d.secondary {
        labels.push(cs::Label::secondary(span.file, map.clamp(*span)).with_message(text.clone()));
    }
    let base = match d.severity {
        Severity::Error => cs::Diagnostic::error(),
        Severity::Warning => cs::Diagnostic::warning(),
    };
    base.with_code(d.code.as_str())
        .with_message(d.message.clone())
        .with_labels(labels)
        .with_notes(d.notes.clone())
}

/// Renders diagnostics as codespan-reporting text (no colour), each preceded by its
/// `file:line:col` so editors and golden tests can find it.
pub fn render_human(map: &SourceMap, diagnostics: &[Diagnostic]) -> String {
    let config = term::Config::default();
    let mut out = String::new();
    for d in diagnostics {
        let mut buf = Vec::new();
        {
            let mut writer = term::termcolor::NoColor::new(&mut buf);
            let _ =
                term::emit_to_write_style(&mut writer, &config, &map.files, &to_codespan(map, d));
        }
        out.push_str(&String::from_utf8_lossy(&buf));
    }
    out
}

/// Renders diagnostics as a JSON array for tools (`--error-format json`).
pub fn render_json(map: &SourceMap, diagnostics: &[Diagnostic]) -> String {
    let items: Vec<serde_json::Value> = diagnostics
        .iter()
        .map(|d| {
            let (line, column) = map.line_col(d.primary);
            serde_json::json!({
                "severity": match d.severity { Severity::Error => "error", Severity::Warning => "warning" },
                "code": d.code.as_str(),
                "message": d.message,
                "file": map.name(d.primary.file),
                "line": line,
                "column": column,
                "start": d.primary.start,
                "end": d.primary.end,
                "label": d.primary_label,
                "notes": d.notes,
            })
        })
        .collect();
    serde_json::to_string_pretty(&items).unwrap_or_else(|_| "[]".to_string())
}
