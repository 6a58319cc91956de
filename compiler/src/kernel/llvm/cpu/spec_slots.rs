//! The `Spec` slots a CPU kernel reads, for its reflection: the host packs a launch's
//! `spec: [...]` values by the slot types found there (`Spec.getf` slots take float bits,
//! so `spec: [-2, 4]` gives slot 1 the float 4.0), as it does for the SPIR-V backends,
//! whose emitted `OpSpecConstant`s list them. The CPU target emits no such instruction
//! (a slot is a read of the invocation context), so the slots are found in the IR: the
//! kernel's and those of every function it calls.

use std::cell::RefCell;

use crate::ir::{self, Constant, ExprKind, FunctionId, Intrinsic};
use crate::layout::USER_SPEC_BASE;

/// The reflection entries of the `Spec` slots kernel `kernel_id` reads, by slot, with the
/// names, types and default bits the SPIR-V backends give them.
pub(super) fn user_spec_constants(
    module: &ir::Module,
    kernel_id: FunctionId,
) -> Vec<cajeta_runtime::SpecConstant> {
    let found = RefCell::new(Vec::<cajeta_runtime::SpecConstant>::new());
    let calls = RefCell::new(vec![kernel_id]);
    let mut seen = vec![kernel_id];
    loop {
        // Popped in a statement of its own: the walk below pushes onto `calls`.
        let next = calls.borrow_mut().pop();
        let Some(id) = next else {
            break;
        };
        let Some(f) = module.functions.get(id.0) else {
            continue;
        };
        ir::visit::find_expr(&f.body, &|e| {
            match &e.kind {
                ExprKind::Call { func, .. } => calls.borrow_mut().push(*func),
                ExprKind::Intrinsic { op, args } => {
                    if let Some(spec) = slot(*op, args) {
                        let mut found = found.borrow_mut();
                        if !found.iter().any(|s| s.id == spec.id) {
                            found.push(spec);
                        }
                    }
                }
                _ => {}
            }
            false
        });
        calls.borrow_mut().retain(|c| !seen.contains(c));
        seen.extend(calls.borrow().iter().copied());
    }
    let mut out = found.into_inner();
    out.sort_by_key(|s| s.id);
    out
}

/// The entry of one `Spec.geti(slot, default)` / `Spec.getf(slot, default)`.
fn slot(op: Intrinsic, args: &[ir::Expr]) -> Option<cajeta_runtime::SpecConstant> {
    let float = match op {
        Intrinsic::SpecInt => false,
        Intrinsic::SpecFloat => true,
        _ => return None,
    };
    let (Some(ExprKind::Const(Constant::Int(slot))), Some(ExprKind::Const(default))) =
        (args.first().map(|a| &a.kind), args.get(1).map(|a| &a.kind))
    else {
        return None;
    };
    let (ty, default) = match (float, default) {
        (false, Constant::Int(v)) => ("int32", *v as u32),
        (true, Constant::Float(f)) => ("float32", (*f as f32).to_bits()),
        _ => return None,
    };
    Some(cajeta_runtime::SpecConstant {
        id: USER_SPEC_BASE + *slot as u32,
        name: format!("spec_slot_{slot}"),
        ty: ty.to_string(),
        default,
    })
}
