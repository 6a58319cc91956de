//! Images of every format, sampled textures and samplers: their texel types, the checks
//! specific to their methods, and their host allocation (`heap Image2D(w, h, TextureFormat.F)`,
//! `heap Texture2D(w, h [, TextureFormat.F [, levels]])`, `heap Sampler(filter, address)`).

use std::collections::HashMap;

use super::body::{FnCtx, R};
use super::type_names::unknown_format;
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, ExprKind, HostOp, ImageFormat, Intrinsic, ScalarType, TextureDim, Type};
use crate::syntax::ast;

/// What `Image2D<F>.load` returns and `store` takes: the channel scalar for one-channel
/// formats, `Vector<channel, 4>` for four-channel ones.
pub fn texel_type(format: ImageFormat) -> Type {
    let s = format.channel_type();
    if format.channels() == 1 {
        Type::Scalar(s)
    } else {
        vec4(s)
    }
}

/// `Vector<s, 4>`.
pub fn vec4(s: ScalarType) -> Type {
    Type::Vector(s, 4)
}

/// The generic bindings of a texture's methods: `T` = `Vector<E, 4>`, `E` = the texel scalar.
pub fn texture_generics(texel: ScalarType, generics: &mut HashMap<String, Type>) {
    generics.insert("T".to_string(), vec4(texel));
    generics.insert("E".to_string(), Type::Scalar(texel));
}

/// The default format of a texture or image whose texels read as `texel`.
fn default_format(texel: ScalarType) -> ImageFormat {
    match texel {
        ScalarType::I32 => ImageFormat::R32i,
        ScalarType::U32 => ImageFormat::R32ui,
        _ => ImageFormat::R32f,
    }
}

impl FnCtx<'_, '_> {
    /// Rejects `sample`/`sampleLod` on an integer texture (Vulkan cannot filter integers).
    pub fn check_texture_op(
        &mut self,
        op: Option<Intrinsic>,
        recv: &ir::Expr,
        span: Span,
    ) -> R<()> {
        let Type::Texture(dim, texel) = recv.ty else {
            return Ok(());
        };
        if matches!(
            op,
            Some(Intrinsic::TextureSample | Intrinsic::TextureSampleLod)
        ) && texel != ScalarType::F32
        {
            return self.error(
                Diagnostic::error(
                    Code::TypeMismatch,
                    span,
                    format!(
                        "`{}<{texel}>` cannot be sampled: integer texels are not filtered",
                        dim.class_name()
                    ),
                )
                .with_label("sample on an integer texture")
                .with_note("help: read texels with `fetch(x, …)` or `fetchLod(x, …, lod)`"),
            );
        }
        Ok(())
    }

    /// A `TextureFormat.X` argument.
    fn format_value(&mut self, e: &ast::Expr) -> R<ImageFormat> {
        if let ast::ExprKind::Field(base, field) = &e.kind {
            if matches!(&base.kind, ast::ExprKind::Name(n) if n == "TextureFormat") {
                return match ImageFormat::from_source_name(&field.name) {
                    Some(f) => Ok(f),
                    None => self.error(unknown_format(&field.name, field.span)),
                };
            }
        }
        self.error(
            Diagnostic::error(
                Code::TypeMismatch,
                e.span,
                "a format is written `TextureFormat.NAME`",
            )
            .with_note("the format must be known when the program is compiled"),
        )
    }

    /// `heap Image2D(w, h [, F])`, `heap Texture*(sizes… [, F [, levels]])`, `heap Sampler(f, a)`.
    /// `sizes` are the shape's dimensions; `size_arg` checks each as an integer.
    pub fn new_resource(
        &mut self,
        t: Type,
        ty_span: Span,
        args: &[&ast::Expr],
        span: Span,
        mut size_arg: impl FnMut(&mut Self, &ast::Expr) -> R<ir::Expr>,
    ) -> R<ir::Expr> {
        let (sizes, max_extra) = match &t {
            Type::Image2D(_) => (2, 1),
            Type::Texture(dim, _) => (texture_sizes(*dim), 2),
            _ => (2, 0),
        };
        let n = args.len();
        if n < sizes || n > sizes + max_extra {
            let want = if max_extra == 0 {
                sizes.to_string()
            } else {
                format!("{sizes} to {}", sizes + max_extra)
            };
            return self.error(Diagnostic::error(
                Code::ArgumentCount,
                span,
                format!("`heap {t}(…)` takes {want} argument(s), found {n}"),
            ));
        }
        let mut values = Vec::new();
        for a in &args[..sizes] {
            values.push(size_arg(self, a)?);
        }
        let format = match args.get(sizes) {
            Some(a) if max_extra > 0 => Some((self.format_value(a)?, a.span)),
            _ => None,
        };
        match t {
            Type::Image2D(declared) => {
                // `heap Image2D<F>(w, h)` or `heap Image2D(w, h, TextureFormat.F)`.
                let format = match format {
                    Some((f, fspan)) if declared != ImageFormat::R32f && f != declared => {
                        return self.error(Diagnostic::error(
                            Code::TypeMismatch,
                            fspan,
                            format!(
                                "the format {} differs from the type's {}",
                                f.source_name(),
                                declared.source_name()
                            ),
                        ))
                    }
                    Some((f, _)) => f,
                    None => declared,
                };
                Ok(host(
                    HostOp::NewImage2D,
                    values,
                    Type::Image2D(format),
                    span,
                ))
            }
            Type::Texture(dim, texel) => {
                let format = match format {
                    Some((f, fspan)) => {
                        if f.channel_type() != texel {
                            return self.error(
                                Diagnostic::error(
                                    Code::TypeMismatch,
                                    fspan,
                                    format!(
                                        "{} texels read as {}, but this is a {}",
                                        f.source_name(),
                                        f.channel_type(),
                                        Type::Texture(dim, texel)
                                    ),
                                )
                                .with_note(format!(
                                    "help: write `heap {}<{}>(…)`",
                                    dim.class_name(),
                                    f.channel_type()
                                )),
                            );
                        }
                        f
                    }
                    None => default_format(texel),
                };
                match args.get(sizes + 1) {
                    Some(l) => values.push(size_arg(self, l)?),
                    None => values.push(ir::Expr::constant(
                        ir::Constant::Int(1),
                        Type::Scalar(ScalarType::I64),
                        span,
                    )),
                }
                Ok(host(
                    HostOp::NewTexture(dim, format),
                    values,
                    Type::Texture(dim, texel),
                    span,
                ))
            }
            Type::Sampler => {
                let mut codes = Vec::new();
                let i32t = Type::Scalar(ScalarType::I32);
                for a in args {
                    let v = self.expr(a, Some(&i32t))?;
                    let v = self.coerce(v, &i32t, a.span)?;
                    codes.push(v);
                }
                let _ = ty_span;
                Ok(host(HostOp::NewSampler, codes, Type::Sampler, span))
            }
            other => self.error(Diagnostic::error(
                Code::TypeMismatch,
                ty_span,
                format!("`{other}` cannot be allocated with `heap T(…)`"),
            )),
        }
    }
}

/// How many size arguments `heap Texture…(…)` takes.
fn texture_sizes(dim: TextureDim) -> usize {
    match dim {
        TextureDim::D1 | TextureDim::Cube => 1,
        TextureDim::D2 => 2,
        TextureDim::D3 | TextureDim::D2Array => 3,
    }
}

fn host(op: HostOp, args: Vec<ir::Expr>, ty: Type, span: Span) -> ir::Expr {
    ir::Expr {
        kind: ExprKind::Host { op, args },
        ty,
        span,
    }
}
