//! Builds the reflection document (SPEC §7) from the backend-independent layout
//! ([`crate::layout`]) plus what lowering found (capabilities, spec constants), so the
//! runtime never recomputes a layout.

use cajeta_runtime::reflection::Reflection;

use super::Ctx;
use crate::layout::{reflect_interface, KernelLayout, DEFAULT_WORKGROUP_SIZE, PSC_SPEC_BASE};

/// The reflection of the finished module in `cx`, laid out as `layout` says.
pub(crate) fn build(cx: &Ctx, layout: &KernelLayout) -> Reflection {
    let (major, minor) = cx.env.spirv_version();
    let access: Vec<_> = cx.globals.resources.iter().map(|r| r.access).collect();
    let address_access: Vec<_> = cx.globals.addressed.iter().map(|r| r.access).collect();
    let mut interface = reflect_interface(layout, cx.kernel.params(), &access, &address_access);
    // Whether a buffer array is indexed non-uniformly is known only once lowered.
    for (binding, r) in interface.bindings.iter_mut().zip(&cx.globals.resources) {
        if let Some(array) = &mut binding.array {
            array.non_uniform = r.non_uniform;
        }
    }
    let mut spec_constants = interface.workgroup_spec_constants;
    spec_constants.extend(cx.mem.spec_constants());
    spec_constants.extend(interface.buffer_array_spec_constants);
    let mut parameters = interface.parameters;
    for (i, p) in parameters.iter_mut().enumerate() {
        p.psc_spec_id = cx
            .mem
            .psc
            .contains_key(&i)
            .then_some(PSC_SPEC_BASE + i as u32);
    }
    Reflection {
        entry_point: cx.kernel.name.clone(),
        spirv_version: format!("{major}.{minor}"),
        target_env: cx.env.name().to_string(),
        workgroup_size_spec_ids: [0, 1, 2],
        default_workgroup_size: DEFAULT_WORKGROUP_SIZE,
        bindings: interface.bindings,
        push_constants: interface.push_constants,
        spec_constants,
        capabilities: cx
            .features
            .capabilities()
            .iter()
            .map(|c| format!("{c:?}"))
            .collect(),
        extensions: cx
            .features
            .extensions()
            .iter()
            .map(|e| e.to_string())
            .collect(),
        vulkan_features: cx
            .features
            .vulkan_features()
            .iter()
            .map(|f| f.to_string())
            .collect(),
        precision_variant: "fp32".to_string(),
        parameters,
        static_shared_bytes: cx.mem.static_shared_bytes,
        bounds_check: super::bounds::reflection(cx),
        required_subgroup_size: cx.kernel.wave_width,
        coop_matrix_shapes: cx.features.coop_shapes().to_vec(),
    }
}
