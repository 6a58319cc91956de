//! R32f storage images on a real device: fill then read-modify-write without a sync between
//! the launches, the exact barrier log, and the same run under synchronization validation.

use crate::common::*;
use cajeta_runtime::*;

const W: u32 = 64;
const H: u32 = 48;

/// Runs fill + rmw + download and checks the texels and the barrier log.
fn fill_then_rmw(ctx: &Context) {
    let fill = ctx
        .load_kernel(
            &assemble(&img_fill_asm()),
            &image_reflection("img_fill", Access::Write),
        )
        .unwrap();
    let rmw = ctx
        .load_kernel(
            &assemble(&img_rmw_asm()),
            &image_reflection("img_rmw", Access::ReadWrite),
        )
        .unwrap();
    let img = ctx.create_image2d(W, H, ImageFormat::R32Float).unwrap();
    let s = ctx.default_stream();
    let cfg = LaunchConfig::new([W / 8, H / 8, 1], [8, 8, 1]);
    let args = [KernelArg::Image(&img), u32arg(W), u32arg(H)];
    let first = s.launch(&fill, &cfg, &args).unwrap();
    let second = s.launch(&rmw, &cfg, &args).unwrap();
    let mut out = vec![0u8; (W * H * 4) as usize];
    s.download_image(&img, &mut out).unwrap();
    for (i, v) in bytes_f32(&out).into_iter().enumerate() {
        assert_eq!(v, (2 * i + 1) as f32, "texel {i}");
    }

    let log = ctx.barrier_log();
    let before = |id: CommandId| {
        log.iter()
            .filter(|r| r.before == id)
            .cloned()
            .collect::<Vec<_>>()
    };
    let b1 = before(first);
    assert_eq!(b1.len(), 1, "{log:#?}");
    assert_eq!(b1[0].hazard, Hazard::LayoutTransition);
    assert_eq!(b1[0].resource, img.id());
    assert_eq!(b1[0].resource_kind, ResourceKind::Image);
    assert_eq!(b1[0].old_layout.as_deref(), Some("UNDEFINED"));
    assert_eq!(b1[0].new_layout.as_deref(), Some("GENERAL"));
    assert_eq!(b1[0].before_label, "launch img_fill");
    let b2 = before(second);
    assert_eq!(b2.len(), 1, "{log:#?}");
    assert_eq!(b2[0].hazard, Hazard::ReadAfterWrite);
    assert_eq!(b2[0].resource_kind, ResourceKind::Image);
    assert_eq!(b2[0].src_access, "SHADER_WRITE");
    assert_eq!(b2[0].dst_access, "SHADER_READ|SHADER_WRITE");
    assert_eq!(
        (b2[0].src_stage.as_str(), b2[0].dst_stage.as_str()),
        ("COMPUTE_SHADER", "COMPUTE_SHADER")
    );
    assert_eq!(b2[0].old_layout, None);
    assert_eq!(
        log.iter()
            .filter(|r| r.hazard == Hazard::LayoutTransition)
            .count(),
        1
    );
}

#[test]
fn image_fill_then_rmw_is_exact_with_one_transition_and_one_raw() {
    let Some(ctx) = context() else { return };
    fill_then_rmw(&ctx);
}

#[test]
fn image_fill_then_rmw_is_clean_under_sync_validation() {
    let Some(ctx) = validated_context() else {
        return;
    };
    fill_then_rmw(&ctx);
    ctx.default_stream().sync().unwrap();
    assert!(
        ctx.validation_messages().is_empty(),
        "{:#?}",
        ctx.validation_messages()
    );
}

#[test]
fn download_between_launches_keeps_hazards_precise() {
    let Some(ctx) = validated_context().or_else(context) else {
        return;
    };
    let rmw = ctx
        .load_kernel(
            &assemble(&img_rmw_asm()),
            &image_reflection("img_rmw", Access::ReadWrite),
        )
        .unwrap();
    let img = ctx.create_image2d(W, H, ImageFormat::R32Float).unwrap();
    let s = ctx.default_stream();
    let cfg = LaunchConfig::new([W / 8, H / 8, 1], [8, 8, 1]);
    s.launch(&rmw, &cfg, &[KernelArg::Image(&img), u32arg(W), u32arg(H)])
        .unwrap();
    let mut out = vec![0u8; (W * H * 4) as usize];
    s.download_image(&img, &mut out).unwrap();
    s.launch(&rmw, &cfg, &[KernelArg::Image(&img), u32arg(W), u32arg(H)])
        .unwrap();
    s.sync().unwrap();
    let hazards: Vec<Hazard> = ctx.barrier_log().iter().map(|r| r.hazard).collect();
    // Transition before the first rmw; read-after-write before the download; before the second
    // rmw a read-after-write again: the first rmw's write was made visible to the copy only,
    // not to shader reads (the write-after-read against the download merges into it).
    assert_eq!(
        hazards,
        vec![
            Hazard::LayoutTransition,
            Hazard::ReadAfterWrite,
            Hazard::ReadAfterWrite
        ]
    );
    assert!(
        ctx.validation_messages().is_empty(),
        "{:#?}",
        ctx.validation_messages()
    );
}

#[test]
fn image_download_checks_length_and_format() {
    let Some(ctx) = context() else { return };
    let fill = ctx
        .load_kernel(
            &assemble(&img_fill_asm()),
            &image_reflection("img_fill", Access::Write),
        )
        .unwrap();
    let img = ctx.create_image2d(4, 4, ImageFormat::R32Float).unwrap();
    let s = ctx.default_stream();
    let mut short = vec![0u8; 60];
    let err = s.download_image(&img, &mut short).unwrap_err();
    assert_eq!(
        err.to_string(),
        "image length mismatch: image holds 64 bytes, host array 60 bytes"
    );
    let other = ctx.create_image2d(4, 4, ImageFormat::R32Uint).unwrap();
    let err = s
        .launch(
            &fill,
            &LaunchConfig::new([1, 1, 1], [4, 4, 1]),
            &[KernelArg::Image(&other), u32arg(4), u32arg(4)],
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "launch of `img_fill`: parameter `img` expects an r32f image, got an r32ui image"
    );
    assert!(ctx.create_image2d(0, 4, ImageFormat::R32Float).is_err());
    assert_eq!(
        ImageFormat::from_reflection_name("rgba8"),
        Some(ImageFormat::Rgba8Unorm)
    );
    assert_eq!(ImageFormat::Rgba16Float.reflection_name(), "rgba16f");
    assert_eq!(ImageFormat::Rgba32Float.texel_size(), 16);
}
