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
//! again) lives in a *context array*: one `%cajeta.cpu.priv` struct per invocation in the
//! memory the runtime hands the workgroup (`InvocationContext::private`), copied into the
//! region's own `alloca`s at its start and back at its end, so LLVM keeps it in registers
//! inside the region. Field 0 of the struct records that the invocation has returned: later
//! regions skip it, as a GPU's finished invocation no longer runs.
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
use crate::diagnostics::Diagnostic;
use crate::ir::{self, Expr, Type};

/// The name of the function returning `%cajeta.cpu.priv`'s size in bytes.
pub(crate) const PRIVATE_BYTES: &str = "cajeta.cpu.private_bytes";

/// The split kernel: its regions' functions and the workgroup function `name`.
pub(crate) struct Split {
    /// LLVM IR text of the functions and of `%cajeta.cpu.priv`.
    pub(crate) text: String,
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
        returns,
        regions: Vec::new(),
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
        ..
    } = s;
    let mut text = format!(
        "%cajeta.cpu.priv = type {{ {} }}\n\
         define i64 @\"{PRIVATE_BYTES}\"() {{\n  ret i64 ptrtoint (ptr getelementptr (%cajeta.cpu.priv, ptr null, i32 1) to i64)\n}}\n",
        fields.join(", ")
    );
    for (k, body) in regions.iter().enumerate() {
        let _ = write!(
            text,
            "\ndefine internal i32 @\"cajeta.cpu.region.{k}\"(ptr %ctx, ptr %priv) alwaysinline {NO_TABLES} {{\nentry:\n{}{}{}{}}}\n",
            hooks::prologue(),
            f.allocas,
            entry,
            body
        );
    }
    let _ = write!(
        text,
        "\ndefine void @\"{name}\"(ptr %ctx) {NO_TABLES} {{\nentry:\n{}{}}}\n",
        workgroup_prologue(),
        skel
    );
    Ok(Some(Split { text }))
}

/// The workgroup function's first lines: its own copy `%c` of the context (the regions
/// read their ids there), the workgroup's size and first global id, the id fields of `%c`,
/// `%flag` (a split condition's value), `%privbase` (the context arrays).
fn workgroup_prologue() -> String {
    let mut s = format!(
        "  %c = alloca %cajeta.cpu.ctx\n  %flag = alloca i1\n  call void @llvm.memcpy.p0.p0.i64(ptr %c, ptr %ctx, i64 {}, i1 false)\n",
        hooks::CONTEXT_BYTES
    );
    for axis in 0..3 {
        let _ = write!(
            s,
            "  %sp{axis} = getelementptr inbounds %cajeta.cpu.ctx, ptr %ctx, i32 0, i32 {WORKGROUP_SIZE}, i32 {axis}\n  %size{axis} = load i32, ptr %sp{axis}\n  %gp{axis} = getelementptr inbounds %cajeta.cpu.ctx, ptr %ctx, i32 0, i32 {WORKGROUP_ID}, i32 {axis}\n  %group{axis} = load i32, ptr %gp{axis}\n  %base{axis} = mul i32 %group{axis}, %size{axis}\n  %lp{axis} = getelementptr inbounds %cajeta.cpu.ctx, ptr %c, i32 0, i32 {LOCAL_ID}, i32 {axis}\n  %ip{axis} = getelementptr inbounds %cajeta.cpu.ctx, ptr %c, i32 0, i32 {}, i32 {axis}\n",
            hooks::GLOBAL_ID
        );
    }
    let _ = writeln!(
        s,
        "  %privp = getelementptr inbounds %cajeta.cpu.ctx, ptr %ctx, i32 0, i32 {}\n  %privbase = load ptr, ptr %privp",
        hooks::PRIVATE
    );
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
    /// Per context-array local: its field in `%cajeta.cpu.priv` and its LLVM type.
    field_of: &'k HashMap<usize, (usize, String)>,
    /// Whether the kernel has a `return` (regions then skip invocations that took one).
    returns: bool,
    /// The regions' bodies, in order.
    regions: Vec<String>,
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
        self.text.push_str("  store i1 false, ptr %flag\n");
        // The condition is uniform (sema, E0046): without side effects, the first
        // invocation still running gives the workgroup's value.
        self.wi_loop(Some(k), if is_pure(cond) { Cond::Once } else { Cond::All });
        let v = format!("%{}.f", self.label());
        let _ = writeln!(self.text, "  {v} = load i1, ptr %flag");
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
        for (l, field, ty) in &copy {
            let [p, v] = f.tmps();
            f.emit(format!(
                "{p} = getelementptr inbounds %cajeta.cpu.priv, ptr %priv, i32 0, i32 {field}"
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
                    Ok("0".to_string())
                }
                Work::Cond(c) => {
                    let v = f.expr(c)?;
                    let z = f.tmp();
                    f.emit(format!("{z} = zext i1 {} to i32", v.text));
                    Ok(z)
                }
            }
        })();
        let code = match result {
            Ok(code) => code,
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
                "{p} = getelementptr inbounds %cajeta.cpu.priv, ptr %priv, i32 0, i32 {field}"
            ));
            f.emit(format!("store {ty} {v}, ptr {p}"));
        }
        f.emit(format!("ret i32 {code}"));
        f.region = false;
        let body = std::mem::replace(&mut f.body, saved);
        self.regions.push(body);
        Ok(self.regions.len() - 1)
    }

    /// A loop over the workgroup's invocations (x fastest) setting each one's ids in `%c`
    /// and calling region `k` with its context-array struct: the region's result records a
    /// `return` (bit 1) and, for a condition (`cond`), its value (bit 0) in `%flag`.
    /// Without a region, it marks every invocation as not returned.
    fn wi_loop(&mut self, k: Option<usize>, cond: Cond) {
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
                        "  %{t}.i = add i32 %{t}.yi, %{t}.x\n  %{t}.p = getelementptr %cajeta.cpu.priv, ptr %privbase, i32 %{t}.i"
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
                if self.returns {
                    let _ = writeln!(
                        s,
                        "  %{t}.d = load i8, ptr %{t}.p\n  %{t}.dz = icmp eq i8 %{t}.d, 0\n  br i1 %{t}.dz, label %{t}.call, label %{t}.xl\n{t}.call:"
                    );
                }
                let _ = writeln!(
                    s,
                    "  %{t}.r = call i32 @\"cajeta.cpu.region.{k}\"(ptr %c, ptr %{t}.p)"
                );
                if self.returns {
                    let _ = writeln!(
                        s,
                        "  %{t}.rb = and i32 %{t}.r, 2\n  %{t}.rt = trunc i32 %{t}.rb to i8\n  store i8 %{t}.rt, ptr %{t}.p"
                    );
                }
                if cond != Cond::No {
                    let _ = writeln!(
                        s,
                        "  %{t}.rc = trunc i32 %{t}.r to i1\n  store i1 %{t}.rc, ptr %flag"
                    );
                }
                let next = if cond == Cond::Once { "end" } else { "xl" };
                let _ = writeln!(s, "  br label %{t}.{next}");
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
