//! Cajeta's 16-lane byte vectors, `Vector<int8, 16>` and `Vector<uint8, 16>` (the operands of
//! `Group.mac`). Vulkan shaders have no 16-component vectors, so one is held as four 32-bit
//! words, lane `4k + j` in byte `j` (from the low end) of word `k`: the layout of 16 bytes in
//! memory, and what the packed `IntegerDot` instructions take.
//!
//! What Cajeta does with them is spelled out on the words here: construction from 16 lanes
//! (or one, repeated), reading lane `v[k]` (a constant `k`), `a.dot(b)` (four packed 8-bit dot
//! products summed, wrapping; `dot(b, acc)` saturates as the 4-lane form does), and the
//! reinterpretations `v.asWords()` (the four words, `Vector<int32, 4>`; `uint32` for `uint8`
//! lanes) and `w.asBytes()` on a `Vector<int32|uint32, 4>`, and the nibble lookup
//! `q.lut4(table)`. The type becomes its words before
//! the backends ([`super::value_lowering::lower_module`]), so both kernel backends, the CPU
//! device and both host executors run these unchanged. Lane-wise arithmetic is not offered
//! (E0015).

use super::body::{FnCtx, R};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, BinaryOp, Constant, ExprKind, Intrinsic, ScalarType, Type};
use crate::syntax::ast;

/// The four words a 16-lane byte vector of `lane` is held in: `Vector<int32, 4>` for `int8`
/// lanes (the packed dot products then take them as signed), `Vector<uint32, 4>` for `uint8`.
pub fn words_type(lane: ScalarType) -> Type {
    Type::Vector(word_of(lane), 4)
}

pub(super) fn word_of(lane: ScalarType) -> ScalarType {
    if lane == ScalarType::U8 {
        ScalarType::U32
    } else {
        ScalarType::I32
    }
}

const METHODS: &str =
    "v[k] (a constant k), dot(b), dot(b, acc), dotAccum(a, acc), lut4(table), asWords(); Group.mac(acc, a, b)";

impl<'s, 'a> FnCtx<'s, 'a> {
    /// `stack Vector<int8, 16>(b0, …, b15)`, or one lane value for all sixteen.
    pub(super) fn construct_bytes16(
        &mut self,
        ty: Type,
        args: &[ast::Arg],
        span: Span,
    ) -> R<ir::Expr> {
        let Type::Bytes16(lane) = ty else {
            unreachable!("construct_bytes16 of another type")
        };
        if args.len() != 16 && args.len() != 1 {
            return self.error(Diagnostic::error(
                Code::ArgumentCount,
                span,
                format!(
                    "{ty} takes 16 lanes, or one for every lane; found {}",
                    args.len()
                ),
            ));
        }
        let lane_ty = Type::Scalar(lane);
        let word = word_of(lane);
        let mut bytes = Vec::new();
        for a in args {
            let v = self.expr(&a.value, Some(&lane_ty))?;
            let v = self.coerce(v, &lane_ty, a.value.span)?;
            // The lane's low 8 bits in a word.
            let widened = convert(v, word, span);
            bytes.push(bin(BinaryOp::BitAnd, widened, int(0xFF, word, span), span));
        }
        let mut stmts = Vec::new();
        if bytes.len() == 1 {
            // One value for every lane: its byte times 0x01010101 fills a word.
            let b = bytes.remove(0);
            let b = self.bind_value(&mut stmts, b);
            bytes = vec![b; 16];
        }
        let mut words = Vec::new();
        for k in 0..4 {
            let mut w = bytes[4 * k].clone();
            for j in 1..4 {
                let shifted = bin(
                    BinaryOp::Shl,
                    bytes[4 * k + j].clone(),
                    int(8 * j as u64, word, span),
                    span,
                );
                w = bin(BinaryOp::BitOr, w, shifted, span);
            }
            words.push(w);
        }
        let value = ir::Expr {
            kind: ExprKind::Construct(words),
            ty,
            span,
        };
        Ok(sequence(stmts, value))
    }

    /// `v[k]` with a constant `k` in 0..15: byte `k % 4` of word `k / 4`.
    pub(super) fn bytes16_lane(
        &mut self,
        v: ir::Expr,
        index: &ast::Expr,
        span: Span,
    ) -> R<ir::Expr> {
        let Type::Bytes16(lane) = v.ty else {
            unreachable!("bytes16_lane of another type")
        };
        let k = self.constant_lane(index, 16)?;
        Ok(byte_lane(v, k, lane, span))
    }

    /// `a.dot(b)`, `a.dot(b, acc)` and `a.asWords()` on a 16-lane byte vector.
    pub(super) fn bytes16_method(
        &mut self,
        v: ir::Expr,
        name: &ast::Ident,
        args: &[ast::Arg],
        span: Span,
    ) -> R<ir::Expr> {
        let vt = v.ty.clone();
        let Type::Bytes16(lane) = vt else {
            unreachable!("bytes16_method of another type")
        };
        let word = word_of(lane);
        match (name.name.as_str(), args.len()) {
            ("asWords", 0) => Ok(ir::Expr {
                ty: words_type(lane),
                ..v
            }),
            ("dot", 1 | 2) => {
                let other = self.expr(&args[0].value, Some(&vt))?;
                let other = self.coerce(other, &vt, args[0].value.span)?;
                let acc = match args.get(1) {
                    Some(a) => {
                        let want = Type::Scalar(word);
                        let acc = self.expr(&a.value, Some(&want))?;
                        Some(self.coerce(acc, &want, a.value.span)?)
                    }
                    None => None,
                };
                let mut stmts = Vec::new();
                let a = self.bind_value(&mut stmts, v);
                let b = self.bind_value(&mut stmts, other);
                let word_of_k = |e: &ir::Expr, k: u8| ir::Expr {
                    kind: ExprKind::Swizzle(Box::new(e.clone()), vec![k]),
                    ty: Type::Scalar(word),
                    span,
                };
                let saturating = acc.is_some();
                let device = self.is_device();
                let mut total = acc;
                for k in 0..4 {
                    let (wa, wb) = (word_of_k(&a, k), word_of_k(&b, k));
                    total = Some(if device {
                        // OpSDot / OpUDot (…AccSat) where the device has them.
                        let mut operands = vec![wa, wb];
                        if saturating {
                            operands.extend(total.take());
                        }
                        let d = ir::Expr {
                            kind: ExprKind::Intrinsic {
                                op: Intrinsic::IntDot {
                                    acc_sat: saturating,
                                },
                                args: operands,
                            },
                            ty: Type::Scalar(word),
                            span,
                        };
                        match total {
                            Some(t) => bin(BinaryOp::Add, t, d, span),
                            None => d,
                        }
                    } else {
                        // Host code: the four byte products of the word, exact in 32 bits.
                        let d = word_dot(&wa, &wb, lane, span);
                        match total {
                            Some(t) if saturating => {
                                let t = self.bind_value(&mut stmts, t);
                                let d = self.bind_value(&mut stmts, d);
                                saturating_add(t, d, word, span)
                            }
                            Some(t) => bin(BinaryOp::Add, t, d, span),
                            None => d,
                        }
                    });
                }
                Ok(sequence(stmts, total.expect("four products")))
            }
            ("dotAccum", 2) => self.bytes16_dot_accum(v, args, span),
            ("lut4", 1) => {
                let table = self.expr(&args[0].value, Some(&vt))?;
                let table = self.coerce(table, &vt, args[0].value.span)?;
                Ok(self.bytes16_lut4(v, table, span))
            }
            (other, n) => self.error(
                Diagnostic::error(
                    Code::UnknownMethod,
                    name.span,
                    format!("`{vt}` has no method `{other}` taking {n} argument(s)"),
                )
                .with_note(format!(
                    "a 16-lane byte vector is held as four 32-bit words; it has {METHODS}"
                )),
            ),
        }
    }

    /// Cajeta's `w.dotAccum(a, acc)`: `acc` plus, in each lane `k`, the four byte products of
    /// word `k` of `w` and of `a` (each byte taken with its own vector's signedness, so a
    /// `Vector<uint8, 16>` of weights may meet `Vector<int8, 16>` activations), wrapping as
    /// int32 does. Spelled out on the bytes on every backend: exact everywhere.
    fn bytes16_dot_accum(&mut self, w: ir::Expr, args: &[ast::Arg], span: Span) -> R<ir::Expr> {
        let Type::Bytes16(wl) = w.ty else {
            unreachable!("dotAccum of another type")
        };
        let a = self.expr(&args[0].value, None)?;
        let Type::Bytes16(al) = a.ty else {
            let t = a.ty.clone();
            return self.error(Diagnostic::error(
                Code::TypeMismatch,
                args[0].value.span,
                format!("`dotAccum` takes a 16-lane byte vector (`Vector<int8, 16>` or `Vector<uint8, 16>`), found {t}"),
            ));
        };
        let acc_ty = Type::Vector(ScalarType::I32, 4);
        let acc = self.expr(&args[1].value, Some(&acc_ty))?;
        let acc = self.coerce(acc, &acc_ty, args[1].value.span)?;
        let mut stmts = Vec::new();
        let w = self.bind_value(&mut stmts, w);
        let a = self.bind_value(&mut stmts, a);
        let acc = self.bind_value(&mut stmts, acc);
        let i32t = ScalarType::I32;
        let lane_of = |e: &ir::Expr, k: u8, word: ScalarType| ir::Expr {
            kind: ExprKind::Swizzle(Box::new(e.clone()), vec![k]),
            ty: Type::Scalar(word),
            span,
        };
        // Byte j of a word, as `lane` (int8 or uint8), widened to int32.
        let byte = |word: ir::Expr, j: u64, lane: ScalarType| {
            let ws = word_of(lane);
            let shifted = bin(BinaryOp::Shr, word, int(8 * j, ws, span), span);
            convert(convert(shifted, lane, span), i32t, span)
        };
        let mut lanes = Vec::new();
        for k in 0..4u8 {
            let mut sum = lane_of(&acc, k, i32t);
            for j in 0..4 {
                let p = bin(
                    BinaryOp::Mul,
                    byte(lane_of(&w, k, word_of(wl)), j, wl),
                    byte(lane_of(&a, k, word_of(al)), j, al),
                    span,
                );
                sum = bin(BinaryOp::Add, sum, p, span);
            }
            lanes.push(sum);
        }
        Ok(sequence(
            stmts,
            ir::Expr {
                kind: ExprKind::Construct(lanes),
                ty: acc_ty,
                span,
            },
        ))
    }

    /// Cajeta's `q.lut4(table)`: lane `i` of the result is `table[q[i] & 15]`, the low nibble
    /// of each lane (taken unsigned) picking one of the table's sixteen bytes. Each result byte
    /// picks the table word `index >> 2` with three selects, then its byte `index & 3` with a
    /// shift: Vulkan has no byte permute, and this keeps the table in four words (no private
    /// array to index).
    fn bytes16_lut4(&mut self, q: ir::Expr, table: ir::Expr, span: Span) -> ir::Expr {
        let Type::Bytes16(lane) = q.ty else {
            unreachable!("bytes16_lut4 of another type")
        };
        let word = word_of(lane);
        let mut stmts = Vec::new();
        let q = self.bind_value(&mut stmts, q);
        let t = self.bind_value(&mut stmts, table);
        let word_k = |e: &ir::Expr, k: u8| ir::Expr {
            kind: ExprKind::Swizzle(Box::new(e.clone()), vec![k]),
            ty: Type::Scalar(word),
            span,
        };
        let less = |a: ir::Expr, b: u64| ir::Expr {
            kind: ExprKind::Binary(BinaryOp::Lt, Box::new(a), Box::new(int(b, word, span))),
            ty: Type::Scalar(ScalarType::Bool),
            span,
        };
        let select = |c, t, o| select_expr(c, t, o, span);
        let mut words = Vec::new();
        for k in 0..4u8 {
            let mut out: Option<ir::Expr> = None;
            for j in 0..4u64 {
                // The nibble: bits 8j..8j+3 of word k (the `& 15` drops any sign bits).
                let shifted = bin(BinaryOp::Shr, word_k(&q, k), int(8 * j, word, span), span);
                let index = bin(BinaryOp::BitAnd, shifted, int(15, word, span), span);
                let index = self.bind_value(&mut stmts, index);
                let chosen = select(
                    less(index.clone(), 4),
                    word_k(&t, 0),
                    select(
                        less(index.clone(), 8),
                        word_k(&t, 1),
                        select(less(index.clone(), 12), word_k(&t, 2), word_k(&t, 3)),
                    ),
                );
                let bit = bin(
                    BinaryOp::Mul,
                    bin(BinaryOp::BitAnd, index, int(3, word, span), span),
                    int(8, word, span),
                    span,
                );
                let byte = bin(
                    BinaryOp::BitAnd,
                    bin(BinaryOp::Shr, chosen, bit, span),
                    int(0xFF, word, span),
                    span,
                );
                let placed = if j == 0 {
                    byte
                } else {
                    bin(BinaryOp::Shl, byte, int(8 * j, word, span), span)
                };
                out = Some(match out {
                    Some(o) => bin(BinaryOp::BitOr, o, placed, span),
                    None => placed,
                });
            }
            words.push(out.expect("four bytes"));
        }
        let value = ir::Expr {
            kind: ExprKind::Construct(words),
            ty: q.ty.clone(),
            span,
        };
        sequence(stmts, value)
    }

    /// `w.asBytes()` on a `Vector<int32, 4>` (`Vector<int8, 16>`) or `Vector<uint32, 4>`
    /// (`Vector<uint8, 16>`): the same 16 bytes, lane 0 the low byte of `w.x`.
    pub(super) fn words_as_bytes(&mut self, w: ir::Expr) -> ir::Expr {
        let lane = match w.ty {
            Type::Vector(ScalarType::U32, 4) => ScalarType::U8,
            _ => ScalarType::I8,
        };
        ir::Expr {
            ty: Type::Bytes16(lane),
            ..w
        }
    }

    /// A 16-lane byte vector `v` (lanes of type `lane`) as the text a vector prints as,
    /// `(b0, b1, …, b15)`, each lane with its type's sign (host code: `println`, `print` and
    /// string `+`). Without it the value, held as four words, printed as the words.
    pub(super) fn bytes16_as_text(&mut self, v: ir::Expr, lane: ScalarType) -> ir::Expr {
        let span = v.span;
        let mut stmts = Vec::new();
        let v = self.bind_value(&mut stmts, v);
        let lanes = (0..16u8)
            .map(|k| byte_lane(v.clone(), k, lane, span))
            .collect();
        sequence(stmts, super::wide_vector_ops::lanes_text(lanes, span))
    }

    /// Evaluates `e` once into a temporary and returns a load of it.
    pub(super) fn bind_value(&mut self, stmts: &mut Vec<ir::Stmt>, e: ir::Expr) -> ir::Expr {
        let (ty, span) = (e.ty.clone(), e.span);
        let id = self.temp(ty.clone(), span);
        stmts.push(ir::Stmt::Store {
            place: ir::Place::Local(id),
            value: e,
            span,
        });
        ir::Expr {
            kind: ExprKind::Load(ir::Place::Local(id)),
            ty,
            span,
        }
    }
}

/// `Σ_j byte_j(a) · byte_j(b)` of two words, each byte taken as `lane`, summed in the word
/// type (exact: at most 4 · 255² in magnitude).
fn word_dot(a: &ir::Expr, b: &ir::Expr, lane: ScalarType, span: Span) -> ir::Expr {
    let word = word_of(lane);
    let byte = |w: &ir::Expr, j: u64| {
        let shifted = bin(BinaryOp::Shr, w.clone(), int(8 * j, word, span), span);
        convert(convert(shifted, lane, span), word, span)
    };
    let mut sum = bin(BinaryOp::Mul, byte(a, 0), byte(b, 0), span);
    for j in 1..4 {
        let p = bin(BinaryOp::Mul, byte(a, j), byte(b, j), span);
        sum = bin(BinaryOp::Add, sum, p, span);
    }
    sum
}

/// `t + d` clamped to the range of `word` (`int32` or `uint32`), as SPIR-V's `…AccSat`: the
/// sum in 64 bits, then the bound it passed. `t` and `d` are loads.
fn saturating_add(t: ir::Expr, d: ir::Expr, word: ScalarType, span: Span) -> ir::Expr {
    let (wide, lo, hi) = if word == ScalarType::U32 {
        (ScalarType::U64, 0u64, u64::from(u32::MAX))
    } else {
        (ScalarType::I64, i64::from(i32::MIN) as u64, i32::MAX as u64)
    };
    let sum = bin(
        BinaryOp::Add,
        convert(t, wide, span),
        convert(d, wide, span),
        span,
    );
    let compare = |op, a: ir::Expr, b: ir::Expr| ir::Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        ty: Type::Scalar(ScalarType::Bool),
        span,
    };
    let select = |c, t, o| select_expr(c, t, o, span);
    let lo_c = int(lo, wide, span);
    let hi_c = int(hi, wide, span);
    let clamped = select(
        compare(BinaryOp::Gt, sum.clone(), hi_c.clone()),
        hi_c,
        select(compare(BinaryOp::Lt, sum.clone(), lo_c.clone()), lo_c, sum),
    );
    convert(clamped, word, span)
}

/// Lane `k` (0 to 15) of the byte vector `v`, of lane type `lane`: byte `k % 4` of word
/// `k / 4`, narrowed (which keeps the low 8 bits).
fn byte_lane(v: ir::Expr, k: u8, lane: ScalarType, span: Span) -> ir::Expr {
    let word = word_of(lane);
    let w = ir::Expr {
        kind: ExprKind::Swizzle(Box::new(v), vec![k / 4]),
        ty: Type::Scalar(word),
        span,
    };
    let shifted = bin(
        BinaryOp::Shr,
        w,
        int(8 * u64::from(k % 4), word, span),
        span,
    );
    convert(shifted, lane, span)
}

pub(super) fn int(v: u64, s: ScalarType, span: Span) -> ir::Expr {
    ir::Expr::constant(Constant::Int(v), Type::Scalar(s), span)
}

fn convert(v: ir::Expr, to: ScalarType, span: Span) -> ir::Expr {
    ir::Expr {
        kind: ExprKind::Convert(Box::new(v)),
        ty: Type::Scalar(to),
        span,
    }
}

pub(super) fn bin(op: BinaryOp, a: ir::Expr, b: ir::Expr, span: Span) -> ir::Expr {
    let ty = a.ty.clone();
    ir::Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        ty,
        span,
    }
}

pub(super) fn sequence(stmts: Vec<ir::Stmt>, value: ir::Expr) -> ir::Expr {
    if stmts.is_empty() {
        return value;
    }
    let (ty, span) = (value.ty.clone(), value.span);
    ir::Expr {
        kind: ExprKind::Sequence(stmts, Box::new(value)),
        ty,
        span,
    }
}

/// `cond ? then : otherwise`, of `then`'s type.
fn select_expr(cond: ir::Expr, then: ir::Expr, otherwise: ir::Expr, span: Span) -> ir::Expr {
    ir::Expr {
        ty: then.ty.clone(),
        kind: ExprKind::Select {
            cond: Box::new(cond),
            then: Box::new(then),
            otherwise: Box::new(otherwise),
        },
        span,
    }
}
