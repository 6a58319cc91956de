//! Shared helpers for the runtime's device tests: assembling SPIR-V text with `spirv-as`,
//! building reflection documents by hand, opening a context (or skipping when there is no
//! device outside CI), and byte conversions.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use cajeta_runtime::*;

static COUNTER: AtomicUsize = AtomicUsize::new(0);

fn scratch(ext: &str) -> PathBuf {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!(
        "cajeta-runtime-test-{}-{n}.{ext}",
        std::process::id()
    ))
}

/// Assembles SPIR-V text for Vulkan 1.1 with `spirv-as` (and checks it with `spirv-val` when
/// that is installed), returning the words.
pub fn assemble(text: &str) -> Vec<u32> {
    let src = scratch("spvasm");
    let out = scratch("spv");
    std::fs::write(&src, text).expect("write SPIR-V text to a temp file");
    let status = Command::new("spirv-as")
        .args(["--target-env", "vulkan1.1", "-o"])
        .arg(&out)
        .arg(&src)
        .status()
        .unwrap_or_else(|e| panic!("cannot run `spirv-as` (install SPIRV-Tools): {e}"));
    assert!(status.success(), "spirv-as rejected the test kernel");
    if let Ok(val) = Command::new("spirv-val")
        .args(["--target-env", "vulkan1.1"])
        .arg(&out)
        .status()
    {
        assert!(val.success(), "spirv-val rejected the test kernel");
    }
    let bytes = std::fs::read(&out).expect("read assembled SPIR-V");
    let _ = std::fs::remove_file(&src);
    let _ = std::fs::remove_file(&out);
    assert_eq!(bytes.len() % 4, 0);
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub fn in_ci() -> bool {
    std::env::var("CI")
        .map(|v| v == "true" || v == "1")
        .unwrap_or(false)
}

/// Opens a context with `opts`. With no Vulkan device (or loader, or validation layer when
/// asked for) the test is skipped with a notice, except under `CI=true`, where it fails.
pub fn context_with(opts: ContextOptions) -> Option<Context> {
    match Context::with_options(opts) {
        Ok(ctx) => Some(ctx),
        Err(
            e @ (RuntimeError::NoDevice
            | RuntimeError::Loader(_)
            | RuntimeError::LayerMissing { .. }),
        ) => {
            if in_ci() {
                panic!("CI=true but no usable Vulkan device: {e}");
            }
            // Written to the real stderr (not `eprintln!`, which the test harness captures) so
            // the skip is visible in a normal `cargo test` run.
            let _ = writeln!(std::io::stderr(), "notice: skipping device test: {e}");
            None
        }
        Err(e) => panic!("creating a context failed: {e}"),
    }
}

/// A context from the environment's options (`CAJETA_DEVICE`, `CAJETA_VALIDATION`), with
/// uploads always staged so barrier logs are the same on every device (a direct write into
/// host-visible memory records nothing; `transfers.rs` tests that path).
pub fn context() -> Option<Context> {
    context_with(ContextOptions {
        no_host_visible: true,
        ..ContextOptions::from_env()
    })
}

/// A context with validation and synchronization validation on.
pub fn validated_context() -> Option<Context> {
    context_with(ContextOptions {
        validation: true,
        no_host_visible: true,
        ..ContextOptions::from_env()
    })
}

pub fn u32_bytes(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn bytes_u32(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub fn bytes_f32(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub fn storage_buffer(name: &str, binding: u32, access: Access) -> Binding {
    Binding {
        name: name.into(),
        set: 0,
        binding,
        descriptor_type: DescriptorType::StorageBuffer,
        element_type: Some("uint32".into()),
        element_stride: Some(4),
        image_format: None,
        access,
        array: None,
    }
}

pub fn storage_image(name: &str, binding: u32, access: Access) -> Binding {
    Binding {
        name: name.into(),
        set: 0,
        binding,
        descriptor_type: DescriptorType::StorageImage,
        element_type: None,
        element_stride: None,
        image_format: Some("r32f".into()),
        access,
        array: None,
    }
}

/// What a parameter is, for [`reflection`].
pub enum Param {
    Res(Binding),
    Push(&'static str, &'static str),
}

/// A reflection document for `entry` with the given parameters (4-byte push constants).
pub fn reflection(entry: &str, params: Vec<Param>) -> Reflection {
    let mut bindings = Vec::new();
    let mut members = Vec::new();
    let mut parameters = Vec::new();
    for p in params {
        match p {
            Param::Res(b) => {
                parameters.push(Parameter {
                    name: b.name.clone(),
                    slot: ParameterSlot::Binding(bindings.len()),
                    psc_spec_id: None,
                });
                bindings.push(b);
            }
            Param::Push(name, ty) => {
                parameters.push(Parameter {
                    name: name.into(),
                    slot: ParameterSlot::PushConstant(members.len()),
                    psc_spec_id: None,
                });
                members.push(PushConstantMember {
                    name: name.into(),
                    offset: 4 * members.len() as u32,
                    size: 4,
                    ty: ty.into(),
                });
            }
        }
    }
    let wg = |id: u32, axis: &str, default: u32| SpecConstant {
        id,
        name: format!("workgroup_size_{axis}"),
        ty: "uint32".into(),
        default,
    };
    Reflection {
        entry_point: entry.into(),
        spirv_version: "1.3".into(),
        target_env: "vulkan1.1".into(),
        workgroup_size_spec_ids: [0, 1, 2],
        default_workgroup_size: [64, 1, 1],
        bindings,
        push_constants: PushConstantBlock {
            size: 4 * members.len() as u32,
            members,
        },
        spec_constants: vec![wg(0, "x", 64), wg(1, "y", 1), wg(2, "z", 1)],
        capabilities: vec!["Shader".into()],
        extensions: vec![],
        vulkan_features: vec![],
        precision_variant: "fp32".into(),
        parameters,
        static_shared_bytes: 0,
        bounds_check: None,
        required_subgroup_size: None,
        coop_matrix_shapes: vec![],
    }
}

/// `fill(KernelBuffer<uint32> out, uint32 n, uint32 k)`: `out[i] = 3 * i + k` for `i < n`.
pub const FILL: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "fill" %gid
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %wgsize BuiltIn WorkgroupSize
               OpDecorate %sx SpecId 0
               OpDecorate %sy SpecId 1
               OpDecorate %sz SpecId 2
               OpDecorate %rta ArrayStride 4
               OpMemberDecorate %Buf 0 Offset 0
               OpMemberDecorate %Buf 0 NonReadable
               OpDecorate %Buf Block
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 0
               OpMemberDecorate %PC 0 Offset 0
               OpMemberDecorate %PC 1 Offset 4
               OpDecorate %PC Block
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %v3uint = OpTypeVector %uint 3
       %bool = OpTypeBool
         %sx = OpSpecConstant %uint 64
         %sy = OpSpecConstant %uint 1
         %sz = OpSpecConstant %uint 1
     %wgsize = OpSpecConstantComposite %v3uint %sx %sy %sz
         %u0 = OpConstant %uint 0
         %u1 = OpConstant %uint 1
         %u3 = OpConstant %uint 3
        %rta = OpTypeRuntimeArray %uint
        %Buf = OpTypeStruct %rta
       %pBuf = OpTypePointer StorageBuffer %Buf
        %out = OpVariable %pBuf StorageBuffer
         %PC = OpTypeStruct %uint %uint
        %pPC = OpTypePointer PushConstant %PC
         %pc = OpVariable %pPC PushConstant
       %pPCu = OpTypePointer PushConstant %uint
       %pIn3 = OpTypePointer Input %v3uint
        %gid = OpVariable %pIn3 Input
       %pSBu = OpTypePointer StorageBuffer %uint
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %g = OpLoad %v3uint %gid
          %x = OpCompositeExtract %uint %g 0
         %pn = OpAccessChain %pPCu %pc %u0
          %n = OpLoad %uint %pn
         %ok = OpULessThan %bool %x %n
               OpSelectionMerge %end None
               OpBranchConditional %ok %body %end
       %body = OpLabel
         %pk = OpAccessChain %pPCu %pc %u1
          %k = OpLoad %uint %pk
         %x3 = OpIMul %uint %x %u3
          %v = OpIAdd %uint %x3 %k
        %dst = OpAccessChain %pSBu %out %u0 %x
               OpStore %dst %v
               OpBranch %end
        %end = OpLabel
               OpReturn
               OpFunctionEnd
"#;

pub fn fill_reflection() -> Reflection {
    reflection(
        "fill",
        vec![
            Param::Res(storage_buffer("out", 0, Access::Write)),
            Param::Push("n", "uint32"),
            Param::Push("k", "uint32"),
        ],
    )
}

/// `add1(KernelBuffer<uint32> src, KernelBuffer<uint32> dst, uint32 n)`: `dst[i] = src[i] + 1`.
pub const ADD1: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "add1" %gid
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %wgsize BuiltIn WorkgroupSize
               OpDecorate %sx SpecId 0
               OpDecorate %sy SpecId 1
               OpDecorate %sz SpecId 2
               OpDecorate %rta ArrayStride 4
               OpMemberDecorate %Src 0 Offset 0
               OpMemberDecorate %Src 0 NonWritable
               OpDecorate %Src Block
               OpMemberDecorate %Dst 0 Offset 0
               OpMemberDecorate %Dst 0 NonReadable
               OpDecorate %Dst Block
               OpDecorate %src DescriptorSet 0
               OpDecorate %src Binding 0
               OpDecorate %dst DescriptorSet 0
               OpDecorate %dst Binding 1
               OpMemberDecorate %PC 0 Offset 0
               OpDecorate %PC Block
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %v3uint = OpTypeVector %uint 3
       %bool = OpTypeBool
         %sx = OpSpecConstant %uint 64
         %sy = OpSpecConstant %uint 1
         %sz = OpSpecConstant %uint 1
     %wgsize = OpSpecConstantComposite %v3uint %sx %sy %sz
         %u0 = OpConstant %uint 0
         %u1 = OpConstant %uint 1
        %rta = OpTypeRuntimeArray %uint
        %Src = OpTypeStruct %rta
        %Dst = OpTypeStruct %rta
       %pSrc = OpTypePointer StorageBuffer %Src
       %pDst = OpTypePointer StorageBuffer %Dst
        %src = OpVariable %pSrc StorageBuffer
        %dst = OpVariable %pDst StorageBuffer
         %PC = OpTypeStruct %uint
        %pPC = OpTypePointer PushConstant %PC
         %pc = OpVariable %pPC PushConstant
       %pPCu = OpTypePointer PushConstant %uint
       %pIn3 = OpTypePointer Input %v3uint
        %gid = OpVariable %pIn3 Input
       %pSBu = OpTypePointer StorageBuffer %uint
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %g = OpLoad %v3uint %gid
          %x = OpCompositeExtract %uint %g 0
         %pn = OpAccessChain %pPCu %pc %u0
          %n = OpLoad %uint %pn
         %ok = OpULessThan %bool %x %n
               OpSelectionMerge %end None
               OpBranchConditional %ok %body %end
       %body = OpLabel
         %ps = OpAccessChain %pSBu %src %u0 %x
          %s = OpLoad %uint %ps
          %v = OpIAdd %uint %s %u1
         %pd = OpAccessChain %pSBu %dst %u0 %x
               OpStore %pd %v
               OpBranch %end
        %end = OpLabel
               OpReturn
               OpFunctionEnd
"#;

pub fn add1_reflection() -> Reflection {
    reflection(
        "add1",
        vec![
            Param::Res(storage_buffer("src", 0, Access::Read)),
            Param::Res(storage_buffer("dst", 1, Access::Write)),
            Param::Push("n", "uint32"),
        ],
    )
}

/// [`FILL`] loaded on `ctx` (assembled once per test process).
pub fn fill_kernel(ctx: &Context) -> Kernel {
    static WORDS: OnceLock<Vec<u32>> = OnceLock::new();
    ctx.load_kernel(WORDS.get_or_init(|| assemble(FILL)), &fill_reflection())
        .unwrap()
}

/// [`ADD1`] loaded on `ctx` (assembled once per test process).
pub fn add1_kernel(ctx: &Context) -> Kernel {
    static WORDS: OnceLock<Vec<u32>> = OnceLock::new();
    ctx.load_kernel(WORDS.get_or_init(|| assemble(ADD1)), &add1_reflection())
        .unwrap()
}

/// The shared head of the two image kernels; `{NAME}` and `{READ}` are filled in.
const IMAGE_HEAD: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "{NAME}" %gid
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %wgsize BuiltIn WorkgroupSize
               OpDecorate %sx SpecId 0
               OpDecorate %sy SpecId 1
               OpDecorate %sz SpecId 2
               OpDecorate %img DescriptorSet 0
               OpDecorate %img Binding 0
               {READ}
               OpMemberDecorate %PC 0 Offset 0
               OpMemberDecorate %PC 1 Offset 4
               OpDecorate %PC Block
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
      %float = OpTypeFloat 32
     %v2uint = OpTypeVector %uint 2
     %v3uint = OpTypeVector %uint 3
    %v4float = OpTypeVector %float 4
       %bool = OpTypeBool
         %sx = OpSpecConstant %uint 64
         %sy = OpSpecConstant %uint 1
         %sz = OpSpecConstant %uint 1
     %wgsize = OpSpecConstantComposite %v3uint %sx %sy %sz
         %u0 = OpConstant %uint 0
         %u1 = OpConstant %uint 1
         %f0 = OpConstant %float 0
         %f1 = OpConstant %float 1
         %f2 = OpConstant %float 2
      %Image = OpTypeImage %float 2D 0 0 0 2 R32f
     %pImage = OpTypePointer UniformConstant %Image
        %img = OpVariable %pImage UniformConstant
         %PC = OpTypeStruct %uint %uint
        %pPC = OpTypePointer PushConstant %PC
         %pc = OpVariable %pPC PushConstant
       %pPCu = OpTypePointer PushConstant %uint
       %pIn3 = OpTypePointer Input %v3uint
        %gid = OpVariable %pIn3 Input
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %g = OpLoad %v3uint %gid
          %x = OpCompositeExtract %uint %g 0
          %y = OpCompositeExtract %uint %g 1
         %pw = OpAccessChain %pPCu %pc %u0
          %w = OpLoad %uint %pw
         %ph = OpAccessChain %pPCu %pc %u1
          %h = OpLoad %uint %ph
        %okx = OpULessThan %bool %x %w
        %oky = OpULessThan %bool %y %h
         %ok = OpLogicalAnd %bool %okx %oky
               OpSelectionMerge %end None
               OpBranchConditional %ok %body %end
       %body = OpLabel
         %im = OpLoad %Image %img
          %c = OpCompositeConstruct %v2uint %x %y
"#;

const IMAGE_TAIL: &str = r#"
          %t = OpCompositeConstruct %v4float %v %f0 %f0 %f0
               OpImageWrite %im %c %t
               OpBranch %end
        %end = OpLabel
               OpReturn
               OpFunctionEnd
"#;

/// `img_fill(Image2D img, uint32 w, uint32 h)`: `img.store(x, y, (float32)(y * w + x))`.
pub fn img_fill_asm() -> String {
    let head = IMAGE_HEAD
        .replace("{NAME}", "img_fill")
        .replace("{READ}", "OpDecorate %img NonReadable");
    let body = r#"
         %yw = OpIMul %uint %y %w
          %i = OpIAdd %uint %yw %x
          %v = OpConvertUToF %float %i
"#;
    format!("{head}{body}{IMAGE_TAIL}")
}

/// `img_rmw(Image2D img, uint32 w, uint32 h)`: `img.store(x, y, 2 * img.load(x, y) + 1)`.
pub fn img_rmw_asm() -> String {
    let head = IMAGE_HEAD
        .replace("{NAME}", "img_rmw")
        .replace("{READ}", "");
    let body = r#"
         %rd = OpImageRead %v4float %im %c
         %r0 = OpCompositeExtract %float %rd 0
         %r2 = OpFMul %float %r0 %f2
          %v = OpFAdd %float %r2 %f1
"#;
    format!("{head}{body}{IMAGE_TAIL}")
}

pub fn image_reflection(entry: &str, access: Access) -> Reflection {
    reflection(
        entry,
        vec![
            Param::Res(storage_image("img", 0, access)),
            Param::Push("w", "uint32"),
            Param::Push("h", "uint32"),
        ],
    )
}

pub fn u32arg(v: u32) -> KernelArg<'static> {
    KernelArg::Scalar(ScalarValue::U32(v))
}

/// `spec_fill(KernelBuffer<uint32> out, uint32 n)`: `out[i] = i + Spec(0) + shared size`,
/// reading SpecId 4 (user slot 0) and SpecId 3 (dynamic shared size).
pub const SPEC_FILL: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "spec_fill" %gid
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %wgsize BuiltIn WorkgroupSize
               OpDecorate %sx SpecId 0
               OpDecorate %sy SpecId 1
               OpDecorate %sz SpecId 2
               OpDecorate %shared SpecId 3
               OpDecorate %slot0 SpecId 4
               OpDecorate %rta ArrayStride 4
               OpMemberDecorate %Buf 0 Offset 0
               OpDecorate %Buf Block
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 0
               OpMemberDecorate %PC 0 Offset 0
               OpDecorate %PC Block
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %v3uint = OpTypeVector %uint 3
       %bool = OpTypeBool
         %sx = OpSpecConstant %uint 64
         %sy = OpSpecConstant %uint 1
         %sz = OpSpecConstant %uint 1
     %shared = OpSpecConstant %uint 0
      %slot0 = OpSpecConstant %uint 0
     %wgsize = OpSpecConstantComposite %v3uint %sx %sy %sz
         %u0 = OpConstant %uint 0
        %rta = OpTypeRuntimeArray %uint
        %Buf = OpTypeStruct %rta
       %pBuf = OpTypePointer StorageBuffer %Buf
        %out = OpVariable %pBuf StorageBuffer
         %PC = OpTypeStruct %uint
        %pPC = OpTypePointer PushConstant %PC
         %pc = OpVariable %pPC PushConstant
       %pPCu = OpTypePointer PushConstant %uint
       %pIn3 = OpTypePointer Input %v3uint
        %gid = OpVariable %pIn3 Input
       %pSBu = OpTypePointer StorageBuffer %uint
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %g = OpLoad %v3uint %gid
          %x = OpCompositeExtract %uint %g 0
         %pn = OpAccessChain %pPCu %pc %u0
          %n = OpLoad %uint %pn
         %ok = OpULessThan %bool %x %n
               OpSelectionMerge %end None
               OpBranchConditional %ok %body %end
       %body = OpLabel
         %v1 = OpIAdd %uint %x %slot0
          %v = OpIAdd %uint %v1 %shared
        %dst = OpAccessChain %pSBu %out %u0 %x
               OpStore %dst %v
               OpBranch %end
        %end = OpLabel
               OpReturn
               OpFunctionEnd
"#;

pub fn spec_fill_reflection() -> Reflection {
    let mut r = reflection(
        "spec_fill",
        vec![
            Param::Res(storage_buffer("out", 0, Access::Write)),
            Param::Push("n", "uint32"),
        ],
    );
    for (id, name) in [(3, "shared_size"), (4, "spec_slot_0")] {
        r.spec_constants.push(SpecConstant {
            id,
            name: name.into(),
            ty: "uint32".into(),
            default: 0,
        });
    }
    r
}

/// Bytes that differ from their neighbours and from one seed to the next (transfer tests).
pub fn pattern(len: usize, seed: u32) -> Vec<u8> {
    let mut x = seed.wrapping_mul(2_654_435_761) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect()
}
