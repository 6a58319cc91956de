//! Lowers a kernel body from the typed IR to the text of an LLVM IR function.
//!
//! Locals are `alloca`s (LLVM's `sroa` turns them into SSA values); scalar parameters are
//! copied from the push-constant block into their locals at entry; resource parameters are
//! handles made once at entry by `llvm.spv.resource.handlefrombinding`. Every operation
//! keeps SPEC §4's semantics as the rspirv backend implements them: wrapping integer
//! arithmetic (no `nsw`/`nuw`), no fast-math flags, integer division by zero giving 0, and
//! float-to-int conversion saturating with NaN → 0. Statements, control flow, locals and
//! calls are here; operators are in `arith`, resources and built-ins in `resources`.

use std::fmt::Write;

use super::types::{self, float_const_of, int_const, scalar, scalar_of};
use super::{refuse, Handle};
use crate::diagnostics::{Diagnostic, Span};
use crate::ir::{
    Constant, Expr, ExprKind, Function, FunctionId, Intrinsic, LoopId, Place, ScalarType, Stmt,
    Type,
};

type Res<T> = Result<T, Diagnostic>;

/// A called helper and, per parameter, the resource an argument denotes: helpers are
/// specialized per tuple of resources, as in the rspirv backend (handles cannot be stored).
pub(crate) type HelperCall = (FunctionId, Vec<Option<Handle>>);

/// The LLVM name of a `@Device` helper specialized to `resources`.
pub(crate) fn helper_name(f: FunctionId, resources: &[Option<Handle>]) -> String {
    let bindings: String = resources
        .iter()
        .map(|r| r.as_ref().map_or("_".to_string(), Handle::key))
        .collect::<Vec<_>>()
        .join(".");
    format!("@\"helper.{}.{bindings}\"", f.0)
}

/// A lowered value: its operand text and LLVM type.
#[derive(Debug, Clone)]
pub(crate) struct Val {
    pub(super) text: String,
    pub(super) ty: &'static str,
}

/// The state of one function being lowered.
pub(crate) struct FnLower<'a> {
    pub(super) kernel: &'a Function,
    /// Per parameter: the resource handle of a descriptor-bound one.
    pub(super) handles: &'a [Option<Handle>],
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
    /// Per `Shared<T>` local: the shared array it denotes (declared here or passed in).
    pub(super) shared: Vec<(usize, super::shared::SharedArray)>,
    /// Whether some `@Device` helper of the module runs an atomic on a `Shared<T>`
    /// (helpers may be passed any array, so every float shared array is then a bit view,
    /// as in the rspirv backend).
    pub(crate) helpers_share_atomics: bool,
    /// Element pointers into a float buffer's or shared array's `i32` bit view (float
    /// atomics on it are compare-exchange loops on the bits): accesses through them bit-cast.
    pub(super) bit_pointers: std::collections::HashSet<String>,
    pub(super) next: usize,
    /// Label of the block being emitted.
    pub(super) block: String,
    /// Per loop id: (continue target, break target).
    pub(super) loops: Vec<(LoopId, String, String)>,
    /// Per loop of `loops`: whether a `break`/`continue` of an outer loop leaves it (see
    /// `jumps`).
    pub(super) escapes: Vec<bool>,
    /// Whether a `continue` of the innermost loop may be pending (`jumps`): the statements
    /// after this point in its body run only when none is.
    pub(super) continue_pending: bool,
    /// Matrix and POD parameters read in the push-constant block: (parameter, its first
    /// member).
    pub(super) push_places: Vec<(usize, usize)>,
    /// The std430 byte offset of every member of the push-constant block, where the target
    /// reads members by offset (the CPU target: LLVM's own layout of `%PushConstants` puts
    /// a member after a 3-lane vector, or a POD's fields, elsewhere than std430 does).
    pub(crate) push_offsets: Vec<u32>,
    /// Values standing for the locals numbered past the function's own (lanes handed to a
    /// scalar lowering, see `vectors.rs`).
    pub(super) lane_values: Vec<Val>,
    /// What the function is lowered for.
    pub(crate) target: super::target::Target,
    /// Where this function's own shared arrays start in the workgroup's shared memory (the
    /// CPU target places every function's arrays in one block; see `cpu/hooks.rs`).
    pub(crate) shared_base: u64,
    /// Whether the statements lowered are a region of a split CPU kernel (`cpu/split.rs`):
    /// a `return` then marks the invocation done and returns from the region's function.
    pub(crate) region: bool,
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
            escapes: Vec::new(),
            continue_pending: false,
            calls: Vec::new(),
            globals: Vec::new(),
            shared_bytes: 0,
            shared: handles
                .iter()
                .enumerate()
                .filter_map(|(i, h)| match h {
                    Some(Handle::Shared(a)) => Some((i, a.clone())),
                    _ => None,
                })
                .collect(),
            helpers_share_atomics: false,
            bit_pointers: Default::default(),
            push_places: Vec::new(),
            push_offsets: Vec::new(),
            lane_values: Vec::new(),
            target: super::target::Target::Spirv,
            shared_base: 0,
            region: false,
        }
    }

    pub(super) fn tmp(&mut self) -> String {
        self.next += 1;
        format!("%t{}", self.next)
    }

    /// `N` fresh temporaries, numbered in order (as `N` calls of [`Self::tmp`]).
    pub(super) fn tmps<const N: usize>(&mut self) -> [String; N] {
        std::array::from_fn(|_| self.tmp())
    }

    pub(super) fn label(&mut self, what: &str) -> String {
        self.next += 1;
        format!("{what}{}", self.next)
    }

    pub(super) fn emit(&mut self, line: impl AsRef<str>) {
        self.body.push_str("  ");
        self.body.push_str(line.as_ref());
        self.body.push('\n');
    }

    pub(super) fn start_block(&mut self, label: &str) {
        let _ = writeln!(self.body, "{label}:");
        self.block = label.to_string();
    }

    /// A terminator, then a fresh block for whatever (unreachable) code follows it.
    pub(super) fn terminate(&mut self, line: String) {
        self.emit(line);
        let dead = self.label("dead");
        self.start_block(&dead);
    }

    pub(super) fn declare(&mut self, decl: String) {
        if !self.decls.contains(&decl) {
            self.decls.push(decl);
        }
    }

    /// Declares one `alloca` per non-resource local and copies scalar parameters in.
    pub(crate) fn prologue(&mut self, incoming: &[(usize, Val)]) -> Res<()> {
        for (i, local) in self.kernel.locals.iter().enumerate() {
            if i < self.kernel.param_count && self.handles.get(i).is_some_and(|h| h.is_some()) {
                continue;
            }
            // A kernel's matrix and POD parameters are read in the push-constant block, but
            // for a matrix the kernel assigns: that one gets a local (`load_push_block`).
            let kernel = self.kernel.kind == crate::ir::FunctionKind::Kernel;
            if kernel
                && i < self.kernel.param_count
                && matches!(local.ty, Type::Matrix(..) | Type::Struct(_))
                && !self.assigned_matrix_param(i)
            {
                continue;
            }
            // A local of a dead branch the device specialization removed has no type left.
            if matches!(local.ty, Type::Shared(_) | Type::Void) {
                continue;
            }
            if super::textures::is_resource_argument(&local.ty) {
                return Err(refuse(
                    local.span,
                    "a resource held in a local or passed to a `@Device` helper",
                ));
            }
            let pod = super::cpu::pods::pod_local_bytes(&local.ty);
            if let (Some(bytes), super::target::Target::Cpu) = (pod, self.target) {
                let _ = writeln!(self.allocas, "  %l{i} = alloca [{bytes} x i8], align 16");
                continue;
            }
            let ty = types::value(&local.ty, local.span)?;
            let _ = writeln!(self.allocas, "  %l{i} = alloca {ty}");
        }
        for (i, v) in incoming {
            self.emit(format!("store {} {}, ptr %l{i}", v.ty, v.text));
        }
        Ok(())
    }

    /// Whether local `i` is a matrix parameter of the kernel that its body assigns (whole,
    /// or a column or element of it): such a parameter is copied into a local at entry.
    pub(super) fn assigned_matrix_param(&self, i: usize) -> bool {
        if self.kernel.kind != crate::ir::FunctionKind::Kernel
            || i >= self.kernel.param_count
            || !matches!(self.kernel.locals[i].ty, Type::Matrix(..))
        {
            return false;
        }
        let mut stored = false;
        crate::ir::visit::for_each_local_use(&self.kernel.body, &mut |l, usage| {
            stored |= l.0 == i && usage == crate::ir::visit::LocalUse::Store;
        });
        stored
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

    pub(super) fn block(&mut self, stmts: &[Stmt]) -> Res<()> {
        for (i, s) in stmts.iter().enumerate() {
            self.stmt(s)?;
            if self.continue_pending && i + 1 < stmts.len() {
                return self.guarded_rest(&stmts[i + 1..]);
            }
        }
        Ok(())
    }

    pub(super) fn stmt(&mut self, s: &Stmt) -> Res<()> {
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
            Stmt::Store { place, value, span } if matches!(value.ty, Type::Struct(_)) => {
                self.cpu_pod_copy(place, value, *span)?;
            }
            Stmt::Store { place, value, span } => {
                // Java's order: the element a store writes is found (its index evaluated)
                // before the value, so `o[j] = j++` writes the element `j` named first.
                self.store_in_order(place, value, *span)?;
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
                self.escapes.push(false);
                let pending = std::mem::replace(&mut self.continue_pending, false);
                let r = self.block(body);
                self.continue_pending = pending;
                self.loops.pop();
                let escaped = self.escapes.pop().unwrap_or(false);
                r?;
                self.emit(format!("br label %{cont}"));
                self.start_block(&cont);
                self.clear_jump();
                self.block(continuing)?;
                if let Some(c) = post_cond {
                    let c = self.expr(c)?;
                    self.emit(format!("br i1 {}, label %{head}, label %{exit}", c.text));
                } else {
                    self.emit(format!("br label %{head}"));
                }
                self.start_block(&exit);
                if escaped {
                    self.dispatch_escapes();
                }
            }
            Stmt::Break(id) => self.jump(*id, false)?,
            Stmt::Continue(id) => self.jump(*id, true)?,
            Stmt::Return(None, _) if self.region => {
                // The invocation's byte of the done array (`cpu/split_private.rs`).
                self.terminate("store i8 1, ptr %cpu.pv.me\n  ret void".to_string())
            }
            Stmt::Return(None, _) => self.terminate("ret void".to_string()),
            Stmt::Return(Some(e), _) => {
                let v = self.expr(e)?;
                self.terminate(format!("ret {} {}", v.ty, v.text));
            }
        }
        Ok(())
    }

    pub(super) fn store(&mut self, place: &Place, v: Val, span: Span) -> Res<()> {
        match place {
            Place::Local(l) => {
                self.emit(format!("store {} {}, ptr %l{}", v.ty, v.text, l.0));
                Ok(())
            }
            Place::Index { base, index } => {
                let at = self.element_pointer(base, index)?;
                self.store_element(at, v);
                Ok(())
            }
            Place::Lane { base, lane } => self.store_lane(base, *lane, v, span),
            Place::Field { .. } => self.cpu_pod_store(place, v, span),
        }
    }

    /// `place = value`, the place's indices evaluated before the value.
    fn store_in_order(&mut self, place: &Place, value: &Expr, span: Span) -> Res<()> {
        match place {
            Place::Index { base, index } => {
                let at = self.element_pointer(base, index)?;
                let v = self.expr(value)?;
                self.store_element(at, v);
                Ok(())
            }
            Place::Lane { base, lane } => match &**base {
                Place::Index { base: b, index } => {
                    let at = self.element_pointer(b, index)?;
                    let v = self.expr(value)?;
                    self.store_element_lane(base, at, *lane, v, span)
                }
                Place::Field { .. } | Place::Lane { .. } => self.store_in_pod(place, value, span),
                Place::Local(_) => {
                    let v = self.expr(value)?;
                    self.store(place, v, span)
                }
            },
            Place::Field { .. } => self.store_in_pod(place, value, span),
            Place::Local(_) => {
                let v = self.expr(value)?;
                self.store(place, v, span)
            }
        }
    }

    /// A store to a field (or a lane of a field) of a POD value, its pointer found first.
    fn store_in_pod(&mut self, place: &Place, value: &Expr, span: Span) -> Res<()> {
        let at = self.cpu_pod_target(place, span)?;
        let v = self.expr(value)?;
        self.cpu_pod_store_at(at, v, span)
    }

    /// Stores `v` into the element at `(pointer, address space, stored scalar)`, as
    /// [`Self::element_pointer`] found it.
    fn store_element(&mut self, (p, space, s): (String, u32, ScalarType), v: Val) {
        let v = self.stored_form(v, s);
        let v = self.bits_for_store(&p, v);
        self.emit(format!(
            "store {} {}, ptr addrspace({space}) {p}",
            v.ty, v.text
        ));
    }

    pub(super) fn stored_form(&mut self, v: Val, s: ScalarType) -> Val {
        if s == ScalarType::BF16 && v.ty == "float" {
            return self.bf16_to_bits(v);
        }
        if s != ScalarType::Bool {
            return v;
        }
        let t = self.tmp();
        let ty = match types::split_vector(v.ty) {
            Some((n, _)) => types::vector("i32", n, Span::default()).unwrap_or("i32"),
            None => "i32",
        };
        self.emit(format!("{t} = zext {} {} to {ty}", v.ty, v.text));
        Val { text: t, ty }
    }

    pub(super) fn expr_or_void(&mut self, e: &Expr) -> Res<Option<Val>> {
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
                    op: Intrinsic::BufferVstore,
                    args,
                } => {
                    self.vstore(args, e.span)?;
                    return Ok(None);
                }
                ExprKind::Intrinsic {
                    op: Intrinsic::Barrier(kind),
                    args,
                } => {
                    self.barrier(*kind, args)?;
                    return Ok(None);
                }
                ExprKind::Intrinsic {
                    op: op @ Intrinsic::IntPrecision(crate::ir::IntPrecisionFn::StoreLane(_)),
                    args,
                } => {
                    self.intrinsic(op, args, e)?;
                    return Ok(None);
                }
                ExprKind::Host {
                    op: crate::ir::HostOp::Printf,
                    args,
                } => {
                    self.debug_printf(args, e)?;
                    return Ok(None);
                }
                _ => return Err(refuse(e.span, "this statement")),
            }
        }
        self.expr(e).map(Some)
    }

    pub(super) fn expr(&mut self, e: &Expr) -> Res<Val> {
        let v = self.expr_unrounded(e)?;
        if Self::rounds_to_bf16(e) {
            return Ok(self.round_bf16(v));
        }
        Ok(v)
    }

    fn expr_unrounded(&mut self, e: &Expr) -> Res<Val> {
        match &e.kind {
            ExprKind::Const(c) => {
                let s = scalar_of(&e.ty, e.span)?;
                let ty = scalar(s, e.span)?;
                let text = match c {
                    Constant::Bool(b) => b.to_string(),
                    // Sema may type an integer literal as a float (as the rspirv backend
                    // accepts).
                    Constant::Int(bits) if s.is_float() => float_const_of(s, *bits as i64 as f64),
                    Constant::Int(bits) => int_const(s, *bits),
                    Constant::Float(f) => float_const_of(s, *f),
                };
                Ok(Val { text, ty })
            }
            ExprKind::Load(Place::Local(l)) if l.0 >= self.kernel.locals.len() => self
                .lane_values
                .get(l.0 - self.kernel.locals.len())
                .cloned()
                .ok_or_else(|| refuse(e.span, "an unknown local")),
            ExprKind::Load(place @ Place::Local(l))
                if self.push_places.iter().any(|(p, _)| *p == l.0) =>
            {
                self.load_field(place, e)
            }
            ExprKind::Load(Place::Local(l)) => {
                let ty = types::value(&e.ty, e.span)?;
                let t = self.tmp();
                self.emit(format!("{t} = load {ty}, ptr %l{}", l.0));
                Ok(Val { text: t, ty })
            }
            ExprKind::Load(Place::Index { base, index }) => {
                let (p, space, s) = self.element_pointer(base, index)?;
                if self.bit_pointers.contains(&p) {
                    return Ok(self.load_bits(&p, space));
                }
                let stored = types::stored_value(&e.ty, e.span)?;
                let t = self.tmp();
                self.emit(format!("{t} = load {stored}, ptr addrspace({space}) {p}"));
                self.loaded_form(Val::new(t, stored), s, e.span)
            }
            ExprKind::Load(Place::Lane { base, lane }) => self.load_lane(base, *lane, e.span),
            ExprKind::Load(place @ Place::Field { .. }) => self.load_field(place, e),
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
            ExprKind::Construct(parts) => self.construct(parts, e),
            ExprKind::Splat(x) => self.splat(x, e),
            ExprKind::Swizzle(x, lanes) => self.swizzle(x, lanes, e),
            ExprKind::Host {
                op: crate::ir::HostOp::Printf,
                args,
            } => {
                self.debug_printf(args, e)?;
                Ok(Val::new(String::new(), "void"))
            }
            ExprKind::Host {
                op: crate::ir::HostOp::ArrayLength,
                args,
            } if args.len() == 1 && args[0].ty.is_buffer_array() => {
                self.buffer_array_count(&args[0], e.span)
            }
            ExprKind::Str(_) | ExprKind::Host { .. } | ExprKind::Launch(_) => {
                Err(refuse(e.span, "host-only expressions"))
            }
        }
    }

    /// A call of a `@Device` helper with scalar arguments (LLVM inlines it).
    pub(super) fn call(&mut self, func: FunctionId, args: &[Expr], e: &Expr) -> Res<Val> {
        let mut operands = Vec::new();
        let mut resources = Vec::new();
        for a in args {
            if super::textures::is_resource_argument(&a.ty) {
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
            if matches!(a.ty, Type::Shared(_)) {
                let Some(array) = self.shared_of(a).cloned() else {
                    return Err(refuse(
                        a.span,
                        "a shared-array argument that is not a declared local",
                    ));
                };
                resources.push(Some(Handle::Shared(array)));
                continue;
            }
            resources.push(None);
            let v = self.expr(a)?;
            operands.push(format!("{} {}", v.ty, v.text));
        }
        if self.target == super::target::Target::Cpu {
            operands.insert(0, "ptr %ctx".to_string());
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

    pub(super) fn short_circuit(&mut self, a: &Expr, b: &Expr, and: bool) -> Res<Val> {
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
}
