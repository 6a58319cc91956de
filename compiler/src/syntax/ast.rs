//! The abstract syntax tree produced by the parser. Spans are byte ranges in one file;
//! names are not resolved and literals keep their source text (sema types them from
//! context, SPEC §3).

use crate::diagnostics::Span;

/// An identifier with its span.
#[derive(Debug, Clone, PartialEq)]
pub struct Ident {
    /// The name.
    pub name: String,
    /// Where it is written.
    pub span: Span,
}

/// A whole `.cajeta` file.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceFile {
    /// `package a.b;`
    pub package: Option<Vec<Ident>>,
    /// `import a.b.C;` lines.
    pub imports: Vec<Vec<Ident>>,
    /// Top-level classes.
    pub classes: Vec<ClassDecl>,
    /// Whether a function type (`(int32)->int32`) is written anywhere: the file may declare
    /// function tables.
    pub function_types: bool,
    /// Whether a `Tile<T, Rows, Cols>` is written anywhere: the checker looks for tiles to
    /// rewrite only in programs that have one.
    pub tile_types: bool,
}

/// A class.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassDecl {
    /// Annotations on the class.
    pub annotations: Vec<Annotation>,
    /// `public`, `final`, …
    pub modifiers: Vec<String>,
    /// Class name.
    pub name: Ident,
    /// Generic parameters: `class KernelBuffer<T>` (stdlib) or `class Tile<uint32 TM>`
    /// (user code, instantiated per use by `generics`).
    pub type_params: Vec<GenericParam>,
    /// Methods and fields.
    pub members: Vec<Member>,
}

/// A class member.
#[derive(Debug, Clone, PartialEq)]
pub enum Member {
    /// A method.
    Method(Box<MethodDecl>),
    /// A field `T a;` (POD classes).
    Field(FieldDecl),
    /// A constructor `Name(params) { … }` of a POD class (host code; its `ret` is `void`).
    Constructor(Box<MethodDecl>),
}

/// A field declaration.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldDecl {
    /// Annotations (`@Constant(n)` on stdlib enum constants).
    pub annotations: Vec<Annotation>,
    /// Modifiers.
    pub modifiers: Vec<String>,
    /// Field type.
    pub ty: TypeExpr,
    /// Field name.
    pub name: Ident,
}

/// `@Name` or `@Name(args)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Annotation {
    /// Annotation name.
    pub name: Ident,
    /// `@Intrinsic("x")` has one unnamed argument; `@A(k = v)` named ones.
    pub args: Vec<(Option<Ident>, Expr)>,
    /// Whole annotation.
    pub span: Span,
}

/// A method declaration (no body for stdlib intrinsics).
#[derive(Debug, Clone, PartialEq)]
pub struct MethodDecl {
    /// Annotations (`@Kernel`, `@Device`, `@Intrinsic(...)`, `@FastMath`).
    pub annotations: Vec<Annotation>,
    /// Modifiers.
    pub modifiers: Vec<String>,
    /// Generic parameters `<T>` (stdlib intrinsics, or user methods instantiated per use).
    pub type_params: Vec<GenericParam>,
    /// Return type.
    pub ret: TypeExpr,
    /// Method name.
    pub name: Ident,
    /// Parameters.
    pub params: Vec<Param>,
    /// Body; `None` for `;`.
    pub body: Option<Block>,
    /// The whole declaration.
    pub span: Span,
}

impl MethodDecl {
    /// Whether a modifier such as `static` is present.
    pub fn has_modifier(&self, m: &str) -> bool {
        self.modifiers.iter().any(|x| x == m)
    }

    /// The annotation with this name.
    pub fn annotation(&self, name: &str) -> Option<&Annotation> {
        self.annotations.iter().find(|a| a.name.name == name)
    }
}

/// A generic parameter: a type (`T`) or a constant of a primitive type (`uint32 TM`).
#[derive(Debug, Clone, PartialEq)]
pub struct GenericParam {
    /// The parameter's name.
    pub name: Ident,
    /// For a non-type parameter, the constant's type (`uint32` of `uint32 TM`).
    pub value_type: Option<TypeExpr>,
}

/// A method parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// Annotations written before the type (`@PushConstant float32 scale`).
    pub annotations: Vec<Annotation>,
    /// Type.
    pub ty: TypeExpr,
    /// Name.
    pub name: Ident,
}

/// A type as written.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeExpr {
    /// Its shape.
    pub kind: TypeExprKind,
    /// Where.
    pub span: Span,
}

impl TypeExpr {
    /// Whether this is `Tile<T, Rows, Cols>`, Cajeta's cooperative matrix whose role the
    /// checker infers (sema/tiles.rs).
    pub fn is_tile(&self) -> bool {
        matches!(&self.kind, TypeExprKind::Named { name, args } if name == "Tile" && args.len() == 3)
    }
}

/// Shapes of written types.
#[derive(Debug, Clone, PartialEq)]
pub enum TypeExprKind {
    /// `void`
    Void,
    /// A primitive keyword or a class name, possibly with generic arguments.
    Named {
        /// The name.
        name: String,
        /// `<T, 4>` arguments.
        args: Vec<TypeArg>,
    },
    /// `T[]`
    Array(Box<TypeExpr>),
    /// `(int32, float32)->int32`: a function type, the element type of a function table
    /// (`((int32)->int32)[] ops = {A::f, A::g};`, rewritten by `sema::fn_tables`).
    Function {
        /// Parameter types.
        params: Vec<TypeExpr>,
        /// Return type.
        ret: Box<TypeExpr>,
    },
}

/// A generic argument: a type or an integer constant (`Vector<float32, 4>`).
#[derive(Debug, Clone, PartialEq)]
pub enum TypeArg {
    /// A type.
    Type(TypeExpr),
    /// An integer literal.
    Int(String, Span),
}

/// A block `{ … }`.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// Statements.
    pub stmts: Vec<Stmt>,
    /// Braces included.
    pub span: Span,
}

/// Statements.
#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    /// `T a = e, b;`
    Local {
        /// `final T a = e;`: assigned at most once (Java's rule).
        is_final: bool,
        /// Declared type.
        ty: TypeExpr,
        /// Names with optional initializers.
        decls: Vec<(Ident, Option<Expr>)>,
        /// Whole statement.
        span: Span,
    },
    /// `e;`
    Expr(Expr),
    /// `if (c) s else s`
    If {
        /// Condition.
        cond: Expr,
        /// Then branch.
        then: Box<Stmt>,
        /// Else branch.
        otherwise: Option<Box<Stmt>>,
        /// Whole statement.
        span: Span,
    },
    /// `while (c) s`
    While {
        /// Condition.
        cond: Expr,
        /// Body.
        body: Box<Stmt>,
        /// Whole statement.
        span: Span,
    },
    /// `do s while (c);`
    DoWhile {
        /// Body.
        body: Box<Stmt>,
        /// Condition.
        cond: Expr,
        /// Whole statement.
        span: Span,
    },
    /// `for (init; cond; update) s`
    For {
        /// Initializer statements (a declaration or expressions).
        init: Vec<Stmt>,
        /// Condition; `None` loops forever.
        cond: Option<Expr>,
        /// Update expressions.
        update: Vec<Expr>,
        /// Body.
        body: Box<Stmt>,
        /// Whole statement.
        span: Span,
    },
    /// `break label?;`
    /// `for (uint32 i, T v : buf.range(n)) body`: the grid-stride loop (SPEC §5); also
    /// Cajeta's `for (int32 i : Group.stripe(n)) body` (no element variable).
    RangeFor {
        /// The index variable's type and its declarators (sema wants exactly one, without
        /// initializer).
        index: (TypeExpr, Vec<(Ident, Option<Expr>)>),
        /// The element variable: type and name (absent in a for-each over `Group.stripe`).
        value: Option<(TypeExpr, Ident)>,
        /// The `buf.range(n)` expression.
        range: Expr,
        /// Loop body.
        body: Box<Stmt>,
        /// The whole statement.
        span: Span,
    },
    Break(Option<Ident>, Span),
    /// `continue label?;`
    Continue(Option<Ident>, Span),
    /// `return e?;`
    Return(Option<Expr>, Span),
    /// `{ … }`
    Block(Block),
    /// `label: s`
    Labeled(Ident, Box<Stmt>),
    /// `;`
    Empty(Span),
    /// `switch (e) { … }` as a statement.
    Switch(Box<Switch>),
    /// `yield e;`: the value of the enclosing `switch` expression's arm.
    Yield(Expr, Span),
    /// `try { … } catch (T e) { … } … [finally { … }]`.
    Try(Box<TryStmt>),
}

/// Java's and Cajeta's `try` statement. Host code catches a launch the device refuses
/// (Cajeta's `XpuLaunchException`); see docs/language.md.
#[derive(Debug, Clone, PartialEq)]
pub struct TryStmt {
    /// The guarded block.
    pub body: Block,
    /// The `catch` clauses, in order.
    pub catches: Vec<CatchClause>,
    /// `finally { … }`, when written.
    pub finally: Option<Block>,
    /// The whole statement.
    pub span: Span,
}

/// `catch (T name) { body }`.
#[derive(Debug, Clone, PartialEq)]
pub struct CatchClause {
    /// The exception type caught.
    pub ty: TypeExpr,
    /// The name bound to the caught exception.
    pub name: Ident,
    /// The handler.
    pub body: Block,
    /// The clause, from `catch` to its closing brace.
    pub span: Span,
}

/// `switch (selector) { cases }`, a statement or an expression (docs/language.md).
#[derive(Debug, Clone, PartialEq)]
pub struct Switch {
    /// The value switched on.
    pub selector: Expr,
    /// The `case`/`default` arms in source order (the order matters for fall-through).
    pub cases: Vec<SwitchCase>,
    /// The whole `switch`.
    pub span: Span,
    /// Nesting depth of the deepest part, kept for the parser's nesting limit.
    pub depth: u32,
}

/// One arm of a `switch`: `case A, B:` statements, `case A -> …`, or `default`.
#[derive(Debug, Clone, PartialEq)]
pub struct SwitchCase {
    /// The constants it matches; empty for `default`.
    pub labels: Vec<Expr>,
    /// Whether it is the `default` arm.
    pub is_default: bool,
    /// What runs when it is chosen.
    pub body: CaseBody,
    /// The `case …` head up to its `:` or `->`, for diagnostics.
    pub span: Span,
}

/// The body of a `switch` arm.
#[derive(Debug, Clone, PartialEq)]
pub enum CaseBody {
    /// `case A: s1 s2 …`: runs on into the next arm unless it jumps (Java's fall-through).
    Colon(Vec<Stmt>),
    /// `case A -> e;`: the arm's value (switch expression) or an expression statement.
    Expr(Expr),
    /// `case A -> { … }`: no fall-through.
    Block(Block),
}

impl Stmt {
    /// The statement's span.
    pub fn span(&self) -> Span {
        match self {
            Stmt::Local { span, .. }
            | Stmt::If { span, .. }
            | Stmt::While { span, .. }
            | Stmt::DoWhile { span, .. }
            | Stmt::For { span, .. }
            | Stmt::RangeFor { span, .. }
            | Stmt::Break(_, span)
            | Stmt::Continue(_, span)
            | Stmt::Return(_, span)
            | Stmt::Yield(_, span)
            | Stmt::Empty(span) => *span,
            Stmt::Switch(sw) => sw.span,
            Stmt::Try(t) => t.span,
            Stmt::Expr(e) => e.span,
            Stmt::Block(b) => b.span,
            Stmt::Labeled(l, s) => l.span.to(s.span()),
        }
    }
}

/// Unary operators as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    /// `+`
    Plus,
    /// `-`
    Neg,
    /// `!`
    Not,
    /// `~`
    BitNot,
    /// `++x`
    PreInc,
    /// `--x`
    PreDec,
    /// `x++`
    PostInc,
    /// `x--`
    PostDec,
}

/// Binary operators as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `>>>`
    UShr,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `&`
    BitAnd,
    /// `^`
    BitXor,
    /// `|`
    BitOr,
    /// `&&`
    And,
    /// `||`
    Or,
}

impl BinOp {
    /// Parses the operator part of a compound assignment (`+` of `+=`).
    pub fn from_compound(op: &str) -> Option<BinOp> {
        Some(match op {
            "+" => BinOp::Add,
            "-" => BinOp::Sub,
            "*" => BinOp::Mul,
            "/" => BinOp::Div,
            "%" => BinOp::Rem,
            "&" => BinOp::BitAnd,
            "|" => BinOp::BitOr,
            "^" => BinOp::BitXor,
            "<<" => BinOp::Shl,
            ">>" => BinOp::Shr,
            ">>>" => BinOp::UShr,
            _ => return None,
        })
    }

    /// The operator's spelling.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::UShr => ">>>",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::BitAnd => "&",
            BinOp::BitXor => "^",
            BinOp::BitOr => "|",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }
}

/// An expression.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// Its shape.
    pub kind: ExprKind,
    /// Where.
    pub span: Span,
    /// Nesting depth: 1 for a leaf, else one more than the deepest child. Kept by the parser
    /// (`nesting::NestingGuard`), which refuses trees deeper than `nesting::MAX_NESTING`.
    pub depth: u32,
}

/// A named launch option `grid: [..]`, or a plain argument.
#[derive(Debug, Clone, PartialEq)]
pub struct Arg {
    /// `grid` in `grid: [..]`.
    pub name: Option<Ident>,
    /// The value.
    pub value: Expr,
}

/// Expression shapes.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// Integer literal text.
    Int(String),
    /// Float literal text.
    Float(String),
    /// `true` / `false`.
    Bool(bool),
    /// String literal (escapes resolved).
    Str(String),
    /// A name.
    Name(String),
    /// `e.name`
    Field(Box<Expr>, Ident),
    /// `e[i]`
    Index(Box<Expr>, Box<Expr>),
    /// `name(args)`
    Call(Ident, Vec<Arg>),
    /// `e.name(args)`
    MethodCall(Box<Expr>, Ident, Vec<Arg>),
    /// `recv.name<args>(…)`: a method call with explicit generic arguments (`buf.vload<4>(i)`).
    GenericMethodCall(Box<Expr>, Ident, Vec<TypeArg>, Vec<Arg>),
    /// `k.launch(opts)(args)`: a method call whose result is called again.
    Launch {
        /// The `k.launch(...)` part.
        config: Box<Expr>,
        /// The kernel arguments.
        args: Vec<Arg>,
    },
    /// Unary operator.
    Unary(UnOp, Box<Expr>),
    /// Binary operator.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `a = b` or `a op= b`.
    Assign(Option<BinOp>, Box<Expr>, Box<Expr>),
    /// `c ? a : b`
    Conditional(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `(T) e`
    Cast(Box<TypeExpr>, Box<Expr>),
    /// `heap T(args)` / `stack T(args)`.
    New {
        /// `heap` or `stack`.
        heap: bool,
        /// The type constructed.
        ty: Box<TypeExpr>,
        /// Constructor arguments.
        args: Vec<Arg>,
    },
    /// `heap T[n]`.
    NewArray {
        /// Element type.
        elem: TypeExpr,
        /// Length.
        len: Box<Expr>,
    },
    /// `[a, b, c]`.
    ArrayLit(Vec<Expr>),
    /// `shared T[n]`: a workgroup-memory array (kernels only).
    SharedArray {
        /// Element type.
        elem: TypeExpr,
        /// Length: a constant expression or a kernel parameter.
        len: Box<Expr>,
    },
    /// A `switch` expression: `switch (x) { case 1 -> 10; default -> 0; }`.
    Switch(Box<Switch>),
    /// `Tile<16>`: a user generic class named with its arguments in an expression (before
    /// `.k`); `generics` replaces it with the instance's name.
    GenericClass(Box<TypeExpr>),
    /// `A::f`: a method reference (an entry of a function table).
    MethodRef(Ident, Ident),
    /// `table[i](args)`: a call through a function table.
    IndexCall(Box<Expr>, Box<Expr>, Vec<Arg>),
    /// `f<int32>(args)`: a call of a user generic method with explicit arguments;
    /// `generics` replaces it with a call of the instance.
    GenericCall(Ident, Vec<TypeArg>, Vec<Arg>),
}
