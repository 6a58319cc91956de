//! The library GEMM from Rust: [`Gemm`] computes C = A·B on a `cajeta_runtime::Context` for
//! any `m, n, k ≥ 1`, A and B row- or column-major, in one of the four [`GemmPrecision`]s.
//!
//! It picks the kernel once, when it is made ([`select`]): the tuned cooperative-matrix
//! kernel where the device runs it, the tiled scalar kernel elsewhere, and compiles it (with
//! the copy kernels the cooperative one needs) for that context. The cooperative kernel takes
//! one layout, is compiled again for each of the first 16 `(n, k)` pairs with both as
//! constants (for float16 accumulators only where `k` is not whole K slices:
//! [`super::tuned::specializes_whole_k`]), and shifts a ragged last block of rows or columns back to end at the matrix's
//! edge. A kernel compiled for its `k` reads a `k` that is not whole K slices directly
//! (zeroing what lies past it in the last slice) when A's rows are whole 128-bit vectors; so
//! only operands in another layout, or with such a ragged `k` past the 16 pairs or not whole
//! vectors, are first copied into zero-padded scratch buffers (`pack`), and only a matrix
//! smaller than a block (or whose C rows are not whole 16-byte runs, or, with B row-major,
//! whose B rows are not whole vectors) is padded all round with its C copied back (`unpad`).
//! Operands that already fit are used as they are. The scalar kernel reads any shape and
//! layout directly. Where the context made its buffers addressable, the cooperative kernel
//! is its buffer-address variant (A, B and C through `PhysicalStorageBuffer` pointers, as
//! NVIDIA's sample reaches them), which the H100 ran 5–10% faster than descriptors.

use cajeta_runtime::{
    Buffer, Context, DeviceProfile, Kernel, KernelArg, LaunchConfig, ScalarValue, Stream,
};

use super::coop_source::{coop_gemm_source, CoopGemmShape, GemmPrecision};
use super::kernel_load::load_kernel;
use super::pad_source::{pad_source, COPY_THREADS, MAX_GRID_Y};
use super::scalar_source::{coop_stand_in_source, scalar_gemm_source, TILE};
use super::tuned::{select, specializes_whole_k, GemmKernel};
use crate::embed::Program;
use crate::kernel::spirv::{SpirvOptions, TargetEnv};

/// How a matrix lies in its buffer: row-major (each row contiguous, the leading dimension is
/// the number of columns) or column-major (each column contiguous: the row-major array of the
/// transpose).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GemmLayout {
    /// Rows contiguous.
    RowMajor,
    /// Columns contiguous.
    ColumnMajor,
}

/// A library GEMM call that cannot run, with the reason (argument checks name the operand).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct GemmError(pub String);

fn fail<T>(message: impl Into<String>) -> Result<T, GemmError> {
    Err(GemmError(message.into()))
}

/// The library GEMM of one precision on one context: the chosen kernel, compiled and loaded
/// once, launched by [`Gemm::multiply`].
pub struct Gemm {
    ctx: Context,
    precision: GemmPrecision,
    kernel: GemmKernel,
    main: Kernel,
    /// Whether the cooperative kernel (`main` and the per-`(n, k)` ones) is its
    /// buffer-address variant (`kernel_load::load_kernel`).
    by_address: bool,
    /// `pack` and `unpad`, for the cooperative kernel.
    copies: Option<(Kernel, Kernel)>,
    /// The cooperative kernel compiled again with the `n` and `k` it is launched with as
    /// constants (strides and the K loop's bound known to the driver: 3–7% at 8192³ on the
    /// H100, docs/PERFORMANCE.md), one per `(n, k)` met, up to [`MAX_SPECIALIZED`]; `None`
    /// for the scalar kernel, which runs as compiled.
    specialized: Option<Specialized>,
}

/// Loop iterations an invocation on lavapipe (Mesa's llvmpipe) before every loop of the
/// invocation exits early (gallivm's loop limiter; docs/runtime.md).
const LAVAPIPE_LOOP_LIMIT: u64 = 65_535;

/// How many `(n, k)` pairs a [`Gemm`] compiles its own kernel for; later pairs run the
/// general kernel, so a caller sweeping many shapes does not grow pipelines without bound.
pub const MAX_SPECIALIZED: usize = 16;

/// The cooperative kernels compiled for one `(n, k)` each, and what compiling another needs.
struct Specialized {
    options: SpirvOptions,
    /// The kernel's source for a shape (the cooperative kernel, or the scalar stand-in).
    source: fn(&CoopGemmShape) -> Result<String, String>,
    kernels: std::sync::Mutex<Vec<((u32, u32), Kernel)>>,
}

impl Specialized {
    fn new(options: SpirvOptions, source: fn(&CoopGemmShape) -> Result<String, String>) -> Self {
        Specialized {
            options,
            source,
            kernels: std::sync::Mutex::new(Vec::new()),
        }
    }
}

fn coop_kernel_source(shape: &CoopGemmShape) -> Result<String, String> {
    coop_gemm_source(shape, "CoopGemm")
}

fn stand_in_kernel_source(shape: &CoopGemmShape) -> Result<String, String> {
    Ok(coop_stand_in_source(shape, "CoopStandIn"))
}

/// The options the library compiles its kernels with for `profile`'s device.
pub fn options_for(profile: &DeviceProfile) -> SpirvOptions {
    SpirvOptions {
        target_env: TargetEnv::Vulkan1_3,
        device_features: profile.features.clone(),
        target: crate::specialize::Target {
            profile: Some(profile.clone()),
            ..Default::default()
        },
        ..SpirvOptions::default()
    }
}

/// Compiles the kernels `kernel` needs for `precision`: `gemm` alone for the scalar kernel;
/// `gemm`, `pack` and `unpad` for a cooperative-matrix shape.
pub fn compile(
    precision: GemmPrecision,
    kernel: GemmKernel,
    options: &SpirvOptions,
) -> Result<Program, GemmError> {
    let files = match kernel {
        GemmKernel::Scalar => vec![(
            "blas_scalar_gemm.cajeta".to_string(),
            scalar_gemm_source(precision, "ScalarGemm"),
        )],
        GemmKernel::Coop(shape) => {
            if shape.precision != precision {
                return fail(format!(
                    "GEMM shape {} is not of precision {}",
                    shape.name(),
                    precision.short()
                ));
            }
            vec![
                (
                    "blas_coop_gemm.cajeta".to_string(),
                    coop_gemm_source(&shape, "CoopGemm").map_err(GemmError)?,
                ),
                (
                    "blas_gemm_pad.cajeta".to_string(),
                    pad_source(precision, "GemmPad"),
                ),
            ]
        }
    };
    Program::compile_files(&files, options).map_err(|e| GemmError(e.to_string()))
}

/// The options for `ctx`'s device, with the features the context enabled.
fn context_options(ctx: &Context) -> SpirvOptions {
    let mut profile = DeviceProfile::from_info(ctx.device_info());
    profile.features = ctx.enabled_features();
    options_for(&profile)
}

/// `x` rounded up to a multiple of `to`.
fn round_up(x: u32, to: u32) -> u32 {
    x.div_ceil(to) * to
}

fn u32_arg(v: u32) -> KernelArg<'static> {
    KernelArg::Scalar(ScalarValue::U32(v))
}

impl Gemm {
    /// The GEMM of `precision` on `ctx`, with the kernel [`select`] picks for the context's
    /// device and enabled features.
    pub fn new(ctx: &Context, precision: GemmPrecision) -> Result<Gemm, GemmError> {
        let mut profile = DeviceProfile::from_info(ctx.device_info());
        // A context made with fewer features than the device has runs only what it enabled.
        profile.features = ctx.enabled_features();
        Gemm::with_kernel(ctx, precision, select(precision, &profile))
    }

    /// The GEMM of `precision` on `ctx` with the kernel given (the benchmark uses it to run
    /// the scalar kernel on any device).
    pub fn with_kernel(
        ctx: &Context,
        precision: GemmPrecision,
        kernel: GemmKernel,
    ) -> Result<Gemm, GemmError> {
        let options = context_options(ctx);
        let program = compile(precision, kernel, &options)?;
        let mut gemm = Gemm::load(ctx, precision, kernel, &program)?;
        if let GemmKernel::Coop(_) = kernel {
            gemm.specialized = Some(Specialized::new(options, coop_kernel_source));
        }
        Ok(gemm)
    }

    /// The cooperative path of `shape` (its padding, layouts and copies) with a scalar
    /// stand-in for the cooperative-matrix kernel, so that it runs on devices without
    /// cooperative matrices: what the tests check that path with on lavapipe.
    pub fn coop_stand_in(ctx: &Context, shape: CoopGemmShape) -> Result<Gemm, GemmError> {
        let p = shape.precision;
        let files = [
            (
                "blas_coop_stand_in.cajeta".to_string(),
                coop_stand_in_source(&shape, "CoopStandIn"),
            ),
            ("blas_gemm_pad.cajeta".to_string(), pad_source(p, "GemmPad")),
        ];
        let options = context_options(ctx);
        let program =
            Program::compile_files(&files, &options).map_err(|e| GemmError(e.to_string()))?;
        let mut gemm = Gemm::load(ctx, p, GemmKernel::Coop(shape), &program)?;
        gemm.specialized = Some(Specialized::new(options, stand_in_kernel_source));
        Ok(gemm)
    }

    /// Loads `program`'s kernels for `kernel`.
    fn load(
        ctx: &Context,
        precision: GemmPrecision,
        kernel: GemmKernel,
        program: &Program,
    ) -> Result<Gemm, GemmError> {
        // The scalar kernel stays on descriptors: its speed is not the point, and lavapipe
        // runs the cooperative path's stand-in through addresses in the tests.
        let load = |name: &str| load_kernel(ctx, program, name, false).map(|(k, _)| k);
        let coop = matches!(kernel, GemmKernel::Coop(_));
        let (main, by_address) = load_kernel(ctx, program, "gemm", coop)?;
        let copies = match kernel {
            GemmKernel::Coop(_) => Some((load("pack")?, load("unpad")?)),
            GemmKernel::Scalar => None,
        };
        Ok(Gemm {
            ctx: ctx.clone(),
            precision,
            kernel,
            main,
            by_address,
            copies,
            specialized: None,
        })
    }

    /// How many `(n, k)` pairs have a kernel of their own so far (0 for the scalar kernel).
    pub fn specialized_count(&self) -> usize {
        self.specialized
            .as_ref()
            .map_or(0, |s| s.kernels.lock().map_or(0, |k| k.len()))
    }

    /// The cooperative kernel for `n` and `k` as constants: compiled and loaded on first use
    /// (one `(n, k)` pair costs one compile and one pipeline), the general kernel where there
    /// is no room for another pair or no specialization; the flag says which (only a kernel
    /// for a fixed `k` takes a `k` that is not whole slices).
    fn kernel_for(
        &self,
        shape: CoopGemmShape,
        n: u32,
        k: u32,
    ) -> Result<(Kernel, bool), GemmError> {
        let Some(spec) = &self.specialized else {
            return Ok((self.main.clone(), false));
        };
        if k.is_multiple_of(shape.bk) && !specializes_whole_k(self.precision) {
            return Ok((self.main.clone(), false));
        }
        let mut kernels = spec
            .kernels
            .lock()
            .map_err(|_| GemmError("the GEMM's kernel cache was poisoned".into()))?;
        if let Some((_, kernel)) = kernels.iter().find(|(nk, _)| *nk == (n, k)) {
            return Ok((kernel.clone(), true));
        }
        if kernels.len() >= MAX_SPECIALIZED {
            return Ok((self.main.clone(), false));
        }
        let fixed = CoopGemmShape {
            fixed_nk: Some((n, k)),
            ..shape
        };
        let source = (spec.source)(&fixed).map_err(GemmError)?;
        let program = Program::compile_files(
            &[("blas_coop_gemm_nk.cajeta".to_string(), source)],
            &spec.options,
        )
        .map_err(|e| GemmError(e.to_string()))?;
        let (kernel, _) = load_kernel(&self.ctx, &program, "gemm", self.by_address)?;
        kernels.push(((n, k), kernel.clone()));
        Ok((kernel, true))
    }

    /// The kernel this GEMM runs.
    pub fn kernel(&self) -> GemmKernel {
        self.kernel
    }

    /// Whether its cooperative kernel reaches the matrices through buffer device addresses
    /// (where the context enabled them) rather than descriptors.
    pub fn by_address(&self) -> bool {
        self.by_address
    }

    /// The precision this GEMM computes in.
    pub fn precision(&self) -> GemmPrecision {
        self.precision
    }

    /// Records C = A·B on `stream`: A is `m × k`, B `k × n`, each in its layout, holding raw
    /// elements (float16/bfloat16 as 16 bits, int8 as bytes); C is the row-major `m × n`
    /// result (float32, float16 or int32), overwritten. Nothing waits: the work runs when the
    /// stream is synchronized, ordered with the stream's other commands. Fails, recording
    /// nothing, when a size is 0, a buffer is too small for its matrix, C's elements share
    /// memory with A's or B's, or the shape exceeds what the kernels index (2³² elements a
    /// matrix).
    #[allow(clippy::too_many_arguments)]
    pub fn multiply(
        &self,
        stream: &Stream,
        a: &Buffer,
        a_layout: GemmLayout,
        b: &Buffer,
        b_layout: GemmLayout,
        c: &Buffer,
        m: u32,
        n: u32,
        k: u32,
    ) -> Result<(), GemmError> {
        let p = self.precision;
        if m == 0 || n == 0 || k == 0 {
            return fail(format!(
                "GEMM of {m}×{n}×{k}: m, n and k must be at least 1"
            ));
        }
        let (ob, rb) = (u64::from(p.operand_bytes()), u64::from(p.result_bytes()));
        let (m64, n64, k64) = (u64::from(m), u64::from(n), u64::from(k));
        for (name, buf, rows, cols, bytes, ty) in [
            ("A", a, m64, k64, ob, p.operand_type()),
            ("B", b, k64, n64, ob, p.operand_type()),
            ("C", c, m64, n64, rb, p.result_type()),
        ] {
            if rows * cols > u64::from(u32::MAX) {
                return fail(format!(
                    "GEMM operand {name} of {rows}×{cols} elements: the kernels index at most 2^32 - 1 elements a matrix"
                ));
            }
            if buf.size() < rows * cols * bytes {
                return fail(format!(
                    "GEMM operand {name} is {rows}×{cols} {ty}, {} bytes, but its buffer has only {} bytes",
                    rows * cols * bytes,
                    buf.size()
                ));
            }
        }
        // C is written while A and B are still being read (other workgroups' tiles): a C
        // that shares bytes with either gave racy, wrong products on lavapipe.
        let c_bytes = m64 * n64 * rb;
        for (name, buf, bytes) in [("A", a, m64 * k64 * ob), ("B", b, k64 * n64 * ob)] {
            if buf.id() == c.id()
                && buf.offset() < c.offset() + c_bytes
                && c.offset() < buf.offset() + bytes
            {
                return fail(format!(
                    "GEMM {m}×{n}×{k}: C shares memory with {name}; C must be a buffer (or slice) of its own"
                ));
            }
        }
        match self.kernel {
            GemmKernel::Scalar => self.scalar(stream, [a, b, c], [a_layout, b_layout], [m, n, k]),
            GemmKernel::Coop(_) => self.coop(stream, [a, b, c], [a_layout, b_layout], [m, n, k]),
        }
        .map_err(|e| GemmError(format!("GEMM {m}×{n}×{k}: {e}")))
    }

    fn scalar(
        &self,
        stream: &Stream,
        [a, b, c]: [&Buffer; 3],
        [al, bl]: [GemmLayout; 2],
        [m, n, k]: [u32; 3],
    ) -> Result<(), GemmError> {
        let (ars, acs) = match al {
            GemmLayout::RowMajor => (k, 1),
            GemmLayout::ColumnMajor => (1, m),
        };
        let (brs, bcs) = match bl {
            GemmLayout::RowMajor => (n, 1),
            GemmLayout::ColumnMajor => (1, k),
        };
        let grid = [n.div_ceil(TILE), m.div_ceil(TILE), 1];
        if grid[0] > MAX_GRID_Y || grid[1] > MAX_GRID_Y {
            return fail("the scalar kernel takes m and n up to 65535 × 16");
        }
        // Each invocation loops k / TILE times over K slices and TILE times inside each; lavapipe
        // ends every loop of an invocation after 65,535 iterations in all and the kernel would
        // finish with wrong sums (docs/runtime.md), so refuse rather than answer wrongly.
        let iterations = u64::from(k.div_ceil(TILE)) * u64::from(TILE + 1);
        if self.ctx.device_info().driver_name.contains("llvmpipe")
            && iterations >= LAVAPIPE_LOOP_LIMIT
        {
            return fail(format!(
                "k = {k} needs {iterations} loop iterations an invocation, and lavapipe runs \
                 fewer than {LAVAPIPE_LOOP_LIMIT} in all: split K into parts of at most {} and \
                 add the products, or run on another device",
                (LAVAPIPE_LOOP_LIMIT - 1) / u64::from(TILE + 1) * u64::from(TILE)
            ));
        }
        let cfg = LaunchConfig::new(grid, [TILE, TILE, 1]);
        let args = [
            KernelArg::Buffer(a),
            KernelArg::Buffer(b),
            KernelArg::Buffer(c),
            u32_arg(m),
            u32_arg(n),
            u32_arg(k),
            u32_arg(ars),
            u32_arg(acs),
            u32_arg(brs),
            u32_arg(bcs),
        ];
        stream
            .launch(&self.main, &cfg, &args)
            .map(|_| ())
            .map_err(|e| GemmError(e.to_string()))
    }

    /// A zero-padded `drows × dcols` row-major copy of the `rows × cols` operand `src`
    /// (element (r, c) at `src[r * rs + c * cs]`), recorded on `stream`.
    #[allow(clippy::too_many_arguments)]
    fn pack(
        &self,
        stream: &Stream,
        src: &Buffer,
        [rows, cols]: [u32; 2],
        [rs, cs]: [u32; 2],
        [drows, dcols]: [u32; 2],
    ) -> Result<Buffer, GemmError> {
        let rt = |e: cajeta_runtime::RuntimeError| GemmError(e.to_string());
        let p = self.precision;
        let bytes = u64::from(drows) * u64::from(dcols) * u64::from(p.operand_bytes());
        let dst = self.ctx.create_buffer(bytes).map_err(rt)?;
        let dvecs = dcols / p.per_vector();
        let (pack, _) = self
            .copies
            .as_ref()
            .expect("cooperative GEMM has copy kernels");
        let cfg = LaunchConfig::new(
            [dvecs.div_ceil(COPY_THREADS), drows.min(MAX_GRID_Y), 1],
            [COPY_THREADS, 1, 1],
        );
        let args = [
            KernelArg::Buffer(src),
            KernelArg::Buffer(&dst),
            u32_arg(rows),
            u32_arg(cols),
            u32_arg(rs),
            u32_arg(cs),
            u32_arg(drows),
            u32_arg(dvecs),
        ];
        stream.launch(pack, &cfg, &args).map_err(rt)?;
        Ok(dst)
    }

    fn coop(
        &self,
        stream: &Stream,
        [a, b, c]: [&Buffer; 3],
        [al, bl]: [GemmLayout; 2],
        [m, n, k]: [u32; 3],
    ) -> Result<(), GemmError> {
        let GemmKernel::Coop(s) = self.kernel else {
            unreachable!("coop() runs only the cooperative kernel")
        };
        let rt = |e: cajeta_runtime::RuntimeError| GemmError(e.to_string());
        let (mp, np, kp) = (round_up(m, s.bm), round_up(n, s.bn), round_up(k, s.bk));
        if u64::from(mp) * u64::from(kp) > u64::from(u32::MAX)
            || u64::from(kp) * u64::from(np) > u64::from(u32::MAX)
            || u64::from(mp) * u64::from(np) > u64::from(u32::MAX)
        {
            return fail("the padded operands exceed 2^32 - 1 elements");
        }
        let want = if s.b_col_major {
            GemmLayout::ColumnMajor
        } else {
            GemmLayout::RowMajor
        };
        // The rows and columns the kernel computes. With at least a block each way, C's rows
        // whole 16-byte runs (so every tile the kernel stores starts on 16 bytes) and, for a
        // row-major B, B's rows whole vectors (so a shifted block's columns start on one), the
        // kernel shifts the ragged last blocks of m and n back to the edge: only a ragged k
        // (and a layout the kernel does not take) can cost a copy, and C is written in place.
        // Otherwise everything is padded to whole blocks and C copied back.
        let e = self.precision.per_vector();
        let c_rows_whole = (u64::from(n) * u64::from(self.precision.result_bytes())) % 16 == 0;
        let b_rows_whole = s.b_col_major || n % e == 0;
        let shifted = m >= s.bm && n >= s.bn && c_rows_whole && b_rows_whole;
        let (mk, nk) = if shifted { (m, n) } else { (mp, np) };
        // A kernel compiled for this `k` reads a ragged `k` (whole vectors) unpadded; the
        // general kernel, taken once the per-shape kernels are used up, needs whole slices.
        let (kernel, fixed) = self.kernel_for(s, nk, if k % e == 0 { k } else { kp })?;
        let kk = if fixed && k % e == 0 { k } else { kp };
        // A: row-major mk × kk.
        let pa;
        let a_in = if al == GemmLayout::RowMajor && m == mk && k == kk {
            a
        } else {
            let strides = match al {
                GemmLayout::RowMajor => [k, 1],
                GemmLayout::ColumnMajor => [1, m],
            };
            pa = self.pack(stream, a, [m, k], strides, [mk, kk])?;
            &pa
        };
        // B: row-major kk × nk, or the row-major nk × kk of Bᵀ for a column-major kernel.
        let pb;
        let b_in = if bl == want && n == nk && k == kk {
            b
        } else {
            // Element (t, j) of B is b[t * n + j] row-major, b[j * k + t] column-major.
            let (bt_rs, bt_cs) = match bl {
                GemmLayout::RowMajor => (n, 1),
                GemmLayout::ColumnMajor => (1, k),
            };
            pb = if s.b_col_major {
                self.pack(stream, b, [n, k], [bt_cs, bt_rs], [nk, kk])?
            } else {
                self.pack(stream, b, [k, n], [bt_rs, bt_cs], [kk, nk])?
            };
            &pb
        };
        let direct_c = m == mk && n == nk;
        let pc;
        let c_out = if direct_c {
            c
        } else {
            let bytes = u64::from(mk) * u64::from(nk) * u64::from(self.precision.result_bytes());
            pc = self.ctx.create_buffer(bytes).map_err(rt)?;
            &pc
        };
        self.launch_main(stream, &kernel, [a_in, b_in, c_out], [mk, nk, kk])?;
        if !direct_c {
            self.unpad(stream, c_out, c, [m, n, nk])?;
        }
        Ok(())
    }

    /// The cooperative kernel: C (`m × n`, row stride `n`) = A·B, with `m ≥ bm`, `n ≥ bn`
    /// and `k` a multiple of `bk` or the kernel's fixed `k` (a ragged last block is shifted
    /// back to the edge).
    fn launch_main(
        &self,
        stream: &Stream,
        kernel: &Kernel,
        [a, b, c]: [&Buffer; 3],
        [m, n, k]: [u32; 3],
    ) -> Result<(), GemmError> {
        let GemmKernel::Coop(s) = self.kernel else {
            unreachable!("launch_main() runs only the cooperative kernel")
        };
        let cfg = LaunchConfig::new([n.div_ceil(s.bn), m.div_ceil(s.bm), 1], [s.threads(), 1, 1]);
        let args = [
            KernelArg::Buffer(a),
            KernelArg::Buffer(b),
            KernelArg::Buffer(c),
            u32_arg(m),
            u32_arg(n),
            u32_arg(k),
        ];
        stream
            .launch(kernel, &cfg, &args)
            .map(|_| ())
            .map_err(|e| GemmError(e.to_string()))
    }

    /// Copies the `m × n` result out of the padded `src` (row stride `np`) into `dst`.
    fn unpad(
        &self,
        stream: &Stream,
        src: &Buffer,
        dst: &Buffer,
        [m, n, np]: [u32; 3],
    ) -> Result<(), GemmError> {
        let (_, unpad) = self
            .copies
            .as_ref()
            .expect("cooperative GEMM has copy kernels");
        let cfg = LaunchConfig::new(
            [n.div_ceil(COPY_THREADS), m.min(MAX_GRID_Y), 1],
            [COPY_THREADS, 1, 1],
        );
        let args = [
            KernelArg::Buffer(src),
            KernelArg::Buffer(dst),
            u32_arg(m),
            u32_arg(n),
            u32_arg(np),
        ];
        stream
            .launch(unpad, &cfg, &args)
            .map(|_| ())
            .map_err(|e| GemmError(e.to_string()))
    }
}
