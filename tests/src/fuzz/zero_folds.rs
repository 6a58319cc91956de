//! Telling lavapipe's constant-zero folds apart from real wrong results.
//!
//! LLVM's constant propagation turns source operands it can prove zero into constant `0.0`
//! operands (`v *= (x & 8) << s` where the product is always 0 becomes `OpFMul %v
//! %float_0`), and lavapipe (Mesa 22.3) folds `x * 0.0` to +0 and `x + 0.0` to `x` although
//! the module declares `SignedZeroInfNanPreserve`: an infinite or NaN `x` then gives 0 where
//! IEEE (and host code) gives NaN, a negative one +0 instead of -0.0 (docs/fuzzing.md; seed
//! 12 programs 116 and 290, seed 11 program 299). Such a program is right on a conformant
//! driver and with rspirv's kernels, and the campaign would report it again and again.
//!
//! lavapipe's own constant propagation reaches the same fold in rspirv's kernels, which have
//! no constant zero: an integer it proves constant 0 (`x % (0 | 1)`, `x ^ x`, a `uint8` 255
//! incremented) converted to float and multiplied (seed 31 programs 31, 153, 229), or a
//! constant zero that reaches the product through an `OpSelect` on a constant condition
//! (`(true ? 0.0 : a0) * x`, seed 32 program 24).
//!
//! [`runtime_zeros`] rewrites a module so that each such operand is a zero computed at run
//! time, `(float) (globalIdX >> 31)` (0 for every invocation of a generated program, whose
//! grids are far below 2^31 invocations) or its negation for -0.0, which no driver can
//! fold: the same values under IEEE arithmetic, signed zeros included; and each integer
//! converted to float gets that run-time +0.0 added, the same value for every integer, which
//! the driver cannot see through either. A difference that goes away with it is the fold
//! ([`ZERO_FOLD`]); one that stays is reported as before.

use rspirv::binary::Assemble;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{BuiltIn, Decoration, Op, Word};

/// How the detail of a finding starts when the difference was lavapipe's constant-zero fold.
pub const ZERO_FOLD: &str = "lavapipe constant-zero fold (exact with run-time zeros): ";

/// `words` with every constant ±0.0 operand in the kernel's body (of arithmetic, of an
/// `OpSelect`, of a phi, a stored value) replaced by a run-time zero of the same sign, `OpFSub x x` computed as `x - (x + -0.0)`, and every
/// scalar integer-to-float conversion followed by `+ 0.0` with a run-time +0.0; `None` when
/// the module has none of them or no global invocation id to compute the zero from.
pub fn runtime_zeros(words: &[u32]) -> Option<Vec<u32>> {
    let mut m = rspirv::dr::load_words(words).ok()?;
    // Each constant zero, whether it is -0.0, and its type.
    let zeros: Vec<(Word, bool, Word)> = m
        .types_global_values
        .iter()
        .filter(|i| matches!(i.class.opcode, Op::Constant | Op::ConstantNull))
        .filter_map(|i| Some((i.result_id?, float_zero(&m, i)?, i.result_type?)))
        .collect();
    let vector_zeros = vector_zeros(&m, &zeros);
    let zero = |id: &Word| {
        zeros
            .iter()
            .find(|(z, _, _)| z == id)
            .map(|(_, neg, ty)| (*neg, *ty))
    };
    let gid_var = m.annotations.iter().find_map(|i| {
        (i.class.opcode == Op::Decorate
            && i.operands.get(1) == Some(&Operand::Decoration(Decoration::BuiltIn))
            && i.operands.get(2) == Some(&Operand::BuiltIn(BuiltIn::GlobalInvocationId)))
        .then(|| match i.operands.first() {
            Some(Operand::IdRef(v)) => Some(*v),
            _ => None,
        })
        .flatten()
    })?;
    let uint = m.types_global_values.iter().find_map(|i| {
        (i.class.opcode == Op::TypeInt
            && i.operands == [Operand::LiteralBit32(32), Operand::LiteralBit32(0)])
        .then_some(i.result_id)
        .flatten()
    })?;
    let floats: Vec<Word> = m
        .types_global_values
        .iter()
        .filter(|t| t.class.opcode == Op::TypeFloat)
        .filter_map(|t| t.result_id)
        .collect();
    let mut next = m.header.as_ref()?.bound;
    let mut fresh = || {
        next += 1;
        next - 1
    };
    // The type of a load of the invocation id, for functions that do not load it.
    let gid_ty = m
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter().flat_map(|b| b.instructions.iter()))
        .find(|i| {
            i.class.opcode == Op::Load && i.operands.first() == Some(&Operand::IdRef(gid_var))
        })
        .and_then(|i| i.result_type)?;
    let c31 = fresh();
    let mut any = false;
    // Every function: the kernel, and helpers that LLVM did not inline (seed 150 program 4:
    // `@Host @Device` helpers come first in LLVM's module, and the kernel's zeros were not
    // rewritten, so the fold was reported as a new wrong result).
    for f in &mut m.functions {
        let Some(first) = f.blocks.first_mut() else {
            continue;
        };
        if !first.instructions.iter().any(|i| {
            i.class.opcode == Op::Load && i.operands.first() == Some(&Operand::IdRef(gid_var))
        }) {
            // Load the id after the block's variables, as the kernel does.
            let at = first
                .instructions
                .iter()
                .take_while(|i| matches!(i.class.opcode, Op::Variable | Op::Phi))
                .count();
            let (load, x) = (fresh(), fresh());
            first.instructions.splice(
                at..at,
                [
                    Instruction::new(
                        Op::Load,
                        Some(gid_ty),
                        Some(load),
                        vec![Operand::IdRef(gid_var)],
                    ),
                    Instruction::new(
                        Op::CompositeExtract,
                        Some(uint),
                        Some(x),
                        vec![Operand::IdRef(load), Operand::LiteralBit32(0)],
                    ),
                ],
            );
        }
        let ids = ModuleIds {
            gid_var,
            uint,
            c31,
            floats: &floats,
            zero: &zero,
            vector_zeros: &vector_zeros,
        };
        any |= rewrite_function(f, &ids, &mut fresh);
    }
    if !any {
        return None;
    }
    m.types_global_values.push(Instruction::new(
        Op::Constant,
        Some(uint),
        Some(c31),
        vec![Operand::LiteralBit32(31)],
    ));
    if let Some(h) = m.header.as_mut() {
        h.bound = next;
    }
    Some(m.assemble())
}

/// What [`rewrite_function`] needs of the module: the invocation id variable, the `uint`
/// type, the constant 31, the float types, the constant zeros (sign and type) and constant
/// vectors with zero lanes.
struct ModuleIds<'a> {
    gid_var: Word,
    uint: Word,
    c31: Word,
    floats: &'a [Word],
    zero: &'a dyn Fn(&Word) -> Option<(bool, Word)>,
    vector_zeros: &'a [VectorZero],
}

/// Rewrites one function's constant zeros and integer-to-float conversions (see
/// [`runtime_zeros`]) with run-time zeros computed from its first extraction of the
/// invocation id's `x` in its entry block; whether anything was rewritten.
fn rewrite_function(
    f: &mut rspirv::dr::Function,
    ids: &ModuleIds,
    fresh: &mut dyn FnMut() -> Word,
) -> bool {
    let ModuleIds {
        gid_var,
        uint,
        c31,
        floats,
        zero,
        vector_zeros,
    } = *ids;
    let shifted = fresh();
    // The run-time vectors that replace constant vectors with zero lanes, made on first use.
    let mut vectors: Vec<(Word, Word)> = Vec::new();
    // The zero is computed right after the first `OpCompositeExtract … 0` of a load of the
    // invocation id, in the entry block (so it dominates every use after it).
    let loads: Vec<Word> = f.blocks[0]
        .instructions
        .iter()
        .filter(|i| {
            i.class.opcode == Op::Load && i.operands.first() == Some(&Operand::IdRef(gid_var))
        })
        .filter_map(|i| i.result_id)
        .collect();
    let Some((at, x)) = f.blocks[0]
        .instructions
        .iter()
        .enumerate()
        .find_map(|(ii, i)| {
            (i.class.opcode == Op::CompositeExtract
                && matches!(i.operands.first(), Some(Operand::IdRef(v)) if loads.contains(v))
                && i.operands.get(1) == Some(&Operand::LiteralBit32(0)))
            .then_some((ii, i.result_id?))
        })
    else {
        return false;
    };
    // The scalar float types that need run-time zeros, and the ids of +0.0 and -0.0.
    let mut conv: Vec<(Word, Word, Word)> = Vec::new();
    for (bi, b) in f.blocks.iter_mut().enumerate() {
        let mut out = Vec::with_capacity(b.instructions.len());
        for (ii, mut i) in std::mem::take(&mut b.instructions).into_iter().enumerate() {
            let convert = matches!(i.class.opcode, Op::ConvertUToF | Op::ConvertSToF)
                && i.result_type.is_some_and(|t| floats.contains(&t))
                && (bi > 0 || ii > at);
            if let (true, Some(ty), Some(r)) = (convert, i.result_type, i.result_id) {
                // An integer the driver proves constant (`x % 1`, `x ^ x`, a `uint8` 255
                // incremented) converts to a constant float: `r = t + 0.0` with a run-time
                // +0.0 is `t` for every integer (none converts to -0.0) and hides it.
                let (pz, _) = zero_ids(&mut conv, ty, &mut *fresh);
                let t = fresh();
                i.result_id = Some(t);
                out.push(i);
                out.push(Instruction::new(
                    Op::FAdd,
                    Some(ty),
                    Some(r),
                    vec![Operand::IdRef(t), Operand::IdRef(pz)],
                ));
                continue;
            }
            if bi == 0 && ii <= at {
                out.push(i);
                continue;
            }
            let same = i.class.opcode == Op::FSub
                && i.operands[0] == i.operands[1]
                && i.result_type.is_some_and(|t| floats.contains(&t));
            if let (true, Some(ty), Some(Operand::IdRef(x))) =
                (same, i.result_type, i.operands.first().cloned())
            {
                // `x - x` folds to 0 (NaN for an infinite or NaN x): `x - (x + -0.0)`,
                // the same value for every x (`x + -0.0` is x, -0.0 included).
                let (_, nz) = zero_ids(&mut conv, ty, &mut *fresh);
                let y = fresh();
                out.push(Instruction::new(
                    Op::FAdd,
                    Some(ty),
                    Some(y),
                    vec![Operand::IdRef(x), Operand::IdRef(nz)],
                ));
                i.operands[1] = Operand::IdRef(y);
            }
            // A constant zero anywhere (an arithmetic operand, a `?:` arm, a phi's incoming
            // value, a stored value) becomes the run-time zero of its sign.
            for op in &mut i.operands {
                if let Operand::IdRef(id) = op {
                    if let Some((neg, ty)) = zero(id) {
                        let (pz, nz) = zero_ids(&mut conv, ty, &mut *fresh);
                        *op = Operand::IdRef(if neg { nz } else { pz });
                    } else if let Some(v) = vector_zeros.iter().find(|v| v.id == *id) {
                        // A vector with zero lanes (`OpConstantNull`, a constant composite;
                        // seed 41 program 174: `splat(x) * (0, 0, 0)`): the same vector
                        // built at run time from the run-time zeros.
                        for lane in &v.lanes {
                            if let Lane::Zero(_, ty) = lane {
                                zero_ids(&mut conv, *ty, &mut *fresh);
                            }
                        }
                        let made = match vectors.iter().find(|(c, _)| c == id) {
                            Some((_, made)) => *made,
                            None => {
                                let made = fresh();
                                vectors.push((*id, made));
                                made
                            }
                        };
                        *op = Operand::IdRef(made);
                    }
                }
            }
            out.push(i);
        }
        b.instructions = out;
    }
    if conv.is_empty() {
        return false;
    }
    let mut zero_code = vec![Instruction::new(
        Op::ShiftRightLogical,
        Some(uint),
        Some(shifted),
        vec![Operand::IdRef(x), Operand::IdRef(c31)],
    )];
    for (ty, pz, nz) in &conv {
        zero_code.push(Instruction::new(
            Op::ConvertUToF,
            Some(*ty),
            Some(*pz),
            vec![Operand::IdRef(shifted)],
        ));
        zero_code.push(Instruction::new(
            Op::FNegate,
            Some(*ty),
            Some(*nz),
            vec![Operand::IdRef(*pz)],
        ));
    }
    for (c, made) in &vectors {
        let Some(v) = vector_zeros.iter().find(|v| v.id == *c) else {
            continue;
        };
        let lanes = v
            .lanes
            .iter()
            .map(|lane| match lane {
                Lane::Zero(neg, ty) => {
                    let (pz, nz) = zero_ids(&mut conv, *ty, &mut || unreachable!());
                    Operand::IdRef(if *neg { nz } else { pz })
                }
                Lane::Keep(id) => Operand::IdRef(*id),
            })
            .collect();
        zero_code.push(Instruction::new(
            Op::CompositeConstruct,
            Some(v.ty),
            Some(*made),
            lanes,
        ));
    }
    f.blocks[0].instructions.splice(at + 1..at + 1, zero_code);
    true
}

/// The ids of the run-time +0.0 and -0.0 of the float type `ty`, made (and recorded in
/// `conv`) on first use.
fn zero_ids(
    conv: &mut Vec<(Word, Word, Word)>,
    ty: Word,
    fresh: &mut dyn FnMut() -> Word,
) -> (Word, Word) {
    if let Some((_, p, n)) = conv.iter().find(|(t, _, _)| *t == ty) {
        return (*p, *n);
    }
    let (p, n) = (fresh(), fresh());
    conv.push((ty, p, n));
    (p, n)
}

/// A lane of a constant vector: a float zero (whether -0.0, its scalar type) or another
/// constant.
enum Lane {
    Zero(bool, Word),
    Keep(Word),
}

/// A constant float vector with at least one zero lane.
struct VectorZero {
    id: Word,
    ty: Word,
    lanes: Vec<Lane>,
}

/// The module's constant float vectors with zero lanes: `OpConstantNull` of a float vector
/// type, and `OpConstantComposite`s with a constituent among `zeros`.
fn vector_zeros(m: &rspirv::dr::Module, zeros: &[(Word, bool, Word)]) -> Vec<VectorZero> {
    let float_vector = |ty: Word| {
        m.types_global_values.iter().find_map(|t| {
            let lane = match (t.class.opcode, t.result_id, t.operands.as_slice()) {
                (Op::TypeVector, Some(id), [Operand::IdRef(c), Operand::LiteralBit32(n)])
                    if id == ty =>
                {
                    (*c, *n)
                }
                _ => return None,
            };
            let float = m
                .types_global_values
                .iter()
                .any(|f| f.class.opcode == Op::TypeFloat && f.result_id == Some(lane.0));
            float.then_some(lane)
        })
    };
    let mut out = Vec::new();
    for i in &m.types_global_values {
        let (Some(id), Some(ty)) = (i.result_id, i.result_type) else {
            continue;
        };
        let Some((scalar, n)) = float_vector(ty) else {
            continue;
        };
        let lanes: Vec<Lane> = match i.class.opcode {
            Op::ConstantNull => (0..n).map(|_| Lane::Zero(false, scalar)).collect(),
            Op::ConstantComposite => i
                .operands
                .iter()
                .filter_map(|o| match o {
                    Operand::IdRef(c) => Some(match zeros.iter().find(|(z, _, _)| z == c) {
                        Some((_, neg, t)) => Lane::Zero(*neg, *t),
                        None => Lane::Keep(*c),
                    }),
                    _ => None,
                })
                .collect(),
            _ => continue,
        };
        if lanes.iter().any(|l| matches!(l, Lane::Zero(..))) {
            out.push(VectorZero { id, ty, lanes });
        }
    }
    out
}

/// For an `OpConstant` float zero or a float `OpConstantNull`, whether it is -0.0; `None` for
/// anything else.
fn float_zero(m: &rspirv::dr::Module, i: &Instruction) -> Option<bool> {
    let float = m.types_global_values.iter().any(|t| {
        t.class.opcode == Op::TypeFloat && t.result_id.is_some() && t.result_id == i.result_type
    });
    if i.class.opcode == Op::ConstantNull {
        return float.then_some(false);
    }
    match i.operands.first() {
        Some(Operand::LiteralBit32(b)) if float && b & 0x7FFF_FFFF == 0 => Some(*b != 0),
        Some(Operand::LiteralBit64(b)) if float && b & 0x7FFF_FFFF_FFFF_FFFF == 0 => Some(*b != 0),
        _ => None,
    }
}
