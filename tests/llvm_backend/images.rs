//! Storage images of every format and sampled textures through LLVM: each image or texture
//! access stays the one instruction the rspirv backend emits for it. In particular LLVM must
//! not forward a stored texel to a later load of the same texel (the format converts it:
//! a float16 or UNORM8 texel reads back rounded), nor drop a store of a texel just loaded.

use super::{compile_one, interface};
use cajeta_tests::tests_dir;
use cajetac::kernel::spirv::{disassemble, KernelBackend};

/// The image instructions whose counts must agree across the backends.
const IMAGE_OPS: [&str; 6] = [
    "OpImageRead ",
    "OpImageWrite ",
    "OpSampledImage ",
    "OpImageSampleExplicitLod ",
    "OpImageFetch ",
    "OpImageQuerySizeLod ",
];

/// Per kernel of `file`: its disassembly through both backends, interfaces checked equal.
fn both(file: &str, kernels: &[&str]) -> Vec<(String, String, String)> {
    let (_, module) = cajeta_tests::frontend(&tests_dir().join(file));
    let module = module.expect("checks");
    kernels
        .iter()
        .map(|name| {
            let r = compile_one(&module, name, KernelBackend::Rspirv).expect("rspirv");
            let l = compile_one(&module, name, KernelBackend::Llvm)
                .unwrap_or_else(|d| panic!("LLVM refused {name}: {d:?}"));
            assert_eq!(interface(&r.reflection), interface(&l.reflection), "{name}");
            (
                name.to_string(),
                disassemble(&r.words),
                disassemble(&l.words),
            )
        })
        .collect()
}

fn counts(text: &str) -> Vec<usize> {
    IMAGE_OPS
        .iter()
        .map(|op| text.matches(op).count())
        .collect()
}

#[test]
fn every_storage_image_format_keeps_one_read_and_one_write_per_access() {
    for (name, r, l) in both(
        "kernels/image_formats.cajeta",
        &["floats", "integers", "extended"],
    ) {
        assert_eq!(counts(&r), counts(&l), "{name}:\n{l}");
        assert!(counts(&l)[0] > 0 && counts(&l)[1] > 0, "{name}:\n{l}");
    }
    let (_, _, floats) = &both("kernels/image_formats.cajeta", &["floats"])[0];
    for format in ["Rgba32f", "Rgba16f", "Rgba8", "R32f"] {
        assert!(floats.contains(format), "{format}:\n{floats}");
    }
    // `b.store(v)` then `b.load()`: a real read of the float16 texel, not `v` again.
    assert_eq!(floats.matches("OpImageRead ").count(), 3, "{floats}");
    let (_, _, ints) = &both("kernels/image_formats.cajeta", &["integers"])[0];
    for format in ["Rgba32ui", "Rgba32i", "R32ui", "R32i"] {
        assert!(ints.contains(format), "{format}:\n{ints}");
    }
}

#[test]
fn texture_reads_are_one_instruction_each_as_with_rspirv() {
    for (name, r_text, l) in both(
        "kernels/textures.cajeta",
        &["sample2d", "shapes", "integer"],
    ) {
        let (r, l_counts) = (counts(&r_text), counts(&l));
        assert_eq!(r[2..5], l_counts[2..5], "{name}:\n{l}");
        // A size query LLVM may share between the lanes read from it (it only reads).
        assert_eq!(r[5] > 0, l_counts[5] > 0, "{name}:\n{l}");
        assert!(l_counts[5] <= r[5], "{name}:\n{l}");
        // Separate samplers, as rspirv declares them.
        assert_eq!(
            r_text.contains("OpTypeSampler"),
            l.contains("OpTypeSampler"),
            "{name}:\n{l}"
        );
    }
    let (_, _, shapes) = &both("kernels/textures.cajeta", &["shapes"])[0];
    for dim in ["1D", "3D", "Cube"] {
        assert!(shapes.contains(&format!(" {dim} ")), "{dim}:\n{shapes}");
    }
    let (_, _, ints) = &both("kernels/textures.cajeta", &["integer"])[0];
    assert!(
        ints.contains("OpTypeInt 32 1") || ints.contains("SignExtend"),
        "the int32 texture must be read signed:\n{ints}"
    );
}
