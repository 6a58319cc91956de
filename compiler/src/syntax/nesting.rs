//! The nesting limit. Every later stage (checker, specialization, both backends, the host
//! evaluator) walks the tree recursively, so the parser refuses trees deeper than
//! [`MAX_NESTING`] instead of letting a later stage overflow its stack.
//!
//! The parser is LR, so it builds deep trees without recursing; the guard cuts a tree that
//! grows past the limit *while it is built*: the over-deep node is replaced by a leaf (its
//! children, at most [`MAX_NESTING`] deep, are dropped on the spot) and the first such place is
//! remembered. The tree held at any time is therefore never deeper than the limit, so even
//! dropping it cannot recurse deeply, and [`super::parse_file`] turns the remembered place
//! into an E0042 diagnostic.

use super::ast::{Arg, Expr, ExprKind, Ident, Stmt, TypeArg, TypeExpr, TypeExprKind};
use crate::diagnostics::{Code, Diagnostic, Span};
use std::cell::Cell;

/// The deepest tree the parser accepts, counted in expression, statement and type levels
/// together (a statement's depth includes its expressions'). Clang's default bracket depth is
/// 256 and C requires 63 nested parenthesized expressions; 256 leaves every stage's recursion
/// well inside a 2 MiB thread stack in an unoptimized build (tested by `deep_programs_*`).
pub const MAX_NESTING: u32 = 256;

/// Watches the depth of the trees the grammar's actions build (a grammar parameter).
#[derive(Debug, Default)]
pub struct NestingGuard {
    first: Cell<Option<Span>>,
    function_types: Cell<bool>,
    tile_types: Cell<bool>,
}

impl NestingGuard {
    /// A guard that has seen nothing too deep.
    pub fn new() -> Self {
        Self::default()
    }

    /// A function type (`(int32)->int32`), noted so that the checker rewrites function
    /// tables only in files that have one.
    pub fn function_type(&self, ty: TypeExpr) -> TypeExpr {
        self.function_types.set(true);
        self.ty(ty)
    }

    /// Whether a function type was parsed.
    pub fn saw_function_types(&self) -> bool {
        self.function_types.get()
    }

    /// Whether a `Tile<T, Rows, Cols>` was parsed (noted by [`NestingGuard::ty`], which every
    /// type with generic arguments passes through).
    pub fn saw_tile_types(&self) -> bool {
        self.tile_types.get()
    }

    /// The E0042 diagnostic for the first over-deep place, if there was one.
    pub fn diagnostic(&self) -> Option<Diagnostic> {
        self.first.get().map(|span| {
            Diagnostic::error(
                Code::NestingTooDeep,
                span,
                format!("nesting deeper than {MAX_NESTING} levels"),
            )
            .with_label("the limit is reached here")
            .with_note(format!(
                "expressions, statements and types may nest at most {MAX_NESTING} levels deep"
            ))
            .with_note(
                "help: split the expression with local variables, or a long `else if` chain \
                 into separate `if`s",
            )
        })
    }

    fn overflow(&self, span: Span) {
        if self.first.get().is_none() {
            self.first.set(Some(span));
        }
    }

    /// An expression node, or a leaf in its place when it would be too deep.
    pub fn expr(&self, kind: ExprKind, span: Span) -> Expr {
        let depth = 1 + child_depth(&kind);
        if depth > MAX_NESTING {
            self.overflow(span);
            return leaf(span);
        }
        Expr { kind, span, depth }
    }

    /// A statement whose nested statements and expressions have the depths `children`, with
    /// its own depth; an empty statement in its place when it would be too deep.
    pub fn stmt(&self, stmt: Box<Stmt>, children: &[u32]) -> (Box<Stmt>, u32) {
        let depth = 1 + children.iter().copied().max().unwrap_or(0);
        if depth > MAX_NESTING {
            let span = stmt.span();
            self.overflow(span);
            return (Box::new(Stmt::Empty(span)), 1);
        }
        (stmt, depth)
    }

    /// A type, or `int32` in its place when it is nested too deeply (`T[][]…`, `Vector<…<…>>`).
    /// Types are small, so their depth is counted on the spot rather than stored; the cut
    /// keeps every count below the limit.
    pub fn ty(&self, ty: TypeExpr) -> TypeExpr {
        if ty.is_tile() {
            self.tile_types.set(true);
        }
        if type_depth(&ty) > MAX_NESTING {
            self.overflow(ty.span);
            return TypeExpr {
                kind: TypeExprKind::Named {
                    name: "int32".to_string(),
                    args: vec![],
                },
                span: ty.span,
            };
        }
        ty
    }
}

/// The depth of an expression's deepest child (0 for a leaf).
fn child_depth(kind: &ExprKind) -> u32 {
    let args = |a: &[Arg]| a.iter().map(|x| x.value.depth).max().unwrap_or(0);
    match kind {
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Bool(_)
        | ExprKind::Str(_)
        | ExprKind::Name(_)
        | ExprKind::MethodRef(..)
        | ExprKind::GenericClass(_) => 0,
        ExprKind::IndexCall(t, i, a) => t.depth.max(i.depth).max(args(a)),
        ExprKind::Field(e, _) | ExprKind::Unary(_, e) | ExprKind::Cast(_, e) => e.depth,
        ExprKind::NewArray { len: e, .. } | ExprKind::SharedArray { len: e, .. } => e.depth,
        ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) | ExprKind::Assign(_, a, b) => {
            a.depth.max(b.depth)
        }
        ExprKind::Conditional(a, b, c) => a.depth.max(b.depth).max(c.depth),
        ExprKind::Call(_, a) | ExprKind::New { args: a, .. } | ExprKind::GenericCall(_, _, a) => {
            args(a)
        }
        ExprKind::MethodCall(e, _, a) | ExprKind::GenericMethodCall(e, _, _, a) => {
            e.depth.max(args(a))
        }
        ExprKind::Launch { config, args: a } => config.depth.max(args(a)),
        ExprKind::ArrayLit(v) => v.iter().map(|e| e.depth).max().unwrap_or(0),
        ExprKind::Switch(sw) => sw.depth,
    }
}

fn type_depth(t: &TypeExpr) -> u32 {
    1 + match &t.kind {
        TypeExprKind::Array(e) => type_depth(e),
        TypeExprKind::Function { params, ret } => params
            .iter()
            .map(type_depth)
            .max()
            .unwrap_or(0)
            .max(type_depth(ret)),
        TypeExprKind::Named { args, .. } => args
            .iter()
            .map(|a| match a {
                TypeArg::Type(t) => type_depth(t),
                TypeArg::Int(..) => 0,
            })
            .max()
            .unwrap_or(0),
        _ => 0,
    }
}

/// A statement with its nesting depth, as the grammar's statement rules produce it.
pub type NestedStmt = (Box<Stmt>, u32);

/// The header of a C-style `for`: initializers, condition, updates.
pub type ForHeader = (Vec<NestedStmt>, Option<Expr>, Vec<Expr>);

/// A C-style `for` from its header and body (a grammar action).
pub fn for_stmt(
    guard: &NestingGuard,
    header: ForHeader,
    body: (Box<Stmt>, u32),
    span: Span,
) -> (Box<Stmt>, u32) {
    let (init, cond, update) = header;
    let mut depths: Vec<u32> = init.iter().map(|s| s.1).collect();
    depths.extend(cond.iter().chain(&update).map(|e| e.depth));
    depths.push(body.1);
    let init = init.into_iter().map(|s| *s.0).collect();
    let stmt = Stmt::For {
        init,
        cond,
        update,
        body: body.0,
        span,
    };
    guard.stmt(Box::new(stmt), &depths)
}

/// The header of a grid-stride `for`: index type and declarators, element, range.
pub type RangeHeader = (
    (TypeExpr, Vec<(Ident, Option<Expr>)>),
    Option<(TypeExpr, Ident)>,
    Expr,
);

/// A grid-stride `for` from its header and body (a grammar action).
pub fn range_for_stmt(
    guard: &NestingGuard,
    header: RangeHeader,
    body: (Box<Stmt>, u32),
    span: Span,
) -> (Box<Stmt>, u32) {
    let (index, value, range) = header;
    let mut depths: Vec<u32> = index
        .1
        .iter()
        .flat_map(|d| d.1.as_ref().map(|e| e.depth))
        .collect();
    depths.extend([range.depth, body.1]);
    let stmt = Stmt::RangeFor {
        index,
        value,
        range,
        body: body.0,
        span,
    };
    guard.stmt(Box::new(stmt), &depths)
}

fn leaf(span: Span) -> Expr {
    Expr {
        kind: ExprKind::Int("0".to_string()),
        span,
        depth: 1,
    }
}
