//! Semantic analysis: AST → checked, typed [`ir::Module`].
//!
//! `names` collects declarations (user classes and the stdlib's `@Intrinsic` methods),
//! `body` checks statements (scopes, loops, definite assignment, reachability), `expr`
//! and `calls` check expressions, `conversions` and `literals` hold the pure typing rules
//! of SPEC §3/§4, and `ir::const_fold` folds constants. The result carries every implicit
//! conversion explicitly, so backends never re-run type rules.

mod allocations;
mod annotations;
mod assign;
mod bits_permute;
mod body;
pub mod bytes16;
mod bytes16_ops;
mod calls;
mod constructors;
mod conversions;
mod coop;
mod coop_cajeta;
mod device;
mod expr;
mod fn_tables;
mod generics;
mod generics_infer;
mod generics_rewrite;
mod generics_subst;
mod generics_walk;
mod group;
mod hostio;
mod int_precision;
mod intrinsic_calls;
mod kernel_manifest;
mod kernel_print;
mod launch;
mod literals;
mod local_decl;
mod loops;
mod members;
mod memory;
mod names;
mod operators;
mod optional;
mod overloads;
mod pod;
mod precision;
mod presentation;
pub mod quaternion;
mod range_loop;
mod shared_nd;
mod staging;
mod switch;
mod swizzle_assign;
mod target_descriptor;
mod textures;
mod tiles;
mod try_catch;
mod type_hints;
mod type_names;
mod typed_literals;
mod uniformity;
#[cfg(test)]
mod uniformity_tests;
mod value_lowering;
mod vector;
mod vector_buffer;
mod vector_methods;
mod vector_ops;
mod wave_cajeta;
mod wide_vector;
mod wide_vector_masks;
mod wide_vector_ops;

pub use crate::ir::const_fold::{float_to_int, round_to_float};
pub use annotations::METHOD_ANNOTATION_NAMES;

use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, FunctionId, FunctionKind, Type};
use crate::syntax::ast;
use body::FnCtx;

/// Checks a program. `files` pairs each parsed file with whether it is part of the stdlib.
pub fn check(files: &[(ast::SourceFile, bool)]) -> Result<ir::Module, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let mut origins = Vec::new();
    let mut expanded = generics::expand(files, &mut diags, &mut origins);
    if files.iter().any(|(f, stdlib)| !stdlib && f.function_types) {
        let tables = expanded.get_or_insert_with(|| files.to_vec());
        fn_tables::rewrite(tables, &mut diags);
    }
    if let Some(tiled) = tiles::rewrite(expanded.as_deref().unwrap_or(files)) {
        expanded = Some(tiled);
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    let result = check_expanded(expanded.as_deref().unwrap_or(files));
    result.map_err(|mut diags| {
        generics::annotate(&mut diags, &origins);
        diags
    })
}

/// [`check`] on a program whose generics are instantiated.
fn check_expanded(files: &[(ast::SourceFile, bool)]) -> Result<ir::Module, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let syms = names::collect(files, &mut diags);
    for f in &syms.functions {
        check_signature(f, &mut diags);
    }
    let mut module = ir::Module::default();
    let mut warnings = Vec::new();
    let mut calls: Vec<Vec<(FunctionId, Span)>> = Vec::new();
    for (i, f) in syms.functions.iter().enumerate() {
        presentation::signature_warnings(f, &mut warnings);
        let mut ctx = FnCtx::new(&syms, FunctionId(i));
        let body = match &f.decl.body {
            Some(b) if f.constructor => ctx.constructor_body(b),
            Some(b) => ctx.body(b),
            None => Vec::new(),
        };
        let checked = ctx.diags.is_empty();
        diags.append(&mut ctx.diags);
        warnings.append(&mut ctx.warnings);
        calls.push(std::mem::take(&mut ctx.calls));
        let param_count = ctx.param_locals;
        module.functions.push(ir::Function {
            name: generics::function_name(&f.class, &f.decl.name.name),
            qualified_name: format!("{}.{}", f.class, f.decl.name.name),
            kind: f.kind,
            param_count,
            locals: ctx.locals,
            return_type: f.ret.clone(),
            body,
            fast_math: f.decl.annotation("FastMath").is_some(),
            wave_width: annotations::wave_width(f.decl, f.kind, &mut diags),
            span: f.decl.name.span,
        });
        if let (true, Some(last)) = (checked, module.functions.last()) {
            diags.extend(wide_vector_ops::leftover_wide_use(last));
        }
    }
    check_recursion(&module, &calls, &mut diags);
    if diags.is_empty() {
        // On a well-typed module without recursion only: it follows calls.
        uniformity::check(&module, &mut diags);
    }
    if diags.is_empty() {
        value_lowering::lower_module(&mut module);
        // A `@Host @Device` method is checked once per side: one warning each.
        let mut seen = std::collections::HashSet::new();
        warnings.retain(|d: &Diagnostic| seen.insert((d.code, d.primary)));
        warnings.sort_by_key(|d| (d.primary.file, d.primary.start));
        module.warnings = warnings;
        Ok(module)
    } else {
        // A `@Host @Device` method is checked once per side: the same error twice is one.
        let mut seen = std::collections::HashSet::new();
        diags.retain(|d| seen.insert((d.code, d.primary, d.message.clone())));
        Err(diags)
    }
}

fn check_signature(f: &names::UserFunction<'_>, diags: &mut Vec<Diagnostic>) {
    let name = &f.decl.name;
    annotations::check_cajeta_method_annotations(f.decl, f.kind, diags);
    annotations::check_param_annotations(f.decl, f.kind, &f.params, diags);
    wide_vector_ops::check_signature(f, diags);
    match f.kind {
        FunctionKind::Kernel => {
            if f.ret != Type::Void {
                diags.push(
                    Diagnostic::error(
                        Code::KernelSignature,
                        f.decl.ret.span,
                        format!("kernel `{}` must return void, not {}", name.name, f.ret),
                    )
                    .with_label("kernels return nothing")
                    .with_note("help: write results to a KernelBuffer or Image2D parameter"),
                );
            }
            if !f.decl.has_modifier("public") {
                diags.push(Diagnostic::error(
                    Code::KernelSignature,
                    name.span,
                    format!("kernel `{}` must be public", name.name),
                ));
            }
        }
        FunctionKind::Device => {
            if f.ret.is_resource() || f.ret.is_host_only() || f.ret.is_buffer_array() {
                diags.push(Diagnostic::error(
                    Code::KernelSignature,
                    f.decl.ret.span,
                    format!("@Device method `{}` cannot return {}", name.name, f.ret),
                ));
            }
        }
        FunctionKind::Host => {
            // Kernel and @Device parameters of these types are refused below.
            for (p, t) in f.decl.params.iter().zip(&f.params) {
                if local_decl::holds_enum(t) {
                    diags.push(local_decl::enum_storage(t, p.ty.span, "a parameter"));
                }
            }
            if local_decl::holds_enum(&f.ret) {
                diags.push(local_decl::enum_storage(
                    &f.ret,
                    f.decl.ret.span,
                    "a return value",
                ));
            }
            return;
        }
    }
    for (p, t) in f.decl.params.iter().zip(&f.params) {
        let shared_helper_param = f.kind == FunctionKind::Device && matches!(t, Type::Shared(_));
        if matches!(t, Type::Shared(_) | Type::Enum(_)) && !shared_helper_param {
            diags.push(
                Diagnostic::error(
                    Code::InvalidShared,
                    p.ty.span,
                    format!("parameter `{}` of type {t} is not supported", p.name.name),
                )
                .with_note("declare shared arrays in the kernel with `shared T[n]` (@Device helpers may take them as parameters); pass MemoryOrder constants directly"),
            );
            continue;
        }
        if f.kind == FunctionKind::Kernel
            && t.is_value_data()
            && t.mentions_scalar(ir::ScalarType::is_float_precision)
        {
            // The same refusal as float-precision specialization's, so that `check` reports
            // what `build` would: a push constant's type would depend on the variant.
            diags.push(
                Diagnostic::error(
                    Code::KernelSignature,
                    p.name.span,
                    format!(
                        "kernel parameter `{}` has the precision type `{t}`",
                        p.name.name
                    ),
                )
                .with_note("help: take a float32 and convert inside: `afp a = (afp) a32;`"),
            );
            continue;
        }
        if matches!(f.kind, FunctionKind::Kernel | FunctionKind::Device)
            && optional::element(t).is_some()
        {
            diags.push(
                Diagnostic::error(
                    Code::HostOnlyInDevice,
                    p.ty.span,
                    format!("`{t}` is host code: kernels have no optional values"),
                )
                .with_note("help: pass the value, and a flag saying whether there is one"),
            );
            continue;
        }
        if let (FunctionKind::Kernel, Type::Struct(d)) = (f.kind, t) {
            // A POD parameter is one push-constant member whose bytes the host lays out
            // once; a precision-typed field's width would depend on the variant.
            if let Some((field, fty)) = type_names::precision_field(d) {
                diags.push(
                    Diagnostic::error(
                        Code::KernelSignature,
                        p.name.span,
                        format!(
                            "kernel parameter `{}` of POD class `{}` has the field `{field}` of precision type `{fty}`",
                            p.name.name, d.name
                        ),
                    )
                    .with_note("help: give the field a fixed width (float32, float16, int8, …) and convert inside the kernel: `afp s = (afp) p.scale;`"),
                );
                continue;
            }
        }
        let pod_in_helper = f.kind == FunctionKind::Device && matches!(t, Type::Struct(_));
        if body::unresolved(p, t) {
            continue;
        }
        if *t == Type::RayQuery {
            diags.push(
                Diagnostic::error(
                    Code::KernelSignature,
                    p.ty.span,
                    format!(
                        "parameter `{}` of type RayQuery: a ray query is a local of the kernel",
                        p.name.name
                    ),
                )
                .with_note("help: declare it where it is used: `RayQuery q = RayQuery.create();`"),
            );
            continue;
        }
        if f.kind == FunctionKind::Device && t.is_buffer_array() {
            diags.push(
                Diagnostic::error(
                    Code::KernelSignature,
                    p.ty.span,
                    format!(
                        "parameter `{}` of type {t}: buffer arrays are kernel parameters only",
                        p.name.name
                    ),
                )
                .with_note("help: index the array in the kernel (`bufs[i][j]`) and pass the helper the values"),
            );
            continue;
        }
        if t.is_host_only() || *t == Type::Void || pod_in_helper {
            diags.push(
                Diagnostic::error(
                    Code::KernelSignature,
                    p.ty.span,
                    format!(
                        "parameter `{}` of type {t} is not allowed in device code",
                        p.name.name
                    ),
                )
                .with_note("kernel parameters are scalars, vectors, POD classes (kernels only), KernelBuffer<T> and images"),
            );
        }
    }
}

/// Device code may not recurse (SPIR-V has no recursion): report every call that closes a
/// cycle among kernels and @Device helpers.
fn check_recursion(
    module: &ir::Module,
    calls: &[Vec<(FunctionId, Span)>],
    diags: &mut Vec<Diagnostic>,
) {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Active,
        Done,
    }
    fn visit(
        f: usize,
        module: &ir::Module,
        calls: &[Vec<(FunctionId, Span)>],
        marks: &mut [Mark],
        stack: &mut Vec<usize>,
        diags: &mut Vec<Diagnostic>,
    ) {
        marks[f] = Mark::Active;
        stack.push(f);
        for (callee, span) in &calls[f] {
            match marks[callee.0] {
                Mark::Active => {
                    let start = stack.iter().position(|x| *x == callee.0).unwrap_or(0);
                    let cycle: Vec<&str> = stack[start..]
                        .iter()
                        .chain(std::iter::once(&callee.0))
                        .map(|i| module.functions[*i].name.as_str())
                        .collect();
                    diags.push(
                        Diagnostic::error(
                            Code::Recursion,
                            *span,
                            format!("recursion in device code: {}", cycle.join(" → ")),
                        )
                        .with_label("this call closes the cycle")
                        .with_note("GPU code cannot recurse; rewrite it as a loop"),
                    );
                }
                Mark::New => visit(callee.0, module, calls, marks, stack, diags),
                Mark::Done => {}
            }
        }
        stack.pop();
        marks[f] = Mark::Done;
    }
    let mut marks = vec![Mark::New; module.functions.len()];
    for (i, f) in module.functions.iter().enumerate() {
        if f.kind != FunctionKind::Host && marks[i] == Mark::New {
            visit(i, module, calls, &mut marks, &mut Vec::new(), diags);
        }
    }
}
