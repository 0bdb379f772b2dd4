//! The device budget's arithmetic: what one lane (stream) holds, the chunk size a budget
//! allows, the smallest budget that works.

use sortlab_primitives::{Error, Gpu, Order, Result, SortKey};

use crate::radix::{self, RadixOptions};

/// Lanes of the streamed passes: each a stream with a chunk's device buffers and scratch,
/// driven by a host thread. A lane's steps are serial (host copies and copy up, sort, copy
/// down and host copies); with three lanes, while one lane's host thread copies, the other
/// two keep the link busy in both directions and the sort running. Two lanes leave the link
/// idle whenever both threads copy on the host; four would shrink the chunks (each lane holds
/// a chunk and its scratch) for little more overlap. Untuned (README.md).
pub const LANES: usize = 3;

/// The smallest chunk: one radix tile (the one-block sort of 4096 keys). Below it chunks are
/// dominated by fixed costs, and the runs (n / chunk) make the selection quadratic.
pub const MIN_CHUNK_KEYS: usize = 4096;

/// Margin left free on the device when no budget is given: 256 MiB plus 1/16 of the free
/// memory (other processes, the driver's own allocations, pool granularity).
const MARGIN_FIXED: usize = 256 << 20;

/// Radix scratch bytes for `n` keys `K` with values of `value_size` bytes (0: keys only).
pub(crate) fn scratch<K: SortKey>(n: usize, value_size: usize, order: Order) -> usize {
    let o = RadixOptions::default().with_order(order);
    match value_size {
        0 => radix::scratch_bytes::<K>(n, &o),
        1..=4 => radix::scratch_bytes_pairs::<K, u32>(n, &o),
        _ => radix::scratch_bytes_pairs::<K, u64>(n, &o),
    }
}

/// Device bytes of one sort of `n` keys (and values) in place: the data and the radix scratch
/// (`None` on overflow).
pub(crate) fn sort_bytes<K: SortKey>(n: usize, value_size: usize, order: Order) -> Option<usize> {
    n.checked_mul(K::SIZE + value_size)?
        .checked_add(scratch::<K>(n, value_size, order))
}

/// The largest chunk whose [`LANES`] lanes fit `budget` (0 when not even one key does).
pub(crate) fn chunk_keys_in<K: SortKey>(budget: usize, value_size: usize, order: Order) -> usize {
    let fits = |c: usize| {
        sort_bytes::<K>(c, value_size, order)
            .and_then(|b| b.checked_mul(LANES))
            .is_some_and(|b| b <= budget)
    };
    // Scratch grows with the length, so `fits` is monotone: bisect.
    largest_fitting(budget / (K::SIZE + value_size), fits)
}

/// The largest `n <= most` with `fits(n)`, for a `fits` that holds up to some length and not
/// beyond (device bytes grow with the length); 0 when no positive length fits. Bisection:
/// how the streamed passes size their chunks from a budget.
///
/// ```
/// use sortlab_gpu_sorts::stream::largest_fitting;
/// assert_eq!(largest_fitting(1000, |n| 3 * n + 10 <= 100), 30);
/// assert_eq!(largest_fitting(1000, |n| n == 0), 0);
/// ```
pub fn largest_fitting(most: usize, fits: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0usize, most.saturating_add(1));
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The smallest device budget with which a streamed sort of keys `K` (with values of
/// `value_size` bytes; 0 for keys only) runs: three lanes (streams) of [`MIN_CHUNK_KEYS`] keys.
///
/// Below it [`super::sort_keys`] and [`super::sort_pairs`] return
/// [`Error::InvalidArgument`] naming it, whatever the input's length.
///
/// # Example
/// ```
/// use sortlab_gpu_sorts::stream::min_device_budget;
/// assert!(min_device_budget::<u32>(0) < min_device_budget::<u64>(8));
/// assert!(min_device_budget::<u32>(0) < 1 << 20);
/// ```
pub fn min_device_budget<K: SortKey>(value_size: usize) -> usize {
    let order = Order::Ascending;
    let lane = sort_bytes::<K>(MIN_CHUNK_KEYS, value_size, order).unwrap_or(usize::MAX);
    lane.saturating_mul(LANES)
}

/// Keys per chunk of a streamed sort of keys `K` (with values of `value_size` bytes; 0 for
/// keys only) under a device budget of `budget` bytes: the largest chunk (found by bisection,
/// which may stop a few percent short where the radix sort's scratch shrinks at a change of
/// tile shape) of which three lanes (streams) fit the budget, each with the chunk's keys and
/// values and the radix scratch of a chunk. Below [`min_device_budget`] it is under [`MIN_CHUNK_KEYS`] (and the sort is
/// refused).
///
/// A streamed sort of `n` keys runs `n.div_ceil(chunk)` chunks in its first pass and as many
/// buckets in its second; inputs of at most [`whole_keys`] keys are sorted in one piece.
///
/// # Example
/// ```
/// use sortlab_gpu_sorts::stream::{budget_for_chunk, chunk_keys, whole_keys};
/// let budget = budget_for_chunk::<u32>(1 << 20, 4);
/// let chunk = chunk_keys::<u32>(budget, 4);
/// assert!(chunk.abs_diff(1 << 20) < 1 << 16);
/// assert!(whole_keys::<u32>(budget, 4) > 2 << 20); // three lanes' room, in one piece
/// ```
pub fn chunk_keys<K: SortKey>(budget: usize, value_size: usize) -> usize {
    chunk_keys_in::<K>(budget, value_size, Order::Ascending)
}

/// The device budget of three lanes of `chunk` keys `K` (with values of `value_size` bytes;
/// 0 for keys only), their values and the radix scratch of a chunk: for benchmarks and tests
/// that want a given chunk count. Its chunks ([`chunk_keys`]) hold about `chunk` keys: a few
/// percent more or less where the radix sort's scratch shrinks at a change of tile shape or
/// portion count (2^19 keys, 2^25 u32/u32 pairs, 2^30 keys); take the exact size from
/// [`chunk_keys`].
pub fn budget_for_chunk<K: SortKey>(chunk: usize, value_size: usize) -> usize {
    sort_bytes::<K>(chunk, value_size, Order::Ascending)
        .unwrap_or(usize::MAX)
        .saturating_mul(LANES)
}

/// The largest input of keys `K` (with values of `value_size` bytes) that a device budget of
/// `budget` bytes sorts in one piece (to the device, sorted, back: two crossings of the
/// link): its keys, values and radix scratch fit the budget.
pub fn whole_keys<K: SortKey>(budget: usize, value_size: usize) -> usize {
    let fits =
        |n: usize| sort_bytes::<K>(n, value_size, Order::Ascending).is_some_and(|b| b <= budget);
    largest_fitting(budget / (K::SIZE + value_size), fits)
}

/// The budget of `opts` for keys `K` (and values): the caller's, or the device's free memory
/// less the margin; [`Error::InvalidArgument`] (a caller's budget) or
/// [`Error::OutOfMemory`] (the device's free memory) below [`min_device_budget`].
pub(crate) fn budget<K: SortKey>(
    gpu: &Gpu,
    device_budget: Option<usize>,
    value_size: usize,
) -> Result<usize> {
    let min = min_device_budget::<K>(value_size);
    match device_budget {
        Some(b) if b < min => Err(Error::InvalidArgument(format!(
            "a device budget of {b} bytes is below the minimum of a streamed sort of {} keys{}: \
             {min} bytes ({LANES} streams of {MIN_CHUNK_KEYS} keys with their radix scratch)",
            K::NAME,
            if value_size > 0 {
                format!(" with {value_size}-byte values")
            } else {
                String::new()
            }
        ))),
        Some(b) => Ok(b),
        None => {
            let b = usable_device_memory(gpu)?;
            if b < min {
                return Err(Error::OutOfMemory {
                    requested: min + MARGIN_FIXED,
                    free: b,
                });
            }
            Ok(b)
        }
    }
}

/// The device memory a streamed pass may take when the caller sets no budget: the device's
/// free memory (with the bytes the stream-ordered pool holds unused) less a margin of 256 MiB
/// and 1/16 of it (other processes, the driver's own allocations, pool granularity).
///
/// # Errors
/// The driver's, reading the free memory.
pub fn usable_device_memory(gpu: &Gpu) -> Result<usize> {
    let (free, _) = gpu.memory_info()?;
    let (held, used) = gpu.pool_memory()?;
    let free = free.saturating_add(held.saturating_sub(used));
    Ok(free.saturating_sub(MARGIN_FIXED + free / 16))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_sizes_fit_their_budget() {
        for (vs, order) in [
            (0, Order::Ascending),
            (4, Order::Descending),
            (8, Order::Ascending),
        ] {
            let min = min_device_budget::<u64>(vs);
            assert_eq!(chunk_keys_in::<u64>(min, vs, order), MIN_CHUNK_KEYS);
            assert!(chunk_keys_in::<u64>(min - 1, vs, order) < MIN_CHUNK_KEYS);
            for budget in [min, 3 * min + 7, 1 << 24, 1 << 30, 80 << 30] {
                let c = chunk_keys_in::<u64>(budget, vs, order);
                let lane = sort_bytes::<u64>(c, vs, order).unwrap();
                assert!(LANES * lane <= budget, "{budget}");
                let next = sort_bytes::<u64>(c + 1, vs, order).unwrap();
                assert!(LANES * next > budget, "{budget}");
                // About budget / (2 lanes' worth of data: keys + scratch) per lane.
                if budget >= 1 << 24 {
                    let per_key = 8 + vs;
                    assert!(c * per_key * 2 * LANES > budget * 9 / 10, "{budget}: {c}");
                }
            }
        }
        assert_eq!(chunk_keys_in::<u32>(0, 0, Order::Ascending), 0);
        // The public helpers plan in ascending order: the scratch does not depend on it.
        for n in [0, 5000, 1 << 19, (1 << 19) + 1, 1 << 25, 3 << 28] {
            for vs in [0, 4, 8] {
                let s = |o| scratch::<f32>(n, vs, o);
                assert_eq!(s(Order::Ascending), s(Order::Descending));
            }
        }
    }

    /// `budget_for_chunk` nearly inverts `chunk_keys` at every chunk size, through every
    /// change of the radix sort's tile shape, and the one-piece limit of a budget is about
    /// three chunks.
    #[test]
    fn budget_for_chunk_inverts_chunk_keys() {
        fn check<K: SortKey>(vs: usize) {
            let mut sizes: Vec<usize> = (0..40).map(|i| MIN_CHUNK_KEYS << (i / 2)).collect();
            for e in radix::edge_lengths(radix::RadixVariant::Fast) {
                sizes.extend([e - 1, e, e + 1, 3 * e + 1].map(|s| s.max(MIN_CHUNK_KEYS)));
            }
            sizes.extend([4097, 20_000, 62_500, 1_000_003, (1 << 25) + 1, 3 << 28]);
            for c in sizes {
                let b = budget_for_chunk::<K>(c, vs);
                let got = chunk_keys::<K>(b, vs);
                // About `c`: a few percent either way where the radix sort's scratch shrinks
                // at a change of tile shape or portion count (2^19 keys, 2^25 pairs, 2^30).
                assert!(
                    got >= c - c / 16 && got <= c + c / 16,
                    "{} vs={vs} c={c}: {got}",
                    K::NAME
                );
                assert!(LANES * sort_bytes::<K>(got, vs, Order::Ascending).unwrap() <= b);
                let w = whole_keys::<K>(b, vs);
                // (Near the minimum the scratch's fixed part is most of a lane.)
                let low = if c >= 1 << 16 { 2 * c } else { c };
                assert!(w >= low && w <= 4 * c, "{} vs={vs} c={c} w={w}", K::NAME);
                assert!(sort_bytes::<K>(w, vs, Order::Ascending).unwrap() <= b);
            }
        }
        for vs in [0, 4, 8] {
            check::<u32>(vs);
            check::<f64>(vs);
        }
        assert_eq!(
            min_device_budget::<u32>(0),
            budget_for_chunk::<u32>(MIN_CHUNK_KEYS, 0)
        );
    }
}
