//! Ray queries (`SPV_KHR_ray_query`): `AccelerationStructure` kernel parameters (a
//! `UniformConstant` variable of `OpTypeAccelerationStructureKHR`) and `RayQuery` locals (a
//! `Function` variable of `OpTypeRayQueryKHR`, never loaded or stored as a whole), whose
//! methods lower one to one onto `OpRayQuery*KHR` on that variable.
//!
//! Every target takes them: spirv-val accepts `SPV_KHR_ray_query` in a SPIR-V 1.3 module for
//! vulkan1.1 as well as in 1.5/1.6 modules (the goldens check both). On the device the module
//! needs `VK_KHR_ray_query` (which itself needs `VK_KHR_spirv_1_4` and
//! `VK_KHR_acceleration_structure`): the runtime refuses to load it where the extension is not
//! enabled, naming it.

use rspirv::dr::Operand;
use rspirv::spirv::{Capability, Op, Word};

use super::function::{FnCx, Slot};
use super::module::ResourceKind;
use super::{unsupported, BuildExt, Ctx, Res};
use crate::ir::{Expr, ExprKind, Intrinsic, Place, RayQueryOp, ScalarType};

impl Ctx<'_> {
    /// Records what a module using ray queries needs.
    pub(crate) fn ray_query_features(&mut self) {
        self.features.require(Capability::RayQueryKHR);
        self.features.extension("SPV_KHR_ray_query");
    }
}

/// Whether `e` is `RayQuery.create()`, the only value a `RayQuery` local may be given.
pub(crate) fn is_create(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Intrinsic {
            op: Intrinsic::RayQuery(RayQueryOp::Create),
            ..
        }
    )
}

impl FnCx<'_, '_> {
    /// The `Function` variable of the `RayQuery` local `q` reads.
    fn query_var(&self, q: &Expr) -> Res<Word> {
        match &q.kind {
            ExprKind::Load(Place::Local(l)) => match self.slots.get(l.0) {
                Some(Slot::Var(var)) => Ok(*var),
                _ => Err(unsupported(
                    q.span,
                    "internal error: RayQuery local without a variable",
                )),
            },
            _ => Err(unsupported(
                q.span,
                "a RayQuery method called on anything but a RayQuery local",
            )),
        }
    }

    /// A `RayQuery` method.
    pub(crate) fn ray_query(&mut self, op: RayQueryOp, args: &[Expr], e: &Expr) -> Res<Word> {
        let span = e.span;
        self.cx.ray_query_features();
        if op == RayQueryOp::Create {
            return Err(unsupported(
                span,
                "`RayQuery.create()` other than as the initializer of a RayQuery local (`RayQuery q = RayQuery.create();`)",
            ));
        }
        let Some(q) = args.first() else {
            return Err(unsupported(
                span,
                "internal error: RayQuery method without a query",
            ));
        };
        let var = self.query_var(q)?;
        let uint = self.cx.u32_type();
        let intersection = |s: &mut Self, committed: bool| s.cx.const_u32(u32::from(committed));
        let id = |w: Word| Operand::IdRef(w);
        match op {
            RayQueryOp::Create => Ok(0),
            RayQueryOp::Initialize => {
                let [_, scene, rest @ ..] = args else {
                    return Err(unsupported(span, "internal error: initialize arity"));
                };
                let (scene_var, kind) = self.resource_of(scene)?;
                let ResourceKind::AccelStruct { ty } = kind else {
                    return Err(unsupported(scene.span, "internal error: not a scene"));
                };
                let scene = self.op(Op::Load, ty, &[scene_var])?;
                let mut operands = vec![id(var), id(scene)];
                let mut values = Vec::new();
                for a in rest {
                    values.push(self.expr(a)?);
                }
                // Cajeta's form gives the origin and the direction as three scalars each:
                // flags, mask, ox, oy, oz, tMin, dx, dy, dz, tMax.
                if let [flags, mask, ox, oy, oz, t_min, dx, dy, dz, t_max] = values[..] {
                    let f32_ty = self.cx.float_type(32);
                    let v3 = self.cx.vector_type(f32_ty, 3);
                    let origin = self.op(Op::CompositeConstruct, v3, &[ox, oy, oz])?;
                    let direction = self.op(Op::CompositeConstruct, v3, &[dx, dy, dz])?;
                    values = vec![flags, mask, origin, t_min, direction, t_max];
                }
                operands.extend(values.into_iter().map(id));
                self.emit(Op::RayQueryInitializeKHR, None, operands)?;
                Ok(0)
            }
            RayQueryOp::Proceed => {
                let bool_ty = self.cx.bool_type();
                self.emit(Op::RayQueryProceedKHR, Some(bool_ty), vec![id(var)])
            }
            RayQueryOp::Terminate => {
                self.emit(Op::RayQueryTerminateKHR, None, vec![id(var)])?;
                Ok(0)
            }
            RayQueryOp::ConfirmIntersection => {
                self.emit(Op::RayQueryConfirmIntersectionKHR, None, vec![id(var)])?;
                Ok(0)
            }
            RayQueryOp::Type { committed } => {
                let which = intersection(self, committed);
                self.emit(
                    Op::RayQueryGetIntersectionTypeKHR,
                    Some(uint),
                    vec![id(var), id(which)],
                )
            }
            RayQueryOp::T { committed } => {
                let which = intersection(self, committed);
                let f32_ty = self.cx.float_type(32);
                self.emit(
                    Op::RayQueryGetIntersectionTKHR,
                    Some(f32_ty),
                    vec![id(var), id(which)],
                )
            }
            // int32 (committedPrimitiveIndex) or uint32 (Cajeta's candidatePrimitiveIndex):
            // SPIR-V takes a 32-bit integer of either signedness.
            RayQueryOp::PrimitiveIndex { committed } => {
                let which = intersection(self, committed);
                let int = self.cx.ir_value_type(&e.ty, span)?;
                self.emit(
                    Op::RayQueryGetIntersectionPrimitiveIndexKHR,
                    Some(int),
                    vec![id(var), id(which)],
                )
            }
            RayQueryOp::InstanceId => {
                let which = intersection(self, true);
                let int = self.cx.value_type(ScalarType::I32, span)?;
                self.emit(
                    Op::RayQueryGetIntersectionInstanceIdKHR,
                    Some(int),
                    vec![id(var), id(which)],
                )
            }
            RayQueryOp::Barycentrics { committed, lane } => {
                let which = intersection(self, committed);
                let f32_ty = self.cx.float_type(32);
                let v2 = self.cx.vector_type(f32_ty, 2);
                let both = self.emit(
                    Op::RayQueryGetIntersectionBarycentricsKHR,
                    Some(v2),
                    vec![id(var), id(which)],
                )?;
                match lane {
                    None => Ok(both),
                    Some(l) => self
                        .cx
                        .b
                        .composite_extract(f32_ty, None, both, [l])
                        .ice(span),
                }
            }
            RayQueryOp::FrontFace { committed } => {
                let which = intersection(self, committed);
                let bool_ty = self.cx.bool_type();
                self.emit(
                    Op::RayQueryGetIntersectionFrontFaceKHR,
                    Some(bool_ty),
                    vec![id(var), id(which)],
                )
            }
            RayQueryOp::GenerateIntersection => {
                let t = match args.get(1) {
                    Some(t) => self.expr(t)?,
                    None => {
                        return Err(unsupported(
                            span,
                            "internal error: generateIntersection arity",
                        ))
                    }
                };
                self.emit(
                    Op::RayQueryGenerateIntersectionKHR,
                    None,
                    vec![id(var), id(t)],
                )?;
                Ok(0)
            }
        }
    }
}
