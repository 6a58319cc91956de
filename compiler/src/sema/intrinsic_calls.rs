//! Calls of stdlib intrinsics (`@Intrinsic` methods): the checker's table of what a
//! generic intrinsic's `T` may be, and the arguments bound and converted.

use super::body::{FnCtx, R};
use super::expr::is_context_literal;
use super::names::IntrinsicMethod;
use super::type_names::resolve_type;
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, ExprKind, HostOp, Intrinsic, ScalarType, Type};
use crate::syntax::ast;
use std::collections::HashMap;

/// The checker's table of what a generic intrinsic's `T` may be.
fn generic_allows(
    op: Option<Intrinsic>,
    host: Option<HostOp>,
    t: &Type,
) -> Result<(), &'static str> {
    if let Some(r) = op.and_then(|op| super::memory::generic_allows(op, t)) {
        return r;
    }
    match (op, host) {
        (_, Some(HostOp::Println | HostOp::Print)) => match t {
            Type::Void => Err("a value"),
            _ => Ok(()),
        },
        // Element types whose host and MPI representation are the same bytes.
        (_, Some(HostOp::Comm(_))) => match t {
            Type::Array(e) | Type::Buffer(e) => match e.as_scalar() {
                Some(
                    ScalarType::I8
                    | ScalarType::I16
                    | ScalarType::I32
                    | ScalarType::I64
                    | ScalarType::U8
                    | ScalarType::U16
                    | ScalarType::U32
                    | ScalarType::U64
                    | ScalarType::F32
                    | ScalarType::F64,
                ) => Ok(()),
                _ => Err("a host array or KernelBuffer of an integer, float32 or float64 type"),
            },
            _ => Err("a host array or KernelBuffer of an integer, float32 or float64 type"),
        },
        // The combination of A's and C's is checked once both are known (overloads.rs).
        (_, Some(HostOp::Gemm)) => match t {
            Type::Buffer(e) if super::overloads::gemm_element(e).is_some() => Ok(()),
            _ => Err("a KernelBuffer of float16, bfloat16, int8, float32 or int32"),
        },
        _ => Ok(()),
    }
}

impl<'s, 'a> FnCtx<'s, 'a> {
    pub(super) fn intrinsic_call(
        &mut self,
        class: &str,
        recv: Option<ir::Expr>,
        name: &ast::Ident,
        args: &[ast::Arg],
        span: Span,
    ) -> R<ir::Expr> {
        let coop_hint = self.coop_hint.take();
        let Some(overloads) = self.syms.intrinsic(class, &name.name) else {
            let d = Diagnostic::error(
                Code::UnknownMethod,
                name.span,
                format!("`{class}` has no method `{}`", name.name),
            )
            .with_label("unknown method");
            let d = self.with_known_methods(d, class, &name.name);
            return self.error(d);
        };
        let args = self.positional(args)?;
        let Some(m) = self.pick_overload(overloads, &args) else {
            let counts: Vec<String> = overloads
                .iter()
                .map(|m| m.decl.params.len().to_string())
                .collect();
            return self.error(Diagnostic::error(
                Code::ArgumentCount,
                span,
                format!(
                    "`{class}.{}` takes {} argument(s) but {} were supplied",
                    name.name,
                    counts.join(" or "),
                    args.len()
                ),
            ));
        };
        if m.is_static == recv.is_some() {
            let how = if m.is_static {
                "is static: call it on the class"
            } else {
                "needs a value to be called on"
            };
            return self.error(Diagnostic::error(
                Code::UnknownMethod,
                name.span,
                format!("`{class}.{}` {how}", name.name),
            ));
        }
        let device = self.is_device();
        // Math and Bits also run in host code, through the interpreter.
        let host_intrinsic =
            !device && m.host.is_none() && m.device.is_some_and(super::memory::host_evaluable);
        match (device || host_intrinsic, m.device, m.host) {
            (true, None, _) => {
                return self.error(Diagnostic::error(
                    Code::HostOnlyInDevice,
                    span,
                    format!("`{class}.{}` is host-only", name.name),
                ))
            }
            (false, _, None) => {
                return self.error(Diagnostic::error(
                    Code::DeviceOnlyInHost,
                    span,
                    format!(
                        "`{class}.{}` is only available in kernels and @Device methods",
                        name.name
                    ),
                ))
            }
            _ => {}
        }
        let mut generics: HashMap<String, Type> = HashMap::new();
        if let Some(Type::Buffer(elem)) = recv.as_ref().map(|r| &r.ty) {
            // Host transfers of a buffer of Vector<T,N> take flat T[] arrays (SPEC §9), or
            // arrays of the vectors themselves (`Vector<float32,4>[]`, lanes of ordinary
            // scalars), which the first argument's own type tells apart.
            let whole = |c: &mut Self| {
                let first = args.first()?;
                let ty = c.quietly(|c| c.expr(first, None))?.ty;
                Some(ty == Type::Array(elem.clone()))
            };
            let bound = match (&**elem, device) {
                (Type::Vector(s, _) | Type::Quaternion(s), false)
                    if !s.is_precision() && whole(self) == Some(true) =>
                {
                    (**elem).clone()
                }
                // A quaternion travels as its four lanes (w, x, y, z), as a Vector<T,4>.
                (Type::Vector(s, _) | Type::Quaternion(s), false) => Type::Scalar(*s),
                (other, _) => other.clone(),
            };
            // SPEC §8: integer precision storage travels as int32[] (host/int_transfer.rs),
            // `sfp` as float32[].
            let bound = match bound {
                Type::Scalar(s) if !device && super::int_precision::read_scalar(s).is_some() => {
                    Type::Scalar(ScalarType::I32)
                }
                Type::Scalar(ScalarType::Sfp) if !device => Type::Scalar(ScalarType::F32),
                b => b,
            };
            generics.insert("T".to_string(), bound);
        }
        if let Some(Type::Shared(elem)) = recv.as_ref().map(|r| &r.ty) {
            generics.insert("T".to_string(), (**elem).clone());
        }
        if let Some(Type::Image2D(format)) = recv.as_ref().map(|r| &r.ty) {
            // `store(x, y, T)` / `T load(x, y)`: T is the format's texel type.
            generics.insert("T".to_string(), super::textures::texel_type(*format));
            generics.insert("E".to_string(), Type::Scalar(format.channel_type()));
        }
        if let Some(r) = &recv {
            if let Type::Texture(_, texel) = r.ty {
                super::textures::texture_generics(texel, &mut generics);
            }
            self.check_texture_op(if device { m.device } else { None }, r, span)?;
        }
        let mut values = self.intrinsic_args(&m, &args, &mut generics)?;
        if let (Some(op @ Intrinsic::Math(_)), true) = (
            m.device,
            values.iter().any(|v| matches!(v.ty, Type::Wide(..))),
        ) {
            return self.wide_math(op, values, span);
        }
        if let Some(HostOp::Println | HostOp::Print) = m.host {
            // A wide vector prints as its lanes (sema/wide_vector.rs).
            for v in &mut values {
                let taken = std::mem::replace(v, super::body::bool_const(false, span));
                *v = self.wide_as_text(taken)?;
            }
        }
        if m.host == Some(HostOp::Gemm) {
            if let Err(d) = super::overloads::check_gemm_types(&values) {
                return self.error(d);
            }
        }
        // A CUDA-style lane mask is not an operand: it is evaluated first, for its effects.
        let mask = match m.ignores_mask && !values.is_empty() {
            true => Some(values.remove(0)).filter(|v| !super::expr::is_pure(v)),
            false => None,
        };
        let ret = match resolve_type(&m.decl.ret, &generics) {
            Ok(t) => t,
            Err(d) => return self.error(d),
        };
        let mut all = Vec::new();
        all.extend(recv);
        all.extend(values);
        if matches!(
            m.host,
            Some(HostOp::Println | HostOp::Print | HostOp::Printf | HostOp::ToString)
        ) && !device
        {
            all = all.into_iter().map(|a| self.optional_as_text(a)).collect();
        }
        if let (true, Some(op)) = (device, m.device) {
            self.check_memory_intrinsic(op, &mut all, span)?;
        }
        let ret = match m.device {
            Some(Intrinsic::Coop(op)) => {
                let ret = self.coop_result(op, &mut all, ret, coop_hint)?;
                self.check_coop_memory(op, &all, &ret)?;
                ret
            }
            _ => ret,
        };
        let ret = super::memory::lane_result(m.device, &all, ret);
        // A slice has its buffer's type (T above is the host transfer type, which differs
        // for vector and precision buffers).
        let ret = match (m.host, all.first()) {
            (Some(HostOp::BufferSlice), Some(r)) if !device => r.ty.clone(),
            _ => ret,
        };
        let kind = if device || host_intrinsic {
            ExprKind::Intrinsic {
                op: m.device.unwrap_or(Intrinsic::BufferLength),
                args: all,
            }
        } else {
            match (m.host, all.first().map(|a| &a.kind)) {
                // `Device.supports(Capability.X)`: the capability is a constant, so it goes
                // into the operation (the executors ask the run's device for it).
                (
                    Some(HostOp::DeviceQuery(ir::HostDeviceQuery::Supports(_))),
                    Some(ExprKind::Const(ir::Constant::Int(i))),
                ) => ExprKind::Host {
                    op: HostOp::DeviceQuery(ir::HostDeviceQuery::Supports(*i as u32)),
                    args: Vec::new(),
                },
                (Some(HostOp::DeviceQuery(ir::HostDeviceQuery::Supports(_))), _) => {
                    return self.error(
                        Diagnostic::error(
                            Code::NotConstant,
                            span,
                            "`Device.supports` takes a constant capability, `Capability.X`",
                        )
                        .with_label("not a constant"),
                    )
                }
                _ => ExprKind::Host {
                    op: m.host.unwrap_or(HostOp::Println),
                    args: all,
                },
            }
        };
        let call = ir::Expr {
            kind,
            ty: ret,
            span,
        };
        if m.host == Some(HostOp::Autotune(ir::AutotuneOp::Recall)) && !device {
            let ty = call.ty.clone();
            return Ok(self.optional_from_recall(call, ty));
        }
        Ok(match mask {
            Some(mask) => ir::Expr {
                ty: call.ty.clone(),
                kind: ExprKind::Sequence(vec![ir::Stmt::Expr(mask)], Box::new(call)),
                span,
            },
            None => call,
        })
    }

    /// Checks intrinsic arguments, binding the method's `T` from non-literal arguments first.
    fn intrinsic_args(
        &mut self,
        m: &IntrinsicMethod<'a>,
        args: &[&ast::Expr],
        generics: &mut HashMap<String, Type>,
    ) -> R<Vec<ir::Expr>> {
        let tparams: Vec<String> = m
            .decl
            .type_params
            .iter()
            .map(|t| t.name.name.clone())
            .collect();
        let mut values: Vec<Option<ir::Expr>> = vec![None; args.len()];
        let order: Vec<usize> = (0..args.len())
            .filter(|i| !is_context_literal(args[*i]))
            .chain((0..args.len()).filter(|i| is_context_literal(args[*i])))
            .collect();
        for i in order {
            let pty = &m.decl.params[i].ty;
            let generic_name = match &pty.kind {
                ast::TypeExprKind::Named { name, args }
                    if args.is_empty() && tparams.contains(name) =>
                {
                    Some(name.clone())
                }
                _ => None,
            };
            let bound = generic_name.as_ref().and_then(|g| generics.get(g).cloned());
            let expected = match (&generic_name, bound) {
                (Some(_), Some(t)) => Some(t),
                (Some(_), None) => None,
                (None, _) => match resolve_type(pty, generics) {
                    Ok(t) => Some(t),
                    Err(d) => return self.error(d),
                },
            };
            let v = self.expr(args[i], expected.as_ref())?;
            let v = super::overloads::precision_index(m.device, v, expected.as_ref());
            let v = super::overloads::rotate_count(m.device, v, expected.as_ref());
            let v = super::overloads::array_layer(
                m.device,
                &m.decl.params[i].name.name,
                v,
                expected.as_ref(),
            );
            let v = match (&generic_name, expected) {
                (_, Some(t)) => self.coerce(v, &t, args[i].span)?,
                (Some(g), None) => {
                    if let Err(what) = generic_allows(m.device, m.host, &v.ty) {
                        let t = v.ty.clone();
                        return self.error(
                            Diagnostic::error(
                                Code::TypeMismatch,
                                args[i].span,
                                format!("`{}` needs {what}, found {t}", m.decl.name.name),
                            )
                            .with_label(format!("this is {t}")),
                        );
                    }
                    generics.insert(g.clone(), v.ty.clone());
                    v
                }
                (None, None) => v,
            };
            values[i] = Some(v);
        }
        Ok(values.into_iter().flatten().collect())
    }
}
