//! Calls of user methods and stdlib intrinsics, kernel launches, and host allocations.

use super::body::{FnCtx, R};
use super::expr::{convert, is_context_literal};
use super::names::{canonical_class, resolve_type, IntrinsicMethod};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, ExprKind, FunctionId, FunctionKind, HostOp, Intrinsic, ScalarType, Type};
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
    /// `name(args)`: a method of the current class.
    pub fn call(&mut self, name: &ast::Ident, args: &[ast::Arg], span: Span) -> R<ir::Expr> {
        let class = self.class.clone();
        if let Some(r) = self.psc_call(name, args, span) {
            return r;
        }
        if name.name == "this" {
            return self.error(
                Diagnostic::error(
                    Code::UnsupportedFeature,
                    name.span,
                    "`this(…)`, one constructor calling another, is not supported",
                )
                .with_note("help: move the shared part into a static method of the class and call it from both"),
            );
        }
        match self
            .syms
            .user_methods
            .get(&class)
            .and_then(|m| m.get(&name.name))
            .copied()
        {
            Some(fid) => self.user_call(fid, name, args, span),
            None => self.error(
                Diagnostic::error(
                    Code::UnknownName,
                    name.span,
                    format!("cannot find method `{}` in class `{class}`", name.name),
                )
                .with_label("not declared"),
            ),
        }
    }

    pub(super) fn positional<'e>(&mut self, args: &'e [ast::Arg]) -> R<Vec<&'e ast::Expr>> {
        let mut out = Vec::new();
        for a in args {
            if let Some(n) = &a.name {
                return self.error(Diagnostic::error(
                    Code::SyntaxError,
                    n.span,
                    format!("unexpected named argument `{}:`", n.name),
                ));
            }
            out.push(&a.value);
        }
        Ok(out)
    }

    fn user_call(
        &mut self,
        fid: FunctionId,
        name: &ast::Ident,
        args: &[ast::Arg],
        span: Span,
    ) -> R<ir::Expr> {
        // Host code calls the host twin of a `@Host @Device` method.
        let fid = match (self.kind, self.syms.host_twins.get(&fid)) {
            (FunctionKind::Host, Some(&host)) => host,
            _ => fid,
        };
        let f = &self.syms.functions[fid.0];
        let host_only = f.decl.annotation("Host").is_some();
        let (kind, params, ret, decl_span) =
            (f.kind, f.params.clone(), f.ret.clone(), f.decl.name.span);
        match (self.kind, kind) {
            (_, FunctionKind::Kernel) => {
                return self.error(
                    Diagnostic::error(
                        Code::InvalidLaunch,
                        span,
                        format!("kernel `{}` cannot be called like a method", name.name),
                    )
                    .with_note(format!(
                        "help: launch it: `{}.launch(stream, grid: [..], block: [..])(…)`",
                        name.name
                    )),
                )
            }
            (FunctionKind::Host, FunctionKind::Device) => {
                return self.error(
                    Diagnostic::error(
                        Code::DeviceOnlyInHost,
                        span,
                        format!(
                            "@Device method `{}` cannot be called from host code",
                            name.name
                        ),
                    )
                    .with_secondary(decl_span, "declared @Device here")
                    .with_note("help: mark it `@Host @Device` to call it from host code too"),
                )
            }
            (FunctionKind::Kernel | FunctionKind::Device, FunctionKind::Host) => {
                return self.error(
                    Diagnostic::error(
                        Code::HostOnlyInDevice,
                        span,
                        format!(
                            "host method `{}` cannot be called from device code",
                            name.name
                        ),
                    )
                    .with_secondary(
                        decl_span,
                        if host_only {
                            "declared @Host here"
                        } else {
                            "declared here without @Device"
                        },
                    )
                    .with_note(if host_only {
                        "help: mark it `@Host @Device` to call it from both sides"
                    } else {
                        "help: mark it `@Device` if it only uses device features (`@Host @Device` for both sides)"
                    }),
                )
            }
            _ => {}
        }
        let args = self.positional(args)?;
        if args.len() != params.len() {
            return self.error(
                Diagnostic::error(
                    Code::ArgumentCount,
                    span,
                    format!(
                        "`{}` takes {} argument(s) but {} were supplied",
                        name.name,
                        params.len(),
                        args.len()
                    ),
                )
                .with_secondary(decl_span, "declared here"),
            );
        }
        let mut out = Vec::new();
        let mut failed = false;
        for (a, p) in args.iter().zip(&params) {
            if *p == Type::Void {
                // The parameter's type did not resolve (E0007 at its declaration): check the
                // argument, but report no mismatch against a type nobody wrote.
                let _ = self.expr(a, None);
                failed = true;
                continue;
            }
            match self
                .expr(a, Some(p))
                .and_then(|v| self.coerce(v, p, a.span))
            {
                Ok(v) => {
                    if self.is_device()
                        && (v.ty.is_resource() || matches!(v.ty, Type::Shared(_)))
                        && !matches!(v.kind, ExprKind::Load(ir::Place::Local(_)))
                    {
                        failed = true;
                        self.diags.push(Diagnostic::error(
                            Code::UnsupportedFeature,
                            a.span,
                            "resource arguments must be parameters of the caller",
                        ));
                    }
                    out.push(v)
                }
                Err(()) => failed = true,
            }
        }
        if failed || self.syms.functions[fid.0].ret_unresolved() {
            return Err(());
        }
        self.calls.push((fid, span));
        // A wide vector parameter is its parts (sema/wide_vector.rs).
        let (stmts, out) = self.split_wide_args(out)?;
        Ok(super::bytes16::sequence(
            stmts,
            ir::Expr {
                kind: ExprKind::Call {
                    func: fid,
                    args: out,
                },
                ty: ret,
                span,
            },
        ))
    }

    /// `recv.name(args)`: static methods of classes, and methods of values.
    pub fn method_call(
        &mut self,
        recv: &ast::Expr,
        name: &ast::Ident,
        args: &[ast::Arg],
        span: Span,
    ) -> R<ir::Expr> {
        // `Device.hasExtension("…")`: a string literal argument in device code.
        if let Some(r) = self.query_string_call(recv, name, args, span) {
            return r;
        }
        if let Some(d) = self.presentation_method(recv, name) {
            return self.error(d);
        }
        // Cajeta's kernel manifest, `k.manifest()` on a kernel of this class.
        if let Some(r) = self.kernel_manifest_call(recv, name, args, span) {
            return r;
        }
        // `System.out.println(…)`, also as Cajeta's `System.stdout`.
        if let ast::ExprKind::Field(base, field) = &recv.kind {
            if matches!(&base.kind, ast::ExprKind::Name(n) if n == "System" && self.lookup("System").is_none())
                && matches!(field.name.as_str(), "out" | "stdout")
            {
                if name.name == "printf" {
                    return self.printf_call(args, span);
                }
                if self.is_device() && matches!(name.name.as_str(), "println" | "print") {
                    return self.kernel_print(args, name.name == "println", span);
                }
                return self.intrinsic_call("SystemOut", None, name, args, span);
            }
        }
        if let Some(r) = self.optional_static_call(recv, name, args, span) {
            return r;
        }
        if let Some(r) = self.math_vector_call(recv, name, args, span) {
            return r;
        }
        if let Some(r) = self.rotation_call(recv, name, args, span) {
            return r;
        }
        if let Some(r) = self.group_call(recv, name, args, span) {
            return r;
        }
        if let Some(r) = self.target_descriptor_call(recv, name, args, span) {
            return r;
        }
        if let Some(r) = self.wave_cajeta_call(recv, name, args, span) {
            return r;
        }
        if let Some(r) = self.bits_permute_call(recv, name, args, span) {
            return r;
        }
        if let Some(r) = self.cooperative_matrix_call(recv, name, args, span) {
            return r;
        }
        if let Some(class) = self.class_name(recv) {
            if self.syms.is_class(class) {
                let class = canonical_class(class).to_string();
                if let Some(fid) = self
                    .syms
                    .user_methods
                    .get(&class)
                    .and_then(|m| m.get(&name.name))
                    .copied()
                {
                    return self.user_call(fid, name, args, span);
                }
                return self.intrinsic_call(&class, None, name, args, span);
            }
        }
        if args.is_empty() {
            if let Some(message) = self.catch_message(recv, &name.name) {
                return Ok(message);
            }
        }
        let r = self.expr(recv, None)?;
        let class = match &r.ty {
            Type::Image2D(_) => "Image2D",
            Type::Texture(dim, _) => dim.class_name(),
            Type::Sampler => "Sampler",
            Type::AccelStruct => "AccelerationStructure",
            Type::RayQuery => "RayQuery",
            Type::Buffer(_) if matches!(name.name.as_str(), "vload" | "vstore") => {
                return self.buffer_vector_call(r, name, None, args, span)
            }
            Type::Buffer(_) => "KernelBuffer",
            Type::Shared(_) => "Shared",
            Type::Stream => "KernelStream",
            Type::String => "String",
            // A Cajeta `Fence` or `KernelTimer` is an Event here: their methods are found in
            // their own classes.
            Type::Event => ["Event", "Fence", "KernelTimer"]
                .into_iter()
                .find(|c| self.syms.intrinsic(c, &name.name).is_some())
                .unwrap_or("Event"),
            // Cajeta's reinterpretation of four words as a 16-lane byte vector.
            Type::Vector(ScalarType::I32 | ScalarType::U32, 4)
                if name.name == "asBytes" && args.is_empty() =>
            {
                return Ok(self.words_as_bytes(r))
            }
            Type::Vector(..) => return self.vector_method(r, name, args, span),
            Type::Matrix(..) => return self.matrix_method(r, name, args, span),
            Type::Quaternion(_) => return self.quaternion_method(r, name, args, span),
            Type::Bytes16(_) => return self.bytes16_method(r, name, args, span),
            Type::Struct(_) if super::optional::element(&r.ty).is_some() => {
                return self.optional_method(r, name, args, span)
            }
            Type::Wide(..) => return self.wide_method(r, name, args, span),
            other => {
                let other = other.clone();
                return self.error(Diagnostic::error(
                    Code::UnknownMethod,
                    name.span,
                    format!("`{other}` has no method `{}`", name.name),
                ));
            }
        };
        self.intrinsic_call(class, Some(r), name, args, span)
    }

    fn intrinsic_call(
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
            // A buffer array starts with every element null, like Java's `new T[n]`; an
            // array of vectors, matrices or PODs with every element zero (they are values).
            Ok(
                t @ (Type::Scalar(_)
                | Type::Buffer(_)
                | Type::Vector(..)
                | Type::Matrix(..)
                | Type::Quaternion(_)
                | Type::Struct(_)),
            ) => t,
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
        let Some(
            elem @ (Type::Scalar(_)
            | Type::Buffer(_)
            | Type::Vector(..)
            | Type::Matrix(..)
            | Type::Quaternion(_)
            | Type::Struct(_)),
        ) = elem
        else {
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
