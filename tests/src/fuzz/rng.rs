//! The one random number generator of the fuzz campaign: xorshift64*, seeded through
//! splitmix64 so that input `i` of seed `s` is reproducible on its own (`Rng::for_input`)
//! without replaying the inputs before it.

/// xorshift64*: deterministic and tiny; statistical quality is irrelevant here, only
/// reproducibility from `(seed, input index)` matters.
#[derive(Clone, Debug)]
pub struct Rng(u64);

/// splitmix64's finalizer: spreads nearby seeds (0, 1, 2, …) over the whole state space.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// A generator from a seed (any value, 0 included: the state is mixed and never 0).
    pub fn new(seed: u64) -> Rng {
        Rng(mix(seed) | 1)
    }

    /// The generator of input `index` of a campaign seeded with `seed`.
    pub fn for_input(seed: u64, index: u64) -> Rng {
        Rng::new(mix(seed) ^ mix(index.wrapping_mul(0xD6E8_FEB8_6659_FD93)))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// A value in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent as usize
    }

    /// A random element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn inputs_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4).map(|i| Rng::for_input(7, i).next_u64()).collect();
        let b: Vec<u64> = (0..4).map(|i| Rng::for_input(7, i).next_u64()).collect();
        assert_eq!(a, b);
        assert!(a.windows(2).all(|w| w[0] != w[1]));
        assert_ne!(Rng::for_input(8, 0).next_u64(), a[0]);
    }
}
