//! The capabilities, extensions and Vulkan features a module needs, collected while lowering
//! and written into the module header and the reflection.

use std::collections::BTreeSet;

use rspirv::spirv::Capability;

/// Capabilities and extensions the module uses, collected while lowering.
#[derive(Debug, Default)]
pub(crate) struct FeatureSet {
    caps: BTreeSet<Capability>,
    exts: BTreeSet<&'static str>,
    /// Vulkan features needed beyond what the capabilities imply (atomics on 64-bit or
    /// float elements need per-storage-class features).
    feats: BTreeSet<&'static str>,
    /// Cooperative-matrix shapes multiplied in (`mulAdd`), for the reflection.
    coop_shapes: Vec<cajeta_runtime::CoopMatrixShape>,
}

impl FeatureSet {
    /// Records a cooperative-matrix shape the module multiplies in.
    pub(crate) fn coop_shape(&mut self, shape: cajeta_runtime::CoopMatrixShape) {
        if !self.coop_shapes.contains(&shape) {
            self.coop_shapes.push(shape);
        }
    }

    /// The cooperative-matrix shapes recorded, in first-use order.
    pub(crate) fn coop_shapes(&self) -> &[cajeta_runtime::CoopMatrixShape] {
        &self.coop_shapes
    }

    /// Records a capability (`Shader` is always present and need not be recorded).
    pub(crate) fn require(&mut self, cap: Capability) {
        self.caps.insert(cap);
    }

    /// Forgets a capability the finished module turned out not to need.
    pub(crate) fn forget(&mut self, cap: Capability) {
        self.caps.remove(&cap);
    }

    /// Records an extension.
    pub(crate) fn extension(&mut self, ext: &'static str) {
        self.exts.insert(ext);
    }

    /// Records a Vulkan device feature the module needs (by its Vulkan name).
    pub(crate) fn vulkan_feature(&mut self, feature: &'static str) {
        self.feats.insert(feature);
    }

    /// Whether a capability was recorded.
    pub(crate) fn has(&self, cap: Capability) -> bool {
        self.caps.contains(&cap)
    }

    /// All capabilities, `Shader` first, then in SPIR-V enumerant order.
    pub(crate) fn capabilities(&self) -> Vec<Capability> {
        let mut caps = vec![Capability::Shader];
        caps.extend(
            self.caps
                .iter()
                .copied()
                .filter(|&c| c != Capability::Shader),
        );
        caps
    }

    /// All extensions, sorted.
    pub(crate) fn extensions(&self) -> Vec<&'static str> {
        self.exts.iter().copied().collect()
    }

    /// The Vulkan device features the capabilities need, in capability order.
    pub(crate) fn vulkan_features(&self) -> Vec<&'static str> {
        self.caps
            .iter()
            .filter_map(|cap| match cap {
                Capability::Int64 => Some("shaderInt64"),
                Capability::Float64 => Some("shaderFloat64"),
                Capability::Int16 => Some("shaderInt16"),
                Capability::Float16 => Some("shaderFloat16"),
                Capability::BFloat16TypeKHR => Some("shaderBFloat16Type"),
                Capability::BFloat16CooperativeMatrixKHR => Some("shaderBFloat16CooperativeMatrix"),
                Capability::Int8 => Some("shaderInt8"),
                Capability::StorageBuffer16BitAccess => Some("storageBuffer16BitAccess"),
                Capability::StorageBuffer8BitAccess => Some("storageBuffer8BitAccess"),
                Capability::StoragePushConstant16 => Some("storagePushConstant16"),
                Capability::StoragePushConstant8 => Some("storagePushConstant8"),
                Capability::StorageImageExtendedFormats => {
                    Some("shaderStorageImageExtendedFormats")
                }
                _ => None,
            })
            .chain(self.feats.iter().copied())
            .collect()
    }
}
