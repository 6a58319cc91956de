//! Textures and samplers on the CPU target. A texture binding's slot points at the
//! runtime's `cajeta_runtime::cpu::TextureAccess` — two functions, `sample` and `fetch`,
//! then the size (width, height, depth or layers, levels) — and a sampler binding's at its
//! `SamplerAccess`. A read calls the function with the coordinates in a 4-lane stack slot
//! and gets the 4 lanes of the texel back in another: the filtering (Vulkan's rules,
//! `runtime/src/cpu/filter.rs`) is the runtime's, written once in Rust rather than as IR.

use super::super::lower::{FnLower, Val};

/// Byte offset of `TextureAccess::size` (after the two function pointers).
const SIZE_OFFSET: u32 = 16;

/// The entry line that makes texture or sampler binding `binding`'s handle `var`: the
/// pointer its slot holds. The binding table does not change during a launch.
pub(crate) fn access_handle(var: &str, binding: u32) -> String {
    format!(
        "  {var}.slot = getelementptr inbounds %cajeta.cpu.slot, ptr %cpu.bindings, i32 {binding}\n\
         \x20 {var} = load ptr, ptr {var}.slot, !invariant.load !{{}}\n"
    )
}

impl FnLower<'_> {
    /// Two stack slots of 4 lanes, the coordinates' (zeroed, then `coord` stored at lane
    /// 0) and the texel's.
    fn cpu_texture_slots(&mut self, lane: &str, coord: &Val) -> (String, String) {
        let [c, out] = self.tmps();
        self.allocas.push_str(&format!(
            "  {c} = alloca <4 x {lane}>, align 16\n  {out} = alloca <4 x i32>, align 16\n"
        ));
        self.emit(format!("store <4 x {lane}> zeroinitializer, ptr {c}"));
        self.emit(format!("store {} {}, ptr {c}", coord.ty, coord.text));
        (c, out)
    }

    /// `tex.sample(s, …)` / `sampleLod`: the runtime's `sample(tex, sampler, coords, lod,
    /// out)`; the texel as `texel` (`<4 x float>` or `<4 x i32>`).
    pub(crate) fn cpu_texture_sample(
        &mut self,
        (tex, sampler): (&str, &str),
        coord: &Val,
        lod: &str,
        texel: &'static str,
    ) -> Val {
        let (c, out) = self.cpu_texture_slots("float", coord);
        let [f, r] = self.tmps();
        self.emit(format!("{f} = load ptr, ptr {tex}, !invariant.load !{{}}"));
        self.emit(format!(
            "call void {f}(ptr {tex}, ptr {sampler}, ptr {c}, float {lod}, ptr {out})"
        ));
        self.emit(format!("{r} = load {texel}, ptr {out}"));
        Val::new(r, texel)
    }

    /// `tex.fetch(…)` / `fetchLod`: the runtime's `fetch(tex, coords, lod, out)`.
    pub(crate) fn cpu_texture_fetch(
        &mut self,
        tex: &str,
        coord: &Val,
        lod: &str,
        texel: &'static str,
    ) -> Val {
        let (c, out) = self.cpu_texture_slots("i32", coord);
        let [p, f, r] = self.tmps();
        self.emit(format!("{p} = getelementptr ptr, ptr {tex}, i32 1"));
        self.emit(format!("{f} = load ptr, ptr {p}, !invariant.load !{{}}"));
        self.emit(format!(
            "call void {f}(ptr {tex}, ptr {c}, i32 {lod}, ptr {out})"
        ));
        self.emit(format!("{r} = load {texel}, ptr {out}"));
        Val::new(r, texel)
    }

    /// Lane `lane` of level 0's size (width, height, depth or layers).
    pub(crate) fn cpu_texture_size(&mut self, tex: &str, lane: u32) -> Val {
        let [p, r] = self.tmps();
        self.emit(format!(
            "{p} = getelementptr i8, ptr {tex}, i32 {}",
            SIZE_OFFSET + 4 * lane
        ));
        self.emit(format!("{r} = load i32, ptr {p}, !invariant.load !{{}}"));
        Val::new(r, "i32")
    }
}
