//! Checked mode through the Rust APIs: every kernel of the device corpus and of
//! `tests/checked/` compiled checked passes spirv-val (vulkan1.1 and vulkan1.3) and declares
//! its violation binding after the parameters; `driver::run_program` with
//! `SpirvOptions::checked` and `cajetac::embed` report the violation with kernel, resource,
//! index, length and source position on any device.

use cajeta_runtime::{BoundsViolation, ContextOptions, RuntimeError};
use cajeta_tests::{device_context, files, frontend, run_file_on, spirv_val, tests_dir};
use cajetac::diagnostics::{render_human, SourceMap};
use cajetac::driver::{self, RunError};
use cajetac::embed::{args, Device, Error, Program};
use cajetac::host::interp::HostIo;
use cajetac::kernel::spirv::{SpirvOptions, TargetEnv};

fn checked(env: TargetEnv) -> SpirvOptions {
    SpirvOptions {
        target_env: env,
        checked: true,
        ..SpirvOptions::default()
    }
}

#[test]
fn checked_kernels_pass_spirv_val() {
    let mut programs = files("checked", "cajeta");
    programs.extend(files("device", "cajeta"));
    let mut failures = Vec::new();
    let mut sites = 0;
    for path in &programs {
        let (map, module) = frontend(path);
        let module = module.unwrap_or_else(|d| panic!("{}", render_human(&map, &d)));
        for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
            let kernels = match driver::compile_kernels(&module, &checked(env), None) {
                Ok(k) => k,
                // Kernels needing an optional feature the default options lack.
                Err(_) => continue,
            };
            for (_, k) in kernels {
                let check = k
                    .reflection
                    .bounds_check
                    .as_ref()
                    .expect("checked reflection");
                assert_eq!(check.binding as usize, k.reflection.bindings.len());
                sites += check.sites.len();
                let tag = format!("{}-{}", k.name, env.name());
                if let Err(e) = spirv_val(&k.words, env, &tag) {
                    failures.push(format!("{}: {e}", path.display()));
                }
                // The address variant's 64-bit bounds checks validate too.
                if let cajetac::kernel::spirv::AddressVariant::Compiled(v) = &k.by_address {
                    assert!(
                        v.reflection.bounds_check.is_some(),
                        "{tag}: unchecked variant"
                    );
                    if let Err(e) = spirv_val(&v.words, env, &format!("{tag}-addr")) {
                        failures.push(format!("{} (address variant): {e}", path.display()));
                    }
                }
            }
        }
    }
    assert!(sites > 50, "only {sites} checked sites in the corpus");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn unchecked_kernels_have_no_violation_binding() {
    let path = tests_dir().join("checked").join("buffer_write.cajeta");
    let (map, module) = frontend(&path);
    let module = module.unwrap_or_else(|d| panic!("{}", render_human(&map, &d)));
    let kernels = driver::compile_kernels(&module, &SpirvOptions::default(), None).unwrap();
    assert!(kernels
        .iter()
        .all(|(_, k)| k.reflection.bounds_check.is_none()));
}

/// How many `OpControlBarrier`s the kernels of `tests/checked/<file>` hold, compiled with
/// `options` (one count per kernel).
fn control_barriers(file: &str, options: &SpirvOptions) -> Vec<usize> {
    const OP_CONTROL_BARRIER: u32 = 224;
    let (map, module) = frontend(&tests_dir().join("checked").join(file));
    let module = module.unwrap_or_else(|d| panic!("{}", render_human(&map, &d)));
    let kernels = driver::compile_kernels(&module, options, None).unwrap();
    kernels
        .iter()
        .map(|(_, k)| {
            // The header is five words; each instruction's first word is its length << 16 | opcode.
            let (mut at, mut n) = (5, 0);
            while at < k.words.len() {
                n += usize::from(k.words[at] & 0xffff == OP_CONTROL_BARRIER);
                at += (k.words[at] >> 16).max(1) as usize;
            }
            n
        })
        .collect()
}

#[test]
fn checked_barriers_cost_a_second_barrier_each_and_a_reset() {
    // Two `Barrier.workgroup()`s: unchecked two barriers; checked, each is counted around a
    // second barrier and the counters are reset behind one more at the kernel's start.
    assert_eq!(
        control_barriers("barrier.cajeta", &SpirvOptions::default()),
        [2]
    );
    assert_eq!(
        control_barriers("barrier.cajeta", &checked(TargetEnv::Vulkan1_1)),
        [5]
    );
    // A kernel without a barrier gets no barrier check, no reset and no counter.
    assert_eq!(
        control_barriers("buffer_write.cajeta", &checked(TargetEnv::Vulkan1_1)),
        [0]
    );
}

/// Runs `tests/checked/<file>` checked through `driver::run_program` (named by its path from
/// the repository root) and renders the runtime error it must end with.
fn runtime_error_of(ctx: cajeta_runtime::Context, file: &str) -> String {
    let name = format!("tests/checked/{file}");
    let text = std::fs::read_to_string(tests_dir().join("checked").join(file)).unwrap();
    let mut sources = SourceMap::new();
    let mut out = Vec::new();
    let mut io = HostIo {
        stdout: &mut out,
        context: Some(ctx),
    };
    let options = checked(TargetEnv::Vulkan1_1);
    let r = driver::run_program(&mut sources, &[(name, text)], &options, &[], &mut io);
    let Err(RunError::Runtime(error)) = r else {
        panic!("expected a runtime error");
    };
    error.render(&sources)
}

#[test]
fn run_program_checked_reports_the_access_and_the_launch() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    assert_eq!(
        runtime_error_of(ctx, "shared.cajeta"),
        "tests/checked/shared.cajeta:11:9: runtime error: kernel `k`: index 64 out of bounds for `tile` of length 64\n\
         tests/checked/shared.cajeta:19:9: note: in this launch"
    );
}

#[test]
fn run_program_checked_reports_a_barrier_not_every_invocation_reaches() {
    // Only on lavapipe, where such a barrier does not hang (tests/checked/barrier.cajeta).
    let Some(ctx) = device_context(false) else {
        return;
    };
    if !ctx.device_info().name.contains("llvmpipe") {
        return;
    }
    assert_eq!(
        runtime_error_of(ctx, "barrier.cajeta"),
        "tests/checked/barrier.cajeta:19:13: runtime error: kernel `k`: `Barrier.workgroup()` reached by 56 of the 64 invocations of workgroup (0, 0); every invocation of a workgroup must reach each barrier\n\
         tests/checked/barrier.cajeta:27:9: note: in this launch"
    );
}

#[test]
fn run_program_checked_reports_a_pod_buffer_element() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    assert_eq!(
        runtime_error_of(ctx, "pod_buffer.cajeta"),
        "tests/checked/pod_buffer.cajeta:16:13: runtime error: kernel `k`: index 8 out of bounds for `ps` of length 8\n\
         tests/checked/pod_buffer.cajeta:23:9: note: in this launch"
    );
}

#[test]
fn run_program_checked_names_the_buffer_of_a_buffer_array_element() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    assert_eq!(
        runtime_error_of(ctx, "buffer_array_element.cajeta"),
        "tests/checked/buffer_array_element.cajeta:11:9: runtime error: kernel `k`: index 5 out of bounds for `bufs[which]` of length 5\n\
         tests/checked/buffer_array_element.cajeta:19:9: note: in this launch"
    );
}

#[test]
fn run_program_checked_reports_a_negative_remainder_index_as_negative() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    assert_eq!(
        runtime_error_of(ctx, "signed_remainder.cajeta"),
        "tests/checked/signed_remainder.cajeta:10:9: runtime error: kernel `k`: index -3 out of bounds for `o` of length 16\n\
         tests/checked/signed_remainder.cajeta:16:9: note: in this launch"
    );
}

#[test]
fn an_index_past_its_dimension_is_out_of_bounds() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let path = tests_dir().join("checked").join("shared_nd.cajeta");
    let (printed, value) = run_file_on(&ctx, &path, &checked(TargetEnv::Vulkan1_1));
    let error = value.expect_err(&format!("expected a runtime error; printed:\n{printed}"));
    assert!(
        error.contains("shared_nd.cajeta:13:9: runtime error: kernel `k`: index 64 out of bounds for `t` of length 64"),
        "{error}"
    );
}

#[test]
fn run_program_checked_reports_a_buffer_array_index() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    assert_eq!(
        runtime_error_of(ctx, "buffer_array.cajeta"),
        "tests/checked/buffer_array.cajeta:10:9: runtime error: kernel `k`: index 3 out of bounds for `bufs` of length 3\n  \
         note: and 3 more out-of-bounds access(es) in the same launch\n\
         tests/checked/buffer_array.cajeta:19:9: note: in this launch"
    );
}

const EMBEDDED: &str = r#"
package demo;
import cajeta.xpu.*;
public final class Demo {
    @Kernel
    public static void scale(KernelBuffer<float32> x, uint32 extra) {
        uint32 i = KernelThread.globalIdX();
        x[i + extra] = x[i] * 2.0f;
    }
}"#;

fn embedded_violation(extra: u32) -> Result<(Vec<f32>, Option<BoundsViolation>), Error> {
    let files = [("demo.cajeta".to_string(), EMBEDDED.to_string())];
    let program = Program::compile_files(&files, &checked(TargetEnv::Vulkan1_1))?;
    let device = Device::with_options(
        ContextOptions::from_env()
            .with_features(program.required_features())
            .with_checked(true),
    )?;
    let scale = device.kernel(&program, "scale")?;
    let x = device.buffer_from(&[1.0f32, 2.0, 3.0, 4.0])?;
    let stream = device.stream();
    scale.launch(&stream, [1, 1, 1], [4, 1, 1], args![&x, extra])?;
    match stream.sync() {
        Ok(()) => Ok((x.download(&stream)?, None)),
        Err(RuntimeError::OutOfBounds(v)) => Ok((x.download(&stream)?, Some(*v))),
        Err(e) => Err(e.into()),
    }
}

#[test]
fn embed_checked_launch_reports_and_skips_the_access() {
    if device_context(false).is_none() {
        return;
    }
    // In bounds: no report, the result as unchecked.
    let (data, v) = embedded_violation(0).unwrap();
    assert_eq!((data, v), (vec![2.0, 4.0, 6.0, 8.0], None));
    // Threads 1..3 write past the end: skipped, reported; thread 0 writes x[3].
    let (data, v) = embedded_violation(3).unwrap();
    assert_eq!(data, vec![1.0, 2.0, 3.0, 2.0]);
    let v = v.expect("a violation");
    assert_eq!(
        (v.kernel.as_str(), v.resource.as_str(), v.kind.as_str()),
        ("scale", "x", "buffer")
    );
    assert_eq!((v.length.as_slice(), v.count), (&[4u64][..], 3));
    assert!([4i64, 5, 6].contains(&v.index[0]), "{v:?}");
    assert_eq!(v.position, "demo.cajeta:8:9");
    assert_eq!(
        v.to_string(),
        format!(
            "demo.cajeta:8:9: kernel `scale`: index {} out of bounds for `x` of length 4",
            v.index[0]
        )
    );
}

/// Whether `report` contains `want`, where a `*` in `want` stands for a number (which
/// out-of-bounds access a launch records first depends on the device's invocation order).
fn matches_report(report: &str, want: &str) -> bool {
    let parts: Vec<&str> = want.split('*').collect();
    report.char_indices().any(|(start, _)| {
        let mut rest = &report[start..];
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                let digits =
                    rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                if digits == 0 {
                    return false;
                }
                rest = &rest[digits..];
            }
            match rest.strip_prefix(part) {
                Some(r) => rest = r,
                None => return false,
            }
        }
        true
    })
}

#[test]
fn reports_match_with_a_number_where_the_expectation_has_a_star() {
    let want = "kernel `k`: index * out of bounds for `t`";
    assert!(matches_report(
        "x: kernel `k`: index 32000 out of bounds for `t` of",
        want
    ));
    assert!(!matches_report(
        "x: kernel `k`: index  out of bounds for `t`",
        want
    ));
    assert!(!matches_report(
        "x: kernel `k`: index 12 out of bounds for `u`",
        want
    ));
    assert!(matches_report("plain text here", "text"));
}

#[test]
fn device_corpus_returns_777_when_checked() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let mut failures = Vec::new();
    for path in files("device", "cajeta") {
        // A program that indexes out of bounds on purpose names the report it expects.
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let expected = text
            .lines()
            .find_map(|l| l.strip_prefix("// Checked mode reports: "));
        let result = run_file_on(&ctx, &path, &checked(TargetEnv::Vulkan1_1)).1;
        if let Some(want) = expected {
            match result {
                Err(e) if matches_report(&e, want) => {}
                other => failures.push(format!(
                    "{}: expected the report `{want}`, got {other:?}",
                    path.display()
                )),
            }
            continue;
        }
        match result {
            Ok(v) if v == "777" => {}
            Ok(v) => failures.push(format!("{}: returned {v}", path.display())),
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
