//! The stdio transport: LSP messages framed by `Content-Length` headers on stdin and
//! stdout, bridged to an in-memory `lsp_server::Connection`.
//!
//! `lsp_server`'s own stdio transport ends the reader at the first body that is not a
//! JSON-RPC message, which would end the server; this one logs such a message to stderr,
//! drops it and reads on, and skips header lines it does not know. Only the end of stdin
//! (or an error reading it) stops it.

use lsp_server::{Connection, Message};
use std::io::{BufRead, Write};
use std::thread::JoinHandle;

/// The server's end of the connection and the two threads moving bytes.
pub struct Stdio {
    /// The server's side: messages from the client arrive on `receiver`.
    pub connection: Connection,
    reader: JoinHandle<()>,
    writer: JoinHandle<()>,
}

impl Stdio {
    /// Starts the reader and writer threads.
    pub fn start() -> Stdio {
        let (server, client) = Connection::memory();
        let Connection {
            sender: to_server,
            receiver: from_server,
        } = client;
        let reader = std::thread::spawn(move || {
            let stdin = std::io::stdin();
            let mut input = stdin.lock();
            loop {
                let text = match read_frame(&mut input) {
                    Ok(Some(text)) => text,
                    Ok(None) => break,
                    Err(e) => {
                        eprintln!("cajetac lsp: cannot read the client's message: {e}");
                        break;
                    }
                };
                let msg: Message = match serde_json::from_str(&text) {
                    Ok(m) => m,
                    Err(e) => {
                        eprintln!("cajetac lsp: dropped a message that is not JSON-RPC: {e}");
                        continue;
                    }
                };
                let exit = matches!(&msg, Message::Notification(n) if n.method == "exit");
                if to_server.send(msg).is_err() || exit {
                    break;
                }
            }
        });
        let writer = std::thread::spawn(move || {
            let stdout = std::io::stdout();
            for msg in from_server {
                let mut out = stdout.lock();
                if msg.write(&mut out).and_then(|_| out.flush()).is_err() {
                    break;
                }
            }
        });
        Stdio {
            connection: server,
            reader,
            writer,
        }
    }

    /// Drops the server's side and waits for the writer to send what is queued. The reader
    /// is not waited for: it may be blocked on stdin, and the process is about to exit.
    pub fn finish(self) {
        drop(self.connection);
        let _ = self.writer.join();
        drop(self.reader);
    }
}

/// One message's body: headers up to an empty line, then `Content-Length` bytes. `None` at
/// the end of the input.
fn read_frame(input: &mut impl BufRead) -> std::io::Result<Option<String>> {
    let mut length = None;
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let header = line.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            if length.is_some() {
                break;
            }
            continue;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = value.trim().parse::<usize>().ok();
            }
        }
    }
    let mut body = vec![0; length.unwrap_or(0)];
    input.read_exact(&mut body)?;
    Ok(Some(String::from_utf8_lossy(&body).into_owned()))
}
