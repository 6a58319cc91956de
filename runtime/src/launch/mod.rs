//! Launch descriptions and their checking: the launch shape against the device limits, and
//! the arguments against the kernel's reflection (count, kinds, scalar types, image formats),
//! packed into push-constant bytes and descriptor writes. Nothing here touches a command
//! buffer, so a rejected launch leaves the stream exactly as it was.

mod address;
mod args;
mod set_key;

pub(crate) use args::PushBlock;
pub use args::{KernelArg, LaunchConfig, ScalarValue};
pub(crate) use set_key::SetKey;
use std::sync::Arc;

use ash::vk;
use ash::vk::Handle as _;

use crate::device::DeviceShared;
use crate::pipeline::{Kernel, PipelineKey};
use crate::reflection::{DescriptorType, ParameterSlot};
use crate::resources::{Buffer, FormatClass, Image2D, ImageFormat};
use crate::sync::{merged_layouts, Handle, Usage};
use crate::texture::{Sampler, Texture};

/// What [`check_shape`] looks at: grid, block, dynamic shared bytes, the kernel's fixed
/// shared bytes.
pub(crate) type LaunchShape = ([u32; 3], [u32; 3], Option<u32>, u32);

/// A resource bound for one launch.
pub(crate) enum Bound {
    Buffer(Buffer),
    /// Element `.1` of a buffer-array binding.
    ArrayElement(Buffer, u32),
    /// A storage image, or a storage image bound as a sampled texture.
    Image(Image2D, vk::ImageLayout),
    Texture(Texture, vk::ImageLayout),
    Sampler(Sampler),
    /// A top-level acceleration structure (immutable once built: no hazard tracking).
    AccelStruct(crate::acceleration::AccelStruct),
}

/// Checks that a sampled binding's reflected format (if any) reads the same class of values
/// (float, signed, unsigned) as the resource's format.
fn check_sampled_format(
    name: &str,
    reflected: Option<&str>,
    got: ImageFormat,
) -> Result<(), String> {
    let Some(want) = reflected.and_then(ImageFormat::from_reflection_name) else {
        return Ok(());
    };
    if want.class() != got.class() {
        let class = |c: FormatClass| match c {
            FormatClass::Float => "float",
            FormatClass::Sint => "signed integer",
            FormatClass::Uint => "unsigned integer",
        };
        return Err(format!(
            "parameter `{name}` samples {} texels ({want}), got an {got} resource holding {} texels",
            class(want.class()),
            class(got.class())
        ));
    }
    Ok(())
}

/// Checks the buffers of buffer-array parameter `name` and adds one descriptor per element of
/// the binding's `capacity`: the buffers at `0..len`, the first buffer again in the rest (the
/// kernel never indexes past `len`, so every element is valid without partially bound
/// descriptors), and one hazard-tracked usage per buffer with the binding's access.
#[allow(clippy::too_many_arguments)]
fn buffer_array(
    shared: &DeviceShared,
    kernel: &Kernel,
    name: &str,
    binding: u32,
    bufs: &[Buffer],
    capacity: u32,
    bindings: &mut Vec<(u32, vk::DescriptorType, Bound)>,
    usages: &mut Vec<Usage>,
    reads: bool,
    writes: bool,
) -> Result<(), String> {
    let Some(first) = bufs.first() else {
        return Err(format!(
            "parameter `{name}`: an empty buffer array (bind at least one buffer)"
        ));
    };
    if bufs.len() > capacity as usize {
        return Err(format!(
            "parameter `{name}`: {} buffers exceed the array's capacity of {capacity} on this device (at most {} per array; maxPerStageDescriptorStorageBuffers = {})",
            bufs.len(),
            crate::BUFFER_ARRAY_CAPACITY,
            shared.raw_limits.max_per_stage_descriptor_storage_buffers
        ));
    }
    let max = u64::from(shared.raw_limits.max_storage_buffer_range);
    for (k, buf) in bufs.iter().enumerate() {
        if !Arc::ptr_eq(&buf.inner.shared, &kernel.inner.shared) {
            return Err(format!(
                "parameter `{name}`: buffer {k} belongs to a different Context"
            ));
        }
        if buf.size() > max {
            return Err(format!(
                "parameter `{name}`: buffer {k} of {} bytes exceeds maxStorageBufferRange = {max}",
                buf.size()
            ));
        }
        // A buffer listed twice is tracked once: its usage is the same either way.
        if bufs[..k].iter().any(|o| o.id() == buf.id()) {
            continue;
        }
        let handle = Handle::Buffer(buf.inner.raw.buffer);
        usages.push(Usage::shader(buf.id(), handle, reads, writes));
    }
    for e in 0..capacity {
        let buf = bufs.get(e as usize).unwrap_or(first);
        bindings.push((
            binding,
            vk::DescriptorType::STORAGE_BUFFER,
            Bound::ArrayElement(buf.clone(), e),
        ));
    }
    Ok(())
}

/// The pipeline a checked launch runs.
pub(crate) enum PipelineChoice {
    /// Already created (found by the stream's memo or in the kernel's cache).
    Ready(vk::Pipeline),
    /// To be created for this key (its specialization was checked).
    Create(PipelineKey),
}

/// What [`prepare`] fills for one launch (the descriptor bindings, the resources it touches
/// how, the push-constant bytes), plus the stream's memos. One per stream, reused by every
/// launch: a launch allocates nothing and moves no vectors around.
#[derive(Default)]
pub(crate) struct LaunchScratch {
    /// (binding number, descriptor type, resource).
    pub bindings: Vec<(u32, vk::DescriptorType, Bound)>,
    pub usages: Vec<Usage>,
    pub push: PushBlock,
    /// The last launch shape that passed [`check_shape`] on this stream (grid, block, shared
    /// bytes, the kernel's fixed shared bytes): a chain of identical launches checks the
    /// device limits once.
    pub checked_shape: Option<LaunchShape>,
    /// The last unspecialized launch's kernel, block, shared bytes and pipeline: a chain of
    /// launches of one kernel finds its pipeline without building or hashing a key. Holding
    /// the kernel keeps the handle valid and the pointer comparison sound.
    pub last_pipeline: Option<(Kernel, [u32; 3], Option<u32>, vk::Pipeline)>,
}

impl LaunchScratch {
    /// The pipeline of the last launch if `config` launches `kernel` the same way.
    pub(crate) fn known_pipeline(
        &self,
        kernel: &Kernel,
        config: &LaunchConfig,
    ) -> Option<vk::Pipeline> {
        match &self.last_pipeline {
            Some((k, block, shared_bytes, p))
                if config.spec.is_empty()
                    && !config.psc
                    && std::sync::Arc::ptr_eq(&k.inner, &kernel.inner)
                    && *block == config.block
                    && *shared_bytes == config.shared_bytes =>
            {
                Some(*p)
            }
            _ => None,
        }
    }
}

/// Checks the grid, the block and the workgroup memory (the kernel's fixed-size shared arrays,
/// `static_shared_bytes`, plus the launch's dynamic `shared_bytes`) against the device limits.
pub(crate) fn check_shape(
    shared: &DeviceShared,
    config: &LaunchConfig,
    static_shared_bytes: u32,
) -> Result<(), String> {
    let fmt3 = |v: [u32; 3]| format!("[{},{},{}]", v[0], v[1], v[2]);
    let limits = &shared.info.limits;
    if config.grid.contains(&0) {
        return Err(format!("grid {} has a zero dimension", fmt3(config.grid)));
    }
    if config.block.contains(&0) {
        return Err(format!("block {} has a zero dimension", fmt3(config.block)));
    }
    for i in 0..3 {
        let max = limits.max_compute_work_group_count[i];
        if config.grid[i] > max {
            return Err(format!(
                "grid {} exceeds maxComputeWorkGroupCount[{i}] = {max}",
                fmt3(config.grid)
            ));
        }
    }
    for i in 0..3 {
        let max = limits.max_compute_work_group_size[i];
        if config.block[i] > max {
            return Err(format!(
                "block {} exceeds maxComputeWorkGroupSize[{i}] = {max}",
                fmt3(config.block)
            ));
        }
    }
    let invocations = config.block.iter().map(|&b| u64::from(b)).product::<u64>();
    let max = limits.max_compute_work_group_invocations;
    if invocations > u64::from(max) {
        return Err(format!(
            "block {} has {invocations} invocations, exceeding maxComputeWorkGroupInvocations = {max}",
            fmt3(config.block)
        ));
    }
    let max = limits.max_compute_shared_memory_size;
    let fixed = u64::from(static_shared_bytes);
    let total = fixed + u64::from(config.shared_bytes.unwrap_or(0));
    if total > u64::from(max) {
        return Err(match config.shared_bytes {
            Some(bytes) if fixed == 0 => {
                format!("shared_bytes {bytes} exceeds maxComputeSharedMemorySize = {max}")
            }
            Some(bytes) => format!(
                "{total} bytes of shared memory ({fixed} in fixed-size arrays + shared_bytes {bytes}) exceed maxComputeSharedMemorySize = {max}"
            ),
            None => format!(
                "the kernel's shared arrays take {fixed} bytes, exceeding maxComputeSharedMemorySize = {max}"
            ),
        });
    }
    Ok(())
}

/// Checks `args` against the kernel's parameters and packs them into `scratch`'s bindings,
/// usages and push bytes. `known_pipeline` is the stream's memo for this kernel and shape.
pub(crate) fn prepare(
    shared: &DeviceShared,
    kernel: &Kernel,
    config: &LaunchConfig,
    args: &[KernelArg<'_>],
    scratch: &mut LaunchScratch,
    known_pipeline: Option<vk::Pipeline>,
    check: Option<&Buffer>,
) -> Result<PipelineChoice, String> {
    let r = kernel.reflection();
    if args.len() != r.parameters.len() {
        let names: Vec<&str> = r.parameters.iter().map(|p| p.name.as_str()).collect();
        return Err(format!(
            "expected {} argument(s) ({}), got {}",
            r.parameters.len(),
            names.join(", "),
            args.len()
        ));
    }
    // The memo holds only unspecialized launches, so no key is needed to use it. A cached
    // pipeline's key was checked when the pipeline was created.
    let choice = match known_pipeline {
        Some(p) => PipelineChoice::Ready(p),
        None => {
            let mut psc = Vec::new();
            if config.psc {
                crate::psc::entries(r, args, &mut psc)?;
            }
            let key = PipelineKey {
                block: config.block,
                spec: config.spec.clone(),
                shared_bytes: config.shared_bytes,
                psc,
            };
            match kernel.cached_pipeline(&key) {
                Some(p) => PipelineChoice::Ready(p),
                None => {
                    kernel.specialization(&key)?;
                    PipelineChoice::Create(key)
                }
            }
        }
    };
    let LaunchScratch {
        bindings,
        usages,
        push,
        ..
    } = scratch;
    push.reset(r.push_constants.size as usize);
    let mut scalar = [0u8; 8];
    bindings.clear();
    usages.clear();
    for (param, arg) in r.parameters.iter().zip(args) {
        let name = &param.name;
        match param.slot {
            ParameterSlot::Binding(i) => {
                let Some(b) = r.bindings.get(i) else {
                    return Err(format!("parameter `{name}` points at missing binding {i}"));
                };
                let (reads, writes) = (b.access.reads(), b.access.writes());
                if let Some(array) = &b.array {
                    let capacity = kernel.inner.binding_counts.get(i).copied().unwrap_or(0);
                    let KernelArg::Buffers(bufs) = arg else {
                        return Err(format!(
                            "parameter `{name}` expects an array of buffers, got {}",
                            arg.describe()
                        ));
                    };
                    buffer_array(
                        shared, kernel, name, b.binding, bufs, capacity, bindings, usages, reads,
                        writes,
                    )?;
                    let Some(m) = r.push_constants.members.get(array.count_member) else {
                        return Err(format!("parameter `{name}` has no count push constant"));
                    };
                    let start = m.offset as usize;
                    let count = (bufs.len() as u32).to_le_bytes();
                    match push.as_mut_slice().get_mut(start..start + 4) {
                        Some(dst) => dst.copy_from_slice(&count),
                        None => {
                            return Err(format!(
                                "parameter `{name}`'s count overruns the push-constant block"
                            ))
                        }
                    }
                    continue;
                }
                match (b.descriptor_type, arg) {
                    (DescriptorType::StorageBuffer, KernelArg::Buffer(buf)) => {
                        if !std::sync::Arc::ptr_eq(&buf.inner.shared, &kernel.inner.shared) {
                            return Err(format!(
                                "parameter `{name}`: the buffer belongs to a different Context"
                            ));
                        }
                        let max = u64::from(shared.raw_limits.max_storage_buffer_range);
                        if buf.size() > max {
                            return Err(format!(
                                "parameter `{name}`: buffer of {} bytes exceeds maxStorageBufferRange = {max}",
                                buf.size()
                            ));
                        }
                        let align = shared.raw_limits.min_storage_buffer_offset_alignment;
                        if align > 0 && buf.offset() % align != 0 {
                            return Err(format!(
                                "parameter `{name}`: a buffer slice at byte offset {} is not bound: offsets must be multiples of minStorageBufferOffsetAlignment = {align}",
                                buf.offset()
                            ));
                        }
                        let handle = Handle::Buffer(buf.inner.raw.buffer);
                        usages.push(Usage::shader(buf.id(), handle, reads, writes));
                        bindings.push((
                            b.binding,
                            vk::DescriptorType::STORAGE_BUFFER,
                            Bound::Buffer((*buf).clone()),
                        ));
                    }
                    (DescriptorType::StorageImage, KernelArg::Image(img)) => {
                        if !std::sync::Arc::ptr_eq(&img.inner.shared, &kernel.inner.shared) {
                            return Err(format!(
                                "parameter `{name}`: the image belongs to a different Context"
                            ));
                        }
                        let want = b
                            .image_format
                            .as_deref()
                            .and_then(ImageFormat::from_reflection_name)
                            .unwrap_or_default();
                        if img.format() != want {
                            return Err(format!(
                                "parameter `{name}` expects an {want} image, got an {} image",
                                img.format()
                            ));
                        }
                        let handle = Handle::Image(img.inner.raw.image);
                        usages.push(Usage::shader(img.id(), handle, reads, writes));
                        bindings.push((
                            b.binding,
                            vk::DescriptorType::STORAGE_IMAGE,
                            Bound::Image((*img).clone(), vk::ImageLayout::GENERAL),
                        ));
                    }
                    (DescriptorType::SampledImage, KernelArg::Texture(tex)) => {
                        if !std::sync::Arc::ptr_eq(&tex.inner.shared, &kernel.inner.shared) {
                            return Err(format!(
                                "parameter `{name}`: the texture belongs to a different Context"
                            ));
                        }
                        check_sampled_format(name, b.image_format.as_deref(), tex.format())?;
                        if writes {
                            return Err(format!(
                                "parameter `{name}` is a sampled texture but the reflection says the kernel writes it"
                            ));
                        }
                        let layout = vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL;
                        let handle = Handle::Image(tex.inner.raw.image);
                        usages.push(Usage::shader(tex.id(), handle, true, false).in_layout(layout));
                        bindings.push((
                            b.binding,
                            vk::DescriptorType::SAMPLED_IMAGE,
                            Bound::Texture((*tex).clone(), layout),
                        ));
                    }
                    (DescriptorType::SampledImage, KernelArg::Image(img)) => {
                        if !std::sync::Arc::ptr_eq(&img.inner.shared, &kernel.inner.shared) {
                            return Err(format!(
                                "parameter `{name}`: the image belongs to a different Context"
                            ));
                        }
                        if !img.is_sampled() {
                            return Err(format!(
                                "parameter `{name}` is a sampled texture, but the {} image cannot be sampled on this device",
                                img.format()
                            ));
                        }
                        check_sampled_format(name, b.image_format.as_deref(), img.format())?;
                        let layout = vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL;
                        let handle = Handle::Image(img.inner.raw.image);
                        usages.push(Usage::shader(img.id(), handle, true, false).in_layout(layout));
                        bindings.push((
                            b.binding,
                            vk::DescriptorType::SAMPLED_IMAGE,
                            Bound::Image((*img).clone(), layout),
                        ));
                    }
                    (DescriptorType::Sampler, KernelArg::Sampler(smp)) => {
                        if !std::sync::Arc::ptr_eq(&smp.inner.shared, &kernel.inner.shared) {
                            return Err(format!(
                                "parameter `{name}`: the sampler belongs to a different Context"
                            ));
                        }
                        bindings.push((
                            b.binding,
                            vk::DescriptorType::SAMPLER,
                            Bound::Sampler((*smp).clone()),
                        ));
                    }
                    (DescriptorType::SampledImage, other) => {
                        return Err(format!(
                            "parameter `{name}` expects a texture, got {}",
                            other.describe()
                        ));
                    }
                    (DescriptorType::Sampler, other) => {
                        return Err(format!(
                            "parameter `{name}` expects a sampler, got {}",
                            other.describe()
                        ));
                    }
                    (DescriptorType::StorageBuffer, other) => {
                        return Err(format!(
                            "parameter `{name}` expects a buffer, got {}",
                            other.describe()
                        ));
                    }
                    // Loading a ray-query kernel already needed VK_KHR_ray_query (pipeline.rs),
                    // so reaching here means the device can trace against the structure.
                    (DescriptorType::AccelerationStructure, KernelArg::AccelStruct(a)) => {
                        if !std::sync::Arc::ptr_eq(&a.inner.shared, &kernel.inner.shared) {
                            return Err(format!(
                                "parameter `{name}`: the acceleration structure belongs to a different Context"
                            ));
                        }
                        if a.level() != crate::acceleration::AccelLevel::Top {
                            return Err(format!(
                                "parameter `{name}` expects a top-level acceleration structure, got a bottom-level one (instance it in a top-level structure with Context::build_tlas)"
                            ));
                        }
                        bindings.push((
                            b.binding,
                            vk::DescriptorType::ACCELERATION_STRUCTURE_KHR,
                            Bound::AccelStruct((*a).clone()),
                        ));
                    }
                    (DescriptorType::AccelerationStructure, other) => {
                        return Err(format!(
                            "parameter `{name}` expects an acceleration structure, got {}",
                            other.describe()
                        ));
                    }
                    (DescriptorType::StorageImage, other) => {
                        return Err(format!(
                            "parameter `{name}` expects an image, got {}",
                            other.describe()
                        ));
                    }
                }
            }
            ParameterSlot::Address {
                address_member,
                length_member,
                element_stride,
                access,
            } => {
                let slot = address::AddressSlot {
                    address_member,
                    length_member,
                    element_stride,
                    access,
                };
                address::bind(
                    shared,
                    kernel,
                    name,
                    arg,
                    &slot,
                    &r.push_constants,
                    push,
                    usages,
                )?;
            }
            ParameterSlot::PushConstant(i) => {
                let Some(m) = r.push_constants.members.get(i) else {
                    return Err(format!(
                        "parameter `{name}` points at missing push constant {i}"
                    ));
                };
                let bytes: &[u8] = match arg {
                    KernelArg::Scalar(v) if v.type_name() == m.ty => {
                        let len = v.write_le(&mut scalar);
                        &scalar[..len]
                    }
                    KernelArg::Scalar(v) => {
                        return Err(format!(
                            "parameter `{name}` expects {}, got {}",
                            m.ty,
                            v.type_name()
                        ));
                    }
                    KernelArg::Bytes(b) => b,
                    other => {
                        return Err(format!(
                            "parameter `{name}` expects {}, got {}",
                            m.ty,
                            other.describe()
                        ))
                    }
                };
                if bytes.len() != m.size as usize {
                    return Err(format!(
                        "parameter `{name}` ({}) occupies {} bytes in the push-constant block, got {} bytes",
                        m.ty,
                        m.size,
                        bytes.len()
                    ));
                }
                let start = m.offset as usize;
                match push.as_mut_slice().get_mut(start..start + bytes.len()) {
                    Some(dst) => dst.copy_from_slice(bytes),
                    None => {
                        return Err(format!(
                            "parameter `{name}` overruns the push-constant block"
                        ))
                    }
                }
            }
        }
    }
    // Checked mode: the runtime's own violation record. Not hazard-tracked: each launch gets
    // a record no other pending command uses.
    if let (Some(c), Some(buf)) = (&r.bounds_check, check) {
        bindings.push((
            c.binding,
            vk::DescriptorType::STORAGE_BUFFER,
            Bound::Buffer(buf.clone()),
        ));
    }
    // An image bound both as storage and as a texture in one launch stays in GENERAL; the
    // descriptors must name the layout the tracker will put it in.
    let has_images = bindings
        .iter()
        .any(|(_, _, b)| matches!(b, Bound::Image(..) | Bound::Texture(..)));
    if !has_images {
        return Ok(choice);
    }
    let layouts = merged_layouts(usages);
    for (_, _, bound) in bindings.iter_mut() {
        let (id, layout) = match bound {
            Bound::Image(img, l) => (img.id(), l),
            Bound::Texture(tex, l) => (tex.id(), l),
            _ => continue,
        };
        if let Some(&merged) = layouts.get(&id) {
            *layout = merged;
        }
    }
    Ok(choice)
}
