//! Barrier splitting, as pocl does it: a kernel with `Barrier.workgroup()` becomes one
//! function that runs a whole workgroup on one thread, with no rendezvous between threads.
//!
//! The kernel body is cut at its barriers into *regions* (runs of statements without a
//! barrier); each region becomes a function `cajeta.cpu.region.K` that runs one invocation
//! through it, and the workgroup function calls it in a loop over the workgroup's
//! invocations (x fastest, then y, then z), one region after the other. An `if` or a loop
//! with a barrier inside stays control flow of the workgroup function: its condition is a
//! region of its own (evaluated by every invocation; sema's E0046 makes it uniform, so any
//! invocation's value is the workgroup's), and its branches or body are split in turn, so a
//! barrier inside a uniform `for` loop (a tiled `sgemm`) splits the loop, as pocl's
//! barrier-in-loop handling does.
//!
//! A local that more than one region uses (or one region inside a split loop, which runs it
//! again) lives in a *context array*: one array per such local in the memory the runtime
//! hands the workgroup (`InvocationContext::private`, laid out by `split_private.rs`),
//! copied into the region's own `alloca`s at its start and back at its end, so LLVM keeps
//! it in registers inside the region. A byte per invocation records that it has returned:
//! later regions skip it, as a GPU's finished invocation no longer runs.
//!
//! Each region is a function of the context alone, `cajeta.cpu.region.K(ptr %ctx)`, of the
//! same shape as a kernel without barriers, so the region loops over the invocations get
//! the same SIMD-lane form (`simd.rs`, one region at a time, `jit.rs`): a region the vector
//! form takes runs 16 invocations per call, one the vector form refuses keeps its scalar
//! loop (`cajeta.cpu.regionwg.K`). A uniform condition without side effects is evaluated
//! once, by the first invocation still running.
//!
//! What this does not split (a barrier inside an expression or a `@Device` helper,
//! `Workgroup.reduce`, a `break`/`continue` leaving a split loop, a kernel parameter
//! assigned to) returns `None`: the kernel then runs on a team of threads (`dispatch.rs`).

use std::collections::HashMap;
use std::fmt::Write;

use super::super::lower::FnLower;
use super::super::push::PushBlock;
use super::super::{types, NO_TABLES};
use super::hooks::{self, LOCAL_ID, WORKGROUP_ID, WORKGROUP_SIZE};
use super::split_plan::{is_pure, jumps, locals_of, plan, region_uses, Node, Work};
use super::split_private;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, Expr, Type};

/// The name of the function returning the bytes of context arrays one invocation needs
/// (`split_private.rs`).
pub(crate) const PRIVATE_BYTES: &str = "cajeta.cpu.private_bytes";

/// The prefix of a region's function (`cajeta.cpu.region.K`: one invocation through it).
pub(crate) const REGION_PREFIX: &str = "cajeta.cpu.region.";
/// The prefix of a region's scalar loop over the invocations (`cajeta.cpu.regionwg.K`),
/// which `jit.rs` replaces with the region's SIMD-lane loop when the vector form takes it.
pub(crate) const REGION_LOOP_PREFIX: &str = "cajeta.cpu.regionwg.";

/// The split kernel: its regions' functions and the workgroup function `name`.
pub(crate) struct Split {
    /// LLVM IR text of the functions.
    pub(crate) text: String,
    /// The regions run in a loop over the invocations: (region function, its scalar loop).
    pub(crate) looped: Vec<(String, String)>,
}

/// Splits the kernel `f` lowers at its barriers; `entry` makes its buffer handles, `push`
/// is its push-constant block. `Ok(None)` for a shape this does not split.
pub(crate) fn split(
    f: &mut FnLower,
    module: &ir::Module,
    entry: &str,
    push: &PushBlock,
    name: &str,
) -> Result<Option<Split>, Diagnostic> {
    let kernel = f.kernel;
    let Some(nodes) = plan(module, &kernel.body) else {
        return Ok(None);
    };
    // A parameter is read from the push-constant block by every region; one the kernel
    // assigns to would need its first value kept per invocation.
    let mut assigned_param = false;
    crate::ir::visit::for_each_local_use(&kernel.body, &mut |l, u| {
        assigned_param |= l.0 < kernel.param_count && u == crate::ir::visit::LocalUse::Store;
    });
    if assigned_param {
        return Ok(None);
    }
    // The context-array locals: used by more than one region, or by one a loop repeats.
    let mut uses = Vec::new();
    region_uses(&nodes, false, &mut uses);
    let mut count: HashMap<usize, (usize, bool)> = HashMap::new();
    for (locals, in_loop) in &uses {
        for &l in locals {
            let c = count.entry(l).or_default();
            c.0 += 1;
            c.1 |= *in_loop;
        }
    }
    let mut fields = vec!["i8".to_string()];
    let mut field_of = HashMap::new();
    for (i, local) in kernel.locals.iter().enumerate() {
        let Some(&(n, in_loop)) = count.get(&i) else {
            continue;
        };
        if i < kernel.param_count || (n < 2 && !in_loop) {
            continue;
        }
        if matches!(local.ty, Type::Shared(_) | Type::Void)
            || super::super::textures::is_resource_argument(&local.ty)
        {
            continue;
        }
        let ty = match super::pods::pod_local_bytes(&local.ty) {
            Some(bytes) => format!("[{bytes} x i8]"),
            None => types::value(&local.ty, local.span)?.to_string(),
        };
        field_of.insert(i, (fields.len(), ty.clone()));
        fields.push(ty);
    }
    let returns = jumps(&kernel.body, None);
    let mut s = Skeleton {
        f,
        push,
        field_of: &field_of,
        field_types: &fields[1..],
        returns,
        regions: Vec::new(),
        looped: Vec::new(),
        text: String::new(),
        next: 0,
    };
    s.text.push_str("  br label %s.first\ns.first:\n");
    if returns {
        // Nobody has returned yet.
        s.wi_loop(None, Cond::No);
    }
    s.nodes(&nodes)?;
    s.text.push_str("  ret void\n");
    let Skeleton {
        regions,
        text: skel,
        looped,
        ..
    } = s;
    let mut text = split_private::private_bytes_function(PRIVATE_BYTES, &fields[1..]);
    for (k, body) in regions.iter().enumerate() {
        // External, so that the region survives inlining for the vector form (`jit.rs`).
        let _ = write!(
            text,
            "\ndefine void @\"{REGION_PREFIX}{k}\"(ptr %ctx) alwaysinline {NO_TABLES} {{\nentry:\n{}{}{}{}}}\n",
            hooks::prologue(),
            f.allocas,
            entry,
            body
        );
    }
    let mut names = Vec::new();
    for k in looped {
        let (region, wg) = (
            format!("{REGION_PREFIX}{k}"),
            format!("{REGION_LOOP_PREFIX}{k}"),
        );
        // `noinline`, so that the call stays for `jit.rs` to point at the vector form.
        text.push_str(&hooks::workgroup_loop(&wg, &region).replacen(
            "(ptr %ctx) {",
            "(ptr %ctx) noinline {",
            1,
        ));
        names.push((region, wg));
    }
    let mut prologue = workgroup_prologue();
    for line in split_private::layout_lines("%ctx", &fields[1..]) {
        let _ = writeln!(prologue, "  {line}");
    }
    let _ = write!(
        text,
        "\ndefine void @\"{name}\"(ptr %ctx) {NO_TABLES} {{\nentry:\n{}{}}}\n",
        prologue, skel
    );
    Ok(Some(Split {
        text,
        looped: names,
    }))
}

/// The workgroup function's first lines: its own copy `%c` of the context (the regions
/// read their ids there), the workgroup's size and first global id, the id fields of `%c`,
/// `%cpu.pv.*` (the context arrays, `split_private.rs`; byte 0 of the header is a split
/// condition's value).
fn workgroup_prologue() -> String {
    let mut s = format!(
        "  %c = alloca %cajeta.cpu.ctx\n  call void @llvm.memcpy.p0.p0.i64(ptr %c, ptr %ctx, i64 {}, i1 false)\n",
        hooks::CONTEXT_BYTES
    );
    for axis in 0..3 {
        let _ = write!(
            s,
            "  %sp{axis} = getelementptr inbounds %cajeta.cpu.ctx, ptr %ctx, i32 0, i32 {WORKGROUP_SIZE}, i32 {axis}\n  %size{axis} = load i32, ptr %sp{axis}\n  %gp{axis} = getelementptr inbounds %cajeta.cpu.ctx, ptr %ctx, i32 0, i32 {WORKGROUP_ID}, i32 {axis}\n  %group{axis} = load i32, ptr %gp{axis}\n  %base{axis} = mul i32 %group{axis}, %size{axis}\n  %lp{axis} = getelementptr inbounds %cajeta.cpu.ctx, ptr %c, i32 0, i32 {LOCAL_ID}, i32 {axis}\n  %ip{axis} = getelementptr inbounds %cajeta.cpu.ctx, ptr %c, i32 0, i32 {}, i32 {axis}\n",
            hooks::GLOBAL_ID
        );
    }
    s
}

/// Whether a loop over the invocations evaluates a condition, and in how many of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cond {
    /// A region of statements.
    No,
    /// In every invocation (it has side effects); the last one's value is kept.
    All,
    /// In the first invocation that has not returned.
    Once,
}

/// Writes the workgroup function's body and lowers the regions.
struct Skeleton<'f, 'a, 'k> {
    f: &'f mut FnLower<'a>,
    push: &'k PushBlock,
    /// Per context-array local: its field (from 1) and its LLVM type.
    field_of: &'k HashMap<usize, (usize, String)>,
    /// The fields' LLVM types, field 1 first.
    field_types: &'k [String],
    /// Whether the kernel has a `return` (regions then skip invocations that took one).
    returns: bool,
    /// The regions' bodies, in order.
    regions: Vec<String>,
    /// The regions run in a loop over all the invocations (each once).
    looped: Vec<usize>,
    /// The workgroup function's body.
    text: String,
    next: usize,
}

impl Skeleton<'_, '_, '_> {
    fn label(&mut self) -> String {
        self.next += 1;
        format!("s{}", self.next)
    }

    fn nodes(&mut self, nodes: &[Node]) -> Result<(), Diagnostic> {
        for n in nodes {
            match n {
                Node::Region(stmts) => {
                    let k = self.region(Work::Stmts(stmts))?;
                    self.wi_loop(Some(k), Cond::No);
                }
                Node::If {
                    cond,
                    then,
                    otherwise,
                } => {
                    let (t, e, j) = (self.label(), self.label(), self.label());
                    let v = self.condition(cond)?;
                    let _ = writeln!(self.text, "  br i1 {v}, label %{t}, label %{e}");
                    let _ = writeln!(self.text, "{t}:");
                    self.nodes(then)?;
                    let _ = writeln!(self.text, "  br label %{j}\n{e}:");
                    self.nodes(otherwise)?;
                    let _ = writeln!(self.text, "  br label %{j}\n{j}:");
                }
                Node::Loop {
                    pre_cond,
                    body,
                    continuing,
                    post_cond,
                } => {
                    let (h, b, c, x) = (self.label(), self.label(), self.label(), self.label());
                    let _ = writeln!(self.text, "  br label %{h}\n{h}:");
                    if let Some(cond) = pre_cond {
                        let v = self.condition(cond)?;
                        let _ = writeln!(self.text, "  br i1 {v}, label %{b}, label %{x}");
                    } else {
                        let _ = writeln!(self.text, "  br label %{b}");
                    }
                    let _ = writeln!(self.text, "{b}:");
                    self.nodes(body)?;
                    let _ = writeln!(self.text, "  br label %{c}\n{c}:");
                    self.nodes(continuing)?;
                    if let Some(cond) = post_cond {
                        let v = self.condition(cond)?;
                        let _ = writeln!(self.text, "  br i1 {v}, label %{h}, label %{x}");
                    } else {
                        let _ = writeln!(self.text, "  br label %{h}");
                    }
                    let _ = writeln!(self.text, "{x}:");
                }
            }
        }
        Ok(())
    }

    /// Evaluates `cond` in every invocation (a region of its own); returns the value's name.
    fn condition(&mut self, cond: &Expr) -> Result<String, Diagnostic> {
        let k = self.region(Work::Cond(cond))?;
        // False when every invocation has returned: a split loop then ends.
        self.text.push_str("  store i8 0, ptr %cpu.pv.base\n");
        // The condition is uniform (sema, E0046): without side effects, the first
        // invocation still running gives the workgroup's value.
        self.wi_loop(Some(k), if is_pure(cond) { Cond::Once } else { Cond::All });
        let v = format!("%{}.f", self.label());
        let _ = writeln!(
            self.text,
            "  {v}.b = load i8, ptr %cpu.pv.base\n  {v} = icmp ne i8 {v}.b, 0"
        );
        Ok(v)
    }

    /// Lowers one region's function body; returns its number.
    fn region(&mut self, work: Work) -> Result<usize, Diagnostic> {
        let f = &mut *self.f;
        let saved = std::mem::take(&mut f.body);
        f.block = "entry".to_string();
        f.region = true;
        let used = locals_of(&work);
        let mut copy = Vec::new();
        for l in used {
            if let Some((field, ty)) = self.field_of.get(&l) {
                copy.push((l, *field, ty.clone()));
            }
        }
        for line in split_private::layout_lines("%ctx", self.field_types)
            .into_iter()
            .chain(split_private::index_lines("%ctx"))
        {
            f.emit(line);
        }
        if self.returns {
            // An invocation that has returned skips the region.
            let [d, z] = f.tmps();
            let (go, skip) = (f.label("go"), f.label("skip"));
            f.emit(format!("{d} = load i8, ptr %cpu.pv.me"));
            f.emit(format!("{z} = icmp eq i8 {d}, 0"));
            f.emit(format!("br i1 {z}, label %{go}, label %{skip}"));
            f.start_block(&skip);
            f.emit("ret void");
            f.start_block(&go);
        }
        for (l, field, ty) in &copy {
            let [p, v] = f.tmps();
            f.emit(format!(
                "{p} = getelementptr inbounds {ty}, ptr %cpu.pv.f{field}, i64 %cpu.pv.i"
            ));
            f.emit(format!("{v} = load {ty}, ptr {p}"));
            f.emit(format!("store {ty} {v}, ptr %l{l}"));
        }
        let result = (|| {
            f.load_push_block(self.push, f.kernel.span)?;
            match work {
                Work::Stmts(stmts) => {
                    for s in stmts {
                        f.stmt(s)?;
                    }
                    Ok(())
                }
                Work::Cond(c) => {
                    // Byte 0 of the header: any lane's value is the workgroup's (uniform).
                    let v = f.expr(c)?;
                    let z = f.tmp();
                    f.emit(format!("{z} = zext i1 {} to i8", v.text));
                    f.emit(format!("store i8 {z}, ptr %cpu.pv.base"));
                    Ok(())
                }
            }
        })();
        match result {
            Ok(()) => {}
            Err(e) => {
                f.region = false;
                f.body = saved;
                return Err(e);
            }
        };
        for (l, field, ty) in &copy {
            let [p, v] = f.tmps();
            f.emit(format!("{v} = load {ty}, ptr %l{l}"));
            f.emit(format!(
                "{p} = getelementptr inbounds {ty}, ptr %cpu.pv.f{field}, i64 %cpu.pv.i"
            ));
            f.emit(format!("store {ty} {v}, ptr {p}"));
        }
        f.emit("ret void");
        f.region = false;
        let body = std::mem::replace(&mut f.body, saved);
        self.regions.push(body);
        Ok(self.regions.len() - 1)
    }

    /// Runs region `k` for every invocation that has not returned: a call of its loop over
    /// the invocations (`cajeta.cpu.regionwg.K`, or the SIMD-lane one `jit.rs` puts in its
    /// place), or, for a condition without side effects (`Cond::Once`), a loop here (x
    /// fastest) that sets the ids in `%c` and calls the region for the first invocation
    /// still running. Without a region, it marks every invocation as not returned.
    fn wi_loop(&mut self, k: Option<usize>, cond: Cond) {
        if let (Some(k), false) = (k, cond == Cond::Once) {
            self.looped.push(k);
            let _ = writeln!(
                self.text,
                "  call void @\"{REGION_LOOP_PREFIX}{k}\"(ptr %ctx)"
            );
            return;
        }
        let t = self.label();
        let mut s = format!("  br label %{t}.pre\n{t}.pre:\n  br label %{t}.zh\n");
        let axes = [
            ("z", 2, "pre", "end"),
            ("y", 1, "zs", "zl"),
            ("x", 0, "ys", "yl"),
        ];
        for (n, axis, from, out) in axes {
            let inner = match n {
                "z" => "yh",
                "y" => "xh",
                _ => "run",
            };
            let _ = write!(
                s,
                "{t}.{n}h:\n  %{t}.{n} = phi i32 [ 0, %{t}.{from} ], [ %{t}.{n}n, %{t}.{n}l ]\n  %{t}.{n}c = icmp ult i32 %{t}.{n}, %size{axis}\n  br i1 %{t}.{n}c, label %{t}.{n}s, label %{t}.{out}\n\
                 {t}.{n}s:\n  store i32 %{t}.{n}, ptr %lp{axis}\n  %{t}.{n}g = add i32 %base{axis}, %{t}.{n}\n  store i32 %{t}.{n}g, ptr %ip{axis}\n"
            );
            // The linear index: ((z * size1) + y) * size0 + x.
            match n {
                "z" => {
                    let _ = writeln!(s, "  %{t}.zi = mul i32 %{t}.z, %size1");
                }
                "y" => {
                    let _ = writeln!(
                        s,
                        "  %{t}.ya = add i32 %{t}.zi, %{t}.y\n  %{t}.yi = mul i32 %{t}.ya, %size0"
                    );
                }
                _ => {
                    let _ = writeln!(
                        s,
                        "  %{t}.i = add i32 %{t}.yi, %{t}.x\n  %{t}.p = getelementptr i8, ptr %cpu.pv.done, i32 %{t}.i"
                    );
                }
            }
            let _ = writeln!(s, "  br label %{t}.{inner}");
        }
        let _ = writeln!(s, "{t}.run:");
        match k {
            None => {
                let _ = writeln!(s, "  store i8 0, ptr %{t}.p\n  br label %{t}.xl");
            }
            Some(k) => {
                // The first invocation that has not returned evaluates the condition.
                let _ = writeln!(
                    s,
                    "  %{t}.d = load i8, ptr %{t}.p\n  %{t}.dz = icmp eq i8 %{t}.d, 0\n  br i1 %{t}.dz, label %{t}.call, label %{t}.xl\n{t}.call:\n  call void @\"{REGION_PREFIX}{k}\"(ptr %c)\n  br label %{t}.end"
                );
            }
        }
        for (n, head) in [("x", "xh"), ("y", "yh"), ("z", "zh")] {
            let _ = writeln!(
                s,
                "{t}.{n}l:\n  %{t}.{n}n = add i32 %{t}.{n}, 1\n  br label %{t}.{head}"
            );
        }
        let _ = writeln!(s, "{t}.end:");
        self.text.push_str(&s);
    }
}
