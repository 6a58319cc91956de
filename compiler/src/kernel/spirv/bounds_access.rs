//! Checked mode for the accesses that span more than one index: a cooperative-matrix tile
//! load or store (every element of the tile, given its offset, stride and layout) and a
//! texture `fetch`/`fetchLod` (the level against the mip count, the texel against that
//! level's size). `vload`/`vstore` and packed lane stores use `bounds.rs`'s index checks with
//! their own site kinds. The site kinds and the values they report are documented on
//! `cajeta_runtime::CheckSite::kind`.

use rspirv::dr::Operand;
use rspirv::spirv::{Capability, Op, Word};

use super::bounds::Guard;
use super::function::FnCx;
use super::{BuildExt, Res};
use crate::diagnostics::Span;
use crate::ir::ScalarType;

/// A cooperative-matrix tile as a bounds check sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tile {
    /// Rows and columns of the matrix.
    pub(crate) rows: u32,
    pub(crate) cols: u32,
    /// `CooperativeMatrixLayout`: 0 row-major, 1 column-major.
    pub(crate) layout: u32,
    /// Bytes of one matrix component and of one element of the memory it is in.
    pub(crate) component_bytes: u32,
    pub(crate) element_bytes: u32,
}

impl Tile {
    /// The number of rows (row-major) or columns (column-major) the stride steps over.
    fn lines(self) -> u32 {
        if self.layout == 1 {
            self.cols
        } else {
            self.rows
        }
    }

    /// Memory elements one row (column) of the tile covers: the components' bytes rounded up
    /// to whole elements (a float16 tile in a buffer of 128-bit vectors covers 2 per row of 16).
    fn line_elements(self) -> u32 {
        let line = if self.layout == 1 {
            self.rows
        } else {
            self.cols
        };
        (line * self.component_bytes).div_ceil(self.element_bytes.max(1))
    }
}

impl FnCx<'_, '_> {
    /// Checks that every element of a tile at `offset` (of integer type `ty`) with `stride`
    /// (`uint32`) lies in memory of length `len` (`uint32`, or `uint64` when `wide`: an
    /// addressed buffer): `offset + (lines - 1) * stride + line_elements <= len`. Returns the
    /// offset to form the pointer with (0 when out of bounds; a `uint64` when `wide`) and the
    /// guard, reported as site `(resource, kind)` with the tile's shape.
    pub(crate) fn check_tile(
        &mut self,
        (offset, ty): (Word, ScalarType),
        stride: Word,
        (len, wide): (Word, bool),
        tile: Tile,
        site: (&str, &'static str),
        span: Span,
    ) -> Res<(Word, Guard)> {
        let uint = self.cx.u32_type();
        let bool_ty = self.cx.bool_type();
        let (lo, hi) = self.index_words(offset, ty, span)?;
        let (steps, width) = (tile.lines().saturating_sub(1), tile.line_elements());
        let (ok, safe, len_lo, len_hi) = if wide {
            let u64_ty = self.cx.int_type(64, false);
            let o = self.widen_index(offset, ty, span)?;
            let s = self.op(Op::UConvert, u64_ty, &[stride])?;
            let steps = self
                .cx
                .const_int(ScalarType::U64, i128::from(steps), span)?;
            let width = self
                .cx
                .const_int(ScalarType::U64, i128::from(width), span)?;
            // With the offset below the length (< 2^63) the sum cannot wrap.
            let start_in = self.op(Op::ULessThan, bool_ty, &[o, len])?;
            let rows = self.op(Op::IMul, u64_ty, &[steps, s])?;
            let end = self.op(Op::IAdd, u64_ty, &[o, rows])?;
            let end = self.op(Op::IAdd, u64_ty, &[end, width])?;
            let end_in = self.op(Op::ULessThanEqual, bool_ty, &[end, len])?;
            let ok = self.op(Op::LogicalAnd, bool_ty, &[start_in, end_in])?;
            let zero = self.cx.const_int(ScalarType::U64, 0, span)?;
            let safe = self.op(Op::Select, u64_ty, &[ok, o, zero])?;
            let (len_lo, len_hi) = self.split_u64(len, span)?;
            (ok, safe, len_lo, len_hi)
        } else {
            // In 32 bits without overflow: width <= len, offset <= len - width, and
            // steps * stride <= len - width - offset (a false earlier test makes a later
            // subtraction's wrap irrelevant).
            let zero = self.cx.const_u32(0);
            let width = self.cx.const_u32(width);
            let mut ok = self.op(Op::IEqual, bool_ty, &[hi, zero])?;
            let fits = self.op(Op::ULessThanEqual, bool_ty, &[width, len])?;
            ok = self.op(Op::LogicalAnd, bool_ty, &[ok, fits])?;
            let room = self.op(Op::ISub, uint, &[len, width])?;
            let start_in = self.op(Op::ULessThanEqual, bool_ty, &[lo, room])?;
            ok = self.op(Op::LogicalAnd, bool_ty, &[ok, start_in])?;
            if steps > 0 {
                let left = self.op(Op::ISub, uint, &[room, lo])?;
                let steps = self.cx.const_u32(steps);
                let most = self.op(Op::UDiv, uint, &[left, steps])?;
                let stride_in = self.op(Op::ULessThanEqual, bool_ty, &[stride, most])?;
                ok = self.op(Op::LogicalAnd, bool_ty, &[ok, stride_in])?;
            }
            let safe = self.op(Op::Select, uint, &[ok, lo, zero])?;
            (ok, safe, len, zero)
        };
        let shape = [tile.rows, tile.cols, tile.layout, width];
        let (resource, kind) = site;
        let id = self.new_site((resource, kind, &shape), ty.is_signed_integer(), span);
        let guard = Guard::new(self.cx, ok, id, &[lo, hi, len_lo, len_hi, stride]);
        Ok((safe, guard))
    }

    /// Checks a texture fetch of the hoisted `image` (`hoist.rs`): `level` (`uint32`; `None` for `fetch`, level 0, which always
    /// exists) below the image's level count and every coordinate of `coords` (`uint32` each,
    /// signed when `signed`) below that level's size. `layered`: the last coordinate is an
    /// array layer. Returns the coordinate and the level to fetch with (all 0 when out of
    /// bounds) and the guard: site kind `fetch lod` (coordinates, level, sizes, levels) or
    /// `fetch` (coordinates, sizes: a 2-D fetch reports through the short report).
    pub(crate) fn check_fetch(
        &mut self,
        image: Word,
        (coords, signed, layered): (&[Word], bool, bool),
        level: Option<Word>,
        resource: &str,
        span: Span,
    ) -> Res<(Vec<Word>, Word, Guard)> {
        let uint = self.cx.u32_type();
        let bool_ty = self.cx.bool_type();
        self.cx.features.require(Capability::ImageQuery);
        let zero = self.cx.const_u32(0);
        let (level_ok, safe_level, levels) = match level {
            Some(level) => {
                let levels = self.hoisted(Op::ImageQueryLevels, uint, &[Operand::IdRef(image)])?;
                let ok = self.op(Op::ULessThan, bool_ty, &[level, levels])?;
                // The size is queried at a level that exists.
                let safe = self.op(Op::Select, uint, &[ok, level, zero])?;
                (Some(ok), safe, Some(levels))
            }
            None => (None, zero, None),
        };
        let n = coords.len() as u32;
        let size_ty = match n {
            1 => uint,
            _ => self.cx.vector_type(uint, n),
        };
        // Level 0's size is the same for the whole launch: queried once (`hoist.rs`).
        let size = match level {
            None => {
                let at = [Operand::IdRef(image), Operand::IdRef(safe_level)];
                self.hoisted(Op::ImageQuerySizeLod, size_ty, &at)?
            }
            Some(_) => self.op(Op::ImageQuerySizeLod, size_ty, &[image, safe_level])?,
        };
        let mut sizes = Vec::new();
        let mut ok = level_ok;
        for (k, &c) in coords.iter().enumerate() {
            let s = match n {
                1 => size,
                _ => self
                    .cx
                    .b
                    .composite_extract(uint, None, size, [k as u32])
                    .ice(span)?,
            };
            let inside = self.op(Op::ULessThan, bool_ty, &[c, s])?;
            ok = Some(match ok {
                Some(ok) => self.op(Op::LogicalAnd, bool_ty, &[ok, inside])?,
                None => inside,
            });
            sizes.push(s);
        }
        let ok = ok.unwrap_or(self.cx.const_bool(true));
        let mut safe = Vec::new();
        for &c in coords {
            safe.push(self.op(Op::Select, uint, &[ok, c, zero])?);
        }
        let shape = [n, u32::from(layered)];
        let (Some(level), Some(levels)) = (level, levels) else {
            let values: Vec<Word> = coords.iter().chain(&sizes).copied().collect();
            let id = self.new_site((resource, "fetch", &shape), signed, span);
            return Ok((safe, zero, Guard::new(self.cx, ok, id, &values)));
        };
        let safe_level = self.op(Op::Select, uint, &[ok, level, zero])?;
        let mut values = [zero; 8];
        values[..coords.len()].copy_from_slice(coords);
        values[3] = level;
        values[4..4 + sizes.len()].copy_from_slice(&sizes);
        values[7] = levels;
        let id = self.new_site((resource, "fetch lod", &shape), signed, span);
        Ok((safe, safe_level, Guard::new(self.cx, ok, id, &values)))
    }
}
