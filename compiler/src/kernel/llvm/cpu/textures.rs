//! Textures and samplers on the CPU target. A texture binding's slot points at the
//! runtime's `cajeta_runtime::cpu::TextureAccess` — two functions, `sample` and `fetch`,
//! then the size (width, height, depth or layers, levels) — and a sampler binding's at its
//! `SamplerAccess`. A read calls the function with the coordinates in a 4-lane stack slot
//! and gets the 4 lanes of the texel back in another: the filtering (Vulkan's rules,
//! `runtime/src/cpu/filter.rs`) is the runtime's, written once in Rust rather than as IR.

use super::super::lower::{FnLower, Val};

/// Byte offset of `TextureAccess::size` (after the two function pointers).
const SIZE_OFFSET: u32 = 16;
/// Byte offsets of `TextureAccess::level0` and `TextureAccess::fast`.
const LEVEL0_OFFSET: u32 = 32;
const FAST_OFFSET: u32 = 40;

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

    /// `tex.fetch(x, y)` / `fetchLod` of a `Texture2D` (float texels): read directly from
    /// level 0 when the runtime marks the texture `FAST_R32F` and the texel is inside level
    /// 0 (the same value its `fetch` gives: (r, 0, 0, 1)), else through the runtime. A
    /// blur's fetch loop is then plain loads LLVM can vectorize, not a call per texel.
    pub(crate) fn cpu_texture_fetch_2d(&mut self, tex: &str, coord: &Val, lod: &str) -> Val {
        let [fp, fast, is_fast, lod0, x, y, wp, w, hp, h, xin, yin, a, b, ok] = self.tmps();
        let (direct, slow, join) = (
            self.label("fetch.direct"),
            self.label("fetch.call"),
            self.label("fetch.join"),
        );
        self.emit(format!(
            "{fp} = getelementptr i8, ptr {tex}, i32 {FAST_OFFSET}"
        ));
        self.emit(format!(
            "{fast} = load i32, ptr {fp}, !invariant.load !{{}}"
        ));
        self.emit(format!(
            "{is_fast} = icmp eq i32 {fast}, {}",
            cajeta_runtime::cpu::FAST_R32F
        ));
        self.emit(format!("{lod0} = icmp eq i32 {lod}, 0"));
        self.emit(format!(
            "{x} = extractelement <2 x i32> {}, i32 0",
            coord.text
        ));
        self.emit(format!(
            "{y} = extractelement <2 x i32> {}, i32 1",
            coord.text
        ));
        self.emit(format!(
            "{wp} = getelementptr i8, ptr {tex}, i32 {SIZE_OFFSET}"
        ));
        self.emit(format!("{w} = load i32, ptr {wp}, !invariant.load !{{}}"));
        self.emit(format!(
            "{hp} = getelementptr i8, ptr {tex}, i32 {}",
            SIZE_OFFSET + 4
        ));
        self.emit(format!("{h} = load i32, ptr {hp}, !invariant.load !{{}}"));
        self.emit(format!("{xin} = icmp ult i32 {x}, {w}"));
        self.emit(format!("{yin} = icmp ult i32 {y}, {h}"));
        self.emit(format!("{a} = and i1 {is_fast}, {lod0}"));
        self.emit(format!("{b} = and i1 {xin}, {yin}"));
        self.emit(format!("{ok} = and i1 {a}, {b}"));
        self.emit(format!("br i1 {ok}, label %{direct}, label %{slow}"));
        self.start_block(&direct);
        let [bp, base, x64, y64, w64, row, index, p, v, fast_texel] = self.tmps();
        self.emit(format!(
            "{bp} = getelementptr i8, ptr {tex}, i32 {LEVEL0_OFFSET}"
        ));
        self.emit(format!(
            "{base} = load ptr, ptr {bp}, !invariant.load !{{}}"
        ));
        self.emit(format!("{x64} = zext i32 {x} to i64"));
        self.emit(format!("{y64} = zext i32 {y} to i64"));
        self.emit(format!("{w64} = zext i32 {w} to i64"));
        self.emit(format!("{row} = mul i64 {y64}, {w64}"));
        self.emit(format!("{index} = add i64 {row}, {x64}"));
        self.emit(format!(
            "{p} = getelementptr float, ptr {base}, i64 {index}"
        ));
        self.emit(format!("{v} = load float, ptr {p}"));
        self.emit(format!(
            "{fast_texel} = insertelement <4 x float> <float 0.0, float 0.0, float 0.0, float 1.0>, float {v}, i32 0"
        ));
        self.emit(format!("br label %{join}"));
        self.start_block(&slow);
        let called = self.cpu_texture_fetch(tex, coord, lod, "<4 x float>");
        let after_call = self.block.clone();
        self.emit(format!("br label %{join}"));
        self.start_block(&join);
        let r = self.tmp();
        self.emit(format!(
            "{r} = phi <4 x float> [ {fast_texel}, %{direct} ], [ {}, %{after_call} ]",
            called.text
        ));
        Val::new(r, "<4 x float>")
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
