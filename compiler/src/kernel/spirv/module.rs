//! Module-level declarations: capabilities and extensions, the entry point, built-in
//! inputs, the workgroup-size spec constants and the kernel's global variables (the
//! push-constant block, storage buffers, buffer arrays, images, samplers and acceleration
//! structures) as the [`crate::layout`] step placed them.

use cajeta_runtime::reflection::Access;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{
    AddressingModel, BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel, MemoryModel,
    Op, StorageClass, Word,
};

use super::access::Usage;
use super::{unsupported, Ctx, Res};
use crate::diagnostics::Span;
use crate::ir::{ImageFormat, ScalarType, TextureDim, Type};
use crate::layout::{access_from_usage, BindingKind, BindingSlot, KernelLayout, ParamSlot};

pub(crate) use crate::layout::DEFAULT_WORKGROUP_SIZE;

pub(crate) use super::feature_set::FeatureSet;

/// Where a value is stored, for the small-width storage capabilities.
#[derive(Debug, Clone, Copy)]
enum StoragePlace {
    /// The push-constant block.
    StoragePush,
    /// A storage buffer.
    StorageBuf,
}
use StoragePlace::{StorageBuf, StoragePush};

/// What a resource parameter is bound as.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ResourceKind {
    /// A storage buffer of `elem` lanes (scalars or vectors of it), stored as the SPIR-V
    /// type `storage`.
    Buffer {
        /// Element (lane) type in the IR.
        elem: ScalarType,
        /// SPIR-V type of a stored element (`uint32` for booleans).
        storage: Word,
        /// In the address variant: where its address and length live (`None`: a descriptor).
        address: Option<BufferAddress>,
    },
    /// A buffer array (`KernelBuffer<T>[]`): a runtime-sized array of storage-buffer
    /// descriptors, each a block like [`ResourceKind::Buffer`]'s.
    BufferArray {
        /// Element (lane) type in the IR.
        elem: ScalarType,
        /// SPIR-V type of a stored element.
        storage: Word,
        /// The block type of one buffer.
        block: Word,
        /// The push-constant member holding the number of buffers bound (the layout's).
        count_member: usize,
    },
    /// A storage image.
    Image {
        /// Texel format.
        format: ImageFormat,
        /// The `OpTypeImage`.
        image: Word,
    },
    /// A sampled texture.
    Texture {
        /// Shape.
        dim: TextureDim,
        /// What texels read as (float32, int32, uint32).
        texel: ScalarType,
        /// The `OpTypeImage` (sampled = 1).
        image: Word,
    },
    /// A top-level acceleration structure (`SPV_KHR_ray_query`).
    AccelStruct {
        /// The `OpTypeAccelerationStructureKHR`.
        ty: Word,
    },
    /// A separate sampler.
    Sampler {
        /// The `OpTypeSampler`.
        sampler: Word,
    },
}

/// A buffer parameter addressed through its buffer device address (the address variant).
#[derive(Debug, Clone, Copy)]
pub(crate) struct BufferAddress {
    /// Push-constant member holding the `uint64` address of its block. (A pointer-typed
    /// member would make spirv-val ask for the push-constant capability of the pointee's
    /// 8/16-bit elements.)
    pub(crate) pointer_member: usize,
    /// The `PhysicalStorageBuffer` pointer type to its block.
    pub(crate) pointer_type: Word,
    /// Push-constant member holding its `uint64` element count.
    pub(crate) length_member: usize,
    /// The byte stride of the block's runtime array.
    pub(crate) stride: u32,
}

impl ResourceKind {
    /// The storage class of pointers into a buffer of this kind.
    pub(crate) fn buffer_class(&self) -> StorageClass {
        match self {
            ResourceKind::Buffer {
                address: Some(_), ..
            } => StorageClass::PhysicalStorageBuffer,
            _ => StorageClass::StorageBuffer,
        }
    }
}

/// A descriptor-bound kernel parameter; its binding is its index in [`Globals::resources`].
#[derive(Debug, Clone)]
pub(crate) struct Resource {
    /// Parameter name.
    pub(crate) name: String,
    /// The global variable.
    pub(crate) var: Word,
    /// Buffer or image.
    pub(crate) kind: ResourceKind,
    /// How the kernel uses it.
    pub(crate) access: Access,
    /// For a buffer array: some access indexes it with an index not provably uniform.
    pub(crate) non_uniform: bool,
}

/// One member of the push-constant block.
#[derive(Debug, Clone)]
pub(crate) struct PushMember {
    /// Parameter name.
    pub(crate) name: String,
    /// IR type (a scalar, vector or matrix).
    pub(crate) ty: Type,
    /// SPIR-V type of the member (`uint32` for booleans).
    pub(crate) storage: Word,
    /// std430 byte offset.
    pub(crate) offset: u32,
}

/// Where a kernel parameter lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ParamPlace {
    /// Index into [`Globals::resources`] (= binding number).
    Binding(usize),
    /// Index into [`Globals::push_members`].
    Push(usize),
    /// Index into [`Globals::addressed`].
    Address(usize),
}

/// The module's global declarations.
#[derive(Debug, Default)]
pub(crate) struct Globals {
    /// The three `OpSpecConstant`s (SpecId 0, 1, 2) of the workgroup size.
    pub(crate) workgroup_size: [Word; 3],
    /// The push-constant variable, if the kernel has scalar parameters.
    pub(crate) push_block: Option<Word>,
    /// Push-constant members in parameter order.
    pub(crate) push_members: Vec<PushMember>,
    /// Size of the push-constant block (end of the last member rounded up to 4).
    pub(crate) push_size: u32,
    /// Resource parameters in parameter (= binding) order.
    pub(crate) resources: Vec<Resource>,
    /// Buffer parameters addressed through device addresses (`var` unused), in parameter
    /// order.
    pub(crate) addressed: Vec<Resource>,
    /// Per kernel parameter, where it lives.
    pub(crate) params: Vec<ParamPlace>,
    /// Built-in inputs declared so far.
    builtins: Vec<(BuiltIn, Word)>,
    /// Every global variable with its storage class, in declaration order.
    interface: Vec<(Word, StorageClass)>,
    /// The `GLSL.std.450` import, once used.
    glsl: Option<Word>,
    /// The `NonSemantic.DebugPrintf` import, once a kernel prints.
    debug_printf: Option<Word>,
}

impl Ctx<'_> {
    /// Declares the workgroup-size spec constants and one global per kernel parameter, as
    /// the backend-independent [`KernelLayout`] places them.
    pub(crate) fn declare_globals(&mut self, layout: &KernelLayout, usage: &[Usage]) -> Res<()> {
        self.declare_workgroup_size();
        let kernel = self.kernel;
        for (i, param) in kernel.params().iter().enumerate() {
            let place = match layout.params.get(i) {
                Some(&ParamSlot::Push(p)) => {
                    let slot = &layout.push[p];
                    let storage = self.storage_ir_type(&slot.ty, param.span)?;
                    self.small_storage(&slot.ty, StoragePush)?;
                    self.globals.push_members.push(PushMember {
                        name: slot.name.clone(),
                        ty: slot.ty.clone(),
                        storage,
                        offset: slot.offset,
                    });
                    ParamPlace::Push(self.globals.push_members.len() - 1)
                }
                Some(&ParamSlot::Binding(b)) => {
                    let slot = &layout.bindings[b];
                    self.declare_binding(slot, param.span, usage[i])?
                }
                Some(&ParamSlot::Address(a)) => {
                    let slot = &layout.addressed[a];
                    self.declare_addressed(slot, layout, param.span, usage[i])?
                }
                None => return Err(unsupported(param.span, "internal error: no layout")),
            };
            self.globals.params.push(place);
        }
        // The buffer arrays' hidden counts, after every parameter's member.
        let counts = layout.push.iter().filter(|slot| {
            slot.hidden && matches!(layout.params.get(slot.param), Some(ParamSlot::Binding(_)))
        });
        for slot in counts {
            let storage = self.u32_type();
            self.globals.push_members.push(PushMember {
                name: slot.name.clone(),
                ty: slot.ty.clone(),
                storage,
                offset: slot.offset,
            });
        }
        self.globals.push_size = layout.push_size;
        if !self.globals.push_members.is_empty() {
            self.declare_push_block()?;
        }
        Ok(())
    }

    /// Declares the descriptor variable of one binding of the layout.
    fn declare_binding(&mut self, slot: &BindingSlot, span: Span, usage: Usage) -> Res<ParamPlace> {
        let name = &slot.name;
        Ok(match &slot.kind {
            BindingKind::Buffer {
                elem, lane, stride, ..
            } => {
                // float32 elements updated by compare-exchange loops are stored as their
                // bits, since integer atomics cannot take a float pointer.
                let storage = if usage.bits_view {
                    self.u32_type()
                } else {
                    self.storage_ir_type(elem, span)?
                };
                self.small_storage(elem, StorageBuf)?;
                let block = self.buffer_block_type(storage, *stride);
                let kind = ResourceKind::Buffer {
                    elem: *lane,
                    storage,
                    address: None,
                };
                self.declare_resource(name, block, StorageClass::StorageBuffer, kind, usage)
            }
            BindingKind::StorageImage(format) => {
                let image = self.image_type(*format);
                let kind = ResourceKind::Image {
                    format: *format,
                    image,
                };
                self.declare_resource(name, image, StorageClass::UniformConstant, kind, usage)
            }
            BindingKind::Texture(dim, texel) => {
                let image = self.texture_type(*dim, *texel);
                let kind = ResourceKind::Texture {
                    dim: *dim,
                    texel: *texel,
                    image,
                };
                self.declare_resource(name, image, StorageClass::UniformConstant, kind, usage)
            }
            BindingKind::Sampler => {
                let sampler = self.sampler_type();
                let kind = ResourceKind::Sampler { sampler };
                self.declare_resource(name, sampler, StorageClass::UniformConstant, kind, usage)
            }
            BindingKind::BufferArray { .. } => self.declare_buffer_array(slot, span, usage)?,
            BindingKind::AccelStruct => {
                let ty = self.accel_struct_type();
                self.ray_query_features();
                let kind = ResourceKind::AccelStruct { ty };
                self.declare_resource(name, ty, StorageClass::UniformConstant, kind, usage)
            }
        })
    }

    /// `OpSpecConstant %uint` × 3 (SpecId 0, 1, 2) composed into the `WorkgroupSize`
    /// built-in, so that a launch's `block:` specializes the size without recompiling.
    fn declare_workgroup_size(&mut self) {
        let uint = self.u32_type();
        for (axis, default) in DEFAULT_WORKGROUP_SIZE.into_iter().enumerate() {
            let id = self.b.spec_constant_bit32(uint, default);
            self.b
                .decorate(id, Decoration::SpecId, [Operand::LiteralBit32(axis as u32)]);
            self.b.name(
                id,
                ["workgroup_size_x", "workgroup_size_y", "workgroup_size_z"][axis],
            );
            self.globals.workgroup_size[axis] = id;
        }
        let v3 = self.vector_type(uint, 3);
        let composite = self
            .b
            .spec_constant_composite(v3, self.globals.workgroup_size);
        self.b.decorate(
            composite,
            Decoration::BuiltIn,
            [Operand::BuiltIn(BuiltIn::WorkgroupSize)],
        );
    }

    pub(crate) fn declare_resource(
        &mut self,
        name: &str,
        ty: Word,
        class: StorageClass,
        kind: ResourceKind,
        usage: Usage,
    ) -> ParamPlace {
        let var = self.global_variable(ty, class, name);
        let binding = self.globals.resources.len() as u32;
        self.b
            .decorate(var, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
        self.b
            .decorate(var, Decoration::Binding, [Operand::LiteralBit32(binding)]);
        // An unused resource is reported (and decorated) as read-only.
        let access = access_from_usage(usage.reads, usage.writes);
        // Sampled images and samplers are read-only by type and take no such decoration.
        let buffer = matches!(
            kind,
            ResourceKind::Buffer { .. } | ResourceKind::BufferArray { .. }
        );
        let storage = buffer || matches!(kind, ResourceKind::Image { .. });
        if storage && !access.writes() {
            self.b.decorate(var, Decoration::NonWritable, []);
        }
        if storage && !access.reads() {
            self.b.decorate(var, Decoration::NonReadable, []);
        }
        // A buffer the kernel both reads and writes is `Coherent`: NVIDIA's 580 driver (H200)
        // otherwise moved a load of an element above this invocation's own earlier store to
        // it when a store to another buffer followed (`o[i] = x; t = o[i].x; o1[i] = x;`
        // read 0; tests/device/vector_math.cajeta). Program order within an invocation needs
        // no decoration in SPIR-V, so this only works around the driver; it costs L1 caching
        // of such buffers on NVIDIA.
        if buffer && access.reads() && access.writes() {
            self.b.decorate(var, Decoration::Coherent, []);
        }
        self.globals.resources.push(Resource {
            name: name.to_string(),
            var,
            kind,
            access,
            non_uniform: false,
        });
        ParamPlace::Binding(self.globals.resources.len() - 1)
    }

    fn declare_push_block(&mut self) -> Res<()> {
        let members: Vec<Word> = self
            .globals
            .push_members
            .iter()
            .map(|m| m.storage)
            .collect();
        let block = self.b.type_struct(members);
        self.b.decorate(block, Decoration::Block, []);
        self.b.name(block, "PushConstants");
        for (i, m) in self.globals.push_members.clone().iter().enumerate() {
            self.b.member_decorate(
                block,
                i as u32,
                Decoration::Offset,
                [Operand::LiteralBit32(m.offset)],
            );
            self.b.member_name(block, i as u32, m.name.as_str());
            if let Type::Matrix(..) = m.ty {
                // A matrix member needs its layout spelled out: columns at the std430 stride.
                let column_stride = m.ty.std430_layout().map(|(_, a)| a).unwrap_or(16);
                self.b
                    .member_decorate(block, i as u32, Decoration::ColMajor, []);
                self.b.member_decorate(
                    block,
                    i as u32,
                    Decoration::MatrixStride,
                    [Operand::LiteralBit32(column_stride)],
                );
            }
        }
        let var = self.global_variable(block, StorageClass::PushConstant, "push_constants");
        self.globals.push_block = Some(var);
        Ok(())
    }

    /// Records the 8/16-bit storage capability a buffer element of type `ty` needs.
    pub(crate) fn small_buffer_storage(&mut self, ty: &Type) -> Res<()> {
        self.small_storage(ty, StorageBuf)
    }

    /// Records the 8/16-bit storage capability a stored scalar or vector of `ty` needs.
    fn small_storage(&mut self, ty: &Type, place: StoragePlace) -> Res<()> {
        if let Type::Struct(d) = ty {
            for (_, f) in &d.fields {
                self.small_storage(f, place)?;
            }
            return Ok(());
        }
        let bits = ty.elem_scalar().map(|s| s.bits()).unwrap_or(32);
        let cap = match (bits, place) {
            (8, StoragePush) => Capability::StoragePushConstant8,
            (16, StoragePush) => Capability::StoragePushConstant16,
            (8, StorageBuf) => Capability::StorageBuffer8BitAccess,
            (16, StorageBuf) => Capability::StorageBuffer16BitAccess,
            _ => return Ok(()),
        };
        self.storage_capability(cap);
        Ok(())
    }

    /// Records an 8/16-bit storage capability and, before SPIR-V 1.5 (where both storage
    /// extensions are core), its extension.
    fn storage_capability(&mut self, cap: Capability) {
        self.features.require(cap);
        if self.env.spirv_version() < (1, 5) {
            let ext = match cap {
                Capability::StorageBuffer8BitAccess | Capability::StoragePushConstant8 => {
                    "SPV_KHR_8bit_storage"
                }
                _ => "SPV_KHR_16bit_storage",
            };
            self.features.extension(ext);
        }
    }

    /// An `OpVariable` in the global section (even while a function is being built, when
    /// rspirv's `variable` would put it in the current block).
    pub(crate) fn global_variable(&mut self, ty: Word, class: StorageClass, name: &str) -> Word {
        let ptr = self.pointer_type(class, ty);
        let id = self.b.id();
        self.b
            .module_mut()
            .types_global_values
            .push(Instruction::new(
                Op::Variable,
                Some(ptr),
                Some(id),
                vec![Operand::StorageClass(class)],
            ));
        self.b.name(id, name);
        self.globals.interface.push((id, class));
        id
    }

    /// The `Input` variable of a `v3uint` built-in, declared on first use.
    pub(crate) fn builtin(&mut self, builtin: BuiltIn) -> Word {
        if let Some(&(_, var)) = self.globals.builtins.iter().find(|(b, _)| *b == builtin) {
            return var;
        }
        let uint = self.u32_type();
        let v3 = self.vector_type(uint, 3);
        let var = self.global_variable(v3, StorageClass::Input, &format!("{builtin:?}"));
        self.b
            .decorate(var, Decoration::BuiltIn, [Operand::BuiltIn(builtin)]);
        self.globals.builtins.push((builtin, var));
        var
    }

    /// The `GLSL.std.450` extended instruction set, imported on first use.
    pub(crate) fn glsl(&mut self) -> Word {
        if let Some(id) = self.globals.glsl {
            return id;
        }
        let id = self.b.ext_inst_import("GLSL.std.450");
        self.globals.glsl = Some(id);
        id
    }

    /// The `NonSemantic.DebugPrintf` extended instruction set (with the
    /// `SPV_KHR_non_semantic_info` extension it needs), imported on first use.
    pub(crate) fn debug_printf_set(&mut self) -> Word {
        if let Some(id) = self.globals.debug_printf {
            return id;
        }
        self.features.extension("SPV_KHR_non_semantic_info");
        let id = self.b.ext_inst_import("NonSemantic.DebugPrintf");
        self.globals.debug_printf = Some(id);
        id
    }

    /// The resource a kernel parameter denotes.
    pub(crate) fn resource(&self, param: usize) -> Option<&Resource> {
        match self.globals.params.get(param)? {
            ParamPlace::Binding(i) => self.globals.resources.get(*i),
            ParamPlace::Address(i) => self.globals.addressed.get(*i),
            ParamPlace::Push(_) => None,
        }
    }

    /// The push-constant member index of a scalar kernel parameter.
    pub(crate) fn push_member(&self, param: usize) -> Res<usize> {
        match self.globals.params.get(param) {
            Some(ParamPlace::Push(i)) => Ok(*i),
            _ => Err(unsupported(
                self.kernel.span,
                "internal error: parameter is not a push constant",
            )),
        }
    }

    /// Emits the capabilities, extensions, memory model, entry point and execution mode,
    /// once the functions are lowered and everything they need is known.
    pub(crate) fn finish_module(&mut self, entry: Word) {
        if self.features.has(Capability::ShaderNonUniform) {
            super::buffer_array::propagate_non_uniform(self.b.module_mut());
        }
        let preserve = self.float_controls();
        let caps = self.features.capabilities();
        for cap in super::narrow_caps::unneeded(self.b.module_ref(), |c| caps.contains(&c)) {
            self.features.forget(cap);
        }
        // SPV_KHR_cooperative_matrix requires the Vulkan memory model (coop.rs).
        let model = if self.features.has(Capability::CooperativeMatrixKHR) {
            if super::coop::uses_device_scope(self.b.module_ref()) {
                self.features
                    .require(Capability::VulkanMemoryModelDeviceScope);
                self.features.vulkan_feature("vulkanMemoryModelDeviceScope");
            }
            super::coop::drop_coherent(self.b.module_mut());
            let workgroup = self.const_u32(2);
            super::coop::make_shared_non_private(self.b.module_mut(), workgroup);
            MemoryModel::Vulkan
        } else {
            MemoryModel::GLSL450
        };
        for cap in self.features.capabilities() {
            self.b.capability(cap);
        }
        for ext in self.features.extensions() {
            self.b.extension(ext);
        }
        let addressing = if self.globals.addressed.is_empty() {
            AddressingModel::Logical
        } else {
            AddressingModel::PhysicalStorageBuffer64
        };
        self.b.memory_model(addressing, model);
        // SPIR-V 1.4 made the interface list every global the entry point references;
        // before that it lists only Input/Output variables.
        let all = self.env.spirv_version() >= (1, 4);
        let interface: Vec<Word> = self
            .globals
            .interface
            .iter()
            .filter(|(_, class)| all || matches!(class, StorageClass::Input | StorageClass::Output))
            .map(|(id, _)| *id)
            .collect();
        let name = self.kernel.name.clone();
        self.b
            .entry_point(ExecutionModel::GLCompute, entry, name, interface);
        // Like glslang: the literal size documents the default; the WorkgroupSize built-in
        // (spec constants) overrides it.
        self.b
            .execution_mode(entry, ExecutionMode::LocalSize, DEFAULT_WORKGROUP_SIZE);
        for width in preserve {
            self.b
                .execution_mode(entry, ExecutionMode::SignedZeroInfNanPreserve, [width]);
        }
    }

    /// The float widths whose signed zeros, infinities and NaNs the kernel asks the device to
    /// preserve (SPEC §4: float operations are IEEE operations; without the mode a driver may
    /// fold `x / 0.0f` to 0 or `0.0f * x` to 0). Only where the target is known to honour it
    /// (the `shaderSignedZeroInfNanPreserveFloat*` properties among its features): a
    /// baseline build asks nothing a device may lack.
    fn float_controls(&mut self) -> Vec<u32> {
        let used = [
            (32, true),
            (16, self.features.has(Capability::Float16)),
            (64, self.features.has(Capability::Float64)),
        ];
        let widths: Vec<u32> = used
            .iter()
            .filter(|(w, used)| {
                *used
                    && self
                        .mem
                        .has_feature(&format!("shaderSignedZeroInfNanPreserveFloat{w}"))
            })
            .map(|(w, _)| *w)
            .collect();
        if !widths.is_empty() {
            self.features.require(Capability::SignedZeroInfNanPreserve);
            if self.env.spirv_version() < (1, 4) {
                self.features.extension("SPV_KHR_float_controls");
            }
            for w in &widths {
                self.features.vulkan_feature(match w {
                    16 => "shaderSignedZeroInfNanPreserveFloat16",
                    64 => "shaderSignedZeroInfNanPreserveFloat64",
                    _ => "shaderSignedZeroInfNanPreserveFloat32",
                });
            }
        }
        widths
    }
}
