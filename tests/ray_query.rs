//! Ray queries: the kernel compiles for every target (the goldens validate it), the module
//! declares RayQueryKHR and SPV_KHR_ray_query and reflects its scene as an
//! acceleration-structure binding, misuse of a `RayQuery` in device code is refused with a
//! message, and the runtime refuses to load the kernel on a device where VK_KHR_ray_query is not
//! enabled (every device this runtime drives today: it builds no acceleration structures yet),
//! naming the extension.

use cajeta_runtime::DescriptorType;
use cajeta_tests::{device_context, tests_dir};
use cajetac::backend::spirv::{CompiledKernel, SpirvOptions, TargetEnv};
use cajetac::diagnostics::render_human;
use cajetac::driver;

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
