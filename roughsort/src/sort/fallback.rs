//! When a full radix sort beats the rough sort: the crossover radii and the decision.
//!
//! The rough sort's cost grows with the radius (a merge pass more for every doubling of `k`
//! past a window), a full radix sort's does not, so past some radius `sortlab-gpu-sorts`'
//! radix sort ([`RadixVariant::Fast`](sortlab_gpu_sorts::radix::RadixVariant), stable) is
//! faster. [`full_sort_past_k`] is that radius for a key width and a value width (or keys
//! alone), [`prefers_full_sort`] the decision. The radius pass stops as soon as it has proved
//! the radius past it ([`crate::radius`]: the one-read pass's bound on a long inversion), so the
//! fallback costs one read of the keys on top of the radix sort.

/// 4-byte keys alone sort faster by the rough sort up to this radius, by the radix sort beyond
/// (H100, 2^28 `u32`: 1.06x CUB `SortKeys` at `k = 16,384`, 0.90x at 16,385; README.md).
pub const FULL_SORT_PAST_K_KEYS_4B: usize = 16_384;

/// 8-byte keys alone: the chained path's limit; past it every doubling of `k` adds a merge pass
/// over 8-byte keys. An estimate, not measured at the crossover (README.md).
pub const FULL_SORT_PAST_K_KEYS_8B: usize = 4096;

/// Key-value pairs (H100, 2^28 `u32`/`u32`: 1.20x CUB `SortPairs` at `k = 4096`, 0.88x at
/// 8192); an estimate for wider pairs (README.md).
pub const FULL_SORT_PAST_K_PAIRS: usize = 4096;

/// The largest radius for which the rough sort of keys of `key_size` bytes (with values of
/// `value_size` bytes, or keys alone for `None`) is expected to beat a full radix sort
/// ([`FULL_SORT_PAST_K_KEYS_4B`], [`FULL_SORT_PAST_K_KEYS_8B`], [`FULL_SORT_PAST_K_PAIRS`]).
///
/// ```
/// use sortlab_roughsort::sort::full_sort_past_k;
/// assert_eq!(full_sort_past_k(4, None), 16_384);
/// assert_eq!(full_sort_past_k(8, None), 4096);
/// assert_eq!(full_sort_past_k(4, Some(4)), 4096);
/// ```
pub fn full_sort_past_k(key_size: usize, value_size: Option<usize>) -> usize {
    match (key_size, value_size) {
        (_, Some(_)) => FULL_SORT_PAST_K_PAIRS,
        (0..=4, None) => FULL_SORT_PAST_K_KEYS_4B,
        (_, None) => FULL_SORT_PAST_K_KEYS_8B,
    }
}

/// Whether a full radix sort is predicted faster than the rough sort for radius `k`: `k` past
/// [`full_sort_past_k`].
///
/// ```
/// use sortlab_roughsort::sort::prefers_full_sort;
/// assert!(!prefers_full_sort(16_384, 4, None));
/// assert!(prefers_full_sort(16_385, 4, None));
/// assert!(prefers_full_sort(4097, 4, Some(4)));
/// ```
pub fn prefers_full_sort(k: usize, key_size: usize, value_size: Option<usize>) -> bool {
    k > full_sort_past_k(key_size, value_size)
}

/// Whether the rough sort falls back to a full radix sort past the crossover.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Fallback {
    /// Sort by `sortlab-gpu-sorts`' radix sort where [`prefers_full_sort`] says so
    /// ([`crate::RoughPath::Radix`]).
    #[default]
    Auto,
    /// Always the rough sort's own paths (the report's algorithm at every radius: for
    /// comparisons and for measuring the crossover).
    Never,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_by_key_width_and_values() {
        // 4-byte keys alone: the measured crossover, both sides of it.
        for size in [1, 2, 4] {
            assert!(!prefers_full_sort(16_384, size, None));
            assert!(prefers_full_sort(16_385, size, None));
        }
        // 8-byte keys alone: the estimate.
        assert!(!prefers_full_sort(4096, 8, None));
        assert!(prefers_full_sort(4097, 8, None));
        // Pairs of every width.
        for (key, value) in [(4, 4), (4, 8), (8, 4), (8, 8)] {
            assert!(!prefers_full_sort(4096, key, Some(value)), "{key} {value}");
            assert!(prefers_full_sort(4097, key, Some(value)), "{key} {value}");
        }
        for k in [0, 1, 16, 256, 1024, 4096] {
            for (key, value) in [(4, None), (8, None), (4, Some(4)), (8, Some(8))] {
                assert!(!prefers_full_sort(k, key, value), "k {k}");
            }
        }
        for k in [70_000, 1 << 20, usize::MAX] {
            for (key, value) in [(4, None), (8, None), (4, Some(4)), (8, Some(8))] {
                assert!(prefers_full_sort(k, key, value), "k {k}");
            }
        }
        assert_eq!(Fallback::default(), Fallback::Auto);
    }
}
