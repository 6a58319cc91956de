//! `psc(p)` parameters (SPEC §8): at a launch with [`crate::LaunchConfig::psc`] set, each one
//! whose argument is non-zero becomes a specialization constant with that value, so the
//! driver compiles the kernel with the value folded in; a zero argument leaves the spec
//! constant at its default 0 and the kernel reads the push constant, as ncnn's `psc` does.

use crate::launch::{KernelArg, ScalarValue};
use crate::reflection::Reflection;

/// Appends `(SpecId, bits)` for every `psc` parameter of `r` whose argument is non-zero.
pub(crate) fn entries(
    r: &Reflection,
    args: &[KernelArg<'_>],
    out: &mut Vec<(u32, u32)>,
) -> Result<(), String> {
    for (param, arg) in r.parameters.iter().zip(args) {
        let Some(id) = param.psc_spec_id else {
            continue;
        };
        let bits = match arg {
            KernelArg::Scalar(ScalarValue::I32(v)) => *v as u32,
            KernelArg::Scalar(ScalarValue::U32(v)) => *v,
            KernelArg::Scalar(ScalarValue::F32(v)) => v.to_bits(),
            other => {
                return Err(format!(
                    "psc parameter `{}` takes an int32, uint32 or float32, got {}",
                    param.name,
                    other.describe()
                ))
            }
        };
        // -0.0 is not zero for the shader's `spec != 0` test on bits; compare as the kernel
        // does, on the value.
        let zero = match arg {
            KernelArg::Scalar(ScalarValue::F32(v)) => *v == 0.0,
            _ => bits == 0,
        };
        if !zero {
            out.push((id, bits));
        }
    }
    Ok(())
}
