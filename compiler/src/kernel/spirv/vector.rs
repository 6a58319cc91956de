//! Vectors and matrices: construction, splats, swizzles and lane places.
//!
//! Vectors are SPIR-V `OpTypeVector`s in registers and Function variables; in buffers and the
//! push-constant block a boolean vector is stored as a `uint32` vector (0/1), as booleans
//! are. Matrices are `OpTypeMatrix` of column vectors (column-major, like the IR).

use rspirv::dr::{InsertPoint, Instruction, Operand};
use rspirv::spirv::{Op, StorageClass, Word};

use super::function::{FnCx, Slot};
use super::{unsupported, BuildExt, Res};
use crate::ir::{Expr, Place, ScalarType, Type};

impl FnCx<'_, '_> {
    /// Emits `opcode` with arbitrary operands (ids and literals) and returns its result.
    pub(crate) fn op_with(&mut self, opcode: Op, ty: Word, operands: Vec<Operand>) -> Res<Word> {
        let id = self.cx.b.id();
        let inst = Instruction::new(opcode, Some(ty), Some(id), operands);
        self.cx
            .b
            .insert_into_block(InsertPoint::End, inst)
            .ice(self.func.span)?;
        Ok(id)
    }

    /// `OpCompositeExtract` of lane (or matrix column) `index`.
    pub(crate) fn extract(&mut self, ty: Word, composite: Word, index: u32) -> Res<Word> {
        self.op_with(
            Op::CompositeExtract,
            ty,
            vec![Operand::IdRef(composite), Operand::LiteralBit32(index)],
        )
    }

    /// A vector or matrix built from scalar and vector parts (a matrix column-major).
    pub(crate) fn construct(&mut self, parts: &[Expr], e: &Expr) -> Res<Word> {
        let ty = self.cx.ir_value_type(&e.ty, e.span)?;
        let mut values = Vec::new();
        for p in parts {
            values.push(self.expr(p)?);
        }
        if let ([only], [value]) = (parts, values.as_slice()) {
            if only.ty == e.ty {
                // `Vector<T, N>(v)` of a whole vector of the type is a copy: OpCompositeConstruct
                // needs at least two constituents (found by the fuzz campaign).
                return Ok(*value);
            }
        }
        let Type::Matrix(s, rows, cols) = e.ty else {
            let ids = values.into_iter().map(Operand::IdRef).collect();
            return self.op_with(Op::CompositeConstruct, ty, ids);
        };
        // OpCompositeConstruct of a matrix takes whole columns: split the parts into lanes,
        // then regroup them by column.
        let lane_ty = self.cx.value_type(s, e.span)?;
        let mut lanes = Vec::new();
        for (p, v) in parts.iter().zip(values) {
            match p.ty {
                Type::Vector(_, n) => {
                    for i in 0..u32::from(n) {
                        lanes.push(self.extract(lane_ty, v, i)?);
                    }
                }
                _ => lanes.push(v),
            }
        }
        let column_ty = self.cx.vector_type(lane_ty, u32::from(rows));
        let mut columns = Vec::new();
        for column in lanes.chunks(usize::from(rows)).take(usize::from(cols)) {
            let ids = column.iter().copied().map(Operand::IdRef).collect();
            columns.push(Operand::IdRef(self.op_with(
                Op::CompositeConstruct,
                column_ty,
                ids,
            )?));
        }
        self.op_with(Op::CompositeConstruct, ty, columns)
    }

    /// A scalar repeated in every lane of `e`'s vector type.
    pub(crate) fn splat(&mut self, a: &Expr, e: &Expr) -> Res<Word> {
        let v = self.expr(a)?;
        self.splat_value(v, &e.ty, e.span)
    }

    /// The vector of type `ty` with `v` in every lane.
    pub(crate) fn splat_value(
        &mut self,
        v: Word,
        ty: &Type,
        span: crate::diagnostics::Span,
    ) -> Res<Word> {
        let vec_ty = self.cx.ir_value_type(ty, span)?;
        let ids = vec![Operand::IdRef(v); ty.lanes()];
        self.op_with(Op::CompositeConstruct, vec_ty, ids)
    }

    /// Lanes of a vector: `OpCompositeExtract` for one, `OpVectorShuffle` for several.
    pub(crate) fn swizzle(&mut self, a: &Expr, lanes: &[u8], e: &Expr) -> Res<Word> {
        if let (crate::ir::ExprKind::Load(Place::Index { base, index }), [lane]) = (&a.kind, lanes)
        {
            if let Type::Buffer(_) = base.ty {
                return self.buffer_lane_load(base, index, *lane, e);
            }
        }
        let v = self.expr(a)?;
        let ty = self.cx.ir_value_type(&e.ty, e.span)?;
        if let Type::Matrix(s, rows, _) = a.ty {
            // Lanes of a matrix count column-major: lane l is column l / R, row l % R.
            let lane_ty = self.cx.value_type(s, e.span)?;
            let mut picked = Vec::new();
            for &l in lanes {
                let (c, r) = (u32::from(l / rows), u32::from(l % rows));
                picked.push(self.op_with(
                    Op::CompositeExtract,
                    lane_ty,
                    vec![
                        Operand::IdRef(v),
                        Operand::LiteralBit32(c),
                        Operand::LiteralBit32(r),
                    ],
                )?);
            }
            if let [one] = picked.as_slice() {
                return Ok(*one);
            }
            let ids = picked.into_iter().map(Operand::IdRef).collect();
            return self.op_with(Op::CompositeConstruct, ty, ids);
        }
        if let [lane] = lanes {
            return self.extract(ty, v, u32::from(*lane));
        }
        let mut operands = vec![Operand::IdRef(v), Operand::IdRef(v)];
        operands.extend(lanes.iter().map(|&l| Operand::LiteralBit32(u32::from(l))));
        self.op_with(Op::VectorShuffle, ty, operands)
    }

    /// `buf[i].x`: one scalar load through an access chain to the lane rather than a load of
    /// the whole element.
    fn buffer_lane_load(&mut self, base: &Expr, index: &Expr, lane: u8, e: &Expr) -> Res<Word> {
        let (elem_ptr, elem, _) = self.buffer_element(base, index)?;
        let guard = self.take_guard();
        let stored = self.cx.storage_type(elem, e.span)?;
        let class = self.buffer_class(base);
        let ptr_ty = self.cx.pointer_type(class, stored);
        let l = self.cx.const_u32(u32::from(lane));
        let ptr = self.op(Op::AccessChain, ptr_ty, &[elem_ptr, l])?;
        let v = self.guarded(guard, Some(stored), |s| s.op(Op::Load, stored, &[ptr]))?;
        self.stored_value(v, elem, stored, 1)
    }

    /// Reads lane `lane` of the vector in `base`.
    pub(crate) fn load_lane(&mut self, base: &Place, lane: u8, e: &Expr) -> Res<Word> {
        let whole = Expr {
            kind: crate::ir::ExprKind::Load(base.clone()),
            ty: vector_of(&e.ty, base_lanes(self, base)),
            span: e.span,
        };
        let v = self.expr(&whole)?;
        let ty = self.cx.ir_value_type(&e.ty, e.span)?;
        self.extract(ty, v, u32::from(lane))
    }

    /// `base.lane = value`, through an access chain to the lane (never a read-modify-write
    /// of the whole vector, so threads writing different lanes of one buffer element do not
    /// overwrite each other).
    pub(crate) fn store_lane(
        &mut self,
        base: &Place,
        lane: u8,
        value: &Expr,
        span: crate::diagnostics::Span,
    ) -> Res<()> {
        let s = value
            .ty
            .as_scalar()
            .ok_or_else(|| unsupported(span, format!("a lane store of `{}`", value.ty)))?;
        let index = self.cx.const_u32(u32::from(lane));
        match base {
            Place::Local(l) => {
                let Some(Slot::Var(var)) = self.slots.get(l.0).copied() else {
                    return Err(unsupported(
                        span,
                        "internal error: lane store to a read-only local",
                    ));
                };
                let lane_ty = self.cx.value_type(s, span)?;
                let ptr_ty = self.cx.pointer_type(StorageClass::Function, lane_ty);
                let ptr = self.op(Op::AccessChain, ptr_ty, &[var, index])?;
                let v = self.expr(value)?;
                self.cx.b.store(ptr, v, None, []).ice(span)
            }
            Place::Index { base, index: i } => {
                let (elem_ptr, elem, _) = self.buffer_element(base, i)?;
                let guard = self.take_guard();
                let stored = self.cx.storage_type(elem, span)?;
                let mut v = self.expr(value)?;
                if matches!(elem, ScalarType::Bool | ScalarType::BF16) {
                    v = self.write_stored(v, elem, stored, 1)?;
                }
                let class = self.buffer_class(base);
                let ptr_ty = self.cx.pointer_type(class, stored);
                let ptr = self.op(Op::AccessChain, ptr_ty, &[elem_ptr, index])?;
                let store = |s: &mut Self| s.cx.b.store(ptr, v, None, []).ice(span).map(|_| 0);
                self.guarded(guard, None, store).map(drop)
            }
            Place::Lane { .. } => Err(unsupported(span, "a lane of a lane")),
            Place::Field { .. } => {
                // A lane of a vector field of a POD buffer element (`buf[i].pos.x = …`).
                let Some((field_ptr, ty, class)) = self.pod_element_pointer(base, span)? else {
                    return Err(unsupported(
                        span,
                        "POD parameters are read-only in device code",
                    ));
                };
                let elem = ty
                    .elem_scalar()
                    .ok_or_else(|| unsupported(span, format!("a lane of `{ty}`")))?;
                let guard = self.take_guard();
                let stored = self.cx.storage_type(elem, span)?;
                let mut v = self.expr(value)?;
                v = self.value_to_store(v, elem, stored, 1)?;
                let ptr_ty = self.cx.pointer_type(class, stored);
                let ptr = self.op(Op::AccessChain, ptr_ty, &[field_ptr, index])?;
                let store = |s: &mut Self| s.cx.b.store(ptr, v, None, []).ice(span).map(|_| 0);
                self.guarded(guard, None, store).map(drop)
            }
        }
    }
}

impl FnCx<'_, '_> {
    /// The first element `n*i` of a `vload`/`vstore` of `n` elements at vector index `index`,
    /// with its integer type (`uint32`; `uint64` for a checked addressed buffer) and, in
    /// checked mode, the guard that elements `n*i .. n*i+n-1` are all in bounds (site kind
    /// `kind`, the first element 0 when they are not).
    fn vector_base(
        &mut self,
        buf: &Expr,
        index: &Expr,
        n: u8,
        (kind, span): (&'static str, crate::diagnostics::Span),
    ) -> Res<(Word, ScalarType, Option<super::bounds::Guard>)> {
        let (var, rk) = self.resource_of(buf)?;
        let super::module::ResourceKind::Buffer { address, .. } = rk else {
            return Err(unsupported(buf.span, "vload/vstore need a buffer"));
        };
        let mut i = self.expr(index)?;
        let uint = self.cx.u32_type();
        let (mut ty, mut int) = (ScalarType::U32, uint);
        if self.checked() {
            let index_ty = super::bounds::index_type(index)?;
            let name = self.resource_name(buf);
            let site = (name.as_str(), kind, &[u32::from(n)][..]);
            i = match address {
                Some(a) => {
                    let len = self.address_length(a)?;
                    (ty, int) = (ScalarType::U64, self.cx.int_type(64, false));
                    self.check_index_wide_per(i, index_ty, len, site, u32::from(n), span)?
                }
                None => {
                    let len = self.hoisted_array_length(var)?;
                    self.check_index_per(i, index_ty, len, site, u32::from(n), span)?
                }
            };
        }
        let guard = self.take_guard();
        // Unchecked: wrapping uint32 arithmetic, like any buffer index computed in the kernel.
        let lanes = self.cx.const_int(ty, i128::from(n), span)?;
        let base = self.op(Op::IMul, int, &[i, lanes])?;
        Ok((base, ty, guard))
    }

    /// Pointers to elements `base .. base+n-1` (`base` of integer type `ty`) of a scalar
    /// buffer, with the lane type and its stored SPIR-V type.
    fn vector_pointers(
        &mut self,
        buf: &Expr,
        (base, ty): (Word, ScalarType),
        n: u8,
    ) -> Res<(Vec<Word>, ScalarType, Word)> {
        let (var, kind) = self.resource_of(buf)?;
        let super::module::ResourceKind::Buffer { elem, storage, .. } = kind else {
            return Err(unsupported(buf.span, "vload/vstore need a buffer"));
        };
        let int = self.cx.value_type(ty, buf.span)?;
        let mut ptrs = Vec::new();
        for k in 0..u32::from(n) {
            let at = if k == 0 {
                base
            } else {
                let offset = self.cx.const_int(ty, i128::from(k), buf.span)?;
                self.op(Op::IAdd, int, &[base, offset])?
            };
            ptrs.push(self.buffer_element_pointer(var, kind, at, ty)?);
        }
        Ok((ptrs, elem, storage))
    }

    /// `buf.vload<N>(i)`: N scalar loads composed into a vector (checked: a zero vector when
    /// any of the N elements is out of bounds; the pointers are formed only in bounds).
    pub(crate) fn buffer_vload(&mut self, args: &[Expr], e: &Expr) -> Res<Word> {
        let ([buf, index], Type::Vector(_, n)) = (args, &e.ty) else {
            return Err(unsupported(e.span, "malformed vload"));
        };
        let (base, ty, guard) = self.vector_base(buf, index, *n, ("vload", e.span))?;
        let vec_ty = self.cx.ir_value_type(&e.ty, e.span)?;
        self.guarded(guard, Some(vec_ty), |s| {
            let (ptrs, elem, storage) = s.vector_pointers(buf, (base, ty), *n)?;
            let mut lanes = Vec::new();
            for p in ptrs {
                let v = s.op(Op::Load, storage, &[p])?;
                lanes.push(Operand::IdRef(s.read_stored(v, elem, 1)?));
            }
            s.op_with(Op::CompositeConstruct, vec_ty, lanes)
        })
    }

    /// `buf.vstore(i, v)`: the lanes of `v` stored one by one (checked: none when any of the
    /// elements is out of bounds).
    pub(crate) fn buffer_vstore(&mut self, args: &[Expr], e: &Expr) -> Res<Word> {
        let [buf, index, value] = args else {
            return Err(unsupported(e.span, "malformed vstore"));
        };
        let Type::Vector(s, n) = value.ty else {
            return Err(unsupported(e.span, "vstore of a non-vector"));
        };
        let (base, ty, guard) = self.vector_base(buf, index, n, ("vstore", e.span))?;
        let v = self.expr(value)?;
        let lane_ty = self.cx.value_type(s, e.span)?;
        self.guarded(guard, None, |this| {
            let (ptrs, elem, storage) = this.vector_pointers(buf, (base, ty), n)?;
            for (k, p) in ptrs.into_iter().enumerate() {
                let lane = this.extract(lane_ty, v, k as u32)?;
                let stored = this.write_stored(lane, elem, storage, 1)?;
                this.cx.b.store(p, stored, None, []).ice(e.span)?;
            }
            Ok(0)
        })?;
        // A void intrinsic has no result id.
        Ok(0)
    }
}

/// The number of lanes of the vector a place holds.
fn base_lanes(f: &FnCx, place: &Place) -> u8 {
    match place {
        Place::Local(l) => f.func.local(*l).ty.lanes() as u8,
        Place::Index { base, .. } => match &base.ty {
            Type::Buffer(elem) => elem.lanes() as u8,
            _ => 0,
        },
        Place::Lane { .. } => 1,
        Place::Field { base, field } => match place_struct(f, base) {
            Some(Type::Struct(d)) => d.fields.get(*field).map_or(0, |(_, t)| t.lanes() as u8),
            _ => 0,
        },
    }
}

/// The type of the POD value a place holds: a POD local or parameter, an element of a
/// buffer of PODs (`buf[i]`).
fn place_struct(f: &FnCx, place: &Place) -> Option<Type> {
    match place {
        Place::Local(l) => Some(f.func.local(*l).ty.clone()),
        Place::Index { base, .. } => match &base.ty {
            Type::Buffer(elem) => Some((**elem).clone()),
            _ => None,
        },
        Place::Field { .. } | Place::Lane { .. } => None,
    }
}

/// The vector type with `lanes` lanes of the scalar type `lane`.
fn vector_of(lane: &Type, lanes: u8) -> Type {
    match lane {
        Type::Scalar(s) => Type::Vector(*s, lanes),
        other => other.clone(),
    }
}
