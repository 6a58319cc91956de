//! Device intrinsics: exactly one lowering function per [`Intrinsic`] variant, dispatched by
//! the one `match` in [`FnCx::intrinsic`].

use rspirv::spirv::{BuiltIn, Capability, Op, Word};

use super::expr::scalar_of;
use super::function::FnCx;
use super::module::ResourceKind;
use super::{unsupported, BuildExt, Res};
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{Axis, Expr, Intrinsic, ScalarType};

impl FnCx<'_, '_> {
    /// Lowers an intrinsic call `e` with arguments `args` (receiver first).
    pub(crate) fn intrinsic(&mut self, op: Intrinsic, args: &[Expr], e: &Expr) -> Res<Word> {
        match op {
            Intrinsic::LocalId(axis) => self.local_id(axis),
            Intrinsic::GlobalId(axis) => self.global_id(axis),
            Intrinsic::GlobalSize(axis) => self.global_size(axis),
            Intrinsic::WorkgroupId(axis) => self.workgroup_id(axis),
            Intrinsic::WorkgroupSize(axis) => self.workgroup_size(axis),
            Intrinsic::WorkgroupCount(axis) => self.workgroup_count(axis),
            Intrinsic::ImageStore => self.image_store(args, e),
            Intrinsic::ImageLoad => self.image_load(args, e),
            Intrinsic::ImageWidth => self.image_width(args, e),
            Intrinsic::ImageHeight => self.image_height(args, e),
            Intrinsic::BufferLength => self.buffer_length(args, e),
            Intrinsic::BufferLength64 => self.buffer_length64(args, e),
            Intrinsic::TextureSample => self.texture_sample(args, e, false),
            Intrinsic::TextureSampleLod => self.texture_sample(args, e, true),
            Intrinsic::TextureFetch => self.texture_fetch(args, e, false),
            Intrinsic::TextureFetchLod => self.texture_fetch(args, e, true),
            Intrinsic::TextureWidth => self.texture_size(args, e, 0),
            Intrinsic::TextureHeight => self.texture_size(args, e, 1),
            Intrinsic::TextureDepth => self.texture_size(args, e, 2),
            Intrinsic::Math(f) => self.math(f, args, e),
            Intrinsic::Vector(f) => self.vector_fn(f, args, e),
            Intrinsic::Bits(f) => self.bits(f, args, e),
            Intrinsic::BitCast(c) => self.bit_cast(c, args, e),
            Intrinsic::Clock { device } => self.read_clock(device, e),
            Intrinsic::RayQuery(op) => self.ray_query(op, args, e),
            Intrinsic::WorkgroupReduce => self.workgroup_reduce(args, e),
            Intrinsic::IntDot { acc_sat } => self.int_dot(acc_sat, args, e),
            Intrinsic::Wave(w) => self.wave(w, args, e),
            Intrinsic::BufferVload => self.buffer_vload(args, e),
            Intrinsic::BufferVstore => self.buffer_vstore(args, e),
            Intrinsic::IntPrecision(f) => self.int_precision(f, args, e),
            Intrinsic::Coop(c) => self.coop(c, args, e),
            Intrinsic::Psc => self.psc(args, e),
            // Left unfolded only when the profile predates what the query asks for.
            Intrinsic::Device(q) => Err(unsupported(
                e.span,
                format!(
                    "the device profile does not record what `{q:?}` asks for (it was saved by \
                     an older cajetac): regenerate it with `cajetac devices --json`"
                ),
            )),
            Intrinsic::Precision(f) => self.precision_op(f, args, e),
            other => self
                .memory_intrinsic(other, args, e)
                .unwrap_or_else(|| Err(unsupported(e.span, format!("intrinsic {other:?}")))),
        }
    }

    /// `KernelThread.clock()` / `deviceClock()`: `OpReadClockKHR` with subgroup or device
    /// scope, as a `uint64`.
    fn read_clock(&mut self, device: bool, e: &Expr) -> Res<Word> {
        self.cx.features.require(Capability::ShaderClockKHR);
        self.cx.features.extension("SPV_KHR_shader_clock");
        self.cx.features.vulkan_feature(if device {
            "shaderDeviceClock"
        } else {
            "shaderSubgroupClock"
        });
        let ty = self.cx.ir_value_type(&e.ty, e.span)?;
        // Scope values: Device 1, Subgroup 3.
        let scope = self.cx.const_u32(if device { 1 } else { 3 });
        self.op(Op::ReadClockKHR, ty, &[scope])
    }

    /// `KernelThread.x()`..: `LocalInvocationId`.
    fn local_id(&mut self, axis: Axis) -> Res<Word> {
        self.builtin_component(BuiltIn::LocalInvocationId, axis)
    }

    /// `KernelThread.globalIdX()`..: `GlobalInvocationId`.
    fn global_id(&mut self, axis: Axis) -> Res<Word> {
        self.builtin_component(BuiltIn::GlobalInvocationId, axis)
    }

    /// `KernelThread.globalSizeX()`..: `NumWorkgroups * WorkgroupSize` (wrapping, like the
    /// grid × block product on the host).
    fn global_size(&mut self, axis: Axis) -> Res<Word> {
        let count = self.builtin_component(BuiltIn::NumWorkgroups, axis)?;
        let size = self.cx.globals.workgroup_size[axis.index() as usize];
        let uint = self.cx.u32_type();
        self.op(Op::IMul, uint, &[count, size])
    }

    /// `Workgroup.x()`..: `WorkgroupId`.
    fn workgroup_id(&mut self, axis: Axis) -> Res<Word> {
        self.builtin_component(BuiltIn::WorkgroupId, axis)
    }

    /// `Workgroup.dimX()`..: the workgroup-size spec constant of that axis.
    fn workgroup_size(&mut self, axis: Axis) -> Res<Word> {
        Ok(self.cx.globals.workgroup_size[axis.index() as usize])
    }

    /// `Workgroup.countX()`..: `NumWorkgroups`.
    fn workgroup_count(&mut self, axis: Axis) -> Res<Word> {
        self.builtin_component(BuiltIn::NumWorkgroups, axis)
    }

    /// `img.imageWidth()`: `OpImageQuerySize`, lane 0.
    fn image_width(&mut self, args: &[Expr], e: &Expr) -> Res<Word> {
        self.image_size(args, e, 0)
    }

    /// `img.imageHeight()`: `OpImageQuerySize`, lane 1.
    fn image_height(&mut self, args: &[Expr], e: &Expr) -> Res<Word> {
        self.image_size(args, e, 1)
    }

    /// `buf.length()`: `OpArrayLength` of the buffer's runtime array.
    fn buffer_length(&mut self, args: &[Expr], e: &Expr) -> Res<Word> {
        let [buf] = args else {
            return Err(arity(e, 1));
        };
        if super::buffer_array::array_element(buf).is_some() {
            return self.buffer_array_elem_length(buf);
        }
        let (var, kind) = self.resource_of(buf)?;
        match kind {
            ResourceKind::Buffer {
                address: Some(a), ..
            } => self.address_length32(a, e.span),
            ResourceKind::Buffer { .. } => {
                let uint = self.cx.u32_type();
                self.cx.b.array_length(uint, None, var, 0).ice(e.span)
            }
            _ => Err(unsupported(buf.span, "`length()` of a non-buffer")),
        }
    }

    /// `buf.length64()`: an addressed buffer's `uint64` count, or `OpArrayLength` widened.
    fn buffer_length64(&mut self, args: &[Expr], e: &Expr) -> Res<Word> {
        let [buf] = args else {
            return Err(arity(e, 1));
        };
        let u64_ty = self.cx.int_type(64, false);
        if super::buffer_array::array_element(buf).is_some() {
            let len = self.buffer_array_elem_length(buf)?;
            return self.op(Op::UConvert, u64_ty, &[len]);
        }
        let (var, kind) = self.resource_of(buf)?;
        match kind {
            ResourceKind::Buffer {
                address: Some(a), ..
            } => self.address_length(a),
            ResourceKind::Buffer { .. } => {
                let uint = self.cx.u32_type();
                let len = self.cx.b.array_length(uint, None, var, 0).ice(e.span)?;
                self.op(Op::UConvert, u64_ty, &[len])
            }
            _ => Err(unsupported(buf.span, "`length64()` of a non-buffer")),
        }
    }

    /// Component `axis` of a `v3uint` built-in input.
    fn builtin_component(&mut self, builtin: BuiltIn, axis: Axis) -> Res<Word> {
        let var = self.cx.builtin(builtin);
        let uint = self.cx.u32_type();
        let v3 = self.cx.vector_type(uint, 3);
        let v = self.op(Op::Load, v3, &[var])?;
        self.cx
            .b
            .composite_extract(uint, None, v, [axis.index()])
            .ice(self.func.span)
    }

    /// Loads the image object of an `Image2D` expression.
    fn image_value(&mut self, img: &Expr) -> Res<Word> {
        let (var, kind) = self.resource_of(img)?;
        let ResourceKind::Image { image, .. } = kind else {
            return Err(unsupported(img.span, "expected an Image2D"));
        };
        self.op(Op::Load, image, &[var])
    }

    /// The integer texel coordinate `(x, y)`: a `v2uint` (or `v2int` for int32 operands).
    pub(crate) fn coordinate(&mut self, x: &Expr, y: &Expr) -> Res<Word> {
        let (sx, sy) = (scalar_of(x)?, scalar_of(y)?);
        let mut xv = self.expr(x)?;
        let mut yv = self.expr(y)?;
        if !sx.is_integer() || !sy.is_integer() {
            return Err(unsupported(
                x.span.to(y.span),
                "texel coordinates must be integers",
            ));
        }
        let s = if sx == sy && sx.bits() == 32 {
            sx
        } else {
            ScalarType::U32
        };
        xv = self.convert_int(xv, sx, s, x.span)?;
        yv = self.convert_int(yv, sy, s, y.span)?;
        let elem = self.cx.value_type(s, x.span)?;
        let v2 = self.cx.vector_type(elem, 2);
        self.op(Op::CompositeConstruct, v2, &[xv, yv])
    }

    /// Lane `lane` of `OpImageQuerySize` (needs the `ImageQuery` capability).
    fn image_size(&mut self, args: &[Expr], e: &Expr, lane: u32) -> Res<Word> {
        let [img] = args else {
            return Err(arity(e, 1));
        };
        let image = self.image_value(img)?;
        self.cx.features.require(Capability::ImageQuery);
        let uint = self.cx.u32_type();
        let v2 = self.cx.vector_type(uint, 2);
        let size = self.op(Op::ImageQuerySize, v2, &[image])?;
        self.cx
            .b
            .composite_extract(uint, None, size, [lane])
            .ice(e.span)
    }
}

/// A wrong argument count (sema normally prevents it).
fn arity(e: &Expr, want: usize) -> Diagnostic {
    Diagnostic::error(
        Code::ArgumentCount,
        e.span,
        format!("intrinsic expects {want} argument(s)"),
    )
}
