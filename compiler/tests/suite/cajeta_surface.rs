//! The table of Cajeta's GPU-facing surface (`tests/porting/surface/`): one small program per
//! public member of Cajeta's `cajeta.xpu` / math classes, written in Cajeta's own spelling
//! (looked up in its sources). Every program at the top level must pass `cajetac check`;
//! those under `refused/` are the members this project does not offer (each documented in
//! docs/porting-from-cajeta.md) and must be refused with the code their first line names, so
//! that a row that starts working is moved up and counted.

use std::path::{Path, PathBuf};
use std::process::Command;

fn rows(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "cajeta"))
        .collect();
    files.sort();
    files
}

/// `cajetac check` of `file`: whether it passed, and its stderr.
fn check(file: &Path) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cajetac"))
        .arg("check")
        .arg(file)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn surface_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/porting/surface")
}

#[test]
fn every_accepted_row_of_cajetas_surface_checks() {
    let accepted = rows(&surface_dir());
    assert!(
        accepted.len() >= 100,
        "the table lost rows: {}",
        accepted.len()
    );
    let failures: Vec<String> = accepted
        .iter()
        .filter_map(|f| {
            let (ok, err) = check(f);
            (!ok).then(|| format!("{}:\n{err}", f.display()))
        })
        .collect();
    let refused = rows(&surface_dir().join("refused"));
    eprintln!(
        "Cajeta surface table: {} of {} rows accepted",
        accepted.len() - failures.len(),
        accepted.len() + refused.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_refused_row_is_refused_with_its_code() {
    for f in rows(&surface_dir().join("refused")) {
        let text = std::fs::read_to_string(&f).unwrap();
        let code = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("// expect: "))
            .unwrap_or_else(|| panic!("{}: no `// expect: E….` line", f.display()))
            .trim()
            .to_string();
        let (ok, err) = check(&f);
        assert!(
            !ok,
            "{} is accepted now: move it out of refused/",
            f.display()
        );
        assert!(
            err.contains(&format!("error[{code}]")),
            "{}: expected {code}, got:\n{err}",
            f.display()
        );
    }
}
