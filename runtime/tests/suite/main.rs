//! The runtime's device tests, one module each, linked into one test binary (one link
//! instead of six). Run one with a filter on its module name, e.g.
//! `cargo test -p cajeta-runtime --test suite -- textures::`.

mod common;

/// Large blocks come from the driver while a test provides a context (`host_memory.rs`).
#[global_allocator]
static ALLOCATOR: cajeta_runtime::HostMemoryAllocator = cajeta_runtime::HostMemoryAllocator;

mod acceleration;
mod buffers;
mod chunked;
mod errors;
mod faults;
mod host_memory;
mod images;
mod peer;
mod pinned;
mod queues;
mod streams;
mod textures;
