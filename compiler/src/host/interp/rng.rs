//! Cajeta's `Rng` in host code: the xorshift64 stream generator (Marsaglia 2003, shifts 13,
//! 7, 17) and weighted reservoir sampling with a reservoir of one, step for step as Cajeta's
//! `cajeta.xpu.Rng` computes them, so a seed replays Cajeta's stream. Both executors run
//! these (native code hands them over).

use super::eval::{err, internal, Fail};
use super::value::{Array, Scalar, Value};

use crate::ir::{Expr, RngOp};

/// Added to a seed before its first step, so that a zero seed still starts a stream
/// (xorshift64 stays at 0 from 0).
const SEED_OFFSET: u64 = 0x9E37_79B9_7F4A_7C15;

/// One xorshift64 step: the next state, which is also the next 64 random bits.
pub fn next(state: i64) -> i64 {
    let mut x = state as u64;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x as i64
}

/// The first state of `seed`'s stream.
pub fn seed_state(seed: i64) -> i64 {
    next((seed as u64).wrapping_add(SEED_OFFSET) as i64)
}

/// A float in [0, 1) from the top 24 of 64 random bits (every value a float32 holds exactly).
pub fn to_unit_float(bits: i64) -> f32 {
    (((bits as u64) >> 40) & 0xFF_FFFF) as f32 / 16_777_216.0
}

/// An index of `weights` drawn with probability proportional to its weight in one pass
/// (candidate i replaces the pick when u * (running sum) < weights[i]); -1 when nothing was
/// picked.
pub fn weighted_reservoir_choice(weights: &[f32], seed: i64) -> i32 {
    let mut state = seed_state(seed);
    let mut sum = 0.0f32;
    let mut chosen = -1;
    for (i, &w) in weights.iter().enumerate() {
        sum += w;
        state = next(state);
        if to_unit_float(state) * sum < w {
            chosen = i as i32;
        }
    }
    chosen
}

/// Evaluates `Rng` operation `op` (expression `e`) on its operands' `values`.
pub(super) fn rng_op(op: RngOp, values: &[Value], e: &Expr) -> Result<Value, Fail> {
    let span = e.span;
    let int = |i: usize| match values.get(i) {
        Some(Value::Scalar(Scalar::I64(x))) => Ok(*x),
        Some(Value::Scalar(Scalar::I32(x))) => Ok(i64::from(*x)),
        _ => internal(span, format!("{op:?}: operand {i} is not an integer")),
    };
    let scalar = |s: Scalar| Ok(Value::Scalar(s));
    match op {
        RngOp::Next => scalar(Scalar::I64(next(int(0)?))),
        RngOp::SeedState => scalar(Scalar::I64(seed_state(int(0)?))),
        RngOp::Output => scalar(Scalar::I64(int(0)?)),
        RngOp::ToUnitFloat => scalar(Scalar::F32(to_unit_float(int(0)?))),
        RngOp::WeightedReservoirChoice => {
            let (count, seed) = (int(1)?, int(2)?);
            let Some(Value::Array(weights)) = values.first() else {
                return err(
                    span,
                    "Rng.weightedReservoirChoice: the weights array is null",
                );
            };
            let weights = weights.borrow();
            let Array::F32(weights) = &*weights else {
                return internal(span, "weights that are not a float32[]");
            };
            let count = usize::try_from(count.max(0)).unwrap_or(usize::MAX);
            if count > weights.len() {
                return err(
                    span,
                    format!(
                        "Rng.weightedReservoirChoice: count {count} is past the {} weights",
                        weights.len()
                    ),
                );
            }
            scalar(Scalar::I32(weighted_reservoir_choice(
                &weights[..count],
                seed,
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{next, seed_state, to_unit_float, weighted_reservoir_choice};

    #[test]
    fn xorshift_steps_as_written_out() {
        // 1 ^ 1<<13 = 0x2001; ^ (0x2001 >> 7 = 0x40) = 0x2041; ^ 0x2041<<17 = 0x4082_2041.
        assert_eq!(next(1), 0x4082_2041);
        assert_eq!(next(0), 0);
        assert_ne!(seed_state(0), 0);
        assert_eq!(to_unit_float(-1), 16_777_215.0 / 16_777_216.0);
        assert_eq!(to_unit_float(0x0000_0100_0000_0000), 1.0 / 16_777_216.0);
    }

    #[test]
    fn reservoir_picks_only_weighted_indices() {
        assert_eq!(weighted_reservoir_choice(&[], 7), -1);
        assert_eq!(weighted_reservoir_choice(&[0.0, 0.0], 7), -1);
        for seed in 0..64 {
            assert_eq!(weighted_reservoir_choice(&[0.0, 2.0, 0.0], seed), 1);
        }
    }
}
