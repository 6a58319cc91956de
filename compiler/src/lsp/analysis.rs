//! One analysis of one document: the compiler's frontend over its text (with the stdlib),
//! its diagnostics in LSP form, and what the editor features read afterwards (tokens, syntax
//! tree, checked module).
//!
//! The frontend is the compiler's own (`driver::frontend`), run exactly as `cajetac check`
//! runs it, so the editor shows the same codes, spans, notes and help. A panic inside it is
//! caught here: it is printed to stderr by the panic hook, reported as one diagnostic, and
//! the server goes on with the document's last good analysis.

use super::device_target::DeviceTarget;
use super::facts::Facts;
use super::positions::LineIndex;
use super::stdlib_index::stdlib_file_path;
use crate::diagnostics::{Diagnostic, FileId, Severity, SourceMap, Span};
use crate::driver::{self, STDLIB_FILES};
use crate::ir::{self, FunctionId};
use crate::syntax::ast::SourceFile;
use crate::syntax::lexer::{self, Spanned};
use lsp_types::{DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Url};
use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// The analysis of one version of a document.
pub struct Analysis {
    /// The document's URI.
    pub uri: Url,
    /// The text analysed.
    pub text: String,
    /// Its line starts.
    pub lines: LineIndex,
    /// The file id the document had in the compile (after the stdlib's).
    pub file: FileId,
    /// Its tokens (comments and white space are not tokens), also when it does not parse.
    pub tokens: Vec<Spanned>,
    /// Its syntax tree, when it parses.
    pub ast: Option<SourceFile>,
    /// The checked program, when it checks.
    pub module: Option<ir::Module>,
    /// Its diagnostics, in LSP form.
    pub diagnostics: Vec<lsp_types::Diagnostic>,
    /// How long the frontend took.
    pub elapsed: Duration,
    /// Span → IR lookups, built on the first request that needs them.
    facts: OnceCell<Facts>,
    /// Kernels' reflections as hover text, compiled on the first hover over each.
    pub reflections: RefCell<HashMap<FunctionId, String>>,
    /// The device the client's settings compile for, if any.
    pub target: Option<Rc<DeviceTarget>>,
}

impl Analysis {
    /// Runs the frontend over `text`.
    pub fn new(uri: Url, text: String) -> Analysis {
        Analysis::for_target(uri, text, None)
    }

    /// Runs the frontend over `text` and, when it checks and a device `target` is chosen,
    /// compiles the kernels for that device: a kernel that does not compile for it, or needs
    /// what it lacks, is reported as `cajetac build --device-profile` reports it.
    pub fn for_target(uri: Url, text: String, target: Option<Rc<DeviceTarget>>) -> Analysis {
        let start = Instant::now();
        let file = STDLIB_FILES.len();
        let name = uri
            .to_file_path()
            .map_or_else(|_| uri.to_string(), |p| p.display().to_string());
        let mut sources = SourceMap::new();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            driver::frontend(&mut sources, &[(name, text.clone())])
        }));
        let elapsed = start.elapsed();
        let (module, diagnostics) = match outcome {
            Ok(Ok(module)) => {
                let on_device = target.as_ref().map_or_else(Vec::new, |t| {
                    catch_unwind(AssertUnwindSafe(|| t.check(&module).1)).unwrap_or_default()
                });
                // The checker's warnings (W…), as `cajetac check` prints them, then the device's.
                let converted = module
                    .warnings
                    .iter()
                    .chain(&on_device)
                    .map(|d| to_lsp(&sources, &text, file, &uri, d))
                    .collect();
                (Some(module), converted)
            }
            Ok(Err(diags)) => {
                let converted = diags
                    .iter()
                    .map(|d| to_lsp(&sources, &text, file, &uri, d))
                    .collect();
                (None, converted)
            }
            Err(_) => {
                eprintln!("cajetac lsp: the analysis of {uri} panicked (message above)");
                (None, vec![internal_error()])
            }
        };
        // The tokens and tree are for the editor's features; the frontend made its own.
        let (tokens, ast) = catch_unwind(AssertUnwindSafe(|| {
            let tokens = lexer::lex(file, &text).0;
            let ast = crate::syntax::parse_file(file, &text).ok();
            (tokens, ast)
        }))
        .unwrap_or_default();
        let lines = LineIndex::new(&text);
        Analysis {
            uri,
            text,
            lines,
            file,
            tokens,
            ast,
            module,
            diagnostics,
            elapsed,
            facts: OnceCell::new(),
            reflections: RefCell::default(),
            target,
        }
    }

    /// The span → IR lookups of the checked program (empty when it did not check).
    pub fn facts(&self) -> &Facts {
        self.facts
            .get_or_init(|| Facts::new(self.module.as_ref(), self.ast.as_ref(), self.file))
    }

    /// The LSP range of bytes `start..end` of the document.
    pub fn range(&self, start: usize, end: usize) -> lsp_types::Range {
        self.lines.range(&self.text, start, end)
    }

    /// The byte offset of an LSP position in the document.
    pub fn offset(&self, pos: lsp_types::Position) -> usize {
        self.lines.offset(&self.text, pos)
    }
}

fn internal_error() -> lsp_types::Diagnostic {
    lsp_types::Diagnostic {
        range: lsp_types::Range::default(),
        severity: Some(DiagnosticSeverity::ERROR),
        source: Some("cajetac".into()),
        message: "internal compiler error while analysing this file (see the language \
                  server's log); please report it"
            .into(),
        ..Default::default()
    }
}

/// Where `span` is for the editor: in the document, or in the stdlib copy on disk.
fn location(sources: &SourceMap, text: &str, file: FileId, uri: &Url, span: Span) -> Location {
    if span.file == file {
        let lines = LineIndex::new(text);
        return Location::new(
            uri.clone(),
            lines.range(text, span.start as usize, span.end as usize),
        );
    }
    let source = sources.source(span.file);
    let lines = LineIndex::new(source);
    let range = lines.range(source, span.start as usize, span.end as usize);
    let target = stdlib_file_path(span.file)
        .and_then(|p| Url::from_file_path(p).ok())
        .unwrap_or_else(|| uri.clone());
    Location::new(target, range)
}

/// A compiler diagnostic as the editor shows it: the code, the primary span (or the top of
/// the file when it lies in the stdlib), the message followed by the primary label and the
/// notes (`help: …` kept as written), and every secondary label as related information.
pub fn to_lsp(
    sources: &SourceMap,
    text: &str,
    file: FileId,
    uri: &Url,
    d: &Diagnostic,
) -> lsp_types::Diagnostic {
    let range = if d.primary.file == file {
        LineIndex::new(text).range(text, d.primary.start as usize, d.primary.end as usize)
    } else {
        lsp_types::Range::default()
    };
    let mut message = d.message.clone();
    if !d.primary_label.is_empty() {
        message.push_str(&format!(" ({})", d.primary_label));
    }
    for note in &d.notes {
        if note.starts_with("help: ") || note.starts_with("note: ") {
            message.push_str(&format!("\n{note}"));
        } else {
            message.push_str(&format!("\nnote: {note}"));
        }
    }
    let mut related: Vec<DiagnosticRelatedInformation> = d
        .secondary
        .iter()
        .map(|(span, label)| DiagnosticRelatedInformation {
            location: location(sources, text, file, uri, *span),
            message: if label.is_empty() {
                "related".into()
            } else {
                label.clone()
            },
        })
        .collect();
    if d.primary.file != file {
        related.insert(
            0,
            DiagnosticRelatedInformation {
                location: location(sources, text, file, uri, d.primary),
                message: d.primary_label.clone(),
            },
        );
    }
    lsp_types::Diagnostic {
        range,
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.as_str().to_string())),
        source: Some("cajetac".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..Default::default()
    }
}
