//! Vectors and matrices in host code: construction, splats, swizzles and lane places.
//! A vector value is its lanes ([`Value::Vector`]); a matrix is its lanes column-major.

use std::rc::Rc;

use super::eval::{err, internal, load_local, local_mut, Fail, Frame, Interp};
use super::value::{Scalar, Value};
use crate::diagnostics::Span;
use crate::ir::{Expr, Place};

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

    /// The POD value held in a local (host code keeps PODs in locals only).
    fn pod_local(f: &Frame, base: &Place, e: &Expr) -> Result<Rc<[Value]>, Fail> {
        let Place::Local(id) = base else {
            return internal(e.span, "a field of a non-local in host code");
        };
        match load_local(f, *id, e)? {
            Value::Struct(fields) => Ok(fields),
            Value::Void => err(e.span, "use of an unassigned POD value"),
            other => internal(e.span, format!("expected a POD value, found {other:?}")),
        }
    }

    /// `p.field`.
    pub(super) fn load_field(
        &mut self,
        f: &mut Frame,
        base: &Place,
        field: usize,
        e: &Expr,
    ) -> Result<Value, Fail> {
        let fields = Self::pod_local(f, base, e)?;
        match fields.get(field) {
            Some(v) => Ok(v.clone()),
            None => internal(e.span, format!("field #{field}")),
        }
    }

    /// `p.field = value`: replaces one field of the POD value held in a local.
    pub(super) fn store_field(
        &mut self,
        f: &mut Frame,
        base: &Place,
        field: usize,
        value: &Expr,
        span: Span,
    ) -> Result<(), Fail> {
        let v = self.eval(f, value)?;
        let mut fields = Self::pod_local(f, base, value)?.to_vec();
        match fields.get_mut(field) {
            Some(slot) => *slot = v,
            None => return internal(span, format!("field #{field}")),
        }
        let Place::Local(id) = base else {
            return internal(span, "a field of a non-local in host code");
        };
        *local_mut(f, *id, span)? = Value::Struct(fields.into());
        Ok(())
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

    /// Reads lane `lane` of the vector held in `base` (a local: host code has no buffers of
    /// vectors to index).
    pub(super) fn load_lane(
        &mut self,
        f: &mut Frame,
        base: &Place,
        lane: u8,
        e: &Expr,
    ) -> Result<Value, Fail> {
        let Place::Local(id) = base else {
            return internal(e.span, "a lane of a non-local in host code");
        };
        let lanes = lanes_of(&load_local(f, *id, e)?, e.span)?;
        match lanes.get(usize::from(lane)) {
            Some(s) => Ok(Value::Scalar(*s)),
            None => internal(e.span, format!("lane {lane}")),
        }
    }

    /// `base.lane = value`: replaces one lane of the vector held in a local.
    pub(super) fn store_lane(
        &mut self,
        f: &mut Frame,
        base: &Place,
        lane: u8,
        value: &Expr,
        span: Span,
    ) -> Result<(), Fail> {
        let Place::Local(id) = base else {
            return internal(span, "a lane of a non-local in host code");
        };
        let v = self.eval_scalar(f, value)?;
        let slot = local_mut(f, *id, span)?;
        let mut lanes = lanes_of(slot, span)?.to_vec();
        match lanes.get_mut(usize::from(lane)) {
            Some(l) => *l = v,
            None => return internal(span, format!("lane {lane}")),
        }
        *slot = Value::Vector(lanes.into());
        Ok(())
    }
}
