//! Declarations: classes, user methods and stdlib intrinsics, and type-name resolution.

use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{
    FunctionId, FunctionKind, HostOp, ImageFormat, Intrinsic, ScalarType, TextureDim, Type,
};
use crate::syntax::ast;
use std::collections::HashMap;

/// Older Cajeta names accepted as aliases (SPEC §1): `cajeta.xpu.core`'s `Buffer`, `Stream`
/// and `Thread`, and the `GpuThread` / `GpuStream` of Cajeta's `cajeta.gpu` package.
const ALIASES: &[(&str, &str)] = &[
    ("Buffer", "KernelBuffer"),
    ("Stream", "KernelStream"),
    ("Thread", "KernelThread"),
    ("GpuThread", "KernelThread"),
    ("GpuStream", "KernelStream"),
];

/// Canonical class name for a possibly aliased one.
pub fn canonical_class(name: &str) -> &str {
    ALIASES
        .iter()
        .find(|(a, _)| *a == name)
        .map(|(_, c)| *c)
        .unwrap_or(name)
}

/// A user-written method, with its resolved signature.
#[derive(Debug, Clone)]
pub struct UserFunction<'a> {
    /// The declaration.
    pub decl: &'a ast::MethodDecl,
    /// Declaring class.
    pub class: String,
    /// Kernel, device helper or host.
    pub kind: FunctionKind,
    /// Parameter types (resolution errors leave the function out of checking).
    pub params: Vec<Type>,
    /// Return type; for a constructor, the POD type it builds.
    pub ret: Type,
    /// A constructor of the POD class `class` (`constructors.rs`): host code that starts from a
    /// zeroed value held in `this` and returns it.
    pub constructor: bool,
}

impl UserFunction<'_> {
    /// Whether the written return type did not resolve (E0007 at the declaration, `ret`
    /// left void): its `return`s and the values of its calls are then not checked against
    /// a type nobody wrote.
    pub fn ret_unresolved(&self) -> bool {
        !self.constructor
            && self.ret == Type::Void
            && !matches!(self.decl.ret.kind, ast::TypeExprKind::Void)
    }
}

/// A stdlib method carrying `@Intrinsic`.
#[derive(Debug, Clone)]
pub struct IntrinsicMethod<'a> {
    /// The declaration (its types may mention the class's or method's `T`).
    pub decl: &'a ast::MethodDecl,
    /// Operation in device code.
    pub device: Option<Intrinsic>,
    /// Operation in host code.
    pub host: Option<HostOp>,
    /// `static` method.
    pub is_static: bool,
    /// The first parameter is a CUDA-style lane mask (`@Intrinsic(…, ignore = "mask")`):
    /// checked and evaluated, but not passed to the operation, since on Vulkan every active
    /// lane of the wave takes part.
    pub ignores_mask: bool,
}

/// All names visible to the checker.
#[derive(Default)]
pub struct Symbols<'a> {
    /// User methods; the index is the [`FunctionId`].
    pub functions: Vec<UserFunction<'a>>,
    /// User methods by class, then name.
    pub user_methods: HashMap<String, HashMap<String, FunctionId>>,
    /// Stdlib intrinsic methods by class, then name (overloads by arity).
    pub intrinsics: HashMap<String, HashMap<String, Vec<IntrinsicMethod<'a>>>>,
    /// Stdlib class constants (`@Constant(n) static final MemoryOrder Relaxed;`) by class,
    /// then name: the type and the value.
    pub constants: HashMap<String, HashMap<String, (Type, crate::ir::Constant)>>,
    /// POD classes (user classes with fields) by name: the type names resolve to.
    pub pods: HashMap<String, Type>,
    /// The constructors of POD classes, by class name, in declaration order.
    pub constructors: HashMap<String, Vec<FunctionId>>,
    /// Stdlib query fields (`@Intrinsic("device.subgroup_size") static final uint32
    /// subgroupSize;`) by class, then name: the type and the query (SPEC §8).
    pub query_fields: HashMap<String, HashMap<String, (Type, crate::ir::DeviceQuery)>>,
    /// `@Host @Device` methods: the device function (the one `user_methods` names) to its
    /// host twin, a second function from the same declaration that host code calls.
    pub host_twins: HashMap<FunctionId, FunctionId>,
}

/// Stdlib classes whose values are only their `@Constant` fields (enum-like): the type of
/// such a field is [`Type::Enum`].
pub const ENUM_CLASSES: &[&str] = &[
    "MemoryOrder",
    "Capability",
    "GroupOp",
    "MemoryKind",
    "CoopLayout",
    "ReduceOp",
];

impl<'a> Symbols<'a> {
    /// Whether `name` names a class (user or stdlib).
    pub fn is_class(&self, name: &str) -> bool {
        let name = canonical_class(name);
        self.user_methods.contains_key(name)
            || self.intrinsics.contains_key(name)
            || self.constants.contains_key(name)
            || name == "System"
    }

    /// Intrinsic overloads of `class.method`.
    pub fn intrinsic(&self, class: &str, method: &str) -> Option<&Vec<IntrinsicMethod<'a>>> {
        self.intrinsics.get(canonical_class(class))?.get(method)
    }
}

fn string_arg(e: &ast::Expr) -> Option<&str> {
    match &e.kind {
        ast::ExprKind::Str(s) => Some(s),
        _ => None,
    }
}

/// What an `@Intrinsic` annotation says: the device and host operations, and whether the
/// first parameter is an ignored lane mask.
type IntrinsicOps = (Option<Intrinsic>, Option<HostOp>, bool);

/// Reads `@Intrinsic("op")` / `@Intrinsic(device = "op", host = "host.op")`, each optionally
/// with `ignore = "mask"`.
fn intrinsic_ops(ann: &ast::Annotation) -> Result<IntrinsicOps, Diagnostic> {
    let bad = |what: &str| {
        Diagnostic::error(
            Code::InvalidAnnotation,
            ann.span,
            format!("unknown intrinsic `{what}`"),
        )
    };
    let mut device = None;
    let mut host = None;
    let mut ignores_mask = false;
    for (key, value) in &ann.args {
        let name = string_arg(value).ok_or_else(|| {
            Diagnostic::error(
                Code::InvalidAnnotation,
                value.span,
                "@Intrinsic takes string arguments",
            )
        })?;
        let side = key.as_ref().map(|k| k.name.as_str());
        match side {
            Some("device") => device = Some(Intrinsic::from_name(name).ok_or_else(|| bad(name))?),
            Some("host") => host = Some(HostOp::from_name(name).ok_or_else(|| bad(name))?),
            None if name.starts_with("host.") => {
                host = Some(HostOp::from_name(name).ok_or_else(|| bad(name))?)
            }
            None => device = Some(Intrinsic::from_name(name).ok_or_else(|| bad(name))?),
            Some("ignore") if name == "mask" => ignores_mask = true,
            Some(other) => {
                return Err(Diagnostic::error(
                    Code::InvalidAnnotation,
                    ann.span,
                    format!("@Intrinsic has no argument `{other}`"),
                ))
            }
        }
    }
    Ok((device, host, ignores_mask))
}

/// A stdlib `@Constant(n)` field: its type and value.
fn stdlib_constant(
    f: &ast::FieldDecl,
    diags: &mut Vec<Diagnostic>,
) -> Option<(Type, crate::ir::Constant)> {
    let ty = resolve_type(&f.ty, &HashMap::new()).ok();
    annotated_field(
        f,
        "Constant",
        |arg| constant_value(arg, ty.as_ref()?),
        "@Constant takes one number: a decimal integer or float, negated or divided (`-1`, `1.0 / 0.0`)",
        diags,
    )
}

/// A number written in a `@Constant(…)`.
#[derive(Clone, Copy)]
enum Number {
    Int(i128),
    Float(f64),
}

impl Number {
    fn float(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Float(x) => x,
        }
    }
}

/// The value of a `@Constant` argument as a constant of scalar type `ty`: integers keep
/// their two's-complement bits in the type's width, floats are rounded to the type.
fn constant_value(e: &ast::ExprKind, ty: &Type) -> Option<crate::ir::Constant> {
    fn number(e: &ast::ExprKind) -> Option<Number> {
        Some(match e {
            ast::ExprKind::Int(text) => Number::Int(text.parse::<i128>().ok()?),
            ast::ExprKind::Float(text) => Number::Float(super::literals::parse_float(text).ok()?.0),
            ast::ExprKind::Unary(ast::UnOp::Neg, x) => match number(&x.kind)? {
                Number::Int(i) => Number::Int(-i),
                Number::Float(v) => Number::Float(-v),
            },
            ast::ExprKind::Binary(ast::BinOp::Div, a, b) => {
                Number::Float(number(&a.kind)?.float() / number(&b.kind)?.float())
            }
            _ => return None,
        })
    }
    let n = number(e)?;
    let Type::Scalar(s) = ty else {
        // Enumeration-like classes (`MemoryOrder`, `Capability`) number their members.
        return match n {
            Number::Int(i) => u64::try_from(i).ok().map(crate::ir::Constant::Int),
            Number::Float(_) => None,
        };
    };
    Some(match n {
        Number::Int(i) if s.is_integer() || *s == ScalarType::Bool => {
            let bits = s.bits().clamp(1, 64);
            let mask = if bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            crate::ir::Constant::Int((i as u128 as u64) & mask)
        }
        _ if s.is_float() => {
            crate::ir::Constant::Float(crate::ir::const_fold::round_to_float(*s, n.float()))
        }
        _ => return None,
    })
}

/// A stdlib field annotated `@NAME(arg)`: its type and what `parse` makes of the one
/// positional argument. `None` for fields without the annotation; a type that does not
/// resolve, or an argument `parse` refuses (reported with `bad_argument`), is an error.
pub(super) fn annotated_field<T>(
    f: &ast::FieldDecl,
    name: &str,
    parse: impl FnOnce(&ast::ExprKind) -> Option<T>,
    bad_argument: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<(Type, T)> {
    let ann = f.annotations.iter().find(|a| a.name.name == name)?;
    let value = match ann.args.as_slice() {
        [(None, arg)] => parse(&arg.kind),
        _ => None,
    };
    match (value, resolve_type(&f.ty, &HashMap::new())) {
        (Some(v), Ok(t)) => Some((t, v)),
        (_, Err(d)) => {
            diags.push(d);
            None
        }
        (None, _) => {
            diags.push(Diagnostic::error(
                Code::InvalidAnnotation,
                ann.span,
                bad_argument,
            ));
            None
        }
    }
}

/// Collects every class and method. `files` pairs each AST with whether it is stdlib.
pub fn collect<'a>(
    files: &'a [(ast::SourceFile, bool)],
    diags: &mut Vec<Diagnostic>,
) -> Symbols<'a> {
    let mut syms = Symbols {
        pods: super::pod::collect_pods(files, diags),
        ..Symbols::default()
    };
    for (file, is_stdlib) in files {
        for class in &file.classes {
            let cname = class.name.name.clone();
            if *is_stdlib {
                let table = syms.intrinsics.entry(cname.clone()).or_default();
                for member in &class.members {
                    let m = match member {
                        ast::Member::Method(m) => m,
                        ast::Member::Field(f) => {
                            if let Some(c) = stdlib_constant(f, diags) {
                                syms.constants
                                    .entry(cname.clone())
                                    .or_default()
                                    .insert(f.name.name.clone(), c);
                            }
                            if let Some(q) = super::device::query_field_decl(f, diags) {
                                syms.query_fields
                                    .entry(cname.clone())
                                    .or_default()
                                    .insert(f.name.name.clone(), q);
                            }
                            continue;
                        }
                        ast::Member::Constructor(_) => continue,
                    };
                    let Some(ann) = m.annotation("Intrinsic") else {
                        continue;
                    };
                    match intrinsic_ops(ann) {
                        Ok((device, host, ignores_mask)) => table
                            .entry(m.name.name.clone())
                            .or_default()
                            .push(IntrinsicMethod {
                                decl: m,
                                device,
                                host,
                                is_static: m.has_modifier("static"),
                                ignores_mask,
                            }),
                        Err(d) => diags.push(d),
                    }
                }
                continue;
            }
            if syms.user_methods.contains_key(&cname) {
                diags.push(Diagnostic::error(
                    Code::Redeclaration,
                    class.name.span,
                    format!("class `{cname}` is declared twice"),
                ));
                continue;
            }
            super::annotations::refuse_annotations(&class.annotations, "a class", diags);
            let mut methods: HashMap<String, FunctionId> = HashMap::new();
            for member in &class.members {
                let m = match member {
                    ast::Member::Method(m) => m,
                    // Fields make the class a POD type (collected by `pod::collect_pods`).
                    ast::Member::Field(f) => {
                        super::annotations::refuse_annotations(&f.annotations, "a field", diags);
                        continue;
                    }
                    ast::Member::Constructor(c) => {
                        let Some(pod) =
                            super::constructors::constructor_of(c, class, &syms.pods, diags)
                        else {
                            continue;
                        };
                        let id = FunctionId(syms.functions.len());
                        syms.functions.push(UserFunction {
                            decl: c,
                            class: cname.clone(),
                            kind: FunctionKind::Host,
                            params: Vec::new(),
                            ret: pod,
                            constructor: true,
                        });
                        syms.constructors.entry(cname.clone()).or_default().push(id);
                        continue;
                    }
                };
                if let Some(&prev) = methods.get(&m.name.name) {
                    diags.push(
                        Diagnostic::error(
                            Code::DuplicateFunction,
                            m.name.span,
                            format!(
                                "method `{}` is declared twice in class `{cname}`",
                                m.name.name
                            ),
                        )
                        .with_secondary(
                            syms.functions[prev.0].decl.name.span,
                            "first declared here",
                        )
                        .with_note("cajetac does not support overloading user methods"),
                    );
                    continue;
                }
                let id = FunctionId(syms.functions.len());
                let kind = super::annotations::function_kind(m, diags);
                syms.functions.push(UserFunction {
                    decl: m,
                    class: cname.clone(),
                    kind,
                    params: Vec::new(),
                    ret: Type::Void,
                    constructor: false,
                });
                methods.insert(m.name.name.clone(), id);
                if kind == FunctionKind::Device && m.annotation("Host").is_some() {
                    // One declaration, checked and compiled once for each side.
                    syms.host_twins.insert(id, FunctionId(syms.functions.len()));
                    syms.functions.push(UserFunction {
                        decl: m,
                        class: cname.clone(),
                        kind: FunctionKind::Host,
                        params: Vec::new(),
                        ret: Type::Void,
                        constructor: false,
                    });
                }
            }
            syms.user_methods.insert(cname, methods);
        }
    }
    // Resolve signatures once all class names are known.
    for i in 0..syms.functions.len() {
        let decl = syms.functions[i].decl;
        let mut params = Vec::new();
        for p in &decl.params {
            match resolve_type(&p.ty, &syms.pods) {
                Ok(t) => params.push(t),
                Err(d) => {
                    diags.push(d);
                    params.push(Type::Void);
                }
            }
        }
        syms.functions[i].params = params;
        if !syms.functions[i].constructor {
            syms.functions[i].ret = resolve_type(&decl.ret, &syms.pods).unwrap_or_else(|d| {
                diags.push(d);
                Type::Void
            });
        }
    }
    super::constructors::check_constructor_overloads(&mut syms, diags);
    syms
}

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
                Type::Scalar(_)
                | Type::String
                | Type::Buffer(_)
                | Type::Vector(..)
                | Type::Matrix(..)
                | Type::Quaternion(_)
                | Type::Struct(_) => Ok(Type::Array(Box::new(elem))),
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
