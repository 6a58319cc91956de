//! Fuzz smoke: random bytes and randomly mutated valid programs never panic the frontend
//! (and, when they compile, never panic the SPIR-V backend).

use cajeta_tests::{files, tests_dir};
use cajetac::backend::spirv::SpirvOptions;
use cajetac::diagnostics::SourceMap;
use cajetac::driver::{compile_kernels, frontend};

/// xorshift64*: deterministic, so a failure reproduces from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn compile_never_panics(text: String, what: &str) {
    let result = std::panic::catch_unwind(|| {
        let mut sources = SourceMap::new();
        if let Ok(module) = frontend(&mut sources, &[("fuzz.cajeta".to_string(), text.clone())]) {
            let _ = compile_kernels(&module, &SpirvOptions::default(), None);
        }
    });
    assert!(result.is_ok(), "panic on {what}");
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for case in 0..3000 {
        let len = rng.below(200);
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        compile_never_panics(
            String::from_utf8_lossy(&bytes).into_owned(),
            &format!("random case {case}"),
        );
    }
}

const FRAGMENTS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ",",
    ".",
    "<",
    ">",
    ">>",
    ">>>",
    "=",
    "+=",
    "?",
    ":",
    "@Kernel",
    "return",
    "break",
    "continue",
    "for",
    "while",
    "if",
    "else",
    "uint32",
    "float32",
    "int64",
    "bfloat16",
    "KernelBuffer<float32>",
    "Image2D",
    "0",
    "-1",
    "2147483648",
    "0xFFFFFFFF",
    "1.5f",
    "1e999",
    "\"s\"",
    "x",
    "img",
    "heap",
    "/*",
    "*/",
    "launch",
    "x++",
];

#[test]
fn mutated_programs_never_panic() {
    let mut corpus: Vec<String> = Vec::new();
    for dir in ["kernels", "device", "diagnostics"] {
        for p in files(dir, "cajeta") {
            corpus.push(String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned());
        }
    }
    assert!(
        !corpus.is_empty(),
        "no corpus under {}",
        tests_dir().display()
    );
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    for case in 0..2000 {
        let base = &corpus[rng.below(corpus.len())];
        let mut tokens: Vec<String> = base
            .split_inclusive(|c: char| !c.is_alphanumeric())
            .map(str::to_string)
            .collect();
        for _ in 0..1 + rng.below(4) {
            let i = rng.below(tokens.len());
            match rng.below(4) {
                0 => {
                    tokens.remove(i);
                }
                1 => tokens.insert(i, FRAGMENTS[rng.below(FRAGMENTS.len())].to_string()),
                2 => {
                    let j = rng.below(tokens.len());
                    tokens.swap(i, j);
                }
                _ => {
                    let j = rng.below(tokens.len());
                    let t = tokens[j].clone();
                    tokens.insert(i, t);
                }
            }
            if tokens.is_empty() {
                break;
            }
        }
        compile_never_panics(tokens.concat(), &format!("mutation case {case}"));
    }
}
