//! The embedding API's in-memory programs and raw arguments: `Program::from_memory` (what the
//! bindings `cajeta-build` generates load from) and a POD parameter passed through `args!` as
//! `KernelArg::Bytes`.

use cajetac::embed::{args, Device, EmbeddedKernel, EmbeddedVariant, Error, KernelArg, Program};

const SOURCE: &str = r#"
package t;
import cajeta.xpu.*;

public final class Affine {
    float32 scale;
    Vector<float32,3> unused;
    float32 shift;
}

public final class K {
    @Kernel
    public static void affine(KernelBuffer<float32> data, Affine p, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { data[i] = data[i] * p.scale + p.shift; }
    }
}
"#;

/// The std430 bytes of `Affine { scale, unused: 0, shift }`: `unused` is 16-aligned, so
/// `shift` sits at 28 and the struct takes 32 bytes.
fn affine_bytes(scale: f32, shift: f32) -> Vec<u8> {
    let mut b = vec![0u8; 32];
    b[0..4].copy_from_slice(&scale.to_le_bytes());
    b[28..32].copy_from_slice(&shift.to_le_bytes());
    b
}

/// The program compiled at run time, then rebuilt from its words and reflection in memory.
fn round_trip() -> Program {
    let compiled = Program::compile("k.cajeta", SOURCE).unwrap();
    let k = compiled.get("affine").unwrap();
    let spv: Vec<u8> = k.words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let json = serde_json::to_string(&k.reflection).unwrap();
    let memory = Program::from_memory(&[EmbeddedKernel {
        name: "affine",
        spv: &spv,
        reflection_json: &json,
        by_address: EmbeddedVariant::Refused("not embedded in this test"),
    }])
    .unwrap();
    assert_eq!(memory.kernel_names(), vec!["affine"]);
    assert_eq!(memory.get("affine").unwrap().words, k.words);
    memory
}

#[test]
fn from_memory_refuses_what_is_not_spirv_or_reflection() {
    let bad = |spv: &[u8], json: &str| {
        Program::from_memory(&[EmbeddedKernel {
            name: "k",
            spv,
            reflection_json: json,
            by_address: EmbeddedVariant::None,
        }])
        .unwrap_err()
        .to_string()
    };
    assert_eq!(
        bad(&[1, 2, 3], "{}"),
        "`k (SPIR-V)` is not SPIR-V: its size is not a multiple of 4"
    );
    assert!(bad(&[0; 4], "{").starts_with("`k (reflection)` is not a reflection document"));
}

#[test]
fn a_pod_passes_through_args_as_bytes() {
    let program = round_trip();
    let device = match Device::for_program(&program) {
        Ok(d) => d,
        Err(Error::Runtime(cajeta_runtime::RuntimeError::NoDevice)) => {
            assert!(
                std::env::var("CI").map_or(true, |v| v != "true"),
                "CI=true but no device"
            );
            return;
        }
        Err(e) => panic!("{e}"),
    };
    let kernel = device.kernel(&program, "affine").unwrap();
    let host: Vec<f32> = (0..100).map(|i| i as f32).collect();
    let data = device.buffer_from(&host).unwrap();
    let stream = device.stream();
    let pod = affine_bytes(2.0, -1.0);
    kernel
        .launch(
            &stream,
            [2, 1, 1],
            [64, 1, 1],
            args![&data, KernelArg::Bytes(&pod), 100u32],
        )
        .unwrap();
    let out = data.download(&stream).unwrap();
    for (i, (&o, &h)) in out.iter().zip(&host).enumerate() {
        assert_eq!(o, h * 2.0 - 1.0, "element {i}");
    }
    // A POD of the wrong size is refused by name.
    let err = kernel
        .launch(
            &stream,
            [2, 1, 1],
            [64, 1, 1],
            args![&data, KernelArg::Bytes(&pod[..16]), 100u32],
        )
        .unwrap_err();
    assert!(err.to_string().contains("`p`"), "{err}");
}
