//! Rendering diagnostics for people (codespan-reporting) and for tools (JSON).

use super::{Diagnostic, FileId, Severity, Span};
use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::{self, Files};
use codespan_reporting::term;
use std::borrow::Cow;
use std::cell::OnceCell;

/// The source files of one compilation, for rendering and for `file:line:col` positions.
///
/// A file's line starts are computed the first time a position in it is asked for (a
/// diagnostic is rendered): most compiles render none, and the stdlib files are large next to
/// a small program. The stdlib's texts are borrowed, not copied.
#[derive(Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

struct SourceFile {
    name: String,
    source: Cow<'static, str>,
    line_starts: OnceCell<Vec<usize>>,
}

impl SourceFile {
    fn line_starts(&self) -> &[usize] {
        self.line_starts
            .get_or_init(|| codespan_reporting::files::line_starts(&self.source).collect())
    }

    /// Where line `line_index` starts; the end of the text for the line after the last (as
    /// codespan's `SimpleFile`).
    fn line_start(&self, line_index: usize) -> Result<usize, files::Error> {
        let starts = self.line_starts();
        match line_index.cmp(&starts.len()) {
            std::cmp::Ordering::Less => Ok(starts[line_index]),
            std::cmp::Ordering::Equal => Ok(self.source.len()),
            std::cmp::Ordering::Greater => Err(files::Error::LineTooLarge {
                given: line_index,
                max: starts.len() - 1,
            }),
        }
    }
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Adds a file and returns its id.
    pub fn add(&mut self, name: impl Into<String>, source: impl Into<Cow<'static, str>>) -> FileId {
        self.files.push(SourceFile {
            name: name.into(),
            source: source.into(),
            line_starts: OnceCell::new(),
        });
        self.files.len() - 1
    }

    fn file(&self, file: FileId) -> Result<&SourceFile, files::Error> {
        self.files.get(file).ok_or(files::Error::FileMissing)
    }

    /// The source text of a file.
    pub fn source(&self, file: FileId) -> &str {
        self.file(file).map_or("", |f| &f.source)
    }

    /// The name of a file.
    pub fn name(&self, file: FileId) -> &str {
        self.file(file).map_or("<unknown>", |f| &f.name)
    }

    /// 1-based line and column of the span's start.
    pub fn line_col(&self, span: Span) -> (usize, usize) {
        self.line_col_at(span.file, span.start as usize)
    }

    /// 1-based line and column of a byte offset, the column counted in characters as the
    /// rendered diagnostics count it; `(0, 0)` for an unknown file.
    pub fn line_col_at(&self, file: FileId, byte: usize) -> (usize, usize) {
        match Files::location(self, file, byte) {
            Ok(loc) => (loc.line_number, loc.column_number),
            Err(_) => (0, 0),
        }
    }

    /// `file:line:col` of the span's start.
    pub fn position(&self, span: Span) -> String {
        let (line, col) = self.line_col(span);
        format!("{}:{}:{}", self.name(span.file), line, col)
    }

    /// The span's bytes, cut to its file's text (as rendered).
    pub(super) fn clamp(&self, span: Span) -> std::ops::Range<usize> {
        let len = self.source(span.file).len();
        let start = (span.start as usize).min(len);
        let end = (span.end as usize).clamp(start, len);
        start..end
    }
}

impl<'a> Files<'a> for SourceMap {
    type FileId = FileId;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: FileId) -> Result<&'a str, files::Error> {
        Ok(&self.file(id)?.name)
    }

    fn source(&'a self, id: FileId) -> Result<&'a str, files::Error> {
        Ok(&self.file(id)?.source)
    }

    fn line_index(&'a self, id: FileId, byte_index: usize) -> Result<usize, files::Error> {
        let starts = self.file(id)?.line_starts();
        Ok(starts
            .binary_search(&byte_index)
            .unwrap_or_else(|next_line| next_line - 1))
    }

    fn line_range(
        &'a self,
        id: FileId,
        line_index: usize,
    ) -> Result<std::ops::Range<usize>, files::Error> {
        let file = self.file(id)?;
        Ok(file.line_start(line_index)?..file.line_start(line_index + 1)?)
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
    diagnostics.iter().map(|d| render_one(map, d)).collect()
}

/// One diagnostic as [`render_human`] renders it (the `rendered` field of its JSON record).
pub(super) fn render_one(map: &SourceMap, d: &Diagnostic) -> String {
    let config = term::Config::default();
    let mut buf = Vec::new();
    {
        let mut writer = term::termcolor::NoColor::new(&mut buf);
        let _ = term::emit_to_write_style(&mut writer, &config, map, &to_codespan(map, d));
    }
    String::from_utf8_lossy(&buf).into_owned()
}
