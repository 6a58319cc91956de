//! Host-array transfers through the runtime's pipelined (chunked) path, with 64 KiB chunks so
//! the test program's buffers cross many chunk boundaries: `tests/device/chunked_transfers.cajeta`
//! (precision-typed byte images, odd sizes, a slice, async transfers; every element compared)
//! run by the interpreter in process and by native host code (`cajetac run --host native`).

use cajeta_runtime::{Context, ContextOptions, TransferOptions};
use cajeta_tests::{cajetac_program, run_file_on, tests_dir};
use cajetac::kernel::spirv::SpirvOptions;

fn program() -> std::path::PathBuf {
    tests_dir().join("device").join("chunked_transfers.cajeta")
}

#[test]
fn chunked_transfers_are_exact_in_the_interpreter() {
    let options = ContextOptions {
        no_host_visible: true,
        ..ContextOptions::from_env().with_transfer(TransferOptions {
            chunk_bytes: 64 * 1024,
            ring_depth: 2,
            threads: 2,
            pipelined: true,
            import_host: false,
        })
    };
    let ctx = match Context::with_options(options) {
        Ok(c) => c,
        Err(e) => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("CI=true but no usable Vulkan device: {e}");
            }
            eprintln!("skipping device test: no Vulkan device ({e})");
            return;
        }
    };
    let (printed, value) = run_file_on(&ctx, &program(), &SpirvOptions::default());
    assert_eq!(value, Ok("777".to_string()), "printed:\n{printed}");
}

#[test]
fn chunked_transfers_are_exact_in_native_host_code() {
    let Some(cajetac) = cajetac_program() else {
        eprintln!("skipping: no cajetac executable next to the test binary");
        return;
    };
    // Staged and pipelined, then imported (`VK_EXT_external_memory_host`, where the device
    // has it; otherwise pipelined again).
    for import in ["0", "1"] {
        let out = std::process::Command::new(&cajetac)
            .args(["run", "--host", "native"])
            .arg(program())
            .env("CAJETA_TRANSFER_CHUNK_KIB", "64")
            .env("CAJETA_TRANSFER_RING", "3")
            .env("CAJETA_TRANSFER_THREADS", "2")
            .env("CAJETA_NO_HOST_VISIBLE", "1")
            .env("CAJETA_TRANSFER_IMPORT", import)
            .output()
            .expect("run cajetac");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            stdout.trim(),
            "777",
            "CAJETA_TRANSFER_IMPORT={import}, stderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
