//! Declarations: classes, user methods and stdlib intrinsics (type names are resolved in
//! `type_names.rs`).

use super::type_names::resolve_type;
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{FunctionId, FunctionKind, HostOp, Intrinsic, ScalarType, Type};
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
