//! The CPU target's side of the lowering's target hooks (see `../target.rs`): how a CPU
//! kernel reaches its invocation context `%ctx` (the layout of
//! `cajeta_runtime::cpu::InvocationContext`, declared here as `%cajeta.cpu.ctx`).
//!
//! Address spaces stay as the SPIR-V target has them (11 storage buffers, 3 shared memory,
//! 13 the push-constant block): the x86 code generator treats them all as the flat one, so
//! the body the lowering wrote for SPIR-V needs no change. Every access past the end of a
//! buffer or shared array is sent to the invocation's scratch area instead, as Vulkan's
//! robust buffer access would discard it: a bad index never reaches memory the kernel does
//! not own.

use super::super::lower::{FnLower, Val};
use super::super::shared::DYNAMIC_LENGTH;
use crate::ir::Axis;

/// The LLVM types of the invocation context and of one binding slot.
pub(crate) const CONTEXT_TYPES: &str = "%cajeta.cpu.ctx = type { ptr, ptr, ptr, ptr, ptr, ptr, [3 x i32], [3 x i32], [3 x i32], [3 x i32], [3 x i32], ptr, i32, ptr, i32, ptr }\n\
     %cajeta.cpu.slot = type { ptr, i64, i32, i32 }\n";

/// The field of `%cajeta.cpu.slot` holding an image's width (its height follows).
pub(crate) const SLOT_WIDTH: u32 = 2;

/// The comment a barrier leaves in the text: kernels with one are split at their barriers
/// (`split.rs`), or run their workgroups on teams of threads (`cajeta_runtime::cpu`).
pub(crate) const BARRIER_MARK: &str = "; cajeta.cpu.barrier";

/// Fields of `%cajeta.cpu.ctx`.
const BINDINGS: u32 = 0;
const PUSH: u32 = 1;
const SHARED: u32 = 2;
const BARRIER: u32 = 3;
const SCRATCH: u32 = 5;
/// `GlobalInvocationId`; the other id arrays follow in this order.
pub(crate) const GLOBAL_ID: u32 = 6;
/// `LocalInvocationId`.
pub(crate) const LOCAL_ID: u32 = 7;
/// `WorkgroupId`.
pub(crate) const WORKGROUP_ID: u32 = 8;
/// `WorkgroupSize`.
pub(crate) const WORKGROUP_SIZE: u32 = 9;
const NUM_WORKGROUPS: u32 = 10;
const SPEC: u32 = 11;
const SPEC_COUNT: u32 = 12;
const DYNAMIC_SHARED: u32 = 13;
const DYNAMIC_SHARED_BYTES: u32 = 14;
/// The context arrays of a split kernel (`split.rs`).
pub(crate) const PRIVATE: u32 = 15;
/// Bytes of `%cajeta.cpu.ctx` (what the workgroup loop copies).
pub(crate) const CONTEXT_BYTES: u32 = 152;

/// A function running every invocation of one workgroup in turn: it copies the context,
/// and for each local id (x fastest) sets the local and global ids and calls the kernel
/// `kernel`, which LLVM inlines into the loop. Only for kernels without barriers (an
/// invocation must then finish before the next starts, which this order satisfies).
pub(crate) fn workgroup_loop(name: &str, kernel: &str) -> String {
    let mut s = format!(
        "define void @\"{name}\"(ptr %ctx) {{\nentry:\n  %c = alloca %cajeta.cpu.ctx\n  call void @llvm.memcpy.p0.p0.i64(ptr %c, ptr %ctx, i64 {CONTEXT_BYTES}, i1 false)\n"
    );
    for axis in 0..3 {
        s.push_str(&format!(
            "  %sp{axis} = getelementptr inbounds %cajeta.cpu.ctx, ptr %ctx, i32 0, i32 {WORKGROUP_SIZE}, i32 {axis}\n  %size{axis} = load i32, ptr %sp{axis}\n  %gp{axis} = getelementptr inbounds %cajeta.cpu.ctx, ptr %ctx, i32 0, i32 {WORKGROUP_ID}, i32 {axis}\n  %group{axis} = load i32, ptr %gp{axis}\n  %base{axis} = mul i32 %group{axis}, %size{axis}\n  %lp{axis} = getelementptr inbounds %cajeta.cpu.ctx, ptr %c, i32 0, i32 {LOCAL_ID}, i32 {axis}\n  %ip{axis} = getelementptr inbounds %cajeta.cpu.ctx, ptr %c, i32 0, i32 {GLOBAL_ID}, i32 {axis}\n"
        ));
    }
    // Three nested counted loops, z outermost; each sets its axis' ids on entry.
    s.push_str("  br label %z.head\n");
    let order = [2, 1, 0];
    for (depth, &axis) in order.iter().enumerate() {
        let outer_latch = if depth == 0 {
            "done".to_string()
        } else {
            format!("{}.latch", ["z", "y", "x"][depth - 1])
        };
        let n = ["z", "y", "x"][depth];
        let inner = if depth == 2 {
            "body".to_string()
        } else {
            format!("{}.head", ["z", "y", "x"][depth + 1])
        };
        let from = if depth == 0 {
            "entry".to_string()
        } else {
            format!("{}.set", ["z", "y", "x"][depth - 1])
        };
        s.push_str(&format!(
            "{n}.head:\n  %{n} = phi i32 [ 0, %{from} ], [ %{n}.next, %{n}.latch ]\n  %{n}.in = icmp ult i32 %{n}, %size{axis}\n  br i1 %{n}.in, label %{n}.set, label %{outer_latch}\n\
             {n}.set:\n  store i32 %{n}, ptr %lp{axis}\n  %{n}.g = add i32 %base{axis}, %{n}\n  store i32 %{n}.g, ptr %ip{axis}\n  br label %{inner}\n"
        ));
    }
    s.push_str(&format!(
        "body:\n  call void @\"{kernel}\"(ptr %c)\n  br label %x.latch\n"
    ));
    for n in ["x", "y", "z"] {
        s.push_str(&format!(
            "{n}.latch:\n  %{n}.next = add i32 %{n}, 1\n  br label %{n}.head\n"
        ));
    }
    s.push_str("done:\n  ret void\n}\n");
    s
}

/// The lines every CPU function starts with: the context's pointers as SSA values
/// (`%pc` the push-constant block, `%wg` shared memory, `%cpu.bindings`, the scratch area in
/// both address spaces). LLVM drops the ones a function does not use.
pub(crate) fn prologue() -> String {
    let field = |name: &str, i: u32, ty: &str| {
        format!(
            "  %cpu.f{i} = getelementptr inbounds %cajeta.cpu.ctx, ptr %ctx, i32 0, i32 {i}\n  {name} = load {ty}, ptr %cpu.f{i}\n"
        )
    };
    let mut s = String::new();
    s.push_str(&field("%cpu.bindings", BINDINGS, "ptr"));
    s.push_str(&field("%pc", PUSH, "ptr addrspace(13)"));
    s.push_str(&field("%wg", SHARED, "ptr addrspace(3)"));
    s.push_str(&field("%cpu.scratch", SCRATCH, "ptr"));
    s.push_str("  %scratch11 = addrspacecast ptr %cpu.scratch to ptr addrspace(11)\n");
    s.push_str("  %scratch3 = addrspacecast ptr %cpu.scratch to ptr addrspace(3)\n");
    s
}

/// The entry lines that make binding `binding`'s handle `var`: its base pointer, and
/// `{var}.end` one past its last byte. The binding table does not change during a launch
/// (`!invariant.load`), so LLVM may read it once for all the invocations of a workgroup
/// even though the kernel writes buffers it cannot tell apart from the table.
pub(crate) fn buffer_handle(var: &str, binding: u32) -> String {
    format!(
        "  {var}.slot = getelementptr inbounds %cajeta.cpu.slot, ptr %cpu.bindings, i32 {binding}\n\
         \x20 {var} = load ptr addrspace(11), ptr {var}.slot, !invariant.load !{{}}\n\
         \x20 {var}.bp = getelementptr inbounds %cajeta.cpu.slot, ptr {var}.slot, i32 0, i32 1\n\
         \x20 {var}.bytes = load i64, ptr {var}.bp, !invariant.load !{{}}\n\
         \x20 {var}.end = getelementptr i8, ptr addrspace(11) {var}, i64 {var}.bytes\n"
    )
}

/// The entry lines placing the dynamic shared array `global` where the context says, with
/// its length (`{global}.n`, elements of `elem_bytes` bytes) from the launch's size.
pub(crate) fn dynamic_shared_array(global: &str, elem_bytes: u32) -> String {
    format!(
        "  {global}.p = getelementptr inbounds %cajeta.cpu.ctx, ptr %ctx, i32 0, i32 {DYNAMIC_SHARED}\n\
         \x20 {global} = load ptr addrspace(3), ptr {global}.p\n\
         \x20 {global}.bp = getelementptr inbounds %cajeta.cpu.ctx, ptr %ctx, i32 0, i32 {DYNAMIC_SHARED_BYTES}\n\
         \x20 {global}.bytes = load i32, ptr {global}.bp\n\
         \x20 {global}.n = udiv i32 {global}.bytes, {elem_bytes}\n"
    )
}

/// The entry line placing a shared array at `offset` in the workgroup's shared memory.
pub(crate) fn shared_array(global: &str, offset: u64) -> String {
    format!("  {global} = getelementptr i8, ptr addrspace(3) %wg, i64 {offset}\n")
}

impl FnLower<'_> {
    /// Lane `axis` of the context's id array `field`.
    pub(crate) fn cpu_id(&mut self, field: u32, axis: u32) -> Val {
        let (p, v) = (self.tmp(), self.tmp());
        self.emit(format!(
            "{p} = getelementptr inbounds %cajeta.cpu.ctx, ptr %ctx, i32 0, i32 {field}, i32 {axis}"
        ));
        self.emit(format!("{v} = load i32, ptr {p}"));
        Val::new(v, "i32")
    }

    /// `WorkgroupSize` / `NumWorkgroups` by the SPIR-V built-in's name.
    pub(crate) fn cpu_builtin_lane(&mut self, name: &str, axis: Axis) -> Val {
        let field = if name == "WorkgroupSize" {
            WORKGROUP_SIZE
        } else {
            NUM_WORKGROUPS
        };
        self.cpu_id(field, axis as u32)
    }

    /// A pointer to element `index` (`i32` or `i64`) of the buffer handle `var` whose
    /// elements are `elem`, or to the scratch area when the element is not inside the buffer.
    pub(crate) fn cpu_buffer_pointer(&mut self, var: &str, elem: &str, index: &Val) -> String {
        let [p, q, lo, hi, ok, r] = self.tmps();
        let ity = index.ty;
        let as11 = "ptr addrspace(11)";
        self.emit(format!(
            "{p} = getelementptr {elem}, {as11} {var}, {ity} {}",
            index.text
        ));
        self.emit(format!("{q} = getelementptr {elem}, {as11} {p}, i32 1"));
        self.emit(format!("{lo} = icmp uge {as11} {p}, {var}"));
        self.emit(format!("{hi} = icmp ule {as11} {q}, {var}.end"));
        self.emit(format!("{ok} = and i1 {lo}, {hi}"));
        self.emit(format!(
            "{r} = select i1 {ok}, {as11} {p}, {as11} %scratch11"
        ));
        r
    }

    /// The element count of buffer handle `var` of `elem` elements, as `uint32`.
    pub(crate) fn cpu_buffer_length(&mut self, var: &str, elem: &str) -> String {
        let [size, n, t] = self.tmps();
        self.emit(format!(
            "{size} = ptrtoint ptr getelementptr ({elem}, ptr null, i32 1) to i64"
        ));
        self.emit(format!("{n} = udiv i64 {var}.bytes, {size}"));
        self.emit(format!("{t} = trunc i64 {n} to i32"));
        t
    }

    /// A pointer to element `index` of the shared array at `base` (`[n x ty]`), or to the
    /// scratch area past its end. The dynamic array (`n` is [`DYNAMIC_LENGTH`]) ends where
    /// its length `{base}.n` says (`dynamic_shared_array`).
    pub(crate) fn cpu_shared_pointer(
        &mut self,
        base: &str,
        n: u32,
        ty: &str,
        index: &Val,
    ) -> String {
        let [p, ok, r] = self.tmps();
        self.emit(format!(
            "{p} = getelementptr [{n} x {ty}], ptr addrspace(3) {base}, i32 0, {} {}",
            index.ty, index.text
        ));
        let bound = if n != DYNAMIC_LENGTH {
            n.to_string()
        } else if index.ty == "i64" {
            let wide = self.tmp();
            self.emit(format!("{wide} = zext i32 {base}.n to i64"));
            wide
        } else {
            format!("{base}.n")
        };
        let (ity, i) = match index.ty {
            "i32" | "i64" => (index.ty, index.text.clone()),
            narrow => {
                let w = self.tmp();
                self.emit(format!("{w} = zext {narrow} {} to i32", index.text));
                ("i32", w)
            }
        };
        self.emit(format!("{ok} = icmp ult {ity} {i}, {bound}"));
        self.emit(format!(
            "{r} = select i1 {ok}, ptr addrspace(3) {p}, ptr addrspace(3) %scratch3"
        ));
        r
    }

    /// Where the next shared array of `bytes` bytes goes (16-byte aligned) in the
    /// workgroup's block; counts it in `shared_bytes`.
    pub(crate) fn cpu_place_shared(&mut self, bytes: u64) -> u64 {
        let offset = (self.shared_base + self.shared_bytes).next_multiple_of(16);
        self.shared_bytes = offset + bytes - self.shared_base;
        offset
    }

    /// `Spec` slot `slot` of LLVM type `ty` (`i32` or `float`): the launch's value when it
    /// gave one, else `default` (the bits of the declared default).
    pub(crate) fn cpu_spec(&mut self, slot: u32, default: u32, ty: &'static str) -> Val {
        let [cp, count, given, vp, base, ep, bits, r] = self.tmps();
        let (yes, no, join) = (
            self.label("spec.given"),
            self.label("spec.default"),
            self.label("spec.join"),
        );
        self.emit(format!(
            "{cp} = getelementptr inbounds %cajeta.cpu.ctx, ptr %ctx, i32 0, i32 {SPEC_COUNT}"
        ));
        self.emit(format!("{count} = load i32, ptr {cp}"));
        self.emit(format!("{given} = icmp ult i32 {slot}, {count}"));
        self.emit(format!("br i1 {given}, label %{yes}, label %{no}"));
        self.start_block(&yes);
        self.emit(format!(
            "{vp} = getelementptr inbounds %cajeta.cpu.ctx, ptr %ctx, i32 0, i32 {SPEC}"
        ));
        self.emit(format!("{base} = load ptr, ptr {vp}"));
        self.emit(format!("{ep} = getelementptr i32, ptr {base}, i32 {slot}"));
        self.emit(format!("{bits} = load i32, ptr {ep}"));
        self.emit(format!("br label %{join}"));
        self.start_block(&no);
        self.emit(format!("br label %{join}"));
        self.start_block(&join);
        let phi = if ty == "i32" { r.clone() } else { self.tmp() };
        self.emit(format!(
            "{phi} = phi i32 [ {bits}, %{yes} ], [ {default}, %{no} ]"
        ));
        if ty != "i32" {
            self.emit(format!("{r} = bitcast i32 {phi} to {ty}"));
        }
        Val::new(r, ty)
    }

    /// A workgroup barrier: the runtime's rendezvous, with every memory access ordered
    /// around it.
    pub(crate) fn cpu_barrier(&mut self) {
        let (p, f) = (self.tmp(), self.tmp());
        self.emit(BARRIER_MARK);
        self.emit("fence seq_cst");
        self.emit(format!(
            "{p} = getelementptr inbounds %cajeta.cpu.ctx, ptr %ctx, i32 0, i32 {BARRIER}"
        ));
        self.emit(format!("{f} = load ptr, ptr {p}"));
        self.emit(format!("call void {f}(ptr %ctx)"));
        self.emit("fence seq_cst");
    }

    /// `atomicrmw {rmw}` on the shared element at `p` as a load, the operation and a
    /// store (in a split kernel one thread runs the workgroup, so nothing else touches its
    /// shared memory); the element's old value (its bits, for a float element). It is a
    /// call of a small helper ([`SHARED_RMW_PREFIX`]), so that where the region runs as
    /// SIMD lanes each lane's read-modify-write runs after the previous lane's, in the
    /// scalar loop's order (two lanes may update one element); `jit.rs` inlines it after.
    pub(crate) fn cpu_plain_shared_rmw(
        &mut self,
        rmw: &str,
        p: &str,
        ity: &'static str,
        v: &str,
    ) -> Val {
        let name = format!("{SHARED_RMW_PREFIX}{rmw}.{ity}");
        if !self
            .globals
            .iter()
            .any(|g| g.contains(&format!("@\"{name}\"(")))
        {
            self.globals.push(shared_rmw_helper(&name, rmw, ity));
        }
        let old = self.tmp();
        self.emit(format!(
            "{old} = call {ity} @\"{name}\"(ptr addrspace(3) {p}, {ity} {v})"
        ));
        Val::new(old, ity)
    }
}

/// The name prefix of the helpers doing a split region's shared-memory read-modify-write
/// (`cpu_plain_shared_rmw`); lane-by-lane calls for the vector form (`simd_classify.rs`).
pub(crate) const SHARED_RMW_PREFIX: &str = "cajeta.cpu.lanewise.shared.";

/// The definition of helper `name`: `atomicrmw {rmw}` of an `ity` as a load, the operation
/// and a store; returns the old value.
fn shared_rmw_helper(name: &str, rmw: &str, ity: &str) -> String {
    let cmp = match rmw {
        "min" => Some("slt"),
        "umin" => Some("ult"),
        "max" => Some("sgt"),
        "umax" => Some("ugt"),
        _ => None,
    };
    let new = if let Some(cmp) = cmp {
        format!("  %c = icmp {cmp} {ity} %old, %v\n  %new = select i1 %c, {ity} %old, {ity} %v\n")
    } else if rmw == "xchg" {
        format!("  %new = or {ity} %v, 0\n")
    } else {
        format!("  %new = {rmw} {ity} %old, %v\n")
    };
    format!(
        "define internal {ity} @\"{name}\"(ptr addrspace(3) %p, {ity} %v) noinline nounwind {{\n  %old = load {ity}, ptr addrspace(3) %p\n{new}  store {ity} %new, ptr addrspace(3) %p\n  ret {ity} %old\n}}"
    )
}
