//! The vector form of single instructions (`simd_emit.rs` writes the control flow): each
//! operation on `<W x T>` values, and memory accesses as masked loads and stores when the
//! lanes' addresses are consecutive (checked at run time), a scalar load when they are all
//! one address, and gathers and scatters otherwise.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMRealPredicate, LLVMTypeKind};

use super::simd_classify::{
    callee, elementwise, is_lanewise, lanewise_fields, mangling, name_of, pointer_mangling,
    print_type, print_value, vector_intrinsic, IGNORED,
};
use super::simd_emit::Emit;

impl Emit<'_> {
    /// One instruction of block `b` (not a phi or terminator) under `mask`.
    pub(super) unsafe fn instruction(
        &mut self,
        inst: LLVMValueRef,
        b: usize,
        mask: &str,
    ) -> Result<(), String> {
        use LLVMOpcode::*;
        let op = LLVMGetInstructionOpcode(inst);
        // An `llvm.assume` holds where its block runs; the vector form runs every block, so
        // it is dropped (before the uniform copy below, which would keep it).
        if op == LLVMCall && callee(inst).is_some_and(|n| IGNORED.iter().any(|p| n.starts_with(p)))
        {
            return Ok(());
        }
        if self.uniform.contains(&inst) {
            let text = print_value(inst);
            self.line(text.trim());
            return Ok(());
        }
        let w = self.lanes;
        let name = name_of(inst);
        let ty = Self::ty(inst);
        let vty = self.vec(&ty);
        let operand = |e: &mut Self, i: u32| e.vector(LLVMGetOperand(inst, i), b, b);
        let otype = |i: u32| Self::ty(LLVMGetOperand(inst, i));
        let text = match op {
            LLVMLoad if self.lane_id_axis(inst).is_some() => {
                let scalar = print_value(inst);
                self.line(scalar.trim());
                let s = self.splat("i32", &format!("%{name}"));
                let offsets = ["%lx", "%ly"][self.lane_id_axis(inst).unwrap_or(0) as usize];
                format!("add <{w} x i32> {s}, {offsets}")
            }
            LLVMLoad if self.is_uniform(LLVMGetOperand(inst, 0)) => {
                let p = self.scalar(LLVMGetOperand(inst, 0));
                let (pty, align) = (otype(0), LLVMGetAlignment(inst));
                let v = self.uniform_load(&ty, &pty, &p, align, mask);
                format!("select i1 true, {vty} {v}, {vty} poison")
            }
            LLVMLoad => {
                let p = operand(self, 0);
                let pty = otype(0);
                let align = LLVMGetAlignment(inst);
                let v = self.load(&ty, &pty, &p, align, mask);
                format!("select i1 true, {vty} {v}, {vty} poison")
            }
            LLVMStore => {
                let (v, p) = (operand(self, 0), operand(self, 1));
                let (vt, pt) = (otype(0), otype(1));
                let align = LLVMGetAlignment(inst);
                self.store(&vt, &pt, &v, &p, align, mask);
                return Ok(());
            }
            LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem => {
                let (a, d) = (operand(self, 0), operand(self, 1));
                // Idle lanes divide by 1, so they cannot trap.
                let safe = self.tmp();
                self.line(format!(
                    "{safe} = select <{w} x i1> {mask}, {vty} {d}, {vty} splat ({ty} 1)"
                ));
                let o = match op {
                    LLVMUDiv => "udiv",
                    LLVMSDiv => "sdiv",
                    LLVMURem => "urem",
                    _ => "srem",
                };
                format!("{o} {vty} {a}, {safe}")
            }
            LLVMAdd | LLVMSub | LLVMMul | LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFRem
            | LLVMShl | LLVMLShr | LLVMAShr | LLVMAnd | LLVMOr | LLVMXor => {
                let o = match op {
                    LLVMAdd => "add",
                    LLVMSub => "sub",
                    LLVMMul => "mul",
                    LLVMFAdd => "fadd",
                    LLVMFSub => "fsub",
                    LLVMFMul => "fmul",
                    LLVMFDiv => "fdiv",
                    LLVMFRem => "frem",
                    LLVMShl => "shl",
                    LLVMLShr => "lshr",
                    LLVMAShr => "ashr",
                    LLVMAnd => "and",
                    LLVMOr => "or",
                    _ => "xor",
                };
                let (a, c) = (operand(self, 0), operand(self, 1));
                format!("{o} {vty} {a}, {c}")
            }
            LLVMFNeg => format!("fneg {vty} {}", operand(self, 0)),
            LLVMFreeze => format!("freeze {vty} {}", operand(self, 0)),
            LLVMICmp | LLVMFCmp => {
                let pred = if op == LLVMICmp {
                    icmp_name(LLVMGetICmpPredicate(inst))
                } else {
                    fcmp_name(LLVMGetFCmpPredicate(inst))
                };
                let (a, c) = (operand(self, 0), operand(self, 1));
                let at = self.vec(&otype(0));
                let o = if op == LLVMICmp { "icmp" } else { "fcmp" };
                format!("{o} {pred} {at} {a}, {c}")
            }
            LLVMSelect => {
                let cond = LLVMGetOperand(inst, 0);
                let c = if self.is_uniform(cond) {
                    format!("i1 {}", self.scalar(cond))
                } else {
                    format!("<{w} x i1> {}", operand(self, 0))
                };
                let (x, y) = (operand(self, 1), operand(self, 2));
                format!("select {c}, {vty} {x}, {vty} {y}")
            }
            LLVMTrunc | LLVMZExt | LLVMSExt | LLVMFPToUI | LLVMFPToSI | LLVMUIToFP | LLVMSIToFP
            | LLVMFPTrunc | LLVMFPExt | LLVMPtrToInt | LLVMIntToPtr | LLVMBitCast
            | LLVMAddrSpaceCast => {
                let o = match op {
                    LLVMTrunc => "trunc",
                    LLVMZExt => "zext",
                    LLVMSExt => "sext",
                    LLVMFPToUI => "fptoui",
                    LLVMFPToSI => "fptosi",
                    LLVMUIToFP => "uitofp",
                    LLVMSIToFP => "sitofp",
                    LLVMFPTrunc => "fptrunc",
                    LLVMFPExt => "fpext",
                    LLVMPtrToInt => "ptrtoint",
                    LLVMIntToPtr => "inttoptr",
                    LLVMBitCast => "bitcast",
                    _ => "addrspacecast",
                };
                let a = operand(self, 0);
                let at = self.vec(&otype(0));
                format!("{o} {at} {a} to {vty}")
            }
            LLVMGetElementPtr => {
                let src = print_type(LLVMGetGEPSourceElementType(inst));
                let mut parts = Vec::new();
                for i in 0..LLVMGetNumOperands(inst) as u32 {
                    let o = LLVMGetOperand(inst, i);
                    let t = Self::ty(o);
                    if self.is_uniform(o) {
                        parts.push(format!("{t} {}", self.scalar(o)));
                    } else {
                        let v = operand(self, i);
                        parts.push(format!("{} {v}", self.vec(&t)));
                    }
                }
                format!("getelementptr {src}, {}", parts.join(", "))
            }
            LLVMCall if is_lanewise(inst) => {
                self.lanewise_call(inst, b, mask);
                return Ok(());
            }
            LLVMExtractValue => {
                // Of a lane-by-lane call (`check`): the lanes' values of that field.
                let field = *LLVMGetIndices(inst);
                let call = name_of(LLVMGetOperand(inst, 0));
                format!("load {vty}, ptr %{call}.lanes.{field}")
            }
            LLVMCall => {
                let called = callee(inst).unwrap_or_default();
                if IGNORED.iter().any(|p| called.starts_with(p)) {
                    return Ok(());
                }
                let vname = vector_intrinsic(&called, w);
                let base = elementwise(&called).unwrap_or_default();
                let mut args = Vec::new();
                let mut types = Vec::new();
                for i in 0..LLVMGetNumArgOperands(inst) {
                    let o = LLVMGetOperand(inst, i);
                    let t = Self::ty(o);
                    // The flag of `ctlz`/`cttz`/`abs` stays a scalar constant.
                    let immediate = t == "i1" && matches!(base, "ctlz" | "cttz" | "abs");
                    if immediate {
                        args.push(format!("i1 {}", self.scalar(o)));
                        types.push("i1".to_string());
                    } else {
                        let v = operand(self, i);
                        let vt = self.vec(&t);
                        args.push(format!("{vt} {v}"));
                        types.push(vt);
                    }
                }
                self.declare(&vname, &vty, &types.join(", "));
                format!("call {vty} @\"{vname}\"({})", args.join(", "))
            }
            other => return Err(format!("internal: `{other:?}` reached the vector writer")),
        };
        self.line(format!("%{name}.v = {text}"));
        Ok(())
    }

    /// The arguments of call `inst` of block `b` for a lane-by-lane call: each its type and
    /// either its vector (a varying argument, taken apart per lane) or its scalar text (a
    /// uniform one, passed to every lane as is).
    pub(super) unsafe fn lane_call_arguments(
        &mut self,
        inst: LLVMValueRef,
        b: usize,
    ) -> Vec<(String, Option<String>, String)> {
        let mut args = Vec::new();
        for i in 0..LLVMGetNumArgOperands(inst) {
            let o = LLVMGetOperand(inst, i);
            let t = Self::ty(o);
            if self.is_uniform(o) {
                args.push((t, None, self.scalar(o)));
            } else {
                let v = self.vector(o, b, b);
                args.push((t, Some(v), String::new()));
            }
        }
        args
    }

    /// Lane-by-lane call `inst` of block `b`: the helper called once for each lane of
    /// `mask`, lowest first (a loop over the mask's set bits), its arguments that lane's
    /// values. Each lane's result goes to a slot of `W` elements, `%name.lanes.K` for
    /// field `K` of a structure result (`%name.lanes.0` for a scalar one), which holds what
    /// the lanes last got; a scalar result is then `%name.v`, read from its slot.
    unsafe fn lanewise_call(&mut self, inst: LLVMValueRef, b: usize, mask: &str) {
        if callee(inst).is_some_and(|n| n.starts_with(super::hooks::SHARED_RMW_PREFIX)) {
            return self.unrolled_call(inst, b, mask);
        }
        let w = self.lanes;
        let name = name_of(inst);
        let ret = LLVMTypeOf(inst);
        let fields: Vec<String> = lanewise_fields(inst)
            .into_iter()
            .map(|t| print_type(t))
            .collect();
        let structure = LLVMGetTypeKind(ret) == LLVMTypeKind::LLVMStructTypeKind;
        for (k, field) in fields.iter().enumerate() {
            self.allocas.push_str(&format!(
                "  %{name}.lanes.{k} = alloca [{w} x {field}], align 64\n"
            ));
        }
        // The varying arguments as vectors, before the loop.
        let args = self.lane_call_arguments(inst, b);
        let bits = self.tmp();
        // A void call has no name of its own.
        let slot = format!("{}.todo", self.tmp());
        self.allocas.push_str(&format!("  {slot} = alloca i{w}\n"));
        self.line(format!("{bits} = bitcast <{w} x i1> {mask} to i{w}"));
        self.line(format!("store i{w} {bits}, ptr {slot}"));
        let (head, body, done) = (
            self.label("lanes"),
            self.label("lane"),
            self.label("lanes.done"),
        );
        self.line(format!("br label %{head}"));
        self.out.push_str(&format!("{head}:\n"));
        let [m, any] = [self.tmp(), self.tmp()];
        self.line(format!("{m} = load i{w}, ptr {slot}"));
        self.line(format!("{any} = icmp ne i{w} {m}, 0"));
        self.line(format!("br i1 {any}, label %{body}, label %{done}"));
        self.out.push_str(&format!("{body}:\n"));
        let [lane, index, less, rest] = [self.tmp(), self.tmp(), self.tmp(), self.tmp()];
        self.line(format!(
            "{lane} = call i{w} @llvm.cttz.i{w}(i{w} {m}, i1 true)"
        ));
        self.declare(
            &format!("llvm.cttz.i{w}"),
            &format!("i{w}"),
            &format!("i{w}, i1"),
        );
        self.line(format!("{index} = zext i{w} {lane} to i64"));
        let mut texts = Vec::new();
        for (t, v, s) in args {
            match v {
                Some(v) => {
                    let e = self.tmp();
                    self.line(format!("{e} = extractelement <{w} x {t}> {v}, i64 {index}"));
                    texts.push(format!("{t} {e}"));
                }
                None => texts.push(format!("{t} {s}")),
            }
        }
        let called = callee(inst).unwrap_or_default();
        let ret_text = print_type(ret);
        let r = self.tmp();
        // The optimizer may have given the module's helper another calling convention.
        let cc = match LLVMGetInstructionCallConv(inst) {
            0 => String::new(),
            n => format!("cc {n} "),
        };
        let call = format!("call {cc}{ret_text} @\"{called}\"({})", texts.join(", "));
        if fields.is_empty() {
            self.line(call);
        } else {
            self.line(format!("{r} = {call}"));
            for (k, field) in fields.iter().enumerate() {
                let value = if structure {
                    let e = self.tmp();
                    self.line(format!("{e} = extractvalue {ret_text} {r}, {k}"));
                    e
                } else {
                    r.clone()
                };
                let p = self.tmp();
                self.line(format!(
                    "{p} = getelementptr [{w} x {field}], ptr %{name}.lanes.{k}, i64 0, i64 {index}"
                ));
                self.line(format!("store {field} {value}, ptr {p}"));
            }
        }
        self.line(format!("{less} = sub i{w} {m}, 1"));
        self.line(format!("{rest} = and i{w} {m}, {less}"));
        self.line(format!("store i{w} {rest}, ptr {slot}"));
        self.line(format!("br label %{head}"));
        self.out.push_str(&format!("{done}:\n"));
        if !structure && !fields.is_empty() {
            let vty = self.vec(&fields[0]);
            self.line(format!("%{name}.v = load {vty}, ptr %{name}.lanes.0"));
        }
    }

    /// Whether the active lanes of pointer vector `p` (of `pty`, to `ty` elements) are
    /// consecutive from lane 0's (`p0`): an `i1`.
    fn consecutive(&mut self, ty: &str, pty: &str, p: &str, p0: &str, mask: &str) -> String {
        let w = self.lanes;
        let lanes: Vec<String> = (0..w).map(|i| format!("i64 {i}")).collect();
        let [exp, eq, ok, all] = [self.tmp(), self.tmp(), self.tmp(), self.tmp()];
        let pv = self.vec(pty);
        self.line(format!(
            "{exp} = getelementptr {ty}, {pty} {p0}, <{w} x i64> <{}>",
            lanes.join(", ")
        ));
        self.line(format!("{eq} = icmp eq {pv} {p}, {exp}"));
        self.line(format!(
            "{ok} = select <{w} x i1> {mask}, <{w} x i1> {eq}, <{w} x i1> splat (i1 true)"
        ));
        self.line(format!(
            "{all} = call i1 @llvm.vector.reduce.and.v{w}i1(<{w} x i1> {ok})"
        ));
        all
    }

    /// A new label.
    pub(super) fn label(&mut self, what: &str) -> String {
        self.tmp += 1;
        format!("{what}{}", self.tmp)
    }

    /// The lanes' `ty` values at pointer vector `p` under `mask`: one masked load when the
    /// active lanes' addresses are consecutive, one scalar load when lane 0 is active and
    /// every active lane reads its address, a gather otherwise.
    pub(super) unsafe fn load(
        &mut self,
        ty: &str,
        pty: &str,
        p: &str,
        align: u32,
        mask: &str,
    ) -> String {
        let w = self.lanes;
        let (vty, pv) = (self.vec(ty), self.vec(pty));
        self.declare(
            &format!("llvm.vector.reduce.and.v{w}i1"),
            "i1",
            &format!("<{w} x i1>"),
        );
        let p0 = self.tmp();
        self.line(format!("{p0} = extractelement {pv} {p}, i64 0"));
        let all = self.consecutive(ty, pty, p, &p0, mask);
        let (seq, other, one, many, join) = (
            self.label("seq"),
            self.label("other"),
            self.label("one"),
            self.label("many"),
            self.label("join"),
        );
        self.line(format!("br i1 {all}, label %{seq}, label %{other}"));
        self.out.push_str(&format!("{seq}:\n"));
        let load = format!(
            "llvm.masked.load.v{w}{}.{}",
            mangling(ty),
            pointer_mangling(pty)
        );
        self.declare(&load, &vty, &format!("{pty}, <{w} x i1>, {vty}"));
        let a = self.tmp();
        self.line(format!("{a} = call {vty} @\"{load}\"({pty} align {align} {p0}, <{w} x i1> {mask}, {vty} poison)"));
        self.line(format!("br label %{join}"));
        self.out.push_str(&format!("{other}:\n"));
        let splat = self.splat(pty, &p0);
        let [eq, ok, same, m0, both] = [self.tmp(), self.tmp(), self.tmp(), self.tmp(), self.tmp()];
        self.line(format!("{eq} = icmp eq {pv} {p}, {splat}"));
        self.line(format!(
            "{ok} = select <{w} x i1> {mask}, <{w} x i1> {eq}, <{w} x i1> splat (i1 true)"
        ));
        self.line(format!(
            "{same} = call i1 @llvm.vector.reduce.and.v{w}i1(<{w} x i1> {ok})"
        ));
        self.line(format!("{m0} = extractelement <{w} x i1> {mask}, i64 0"));
        self.line(format!("{both} = and i1 {same}, {m0}"));
        self.line(format!("br i1 {both}, label %{one}, label %{many}"));
        self.out.push_str(&format!("{one}:\n"));
        let s = self.tmp();
        self.line(format!("{s} = load {ty}, {pty} {p0}, align {align}"));
        let b = self.splat(ty, &s);
        self.line(format!("br label %{join}"));
        self.out.push_str(&format!("{many}:\n"));
        let gather = format!(
            "llvm.masked.gather.v{w}{}.v{w}{}",
            mangling(ty),
            pointer_mangling(pty)
        );
        self.declare(&gather, &vty, &format!("{pv}, <{w} x i1>, {vty}"));
        let g = self.tmp();
        self.line(format!("{g} = call {vty} @\"{gather}\"({pv} align {align} {p}, <{w} x i1> {mask}, {vty} poison)"));
        self.line(format!("br label %{join}"));
        self.out.push_str(&format!("{join}:\n"));
        let r = self.tmp();
        self.line(format!(
            "{r} = phi {vty} [ {a}, %{seq} ], [ {b}, %{one} ], [ {g}, %{many} ]"
        ));
        r
    }

    /// The `ty` value at uniform pointer `p`, read once for every lane when any lane is
    /// active (the address may be invalid where no invocation would read it, such as the
    /// `Spec` values of a launch that gave none), as a vector.
    pub(super) fn uniform_load(
        &mut self,
        ty: &str,
        pty: &str,
        p: &str,
        align: u32,
        mask: &str,
    ) -> String {
        let w = self.lanes;
        let vty = self.vec(ty);
        let (read, join) = (self.label("read"), self.label("after"));
        let (any, from) = (self.tmp(), self.label("skip"));
        self.line(format!(
            "{any} = call i1 @llvm.vector.reduce.or.v{w}i1(<{w} x i1> {mask})"
        ));
        self.line(format!("br i1 {any}, label %{read}, label %{from}"));
        self.out.push_str(&format!("{from}:\n"));
        self.line(format!("br label %{join}"));
        self.out.push_str(&format!("{read}:\n"));
        let t = self.tmp();
        self.line(format!("{t} = load {ty}, {pty} {p}, align {align}"));
        let v = self.splat(ty, &t);
        self.line(format!("br label %{join}"));
        self.out.push_str(&format!("{join}:\n"));
        let r = self.tmp();
        self.line(format!(
            "{r} = phi {vty} [ {v}, %{read} ], [ poison, %{from} ]"
        ));
        r
    }

    /// Stores the lanes' `vt` values `v` at pointer vector `p` under `mask`: one masked
    /// store when the active lanes' addresses are consecutive, a scatter otherwise (which
    /// writes lanes in order, so the last lane wins where addresses repeat, as when the
    /// invocations run one after the other).
    pub(super) unsafe fn store(
        &mut self,
        vt: &str,
        pt: &str,
        v: &str,
        p: &str,
        align: u32,
        mask: &str,
    ) {
        let w = self.lanes;
        let (vv, pv) = (self.vec(vt), self.vec(pt));
        self.declare(
            &format!("llvm.vector.reduce.and.v{w}i1"),
            "i1",
            &format!("<{w} x i1>"),
        );
        let p0 = self.tmp();
        self.line(format!("{p0} = extractelement {pv} {p}, i64 0"));
        let all = self.consecutive(vt, pt, p, &p0, mask);
        let (seq, other, join) = (self.label("seq"), self.label("other"), self.label("join"));
        self.line(format!("br i1 {all}, label %{seq}, label %{other}"));
        self.out.push_str(&format!("{seq}:\n"));
        let store = format!(
            "llvm.masked.store.v{w}{}.{}",
            mangling(vt),
            pointer_mangling(pt)
        );
        self.declare(&store, "void", &format!("{vv}, {pt}, <{w} x i1>"));
        self.line(format!(
            "call void @\"{store}\"({vv} {v}, {pt} align {align} {p0}, <{w} x i1> {mask})"
        ));
        self.line(format!("br label %{join}"));
        self.out.push_str(&format!("{other}:\n"));
        let scatter = format!(
            "llvm.masked.scatter.v{w}{}.v{w}{}",
            mangling(vt),
            pointer_mangling(pt)
        );
        self.declare(&scatter, "void", &format!("{vv}, {pv}, <{w} x i1>"));
        self.line(format!(
            "call void @\"{scatter}\"({vv} {v}, {pv} align {align} {p}, <{w} x i1> {mask})"
        ));
        self.line(format!("br label %{join}"));
        self.out.push_str(&format!("{join}:\n"));
    }
}

fn icmp_name(p: LLVMIntPredicate) -> &'static str {
    use LLVMIntPredicate::*;
    match p {
        LLVMIntEQ => "eq",
        LLVMIntNE => "ne",
        LLVMIntUGT => "ugt",
        LLVMIntUGE => "uge",
        LLVMIntULT => "ult",
        LLVMIntULE => "ule",
        LLVMIntSGT => "sgt",
        LLVMIntSGE => "sge",
        LLVMIntSLT => "slt",
        LLVMIntSLE => "sle",
    }
}

fn fcmp_name(p: LLVMRealPredicate) -> &'static str {
    use LLVMRealPredicate::*;
    match p {
        LLVMRealPredicateFalse => "false",
        LLVMRealOEQ => "oeq",
        LLVMRealOGT => "ogt",
        LLVMRealOGE => "oge",
        LLVMRealOLT => "olt",
        LLVMRealOLE => "ole",
        LLVMRealONE => "one",
        LLVMRealORD => "ord",
        LLVMRealUNO => "uno",
        LLVMRealUEQ => "ueq",
        LLVMRealUGT => "ugt",
        LLVMRealUGE => "uge",
        LLVMRealULT => "ult",
        LLVMRealULE => "ule",
        LLVMRealUNE => "une",
        LLVMRealPredicateTrue => "true",
    }
}
