//! Acceleration structures: where the device offers `VK_KHR_acceleration_structure` (the
//! H200), bottom-level structures of triangles and of boxes and a top-level one over both are
//! built and their measured sizes and serialized headers checked; where it does not
//! (lavapipe), building is refused naming the extension. Bad input is refused the same on
//! every device, before the device is asked anything.

use crate::common::*;
use cajeta_runtime::*;

/// A unit square at z = 0 as two indexed triangles.
const QUAD: [f32; 12] = [
    0.0, 0.0, 0.0, //
    1.0, 0.0, 0.0, //
    1.0, 1.0, 0.0, //
    0.0, 1.0, 0.0,
];
const QUAD_INDICES: [u32; 6] = [0, 1, 2, 0, 2, 3];
/// Two boxes.
const BOXES: [f32; 12] = [
    0.0, 0.0, 0.0, 1.0, 1.0, 1.0, //
    2.0, 0.0, 0.0, 3.0, 1.0, 0.5,
];

fn invalid(r: Result<AccelStruct>) -> String {
    match r {
        Err(e @ RuntimeError::InvalidResource(_)) => e.to_string(),
        other => panic!("expected an invalid-input error, got {other:?}"),
    }
}

#[test]
fn bad_geometry_is_refused_on_every_device() {
    let Some(ctx) = context() else {
        return;
    };
    let e = invalid(ctx.build_blas_triangles(&[], None));
    assert!(e.contains("at least one triangle"), "{e}");
    let e = invalid(ctx.build_blas_triangles(&QUAD[..11], None));
    assert!(e.contains("11 floats, not a multiple of 3"), "{e}");
    let e = invalid(ctx.build_blas_triangles(&QUAD, None));
    assert!(e.contains("4 vertices without an index array"), "{e}");
    let e = invalid(ctx.build_blas_triangles(&QUAD, Some(&[0, 1, 4])));
    assert!(
        e.contains("index 4 at position 2 is out of range for 4 vertices"),
        "{e}"
    );
    let e = invalid(ctx.build_blas_triangles(&QUAD, Some(&[0, 1])));
    assert!(e.contains("2 indices"), "{e}");
    let e = invalid(ctx.build_blas_aabbs(&BOXES[..7]));
    assert!(e.contains("7 floats, not a non-zero multiple of 6"), "{e}");
    let e = invalid(ctx.build_blas_aabbs(&[0.0, 0.0, 0.0, -1.0, 1.0, 1.0]));
    assert!(e.contains("box 0 has a minimum above its maximum"), "{e}");
    let e = invalid(ctx.build_tlas(&[]));
    assert!(e.contains("at least one instance"), "{e}");
}

/// The checks every structure's measurements must pass.
fn check_stats(what: &str, a: &AccelStruct, level: AccelLevel, primitives: u32) {
    let s = a.stats();
    println!("{what}: {s:?}");
    assert_eq!(s.level, level, "{what}");
    assert_eq!(a.level(), level, "{what}");
    assert_eq!(s.primitive_count, primitives, "{what}");
    assert!(s.build_size > 0, "{what}: {s:?}");
    assert!(
        a.compacted_size() > 0 && a.compacted_size() <= s.build_size,
        "{what}: compacted size {} against build size {}",
        a.compacted_size(),
        s.build_size
    );
    assert!(s.serialization_size >= 56, "{what}: {s:?}");
    let h = &s.serialized;
    assert_eq!(h.driver_uuid, s.device_driver_uuid, "{what}: driver UUID");
    assert_ne!(h.driver_uuid, [0; 16], "{what}: driver UUID");
    assert!(h.compatible, "{what}: the device refuses its own header");
    // The specification says the header's total size matches the queried serialization size.
    assert_eq!(
        h.serialized_size, s.serialization_size,
        "{what}: header size against the queried size"
    );
    assert!(h.deserialized_size > 0, "{what}: {h:?}");
    assert_ne!(a.device_address(), 0, "{what}");
}

#[test]
fn bottom_and_top_level_structures_build_or_are_refused_naming_the_extension() {
    let Some(ctx) = context() else {
        return;
    };
    let info = ctx.device_info();
    let offered = info
        .extensions
        .iter()
        .any(|e| e == "VK_KHR_acceleration_structure");
    if !ctx.supports_acceleration_structures() {
        // A device that lists the extension must get it enabled (it is on Vulkan 1.2+ with
        // bufferDeviceAddress everywhere that offers it); only devices without it refuse.
        assert!(
            !offered || info.api_version.starts_with("1.1"),
            "{} offers VK_KHR_acceleration_structure but the context did not enable it",
            info.name
        );
        assert!(!ctx.supports_ray_queries());
        let e = ctx
            .build_blas_triangles(&QUAD, Some(&QUAD_INDICES))
            .expect_err("no acceleration structures on this device");
        assert!(
            matches!(e, RuntimeError::AccelerationUnsupported { .. }),
            "{e:?}"
        );
        let text = e.to_string();
        assert!(text.contains("VK_KHR_acceleration_structure"), "{text}");
        assert!(text.contains(&info.name), "{text}");
        let e = ctx.build_blas_aabbs(&BOXES).expect_err("nor boxes");
        assert!(e.to_string().contains("VK_KHR_acceleration_structure"));
        return;
    }
    // Ray queries come with acceleration structures where the device lists both.
    let ray_query_offered = info.extensions.iter().any(|e| e == "VK_KHR_ray_query");
    assert_eq!(ctx.supports_ray_queries(), ray_query_offered);
    let tri = ctx
        .build_blas_triangles(&QUAD, Some(&QUAD_INDICES))
        .expect("triangle BLAS");
    check_stats("triangles", &tri, AccelLevel::Bottom, 2);
    assert!(tri.stats().serialized.bottom_level_handles.is_empty());
    // The same square without indices: six vertices, two triangles.
    let flat: Vec<f32> = QUAD_INDICES
        .iter()
        .flat_map(|&i| QUAD[3 * i as usize..3 * i as usize + 3].to_vec())
        .collect();
    let unindexed = ctx.build_blas_triangles(&flat, None).expect("unindexed");
    check_stats("unindexed triangles", &unindexed, AccelLevel::Bottom, 2);
    let boxes = ctx.build_blas_aabbs(&BOXES).expect("AABB BLAS");
    check_stats("boxes", &boxes, AccelLevel::Bottom, 2);
    assert!(boxes.stats().serialized.bottom_level_handles.is_empty());

    let mut moved = AccelInstance::IDENTITY;
    moved[3] = 5.0; // translated along x
    let tlas = ctx
        .build_tlas(&[
            AccelInstance {
                blas: &tri,
                transform: AccelInstance::IDENTITY,
                custom_index: 7,
                mask: 0xFF,
            },
            AccelInstance {
                blas: &boxes,
                transform: moved,
                custom_index: (1 << 24) - 1,
                mask: 0x01,
            },
        ])
        .expect("TLAS");
    check_stats("scene", &tlas, AccelLevel::Top, 2);
    // The specification leaves the number and order of the listed bottom-level handles to the
    // implementation; each must still be one of the instanced structures.
    let handles = &tlas.stats().serialized.bottom_level_handles;
    let blas = [tri.device_address(), boxes.device_address()];
    assert!(
        !handles.is_empty() && handles.len() <= 2,
        "{} handles for 2 instances",
        handles.len()
    );
    for h in handles {
        assert!(blas.contains(h), "handle {h:#x} is none of {blas:x?}");
    }

    // Misuse of a built structure.
    let e = invalid(ctx.build_tlas(&[AccelInstance {
        blas: &tlas,
        transform: AccelInstance::IDENTITY,
        custom_index: 0,
        mask: 0xFF,
    }]));
    assert!(e.contains("refers to a top-level"), "{e}");
    let e = invalid(ctx.build_tlas(&[AccelInstance {
        blas: &tri,
        transform: AccelInstance::IDENTITY,
        custom_index: 1 << 24,
        mask: 0xFF,
    }]));
    assert!(e.contains("does not fit in 24 bits"), "{e}");
    // Bound where a buffer is expected: refused before anything is recorded.
    let k = fill_kernel(&ctx);
    let e = ctx
        .default_stream()
        .launch(
            &k,
            &LaunchConfig::new([1, 1, 1], [1, 1, 1]),
            &[KernelArg::AccelStruct(&tlas), u32arg(1), u32arg(0)],
        )
        .expect_err("a structure is no buffer");
    assert!(
        e.to_string()
            .contains("expects a buffer, got a top-level acceleration structure"),
        "{e}"
    );
    // The bottom-level structures outlive their handles here: the scene keeps them.
    drop(tri);
    drop(boxes);
    assert_eq!(tlas.stats().primitive_count, 2);
    ctx.default_stream().sync().expect("sync");
}

#[test]
fn builds_are_clean_under_synchronization_validation() {
    let Some(ctx) = validated_context() else {
        return;
    };
    if !ctx.supports_acceleration_structures() {
        return; // the refusal is checked above; nothing reaches the device here
    }
    let tri = ctx
        .build_blas_triangles(&QUAD, Some(&QUAD_INDICES))
        .expect("triangle BLAS (a validation message fails the build)");
    let boxes = ctx.build_blas_aabbs(&BOXES).expect("AABB BLAS");
    let tlas = ctx
        .build_tlas(&[
            AccelInstance {
                blas: &tri,
                transform: AccelInstance::IDENTITY,
                custom_index: 0,
                mask: 0xFF,
            },
            AccelInstance {
                blas: &boxes,
                transform: AccelInstance::IDENTITY,
                custom_index: 1,
                mask: 0xFF,
            },
        ])
        .expect("TLAS");
    drop((tri, boxes, tlas));
    let messages = ctx.validation_messages();
    assert!(messages.is_empty(), "{}", messages.join("\n"));
}
