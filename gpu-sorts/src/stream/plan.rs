//! The device budget's arithmetic: what one lane (stream) holds, the chunk size a budget
//! allows, the smallest budget that works.

use sortlab_primitives::{Error, Gpu, Order, Result, SortKey};

use crate::radix::{self, RadixOptions};

/// Streams (lanes) of the streamed passes. Each lane's chain per chunk is host copy in, copy
/// to the device, sort, copy back, host copy out; with three lanes two chunks are on the
/// device (copies in both directions and a sort) while the host copies the third, so the
/// link stays busy even though a lane's own steps are serial. Two lanes leave the link idle
/// while the host copies (the chain is about 3.5 transfer times at 50 GB/s with a sort at
/// 100 GB/s and host copies at 50 GB/s: 1.75 per chunk with two lanes, 1.2 with three).
pub(crate) const LANES: usize = 3;

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
pub(crate) fn chunk_keys<K: SortKey>(budget: usize, value_size: usize, order: Order) -> usize {
    let fits = |c: usize| {
        sort_bytes::<K>(c, value_size, order)
            .and_then(|b| b.checked_mul(LANES))
            .is_some_and(|b| b <= budget)
    };
    // Scratch grows with the length, so `fits` is monotone: bisect.
    let (mut lo, mut hi) = (0usize, budget / (K::SIZE + value_size) + 1);
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
/// `value_size` bytes; 0 for keys only) runs: [`LANES`] lanes of [`MIN_CHUNK_KEYS`] keys.
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
            let (free, _) = gpu.memory_info()?;
            let (held, used) = gpu.pool_memory()?;
            let free = free.saturating_add(held.saturating_sub(used));
            let b = free.saturating_sub(MARGIN_FIXED + free / 16);
            if b < min {
                return Err(Error::OutOfMemory {
                    requested: min + MARGIN_FIXED,
                    free,
                });
            }
            Ok(b)
        }
    }
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
            assert_eq!(chunk_keys::<u64>(min, vs, order), MIN_CHUNK_KEYS);
            assert!(chunk_keys::<u64>(min - 1, vs, order) < MIN_CHUNK_KEYS);
            for budget in [min, 3 * min + 7, 1 << 24, 1 << 30, 80 << 30] {
                let c = chunk_keys::<u64>(budget, vs, order);
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
        assert_eq!(chunk_keys::<u32>(0, 0, Order::Ascending), 0);
    }
}
