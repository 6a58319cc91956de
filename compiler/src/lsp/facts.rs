//! Span → IR lookups for the editor: the typed expressions of the document's functions and
//! where each function's declaration lies.
//!
//! Built by walking the checked [`ir::Module`] after the fact (with [`ir::visit`]), so the
//! compiler's stages keep their contracts and their hot paths: nothing here runs unless an
//! editor asks.

use crate::diagnostics::FileId;
use crate::ir::{self, ExprKind, FunctionId, LocalId, Place, Type};
use crate::syntax::ast::{ClassDecl, Member, MethodDecl, SourceFile};
use std::cell::RefCell;

/// One typed expression of the document.
#[derive(Debug, Clone)]
pub struct ExprFact {
    /// Its bytes.
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
    /// Its type.
    pub ty: Type,
    /// The local it reads, for a plain read of a local.
    pub local: Option<LocalId>,
    /// The function it calls, for a call of a host method or device helper.
    pub call: Option<FunctionId>,
}

/// One function of the document with its declaration.
#[derive(Debug, Clone)]
pub struct FnFact {
    /// Its id in the module.
    pub id: FunctionId,
    /// Index of its class in the syntax tree.
    pub class: usize,
    /// Index of the method among its class's members.
    pub member: usize,
    /// The declaration's bytes (annotations to closing brace).
    pub start: usize,
    /// One past the declaration's last byte.
    pub end: usize,
    /// Its typed expressions, outer before inner.
    pub exprs: Vec<ExprFact>,
}

/// The lookups of one analysis.
#[derive(Debug, Default)]
pub struct Facts {
    /// The document's functions (those of the module declared in it).
    pub functions: Vec<FnFact>,
}

impl Facts {
    /// Walks `module`'s functions declared in `file`, matching each to its declaration in
    /// `ast` by the span of its name.
    pub fn new(module: Option<&ir::Module>, ast: Option<&SourceFile>, file: FileId) -> Facts {
        let (Some(module), Some(ast)) = (module, ast) else {
            return Facts::default();
        };
        let mut functions = Vec::new();
        for (i, f) in module.functions.iter().enumerate() {
            if f.span.file != file {
                continue;
            }
            let Some((class, member, decl)) = declaration(ast, f.span.start as usize) else {
                continue;
            };
            let exprs = RefCell::new(Vec::new());
            // `find_expr` visits every expression while the predicate says no.
            ir::visit::find_expr(&f.body, &|e| {
                if e.span.file == file {
                    exprs.borrow_mut().push(ExprFact {
                        start: e.span.start as usize,
                        end: e.span.end as usize,
                        ty: e.ty.clone(),
                        local: match &e.kind {
                            ExprKind::Load(Place::Local(l)) => Some(*l),
                            _ => None,
                        },
                        call: match &e.kind {
                            ExprKind::Call { func, .. } => Some(*func),
                            _ => None,
                        },
                    });
                }
                false
            });
            functions.push(FnFact {
                id: FunctionId(i),
                class,
                member,
                start: decl.span.start as usize,
                end: decl.span.end as usize,
                exprs: exprs.into_inner(),
            });
        }
        Facts { functions }
    }

    /// The function whose declaration holds byte `offset` (the innermost, were they nested).
    pub fn function_at(&self, offset: usize) -> Option<&FnFact> {
        self.functions
            .iter()
            .filter(|f| f.start <= offset && offset <= f.end)
            .min_by_key(|f| f.end - f.start)
    }

    /// The smallest expression of the function at `offset` that holds it.
    pub fn expr_at(&self, offset: usize) -> Option<&ExprFact> {
        self.function_at(offset)?
            .exprs
            .iter()
            .filter(|e| e.start <= offset && offset < e.end.max(e.start + 1))
            .min_by_key(|e| e.end - e.start)
    }

    /// The expression of the function at `offset` that ends exactly at `end` (the receiver
    /// before a `.`), the largest when several do.
    pub fn expr_ending_at(&self, offset: usize, end: usize) -> Option<&ExprFact> {
        self.function_at(offset)?
            .exprs
            .iter()
            .filter(|e| e.end == end)
            .max_by_key(|e| e.end - e.start)
    }
}

/// The method or constructor whose name starts at byte `name_start`: its class index,
/// member index and declaration.
pub fn declaration(ast: &SourceFile, name_start: usize) -> Option<(usize, usize, &MethodDecl)> {
    ast.classes.iter().enumerate().find_map(|(ci, c)| {
        methods(c)
            .find_map(|(mi, m)| (m.name.span.start as usize == name_start).then_some((ci, mi, m)))
    })
}

/// The methods and constructors of a class with their member index.
pub fn methods(c: &ClassDecl) -> impl Iterator<Item = (usize, &MethodDecl)> {
    c.members.iter().enumerate().filter_map(|(i, m)| match m {
        Member::Method(d) | Member::Constructor(d) => Some((i, &**d)),
        Member::Field(_) => None,
    })
}

/// The stdlib class whose members a value of type `ty` has (`img.` lists `Image2D`'s), or a
/// POD class of the program.
pub fn class_of(ty: &Type) -> Option<String> {
    Some(match ty {
        Type::Vector(..) => "Vector".into(),
        Type::Matrix(..) => "Matrix".into(),
        Type::Quaternion(_) => "Quaternion".into(),
        Type::Bytes16(_) | Type::Wide(..) => "Vector".into(),
        Type::Buffer(_) => "KernelBuffer".into(),
        Type::Image2D(_) => "Image2D".into(),
        Type::Texture(dim, _) => dim.class_name().into(),
        Type::Sampler => "Sampler".into(),
        Type::AccelStruct => "AccelerationStructure".into(),
        Type::RayQuery => "RayQuery".into(),
        Type::String => "String".into(),
        Type::Stream => "KernelStream".into(),
        Type::Event => "Event".into(),
        Type::Presentation(p) => p.class_name().into(),
        Type::Shared(_) => "Shared".into(),
        Type::Struct(d) => d.name.clone(),
        Type::Enum(name) => name.clone(),
        Type::CoopMatrix(_) => "CoopMatrix".into(),
        Type::Void | Type::Scalar(_) | Type::Array(_) => return None,
    })
}
