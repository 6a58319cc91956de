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

/// A texel's four channels as the helper returns them: a structure, not a vector, so that
/// the optimizer keeps the channels scalar values (it makes short vectors of a vector's
/// lanes, which the vector form does not take).
const TEXEL_STRUCT: &str = "{ float, float, float, float }";

/// The module's helper calling the runtime's `fetch` of a float `Texture2D` for one texel:
/// `{ float, float, float, float } (ptr texture, i32 x, i32 y, i32 lod)`. Its name starts with
/// [`super::simd_classify::LANEWISE_PREFIX`]: the vector form calls it once per active lane.
pub(crate) const FETCH_2D_HELPER: &str = "cajeta.cpu.lanewise.fetch2d";

/// The definition of [`FETCH_2D_HELPER`]. `noinline`, so that the kernel calls it rather
/// than holding its stack slots and the indirect call.
fn fetch_2d_helper() -> String {
    let mut ret = String::new();
    let mut last = "poison".to_string();
    for lane in 0..4 {
        ret.push_str(&format!(
            "  %e{lane} = extractelement <4 x float> %r, i32 {lane}\n  %s{lane} = insertvalue {TEXEL_STRUCT} {last}, float %e{lane}, {lane}\n"
        ));
        last = format!("%s{lane}");
    }
    format!(
        "define internal {TEXEL_STRUCT} @\"{FETCH_2D_HELPER}\"(ptr %tex, i32 %x, i32 %y, i32 %lod) noinline nounwind {{\n\
         \x20 %c = alloca <4 x i32>, align 16\n\
         \x20 %out = alloca <4 x i32>, align 16\n\
         \x20 %c0 = insertelement <4 x i32> zeroinitializer, i32 %x, i32 0\n\
         \x20 %c1 = insertelement <4 x i32> %c0, i32 %y, i32 1\n\
         \x20 store <4 x i32> %c1, ptr %c, align 16\n\
         \x20 %fp = getelementptr ptr, ptr %tex, i32 1\n\
         \x20 %f = load ptr, ptr %fp, !invariant.load !{{}}\n\
         \x20 call void %f(ptr %tex, ptr %c, i32 %lod, ptr %out)\n\
         \x20 %r = load <4 x float>, ptr %out, align 16\n\
         {ret}\x20 ret {TEXEL_STRUCT} %s3\n}}"
    )
}

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
        let [bp, base, x64, y64, w64, row, index, p, v] = self.tmps();
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
        self.emit(format!("br label %{join}"));
        // The call goes through a helper taking the coordinates as values (its stack slots
        // are its own), so the kernel itself has no stack slot and no indirect call: the
        // vector form (`simd.rs`) runs it lane by lane for the lanes that take this path.
        self.start_block(&slow);
        if !self.globals.iter().any(|g| g.contains(FETCH_2D_HELPER)) {
            self.globals.push(fetch_2d_helper());
        }
        let called = self.tmp();
        self.emit(format!(
            "{called} = call {TEXEL_STRUCT} @\"{FETCH_2D_HELPER}\"(ptr {tex}, i32 {x}, i32 {y}, i32 {lod})"
        ));
        let mut slow_channels = Vec::new();
        for lane in 0..4 {
            let c = self.tmp();
            self.emit(format!(
                "{c} = extractvalue {TEXEL_STRUCT} {called}, {lane}"
            ));
            slow_channels.push(c);
        }
        self.emit(format!("br label %{join}"));
        // One phi per channel (not one of the texel vector), so a kernel reading only `r`
        // keeps one scalar phi and the other channels fold away.
        self.start_block(&join);
        let fast_channels = [v.as_str(), "0.0", "0.0", "1.0"];
        let mut phis = Vec::new();
        for (fast, slow_value) in fast_channels.iter().zip(&slow_channels) {
            let c = self.tmp();
            self.emit(format!(
                "{c} = phi float [ {fast}, %{direct} ], [ {slow_value}, %{slow} ]"
            ));
            phis.push(c);
        }
        let mut texel = "poison".to_string();
        for (lane, c) in phis.iter().enumerate() {
            let t = self.tmp();
            self.emit(format!(
                "{t} = insertelement <4 x float> {texel}, float {c}, i32 {lane}"
            ));
            texel = t;
        }
        Val::new(texel, "<4 x float>")
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
