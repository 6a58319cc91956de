//! No boolean phis in LLVM's modules: NVIDIA's 580 driver segfaulted while creating the
//! pipeline of kernels whose loop headers carried one (docs/fuzzing.md), so the backend
//! carries booleans across blocks as 32-bit integers. `loop_carried_flags.cajeta` keeps three
//! booleans alive around two loops (LLVM made boolean phis of them in both headers); its
//! values are checked on the device by `device_programs_agree_through_llvm`.

use super::compile_one;
use cajeta_tests::{spirv_val, tests_dir};
use cajetac::kernel::spirv::{KernelBackend, TargetEnv};
use rspirv::spirv::Op;

#[test]
fn loop_carried_booleans_are_not_boolean_phis() {
    let (_, module) = cajeta_tests::frontend(&tests_dir().join("device/loop_carried_flags.cajeta"));
    let module = module.expect("checks");
    let k = compile_one(&module, "k", KernelBackend::Llvm).expect("LLVM compiles k");
    spirv_val(&k.words, TargetEnv::Vulkan1_3, "llvm-loop-carried-flags").expect("valid");
    let m = rspirv::dr::load_words(&k.words).expect("parses");
    let bool_ty = m
        .types_global_values
        .iter()
        .find(|i| i.class.opcode == Op::TypeBool)
        .and_then(|i| i.result_id);
    let phis: Vec<_> = m
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .filter(|i| i.class.opcode == Op::Phi)
        .collect();
    let loops = m
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .filter(|i| i.class.opcode == Op::LoopMerge)
        .count();
    assert!(loops >= 2, "the kernel's two loops stay loops ({loops})");
    assert!(!phis.is_empty(), "LLVM carries the loops' values in phis");
    let boolean = phis.iter().filter(|p| p.result_type == bool_ty).count();
    assert_eq!(boolean, 0, "{boolean} of {} phis are boolean", phis.len());
}
