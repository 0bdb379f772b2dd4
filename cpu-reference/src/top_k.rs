//! Per-array top-k: the `k` first keys of every array in an order, sorted, with their values
//! (the CPU twin of arraysort's top-k: token sampling over rows of logits, the strongest peaks
//! of each spectrum).
//!
//! Array `a` of the result is the first `min(k, len_a)` elements of the stable sort of array
//! `a` in `order`: the `k` smallest keys ascending, or the `k` largest descending, equal keys in
//! input order. An array shorter than `k` gives all its keys (defined, not an error), so the
//! result has its own offsets. Each array is selected in `O(len + k log k)`
//! (`select_nth_unstable_by`, then a sort of the `k` selected), not sorted whole; arrays run in
//! parallel (rayon).
//!
//! ```
//! use sortlab_cpu_reference::top_k::top_k_pairs;
//! use sortlab_primitives::Order;
//! let keys = [0.5f32, 2.0, -1.0, 2.0, 7.0, 3.0];
//! let index: Vec<u32> = (0..6).collect();
//! // Two arrays: keys[0..4] and keys[4..6]; the 3 largest of each.
//! let top = top_k_pairs(&keys, &index, &[0u64, 4, 6], 3, Order::Descending)?;
//! assert_eq!(top.keys, [2.0, 2.0, 0.5, 7.0, 3.0]);
//! assert_eq!(top.values, [1, 3, 0, 4, 5]);
//! assert_eq!(top.offsets, [0, 3, 5]);
//! # Ok::<(), sortlab_cpu_reference::Error>(())
//! ```

use std::cmp::Ordering;

use rayon::prelude::*;
use sortlab_primitives::{Order, SortKey, SortValue};

use crate::arrays::{validate_offsets, ArrayOffset};
use crate::error::Error;

/// The result of a per-array top-k.
#[derive(Clone, Debug, PartialEq)]
pub struct TopK<K, V> {
    /// Every array's selected keys, sorted, back to back.
    pub keys: Vec<K>,
    /// Their values (empty for [`top_k`]).
    pub values: Vec<V>,
    /// Arrays + 1 offsets into `keys`: array `a` holds `min(k, len_a)` keys.
    pub offsets: Vec<u64>,
}

/// The positions, within `keys`, of its first `min(k, len)` elements in the stable sort in
/// `order`, in that sort's order.
fn select<K: SortKey>(keys: &[K], k: usize, order: Order) -> Vec<usize> {
    let by =
        |&i: &usize, &j: &usize| -> Ordering { order.cmp_keys(&keys[i], &keys[j]).then(i.cmp(&j)) };
    let mut idx: Vec<usize> = (0..keys.len()).collect();
    if k == 0 {
        return Vec::new();
    }
    if k < idx.len() {
        idx.select_nth_unstable_by(k - 1, by);
        idx.truncate(k);
    }
    // Positions make every comparison strict: the unstable sort gives the stable order.
    idx.sort_unstable_by(by);
    idx
}

/// [`top_k_pairs`] with values taken from `values` when given.
fn top_k_of<K: SortKey, V: SortValue, O: ArrayOffset>(
    keys: &[K],
    values: Option<&[V]>,
    offsets: &[O],
    k: usize,
    order: Order,
) -> Result<TopK<K, V>, Error> {
    validate_offsets(offsets, keys.len())?;
    if let Some(v) = values {
        Error::check_pairs(keys.len(), v.len())?;
    }
    let per_array: Vec<(Vec<K>, Vec<V>)> = offsets
        .par_windows(2)
        .map(|w| {
            let (s, e) = (w[0].to_u64() as usize, w[1].to_u64() as usize);
            let idx = select(&keys[s..e], k, order);
            let ks = idx.iter().map(|&i| keys[s + i]).collect();
            let vs = values.map_or_else(Vec::new, |v| idx.iter().map(|&i| v[s + i]).collect());
            (ks, vs)
        })
        .collect();
    let mut out = TopK {
        keys: Vec::new(),
        values: Vec::new(),
        offsets: vec![0],
    };
    for (ks, vs) in per_array {
        out.keys.extend(ks);
        out.values.extend(vs);
        out.offsets.push(out.keys.len() as u64);
    }
    Ok(out)
}

/// The first `min(k, len)` keys of every array (cut by `offsets`, checked as
/// [`validate_offsets`] does) in the stable sort in `order`; see the [module
/// documentation](self).
///
/// # Errors
/// [`Error::InvalidArgument`] for offsets that do not cut `keys` into arrays.
pub fn top_k<K: SortKey, O: ArrayOffset>(
    keys: &[K],
    offsets: &[O],
    k: usize,
    order: Order,
) -> Result<TopK<K, u32>, Error> {
    top_k_of::<K, u32, O>(keys, None, offsets, k, order)
}

/// [`top_k`] with each selected key's value (`values[i]` belongs to `keys[i]`): equal keys in
/// input order.
///
/// # Errors
/// As [`top_k`], and [`Error::LengthMismatch`] when `values` is not as long as `keys`.
pub fn top_k_pairs<K: SortKey, V: SortValue, O: ArrayOffset>(
    keys: &[K],
    values: &[V],
    offsets: &[O],
    k: usize,
    order: Order,
) -> Result<TopK<K, V>, Error> {
    top_k_of(keys, Some(values), offsets, k, order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arrays::sort_arrays_pairs;
    use crate::test_inputs::xorshift;

    /// The top-k equals the prefix of every array's stable sort, for every k.
    fn equals_sorted_prefixes<K: SortKey>(keys: &[K], offsets: &[u64]) {
        let index: Vec<u32> = (0..keys.len() as u32).collect();
        for order in [Order::Ascending, Order::Descending] {
            let (mut sk, mut sv) = (keys.to_vec(), index.clone());
            sort_arrays_pairs(&mut sk, &mut sv, offsets, order, true).unwrap();
            for k in [0, 1, 2, 3, 7, 64, 1000] {
                let top = top_k_pairs(keys, &index, offsets, k, order).unwrap();
                let mut want = TopK {
                    keys: Vec::new(),
                    values: Vec::new(),
                    offsets: vec![0],
                };
                for w in offsets.windows(2) {
                    let (s, e) = (w[0] as usize, w[1] as usize);
                    let end = e.min(s + k);
                    want.keys.extend_from_slice(&sk[s..end]);
                    want.values.extend_from_slice(&sv[s..end]);
                    want.offsets.push(want.keys.len() as u64);
                }
                let same_bits = top.keys.len() == want.keys.len()
                    && top
                        .keys
                        .iter()
                        .zip(&want.keys)
                        .all(|(a, b)| a.to_ordered_bits() == b.to_ordered_bits());
                assert!(same_bits, "{} k={k} {order:?}", K::NAME);
                assert_eq!(top.values, want.values, "k={k} {order:?}");
                assert_eq!(top.offsets, want.offsets, "k={k} {order:?}");
                let alone = top_k(keys, offsets, k, order).unwrap();
                assert_eq!((alone.offsets, alone.values.len()), (want.offsets, 0));
            }
        }
    }

    #[test]
    fn equals_the_prefix_of_the_stable_sort() {
        let mut next = xorshift(11);
        let keys: Vec<u32> = (0..3000).map(|_| (next() % 50) as u32).collect();
        let offsets = [0u64, 0, 1, 2, 21, 500, 500, 2999, 3000];
        equals_sorted_prefixes(&keys, &offsets);
        let floats: Vec<f64> = [f64::NAN, -0.0, 0.0, 1.0, -f64::NAN, 1.0, f64::INFINITY]
            .iter()
            .cycle()
            .take(700)
            .copied()
            .collect();
        equals_sorted_prefixes(&floats, &[0, 7, 100, 100, 699, 700]);
        equals_sorted_prefixes::<i64>(&[], &[0]);
    }

    #[test]
    fn bad_input_is_an_error() {
        let keys = [1u32, 2, 3];
        assert!(top_k(&keys, &[0u64, 4], 1, Order::Ascending).is_err());
        assert!(top_k(&keys, &[0u64, 2, 1, 3], 1, Order::Ascending).is_err());
        let e = top_k_pairs(&keys, &[0u64; 2], &[0u64, 3], 1, Order::Ascending).unwrap_err();
        assert!(matches!(e, Error::LengthMismatch { .. }), "{e}");
    }
}
