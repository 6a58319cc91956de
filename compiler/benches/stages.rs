//! Per-stage compile time in-process (criterion): parse, frontend (parse + sema with the
//! stdlib prelude) and the SPIR-V backend, on the saxpy kernel and a 200-kernel file.
//! Run: `cargo bench -p cajetac --bench stages`.

// Only the Cajeta generator is used here; the others serve compile_speed.
#[path = "gen.rs"]
#[allow(dead_code)]
mod gen;

use cajetac::diagnostics::SourceMap;
use cajetac::driver::{compile_kernels, frontend};
use cajetac::kernel::spirv::SpirvOptions;
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn inputs() -> Vec<(&'static str, String)> {
    let saxpy = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/kernels/saxpy.cajeta"
    ))
    .unwrap();
    vec![("saxpy", saxpy), ("200 kernels", gen::cajeta(200))]
}

fn stages(c: &mut Criterion) {
    for (name, src) in inputs() {
        c.bench_function(&format!("parse/{name}"), |b| {
            b.iter(|| cajetac::syntax::parse_file(0, black_box(&src)).map(|f| f.classes.len()))
        });
        let files = vec![("bench.cajeta".to_string(), src.clone())];
        c.bench_function(&format!("frontend/{name}"), |b| {
            b.iter(|| {
                let mut map = SourceMap::new();
                frontend(&mut map, black_box(&files)).map(|m| m.functions.len())
            })
        });
        let mut map = SourceMap::new();
        let module = frontend(&mut map, &files).expect("benchmark input compiles");
        c.bench_function(&format!("spirv/{name}"), |b| {
            b.iter(|| {
                compile_kernels(black_box(&module), &SpirvOptions::default(), None).map(|k| k.len())
            })
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(2));
    targets = stages
}
criterion_main!(benches);
