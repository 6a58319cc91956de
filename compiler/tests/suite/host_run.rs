//! Running a whole program's source through `cajetac run --host MODE` from a scratch
//! folder: what the executor-agreement tests (`cajeta_forms`, `cajeta_generics`) share.

use std::process::{Command, Output};

/// Writes `src` to a scratch file named after `suite`, `tag` and `mode`, runs it with
/// `cajetac run --host mode`, removes the folder and returns the process's output.
pub fn run_source(suite: &str, tag: &str, mode: &str, src: &str) -> Output {
    let dir = std::env::temp_dir().join(format!(
        "cajetac-{suite}-{tag}-{mode}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("p.cajeta");
    std::fs::write(&file, src).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cajetac"))
        .args(["run", "--host", mode])
        .arg(&file)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    out
}
