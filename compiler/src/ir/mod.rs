//! The typed IR: the checked program, handed from `sema` to the backends.
//!
//! It is a structured tree, like naga's IR: every expression carries its type, every implicit
//! conversion of SPEC §3 is an explicit [`ExprKind::Convert`], integer literals are typed
//! constants, names are resolved to [`LocalId`]s and [`FunctionId`]s, and loops are one
//! [`Stmt::Loop`] form with break/continue targets resolved. Backends never look at source
//! syntax and never re-run type rules: the operand types of a [`BinaryOp`] decide its
//! semantics (signed or unsigned, integer or float) exactly as SPEC §4 prescribes.
//!
//! Kernels, `@Device` helpers and host methods all live in one [`Module`]; the SPIR-V
//! backend compiles kernels (and the helpers they call), the host interpreter runs host
//! methods.

pub mod const_fold;
pub mod debug_printf;
mod device;
pub mod hex_float;
mod host_op;
mod image_types;
mod int_precision;
mod intrinsic;
mod math_fns;
mod pod;
pub mod printf;
mod types;
pub mod visit;

pub use device::{
    CapabilityNeed, CoopOp, CoopShapeQuery, CoopType, CoopUse, DeviceQuery, OptionFlag,
    CAPABILITIES,
};
pub use host_op::{
    AutotuneOp, CommOp, DeviceControl, DevicesOp, HostDeviceQuery, HostOp, RngOp, StringOp,
    TimerOp, KERNEL_MANIFEST_FIELDS,
};
pub use image_types::{ImageFormat, TextureDim};
pub use int_precision::{reference as int_precision_reference, IntPrecisionFn};
pub use intrinsic::{
    AtomicOp, Axis, BarrierKind, GroupOp, Intrinsic, PrecisionFn, RayQueryOp, VecFn, WaveOp,
};
pub use math_fns::{BitCast, BitsFn, MathFn};
pub use pod::StructDef;
pub use types::{PresentationType, ScalarType, Type};

use crate::diagnostics::Span;

/// Index of a function in [`Module::functions`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FunctionId(pub usize);

/// Index of a local variable in [`Function::locals`]; parameters come first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalId(pub usize);

/// Identifies a loop within its function, for `break` / `continue`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LoopId(pub usize);

/// A whole checked program.
#[derive(Debug, Clone, Default)]
pub struct Module {
    /// All functions: kernels, device helpers and host methods.
    pub functions: Vec<Function>,
    /// The checker's warnings about the program (it compiled; they are printed and the
    /// command goes on).
    pub warnings: Vec<crate::diagnostics::Diagnostic>,
}

impl Module {
    /// The function with the given id.
    pub fn function(&self, id: FunctionId) -> &Function {
        &self.functions[id.0]
    }

    /// Ids of all kernels, in source order.
    pub fn kernels(&self) -> impl Iterator<Item = FunctionId> + '_ {
        self.functions
            .iter()
            .enumerate()
            .filter(|(_, f)| f.kind == FunctionKind::Kernel)
            .map(|(i, _)| FunctionId(i))
    }

    /// Finds a function by its (class-qualified or simple) name.
    pub fn find(&self, name: &str) -> Option<FunctionId> {
        self.functions
            .iter()
            .position(|f| f.name == name || f.qualified_name == name)
            .map(FunctionId)
    }
}

/// Where a function runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FunctionKind {
    /// `@Kernel`: an entry point of its own SPIR-V module.
    Kernel,
    /// `@Device`: a helper callable from kernels and other helpers.
    Device,
    /// Any other static method: host code (SPEC §9).
    Host,
}

/// A function of the program.
#[derive(Debug, Clone)]
pub struct Function {
    /// Simple name (the SPIR-V entry point name for kernels).
    pub name: String,
    /// `Class.name`.
    pub qualified_name: String,
    /// Kernel, device helper or host method.
    pub kind: FunctionKind,
    /// Number of parameters; they are `locals[0..param_count]`.
    pub param_count: usize,
    /// Parameters then locals.
    pub locals: Vec<Local>,
    /// Return type.
    pub return_type: Type,
    /// The body.
    pub body: Block,
    /// `@FastMath`: float arithmetic may be contracted.
    pub fast_math: bool,
    /// `@Wave(width = N)` on a kernel: the subgroup size it must run with.
    pub wave_width: Option<u32>,
    /// Span of the declaration's name.
    pub span: Span,
}

impl Function {
    /// The parameters.
    pub fn params(&self) -> &[Local] {
        &self.locals[..self.param_count]
    }

    /// The local with the given id.
    pub fn local(&self, id: LocalId) -> &Local {
        &self.locals[id.0]
    }
}

/// A parameter or local variable.
#[derive(Debug, Clone)]
pub struct Local {
    /// Source name (temporaries introduced by lowering start with `$`).
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// Where it was declared.
    pub span: Span,
}

/// A sequence of statements.
pub type Block = Vec<Stmt>;

/// A statement.
#[derive(Debug, Clone)]
pub enum Stmt {
    /// Evaluate for side effects.
    Expr(Expr),
    /// Write `value` to `place`.
    Store {
        /// Destination.
        place: Place,
        /// Value, already converted to the place's type.
        value: Expr,
        /// The source statement (host runtime errors point here).
        span: Span,
    },
    /// `if (cond) then else otherwise`.
    If {
        /// Boolean condition.
        cond: Expr,
        /// Taken when true.
        then: Block,
        /// Taken when false (may be empty).
        otherwise: Block,
    },
    /// Every loop form. Executes as:
    /// `loop { if !pre_cond break; body; /*continue lands here*/ continuing; if !post_cond break; }`.
    /// `while` uses `pre_cond`, `do/while` uses `post_cond`, `for` puts its update in
    /// `continuing`.
    Loop {
        /// Target of `break`/`continue` inside.
        id: LoopId,
        /// Tested before each iteration.
        pre_cond: Option<Expr>,
        /// Loop body.
        body: Block,
        /// Runs after the body and after `continue` (a `for` update). Contains no
        /// break/continue/return.
        continuing: Block,
        /// Tested after `continuing` (a `do/while` condition).
        post_cond: Option<Expr>,
    },
    /// Leave the given loop.
    Break(LoopId),
    /// Go to the given loop's `continuing`.
    Continue(LoopId),
    /// Return from the function.
    Return(Option<Expr>, Span),
}

/// Something that can be read and written.
#[derive(Debug, Clone)]
pub enum Place {
    /// A local variable or parameter.
    Local(LocalId),
    /// `base[index]` where `base` is a `KernelBuffer<T>` (device) or a host array.
    Index {
        /// The buffer or array.
        base: Box<Expr>,
        /// Element index; `uint32` for buffers, `int32`/`uint32` for host arrays.
        index: Box<Expr>,
    },
    /// Field `field` of the POD value held in `base` (`p.scale`).
    Field {
        /// The POD-typed place.
        base: Box<Place>,
        /// Field index in declaration order.
        field: usize,
    },
    /// One lane of a vector held in `base` (`v.x = …`, `v[1] = …`, `buf[i].y = …`).
    Lane {
        /// The vector-typed place.
        base: Box<Place>,
        /// Lane index, below the vector's size.
        lane: u8,
    },
}

/// A typed expression.
#[derive(Debug, Clone)]
pub struct Expr {
    /// What it computes.
    pub kind: ExprKind,
    /// Its type.
    pub ty: Type,
    /// Source span.
    pub span: Span,
}

/// A constant value; its type is the enclosing [`Expr::ty`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Constant {
    /// `true` / `false`.
    Bool(bool),
    /// An integer of any width: its two's-complement bit pattern truncated to the type's
    /// width, zero-extended to 64 bits.
    Int(u64),
    /// A float of any width, already rounded to the type's precision.
    Float(f64),
}

/// Unary operators. `Neg` on floats flips the sign; on integers it wraps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `!b`
    Not,
    /// `~x`
    BitNot,
}

/// Binary operators. Both operands have the same type (sema inserted the conversions and
/// broadcasts), except shifts, whose count may be any integer type. Comparison results are
/// `boolean`. On two vectors of one type the arithmetic operators and comparisons apply lane
/// by lane (a comparison then gives a `Vector<boolean,N>` mask). `Mul` also takes
/// `Matrix * Matrix`, `Matrix * Vector`, `Vector * Matrix` (the vector as a row) and
/// `Matrix * scalar` (scalar on the right), with linear-algebra typing in [`Expr::ty`]; each
/// output lane is `((a0*b0 + a1*b1) + a2*b2) + a3*b3`, rounded at every step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `+` (integers wrap)
    Add,
    /// `-` (integers wrap)
    Sub,
    /// `*` (integers wrap)
    Mul,
    /// `/`: signed operands truncate toward zero; integer division by zero yields 0 in
    /// kernels and is a runtime error in host code.
    Div,
    /// `%`: the result takes the dividend's sign; by zero as for `Div`.
    Rem,
    /// `<<`, count taken modulo the width.
    Shl,
    /// `>>`: arithmetic for signed left operands, logical for unsigned; count modulo width.
    Shr,
    /// `>>>`: always logical; count modulo width.
    UShr,
    /// `&` (also non-short-circuit on booleans)
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl BinaryOp {
    /// True for the comparisons, whose result is `boolean`.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge
        )
    }

    /// True for `<<`, `>>`, `>>>`.
    pub fn is_shift(self) -> bool {
        matches!(self, BinaryOp::Shl | BinaryOp::Shr | BinaryOp::UShr)
    }
}

/// Expression forms.
#[derive(Debug, Clone)]
pub enum ExprKind {
    /// A constant.
    Const(Constant),
    /// A string literal (host only; type `String`).
    Str(String),
    /// Read a place.
    Load(Place),
    /// Unary operation.
    Unary(UnaryOp, Box<Expr>),
    /// Binary operation (see [`BinaryOp`] for typing).
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `a && b`, short-circuit.
    LogicalAnd(Box<Expr>, Box<Expr>),
    /// `a || b`, short-circuit.
    LogicalOr(Box<Expr>, Box<Expr>),
    /// `cond ? a : b`; only the chosen arm is evaluated.
    Select {
        /// Boolean condition.
        cond: Box<Expr>,
        /// Value when true.
        then: Box<Expr>,
        /// Value when false.
        otherwise: Box<Expr>,
    },
    /// Numeric conversion of the operand to [`Expr::ty`] (SPEC §3: float to int truncates
    /// and saturates, NaN gives 0; int narrowing keeps the low bits; boolean is never
    /// converted).
    Convert(Box<Expr>),
    /// Call of a device helper (from device code) or host method (from host code).
    Call {
        /// Callee.
        func: FunctionId,
        /// Arguments, converted to the parameter types.
        args: Vec<Expr>,
    },
    /// A device-side intrinsic declared in `stdlib/` (thread ids, image and buffer ops,
    /// math). For methods, the receiver is `args[0]`.
    Intrinsic {
        /// Which one.
        op: Intrinsic,
        /// Arguments, converted to the declared parameter types.
        args: Vec<Expr>,
    },
    /// A host-only operation (allocation, transfers, printing, launches).
    Host {
        /// Which one.
        op: HostOp,
        /// Arguments (receiver first for methods).
        args: Vec<Expr>,
    },
    /// `kernel.launch(stream, grid: [...], block: [...])(args...)` (host only).
    Launch(Box<Launch>),
    /// Builds a `Vector`/`Matrix` of [`Expr::ty`] from scalars and vectors of its lane type
    /// whose lanes, in order, fill it exactly (a matrix column-major).
    Construct(Vec<Expr>),
    /// The scalar operand repeated in every lane of the vector type [`Expr::ty`].
    Splat(Box<Expr>),
    /// Lanes of a vector, by index: one lane gives a scalar, several a vector (a swizzle).
    Swizzle(Box<Expr>, Vec<u8>),
    /// Runs `stmts` then yields `value`: used for assignments and `++`/`--` inside
    /// expressions, so backends only need statement-level stores.
    Sequence(Block, Box<Expr>),
}

/// A kernel launch from host code.
#[derive(Debug, Clone)]
pub struct Launch {
    /// The kernel.
    pub kernel: FunctionId,
    /// The `KernelStream`.
    pub stream: Expr,
    /// Workgroup counts (1 to 3 `uint32` expressions).
    pub grid: Vec<Expr>,
    /// Workgroup size (1 to 3 `uint32` expressions).
    pub block: Vec<Expr>,
    /// Kernel arguments, converted to the parameter types.
    pub args: Vec<Expr>,
    /// `sharedBytes: n`: the byte size of the kernel's dynamic shared array (`uint32`).
    pub shared_bytes: Option<Expr>,
    /// `spec: [v0, v1, …]`: values of the kernel's `Spec` slots 0, 1, … (integer or float
    /// scalars; the host converts each to its slot's type).
    pub spec: Vec<Expr>,
    /// `psc: true`: specialize the kernel's `psc(p)` parameters to this launch's arguments.
    pub psc: bool,
    /// Written in a `try` block that catches `XpuLaunchException`: a refusal of the launch is
    /// kept for the `catch` (`HostOp::TakeException`) instead of ending the run.
    pub catches: bool,
}

impl Expr {
    /// A typed constant.
    pub fn constant(c: Constant, ty: Type, span: Span) -> Expr {
        Expr {
            kind: ExprKind::Const(c),
            ty,
            span,
        }
    }
}
