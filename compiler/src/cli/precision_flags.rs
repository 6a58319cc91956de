//! The precision flags of `cajetac build` and `cajetac run` (SPEC §8), spelled like ncnn's
//! `Option::use_*` switches: `--fp16-packed`, `--fp16-storage`, ….

use cajeta_runtime::{PrecisionOptions, PrecisionVariant};
use cajetac::diagnostics::json::{Kind, Level};
use clap::Args;

/// Precision options as command-line flags. With none the variant is fp32.
#[derive(Args, Debug, Clone, Default)]
pub struct PrecisionFlags {
    /// sfp storage as two fp16 per uint32 (packHalf2x16).
    #[arg(long = "fp16-packed")]
    fp16_packed: bool,
    /// sfp storage as native float16 (needs storageBuffer16BitAccess; else fp16p).
    #[arg(long = "fp16-storage")]
    fp16_storage: bool,
    /// afp arithmetic (and lfp) in float16 (needs shaderFloat16).
    #[arg(long = "fp16-arithmetic")]
    fp16_arithmetic: bool,
    /// sfp storage as two bfloat16 per uint32.
    #[arg(long = "bf16-packed")]
    bf16_packed: bool,
    /// sfp storage as native bfloat16 (needs shaderBFloat16Type; else bf16p).
    #[arg(long = "bf16-storage")]
    bf16_storage: bool,
    /// sint8 storage as four int8 per int32.
    #[arg(long = "int8-packed")]
    int8_packed: bool,
    /// sint8 storage as native int8 (needs storageBuffer8BitAccess).
    #[arg(long = "int8-storage")]
    int8_storage: bool,
    /// aint8 arithmetic in int8 (needs shaderInt8).
    #[arg(long = "int8-arithmetic")]
    int8_arithmetic: bool,
    /// sint16 storage as two int16 per int32.
    #[arg(long = "int16-packed")]
    int16_packed: bool,
    /// sint16/lint16 storage as native int16 (needs storageBuffer16BitAccess and shaderInt16).
    #[arg(long = "int16-storage")]
    int16_storage: bool,
    /// With --fp16-storage: lfp (shared memory) in float16 too (needs shaderFloat16; variant fp16s+fp16u).
    #[arg(long = "fp16-uniform")]
    fp16_uniform: bool,
    /// int8 in push constants (needs storagePushConstant8).
    #[arg(long = "int8-uniform")]
    int8_uniform: bool,
    /// Option.shaderLocalMemory: kernels may stage through lfp shared memory.
    #[arg(long = "shader-local-memory")]
    shader_local_memory: bool,
}

impl PrecisionFlags {
    /// The runtime's options struct.
    pub fn options(&self) -> PrecisionOptions {
        PrecisionOptions {
            fp16_packed: self.fp16_packed,
            fp16_storage: self.fp16_storage,
            fp16_arithmetic: self.fp16_arithmetic,
            bf16_packed: self.bf16_packed,
            bf16_storage: self.bf16_storage,
            int8_packed: self.int8_packed,
            int8_storage: self.int8_storage,
            int8_arithmetic: self.int8_arithmetic,
            int16_packed: self.int16_packed,
            int16_storage: self.int16_storage,
            fp16_uniform: self.fp16_uniform,
            int8_uniform: self.int8_uniform,
            shader_local_memory: self.shader_local_memory,
        }
    }

    /// The variant on a device with `features` (none: the §8 baseline, no optional
    /// features); each fallback is reported as a warning.
    pub fn resolve(&self, features: &[String], report: super::Report) -> PrecisionVariant {
        let (variant, notes) = self.options().resolve(features);
        for n in notes {
            report.say(Kind::Usage, Level::Warning, n);
        }
        variant
    }
}
