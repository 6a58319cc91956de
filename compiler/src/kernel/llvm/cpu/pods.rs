//! POD values on the CPU device: buffers of POD elements (`KernelBuffer<Particle>`), POD
//! locals and POD parameters. On the CPU every one of them is plain memory in the std430
//! layout the host packs (`ir::StructDef::offsets`): a buffer element in the buffer's host
//! memory, a parameter in the push-constant block, a local in a stack slot of the element's
//! size. So a field or a lane of one is a byte offset from where the value starts, read and
//! written at that offset, and a whole value is copied as its bytes. A field or lane is
//! written alone, so invocations writing other fields of the same element do not race.

use super::super::lower::{FnLower, Val};
use super::super::{refuse, types};
use crate::diagnostics::{Diagnostic, Span};
use crate::ir::{Expr, ExprKind, Place, Type};
use crate::kernel::llvm::target::Target;

type Res<T> = Result<T, Diagnostic>;

/// Where a POD place's bytes are: a pointer, its address space, and the type found there.
pub(crate) struct PodPointer {
    ptr: String,
    space: u32,
    ty: Type,
}

impl PodPointer {
    /// The LLVM pointer type of the place (`ptr` in the default address space).
    fn ptr_ty(&self) -> String {
        match self.space {
            0 => "ptr".to_string(),
            s => format!("ptr addrspace({s})"),
        }
    }
}

/// The bytes a stack slot of a POD local takes (its std430 size), `None` for other types.
pub(crate) fn pod_local_bytes(ty: &Type) -> Option<u32> {
    match ty {
        Type::Struct(d) => Some(d.layout().0),
        _ => None,
    }
}

impl FnLower<'_> {
    /// Where the bytes of `place` are, when it is a POD value or a part of one (a buffer
    /// element of POD type, a POD local or parameter, their fields and lanes); `None` for
    /// every other place, which the lowering reaches its own way.
    fn pod_pointer(&mut self, place: &Place, span: Span) -> Res<Option<PodPointer>> {
        match place {
            Place::Local(l) => {
                let ty = self.kernel.local(*l).ty.clone();
                if !matches!(ty, Type::Struct(_)) {
                    return Ok(None);
                }
                if let Some(&(_, member)) = self.push_places.iter().find(|(p, _)| *p == l.0) {
                    // A POD parameter: its first field is at the start of its slot.
                    let Some(offset) = self.push_offsets.get(member).copied() else {
                        return Err(refuse(span, "a push-constant member without an offset"));
                    };
                    let p = self.tmp();
                    self.emit(format!(
                        "{p} = getelementptr inbounds i8, ptr addrspace(13) %pc, i64 {offset}"
                    ));
                    return Ok(Some(PodPointer {
                        ptr: p,
                        space: 13,
                        ty,
                    }));
                }
                if l.0 < self.kernel.param_count {
                    return Ok(None);
                }
                Ok(Some(PodPointer {
                    ptr: format!("%l{}", l.0),
                    space: 0,
                    ty,
                }))
            }
            Place::Index { base, index } => {
                let Type::Buffer(elem) = &base.ty else {
                    return Ok(None);
                };
                if !matches!(**elem, Type::Struct(_)) {
                    return Ok(None);
                }
                let (ptr, space, _) = self.element_pointer(base, index)?;
                Ok(Some(PodPointer {
                    ptr,
                    space,
                    ty: (**elem).clone(),
                }))
            }
            Place::Field { base, field } => {
                let Some(at) = self.pod_pointer(base, span)? else {
                    return Ok(None);
                };
                let Type::Struct(d) = &at.ty else {
                    return Err(refuse(span, "a field of a non-POD value"));
                };
                let (Some((_, ty)), Some(offset)) =
                    (d.fields.get(*field), d.offsets().get(*field).copied())
                else {
                    return Err(refuse(span, "an unknown field"));
                };
                Ok(Some(self.offset_pointer(&at, offset, ty.clone())))
            }
            Place::Lane { base, lane } => {
                let Some(at) = self.pod_pointer(base, span)? else {
                    return Ok(None);
                };
                let Type::Vector(s, _) = at.ty else {
                    return Err(refuse(span, "a lane of a non-vector field"));
                };
                let offset = u32::from(*lane) * s.size_bytes();
                Ok(Some(self.offset_pointer(&at, offset, Type::Scalar(s))))
            }
        }
    }

    /// The pointer `offset` bytes past `at`, to a value of type `ty`.
    fn offset_pointer(&mut self, at: &PodPointer, offset: u32, ty: Type) -> PodPointer {
        if offset == 0 {
            return PodPointer {
                ptr: at.ptr.clone(),
                space: at.space,
                ty,
            };
        }
        let p = self.tmp();
        self.emit(format!(
            "{p} = getelementptr inbounds i8, {} {}, i64 {offset}",
            at.ptr_ty(),
            at.ptr
        ));
        PodPointer {
            ptr: p,
            space: at.space,
            ty,
        }
    }

    /// Reads a field or lane of a POD value on the CPU target; `None` on another target or
    /// for a place that is not part of a POD value.
    pub(crate) fn cpu_pod_load(&mut self, place: &Place, e: &Expr) -> Res<Option<Val>> {
        if self.target != Target::Cpu {
            return Ok(None);
        }
        let Some(at) = self.pod_pointer(place, e.span)? else {
            return Ok(None);
        };
        let lane = at
            .ty
            .elem_scalar()
            .filter(|_| matches!(at.ty, Type::Scalar(_) | Type::Vector(..)))
            .ok_or_else(|| refuse(e.span, format!("values of type `{}`", at.ty)))?;
        let stored = types::stored_value(&at.ty, e.span)?;
        let v = self.tmp();
        // Aligned to the lane only: a 3- or 4-lane field need not start at a 16-byte
        // address in host memory (a buffer's base is).
        self.emit(format!(
            "{v} = load {stored}, {} {}, align {}",
            at.ptr_ty(),
            at.ptr,
            lane.size_bytes()
        ));
        self.loaded_form(Val::new(v, stored), lane, e.span)
            .map(Some)
    }

    /// Writes `v` to a field or lane of a POD value (the CPU target); other targets refuse
    /// stores to struct fields.
    pub(crate) fn cpu_pod_store(&mut self, place: &Place, v: Val, span: Span) -> Res<()> {
        let at = self.cpu_pod_target(place, span)?;
        self.cpu_pod_store_at(at, v, span)
    }

    /// Where a store to the field or lane `place` of a POD value writes (the CPU target; other
    /// targets refuse stores to struct fields): found before the stored value is computed,
    /// since Java evaluates a store's indices first (`ps[j].b = j++`).
    pub(crate) fn cpu_pod_target(&mut self, place: &Place, span: Span) -> Res<PodPointer> {
        let at = match self.target {
            Target::Cpu => self.pod_pointer(place, span)?,
            Target::Spirv => None,
        };
        at.ok_or_else(|| refuse(span, "stores to struct fields"))
    }

    /// Writes `v` through `at`, a [`Self::cpu_pod_target`].
    pub(crate) fn cpu_pod_store_at(&mut self, at: PodPointer, v: Val, span: Span) -> Res<()> {
        let Some(lane) = at.ty.elem_scalar() else {
            return Err(refuse(span, format!("stores of type `{}`", at.ty)));
        };
        let v = self.stored_form(v, lane);
        self.emit(format!(
            "store {} {}, {} {}, align {}",
            v.ty,
            v.text,
            at.ptr_ty(),
            at.ptr,
            lane.size_bytes()
        ));
        Ok(())
    }

    /// `place = value` for a whole POD value (`Particle p = ps[i]`, `ps[i] = p`,
    /// `dst[i] = src[j]`): its bytes copied, read in full before they are written.
    pub(crate) fn cpu_pod_copy(&mut self, place: &Place, value: &Expr, span: Span) -> Res<()> {
        if self.target != Target::Cpu {
            return Err(refuse(value.span, format!("values of type `{}`", value.ty)));
        }
        let ExprKind::Load(from) = &value.kind else {
            return Err(refuse(
                value.span,
                "a POD value that is not read from a buffer, a parameter or a local",
            ));
        };
        // The destination's indices first, as Java evaluates them (`dst[j] = src[j++]`).
        let Some(dst) = self.pod_pointer(place, span)? else {
            return Err(refuse(span, "storing a POD value here"));
        };
        let (Some(src), size) = (
            self.pod_pointer(from, value.span)?,
            pod_local_bytes(&value.ty),
        ) else {
            return Err(refuse(value.span, "copying this POD value"));
        };
        let bytes = format!("[{} x i8]", size.unwrap_or(0));
        let t = self.tmp();
        self.emit(format!(
            "{t} = load {bytes}, {} {}, align 4",
            src.ptr_ty(),
            src.ptr
        ));
        self.emit(format!(
            "store {bytes} {t}, {} {}, align 4",
            dst.ptr_ty(),
            dst.ptr
        ));
        Ok(())
    }
}
