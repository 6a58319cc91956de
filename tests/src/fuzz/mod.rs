//! The fuzz campaign (docs/fuzzing.md): a generator of well-typed random programs checked
//! with `spirv-val` and on the device against host code, and a mutator whose inputs go
//! through the lexer, parser, checker, specialization and SPIR-V emission under the
//! robustness oracles of [`oracle`]. The CI test (`tests/fuzz_campaign.rs`) and the long-run
//! binary (`bin/cajeta_fuzz.rs`) share everything here.

pub mod divergence;
pub mod executors;
pub mod gen;
mod gen_collective;
mod gen_control;
mod gen_helpers;
mod gen_scalar;
mod gen_values;
mod gen_vectors;
pub mod mutate;
pub mod oracle;
pub mod rng;
pub mod shrink;
pub mod ty;
pub mod zero_folds;

use mutate::InputKind;
use oracle::{Finding, Reached, Validator};
use rng::Rng;

/// Stream tags: inputs and generated programs of one seed use independent sequences.
const INPUT_STREAM: u64 = 0x1;
const PROGRAM_STREAM: u64 = 0x2;

/// Settings of the mutation/robustness inputs.
#[derive(Clone, Debug)]
pub struct InputConfig {
    /// Campaign seed.
    pub seed: u64,
    /// Largest nesting depth / length the size-stress generator draws. Known stack
    /// overflows (being fixed on main) start near 3,700; CI stays well below.
    pub max_nest: usize,
}

/// One robustness input: what kind, a label, and the text.
#[derive(Clone, Debug)]
pub struct Input {
    /// The kind of input.
    pub kind: InputKind,
    /// Which generator or corpus file made it.
    pub label: String,
    /// The source text.
    pub text: String,
}

/// The generator of input `index` (shared so the supervisor can rebuild a crashing input).
pub fn input(cfg: &InputConfig, corpus: &[String], index: u64) -> Input {
    let mut rng = Rng::for_input(cfg.seed ^ INPUT_STREAM, index);
    let roll = rng.below(100);
    if roll < 10 {
        return Input {
            kind: InputKind::Bytes,
            label: "bytes".to_string(),
            text: mutate::random_bytes(&mut rng),
        };
    }
    if roll < 15 {
        let size = mutate::nesting_size(&mut rng, cfg.max_nest);
        let (shape, text) = mutate::nesting(&mut rng, size);
        return Input {
            kind: InputKind::Nesting,
            label: format!("{shape}-{size}"),
            text,
        };
    }
    // A generated program as the base one time in five: well-typed bases keep more mutants
    // compiling, which is what reaches the backend.
    let (label, base) = if roll < 32 || corpus.is_empty() {
        let p = gen::program(&mut rng, gen::GenConfig::default());
        ("generated".to_string(), p.source)
    } else {
        let i = rng.below(corpus.len());
        (format!("corpus-{i}"), corpus[i].clone())
    };
    let donor = if corpus.is_empty() {
        String::new()
    } else {
        corpus[rng.below(corpus.len())].clone()
    };
    Input {
        kind: InputKind::Mutation,
        label,
        text: mutate::mutate(&mut rng, &base, &donor),
    }
}

/// Whether modules of the input labelled `label` are validated: not those of control flow
/// nested deeper than 300, on which `spirv-val` itself takes seconds to minutes (its time
/// grows faster than linearly with the depth; 400 levels take 3.5 s). The compile oracles
/// still apply to them.
pub fn validates(label: &str) -> bool {
    let deep_flow = ["nested-ternary-", "nested-ifs-", "nested-blocks-"]
        .iter()
        .find_map(|p| label.strip_prefix(p))
        .and_then(|n| n.parse::<usize>().ok())
        .is_some_and(|n| n > 300);
    !deep_flow
}

/// Runs one robustness input through the pipeline and the oracles. Modules that compile are
/// validated for Vulkan 1.1 when `validate`.
pub fn check_input(text: &str, val: &mut Validator, validate: bool) -> (Reached, Vec<Finding>) {
    let (c, mut findings) = oracle::compile(
        text.to_string(),
        &[cajetac::kernel::spirv::TargetEnv::Vulkan1_1],
    );
    let mut reached = c.reached;
    if validate && !c.kernels.is_empty() {
        findings.extend(val.validate(&c.kernels, false));
        reached = Reached::Validated;
    }
    (reached, findings)
}

/// Generated program `index` of the campaign seeded with `seed`.
pub fn generated(seed: u64, index: u64) -> gen::Program {
    let mut rng = Rng::for_input(seed ^ PROGRAM_STREAM, index);
    gen::program(&mut rng, gen::GenConfig::default())
}

/// A known defect: its name, and whether a finding on an input labelled `label` is it.
type KnownDefect = (&'static str, fn(&str, &Finding) -> bool);

/// Defects known and not fixed yet, so that reports keep them apart from new ones. The
/// deep-nesting crashes, the Relaxed fence that `check` passed, over-long identifiers and
/// the quadratic diagnostics that the first campaign met are fixed, and their findings count
/// as failures again. So are spirv-val's refusals of LLVM modules (the
/// `llvm-unstructured-selection` class until 2026-12-06): the LLVM kernel backend now
/// checks the structure of every module and re-emits or refuses a kernel whose control
/// flow LLVM's SPIR-V target leaves unstructured (docs/fuzzing.md).
const KNOWN_DEFECTS: &[KnownDefect] = &[
    // lavapipe's fold of a constant `0.0` operand, made by LLVM's constant propagation or
    // lavapipe's own (`zero_folds.rs`): exact on a conformant driver.
    ("lavapipe-constant-zero-fold", |_, f| {
        f.kind == oracle::Kind::WrongResult && f.detail.contains(zero_folds::ZERO_FOLD)
    }),
    // An LLVM way's wrong result that one invocation per workgroup does not have
    // (`divergence.rs`): LLVM's SPIR-V target's structured control flow or lavapipe's
    // execution of it, open.
    ("llvm-divergent-control-flow", |_, f| {
        f.kind == oracle::Kind::WrongResult
            && f.detail.starts_with(divergence::ONE_INVOCATION_EXACT)
    }),
];

/// The name of the known defect `finding` (on an input labelled `label`) is, if any.
pub fn known_defect(label: &str, finding: &Finding) -> Option<&'static str> {
    KNOWN_DEFECTS
        .iter()
        .find(|(_, is)| is(label, finding))
        .map(|(name, _)| *name)
}
