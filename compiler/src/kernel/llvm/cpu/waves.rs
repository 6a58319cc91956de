//! Subgroup (`Wave`) operations on the CPU device, whose subgroup is one invocation
//! (docs/cpu-device.md, "Subgroups"): Vulkan allows a subgroup size of 1, and with it every
//! operation has its one-lane meaning. The lane is 0 and the first, the width 1; a reduction,
//! an inclusive scan, a broadcast, a shuffle or a rotation gives the
//! invocation's own value; an exclusive scan gives the operation's identity (0 for a sum, 1
//! for a product); a vote gives the predicate and a ballot its bit 0. A workgroup has as many
//! subgroups as invocations, the subgroup id being the invocation's local index. Quad
//! operations are refused: a quad is four lanes of one subgroup, which a subgroup of one
//! does not have.

use super::hooks::{LOCAL_ID, WORKGROUP_SIZE};
use crate::diagnostics::Diagnostic;
use crate::ir::{Expr, WaveOp};
use crate::kernel::llvm::lower::{FnLower, Val};
use crate::kernel::llvm::refuse;

type Res<T> = Result<T, Diagnostic>;

impl FnLower<'_> {
    /// `op` on a subgroup of one invocation.
    pub(crate) fn cpu_wave(&mut self, op: WaveOp, args: &[Expr], e: &Expr) -> Res<Val> {
        let constant = |v: &str| Ok(Val::new(v.to_string(), "i32"));
        match op {
            WaveOp::Width => return constant("1"),
            WaveOp::LaneId => return constant("0"),
            WaveOp::IsFirstLane => return Ok(Val::new("true".to_string(), "i1")),
            WaveOp::Id => return Ok(self.cpu_local_index()),
            WaveOp::Count => return Ok(self.cpu_workgroup_invocations()),
            WaveOp::QuadBroadcast
            | WaveOp::QuadAny
            | WaveOp::QuadAll
            | WaveOp::QuadSwapHorizontal
            | WaveOp::QuadSwapVertical
            | WaveOp::QuadSwapDiagonal => {
                return Err(super::refuse_cpu(
                    e.span,
                    "quad operations (`Quad.*`: the cpu device's subgroup is one invocation, not a quad)",
                ))
            }
            // Args `[segment, op, v]`: a span of one lane combines nothing.
            WaveOp::ReduceSegmented => {
                let [segment, _op, v] = args else {
                    return Err(refuse(e.span, "a malformed subgroup operation"));
                };
                self.expr(segment)?;
                return self.expr(v);
            }
            _ => {}
        }
        // Every other operation reads its first argument; the others (a lane, a delta) are
        // evaluated for their effects and do not change a one-lane result.
        let Some(first) = args.first() else {
            return Err(refuse(e.span, "a malformed subgroup operation"));
        };
        let v = self.expr(first)?;
        for a in &args[1..] {
            self.expr(a)?;
        }
        match op {
            WaveOp::Ballot => {
                let t = self.tmp();
                self.emit(format!("{t} = zext i1 {} to i32", v.text));
                Ok(Val::new(t, "i32"))
            }
            WaveOp::PrefixSum => Ok(Val::new(identity(v.ty, false), v.ty)),
            WaveOp::PrefixProduct => Ok(Val::new(identity(v.ty, true), v.ty)),
            _ => Ok(v),
        }
    }

    /// The invocation's index in its workgroup: x fastest, then y, then z.
    pub(crate) fn cpu_local_index(&mut self) -> Val {
        let [x, y, z] = [0, 1, 2].map(|a| self.cpu_id(LOCAL_ID, a));
        let [sx, sy] = [0, 1].map(|a| self.cpu_id(WORKGROUP_SIZE, a));
        let [zy, plane, row, r] = self.tmps();
        self.emit(format!("{zy} = mul i32 {}, {}", z.text, sy.text));
        self.emit(format!("{plane} = add i32 {zy}, {}", y.text));
        self.emit(format!("{row} = mul i32 {plane}, {}", sx.text));
        self.emit(format!("{r} = add i32 {row}, {}", x.text));
        Val::new(r, "i32")
    }

    /// The invocations of a workgroup (each its own subgroup).
    fn cpu_workgroup_invocations(&mut self) -> Val {
        let [x, y, z] = [0, 1, 2].map(|a| self.cpu_id(WORKGROUP_SIZE, a));
        let [xy, r] = self.tmps();
        self.emit(format!("{xy} = mul i32 {}, {}", x.text, y.text));
        self.emit(format!("{r} = mul i32 {xy}, {}", z.text));
        Val::new(r, "i32")
    }
}

/// The identity of a sum (`product`: of a product) as an LLVM constant of type `ty`.
fn identity(ty: &str, product: bool) -> String {
    let float = matches!(ty, "half" | "float" | "double" | "bfloat");
    let one = if float { "1.0" } else { "1" };
    if let Some(inner) = ty.strip_prefix('<').and_then(|t| t.strip_suffix('>')) {
        // A vector `<N x elem>`: every lane the identity.
        if !product {
            return "zeroinitializer".to_string();
        }
        let (lanes, elem) = inner.split_once(" x ").unwrap_or(("1", inner));
        let lanes: usize = lanes.trim().parse().unwrap_or(1);
        let e = identity(elem, true);
        return format!("<{}>", vec![format!("{elem} {e}"); lanes].join(", "));
    }
    match (product, float) {
        (true, _) => one.to_string(),
        (false, true) => "0.0".to_string(),
        (false, false) => "0".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::identity;

    #[test]
    fn identities_of_sums_and_products() {
        assert_eq!(identity("i32", false), "0");
        assert_eq!(identity("float", false), "0.0");
        assert_eq!(identity("double", true), "1.0");
        assert_eq!(identity("<4 x i32>", false), "zeroinitializer");
        assert_eq!(identity("<2 x float>", true), "<float 1.0, float 1.0>");
    }
}
