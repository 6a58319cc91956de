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
    /// The buffer, shared array or image, by its source name.
    pub resource: String,
    /// `"buffer"`, `"shared"` or `"image"`.
    pub kind: String,
    /// The index; for an image the texel `[x, y]`.
    pub index: Vec<i64>,
    /// The length; for an image `[width, height]`.
    pub length: Vec<u64>,
    /// `file:line:col` of the access when the reflection carries it (else empty).
    pub position: String,
    /// The compiler's file id and byte offset of the access (`CheckSite::file`/`offset`).
    pub site: (u32, u32),
    /// How many accesses of the launch were out of bounds.
    pub count: u32,
}

impl BoundsViolation {
    /// `kernel `k`: index 1000016 out of bounds for `out` of length 16` (for an image:
    /// `texel (17, 3) out of bounds for `img` of size 16x16`), without the position.
    pub fn message(&self) -> String {
        let (k, r) = (&self.kernel, &self.resource);
        match (self.index.as_slice(), self.length.as_slice()) {
            ([x, y], [w, h]) => {
                format!("kernel `{k}`: texel ({x}, {y}) out of bounds for `{r}` of size {w}x{h}")
            }
            _ => format!(
                "kernel `{k}`: index {} out of bounds for `{r}` of length {}",
                self.index.first().copied().unwrap_or_default(),
                self.length.first().copied().unwrap_or_default()
            ),
        }
    }
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
        let (index, length) = if site.kind == "image" {
            let coord = |v: u32| match site.signed {
                true => i64::from(v as i32),
                false => i64::from(v),
            };
            (
                vec![coord(w[3]), coord(w[4])],
                vec![u64::from(w[5]), u64::from(w[6])],
            )
        } else {
            let bits = (u64::from(w[4]) << 32) | u64::from(w[3]);
            let index = match site.signed {
                true => bits as i64,
                false => i64::try_from(bits).unwrap_or(i64::MAX),
            };
            (vec![index], vec![u64::from(w[5])])
        };
        Some(BoundsViolation {
            kernel: self.kernel.name().to_string(),
            command: self.command,
            resource: site.resource.clone(),
            kind: site.kind.clone(),
            index,
            length,
            position: site.position.clone(),
            site: (site.file, site.offset),
            count: w[1],
        })
    }
}
