//! `Device.hasFeature` over every Vulkan 1.0-1.3 core feature and the integer dot-product
//! properties, `Device.extensionVersion` and `Device.limit` (the seed's `ncnn_<feature>`,
//! `ncnn_<extension>` and `ncnn_<limit>` macros): compiled for the device they run on they
//! fold to its values, which must equal what the runtime read from Vulkan; without a profile
//! they are the Vulkan baseline; a profile saved before they were recorded is refused, not
//! guessed.

use cajeta_runtime::{Context, DeviceProfile};
use cajeta_tests::{device_context, run_on, tests_dir};
use cajetac::diagnostics::SourceMap;
use cajetac::driver::compile_kernels;
use cajetac::kernel::spirv::{disassemble, SpirvOptions};
use cajetac::specialize::Target;

const PROGRAM: &str = r#"
package t;
import cajeta.xpu.*;
public final class Q {
    @Kernel
    public static void q(KernelBuffer<uint32> out) {
        out[0] = Device.limit("maxComputeWorkGroupInvocations");
        out[1] = Device.limit("maxComputeSharedMemorySize");
        out[2] = Device.limit("maxComputeWorkGroupSizeZ");
        out[3] = Device.limit("maxComputeWorkGroupCountX");
        out[4] = Device.extensionVersion("VK_KHR_16bit_storage");
        out[5] = Device.extensionVersion("VK_NV_cooperative_matrix");
        out[6] = Device.hasFeature("robustBufferAccess") ? 1 : 0;
        out[7] = Device.hasFeature("integerDotProduct4x8BitPackedSignedAccelerated") ? 1 : 0;
        out[8] = Device.hasFeature("shaderIntegerDotProduct") ? 1 : 0;
        out[9] = Device.hasFeature("textureCompressionBC") ? 1 : 0;
    }

    public static int32 run() {
        KernelBuffer<uint32> out = heap KernelBuffer<uint32>(10);
        q.launch(KernelStream.current(), grid: [1], block: [1])(out);
        KernelStream.current().sync();
        uint32[] h = heap uint32[10];
        out.download(h);
        for (int32 i = 0; i < 10; i++) {
            System.out.println(h[i]);
        }
        return 777;
    }
}
"#;

fn run(ctx: &Context, profile: Option<DeviceProfile>) -> Vec<u64> {
    let options = SpirvOptions {
        device_features: ctx.device_info().features.clone(),
        target: Target {
            profile,
            ..Default::default()
        },
        ..SpirvOptions::default()
    };
    let (printed, value) = run_on(ctx, "q.cajeta", PROGRAM.to_string(), &options);
    assert_eq!(value.as_deref(), Ok("777"), "printed:\n{printed}");
    printed
        .split_whitespace()
        .map(|w| w.parse().unwrap_or_else(|e| panic!("`{w}`: {e}")))
        .collect()
}

#[test]
fn queries_fold_to_what_the_runtime_read_from_the_device() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let info = ctx.device_info().clone();
    let got = run(&ctx, Some(DeviceProfile::from_info(&info)));
    let version = |e: &str| {
        info.extension_versions
            .iter()
            .find(|(n, _)| n == e)
            .map_or(0, |v| v.1)
    };
    let has = |f: &str| {
        u32::from(info.all_features.iter().any(|x| x == f) || info.features.iter().any(|x| x == f))
    };
    let l = &info.limits;
    let want: Vec<u64> = [
        l.max_compute_work_group_invocations,
        l.max_compute_shared_memory_size,
        l.max_compute_work_group_size[2],
        l.max_compute_work_group_count[0],
        version("VK_KHR_16bit_storage"),
        version("VK_NV_cooperative_matrix"),
        has("robustBufferAccess"),
        has("integerDotProduct4x8BitPackedSignedAccelerated"),
        has("shaderIntegerDotProduct"),
        has("textureCompressionBC"),
    ]
    .into_iter()
    .map(u64::from)
    .collect();
    assert_eq!(got, want);
    // Every Vulkan device has robustBufferAccess (a required feature).
    assert_eq!(got[6], 1, "robustBufferAccess not reported");
    assert!(
        got[0] >= 128 && got[1] >= 16384,
        "limits below the Vulkan minimum: {got:?}"
    );
}

#[test]
fn without_a_profile_the_queries_are_the_vulkan_baseline() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    assert_eq!(run(&ctx, None), [128, 16384, 64, 65535, 0, 0, 0, 0, 0, 0]);
}

#[test]
fn a_profile_without_the_records_is_refused_not_guessed() {
    let path = tests_dir().join("profiles").join("lavapipe.json");
    let text = std::fs::read_to_string(path).expect("lavapipe profile");
    let mut profile = DeviceProfile::from_json(&text).expect("profile");
    assert!(profile.all_features.is_some() && profile.extension_versions.is_some());
    let mut sources = SourceMap::new();
    let module = cajetac::driver::frontend(&mut sources, &[("q.cajeta".into(), PROGRAM.into())])
        .expect("the program checks");
    let options = |p: &DeviceProfile| SpirvOptions {
        target: Target {
            profile: Some(p.clone()),
            ..Default::default()
        },
        ..SpirvOptions::default()
    };
    // The saved lavapipe profile answers everything: constants only, no query left.
    let kernels = compile_kernels(&module, &options(&profile), None).expect("compiles");
    let text = disassemble(&kernels[0].1.words);
    assert!(text.contains("OpConstant"), "{text}");
    profile.all_features = None;
    profile.extension_versions = None;
    let Err(d) = compile_kernels(&module, &options(&profile), None) else {
        panic!("an old profile must not answer robustBufferAccess or versions");
    };
    assert!(
        !d.is_empty()
            && d.iter()
                .all(|d| d.message.contains("cajetac devices --json")),
        "{:?}",
        d.iter().map(|d| &d.message).collect::<Vec<_>>()
    );
}
