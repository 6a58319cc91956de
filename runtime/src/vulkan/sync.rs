//! Hazard tracking and the barrier log.
//!
//! The tracker remembers, per resource, the last write and the reads since it, across command
//! buffers and submissions: a fence wait orders host and device but makes no device write
//! visible to a later submission, so barriers are still needed there (and synchronization
//! validation would flag their absence). Before each command the stream asks the tracker for
//! the barriers that command needs; the tracker logs each one as a [`BarrierRecord`] and the
//! stream records them all in one `vkCmdPipelineBarrier`.
//!
//! Rules, per resource a command touches (stage `S`, read access `R`, write access `W`):
//! - image in another layout than the command needs (storage images and their copies use
//!   `GENERAL`; textures `TRANSFER_DST_OPTIMAL` for uploads and `SHADER_READ_ONLY_OPTIMAL` when
//!   sampled; an `Image2D` bound as a texture `SHADER_READ_ONLY_OPTIMAL`): one layout transition,
//!   which also covers every other hazard. From `UNDEFINED` (first use) it waits for nothing
//!   (`TOP_OF_PIPE`, no access); otherwise it waits for the last write (stage and access) and the
//!   reads since (stages). The transition is itself a write, visible only to `S`;
//! - the command reads, and the last write is not yet visible to (`S`, `R`): read-after-write;
//! - the command writes, and there were reads since the last write: write-after-read, an
//!   execution dependency from the readers' stages (those reads already synchronized with the
//!   write before them, so no memory dependency is needed); merged into the read-after-write
//!   barrier when both apply;
//! - the command writes, no reads since, and the last write is not yet visible to (`S`, `W`):
//!   write-after-write;
//! - read-after-read and commands on unrelated resources need nothing.

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use ash::vk;

use crate::resources::{ResourceId, ResourceKind};
use crate::stream::CommandId;

/// The kind of hazard a barrier resolves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Hazard {
    /// A read of data an earlier command wrote.
    ReadAfterWrite,
    /// A write after an earlier write (ordering and availability).
    WriteAfterWrite,
    /// A write after earlier reads (execution dependency only).
    WriteAfterRead,
    /// An image layout change: first use (`UNDEFINED` → `GENERAL`…), or a move between the
    /// layouts of storage, sampling and copies.
    LayoutTransition,
}

/// One resource barrier the runtime recorded, for tests and diagnostics.
#[derive(Debug, Clone, PartialEq)]
pub struct BarrierRecord {
    /// The command the barrier precedes.
    pub before: CommandId,
    /// What that command is: `"launch fill"`, `"upload"`, `"download"`.
    pub before_label: String,
    /// The resource the barrier is for.
    pub resource: ResourceId,
    /// Buffer or image.
    pub resource_kind: ResourceKind,
    /// Which hazard it resolves.
    pub hazard: Hazard,
    /// Source stage mask, e.g. `"COMPUTE_SHADER"`.
    pub src_stage: String,
    /// Destination stage mask.
    pub dst_stage: String,
    /// Source access mask, e.g. `"SHADER_WRITE"`, or `"NONE"`.
    pub src_access: String,
    /// Destination access mask, e.g. `"SHADER_READ|SHADER_WRITE"`.
    pub dst_access: String,
    /// Old image layout for transitions (`"UNDEFINED"`), else `None`.
    pub old_layout: Option<String>,
    /// New image layout for transitions (`"GENERAL"`), else `None`.
    pub new_layout: Option<String>,
}

/// The handle a barrier applies to.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Handle {
    Buffer(vk::Buffer),
    Image(vk::Image),
}

/// How one command touches one resource.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Usage {
    pub id: ResourceId,
    pub handle: Handle,
    pub stage: vk::PipelineStageFlags,
    /// Read access, empty when the command does not read.
    pub read: vk::AccessFlags,
    /// Write access, empty when the command does not write.
    pub write: vk::AccessFlags,
    /// For images: the layout the command needs (ignored for buffers).
    pub layout: vk::ImageLayout,
}

impl Usage {
    /// A compute dispatch touching a resource with the binding's access.
    pub(crate) fn shader(id: ResourceId, handle: Handle, reads: bool, writes: bool) -> Usage {
        Usage {
            id,
            handle,
            stage: vk::PipelineStageFlags::COMPUTE_SHADER,
            read: if reads {
                vk::AccessFlags::SHADER_READ
            } else {
                vk::AccessFlags::empty()
            },
            write: if writes {
                vk::AccessFlags::SHADER_WRITE
            } else {
                vk::AccessFlags::empty()
            },
            layout: vk::ImageLayout::GENERAL,
        }
    }

    /// The same use, needing image layout `layout`.
    pub(crate) fn in_layout(mut self, layout: vk::ImageLayout) -> Usage {
        self.layout = layout;
        self
    }

    /// The source of a copy.
    pub(crate) fn transfer_read(id: ResourceId, handle: Handle) -> Usage {
        Usage {
            id,
            handle,
            stage: vk::PipelineStageFlags::TRANSFER,
            read: vk::AccessFlags::TRANSFER_READ,
            write: vk::AccessFlags::empty(),
            layout: vk::ImageLayout::GENERAL,
        }
    }

    /// The destination of a copy.
    pub(crate) fn transfer_write(id: ResourceId, handle: Handle) -> Usage {
        Usage {
            id,
            handle,
            stage: vk::PipelineStageFlags::TRANSFER,
            read: vk::AccessFlags::empty(),
            write: vk::AccessFlags::TRANSFER_WRITE,
            layout: vk::ImageLayout::GENERAL,
        }
    }

    fn kind(&self) -> ResourceKind {
        match self.handle {
            Handle::Buffer(_) => ResourceKind::Buffer,
            Handle::Image(_) => ResourceKind::Image,
        }
    }

    /// Merges another use of the same resource by the same command (a buffer bound twice).
    /// Two different layouts merge to `GENERAL`, which serves every access (the launch binds
    /// its descriptors with [`merged_layouts`] so they agree).
    fn merge(&mut self, other: &Usage) {
        self.stage |= other.stage;
        self.read |= other.read;
        self.write |= other.write;
        if self.layout != other.layout {
            self.layout = vk::ImageLayout::GENERAL;
        }
    }
}

/// The last write to a resource and where it has been made visible since.
#[derive(Debug, Clone)]
struct Write {
    stage: vk::PipelineStageFlags,
    access: vk::AccessFlags,
    /// (stage, access) pairs a barrier has made this write visible to.
    visible: Vec<(vk::PipelineStageFlags, vk::AccessFlags)>,
}

impl Write {
    fn visible_to(&self, stage: vk::PipelineStageFlags, access: vk::AccessFlags) -> bool {
        access.is_empty()
            || self
                .visible
                .iter()
                .any(|&(s, a)| s.contains(stage) && a.contains(access))
    }
}

/// What the tracker knows about one resource.
#[derive(Debug, Clone, Default)]
struct State {
    write: Option<Write>,
    /// Stages that read since the last write.
    read_stages: vk::PipelineStageFlags,
    /// For images: the current layout (`UNDEFINED` until first use).
    layout: vk::ImageLayout,
}

/// The layout each resource of `usages` ends up in once same-resource uses are merged.
pub(crate) fn merged_layouts(usages: &[Usage]) -> HashMap<ResourceId, vk::ImageLayout> {
    let mut out: HashMap<ResourceId, vk::ImageLayout> = HashMap::new();
    for u in usages {
        out.entry(u.id)
            .and_modify(|l| {
                if *l != u.layout {
                    *l = vk::ImageLayout::GENERAL;
                }
            })
            .or_insert(u.layout);
    }
    out
}

/// The barriers one command needs, ready for a single `vkCmdPipelineBarrier`.
#[derive(Debug, Default)]
pub(crate) struct BarrierBatch {
    pub src_stages: vk::PipelineStageFlags,
    pub dst_stages: vk::PipelineStageFlags,
    pub buffers: Vec<vk::BufferMemoryBarrier<'static>>,
    pub images: Vec<vk::ImageMemoryBarrier<'static>>,
}

impl BarrierBatch {
    /// Whether no barrier is needed.
    pub(crate) fn is_empty(&self) -> bool {
        self.buffers.is_empty() && self.images.is_empty()
    }
}

/// Most barrier records kept; beyond it the oldest chunk is dropped.
const LOG_CAP: usize = 1 << 16;
/// Records per chunk of the barrier log.
const LOG_CHUNK: usize = 1 << 10;

/// The barrier log: the newest records, [`LOG_CAP`] at most, in fixed-size chunks so that
/// growing it never copies records (a launch appends one per barrier; reallocating one long
/// vector cost about 100 instructions per launch, amortized).
#[derive(Debug, Default)]
struct BarrierLog {
    chunks: VecDeque<Vec<RawRecord>>,
}

impl BarrierLog {
    fn push(&mut self, record: RawRecord) {
        match self.chunks.back_mut() {
            Some(chunk) if chunk.len() < LOG_CHUNK => chunk.push(record),
            _ => self.push_to_new_chunk(record),
        }
    }

    #[cold]
    fn push_to_new_chunk(&mut self, record: RawRecord) {
        let mut chunk = if self.chunks.len() >= LOG_CAP / LOG_CHUNK {
            // A long-running program must not grow without bound: the oldest chunk's
            // storage takes the newest records.
            let mut oldest = self.chunks.pop_front().unwrap_or_default();
            oldest.clear();
            oldest
        } else {
            Vec::with_capacity(LOG_CHUNK)
        };
        chunk.push(record);
        self.chunks.push_back(chunk);
    }

    fn iter(&self) -> impl Iterator<Item = &RawRecord> {
        self.chunks.iter().flatten()
    }

    fn clear(&mut self) {
        self.chunks.clear();
    }
}

/// Per-resource hazard state for a whole context, plus the barrier log.
#[derive(Debug, Default)]
pub(crate) struct Tracker {
    states: HashMap<ResourceId, State, BuildHasherDefault<IdHasher>>,
    log: BarrierLog,
    /// Interned labels of the commands planned with a `&str` label (`"upload"`…).
    labels: HashMap<String, Arc<str>>,
    /// Scratch for the merged uses of one command, reused across commands.
    merged: Vec<Usage>,
}

/// Hasher for [`ResourceId`] keys: ids are small, distinct and never reused, so one
/// multiplication spreads them well enough (SipHash costs more than the rest of a lookup).
#[derive(Debug, Default)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A [`BarrierRecord`] before its masks and layouts are turned into names.
#[derive(Debug, Clone)]
struct RawRecord {
    before: CommandId,
    label: Arc<str>,
    resource: ResourceId,
    resource_kind: ResourceKind,
    hazard: Hazard,
    src_stage: vk::PipelineStageFlags,
    dst_stage: vk::PipelineStageFlags,
    src_access: vk::AccessFlags,
    dst_access: vk::AccessFlags,
    layouts: Option<(vk::ImageLayout, vk::ImageLayout)>,
}

impl RawRecord {
    fn named(&self) -> BarrierRecord {
        BarrierRecord {
            before: self.before,
            before_label: self.label.to_string(),
            resource: self.resource,
            resource_kind: self.resource_kind,
            hazard: self.hazard,
            src_stage: flags_name(format!("{:?}", self.src_stage)),
            dst_stage: flags_name(format!("{:?}", self.dst_stage)),
            src_access: flags_name(format!("{:?}", self.src_access)),
            dst_access: flags_name(format!("{:?}", self.dst_access)),
            old_layout: self.layouts.map(|(o, _)| format!("{o:?}")),
            new_layout: self.layouts.map(|(_, n)| format!("{n:?}")),
        }
    }
}

/// Flag masks as `A|B`, or `NONE` when empty (ash's `Debug` prints names joined by ` | `).
fn flags_name(debug: String) -> String {
    if debug.is_empty() {
        "NONE".to_string()
    } else {
        debug.replace(" | ", "|")
    }
}

impl Tracker {
    /// Plans (and logs) the barriers needed before command `before` touching `usages`, and
    /// updates the state as if the command ran. Call only when the command will certainly be
    /// recorded, since the state change cannot be undone.
    pub(crate) fn plan(
        &mut self,
        before: CommandId,
        label: &str,
        usages: &[Usage],
    ) -> BarrierBatch {
        let label = match self.labels.get(label) {
            Some(l) => l.clone(),
            None => {
                let l: Arc<str> = Arc::from(label);
                self.labels.insert(label.to_string(), l.clone());
                l
            }
        };
        let mut batch = BarrierBatch::default();
        self.plan_into(before, &label, usages, &mut batch);
        batch
    }

    /// [`Tracker::plan`] into `batch` (cleared first), so a caller can reuse its vectors, with
    /// a label the caller keeps (a kernel's `"launch NAME"`), which the log records share.
    pub(crate) fn plan_into(
        &mut self,
        before: CommandId,
        label: &Arc<str>,
        usages: &[Usage],
        batch: &mut BarrierBatch,
    ) {
        batch.src_stages = vk::PipelineStageFlags::empty();
        batch.dst_stages = vk::PipelineStageFlags::empty();
        batch.buffers.clear();
        batch.images.clear();
        let mut merged = std::mem::take(&mut self.merged);
        merged.clear();
        for u in usages {
            match merged.iter_mut().find(|m| m.id == u.id) {
                Some(m) => m.merge(u),
                None => merged.push(*u),
            }
        }
        for u in &merged {
            let state = self.states.entry(u.id).or_default();
            let dst_access = u.read | u.write;
            let mut barrier: Option<(Hazard, vk::PipelineStageFlags, vk::AccessFlags)> = None;
            let mut layouts = None;
            if matches!(u.handle, Handle::Image(_)) && state.layout != u.layout {
                let (src_stage, src_access) = if state.layout == vk::ImageLayout::UNDEFINED {
                    (
                        vk::PipelineStageFlags::TOP_OF_PIPE,
                        vk::AccessFlags::empty(),
                    )
                } else {
                    let (ws, wa) = state.write.as_ref().map_or(
                        (vk::PipelineStageFlags::empty(), vk::AccessFlags::empty()),
                        |w| (w.stage, w.access),
                    );
                    let stages = ws | state.read_stages;
                    let stages = if stages.is_empty() {
                        vk::PipelineStageFlags::TOP_OF_PIPE
                    } else {
                        stages
                    };
                    (stages, wa)
                };
                barrier = Some((Hazard::LayoutTransition, src_stage, src_access));
                layouts = Some((state.layout, u.layout));
                state.layout = u.layout;
            } else {
                let raw = match &state.write {
                    Some(w) if !u.read.is_empty() && !w.visible_to(u.stage, u.read) => {
                        Some((w.stage, w.access))
                    }
                    _ => None,
                };
                let war = !u.write.is_empty() && !state.read_stages.is_empty();
                let waw = match &state.write {
                    Some(w) if !u.write.is_empty() && !war && !w.visible_to(u.stage, u.write) => {
                        Some((w.stage, w.access))
                    }
                    _ => None,
                };
                let war_stages = if war {
                    state.read_stages
                } else {
                    vk::PipelineStageFlags::empty()
                };
                barrier = match (raw, waw) {
                    (Some((ws, wa)), _) => Some((Hazard::ReadAfterWrite, ws | war_stages, wa)),
                    (None, Some((ws, wa))) => Some((Hazard::WriteAfterWrite, ws, wa)),
                    (None, None) if war => {
                        Some((Hazard::WriteAfterRead, war_stages, vk::AccessFlags::empty()))
                    }
                    (None, None) => barrier,
                };
            }
            if let Some((hazard, src_stage, src_access)) = barrier {
                // Execution-only (write-after-read) barriers carry no access masks; the rest make
                // the earlier write (or the layout transition) visible to this command's accesses.
                let dst = if hazard == Hazard::WriteAfterRead {
                    vk::AccessFlags::empty()
                } else {
                    dst_access
                };
                batch.src_stages |= src_stage;
                batch.dst_stages |= u.stage;
                match u.handle {
                    Handle::Buffer(buffer) => batch.buffers.push(
                        vk::BufferMemoryBarrier::default()
                            .src_access_mask(src_access)
                            .dst_access_mask(dst)
                            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                            .buffer(buffer)
                            .offset(0)
                            .size(vk::WHOLE_SIZE),
                    ),
                    Handle::Image(image) => {
                        let (old, new) = layouts.unwrap_or((u.layout, u.layout));
                        batch.images.push(
                            vk::ImageMemoryBarrier::default()
                                .src_access_mask(src_access)
                                .dst_access_mask(dst)
                                .old_layout(old)
                                .new_layout(new)
                                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                                .image(image)
                                .subresource_range(color_range()),
                        );
                    }
                }
                // Stored raw and named only when the log is read: launches are hot.
                self.log.push(RawRecord {
                    before,
                    label: label.clone(),
                    resource: u.id,
                    resource_kind: u.kind(),
                    hazard,
                    src_stage,
                    dst_stage: u.stage,
                    src_access,
                    dst_access: dst,
                    layouts,
                });
                if hazard == Hazard::LayoutTransition {
                    // The transition is itself a write (it may rewrite the memory), visible only
                    // where the barrier said and ordered after every earlier access; a later
                    // access elsewhere needs a barrier after it.
                    state.write = Some(Write {
                        stage: u.stage,
                        access: vk::AccessFlags::empty(),
                        visible: vec![(u.stage, dst_access)],
                    });
                    state.read_stages = vk::PipelineStageFlags::empty();
                } else if hazard != Hazard::WriteAfterRead {
                    if let Some(w) = state.write.as_mut() {
                        w.visible.push((u.stage, dst_access));
                    }
                }
            }
            if u.write.is_empty() {
                state.read_stages |= u.stage;
            } else {
                // The new write replaces the old one; its `visible` vector is reused.
                match state.write.as_mut() {
                    Some(w) => {
                        w.stage = u.stage;
                        w.access = u.write;
                        w.visible.clear();
                    }
                    None => {
                        state.write = Some(Write {
                            stage: u.stage,
                            access: u.write,
                            visible: Vec::new(),
                        })
                    }
                }
                state.read_stages = vk::PipelineStageFlags::empty();
            }
        }
        self.merged = merged;
    }

    /// Drops the state of a destroyed resource.
    pub(crate) fn forget(&mut self, id: ResourceId) {
        self.states.remove(&id);
    }

    /// A copy of the barrier log.
    pub(crate) fn log(&self) -> Vec<BarrierRecord> {
        self.log.iter().map(RawRecord::named).collect()
    }

    /// Empties the barrier log (the hazard state is kept).
    pub(crate) fn clear_log(&mut self) {
        self.log.clear();
    }
}

/// Every mip level and layer of a color image (layouts are tracked per image).
pub(crate) fn color_range() -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        base_mip_level: 0,
        level_count: vk::REMAINING_MIP_LEVELS,
        base_array_layer: 0,
        layer_count: vk::REMAINING_ARRAY_LAYERS,
    }
}

#[cfg(test)]
#[path = "sync_tests.rs"]
mod tests;
