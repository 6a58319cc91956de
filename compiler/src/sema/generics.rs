//! Generic classes and methods of user code, instantiated per use before checking
//! (monomorphization): `class Tile<uint32 TM>` used as `Tile<16>` becomes a class named
//! `Tile<16>` with `TM` replaced by `(uint32) 16` everywhere; `static <T> T max(T a, T b)`
//! called as `max(x, y)` with `float32` arguments becomes a method `max<float32>` with `T`
//! replaced by `float32`. The instances are ordinary classes and methods from then on, so
//! every backend and both host executors see no generics at all. A generic that is never
//! used is parsed but not checked (as C++ templates; Java would check it once).
//!
//! Type arguments are written (`Tile<16>`, `max<float32>(a, b)`, Java's
//! `Util.<float32>max(a, b)`) or, for methods, inferred from the call's arguments
//! (`generics_infer`). What does not instantiate is E0050 with the span of the use.

use super::generics_rewrite::Rewriter;
use super::generics_subst::{type_text, value_range, Bound, Substitute};
use super::generics_walk;
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::syntax::ast::*;
use std::collections::{HashMap, HashSet};

/// The most instances one program may create: a generic that instantiates itself with
/// growing arguments would otherwise never stop.
const MAX_INSTANCES: usize = 256;

/// Where an instance came from, to point diagnostics inside it at the use.
#[derive(Debug, Clone)]
pub struct InstanceOrigin {
    /// The generic declaration's extent.
    pub template: Span,
    /// The instance's name (`Tile<16>`, `max<float32>`).
    pub name: String,
    /// The first use that created it.
    pub used_at: Span,
}

/// The program with every generic replaced by its instances, or `None` when user code
/// declares no generics (nothing to do). Diagnostics go to `diags`.
pub fn expand(
    files: &[(SourceFile, bool)],
    diags: &mut Vec<Diagnostic>,
    origins: &mut Vec<InstanceOrigin>,
) -> Option<Vec<(SourceFile, bool)>> {
    let has_generics = files.iter().filter(|(_, stdlib)| !stdlib).any(|(f, _)| {
        f.classes.iter().any(|c| {
            !c.type_params.is_empty()
                || c.members
                    .iter()
                    .any(|m| matches!(m, Member::Method(m) if !m.type_params.is_empty()))
        })
    });
    if !has_generics {
        return None;
    }
    let mut out: Vec<(SourceFile, bool)> = files.to_vec();
    let mut ex = Expander::default();
    for (fi, (file, stdlib)) in out.iter_mut().enumerate() {
        if !*stdlib {
            ex.take_templates(fi, file);
        }
    }
    for (file, stdlib) in out.iter_mut() {
        if *stdlib {
            continue;
        }
        for class in &mut file.classes {
            ex.rewrite_members(&class.name.name, &mut class.members);
        }
    }
    ex.run_jobs();
    for (fi, class) in ex.class_instances {
        out[fi].0.classes.push(class);
    }
    for (owner, m) in ex.method_instances {
        let class = out
            .iter_mut()
            .flat_map(|(f, _)| f.classes.iter_mut())
            .find(|c| c.name.name == owner);
        if let Some(class) = class {
            class.members.push(Member::Method(Box::new(m)));
        }
    }
    diags.append(&mut ex.diags);
    origins.append(&mut ex.origins);
    Some(out)
}

/// The name a function has in the checked module (SPIR-V entry points, emitted files):
/// its own, except in instances, where `<…>` would be awkward in file names. The kernel
/// `sums` of `Tile<16>` is `Tile_16_sums`, the method `max<float32>` is `max_float32`.
pub fn function_name(class: &str, method: &str) -> String {
    let safe = |s: &str| {
        let mut out = String::new();
        for c in s.chars() {
            if c.is_ascii_alphanumeric() || c == '_' {
                out.push(c);
            } else if !out.ends_with('_') {
                out.push('_');
            }
        }
        out.trim_end_matches('_').to_string()
    };
    if class.contains('<') {
        format!("{}_{}", safe(class), safe(method))
    } else if method.contains('<') {
        safe(method)
    } else {
        method.to_string()
    }
}

/// Adds "instantiated here" to diagnostics inside an instance's generic declaration.
pub fn annotate(diags: &mut [Diagnostic], origins: &[InstanceOrigin]) {
    for d in diags {
        let p = d.primary;
        let inner = origins
            .iter()
            .filter(|o| {
                o.template.file == p.file && o.template.start <= p.start && p.end <= o.template.end
            })
            .min_by_key(|o| o.template.end - o.template.start);
        if let Some(o) = inner {
            d.notes.push(format!(
                "note: in the instance `{}` of this generic",
                o.name
            ));
            d.secondary
                .push((o.used_at, format!("`{}` instantiated here", o.name)));
        }
    }
}

/// An instance to make: a class or a method of a class, with its type arguments (`bounds`).
pub(super) enum Job {
    Class {
        template: String,
        bounds: Vec<Bound>,
        name: String,
    },
    Method {
        owner: String,
        template: String,
        bounds: Vec<Bound>,
        name: String,
    },
}

/// The generics of the program, the instances made so far and those still to make; the
/// rewriter (`generics_rewrite.rs`) reads the declarations and asks it for instances.
#[derive(Default)]
pub(super) struct Expander {
    pub(super) classes: HashMap<String, (usize, ClassDecl, Span)>,
    pub(super) methods: HashMap<(String, String), MethodDecl>,
    /// Return types of non-generic methods, by class then name (`None` if overloaded).
    pub(super) returns: HashMap<String, HashMap<String, Option<TypeExpr>>>,
    made: HashSet<String>,
    jobs: Vec<Job>,
    class_instances: Vec<(usize, ClassDecl)>,
    method_instances: Vec<(String, MethodDecl)>,
    origins: Vec<InstanceOrigin>,
    pub(super) diags: Vec<Diagnostic>,
}

fn extent(c: &ClassDecl) -> Span {
    c.members.iter().fold(c.name.span, |s, m| match m {
        Member::Method(m) | Member::Constructor(m) => s.to(m.span),
        Member::Field(f) => s.to(f.name.span),
    })
}

impl Expander {
    /// Moves the generic classes and methods of one file out of it.
    fn take_templates(&mut self, fi: usize, file: &mut SourceFile) {
        for c in std::mem::take(&mut file.classes) {
            if c.type_params.is_empty() {
                file.classes.push(c);
            } else {
                self.check_params(&c.type_params);
                let span = extent(&c);
                self.classes.insert(c.name.name.clone(), (fi, c, span));
            }
        }
        for c in &mut file.classes {
            self.take_methods(&c.name.name.clone(), &mut c.members);
        }
    }

    fn take_methods(&mut self, class: &str, members: &mut Vec<Member>) {
        let mut returns: HashMap<String, Option<TypeExpr>> = HashMap::new();
        for m in std::mem::take(members) {
            match m {
                Member::Method(m) if !m.type_params.is_empty() => {
                    self.check_params(&m.type_params);
                    if m.annotation("Kernel").is_some() {
                        self.diags.push(
                            Diagnostic::error(
                                Code::GenericInstantiation,
                                m.name.span,
                                format!("kernel `{}` cannot have generic parameters of its own", m.name.name),
                            )
                            .with_label("a generic kernel")
                            .with_note("help: declare the parameters on a generic class holding the kernel (`class K<T> { @Kernel … }`) and launch `K<float32>.k`"),
                        );
                        continue;
                    }
                    let key = (class.to_string(), m.name.name.clone());
                    if self.methods.contains_key(&key) {
                        self.diags.push(
                            Diagnostic::error(
                                Code::DuplicateFunction,
                                m.name.span,
                                format!(
                                    "generic method `{}` is declared twice in `{class}`",
                                    m.name.name
                                ),
                            )
                            .with_label("generic methods cannot be overloaded"),
                        );
                        continue;
                    }
                    self.methods.insert(key, *m);
                }
                Member::Method(m) => {
                    returns
                        .entry(m.name.name.clone())
                        .and_modify(|r| *r = None)
                        .or_insert_with(|| Some(m.ret.clone()));
                    members.push(Member::Method(m));
                }
                other => members.push(other),
            }
        }
        self.returns.insert(class.to_string(), returns);
    }

    /// E0050 for a constant parameter of a type that cannot hold one.
    fn check_params(&mut self, params: &[GenericParam]) {
        for p in params {
            if let Some(t) = &p.value_type {
                if value_range(t).is_none() {
                    self.diags.push(
                        Diagnostic::error(
                            Code::GenericInstantiation,
                            t.span,
                            format!(
                                "generic constant `{}` must have an integer type, not {}",
                                p.name.name,
                                type_text(t)
                            ),
                        )
                        .with_label("not an integer type"),
                    );
                }
            }
        }
    }

    fn rewrite_members(&mut self, class: &str, members: &mut [Member]) {
        for m in members {
            let mut r = Rewriter {
                ex: self,
                class: class.to_string(),
                scopes: Vec::new(),
            };
            match m {
                Member::Method(m) | Member::Constructor(m) => generics_walk::method(m, &mut r),
                Member::Field(f) => generics_walk::ty(&mut f.ty, &mut r),
            }
        }
    }

    /// Creates the instances requested so far, and those they request in turn.
    fn run_jobs(&mut self) {
        while let Some(job) = self.jobs.pop() {
            match job {
                Job::Class {
                    template,
                    bounds,
                    name,
                } => self.make_class(&template, &bounds, name),
                Job::Method {
                    owner,
                    template,
                    bounds,
                    name,
                } => self.make_method(&owner, &template, &bounds, name),
            }
        }
    }

    fn make_class(&mut self, template: &str, bounds: &[Bound], name: String) {
        let Some((fi, decl, _)) = self.classes.get(template) else {
            return;
        };
        let (fi, mut c) = (*fi, decl.clone());
        let mut subst = Substitute::new(&c.type_params, bounds);
        for m in &mut c.members {
            match m {
                Member::Method(m) | Member::Constructor(m) => subst.method(m),
                Member::Field(f) => subst.field(f),
            }
        }
        c.type_params.clear();
        c.name.name = name.clone();
        self.take_methods(&name, &mut c.members);
        self.rewrite_members(&name, &mut c.members);
        self.class_instances.push((fi, c));
    }

    fn make_method(&mut self, owner: &str, template: &str, bounds: &[Bound], name: String) {
        let Some(decl) = self.methods.get(&(owner.to_string(), template.to_string())) else {
            return;
        };
        let mut m = decl.clone();
        Substitute::new(&m.type_params, bounds).method(&mut m);
        m.type_params.clear();
        m.name.name = name;
        let mut r = Rewriter {
            ex: self,
            class: owner.to_string(),
            scopes: Vec::new(),
        };
        generics_walk::method(&mut m, &mut r);
        self.method_instances.push((owner.to_string(), m));
    }

    /// Queues an instance unless it exists; false (with E0050) past [`MAX_INSTANCES`].
    pub(super) fn request(&mut self, key: String, origin: InstanceOrigin, job: Job) -> bool {
        if self.made.contains(&key) {
            return true;
        }
        if self.made.len() >= MAX_INSTANCES {
            self.diags.push(
                Diagnostic::error(
                    Code::GenericInstantiation,
                    origin.used_at,
                    format!(
                        "`{}` would be instance number {} of this program's generics",
                        origin.name,
                        MAX_INSTANCES + 1
                    ),
                )
                .with_label("too many instances")
                .with_note(
                    "a generic that uses itself with growing arguments never stops instantiating",
                ),
            );
            return false;
        }
        self.made.insert(key);
        self.origins.push(origin);
        self.jobs.push(job);
        true
    }
}
