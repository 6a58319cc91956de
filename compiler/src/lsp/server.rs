//! The server's loop: documents in, diagnostics and answers out.
//!
//! Everything runs on one thread, in message order: an analysis of an example takes a few
//! milliseconds (docs/editors.md gives the figures), so a request never waits long behind
//! one. Each request and each analysis runs under `catch_unwind`: a panic is printed to
//! stderr by the panic hook, the request gets an `InternalError` answer, and the server
//! keeps its documents and goes on.

use super::analysis::Analysis;
use super::device_target::DeviceTarget;
use super::{completion, definition, hover, semantic_tokens, symbols};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Notification as _,
    PublishDiagnostics,
};
use lsp_types::request::{
    Completion, DocumentSymbolRequest, GotoDefinition, HoverRequest, Request as _,
    SemanticTokensFullRequest,
};
use lsp_types::{
    CompletionOptions, CompletionResponse, DocumentSymbolResponse, HoverProviderCapability, OneOf,
    PublishDiagnosticsParams, SemanticTokensFullOptions, SemanticTokensOptions,
    SemanticTokensResult, SemanticTokensServerCapabilities, ServerCapabilities,
    TextDocumentPositionParams, TextDocumentSyncCapability, TextDocumentSyncKind, Url,
};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;

/// An open document: its latest analysis, and the latest one that checked (what hover,
/// definition and completion read while the text being typed does not check).
struct Document {
    current: Rc<Analysis>,
    good: Option<Rc<Analysis>>,
}

impl Document {
    fn good(&self) -> &Rc<Analysis> {
        self.good.as_ref().unwrap_or(&self.current)
    }
}

/// What the server can do.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![".".into()]),
            ..Default::default()
        }),
        document_symbol_provider: Some(OneOf::Left(true)),
        semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(
            SemanticTokensOptions {
                legend: semantic_tokens::legend(),
                full: Some(SemanticTokensFullOptions::Bool(true)),
                range: None,
                ..Default::default()
            },
        )),
        ..Default::default()
    }
}

/// Whether `CAJETA_LSP_LOG` asks for a line on stderr per analysis (with its time).
fn logging() -> bool {
    std::env::var_os("CAJETA_LSP_LOG").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The loop after initialization. Returns whether `shutdown` came before the end (the exit
/// status is 0 then, else 1, as the protocol asks).
pub fn main_loop(connection: &Connection, target: Option<Rc<DeviceTarget>>) -> bool {
    let mut docs: HashMap<Url, Document> = HashMap::new();
    let log = logging();
    for msg in &connection.receiver {
        match msg {
            Message::Request(req) => {
                if req.method == "shutdown" {
                    let _ = connection.sender.send(Response::new_ok(req.id, ()).into());
                    return wait_exit(connection);
                }
                let id = req.id.clone();
                let resp =
                    catch_unwind(AssertUnwindSafe(|| answer(&docs, req))).unwrap_or_else(|_| {
                        eprintln!("cajetac lsp: a request panicked (message above)");
                        Response::new_err(
                            id,
                            ErrorCode::InternalError as i32,
                            "internal error".into(),
                        )
                    });
                let _ = connection.sender.send(resp.into());
            }
            Message::Notification(n) if n.method == "exit" => return false,
            Message::Notification(n) => {
                if let Some(uri) = on_notification(&mut docs, n, log, target.as_ref()) {
                    publish(connection, &docs, uri);
                }
            }
            Message::Response(_) => {}
        }
    }
    false
}

/// After `shutdown`: only `exit` ends the loop (requests get `InvalidRequest`).
fn wait_exit(connection: &Connection) -> bool {
    for msg in &connection.receiver {
        match msg {
            Message::Notification(n) if n.method == "exit" => return true,
            Message::Request(req) => {
                let resp = Response::new_err(
                    req.id,
                    ErrorCode::InvalidRequest as i32,
                    "the server is shutting down".into(),
                );
                let _ = connection.sender.send(resp.into());
            }
            _ => {}
        }
    }
    true
}

/// Applies a document notification; returns the document whose diagnostics changed.
fn on_notification(
    docs: &mut HashMap<Url, Document>,
    n: Notification,
    log: bool,
    target: Option<&Rc<DeviceTarget>>,
) -> Option<Url> {
    let (uri, text) = match n.method.as_str() {
        DidOpenTextDocument::METHOD => {
            let p: lsp_types::DidOpenTextDocumentParams = parse(n.params)?;
            (p.text_document.uri, p.text_document.text)
        }
        DidChangeTextDocument::METHOD => {
            let p: lsp_types::DidChangeTextDocumentParams = parse(n.params)?;
            // Full sync: the last change holds the whole text.
            let text = p.content_changes.into_iter().last()?.text;
            (p.text_document.uri, text)
        }
        DidCloseTextDocument::METHOD => {
            let p: lsp_types::DidCloseTextDocumentParams = parse(n.params)?;
            docs.remove(&p.text_document.uri);
            return Some(p.text_document.uri);
        }
        _ => return None,
    };
    let analysed = catch_unwind(AssertUnwindSafe(|| {
        Analysis::for_target(uri.clone(), text, target.cloned())
    }));
    let analysis = match analysed {
        Ok(a) => Rc::new(a),
        Err(_) => {
            eprintln!("cajetac lsp: analysing {uri} panicked (message above)");
            return None;
        }
    };
    if log {
        eprintln!(
            "cajetac lsp: analysed {uri} in {:.2} ms ({} diagnostics)",
            analysis.elapsed.as_secs_f64() * 1e3,
            analysis.diagnostics.len()
        );
    }
    let good = if analysis.module.is_some() {
        Some(analysis.clone())
    } else {
        docs.get(&uri).and_then(|d| d.good.clone())
    };
    docs.insert(
        uri.clone(),
        Document {
            current: analysis,
            good,
        },
    );
    Some(uri)
}

fn parse<T: serde::de::DeserializeOwned>(params: serde_json::Value) -> Option<T> {
    serde_json::from_value(params)
        .map_err(|e| eprintln!("cajetac lsp: bad notification parameters: {e}"))
        .ok()
}

/// Sends the document's diagnostics (none once it is closed).
fn publish(connection: &Connection, docs: &HashMap<Url, Document>, uri: Url) {
    let diagnostics = docs
        .get(&uri)
        .map_or_else(Vec::new, |d| d.current.diagnostics.clone());
    let params = PublishDiagnosticsParams {
        uri,
        diagnostics,
        version: None,
    };
    let n = Notification::new(PublishDiagnostics::METHOD.to_string(), params);
    let _ = connection.sender.send(n.into());
}

/// The answer to one request.
fn answer(docs: &HashMap<Url, Document>, req: Request) -> Response {
    let id = req.id.clone();
    let result = match req.method.as_str() {
        HoverRequest::METHOD => with_position(docs, &req, |d, pos| {
            let good = d.good();
            to_json(hover::hover(good, good.offset(pos)))
        }),
        GotoDefinition::METHOD => with_position(docs, &req, |d, pos| {
            let good = d.good();
            to_json(definition::definition(good, good.offset(pos)))
        }),
        Completion::METHOD => with_position(docs, &req, |d, pos| {
            let items = completion::complete(&d.current, d.good(), pos);
            to_json(Some(CompletionResponse::Array(items)))
        }),
        DocumentSymbolRequest::METHOD => with_document(docs, &req, |d| {
            // The current tree when the text parses, so the outline follows the typing.
            let a = if d.current.ast.is_some() {
                &d.current
            } else {
                d.good()
            };
            to_json(Some(DocumentSymbolResponse::Nested(
                symbols::document_symbols(a),
            )))
        }),
        SemanticTokensFullRequest::METHOD => with_document(docs, &req, |d| {
            to_json(Some(SemanticTokensResult::Tokens(
                semantic_tokens::semantic_tokens(&d.current),
            )))
        }),
        _ => Err((
            ErrorCode::MethodNotFound,
            format!("unsupported request `{}`", req.method),
        )),
    };
    match result {
        Ok(v) => Response {
            id,
            result: Some(v),
            error: None,
        },
        Err((code, message)) => Response::new_err(id, code as i32, message),
    }
}

type Answer = Result<serde_json::Value, (ErrorCode, String)>;

fn to_json<T: serde::Serialize>(v: T) -> Answer {
    serde_json::to_value(v).map_err(|e| (ErrorCode::InternalError, e.to_string()))
}

fn with_position(
    docs: &HashMap<Url, Document>,
    req: &Request,
    f: impl FnOnce(&Document, lsp_types::Position) -> Answer,
) -> Answer {
    let p: TextDocumentPositionParams = serde_json::from_value(req.params.clone())
        .map_err(|e| (ErrorCode::InvalidParams, e.to_string()))?;
    let doc = document(docs, &p.text_document.uri)?;
    f(doc, p.position)
}

fn with_document(
    docs: &HashMap<Url, Document>,
    req: &Request,
    f: impl FnOnce(&Document) -> Answer,
) -> Answer {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Params {
        text_document: lsp_types::TextDocumentIdentifier,
    }
    let p: Params = serde_json::from_value(req.params.clone())
        .map_err(|e| (ErrorCode::InvalidParams, e.to_string()))?;
    f(document(docs, &p.text_document.uri)?)
}

fn document<'a>(
    docs: &'a HashMap<Url, Document>,
    uri: &Url,
) -> Result<&'a Document, (ErrorCode, String)> {
    docs.get(uri)
        .ok_or_else(|| (ErrorCode::InvalidParams, format!("`{uri}` is not open")))
}
