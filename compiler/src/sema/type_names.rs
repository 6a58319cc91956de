//! Type-name resolution: a written type (`KernelBuffer<float32>`, `Vector<int32, 4>`,
//! `Image2D`, a POD, a generic parameter) as the checker's `Type`.

use super::names::{canonical_class, ENUM_CLASSES};
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{ImageFormat, ScalarType, TextureDim, Type};
use crate::syntax::ast;
use std::collections::HashMap;

/// Resolves a written type. `generics` maps type parameters (`T`) to their types.
pub fn resolve_type(
    t: &ast::TypeExpr,
    generics: &HashMap<String, Type>,
) -> Result<Type, Diagnostic> {
    match &t.kind {
        ast::TypeExprKind::Void => Ok(Type::Void),
        ast::TypeExprKind::Function { .. } => Err(Diagnostic::error(
            Code::UnsupportedFeature,
            t.span,
            "a function type is only the element type of a function table",
        )
        .with_label("not a value type")
        .with_note("help: declare a local table, `((int32)->int32)[] ops = {A::f, A::g};`, and call `ops[i](x)`")),
        ast::TypeExprKind::Array(inner) => {
            let elem = resolve_type(inner, generics)?;
            match elem {
                _ if super::allocations::is_host_array_element(&elem) => {
                    Ok(Type::Array(Box::new(elem)))
                }
                Type::Wide(lane, n) => Err(Diagnostic::error(
                    Code::UnsupportedFeature,
                    t.span,
                    format!("arrays of `{elem}` are not supported"),
                )
                .with_note(format!(
                    "help: a wide vector is held as 4-lane parts; keep the lanes in a `{lane}[]` ({n} an element) or the parts in a `Vector<{lane}, 4>[]`"
                ))),
                other => Err(Diagnostic::error(
                    Code::UnsupportedFeature,
                    t.span,
                    format!("arrays of `{other}` are not supported"),
                )),
            }
        }
        ast::TypeExprKind::Named { name, args } => {
            if let Some(g) = generics.get(name) {
                return Ok(g.clone());
            }
            if let Some(s) = ScalarType::from_name(name) {
                return Ok(Type::Scalar(s));
            }
            let arity = |n: usize| -> Result<(), Diagnostic> {
                if args.len() == n {
                    Ok(())
                } else {
                    Err(Diagnostic::error(
                        Code::TypeMismatch,
                        t.span,
                        format!("`{name}` takes {n} type argument(s), found {}", args.len()),
                    ))
                }
            };
            // Cajeta's `RenderGraph` / `Swapchain`: declared only (sema/presentation.rs).
            if let Some(kind) = crate::ir::PresentationType::from_class_name(name) {
                arity(0)?;
                return Ok(Type::Presentation(kind));
            }
            match canonical_class(name) {
                // Cajeta's `Optional<T>` of a scalar: a POD of the library (sema/optional.rs).
                "Optional" => {
                    arity(1)?;
                    super::optional::optional_type(&args[0], t.span, generics)
                }
                "KernelBuffer" => {
                    arity(1)?;
                    let ast::TypeArg::Type(inner) = &args[0] else {
                        return Err(Diagnostic::error(
                            Code::TypeMismatch,
                            t.span,
                            "KernelBuffer<T> needs a type argument",
                        ));
                    };
                    match resolve_type(inner, generics)? {
                        Type::Struct(d) if precision_field(&d).is_some() => {
                            let (field, ty) = precision_field(&d).unwrap_or_default();
                            Err(Diagnostic::error(
                                Code::UnsupportedFeature,
                                inner.span,
                                format!("KernelBuffer<{}> is not supported: its field `{field}` has the precision type `{ty}`", d.name),
                            )
                            .with_note("buffer elements of a POD class have one layout on every device: give the field a fixed width (float16, float32, int8, …)"))
                        }
                        elem @ (Type::Scalar(_)
                        | Type::Vector(..)
                        | Type::Quaternion(_)
                        | Type::Struct(_)) => Ok(Type::buffer(elem)),
                        Type::Wide(lane, n) => Err(Diagnostic::error(
                            Code::UnsupportedFeature,
                            inner.span,
                            format!("KernelBuffer<{}> is not supported: a wide vector is held as 4-lane parts", Type::Wide(lane, n)),
                        )
                        .with_note(format!(
                            "help: use a `KernelBuffer<{lane}>` and `buf.vload<{n}>(i)` / `buf.vstore(i, v)` (elements {n}·i … {n}·i+{})",
                            n - 1
                        ))),
                        other => Err(Diagnostic::error(
                            Code::UnsupportedFeature,
                            inner.span,
                            format!("KernelBuffer<{other}> is not supported: element types are scalars, vectors, quaternions and POD classes"),
                        )),
                    }
                }
                "Vector" => {
                    arity(2)?;
                    let s = lane_type(&args[0], t.span, generics)?;
                    // Cajeta's 16-lane byte vector (sema/bytes16.rs).
                    if matches!(s, ScalarType::I8 | ScalarType::U8)
                        && matches!(&args[1], ast::TypeArg::Int(n, _) if n.parse() == Ok(16u32))
                    {
                        return Ok(Type::Bytes16(s));
                    }
                    // Cajeta's wide vectors, held as 4-lane parts (sema/wide_vector.rs).
                    if let ast::TypeArg::Int(text, _) = &args[1] {
                        match text.parse::<u8>() {
                            Ok(n @ (8 | 16))
                                if super::wide_vector::wide_lane_ok(s) || s == ScalarType::Bool =>
                            {
                                return Ok(Type::Wide(s, n));
                            }
                            _ => {}
                        }
                    }
                    let n = type_int(&args[1], "the lane count N of Vector<T, N>")?;
                    if !super::precision::vector_lanes_ok(s, n) {
                        return Err(Diagnostic::error(
                            Code::TypeMismatch,
                            t.span,
                            format!(
                                "`Vector<{s}, {n}>`: vectors of precision types have 2 or 4 lanes (`sint8`: 4)"
                            ),
                        ));
                    }
                    Ok(Type::Vector(s, n))
                }
                "Matrix" => {
                    arity(3)?;
                    let s = lane_type(&args[0], t.span, generics)?;
                    if !s.is_float() {
                        return Err(Diagnostic::error(
                            Code::TypeMismatch,
                            t.span,
                            format!("Matrix<{s}, R, C> needs a float element type"),
                        ));
                    }
                    let r = type_int(&args[1], "the row count R of Matrix<T, R, C>")?;
                    let c = type_int(&args[2], "the column count C of Matrix<T, R, C>")?;
                    Ok(Type::Matrix(s, r, c))
                }
                "Image2D" => match args.as_slice() {
                    [] => Ok(Type::Image2D(ImageFormat::R32f)),
                    [arg] => Ok(Type::Image2D(format_arg(arg)?)),
                    _ => Err(Diagnostic::error(
                        Code::TypeMismatch,
                        t.span,
                        "`Image2D` takes one format argument, as in `Image2D<RGBA8_UNORM>`",
                    )),
                },
                "Sampler" => {
                    arity(0)?;
                    Ok(Type::Sampler)
                }
                "AccelerationStructure" => {
                    arity(0)?;
                    Ok(Type::AccelStruct)
                }
                "RayQuery" => {
                    arity(0)?;
                    Ok(Type::RayQuery)
                }
                n if TextureDim::from_class_name(n).is_some() => {
                    let dim = TextureDim::from_class_name(n).unwrap_or(TextureDim::D2);
                    let texel = match args.as_slice() {
                        [] => ScalarType::F32,
                        [ast::TypeArg::Type(inner)] => match resolve_type(inner, generics)? {
                            Type::Scalar(
                                s @ (ScalarType::F32 | ScalarType::I32 | ScalarType::U32),
                            ) => s,
                            other => {
                                return Err(Diagnostic::error(
                                    Code::TypeMismatch,
                                    inner.span,
                                    format!(
                                    "`{name}<{other}>`: texels read as float32, int32 or uint32"
                                ),
                                ))
                            }
                        },
                        _ => {
                            return Err(Diagnostic::error(
                                Code::TypeMismatch,
                                t.span,
                                format!(
                                    "`{name}` takes one type argument (float32, int32 or uint32)"
                                ),
                            ))
                        }
                    };
                    Ok(Type::Texture(dim, texel))
                }
                "KernelStream" => Ok(Type::Stream),
                // Cajeta's `Swizzled<T>` (a shared tile whose banks are permuted to avoid
                // conflicts) is a `Shared<T>`: the permutation is the identity here, which
                // Cajeta's design allows where swizzling is not offered; every access sees
                // the same values. A second argument (a swizzle width) is taken and ignored.
                "Swizzled" if matches!(args.as_slice(), [_, ast::TypeArg::Int(..)]) => {
                    resolve_type(
                        &ast::TypeExpr {
                            kind: ast::TypeExprKind::Named {
                                name: "Shared".to_string(),
                                args: args[..1].to_vec(),
                            },
                            span: t.span,
                        },
                        generics,
                    )
                }
                "Shared" | "Swizzled" => {
                    arity(1)?;
                    match &args[0] {
                        ast::TypeArg::Type(inner) => match resolve_type(inner, generics)? {
                            t @ (Type::Scalar(_) | Type::Vector(..))
                                if t.elem_scalar().is_some_and(|s| s != ScalarType::Bool) =>
                            {
                                Ok(Type::Shared(Box::new(t)))
                            }
                            other => Err(Diagnostic::error(
                                Code::UnsupportedFeature,
                                inner.span,
                                format!("Shared<{other}> is not supported: elements are numeric scalars"),
                            )),
                        },
                        _ => Err(Diagnostic::error(
                            Code::TypeMismatch,
                            t.span,
                            "Shared<T> needs a type argument",
                        )),
                    }
                }
                n if ENUM_CLASSES.contains(&n) => Ok(Type::Enum(n.to_string())),
                n if super::device::coop_type(n).is_some() => {
                    super::coop::resolve_coop_type(n, args, t.span, generics)
                }
                "CooperativeMatrix" => {
                    super::coop_cajeta::resolve_cooperative_matrix(args, t.span, generics)
                }
                // Cajeta's quaternion (sema/quaternion.rs), float lanes only as in Cajeta.
                "Quaternion" => {
                    arity(1)?;
                    match lane_type(&args[0], t.span, generics)? {
                        s if s.is_float() && !s.is_precision() => Ok(Type::Quaternion(s)),
                        s => Err(Diagnostic::error(
                            Code::TypeMismatch,
                            t.span,
                            format!("Quaternion<{s}> is not supported: the lanes are float16, float32 or float64"),
                        )),
                    }
                }
                // Tiles passed to Group.mac were given their role before checking (tiles.rs).
                "Tile" if args.len() == 3 => Err(Diagnostic::error(
                    Code::UnsupportedFeature,
                    t.span,
                    "a Tile's role (A, B or accumulator) comes from its place in `Group.mac(acc, a, b)`, and this one is not passed to Group.mac",
                )
                .with_note("help: name the role: `CooperativeMatrix<T, Rows, Cols, Use>` (use 0 = A, 1 = B, 2 = accumulator)")),
                "String" => Ok(Type::String),
                // Cajeta's Fence and KernelTimer are Events here (xpu.cajeta).
                "Event" | "Fence" | "KernelTimer" => {
                    arity(0)?;
                    Ok(Type::Event)
                }
                _ => Err(super::type_hints::unknown_type(name, t.span, generics)),
            }
        }
    }
}

/// The first field of a POD whose lane is a precision type (`sfp`, `sint8`, …), whose width
/// the device decides: name and type.
pub(super) fn precision_field(d: &crate::ir::StructDef) -> Option<(String, String)> {
    d.fields
        .iter()
        .find(|(_, t)| t.elem_scalar().is_some_and(ScalarType::is_precision))
        .map(|(n, t)| (n.clone(), t.to_string()))
}

/// The lane type `T` of `Vector<T, N>` / `Matrix<T, R, C>`: a scalar (boolean allowed, for
/// comparison masks).
pub(super) fn lane_type(
    arg: &ast::TypeArg,
    span: crate::diagnostics::Span,
    generics: &HashMap<String, Type>,
) -> Result<ScalarType, Diagnostic> {
    let ast::TypeArg::Type(inner) = arg else {
        return Err(Diagnostic::error(
            Code::TypeMismatch,
            span,
            "the first type argument must be a scalar type",
        ));
    };
    match resolve_type(inner, generics)? {
        Type::Scalar(s) => Ok(s),
        other => Err(Diagnostic::error(
            Code::TypeMismatch,
            inner.span,
            format!("vector and matrix lanes must be scalars, found {other}"),
        )),
    }
}

/// A size argument (`N`, `R`, `C`) of a vector or matrix type: an integer 2, 3 or 4.
fn type_int(arg: &ast::TypeArg, what: &str) -> Result<u8, Diagnostic> {
    let (value, span) = match arg {
        ast::TypeArg::Int(text, span) => (text.parse::<u32>().ok(), *span),
        ast::TypeArg::Type(t) => (None, t.span),
    };
    match value {
        Some(n @ 2..=4) => Ok(n as u8),
        Some(n @ (8 | 16)) if what.contains("Vector") => Err(super::vector_methods::wide_vector(
            n,
            span,
            "`Vector<T, 4>`",
        )),
        _ => Err(Diagnostic::error(
            Code::TypeMismatch,
            span,
            format!("{what} must be 2, 3 or 4"),
        )
        .with_label("not 2, 3 or 4")),
    }
}

/// The format argument of `Image2D<F>`: a `TextureFormat` constant name.
fn format_arg(arg: &ast::TypeArg) -> Result<ImageFormat, Diagnostic> {
    let name = match arg {
        ast::TypeArg::Type(ast::TypeExpr {
            kind: ast::TypeExprKind::Named { name, args },
            ..
        }) if args.is_empty() => name.as_str(),
        _ => "",
    };
    let span = match arg {
        ast::TypeArg::Type(t) => t.span,
        ast::TypeArg::Int(_, s) => *s,
    };
    ImageFormat::from_source_name(name).ok_or_else(|| unknown_format(name, span))
}

/// E0006 for a name that is not a `TextureFormat` constant.
pub fn unknown_format(name: &str, span: crate::diagnostics::Span) -> Diagnostic {
    let known: Vec<&str> = ImageFormat::ALL.iter().map(|(_, n)| *n).collect();
    Diagnostic::error(
        Code::UnknownName,
        span,
        format!("unknown TextureFormat `{name}`"),
    )
    .with_label("not a texture format")
    .with_note(format!("TextureFormat constants: {}", known.join(", ")))
}
