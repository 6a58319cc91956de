//! The stable error codes. Never renumber: tools and docs refer to them.

use std::fmt;

macro_rules! codes {
    (
        $($name:ident = $num:literal, $doc:literal;)*
        ; warnings:
        $($wname:ident = $wnum:literal, $wdoc:literal;)*
    ) => {
        /// A stable diagnostic code: `E…` for errors, `W…` for warnings.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Code {
            $(#[doc = $doc] $name,)*
            $(#[doc = $wdoc] $wname,)*
        }

        impl Code {
            /// The code as printed, `E0001`… (`W0001`… for warnings).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$name => concat!("E", stringify!($num)),)*
                    $(Code::$wname => concat!("W", stringify!($wnum)),)*
                }
            }

            /// One line saying what the code means (for `docs/` and `--explain`).
            pub fn summary(self) -> &'static str {
                match self {
                    $(Code::$name => $doc,)*
                    $(Code::$wname => $wdoc,)*
                }
            }

            /// Every code, errors then warnings, each in numeric order.
            pub const ALL: &'static [Code] = &[$(Code::$name,)* $(Code::$wname,)*];
        }
    };
}

codes! {
    InvalidToken = 0001, "a byte sequence that is not part of the language";
    UnterminatedComment = 0002, "a `/*` comment that never ends";
    UnterminatedString = 0003, "a string literal that never ends";
    SyntaxError = 0004, "the parser expected something else here";
    LiteralOutOfRange = 0005, "a numeric literal does not fit its type";
    UnknownName = 0006, "a name that is not declared";
    UnknownType = 0007, "a type name that is not declared";
    TypeMismatch = 0008, "a value of one type where another is required";
    MissingCast = 0009, "a narrowing or sign-changing conversion without a cast";
    Redeclaration = 0010, "a name declared twice in the same scope";
    ArgumentCount = 0011, "a call or launch with the wrong number of arguments";
    KernelSignature = 0012, "a kernel that is not `public static void` or has an invalid parameter";
    Recursion = 0013, "recursion in device code";
    UnassignedLocal = 0014, "a local read before it is definitely assigned";
    InvalidOperator = 0015, "an operator applied to types it does not accept";
    BreakOutsideLoop = 0016, "`break` or `continue` outside a loop, or an unknown label";
    MissingReturn = 0017, "a non-void method that can end without returning";
    HostOnlyInDevice = 0018, "a host-only construct in device code";
    DeviceOnlyInHost = 0019, "a device-only construct in host code";
    NotAssignable = 0020, "assignment to something that is not a variable or element";
    InvalidLiteral = 0021, "a malformed numeric literal";
    UnknownMethod = 0022, "a method that does not exist on the receiver";
    InvalidLaunch = 0023, "a malformed kernel launch";
    UnsupportedFeature = 0024, "a construct this version of cajetac does not support yet";
    InvalidAnnotation = 0025, "an unknown or misplaced annotation";
    DuplicateFunction = 0026, "two methods with the same name, or two constructors with the same parameter types";
    UnreachableCode = 0027, "a statement that can never run";
    NotConstant = 0028, "a value that must be a compile-time constant is not";
    InvalidShared = 0029, "a misplaced or malformed shared-memory array";
    MissingDeviceFeature = 0030, "a kernel needs a feature the target device profile lacks";
    UnknownDeviceName = 0040, "an unknown feature, a malformed extension name or an unknown limit name, or a malformed cooperative-matrix shape (`Device.hasCoopMatrix(\"MxNxK A C\")`), in a `Device.*` query";
    InvalidPsc = 0041, "`psc(p)` on something that is not a scalar kernel parameter";
    NestingTooDeep = 0042, "expressions, statements or types nested deeper than the compiler's limit";
    NameTooLong = 0043, "an identifier longer than the compiler's limit";
    TooManyErrors = 0044, "compilation stopped after too many errors";
    LlvmBackendUnsupported = 0045, "a construct the LLVM kernel backend (`--backend llvm`) cannot lower yet";
    NonUniformBarrier = 0046, "a workgroup barrier reached under control flow that differs between the invocations of a workgroup";
    InvalidSwitch = 0047, "a malformed `switch`: a duplicate case label or `default`, arrow and colon arms mixed, a `switch` expression without `default` or with an arm that yields no value";
    CpuDeviceUnsupported = 0048, "a construct the CPU device's kernel compiler cannot lower yet";
    GenericInstantiation = 0050, "a generic class or method used with arguments that do not fit its parameters, or whose arguments cannot be inferred";
    ; warnings:
    HeadlessPresentation = 0001, "a presentation type (`RenderGraph`, `Swapchain`) declared: cajetac runs compute headless, so no value of it can be made";
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
