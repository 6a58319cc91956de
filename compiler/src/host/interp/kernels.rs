//! The host run's loaded kernels: each compiled kernel's descriptor module, or its address
//! variant when a launch takes it (`launch.rs` decides; docs/runtime.md, "Buffers past the
//! descriptor range"), loaded on first use.

use cajeta_runtime::Kernel;

use super::device::Device;
use super::eval::{err, internal, Fail};
use crate::diagnostics::Span;
use crate::ir::FunctionId;
use crate::kernel::spirv::{AddressVariant, CompiledKernel};

impl<'a> Device<'a> {
    /// The compiled kernel `id` (its module and reflection, with its address variant).
    pub(super) fn compiled(&self, id: FunctionId) -> Option<&'a CompiledKernel> {
        self.kernels.get(&id)
    }

    /// The loaded kernel `id`, or its address variant (`by_address`, see
    /// [`super::launch`]'s choice), loading it on first use.
    pub(super) fn kernel(
        &mut self,
        id: FunctionId,
        name: &str,
        span: Span,
        by_address: bool,
    ) -> Result<&Kernel, Fail> {
        if !self.loaded.contains_key(&(id, by_address)) {
            let Some(mut compiled) = self.kernels.get(&id) else {
                return err(
                    span,
                    format!("kernel `{name}` has no compiled SPIR-V module"),
                );
            };
            if by_address {
                compiled = match &compiled.by_address {
                    AddressVariant::Compiled(v) => v,
                    AddressVariant::Refused(why) => {
                        return err(
                            span,
                            format!("kernel `{name}` needs its buffer-address variant, which did not compile: {why}"),
                        )
                    }
                    AddressVariant::None => {
                        return internal(span, format!("kernel `{name}` has no address variant"))
                    }
                };
            }
            let kernel = self
                .context(span)?
                .load_kernel(&compiled.words, &compiled.reflection)
                .or_else(|e| err(span, e.to_string()))?;
            self.loaded.insert((id, by_address), kernel);
        }
        match self.loaded.get(&(id, by_address)) {
            Some(k) => Ok(k),
            None => internal(span, "kernel vanished"),
        }
    }
}
