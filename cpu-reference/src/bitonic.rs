//! Bitonic sorting networks on rayon (the CPU twin of `sortlab_gpu_sorts::bitonic`).
//!
//! # Overview
//! [`sort_keys`] and [`sort_pairs`] run the network of the GPU's fast bitonic sort: the
//! all-ascending form of Batcher's network, for any length n. Stage k = 2, 4, ..., up to the
//! next power of two >= n merges each block of k elements whose halves are sorted: first the
//! mirror step (element `i` of the block's lower half against element `k - 1 - i`), then
//! half-cleaners of distance `k/4, ..., 1` (`i` against `i + j` in each run of `2j`). Every
//! comparator puts the smaller key at its lower index, and a comparator whose upper index is
//! `>= n` is skipped, which is exactly the network on the input padded with `+inf` to a power
//! of two (the padding never moves; `sortlab_gpu_sorts::bitonic` has the proof). Each step is
//! one parallel pass: rayon `par_chunks_mut` over the step's blocks, and inside a large block
//! a parallel zip over its pairs.
//!
//! It is the CPU side of the bitonic reproduction (the same network, step for step, as the
//! GPU's), and an oracle for it; as a sort it is slow next to [`crate::sort`]:
//! O(n log² n) comparisons.
//!
//! # Key types
//! `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, compared by [`SortKey::total_cmp`] (IEEE total
//! order for floats: `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`); both orders.
//! Values: any [`SortValue`].
//!
//! # Stability
//! Unstable: equal keys may change their order (so may the values of equal keys). Keys alone
//! equal [`crate::sort::sort`]'s result bit for bit.
//!
//! # Performance
//! `log2(N) (log2(N) + 1) / 2` parallel passes over the data (N the next power of two >= n),
//! each n/2 compare-exchanges or fewer; no extra memory.
//!
//! # Example
//! ```
//! use sortlab_cpu_reference::bitonic::{sort_keys, sort_pairs};
//! use sortlab_primitives::Order;
//!
//! let mut keys = [2.5f64, -0.0, f64::NAN, 0.0, f64::NEG_INFINITY];
//! sort_keys(&mut keys, Order::Ascending);
//! assert_eq!(keys[..4], [f64::NEG_INFINITY, -0.0, 0.0, 2.5]);
//! assert!(keys[1].is_sign_negative() && keys[4].is_nan());
//!
//! let mut k = [3u32, 1, 2];
//! let mut v = [30u64, 10, 20];
//! sort_pairs(&mut k, &mut v, Order::Descending)?;
//! assert_eq!((k, v), ([3, 2, 1], [30, 20, 10]));
//! # Ok::<(), sortlab_cpu_reference::Error>(())
//! ```

use std::cmp::Ordering;

use rayon::prelude::*;
use sortlab_primitives::{Order, SortKey, SortValue};

use crate::Error;

/// Pairs per rayon task, at least: a block of a step with fewer pairs is one task's work (with
/// others beside it), a larger one is split. Handing a task to rayon's pool costs about as
/// much as a few thousand compare-exchanges (order of magnitude, not tuned).
const MIN_PAIRS_PER_TASK: usize = 1 << 12;

/// Exchanges `(a, pa)` and `(b, pb)` when `b` goes strictly before `a` in `order`.
#[inline]
fn compare_exchange<K: SortKey, T>(a: &mut K, b: &mut K, pa: &mut T, pb: &mut T, order: Order) {
    if order.cmp_keys(b, a) == Ordering::Less {
        std::mem::swap(a, b);
        std::mem::swap(pa, pb);
    }
}

/// One step on one block of `block` elements (`keys.len() <= block`, the last block possibly
/// shorter): the mirror step (`mirror`) or a half-cleaner of distance `block / 2`; pairs whose
/// upper index is past the slice are skipped.
fn block_step<K: SortKey, T: Send>(
    keys: &mut [K],
    payload: &mut [T],
    block: usize,
    mirror: bool,
    order: Order,
) {
    let half = block / 2;
    if keys.len() <= half {
        return;
    }
    let (lo, hi) = keys.split_at_mut(half);
    let (plo, phi) = payload.split_at_mut(half);
    let h = hi.len();
    if mirror {
        // Upper element q pairs with lower element half - 1 - q.
        let (lo, plo) = (&mut lo[half - h..], &mut plo[half - h..]);
        if h >= 2 * MIN_PAIRS_PER_TASK {
            lo.par_iter_mut()
                .zip(plo.par_iter_mut())
                .rev()
                .zip(hi.par_iter_mut().zip(phi.par_iter_mut()))
                .with_min_len(MIN_PAIRS_PER_TASK)
                .for_each(|((a, pa), (b, pb))| compare_exchange(a, b, pa, pb, order));
        } else {
            lo.iter_mut()
                .zip(plo.iter_mut())
                .rev()
                .zip(hi.iter_mut().zip(phi.iter_mut()))
                .for_each(|((a, pa), (b, pb))| compare_exchange(a, b, pa, pb, order));
        }
    } else {
        let (lo, plo) = (&mut lo[..h], &mut plo[..h]);
        if h >= 2 * MIN_PAIRS_PER_TASK {
            lo.par_iter_mut()
                .zip(plo.par_iter_mut())
                .zip(hi.par_iter_mut().zip(phi.par_iter_mut()))
                .with_min_len(MIN_PAIRS_PER_TASK)
                .for_each(|((a, pa), (b, pb))| compare_exchange(a, b, pa, pb, order));
        } else {
            lo.iter_mut()
                .zip(plo.iter_mut())
                .zip(hi.iter_mut().zip(phi.iter_mut()))
                .for_each(|((a, pa), (b, pb))| compare_exchange(a, b, pa, pb, order));
        }
    }
}

/// One step over the whole input: every block of `block` elements in parallel.
fn step<K: SortKey, T: Send>(
    keys: &mut [K],
    payload: &mut [T],
    block: usize,
    mirror: bool,
    order: Order,
) {
    let blocks_per_task = (MIN_PAIRS_PER_TASK / (block / 2)).max(1);
    keys.par_chunks_mut(block)
        .zip(payload.par_chunks_mut(block))
        .with_min_len(blocks_per_task)
        .for_each(|(k, p)| block_step(k, p, block, mirror, order));
}

/// The whole network on `keys` with `payload` (the values, or `()` per key) moving along.
fn network<K: SortKey, T: Send>(keys: &mut [K], payload: &mut [T], order: Order) {
    let n = keys.len();
    if n < 2 {
        return;
    }
    let top = n.next_power_of_two();
    let mut k = 2;
    while k <= top {
        step(keys, payload, k, true, order);
        let mut run = k / 2;
        while run >= 2 {
            step(keys, payload, run, false, order);
            run /= 2;
        }
        k *= 2;
    }
}

/// Sorts keys in parallel with the all-ascending bitonic network, for any length.
///
/// # Overview
/// The CPU twin of `sortlab_gpu_sorts::bitonic::sort_keys`; see the
/// [module documentation](self) for the network.
///
/// # Key types
/// The six key types in IEEE total order ([`SortKey::total_cmp`]), ascending or descending.
///
/// # Stability
/// Unstable, which keys alone cannot show: the output equals [`crate::sort::sort`]'s bit for
/// bit.
///
/// # Performance
/// O(n log² n) comparisons in `log2(N) (log2(N) + 1) / 2` parallel passes; no extra memory.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::bitonic::sort_keys;
/// use sortlab_primitives::Order;
/// let mut keys = [3i64, -7, 0, i64::MIN, 3];
/// sort_keys(&mut keys, Order::Descending);
/// assert_eq!(keys, [3, 3, 0, -7, i64::MIN]);
/// ```
pub fn sort_keys<K: SortKey>(keys: &mut [K], order: Order) {
    let mut none = vec![(); keys.len()];
    network(keys, &mut none, order);
}

/// Sorts key-value pairs by key in parallel with the all-ascending bitonic network.
///
/// # Overview
/// `values[i]` travels with `keys[i]`; the CPU twin of
/// `sortlab_gpu_sorts::bitonic::sort_pairs`. See the [module documentation](self).
///
/// # Key types
/// Keys: the six key types in IEEE total order, ascending or descending. Values: any
/// [`SortValue`], moved and never compared.
///
/// # Stability
/// Unstable: the values of equal keys may come out in any order. The keys equal
/// [`crate::sort::sort_pairs`]'s bit for bit.
///
/// # Errors
/// [`Error::LengthMismatch`] when `keys` and `values` differ in length; both are then left as
/// they were.
///
/// # Performance
/// As [`sort_keys`], moving the values too.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::bitonic::sort_pairs;
/// use sortlab_primitives::Order;
/// let mut keys = [0.5f32, -1.0, 2.0];
/// let mut values = [0u32, 1, 2];
/// sort_pairs(&mut keys, &mut values, Order::Ascending)?;
/// assert_eq!((keys, values), ([-1.0, 0.5, 2.0], [1, 0, 2]));
/// # Ok::<(), sortlab_cpu_reference::Error>(())
/// ```
pub fn sort_pairs<K: SortKey, V: SortValue>(
    keys: &mut [K],
    values: &mut [V],
    order: Order,
) -> Result<(), Error> {
    Error::check_pairs(keys.len(), values.len())?;
    network(keys, values, order);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::check_equal;
    use crate::sort;
    use crate::test_inputs::xorshift;

    fn lengths() -> Vec<usize> {
        let mut v: Vec<usize> = (0..70).collect();
        for k in 7..=14 {
            v.extend([(1 << k) - 1, 1 << k, (1 << k) + 1]);
        }
        v.extend([1000, 12_345, 3 * MIN_PAIRS_PER_TASK * 2 + 7, 100_003]);
        v
    }

    /// Keys of several shapes from raw bits: random (NaN, infinities, -0.0 included for
    /// floats), few distinct, all equal, ascending, descending.
    fn inputs<K: SortKey>(n: usize, seed: u64) -> Vec<Vec<K>> {
        let from = |b: u64| K::from_le_slice(&b.to_le_bytes()[..K::SIZE]);
        let mut r = xorshift(seed | 1);
        let random: Vec<K> = (0..n).map(|_| from(r())).collect();
        let few: Vec<K> = (0..n)
            .map(|_| from([0, 1, u64::MAX, 1 << 63][(r() % 4) as usize]))
            .collect();
        let equal: Vec<K> = vec![from(7); n];
        let up: Vec<K> = (0..n as u64).map(from).collect();
        let down: Vec<K> = (0..n as u64).rev().map(from).collect();
        vec![random, few, equal, up, down]
    }

    fn check_type<K: SortKey>() {
        for n in lengths() {
            for input in inputs::<K>(n, n as u64 + 11) {
                for order in [Order::Ascending, Order::Descending] {
                    let mut expected = input.clone();
                    sort::sort(&mut expected, order);
                    let mut keys = input.clone();
                    sort_keys(&mut keys, order);
                    check_equal(&expected, &keys)
                        .unwrap_or_else(|e| panic!("{} n {n} {order:?}: {e}", K::NAME));
                    // Pairs: the keys as the reference, each value with its own key.
                    let mut keys = input.clone();
                    let mut values: Vec<u64> = (0..n as u64).collect();
                    sort_pairs(&mut keys, &mut values, order).unwrap();
                    check_equal(&expected, &keys)
                        .unwrap_or_else(|e| panic!("{} pairs n {n} {order:?}: {e}", K::NAME));
                    let mut seen = vec![false; n];
                    for (k, &v) in keys.iter().zip(&values) {
                        assert_eq!(k.to_ordered_bits(), input[v as usize].to_ordered_bits());
                        assert!(!std::mem::replace(&mut seen[v as usize], true));
                    }
                }
            }
        }
    }

    #[test]
    fn every_type_equals_the_reference() {
        check_type::<u32>();
        check_type::<i32>();
        check_type::<f32>();
        check_type::<u64>();
        check_type::<i64>();
        check_type::<f64>();
    }

    #[test]
    fn special_floats() {
        let input = [
            f64::NAN,
            -0.0,
            0.0,
            f64::INFINITY,
            -f64::NAN,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE / 4.0,
            -1.0,
            0.0,
            -0.0,
            f64::NAN,
        ];
        for order in [Order::Ascending, Order::Descending] {
            let mut expected = input.to_vec();
            sort::sort(&mut expected, order);
            let mut keys = input.to_vec();
            sort_keys(&mut keys, order);
            check_equal(&expected, &keys).unwrap();
        }
    }

    #[test]
    fn mismatched_lengths_leave_the_data() {
        let mut k = [3u32, 1, 2];
        let mut v = [0u32, 1];
        assert_eq!(
            sort_pairs(&mut k, &mut v, Order::Ascending),
            Err(Error::LengthMismatch { keys: 3, values: 2 })
        );
        assert_eq!((k, v), ([3, 1, 2], [0, 1]));
    }
}
