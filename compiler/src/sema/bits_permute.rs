//! Cajeta's `Bits.permute(lo, hi, selector)`: byte `i` of the `uint32` result is byte
//! `s_i & 7` of the eight bytes `lo` (bytes 0..3) then `hi` (bytes 4..7), where `s_i` is
//! nibble `i` of `selector`, low nibble first (CUDA's `__byte_perm`, without its
//! sign-replicate mode: a nibble's top bit is ignored). Spelled out per byte: a select of
//! the word and a shift, on every backend and in host code.

use super::body::{FnCtx, R};
use super::bytes16::{bin, int, sequence};
use crate::diagnostics::Span;
use crate::ir::{self, BinaryOp, ExprKind, ScalarType, Type};
use crate::syntax::ast;

impl FnCtx<'_, '_> {
    /// `Bits.permute(lo, hi, selector)`; `None` for any other call.
    pub(super) fn bits_permute_call(
        &mut self,
        recv: &ast::Expr,
        name: &ast::Ident,
        args: &[ast::Arg],
        span: Span,
    ) -> Option<R<ir::Expr>> {
        if name.name != "permute" || args.len() != 3 || !self.names_library_class(recv, "Bits") {
            return None;
        }
        let u32t = Type::Scalar(ScalarType::U32);
        let mut stmts = Vec::new();
        let mut operands = Vec::new();
        for a in args {
            let v = match self.expr(&a.value, Some(&u32t)) {
                Ok(v) => v,
                Err(e) => return Some(Err(e)),
            };
            let v = match self.coerce(v, &u32t, a.value.span) {
                Ok(v) => v,
                Err(e) => return Some(Err(e)),
            };
            operands.push(self.bind_value(&mut stmts, v));
        }
        let k = |v: u64| int(v, ScalarType::U32, span);
        let (lo, hi, sel) = (&operands[0], &operands[1], &operands[2]);
        let mut out: Option<ir::Expr> = None;
        for i in 0..4u64 {
            let nibble = bin(
                BinaryOp::BitAnd,
                bin(BinaryOp::Shr, sel.clone(), k(4 * i), span),
                k(7),
                span,
            );
            let nibble = self.bind_value(&mut stmts, nibble);
            let word = ir::Expr {
                kind: ExprKind::Select {
                    cond: Box::new(ir::Expr {
                        kind: ExprKind::Binary(
                            BinaryOp::Lt,
                            Box::new(nibble.clone()),
                            Box::new(k(4)),
                        ),
                        ty: Type::Scalar(ScalarType::Bool),
                        span,
                    }),
                    then: Box::new(lo.clone()),
                    otherwise: Box::new(hi.clone()),
                },
                ty: u32t.clone(),
                span,
            };
            let shift = bin(
                BinaryOp::Mul,
                bin(BinaryOp::BitAnd, nibble, k(3), span),
                k(8),
                span,
            );
            let byte = bin(
                BinaryOp::BitAnd,
                bin(BinaryOp::Shr, word, shift, span),
                k(0xFF),
                span,
            );
            let placed = bin(BinaryOp::Shl, byte, k(8 * i), span);
            out = Some(match out {
                Some(o) => bin(BinaryOp::BitOr, o, placed, span),
                None => placed,
            });
        }
        Some(Ok(sequence(stmts, out.expect("four bytes"))))
    }
}
