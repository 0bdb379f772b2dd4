//! Inputs shared by the unit tests of [`crate::radius`] and [`crate::rough`].

/// Every 0-1 sequence of length `n` (as u32), by bitmask.
pub(crate) fn zero_one(n: usize) -> impl Iterator<Item = Vec<u32>> {
    (0u32..1 << n).map(move |m| (0..n).map(|i| (m >> i) & 1).collect())
}

/// A xorshift64 stream from a nonzero seed (test inputs).
pub(crate) fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}
