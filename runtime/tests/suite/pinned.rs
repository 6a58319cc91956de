//! Transfers through pinned host memory (`Context::pin_host`, `VK_EXT_external_memory_host`):
//! byte-exact round trips through one pin reused many times, a sub-range of the pin, a
//! kernel between the transfers, and misuse refused by name (a range outside the pin, a pin
//! of another context).

use crate::common::*;
use cajeta_runtime::*;

/// A context whose device can pin host memory; `None` (a skip) where it cannot, except in
/// CI, whose lavapipe has the extension.
fn pinning_context() -> Option<Context> {
    let ctx = context()?;
    let probe = vec![0u8; 4096];
    // SAFETY: `probe` outlives the pin, dropped at once.
    let ok = unsafe { ctx.pin_host(probe.as_ptr(), probe.len()) }.is_some();
    let has = ctx
        .device_info()
        .extensions
        .iter()
        .any(|e| e == "VK_EXT_external_memory_host");
    assert_eq!(
        ok, has,
        "pin_host must work exactly where the extension is offered"
    );
    assert!(
        ok || !in_ci(),
        "CI=true but the device cannot pin host memory"
    );
    ok.then_some(ctx)
}

#[test]
fn a_pinned_array_round_trips_byte_for_byte_many_times() {
    let Some(ctx) = pinning_context() else {
        return;
    };
    let s = ctx.default_stream();
    let len = (3 << 20) + 12;
    let mut host = vec![0u8; len];
    // SAFETY: `host` is neither freed nor reallocated while `pin` lives (dropped first).
    let pin = unsafe { ctx.pin_host(host.as_ptr(), host.len()) }.expect("pinned");
    assert!(pin.covers(&host) && pin.len() == len);
    let buf = ctx.create_buffer(len as u64).unwrap();
    for round in 0..4u32 {
        let data = pattern(len, round + 1);
        host.copy_from_slice(&data);
        s.upload_buffer_pinned(&buf, &host, &pin).unwrap();
        // The upload has finished: the host may reuse the array at once.
        host.fill(0xAB);
        s.download_buffer_pinned(&buf, &mut host, &pin).unwrap();
        assert!(
            host == data,
            "round {round}: the pinned round trip changed bytes"
        );
    }
    // A sub-range of the pin, against a staged download of the same buffer.
    let part = ctx.create_buffer(4096).unwrap();
    let data = pattern(4096, 99);
    host[100..4196].copy_from_slice(&data);
    s.upload_buffer_pinned(&part, &host[100..4196], &pin)
        .unwrap();
    let mut back = vec![0u8; 4096];
    s.download_buffer(&part, &mut back).unwrap();
    assert!(back == data);
    drop(pin);
}

#[test]
fn ranges_outside_the_pin_and_foreign_pins_are_refused_by_name() {
    let Some(ctx) = pinning_context() else {
        return;
    };
    let s = ctx.default_stream();
    let host = vec![7u8; 8192];
    let other = vec![0u8; 4096];
    // SAFETY: both vectors outlive the pins.
    let pin = unsafe { ctx.pin_host(host.as_ptr(), 4096) }.expect("pinned");
    let buf = ctx.create_buffer(4096).unwrap();
    let e = s
        .upload_buffer_pinned(&buf, &other, &pin)
        .expect_err("outside the pin");
    assert!(
        e.to_string().contains("not inside the pinned host range"),
        "{e}"
    );
    let e = s
        .upload_buffer_pinned(&buf, &host[4096..], &pin)
        .expect_err("past the pin's end");
    assert!(
        e.to_string().contains("not inside the pinned host range"),
        "{e}"
    );
    let Some(ctx2) = context() else {
        return;
    };
    // SAFETY: as above.
    let pin2 = unsafe { ctx2.pin_host(other.as_ptr(), other.len()) }.expect("pinned");
    let e = s
        .upload_buffer_pinned(&buf, &other, &pin2)
        .expect_err("a pin of another context");
    assert!(e.to_string().contains("different Context"), "{e}");
    // The buffer was never written by the refused calls.
    s.upload_buffer_pinned(&buf, &host[..4096], &pin).unwrap();
    let mut back = vec![0u8; 4096];
    s.download_buffer(&buf, &mut back).unwrap();
    assert!(back.iter().all(|&b| b == 7));
}
