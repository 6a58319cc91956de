//! Creates a compute pipeline (workgroup size 64) for each `<kernel>.spv` (with its `<kernel>.json` reflection)
//! in the folders given, one at a time, naming each before it starts: when a driver crashes
//! while compiling a module, the last name printed is the module that did it.
//!
//! Run: `cargo run --release -p cajeta-runtime --example pipeline_probe -- DIR...`

use cajeta_runtime::{Context, Reflection};
use std::io::Write;

fn main() {
    let ctx = Context::new().expect("a Vulkan device");
    for dir in std::env::args().skip(1) {
        let mut spvs: Vec<_> = std::fs::read_dir(&dir)
            .expect("a folder of .spv files")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "spv"))
            .collect();
        spvs.sort();
        for spv in spvs {
            print!("{} ... ", spv.display());
            let _ = std::io::stdout().flush();
            let bytes = std::fs::read(&spv).expect("read .spv");
            let words: Vec<u32> = bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            let json = std::fs::read_to_string(spv.with_extension("json")).expect("read .json");
            let reflection: Reflection = serde_json::from_str(&json).expect("reflection JSON");
            match ctx.load_kernel(&words, &reflection) {
                Ok(k) => match k.prepare([64, 1, 1]) {
                    Ok(()) => println!("ok"),
                    Err(e) => println!("pipeline error: {e}"),
                },
                Err(e) => println!("error: {e}"),
            }
        }
    }
}
