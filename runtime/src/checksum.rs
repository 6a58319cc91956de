//! FNV-1a, 64 bits: the checksum of the on-disk caches (the compile cache's entries, the
//! pipeline-cache file). Its definition is fixed (offset basis `0xcbf29ce484222325`, prime
//! `0x100000001b3`), so a file written by one build verifies in any other, unlike std's
//! `DefaultHasher`, whose algorithm may change between Rust releases. It finds damage (flipped
//! bits, truncation, stray writes), not tampering.

const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0100_0000_01b3;

/// A running FNV-1a 64 hash: feed it with [`Fnv1a64::update`], read it with
/// [`Fnv1a64::finish`].
#[derive(Clone, Copy, Debug)]
pub struct Fnv1a64(u64);

impl Default for Fnv1a64 {
    fn default() -> Self {
        Self::new()
    }
}

impl Fnv1a64 {
    /// The hash of no bytes.
    pub const fn new() -> Self {
        Fnv1a64(OFFSET_BASIS)
    }

    /// The hash after `bytes` more (usable in constants).
    #[must_use]
    pub const fn update(self, bytes: &[u8]) -> Self {
        let mut h = self.0;
        let mut i = 0;
        while i < bytes.len() {
            h ^= bytes[i] as u64;
            h = h.wrapping_mul(PRIME);
            i += 1;
        }
        Fnv1a64(h)
    }

    /// The hash of everything fed so far.
    pub const fn finish(self) -> u64 {
        self.0
    }
}

/// The FNV-1a 64 hash of `bytes`.
pub const fn fnv1a64(bytes: &[u8]) -> u64 {
    Fnv1a64::new().update(bytes).finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_published_test_vectors() {
        // From the FNV reference test suite (Fowler, Noll, Vo).
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
        // Fed in pieces, the same.
        assert_eq!(
            Fnv1a64::new().update(b"foo").update(b"bar").finish(),
            fnv1a64(b"foobar")
        );
    }
}
