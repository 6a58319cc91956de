//! Where a split kernel keeps what crosses its barriers (`split.rs`): the memory the runtime
//! hands each workgroup (`InvocationContext::private`, `PRIVATE_BYTES` per invocation) as
//! *one array per field*, not one structure per invocation, so that a region run as SIMD
//! lanes (`simd.rs`) reads and writes a local of 16 consecutive invocations with one vector
//! load or store instead of a gather and a scatter.
//!
//! The layout, from the 64-byte boundary at or after the memory's start (`%cpu.pv.base`):
//! a header of 64 bytes (byte 0: a split condition's value, written by the region that
//! evaluates it), then the *done* array (one byte per invocation, nonzero once it has
//! returned), then each field's array (its values for invocations 0, 1, …, in the
//! workgroup's linear order), each starting at a 64-byte boundary. Offsets depend on the
//! launch's workgroup size, so every function computes them from the context (uniform
//! scalar arithmetic LLVM hoists out of its loops).

/// Bytes per invocation the runtime must give for `field_types` (LLVM types): enough for
/// the layout above whatever the workgroup size. With `n >= 1` invocations, `n` times this
/// covers the alignment slack (63), the header (64), the done array rounded up (`n + 63`)
/// and each field's array rounded up (`n * size + 63`).
pub(super) fn private_bytes_function(name: &str, field_types: &[String]) -> String {
    let mut s = format!("define i64 @\"{name}\"() {{\n");
    let mut last = format!("{}", 64 * 3 + 1 + 64 * field_types.len());
    for (j, ty) in field_types.iter().enumerate() {
        s.push_str(&format!("  %b{j} = add i64 {last}, {}\n", size_of(ty)));
        last = format!("%b{j}");
    }
    s.push_str(&format!("  ret i64 {last}\n}}\n"));
    s
}

/// The constant expression of type `ty`'s allocation size in bytes.
fn size_of(ty: &str) -> String {
    format!("ptrtoint (ptr getelementptr ({ty}, ptr null, i32 1) to i64)")
}

/// Instructions (without indentation) that define, from the context `ctx`: `%cpu.pv.base`
/// (the aligned start: the header, whose byte 0 is the condition flag), `%cpu.pv.n` (the
/// workgroup's invocations, `i64`), `%cpu.pv.done` (the done array) and, for each field
/// `j` of `field_types` (`j` from 1: field 0 is the done array), `%cpu.pv.f{j}`, its array.
pub(super) fn layout_lines(ctx: &str, field_types: &[String]) -> Vec<String> {
    use super::hooks::{PRIVATE, WORKGROUP_SIZE};
    let mut v = vec![
        format!(
            "%cpu.pv.pp = getelementptr inbounds %cajeta.cpu.ctx, ptr {ctx}, i32 0, i32 {PRIVATE}"
        ),
        "%cpu.pv.raw = load ptr, ptr %cpu.pv.pp".to_string(),
        "%cpu.pv.ri = ptrtoint ptr %cpu.pv.raw to i64".to_string(),
        "%cpu.pv.ra = add i64 %cpu.pv.ri, 63".to_string(),
        "%cpu.pv.rm = and i64 %cpu.pv.ra, -64".to_string(),
        "%cpu.pv.adj = sub i64 %cpu.pv.rm, %cpu.pv.ri".to_string(),
        "%cpu.pv.base = getelementptr inbounds i8, ptr %cpu.pv.raw, i64 %cpu.pv.adj".to_string(),
    ];
    for axis in 0..3 {
        v.push(format!(
            "%cpu.pv.sp{axis} = getelementptr inbounds %cajeta.cpu.ctx, ptr {ctx}, i32 0, i32 {WORKGROUP_SIZE}, i32 {axis}"
        ));
        v.push(format!("%cpu.pv.s{axis} = load i32, ptr %cpu.pv.sp{axis}"));
        v.push(format!("%cpu.pv.w{axis} = zext i32 %cpu.pv.s{axis} to i64"));
    }
    v.push("%cpu.pv.n01 = mul i64 %cpu.pv.w0, %cpu.pv.w1".to_string());
    v.push("%cpu.pv.n = mul i64 %cpu.pv.n01, %cpu.pv.w2".to_string());
    v.push("%cpu.pv.done = getelementptr inbounds i8, ptr %cpu.pv.base, i64 64".to_string());
    v.push("%cpu.pv.dn = add i64 %cpu.pv.n, 63".to_string());
    v.push("%cpu.pv.dr = and i64 %cpu.pv.dn, -64".to_string());
    v.push("%cpu.pv.o1 = add i64 %cpu.pv.dr, 64".to_string());
    for (i, ty) in field_types.iter().enumerate() {
        let j = i + 1;
        v.push(format!(
            "%cpu.pv.f{j} = getelementptr inbounds i8, ptr %cpu.pv.base, i64 %cpu.pv.o{j}"
        ));
        v.push(format!("%cpu.pv.z{j} = mul i64 %cpu.pv.n, {}", size_of(ty)));
        v.push(format!("%cpu.pv.za{j} = add i64 %cpu.pv.z{j}, 63"));
        v.push(format!("%cpu.pv.zr{j} = and i64 %cpu.pv.za{j}, -64"));
        v.push(format!(
            "%cpu.pv.o{} = add i64 %cpu.pv.o{j}, %cpu.pv.zr{j}",
            j + 1
        ));
    }
    v
}

/// Instructions (after [`layout_lines`]) that define `%cpu.pv.i`, the invocation's linear
/// index in its workgroup (x fastest), from the local ids in the context `ctx`, and
/// `%cpu.pv.me`, its byte of the done array.
pub(super) fn index_lines(ctx: &str) -> Vec<String> {
    use super::hooks::LOCAL_ID;
    let mut v = Vec::new();
    for axis in 0..3 {
        v.push(format!(
            "%cpu.pv.lp{axis} = getelementptr inbounds %cajeta.cpu.ctx, ptr {ctx}, i32 0, i32 {LOCAL_ID}, i32 {axis}"
        ));
        v.push(format!("%cpu.pv.l{axis} = load i32, ptr %cpu.pv.lp{axis}"));
        v.push(format!("%cpu.pv.m{axis} = zext i32 %cpu.pv.l{axis} to i64"));
    }
    v.push("%cpu.pv.i2 = mul i64 %cpu.pv.m2, %cpu.pv.w1".to_string());
    v.push("%cpu.pv.i1 = add i64 %cpu.pv.i2, %cpu.pv.m1".to_string());
    v.push("%cpu.pv.i0 = mul i64 %cpu.pv.i1, %cpu.pv.w0".to_string());
    v.push("%cpu.pv.i = add i64 %cpu.pv.i0, %cpu.pv.m0".to_string());
    v.push("%cpu.pv.me = getelementptr inbounds i8, ptr %cpu.pv.done, i64 %cpu.pv.i".to_string());
    v
}
