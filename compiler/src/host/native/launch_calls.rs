//! The typed C-ABI call native host code makes for a kernel launch (`cajeta_launch`, listed
//! with the other device calls in `device_calls::functions`): the launch's operands read
//! from the generated code's word buffer and object slots, and run straight on the runtime
//! (`Interp::direct_launch`) when they allow, else by the shared `Interp::launch_values`.

use super::bridge::on_interp;
use super::repr::{repr, Repr};
use super::words::Words;
use crate::host::interp::{internal_fail, DirectArg, LaunchOperands, Scalar, Value};
use crate::ir::{Expr, ExprKind};

/// `kernel.launch(stream, grid: […], block: […], …)(args…)` (`e`): `objs` holds the
/// addresses of its object operands in source order (the stream first, then the object
/// arguments), `words` the bits of the others in source order (grid sizes, block sizes,
/// the arguments held in registers, as `words.rs` lays them out, `sharedBytes`, `spec`
/// values).
///
/// # Safety
/// `e` is a launch of the run's module; `objs` and `words` hold what the launch needs.
pub unsafe extern "C" fn cajeta_launch(
    e: *const Expr,
    words: *const i64,
    objs: *const *const Value,
) -> i32 {
    let e = &*e;
    let ExprKind::Launch(l) = &e.kind else {
        return on_interp(|_| internal_fail(e.span, "a launch call of a non-launch"));
    };
    if let Some(ok) = direct_launch(e, l, words, objs) {
        return ok;
    }
    let mut w = Words::new(words);
    let dims: Vec<Scalar> = l.grid.iter().chain(&l.block).map(|x| w.scalar(x)).collect();
    let mut objs = (0..).map(|k| (**objs.add(k)).clone());
    let stream = objs.next().unwrap_or(Value::Void);
    let mut args = Vec::with_capacity(l.args.len());
    for a in &l.args {
        args.push(if repr(&a.ty) == Repr::Object {
            objs.next().unwrap_or(Value::Void)
        } else {
            w.value(&a.ty)
        });
    }
    let shared_bytes = l.shared_bytes.as_ref().map(|x| w.scalar(x));
    let spec = l.spec.iter().map(|x| w.scalar(x)).collect();
    let operands = LaunchOperands {
        stream,
        dims,
        args,
        shared_bytes,
        spec,
    };
    on_interp(|interp| {
        let r = interp.launch_values(l, operands, e.span).map(drop);
        interp.caught(l, r)
    })
}

/// Launch `l` (`e`) by `Interp::direct_launch` when its operands allow: `Some` of the call's
/// status, or `None` for the general path. The grid and block sizes are read into an array
/// on the stack and the arguments borrowed from their slots: nothing is cloned or allocated
/// here.
///
/// # Safety
/// As for [`cajeta_launch`].
unsafe fn direct_launch(
    e: &Expr,
    l: &crate::ir::Launch,
    words: *const i64,
    objs: *const *const Value,
) -> Option<i32> {
    /// Arguments of a launch the direct path takes at most (more: the general path).
    const MAX_ARGS: usize = 16;
    let n_dims = l.grid.len() + l.block.len();
    if n_dims > 6 || l.args.len() > MAX_ARGS {
        return None;
    }
    let mut w = Words::new(words);
    let mut dims = [Scalar::U32(0); 6];
    for (d, x) in dims.iter_mut().zip(l.grid.iter().chain(&l.block)) {
        *d = w.scalar(x);
    }
    let stream: &Value = &**objs;
    let mut next_obj = 1;
    let mut args: [DirectArg<'_>; MAX_ARGS] = std::array::from_fn(|_| DirectArg::Other);
    for (slot, a) in args.iter_mut().zip(&l.args) {
        *slot = match repr(&a.ty) {
            Repr::Object => {
                let v: &Value = &**objs.add(next_obj);
                next_obj += 1;
                DirectArg::Object(v)
            }
            Repr::Scalar(_) => DirectArg::Scalar(w.scalar(a)),
            // Vectors, matrices and PODs: the general path lays out their bytes.
            _ => return None,
        };
    }
    let operands = (stream, &dims[..n_dims], &args[..l.args.len()]);
    let mut direct = false;
    let ok = on_interp(|interp| match interp.direct_launch(l, operands, e.span) {
        Some(r) => {
            direct = true;
            interp.caught(l, r)
        }
        None => Ok(()),
    });
    (direct || ok == 0).then_some(ok)
}
