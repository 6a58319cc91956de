//! A buffer argument of a kernel's address variant (`ParameterSlot::Address`): instead of a
//! descriptor, its device address (plus a slice's offset) and its element count go into two
//! 8-byte push-constant members (docs/runtime.md, "Buffers past the descriptor range").

use std::sync::Arc;

use super::{KernelArg, PushBlock};
use crate::device::DeviceShared;
use crate::pipeline::Kernel;
use crate::reflection::{Access, PushConstantBlock};
use crate::resources::Buffer;
use crate::sync::{Handle, Usage};

/// The fields of a `ParameterSlot::Address`.
pub(super) struct AddressSlot {
    pub(super) address_member: usize,
    pub(super) length_member: usize,
    pub(super) element_stride: u32,
    pub(super) access: Access,
}

/// Checks `arg` for the addressed parameter `name`, writes its address and count into
/// `push` and records its hazard-tracked usage.
#[allow(clippy::too_many_arguments)]
pub(super) fn bind(
    shared: &DeviceShared,
    kernel: &Kernel,
    name: &str,
    arg: &KernelArg<'_>,
    slot: &AddressSlot,
    block: &PushConstantBlock,
    push: &mut PushBlock,
    usages: &mut Vec<Usage>,
) -> Result<(), String> {
    let KernelArg::Buffer(buf) = arg else {
        return Err(format!(
            "parameter `{name}` expects a buffer, got {}",
            arg.describe()
        ));
    };
    let (address, count) = buffer_address(shared, kernel, name, buf, slot.element_stride)?;
    usages.push(Usage::shader(
        buf.id(),
        Handle::Buffer(buf.inner.raw.buffer),
        slot.access.reads(),
        slot.access.writes(),
    ));
    for (member, value) in [(slot.address_member, address), (slot.length_member, count)] {
        let Some(m) = block.members.get(member) else {
            return Err(format!(
                "parameter `{name}` points at missing push constant {member}"
            ));
        };
        let start = m.offset as usize;
        match push.as_mut_slice().get_mut(start..start + 8) {
            Some(dst) => dst.copy_from_slice(&value.to_le_bytes()),
            None => {
                return Err(format!(
                    "parameter `{name}` overruns the push-constant block"
                ))
            }
        }
    }
    Ok(())
}

/// The device address of `buf` (a slice's first byte) and its element count at `stride`
/// bytes per element, for a parameter the kernel addresses through its address.
fn buffer_address(
    shared: &DeviceShared,
    kernel: &Kernel,
    name: &str,
    buf: &Buffer,
    stride: u32,
) -> Result<(u64, u64), String> {
    if !Arc::ptr_eq(&buf.inner.shared, &kernel.inner.shared) {
        return Err(format!(
            "parameter `{name}`: the buffer belongs to a different Context"
        ));
    }
    if !shared.buffer_address || buf.inner.device_address == 0 {
        return Err(format!(
            "parameter `{name}`: the kernel addresses its buffer through a buffer device address, but this context was made without the bufferDeviceAddress feature (the device lacks it, or the context's feature list left it out)"
        ));
    }
    let align = shared.raw_limits.min_storage_buffer_offset_alignment;
    if align > 0 && !buf.offset().is_multiple_of(align) {
        return Err(format!(
            "parameter `{name}`: a buffer slice at byte offset {} is not bound: offsets must be multiples of minStorageBufferOffsetAlignment = {align}",
            buf.offset()
        ));
    }
    Ok((
        buf.inner.device_address + buf.offset(),
        buf.size() / u64::from(stride.max(1)),
    ))
}
