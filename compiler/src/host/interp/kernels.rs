//! The host run's loaded kernels: each compiled kernel's descriptor module, or its address
//! variant when a launch takes it (`launch.rs` decides; docs/runtime.md, "Buffers past the
//! descriptor range"), loaded on first use; and what `k.manifest()` reads of them.

use cajeta_runtime::reflection::Reflection;
use cajeta_runtime::Kernel;

use super::device::Device;
use super::eval::{err, internal, Fail, Interp};
use super::value::{Scalar, Value};
use crate::diagnostics::Span;
use crate::ir::{Expr, FunctionId, Type, KERNEL_MANIFEST_FIELDS};
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

impl Interp<'_> {
    /// Cajeta's `k.manifest()` (`HostOp::KernelManifest`): the library's `KernelManifest` of
    /// kernel `id` (`e`'s POD type), each field ([`KERNEL_MANIFEST_FIELDS`]) read from the
    /// reflection of the kernel compiled for the run's device.
    pub(super) fn kernel_manifest(&mut self, id: FunctionId, e: &Expr) -> Result<Value, Fail> {
        let reflection: Option<&Reflection> = match self.device.cpu {
            Some(cpu) => cpu.kernels.get(&id).map(|k| k.reflection()),
            None => self.device.compiled(id).map(|k| &k.reflection),
        };
        let name = self
            .module
            .functions
            .get(id.0)
            .map_or("?", |f| f.name.as_str());
        let Some(r) = reflection else {
            return err(
                e.span,
                format!("kernel `{name}` has no compiled module to read a manifest from"),
            );
        };
        let Type::Struct(def) = &e.ty else {
            return internal(e.span, "a manifest that is not a POD");
        };
        let [x, y, z] = r.default_workgroup_size;
        let fields = def
            .fields
            .iter()
            .map(|(field, _)| {
                Ok(Value::Scalar(match field.as_str() {
                    "workgroupSizeX" => Scalar::I32(x as i32),
                    "workgroupSizeY" => Scalar::I32(y as i32),
                    "workgroupSizeZ" => Scalar::I32(z as i32),
                    "bindings" => Scalar::I32(r.bindings.len() as i32),
                    "pushConstantBytes" => Scalar::I32(r.push_constants.size as i32),
                    "sharedBytes" => Scalar::I64(i64::from(r.static_shared_bytes)),
                    // Vulkan reports neither (Cajeta's "not reported").
                    "registers" | "spills" => Scalar::I32(0),
                    other => {
                        return internal(e.span, format!("KernelManifest has no field `{other}`"))
                    }
                }))
            })
            .collect::<Result<Vec<Value>, Fail>>()?;
        debug_assert_eq!(fields.len(), KERNEL_MANIFEST_FIELDS.len());
        Ok(Value::Struct(fields.into()))
    }
}
