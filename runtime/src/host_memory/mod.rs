//! Host memory shared with a device: allocations the driver makes ([`host_alloc`]), host pages
//! pinned for it ([`host_pin`]) and large copies spread over threads ([`host_copy`]).

pub(crate) mod host_alloc;
pub(crate) mod host_copy;
pub(crate) mod host_pin;
