//! The bf16p variant's stores, bit for bit: a kernel narrows crafted float32 bit patterns
//! (ties to even either way, carries into the exponent and to infinity, NaNs whose payload
//! lies only in the low bits, signed zeros, denormals) into `sfp` buffers of one and of two
//! lanes, compiled as bf16p (two bfloat16 per `uint32` word, rounded with integer
//! operations), and every stored 16-bit value must equal the host's round to nearest even
//! (a NaN: the same sign and top payload bits, made quiet).

use cajeta_runtime::{FloatStorage, KernelArg, LaunchConfig, PrecisionVariant, ScalarValue};
use cajeta_tests::device_context;
use cajetac::diagnostics::{render_human, SourceMap};
use cajetac::kernel::spirv::SpirvOptions;

const SOURCE: &str = r#"
package tests;
import cajeta.xpu.*;
public final class Bf16Rounding {
    @Kernel
    public static void narrow(KernelBuffer<int32> bits, KernelBuffer<sfp> one,
                              KernelBuffer<Vector<sfp,2>> two, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) {
            afp a = (afp) Float.intBitsToFloat(bits[2 * i]);
            afp b = (afp) Float.intBitsToFloat(bits[2 * i + 1]);
            one[2 * i] = a;
            one[2 * i + 1] = b;
            two[i] = stack Vector<afp,2>(a, b);
        }
    }
}
"#;

/// The host's bfloat16 of float32 bits: round to nearest even; a NaN keeps its sign and top
/// payload bits and is made quiet.
fn bf16(u: u32) -> u16 {
    if u & 0x7FFF_FFFF > 0x7F80_0000 {
        return ((u >> 16) | 0x40) as u16;
    }
    ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) as u16
}

fn patterns() -> Vec<u32> {
    let mut v = vec![
        0x0000_0000,
        0x8000_0000, // signed zeros
        0x3F80_8000,
        0x3F81_8000, // ties: down to even, up to even
        0x3F80_8001,
        0x3F80_7FFF, // just above and below a tie
        0x3FFF_FFFF,
        0x407F_8000, // carry into the exponent
        0x7F7F_FFFF,
        0xFF7F_8000, // carry to infinity, both signs
        0x7F80_0000,
        0xFF80_0000, // infinities
        0x7F80_0001,
        0xFF80_7FFF, // NaNs with payload only in the low bits
        0x7FC0_0000,
        0x7FBF_FFFF, // quiet NaN, signalling NaN with a full payload
        0x0000_8000,
        0x0001_7FFF, // denormals around a tie
        0x8000_C000,
        0x3EAA_AAAB, // a negative denormal, 1/3
    ];
    // And a spread of ordinary values.
    v.extend((0..108u32).map(|k| k.wrapping_mul(0x9E37_79B9) ^ 0x3F00_0000));
    v
}

#[test]
fn bf16_packed_stores_round_to_nearest_even_bit_for_bit() {
    let Some(ctx) = device_context(false) else {
        return;
    };
    let mut sources = SourceMap::new();
    let module = cajetac::driver::frontend(&mut sources, &[("r.cajeta".into(), SOURCE.into())])
        .unwrap_or_else(|d| panic!("{}", render_human(&sources, &d)));
    let mut options = SpirvOptions::default();
    options.target.precision = PrecisionVariant {
        float_storage: FloatStorage::Bf16Packed,
        ..Default::default()
    };
    let kernels = cajetac::driver::compile_kernels(&module, &options, None)
        .unwrap_or_else(|d| panic!("{}", render_human(&sources, &d)));
    let k = &kernels[0].1;
    assert_eq!(k.reflection.precision_variant, "bf16p");
    let kernel = ctx.load_kernel(&k.words, &k.reflection).expect("load");
    let input = patterns();
    let pairs = (input.len() / 2) as u32;
    let bytes: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
    let bits = ctx.create_buffer(bytes.len() as u64).expect("bits");
    // Two bfloat16 a word: as many words as pairs, for each form.
    let one = ctx.create_buffer(u64::from(pairs) * 4).expect("one");
    let two = ctx.create_buffer(u64::from(pairs) * 4).expect("two");
    let s = ctx.default_stream();
    s.upload_buffer(&bits, &bytes).expect("upload");
    s.upload_buffer(&one, &vec![0u8; pairs as usize * 4])
        .expect("zero");
    let cfg = LaunchConfig::new([pairs.div_ceil(64), 1, 1], [64, 1, 1]);
    let args = [
        KernelArg::Buffer(&bits),
        KernelArg::Buffer(&one),
        KernelArg::Buffer(&two),
        KernelArg::Scalar(ScalarValue::U32(pairs)),
    ];
    s.launch(&kernel, &cfg, &args).expect("launch");
    s.sync().expect("sync");
    for (name, buf) in [("one lane at a time", &one), ("two lanes", &two)] {
        let mut out = vec![0u8; pairs as usize * 4];
        s.download_buffer(buf, &mut out).expect("download");
        for (i, &u) in input.iter().enumerate() {
            let got = u16::from_le_bytes([out[2 * i], out[2 * i + 1]]);
            assert_eq!(got, bf16(u), "{name}: {u:#010x} stored {got:#06x}");
        }
    }
}
