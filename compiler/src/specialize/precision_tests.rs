//! Unit tests of the float precision pass: every variant of one kernel lowers, and the
//! packing operations appear exactly where the variant needs them.

use cajeta_runtime::{FloatStorage, PrecisionVariant};

use crate::diagnostics::SourceMap;
use crate::driver;
use crate::kernel::spirv::{disassemble, SpirvOptions};

const SRC: &str = r#"
package t;
import cajeta.xpu.*;
public final class P {
    @Kernel
    public static void k(KernelBuffer<sfp> x, KernelBuffer<Vector<sfp,4>> y, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) {
            afp v = x[i] * 2.0;
            x[i] = v;
            y[i] = y[i] + Precision.ld4(y, n - i);
            Precision.cp1(x, i + 1, x, i);
        }
    }
}
"#;

fn asm(storage: FloatStorage, fp16a: bool) -> (String, String) {
    let mut sources = SourceMap::new();
    let module = driver::frontend(&mut sources, &[("p.cajeta".into(), SRC.into())])
        .unwrap_or_else(|d| panic!("{d:?}"));
    let mut options = SpirvOptions::default();
    options.target.precision = PrecisionVariant {
        float_storage: storage,
        fp16_arithmetic: fp16a,
        ..Default::default()
    };
    let kernels =
        driver::compile_kernels(&module, &options, None).unwrap_or_else(|d| panic!("{d:?}"));
    let k = &kernels[0].1;
    (
        disassemble(&k.words),
        k.reflection.precision_variant.clone(),
    )
}

#[test]
fn fp32_has_no_conversions() {
    let (text, name) = asm(FloatStorage::Fp32, false);
    assert_eq!(name, "fp32");
    for op in [
        "PackHalf2x16",
        "UnpackHalf2x16",
        "OpFConvert",
        "OpAtomicCompareExchange",
    ] {
        assert!(!text.contains(op), "{op} in fp32:\n{text}");
    }
}

#[test]
fn fp16_packed_unpacks_and_stores_halves_with_compare_exchange() {
    let (text, name) = asm(FloatStorage::Fp16Packed, false);
    assert_eq!(name, "fp16p");
    assert!(text.contains("UnpackHalf2x16"), "{text}");
    assert!(text.contains("PackHalf2x16"), "{text}");
    // The scalar store and the scalar copy each merge a half into a word.
    assert_eq!(text.matches("OpAtomicCompareExchange").count(), 2, "{text}");
    assert!(!text.contains("OpCapability Float16"), "{text}");
}

#[test]
fn bf16_native_declares_the_bfloat16_type() {
    let (text, name) = asm(FloatStorage::Bf16, false);
    assert_eq!(name, "bf16s");
    assert!(text.contains("OpCapability BFloat16TypeKHR"), "{text}");
    assert!(text.contains("SPV_KHR_bfloat16"), "{text}");
}

#[test]
fn precision_typed_kernel_parameters_are_refused() {
    let src = "package t; import cajeta.xpu.*; public final class P { @Kernel public static void k(KernelBuffer<sfp> x, afp a) { x[0] = a; } }";
    let mut sources = SourceMap::new();
    // The checker refuses it (so `check` agrees with `build`); specialization keeps the same
    // refusal for IR that did not come through the checker.
    let Err(d) = driver::frontend(&mut sources, &[("p.cajeta".into(), src.into())]) else {
        panic!("an afp kernel parameter must be refused");
    };
    assert_eq!(d[0].code.as_str(), "E0012");
    assert!(d[0].message.contains("`a`"), "{}", d[0].message);
}

/// The diagnostics of compiling `src` as `storage` (empty when it compiles).
fn errors(src: &str, storage: FloatStorage) -> Vec<String> {
    let mut sources = SourceMap::new();
    let module = driver::frontend(&mut sources, &[("p.cajeta".into(), src.into())])
        .unwrap_or_else(|d| panic!("{d:?}"));
    let mut options = SpirvOptions::default();
    options.target.precision = PrecisionVariant {
        float_storage: storage,
        ..Default::default()
    };
    match driver::compile_kernels(&module, &options, None) {
        Ok(_) => Vec::new(),
        Err(d) => d
            .iter()
            .map(|d| format!("{} {}", d.code.as_str(), d.message))
            .collect(),
    }
}

#[test]
fn packed_local_vectors_refuse_lane_writes_and_arithmetic() {
    let lane = "package t; import cajeta.xpu.*; public final class P { @Kernel public static void k(KernelBuffer<sfp> x) { Shared<Vector<lfp,4>> t = shared Vector<lfp,4>[64]; Vector<lfp,4> a = t[1]; a.y = x[0]; t[0] = a; Barrier.workgroup(); x[1] = t[0].y; } }";
    let arith = "package t; import cajeta.xpu.*; public final class P { @Kernel public static void k(KernelBuffer<Vector<sfp,4>> x) { Shared<Vector<lfp,4>> t = shared Vector<lfp,4>[64]; Vector<lfp,4> a = t[0]; Vector<lfp,4> b = t[1]; t[2] = a + b; x[0] = t[2]; } }";
    for src in [lane, arith] {
        // Four lanes of float32 in fp32: fine.
        let e = errors(src, FloatStorage::Fp32);
        assert!(e.is_empty(), "{e:?}");
        for storage in [
            FloatStorage::Fp16Packed,
            FloatStorage::Fp16,
            FloatStorage::Bf16Packed,
        ] {
            let e = errors(src, storage);
            assert_eq!(e.len(), 1, "{storage:?}: {e:?}");
            assert!(
                e[0].contains("Vector<lfp,4>") && e[0].contains("packed"),
                "{e:?}"
            );
        }
    }
}
