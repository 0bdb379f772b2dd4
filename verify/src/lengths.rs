//! Edge-case lengths (DESIGN.md §5): 0, 1, 2, warp and block sizes ±1, tile sizes ±1,
//! powers of two ±1, and large.

/// Warp size of every NVIDIA GPU.
pub const WARP: usize = 32;

/// Block sizes whose neighbourhoods every suite visits (common threads per block).
pub const BLOCKS: [usize; 2] = [256, 1024];

/// The largest `k` for which `2^k - 1, 2^k, 2^k + 1` are in [`edge_lengths`].
pub const MAX_POW2_EXP: u32 = 16;

/// Lengths past the powers of two, still quick on a CPU: a round one and an odd one.
pub const LARGER: [usize; 2] = [100_000, (1 << 18) + 3];

/// Lengths at which sorts break: 0, 1, 2; the warp size 32 and block sizes 256, 1024, each
/// with its neighbours ±1; every size in `tiles` and its neighbours ±1 (an algorithm's tile,
/// e.g. items per block); `2^k - 1, 2^k, 2^k + 1` for `k` in `2..=16`; and [`LARGER`].
/// Sorted ascending, without duplicates.
///
/// # Example
/// ```
/// let l = sortlab_verify::edge_lengths(&[2304]);
/// assert_eq!(&l[..3], &[0, 1, 2]);
/// for n in [31, 32, 33, 255, 257, 1023, 1025, 2303, 2304, 2305, 65537, 100_000] {
///     assert!(l.contains(&n), "{n}");
/// }
/// assert!(l.windows(2).all(|w| w[0] < w[1]));
/// ```
pub fn edge_lengths(tiles: &[usize]) -> Vec<usize> {
    let mut v = vec![0, 1, 2];
    let around = |v: &mut Vec<usize>, c: usize| {
        v.extend([c.saturating_sub(1), c, c.saturating_add(1)]);
    };
    around(&mut v, WARP);
    for b in BLOCKS {
        around(&mut v, b);
    }
    for &t in tiles {
        around(&mut v, t);
    }
    for k in 2..=MAX_POW2_EXP {
        around(&mut v, 1 << k);
    }
    v.extend(LARGER);
    v.sort_unstable();
    v.dedup();
    v
}

/// Large lengths for GPU runs (and slow CPU runs): just past 2^20, an odd length near 2^22,
/// and 2^24 - 1. Each is at most 2^24 elements, so 8-byte key-value inputs fit any GPU.
///
/// # Example
/// ```
/// assert!(sortlab_verify::large_lengths().contains(&((1 << 24) - 1)));
/// ```
pub fn large_lengths() -> Vec<usize> {
    vec![(1 << 20) + 3, (1 << 22) + 1, (1 << 24) - 1]
}

/// Lengths past 2^31 and 2^32 elements, for checking index arithmetic where device memory
/// allows (DESIGN.md §3): 2^31 + 1 and 2^32 + 3. Not used by [`crate::sort_suite!`].
pub fn huge_lengths() -> Vec<usize> {
    vec![(1 << 31) + 1, (1 << 32) + 3]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_present_and_sorted() {
        let l = edge_lengths(&[]);
        for n in [
            0, 1, 2, 31, 32, 33, 255, 256, 257, 1023, 1024, 1025, 3, 5, 65535, 65536,
        ] {
            assert!(l.contains(&n), "{n}");
        }
        assert!(l.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(l.last(), Some(&((1 << 18) + 3)));
        let t = edge_lengths(&[0, 1, 7000]);
        for n in [6999, 7000, 7001] {
            assert!(t.contains(&n));
        }
        assert!(t.windows(2).all(|w| w[0] < w[1]));
        assert!(edge_lengths(&[usize::MAX]).contains(&usize::MAX));
        assert!(large_lengths().iter().all(|&n| n > 1 << 20));
        assert!(huge_lengths().iter().all(|&n| n as u64 > 1 << 31));
    }
}
