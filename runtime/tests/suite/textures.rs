//! Sampled textures and samplers on a real device: uploads of mip levels and layers, fetches
//! and filtered samples from a kernel, a storage image used as a texture after a dispatch wrote
//! it (with its layout transitions in the barrier log), and argument checks.

use crate::common::*;
use cajeta_runtime::*;

/// `tex_probe(Texture2D<float32> tex, Sampler smp, KernelBuffer<float32> out, uint32 w,
/// uint32 h, uint32 lod)`: for texel (x, y) of level `lod` (size w × h),
/// `out[2i] = tex.fetchLod(x, y, lod).x` and `out[2i+1] = tex.sampleLod(smp, (x+.5)/w,
/// (y+.5)/h, lod).x` with `i = y * w + x`.
const TEX_PROBE: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "tex_probe" %gid
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %wgsize BuiltIn WorkgroupSize
               OpDecorate %sx SpecId 0
               OpDecorate %sy SpecId 1
               OpDecorate %sz SpecId 2
               OpDecorate %tex DescriptorSet 0
               OpDecorate %tex Binding 0
               OpDecorate %smp DescriptorSet 0
               OpDecorate %smp Binding 1
               OpDecorate %rta ArrayStride 4
               OpMemberDecorate %Buf 0 Offset 0
               OpMemberDecorate %Buf 0 NonReadable
               OpDecorate %Buf Block
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 2
               OpMemberDecorate %PC 0 Offset 0
               OpMemberDecorate %PC 1 Offset 4
               OpMemberDecorate %PC 2 Offset 8
               OpDecorate %PC Block
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
        %int = OpTypeInt 32 1
      %float = OpTypeFloat 32
     %v2int = OpTypeVector %int 2
   %v2float = OpTypeVector %float 2
     %v3uint = OpTypeVector %uint 3
    %v4float = OpTypeVector %float 4
       %bool = OpTypeBool
         %sx = OpSpecConstant %uint 64
         %sy = OpSpecConstant %uint 1
         %sz = OpSpecConstant %uint 1
     %wgsize = OpSpecConstantComposite %v3uint %sx %sy %sz
         %u0 = OpConstant %uint 0
         %u1 = OpConstant %uint 1
         %u2 = OpConstant %uint 2
       %half = OpConstant %float 0.5
        %Tex = OpTypeImage %float 2D 0 0 0 1 Unknown
       %pTex = OpTypePointer UniformConstant %Tex
        %tex = OpVariable %pTex UniformConstant
        %Smp = OpTypeSampler
       %pSmp = OpTypePointer UniformConstant %Smp
        %smp = OpVariable %pSmp UniformConstant
         %SI = OpTypeSampledImage %Tex
        %rta = OpTypeRuntimeArray %float
        %Buf = OpTypeStruct %rta
       %pBuf = OpTypePointer StorageBuffer %Buf
        %out = OpVariable %pBuf StorageBuffer
       %pSBf = OpTypePointer StorageBuffer %float
         %PC = OpTypeStruct %uint %uint %uint
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
         %pl = OpAccessChain %pPCu %pc %u2
        %lod = OpLoad %uint %pl
        %okx = OpULessThan %bool %x %w
        %oky = OpULessThan %bool %y %h
         %ok = OpLogicalAnd %bool %okx %oky
               OpSelectionMerge %end None
               OpBranchConditional %ok %body %end
       %body = OpLabel
          %t = OpLoad %Tex %tex
          %s = OpLoad %Smp %smp
         %xi = OpBitcast %int %x
         %yi = OpBitcast %int %y
         %li = OpBitcast %int %lod
          %c = OpCompositeConstruct %v2int %xi %yi
          %f = OpImageFetch %v4float %t %c Lod %li
         %f0 = OpCompositeExtract %float %f 0
         %xf = OpConvertUToF %float %x
         %yf = OpConvertUToF %float %y
         %wf = OpConvertUToF %float %w
         %hf = OpConvertUToF %float %h
         %lf = OpConvertUToF %float %lod
        %xh = OpFAdd %float %xf %half
        %yh = OpFAdd %float %yf %half
         %u = OpFDiv %float %xh %wf
         %v = OpFDiv %float %yh %hf
         %uv = OpCompositeConstruct %v2float %u %v
         %si = OpSampledImage %SI %t %s
         %sm = OpImageSampleExplicitLod %v4float %si %uv Lod %lf
         %s0 = OpCompositeExtract %float %sm 0
         %yw = OpIMul %uint %y %w
          %i = OpIAdd %uint %yw %x
         %i2 = OpIMul %uint %i %u2
        %i21 = OpIAdd %uint %i2 %u1
         %d0 = OpAccessChain %pSBf %out %u0 %i2
               OpStore %d0 %f0
         %d1 = OpAccessChain %pSBf %out %u0 %i21
               OpStore %d1 %s0
               OpBranch %end
        %end = OpLabel
               OpReturn
               OpFunctionEnd
"#;

fn probe_reflection(format: Option<&str>) -> Reflection {
    let tex = Binding {
        name: "tex".into(),
        set: 0,
        binding: 0,
        descriptor_type: DescriptorType::SampledImage,
        element_type: None,
        element_stride: None,
        image_format: format.map(str::to_string),
        access: Access::Read,
        array: None,
    };
    let smp = Binding {
        name: "smp".into(),
        set: 0,
        binding: 1,
        descriptor_type: DescriptorType::Sampler,
        element_type: None,
        element_stride: None,
        image_format: None,
        access: Access::Read,
        array: None,
    };
    let mut out = storage_buffer("out", 2, Access::Write);
    out.element_type = Some("float32".into());
    reflection(
        "tex_probe",
        vec![
            Param::Res(tex),
            Param::Res(smp),
            Param::Res(out),
            Param::Push("w", "uint32"),
            Param::Push("h", "uint32"),
            Param::Push("lod", "uint32"),
        ],
    )
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Level `l` texel values: distinct per level so a wrong level shows.
fn level_values(l: u32, n: u32) -> Vec<f32> {
    (0..n).map(|i| (1000 * l + 3 * i) as f32 + 0.25).collect()
}

/// Launches the probe on level `lod` of a `w × h` level and returns (fetches, samples).
fn probe(
    ctx: &Context,
    kernel: &Kernel,
    tex: KernelArg<'_>,
    smp: &Sampler,
    [w, h]: [u32; 2],
    lod: u32,
) -> (Vec<f32>, Vec<f32>) {
    let out = ctx.create_buffer(u64::from(w * h * 8)).unwrap();
    let s = ctx.default_stream();
    s.launch(
        kernel,
        &LaunchConfig::new([w, h, 1], [1, 1, 1]),
        &[
            tex,
            KernelArg::Sampler(smp),
            KernelArg::Buffer(&out),
            u32arg(w),
            u32arg(h),
            u32arg(lod),
        ],
    )
    .unwrap();
    let mut bytes = vec![0u8; (w * h * 8) as usize];
    s.download_buffer(&out, &mut bytes).unwrap();
    let v = bytes_f32(&bytes);
    (
        v.iter().step_by(2).copied().collect(),
        v.iter().skip(1).step_by(2).copied().collect(),
    )
}

fn mipmapped_fetch_and_sample(ctx: &Context) {
    let kernel = ctx
        .load_kernel(&assemble(TEX_PROBE), &probe_reflection(Some("r32f")))
        .unwrap();
    let desc = TextureDesc::d2(8, 4, ImageFormat::R32Float).with_mip_levels(3);
    let tex = ctx.create_texture(desc).unwrap();
    let s = ctx.default_stream();
    for l in 0..3 {
        let [w, h, _] = desc.level_extent(l);
        s.upload_texture(&tex, l, None, &f32_bytes(&level_values(l, w * h)))
            .unwrap();
    }
    for filter in [Filter::Nearest, Filter::Linear] {
        let smp = ctx
            .create_sampler(filter, AddressMode::ClampToEdge)
            .unwrap();
        for l in 0..3 {
            let [w, h, _] = desc.level_extent(l);
            let (fetched, sampled) = probe(ctx, &kernel, KernelArg::Texture(&tex), &smp, [w, h], l);
            let want = level_values(l, w * h);
            assert_eq!(fetched, want, "fetch, level {l}");
            // Texel centres: nearest and linear filtering both give the texel itself.
            for (got, want) in sampled.iter().zip(&want) {
                assert!(
                    (got - want).abs() <= want.abs() * 1e-5,
                    "{filter:?} level {l}: {got} vs {want}"
                );
            }
        }
    }
    let log = ctx.barrier_log();
    let transitions: Vec<(Option<&str>, Option<&str>)> = log
        .iter()
        .filter(|r| r.resource == tex.id() && r.hazard == Hazard::LayoutTransition)
        .map(|r| (r.old_layout.as_deref(), r.new_layout.as_deref()))
        .collect();
    // One move into TRANSFER_DST for the three uploads, one into SHADER_READ_ONLY for the six
    // probes: sampling again needs no barrier.
    assert_eq!(
        transitions,
        vec![
            (Some("UNDEFINED"), Some("TRANSFER_DST_OPTIMAL")),
            (
                Some("TRANSFER_DST_OPTIMAL"),
                Some("SHADER_READ_ONLY_OPTIMAL")
            ),
        ],
        "{log:#?}"
    );
    let to_read = log
        .iter()
        .find(|r| r.new_layout.as_deref() == Some("SHADER_READ_ONLY_OPTIMAL"))
        .unwrap();
    assert_eq!(
        (to_read.src_stage.as_str(), to_read.src_access.as_str()),
        ("TRANSFER", "TRANSFER_WRITE")
    );
    assert_eq!(to_read.dst_access, "SHADER_READ");
}

#[test]
fn mipmapped_texture_fetches_and_samples_every_level() {
    let Some(ctx) = context() else { return };
    mipmapped_fetch_and_sample(&ctx);
}

#[test]
fn textures_are_clean_under_sync_validation() {
    let Some(ctx) = validated_context() else {
        return;
    };
    mipmapped_fetch_and_sample(&ctx);
    image_as_texture_after_storage(&ctx);
    every_shape_uploads(&ctx);
    ctx.default_stream().sync().unwrap();
    assert!(
        ctx.validation_messages().is_empty(),
        "{:#?}",
        ctx.validation_messages()
    );
}

fn image_as_texture_after_storage(ctx: &Context) {
    const W: u32 = 16;
    const H: u32 = 8;
    let fill = ctx
        .load_kernel(
            &assemble(&img_fill_asm()),
            &image_reflection("img_fill", Access::Write),
        )
        .unwrap();
    let kernel = ctx
        .load_kernel(&assemble(TEX_PROBE), &probe_reflection(Some("r32f")))
        .unwrap();
    let smp = ctx
        .create_sampler(Filter::Nearest, AddressMode::Repeat)
        .unwrap();
    let img = ctx.create_image2d(W, H, ImageFormat::R32Float).unwrap();
    assert!(img.is_sampled());
    let s = ctx.default_stream();
    ctx.clear_barrier_log();
    let filled = s
        .launch(
            &fill,
            &LaunchConfig::new([W, H, 1], [1, 1, 1]),
            &[KernelArg::Image(&img), u32arg(W), u32arg(H)],
        )
        .unwrap();
    let (fetched, sampled) = probe(ctx, &kernel, KernelArg::Image(&img), &smp, [W, H], 0);
    let want: Vec<f32> = (0..W * H).map(|i| i as f32).collect();
    assert_eq!(fetched, want);
    assert_eq!(sampled, want);
    // Back to storage: the download copies from GENERAL again.
    let mut bytes = vec![0u8; (W * H * 4) as usize];
    s.download_image(&img, &mut bytes).unwrap();
    assert_eq!(bytes_f32(&bytes), want);
    let log: Vec<BarrierRecord> = ctx
        .barrier_log()
        .into_iter()
        .filter(|r| r.resource == img.id())
        .collect();
    let layouts: Vec<(Hazard, Option<&str>, Option<&str>)> = log
        .iter()
        .map(|r| (r.hazard, r.old_layout.as_deref(), r.new_layout.as_deref()))
        .collect();
    assert_eq!(
        layouts,
        vec![
            (Hazard::LayoutTransition, Some("UNDEFINED"), Some("GENERAL")),
            (
                Hazard::LayoutTransition,
                Some("GENERAL"),
                Some("SHADER_READ_ONLY_OPTIMAL")
            ),
            (
                Hazard::LayoutTransition,
                Some("SHADER_READ_ONLY_OPTIMAL"),
                Some("GENERAL")
            ),
        ],
        "{log:#?}"
    );
    assert_eq!(log[0].before, filled);
    assert_eq!(log[1].before_label, "launch tex_probe");
    // The move to the sampled layout waits for the storage write and makes it visible.
    assert_eq!(
        (
            log[1].src_stage.as_str(),
            log[1].src_access.as_str(),
            log[1].dst_access.as_str()
        ),
        ("COMPUTE_SHADER", "SHADER_WRITE", "SHADER_READ")
    );
    // The move back waits for the sampling reads (execution only: no write since).
    assert_eq!(
        (
            log[2].src_stage.as_str(),
            log[2].dst_stage.as_str(),
            log[2].before_label.as_str()
        ),
        ("COMPUTE_SHADER", "TRANSFER", "download")
    );
}

#[test]
fn storage_image_used_as_texture_after_storage_is_transitioned_and_logged() {
    let Some(ctx) = context() else { return };
    image_as_texture_after_storage(&ctx);
}

/// Every shape, several levels and layers, uploaded whole and per layer.
fn every_shape_uploads(ctx: &Context) {
    let s = ctx.default_stream();
    let descs = [
        TextureDesc::d1(32, ImageFormat::Rgba8Unorm).with_mip_levels(6),
        TextureDesc::d2(16, 8, ImageFormat::Rgba32Float).with_mip_levels(2),
        TextureDesc::d3(8, 4, 2, ImageFormat::R16Float).with_mip_levels(4),
        TextureDesc::d2_array(4, 4, 3, ImageFormat::R32Sint),
        TextureDesc::cube(8, ImageFormat::Rgba16Float).with_mip_levels(2),
        TextureDesc::d2(5, 3, ImageFormat::R8Unorm),
        TextureDesc::d2(4, 4, ImageFormat::Rgba32Uint),
    ];
    for desc in descs {
        let tex = ctx.create_texture(desc).unwrap();
        assert_eq!(tex.desc(), &desc);
        for level in 0..desc.mip_levels {
            let bytes = desc.level_layer_bytes(level) * u64::from(desc.layers);
            s.upload_texture(&tex, level, None, &vec![7u8; bytes as usize])
                .unwrap();
        }
        if desc.layers > 1 {
            let one = desc.level_layer_bytes(0) as usize;
            s.upload_texture(&tex, 0, Some(desc.layers - 1), &vec![1u8; one])
                .unwrap();
        }
    }
    s.sync().unwrap();
}

#[test]
fn every_texture_shape_uploads_every_level() {
    let Some(ctx) = context() else { return };
    every_shape_uploads(&ctx);
}

#[test]
fn texture_arguments_and_shapes_are_checked() {
    let Some(ctx) = context() else { return };
    let kernel = ctx
        .load_kernel(&assemble(TEX_PROBE), &probe_reflection(Some("r32f")))
        .unwrap();
    let smp = ctx
        .create_sampler(Filter::Linear, AddressMode::MirroredRepeat)
        .unwrap();
    let out = ctx.create_buffer(64).unwrap();
    let s = ctx.default_stream();
    let tex = ctx
        .create_texture(TextureDesc::d2(2, 2, ImageFormat::R32Float))
        .unwrap();
    let itex = ctx
        .create_texture(TextureDesc::d2(2, 2, ImageFormat::R32Uint))
        .unwrap();
    let cfg = LaunchConfig::new([2, 2, 1], [1, 1, 1]);
    let launch = |a: KernelArg<'_>, b: KernelArg<'_>| {
        s.launch(
            &kernel,
            &cfg,
            &[
                a,
                b,
                KernelArg::Buffer(&out),
                u32arg(2),
                u32arg(2),
                u32arg(0),
            ],
        )
        .unwrap_err()
        .to_string()
    };
    assert_eq!(
        launch(KernelArg::Buffer(&out), KernelArg::Sampler(&smp)),
        "launch of `tex_probe`: parameter `tex` expects a texture, got a buffer"
    );
    assert_eq!(
        launch(KernelArg::Texture(&tex), KernelArg::Texture(&tex)),
        "launch of `tex_probe`: parameter `smp` expects a sampler, got a 2-D r32f texture"
    );
    assert_eq!(
        launch(KernelArg::Texture(&itex), KernelArg::Sampler(&smp)),
        "launch of `tex_probe`: parameter `tex` samples float texels (r32f), got an r32ui resource holding unsigned integer texels"
    );
    let err = s.upload_texture(&tex, 1, None, &[0; 4]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid resource: mip level 1 does not exist: the texture has 1 level(s)"
    );
    let err = s.upload_texture(&tex, 0, None, &[0; 12]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "texture region length mismatch: texture region holds 16 bytes, host array 12 bytes"
    );
    let err = s.upload_texture(&tex, 0, Some(1), &[0; 16]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid resource: layer 1 does not exist: the texture has 1 layer(s)"
    );
    let bad = [
        (
            TextureDesc::d2(8, 8, ImageFormat::R32Float).with_mip_levels(5),
            "5 mip levels requested; a 8x8x1 texture has 1 to 4",
        ),
        (
            TextureDesc {
                height: 3,
                ..TextureDesc::cube(4, ImageFormat::R32Float)
            },
            "a cube texture cannot have size 4x3x1 with 6 layer(s)",
        ),
        (
            TextureDesc::d2(0, 8, ImageFormat::R32Float),
            "2-D texture size 0x8x1 with 1 layer(s) has a zero dimension",
        ),
        (
            TextureDesc::d1(1 << 30, ImageFormat::R32Float),
            "texture size 1073741824x1x1 exceeds maxImageDimension1D",
        ),
    ];
    for (desc, want) in bad {
        let err = ctx.create_texture(desc).unwrap_err().to_string();
        assert!(err.contains(want), "{err} lacks {want}");
    }
    assert_eq!(Filter::from_code(1), Some(Filter::Linear));
    assert_eq!(AddressMode::from_code(2), Some(AddressMode::MirroredRepeat));
    assert_eq!(AddressMode::from_code(3), None);
    // Nothing was recorded by the failed calls; the stream still works.
    s.sync().unwrap();
}
