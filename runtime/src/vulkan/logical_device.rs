//! The logical device: its creation, which waits out a driver that is short of resources
//! while other devices of this process are alive, and its destruction.
//!
//! On the H200's driver (580.159), a 16-thread run of the test suite, with twenty-odd
//! contexts alive at once, saw `vkCreateDevice` fail with `VK_ERROR_INITIALIZATION_FAILED`
//! for some of them, with four queues and with one alike: the driver runs out of something
//! per process, and it comes back when another device goes. So a creation that fails that
//! way while other devices of this process live waits for one of them to be destroyed and
//! tries again (first with fewer queues), for up to [`PATIENCE`] (30 s); only then is the failure
//! the caller's error. With no other device alive it fails at once, as before.

use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use ash::vk;

use crate::error::{vk_err, Result};
use crate::lock;

/// How long a creation refused for want of resources waits for other devices to go.
const PATIENCE: Duration = Duration::from_secs(30);

/// Devices of this process alive now, and the signal that one was destroyed.
static LIVE: Mutex<usize> = Mutex::new(0);
static DESTROYED: Condvar = Condvar::new();

/// The logical device; destroyed on drop (after the allocator, before the instance).
pub(crate) struct LogicalDevice(pub(crate) ash::Device);

impl Drop for LogicalDevice {
    fn drop(&mut self) {
        {
            let _serial = lock(&crate::DRIVER_SERIAL);
            // SAFETY: every object made from the device is gone: they hold Arc<DeviceShared>.
            unsafe { self.0.destroy_device(None) };
        }
        *lock(&LIVE) -= 1;
        DESTROYED.notify_all();
    }
}

/// Whether `e` says the driver is short of something another device may give back.
fn short_of_resources(e: vk::Result) -> bool {
    matches!(
        e,
        vk::Result::ERROR_INITIALIZATION_FAILED
            | vk::Result::ERROR_OUT_OF_DEVICE_MEMORY
            | vk::Result::ERROR_OUT_OF_HOST_MEMORY
            | vk::Result::ERROR_TOO_MANY_OBJECTS
    )
}

/// Creates the device with `queues` queues of its family through `create` (which calls
/// `vkCreateDevice` for a queue count), and returns it with the queue count it got. See the
/// module documentation for what happens when the driver refuses.
pub(crate) fn create(
    queues: usize,
    mut create: impl FnMut(usize) -> std::result::Result<ash::Device, vk::Result>,
) -> Result<(LogicalDevice, usize)> {
    let deadline = Instant::now() + PATIENCE;
    let mut queues = queues.max(1);
    loop {
        // Counted before the call, so that a device being created is never missed by
        // another creation deciding whether to wait.
        *lock(&LIVE) += 1;
        let created = {
            let _serial = lock(&crate::DRIVER_SERIAL);
            create(queues)
        };
        let e = match created {
            Ok(device) => return Ok((LogicalDevice(device), queues)),
            Err(e) => e,
        };
        let mut live = lock(&LIVE);
        *live -= 1;
        DESTROYED.notify_all();
        if !short_of_resources(e) {
            return Err(vk_err("vkCreateDevice")(e));
        }
        if queues > 1 {
            // A device with one queue (the slots then share it) is still a working context.
            queues = 1;
            continue;
        }
        let now = Instant::now();
        if *live == 0 || now >= deadline {
            return Err(vk_err("vkCreateDevice")(e));
        }
        // Wait for another device to go (or a while: one may have gone between the call
        // and this lock), then try again.
        let wait = (deadline - now).min(Duration::from_millis(250));
        drop(DESTROYED.wait_timeout(live, wait));
    }
}
