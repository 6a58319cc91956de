//! Cajeta source of the tiled cooperative-matrix GEMM, one kernel per block shape.
//!
//! The kernels are ordinary Cajeta (`CoopMatrix` loads, `mulAdd`, shared arrays of
//! `Vector<uint32,4>`); this module only writes out what the language cannot yet say in a loop:
//! the language has no local arrays of matrices, so each accumulator and each prefetch register
//! is a named local. One shape is:
//!
//! - a workgroup of `sg_rows × sg_cols` subgroups of `subgroup` invocations computes a
//!   `bm × bn` block of C, stepping over K in `bk`-deep slices;
//! - each thread fetches its share of the next slice into registers (128-bit loads) while the
//!   current slice, staged in shared memory with one vector of padding a row, is multiplied;
//! - each subgroup holds a `(bm / sg_rows) × (bn / sg_cols)` block of C as accumulators, and per
//!   K step loads its column of A tiles once and one B tile at a time.
//!
//! Operands are packed into `Vector<uint32,4>` buffers (eight float16 or bfloat16, sixteen
//! int8 a vector). A is row-major `m × k`; B is row-major `k × n` or, with `b_col_major`, the
//! `n × k` row-major array of Bᵀ. The kernel's parameters are `(a, b, c, m, n, k)`; `m`, `n`
//! must be at least `bm` and `bn`, and `k` a multiple of `bk` — or, in a kernel compiled for a
//! fixed `k`, any multiple of the vector (the last slice's fetch zeroes what lies past `k`); a
//! ragged last block of rows or columns is shifted back to end at the edge (the library pads
//! the other shapes).

use std::fmt::Write;

/// The element types of a GEMM: A and B's component and C's (the accumulator's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GemmPrecision {
    /// float16 × float16 → float32.
    F16F32,
    /// float16 × float16 → float16 (float16 accumulators).
    F16F16,
    /// bfloat16 × bfloat16 → float32.
    Bf16F32,
    /// int8 × int8 → int32.
    I8I32,
}

impl GemmPrecision {
    /// Every precision, in the order tables list them.
    pub const ALL: [GemmPrecision; 4] = [Self::F16F32, Self::F16F16, Self::Bf16F32, Self::I8I32];

    /// The Cajeta name of A's and B's component type.
    pub fn operand_type(self) -> &'static str {
        match self {
            Self::F16F32 | Self::F16F16 => "float16",
            Self::Bf16F32 => "bfloat16",
            Self::I8I32 => "int8",
        }
    }

    /// The Cajeta name of C's component type.
    pub fn result_type(self) -> &'static str {
        match self {
            Self::F16F32 | Self::Bf16F32 => "float32",
            Self::F16F16 => "float16",
            Self::I8I32 => "int32",
        }
    }

    /// Bytes of one A or B element.
    pub fn operand_bytes(self) -> u32 {
        if self == Self::I8I32 {
            1
        } else {
            2
        }
    }

    /// Bytes of one C element.
    pub fn result_bytes(self) -> u32 {
        if self == Self::F16F16 {
            2
        } else {
            4
        }
    }

    /// Operand elements in one 128-bit vector.
    pub fn per_vector(self) -> u32 {
        16 / self.operand_bytes()
    }

    /// The cooperative-matrix tile `M × N × K` the kernels use (the shapes NVIDIA's and
    /// AMD's drivers list for these types).
    pub fn tile(self) -> [u32; 3] {
        if self == Self::I8I32 {
            [16, 16, 32]
        } else {
            [16, 16, 16]
        }
    }

    /// The shape string `Device.hasCoopMatrix` and device profiles use, e.g.
    /// `16x16x16 float16 float32`.
    pub fn shape_name(self) -> String {
        let [m, n, k] = self.tile();
        format!("{m}x{n}x{k} {} {}", self.operand_type(), self.result_type())
    }

    /// A short name for tables and variant names (`f16f32`, `i8i32`...).
    pub fn short(self) -> &'static str {
        match self {
            Self::F16F32 => "f16f32",
            Self::F16F16 => "f16f16",
            Self::Bf16F32 => "bf16f32",
            Self::I8I32 => "i8i32",
        }
    }
}

/// One block shape of the tiled cooperative-matrix GEMM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CoopGemmShape {
    /// Element types.
    pub precision: GemmPrecision,
    /// Rows of C per workgroup.
    pub bm: u32,
    /// Columns of C per workgroup.
    pub bn: u32,
    /// Depth of one K slice.
    pub bk: u32,
    /// Subgroups along M.
    pub sg_rows: u32,
    /// Subgroups along N.
    pub sg_cols: u32,
    /// Invocations in a subgroup (the kernel requires exactly this size).
    pub subgroup: u32,
    /// B is given as the row-major `n × k` array of Bᵀ.
    pub b_col_major: bool,
    /// Per K step, load every A and every B tile before the first multiply-add (as
    /// `bench/src/bin/coop_gemm/prefetch.cajeta` does), instead of one B tile before each
    /// column of multiply-adds (as NVIDIA's sample does). Which one the driver schedules
    /// better depends on the shape (docs/PERFORMANCE.md).
    pub loads_first: bool,
    /// The `tk` steps along each K slice are written out one after another with constant
    /// shared-memory offsets (as NVIDIA's sample unrolls them) rather than as a loop.
    pub unroll_k: bool,
    /// `Some((n, k))`: the kernel is compiled for these `n` and `k` (its `n` and `k`
    /// parameters are then ignored), so strides and the K loop's bound are constants, as in
    /// NVIDIA's sample, where they are specialization constants.
    pub fixed_nk: Option<(u32, u32)>,
    /// With `g` > 0, workgroups take their blocks in groups of `g` block rows, column by
    /// column within a group, so that the blocks running together share rows of A and columns
    /// of B in the L2 cache (0: row by row, as launched). See [`block_order_source`]; the
    /// library's choice per precision is in `tuned`.
    pub group_rows: u32,
}

impl CoopGemmShape {
    /// Invocations in one workgroup.
    pub fn threads(&self) -> u32 {
        self.sg_rows * self.sg_cols * self.subgroup
    }

    /// A name for tables: `f16f32-128x256x32-2x4-bc-lf-u` (`-bc` where B is column-major,
    /// `-lf` with `loads_first`, `-u` with `unroll_k`, `-g8` with `group_rows` 8, `-n…k…`
    /// with `fixed_nk`).
    pub fn name(&self) -> String {
        format!(
            "{}-{}x{}x{}-{}x{}{}{}{}{}{}",
            self.precision.short(),
            self.bm,
            self.bn,
            self.bk,
            self.sg_rows,
            self.sg_cols,
            if self.b_col_major { "-bc" } else { "" },
            if self.loads_first { "-lf" } else { "" },
            if self.unroll_k { "-u" } else { "" },
            match self.group_rows {
                0 => String::new(),
                g => format!("-g{g}"),
            },
            match self.fixed_nk {
                Some((n, k)) => format!("-n{n}k{k}"),
                None => String::new(),
            }
        )
    }

    /// How the kernel's source writes `n` and `k`: the constants of `fixed_nk`, or the
    /// parameters' names.
    pub fn nk_source(&self) -> (String, String) {
        match self.fixed_nk {
            Some((n, k)) => (n.to_string(), k.to_string()),
            None => ("n".to_string(), "k".to_string()),
        }
    }

    /// Elements in the last, partial K slice of a kernel compiled for a fixed `k` that is not
    /// a multiple of `bk` (0 when every slice is whole or `k` is a parameter). Such a kernel
    /// reads A and B unpadded: the fetch of the last slice loads only the vectors inside `k`
    /// and zeroes the rest, so the library copies nothing for a ragged `k`.
    pub fn k_remainder(&self) -> u32 {
        self.fixed_nk.map_or(0, |(_, k)| k % self.bk)
    }

    /// Bytes of shared memory the kernel declares.
    pub fn shared_bytes(&self) -> u32 {
        let e = self.precision.per_vector();
        let a = self.bm * (self.bk / e + 1);
        let b = if self.b_col_major {
            self.bn * (self.bk / e + 1)
        } else {
            self.bk * (self.bn / e + 1)
        };
        16 * (a + b)
    }

    /// Accumulator tiles each subgroup holds.
    pub fn accumulators(&self) -> u32 {
        let [tm, tn, _] = self.precision.tile();
        (self.bm / self.sg_rows / tm) * (self.bn / self.sg_cols / tn)
    }

    /// 32-bit registers a thread spends on accumulators (a 16×16 tile spread over the
    /// subgroup).
    pub fn accumulator_registers(&self) -> u32 {
        let [tm, tn, _] = self.precision.tile();
        self.accumulators() * tm * tn * self.precision.result_bytes() / 4 / self.subgroup
    }

    /// Why the shape cannot be generated, if it cannot.
    pub fn check(&self) -> Result<(), String> {
        let [tm, tn, tk] = self.precision.tile();
        let e = self.precision.per_vector();
        let t = self.threads();
        let name = self.name();
        let fail = |why: &str| Err(format!("GEMM shape {name}: {why}"));
        if self.sg_rows == 0 || self.sg_cols == 0 || self.subgroup == 0 {
            return fail("no subgroups");
        }
        if !self.bm.is_multiple_of(self.sg_rows * tm) || !self.bn.is_multiple_of(self.sg_cols * tn)
        {
            return fail("the block does not split into whole tiles per subgroup");
        }
        if !self.bk.is_multiple_of(tk) || !self.bk.is_multiple_of(e) || self.bk > 64 {
            return fail("the K slice must be a multiple of the tile depth and at most 64");
        }
        // Each thread moves whole rows' shares: the rows a pass covers must divide the block.
        let a_row = self.bk / e;
        let (b_rows, b_row) = if self.b_col_major {
            (self.bn, self.bk / e)
        } else {
            (self.bk, self.bn / e)
        };
        if !t.is_multiple_of(a_row) || !self.bm.is_multiple_of(t / a_row) {
            return fail("A's slice does not split evenly over the workgroup");
        }
        if !t.is_multiple_of(b_row) || b_rows % (t / b_row) != 0 {
            return fail("B's slice does not split evenly over the workgroup");
        }
        if self.shared_bytes() > 48 * 1024 {
            return fail("more than 48 KiB of shared memory");
        }
        if let Some((n, k)) = self.fixed_nk {
            if n == 0 || k == 0 || !k.is_multiple_of(e) {
                return fail("a fixed k must be a whole number of 128-bit vectors");
            }
        }
        Ok(())
    }
}

/// The Cajeta statement that declares `var`, the first row (or column) of this workgroup's block
/// of `block` rows along a dimension of `extent`: `index * block`, except that the last block of
/// a ragged extent starts at `extent - block` so that it ends at the edge. The shifted block
/// overlaps the one before it; both write the same values there (each element is the same dot
/// product, accumulated in the same K order), and no row past the edge is read or written.
/// Needs `extent >= block`.
pub fn block_origin(var: &str, index: &str, block: u32, extent: &str) -> String {
    format!("uint32 {var} = Math.min({index} * {block}, {extent} - {block});")
}

/// The Cajeta statements that give this workgroup its block, and the names of the block's
/// row and column index: with `group_rows` 0 the workgroup's own `y` and `x`; otherwise the
/// blocks are taken `group_rows` block rows at a time, column by column within the group, so
/// that the workgroups running together share rows of A and columns of B in the L2 cache.
/// Every block of the `countX() × countY()` grid is taken by exactly one workgroup.
pub fn block_order_source(group_rows: u32) -> (String, &'static str, &'static str) {
    let g = group_rows;
    if g == 0 {
        return (String::new(), "Workgroup.y()", "Workgroup.x()");
    }
    let mut s = String::new();
    let _ = writeln!(s, "        uint32 nbx = Workgroup.countX();");
    let _ = writeln!(
        s,
        "        uint32 pid = Workgroup.y() * nbx + Workgroup.x();"
    );
    let _ = writeln!(s, "        uint32 gsz = {g} * nbx;");
    let _ = writeln!(s, "        uint32 first = pid / gsz * {g};");
    let _ = writeln!(
        s,
        "        uint32 grows = Math.min(Workgroup.countY() - first, {g});"
    );
    let _ = writeln!(s, "        uint32 by = first + pid % gsz % grows;");
    let _ = writeln!(s, "        uint32 bx = pid % gsz / grows;");
    (s, "by", "bx")
}

/// The Cajeta source of the kernel for `shape`: a class `class_name` in package `blas` with one
/// kernel `gemm(a, b, c, m, n, k)`, launched on `[ceil(n / bn), ceil(m / bm)]` workgroups of
/// `shape.threads()` invocations.
pub fn coop_gemm_source(shape: &CoopGemmShape, class_name: &str) -> Result<String, String> {
    shape.check()?;
    let p = shape.precision;
    let e = p.per_vector();
    let [tm, tn, tk] = p.tile();
    let t = shape.threads();
    let (bm, bn, bk) = (shape.bm, shape.bn, shape.bk);
    let wr = bm / shape.sg_rows;
    let wc = bn / shape.sg_cols;
    let (cr, cc) = (wr / tm, wc / tn);
    let (op, res) = (p.operand_type(), p.result_type());
    // A's slice: bm rows of a_row vectors; B's: b_rows rows of b_row vectors.
    let a_row = bk / e;
    let sa = a_row + 1;
    let a_pass = t / a_row;
    let na = bm / a_pass;
    let (b_rows, b_row) = if shape.b_col_major {
        (bn, bk / e)
    } else {
        (bk, bn / e)
    };
    let sb = b_row + 1;
    let b_pass = t / b_row;
    let nb = b_rows / b_pass;
    let mut s = String::new();
    let w = &mut s;
    let _ = writeln!(
        w,
        "// Generated by cajetac::blas (coop_source.rs): {}.",
        shape.name()
    );
    let _ = writeln!(w, "package blas;\nimport cajeta.xpu.*;\n");
    let _ = writeln!(w, "public final class {class_name} {{");
    let _ = writeln!(w, "    @Kernel");
    let _ = writeln!(
        w,
        "    public static void gemm(KernelBuffer<Vector<uint32,4>> a, KernelBuffer<Vector<uint32,4>> b, \
         KernelBuffer<{res}> c, uint32 m, uint32 n, uint32 k) {{"
    );
    let _ = writeln!(
        w,
        "        Shared<Vector<uint32,4>> ta = shared Vector<uint32,4>[{}];",
        bm * sa
    );
    let _ = writeln!(
        w,
        "        Shared<Vector<uint32,4>> tb = shared Vector<uint32,4>[{}];",
        b_rows * sb
    );
    let _ = writeln!(w, "        uint32 tid = KernelThread.x();");
    let _ = writeln!(w, "        uint32 warp = tid / {};", shape.subgroup);
    let _ = writeln!(w, "        uint32 wm = warp / {};", shape.sg_cols);
    let _ = writeln!(w, "        uint32 wn = warp % {};", shape.sg_cols);
    let (n_expr, k_expr) = shape.nk_source();
    // The last block of a ragged `m` or `n` is shifted back to end at the matrix's edge: it
    // overlaps its neighbour, whose elements it computes again with the same operands in the
    // same order, so no operand needs padding and no C needs copying (see `block_origin`).
    let (order, block_y, block_x) = block_order_source(shape.group_rows);
    w.push_str(&order);
    let _ = writeln!(w, "        {}", block_origin("row0", block_y, bm, "m"));
    let _ = writeln!(w, "        {}", block_origin("col0", block_x, bn, &n_expr));
    let _ = writeln!(w, "        uint32 kq = {k_expr} / {e};");
    let _ = writeln!(w, "        uint32 nq = {n_expr} / {e};");
    // This thread's row and vector within each slice, and where they are in memory.
    let _ = writeln!(w, "        uint32 ar = tid / {a_row};");
    let _ = writeln!(w, "        uint32 ac = tid % {a_row};");
    let _ = writeln!(w, "        uint32 br = tid / {b_row};");
    let _ = writeln!(w, "        uint32 bc = tid % {b_row};");
    let _ = writeln!(w, "        uint32 ga = (row0 + ar) * kq + ac;");
    if shape.b_col_major {
        let _ = writeln!(w, "        uint32 gb = (col0 + br) * kq + bc;");
    } else {
        let _ = writeln!(w, "        uint32 gb = br * nq + col0 / {e} + bc;");
    }
    let _ = writeln!(w, "        uint32 sa = ar * {sa} + ac;");
    let _ = writeln!(w, "        uint32 sb = br * {sb} + bc;");
    // Strides between one thread's rows, in global vectors.
    let a_step = format!("{a_pass} * kq");
    let b_step = if shape.b_col_major {
        format!("{b_pass} * kq")
    } else {
        format!("{b_pass} * nq")
    };
    // One thread's share of a K slice, into registers. `rem` is 0 for a whole slice, or the
    // elements of the last slice of a ragged fixed `k`: then only the vectors inside `k` are
    // read (the ones past it would be the next row's) and the rest are zero, which adds
    // nothing to any product.
    let fetch = |w: &mut String, indent: &str, declare: bool, rem: u32| {
        let ty = if declare { "Vector<uint32,4> " } else { "" };
        let a_at = |q: u32| {
            if q == 0 {
                "a[ga]".to_string()
            } else {
                format!("a[ga + {q} * {a_step}]")
            }
        };
        let b_at = |q: u32| {
            if q == 0 {
                "b[gb]".to_string()
            } else {
                format!("b[gb + {q} * {b_step}]")
            }
        };
        if rem == 0 {
            for q in 0..na {
                let _ = writeln!(w, "{indent}{ty}ra{q} = {};", a_at(q));
            }
            for q in 0..nb {
                let _ = writeln!(w, "{indent}{ty}rb{q} = {};", b_at(q));
            }
            return;
        }
        for q in 0..na {
            let _ = writeln!(w, "{indent}{ty}ra{q} = zv;");
        }
        let _ = writeln!(w, "{indent}if (ac < {}) {{", rem / e);
        for q in 0..na {
            let _ = writeln!(w, "{indent}    ra{q} = {};", a_at(q));
        }
        let _ = writeln!(w, "{indent}}}");
        for q in 0..nb {
            let _ = writeln!(w, "{indent}{ty}rb{q} = zv;");
        }
        if shape.b_col_major {
            let _ = writeln!(w, "{indent}if (bc < {}) {{", rem / e);
            for q in 0..nb {
                let _ = writeln!(w, "{indent}    rb{q} = {};", b_at(q));
            }
            let _ = writeln!(w, "{indent}}}");
        } else {
            for q in 0..nb {
                let _ = writeln!(
                    w,
                    "{indent}if (br + {} < {rem}) {{ rb{q} = {}; }}",
                    q * b_pass,
                    b_at(q)
                );
            }
        }
    };
    let rem = shape.k_remainder();
    let k_last = shape.fixed_nk.map_or(0, |(_, k)| k - rem);
    if rem > 0 {
        let _ = writeln!(
            w,
            "        Vector<uint32,4> zv = stack Vector<uint32,4>(0, 0, 0, 0);"
        );
    }
    fetch(w, "        ", true, if k_last == 0 { rem } else { 0 });
    let acc_ty = format!("CoopMatrixAcc<{res}, {tm}, {tn}>");
    for i in 0..cr {
        for j in 0..cc {
            let _ = writeln!(w, "        {acc_ty} c{i}_{j} = CoopMatrix.zeroAcc();");
        }
    }
    let _ = writeln!(w, "        uint32 ao = wm * {};", wr * sa);
    if shape.b_col_major {
        let _ = writeln!(w, "        uint32 bo = wn * {};", wc * sb);
    } else {
        let _ = writeln!(w, "        uint32 bo = wn * {};", wc / e);
    }
    // Stores this thread's fetched vectors into the shared slice, then waits for the others.
    let stage = |w: &mut String| {
        for q in 0..na {
            let _ = writeln!(w, "            ta[sa + {}] = ra{q};", q * a_pass * sa);
        }
        for q in 0..nb {
            let _ = writeln!(w, "            tb[sb + {}] = rb{q};", q * b_pass * sb);
        }
        let _ = writeln!(w, "            Barrier.workgroup();");
    };
    // Moves this thread's global positions on to the next slice.
    let advance = |w: &mut String, indent: &str| {
        let _ = writeln!(w, "{indent}ga += {a_row};");
        if shape.b_col_major {
            let _ = writeln!(w, "{indent}gb += {};", bk / e);
        } else {
            let _ = writeln!(w, "{indent}gb += {bk} * nq;");
        }
    };
    let a_ty = format!("CoopMatrixA<{op}, {tm}, {tk}>");
    let b_ty = format!("CoopMatrixB<{op}, {tk}, {tn}>");
    // One step of `tk` along the slice: `kk` is the loop variable, or with `unroll_k` the
    // step's constant offset (as NVIDIA's sample writes it), so shared-memory addresses fold.
    let step = |w: &mut String, kk: Option<u32>| {
        let (along_a, along_b_rows) = match kk {
            Some(kk) => (format!("{}", kk / e), format!("{}", kk * sb)),
            None => (format!("kk / {e}"), format!("kk * {sb}")),
        };
        for i in 0..cr {
            let _ = writeln!(
                w,
                "                {a_ty} a{i} = CoopMatrix.loadA(ta, ao + {} + {along_a}, {sa});",
                i * tm * sa
            );
        }
        let load_b = |w: &mut String, j: u32| {
            if shape.b_col_major {
                let _ = writeln!(
                    w,
                    "                {b_ty} b{j} = CoopMatrix.loadB(tb, bo + {} + {along_a}, {sb}, CoopLayout.ColumnMajor);",
                    j * tn * sb
                );
            } else {
                let _ = writeln!(
                    w,
                    "                {b_ty} b{j} = CoopMatrix.loadB(tb, bo + {} + {along_b_rows}, {sb});",
                    j * tn / e
                );
            }
        };
        let mul = |w: &mut String, i: u32, j: u32| {
            let _ = writeln!(
                w,
                "                c{i}_{j} = CoopMatrix.mulAdd(a{i}, b{j}, c{i}_{j});"
            );
        };
        if shape.loads_first {
            for j in 0..cc {
                load_b(w, j);
            }
            for i in 0..cr {
                for j in 0..cc {
                    mul(w, i, j);
                }
            }
        } else {
            for j in 0..cc {
                load_b(w, j);
                for i in 0..cr {
                    mul(w, i, j);
                }
            }
        }
    };
    // The products of the first `depth` elements of the staged slice (all `bk` but in a
    // ragged last slice, whose steps past `k` would add only zeros), the `tk` steps looped or
    // written out.
    let multiply = |w: &mut String, depth: u32| {
        if shape.unroll_k {
            for kk in (0..depth).step_by(tk as usize) {
                let _ = writeln!(w, "            {{");
                step(w, Some(kk));
                let _ = writeln!(w, "            }}");
            }
        } else {
            let _ = writeln!(
                w,
                "            for (uint32 kk = 0; kk < {depth}; kk += {tk}) {{"
            );
            step(w, None);
            let _ = writeln!(w, "            }}");
        }
    };
    // The loop over whole slices; a ragged fixed `k`'s last, partial slice comes after it,
    // so the loop is the same as for whole slices, with no test of its own.
    let whole_end = if rem > 0 {
        k_last.to_string()
    } else {
        k_expr.clone()
    };
    if rem == 0 || k_last > 0 {
        let _ = writeln!(
            w,
            "        for (uint32 t = 0; t < {whole_end}; t += {bk}) {{"
        );
        stage(w);
        // The next slice is fetched into registers while this one is multiplied.
        let _ = writeln!(w, "            if (t + {bk} < {whole_end}) {{");
        advance(w, "                ");
        fetch(w, "                ", false, 0);
        let _ = writeln!(w, "            }}");
        multiply(w, bk);
        let _ = writeln!(w, "            Barrier.workgroup();");
        let _ = writeln!(w, "        }}");
    }
    if rem > 0 {
        let _ = writeln!(w, "        {{");
        if k_last > 0 {
            advance(w, "            ");
            fetch(w, "            ", false, rem);
        }
        stage(w);
        multiply(w, rem.div_ceil(tk) * tk);
        let _ = writeln!(w, "        }}");
    }
    let _ = writeln!(
        w,
        "        uint32 o = (row0 + wm * {wr}) * {n_expr} + col0 + wn * {wc};"
    );
    for i in 0..cr {
        for j in 0..cc {
            let _ = writeln!(
                w,
                "        CoopMatrix.store(c, o + {i} * {tm} * {n_expr} + {}, {n_expr}, c{i}_{j});",
                j * tn
            );
        }
    }
    let _ = writeln!(w, "    }}\n}}");
    Ok(s)
}
