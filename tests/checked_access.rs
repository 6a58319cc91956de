//! Checked mode beyond single elements (docs/language.md, "Out-of-bounds accesses and checked
//! mode"): `vload`/`vstore`, packed 8/16-bit lane stores, texture `fetch`/`fetchLod` (texel,
//! level, layer) and cooperative-matrix tile loads and stores. Each program of `tests/checked/`
//! first runs the access in bounds at the exact edge (the last valid vload, lane, texel, tile)
//! and prints what it read, then goes out of bounds once; the test checks both the printed
//! values and the exact error. The buffer kinds run again through buffer addresses (the
//! address variant, `CAJETA_BUFFER_ADDRESS=always`). Out-of-bounds vectors are skipped whole
//! (a partial vload gives zeros, a partial vstore writes nothing). Cooperative matrices, which
//! lavapipe lacks, are checked in the module compiled for the H200's profile (spirv-val,
//! reflection, golden disassembly) and run where the device has them; elsewhere the test
//! prints why it skips.

use cajeta_runtime::{
    BufferAddressing, Context, ContextOptions, CoopMatrixShape, DeviceProfile, RuntimeError,
};
use cajeta_tests::{check_golden, device_context, frontend, run_on, spirv_val, tests_dir};
use cajetac::diagnostics::render_human;
use cajetac::driver::compile_kernels;
use cajetac::embed::{args, Device, Program};
use cajetac::kernel::spirv::{
    disassemble, AddressVariant, CompiledKernel, SpirvOptions, TargetEnv,
};
use cajetac::specialize::Target;

fn checked() -> SpirvOptions {
    SpirvOptions {
        checked: true,
        ..SpirvOptions::default()
    }
}

/// `(program, what it prints in bounds, first line of the error, the launch note)`.
const CASES: [(&str, &str, &str, &str); 6] = [
    (
        "vload",
        "in bounds 72\n",
        "tests/checked/vload.cajeta:12:36: runtime error: kernel `twice`: vload of 4 elements at index 9 (elements 36..39) out of bounds for `src` of length 38",
        "tests/checked/vload.cajeta:32:9: note: in this launch",
    ),
    (
        "vstore",
        "in bounds 72\n",
        "tests/checked/vstore.cajeta:12:13: runtime error: kernel `twice`: vstore of 4 elements at index 9 (elements 36..39) out of bounds for `dst` of length 38",
        "tests/checked/vstore.cajeta:31:9: note: in this launch",
    ),
    (
        "lane_store",
        "in bounds 12 5001\n",
        "tests/checked/lane_store.cajeta:12:13: runtime error: kernel `put8`: packed 8-bit lane store at index 12 out of bounds for `b` of length 12",
        "tests/checked/lane_store.cajeta:41:9: note: in this launch",
    ),
    (
        "fetch",
        "in bounds 111 1023 0\n",
        "tests/checked/fetch.cajeta:12:22: runtime error: kernel `get`: fetch of texel (16, 3) at level 0 out of bounds for `tex` of size 16x7 at that level",
        "tests/checked/fetch.cajeta:30:9: note: in this launch",
    ),
    (
        "fetch_level",
        "",
        "tests/checked/fetch_level.cajeta:9:22: runtime error: kernel `get`: fetch at level 2 out of bounds for `tex` with 2 level(s)",
        "tests/checked/fetch_level.cajeta:18:9: note: in this launch",
    ),
    (
        "fetch_layer",
        "in bounds 23\n",
        "tests/checked/fetch_layer.cajeta:10:22: runtime error: kernel `get`: fetch of texel (3, 1) in layer 3 at level 0 out of bounds for `ta` of size 4x2 with 3 layer(s) at that level",
        "tests/checked/fetch_layer.cajeta:25:9: note: in this launch",
    ),
];

/// Runs `tests/checked/<stem>.cajeta` checked on `ctx`, compiled for that device as
/// `cajetac run` compiles (its `Device.hasExtension` queries fold to what the device has):
/// what it printed and its error.
fn run_checked(ctx: &Context, stem: &str) -> (String, String) {
    let name = format!("tests/checked/{stem}.cajeta");
    let text = std::fs::read_to_string(tests_dir().join("checked").join(format!("{stem}.cajeta")))
        .unwrap();
    let profile = DeviceProfile::from_info(ctx.device_info());
    let options = SpirvOptions {
        device_features: profile.features.clone(),
        target: Target {
            profile: Some(profile),
            ..Target::default()
        },
        ..checked()
    };
    let (printed, value) = run_on(ctx, &name, text, &options);
    let error = value.expect_err(&format!(
        "{stem}: expected a runtime error; printed:\n{printed}"
    ));
    (printed, error)
}

fn assert_case(ctx: &Context, (stem, printed, first, note): (&str, &str, &str, &str)) {
    let (got_printed, error) = run_checked(ctx, stem);
    assert_eq!(got_printed, printed, "{stem}: {error}");
    assert_eq!(error, format!("{first}\n{note}"), "{stem}");
}

#[test]
fn each_access_kind_reports_its_exact_message_and_is_exact_at_the_edges() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    for case in CASES {
        assert_case(&ctx, case);
    }
}

#[test]
fn buffer_kinds_report_the_same_through_buffer_addresses() {
    let options = ContextOptions {
        buffer_addressing: Some(BufferAddressing::Always),
        ..ContextOptions::from_env()
    };
    let Ok(ctx) = Context::with_options(options) else {
        assert!(std::env::var("CI").map_or(true, |v| v != "true"));
        return;
    };
    if !ctx
        .device_info()
        .features
        .iter()
        .any(|f| f == "bufferDeviceAddress")
    {
        println!("skipping: the device has no bufferDeviceAddress");
        return;
    }
    for case in &CASES[..3] {
        assert_case(&ctx, *case);
        // What ran is the address variant, whose checks are its own (64-bit lengths).
        let path = tests_dir()
            .join("checked")
            .join(format!("{}.cajeta", case.0));
        let (map, module) = frontend(&path);
        let module = module.unwrap_or_else(|d| panic!("{}", render_human(&map, &d)));
        let kinds: Vec<String> = compile_kernels(&module, &checked(), None)
            .unwrap()
            .into_iter()
            .flat_map(|(_, k)| match k.by_address {
                AddressVariant::Compiled(v) => v.reflection.bounds_check.unwrap().sites,
                _ => panic!("{}: no address variant", k.name),
            })
            .map(|s| s.kind)
            .collect();
        let want = ["vload", "vstore", "lane store"];
        assert!(
            kinds.iter().any(|k| want.contains(&k.as_str())),
            "{kinds:?}"
        );
    }
}

const VECTORS: &str = r#"
import cajeta.xpu.*;
public final class V {
    @Kernel
    public static void copy(KernelBuffer<float32> src, KernelBuffer<float32> dst, uint32 from, uint32 to) {
        if (KernelThread.globalIdX() == 0) {
            dst.vstore(to, src.vload<4>(from) + stack Vector<float32, 4>(1.0f, 1.0f, 1.0f, 1.0f));
        }
    }
}"#;

/// Runs `copy(src, dst, from, to)` (vload at `from`, vstore at `to`) checked on buffers of 10
/// elements (src holding 1..10, dst zeros): dst afterwards and the violation's message.
fn copy_vector(from: u32, to: u32) -> (Vec<f32>, Option<String>) {
    let files = [("v.cajeta".to_string(), VECTORS.to_string())];
    let program = Program::compile_files(&files, &checked()).unwrap();
    let device = Device::with_options(
        ContextOptions::from_env()
            .with_features(program.required_features())
            .with_checked(true),
    )
    .unwrap();
    let copy = device.kernel(&program, "copy").unwrap();
    let src: Vec<f32> = (1..=10).map(|v| v as f32).collect();
    let src = device.buffer_from(&src).unwrap();
    let dst = device.buffer_from(&[0.0f32; 10]).unwrap();
    let stream = device.stream();
    copy.launch(&stream, [1, 1, 1], [1, 1, 1], args![&src, &dst, from, to])
        .unwrap();
    let violation = match stream.sync() {
        Ok(()) => None,
        Err(RuntimeError::OutOfBounds(v)) => Some(v.message()),
        Err(e) => panic!("{e}"),
    };
    (dst.download(&stream).unwrap(), violation)
}

#[test]
fn a_partly_out_of_bounds_vector_is_skipped_whole() {
    if device_context(false).is_none() {
        return;
    }
    // In bounds at the edge: elements 4..7 of src (vector 1) to 4..7 of dst.
    let (dst, v) = copy_vector(1, 1);
    assert_eq!(v, None);
    assert_eq!(dst, [0.0, 0.0, 0.0, 0.0, 6.0, 7.0, 8.0, 9.0, 0.0, 0.0]);
    // vload of vector 2 (elements 8..11 of 10): zeros, stored at 4..7 as 0 + 1.
    let (dst, v) = copy_vector(2, 1);
    assert_eq!(
        v.as_deref(),
        Some("kernel `copy`: vload of 4 elements at index 2 (elements 8..11) out of bounds for `src` of length 10")
    );
    assert_eq!(dst, [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0]);
    // vstore to vector 2: elements 8 and 9 exist but are not written either.
    let (dst, v) = copy_vector(0, 2);
    assert_eq!(
        v.as_deref(),
        Some("kernel `copy`: vstore of 4 elements at index 2 (elements 8..11) out of bounds for `dst` of length 10")
    );
    assert_eq!(dst, [0.0; 10]);
}

/// A checked site as the coop test compares it: resource, kind, shape, line and column.
type Site<'a> = (&'a str, &'a str, &'a [u32], (usize, usize));

fn h200() -> DeviceProfile {
    let text = std::fs::read_to_string(tests_dir().join("profiles").join("h200.json")).unwrap();
    DeviceProfile::from_json(&text).unwrap()
}

/// The kernel `tile` of `tests/checked/<stem>.cajeta` compiled checked for the H200's
/// profile (with `extra` features), with the source map.
fn coop_tile(stem: &str, extra: &[&str]) -> (cajetac::diagnostics::SourceMap, CompiledKernel) {
    let mut profile = h200();
    profile.features.extend(extra.iter().map(|f| f.to_string()));
    let options = SpirvOptions {
        checked: true,
        target_env: TargetEnv::Vulkan1_3,
        device_features: profile.features.clone(),
        target: Target {
            profile: Some(profile),
            ..Target::default()
        },
        ..SpirvOptions::default()
    };
    let path = tests_dir().join("checked").join(format!("{stem}.cajeta"));
    let (map, module) = frontend(&path);
    let module = module.unwrap_or_else(|d| panic!("{}", render_human(&map, &d)));
    let kernels = compile_kernels(&module, &options, None)
        .unwrap_or_else(|d| panic!("{}", render_human(&map, &d)));
    let (_, k) = kernels.into_iter().find(|(_, k)| k.name == "tile").unwrap();
    (map, k)
}

#[test]
fn coop_tiles_are_checked_in_modules_for_a_device_with_cooperative_matrices() {
    let (map, k) = coop_tile("coop", &[]);
    let sites = &k.reflection.bounds_check.as_ref().unwrap().sites;
    let tiles: Vec<Site> = sites
        .iter()
        .map(|s| {
            let at = map.line_col_at(s.file as usize, s.offset as usize);
            (s.resource.as_str(), s.kind.as_str(), s.shape.as_slice(), at)
        })
        .collect();
    // A row-major and B column-major, 16 float16 per row (column) in float16 buffers; the
    // positions are those the device test below expects.
    assert_eq!(
        tiles,
        [
            ("a", "coop load", &[16, 16, 0, 16][..], (21, 51)),
            ("b", "coop load", &[16, 16, 1, 16][..], (22, 51)),
            ("c", "coop store", &[16, 16, 1, 16][..], (24, 13)),
        ]
    );
    let mut modules = vec![("tile", &k.words)];
    if let AddressVariant::Compiled(v) = &k.by_address {
        modules.push(("tile-addr", &v.words));
    }
    assert_eq!(modules.len(), 2, "the address variant is compiled too");
    for (tag, words) in modules {
        spirv_val(words, TargetEnv::Vulkan1_3, tag).unwrap();
        let text = disassemble(words);
        let golden = tests_dir()
            .join("checked")
            .join("golden")
            .join(format!("coop.{tag}.spvasm"));
        check_golden(&golden, &text).unwrap();
        // Every tile access is under its check: one report call per tile, one selection per
        // guard (and one in each of the two report functions: the short one, always there,
        // and the wide one, which tiles call).
        let count = |op: &str| text.lines().filter(|l| l.contains(op)).count();
        assert_eq!(count("OpFunctionCall"), 3, "{tag}");
        assert_eq!(count("OpCooperativeMatrixLoadKHR"), 2, "{tag}");
        assert_eq!(count("OpCooperativeMatrixStoreKHR"), 1, "{tag}");
        assert_eq!(count("OpSelectionMerge"), 5, "{tag}");
        assert_eq!(count("OpFunctionEnd"), 3, "{tag}");
    }
}

#[test]
fn coop_tiles_of_a_buffer_array_check_the_buffer_index_and_the_whole_tile() {
    let (_, k) = coop_tile("coop_array", &["shaderStorageBufferArrayDynamicIndexing"]);
    spirv_val(&k.words, TargetEnv::Vulkan1_3, "coop_array").unwrap();
    let sites = &k.reflection.bounds_check.as_ref().unwrap().sites;
    let kinds: Vec<(&str, &str, &[u32])> = sites
        .iter()
        .map(|s| (s.resource.as_str(), s.kind.as_str(), s.shape.as_slice()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("bufs", "buffer array", &[][..]),
            ("bufs", "coop load", &[16, 16, 0, 16][..]),
            ("bufs", "buffer array", &[][..]),
            ("bufs", "coop load", &[16, 16, 0, 16][..]),
            ("c", "coop store", &[16, 16, 0, 16][..]),
        ]
    );
    let text = disassemble(&k.words);
    let count = |op: &str| text.lines().filter(|l| l.contains(op)).count();
    // One report per access (the array index's and the tile's merged into one guard).
    assert_eq!(count("OpFunctionCall"), 3);
}

#[test]
fn coop_tiles_are_exact_at_the_edges_and_report_past_them_where_the_device_has_them() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let shape = CoopMatrixShape::subgroup([16, 16, 16], "float16", "float16", "float32");
    if !ctx.device_info().coop_matrix_shapes.contains(&shape) {
        println!(
            "skipping the cooperative-matrix run: {} does not list {shape}",
            ctx.device_info().name
        );
        return;
    }
    let cases = [
        (
            "coop",
            "tests/checked/coop.cajeta:21:51: runtime error: kernel `tile`: CoopMatrix load of a 16x16 row-major tile at offset 16 with stride 16 out of bounds for `a` of length 256 (its last element is 271)",
            "tests/checked/coop.cajeta:61:9: note: in this launch",
        ),
        (
            "coop_store",
            "tests/checked/coop_store.cajeta:24:13: runtime error: kernel `tile`: CoopMatrix store of a 16x16 column-major tile at offset 1 with stride 16 out of bounds for `c` of length 256 (its last element is 256)",
            "tests/checked/coop_store.cajeta:61:9: note: in this launch",
        ),
    ];
    for (stem, first, note) in cases {
        let (printed, error) = run_checked(&ctx, stem);
        assert_eq!(printed, "in bounds 2\n", "{stem}: {error}");
        let mut lines = error.lines();
        assert_eq!(lines.next(), Some(first), "{stem}: {error}");
        // Every invocation of the subgroup makes the access.
        assert_eq!(error.lines().last(), Some(note), "{stem}: {error}");
    }
}
