//! `cajetac lsp`: the language server driven over stdio with real JSON-RPC messages
//! (`Content-Length` framing), as an editor drives it.

use super::cli::cajetac;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

/// A client of one server process.
struct Client {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next_id: i64,
}

impl Client {
    /// Starts `cajetac lsp` and initializes it.
    fn start() -> Client {
        Client::start_with(Value::Null)
    }

    /// Starts `cajetac lsp` and initializes it with `options` as `initializationOptions`.
    fn start_with(options: Value) -> Client {
        let mut child = cajetac()
            .arg("lsp")
            // The stdlib copy for "go to definition" goes to a cache folder of the test's own.
            .env(
                "CAJETA_CACHE_DIR",
                std::env::temp_dir().join(format!("cajetac-lsp-cache-{}", std::process::id())),
            )
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("cajetac lsp starts");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, messages) = channel();
        std::thread::spawn(move || loop {
            let mut length = None;
            loop {
                let mut line = String::new();
                if stdout.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some(v) = line.strip_prefix("Content-Length: ") {
                    length = v.parse::<usize>().ok();
                }
            }
            let mut body = vec![0; length.expect("every message has a Content-Length")];
            stdout.read_exact(&mut body).unwrap();
            if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                return;
            }
        });
        let mut client = Client {
            child,
            stdin,
            messages,
            next_id: 1,
        };
        let init = client.request(
            "initialize",
            json!({ "capabilities": {}, "initializationOptions": options }),
        );
        let caps = &init["result"]["capabilities"];
        assert_eq!(caps["textDocumentSync"], 1, "full sync: {init}");
        assert_eq!(caps["hoverProvider"], true);
        client.notify("initialized", json!({}));
        client
    }

    fn send_raw(&mut self, body: &[u8]) {
        let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        frame.extend_from_slice(body);
        self.stdin.write_all(&frame).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        let msg = json!({ "jsonrpc": "2.0", "method": method, "params": params });
        self.send_raw(msg.to_string().as_bytes());
    }

    fn next(&self) -> Value {
        self.messages
            .recv_timeout(Duration::from_secs(60))
            .expect("the server answers within a minute")
    }

    /// Sends a request and returns its response (notifications before it are skipped).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let msg = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        self.send_raw(msg.to_string().as_bytes());
        loop {
            let m = self.next();
            if m["id"] == id {
                return m;
            }
        }
    }

    /// The next diagnostics published for `uri`.
    fn diagnostics(&self, uri: &str) -> Vec<Value> {
        loop {
            let m = self.next();
            if m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri {
                return m["params"]["diagnostics"].as_array().unwrap().clone();
            }
        }
    }

    fn open(&mut self, uri: &str, text: &str) -> Vec<Value> {
        let doc = json!({ "uri": uri, "languageId": "cajeta", "version": 1, "text": text });
        self.notify("textDocument/didOpen", json!({ "textDocument": doc }));
        self.diagnostics(uri)
    }

    fn change(&mut self, uri: &str, version: i32, text: &str) -> Vec<Value> {
        let params = json!({
            "textDocument": { "uri": uri, "version": version },
            "contentChanges": [{ "text": text }],
        });
        self.notify("textDocument/didChange", params);
        self.diagnostics(uri)
    }

    fn at(&mut self, method: &str, uri: &str, line: u32, character: u32) -> Value {
        let params = json!({
            "textDocument": { "uri": uri },
            "position": { "line": line, "character": character },
        });
        self.request(method, params)
    }

    /// `shutdown`, `exit`, and the exit status.
    fn shutdown(mut self) -> std::process::ExitStatus {
        let r = self.request("shutdown", Value::Null);
        assert!(r.get("error").is_none(), "{r}");
        self.notify("exit", Value::Null);
        self.child.wait().unwrap()
    }
}

/// Line 8 has a multi-byte string before the error: UTF-16 columns differ from characters
/// (`𝄞` is two units) and from bytes.
const BROKEN: &str = r#"package demo;
import cajeta.xpu.*;

public final class Demo {
    @Kernel
    public static void scale(KernelBuffer<float32> data, float32 k) {
        uint32 i = KernelThread.globalIdX();
        String s = "é𝄞"; float32 v = data[i] * undefinedName;
        data[i] = v * k;
    }

    static float32 twice(float32 x) {
        return x * 2.0f;
    }

    public static void main() {
        float32 y = twice(3.0f);
        System.out.println(y);
        KernelStream st = KernelStream.current();
        KernelBuffer<float32> buf = heap KernelBuffer<float32>(64);
        scale.launch(st, grid: [1], block: [64])(buf, y);
        st.sync();
    }
}
"#;

fn fixed() -> String {
    BROKEN.replace(
        r#"String s = "é𝄞"; float32 v = data[i] * undefinedName;"#,
        "float32 v = data[i] * 2.0f; // é𝄞",
    )
}

fn uri(name: &str) -> String {
    format!("file:///tmp/cajetac-lsp-test/{name}")
}

/// Position of the `n`th (0-based) occurrence of `needle` in `text`, in UTF-16 columns.
fn pos(text: &str, needle: &str, n: usize) -> (u32, u32) {
    let at = text.match_indices(needle).nth(n).expect(needle).0;
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..at].matches('\n').count() as u32;
    let col = text[line_start..at].encode_utf16().count() as u32;
    (line, col)
}

#[test]
fn lsp_session_diagnostics_hover_definition_completion_symbols_tokens() {
    let mut c = Client::start();
    let u = uri("demo.cajeta");

    // Diagnostics: the compiler's codes, ranges in UTF-16 columns, messages with notes.
    let diags = c.open(&u, BROKEN);
    let undefined = diags
        .iter()
        .find(|d| d["code"] == "E0006")
        .unwrap_or_else(|| panic!("E0006 among {diags:?}"));
    let (line, col) = pos(BROKEN, "undefinedName", 0);
    assert_eq!((line, col), (7, 48), "the test's own position arithmetic");
    assert_eq!(
        undefined["range"],
        json!({ "start": { "line": 7, "character": 48 }, "end": { "line": 7, "character": 61 } })
    );
    assert!(undefined["message"]
        .as_str()
        .unwrap()
        .starts_with("cannot find `undefinedName` in this scope"));
    assert_eq!(undefined["severity"], 1);
    let string_local = diags.iter().find(|d| d["code"] == "E0018").expect("E0018");
    assert!(
        string_local["message"]
            .as_str()
            .unwrap()
            .contains("\nnote: device code may use scalars"),
        "{string_local}"
    );

    // Fixed: no diagnostics.
    let text = fixed();
    assert!(c.change(&u, 2, &text).is_empty());

    // Hover: a local's type, a stdlib member's declaration, a kernel's reflection.
    let (l, ch) = pos(&text, "v * k", 0);
    let h = c.at("textDocument/hover", &u, l, ch);
    let value = h["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(
        value.contains("float32 v") && value.contains("local variable"),
        "{h}"
    );
    let (l, ch) = pos(&text, "globalIdX", 0);
    let h = c.at("textDocument/hover", &u, l, ch + 2);
    let value = h["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(value.contains("public static uint32 globalIdX()"), "{h}");
    let (l, ch) = pos(&text, "scale", 0);
    let h = c.at("textDocument/hover", &u, l, ch);
    let value = h["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(
        value.contains("storage buffer") && value.contains("`data`"),
        "{h}"
    );
    assert!(
        value.contains("| 0 | 4 | `k` | float32 |"),
        "push constant k: {h}"
    );

    // ...also where it is launched, and "go to definition" there finds the kernel.
    let (l, ch) = pos(&text, "scale.launch", 0);
    let h = c.at("textDocument/hover", &u, l, ch + 1);
    let value = h["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(value.contains("Push constants"), "{h}");
    let d = c.at("textDocument/definition", &u, l, ch + 1);
    let (dl, dc) = pos(&text, "scale", 0);
    assert_eq!(
        d["result"]["range"]["start"],
        json!({ "line": dl, "character": dc }),
        "{d}"
    );

    // Definition: the call of `twice` goes to its declaration's name.
    let (l, ch) = pos(&text, "twice", 1);
    let d = c.at("textDocument/definition", &u, l, ch + 1);
    let (dl, dc) = pos(&text, "twice", 0);
    assert_eq!(d["result"]["uri"], u.as_str(), "{d}");
    assert_eq!(
        d["result"]["range"],
        json!({ "start": { "line": dl, "character": dc }, "end": { "line": dl, "character": dc + 5 } })
    );
    // ...and a stdlib member to the prelude's copy on disk, which holds it there.
    let d = c.at(
        "textDocument/definition",
        &u,
        pos(&text, "globalIdX", 0).0,
        pos(&text, "globalIdX", 0).1,
    );
    let target = d["result"]["uri"].as_str().expect("a stdlib location");
    let path = target.strip_prefix("file://").unwrap();
    let stdlib_text = std::fs::read_to_string(path).unwrap();
    let line = d["result"]["range"]["start"]["line"].as_u64().unwrap() as usize;
    assert!(
        stdlib_text.lines().nth(line).unwrap().contains("globalIdX"),
        "{d}"
    );

    // Completion after `Math.` in a text that does not parse yet.
    let typing = text.replace("float32 y = twice(3.0f);", "float32 y = Math.");
    let diags = c.change(&u, 3, &typing);
    assert!(!diags.is_empty(), "the unfinished text has a syntax error");
    let (l, ch) = pos(&typing, "Math.", 0);
    let items = c.at("textDocument/completion", &u, l, ch + 5);
    let labels: Vec<&str> = items["result"]
        .as_array()
        .expect("a completion list")
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    for m in ["sqrt", "abs", "sin", "PI"] {
        assert!(labels.contains(&m), "{m} in {labels:?}");
    }
    assert!(
        !labels.contains(&"twice"),
        "only Math's members: {labels:?}"
    );
    // Hover still answers from the last analysis that checked.
    let (l, ch) = pos(&text, "v * k", 0);
    let h = c.at("textDocument/hover", &u, l, ch);
    assert!(
        h["result"]["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .contains("float32 v"),
        "{h}"
    );

    // Back to the checked text: the outline and the semantic tokens.
    assert!(c.change(&u, 4, &text).is_empty());
    let s = c.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": u } }),
    );
    let class = &s["result"][0];
    assert_eq!(class["name"], "Demo", "{s}");
    let members: Vec<(&str, &str)> = class["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["name"].as_str().unwrap(), m["detail"].as_str().unwrap()))
        .collect();
    assert_eq!(
        members,
        [("scale", "kernel"), ("twice", "host"), ("main", "host")]
    );
    let t = c.request(
        "textDocument/semanticTokens/full",
        json!({ "textDocument": { "uri": u } }),
    );
    let data: Vec<u64> = t["result"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(data.len() % 5, 0);
    // Decode to absolute (line, column, length, type) and look for a few tokens.
    let mut decoded = Vec::new();
    let (mut line, mut col) = (0, 0);
    for t in data.chunks(5) {
        if t[0] > 0 {
            col = 0;
        }
        line += t[0];
        col += t[1];
        decoded.push((line as u32, col as u32, t[2] as u32, t[3]));
    }
    // Types: 0 keyword, 1 type, 2 class, 3 function, 4 method, 5 variable, 6 parameter,
    // 7 number, 8 string, 9 comment, 10 decorator.
    let expect = |needle: &str, n: usize, len: u32, ty: u64| {
        let (l, ch) = pos(&text, needle, n);
        assert!(
            decoded.contains(&(l, ch, len, ty)),
            "`{needle}` #{n} as type {ty} at {l}:{ch} in {decoded:?}"
        );
    };
    expect("public", 0, 6, 0);
    expect("float32", 0, 7, 1);
    expect("KernelThread", 0, 12, 2);
    expect("twice", 1, 5, 3);
    expect("globalIdX", 0, 9, 4);
    expect("v * k", 0, 1, 5);
    expect("k;", 0, 1, 6);
    expect("2.0f", 0, 4, 7);
    expect("// é𝄞", 0, 6, 9); // UTF-16 units: 𝄞 takes two
    expect("Kernel", 0, 6, 10);

    assert!(
        c.shutdown().success(),
        "exit status 0 after shutdown and exit"
    );
}

#[test]
fn lsp_survives_garbage() {
    let mut c = Client::start();
    // A body that is not JSON, then one that is JSON but no message: dropped, and the
    // server reads on.
    c.send_raw(b"{ this is not json");
    c.send_raw(b"[1, 2, 3]");
    // Parameters of the wrong shape: an error answer.
    let r = c.request("textDocument/hover", json!({ "nonsense": true }));
    assert_eq!(r["error"]["code"], -32602, "InvalidParams: {r}");
    // A document that is not open; a method the server does not have.
    let r = c.at("textDocument/hover", &uri("nowhere.cajeta"), 0, 0);
    assert!(
        r["error"]["message"].as_str().unwrap().contains("not open"),
        "{r}"
    );
    let r = c.request("workspace/noSuchThing", json!({}));
    assert_eq!(r["error"]["code"], -32601, "MethodNotFound: {r}");
    // Binary garbage as a document: diagnostics, and answers at any position.
    let u = uri("garbage.cajeta");
    let garbage: String = (0..400u32)
        .map(|i| char::from_u32((i * 7919) % 0x2fff + 1).unwrap_or('?'))
        .collect();
    let diags = c.open(&u, &garbage);
    assert!(!diags.is_empty());
    for (l, ch) in [(0, 0), (0, 10), (99, 99)] {
        for m in [
            "textDocument/hover",
            "textDocument/definition",
            "textDocument/completion",
        ] {
            let r = c.at(m, &u, l, ch);
            assert!(r.get("error").is_none(), "{m} at {l}:{ch}: {r}");
        }
    }
    let r = c.request(
        "textDocument/semanticTokens/full",
        json!({ "textDocument": { "uri": u } }),
    );
    assert!(r["result"]["data"].is_array(), "{r}");
    // Still serving a real file.
    let v = uri("ok.cajeta");
    assert!(c.open(&v, &fixed()).is_empty());
    assert!(c.shutdown().success());
}

/// The checker's warnings of a program that compiles are published too, as warnings.
#[test]
fn lsp_publishes_the_checkers_warnings() {
    let mut c = Client::start();
    let u = uri("headless.cajeta");
    let text = "public final class P {\n    public static int32 run() { RenderGraph g = null; return 0; }\n}\n";
    let diags = c.open(&u, text);
    let [w] = &diags[..] else {
        panic!("one warning expected: {diags:?}");
    };
    assert_eq!(w["code"], "W0001", "{w}");
    assert_eq!(w["severity"], 2, "{w}");
    assert!(
        w["message"]
            .as_str()
            .unwrap()
            .contains("presentation needs a window"),
        "{w}"
    );
    assert!(c.shutdown().success());
}

/// Without `shutdown`, `exit` ends the server with status 1 (the protocol's rule).
#[test]
fn lsp_exit_without_shutdown_is_status_1() {
    let mut c = Client::start();
    c.notify("exit", Value::Null);
    assert_eq!(c.child.wait().unwrap().code(), Some(1));
}

/// A device profile chosen in the client's settings: a kernel that needs what the device
/// lacks is an E0030 as you type, and a kernel's hover says what the precision types become
/// there and which optional features the kernel uses.
#[test]
fn lsp_compiles_for_the_device_profile_in_the_settings() {
    let tests = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/profiles");
    let text = std::fs::read_to_string(tests.join("lavapipe.json")).expect("lavapipe profile");
    let parsed: Value = serde_json::from_str(&text).unwrap();
    // The file lists the device's profiles, as `cajetac devices --json` prints them.
    let mut profile = parsed.get(0).cloned().unwrap_or(parsed);
    // A device with fp16 storage and nothing for float64.
    profile["name"] = json!("no-float64 device");
    profile["features"] = json!(["storageBuffer16BitAccess"]);
    let path =
        std::env::temp_dir().join(format!("cajetac-lsp-profile-{}.json", std::process::id()));
    std::fs::write(&path, profile.to_string()).unwrap();
    let mut c = Client::start_with(json!({
        "deviceProfile": path.display().to_string(),
        "precision": { "fp16_storage": true },
    }));
    let u = uri("device.cajeta");
    let source = r#"package demo;
import cajeta.xpu.*;

public final class Demo {
    @Kernel
    public static void wide(KernelBuffer<float64> d) {
        d[KernelThread.globalIdX()] = d[KernelThread.globalIdX()] * 2.0;
    }

    @Kernel
    public static void half(KernelBuffer<sfp> d) {
        uint32 i = KernelThread.globalIdX();
        afp v = (afp) d[i];
        d[i] = (sfp) (v * 2.0f);
    }
}
"#;
    let diags = c.open(&u, source);
    let _ = std::fs::remove_file(&path);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0]["code"], "E0030");
    let message = diags[0]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("kernel `wide` needs") && message.contains("no-float64 device"),
        "{message}"
    );
    let (l, ch) = pos(source, "half(", 0);
    let h = c.at("textDocument/hover", &u, l, ch + 1);
    let value = h["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(value.contains("**On `no-float64 device`**"), "{value}");
    assert!(value.contains("| `sfp` | float16 storage |"), "{value}");
    assert!(
        value.contains("Optional features this kernel uses: `storageBuffer16BitAccess`"),
        "{value}"
    );
    assert!(c.shutdown().success());
}
