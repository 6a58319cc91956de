//! Cajeta's device controls in host code: `Device.force(name)` chooses the run's device
//! before its first use, and `Device.kernelAvailable(name)` says whether the program has a
//! kernel of that name the run's device can launch (docs/runtime.md, "Device queries in
//! host code"). Both executors run these (native code hands them over).

use super::eval::{err, internal, Fail, Frame, Interp};
use super::value::{Scalar, Value};

use crate::ir::{DeviceControl, Expr, ExprKind};

impl Interp<'_> {
    /// Evaluates `Device.force(name)` or `Device.kernelAvailable(name)` (expression `e`).
    pub(super) fn device_control(
        &mut self,
        f: &mut Frame,
        op: DeviceControl,
        e: &Expr,
    ) -> Result<Value, Fail> {
        let ExprKind::Host { args, .. } = &e.kind else {
            return internal(e.span, format!("{op:?} outside a host operation"));
        };
        let [name] = &args[..] else {
            return internal(e.span, format!("{op:?} takes one name"));
        };
        let name = match self.eval(f, name)? {
            Value::Str(s) => s.to_string(),
            other => return internal(e.span, format!("{op:?} of a {other} value")),
        };
        match op {
            DeviceControl::Force => self.force_device(&name, e),
            DeviceControl::KernelAvailable => {
                Ok(Value::Scalar(Scalar::Bool(self.kernel_available(&name))))
            }
        }
    }

    /// `Device.force(name)`: `vulkan` or `cpu` choose that device for the rest of the run,
    /// before the run has used one; `cuda` and `hip` keep the device (kernels run through
    /// Vulkan here), with a note on stderr, as Cajeta does for a backend it lacks.
    fn force_device(&mut self, name: &str, e: &Expr) -> Result<Value, Fail> {
        let span = e.span;
        let want_cpu = match name {
            "vulkan" => false,
            "cpu" => true,
            "cuda" | "hip" => {
                eprintln!(
                    "note: Device.force(\"{name}\"): kernels run through Vulkan here; the run keeps its device"
                );
                return Ok(Value::Void);
            }
            other => {
                return err(
                    span,
                    format!("Device.force: unknown backend \"{other}\" (vulkan, cpu, cuda, hip)"),
                )
            }
        };
        let on_cpu = self.device.cpu.is_some();
        if want_cpu == on_cpu {
            return Ok(Value::Void);
        }
        if self.device.used.get() {
            return err(
                span,
                format!("Device.force(\"{name}\"): the run has already used its device; force the device before the first buffer, image, texture, stream, launch or device query"),
            );
        }
        if want_cpu {
            match self.device.spare_cpu.take() {
                Some(cpu) => self.device.cpu = Some(cpu),
                None if !crate::driver::cpu_device_available() => {
                    return err(
                        span,
                        "Device.force(\"cpu\"): the cpu device needs LLVM, which this run does not link (`cajetac run --host interp`): run with `--host native` or `--device cpu`",
                    )
                }
                None => {
                    return err(
                        span,
                        "Device.force(\"cpu\"): the program's kernels could not be compiled for the cpu device (run it with `--device cpu` to see why)",
                    )
                }
            }
        } else {
            // The Vulkan context is made at the first device use, as in any run.
            self.device.spare_cpu = self.device.cpu.take();
        }
        Ok(Value::Void)
    }

    /// Whether the program has a kernel named `name` (its simple or `Class.name` form) that
    /// the run's device can launch.
    fn kernel_available(&self, name: &str) -> bool {
        let named = |id: &crate::ir::FunctionId| {
            let function = self.module.function(*id);
            function.name == name || function.qualified_name == name
        };
        match self.device.cpu {
            Some(cpu) => cpu.kernels.keys().any(named),
            None => self.device.kernels.keys().any(named),
        }
    }
}
