//! Runtime values of the host interpreter.
//!
//! Scalars are a small `Copy` enum with one variant per [`ScalarType`]. Host arrays keep typed
//! storage (`Vec<f32>`, `Vec<i32>`, …) so that long loops over them do not box every element,
//! and they are shared by reference (`Rc<RefCell<…>>`) because Cajeta arrays, like Java's,
//! are reference objects: `float32[] b = a;` aliases `a`.

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use super::acceleration::AccelObj;
use super::device::{BufferObj, ImageObj, StreamObj};
use super::streams::EventObj;
use super::textures::{SamplerObj, TextureObj};
use crate::host::format;
use crate::ir::{Constant, ScalarType, Type};

/// A scalar of one of the IR's scalar types. `F16` and `BF16` hold an `f32` that is always
/// already rounded to the type's precision (every operation producing one rounds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// `boolean`
    Bool(bool),
    /// `int8`
    I8(i8),
    /// `int16`
    I16(i16),
    /// `int32`
    I32(i32),
    /// `int64`
    I64(i64),
    /// `uint8`
    U8(u8),
    /// `uint16`
    U16(u16),
    /// `uint32`
    U32(u32),
    /// `uint64`
    U64(u64),
    /// `float16`, rounded to half precision
    F16(f32),
    /// `bfloat16`, rounded to bfloat16 precision
    BF16(f32),
    /// `float32`
    F32(f32),
    /// `float64`
    F64(f64),
}

impl Scalar {
    /// The scalar's type.
    pub fn ty(self) -> ScalarType {
        match self {
            Scalar::Bool(_) => ScalarType::Bool,
            Scalar::I8(_) => ScalarType::I8,
            Scalar::I16(_) => ScalarType::I16,
            Scalar::I32(_) => ScalarType::I32,
            Scalar::I64(_) => ScalarType::I64,
            Scalar::U8(_) => ScalarType::U8,
            Scalar::U16(_) => ScalarType::U16,
            Scalar::U32(_) => ScalarType::U32,
            Scalar::U64(_) => ScalarType::U64,
            Scalar::F16(_) => ScalarType::F16,
            Scalar::BF16(_) => ScalarType::BF16,
            Scalar::F32(_) => ScalarType::F32,
            Scalar::F64(_) => ScalarType::F64,
        }
    }

    /// Zero (or `false`) of the given type.
    pub fn zero(ty: ScalarType) -> Scalar {
        Scalar::from_int_wrapping(0, ty)
    }

    /// An integer value converted to `ty` as a cast would: integers keep the low bits,
    /// floats round to nearest, booleans are `x != 0`.
    pub fn from_int_wrapping(x: i128, ty: ScalarType) -> Scalar {
        match ty {
            ScalarType::Bool => Scalar::Bool(x != 0),
            ScalarType::I8 => Scalar::I8(x as i8),
            ScalarType::I16 => Scalar::I16(x as i16),
            ScalarType::I32 => Scalar::I32(x as i32),
            ScalarType::I64 => Scalar::I64(x as i64),
            ScalarType::U8 => Scalar::U8(x as u8),
            ScalarType::U16 => Scalar::U16(x as u16),
            ScalarType::U32 => Scalar::U32(x as u32),
            ScalarType::U64 => Scalar::U64(x as u64),
            ScalarType::F16 => Scalar::F16(super::ops::round_f16(x as f64)),
            ScalarType::BF16 => Scalar::BF16(super::ops::round_bf16(x as f64)),
            ScalarType::F32 => Scalar::F32(x as f32),
            ScalarType::F64 => Scalar::F64(x as f64),
            // Host code holds precision types (SPEC §8) in their widest form.
            ScalarType::Sfp | ScalarType::Afp | ScalarType::Lfp => Scalar::F32(x as f32),
            ScalarType::BF16Native => Scalar::BF16(super::ops::round_bf16(x as f64)),
            ScalarType::Sint8
            | ScalarType::Aint8
            | ScalarType::Sint16
            | ScalarType::Aint16
            | ScalarType::Lint16 => Scalar::I32(x as i32),
        }
    }

    /// A float value of the given float type (rounded to it); `None` for non-float types.
    pub fn from_float(x: f64, ty: ScalarType) -> Option<Scalar> {
        Some(match ty {
            ScalarType::F16 => Scalar::F16(super::ops::round_f16(x)),
            ScalarType::BF16 => Scalar::BF16(super::ops::round_bf16(x)),
            ScalarType::F32 | ScalarType::Sfp | ScalarType::Afp | ScalarType::Lfp => {
                Scalar::F32(x as f32)
            }
            ScalarType::F64 => Scalar::F64(x),
            _ => return None,
        })
    }

    /// The value of an IR constant of type `ty`; `None` when the constant does not fit the
    /// type's kind (a float constant for an integer type, say).
    pub fn from_constant(c: Constant, ty: ScalarType) -> Option<Scalar> {
        match c {
            Constant::Bool(b) if ty == ScalarType::Bool => Some(Scalar::Bool(b)),
            // The bit pattern is zero-extended: `as i64` first so that an int64 pattern
            // keeps its sign before the (truncating) conversion to the target width.
            Constant::Int(bits) if ty.is_integer() => {
                Some(Scalar::from_int_wrapping(bits as i64 as i128, ty))
            }
            Constant::Float(x) if ty.is_float() => Scalar::from_float(x, ty),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(self) -> Option<bool> {
        match self {
            Scalar::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The integer value, sign- or zero-extended; `None` for floats and booleans.
    pub fn as_int(self) -> Option<i128> {
        Some(match self {
            Scalar::I8(x) => x as i128,
            Scalar::I16(x) => x as i128,
            Scalar::I32(x) => x as i128,
            Scalar::I64(x) => x as i128,
            Scalar::U8(x) => x as i128,
            Scalar::U16(x) => x as i128,
            Scalar::U32(x) => x as i128,
            Scalar::U64(x) => x as i128,
            _ => return None,
        })
    }

    /// The float value (exact, widened to f64); `None` for integers and booleans.
    pub fn as_float(self) -> Option<f64> {
        match self {
            Scalar::F16(x) | Scalar::BF16(x) | Scalar::F32(x) => Some(x as f64),
            Scalar::F64(x) => Some(x),
            _ => None,
        }
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Scalar::Bool(b) => write!(f, "{b}"),
            Scalar::F16(x) | Scalar::BF16(x) | Scalar::F32(x) => f.write_str(&format::java_f32(x)),
            Scalar::F64(x) => f.write_str(&format::java_f64(x)),
            other => match other.as_int() {
                Some(i) => f.write_str(format::int_text(i, &mut [0; 40])),
                None => Ok(()),
            },
        }
    }
}

/// A host array shared by reference.
pub type ArrayRef = Rc<RefCell<Array>>;

/// A string value: immutable as far as the program can tell, shared by reference counting.
/// A string that only one place holds is appended to in place by `s = s + x` (as CPython
/// does), so a string grown in a loop costs amortized time per character instead of a copy
/// of the whole string per step; a shared one is copied, so no other holder sees a change.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Text(Rc<String>);

impl Text {
    /// The string's characters, growable when nothing else holds them.
    pub fn unique_mut(&mut self) -> Option<&mut String> {
        Rc::get_mut(&mut self.0)
    }
}

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text(Rc::new(s.to_owned()))
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text(Rc::new(s))
    }
}

/// A runtime value.
#[derive(Clone)]
pub enum Value {
    /// No value: the result of a `void` call, an unassigned local, and Java's `null` for
    /// reference elements of a fresh `heap String[n]`.
    Void,
    /// A scalar.
    Scalar(Scalar),
    /// An immutable string.
    Str(Text),
    /// A host array `T[]`.
    Array(ArrayRef),
    /// A `Vector<T, N>` (its lanes), or a `Matrix<T, R, C>` (its lanes column-major):
    /// immutable, a lane write builds a new one.
    Vector(Rc<[Scalar]>),
    /// A POD class value: its fields in declaration order (immutable; a field write builds
    /// a new one).
    Struct(Rc<[Value]>),
    /// A `KernelBuffer<T>`.
    Buffer(Rc<BufferObj>),
    /// An `Image2D`.
    Image(Rc<ImageObj>),
    /// A `Texture1D/2D/3D/2DArray/Cube`.
    Texture(Rc<TextureObj>),
    /// A `Sampler`.
    Sampler(Rc<SamplerObj>),
    /// A `KernelStream`.
    Stream(Rc<StreamObj>),
    /// An `Event`.
    Event(Rc<EventObj>),
    /// An `AccelerationStructure` (a top-level structure).
    AccelStruct(Rc<AccelObj>),
}

impl Value {
    /// The value a new array element of type `ty` starts with: zero in every lane and field
    /// of a vector, matrix or POD (they are values, as a scalar's 0), `null` otherwise.
    pub fn zero(ty: &Type) -> Value {
        match ty {
            Type::Scalar(s) => Value::Scalar(Scalar::zero(*s)),
            Type::Vector(s, _) | Type::Matrix(s, ..) => {
                Value::Vector(vec![Scalar::zero(*s); ty.lanes()].into())
            }
            Type::Struct(d) => {
                Value::Struct(d.fields.iter().map(|(_, t)| Value::zero(t)).collect())
            }
            _ => Value::Void,
        }
    }
    /// A new string value.
    pub fn str(s: impl AsRef<str>) -> Value {
        Value::Str(Text::from(s.as_ref()))
    }

    /// A new array value.
    pub fn array(a: Array) -> Value {
        Value::Array(Rc::new(RefCell::new(a)))
    }

    /// The scalar, if this is one.
    pub fn as_scalar(&self) -> Option<Scalar> {
        match self {
            Value::Scalar(s) => Some(*s),
            _ => None,
        }
    }

    /// Reference equality for objects, content equality for scalars and strings (so that
    /// `==` on strings compares text, which is what a reader of host code expects).
    pub fn same(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Void, Value::Void) => true,
            (Value::Scalar(a), Value::Scalar(b)) => a == b,
            (Value::Vector(a), Value::Vector(b)) => a == b,
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::Array(a), Value::Array(b)) => Rc::ptr_eq(a, b),
            (Value::Buffer(a), Value::Buffer(b)) => Rc::ptr_eq(a, b),
            (Value::Image(a), Value::Image(b)) => Rc::ptr_eq(a, b),
            (Value::Texture(a), Value::Texture(b)) => Rc::ptr_eq(a, b),
            (Value::Sampler(a), Value::Sampler(b)) => Rc::ptr_eq(a, b),
            (Value::Stream(a), Value::Stream(b)) => Rc::ptr_eq(a, b),
            (Value::Event(a), Value::Event(b)) => Rc::ptr_eq(a, b),
            (Value::AccelStruct(a), Value::AccelStruct(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Str(s) => write!(f, "{s:?}"),
            other => write!(f, "{other}"),
        }
    }
}

/// Printing follows Java's `String.valueOf` (see [`format`]); arrays print their elements
/// like `Arrays.deepToString` rather than Java's unhelpful `[F@1b6d3586`.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, 0)
    }
}

/// Nesting depth beyond which arrays print as `[...]`: an array may contain itself.
const MAX_PRINT_DEPTH: usize = 16;

impl Value {
    fn write(&self, f: &mut fmt::Formatter<'_>, depth: usize) -> fmt::Result {
        match self {
            Value::Void => f.write_str("null"),
            Value::Scalar(s) => write!(f, "{s}"),
            Value::Str(s) => f.write_str(s),
            Value::Array(a) => match a.try_borrow() {
                Ok(a) if depth < MAX_PRINT_DEPTH => {
                    f.write_str("[")?;
                    for i in 0..a.len() {
                        if i > 0 {
                            f.write_str(", ")?;
                        }
                        if let Some(v) = a.get(i) {
                            v.write(f, depth + 1)?;
                        }
                    }
                    f.write_str("]")
                }
                _ => f.write_str("[...]"),
            },
            Value::Vector(lanes) => {
                f.write_str("(")?;
                for (i, l) in lanes.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{l}")?;
                }
                f.write_str(")")
            }
            Value::Struct(fields) => {
                f.write_str("{")?;
                for (i, v) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    v.write(f, depth + 1)?;
                }
                f.write_str("}")
            }
            Value::Buffer(b) => write!(f, "KernelBuffer<{}>[{}]", b.elem_type(), b.len),
            Value::Image(i) => write!(f, "Image2D[{}x{}]", i.width, i.height),
            Value::Texture(t) => {
                let d = t.texture.desc();
                write!(f, "Texture[{} {}x{}x{}]", d.dim, d.width, d.height, d.depth)
            }
            Value::Sampler(_) => f.write_str("Sampler"),
            Value::Stream(_) => f.write_str("KernelStream"),
            Value::Event(_) => f.write_str("Event"),
            Value::AccelStruct(_) => f.write_str("AccelerationStructure"),
        }
    }
}

/// Typed storage of a host array. Scalar element types get a `Vec` of the Rust type (F16
/// and BF16 as rounded `f32`); every other element type (strings, nested arrays, resources)
/// is a `Vec<Value>`.
#[derive(Debug, Clone, PartialEq)]
pub enum Array {
    /// `boolean[]`
    Bool(Vec<bool>),
    /// `int8[]`
    I8(Vec<i8>),
    /// `int16[]`
    I16(Vec<i16>),
    /// `int32[]`
    I32(Vec<i32>),
    /// `int64[]`
    I64(Vec<i64>),
    /// `uint8[]`
    U8(Vec<u8>),
    /// `uint16[]`
    U16(Vec<u16>),
    /// `uint32[]`
    U32(Vec<u32>),
    /// `uint64[]`
    U64(Vec<u64>),
    /// `float16[]`
    F16(Vec<f32>),
    /// `bfloat16[]`
    BF16(Vec<f32>),
    /// `float32[]`
    F32(Vec<f32>),
    /// `float64[]`
    F64(Vec<f64>),
    /// Vectors, matrices and PODs of native scalars, in native layout.
    Flat(super::flat::FlatArray),
    /// Any other element type.
    Values(Vec<Value>),
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        self.same(other)
    }
}

/// Largest array length: Java's limit, and what an `int32` index can reach.
pub const MAX_ARRAY_LEN: usize = i32::MAX as usize;

/// A zero-filled vector, or an error message when the memory cannot be had.
fn zeroed<T: Clone + Default>(len: usize) -> Result<Vec<T>, String> {
    // Reserve fallibly first so that a huge `heap float32[n]` is a runtime error rather
    // than an allocation abort; `vec!` of zeros then uses a zeroed allocation.
    let mut probe: Vec<T> = Vec::new();
    probe
        .try_reserve_exact(len)
        .map_err(|_| format!("out of memory allocating an array of {len} elements"))?;
    drop(probe);
    Ok(vec![T::default(); len])
}

macro_rules! array_accessors {
    ($($v:ident),*) => {
        impl Array {
            /// A zero-filled (`null`-filled for non-scalars) array of `len` elements.
            pub fn new(elem: &Type, len: usize) -> Result<Array, String> {
                if len > MAX_ARRAY_LEN {
                    return Err(format!(
                        "array length {len} exceeds the maximum of {MAX_ARRAY_LEN}"
                    ));
                }
                if let Some(flat) = super::flat::FlatArray::new(elem, len) {
                    return flat.map(Array::Flat);
                }
                Ok(match elem {
                    $(Type::Scalar(ScalarType::$v) => Array::$v(zeroed(len)?),)*
                    _ => {
                        let mut v = Vec::new();
                        v.try_reserve_exact(len).map_err(|_| {
                            format!("out of memory allocating an array of {len} elements")
                        })?;
                        v.resize(len, Value::zero(elem));
                        Array::Values(v)
                    }
                })
            }

            /// Number of elements.
            pub fn len(&self) -> usize {
                match self {
                    $(Array::$v(a) => a.len(),)*
                    Array::Flat(a) => a.len(),
                    Array::Values(a) => a.len(),
                }
            }

            /// The scalar element type, or `None` for arrays of non-scalars.
            pub fn elem_scalar(&self) -> Option<ScalarType> {
                match self {
                    $(Array::$v(_) => Some(ScalarType::$v),)*
                    Array::Flat(_) | Array::Values(_) => None,
                }
            }

            /// Element `i`, or `None` when out of range.
            pub fn get(&self, i: usize) -> Option<Value> {
                match self {
                    $(Array::$v(a) => a.get(i).map(|x| Value::Scalar(Scalar::$v(*x))),)*
                    Array::Flat(a) => a.get(i),
                    Array::Values(a) => a.get(i).cloned(),
                }
            }

            /// Writes element `i`. The caller checked the range; the error is a type
            /// mismatch (which sema should have made impossible) or a range error.
            pub fn set(&mut self, i: usize, v: Value) -> Result<(), String> {
                let len = self.len();
                let slot_err = || format!("index {i} out of range for length {len}");
                match (self, v) {
                    $((Array::$v(a), Value::Scalar(Scalar::$v(x))) => {
                        *a.get_mut(i).ok_or_else(slot_err)? = x;
                    })*
                    (Array::Flat(a), v) => a.set(i, v)?,
                    (Array::Values(a), v) => {
                        *a.get_mut(i).ok_or_else(slot_err)? = v;
                    }
                    (a, v) => {
                        return Err(format!(
                            "internal error: cannot store {v:?} in an array of {}",
                            a.elem_scalar().map(|s| s.name()).unwrap_or("objects")
                        ))
                    }
                }
                Ok(())
            }
        }
    };
}

array_accessors!(Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64);

impl Array {
    /// True when the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// An array of element type `elem` holding `values` (already of that type).
    pub fn from_values(elem: &Type, values: Vec<Value>) -> Result<Array, String> {
        let mut a = Array::new(elem, values.len())?;
        for (i, v) in values.into_iter().enumerate() {
            a.set(i, v)?;
        }
        Ok(a)
    }
}
