//! Vector statements of generated programs: two `Vector<T, 4>` locals (`int32`, `uint32` or
//! `float32` lanes) built from scalar expressions and a splat, a few lane-wise operations,
//! swizzles, `min`/`max` (integer lanes: a NaN's is the driver's choice), a comparison mask's
//! `select`, lane stores, and every lane (and, for
//! float lanes, a `dot`) folded into the checksum. The host recomputes the same text, so host vectors (the
//! interpreter and native code) and device vectors must agree bit for bit; float lanes stay
//! whole numbers (only `+ - *`), as for scalars.

use super::gen::Gen;
use super::ty::Ty;

impl Gen<'_> {
    /// Emits one vector statement group into `out`.
    pub(super) fn statement_vector(&mut self, out: &mut Vec<String>) {
        let lane = *self.rng.pick(&[Ty::I32, Ty::U32, Ty::F32]);
        let t = lane.name();
        let vt = format!("Vector<{t}, 4>");
        let (a, b) = (self.fresh("q"), self.fresh("q"));
        // A constant float lane would let the driver fold `0.0f * x` to 0 where host code
        // keeps IEEE's NaN for an infinite x (docs/language.md, IEEE specials): float lanes
        // always involve a variable, as the scalar generator's operands do.
        let var = lane == Ty::F32;
        let lanes: Vec<String> = (0..4).map(|_| self.expr(lane, 2, var).0).collect();
        out.push(format!("{vt} {a} = stack {vt}({});", lanes.join(", ")));
        let (s, _) = self.expr(lane, 2, var);
        out.push(format!("{vt} {b} = stack {vt}({s});"));
        let ops: &[&str] = if lane == Ty::F32 {
            &["+", "-", "*"]
        } else {
            &["+", "-", "*", "&", "|", "^"]
        };
        for _ in 0..self.rng.range(1, 4) {
            let (x, y) = if self.rng.chance(50) {
                (&a, &b)
            } else {
                (&b, &a)
            };
            let op = *self.rng.pick(ops);
            let stmt = match self.rng.below(8) {
                0 | 1 => format!("{x} = {x} {op} {y};"),
                2 => format!("{x} {op}= {y};"),
                3 => {
                    let sw = *self.rng.pick(&["wzyx", "yxwz", "xxyy", "zwxy"]);
                    format!("{x} = {y}.{sw} {op} {x};")
                }
                // Float min/max of a NaN lane are the driver's choice (docs/language.md):
                // integer lanes only.
                4 if lane != Ty::F32 => format!("{x} = {x}.min({y});"),
                5 if lane != Ty::F32 => format!("{x} = {x}.max({y});"),
                4 | 5 => format!("{x} = {y} {op} {x};"),
                6 => {
                    let cmp = *self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
                    format!("{x} = ({x} {cmp} {y}).select({y}, {x});")
                }
                _ => {
                    let l = *self.rng.pick(&["x", "y", "z", "w"]);
                    let (e, _) = self.expr(lane, 2, var);
                    format!("{x}.{l} = {e};")
                }
            };
            out.push(stmt);
        }
        let fold = |e: String| -> String {
            if lane == Ty::F32 {
                format!("acc = acc * ((uint64) 31) + ((uint64) (int64) {e});")
            } else {
                format!("acc = acc * ((uint64) 31) + ((uint64) {e});")
            }
        };
        for v in [&a, &b] {
            for l in ["x", "y", "z", "w"] {
                out.push(fold(format!("{v}.{l}")));
            }
        }
        // `dot` is defined on float vectors only.
        if lane == Ty::F32 && self.rng.chance(50) {
            out.push(fold(format!("{a}.dot({b})")));
        }
    }
}
