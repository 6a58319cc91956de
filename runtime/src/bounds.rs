//! Checked mode on the runtime side: kernels compiled with `cajetac run --checked` declare a
//! violation-record binding (`Reflection::bounds_check`). Each launch of such a kernel binds
//! a fresh zeroed record (pooled per stream), and once the launch's batch has finished the
//! record is read: the first violation of the submission becomes
//! [`crate::RuntimeError::OutOfBounds`], returned by the `sync()`, download or
//! `Event::wait_host()` that waited for it.

use std::fmt;

use crate::pipeline::Kernel;
use crate::reflection::BoundsCheck;
use crate::resources::Buffer;
use crate::stream::CommandId;

/// The first out-of-bounds access of a checked launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundsViolation {
    /// The kernel's name.
    pub kernel: String,
    /// The launch (as [`crate::Stream::launch`] returned it).
    pub command: CommandId,
    /// The buffer, shared array, image or texture, by its source name.
    pub resource: String,
    /// What was accessed: [`crate::reflection::CheckSite::kind`].
    pub kind: String,
    /// The index: for an element, a `vload`/`vstore` or a packed lane `[i]`; for an image
    /// texel `[x, y]`; for a cooperative-matrix tile `[offset, stride]`; for a texture fetch
    /// the coordinates, then the level (0 for `fetch`).
    pub index: Vec<i64>,
    /// The length: `[length]` (in lanes for a packed lane); for an image `[width, height]`;
    /// for a texture fetch the level's size, then (`fetch lod`) the number of levels.
    pub length: Vec<u64>,
    /// The access's extent ([`crate::reflection::CheckSite::shape`]).
    pub shape: Vec<u32>,
    /// `file:line:col` of the access when the reflection carries it (else empty).
    pub position: String,
    /// The compiler's file id and byte offset of the access (`CheckSite::file`/`offset`).
    pub site: (u32, u32),
    /// How many accesses of the launch were out of bounds.
    pub count: u32,
}

impl BoundsViolation {
    /// The message without the position, by kind (docs/language.md lists them):
    /// `kernel `k`: index 1000016 out of bounds for `out` of length 16`; `texel (17, 3) out
    /// of bounds for `img` of size 16x16`; `vload of 4 elements at index 9 (elements 36..39)
    /// out of bounds for `b` of length 38`; `packed 8-bit lane store at index 12 out of bounds
    /// for `b` of length 12`; `CoopMatrix load of a 16x16 row-major tile at offset 16 with
    /// stride 16 out of bounds for `b` of length 256 (its last element is 271)`; `fetch of
    /// texel (16, 3) at level 0 out of bounds for `t` of size 16x16 at that level`; `fetch at
    /// level 3 out of bounds for `t` with 2 levels`.
    pub fn message(&self) -> String {
        let (k, r) = (&self.kernel, &self.resource);
        let what = match self.kind.as_str() {
            "image" => {
                let [x, y] = pair(&self.index);
                let [w, h] = pair(&self.length);
                format!("texel ({x}, {y}) out of bounds for `{r}` of size {w}x{h}")
            }
            "vload" | "vstore" => {
                let n = i128::from(self.shape.first().copied().unwrap_or(1));
                let i = i128::from(self.first_index());
                format!(
                    "{} of {n} elements at index {i} (elements {}..{}) out of bounds for `{r}` of length {}",
                    self.kind,
                    n * i,
                    n * i + n - 1,
                    self.first_length()
                )
            }
            "lane store" => format!(
                "packed {}-bit lane store at index {} out of bounds for `{r}` of length {}",
                self.shape.first().copied().unwrap_or(8),
                self.first_index(),
                self.first_length()
            ),
            "coop load" | "coop store" => self.coop_message(),
            "barrier" => {
                let [x, y] = pair(&self.index);
                let [arrived, size] = pair(&self.length);
                format!(
                    "`{r}` reached by {arrived} of the {size} invocations of workgroup ({x}, {y}); every invocation of a workgroup must reach each barrier"
                )
            }
            "fetch" | "fetch lod" => self.fetch_message(),
            _ => format!(
                "index {} out of bounds for `{r}` of length {}",
                self.first_index(),
                self.first_length()
            ),
        };
        format!("kernel `{k}`: {what}")
    }

    fn first_index(&self) -> i64 {
        self.index.first().copied().unwrap_or_default()
    }

    fn first_length(&self) -> u64 {
        self.length.first().copied().unwrap_or_default()
    }

    /// A cooperative-matrix tile: its shape, layout, offset and stride, and the last element
    /// it would touch.
    fn coop_message(&self) -> String {
        let [rows, cols, column_major, line] = [0, 1, 2, 3].map(|j| self.shape.get(j).copied());
        let (rows, cols) = (rows.unwrap_or(0), cols.unwrap_or(0));
        let column_major = column_major == Some(1);
        let [offset, stride] = pair(&self.index);
        let lines = if column_major { cols } else { rows };
        let last = i128::from(offset)
            + i128::from(lines.saturating_sub(1)) * i128::from(stride)
            + i128::from(line.unwrap_or(1))
            - 1;
        format!(
            "CoopMatrix {} of a {rows}x{cols} {} tile at offset {offset} with stride {stride} out of bounds for `{}` of length {} (its last element is {last})",
            self.kind.trim_start_matches("coop "),
            if column_major { "column-major" } else { "row-major" },
            self.resource,
            self.first_length()
        )
    }

    /// A texture fetch: a level past the texture's levels, or a texel past the level's size.
    fn fetch_message(&self) -> String {
        let n = self.shape.first().map_or(2, |&n| n as usize).clamp(1, 3);
        let layered = self.shape.get(1) == Some(&1);
        let r = &self.resource;
        let level = self.index.get(n).copied().unwrap_or_default();
        // A `fetch lod` site records the number of levels; `fetch` reads level 0.
        if let Some(&levels) = self.length.get(n) {
            if level < 0 || level as u64 >= levels {
                return format!(
                    "fetch at level {level} out of bounds for `{r}` with {levels} level(s)"
                );
            }
        }
        let coords = &self.index[..n.min(self.index.len())];
        let size = &self.length[..n.min(self.length.len())];
        let join = |v: Vec<String>, sep: &str| v.join(sep);
        let (texel, extent) = match (layered, coords, size) {
            (true, [c @ .., layer], [s @ .., layers]) => (
                format!(
                    "({}) in layer {layer}",
                    join(c.iter().map(i64::to_string).collect(), ", ")
                ),
                format!(
                    "{} with {layers} layer(s)",
                    join(s.iter().map(u64::to_string).collect(), "x")
                ),
            ),
            (_, [x], [w]) => (x.to_string(), w.to_string()),
            _ => (
                format!(
                    "({})",
                    join(coords.iter().map(i64::to_string).collect(), ", ")
                ),
                join(size.iter().map(u64::to_string).collect(), "x"),
            ),
        };
        format!("fetch of texel {texel} at level {level} out of bounds for `{r}` of size {extent} at that level")
    }
}

/// The first two values (0 where missing).
fn pair<T: Copy + Default>(v: &[T]) -> [T; 2] {
    [0, 1].map(|j| v.get(j).copied().unwrap_or_default())
}

impl fmt::Display for BoundsViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.position.is_empty() {
            write!(f, "{}: ", self.position)?;
        }
        f.write_str(&self.message())
    }
}

/// A checked launch whose record is read when its batch finishes.
pub(crate) struct PendingCheck {
    pub(crate) record: Buffer,
    pub(crate) kernel: Kernel,
    pub(crate) command: CommandId,
}

/// Bytes of one violation record.
pub(crate) const RECORD_BYTES: u64 = (BoundsCheck::RECORD_WORDS * 4) as u64;

impl PendingCheck {
    /// The violation the record holds, if any.
    pub(crate) fn violation(&self) -> Option<BoundsViolation> {
        let w = self.record.read_words();
        if w.len() < BoundsCheck::RECORD_WORDS || w[0] == 0 {
            return None;
        }
        let check = self.kernel.reflection().bounds_check.as_ref()?;
        let site = check.sites.get(w[2] as usize)?;
        let (index, length) = values(&site.kind, site.signed, &site.shape, &w[3..]);
        Some(BoundsViolation {
            kernel: self.kernel.name().to_string(),
            command: self.command,
            resource: site.resource.clone(),
            kind: site.kind.clone(),
            index,
            length,
            shape: site.shape.clone(),
            position: site.position.clone(),
            site: (site.file, site.offset),
            count: w[1],
        })
    }
}

/// The index and length vectors of [`BoundsViolation`] from a record's values `v` (words
/// `[3..]`) for a site of `kind` ([`crate::reflection::CheckSite::kind`]).
fn values(kind: &str, signed: bool, shape: &[u32], v: &[u32]) -> (Vec<i64>, Vec<u64>) {
    let word = |j: usize| v.get(j).copied().unwrap_or_default();
    // A 32-bit coordinate, signed when the site's index is.
    let coord = |j: usize| match signed {
        true => i64::from(word(j) as i32),
        false => i64::from(word(j)),
    };
    let wide = |j: usize| (u64::from(word(j + 1)) << 32) | u64::from(word(j));
    let index = match signed {
        true => wide(0) as i64,
        false => i64::try_from(wide(0)).unwrap_or(i64::MAX),
    };
    match kind {
        "image" => (
            vec![coord(0), coord(1)],
            vec![u64::from(word(2)), u64::from(word(3))],
        ),
        "fetch" => {
            // Level 0: coordinates v[0..n], sizes v[n..2n].
            let n = shape.first().map_or(2, |&n| n as usize).clamp(1, 3);
            let mut index: Vec<i64> = (0..n).map(coord).collect();
            index.push(0);
            (index, (n..2 * n).map(|j| u64::from(word(j))).collect())
        }
        "fetch lod" => {
            // Coordinates v[0..n], the level v[3]; sizes v[4..4+n], the levels v[7].
            let n = shape.first().map_or(2, |&n| n as usize).clamp(1, 3);
            let mut index: Vec<i64> = (0..n).map(coord).collect();
            index.push(i64::from(word(3)));
            let mut length: Vec<u64> = (4..4 + n).map(|j| u64::from(word(j))).collect();
            length.push(u64::from(word(7)));
            (index, length)
        }
        "coop load" | "coop store" => (vec![index, i64::from(word(4))], vec![wide(2)]),
        // The arrivals and the workgroup's size; the workgroup's x and y.
        "barrier" => (
            vec![i64::from(word(2)), i64::from(word(3))],
            vec![u64::from(word(0)), u64::from(word(1))],
        ),
        _ => (vec![index], vec![wide(2)]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn violation(kind: &str, signed: bool, shape: &[u32], v: [u32; 8]) -> BoundsViolation {
        let (index, length) = values(kind, signed, shape, &v);
        BoundsViolation {
            kernel: "k".into(),
            command: CommandId(0),
            resource: "r".into(),
            kind: kind.into(),
            index,
            length,
            shape: shape.to_vec(),
            position: String::new(),
            site: (0, 0),
            count: 1,
        }
    }

    #[test]
    fn each_kind_has_its_message() {
        let cases = [
            (
                violation("buffer", true, &[], [u32::MAX, u32::MAX, 16, 0, 0, 0, 0, 0]),
                "kernel `k`: index -1 out of bounds for `r` of length 16",
            ),
            (
                violation("buffer", false, &[], [5, 1, 100, 0, 0, 0, 0, 0]),
                "kernel `k`: index 4294967301 out of bounds for `r` of length 100",
            ),
            (
                violation("vstore", false, &[2], [3, 0, 7, 0, 0, 0, 0, 0]),
                "kernel `k`: vstore of 2 elements at index 3 (elements 6..7) out of bounds for `r` of length 7",
            ),
            (
                violation("lane store", false, &[16], [8, 0, 8, 0, 0, 0, 0, 0]),
                "kernel `k`: packed 16-bit lane store at index 8 out of bounds for `r` of length 8",
            ),
            (
                violation("coop store", false, &[16, 8, 1, 8], [0, 0, 100, 0, 10, 0, 0, 0]),
                "kernel `k`: CoopMatrix store of a 16x8 column-major tile at offset 0 with stride 10 out of bounds for `r` of length 100 (its last element is 77)",
            ),
            (
                violation("fetch", false, &[1, 0], [20, 20, 0, 0, 0, 0, 0, 0]),
                "kernel `k`: fetch of texel 20 at level 0 out of bounds for `r` of size 20 at that level",
            ),
            (
                violation("fetch lod", true, &[3, 0], [1, u32::MAX, 3, 1, 2, 2, 2, 2]),
                "kernel `k`: fetch of texel (1, -1, 3) at level 1 out of bounds for `r` of size 2x2x2 at that level",
            ),
            (
                violation("fetch", false, &[2, 1], [3, 3, 4, 3, 0, 0, 0, 0]),
                "kernel `k`: fetch of texel (3) in layer 3 at level 0 out of bounds for `r` of size 4 with 3 layer(s) at that level",
            ),
            (
                violation("fetch lod", false, &[2, 0], [0, 0, 0, 2, 16, 7, 0, 2]),
                "kernel `k`: fetch at level 2 out of bounds for `r` with 2 level(s)",
            ),
            (
                violation("barrier", false, &[], [56, 64, 1, 0, 0, 0, 0, 0]),
                "kernel `k`: `r` reached by 56 of the 64 invocations of workgroup (1, 0); every invocation of a workgroup must reach each barrier",
            ),
        ];
        for (v, want) in cases {
            assert_eq!(v.message(), want);
        }
    }
}
