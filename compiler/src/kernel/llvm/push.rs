//! The push-constant block: one member per scalar, vector, matrix or POD parameter, in the
//! layout's order.
//!
//! The block is the LLVM struct `%PushConstants` in `addrspace(13)` of scalar and vector
//! members ([`PushBlock`]). Its members are read by index only (access chains: logical
//! addressing has no byte offsets), so LLVM's own idea of where they sit does not reach the
//! module: `post.rs` writes every member's `Offset` from the layout ([`member_offsets`]),
//! std430 as in the rspirv backend. Scalar and vector parameters are copied into their
//! locals at entry; matrix and POD parameters stay in the block and are read field by field
//! where the kernel reads them.

use super::lower::{FnLower, Val};
use super::refuse;
use super::types;
use crate::diagnostics::{Diagnostic, Span};
use crate::ir::{Expr, Function, Place, Type};
use crate::layout::KernelLayout;

type Res<T> = Result<T, Diagnostic>;

/// The push-constant block of a kernel: its parameters flattened to scalar and vector
/// members (a matrix into its columns, a POD into its fields, recursively), because LLVM
/// 23's SPIR-V target crashed (a segmentation fault) on a struct nested in the block.
pub(crate) struct PushBlock {
    /// The LLVM type of each member.
    pub(crate) fields: Vec<String>,
    /// Per parameter in the block: the parameter, its IR type and its first member.
    pub(crate) params: Vec<(usize, Type, usize)>,
    /// Per slot of the layout's block: its first member (a buffer array's hidden count
    /// included).
    pub(crate) first_member: Vec<usize>,
}

/// The scalar and vector leaves of a value of type `ty` at byte `offset`, with their
/// std430 offsets, in member order.
fn leaves(ty: &Type, offset: u32, out: &mut Vec<(u32, Type)>) {
    match ty {
        Type::Matrix(s, rows, cols) => {
            let column = Type::Vector(*s, *rows);
            let stride = column.std430_stride().unwrap_or(16);
            for c in 0..u32::from(*cols) {
                leaves(&column, offset + c * stride, out);
            }
        }
        Type::Struct(d) => {
            for (o, (_, t)) in d.offsets().into_iter().zip(&d.fields) {
                leaves(t, offset + o, out);
            }
        }
        // LLVM 23.1's SPIR-V target crashed on a `<3 x float>` member of the block (even
        // unused), and on a `<2 x float>` or `<4 x float>` member after a gap of padding
        // (`float32 a, Vector<float32,2> w`: the vector at byte 8): a vector is one scalar
        // member a lane.
        Type::Vector(s, n) => {
            for lane in 0..u32::from(*n) {
                out.push((offset + lane * s.size_bytes(), Type::Scalar(*s)));
            }
        }
        other => out.push((offset, other.clone())),
    }
}

/// The number of members a value of type `ty` takes.
fn leaf_count(ty: &Type) -> usize {
    let mut out = Vec::new();
    leaves(ty, 0, &mut out);
    out.len()
}

/// The std430 offset of every member of the block of `layout` (`post.rs` decorates them).
pub(crate) fn member_offsets(layout: &KernelLayout) -> Vec<u32> {
    let mut out = Vec::new();
    for slot in &layout.push {
        leaves(&slot.ty, slot.offset, &mut out);
    }
    out.into_iter().map(|(o, _)| o).collect()
}

/// The members of the block of `layout`; a buffer array's hidden count is refused.
pub(crate) fn push_block(kernel: &Function, layout: &KernelLayout) -> Res<PushBlock> {
    let mut block = PushBlock {
        fields: Vec::new(),
        params: Vec::new(),
        first_member: Vec::new(),
    };
    for (n, slot) in layout.push.iter().enumerate() {
        let span = kernel.params()[slot.param].span;
        block.first_member.push(block.fields.len());
        if slot.hidden {
            // Only a buffer array's count is hidden here (address variants are refused).
            let count = layout.bindings.iter().any(|b| {
                matches!(b.kind, crate::layout::BindingKind::BufferArray { count_member, .. } if count_member == n)
            });
            if !count {
                return Err(refuse(span, "a hidden push constant"));
            }
        } else {
            block
                .params
                .push((slot.param, slot.ty.clone(), block.fields.len()));
        }
        let mut out = Vec::new();
        leaves(&slot.ty, slot.offset, &mut out);
        for (_, t) in out {
            let ty = match t {
                Type::Scalar(_) | Type::Vector(..) => types::stored_value(&t, span)?,
                other => return Err(refuse(span, format!("a `{other}` parameter"))),
            };
            block.fields.push(ty.to_string());
        }
    }
    Ok(block)
}

impl FnLower<'_> {
    /// Copies the scalar and vector parameters into their locals and records the matrix and
    /// POD ones, read in the block where the kernel reads them.
    pub(crate) fn load_push_block(&mut self, block: &PushBlock, span: Span) -> Res<()> {
        for (param, ty, member) in &block.params {
            if let Type::Matrix(..) | Type::Struct(_) = ty {
                self.push_places.push((*param, *member));
                if self.assigned_matrix_param(*param) {
                    // Read once into its local, which the kernel then reads and writes.
                    let place = Place::Local(crate::ir::LocalId(*param));
                    let read = Expr {
                        kind: crate::ir::ExprKind::Load(place.clone()),
                        ty: ty.clone(),
                        span,
                    };
                    let v = self.load_field(&place, &read)?;
                    self.push_places.pop();
                    self.emit(format!("store {} {}, ptr %l{param}", v.ty, v.text));
                }
                continue;
            }
            let v = self.load_member(*member, ty, span)?;
            self.emit(format!("store {} {}, ptr %l{param}", v.ty, v.text));
        }
        Ok(())
    }

    /// Member `member` of the block, of (scalar or vector) type `ty`.
    pub(super) fn load_member(&mut self, member: usize, ty: &Type, span: Span) -> Res<Val> {
        if let Type::Vector(s, n) = ty {
            // One scalar member a lane (see `leaves`).
            let mut lanes = Vec::new();
            for lane in 0..usize::from(*n) {
                lanes.push(self.load_member(member + lane, &Type::Scalar(*s), span)?);
            }
            let vty = types::value(ty, span)?;
            let mut acc = "poison".to_string();
            for (i, l) in lanes.iter().enumerate() {
                let t = self.tmp();
                self.emit(format!(
                    "{t} = insertelement {vty} {acc}, {} {}, i32 {i}",
                    l.ty, l.text
                ));
                acc = t;
            }
            return Ok(Val::new(acc, vty));
        }
        let p = self.tmp();
        // The CPU target reads the block through the invocation context (`cpu/hooks.rs`),
        // at the member's std430 offset: the host packs the block as for Vulkan.
        match self.target {
            super::target::Target::Spirv => self.emit(format!(
                "{p} = getelementptr inbounds %PushConstants, ptr addrspace(13) @push_constants, i32 0, i32 {member}"
            )),
            super::target::Target::Cpu => {
                let Some(offset) = self.push_offsets.get(member).copied() else {
                    return Err(refuse(span, "a push-constant member without an offset"));
                };
                self.emit(format!(
                    "{p} = getelementptr inbounds i8, ptr addrspace(13) %pc, i64 {offset}"
                ));
            }
        }
        let stored = types::stored_value(ty, span)?;
        let v = self.tmp();
        // Volatile for SPIR-V: LLVM 23.1's SPIR-V target crashed (a segmentation fault) once
        // the optimizer merged the loads of adjacent members into one vector load (a 3-lane
        // vector parameter stored to a buffer). Each member is read once at entry anyway.
        // The CPU target reads them in every region of a split kernel, inside the loop over
        // the invocations, where a plain load is hoisted out of it.
        // The block does not change during a launch: `!invariant.load` lets LLVM read it
        // once even where the kernel writes buffers it cannot tell apart from it.
        let (volatile, invariant) = if self.target == super::target::Target::Spirv {
            ("volatile ", "")
        } else {
            ("", ", !invariant.load !{}")
        };
        self.emit(format!(
            "{v} = load {volatile}{stored}, ptr addrspace(13) {p}{invariant}"
        ));
        let lane = ty
            .elem_scalar()
            .ok_or_else(|| refuse(span, "a push constant"))?;
        self.loaded_form(Val::new(v, stored), lane, span)
    }

    /// The first member and the IR type of the matrix or POD parameter or field `place`.
    fn push_member(&self, place: &Place, span: Span) -> Res<(usize, Type)> {
        match place {
            Place::Local(l) => {
                let Some(&(_, member)) = self.push_places.iter().find(|(p, _)| *p == l.0) else {
                    return Err(refuse(
                        span,
                        "fields of a POD value that is not a kernel parameter",
                    ));
                };
                Ok((member, self.kernel.local(*l).ty.clone()))
            }
            Place::Field { base, field } => {
                let (member, ty) = self.push_member(base, span)?;
                let Type::Struct(d) = ty else {
                    return Err(refuse(span, "a field of a non-POD value"));
                };
                let Some((_, field_ty)) = d.fields.get(*field) else {
                    return Err(refuse(span, "an unknown field"));
                };
                let before: usize = d.fields[..*field].iter().map(|(_, t)| leaf_count(t)).sum();
                Ok((member + before, field_ty.clone()))
            }
            _ => Err(refuse(span, "this place in a POD parameter")),
        }
    }

    /// Reads a matrix parameter, or a POD parameter's field (a scalar, vector or matrix).
    pub(super) fn load_field(&mut self, place: &Place, e: &Expr) -> Res<Val> {
        // The CPU target reads every POD value, parameter or not, as memory.
        if let Some(v) = self.cpu_pod_load(place, e)? {
            return Ok(v);
        }
        let (member, ty) = self.push_member(place, e.span)?;
        match ty {
            Type::Scalar(_) | Type::Vector(..) => self.load_member(member, &ty, e.span),
            Type::Matrix(s, rows, cols) => {
                let column = Type::Vector(s, rows);
                let per_column = leaf_count(&column);
                let mut columns = Vec::new();
                for c in 0..usize::from(cols) {
                    columns.push(self.load_member(member + c * per_column, &column, e.span)?);
                }
                let mty = types::value(&ty, e.span)?;
                Ok(self.build_matrix(mty, &columns))
            }
            other => Err(refuse(e.span, format!("values of type `{other}`"))),
        }
    }
}
