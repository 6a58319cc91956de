//! Runs the Rust embedding examples in `examples/rust/` (so CI runs them): each example file
//! is compiled into this test as a module and its `main` is called.

#[allow(dead_code)]
#[path = "../../../examples/rust/saxpy.rs"]
mod saxpy;

#[allow(dead_code)]
#[path = "../../../examples/rust/streams.rs"]
mod streams;

#[allow(dead_code)]
#[path = "../../../examples/rust/blur.rs"]
mod blur;

use cajetac::embed::{Device, Error};

/// A device, or `None` (skip) when there is none outside CI.
fn device() -> Option<Device> {
    match Device::new() {
        Ok(d) => Some(d),
        Err(Error::Runtime(cajeta_runtime::RuntimeError::NoDevice)) => {
            assert!(
                std::env::var("CI").map_or(true, |v| v != "true"),
                "CI=true but no device"
            );
            None
        }
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn saxpy_example_runs() {
    saxpy::main().unwrap();
    if let Some(d) = device() {
        assert_eq!(saxpy::saxpy(&d, 1000).unwrap(), 0.0);
    }
}

#[test]
fn streams_example_runs() {
    streams::main().unwrap();
    if let Some(d) = device() {
        let out = streams::pipeline(&d, 1000).unwrap();
        let want: Vec<u32> = (0..1000u32).map(|i| 9 * i * i).collect();
        assert_eq!(out, want);
    }
}

#[test]
fn blur_example_runs() {
    blur::main().unwrap();
    if let Some(d) = device() {
        assert!(blur::blur(&d, 17, 5).unwrap() < 1e-6);
    }
}

#[test]
fn embed_errors_name_the_problem() {
    let err = cajetac::embed::Program::compile("bad.cajeta", "class {").unwrap_err();
    assert!(
        matches!(err, Error::Compile(ref s) if s.contains("bad.cajeta")),
        "{err}"
    );
    let err = cajetac::embed::Program::load_spv(&[("/no/such.spv", "/no/such.json")]).unwrap_err();
    assert!(
        err.to_string().contains("cannot read `/no/such.spv`"),
        "{err}"
    );
    let p = cajetac::embed::Program::compile(
        "k.cajeta",
        "package t;\nimport cajeta.xpu.*;\npublic final class K {\n    @Kernel\n    public static void k(KernelBuffer<uint32> b) { b[0] = 1; }\n}\n",
    )
    .unwrap();
    assert_eq!(p.kernel_names(), vec!["k"]);
    let err = p.get("nope").unwrap_err();
    assert_eq!(
        err.to_string(),
        "no kernel named `nope` (the program has: k)"
    );
    if let Some(d) = device() {
        let k = d.kernel(&p, "k").unwrap();
        let s = d.stream();
        let err = k
            .launch(&s, [1, 1, 1], [1, 1, 1], cajetac::args![])
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "launch of `k`: expected 1 argument(s) (b), got 0"
        );
        let f = d.buffer::<f32>(4).unwrap();
        let err = k
            .launch(&s, [1, 1, 1], [1, 1, 1], cajetac::args![&f])
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "launch of `k`: parameter `b` expects KernelBuffer<uint32>, got a buffer of float32"
        );
        let err = k
            .launch(&s, [1, 1, 1], [1, 1, 1], cajetac::args![1.0f32])
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("parameter `b` expects a buffer, got a float32 value"),
            "{err}"
        );
        let u = d.buffer_from(&[7u32, 7, 7]).unwrap();
        k.launch(&s, [1, 1, 1], [1, 1, 1], cajetac::args![&u])
            .unwrap();
        assert_eq!(u.download(&s).unwrap(), vec![1, 7, 7]);
    }
}
