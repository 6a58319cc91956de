//! Kernels split at their barriers whose regions run as SIMD lanes on the CPU device
//! (`tests/device/lane_regions.cajeta`, docs/cpu-device.md "Barriers"). The program itself
//! checks every result against the host, under the interpreter on lavapipe (the device
//! suite) and on the CPU device (`tests/cpu_programs.rs`); here each kernel is checked to
//! run its regions as lanes, compared with lavapipe bit for bit on launch shapes with
//! partial tiles of lanes (workgroups 40 wide, 6 × 5, a last workgroup partly past `n`),
//! and the CPU device's invocation order is checked: shared-memory exchanges must hand
//! each invocation its predecessor's index, as the scalar loop over the invocations does.

use cajeta_runtime::cpu::{CpuArg, CpuDevice, CpuKernel};
use cajeta_runtime::{KernelArg, LaunchConfig, ScalarValue};
use cajeta_tests::device_context;
use cajetac::ir::Module;
use cajetac::kernel::spirv::SpirvOptions;

const FILE: &str = "lane_regions.cajeta";

fn module() -> Module {
    let path = cajeta_tests::tests_dir().join("device").join(FILE);
    cajeta_tests::frontend(&path).1.expect("the program checks")
}

fn cpu_kernel(module: &Module, name: &str) -> CpuKernel {
    crate::cpu_device::cpu_kernel_of(module, name)
}

/// An argument: a buffer of 32-bit words, or a scalar.
enum Arg {
    Buffer(Vec<u32>),
    Scalar(ScalarValue),
}

/// Runs kernel `name` on the CPU device; the buffers' words afterwards.
fn on_cpu(kernel: &CpuKernel, config: &LaunchConfig, args: &[Arg]) -> Vec<Vec<u32>> {
    let dev = CpuDevice::new();
    let bufs: Vec<_> = args
        .iter()
        .filter_map(|a| match a {
            Arg::Buffer(words) => {
                let b = dev.create_buffer(4 * words.len() as u64).unwrap();
                let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                dev.upload(&b, &bytes).unwrap();
                Some(b)
            }
            Arg::Scalar(_) => None,
        })
        .collect();
    let mut next = bufs.iter();
    let cpu_args: Vec<CpuArg> = args
        .iter()
        .map(|a| match a {
            Arg::Buffer(_) => CpuArg::Buffer(next.next().unwrap()),
            Arg::Scalar(v) => CpuArg::Scalar(*v),
        })
        .collect();
    dev.launch(kernel, config, &cpu_args)
        .expect("the launch runs");
    bufs.iter()
        .map(|b| {
            let mut out = vec![0u8; b.size() as usize];
            dev.download(b, &mut out).unwrap();
            words(&out)
        })
        .collect()
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Runs kernel `name` (compiled by rspirv) on lavapipe, if there is a Vulkan device.
fn on_vulkan(
    module: &Module,
    name: &str,
    config: &LaunchConfig,
    args: &[Arg],
) -> Option<Vec<Vec<u32>>> {
    let ctx = device_context(false)?;
    let mut k = cajetac::driver::compile_kernels(module, &SpirvOptions::default(), Some(name))
        .expect("rspirv compiles it");
    let k = k.remove(0).1;
    let kernel = ctx.load_kernel(&k.words, &k.reflection).expect("loads");
    let s = ctx.default_stream();
    let bufs: Vec<_> = args
        .iter()
        .filter_map(|a| match a {
            Arg::Buffer(words) => {
                let b = ctx.create_buffer(4 * words.len() as u64).unwrap();
                let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                s.upload_buffer(&b, &bytes).unwrap();
                Some(b)
            }
            Arg::Scalar(_) => None,
        })
        .collect();
    let mut next = bufs.iter();
    let gpu_args: Vec<KernelArg> = args
        .iter()
        .map(|a| match a {
            Arg::Buffer(_) => KernelArg::Buffer(next.next().unwrap()),
            Arg::Scalar(v) => KernelArg::Scalar(*v),
        })
        .collect();
    s.launch(&kernel, config, &gpu_args)
        .expect("the launch runs");
    Some(
        bufs.iter()
            .map(|b| {
                let mut out = vec![0u8; b.size() as usize];
                s.download_buffer(b, &mut out).unwrap();
                words(&out)
            })
            .collect(),
    )
}

/// The program's input: values in [-100, 100], some of them multiples of 4.
fn input() -> Vec<u32> {
    (0..1024u32)
        .map(|i| ((i * 7919 + 13) % 201) as i32 - 100)
        .map(|v| v as u32)
        .collect()
}

#[test]
fn split_regions_run_as_lanes() {
    let m = module();
    // (kernel, regions that take the vector form): those with a loop (the grid-stride
    // loop, the loops inside a loop with barriers, the loop after an early return) or a
    // shared-memory atomic; straight-line regions keep the scalar loop.
    //
    // Which loops LLVM's own loop vectorizer has already turned into vectors before the
    // vector form is written depends on the host CPU's cost model (on an AVX2 AMD EPYC it
    // vectorizes `rounds`'s inner reduction even with the vectorizers asked off), and such a
    // region keeps the scalar loop, which is right but not lanes: one of the five may do so.
    let mut lanes = 0;
    for name in ["treeSum", "rounds", "binCounts", "exchanges", "earlyOut"] {
        let k = cpu_kernel(&m, name);
        assert!(k.is_split(), "{name}: {k:?}");
        assert!(k.lane_loops() <= 1, "{name}: {k:?}");
        lanes += k.lane_loops();
    }
    assert!(
        lanes >= 4,
        "only {lanes} of 5 kernels' loop regions run as lanes"
    );
}

#[test]
fn lane_regions_match_lavapipe_on_partial_tiles() {
    let m = module();
    let (groups, size) = (5u32, 40u32);
    let n = groups * size - 13;
    for (name, out_words, block) in [
        ("treeSum", 8usize, size),
        ("rounds", (groups * size) as usize, size),
        ("binCounts", 5 * 16, size),
        ("earlyOut", (groups * size) as usize, size),
        // A workgroup wider than the lanes, and one narrower than a tile of 16.
        ("earlyOut", (groups * 64) as usize, 64),
        ("treeSum", 8, 12),
    ] {
        let config = LaunchConfig::new([groups, 1, 1], [block, 1, 1]);
        let args = [
            Arg::Buffer(input()),
            Arg::Buffer(vec![0xdead_beef; out_words]),
            Arg::Scalar(ScalarValue::U32(n)),
        ];
        let cpu = on_cpu(&cpu_kernel(&m, name), &config, &args);
        let Some(gpu) = on_vulkan(&m, name, &config, &args) else {
            return;
        };
        assert_eq!(cpu, gpu, "{name} in workgroups of {block}");
    }
}

#[test]
fn lanes_keep_the_scalar_loops_order() {
    let m = module();
    let kernel = cpu_kernel(&m, "exchanges");
    // Tiles of two rows of 6 lanes (12 of 16), the last one a single row.
    let config = LaunchConfig::new([2, 2, 1], [6, 5, 1]);
    let out = on_cpu(
        &kernel,
        &config,
        &[Arg::Buffer(vec![0; 128 * 64]), Arg::Buffer(vec![0; 128])],
    );
    for g in [0usize, 1, 64, 65] {
        for l in 0..30usize {
            let want = if l == 0 { 999 } else { l as u32 - 1 };
            assert_eq!(out[0][g * 64 + l], want, "workgroup {g}, invocation {l}");
        }
        assert_eq!(out[1][g], 29, "workgroup {g}'s last exchange");
    }
    // Shared-memory atomics of many lanes on one bin lose no update: 40 invocations, four
    // values each, counted into 16 bins, as on the host.
    let bins = cpu_kernel(&m, "binCounts");
    let config = LaunchConfig::new([5, 1, 1], [40, 1, 1]);
    let h = input();
    let n = 5 * 40 - 13;
    let out = on_cpu(
        &bins,
        &config,
        &[
            Arg::Buffer(h.clone()),
            Arg::Buffer(vec![0; 80]),
            Arg::Scalar(ScalarValue::U32(n)),
        ],
    );
    let mut want = vec![0u32; 80];
    for i in 0..n as usize {
        for k in 0..4 {
            let v = h[(i * 4 + k) % h.len()];
            want[(i / 40) * 16 + (v & 15) as usize] += 1 + k as u32;
        }
    }
    assert_eq!(out[1], want);
}
