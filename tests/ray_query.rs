//! Ray queries: the kernel compiles for every target (the goldens validate it), the module
//! declares RayQueryKHR and SPV_KHR_ray_query and reflects its scene as an
//! acceleration-structure binding, misuse of a `RayQuery` in device code is refused with a
//! message, and the runtime refuses to load the kernel on a device where VK_KHR_ray_query is not
//! enabled (lavapipe and the H200's driver), naming the extension. A host program that builds
//! a scene and traces it runs on both executors: it returns 777 where the device has ray
//! queries, and elsewhere stops at the first thing the device lacks, naming it.

use cajeta_runtime::DescriptorType;
use cajeta_tests::{device_context, tests_dir};
use cajetac::diagnostics::render_human;
use cajetac::driver;
use cajetac::kernel::spirv::{CompiledKernel, SpirvOptions, TargetEnv};

fn compile(source: &str, env: TargetEnv) -> Result<Vec<CompiledKernel>, String> {
    let dir = std::env::temp_dir().join(format!("cajeta-rq-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("rq{}.cajeta", source.len()));
    std::fs::write(&path, source).unwrap();
    let (map, result) = cajeta_tests::frontend(&path);
    let module = result.map_err(|d| render_human(&map, &d))?;
    let options = SpirvOptions {
        target_env: env,
        ..SpirvOptions::default()
    };
    driver::compile_kernels(&module, &options, None)
        .map(|ks| ks.into_iter().map(|(_, k)| k).collect())
        .map_err(|d| render_human(&map, &d))
}

fn trace_kernel(env: TargetEnv) -> CompiledKernel {
    let text = std::fs::read_to_string(tests_dir().join("kernels").join("ray_query.cajeta"))
        .expect("ray_query.cajeta");
    compile(&text, env)
        .expect("compiles")
        .into_iter()
        .find(|k| k.name == "trace")
        .expect("trace")
}

#[test]
fn ray_query_kernels_declare_the_extension_and_an_acceleration_structure_binding() {
    for env in [
        TargetEnv::Vulkan1_1,
        TargetEnv::Vulkan1_2,
        TargetEnv::Vulkan1_3,
    ] {
        let k = trace_kernel(env);
        let r = &k.reflection;
        assert!(r.capabilities.iter().any(|c| c == "RayQueryKHR"), "{env:?}");
        assert!(
            r.extensions.iter().any(|e| e == "SPV_KHR_ray_query"),
            "{env:?}"
        );
        let scene = &r.bindings[0];
        assert_eq!(scene.name, "scene");
        assert_eq!(scene.descriptor_type, DescriptorType::AccelerationStructure);
        assert!(cajeta_tests::spirv_val(&k.words, env, "ray_query.trace").is_ok());
    }
}

#[test]
fn a_ray_query_is_used_only_through_its_methods() {
    let copy = r#"
import cajeta.xpu.*;
public final class A {
    @Kernel
    public static void k(AccelerationStructure scene, KernelBuffer<uint32> out) {
        RayQuery q = RayQuery.create();
        RayQuery p = q;
        out[0] = p.committedType();
    }
}"#;
    let e = compile(copy, TargetEnv::Vulkan1_3).expect_err("a copied query");
    assert!(
        e.contains("error[E0024]") && e.contains("queries are not copied"),
        "{e}"
    );
    let create = r#"
import cajeta.xpu.*;
public final class A {
    @Kernel
    public static void k(AccelerationStructure scene, KernelBuffer<uint32> out) {
        out[0] = RayQuery.create().committedType();
    }
}"#;
    let e = compile(create, TargetEnv::Vulkan1_3).expect_err("a query that is no local");
    assert!(e.contains("error[E0024]"), "{e}");
}

#[test]
fn loading_a_ray_query_kernel_is_refused_naming_vk_khr_ray_query() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    // The SPIR-V 1.3 module: any Vulkan 1.1 device can be asked to load it.
    {
        let env = TargetEnv::Vulkan1_1;
        let k = trace_kernel(env);
        let e = ctx
            .load_kernel(&k.words, &k.reflection)
            .expect_err("no device here has VK_KHR_ray_query enabled");
        let text = e.to_string();
        assert!(text.contains("VK_KHR_ray_query"), "{text}");
        assert!(text.contains("trace"), "{text}");
    }
}

/// Runs `tests/ray_query/trace_scene.cajeta` on `ctx` with `mode`: its result or rendered
/// runtime error.
fn run_trace_scene(
    ctx: &cajeta_runtime::Context,
    mode: driver::HostMode,
) -> Result<String, String> {
    use cajetac::diagnostics::SourceMap;
    use cajetac::host::interp::{HostIo, HostOutcome};
    let name = "tests/ray_query/trace_scene.cajeta";
    let text = std::fs::read_to_string(tests_dir().join("ray_query").join("trace_scene.cajeta"))
        .expect("trace_scene.cajeta");
    let mut sources = SourceMap::new();
    let mut out = Vec::new();
    let mut io = HostIo {
        stdout: &mut out,
        context: Some(ctx.clone()),
    };
    let files = [(name.to_string(), text)];
    let r = driver::run_program_mode(
        &mut sources,
        &files,
        &SpirvOptions::default(),
        &[],
        &mut io,
        None,
        mode,
    );
    let printed = String::from_utf8_lossy(&out).into_owned();
    match r {
        Ok(HostOutcome::Returned(v)) => Ok(format!("{v}")),
        Ok(HostOutcome::Void) => Err("returned nothing".into()),
        Err(driver::RunError::Runtime(e)) => Err(e.render(&sources)),
        Err(driver::RunError::Compile(d)) => Err(render_human(&sources, &d)),
        Err(driver::RunError::NotNative(m)) => Err(format!("not native: {m}")),
        Err(driver::RunError::NoEntryPoint) => Err(format!("no entry point; printed:\n{printed}")),
    }
}

#[test]
fn a_scene_built_by_host_code_is_traced_where_the_device_has_ray_queries() {
    let text = std::fs::read_to_string(tests_dir().join("ray_query").join("trace_scene.cajeta"))
        .expect("trace_scene.cajeta");
    for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
        let k = compile(&text, env).expect("compiles");
        assert_eq!(k.len(), 1);
        cajeta_tests::spirv_val(&k[0].words, env, "trace_scene.trace").expect("spirv-val");
    }
    let Some(ctx) = device_context(false) else {
        return;
    };
    let has_ray_query = ctx.supports_ray_queries();
    for mode in [driver::HostMode::Native, driver::HostMode::Interp] {
        let r = run_trace_scene(&ctx, mode);
        if has_ray_query {
            assert_eq!(r.as_deref(), Ok("777"), "{mode:?}");
            continue;
        }
        let e = r.expect_err("no ray queries on this device");
        if !ctx.supports_acceleration_structures() {
            // lavapipe: the scene cannot even be built.
            assert!(
                e.contains("trace_scene.cajeta:53:39: runtime error: AccelerationStructure.fromTriangles: building acceleration structures needs Vulkan extension `VK_KHR_acceleration_structure`"),
                "{mode:?}: {e}"
            );
        } else {
            // The H200: the scene builds, and loading the kernel at its launch is refused.
            assert!(
                e.contains("trace_scene.cajeta:60:")
                    && e.contains("runtime error: kernel `trace` needs SPIR-V extension `SPV_KHR_ray_query` (device extension `VK_KHR_ray_query`)"),
                "{mode:?}: {e}"
            );
        }
    }
}
