//! Storage images on the CPU target. An image binding's slot holds its texels' memory (row
//! after row, x fastest, each texel in its format's bytes: `cajeta_runtime::cpu::CpuImage`)
//! and its width and height. A load converts the stored texel to the kernel's value as
//! Vulkan's format conversion rules say (`R16F`/`RGBA16F` widened, `R8`/`RGBA8` unorm as
//! `c * (1 / 255)`, lavapipe's form), a store the other way (half floats rounded toward zero, as lavapipe does;
//! unorm values clamped to [0, 1] — NaN to 0, a value Vulkan leaves undefined and lavapipe
//! stores as 1 — scaled by 255 and rounded to nearest even). A texel
//! outside the image reads 0 in every channel and a store to it is dropped, as
//! `robustImageAccess2` has it on a Vulkan device.

use super::super::lower::{FnLower, Val};
use super::super::{refuse, Handle};
use super::hooks::SLOT_WIDTH;
use crate::diagnostics::Diagnostic;
use crate::ir::{Expr, ExprKind, ImageFormat, Place};

/// The entry lines that make image binding `binding`'s handle `var`: its texels' first
/// byte, and `{var}.w`/`{var}.h` its width and height. The binding table does not change
/// during a launch (`!invariant.load`).
pub(crate) fn image_handle(var: &str, binding: u32) -> String {
    format!(
        "  {var}.slot = getelementptr inbounds %cajeta.cpu.slot, ptr %cpu.bindings, i32 {binding}\n\
         \x20 {var} = load ptr addrspace(11), ptr {var}.slot, !invariant.load !{{}}\n\
         \x20 {var}.wp = getelementptr inbounds %cajeta.cpu.slot, ptr {var}.slot, i32 0, i32 {SLOT_WIDTH}\n\
         \x20 {var}.w = load i32, ptr {var}.wp, !invariant.load !{{}}\n\
         \x20 {var}.hp = getelementptr inbounds %cajeta.cpu.slot, ptr {var}.slot, i32 0, i32 {}\n\
         \x20 {var}.h = load i32, ptr {var}.hp, !invariant.load !{{}}\n",
        SLOT_WIDTH + 1
    )
}

/// The LLVM type of one stored texel of `format`.
fn stored_texel(format: ImageFormat) -> &'static str {
    match format {
        ImageFormat::R32f => "float",
        ImageFormat::Rgba32f => "<4 x float>",
        ImageFormat::R16f => "half",
        ImageFormat::Rgba16f => "<4 x half>",
        ImageFormat::R8 => "i8",
        ImageFormat::Rgba8 => "<4 x i8>",
        ImageFormat::R32i | ImageFormat::R32ui => "i32",
        ImageFormat::Rgba32i | ImageFormat::Rgba32ui => "<4 x i32>",
    }
}

/// The constant `c` of type `ty`: itself for a scalar, a splat for a `<4 x lane>` vector.
fn constant(ty: &str, c: &str) -> String {
    match ty.strip_prefix("<4 x ").and_then(|t| t.strip_suffix('>')) {
        Some(lane) => format!("<{}>", vec![format!("{lane} {c}"); 4].join(", ")),
        None => c.to_string(),
    }
}

/// The intrinsic-name suffix of a float type (`f32`, `v4f32`).
fn mangle(ty: &str) -> &'static str {
    if ty.starts_with('<') {
        "v4f32"
    } else {
        "f32"
    }
}

impl FnLower<'_> {
    /// The image parameter `img` names: its handle, format and the kernel's texel type.
    pub(crate) fn cpu_image_param(
        &self,
        img: &Expr,
    ) -> Result<(String, ImageFormat, &'static str), Diagnostic> {
        if let ExprKind::Load(Place::Local(l)) = &img.kind {
            if let Some(Some(Handle::Image {
                var,
                format,
                channel,
                ..
            })) = self.handles.get(l.0)
            {
                return Ok((var.clone(), *format, channel));
            }
        }
        Err(refuse(img.span, "an image that is not a kernel parameter"))
    }

    /// A pointer to texel (`x`, `y`) of the image handle `var` of `format` (the scratch area
    /// when the texel is outside the image), and whether it is inside.
    fn cpu_texel_pointer(
        &mut self,
        var: &str,
        format: ImageFormat,
        x: &Val,
        y: &Val,
    ) -> (String, String) {
        let [xok, yok, ok, x64, y64, w64, row, index, p, r] = self.tmps();
        // Unsigned comparisons: a negative `int32` coordinate is outside too.
        self.emit(format!("{xok} = icmp ult i32 {}, {var}.w", x.text));
        self.emit(format!("{yok} = icmp ult i32 {}, {var}.h", y.text));
        self.emit(format!("{ok} = and i1 {xok}, {yok}"));
        self.emit(format!("{x64} = zext i32 {} to i64", x.text));
        self.emit(format!("{y64} = zext i32 {} to i64", y.text));
        self.emit(format!("{w64} = zext i32 {var}.w to i64"));
        self.emit(format!("{row} = mul i64 {y64}, {w64}"));
        self.emit(format!("{index} = add i64 {row}, {x64}"));
        let stored = stored_texel(format);
        self.emit(format!(
            "{p} = getelementptr {stored}, ptr addrspace(11) {var}, i64 {index}"
        ));
        self.emit(format!(
            "{r} = select i1 {ok}, ptr addrspace(11) {p}, ptr addrspace(11) %scratch11"
        ));
        (r, ok)
    }

    /// `img.load(x, y)`: the texel as the kernel's `channel` type (0 outside the image).
    pub(crate) fn cpu_image_load(
        &mut self,
        (var, format, channel): (&str, ImageFormat, &'static str),
        x: &Val,
        y: &Val,
    ) -> Val {
        let (p, ok) = self.cpu_texel_pointer(var, format, x, y);
        let stored = stored_texel(format);
        let raw = self.tmp();
        self.emit(format!("{raw} = load {stored}, ptr addrspace(11) {p}"));
        let value = match format {
            ImageFormat::R16f | ImageFormat::Rgba16f => {
                let t = self.tmp();
                self.emit(format!("{t} = fpext {stored} {raw} to {channel}"));
                t
            }
            ImageFormat::R8 | ImageFormat::Rgba8 => {
                let [f, t] = self.tmps();
                self.emit(format!("{f} = uitofp {stored} {raw} to {channel}"));
                // `c * (1 / 255)`, the reciprocal rounded to float32 (0x3b808081), as
                // lavapipe converts: within an ulp of `c / 255`, which Vulkan allows.
                let scale = constant(channel, "0x3F70101020000000");
                self.emit(format!("{t} = fmul {channel} {f}, {scale}"));
                t
            }
            _ => raw,
        };
        let r = self.tmp();
        self.emit(format!(
            "{r} = select i1 {ok}, {channel} {value}, {channel} zeroinitializer"
        ));
        Val::new(r, channel)
    }

    /// `img.store(x, y, v)`: `v` (of the kernel's `channel` type) converted to the stored
    /// texel; dropped (written to the scratch area) outside the image.
    pub(crate) fn cpu_image_store(
        &mut self,
        (var, format, channel): (&str, ImageFormat, &'static str),
        x: &Val,
        y: &Val,
        v: &Val,
    ) {
        let (p, _) = self.cpu_texel_pointer(var, format, x, y);
        let stored = stored_texel(format);
        let value = match format {
            ImageFormat::R16f | ImageFormat::Rgba16f => {
                self.cpu_half_toward_zero(channel, stored, v)
            }
            ImageFormat::R8 | ImageFormat::Rgba8 => {
                let [lo, hi, scaled, rounded, t] = self.tmps();
                let m = mangle(channel);
                for f in ["maxnum", "minnum"] {
                    self.declare(format!(
                        "declare {channel} @llvm.{f}.{m}({channel}, {channel})"
                    ));
                }
                self.declare(format!("declare {channel} @llvm.roundeven.{m}({channel})"));
                // `maxnum` gives the number when one operand is NaN: NaN stores 0.
                let (zero, one, k) = (
                    constant(channel, "0.0"),
                    constant(channel, "1.0"),
                    constant(channel, "255.0"),
                );
                self.emit(format!(
                    "{lo} = call {channel} @llvm.maxnum.{m}({channel} {}, {channel} {zero})",
                    v.text
                ));
                self.emit(format!(
                    "{hi} = call {channel} @llvm.minnum.{m}({channel} {lo}, {channel} {one})"
                ));
                self.emit(format!("{scaled} = fmul {channel} {hi}, {k}"));
                self.emit(format!(
                    "{rounded} = call {channel} @llvm.roundeven.{m}({channel} {scaled})"
                ));
                self.emit(format!("{t} = fptoui {channel} {rounded} to {stored}"));
                t
            }
            _ => v.text.clone(),
        };
        self.emit(format!("store {stored} {value}, ptr addrspace(11) {p}"));
    }

    /// `v` (`float` or `<4 x float>`) as `stored` (`half` or `<4 x half>`) rounded toward
    /// zero, as lavapipe (and Direct3D's rule for a conversion to a narrower float) has it:
    /// LLVM's `fptrunc` rounds to nearest even, and where that went past `v` in magnitude
    /// the half's bits step one down, to the next half toward zero (past the largest half,
    /// infinity becomes 65504). NaN and infinities stay what they are.
    fn cpu_half_toward_zero(&mut self, channel: &str, stored: &str, v: &Val) -> String {
        let bits = if stored.starts_with('<') {
            "<4 x i16>"
        } else {
            "i16"
        };
        let m = mangle(channel);
        self.declare(format!("declare {channel} @llvm.fabs.{m}({channel})"));
        let [h, back, ab, av, over, hb, dec, sel, t] = self.tmps();
        self.emit(format!("{h} = fptrunc {channel} {} to {stored}", v.text));
        self.emit(format!("{back} = fpext {stored} {h} to {channel}"));
        self.emit(format!(
            "{ab} = call {channel} @llvm.fabs.{m}({channel} {back})"
        ));
        self.emit(format!(
            "{av} = call {channel} @llvm.fabs.{m}({channel} {})",
            v.text
        ));
        self.emit(format!("{over} = fcmp ogt {channel} {ab}, {av}"));
        self.emit(format!("{hb} = bitcast {stored} {h} to {bits}"));
        let one = constant(bits, "1");
        self.emit(format!("{dec} = sub {bits} {hb}, {one}"));
        let cond = if bits == "i16" { "i1" } else { "<4 x i1>" };
        self.emit(format!(
            "{sel} = select {cond} {over}, {bits} {dec}, {bits} {hb}"
        ));
        self.emit(format!("{t} = bitcast {bits} {sel} to {stored}"));
        t
    }

    /// `imageWidth()` (`lane` 0) or `imageHeight()` (1) of the image handle `var`.
    pub(crate) fn cpu_image_size(&mut self, var: &str, lane: u32) -> Val {
        let t = self.tmp();
        let field = if lane == 0 { "w" } else { "h" };
        self.emit(format!("{t} = or i32 {var}.{field}, 0"));
        Val::new(t, "i32")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texel_types_follow_the_formats() {
        assert_eq!(stored_texel(ImageFormat::Rgba8), "<4 x i8>");
        assert_eq!(stored_texel(ImageFormat::R16f), "half");
        assert_eq!(
            constant("<4 x float>", "1.0"),
            "<float 1.0, float 1.0, float 1.0, float 1.0>"
        );
        assert_eq!(constant("float", "1.0"), "1.0");
    }
}
