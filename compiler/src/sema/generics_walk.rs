//! A mutable walk over a method's syntax tree for `generics`: substituting generic
//! parameters and rewriting uses of generic classes and methods both visit every type and
//! expression, and the rewriting also tracks which locals are in scope (their declared
//! types infer type arguments).

use crate::syntax::ast::*;

/// What a walk does at each node. Hooks run after the node's children have been visited
/// (post-order): a type's generic arguments before the type, an expression's operands and
/// types before the expression.
pub trait AstRewrite {
    /// A written type (every `TypeExpr`, nested arguments included).
    fn ty(&mut self, t: &mut TypeExpr);
    /// An expression, after its children.
    fn expr(&mut self, e: &mut Expr);
    /// A block or another scope opens.
    fn enter_scope(&mut self) {}
    /// The innermost scope closes.
    fn leave_scope(&mut self) {}
    /// A local or parameter `name` of type `ty` is declared in the innermost scope.
    fn declare(&mut self, _name: &str, _ty: &TypeExpr) {}
    /// A statement, before its parts are walked (it may replace itself).
    fn stmt(&mut self, _s: &mut Stmt) {}
}

/// Walks a method: its return type, parameters and body.
pub fn method<R: AstRewrite>(m: &mut MethodDecl, r: &mut R) {
    ty(&mut m.ret, r);
    r.enter_scope();
    for p in &mut m.params {
        ty(&mut p.ty, r);
        r.declare(&p.name.name, &p.ty);
    }
    if let Some(b) = &mut m.body {
        block(b, r);
    }
    r.leave_scope();
}

/// Walks a type and the types inside its generic arguments.
pub fn ty<R: AstRewrite>(t: &mut TypeExpr, r: &mut R) {
    match &mut t.kind {
        TypeExprKind::Named { args, .. } => {
            for a in args {
                if let TypeArg::Type(t) = a {
                    ty(t, r);
                }
            }
        }
        TypeExprKind::Array(e) => ty(e, r),
        TypeExprKind::Function { params, ret } => {
            for p in params {
                ty(p, r);
            }
            ty(ret, r);
        }
        TypeExprKind::Void => {}
    }
    r.ty(t);
}

fn block<R: AstRewrite>(b: &mut Block, r: &mut R) {
    r.enter_scope();
    for s in &mut b.stmts {
        stmt(s, r);
    }
    r.leave_scope();
}

fn stmt<R: AstRewrite>(s: &mut Stmt, r: &mut R) {
    r.stmt(s);
    match s {
        Stmt::Local { ty: t, decls, .. } => {
            ty(t, r);
            for (name, init) in decls {
                if let Some(e) = init {
                    expr(e, r);
                }
                r.declare(&name.name, t);
            }
        }
        Stmt::Expr(e) | Stmt::Yield(e, _) => expr(e, r),
        Stmt::Return(e, _) => {
            if let Some(e) = e {
                expr(e, r);
            }
        }
        Stmt::If {
            cond,
            then,
            otherwise,
            ..
        } => {
            expr(cond, r);
            scoped(then, r);
            if let Some(o) = otherwise {
                scoped(o, r);
            }
        }
        Stmt::While { cond, body, .. } | Stmt::DoWhile { body, cond, .. } => {
            expr(cond, r);
            scoped(body, r);
        }
        Stmt::For {
            init,
            cond,
            update,
            body,
            ..
        } => {
            r.enter_scope();
            for s in init {
                stmt(s, r);
            }
            if let Some(c) = cond {
                expr(c, r);
            }
            for u in update {
                expr(u, r);
            }
            scoped(body, r);
            r.leave_scope();
        }
        Stmt::RangeFor {
            index,
            value,
            range,
            body,
            ..
        } => {
            r.enter_scope();
            ty(&mut index.0, r);
            for (name, init) in &mut index.1 {
                if let Some(e) = init {
                    expr(e, r);
                }
                r.declare(&name.name, &index.0);
            }
            if let Some(value) = value {
                ty(&mut value.0, r);
                r.declare(&value.1.name, &value.0);
            }
            expr(range, r);
            scoped(body, r);
            r.leave_scope();
        }
        Stmt::Block(b) => block(b, r),
        Stmt::Labeled(_, s) => stmt(s, r),
        Stmt::Switch(sw) => switch(sw, r),
        Stmt::Try(t) => {
            block(&mut t.body, r);
            for c in &mut t.catches {
                ty(&mut c.ty, r);
                r.enter_scope();
                r.declare(&c.name.name, &c.ty);
                block(&mut c.body, r);
                r.leave_scope();
            }
            if let Some(f) = &mut t.finally {
                block(f, r);
            }
        }
        Stmt::Break(..) | Stmt::Continue(..) | Stmt::Empty(_) => {}
    }
}

fn scoped<R: AstRewrite>(s: &mut Stmt, r: &mut R) {
    r.enter_scope();
    stmt(s, r);
    r.leave_scope();
}

fn switch<R: AstRewrite>(sw: &mut Switch, r: &mut R) {
    expr(&mut sw.selector, r);
    r.enter_scope();
    for c in &mut sw.cases {
        for l in &mut c.labels {
            expr(l, r);
        }
        match &mut c.body {
            CaseBody::Colon(stmts) => {
                for s in stmts {
                    stmt(s, r);
                }
            }
            CaseBody::Expr(e) => expr(e, r),
            CaseBody::Block(b) => block(b, r),
        }
    }
    r.leave_scope();
}

fn args<R: AstRewrite>(a: &mut [Arg], r: &mut R) {
    for x in a {
        expr(&mut x.value, r);
    }
}

/// Walks an expression: children first, then the hook.
pub fn expr<R: AstRewrite>(e: &mut Expr, r: &mut R) {
    match &mut e.kind {
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Bool(_)
        | ExprKind::Str(_)
        | ExprKind::Name(_)
        | ExprKind::MethodRef(..) => {}
        ExprKind::IndexCall(t, i, a) => {
            expr(t, r);
            expr(i, r);
            args(a, r);
        }
        ExprKind::GenericClass(t) => ty(t, r),
        ExprKind::Field(a, _) | ExprKind::Unary(_, a) => expr(a, r),
        ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) | ExprKind::Assign(_, a, b) => {
            expr(a, r);
            expr(b, r);
        }
        ExprKind::Conditional(a, b, c) => {
            expr(a, r);
            expr(b, r);
            expr(c, r);
        }
        ExprKind::Cast(t, a) => {
            ty(t, r);
            expr(a, r);
        }
        ExprKind::Call(_, a) => args(a, r),
        ExprKind::GenericCall(_, targs, a) => {
            type_args(targs, r);
            args(a, r);
        }
        ExprKind::MethodCall(recv, _, a) => {
            expr(recv, r);
            args(a, r);
        }
        ExprKind::GenericMethodCall(recv, _, targs, a) => {
            expr(recv, r);
            type_args(targs, r);
            args(a, r);
        }
        ExprKind::Launch { config, args: a } => {
            expr(config, r);
            args(a, r);
        }
        ExprKind::New { ty: t, args: a, .. } => {
            ty(t, r);
            args(a, r);
        }
        ExprKind::NewArray { elem, len } | ExprKind::SharedArray { elem, len } => {
            ty(elem, r);
            expr(len, r);
        }
        ExprKind::ArrayLit(items) => {
            for i in items {
                expr(i, r);
            }
        }
        ExprKind::Switch(sw) => switch(sw, r),
    }
    r.expr(e);
}

fn type_args<R: AstRewrite>(targs: &mut [TypeArg], r: &mut R) {
    for a in targs {
        if let TypeArg::Type(t) = a {
            ty(t, r);
        }
    }
}
