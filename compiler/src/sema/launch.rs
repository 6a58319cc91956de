//! Kernel launches from host code: `k.launch(stream, grid: [...], block: [...],
//! sharedBytes: n, spec: [...])(args…)`.

use super::body::{FnCtx, R};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, ExprKind, FunctionKind, ScalarType, TextureDim, Type};
use crate::syntax::ast;

impl<'s, 'a> FnCtx<'s, 'a> {
    /// E0006 for `name.launch(…)` where this class has no method `name`, naming the
    /// class's kernel of the closest name.
    fn unknown_kernel(&mut self, name: &str, span: Span) -> R<ir::Expr> {
        let mut kernels: Vec<&str> = self
            .syms
            .user_methods
            .get(&self.class)
            .into_iter()
            .flat_map(|m| m.iter())
            .filter(|(_, f)| self.syms.functions[f.0].kind == FunctionKind::Kernel)
            .map(|(n, _)| n.as_str())
            .collect();
        kernels.sort_unstable();
        let mut d = Diagnostic::error(
            Code::UnknownName,
            span,
            format!("cannot find kernel `{name}` in class `{}`", self.class),
        )
        .with_label("not declared");
        if let Some(similar) = crate::diagnostics::similar::closest(name, kernels) {
            d = d.with_note(format!(
                "help: a kernel with a similar name exists: `{similar}`"
            ));
        }
        self.error(d)
    }

    /// `k.launch(stream, grid: [...], block: [...])(args)`.
    pub fn launch(&mut self, config: &ast::Expr, args: &[ast::Arg], span: Span) -> R<ir::Expr> {
        let ast::ExprKind::MethodCall(target, method, opts) = &config.kind else {
            return self.error(Diagnostic::error(
                Code::InvalidLaunch,
                span,
                "only `kernel.launch(…)(…)` can be called this way",
            ));
        };
        if method.name != "launch" {
            return self.error(Diagnostic::error(
                Code::InvalidLaunch,
                method.span,
                format!(
                    "`{}(…)(…)`: only `launch` returns something callable",
                    method.name
                ),
            ));
        }
        if self.is_device() {
            return self.error(Diagnostic::error(
                Code::HostOnlyInDevice,
                span,
                "kernels can only be launched from host code",
            ));
        }
        let kernel = match &target.kind {
            ast::ExprKind::Name(n) => self
                .syms
                .user_methods
                .get(&self.class)
                .and_then(|m| m.get(n))
                .copied(),
            ast::ExprKind::Field(c, n) => match &c.kind {
                ast::ExprKind::Name(cls) => self
                    .syms
                    .user_methods
                    .get(cls)
                    .and_then(|m| m.get(&n.name))
                    .copied(),
                _ => None,
            },
            _ => None,
        };
        if let (None, ast::ExprKind::Name(n)) = (kernel, &target.kind) {
            return self.unknown_kernel(n, target.span);
        }
        let Some(kid) = kernel.filter(|k| self.syms.functions[k.0].kind == FunctionKind::Kernel)
        else {
            return self.error(
                Diagnostic::error(
                    Code::InvalidLaunch,
                    target.span,
                    "only @Kernel methods can be launched",
                )
                .with_label("not a kernel"),
            );
        };
        let mut stream = None;
        let mut grid = None;
        let mut block = None;
        let mut shared_bytes = None;
        let mut spec = Vec::new();
        let mut psc = false;
        for a in opts {
            match a.name.as_ref().map(|n| n.name.as_str()) {
                None if stream.is_none() => {
                    let v = self.expr(&a.value, None)?;
                    stream = Some(self.coerce(v, &Type::Stream, a.value.span)?);
                }
                None => {
                    return self.error(Diagnostic::error(
                        Code::InvalidLaunch,
                        a.value.span,
                        "unexpected argument: launch takes a stream, then grid: and block:",
                    ))
                }
                Some("grid") => grid = Some(self.dims(&a.value)?),
                Some("block") => block = Some(self.dims(&a.value)?),
                Some("sharedBytes") => {
                    // `sharedBytes: n`, or the one-element list form `sharedBytes: [n]`.
                    let value = match &a.value.kind {
                        ast::ExprKind::ArrayLit(items) if items.len() == 1 => &items[0],
                        ast::ExprKind::ArrayLit(_) => {
                            return self.error(
                                Diagnostic::error(
                                    Code::InvalidLaunch,
                                    a.value.span,
                                    "`sharedBytes: [n]` takes exactly one byte count",
                                )
                                .with_note("the kernel has one dynamic shared array"),
                            )
                        }
                        _ => &a.value,
                    };
                    let u32t = Type::Scalar(ScalarType::U32);
                    let v = self.expr(value, Some(&u32t))?;
                    shared_bytes = Some(self.coerce(v, &u32t, value.span)?);
                }
                Some("spec") => spec = self.spec_values(&a.value)?,
                Some("psc") => psc = self.psc_option(&a.value)?,
                Some(other) => {
                    let n = a.name.as_ref().map(|n| n.span).unwrap_or(span);
                    return self.error(
                        Diagnostic::error(
                            Code::InvalidLaunch,
                            n,
                            format!("unknown launch option `{other}`"),
                        )
                        .with_note("launch options: grid, block, sharedBytes, spec, psc"),
                    );
                }
            }
        }
        let (Some(stream), Some(grid), Some(block)) = (stream, grid, block) else {
            return self.error(
                Diagnostic::error(
                    Code::InvalidLaunch,
                    config.span,
                    "a launch needs a stream, `grid:` and `block:`",
                )
                .with_note("example: `k.launch(s, grid: [n / 64], block: [64])(…)`"),
            );
        };
        let kf = &self.syms.functions[kid.0];
        let (params, kname, kspan) = (
            kf.params.clone(),
            kf.decl.name.name.clone(),
            kf.decl.name.span,
        );
        let args = self.positional(args)?;
        if args.len() != params.len() {
            return self.error(
                Diagnostic::error(
                    Code::ArgumentCount,
                    span,
                    format!(
                        "kernel `{kname}` takes {} argument(s) but {} were supplied",
                        params.len(),
                        args.len()
                    ),
                )
                .with_secondary(kspan, "kernel declared here"),
            );
        }
        let mut values = Vec::new();
        let mut unresolved = false;
        for (a, p) in args.iter().zip(&params) {
            if *p == Type::Void {
                // The parameter's type did not resolve (E0007 at the kernel): check the
                // argument, but report no mismatch against a type nobody wrote.
                let _ = self.expr(a, None);
                unresolved = true;
                continue;
            }
            let v = self.expr(a, Some(p))?;
            values.push(match (&v.ty, p) {
                (Type::Image2D(_), Type::Texture(..)) => self.image_as_texture(v, p, a.span)?,
                _ => self.coerce(v, p, a.span)?,
            });
        }
        if unresolved {
            return Err(());
        }
        // A wide vector parameter is its parts, consecutive push constants.
        let (stmts, values) = self.split_wide_args(values)?;
        Ok(super::bytes16::sequence(
            stmts,
            ir::Expr {
                kind: ExprKind::Launch(Box::new(ir::Launch {
                    kernel: kid,
                    stream,
                    grid,
                    block,
                    args: values,
                    shared_bytes,
                    spec,
                    psc,
                    catches: false,
                })),
                ty: Type::Void,
                span,
            },
        ))
    }

    /// An `Image2D<F>` argument for a `Texture2D<T>` parameter: Vulkan lets one image be both
    /// a storage and a sampled image, and the runtime creates storage images with `SAMPLED`
    /// usage, moving them to the sampled layout (after the storage writes) at the launch. The
    /// argument stays an image; only the shape and the texel type must fit.
    fn image_as_texture(&mut self, v: ir::Expr, p: &Type, span: Span) -> R<ir::Expr> {
        let (Type::Image2D(format), Type::Texture(dim, texel)) = (&v.ty, p) else {
            return self.coerce(v, p, span);
        };
        if *dim == TextureDim::D2 && format.channel_type() == *texel {
            return Ok(v);
        }
        let help = if *dim != TextureDim::D2 {
            "help: only a `Texture2D` parameter can read an `Image2D`; other shapes need a \
             texture of their own (`heap Texture3D(…)` + `upload`)"
                .to_string()
        } else {
            let reads = format.channel_type();
            format!(
                "help: an `{}` reads as {reads}: declare the parameter `Texture2D<{reads}>`, \
                 or write the image with a format whose channels are {texel}",
                v.ty
            )
        };
        self.error(
            Diagnostic::error(
                Code::TypeMismatch,
                span,
                format!("expected {p}, found {}", v.ty),
            )
            .with_label(format!("this is {}", v.ty))
            .with_note(help),
        )
    }

    /// `spec: [v0, v1, …]`: numeric scalars; the host converts each to its slot's type.
    fn spec_values(&mut self, e: &ast::Expr) -> R<Vec<ir::Expr>> {
        let ast::ExprKind::ArrayLit(items) = &e.kind else {
            return self.error(Diagnostic::error(
                Code::InvalidLaunch,
                e.span,
                "spec values are written as `[v0, v1, …]`",
            ));
        };
        let mut out = Vec::new();
        for i in items {
            let v = self.expr(i, None)?;
            match v.ty {
                Type::Scalar(s) if s.is_numeric() => out.push(v),
                ref t => {
                    let t = t.clone();
                    return self.error(Diagnostic::error(
                        Code::TypeMismatch,
                        i.span,
                        format!("a spec value must be an integer or float, found {t}"),
                    ));
                }
            }
        }
        Ok(out)
    }

    fn dims(&mut self, e: &ast::Expr) -> R<Vec<ir::Expr>> {
        let ast::ExprKind::ArrayLit(items) = &e.kind else {
            return self.error(Diagnostic::error(
                Code::InvalidLaunch,
                e.span,
                "grid and block are written as `[x]`, `[x, y]` or `[x, y, z]`",
            ));
        };
        if items.is_empty() || items.len() > 3 {
            return self.error(Diagnostic::error(
                Code::InvalidLaunch,
                e.span,
                format!(
                    "grid and block have 1 to 3 dimensions, found {}",
                    items.len()
                ),
            ));
        }
        let u32t = Type::Scalar(ScalarType::U32);
        let mut out = Vec::new();
        for i in items {
            let v = self.expr(i, Some(&u32t))?;
            // Cajeta writes sizes as int32 (`grid: [Group.rowGrid(rows)]`): taken bit for bit,
            // so a negative one is a size past the device's limits, refused at the launch.
            let v = match v.ty {
                Type::Scalar(ScalarType::I32) => super::expr::convert(v, ScalarType::U32),
                _ => v,
            };
            out.push(self.coerce(v, &u32t, i.span)?);
        }
        Ok(out)
    }
}
