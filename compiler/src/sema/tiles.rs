//! Cajeta's `Tile<T, Rows, Cols>`: a cooperative matrix whose role (A, B or accumulator) is
//! not written but taken from its place in `Group.mac(acc, a, b)`. Before checking, each
//! method that declares tiles is rewritten: a local declared `Tile<T, R, C>` and passed to
//! `Group.mac` as the accumulator, the first or the second operand becomes a
//! `CooperativeMatrix<T, R, C, 2 / 0 / 1>` (sema/coop_cajeta.rs), whose `load`, `splat` and
//! `store` are Cajeta's; `Group.mac` on tiles is then the multiply-add (sema/group.rs). A
//! tile not passed to `Group.mac` keeps its `Tile` type, which the checker refuses with the
//! explicit spelling as the help. A program that declares its own class `Tile` is left alone.

use std::collections::HashMap;

use super::generics_walk::{self, AstRewrite};
use crate::syntax::ast::*;

/// Rewrites the tiles of every method of the program's own files; `None` when none declares
/// one (the files are then checked as they are). Without a `Tile<…>` parsed in any file
/// (`SourceFile::tile_types`) there is nothing to rewrite, and the program is not copied: a
/// tile in an instantiated generic was written in the template's file.
pub fn rewrite(files: &[(SourceFile, bool)]) -> Option<Vec<(SourceFile, bool)>> {
    if !files.iter().any(|(f, _)| f.tile_types) {
        return None;
    }
    let own = |(f, stdlib): &&(SourceFile, bool)| !*stdlib && !f.classes.is_empty();
    if files
        .iter()
        .filter(own)
        .flat_map(|(f, _)| &f.classes)
        .any(|c| c.name.name == "Tile")
    {
        return None;
    }
    let mut out = files.to_vec();
    let mut changed = false;
    for (file, stdlib) in out.iter_mut() {
        if *stdlib {
            continue;
        }
        for class in &mut file.classes {
            for m in &mut class.members {
                let Member::Method(m) = m else { continue };
                let mut roles = Roles::default();
                let mut probe = m.clone();
                generics_walk::method(&mut probe, &mut roles);
                if roles.tiles {
                    generics_walk::method(m, &mut Retype { uses: roles.uses });
                    changed = true;
                }
            }
        }
    }
    changed.then_some(out)
}

/// Whether a `Tile<…>` is written, and each name's role in `Group.mac(acc, a, b)`.
#[derive(Default)]
struct Roles {
    tiles: bool,
    uses: HashMap<String, &'static str>,
}

impl AstRewrite for Roles {
    fn ty(&mut self, t: &mut TypeExpr) {
        self.tiles |= t.is_tile();
    }

    fn expr(&mut self, e: &mut Expr) {
        let ExprKind::MethodCall(recv, name, args) = &e.kind else {
            return;
        };
        if name.name != "mac" || !matches!(&recv.kind, ExprKind::Name(g) if g == "Group") {
            return;
        }
        for (arg, usage) in args.iter().zip(["2", "0", "1"]) {
            if let ExprKind::Name(n) = &arg.value.kind {
                self.uses.insert(n.clone(), usage);
            }
        }
    }
}

/// Gives each tile local the `CooperativeMatrix` type of its role.
struct Retype {
    uses: HashMap<String, &'static str>,
}

impl AstRewrite for Retype {
    fn ty(&mut self, _t: &mut TypeExpr) {}

    fn expr(&mut self, _e: &mut Expr) {}

    fn stmt(&mut self, s: &mut Stmt) {
        let Stmt::Local { ty, decls, .. } = s else {
            return;
        };
        if !ty.is_tile() {
            return;
        }
        let mut usages = decls.iter().map(|(n, _)| self.uses.get(&n.name));
        let Some(Some(usage)) = usages.next() else {
            return;
        };
        // One declaration gives all its names one type: they must share the role.
        if !usages.all(|u| u == Some(usage)) {
            return;
        }
        if let TypeExprKind::Named { name, args } = &mut ty.kind {
            *name = "CooperativeMatrix".to_string();
            args.push(TypeArg::Int(usage.to_string(), ty.span));
        }
    }
}
