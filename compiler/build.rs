//! Generates the parser from `src/syntax/grammar.lalrpop`, and an index of the embedded
//! stdlib's classes and members (`OUT_DIR/stdlib_index.rs`) so that the driver does not scan
//! the prelude on every compile (see `src/driver/stdlib.rs`).

#[path = "src/driver/stdlib_scan.rs"]
mod stdlib_scan;

use std::fmt::Write as _;

fn main() {
    // Rerun on any change under src/ (the default when no directive is printed, which this
    // script must keep for the grammar) and on any change to the stdlib.
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=../stdlib");
    // The `cajetac` executable is linked at a fixed address (not position-independent): the
    // loader then has no relocations to apply (9,000 in a PIE build, most of the start-up
    // instructions) and no relocated pages to copy. The library and other binaries are as
    // before.
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bin=cajetac=-no-pie");
    }
    hot_code_first_for_cajetac();
    if let Err(e) = static_unwinder_for_cajetac() {
        eprintln!("static unwinder: {e}");
        std::process::exit(1);
    }
    if let Err(e) = lalrpop::process_src() {
        eprintln!("lalrpop failed: {e}");
        std::process::exit(1);
    }
    if let Err(e) = stdlib_index() {
        eprintln!("stdlib index failed: {e}");
        std::process::exit(1);
    }
}

/// Lays out the functions that `check` and `build` of a small program run next to each other
/// at the start of `cajetac`'s code (lld's `--symbol-ordering-file`, release builds of the
/// x86-64 Linux target, where rustc links with its own lld). Spread over the 6 MB of code they
/// touched 40-odd separate 64 KiB windows, each a page fault (about 2 µs on the 2-core VM) at
/// every start. The list, `link/cajetac-hot-code.order`, names symbols as the release build
/// mangles them; names it no longer matches are skipped, so a stale list costs page faults,
/// never correctness (`scripts/hot_code_order.py` writes it anew). A linker other than lld
/// named in the flags, or `CAJETAC_NO_CODE_ORDER` set, leaves the layout alone.
fn hot_code_first_for_cajetac() {
    println!("cargo:rerun-if-changed=link/cajetac-hot-code.order");
    println!("cargo:rerun-if-env-changed=CAJETAC_NO_CODE_ORDER");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let flags = var("CARGO_ENCODED_RUSTFLAGS");
    let other_linker = flags.contains("linker")
        || flags.contains("fuse-ld")
        || std::env::var_os("CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER").is_some();
    if var("TARGET") != "x86_64-unknown-linux-gnu"
        || var("PROFILE") != "release"
        || other_linker
        || std::env::var_os("CAJETAC_NO_CODE_ORDER").is_some()
    {
        return;
    }
    let list =
        std::path::PathBuf::from(var("CARGO_MANIFEST_DIR")).join("link/cajetac-hot-code.order");
    if list.is_file() {
        println!(
            "cargo:rustc-link-arg-bin=cajetac=-Wl,--symbol-ordering-file={}",
            list.display()
        );
        println!("cargo:rustc-link-arg-bin=cajetac=-Wl,--no-warn-symbol-ordering");
    }
}

/// Links `cajetac`'s unwinder statically (glibc targets): every shared library named by an
/// executable is opened, mapped and relocated before `main`, and `libgcc_s.so.1` cost about
/// 6 page faults and 0.05–0.1 ms of a 1.6 ms `build` on the 2-core container. Rust's standard
/// library asks for it by name (`-lgcc_s`), so a folder searched first gets a `libgcc_s.so`
/// linker script that names GCC's static unwinder (`libgcc_eh.a`, what a `crt-static` build
/// links) instead; `-L` applies to every `-l` wherever it stands. Only the `cajetac`
/// executable sees the folder. (libm is the other library `cajetac` no longer loads at start:
/// `src/lazy_libm.rs`.)
fn static_unwinder_for_cajetac() -> Result<(), String> {
    let linux_gnu = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
        && std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu");
    if !linux_gnu {
        return Ok(());
    }
    let dir = std::path::Path::new(&std::env::var("OUT_DIR").map_err(|e| e.to_string())?)
        .join("static-unwinder");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("libgcc_s.so"), "GROUP ( -lgcc_eh -lgcc )\n")
        .map_err(|e| e.to_string())?;
    println!("cargo:rustc-link-arg-bin=cajetac=-L{}", dir.display());
    Ok(())
}

/// Writes `STDLIB_INDEX`: for every file of `STDLIB_FILES` (read off `src/driver/stdlib.rs`
/// in order, so the list exists once), its length and `class_spans` of it; and
/// `STDLIB_REFS`: for every member of those classes, the classes its text names.
fn stdlib_index() -> Result<(), String> {
    let list = std::fs::read_to_string("src/driver/stdlib.rs").map_err(|e| e.to_string())?;
    let mut out = String::from(
        "/// Generated by build.rs from the stdlib files.\nstatic STDLIB_INDEX: &GeneratedIndex = &[\n",
    );
    // Every class of every file, in order, with its file's text: the numbering of `STDLIB_REFS`.
    let mut all: Vec<(stdlib_scan::ClassSpan, &'static str)> = Vec::new();
    for (f, rel) in list.split("include_str!(\"").skip(1).enumerate() {
        let rel = rel.split('"').next().unwrap_or("");
        let path = std::path::Path::new("src/driver").join(rel);
        let text: &'static str = Box::leak(
            std::fs::read_to_string(&path)
                .map_err(|e| format!("{}: {e}", path.display()))?
                .into_boxed_str(),
        );
        let _ = writeln!(out, "    ({}, &[", text.len());
        let classes = stdlib_scan::class_spans(f, text);
        all.extend(classes.iter().map(|c| (c.clone(), text)));
        for c in classes {
            let _ = write!(out, "        ({:?}, {}, {}, &[", c.name, c.start, c.end);
            for (name, a, b) in &c.members {
                let _ = write!(out, "({name:?}, {a}, {b}), ");
            }
            out += "]),\n";
        }
        out += "    ]),\n";
    }
    out += "];\n";
    // Per class, per member: the classes its text names, sorted, without repeats.
    let names: Vec<&str> = all.iter().map(|(c, _)| c.name).collect();
    out += "/// Generated by build.rs: per class, per member, the classes it names.\n";
    out += "static STDLIB_REFS: &[&[&[u16]]] = &[\n";
    for (c, text) in &all {
        out += "    &[";
        for &(_, a, b) in &c.members {
            let mut refs = stdlib_scan::classes_named_in(&text[a..b], &names);
            refs.sort_unstable();
            refs.dedup();
            let _ = write!(out, "&{refs:?}, ");
        }
        out += "],\n";
    }
    out += "];\n";
    let dest = std::path::Path::new(&std::env::var("OUT_DIR").map_err(|e| e.to_string())?)
        .join("stdlib_index.rs");
    std::fs::write(dest, out).map_err(|e| e.to_string())
}
