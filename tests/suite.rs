//! The cajetac test suites, one module each, linked into one test binary. Run one suite with
//! a filter on its module name, e.g. `cargo test -p cajeta-tests -- golden::`.

mod big_buffers;
mod buffer_arrays;
mod build_time;
mod cajeta_annotations;
mod cajeta_forms;
mod cajeta_sync_forms;
mod checked;
mod checked_access;
mod concurrency;
mod coop_shapes;
mod cpu_device;
mod cpu_differential;
mod cpu_programs;
mod device;
mod device_memory;
mod device_profiles;
mod device_query_values;
mod diagnostics;
mod differential;
mod examples;
mod float_controls;
mod fuzz_campaign;
mod golden;
mod host_io;
mod int_precision;
mod kernel_printf;
mod llvm_backend;
mod pinned_transfers;
mod pipeline_example;
mod precision_device;
mod precision_golden;
mod precision_local;
mod ray_query;
mod soak;
mod transfer_chunks;
