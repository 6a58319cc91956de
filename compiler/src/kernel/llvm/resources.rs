//! Resources and built-ins: buffer elements through `llvm.spv.resource.getpointer`, image
//! texels through the same intrinsic on a `spirv.Image` handle (one `OpImageRead`/
//! `OpImageWrite` each), shared arrays as `addrspace(3)` globals, invocation ids, the
//! workgroup barrier and `Math.*`.

use super::lower::{FnLower, Val};
use super::target::Target;
use super::types::{self, scalar, scalar_of};
use super::{cpu, refuse, Handle};
use crate::diagnostics::{Diagnostic, Span};
use crate::ir::{Axis, Constant, Expr, ExprKind, Intrinsic, MathFn, Place, ScalarType, Type};

type Res<T> = Result<T, Diagnostic>;

impl FnLower<'_> {
    /// A pointer to `base[index]` of a buffer parameter: (pointer, address space, element).
    pub(super) fn element_pointer(
        &mut self,
        base: &Expr,
        index: &Expr,
    ) -> Res<(String, u32, ScalarType)> {
        if super::buffer_arrays::array_element(base).is_some() {
            return self.array_element_pointer(base, index);
        }
        let ExprKind::Load(Place::Local(l)) = &base.kind else {
            return Err(refuse(
                base.span,
                "indexing something other than a buffer parameter",
            ));
        };
        if let Some(array) = self.shared_of(base).cloned() {
            // No `inbounds`: an index past the end must not become poison in LLVM (the
            // rspirv backend leaves such an access to the driver, as Vulkan does).
            let i = self.expr(index)?;
            if self.target == Target::Cpu {
                let p = self.cpu_shared_pointer(&array.global, array.n, array.ty, &i);
                if array.is_bit_view() {
                    self.bit_pointers.insert(p.clone());
                }
                return Ok((p, 3, array.elem));
            }
            let i = self.clamp_shared_index(i, &array);
            let i = self.opaque_copy(i);
            let p = self.tmp();
            if array.is_bit_view() {
                self.bit_pointers.insert(p.clone());
            }
            self.emit(format!(
                "{p} = getelementptr [{} x {}], ptr addrspace(3) {}, i32 0, {} {}",
                array.n, array.ty, array.global, i.ty, i.text
            ));
            return Ok((p, 3, array.elem));
        }
        let handle = self.handles.get(l.0).cloned().flatten();
        let bits = handle.as_ref().is_some_and(Handle::is_bit_view);
        let Some(Handle::Buffer {
            var,
            ty,
            mangled,
            elem,
            ..
        }) = handle
        else {
            return Err(refuse(
                base.span,
                "indexing something other than a buffer parameter",
            ));
        };
        let i = self.expr(index)?;
        let p = self.buffer_pointer(&var, &ty, &mangled, &i);
        if bits {
            self.bit_pointers.insert(p.clone());
        }
        Ok((p, 11, elem))
    }

    pub(super) fn intrinsic(&mut self, op: &Intrinsic, args: &[Expr], e: &Expr) -> Res<Val> {
        let builtin = |name: &str, axis: &Axis| (name.to_string(), *axis as u32);
        if self.target == Target::Cpu {
            let field = match op {
                Intrinsic::GlobalId(a) => Some((cpu::hooks::GLOBAL_ID, a)),
                Intrinsic::LocalId(a) => Some((cpu::hooks::LOCAL_ID, a)),
                Intrinsic::WorkgroupId(a) => Some((cpu::hooks::WORKGROUP_ID, a)),
                _ => None,
            };
            if let Some((field, axis)) = field {
                return Ok(self.cpu_id(field, *axis as u32));
            }
            if let Intrinsic::Wave(w) = op {
                return self.cpu_wave(*w, args, e);
            }
            if let Some(what) = cpu::unsupported_intrinsic(op) {
                return Err(cpu::refuse_cpu(e.span, what));
            }
        }
        let (name, axis) = match op {
            Intrinsic::GlobalId(a) => builtin("llvm.spv.thread.id.i32", a),
            Intrinsic::LocalId(a) => builtin("llvm.spv.thread.id.in.group.i32", a),
            Intrinsic::WorkgroupId(a) => builtin("llvm.spv.group.id.i32", a),
            Intrinsic::ImageLoad => return self.image_load(args, e),
            Intrinsic::Math(f) if args.iter().any(|a| matches!(a.ty, Type::Vector(..))) => {
                return self.vector_math(*f, args, e)
            }
            Intrinsic::Math(f) => return self.math(*f, args, e),
            Intrinsic::Atomic(op) => return self.atomic(*op, args, e),
            Intrinsic::Clock { device } => return Ok(self.read_clock(*device)),
            Intrinsic::IntPrecision(f) => return self.int_precision(*f, args, e),
            Intrinsic::IntDot { acc_sat } => return self.int_dot(*acc_sat, args, e),
            Intrinsic::Bits(f) if args.iter().any(|a| matches!(a.ty, Type::Vector(..))) => {
                return self.vector_bits(*f, args, e)
            }
            Intrinsic::Bits(f) => return self.bits(*f, args, e),
            Intrinsic::Wave(op) => return self.wave(*op, args, e),
            Intrinsic::SpecInt => return self.spec_value(false, args, e),
            Intrinsic::SpecFloat => return self.spec_value(true, args, e),
            Intrinsic::Psc => return self.psc(args, e),
            Intrinsic::ImageWidth => return self.image_size(args, e, 0),
            Intrinsic::WorkgroupReduce => return self.workgroup_reduce(args, e),
            Intrinsic::SharedLength => return self.shared_length(args, e),
            Intrinsic::ImageHeight => return self.image_size(args, e, 1),
            Intrinsic::TextureSample => return self.texture_sample(args, e, false),
            Intrinsic::TextureSampleLod => return self.texture_sample(args, e, true),
            Intrinsic::TextureFetch => return self.texture_fetch(args, e, false),
            Intrinsic::TextureFetchLod => return self.texture_fetch(args, e, true),
            Intrinsic::TextureWidth => return self.texture_size(args, e, 0),
            Intrinsic::TextureHeight => return self.texture_size(args, e, 1),
            Intrinsic::TextureDepth => return self.texture_size(args, e, 2),
            Intrinsic::Vector(f) => return self.vector_fn(*f, args, e),
            Intrinsic::BufferVload => return self.vload(args, e),
            Intrinsic::BitCast(c) => return self.bit_cast(*c, args, e),
            Intrinsic::BufferLength => return self.buffer_length(args, e, false),
            Intrinsic::BufferLength64 => return self.buffer_length(args, e, true),
            Intrinsic::WorkgroupSize(a) => return self.builtin_lane("WorkgroupSize", *a),
            Intrinsic::WorkgroupCount(a) => return self.builtin_lane("NumWorkgroups", *a),
            Intrinsic::GlobalSize(a) => {
                let size = self.builtin_lane("WorkgroupSize", *a)?;
                let count = self.builtin_lane("NumWorkgroups", *a)?;
                let t = self.tmp();
                self.emit(format!("{t} = mul i32 {}, {}", count.text, size.text));
                return Ok(Val { text: t, ty: "i32" });
            }
            other => return Err(refuse(e.span, format!("the intrinsic {other:?}"))),
        };
        self.declare(format!("declare i32 @{name}(i32)"));
        let t = self.tmp();
        self.emit(format!("{t} = call i32 @{name}(i32 {axis})"));
        Ok(Val { text: t, ty: "i32" })
    }

    /// `Math.*` on scalars, through the LLVM intrinsics the SPIR-V target lowers to the same
    /// `GLSL.std.450` instruction the rspirv backend uses (`llvm.sqrt` → `Sqrt`, `llvm.smin`
    /// → `SMin`, …); functions without such an intrinsic are refused.
    pub(super) fn math(&mut self, f: MathFn, args: &[Expr], e: &Expr) -> Res<Val> {
        let s = scalar_of(&e.ty, e.span)?;
        // GLSL.std.450 defines its trigonometric, exponential and logarithmic instructions
        // for 16- and 32-bit floats only: on float64 they would make an invalid module.
        let transcendental = f.glsl_32bit_only();
        if transcendental && s == ScalarType::F64 {
            return Err(refuse(
                e.span,
                format!("`Math.{f:?}` on `float64` (GLSL.std.450 has it for 16- and 32-bit floats only)"),
            ));
        }
        let float = s.is_float();
        let signed = s.is_signed_integer();
        let name = match f {
            MathFn::Sqrt if float => "sqrt",
            MathFn::Floor if float => "floor",
            MathFn::Ceil if float => "ceil",
            MathFn::Trunc if float => "trunc",
            MathFn::Round if float => "roundeven",
            MathFn::Abs if float => "fabs",
            MathFn::Abs if signed => "abs",
            MathFn::Min if float => "minnum",
            MathFn::Max if float => "maxnum",
            MathFn::Min if signed => "smin",
            MathFn::Max if signed => "smax",
            MathFn::Min => "umin",
            MathFn::Max => "umax",
            MathFn::Fma if float => "fma",
            MathFn::Sin if float => "sin",
            MathFn::Cos if float => "cos",
            MathFn::Exp if float => "exp",
            MathFn::Exp2 if float => "exp2",
            MathFn::Log if float => "log",
            MathFn::Log2 if float => "log2",
            // The SPIR-V target lowers it as `Log2(x) * log10(2)`, as the rspirv backend does.
            MathFn::Log10 if float => "log10",
            MathFn::Pow if float => "pow",
            // `abs` of an unsigned value is the value (as in the rspirv backend).
            MathFn::Abs => {
                let [x] = args else {
                    return Err(refuse(e.span, "a malformed `Math.abs`"));
                };
                return self.expr(x);
            }
            other => return self.glsl_math(other, args, e),
        };
        let ty = scalar(s, e.span)?;
        let suffix = types::mangle(ty);
        let mut operands = Vec::new();
        for a in args {
            let v = self.expr(a)?;
            operands.push(format!("{ty} {}", v.text));
        }
        let mut params = vec![ty; operands.len()];
        if name == "abs" {
            // `is_int_min_poison = false`: abs(MIN) wraps to MIN, as SAbs does.
            operands.push("i1 false".to_string());
            params.push("i1");
        }
        self.declare(format!(
            "declare {ty} @llvm.{name}.{suffix}({})",
            params.join(", ")
        ));
        let t = self.tmp();
        self.emit(format!(
            "{t} = call {ty} @llvm.{name}.{suffix}({})",
            operands.join(", ")
        ));
        Ok(Val { text: t, ty })
    }

    /// Lane `axis` of a `<3 x i32>` built-in, through the target's `__spirv_BuiltIn<Name>`
    /// global convention (`post.rs` turns `WorkgroupSize` into the spec constants).
    pub(super) fn builtin_lane(&mut self, name: &str, axis: Axis) -> Res<Val> {
        if self.target == Target::Cpu {
            return Ok(self.cpu_builtin_lane(name, axis));
        }
        let global = format!("@__spirv_BuiltIn{name} = external addrspace(7) global <3 x i32>");
        if !self.globals.contains(&global) {
            self.globals.push(global);
        }
        let (v, lane) = (self.tmp(), self.tmp());
        self.emit(format!(
            "{v} = load <3 x i32>, ptr addrspace(7) @__spirv_BuiltIn{name}"
        ));
        self.emit(format!(
            "{lane} = extractelement <3 x i32> {v}, i32 {}",
            axis as u32
        ));
        Ok(Val {
            text: lane,
            ty: "i32",
        })
    }

    /// `t = shared T[n]` for the `Shared<T>` local `local`: a workgroup-memory global of a
    /// constant length (a dynamic one would need the shared-size spec constant).
    pub(super) fn bind_shared(&mut self, local: usize, value: &Expr, span: Span) -> Res<()> {
        let (
            ExprKind::Intrinsic {
                op: Intrinsic::SharedNew,
                args,
            },
            Type::Shared(elem),
        ) = (&value.kind, &value.ty)
        else {
            return Err(refuse(
                span,
                "a `Shared<T>` local not initialized with `shared T[n]`",
            ));
        };
        if self.shared.iter().any(|(s, ..)| *s == local) {
            return Err(refuse(span, "a `Shared<T>` local assigned twice"));
        }
        // Scalars and vectors: `lane` is the lane type, `ty` the stored element.
        let lanes = u32::from(elem.lanes() as u8);
        let lane = scalar_of(
            &Type::Scalar(elem.elem_scalar().unwrap_or(ScalarType::Bool)),
            span,
        )?;
        let ty = if lanes > 1 {
            types::stored_value(elem, span)?
        } else {
            self.shared_element_type(local, lane, span)?
        };
        // The element's stored size (booleans as uint32; a 3-lane vector takes four lanes'
        // room, as in std430), as the rspirv backend counts it.
        let lane_bytes = if lane == ScalarType::Bool {
            4
        } else {
            lane.size_bytes()
        };
        let elem_bytes = lane_bytes * if lanes == 3 { 4 } else { lanes };
        let Some(ExprKind::Const(Constant::Int(n))) = args.first().map(|a| &a.kind) else {
            return self.bind_dynamic_shared(local, (lane, ty, elem_bytes), span);
        };
        let n = *n as u32;
        let bytes = u64::from(n) * u64::from(elem_bytes);
        let (global, offset) = if self.target == Target::Cpu {
            // A place in the workgroup's block of shared memory (see `cpu/hooks.rs`).
            let global = format!("%shared.{}.{local}", self.kernel_tag());
            let offset = self.cpu_place_shared(bytes);
            self.allocas
                .push_str(&cpu::hooks::shared_array(&global, offset));
            (global, offset)
        } else {
            let global = format!("@shared.{}.{local}", self.kernel_tag());
            self.globals.push(format!(
                "{global} = internal addrspace(3) global [{n} x {ty}] poison"
            ));
            self.shared_bytes += bytes;
            (global, 0)
        };
        let array = super::shared::SharedArray {
            global,
            elem: lane,
            ty,
            n,
            elem_bytes,
            offset,
        };
        self.shared.push((local, array));
        Ok(())
    }

    /// A tag that keeps module-level names of different functions apart.
    pub(super) fn kernel_tag(&self) -> String {
        self.kernel
            .qualified_name
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect()
    }

    /// The image handle and a pointer to texel (x, y) through `llvm.spv.resource.getpointer`;
    /// a `store`/`load` through it becomes one `OpImageWrite`/`OpImageRead`.
    pub(super) fn texel_pointer(
        &mut self,
        img: &Expr,
        x: &Expr,
        y: &Expr,
    ) -> Res<(String, &'static str)> {
        let ExprKind::Load(Place::Local(l)) = &img.kind else {
            return Err(refuse(img.span, "an image that is not a kernel parameter"));
        };
        let Some(Some(Handle::Image {
            var,
            ty,
            mangled,
            channel,
            ..
        })) = self.handles.get(l.0).cloned()
        else {
            return Err(refuse(img.span, "an image that is not a kernel parameter"));
        };
        let (xv, yv) = (self.expr(x)?, self.expr(y)?);
        let [c0, c1, p] = self.tmps();
        self.emit(format!(
            "{c0} = insertelement <2 x i32> poison, i32 {}, i32 0",
            xv.text
        ));
        self.emit(format!(
            "{c1} = insertelement <2 x i32> {c0}, i32 {}, i32 1",
            yv.text
        ));
        self.declare(format!(
            "declare ptr @llvm.spv.resource.getpointer.p0.{mangled}.v2i32({ty}, <2 x i32>)"
        ));
        self.emit(format!(
            "{p} = call ptr @llvm.spv.resource.getpointer.p0.{mangled}.v2i32({ty} {var}, <2 x i32> {c1})"
        ));
        Ok((p, channel))
    }

    pub(super) fn image_store(&mut self, args: &[Expr], span: Span) -> Res<()> {
        let [img, x, y, v] = args else {
            return Err(refuse(span, "a malformed image store"));
        };
        if self.target == Target::Cpu {
            let image = self.cpu_image_param(img)?;
            let (xv, yv) = (self.expr(x)?, self.expr(y)?);
            let value = self.expr(v)?;
            if value.ty != image.2 {
                return Err(refuse(
                    v.span,
                    "a texel of another type than the image's texels",
                ));
            }
            self.cpu_image_store((&image.0, image.1, image.2), &xv, &yv, &value);
            return Ok(());
        }
        let (p, channel) = self.texel_pointer(img, x, y)?;
        let value = self.expr(v)?;
        if value.ty != channel {
            return Err(refuse(
                v.span,
                "a texel of another type than the image's texels",
            ));
        }
        self.emit(format!("store volatile {channel} {}, ptr {p}", value.text));
        Ok(())
    }

    pub(super) fn image_load(&mut self, args: &[Expr], e: &Expr) -> Res<Val> {
        let [img, x, y] = args else {
            return Err(refuse(e.span, "a malformed image load"));
        };
        if self.target == Target::Cpu {
            let image = self.cpu_image_param(img)?;
            let (xv, yv) = (self.expr(x)?, self.expr(y)?);
            return Ok(self.cpu_image_load((&image.0, image.1, image.2), &xv, &yv));
        }
        let (p, channel) = self.texel_pointer(img, x, y)?;
        let t = self.tmp();
        self.emit(format!("{t} = load volatile {channel}, ptr {p}"));
        Ok(Val {
            text: t,
            ty: channel,
        })
    }
}
