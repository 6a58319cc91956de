//! Vectors and matrices in host code: construction, splats, swizzles and lane places.
//! A vector value is its lanes ([`Value::Vector`]); a matrix is its lanes column-major.

use std::rc::Rc;

use super::eval::{err, internal, local_mut, Fail, Frame, Interp};
use super::value::{Scalar, Value};
use crate::diagnostics::Span;
use crate::ir::{Expr, Place};

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
        let place = Place::Field {
            base: Box::new(base.clone()),
            field,
        };
        self.at_element(f, &place, None, e.span)
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
        let place = Place::Field {
            base: Box::new(base.clone()),
            field,
        };
        self.at_element(f, &place, Some(value), span).map(drop)
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
        let place = Place::Lane {
            base: Box::new(base.clone()),
            lane,
        };
        self.at_element(f, &place, None, e.span)
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
        let place = Place::Lane {
            base: Box::new(base.clone()),
            lane,
        };
        self.at_element(f, &place, Some(value), span).map(drop)
    }

    /// Reads the field or lane place `place`, or stores `value` into it. When the place is
    /// part of a host array's element (`a[i].pos.x` of a POD array) the array and index are
    /// evaluated first (then the value, as Java orders it), the field or lane is read from
    /// or replaced in a copy of the element, and a changed element is written back. The
    /// frame is left alone: native code holds the addresses of its slots.
    fn at_element(
        &mut self,
        f: &mut Frame,
        place: &Place,
        value: Option<&Expr>,
        span: Span,
    ) -> Result<Value, Fail> {
        let Some((array, index, within)) = element_root(place) else {
            return match value {
                Some(value) => {
                    let v = self.eval(f, value)?;
                    Self::set_place(f, place, v, span).map(|()| Value::Void)
                }
                None => Self::place_value(f, place, span),
            };
        };
        let a = self.eval(f, array)?;
        let i = self.eval_scalar(f, index)?;
        let v = value.map(|e| self.eval(f, e)).transpose()?;
        let elem = super::eval::load_element(&a, i, span)?;
        match v {
            Some(v) => {
                let elem = replace_in(elem, &within, v, span)?;
                super::eval::store_element(&a, i, elem, span)?;
                Ok(Value::Void)
            }
            None => value_in(&elem, &within, span),
        }
    }
}

/// The part of `root` that `path` names (a field or lane path; its `Local` root stands for
/// `root` itself).
fn value_in(root: &Value, path: &Place, span: Span) -> Result<Value, Fail> {
    match path {
        Place::Local(_) => Ok(root.clone()),
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
        Place::Index { .. } => internal(span, "an element place inside an element"),
    }
}

/// `root` with the part `path` names replaced by `v` (values are immutable: each level is
/// rebuilt).
fn replace_in(root: Value, path: &Place, v: Value, span: Span) -> Result<Value, Fail> {
    match path {
        Place::Local(_) => Ok(v),
        Place::Field { base, field } => {
            let mut fields = fields_of(&value_in(&root, base, span)?, span)?.to_vec();
            match fields.get_mut(*field) {
                Some(slot) => *slot = v,
                None => return internal(span, format!("field #{field}")),
            }
            replace_in(root, base, Value::Struct(fields.into()), span)
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
            replace_in(root, base, Value::Vector(lanes.into()), span)
        }
        Place::Index { .. } => internal(span, "an element place inside an element"),
    }
}

/// For a field or lane place rooted at an array element (`a[i].f…`): the array and index
/// expressions, and the field and lane path within the element (rooted at a placeholder
/// `Local`).
fn element_root(place: &Place) -> Option<(&Expr, &Expr, Place)> {
    match place {
        Place::Index { base, index } => Some((base, index, Place::Local(crate::ir::LocalId(0)))),
        Place::Field { base, field } => {
            let (a, i, inner) = element_root(base)?;
            Some((
                a,
                i,
                Place::Field {
                    base: Box::new(inner),
                    field: *field,
                },
            ))
        }
        Place::Lane { base, lane } => {
            let (a, i, inner) = element_root(base)?;
            Some((
                a,
                i,
                Place::Lane {
                    base: Box::new(inner),
                    lane: *lane,
                },
            ))
        }
        Place::Local(_) => None,
    }
}
