//! The Vulkan device kind: the instance, physical-device selection and the logical device,
//! features, memory, resources and textures, transfers, pipelines, streams, events, hazard
//! tracking and the command batches they record into. The crate root re-exports these modules
//! by their former names, so `crate::device::…` and the public API paths stay as they were.

pub(crate) mod acceleration;
pub(crate) mod batch;
pub(crate) mod bfloat16;
pub(crate) mod buffer_address;
pub(crate) mod cache;
pub(crate) mod coop_matrix2;
pub(crate) mod coop_shapes;
pub(crate) mod descriptors;
pub(crate) mod device;
pub(crate) mod event;
pub(crate) mod feature_names;
pub(crate) mod features;
pub(crate) mod instance;
pub(crate) mod kernel_layout;
pub(crate) mod kernel_needs;
pub(crate) mod kernel_printf;
pub(crate) mod logical_device;
pub(crate) mod memory;
pub(crate) mod peer;
pub(crate) mod pipeline;
pub(crate) mod pipeline_stats;
pub(crate) mod profile;
pub(crate) mod queues;
pub(crate) mod resources;
pub(crate) mod stream;
pub(crate) mod sync;
pub(crate) mod texture;
pub(crate) mod transfer;
pub(crate) mod transfer_chunked;
pub(crate) mod transfer_import;
