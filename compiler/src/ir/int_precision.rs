//! Integer precision operations (SPEC §8, the integer half of ncnn's GLSL extension):
//! `Precision.packInt4x8` and friends, plus the packed-lane store that the specialize stage
//! emits for sub-word stores into packed `sint8` / `sint16` storage.

/// One integer precision operation; [`super::Intrinsic::IntPrecision`] carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntPrecisionFn {
    /// `Precision.packInt4x8(Vector<int32,4> v)`: lanes x, y, z, w (each truncated to its low
    /// 8 bits) in the low-to-high bytes of one `int32`.
    PackInt4x8,
    /// `Precision.unpackInt4x8(int32 v)`: the four bytes, low first, sign-extended to a
    /// `Vector<int32,4>`.
    UnpackInt4x8,
    /// `Precision.packInt2x16(Vector<int32,2> v)`: lanes x, y (low 16 bits each) in the low and
    /// high halves of one `int32`.
    PackInt2x16,
    /// `Precision.unpackInt2x16(int32 v)`: the two halves, low first, sign-extended.
    UnpackInt2x16,
    /// `Precision.float2int8(float32 v)` / `float2int8vec4(Vector<float32,4> v)`: round half
    /// away from zero, saturate to [-127, 127]; NaN gives 0. Lane by lane on vectors.
    Float2Int8,
    /// Internal (no stdlib name): `[buf, lane, value]` stores the low `bits` (8 or 16) of the
    /// `int32` `value` into logical lane `lane` of a `KernelBuffer<int32>` holding `32 / bits`
    /// lanes per word, low lane first. It is a compare-exchange loop on the containing word,
    /// so adjacent lanes written by different threads never lose an update.
    StoreLane(u8),
    /// `Precision.i8ld1/i8ld4/i16ld1/i16ld4(buf, i)`: `buf[i]` as the arithmetic type.
    Ld,
    /// `Precision.i16ld2(buf, i)`: lanes `i` and `i + 1` of a scalar buffer as a vector.
    Ld2,
    /// `Precision.i8sm4/i16sm4(buf, i)`: `buf[i]` in its raw storage form (the packed word
    /// of a `Vector<sint8,4>`).
    Sm,
    /// `Precision.i8st1/i8st4/i16st1/i16st4(buf, i, v)`: `buf[i] = v`.
    St,
    /// `Precision.i16st2(buf, i, v)`: lanes `i` and `i + 1` of a scalar buffer.
    St2,
    /// `Precision.i8cp1/i8cp4/i16cp1/i16cp4(dst, i, src, j)`: `dst[i] = src[j]`, moving bits.
    Cp,
    /// `Precision.i8cp1to4(dst, i, src, j)`: `dst[i] = (src[j.x], src[j.y], src[j.z], src[j.w])`.
    Cp1to4,
    /// `Precision.i8cp4to1(dst, i, src, j)`: `dst[i.x] = src[j].x` … `dst[i.w] = src[j].w`.
    Cp4to1,
    /// `Precision.lint162aint16(v)` / `lint162aint16vec4(v)`: a local (or storage) value as
    /// its arithmetic type.
    Arith,
}

impl IntPrecisionFn {
    /// Every function a stdlib `@Intrinsic("int_precision.<name>")` can name.
    pub const NAMED: [(IntPrecisionFn, &'static str); 14] = [
        (IntPrecisionFn::PackInt4x8, "packInt4x8"),
        (IntPrecisionFn::UnpackInt4x8, "unpackInt4x8"),
        (IntPrecisionFn::PackInt2x16, "packInt2x16"),
        (IntPrecisionFn::UnpackInt2x16, "unpackInt2x16"),
        (IntPrecisionFn::Float2Int8, "float2int8"),
        (IntPrecisionFn::Ld, "ld"),
        (IntPrecisionFn::Ld2, "ld2"),
        (IntPrecisionFn::Sm, "sm"),
        (IntPrecisionFn::St, "st"),
        (IntPrecisionFn::St2, "st2"),
        (IntPrecisionFn::Cp, "cp"),
        (IntPrecisionFn::Cp1to4, "cp1to4"),
        (IntPrecisionFn::Cp4to1, "cp4to1"),
        (IntPrecisionFn::Arith, "arith"),
    ];

    /// The operation an `@Intrinsic` suffix names.
    pub fn from_name(name: &str) -> Option<IntPrecisionFn> {
        IntPrecisionFn::NAMED
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(f, _)| *f)
    }

    /// Whether the host interpreter can run it (the pure functions, not buffer accesses).
    pub fn host_evaluable(self) -> bool {
        matches!(
            self,
            IntPrecisionFn::PackInt4x8
                | IntPrecisionFn::UnpackInt4x8
                | IntPrecisionFn::PackInt2x16
                | IntPrecisionFn::UnpackInt2x16
                | IntPrecisionFn::Float2Int8
        )
    }

    /// Whether it is an explicit buffer access (`Precision.i8ld1` …), which the specialize
    /// stage desugars to loads, stores and conversions.
    pub fn is_access(self) -> bool {
        !self.host_evaluable() && !matches!(self, IntPrecisionFn::StoreLane(_))
    }
}

/// Host (and constant-folding) semantics of the pure functions, shared by the interpreter
/// and the tests that check the device against them.
pub mod reference {
    /// `packInt4x8`.
    pub fn pack_int4x8(v: [i32; 4]) -> i32 {
        v.iter()
            .enumerate()
            .fold(0u32, |w, (i, &x)| w | ((x as u32 & 0xFF) << (8 * i))) as i32
    }

    /// `unpackInt4x8`.
    pub fn unpack_int4x8(w: i32) -> [i32; 4] {
        [0, 1, 2, 3].map(|i| i32::from((w >> (8 * i)) as i8))
    }

    /// `packInt2x16`.
    pub fn pack_int2x16(v: [i32; 2]) -> i32 {
        ((v[0] as u32 & 0xFFFF) | ((v[1] as u32 & 0xFFFF) << 16)) as i32
    }

    /// `unpackInt2x16`.
    pub fn unpack_int2x16(w: i32) -> [i32; 2] {
        [i32::from(w as i16), i32::from((w >> 16) as i16)]
    }

    /// `float2int8`: round half away from zero (Rust's `f32::round`), saturate to
    /// [-127, 127], NaN → 0.
    pub fn float2int8(x: f32) -> i32 {
        if x.is_nan() {
            return 0;
        }
        x.clamp(-127.0, 127.0).round() as i32
    }
}

#[cfg(test)]
mod tests {
    use super::reference::*;
    use super::*;

    #[test]
    fn names_round_trip() {
        for (f, n) in IntPrecisionFn::NAMED {
            assert_eq!(IntPrecisionFn::from_name(n), Some(f));
        }
        assert_eq!(IntPrecisionFn::from_name("storeLane"), None);
    }

    #[test]
    fn pack_and_unpack_are_inverse_on_lane_ranges() {
        let v = [-128, 127, -1, 5];
        assert_eq!(pack_int4x8(v) as u32, 0x05FF_7F80);
        assert_eq!(unpack_int4x8(pack_int4x8(v)), v);
        // Out-of-range lanes keep their low byte.
        assert_eq!(
            unpack_int4x8(pack_int4x8([128, 256, -129, 0])),
            [-128, 0, 127, 0]
        );
        let h = [-32768, 32767];
        assert_eq!(pack_int2x16(h) as u32, 0x7FFF_8000);
        assert_eq!(unpack_int2x16(pack_int2x16(h)), h);
        assert_eq!(unpack_int2x16(pack_int2x16([65535, 32768])), [-1, -32768]);
    }

    #[test]
    fn float2int8_rounds_half_away_and_saturates() {
        let cases = [
            (0.5, 1),
            (-0.5, -1),
            (0.499_999_97, 0),
            (1.5, 2),
            (2.5, 3),
            (-2.5, -3),
            (126.5, 127),
            (-126.5, -127),
            (127.0, 127),
            (128.0, 127),
            (-128.0, -127),
            (-127.0, -127),
            (f32::INFINITY, 127),
            (f32::NEG_INFINITY, -127),
            (f32::NAN, 0),
        ];
        for (x, want) in cases {
            assert_eq!(float2int8(x), want, "float2int8({x})");
        }
    }
}
