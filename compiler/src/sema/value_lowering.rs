//! The value types the checker spells out in vector operations, Cajeta's `Quaternion<T>`
//! (sema/quaternion.rs) and 16-lane byte vectors (sema/bytes16.rs), become the vectors that
//! hold them before the backends: one rewrite of every type in the checked module.

use crate::ir::{self, ExprKind, Place, Stmt, Type};

/// Rewrites every `Quaternion<T>` in `module` (locals, results, expressions, and inside
/// buffer, array and shared types) to `Vector<T, 4>`, and every 16-lane byte vector to its
/// four words: the checker has spelled out their operations in vector operations, so the
/// backends never see these types.
pub fn lower_module(module: &mut ir::Module) {
    for f in &mut module.functions {
        lower_type(&mut f.return_type);
        for l in &mut f.locals {
            lower_type(&mut l.ty);
        }
        lower_block(&mut f.body);
    }
}

fn lower_type(t: &mut Type) {
    match t {
        Type::Quaternion(s) => *t = Type::Vector(*s, 4),
        Type::Bytes16(s) => *t = super::bytes16::words_type(*s),
        // Only the local a wide vector's name is bound to has this type by now (its parts
        // hold the value, sema/wide_vector.rs): it stays unused.
        Type::Wide(s, _) => *t = Type::Vector(*s, 4),
        Type::Buffer(e) | Type::Array(e) | Type::Shared(e) => lower_type(e),
        _ => {}
    }
}

fn lower_block(block: &mut [Stmt]) {
    for s in block {
        match s {
            Stmt::Expr(e) => lower_expr(e),
            Stmt::Store { place, value, .. } => {
                lower_place(place);
                lower_expr(value);
            }
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                lower_expr(cond);
                lower_block(then);
                lower_block(otherwise);
            }
            Stmt::Loop {
                pre_cond,
                body,
                continuing,
                post_cond,
                ..
            } => {
                pre_cond.iter_mut().chain(post_cond).for_each(lower_expr);
                lower_block(body);
                lower_block(continuing);
            }
            Stmt::Return(e, _) => e.iter_mut().for_each(lower_expr),
            Stmt::Break(_) | Stmt::Continue(_) => {}
        }
    }
}

fn lower_place(p: &mut Place) {
    match p {
        Place::Local(_) => {}
        Place::Index { base, index } => {
            lower_expr(base);
            lower_expr(index);
        }
        Place::Lane { base, .. } | Place::Field { base, .. } => lower_place(base),
    }
}

fn lower_expr(e: &mut ir::Expr) {
    lower_type(&mut e.ty);
    match &mut e.kind {
        ExprKind::Unary(_, a) | ExprKind::Convert(a) | ExprKind::Splat(a) => lower_expr(a),
        ExprKind::Swizzle(a, _) => lower_expr(a),
        ExprKind::Construct(items) => items.iter_mut().for_each(lower_expr),
        ExprKind::Binary(_, a, b) | ExprKind::LogicalAnd(a, b) | ExprKind::LogicalOr(a, b) => {
            lower_expr(a);
            lower_expr(b);
        }
        ExprKind::Select {
            cond,
            then,
            otherwise,
        } => {
            lower_expr(cond);
            lower_expr(then);
            lower_expr(otherwise);
        }
        ExprKind::Call { args, .. }
        | ExprKind::Intrinsic { args, .. }
        | ExprKind::Host { args, .. } => args.iter_mut().for_each(lower_expr),
        ExprKind::Load(p) => lower_place(p),
        ExprKind::Sequence(stmts, v) => {
            lower_block(stmts);
            lower_expr(v);
        }
        ExprKind::Launch(l) => {
            let l = &mut **l;
            lower_expr(&mut l.stream);
            l.grid
                .iter_mut()
                .chain(&mut l.block)
                .chain(&mut l.args)
                .chain(&mut l.shared_bytes)
                .chain(&mut l.spec)
                .for_each(lower_expr);
        }
        ExprKind::Const(_) | ExprKind::Str(_) => {}
    }
}
