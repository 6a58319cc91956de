//! Lowers a kernel body from the typed IR to the text of an LLVM IR function.
//!
//! Locals are `alloca`s (LLVM's `sroa` turns them into SSA values); scalar parameters are
//! copied from the push-constant block into their locals at entry; resource parameters are
//! handles made once at entry by `llvm.spv.resource.handlefrombinding`. Every operation
//! keeps SPEC §4's semantics as the rspirv backend implements them: wrapping integer
//! arithmetic (no `nsw`/`nuw`), no fast-math flags, integer division by zero giving 0, and
//! float-to-int conversion saturating with NaN → 0.

use std::fmt::Write;

use super::types::{self, float_const, int_const, scalar, scalar_of};
use super::{refuse, Handle};
use crate::diagnostics::{Diagnostic, Span};
use crate::ir::{
    Axis, BarrierKind, BinaryOp, Block, Constant, Expr, ExprKind, Function, FunctionId, Intrinsic,
    LoopId, MathFn, Place, ScalarType, Stmt, Type, UnaryOp,
};

type Res<T> = Result<T, Diagnostic>;

/// A called helper and, per parameter, the resource an argument denotes: helpers are
/// specialized per tuple of resources, as in the rspirv backend (handles cannot be stored).
pub(crate) type HelperCall = (FunctionId, Vec<Option<Handle>>);

/// The LLVM name of a `@Device` helper specialized to `resources`.
pub(crate) fn helper_name(f: FunctionId, resources: &[Option<Handle>]) -> String {
    let bindings: String = resources
        .iter()
        .map(|r| {
            r.as_ref()
                .map_or("_".to_string(), |h| h.binding().to_string())
        })
        .collect::<Vec<_>>()
        .join(".");
    format!("@\"helper.{}.{bindings}\"", f.0)
}

/// A lowered value: its operand text and LLVM type.
#[derive(Debug, Clone)]
pub(crate) struct Val {
    text: String,
    ty: &'static str,
}

/// The state of one function being lowered.
pub(crate) struct FnLower<'a> {
    kernel: &'a Function,
    /// Per parameter: the resource handle of a descriptor-bound one.
    handles: &'a [Option<Handle>],
    /// The `alloca`s, emitted at the top of the entry block.
    pub(crate) allocas: String,
    /// The body.
    pub(crate) body: String,
    /// Intrinsic declarations the body needs, deduplicated.
    pub(crate) decls: Vec<String>,
    /// `@Device` helpers this function calls, in call order (each lowered once per tuple of
    /// resource arguments).
    pub(crate) calls: Vec<HelperCall>,
    /// Module-level declarations this function adds (its shared arrays).
    pub(crate) globals: Vec<String>,
    /// Bytes of fixed-size workgroup memory its shared arrays take.
    pub(crate) shared_bytes: u64,
    /// Per local: the `addrspace(3)` global and element of a `Shared<T>` local.
    shared: Vec<(usize, String, ScalarType, u32)>,
    next: usize,
    /// Label of the block being emitted.
    block: String,
    /// Per loop id: (continue target, break target).
    loops: Vec<(LoopId, String, String)>,
}

impl Val {
    /// A value from its operand text and LLVM type.
    pub(crate) fn new(text: String, ty: &'static str) -> Val {
        Val { text, ty }
    }
}

impl<'a> FnLower<'a> {
    /// A lowering of `kernel` whose body starts in the block `entry`.
    pub(crate) fn new(kernel: &'a Function, handles: &'a [Option<Handle>]) -> FnLower<'a> {
        FnLower {
            kernel,
            handles,
            allocas: String::new(),
            body: String::new(),
            decls: Vec::new(),
            next: 0,
            block: "entry".to_string(),
            loops: Vec::new(),
            calls: Vec::new(),
            globals: Vec::new(),
            shared_bytes: 0,
            shared: Vec::new(),
        }
    }

    fn tmp(&mut self) -> String {
        self.next += 1;
        format!("%t{}", self.next)
    }

    fn label(&mut self, what: &str) -> String {
        self.next += 1;
        format!("{what}{}", self.next)
    }

    fn emit(&mut self, line: impl AsRef<str>) {
        self.body.push_str("  ");
        self.body.push_str(line.as_ref());
        self.body.push('\n');
    }

    fn start_block(&mut self, label: &str) {
        let _ = writeln!(self.body, "{label}:");
        self.block = label.to_string();
    }

    /// A terminator, then a fresh block for whatever (unreachable) code follows it.
    fn terminate(&mut self, line: String) {
        self.emit(line);
        let dead = self.label("dead");
        self.start_block(&dead);
    }

    fn declare(&mut self, decl: String) {
        if !self.decls.contains(&decl) {
            self.decls.push(decl);
        }
    }

    /// Declares one `alloca` per non-resource local and copies scalar parameters in.
    pub(crate) fn prologue(&mut self, push_loads: &[(usize, Val)]) -> Res<()> {
        for (i, local) in self.kernel.locals.iter().enumerate() {
            if i < self.kernel.param_count && self.handles.get(i).is_some_and(|h| h.is_some()) {
                continue;
            }
            if matches!(local.ty, Type::Shared(_)) {
                continue;
            }
            if matches!(local.ty, Type::Buffer(_) | Type::Image2D(_)) {
                return Err(refuse(
                    local.span,
                    "a resource held in a local or passed to a `@Device` helper",
                ));
            }
            let ty = types::value(&local.ty, local.span)?;
            let _ = writeln!(self.allocas, "  %l{i} = alloca {ty}");
        }
        for (i, v) in push_loads {
            self.emit(format!("store {} {}, ptr %l{i}", v.ty, v.text));
        }
        Ok(())
    }

    /// Lowers the function's body and its final `ret` (a helper returning a value always
    /// returns before its end: sema checks it, E0017).
    pub(crate) fn lower_body(&mut self) -> Res<()> {
        let body = &self.kernel.body;
        self.block(body)?;
        if self.kernel.return_type == Type::Void {
            self.emit("ret void");
        } else {
            self.emit("unreachable");
        }
        Ok(())
    }

    /// Loads push-constant member `member` of LLVM type `stored`, converted to `ty`.
    pub(crate) fn push_load(
        &mut self,
        member: usize,
        s: ScalarType,
        stored: &'static str,
        span: Span,
    ) -> Res<Val> {
        let p = self.tmp();
        self.emit(format!(
            "{p} = getelementptr inbounds %PushConstants, ptr addrspace(13) @push_constants, i32 0, i32 {member}"
        ));
        let v = self.tmp();
        self.emit(format!("{v} = load {stored}, ptr addrspace(13) {p}"));
        if s == ScalarType::Bool {
            let b = self.tmp();
            self.emit(format!("{b} = icmp ne i32 {v}, 0"));
            return Ok(Val { text: b, ty: "i1" });
        }
        Ok(Val {
            text: v,
            ty: scalar(s, span)?,
        })
    }

    fn block(&mut self, stmts: &Block) -> Res<()> {
        for s in stmts {
            self.stmt(s)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt) -> Res<()> {
        match s {
            Stmt::Expr(e) => {
                self.expr_or_void(e)?;
            }
            Stmt::Store {
                place: Place::Local(l),
                value,
                span,
            } if matches!(self.kernel.local(*l).ty, Type::Shared(_)) => {
                self.bind_shared(l.0, value, *span)?;
            }
            Stmt::Store { place, value, span } => {
                let v = self.expr(value)?;
                self.store(place, v, *span)?;
            }
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                let c = self.expr(cond)?;
                let (t, f, end) = (self.label("then"), self.label("else"), self.label("endif"));
                self.emit(format!("br i1 {}, label %{t}, label %{f}", c.text));
                self.start_block(&t);
                self.block(then)?;
                self.emit(format!("br label %{end}"));
                self.start_block(&f);
                self.block(otherwise)?;
                self.emit(format!("br label %{end}"));
                self.start_block(&end);
            }
            Stmt::Loop {
                id,
                pre_cond,
                body,
                continuing,
                post_cond,
            } => {
                let (head, body_l, cont, exit) = (
                    self.label("loop"),
                    self.label("body"),
                    self.label("continue"),
                    self.label("exit"),
                );
                self.emit(format!("br label %{head}"));
                self.start_block(&head);
                if let Some(c) = pre_cond {
                    let c = self.expr(c)?;
                    self.emit(format!("br i1 {}, label %{body_l}, label %{exit}", c.text));
                } else {
                    self.emit(format!("br label %{body_l}"));
                }
                self.start_block(&body_l);
                self.loops.push((*id, cont.clone(), exit.clone()));
                let r = self.block(body);
                self.loops.pop();
                r?;
                self.emit(format!("br label %{cont}"));
                self.start_block(&cont);
                self.block(continuing)?;
                if let Some(c) = post_cond {
                    let c = self.expr(c)?;
                    self.emit(format!("br i1 {}, label %{head}, label %{exit}", c.text));
                } else {
                    self.emit(format!("br label %{head}"));
                }
                self.start_block(&exit);
            }
            Stmt::Break(id) | Stmt::Continue(id) => {
                let Some((_, cont, exit)) = self.loops.iter().rev().find(|(l, _, _)| l == id)
                else {
                    return Err(refuse(self.kernel.span, "a `break` outside its loop"));
                };
                let target = if matches!(s, Stmt::Break(_)) {
                    exit
                } else {
                    cont
                };
                let line = format!("br label %{target}");
                self.terminate(line);
            }
            Stmt::Return(None, _) => self.terminate("ret void".to_string()),
            Stmt::Return(Some(e), _) => {
                let v = self.expr(e)?;
                self.terminate(format!("ret {} {}", v.ty, v.text));
            }
        }
        Ok(())
    }

    fn store(&mut self, place: &Place, v: Val, span: Span) -> Res<()> {
        match place {
            Place::Local(l) => {
                self.emit(format!("store {} {}, ptr %l{}", v.ty, v.text, l.0));
                Ok(())
            }
            Place::Index { base, index } => {
                let (p, space, s) = self.element_pointer(base, index)?;
                let v = self.stored_form(v, s);
                self.emit(format!(
                    "store {} {}, ptr addrspace({space}) {p}",
                    v.ty, v.text
                ));
                Ok(())
            }
            Place::Field { .. } | Place::Lane { .. } => {
                Err(refuse(span, "stores to struct fields or vector lanes"))
            }
        }
    }

    fn stored_form(&mut self, v: Val, s: ScalarType) -> Val {
        if s != ScalarType::Bool {
            return v;
        }
        let t = self.tmp();
        self.emit(format!("{t} = zext i1 {} to i32", v.text));
        Val { text: t, ty: "i32" }
    }

    /// A pointer to `base[index]` of a buffer parameter: (pointer, address space, element).
    fn element_pointer(&mut self, base: &Expr, index: &Expr) -> Res<(String, u32, ScalarType)> {
        let ExprKind::Load(Place::Local(l)) = &base.kind else {
            return Err(refuse(
                base.span,
                "indexing something other than a buffer parameter",
            ));
        };
        if let Some((_, global, elem, n)) = self.shared.iter().find(|(s, ..)| *s == l.0).cloned() {
            // No `inbounds`: an index past the end must not become poison in LLVM (the
            // rspirv backend leaves such an access to the driver, as Vulkan does).
            let i = self.expr(index)?;
            let ty = types::stored(elem, base.span)?;
            let p = self.tmp();
            self.emit(format!(
                "{p} = getelementptr [{n} x {ty}], ptr addrspace(3) {global}, i32 0, i32 {}",
                i.text
            ));
            return Ok((p, 3, elem));
        }
        let Some(Some(Handle::Buffer {
            var,
            ty,
            mangled,
            elem,
            ..
        })) = self.handles.get(l.0).cloned()
        else {
            return Err(refuse(
                base.span,
                "indexing something other than a buffer parameter",
            ));
        };
        let i = self.expr(index)?;
        let p = self.tmp();
        self.declare(format!(
            "declare ptr addrspace(11) @llvm.spv.resource.getpointer.p11.{mangled}({ty}, i32)"
        ));
        self.emit(format!(
            "{p} = call ptr addrspace(11) @llvm.spv.resource.getpointer.p11.{mangled}({ty} {var}, i32 {})",
            i.text
        ));
        Ok((p, 11, elem))
    }

    fn expr_or_void(&mut self, e: &Expr) -> Res<Option<Val>> {
        if e.ty == Type::Void {
            match &e.kind {
                ExprKind::Intrinsic {
                    op: Intrinsic::ImageStore,
                    args,
                } => {
                    self.image_store(args, e.span)?;
                    return Ok(None);
                }
                ExprKind::Call { func, args } => {
                    self.call(*func, args, e)?;
                    return Ok(None);
                }
                ExprKind::Intrinsic {
                    op: Intrinsic::Barrier(BarrierKind::Workgroup),
                    args,
                } if args.is_empty() => {
                    // OpControlBarrier(Workgroup, Workgroup, AcquireRelease | WorkgroupMemory),
                    // what the rspirv backend emits for `Barrier.workgroup()`.
                    // The intrinsic may read and write any memory (LLVM's default for it),
                    // so the optimizer keeps shared-memory accesses on their side of it.
                    let name = "llvm.spv.group.memory.barrier.with.group.sync";
                    self.declare(format!("declare void @{name}()"));
                    self.emit(format!("call void @{name}()"));
                    return Ok(None);
                }
                _ => return Err(refuse(e.span, "this statement")),
            }
        }
        self.expr(e).map(Some)
    }

    fn expr(&mut self, e: &Expr) -> Res<Val> {
        match &e.kind {
            ExprKind::Const(c) => {
                let s = scalar_of(&e.ty, e.span)?;
                let ty = scalar(s, e.span)?;
                let text = match c {
                    Constant::Bool(b) => b.to_string(),
                    Constant::Int(bits) => int_const(s, *bits),
                    Constant::Float(f) => float_const(*f),
                };
                Ok(Val { text, ty })
            }
            ExprKind::Load(Place::Local(l)) => {
                let ty = types::value(&e.ty, e.span)?;
                let t = self.tmp();
                self.emit(format!("{t} = load {ty}, ptr %l{}", l.0));
                Ok(Val { text: t, ty })
            }
            ExprKind::Load(Place::Index { base, index }) => {
                let (p, space, s) = self.element_pointer(base, index)?;
                let stored = types::stored(s, e.span)?;
                let t = self.tmp();
                self.emit(format!("{t} = load {stored}, ptr addrspace({space}) {p}"));
                if s == ScalarType::Bool {
                    let b = self.tmp();
                    self.emit(format!("{b} = icmp ne i32 {t}, 0"));
                    return Ok(Val { text: b, ty: "i1" });
                }
                Ok(Val {
                    text: t,
                    ty: stored,
                })
            }
            ExprKind::Load(_) => Err(refuse(e.span, "reading struct fields or vector lanes")),
            ExprKind::Unary(op, x) => self.unary(*op, x, e),
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, e),
            ExprKind::LogicalAnd(a, b) => self.short_circuit(a, b, true),
            ExprKind::LogicalOr(a, b) => self.short_circuit(a, b, false),
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                let c = self.expr(cond)?;
                let (t, f, end) = (self.label("sel_t"), self.label("sel_f"), self.label("sel"));
                self.emit(format!("br i1 {}, label %{t}, label %{f}", c.text));
                self.start_block(&t);
                let a = self.expr(then)?;
                let a_block = self.block.clone();
                self.emit(format!("br label %{end}"));
                self.start_block(&f);
                let b = self.expr(otherwise)?;
                let b_block = self.block.clone();
                self.emit(format!("br label %{end}"));
                self.start_block(&end);
                let r = self.tmp();
                self.emit(format!(
                    "{r} = phi {} [ {}, %{a_block} ], [ {}, %{b_block} ]",
                    a.ty, a.text, b.text
                ));
                Ok(Val { text: r, ty: a.ty })
            }
            ExprKind::Convert(x) => self.convert(x, e),
            ExprKind::Sequence(stmts, value) => {
                self.block(stmts)?;
                self.expr(value)
            }
            ExprKind::Intrinsic { op, args } => self.intrinsic(op, args, e),
            ExprKind::Call { func, args } => self.call(*func, args, e),
            ExprKind::Construct(_) | ExprKind::Splat(_) | ExprKind::Swizzle(..) => {
                Err(refuse(e.span, "vector and matrix values"))
            }
            ExprKind::Str(_) | ExprKind::Host { .. } | ExprKind::Launch(_) => {
                Err(refuse(e.span, "host-only expressions"))
            }
        }
    }

    /// A call of a `@Device` helper with scalar arguments (LLVM inlines it).
    fn call(&mut self, func: FunctionId, args: &[Expr], e: &Expr) -> Res<Val> {
        let mut operands = Vec::new();
        let mut resources = Vec::new();
        for a in args {
            if matches!(a.ty, Type::Buffer(_) | Type::Image2D(_)) {
                let handle = match &a.kind {
                    ExprKind::Load(Place::Local(l)) => self.handles.get(l.0).cloned().flatten(),
                    _ => None,
                };
                let Some(h) = handle else {
                    return Err(refuse(
                        a.span,
                        "a resource argument that is not a parameter",
                    ));
                };
                resources.push(Some(h));
                continue;
            }
            resources.push(None);
            let v = self.expr(a)?;
            operands.push(format!("{} {}", v.ty, v.text));
        }
        let callee = helper_name(func, &resources);
        let call = (func, resources);
        if !self.calls.iter().any(|(f, r)| helper_name(*f, r) == callee) {
            self.calls.push(call);
        }
        if e.ty == Type::Void {
            self.emit(format!("call void {callee}({})", operands.join(", ")));
            return Ok(Val {
                text: String::new(),
                ty: "void",
            });
        }
        let ty = types::value(&e.ty, e.span)?;
        let t = self.tmp();
        self.emit(format!("{t} = call {ty} {callee}({})", operands.join(", ")));
        Ok(Val { text: t, ty })
    }

    fn short_circuit(&mut self, a: &Expr, b: &Expr, and: bool) -> Res<Val> {
        let x = self.expr(a)?;
        let from = self.block.clone();
        let (rhs, end) = (self.label("rhs"), self.label("sc"));
        if and {
            self.emit(format!("br i1 {}, label %{rhs}, label %{end}", x.text));
        } else {
            self.emit(format!("br i1 {}, label %{end}, label %{rhs}", x.text));
        }
        self.start_block(&rhs);
        let y = self.expr(b)?;
        let y_block = self.block.clone();
        self.emit(format!("br label %{end}"));
        self.start_block(&end);
        let r = self.tmp();
        let short = if and { "false" } else { "true" };
        self.emit(format!(
            "{r} = phi i1 [ {short}, %{from} ], [ {}, %{y_block} ]",
            y.text
        ));
        Ok(Val { text: r, ty: "i1" })
    }

    fn unary(&mut self, op: UnaryOp, x: &Expr, e: &Expr) -> Res<Val> {
        let s = scalar_of(&e.ty, e.span)?;
        let v = self.expr(x)?;
        let t = self.tmp();
        let line = match (op, s.is_float()) {
            (UnaryOp::Neg, true) => format!("{t} = fneg {} {}", v.ty, v.text),
            (UnaryOp::Neg, false) => format!("{t} = sub {} 0, {}", v.ty, v.text),
            (UnaryOp::Not, _) => format!("{t} = xor i1 {}, true", v.text),
            (UnaryOp::BitNot, _) => format!("{t} = xor {} {}, -1", v.ty, v.text),
        };
        self.emit(line);
        Ok(Val { text: t, ty: v.ty })
    }

    fn binary(&mut self, op: BinaryOp, a: &Expr, b: &Expr, e: &Expr) -> Res<Val> {
        let s = scalar_of(&a.ty, a.span)?;
        let x = self.expr(a)?;
        let mut y = self.expr(b)?;
        let ty = x.ty;
        let float = s.is_float();
        let signed = s.is_signed_integer();
        if op.is_shift() {
            // The count is converted to the left operand's type and masked to its width.
            let cs = scalar_of(&b.ty, b.span)?;
            let cy = scalar(cs, b.span)?;
            if cy != ty {
                return Err(refuse(b.span, "a shift count of another width"));
            }
            let m = self.tmp();
            self.emit(format!("{m} = and {ty} {}, {}", y.text, s.bits() - 1));
            y = Val { text: m, ty };
        }
        if matches!(op, BinaryOp::Div | BinaryOp::Rem) && !float {
            return self.int_divrem(op, signed, x, y);
        }
        let t = self.tmp();
        let (xa, ya) = (&x.text, &y.text);
        let line = if op.is_comparison() {
            let cond = match (op, float, signed || s == ScalarType::Bool) {
                (BinaryOp::Eq, true, _) => "fcmp oeq",
                (BinaryOp::Ne, true, _) => "fcmp une",
                (BinaryOp::Lt, true, _) => "fcmp olt",
                (BinaryOp::Le, true, _) => "fcmp ole",
                (BinaryOp::Gt, true, _) => "fcmp ogt",
                (BinaryOp::Ge, true, _) => "fcmp oge",
                (BinaryOp::Eq, false, _) => "icmp eq",
                (BinaryOp::Ne, false, _) => "icmp ne",
                (BinaryOp::Lt, false, true) => "icmp slt",
                (BinaryOp::Le, false, true) => "icmp sle",
                (BinaryOp::Gt, false, true) => "icmp sgt",
                (BinaryOp::Ge, false, true) => "icmp sge",
                (BinaryOp::Lt, false, false) => "icmp ult",
                (BinaryOp::Le, false, false) => "icmp ule",
                (BinaryOp::Gt, false, false) => "icmp ugt",
                _ => "icmp uge",
            };
            if s == ScalarType::Bool && !matches!(op, BinaryOp::Eq | BinaryOp::Ne) {
                return Err(refuse(e.span, "ordering comparisons of booleans"));
            }
            self.emit(format!("{t} = {cond} {ty} {xa}, {ya}"));
            return Ok(Val { text: t, ty: "i1" });
        } else {
            let inst = match (op, float) {
                (BinaryOp::Add, true) => "fadd",
                (BinaryOp::Sub, true) => "fsub",
                (BinaryOp::Mul, true) => "fmul",
                (BinaryOp::Div, true) => "fdiv",
                (BinaryOp::Rem, true) => "frem",
                (BinaryOp::Add, false) => "add",
                (BinaryOp::Sub, false) => "sub",
                (BinaryOp::Mul, false) => "mul",
                (BinaryOp::Shl, false) => "shl",
                (BinaryOp::Shr, false) if signed => "ashr",
                (BinaryOp::Shr | BinaryOp::UShr, false) => "lshr",
                (BinaryOp::BitAnd, false) => "and",
                (BinaryOp::BitOr, false) => "or",
                (BinaryOp::BitXor, false) => "xor",
                _ => return Err(refuse(e.span, format!("the operator {op:?} on `{s:?}`"))),
            };
            format!("{t} = {inst} {ty} {xa}, {ya}")
        };
        self.emit(line);
        Ok(Val { text: t, ty })
    }

    /// Integer `/` and `%` as the rspirv backend lowers them: the divisor is replaced by 1
    /// when it is 0 (the result is then forced to 0) or when a signed `MIN / -1` would
    /// overflow; signed `%` is `x - (x / y) * y`.
    fn int_divrem(&mut self, op: BinaryOp, signed: bool, x: Val, y: Val) -> Res<Val> {
        let ty = x.ty;
        let (xa, ya) = (x.text, y.text);
        let by_zero = self.tmp();
        self.emit(format!("{by_zero} = icmp eq {ty} {ya}, 0"));
        let mut guard = by_zero.clone();
        if signed {
            let (xm, ym, ov, g) = (self.tmp(), self.tmp(), self.tmp(), self.tmp());
            self.emit(format!("{xm} = icmp eq {ty} {xa}, -2147483648"));
            self.emit(format!("{ym} = icmp eq {ty} {ya}, -1"));
            self.emit(format!("{ov} = and i1 {xm}, {ym}"));
            self.emit(format!("{g} = or i1 {by_zero}, {ov}"));
            guard = g;
        }
        let d = self.tmp();
        self.emit(format!("{d} = select i1 {guard}, {ty} 1, {ty} {ya}"));
        let q = self.tmp();
        match (op, signed) {
            (BinaryOp::Div, true) => self.emit(format!("{q} = sdiv {ty} {xa}, {d}")),
            (BinaryOp::Div, false) => self.emit(format!("{q} = udiv {ty} {xa}, {d}")),
            (_, true) => {
                let (quot, back) = (self.tmp(), self.tmp());
                self.emit(format!("{quot} = sdiv {ty} {xa}, {d}"));
                self.emit(format!("{back} = mul {ty} {quot}, {d}"));
                self.emit(format!("{q} = sub {ty} {xa}, {back}"));
            }
            (_, false) => self.emit(format!("{q} = urem {ty} {xa}, {d}")),
        }
        let r = self.tmp();
        self.emit(format!("{r} = select i1 {by_zero}, {ty} 0, {ty} {q}"));
        Ok(Val { text: r, ty })
    }

    fn convert(&mut self, x: &Expr, e: &Expr) -> Res<Val> {
        let from = scalar_of(&x.ty, x.span)?;
        let to = scalar_of(&e.ty, e.span)?;
        let v = self.expr(x)?;
        let to_ty = scalar(to, e.span)?;
        if from == to || (from.is_integer() && to.is_integer() && v.ty == to_ty) {
            return Ok(Val {
                text: v.text,
                ty: to_ty,
            });
        }
        let t = self.tmp();
        let line = match (from.is_float(), to.is_float()) {
            (false, true) if from.is_signed_integer() => {
                format!("{t} = sitofp {} {} to {to_ty}", v.ty, v.text)
            }
            (false, true) => format!("{t} = uitofp {} {} to {to_ty}", v.ty, v.text),
            (true, false) if to.is_integer() => return self.float_to_int(v, to),
            _ => return Err(refuse(e.span, format!("the conversion {from:?} → {to:?}"))),
        };
        self.emit(line);
        Ok(Val { text: t, ty: to_ty })
    }

    /// float32 to a 32-bit integer, truncating, saturating, NaN → 0: clamped in the float
    /// domain first so that `fptosi`/`fptoui` never sees an out-of-range value.
    fn float_to_int(&mut self, v: Val, to: ScalarType) -> Res<Val> {
        let signed = to.is_signed_integer();
        let limit = if signed { 2f64.powi(31) } else { 2f64.powi(32) };
        let below = limit - limit / 2f64.powi(24);
        let lower = if signed { -limit } else { 0.0 };
        let hi: i64 = if signed { i32::MAX as i64 } else { -1 };
        let x = &v.text;
        let (ge, c1, le, c2, r, over, r2, nan, out) = (
            self.tmp(),
            self.tmp(),
            self.tmp(),
            self.tmp(),
            self.tmp(),
            self.tmp(),
            self.tmp(),
            self.tmp(),
            self.tmp(),
        );
        let (lo_c, up_c, lim_c) = (float_const(lower), float_const(below), float_const(limit));
        self.emit(format!("{ge} = fcmp oge float {x}, {lo_c}"));
        self.emit(format!("{c1} = select i1 {ge}, float {x}, float {lo_c}"));
        self.emit(format!("{le} = fcmp ole float {c1}, {up_c}"));
        self.emit(format!("{c2} = select i1 {le}, float {c1}, float {up_c}"));
        let inst = if signed { "fptosi" } else { "fptoui" };
        self.emit(format!("{r} = {inst} float {c2} to i32"));
        self.emit(format!("{over} = fcmp oge float {x}, {lim_c}"));
        self.emit(format!("{r2} = select i1 {over}, i32 {hi}, i32 {r}"));
        // NaN by its bits: LLVM canonicalizes `fcmp uno` and `fcmp une x, x` to an
        // `OpUnordered`, which the SPIR-V target emits although only kernels may use it.
        let (bits, mag) = (self.tmp(), self.tmp());
        self.emit(format!("{bits} = bitcast float {x} to i32"));
        self.emit(format!("{mag} = and i32 {bits}, 2147483647"));
        self.emit(format!("{nan} = icmp ugt i32 {mag}, 2139095040"));
        self.emit(format!("{out} = select i1 {nan}, i32 0, i32 {r2}"));
        Ok(Val {
            text: out,
            ty: "i32",
        })
    }

    fn intrinsic(&mut self, op: &Intrinsic, args: &[Expr], e: &Expr) -> Res<Val> {
        let builtin = |name: &str, axis: &Axis| (name.to_string(), *axis as u32);
        let (name, axis) = match op {
            Intrinsic::GlobalId(a) => builtin("llvm.spv.thread.id.i32", a),
            Intrinsic::LocalId(a) => builtin("llvm.spv.thread.id.in.group.i32", a),
            Intrinsic::WorkgroupId(a) => builtin("llvm.spv.group.id.i32", a),
            Intrinsic::ImageLoad => return self.image_load(args, e),
            Intrinsic::Math(f) => return self.math(*f, args, e),
            Intrinsic::WorkgroupSize(a) => return self.builtin_lane("WorkgroupSize", *a),
            Intrinsic::WorkgroupCount(a) => return self.builtin_lane("NumWorkgroups", *a),
            Intrinsic::GlobalSize(a) => {
                let size = self.builtin_lane("WorkgroupSize", *a)?;
                let count = self.builtin_lane("NumWorkgroups", *a)?;
                let t = self.tmp();
                self.emit(format!("{t} = mul i32 {}, {}", count.text, size.text));
                return Ok(Val { text: t, ty: "i32" });
            }
            other => return Err(refuse(e.span, format!("the intrinsic {other:?}"))),
        };
        self.declare(format!("declare i32 @{name}(i32)"));
        let t = self.tmp();
        self.emit(format!("{t} = call i32 @{name}(i32 {axis})"));
        Ok(Val { text: t, ty: "i32" })
    }

    /// `Math.*` on scalars, through the LLVM intrinsics the SPIR-V target lowers to the same
    /// `GLSL.std.450` instruction the rspirv backend uses (`llvm.sqrt` → `Sqrt`, `llvm.smin`
    /// → `SMin`, …); functions without such an intrinsic are refused.
    fn math(&mut self, f: MathFn, args: &[Expr], e: &Expr) -> Res<Val> {
        let s = scalar_of(&e.ty, e.span)?;
        let float = s.is_float();
        let signed = s.is_signed_integer();
        let name = match f {
            MathFn::Sqrt if float => "sqrt",
            MathFn::Floor if float => "floor",
            MathFn::Ceil if float => "ceil",
            MathFn::Trunc if float => "trunc",
            MathFn::Round if float => "roundeven",
            MathFn::Abs if float => "fabs",
            MathFn::Abs if signed => "abs",
            MathFn::Min if float => "minnum",
            MathFn::Max if float => "maxnum",
            MathFn::Min if signed => "smin",
            MathFn::Max if signed => "smax",
            MathFn::Min => "umin",
            MathFn::Max => "umax",
            MathFn::Fma if float => "fma",
            MathFn::Sin if float => "sin",
            MathFn::Cos if float => "cos",
            MathFn::Exp if float => "exp",
            MathFn::Exp2 if float => "exp2",
            MathFn::Log if float => "log",
            MathFn::Log2 if float => "log2",
            MathFn::Pow if float => "pow",
            // `abs` of an unsigned value is the value (as in the rspirv backend).
            MathFn::Abs => {
                let [x] = args else {
                    return Err(refuse(e.span, "a malformed `Math.abs`"));
                };
                return self.expr(x);
            }
            other => {
                return Err(refuse(
                    e.span,
                    format!("`Math.{other:?}` on `{}`", s.name()),
                ))
            }
        };
        let ty = scalar(s, e.span)?;
        let suffix = if float { "f32" } else { "i32" };
        let mut operands = Vec::new();
        for a in args {
            let v = self.expr(a)?;
            operands.push(format!("{ty} {}", v.text));
        }
        let mut params = vec![ty; operands.len()];
        if name == "abs" {
            // `is_int_min_poison = false`: abs(MIN) wraps to MIN, as SAbs does.
            operands.push("i1 false".to_string());
            params.push("i1");
        }
        self.declare(format!(
            "declare {ty} @llvm.{name}.{suffix}({})",
            params.join(", ")
        ));
        let t = self.tmp();
        self.emit(format!(
            "{t} = call {ty} @llvm.{name}.{suffix}({})",
            operands.join(", ")
        ));
        Ok(Val { text: t, ty })
    }

    /// Lane `axis` of a `<3 x i32>` built-in, through the target's `__spirv_BuiltIn<Name>`
    /// global convention (`post.rs` turns `WorkgroupSize` into the spec constants).
    fn builtin_lane(&mut self, name: &str, axis: Axis) -> Res<Val> {
        let global = format!("@__spirv_BuiltIn{name} = external addrspace(7) global <3 x i32>");
        if !self.globals.contains(&global) {
            self.globals.push(global);
        }
        let (v, lane) = (self.tmp(), self.tmp());
        self.emit(format!(
            "{v} = load <3 x i32>, ptr addrspace(7) @__spirv_BuiltIn{name}"
        ));
        self.emit(format!(
            "{lane} = extractelement <3 x i32> {v}, i32 {}",
            axis as u32
        ));
        Ok(Val {
            text: lane,
            ty: "i32",
        })
    }

    /// `t = shared T[n]` for the `Shared<T>` local `local`: a workgroup-memory global of a
    /// constant length (a dynamic one would need the shared-size spec constant).
    fn bind_shared(&mut self, local: usize, value: &Expr, span: Span) -> Res<()> {
        let (
            ExprKind::Intrinsic {
                op: Intrinsic::SharedNew,
                args,
            },
            Type::Shared(elem),
        ) = (&value.kind, &value.ty)
        else {
            return Err(refuse(
                span,
                "a `Shared<T>` local not initialized with `shared T[n]`",
            ));
        };
        let Some(ExprKind::Const(Constant::Int(n))) = args.first().map(|a| &a.kind) else {
            return Err(refuse(span, "a shared array of dynamic length"));
        };
        if self.shared.iter().any(|(s, ..)| *s == local) {
            return Err(refuse(span, "a `Shared<T>` local assigned twice"));
        }
        let elem = scalar_of(elem, span)?;
        let ty = types::stored(elem, span)?;
        let n = *n as u32;
        let global = format!("@shared.{}.{local}", self.kernel_tag());
        self.globals.push(format!(
            "{global} = internal addrspace(3) global [{n} x {ty}] poison"
        ));
        self.shared_bytes += u64::from(n) * 4;
        self.shared.push((local, global, elem, n));
        Ok(())
    }

    /// A tag that keeps module-level names of different functions apart.
    fn kernel_tag(&self) -> String {
        self.kernel
            .qualified_name
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect()
    }

    /// The image handle and a pointer to texel (x, y) through `llvm.spv.resource.getpointer`;
    /// a `store`/`load` through it becomes one `OpImageWrite`/`OpImageRead`.
    fn texel_pointer(&mut self, img: &Expr, x: &Expr, y: &Expr) -> Res<(String, &'static str)> {
        let ExprKind::Load(Place::Local(l)) = &img.kind else {
            return Err(refuse(img.span, "an image that is not a kernel parameter"));
        };
        let Some(Some(Handle::Image {
            var,
            ty,
            mangled,
            channel,
            ..
        })) = self.handles.get(l.0).cloned()
        else {
            return Err(refuse(img.span, "an image that is not a kernel parameter"));
        };
        let (xv, yv) = (self.expr(x)?, self.expr(y)?);
        let (c0, c1, p) = (self.tmp(), self.tmp(), self.tmp());
        self.emit(format!(
            "{c0} = insertelement <2 x i32> poison, i32 {}, i32 0",
            xv.text
        ));
        self.emit(format!(
            "{c1} = insertelement <2 x i32> {c0}, i32 {}, i32 1",
            yv.text
        ));
        self.declare(format!(
            "declare ptr @llvm.spv.resource.getpointer.p0.{mangled}.v2i32({ty}, <2 x i32>)"
        ));
        self.emit(format!(
            "{p} = call ptr @llvm.spv.resource.getpointer.p0.{mangled}.v2i32({ty} {var}, <2 x i32> {c1})"
        ));
        Ok((p, channel))
    }

    fn image_store(&mut self, args: &[Expr], span: Span) -> Res<()> {
        let [img, x, y, v] = args else {
            return Err(refuse(span, "a malformed image store"));
        };
        let (p, channel) = self.texel_pointer(img, x, y)?;
        let value = self.expr(v)?;
        if value.ty != channel {
            return Err(refuse(
                v.span,
                "a texel of another type than the image's channel",
            ));
        }
        self.emit(format!("store {channel} {}, ptr {p}", value.text));
        Ok(())
    }

    fn image_load(&mut self, args: &[Expr], e: &Expr) -> Res<Val> {
        let [img, x, y] = args else {
            return Err(refuse(e.span, "a malformed image load"));
        };
        let (p, channel) = self.texel_pointer(img, x, y)?;
        let t = self.tmp();
        self.emit(format!("{t} = load {channel}, ptr {p}"));
        Ok(Val {
            text: t,
            ty: channel,
        })
    }
}
