//! `Precision.packInt4x8` and the other pure integer precision functions of SPEC §8 in host
//! code, with the semantics of [`crate::ir::int_precision_reference`] (which the device
//! lowering matches).

use super::value::{Scalar, Value};
use crate::ir::int_precision_reference as r;
use crate::ir::IntPrecisionFn;

/// Evaluates `f` on its evaluated argument; the error names the problem.
pub fn eval(f: IntPrecisionFn, args: &[Value]) -> Result<Value, String> {
    let [arg] = args else {
        return Err(format!("{f:?} takes one argument"));
    };
    let ints = |n: usize| -> Result<Vec<i32>, String> {
        match arg {
            Value::Vector(l) if l.len() == n => l
                .iter()
                .map(|s| match s {
                    Scalar::I32(x) => Ok(*x),
                    other => Err(format!("{f:?}: expected int32 lanes, found {other:?}")),
                })
                .collect(),
            other => Err(format!("{f:?}: expected {n} int32 lanes, found {other:?}")),
        }
    };
    let int = || match arg {
        Value::Scalar(Scalar::I32(x)) => Ok(*x),
        other => Err(format!("{f:?}: expected an int32, found {other:?}")),
    };
    let vector = |lanes: &[i32]| Value::Vector(lanes.iter().map(|&x| Scalar::I32(x)).collect());
    Ok(match f {
        IntPrecisionFn::PackInt4x8 => {
            let v = ints(4)?;
            Value::Scalar(Scalar::I32(r::pack_int4x8([v[0], v[1], v[2], v[3]])))
        }
        IntPrecisionFn::PackInt2x16 => {
            let v = ints(2)?;
            Value::Scalar(Scalar::I32(r::pack_int2x16([v[0], v[1]])))
        }
        IntPrecisionFn::UnpackInt4x8 => vector(&r::unpack_int4x8(int()?)),
        IntPrecisionFn::UnpackInt2x16 => vector(&r::unpack_int2x16(int()?)),
        IntPrecisionFn::Float2Int8 => match arg {
            Value::Scalar(Scalar::F32(x)) => Value::Scalar(Scalar::I32(r::float2int8(*x))),
            Value::Vector(l) => {
                let mut out = Vec::with_capacity(l.len());
                for s in l.iter() {
                    match s {
                        Scalar::F32(x) => out.push(r::float2int8(*x)),
                        other => return Err(format!("float2int8 of {other:?}")),
                    }
                }
                vector(&out)
            }
            other => return Err(format!("float2int8 of {other:?}")),
        },
        other => return Err(format!("{other:?} runs only inside kernels")),
    })
}
