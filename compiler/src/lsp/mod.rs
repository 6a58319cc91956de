//! `cajetac lsp`: a Language Server Protocol server over stdio (docs/editors.md).
//!
//! One concern per file: [`transport`] frames messages, [`server`] runs the loop,
//! [`analysis`] runs the compiler's frontend over a document and converts its diagnostics,
//! [`facts`] and [`lookup`] find what is under the cursor, [`stdlib_index`] knows the
//! prelude's declarations and doc comments, [`device_target`] compiles for the device profile
//! the client's settings choose, and one file per feature answers its requests.

mod analysis;
mod completion;
mod definition;
mod device_target;
mod facts;
mod hover;
mod lookup;
mod positions;
mod reflection_text;
mod semantic_tokens;
mod server;
mod stdlib_index;
mod symbols;
mod transport;

pub use analysis::Analysis;
pub use positions::LineIndex;

/// Serves one client on stdin/stdout until it sends `exit`, or closes stdin. Returns
/// whether the client asked for `shutdown` first (the exit status is 0 then, else 1).
pub fn serve_stdio() -> bool {
    let stdio = transport::Stdio::start();
    let connection = &stdio.connection;
    let caps = match serde_json::to_value(server::capabilities()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("cajetac lsp: {e}");
            return false;
        }
    };
    let init = serde_json::json!({
        "capabilities": caps,
        "serverInfo": { "name": "cajetac", "version": env!("CARGO_PKG_VERSION") },
    });
    let started = connection
        .initialize_start()
        .and_then(|(id, params)| connection.initialize_finish(id, init).map(|()| params));
    let params = match started {
        Ok(p) => p,
        Err(e) => {
            eprintln!("cajetac lsp: initialization failed: {e}");
            stdio.finish();
            return false;
        }
    };
    let target = device_target::DeviceTarget::from_init(params.get("initializationOptions"))
        .map(std::rc::Rc::new);
    let clean = server::main_loop(connection, target);
    stdio.finish();
    clean
}
