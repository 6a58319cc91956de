//! Bounded function tables, Cajeta's `((int32)->int32)[] ops = {A::f, A::g};` and
//! `ops[i](x)`: a table is a constant list of methods, so a call through it becomes a
//! `switch` on the index with one arm per entry (`OpSwitch` in a kernel), before checking.
//! The table itself is not a value: it can be called and its `length` read.
//!
//! An index outside the table: in device code (kernels, `@Device` and `@Host @Device`
//! helpers) the call is skipped and gives 0 (`false`), as an out-of-bounds read does in
//! checked mode (which does not report this one); in host code it is a runtime error, as
//! Java's `ArrayIndexOutOfBoundsException` would be, naming the table and its length.

use super::generics_walk::{self, AstRewrite};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::syntax::ast::*;
use std::collections::HashMap;

/// Rewrites the function tables of the user files that declare function types.
pub fn rewrite(files: &mut [(SourceFile, bool)], diags: &mut Vec<Diagnostic>) {
    for (file, stdlib) in files.iter_mut() {
        if *stdlib || !file.function_types {
            continue;
        }
        for class in &mut file.classes {
            for m in &mut class.members {
                if let Member::Method(m) = m {
                    let device =
                        m.annotation("Kernel").is_some() || m.annotation("Device").is_some();
                    let mut r = Tables {
                        device,
                        scopes: Vec::new(),
                        diags: Vec::new(),
                    };
                    generics_walk::method(m, &mut r);
                    diags.append(&mut r.diags);
                }
            }
        }
    }
}

/// The local an arm assigns its entry's result to (a name no program can write).
const RESULT_LOCAL: &str = "$entry_result";

#[derive(Clone)]
struct Table {
    name: String,
    entries: Vec<(Ident, Ident)>,
    ret: TypeExpr,
}

struct Tables {
    device: bool,
    /// Tables by name; `None` where a local of the same name hides one.
    scopes: Vec<HashMap<String, Option<Table>>>,
    diags: Vec<Diagnostic>,
}

fn expr(kind: ExprKind, span: Span) -> Expr {
    Expr {
        kind,
        span,
        depth: 8,
    }
}

fn ident(name: &str, span: Span) -> Ident {
    Ident {
        name: name.to_string(),
        span,
    }
}

/// Whether evaluating `e` twice is the same as once (no assignment, increment or call).
fn pure(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Int(_) | ExprKind::Name(_) | ExprKind::Bool(_) => true,
        ExprKind::Field(a, _) | ExprKind::Cast(_, a) => pure(a),
        ExprKind::Unary(op, a) => {
            !matches!(
                op,
                UnOp::PreInc | UnOp::PreDec | UnOp::PostInc | UnOp::PostDec
            ) && pure(a)
        }
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => pure(a) && pure(b),
        _ => false,
    }
}

impl Tables {
    fn lookup(&self, name: &str) -> Option<Table> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name).cloned())
            .flatten()
    }

    /// Records `((P)->R)[] name = {A::f, …};`.
    fn declare_table(&mut self, ret: &TypeExpr, decls: &[(Ident, Option<Expr>)], span: Span) {
        for (name, init) in decls {
            let items = match init.as_ref().map(|e| &e.kind) {
                Some(ExprKind::ArrayLit(items)) => items,
                _ => {
                    self.diags.push(
                        Diagnostic::error(
                            Code::UnsupportedFeature,
                            name.span,
                            format!(
                                "function table `{}` needs its entries where it is declared",
                                name.name
                            ),
                        )
                        .with_label("a table is a constant list of methods")
                        .with_note(format!("help: `{} = {{A::f, A::g}};`", name.name)),
                    );
                    continue;
                }
            };
            let mut entries = Vec::new();
            for item in items {
                match &item.kind {
                    ExprKind::MethodRef(c, m) => entries.push((c.clone(), m.clone())),
                    _ => self.diags.push(
                        Diagnostic::error(
                            Code::UnsupportedFeature,
                            item.span,
                            "a function table's entries are method references, `Class::method`",
                        )
                        .with_label("not a method reference"),
                    ),
                }
            }
            if let Some(scope) = self.scopes.last_mut() {
                scope.insert(
                    name.name.clone(),
                    Some(Table {
                        name: name.name.clone(),
                        entries,
                        ret: ret.clone(),
                    }),
                );
            }
        }
        let _ = span;
    }

    /// The arms calling each entry of `t` with `args`.
    fn arms(&self, t: &Table, args: &[Arg], span: Span) -> Vec<SwitchCase> {
        t.entries
            .iter()
            .enumerate()
            .map(|(k, (class, method))| {
                let call = expr(
                    ExprKind::MethodCall(
                        Box::new(expr(ExprKind::Name(class.name.clone()), class.span)),
                        method.clone(),
                        args.to_vec(),
                    ),
                    span,
                );
                // A value-returning entry is assigned to a local of the table's result type:
                // an entry returning a narrower type widens as it would in an assignment
                // (Java's method references allow that), a wider one is an error at it.
                let body = match t.ret.kind {
                    TypeExprKind::Void => CaseBody::Expr(call),
                    _ => {
                        let result = ident(RESULT_LOCAL, method.span);
                        CaseBody::Block(Block {
                            stmts: vec![
                                Stmt::Local {
                                    is_final: false,
                                    ty: t.ret.clone(),
                                    decls: vec![(result.clone(), Some(call))],
                                    span,
                                },
                                Stmt::Yield(expr(ExprKind::Name(result.name), span), span),
                            ],
                            span,
                        })
                    }
                };
                SwitchCase {
                    labels: vec![expr(ExprKind::Int(k.to_string()), span)],
                    is_default: false,
                    body,
                    span,
                }
            })
            .collect()
    }

    /// What an index outside `t` does (see the module doc); `None` after an error.
    fn out_of_range(&mut self, t: &Table, index: &Expr, span: Span) -> Option<CaseBody> {
        let is_void = matches!(t.ret.kind, TypeExprKind::Void);
        let ret_name = match &t.ret.kind {
            TypeExprKind::Named { name, args } if args.is_empty() => Some(name.as_str()),
            _ => None,
        };
        let zero = || match ret_name {
            Some("boolean") => Some(expr(ExprKind::Bool(false), span)),
            Some(_) => Some(expr(
                ExprKind::Cast(
                    Box::new(t.ret.clone()),
                    Box::new(expr(ExprKind::Int("0".into()), span)),
                ),
                span,
            )),
            None => None,
        };
        if self.device {
            if is_void {
                return Some(CaseBody::Block(Block {
                    stmts: vec![],
                    span,
                }));
            }
            return match zero() {
                Some(z) => Some(CaseBody::Expr(z)),
                None => {
                    self.refuse_return(t, span);
                    None
                }
            };
        }
        if !pure(index) {
            self.diags.push(
                Diagnostic::error(
                    Code::UnsupportedFeature,
                    index.span,
                    "in host code, a function table's index must be a plain value",
                )
                .with_label("has a side effect")
                .with_note("help: store the index in a local first (it is read again to report an index out of range)"),
            );
            return None;
        }
        // `int32[] ops = heap int32[N]; ops[i]`: the host executors' own out-of-range error,
        // naming the table and its length.
        let arr_ty = TypeExpr {
            kind: TypeExprKind::Array(Box::new(TypeExpr {
                kind: TypeExprKind::Named {
                    name: "int32".into(),
                    args: vec![],
                },
                span,
            })),
            span,
        };
        let new_arr = expr(
            ExprKind::NewArray {
                elem: TypeExpr {
                    kind: TypeExprKind::Named {
                        name: "int32".into(),
                        args: vec![],
                    },
                    span,
                },
                len: Box::new(expr(ExprKind::Int(t.entries.len().to_string()), span)),
            },
            span,
        );
        let decl = Stmt::Local {
            is_final: false,
            ty: arr_ty,
            decls: vec![(ident(&t.name, span), Some(new_arr))],
            span,
        };
        let read = expr(
            ExprKind::Index(
                Box::new(expr(ExprKind::Name(t.name.clone()), span)),
                Box::new(index.clone()),
            ),
            span,
        );
        let mut stmts = vec![decl];
        if is_void {
            stmts.push(Stmt::Expr(expr(
                ExprKind::Assign(None, Box::new(read.clone()), Box::new(read)),
                span,
            )));
        } else {
            match zero() {
                Some(z) => {
                    // The read fails; the zero is never produced.
                    let value = expr(
                        ExprKind::Conditional(
                            Box::new(expr(
                                ExprKind::Binary(
                                    BinOp::Eq,
                                    Box::new(read),
                                    Box::new(expr(ExprKind::Int("0".into()), span)),
                                ),
                                span,
                            )),
                            Box::new(z.clone()),
                            Box::new(z),
                        ),
                        span,
                    );
                    stmts.push(Stmt::Yield(value, span));
                }
                None => {
                    self.refuse_return(t, span);
                    return None;
                }
            }
        }
        Some(CaseBody::Block(Block { stmts, span }))
    }

    fn refuse_return(&mut self, t: &Table, span: Span) {
        self.diags.push(
            Diagnostic::error(
                Code::UnsupportedFeature,
                span,
                format!(
                    "function table `{}` returns a type other than a scalar, `boolean` or `void`",
                    t.name
                ),
            )
            .with_note("an index out of range gives 0 in device code, which needs a scalar result"),
        );
    }

    fn switch(&mut self, t: &Table, index: &Expr, args: &[Arg], span: Span) -> Option<Switch> {
        let mut cases = self.arms(t, args, span);
        let body = self.out_of_range(t, index, span)?;
        cases.push(SwitchCase {
            labels: vec![],
            is_default: true,
            body,
            span,
        });
        Some(Switch {
            selector: index.clone(),
            cases,
            span,
            depth: 8,
        })
    }
}

impl AstRewrite for Tables {
    fn ty(&mut self, _t: &mut TypeExpr) {}

    fn stmt(&mut self, s: &mut Stmt) {
        match s {
            Stmt::Local {
                ty, decls, span, ..
            } => {
                if let TypeExprKind::Array(elem) = &ty.kind {
                    if let TypeExprKind::Function { ret, .. } = &elem.kind {
                        let (ret, span) = ((**ret).clone(), *span);
                        self.declare_table(&ret, decls, span);
                        *s = Stmt::Empty(span);
                    }
                }
            }
            // `ops[i](x);` of a table of `void` methods: a switch statement.
            Stmt::Expr(e) => {
                if let ExprKind::IndexCall(t, i, args) = &e.kind {
                    if let ExprKind::Name(n) = &t.kind {
                        if let Some(table) = self.lookup(n) {
                            if matches!(table.ret.kind, TypeExprKind::Void) {
                                let span = e.span;
                                let (i, args) = ((**i).clone(), args.clone());
                                if let Some(sw) = self.switch(&table, &i, &args, span) {
                                    *s = Stmt::Switch(Box::new(sw));
                                }
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn expr(&mut self, e: &mut Expr) {
        let span = e.span;
        let new_kind = match &e.kind {
            ExprKind::IndexCall(t, i, args) => match &t.kind {
                ExprKind::Name(n) => self.lookup(n).and_then(|table| {
                    let (i, args) = ((**i).clone(), args.clone());
                    self.switch(&table, &i, &args, span)
                        .map(|sw| ExprKind::Switch(Box::new(sw)))
                }),
                _ => None,
            },
            ExprKind::Field(t, f) if f.name == "length" => match &t.kind {
                ExprKind::Name(n) => self
                    .lookup(n)
                    .map(|table| ExprKind::Int(table.entries.len().to_string())),
                _ => None,
            },
            _ => None,
        };
        if let Some(k) = new_kind {
            e.kind = k;
        }
    }

    fn enter_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }

    fn leave_scope(&mut self) {
        self.scopes.pop();
    }

    fn declare(&mut self, name: &str, _ty: &TypeExpr) {
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name.to_string(), None);
        }
    }
}
