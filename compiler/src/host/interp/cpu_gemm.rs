//! `Blas.gemm` on the CPU device: the product computed in this process, straight on the
//! buffers' memory (the CPU device's buffers are host memory, and its operations have
//! finished when they return, so there is nothing to record on a stream). It follows the
//! library's scalar kernel (the one lavapipe runs): float products summed in `float32` in
//! order of `k`, a `float16` C rounded once at the end, `int8` products summed with
//! wrapping in `int32`.

use cajeta_runtime::cpu::CpuBuffer;

use super::cpu_run::{download, upload, CpuRun};
use super::eval::{err, Fail};
use super::ops::{bf16_from_bits, f16_from_bits, f16_to_bits};
use crate::blas::{GemmLayout, GemmPrecision};
use crate::diagnostics::Span;

/// The three buffers of one product, on the CPU device.
pub(super) struct CpuOperands<'b> {
    pub a: &'b CpuBuffer,
    pub a_layout: GemmLayout,
    pub b: &'b CpuBuffer,
    pub b_layout: GemmLayout,
    pub c: &'b CpuBuffer,
}

/// C = A·B of `m × k` A and `k × n` B into row-major `m × n` C (sizes already checked
/// against the buffers).
pub(super) fn cpu_gemm(
    cpu: &CpuRun,
    p: GemmPrecision,
    ops: &CpuOperands<'_>,
    [m, n, k]: [u32; 3],
    span: Span,
) -> Result<(), Fail> {
    // As on a Vulkan device (`Gemm::multiply`): C may not share memory with A or B.
    let (ob, rb) = (u64::from(p.operand_bytes()), u64::from(p.result_bytes()));
    let (m64, n64, k64) = (u64::from(m), u64::from(n), u64::from(k));
    for (name, buf, bytes) in [("A", ops.a, m64 * k64 * ob), ("B", ops.b, k64 * n64 * ob)] {
        if ops.c.overlaps(m64 * n64 * rb, buf, bytes) {
            return err(
                span,
                format!("Blas.gemm: GEMM {m}×{n}×{k}: C shares memory with {name}; C must be a buffer (or slice) of its own"),
            );
        }
    }
    let (m, n, k) = (m as usize, n as usize, k as usize);
    let read = |buf: &CpuBuffer| -> Result<Vec<u8>, Fail> {
        let mut bytes = vec![0u8; buf.size() as usize];
        download(cpu, buf, &mut bytes, span)?;
        Ok(bytes)
    };
    let (ha, hb) = (read(ops.a)?, read(ops.b)?);
    let at = |i: usize, q: usize| match ops.a_layout {
        GemmLayout::RowMajor => i * k + q,
        GemmLayout::ColumnMajor => q * m + i,
    };
    let bt = |q: usize, j: usize| match ops.b_layout {
        GemmLayout::RowMajor => q * n + j,
        GemmLayout::ColumnMajor => j * k + q,
    };
    let half = |bytes: &[u8], e: usize| u16::from_le_bytes([bytes[2 * e], bytes[2 * e + 1]]);
    let float = |bytes: &[u8], e: usize| match p {
        GemmPrecision::Bf16F32 => bf16_from_bits(half(bytes, e)),
        _ => f16_from_bits(half(bytes, e)),
    };
    let mut out = Vec::with_capacity(m * n * p.result_bytes() as usize);
    for i in 0..m {
        for j in 0..n {
            if p == GemmPrecision::I8I32 {
                let mut acc = 0i32;
                for q in 0..k {
                    let (x, y) = (ha[at(i, q)] as i8, hb[bt(q, j)] as i8);
                    acc = acc.wrapping_add(i32::from(x) * i32::from(y));
                }
                out.extend_from_slice(&acc.to_le_bytes());
                continue;
            }
            let mut acc = 0f32;
            for q in 0..k {
                acc += float(&ha, at(i, q)) * float(&hb, bt(q, j));
            }
            match p {
                GemmPrecision::F16F16 => out.extend_from_slice(&f16_to_bits(acc).to_le_bytes()),
                _ => out.extend_from_slice(&acc.to_le_bytes()),
            }
        }
    }
    // C may be longer than its matrix: the rest keeps its contents.
    let mut hc = read(ops.c)?;
    hc[..out.len()].copy_from_slice(&out);
    upload(cpu, ops.c, &hc, span)
}
