//! Host arrays pinned for direct transfers (both host executors: native code keeps its
//! arrays in the interpreter's storage). A large array transferred a second time is pinned
//! (`Context::pin_host`, the counterpart of CUDA's `cudaHostRegister`): from then on its
//! uploads and downloads are one device copy at the bus's rate instead of a CPU copy through
//! staging memory. The first transfer stays staged, since pinning costs about what one
//! staged transfer does and a one-shot array would gain nothing.
//!
//! A pinned array is held here (a strong reference) so its storage cannot be freed while the
//! device may access it; once the program no longer reaches it (only this registry holds it),
//! the next transfer releases the pin first and then the array. `CAJETA_PIN_HOST=0` turns
//! pinning off; `CAJETA_PIN_HOST_LOG=1` reports each pin on stderr.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use cajeta_runtime::{Context, HostPin};

use super::device::Device;
use super::value::{Array, ArrayRef};
use super::Fail;
use crate::diagnostics::Span;

/// Arrays smaller than this always go through staging (small transfers keep their path);
/// `CAJETA_PIN_MIN_KIB` overrides it (the tests pin small arrays).
const PIN_MIN_BYTES: usize = 16 << 20;

/// The smallest array pinned, from the environment; `None` when pinning is off.
fn threshold_from_env() -> Option<usize> {
    let off = std::env::var("CAJETA_PIN_HOST")
        .is_ok_and(|v| matches!(v.trim(), "0" | "false" | "no" | "off"));
    if off {
        return None;
    }
    Some(
        std::env::var("CAJETA_PIN_MIN_KIB")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .map_or(PIN_MIN_BYTES, |k| k.saturating_mul(1024).max(1)),
    )
}

/// One large array seen by a transfer.
struct Entry {
    /// Declared before `held`: fields drop in order, and the pin must go before the array.
    pin: Option<Rc<HostPin>>,
    /// The array, not kept alive while it is not pinned.
    weak: Weak<RefCell<Array>>,
    /// The array, kept alive while it is pinned.
    held: Option<ArrayRef>,
    /// Transfers of it so far.
    transfers: u32,
}

/// The pins of one run.
pub(crate) struct HostPins {
    entries: Vec<Entry>,
    /// The smallest array pinned (`None`: pinning off), read once per run.
    threshold: Option<usize>,
}

impl Default for HostPins {
    fn default() -> Self {
        HostPins {
            entries: Vec::new(),
            threshold: threshold_from_env(),
        }
    }
}

impl HostPins {
    /// Whether a transfer of `len` bytes may use a pin (`for_transfer` looks further only
    /// then).
    #[cfg(feature = "native-host")]
    pub(super) fn may_pin(&self, len: usize) -> bool {
        self.threshold.is_some_and(|min| len >= min)
    }

    /// The pin to transfer `bytes` (the storage of `array`) through, if it has or now gets
    /// one.
    pub(super) fn for_transfer(
        &mut self,
        ctx: &Context,
        array: &ArrayRef,
        bytes: &[u8],
    ) -> Option<Rc<HostPin>> {
        if self.threshold.is_none_or(|min| bytes.len() < min) {
            return None;
        }
        self.release_unreachable();
        let weak = Rc::downgrade(array);
        let i = match self.entries.iter().position(|e| e.weak.ptr_eq(&weak)) {
            Some(i) => i,
            None => {
                self.entries.push(Entry {
                    weak,
                    held: None,
                    transfers: 0,
                    pin: None,
                });
                self.entries.len() - 1
            }
        };
        let e = &mut self.entries[i];
        e.transfers += 1;
        if let Some(pin) = &e.pin {
            // An array's storage never moves (arrays do not grow), so this always holds.
            if pin.covers(bytes) {
                return Some(pin.clone());
            }
            return None;
        }
        if e.transfers < 2 {
            return None;
        }
        // SAFETY: the entry holds the array from now on, so its storage stays allocated and
        // in place while the pin lives: entries drop their pin before their array.
        let pin = unsafe { ctx.pin_host(bytes.as_ptr(), bytes.len()) }.map(Rc::new);
        if pin.is_some() {
            e.held = Some(array.clone());
            if std::env::var_os("CAJETA_PIN_HOST_LOG").is_some() {
                eprintln!("cajeta: pinned a host array of {} bytes", bytes.len());
            }
        }
        e.pin.clone_from(&pin);
        pin
    }

    /// Forgets arrays the program can no longer reach: a pinned one's pin goes first, then
    /// the array; an unpinned one is already gone.
    fn release_unreachable(&mut self) {
        self.entries.retain_mut(|e| match &e.held {
            Some(a) if Rc::strong_count(a) == 1 => {
                e.pin = None;
                e.held = None;
                false
            }
            Some(_) => true,
            None => e.weak.strong_count() > 0,
        });
    }
}

impl Drop for HostPins {
    fn drop(&mut self) {
        // Pins before the arrays they pin.
        for e in &mut self.entries {
            e.pin = None;
        }
    }
}

impl Device<'_> {
    /// The pin for a synchronous transfer of `bytes`, the storage of `array` (see
    /// [`HostPins::for_transfer`]).
    pub(super) fn pin_for(
        &mut self,
        span: Span,
        array: &ArrayRef,
        bytes: &[u8],
    ) -> Result<Option<Rc<HostPin>>, Fail> {
        let ctx = self.context(span)?.clone();
        Ok(self.pins.for_transfer(&ctx, array, bytes))
    }
}
