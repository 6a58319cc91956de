//! Vectors and matrices in host code: construction, splats, swizzles and lane places.
//! A vector value is its lanes ([`Value::Vector`]); a matrix is its lanes column-major.

use std::rc::Rc;

use super::eval::{err, internal, load_element, local_mut, store_element, Fail, Frame, Interp};
use super::value::{Scalar, Value};
use crate::diagnostics::Span;
use crate::ir::{Expr, Place};

/// The array and index expressions of the element at the root of a field or lane place
/// (`ps[i].pos.y`), if its root is an array element.
fn element_root(place: &Place) -> Option<(&Expr, &Expr)> {
    match place {
        Place::Index { base, index } => Some((base, index)),
        Place::Field { base, .. } | Place::Lane { base, .. } => element_root(base),
        Place::Local(_) => None,
    }
}

/// The value at `place` inside `root`, the value of the place's root (a local or element).
fn value_in(root: &Value, place: &Place, span: Span) -> Result<Value, Fail> {
    match place {
        Place::Local(_) | Place::Index { .. } => Ok(root.clone()),
        Place::Field { base, field } => {
            match fields_of(&value_in(root, base, span)?, span)?.get(*field) {
                Some(v) => Ok(v.clone()),
                None => internal(span, format!("field #{field}")),
            }
        }
        Place::Lane { base, lane } => {
            match lanes_of(&value_in(root, base, span)?, span)?.get(usize::from(*lane)) {
                Some(s) => Ok(Value::Scalar(*s)),
                None => internal(span, format!("lane {lane}")),
            }
        }
    }
}

/// `root` with the value at `place` inside it replaced by `v` (values are immutable: each
/// POD or vector on the way is rebuilt).
fn replaced_in(root: Value, place: &Place, v: Value, span: Span) -> Result<Value, Fail> {
    match place {
        Place::Local(_) | Place::Index { .. } => Ok(v),
        Place::Field { base, field } => {
            let mut fields = fields_of(&value_in(&root, base, span)?, span)?.to_vec();
            match fields.get_mut(*field) {
                Some(slot) => *slot = v,
                None => return internal(span, format!("field #{field}")),
            }
            replaced_in(root, base, Value::Struct(fields.into()), span)
        }
        Place::Lane { base, lane } => {
            let Value::Scalar(s) = v else {
                return internal(span, format!("lane value {v:?}"));
            };
            let mut lanes = lanes_of(&value_in(&root, base, span)?, span)?.to_vec();
            match lanes.get_mut(usize::from(*lane)) {
                Some(l) => *l = s,
                None => return internal(span, format!("lane {lane}")),
            }
            replaced_in(root, base, Value::Vector(lanes.into()), span)
        }
    }
}

/// The fields of a POD value.
fn fields_of(v: &Value, span: Span) -> Result<Rc<[Value]>, Fail> {
    match v {
        Value::Struct(fields) => Ok(fields.clone()),
        Value::Void => err(span, "use of an unassigned POD value"),
        other => internal(span, format!("expected a POD value, found {other:?}")),
    }
}

/// The lanes of a vector or matrix value.
pub(super) fn lanes_of(v: &Value, span: Span) -> Result<Rc<[Scalar]>, Fail> {
    match v {
        Value::Vector(l) => Ok(l.clone()),
        Value::Void => err(span, "use of an unassigned vector"),
        other => internal(span, format!("expected a vector, found {other:?}")),
    }
}

impl Interp<'_> {
    /// Evaluates a vector- or matrix-typed expression to its lanes.
    pub(super) fn eval_lanes(&mut self, f: &mut Frame, e: &Expr) -> Result<Rc<[Scalar]>, Fail> {
        let v = self.eval(f, e)?;
        lanes_of(&v, e.span)
    }

    /// The value held in a place of host code: a local, a field of the POD value a place
    /// holds, or a lane of the vector a place holds (`p.offset.y`).
    fn place_value(f: &Frame, place: &Place, span: Span) -> Result<Value, Fail> {
        match place {
            Place::Local(id) => match f.get(id.0) {
                Some(v) => Ok(v.clone()),
                None => internal(span, format!("unknown local #{}", id.0)),
            },
            Place::Field { base, field } => Self::field_value(f, base, *field, span),
            Place::Lane { base, lane } => Self::lane_value(f, base, *lane, span),
            Place::Index { .. } => internal(span, "an element place of a POD or vector"),
        }
    }

    /// Field `field` of the POD value held in `base`.
    fn field_value(f: &Frame, base: &Place, field: usize, span: Span) -> Result<Value, Fail> {
        match fields_of(&Self::place_value(f, base, span)?, span)?.get(field) {
            Some(v) => Ok(v.clone()),
            None => internal(span, format!("field #{field}")),
        }
    }

    /// Lane `lane` of the vector held in `base`.
    fn lane_value(f: &Frame, base: &Place, lane: u8, span: Span) -> Result<Value, Fail> {
        match lanes_of(&Self::place_value(f, base, span)?, span)?.get(usize::from(lane)) {
            Some(s) => Ok(Value::Scalar(*s)),
            None => internal(span, format!("lane {lane}")),
        }
    }

    /// Stores `v` into a place of host code; a field or lane replaces the POD or vector
    /// value that holds it (values are immutable).
    fn set_place(f: &mut Frame, place: &Place, v: Value, span: Span) -> Result<(), Fail> {
        match place {
            Place::Local(id) => {
                *local_mut(f, *id, span)? = v;
                Ok(())
            }
            Place::Field { base, field } => Self::set_field(f, base, *field, v, span),
            Place::Lane { base, lane } => Self::set_lane(f, base, *lane, v, span),
            Place::Index { .. } => internal(span, "an element place of a POD or vector"),
        }
    }

    /// Replaces field `field` of the POD value held in `base`.
    fn set_field(
        f: &mut Frame,
        base: &Place,
        field: usize,
        v: Value,
        span: Span,
    ) -> Result<(), Fail> {
        let mut fields = fields_of(&Self::place_value(f, base, span)?, span)?.to_vec();
        match fields.get_mut(field) {
            Some(slot) => *slot = v,
            None => return internal(span, format!("field #{field}")),
        }
        Self::set_place(f, base, Value::Struct(fields.into()), span)
    }

    /// Replaces lane `lane` of the vector held in `base`.
    fn set_lane(f: &mut Frame, base: &Place, lane: u8, v: Value, span: Span) -> Result<(), Fail> {
        let Value::Scalar(s) = v else {
            return internal(span, format!("lane value {v:?}"));
        };
        let mut lanes = lanes_of(&Self::place_value(f, base, span)?, span)?.to_vec();
        match lanes.get_mut(usize::from(lane)) {
            Some(l) => *l = s,
            None => return internal(span, format!("lane {lane}")),
        }
        Self::set_place(f, base, Value::Vector(lanes.into()), span)
    }

    /// `p.field`.
    pub(super) fn load_field(
        &mut self,
        f: &mut Frame,
        base: &Place,
        field: usize,
        e: &Expr,
    ) -> Result<Value, Fail> {
        if let Some((array, index)) = element_root(base) {
            let a = self.eval(f, array)?;
            let i = self.eval_scalar(f, index)?;
            let element = load_element(&a, i, e.span)?;
            let whole = value_in(&element, base, e.span)?;
            return match fields_of(&whole, e.span)?.get(field) {
                Some(v) => Ok(v.clone()),
                None => internal(e.span, format!("field #{field}")),
            };
        }
        Self::field_value(f, base, field, e.span)
    }

    /// `p.field = value`: replaces one field of the POD value held in `base`.
    pub(super) fn store_field(
        &mut self,
        f: &mut Frame,
        base: &Place,
        field: usize,
        value: &Expr,
        span: Span,
    ) -> Result<(), Fail> {
        if let Some((array, index)) = element_root(base) {
            return self.store_in_element(f, (array, index), base, value, span, |inner, v| {
                let mut fields = fields_of(&inner, span)?.to_vec();
                match fields.get_mut(field) {
                    Some(slot) => *slot = v,
                    None => return internal(span, format!("field #{field}")),
                }
                Ok(Value::Struct(fields.into()))
            });
        }
        let v = self.eval(f, value)?;
        Self::set_field(f, base, field, v, span)
    }

    /// A store of `value` into a field or lane of the POD or vector at `base` inside an array
    /// element (`ps[i].pos.y = v`), in Java's order: the array, the index, the value; then
    /// the element is read (range check), `change(value at base, value)` replaces the
    /// field or lane, and the element is written back.
    fn store_in_element(
        &mut self,
        f: &mut Frame,
        (array, index): (&Expr, &Expr),
        base: &Place,
        value: &Expr,
        span: Span,
        change: impl FnOnce(Value, Value) -> Result<Value, Fail>,
    ) -> Result<(), Fail> {
        let a = self.eval(f, array)?;
        let i = self.eval_scalar(f, index)?;
        let v = self.eval(f, value)?;
        let element = load_element(&a, i, span)?;
        let inner = change(value_in(&element, base, span)?, v)?;
        let element = replaced_in(element, base, inner, span)?;
        store_element(&a, i, element, span)
    }

    /// A vector or matrix from scalar and vector parts, in order; a POD value from its
    /// fields.
    pub(super) fn eval_construct(
        &mut self,
        f: &mut Frame,
        parts: &[Expr],
        e: &Expr,
    ) -> Result<Value, Fail> {
        if let crate::ir::Type::Struct(_) = e.ty {
            let fields = self.eval_all(f, parts)?;
            return Ok(Value::Struct(fields.into()));
        }
        let mut lanes = Vec::with_capacity(e.ty.lanes());
        for p in parts {
            match self.eval(f, p)? {
                Value::Scalar(s) => lanes.push(s),
                Value::Vector(l) => lanes.extend(l.iter().copied()),
                other => return internal(p.span, format!("vector part {other:?}")),
            }
        }
        if lanes.len() != e.ty.lanes() {
            return internal(e.span, format!("{} lanes for {}", lanes.len(), e.ty));
        }
        Ok(Value::Vector(lanes.into()))
    }

    /// A scalar repeated in every lane.
    pub(super) fn eval_splat(&mut self, f: &mut Frame, a: &Expr, e: &Expr) -> Result<Value, Fail> {
        let s = self.eval_scalar(f, a)?;
        Ok(Value::Vector(vec![s; e.ty.lanes()].into()))
    }

    /// Lanes of a vector by index: one gives a scalar, several a vector.
    pub(super) fn eval_swizzle(
        &mut self,
        f: &mut Frame,
        a: &Expr,
        picks: &[u8],
        e: &Expr,
    ) -> Result<Value, Fail> {
        let lanes = self.eval_lanes(f, a)?;
        let mut out = Vec::with_capacity(picks.len());
        for &p in picks {
            match lanes.get(usize::from(p)) {
                Some(s) => out.push(*s),
                None => return internal(e.span, format!("lane {p} of {}", a.ty)),
            }
        }
        Ok(match out.as_slice() {
            [one] => Value::Scalar(*one),
            _ => Value::Vector(out.into()),
        })
    }

    /// Reads lane `lane` of the vector held in `base` (a local or a POD field: host code
    /// has no buffers of vectors to index).
    pub(super) fn load_lane(
        &mut self,
        f: &mut Frame,
        base: &Place,
        lane: u8,
        e: &Expr,
    ) -> Result<Value, Fail> {
        if let Some((array, index)) = element_root(base) {
            let a = self.eval(f, array)?;
            let i = self.eval_scalar(f, index)?;
            let element = load_element(&a, i, e.span)?;
            let whole = value_in(&element, base, e.span)?;
            return match lanes_of(&whole, e.span)?.get(usize::from(lane)) {
                Some(s) => Ok(Value::Scalar(*s)),
                None => internal(e.span, format!("lane {lane}")),
            };
        }
        Self::lane_value(f, base, lane, e.span)
    }

    /// `base.lane = value`: replaces one lane of the vector held in `base`.
    pub(super) fn store_lane(
        &mut self,
        f: &mut Frame,
        base: &Place,
        lane: u8,
        value: &Expr,
        span: Span,
    ) -> Result<(), Fail> {
        if let Some((array, index)) = element_root(base) {
            return self.store_in_element(f, (array, index), base, value, span, |inner, v| {
                let Value::Scalar(s) = v else {
                    return internal(span, format!("lane value {v:?}"));
                };
                let mut lanes = lanes_of(&inner, span)?.to_vec();
                match lanes.get_mut(usize::from(lane)) {
                    Some(l) => *l = s,
                    None => return internal(span, format!("lane {lane}")),
                }
                Ok(Value::Vector(lanes.into()))
            });
        }
        let v = Value::Scalar(self.eval_scalar(f, value)?);
        Self::set_lane(f, base, lane, v, span)
    }
}
