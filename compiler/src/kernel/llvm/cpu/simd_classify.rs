//! What the vector form needs to know before it writes anything (`simd_emit.rs`): which
//! instructions it can write, which are uniform (the same in every lane), and which values
//! are read after a loop some lanes may have left earlier. Also the names of intrinsics
//! and types as LLVM's text spells them.

use std::ffi::CStr;

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMAtomicOrdering, LLVMOpcode, LLVMTypeKind};

use super::hooks::{GLOBAL_ID, LOCAL_ID};
use super::simd::id_offset;
use super::simd_emit::Emit;

/// Elementwise intrinsics a vector call may replace (their overloaded types are the
/// value's).
const ELEMENTWISE: &[&str] = &[
    "fabs",
    "sqrt",
    "fma",
    "fmuladd",
    "minnum",
    "maxnum",
    "minimum",
    "maximum",
    "floor",
    "ceil",
    "trunc",
    "rint",
    "nearbyint",
    "round",
    "roundeven",
    "copysign",
    "exp",
    "exp2",
    "exp10",
    "log",
    "log2",
    "log10",
    "pow",
    "sin",
    "cos",
    "tan",
    "smin",
    "smax",
    "umin",
    "umax",
    "abs",
    "ctpop",
    "ctlz",
    "cttz",
    "bitreverse",
    "bswap",
    "fshl",
    "fshr",
    "uadd.sat",
    "usub.sat",
    "sadd.sat",
    "ssub.sat",
    "fptoui.sat",
    "fptosi.sat",
    "canonicalize",
];

/// The name prefix of the module's own helpers the vector form calls once per active lane
/// (a loop over the lanes of the mask): a call with scalar arguments whose result is a
/// scalar, or a vector of which only constant lanes are extracted (a texel).
pub(crate) const LANEWISE_PREFIX: &str = "cajeta.cpu.lanewise.";

/// Calls that do nothing the vector form needs.
pub(super) const IGNORED: &[&str] = &[
    "llvm.lifetime.",
    "llvm.assume",
    "llvm.experimental.noalias.scope.decl",
];

pub(super) unsafe fn print_value(v: LLVMValueRef) -> String {
    let p = LLVMPrintValueToString(v);
    let s = CStr::from_ptr(p).to_string_lossy().into_owned();
    LLVMDisposeMessage(p);
    s
}

pub(super) unsafe fn print_type(t: LLVMTypeRef) -> String {
    let p = LLVMPrintTypeToString(t);
    let s = CStr::from_ptr(p).to_string_lossy().into_owned();
    LLVMDisposeMessage(p);
    s
}

pub(super) unsafe fn name_of(v: LLVMValueRef) -> String {
    let mut len = 0;
    let p = LLVMGetValueName2(v, &mut len);
    String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len)).into_owned()
}

pub(super) unsafe fn instructions(b: LLVMBasicBlockRef) -> Vec<LLVMValueRef> {
    let mut v = Vec::new();
    let mut i = LLVMGetFirstInstruction(b);
    while !i.is_null() {
        v.push(i);
        i = LLVMGetNextInstruction(i);
    }
    v
}

/// The called function's name of call `inst`, when it is a direct call.
pub(super) unsafe fn callee(inst: LLVMValueRef) -> Option<String> {
    let f = LLVMGetCalledValue(inst);
    (!LLVMIsAFunction(f).is_null()).then(|| name_of(f))
}

/// Whether `inst` is a call of a lane-by-lane helper ([`LANEWISE_PREFIX`]).
pub(super) unsafe fn is_lanewise(inst: LLVMValueRef) -> bool {
    !LLVMIsACallInst(inst).is_null() && callee(inst).is_some_and(|n| n.starts_with(LANEWISE_PREFIX))
}

/// Whether `t` is a type a lane of the vector form holds (an integer, float or pointer).
unsafe fn is_scalar_type(t: LLVMTypeRef) -> bool {
    matches!(
        LLVMGetTypeKind(t),
        LLVMTypeKind::LLVMIntegerTypeKind
            | LLVMTypeKind::LLVMHalfTypeKind
            | LLVMTypeKind::LLVMBFloatTypeKind
            | LLVMTypeKind::LLVMFloatTypeKind
            | LLVMTypeKind::LLVMDoubleTypeKind
            | LLVMTypeKind::LLVMPointerTypeKind
    )
}

/// The element types of lane-by-lane call `inst`'s result: one for a scalar, the fields of
/// a structure of scalars (a texel), none for `void`.
pub(super) unsafe fn lanewise_fields(inst: LLVMValueRef) -> Vec<LLVMTypeRef> {
    let ty = LLVMTypeOf(inst);
    match LLVMGetTypeKind(ty) {
        LLVMTypeKind::LLVMVoidTypeKind => Vec::new(),
        LLVMTypeKind::LLVMStructTypeKind => (0..LLVMCountStructElementTypes(ty))
            .map(|i| LLVMStructGetTypeAtIndex(ty, i))
            .collect(),
        _ => vec![ty],
    }
}

/// Why lane-by-lane call `inst` is not one the vector form writes, if it is not: its
/// arguments must be scalars, its result a scalar or a structure of scalars of which only
/// fields are extracted.
unsafe fn check_lanewise(inst: LLVMValueRef) -> Result<(), String> {
    for i in 0..LLVMGetNumArgOperands(inst) {
        if !is_scalar_type(LLVMTypeOf(LLVMGetOperand(inst, i))) {
            return Err("a lane-by-lane call with an argument other than a scalar".into());
        }
    }
    let ty = LLVMTypeOf(inst);
    if LLVMGetTypeKind(ty) != LLVMTypeKind::LLVMStructTypeKind {
        return match is_scalar_type(ty) || LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMVoidTypeKind {
            true => Ok(()),
            false => Err(format!(
                "a lane-by-lane call returning `{}`",
                print_type(ty)
            )),
        };
    }
    if !lanewise_fields(inst).into_iter().all(|t| is_scalar_type(t)) {
        return Err(format!(
            "a lane-by-lane call returning `{}`",
            print_type(ty)
        ));
    }
    let mut u = LLVMGetFirstUse(inst);
    while !u.is_null() {
        let user = LLVMGetUser(u);
        if LLVMIsAExtractValueInst(user).is_null() || LLVMGetNumIndices(user) != 1 {
            return Err("a lane-by-lane call's result used other than field by field".into());
        }
        u = LLVMGetNextUse(u);
    }
    Ok(())
}

/// The base name of an elementwise intrinsic (`llvm.smax.i32` → `smax`).
pub(super) fn elementwise(name: &str) -> Option<&'static str> {
    let rest = name.strip_prefix("llvm.")?;
    ELEMENTWISE.iter().copied().find(|b| {
        rest.strip_prefix(b)
            .is_some_and(|t| t.starts_with('.') && t[1..].split('.').all(is_type_mangling))
    })
}

fn is_type_mangling(s: &str) -> bool {
    matches!(s, "f16" | "f32" | "f64" | "bf16")
        || (s.starts_with('i') && s[1..].parse::<u32>().is_ok())
}

/// The vector intrinsic's name: each type in the name widened to `lanes`.
pub(super) fn vector_intrinsic(name: &str, lanes: usize) -> String {
    name.split('.')
        .map(|p| {
            if is_type_mangling(p) {
                format!("v{lanes}{p}")
            } else {
                p.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// The intrinsic-name form of a pointer vector's element (`p0`, `p11`).
pub(super) fn pointer_mangling(ty: &str) -> String {
    match ty
        .strip_prefix("ptr addrspace(")
        .and_then(|t| t.strip_suffix(')'))
    {
        Some(n) => format!("p{n}"),
        None => "p0".to_string(),
    }
}

/// The intrinsic-name form of a scalar type (`f32`, `i32`, `p11`).
pub(super) fn mangling(ty: &str) -> String {
    match ty {
        "half" => "f16".into(),
        "float" => "f32".into(),
        "double" => "f64".into(),
        "bfloat" => "bf16".into(),
        t if t.starts_with("ptr") => pointer_mangling(t),
        t => t.to_string(),
    }
}

impl Emit<'_> {
    /// Refuses what the vector form does not handle.
    pub(super) unsafe fn check(&self, inst: LLVMValueRef) -> Result<(), String> {
        use LLVMOpcode::*;
        let ty = LLVMTypeOf(inst);
        if is_lanewise(inst) {
            return check_lanewise(inst);
        }
        if LLVMGetInstructionOpcode(inst) == LLVMExtractValue {
            // Only of a lane-by-lane call's result (`check_lanewise` checked it).
            return match is_lanewise(LLVMGetOperand(inst, 0)) {
                true => Ok(()),
                false => Err("an `extractvalue` other than of a lane-by-lane call".into()),
            };
        }
        if !matches!(
            LLVMGetTypeKind(ty),
            LLVMTypeKind::LLVMVoidTypeKind
                | LLVMTypeKind::LLVMIntegerTypeKind
                | LLVMTypeKind::LLVMHalfTypeKind
                | LLVMTypeKind::LLVMBFloatTypeKind
                | LLVMTypeKind::LLVMFloatTypeKind
                | LLVMTypeKind::LLVMDoubleTypeKind
                | LLVMTypeKind::LLVMPointerTypeKind
        ) {
            return Err(format!("a value of type `{}`", print_type(ty)));
        }
        match LLVMGetInstructionOpcode(inst) {
            LLVMLoad | LLVMStore => {
                if LLVMGetVolatile(inst) != 0
                    || LLVMGetOrdering(inst) != LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic
                {
                    return Err("an atomic or volatile access".into());
                }
                let stored = if LLVMGetInstructionOpcode(inst) == LLVMStore {
                    LLVMTypeOf(LLVMGetOperand(inst, 0))
                } else {
                    ty
                };
                if LLVMGetTypeKind(stored) == LLVMTypeKind::LLVMIntegerTypeKind
                    && LLVMGetIntTypeWidth(stored) == 1
                {
                    return Err("a memory access of `i1`".into());
                }
                if !is_scalar_type(stored) {
                    return Err(format!("a store of `{}`", print_type(stored)));
                }
                Ok(())
            }
            LLVMCall => match callee(inst) {
                Some(n)
                    if elementwise(&n).is_some() || IGNORED.iter().any(|p| n.starts_with(p)) =>
                {
                    Ok(())
                }
                Some(n) => Err(format!("a call of `{n}`")),
                None => Err("an indirect call".into()),
            },
            LLVMAdd | LLVMSub | LLVMMul | LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem | LLVMFAdd
            | LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFRem | LLVMShl | LLVMLShr | LLVMAShr
            | LLVMAnd | LLVMOr | LLVMXor | LLVMFNeg | LLVMICmp | LLVMFCmp | LLVMSelect
            | LLVMTrunc | LLVMZExt | LLVMSExt | LLVMFPToUI | LLVMFPToSI | LLVMUIToFP
            | LLVMSIToFP | LLVMFPTrunc | LLVMFPExt | LLVMPtrToInt | LLVMIntToPtr | LLVMBitCast
            | LLVMAddrSpaceCast | LLVMFreeze | LLVMPHI | LLVMUncondBr | LLVMCondBr | LLVMRet
            | LLVMUnreachable => Ok(()),
            LLVMGetElementPtr => {
                let base = LLVMGetOperand(inst, 0);
                if base == LLVMGetParam(self.kernel, 0) && self.ctx_offset(inst).is_none() {
                    return Err("an access to the context other than a field".into());
                }
                Ok(())
            }
            other => Err(format!("a `{other:?}` instruction")),
        }
    }

    /// The byte offset a pointer has in the context, when it is the context itself or a
    /// constant byte offset from it.
    pub(super) unsafe fn ctx_offset(&self, p: LLVMValueRef) -> Option<i64> {
        let ctx = LLVMGetParam(self.kernel, 0);
        if p == ctx {
            return Some(0);
        }
        if LLVMIsAGetElementPtrInst(p).is_null()
            || LLVMGetOperand(p, 0) != ctx
            || LLVMGetNumOperands(p) != 2
            || print_type(LLVMGetGEPSourceElementType(p)) != "i8"
        {
            return None;
        }
        let off = LLVMGetOperand(p, 1);
        (!LLVMIsAConstantInt(off).is_null()).then(|| LLVMConstIntGetSExtValue(off))
    }

    /// The axis (0 x, 1 y) of the lane's own id load `inst` reads (`GlobalInvocationId` or
    /// `LocalInvocationId`), if it reads one: it is then the first lane's plus the lane's
    /// offset in the tile of invocations a call runs (`%lx`, `%ly`).
    pub(super) unsafe fn lane_id_axis(&self, inst: LLVMValueRef) -> Option<u32> {
        let off = self.ctx_offset(LLVMGetOperand(inst, 0))?;
        (0..2).find(|axis| {
            [id_offset(GLOBAL_ID, *axis), id_offset(LOCAL_ID, *axis)]
                .iter()
                .any(|o| off == i64::from(*o))
        })
    }

    /// Sorts the instructions into uniform and varying (until nothing changes: operands
    /// defined later are phis, which are varying anyway).
    pub(super) unsafe fn classify(&mut self) {
        use LLVMOpcode::*;
        let all: Vec<LLVMValueRef> = self
            .cfg
            .blocks
            .iter()
            .flat_map(|b| instructions(*b))
            .collect();
        self.uniform = all.iter().copied().collect();
        // Loops entered and repeated through one edge each: their header phis are uniform
        // while every branch in them is (all lanes then iterate in lock step).
        let candidates: Vec<usize> = (0..self.cfg.loops.len())
            .filter(|l| {
                let lp = &self.cfg.loops[*l];
                let inside = self.cfg.preds[lp.header]
                    .iter()
                    .filter(|p| lp.blocks.contains(p))
                    .count();
                inside == 1 && self.cfg.preds[lp.header].len() == 2
            })
            .collect();
        loop {
            let lockstep: Vec<usize> = candidates
                .iter()
                .copied()
                .filter(|l| {
                    self.cfg.loops[*l].blocks.iter().all(|b| {
                        let term = LLVMGetBasicBlockTerminator(self.cfg.blocks[*b]);
                        LLVMGetInstructionOpcode(term) != LLVMOpcode::LLVMCondBr
                            || self.is_uniform(LLVMGetCondition(term))
                    })
                })
                .collect();
            let mut changed = false;
            for &inst in &all {
                if !self.uniform.contains(&inst) {
                    continue;
                }
                let by_itself = match LLVMGetInstructionOpcode(inst) {
                    LLVMPHI => {
                        let b = self.block_of[&inst];
                        !lockstep.iter().any(|l| self.cfg.loops[*l].header == b)
                    }
                    LLVMStore | LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem => true,
                    // Run for the active lanes only, never for all of them at once.
                    LLVMCall => is_lanewise(inst),
                    LLVMLoad => {
                        let p = LLVMGetOperand(inst, 0);
                        if self.ctx_offset(p).is_some() {
                            self.lane_id_axis(inst).is_some()
                        } else {
                            LLVMGetMetadata(inst, self.invariant_kind).is_null()
                        }
                    }
                    _ => false,
                };
                let operand_varying = (0..LLVMGetNumOperands(inst)).any(|i| {
                    let o = LLVMGetOperand(inst, i as u32);
                    !LLVMIsAInstruction(o).is_null() && !self.uniform.contains(&o)
                });
                if by_itself || operand_varying {
                    self.uniform.remove(&inst);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// Whether a loop has a branch on a varying condition: its lanes may leave it at
    /// different iterations.
    pub(super) unsafe fn has_divergent_loop(&self) -> bool {
        self.cfg.loops.iter().any(|l| {
            l.blocks.iter().any(|b| {
                let term = LLVMGetBasicBlockTerminator(self.cfg.blocks[*b]);
                LLVMGetInstructionOpcode(term) == LLVMOpcode::LLVMCondBr
                    && !self.is_uniform(LLVMGetCondition(term))
            })
        })
    }

    /// Finds the varying values read where some lanes may have left a loop they are
    /// defined in (those read `%name.acc`, each lane's value from its last iteration).
    pub(super) unsafe fn find_accumulators(&mut self) {
        for (&inst, &def) in &self.block_of {
            if self.uniform.contains(&inst) || self.cfg.inner[def].is_none() {
                continue;
            }
            // A lane-by-lane call's structure result has no vector form of its own: its
            // fields' slots (`%name.lanes.K`) keep each lane's last value anyway.
            if LLVMGetTypeKind(LLVMTypeOf(inst)) == LLVMTypeKind::LLVMStructTypeKind {
                continue;
            }
            let mut u = LLVMGetFirstUse(inst);
            while !u.is_null() {
                let user = LLVMGetUser(u);
                let b = self.block_of[&user];
                let same = if LLVMIsAPHINode(user).is_null() {
                    self.cfg.same_iteration(def, b, b)
                } else {
                    (0..LLVMCountIncoming(user))
                        .filter(|i| LLVMGetIncomingValue(user, *i) == inst)
                        .all(|i| {
                            let p = self.cfg.index[&LLVMGetIncomingBlock(user, i)];
                            self.cfg.same_iteration(def, p, b)
                        })
                };
                if !same {
                    self.acc.insert(inst);
                }
                u = LLVMGetNextUse(u);
            }
        }
    }
}
