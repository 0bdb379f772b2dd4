//! The rayon twin of the GPU merge sorts (`sortlab_gpu_sorts::merge`): a stable, parallel,
//! top-down merge sort of keys and key-value pairs.
//!
//! # Overview
//! The input is halved recursively; the halves are sorted in parallel ([`rayon::join`]), each
//! with the matching half of a scratch buffer, then merged into the scratch and copied back.
//! Ranges of at most [`INSERTION_MAX`] elements are sorted by insertion sort. A merge of at
//! least [`PAR_MERGE_MIN`] outputs is itself split in two by a merge-path search (Green,
//! McColl and Bader: the number of elements of the first run among the first half of the
//! outputs) and both halves merged in parallel, the CPU form of the GPU's merge-path
//! partitioning.
//!
//! # Key types
//! `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, compared by [`SortKey::total_cmp`] (IEEE total
//! order for floats: `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`); both orders.
//! Values: any [`SortValue`], moved with their keys and never compared.
//!
//! # Stability
//! Stable in both orders: a merge takes from the second run only when its key goes strictly
//! first, and a descending sort reverses the comparison, not the output, so equal keys keep
//! their input order. The results equal [`crate::sort::sort`] and [`crate::sort::sort_pairs`]
//! bit for bit.
//!
//! # Performance
//! O(n log n) comparisons on all of rayon's threads, log2(n / 16) passes over the data; n
//! elements (keys, or key-value pairs) of scratch.
//!
//! # Example
//! ```
//! use sortlab_cpu_reference::merge::{sort_keys, sort_pairs};
//! use sortlab_primitives::Order;
//!
//! let mut keys = [2.5f32, -0.0, f32::NAN, 0.0, f32::NEG_INFINITY];
//! sort_keys(&mut keys, Order::Ascending);
//! assert_eq!(keys[..4], [f32::NEG_INFINITY, -0.0, 0.0, 2.5]);
//! assert!(keys[1].is_sign_negative() && keys[4].is_nan());
//!
//! let mut k = [1u32, 0, 1, 0];
//! let mut v = [10u64, 11, 12, 13];
//! sort_pairs(&mut k, &mut v, Order::Descending)?;
//! assert_eq!((k, v), ([1, 1, 0, 0], [10, 12, 11, 13]));
//! # Ok::<(), sortlab_cpu_reference::Error>(())
//! ```

use std::cmp::Ordering;

use rayon::prelude::*;
use sortlab_primitives::{Order, SortKey, SortValue};

use crate::Error;

/// Ranges of at most this many elements are sorted by insertion sort (on one thread).
pub const INSERTION_MAX: usize = 16;

/// Ranges shorter than this are sorted on one thread (no `rayon::join` below it).
pub const PAR_SORT_MIN: usize = 1 << 13;

/// Merges of at least this many outputs are split by merge path and run in parallel.
pub const PAR_MERGE_MIN: usize = 1 << 14;

/// Elements copied back from the scratch by one rayon task.
const COPY_CHUNK: usize = 1 << 14;

/// The number of elements of `a` among the first `diag` outputs of the stable merge of `a` and
/// `b` (ties take from `a`), by binary search: the merge-path split of Green, McColl and Bader.
///
/// `less(x, y)`: `x` goes strictly before `y`. `diag` is at most `a.len() + b.len()`.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::merge::merge_path;
/// let (a, b) = ([1, 3, 5], [2, 3, 4]);
/// // The merge is 1 2 3(a) 3(b) 4 5: the first four outputs hold two elements of a.
/// assert_eq!(merge_path(&a, &b, 4, &|x: &i32, y: &i32| x < y), 2);
/// assert_eq!(merge_path(&a, &b, 3, &|x: &i32, y: &i32| x < y), 2);
/// ```
pub fn merge_path<T, F: Fn(&T, &T) -> bool>(a: &[T], b: &[T], diag: usize, less: &F) -> usize {
    let mut lo = diag.saturating_sub(b.len());
    let mut hi = diag.min(a.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        if less(&b[diag - 1 - mid], &a[mid]) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

/// Stable sequential merge of `a` and `b` into `out` (`out.len() == a.len() + b.len()`).
fn merge_seq<T: Copy, F: Fn(&T, &T) -> bool>(a: &[T], b: &[T], out: &mut [T], less: &F) {
    let (mut i, mut j) = (0, 0);
    for o in out.iter_mut() {
        let take_b = j < b.len() && (i >= a.len() || less(&b[j], &a[i]));
        if take_b {
            *o = b[j];
            j += 1;
        } else {
            *o = a[i];
            i += 1;
        }
    }
}

/// Stable merge of `a` and `b` into `out`, split by merge path into parallel halves while it is
/// long.
fn merge_par<T, F>(a: &[T], b: &[T], out: &mut [T], less: &F)
where
    T: Copy + Send + Sync,
    F: Fn(&T, &T) -> bool + Sync,
{
    if out.len() < PAR_MERGE_MIN {
        merge_seq(a, b, out, less);
        return;
    }
    let diag = out.len() / 2;
    let i = merge_path(a, b, diag, less);
    let (a_lo, a_hi) = a.split_at(i);
    let (b_lo, b_hi) = b.split_at(diag - i);
    let (out_lo, out_hi) = out.split_at_mut(diag);
    rayon::join(
        || merge_par(a_lo, b_lo, out_lo, less),
        || merge_par(a_hi, b_hi, out_hi, less),
    );
}

/// Stable insertion sort.
fn insertion_sort<T: Copy, F: Fn(&T, &T) -> bool>(v: &mut [T], less: &F) {
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && less(&x, &v[j - 1]) {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

/// Sorts `v` stably with the scratch `buf` (of `v`'s length).
fn sort_rec<T, F>(v: &mut [T], buf: &mut [T], less: &F)
where
    T: Copy + Send + Sync,
    F: Fn(&T, &T) -> bool + Sync,
{
    let n = v.len();
    if n <= INSERTION_MAX {
        insertion_sort(v, less);
        return;
    }
    let mid = n / 2;
    {
        let (v_lo, v_hi) = v.split_at_mut(mid);
        let (b_lo, b_hi) = buf.split_at_mut(mid);
        if n < PAR_SORT_MIN {
            sort_rec(v_lo, b_lo, less);
            sort_rec(v_hi, b_hi, less);
        } else {
            rayon::join(|| sort_rec(v_lo, b_lo, less), || sort_rec(v_hi, b_hi, less));
        }
    }
    let (a, b) = v.split_at(mid);
    // Already in order (sorted or piecewise sorted input): nothing to merge.
    if !less(&b[0], &a[mid - 1]) {
        return;
    }
    merge_par(a, b, buf, less);
    if n < PAR_SORT_MIN {
        v.copy_from_slice(buf);
    } else {
        v.par_chunks_mut(COPY_CHUNK)
            .zip(buf.par_chunks(COPY_CHUNK))
            .for_each(|(d, s)| d.copy_from_slice(s));
    }
}

/// Sorts `v` stably by `cmp` (`Less`: the first argument goes first).
fn merge_sort_by<T, C>(v: &mut [T], cmp: C)
where
    T: Copy + Send + Sync,
    C: Fn(&T, &T) -> Ordering + Sync,
{
    if v.len() < 2 {
        return;
    }
    let less = |a: &T, b: &T| cmp(a, b) == Ordering::Less;
    let mut buf = v.to_vec();
    sort_rec(v, &mut buf, &less);
}

/// Sorts keys in parallel with a rayon merge sort, stably.
///
/// # Overview
/// See the [module documentation](self). The CPU twin of `sortlab_gpu_sorts::merge::sort_keys`.
///
/// # Key types
/// The six key types in IEEE total order ([`SortKey::total_cmp`]), ascending or descending.
///
/// # Stability
/// Stable (not observable for keys alone: equal keys are equal bit for bit).
///
/// # Performance
/// O(n log n) comparisons on all of rayon's threads, n keys of scratch.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::merge::sort_keys;
/// use sortlab_primitives::Order;
/// let mut keys = [3i64, -7, 0, i64::MIN, 3];
/// sort_keys(&mut keys, Order::Descending);
/// assert_eq!(keys, [3, 3, 0, -7, i64::MIN]);
/// ```
pub fn sort_keys<K: SortKey>(keys: &mut [K], order: Order) {
    merge_sort_by(keys, |a, b| order.cmp_keys(a, b));
}

/// Sorts key-value pairs by key in parallel with a rayon merge sort, stably.
///
/// # Overview
/// `values[i]` travels with `keys[i]`; see the [module documentation](self). The CPU twin of
/// `sortlab_gpu_sorts::merge::sort_pairs`.
///
/// # Key types
/// Keys: the six key types in IEEE total order, ascending or descending. Values: any
/// [`SortValue`], moved and never compared.
///
/// # Stability
/// Stable in both orders: values of equal keys keep their input order; the output equals
/// [`crate::sort::sort_pairs`]'s bit for bit.
///
/// # Errors
/// [`Error::LengthMismatch`] when `keys` and `values` differ in length; both are then left as
/// they were.
///
/// # Performance
/// As [`sort_keys`], on packed (key, value) pairs: n pairs of working memory and n of scratch.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::merge::sort_pairs;
/// use sortlab_primitives::Order;
/// let mut keys = [0.5f32, -1.0, 0.5];
/// let mut values = [0u32, 1, 2];
/// sort_pairs(&mut keys, &mut values, Order::Ascending)?;
/// assert_eq!((keys, values), ([-1.0, 0.5, 0.5], [1, 0, 2]));
/// # Ok::<(), sortlab_cpu_reference::Error>(())
/// ```
pub fn sort_pairs<K: SortKey, V: SortValue>(
    keys: &mut [K],
    values: &mut [V],
    order: Order,
) -> Result<(), Error> {
    Error::check_pairs(keys.len(), values.len())?;
    if keys.len() < 2 {
        return Ok(());
    }
    let mut pairs: Vec<(K, V)> = keys
        .par_iter()
        .zip(values.par_iter())
        .map(|(&k, &v)| (k, v))
        .collect();
    merge_sort_by(&mut pairs, |a, b| order.cmp_keys(&a.0, &b.0));
    keys.par_iter_mut()
        .zip(values.par_iter_mut())
        .zip(pairs.par_iter())
        .for_each(|((k, v), p)| {
            *k = p.0;
            *v = p.1;
        });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sort;
    use crate::test_inputs::xorshift;

    fn raw<K: SortKey>(r: u64) -> K {
        K::from_le_slice(&r.to_le_bytes()[..K::SIZE])
    }

    /// Inputs of `n` keys: random bits, few distinct, ascending, descending, all equal.
    fn inputs<K: SortKey>(n: usize, seed: u64) -> Vec<Vec<K>> {
        let mut next = xorshift(seed | 1);
        let random: Vec<K> = (0..n).map(|_| raw(next())).collect();
        let few: Vec<K> = (0..n)
            .map(|_| raw((next() % 5).wrapping_mul(0x9e37_79b9)))
            .collect();
        let up: Vec<K> = (0..n as u64).map(|i| raw(i)).collect();
        let down: Vec<K> = up.iter().rev().copied().collect();
        let equal: Vec<K> = vec![raw(next()); n];
        vec![random, few, up, down, equal]
    }

    fn check_type<K: SortKey>() {
        for n in [0, 1, 2, 3, 15, 16, 17, 33, 1000, 8191, 8193, 70_001] {
            for (i, input) in inputs::<K>(n, n as u64 + 7).into_iter().enumerate() {
                for order in [Order::Ascending, Order::Descending] {
                    let mut want = input.clone();
                    sort::sort(&mut want, order);
                    let mut got = input.clone();
                    sort_keys(&mut got, order);
                    let same = want
                        .iter()
                        .zip(&got)
                        .all(|(a, b)| a.to_ordered_bits() == b.to_ordered_bits());
                    assert!(same, "keys {} n={n} input {i} {order:?}", K::NAME);

                    let idx: Vec<u32> = (0..n as u32).collect();
                    let (mut wk, mut wv) = (input.clone(), idx.clone());
                    sort::sort_pairs(&mut wk, &mut wv, order).unwrap();
                    let (mut gk, mut gv) = (input.clone(), idx.clone());
                    sort_pairs(&mut gk, &mut gv, order).unwrap();
                    assert_eq!(wv, gv, "pairs {} n={n} input {i} {order:?}", K::NAME);
                    let same = wk
                        .iter()
                        .zip(&gk)
                        .all(|(a, b)| a.to_ordered_bits() == b.to_ordered_bits());
                    assert!(same, "pair keys {} n={n} input {i} {order:?}", K::NAME);
                }
            }
        }
    }

    #[test]
    fn equals_the_stable_reference() {
        check_type::<u32>();
        check_type::<i32>();
        check_type::<f32>();
        check_type::<u64>();
        check_type::<i64>();
        check_type::<f64>();
    }

    #[test]
    fn floats_in_total_order() {
        let mut k = [
            0.0f64,
            f64::NAN,
            -0.0,
            f64::NEG_INFINITY,
            -f64::NAN,
            1.0,
            -0.0,
        ];
        let mut v = [0u64, 1, 2, 3, 4, 5, 6];
        sort_pairs(&mut k, &mut v, Order::Ascending).unwrap();
        assert_eq!(v, [4, 3, 2, 6, 0, 5, 1]);
        sort_pairs(&mut k, &mut v, Order::Descending).unwrap();
        assert_eq!(v, [1, 5, 0, 2, 6, 3, 4]);
    }

    #[test]
    fn large_parallel_merges_are_stable() {
        // Long enough for parallel merges; keys in 0..3 so merge-path splits fall in ties.
        let n = 300_007;
        let mut next = xorshift(99);
        let keys: Vec<u32> = (0..n).map(|_| (next() % 3) as u32).collect();
        let idx: Vec<u64> = (0..n as u64).collect();
        for order in [Order::Ascending, Order::Descending] {
            let (mut wk, mut wv) = (keys.clone(), idx.clone());
            sort::sort_pairs(&mut wk, &mut wv, order).unwrap();
            let (mut gk, mut gv) = (keys.clone(), idx.clone());
            sort_pairs(&mut gk, &mut gv, order).unwrap();
            assert_eq!((wk, wv), (gk, gv), "{order:?}");
        }
    }

    #[test]
    fn merge_path_splits_stably() {
        let less = |x: &u32, y: &u32| x < y;
        let (a, b) = ([1u32, 2, 2, 3], [2u32, 2, 4]);
        // Merge: 1a 2a 2a 2b 2b 3a 4b.
        let want = [0, 1, 2, 3, 3, 3, 4, 4];
        for (diag, &w) in want.iter().enumerate() {
            assert_eq!(merge_path(&a, &b, diag, &less), w, "diag {diag}");
        }
        assert_eq!(merge_path(&[] as &[u32], &b, 2, &less), 0);
        assert_eq!(merge_path(&a, &[], 3, &less), 3);
    }

    #[test]
    fn mismatched_lengths_leave_data() {
        let mut k = [2u32, 1];
        let mut v = [0u32];
        assert_eq!(
            sort_pairs(&mut k, &mut v, Order::Ascending),
            Err(Error::LengthMismatch { keys: 2, values: 1 })
        );
        assert_eq!((k, v), ([2, 1], [0]));
    }
}
