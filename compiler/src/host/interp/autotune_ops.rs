//! Cajeta's `Autotune` operations in host code: the run's device name and the key, looked
//! up in the run's store (host/autotune.rs).

use super::eval::{internal, Fail, Frame, Interp};
use super::value::{Scalar, Value};
use crate::ir::{AutotuneOp, Expr, HostDeviceQuery};

impl Interp<'_> {
    /// `Autotune.recall(key)` (the stored value as int64, [`AutotuneOp::ABSENT`] when none
    /// is), `remember(key, value)` and `claimOnce(key)`.
    pub(super) fn autotune_op(
        &mut self,
        f: &mut Frame,
        op: AutotuneOp,
        args: &[Expr],
        e: &Expr,
    ) -> Result<Value, Fail> {
        let values = self.eval_all(f, args)?;
        let key = match values.first() {
            Some(Value::Str(k)) => k.to_string(),
            _ => return internal(e.span, "an Autotune key that is not a String"),
        };
        let device = match self.device_query(HostDeviceQuery::Name, e)? {
            Value::Str(name) => name.to_string(),
            _ => return internal(e.span, "a device name that is not a String"),
        };
        match (op, values.get(1)) {
            (AutotuneOp::Recall, _) => {
                let value = self.autotune.recall(&device, &key);
                let bits = value.map_or(AutotuneOp::ABSENT, i64::from);
                Ok(Value::Scalar(Scalar::I64(bits)))
            }
            (AutotuneOp::Remember, Some(Value::Scalar(Scalar::I32(v)))) => {
                self.autotune.remember(&device, &key, *v);
                Ok(Value::Void)
            }
            (AutotuneOp::Remember, _) => internal(e.span, "Autotune.remember without an int32"),
            (AutotuneOp::ClaimOnce, _) => Ok(Value::Scalar(Scalar::Bool(
                self.autotune.claim_once(&device, &key),
            ))),
        }
    }
}
