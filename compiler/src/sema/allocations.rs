//! Host allocations: `heap`/`stack` objects (buffers, images, PODs, vectors), arrays and
//! array literals, which device code may not make.

use super::body::{FnCtx, R};
use super::expr::convert;
use super::type_names::resolve_type;
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, ExprKind, HostOp, Intrinsic, ScalarType, Type};
use crate::syntax::ast;

impl<'s, 'a> FnCtx<'s, 'a> {
    fn host_only<T>(&mut self, span: Span, what: &str) -> R<T> {
        self.error(
            Diagnostic::error(
                Code::HostOnlyInDevice,
                span,
                format!("{what} in device code"),
            )
            .with_note("kernels may not allocate (SPEC §5)"),
        )
    }

    /// A size or count argument: any integer, widened to int64 for the host.
    fn size_arg(&mut self, e: &ast::Expr) -> R<ir::Expr> {
        let v = self.expr(e, Some(&Type::Scalar(ScalarType::I64)))?;
        match v.ty {
            Type::Scalar(s) if s.is_integer() => Ok(convert(v, ScalarType::I64)),
            ref t => {
                let t = t.clone();
                self.error(Diagnostic::error(
                    Code::TypeMismatch,
                    e.span,
                    format!("a size must be an integer, found {t}"),
                ))
            }
        }
    }

    /// `heap KernelBuffer<T>(n)`, `heap Image2D(w, h)`.
    pub fn new_object(&mut self, ty: &ast::TypeExpr, args: &[ast::Arg], span: Span) -> R<ir::Expr> {
        let t = match resolve_type(ty, &self.syms.pods) {
            Ok(t) => t,
            Err(d) => return self.error(d),
        };
        if let Type::Struct(_) = t {
            return self.construct_pod(t, args, span);
        }
        if let Type::Presentation(kind) = t {
            return self.error(super::presentation::refused(kind, ty.span, "construct a"));
        }
        // Vectors and matrices are values: `stack`/`heap` only construct them, in kernels too.
        if let Type::Vector(..) | Type::Matrix(..) | Type::Quaternion(_) = t {
            return self.construct(t, args, span);
        }
        if let Type::Bytes16(_) = t {
            return self.construct_bytes16(t, args, span);
        }
        if let Type::Wide(..) = t {
            return self.construct_wide(t, args, span);
        }
        // Cajeta's `RayQuery q = stack RayQuery();`: `RayQuery.create()`.
        if t == Type::RayQuery && args.is_empty() && self.is_device() {
            return Ok(ir::Expr {
                kind: ExprKind::Intrinsic {
                    op: Intrinsic::RayQuery(ir::RayQueryOp::Create),
                    args: Vec::new(),
                },
                ty: Type::RayQuery,
                span,
            });
        }
        if self.is_device() {
            return self.host_only(span, "allocation");
        }
        let args = self.positional(args)?;
        if let Type::Image2D(_) | Type::Texture(..) | Type::Sampler = t {
            return self.new_resource(t, ty.span, &args, span, |c, a| c.size_arg(a));
        }
        // Cajeta's `heap AccelerationStructure(boxes, count)` and `(vertices, triangleCount,
        // vertexStride)`: the factories that take those.
        if t == Type::AccelStruct && matches!(args.len(), 2 | 3) {
            let method = if args.len() == 2 {
                "fromAabbs"
            } else {
                "fromTriangles"
            };
            let values = args.iter().map(|a| (*a).clone()).collect();
            let call =
                super::range_loop::static_call("AccelerationStructure", method, values, span);
            return self.expr(&call, None);
        }
        if !matches!(t, Type::Buffer(_)) {
            return self.error(Diagnostic::error(
                Code::TypeMismatch,
                ty.span,
                format!("`{t}` cannot be allocated with `heap T(…)`"),
            ));
        }
        // `heap KernelBuffer<T>(n)`, or the legacy `heap Buffer<T>(device, n)` (whichever
        // name is written: they are one type).
        let op = match args.len() {
            1 => HostOp::NewBuffer,
            2 => HostOp::NewLegacyBuffer,
            found => {
                return self.error(
                    Diagnostic::error(
                        Code::ArgumentCount,
                        span,
                        format!("`heap {t}(…)` takes 1 argument (n), or 2 in the legacy form (device, n); found {found}"),
                    )
                    .with_note("`heap KernelBuffer<T>(n)` makes a buffer of n elements; the legacy `heap Buffer<T>(0, n)` makes one without memory until `allocate()`"),
                )
            }
        };
        let mut values = Vec::new();
        for a in &args {
            values.push(self.size_arg(a)?);
        }
        if op == HostOp::NewLegacyBuffer {
            self.legacy_device(&values[0])?;
        }
        Ok(ir::Expr {
            kind: ExprKind::Host { op, args: values },
            ty: t,
            span,
        })
    }

    /// The device of the legacy `heap Buffer<T>(device, n)`: host code runs on one device,
    /// index 0, so a constant other than 0 is refused here (any other value at run time).
    fn legacy_device(&mut self, device: &ir::Expr) -> R<()> {
        match super::memory::const_int(device) {
            Some(d) if d != 0 => self.error(
                Diagnostic::error(
                    Code::UnsupportedFeature,
                    device.span,
                    format!("there is no device {d}: buffers live on device 0"),
                )
                .with_label("the device index")
                .with_note("the first argument of `heap Buffer<T>(device, n)` is the device index; host code runs on one device, index 0 (the one `CAJETA_DEVICE` picks)")
                .with_note("help: write `heap Buffer<T>(0, n)`, or `heap KernelBuffer<T>(n)`, which needs no `allocate()`"),
            ),
            _ => Ok(()),
        }
    }

    /// `heap T[n]`.
    pub fn new_array(&mut self, elem: &ast::TypeExpr, len: &ast::Expr, span: Span) -> R<ir::Expr> {
        if self.is_device() {
            return self.host_only(span, "allocation");
        }
        let t = match resolve_type(elem, &self.syms.pods) {
            // A buffer or string array starts with every element null, like Java's
            // `new T[n]`; an array of vectors, matrices or PODs with every element zero (they
            // are values).
            Ok(t) if is_host_array_element(&t) => t,
            Ok(other) => {
                return self.error(Diagnostic::error(
                    Code::UnsupportedFeature,
                    elem.span,
                    format!("arrays of `{other}` are not supported"),
                ))
            }
            Err(d) => return self.error(d),
        };
        let n = self.size_arg(len)?;
        Ok(ir::Expr {
            kind: ExprKind::Host {
                op: HostOp::NewArray,
                args: vec![n],
            },
            ty: Type::Array(Box::new(t)),
            span,
        })
    }

    /// `[a, b, c]` (host arrays).
    pub fn array_literal(
        &mut self,
        items: &[ast::Expr],
        hint: Option<&Type>,
        span: Span,
    ) -> R<ir::Expr> {
        if self.is_device() {
            return self.host_only(span, "an array literal");
        }
        let elem_hint = match hint {
            Some(Type::Array(t)) => Some((**t).clone()),
            _ => None,
        };
        let mut values = Vec::new();
        let mut elem = elem_hint.clone();
        for i in items {
            let v = self.expr(i, elem.as_ref())?;
            let v = match &elem {
                Some(t) => self.coerce(v, t, i.span)?,
                None => {
                    elem = Some(v.ty.clone());
                    v
                }
            };
            values.push(v);
        }
        let Some(elem) = elem.filter(is_host_array_element) else {
            return self.error(
                Diagnostic::error(
                    Code::TypeMismatch,
                    span,
                    "cannot tell the element type of this array literal",
                )
                .with_note("help: declare the variable's type, e.g. `float32[] a = [...]`"),
            );
        };
        Ok(ir::Expr {
            kind: ExprKind::Host {
                op: HostOp::ArrayLiteral,
                args: values,
            },
            ty: Type::Array(Box::new(elem)),
            span,
        })
    }
}

/// Whether a host array may hold elements of type `t` (`heap T[n]`, `[a, b]`, `T[]`):
/// scalars, strings, buffers, vectors, matrices, quaternions and PODs.
pub(super) fn is_host_array_element(t: &Type) -> bool {
    matches!(
        t,
        Type::Scalar(_)
            | Type::String
            | Type::Buffer(_)
            | Type::Vector(..)
            | Type::Matrix(..)
            | Type::Quaternion(_)
            | Type::Struct(_)
    )
}
