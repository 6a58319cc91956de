//! `Device.*` / `Option.*` queries become constants for the target, then conditions on them
//! fold and dead branches go (SPEC §8).
//!
//! Without a device profile the target is the baseline of §8, plain Vulkan 1.1 with no
//! optional features: `hasExtension`, `hasFeature` and `supports` are `false` except
//! `supports(Capability.GroupNonUniform)` (basic subgroup operations are core in 1.1),
//! `vendorId` is 0, `deviceType` is `DeviceType.Other`, and `subgroupSize` is the
//! `SubgroupSize` built-in — the value the kernel would see at run time, so code that uses it
//! as a number stays correct, it just does not fold (what a GLSL user of `gl_SubgroupSize`
//! expects).

use std::borrow::Cow;

use super::device_fold::fold_function;
use super::Target;
use crate::ir::{
    self, CapabilityNeed, Constant, DeviceQuery, Expr, ExprKind, Intrinsic, OptionFlag, WaveOp,
    CAPABILITIES,
};
use cajeta_runtime::{DeviceProfile, FloatStorage, IntStorage};

/// Replaces the queries of every function that has one, and folds those functions. Clones
/// the module only when some function has a query.
pub fn specialize_queries(module: &mut Cow<'_, ir::Module>, target: &Target) {
    let users: Vec<usize> = module
        .functions
        .iter()
        .enumerate()
        .filter(|(_, f)| ir::visit::find_expr(&f.body, &is_query).is_some())
        .map(|(i, _)| i)
        .collect();
    if users.is_empty() {
        return;
    }
    let m = module.to_mut();
    let rewrite = |e: &mut Expr| {
        if let ExprKind::Intrinsic {
            op: Intrinsic::Device(q),
            args,
        } = &e.kind
        {
            if let Some(kind) = evaluate(*q, args, target) {
                e.kind = kind;
            }
        }
    };
    for i in users {
        fold_function(&mut m.functions[i], &rewrite);
    }
}

/// Whether `e` is a device or option query.
pub(super) fn is_query(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Intrinsic {
            op: Intrinsic::Device(_),
            ..
        }
    )
}

/// The value of one query on `target`.
fn evaluate(q: DeviceQuery, args: &[Expr], target: &Target) -> Option<ExprKind> {
    let profile = target.profile.as_ref();
    let int = |v: u32| Some(ExprKind::Const(Constant::Int(u64::from(v))));
    let boolean = |b: bool| Some(ExprKind::Const(Constant::Bool(b)));
    let text = || match args.first().map(|a| &a.kind) {
        Some(ExprKind::Str(s)) => s.as_str(),
        _ => "",
    };
    match q {
        DeviceQuery::SubgroupSize => match profile {
            Some(p) => int(p.subgroup_size),
            None => Some(ExprKind::Intrinsic {
                op: Intrinsic::Wave(WaveOp::Width),
                args: Vec::new(),
            }),
        },
        DeviceQuery::VendorId => int(profile.map_or(0, |p| p.vendor_id)),
        DeviceQuery::DeviceType => int(profile.map_or(0, |p| device_type_value(&p.device_type))),
        DeviceQuery::HasExtension => boolean(profile.is_some_and(|p| p.has_extension(text()))),
        DeviceQuery::HasFeature => match profile {
            // A profile saved before `all_features` cannot answer for the other core
            // features: left for the backend to refuse (no guessed `false`).
            Some(p) if !p.answers_feature(text()) => None,
            p => boolean(p.is_some_and(|p| p.has_feature(text()))),
        },
        DeviceQuery::ExtensionVersion => match profile {
            Some(p) => p.extension_version(text()).and_then(int),
            None => int(0),
        },
        DeviceQuery::Limit => match profile {
            Some(p) => p.limit(text()).and_then(int),
            None => cajeta_runtime::COMPUTE_LIMITS
                .iter()
                .find(|l| l.0 == text())
                .and_then(|l| int(l.1)),
        },
        DeviceQuery::Supports => {
            let index = match args.first().map(|a| &a.kind) {
                Some(ExprKind::Const(Constant::Int(i))) => *i as usize,
                _ => return None,
            };
            let (_, need) = CAPABILITIES.get(index)?;
            boolean(supports(profile, *need))
        }
        DeviceQuery::HasCoopMatrix => boolean(profile.is_some_and(|p| has_coop_matrix(p, text()))),
        DeviceQuery::Option(flag) => boolean(option_value(flag, target)),
    }
}

/// Whether the profile lists the cooperative-matrix shape `text` (`"16x16x16 float16
/// float32"`, checked by sema) at subgroup scope, with A = B and accumulator = result types.
fn has_coop_matrix(profile: &DeviceProfile, text: &str) -> bool {
    let Ok(q) = crate::ir::CoopShapeQuery::parse(text) else {
        return false;
    };
    profile.coop_matrix_shapes.iter().any(|s| {
        (s.m, s.n, s.k) == (q.m, q.n, q.k)
            && s.a == q.ab
            && s.b == q.ab
            && s.c == q.acc
            && s.result == q.acc
            && s.scope == "subgroup"
    })
}

/// `VkPhysicalDeviceType` of a profile's `device_type` name.
fn device_type_value(name: &str) -> u32 {
    match name {
        "integrated_gpu" => 1,
        "discrete_gpu" => 2,
        "virtual_gpu" => 3,
        "cpu" => 4,
        _ => 0,
    }
}

/// Whether the device (or the baseline, without a profile) has what a capability needs.
pub fn supports(profile: Option<&DeviceProfile>, need: CapabilityNeed) -> bool {
    match (profile, need) {
        (None, CapabilityNeed::Subgroup(op)) => op == "basic",
        (None, _) => false,
        (Some(p), CapabilityNeed::Feature(f)) => p.has_feature(f),
        (Some(p), CapabilityNeed::Subgroup(op)) => p.subgroup_operations.iter().any(|o| o == op),
        (Some(p), CapabilityNeed::Extension(e, f)) => p.has_extension(e) && p.has_feature(f),
        (Some(p), CapabilityNeed::ExtensionAlone(e)) => p.has_extension(e),
        (Some(p), CapabilityNeed::TwoExtensions((e1, f1), (e2, f2))) => {
            p.has_extension(e1) && p.has_feature(f1) && p.has_extension(e2) && p.has_feature(f2)
        }
        (Some(_), CapabilityNeed::Never) => false,
    }
}

/// `Option.*` on the effective variant.
fn option_value(flag: OptionFlag, target: &Target) -> bool {
    let v = &target.precision;
    match flag {
        // As in ncnn, the packed options stay on alongside their storage option: a kernel
        // testing `fp16Storage` first and `fp16Packed` second takes the best branch.
        OptionFlag::Fp16Packed => matches!(
            v.float_storage,
            FloatStorage::Fp16Packed | FloatStorage::Fp16
        ),
        OptionFlag::Fp16Storage => v.float_storage == FloatStorage::Fp16,
        OptionFlag::Fp16Arithmetic => v.fp16_arithmetic,
        OptionFlag::Bf16Packed => matches!(
            v.float_storage,
            FloatStorage::Bf16Packed | FloatStorage::Bf16
        ),
        OptionFlag::Bf16Storage => v.float_storage == FloatStorage::Bf16,
        OptionFlag::Int8Packed => v.int8_packed,
        OptionFlag::Int8Storage => v.int8_storage == IntStorage::Native,
        OptionFlag::Int8Arithmetic => v.int8_arithmetic,
        OptionFlag::Int16Packed => v.int16_packed,
        OptionFlag::Int16Storage => v.int16_storage == IntStorage::Native,
        OptionFlag::Fp16Uniform => v.fp16_uniform,
        OptionFlag::Int8Uniform => v.int8_uniform,
        OptionFlag::ShaderLocalMemory => v.shader_local_memory,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STDLIB: &str = include_str!("../../../stdlib/cajeta/device.cajeta");

    #[test]
    fn stdlib_capability_constants_follow_the_table() {
        let declared: Vec<(usize, &str)> = STDLIB
            .lines()
            .filter(|l| l.contains("static final Capability"))
            .map(|l| {
                let v = l.split(['(', ')']).nth(1).and_then(|v| v.parse().ok());
                let name = l.trim_end_matches(';').rsplit(' ').next().unwrap_or("");
                (v.unwrap_or(usize::MAX), name)
            })
            .collect();
        assert_eq!(declared.len(), CAPABILITIES.len());
        for (v, name) in declared {
            assert_eq!(
                CAPABILITIES.get(v).map(|c| c.0),
                Some(name),
                "Capability.{name}"
            );
        }
        for (_, _, field) in OptionFlag::ALL {
            assert!(
                STDLIB.contains(&format!("boolean {field};")),
                "Option.{field} is not declared"
            );
        }
    }

    #[test]
    fn baseline_supports_only_core_vulkan_1_1() {
        assert!(supports(None, CapabilityNeed::Subgroup("basic")));
        assert!(!supports(None, CapabilityNeed::Subgroup("arithmetic")));
        assert!(!supports(None, CapabilityNeed::Feature("shaderInt64")));
        let features = cajeta_runtime::known_features();
        for (name, need) in CAPABILITIES {
            let f = match need {
                CapabilityNeed::Feature(f) | CapabilityNeed::Extension(_, f) => *f,
                CapabilityNeed::TwoExtensions(_, (_, f)) => *f,
                CapabilityNeed::Subgroup(_)
                | CapabilityNeed::ExtensionAlone(_)
                | CapabilityNeed::Never => continue,
            };
            // bf16 is added to the runtime's feature set by the precision work.
            if f != "shaderBFloat16Type" {
                assert!(features.contains(&f), "{name} needs unknown feature {f}");
            }
        }
    }

    #[test]
    fn coop_matrix_shapes_fold_from_the_profile() {
        let h200 =
            DeviceProfile::from_json(include_str!("../../../tests/profiles/h200.json")).unwrap();
        let lavapipe =
            DeviceProfile::from_json(include_str!("../../../tests/profiles/lavapipe.json"))
                .unwrap();
        // The H200 lists these (tests/profiles/h200.json).
        for shape in [
            "16x16x16 float16 float32",
            "16x16x16 float16 float16",
            "16x8x16 float16 float32",
            "16x16x16 bfloat16 float32",
            "16x8x32 int8 int32",
        ] {
            assert!(has_coop_matrix(&h200, shape), "{shape}");
            assert!(!has_coop_matrix(&lavapipe, shape), "{shape}");
        }
        for shape in [
            "32x32x32 float16 float32",
            "16x16x16 int8 int32",
            "16x16x16 float32 float32",
        ] {
            assert!(!has_coop_matrix(&h200, shape), "{shape}");
        }
        let query = |t: &str| Expr {
            kind: ExprKind::Str(t.into()),
            ty: crate::ir::Type::String,
            span: Default::default(),
        };
        let on = |p: Option<DeviceProfile>, t: &str| {
            let target = Target {
                profile: p,
                ..Default::default()
            };
            evaluate(DeviceQuery::HasCoopMatrix, &[query(t)], &target)
        };
        let value = |k: Option<ExprKind>| match k {
            Some(ExprKind::Const(Constant::Bool(b))) => Some(b),
            _ => None,
        };
        assert_eq!(value(on(Some(h200), "16x8x32 int8 int32")), Some(true));
        assert_eq!(value(on(None, "16x16x16 float16 float32")), Some(false));
    }

    #[test]
    fn options_read_the_effective_variant() {
        let mut target = Target::default();
        assert!(!option_value(OptionFlag::Fp16Storage, &target));
        // Packed int8 is the representation, but Option.int8Packed needs its flag.
        assert!(!option_value(OptionFlag::Int8Packed, &target));
        target.precision.float_storage = FloatStorage::Fp16;
        target.precision.int8_storage = IntStorage::Native;
        assert!(option_value(OptionFlag::Fp16Storage, &target));
        // ncnn's convention: the packed option stays on beside the storage one.
        assert!(option_value(OptionFlag::Fp16Packed, &target));
        assert!(!option_value(OptionFlag::Int8Packed, &target));
        target.precision.int8_packed = true;
        assert!(option_value(OptionFlag::Int8Packed, &target));
        assert!(option_value(OptionFlag::Int8Storage, &target));
    }

    #[test]
    fn option_values_follow_the_ncnn_rule() {
        use cajeta_runtime::PrecisionOptions;
        let feats: Vec<String> = ["storageBuffer16BitAccess", "shaderFloat16"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let target = |o: PrecisionOptions| Target {
            precision: o.resolve(&feats).0,
            profile: None,
        };
        let on = |t: &Target, f: OptionFlag| option_value(f, t);
        // fp16 storage: fp16Packed stays on with it (ncnn sets both).
        let t = target(PrecisionOptions {
            fp16_storage: true,
            ..Default::default()
        });
        assert!(on(&t, OptionFlag::Fp16Storage) && on(&t, OptionFlag::Fp16Packed));
        assert!(!on(&t, OptionFlag::Bf16Packed) && !on(&t, OptionFlag::Bf16Storage));
        // Packing alone: packed, not storage.
        let t = target(PrecisionOptions {
            fp16_packed: true,
            ..Default::default()
        });
        assert!(on(&t, OptionFlag::Fp16Packed) && !on(&t, OptionFlag::Fp16Storage));
        // No flags: every option off, the integer packings included.
        let t = target(PrecisionOptions::default());
        for (f, ..) in OptionFlag::ALL {
            assert!(!on(&t, f), "{f:?} on without flags");
        }
        // Integer packing only with its flags (int8 storage implies int8 packing).
        let t = target(PrecisionOptions {
            int8_storage: true,
            int16_packed: true,
            ..Default::default()
        });
        assert!(on(&t, OptionFlag::Int8Packed) && on(&t, OptionFlag::Int16Packed));
        // fp16 storage with bf16 packing: native fp16 storage wins where the device has it.
        let t = target(PrecisionOptions {
            fp16_storage: true,
            bf16_packed: true,
            ..Default::default()
        });
        assert!(on(&t, OptionFlag::Fp16Storage) && !on(&t, OptionFlag::Bf16Packed));
    }
}
