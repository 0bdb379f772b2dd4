//! Reference sorts: keys only and key-value pairs, stable and unstable, on rayon or on one
//! thread.
//!
//! Every sort orders keys by IEEE total order ([`SortKey::total_cmp`], as [`f32::total_cmp`]
//! for floats): `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`, never by `PartialOrd`.
//! [`Order::Descending`] is the reverse of that order. These are the sorts every GPU sort must
//! match bit for bit (stable GPU sorts must match the stable ones here exactly, values included).
//!
//! Two keys are equal in total order exactly when their bits are equal, so for keys only the
//! stable and unstable sorts give the same output; they differ in speed. For key-value pairs
//! they differ: a stable sort keeps values of equal keys in input order, in both orders (so a
//! stable descending sort is *not* the reverse of a stable ascending sort).
//!
//! Implementation: keys are compared through their order-preserving bits
//! ([`SortKey::to_ordered_bits`]); pairs are packed as `(bits, value)`, with the bits
//! complemented for descending order, sorted by the bits, and unpacked.

use std::cmp::Reverse;

use rayon::prelude::*;
use sortlab_primitives::{KeyBits, Order, SortKey, SortValue};

use crate::Error;

/// The bits a key sorts by in `order`: its ordered bits, complemented for descending order.
#[inline]
pub(crate) fn rank<K: SortKey>(key: K, order: Order) -> K::Bits {
    let bits = key.to_ordered_bits();
    match order {
        Order::Ascending => bits,
        Order::Descending => complement(bits),
    }
}

/// Bitwise complement of a key word (reverses its order; its own inverse).
#[inline]
fn complement<B: KeyBits>(bits: B) -> B {
    B::from_u64(!bits.to_u64())
}

/// The key whose [`rank`] in `order` is `r`.
#[inline]
pub(crate) fn unrank<K: SortKey>(r: K::Bits, order: Order) -> K {
    match order {
        Order::Ascending => K::from_ordered_bits(r),
        Order::Descending => K::from_ordered_bits(complement(r)),
    }
}

/// Sorts keys in parallel (rayon), stably.
///
/// # Overview
/// A parallel merge sort (rayon's `par_sort_by_key`) on the keys' order-preserving bits. This
/// is the CPU twin of every full GPU sort of keys and the oracle they are checked against.
///
/// # Key types
/// `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, in IEEE total order (NaN, infinities and `-0.0`
/// included: `-NaN < -inf < -0.0 < +0.0 < +inf < +NaN`); `order` picks ascending or descending.
///
/// # Stability
/// Stable. For keys alone this cannot be observed (equal keys are bit-identical), so the output
/// equals [`sort_unstable`]'s.
///
/// # Performance
/// O(n log n) work, O(n) extra memory, on all of rayon's threads. Timed by the `sort` criterion
/// benchmark (`cargo bench -p sortlab-cpu-reference`, ids `sort-{type}-uniform-{len}`).
///
/// # Example
/// ```
/// use sortlab_cpu_reference::sort::sort;
/// use sortlab_primitives::Order;
///
/// let mut keys = [2.0f32, f32::NAN, -0.0, 0.0, f32::NEG_INFINITY, -1.5];
/// sort(&mut keys, Order::Ascending);
/// assert_eq!(keys[..5], [f32::NEG_INFINITY, -1.5, -0.0, 0.0, 2.0]);
/// assert!(keys[0].is_sign_negative() && keys[2].is_sign_negative() && keys[5].is_nan());
///
/// sort(&mut keys, Order::Descending);
/// assert!(keys[0].is_nan());
/// assert_eq!(keys[1..], [2.0, 0.0, -0.0, -1.5, f32::NEG_INFINITY]);
/// assert!(keys[2].is_sign_positive() && keys[3].is_sign_negative());
/// ```
pub fn sort<K: SortKey>(keys: &mut [K], order: Order) {
    match order {
        Order::Ascending => keys.par_sort_by_key(|k| k.to_ordered_bits()),
        Order::Descending => keys.par_sort_by_key(|k| Reverse(k.to_ordered_bits())),
    }
}

/// Sorts keys in parallel (rayon), not necessarily stably.
///
/// # Overview
/// A parallel pattern-defeating quicksort (rayon's `par_sort_unstable_by_key`) on the keys'
/// order-preserving bits.
///
/// # Key types
/// As [`sort`]: the six key types in IEEE total order, ascending or descending.
///
/// # Stability
/// Unstable, which for keys alone cannot be observed: the output equals [`sort`]'s bit for bit.
///
/// # Performance
/// O(n log n) work, O(log n) extra memory, on all of rayon's threads; usually faster than
/// [`sort`]. Timed by the `sort` benchmark (ids `sort_unstable-{type}-uniform-{len}`).
///
/// # Example
/// ```
/// use sortlab_cpu_reference::sort::sort_unstable;
/// use sortlab_primitives::Order;
///
/// let mut keys = [3i64, -7, 0, i64::MIN, 3];
/// sort_unstable(&mut keys, Order::Descending);
/// assert_eq!(keys, [3, 3, 0, -7, i64::MIN]);
/// ```
pub fn sort_unstable<K: SortKey>(keys: &mut [K], order: Order) {
    match order {
        Order::Ascending => keys.par_sort_unstable_by_key(|k| k.to_ordered_bits()),
        Order::Descending => keys.par_sort_unstable_by_key(|k| Reverse(k.to_ordered_bits())),
    }
}

/// Sorts keys on the calling thread, stably.
///
/// # Overview
/// std's stable sort (`sort_by_key`) on the keys' order-preserving bits: the single-threaded
/// twin of [`sort`], for callers already inside a parallel loop.
///
/// # Key types
/// As [`sort`]: the six key types in IEEE total order, ascending or descending.
///
/// # Stability
/// Stable (not observable for keys alone; the output equals [`sort`]'s).
///
/// # Performance
/// O(n log n), O(n) extra memory, one thread.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::sort::sort_seq;
/// use sortlab_primitives::Order;
///
/// let mut keys = [5u32, 1, 4];
/// sort_seq(&mut keys, Order::Ascending);
/// assert_eq!(keys, [1, 4, 5]);
/// ```
pub fn sort_seq<K: SortKey>(keys: &mut [K], order: Order) {
    match order {
        Order::Ascending => keys.sort_by_key(|k| k.to_ordered_bits()),
        Order::Descending => keys.sort_by_key(|k| Reverse(k.to_ordered_bits())),
    }
}

/// Sorts keys on the calling thread, not necessarily stably.
///
/// # Overview
/// std's unstable sort (`sort_unstable_by_key`) on the keys' order-preserving bits.
///
/// # Key types
/// As [`sort`]: the six key types in IEEE total order, ascending or descending.
///
/// # Stability
/// Unstable (not observable for keys alone; the output equals [`sort`]'s).
///
/// # Performance
/// O(n log n), O(1) extra memory, one thread.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::sort::sort_unstable_seq;
/// use sortlab_primitives::Order;
///
/// let mut keys = [0.5f64, -0.5, 0.25];
/// sort_unstable_seq(&mut keys, Order::Descending);
/// assert_eq!(keys, [0.5, 0.25, -0.5]);
/// ```
pub fn sort_unstable_seq<K: SortKey>(keys: &mut [K], order: Order) {
    match order {
        Order::Ascending => keys.sort_unstable_by_key(|k| k.to_ordered_bits()),
        Order::Descending => keys.sort_unstable_by_key(|k| Reverse(k.to_ordered_bits())),
    }
}

/// Whether a pair sort runs on rayon or on the calling thread, stably or not.
#[derive(Clone, Copy)]
enum PairSort {
    Par { stable: bool },
    Seq { stable: bool },
}

/// Packs keys and values as `(rank, value)`, sorts by rank as `how` says, and unpacks.
fn sort_pairs_impl<K: SortKey, V: SortValue>(
    keys: &mut [K],
    values: &mut [V],
    order: Order,
    how: PairSort,
) -> Result<(), Error> {
    Error::check_pairs(keys.len(), values.len())?;
    match how {
        PairSort::Par { stable } => {
            let mut packed: Vec<(K::Bits, V)> = keys
                .par_iter()
                .zip(values.par_iter())
                .map(|(&k, &v)| (rank(k, order), v))
                .collect();
            if stable {
                packed.par_sort_by_key(|p| p.0);
            } else {
                packed.par_sort_unstable_by_key(|p| p.0);
            }
            keys.par_iter_mut()
                .zip(values.par_iter_mut())
                .zip(packed.par_iter())
                .for_each(|((k, v), &(r, pv))| {
                    *k = unrank(r, order);
                    *v = pv;
                });
        }
        PairSort::Seq { stable } => {
            let mut packed: Vec<(K::Bits, V)> = keys
                .iter()
                .zip(values.iter())
                .map(|(&k, &v)| (rank(k, order), v))
                .collect();
            if stable {
                packed.sort_by_key(|p| p.0);
            } else {
                packed.sort_unstable_by_key(|p| p.0);
            }
            for ((k, v), &(r, pv)) in keys.iter_mut().zip(values.iter_mut()).zip(&packed) {
                *k = unrank(r, order);
                *v = pv;
            }
        }
    }
    Ok(())
}

/// Sorts key-value pairs by key in parallel (rayon), stably.
///
/// # Overview
/// `values[i]` travels with `keys[i]`. The pairs are packed as `(ordered bits, value)` (bits
/// complemented for descending order), merge-sorted by the bits with rayon's `par_sort_by_key`,
/// and unpacked into the two slices. This is the oracle for every stable GPU key-value sort.
///
/// # Key types
/// Keys: the six key types in IEEE total order, ascending or descending. Values: any
/// [`SortValue`] (4- or 8-byte plain data), moved and never compared.
///
/// # Stability
/// Stable in both orders: values of equal keys keep their input order, for descending order
/// too (so a stable descending sort is not the reverse of a stable ascending one).
///
/// # Errors
/// [`Error::LengthMismatch`] when `keys` and `values` differ in length; both are then left as
/// they were.
///
/// # Performance
/// O(n log n) work, on all of rayon's threads, with 2 n packed pairs of extra memory (the
/// packed copy and rayon's merge buffer; 8 or 16 bytes a pair).
///
/// # Example
/// ```
/// use sortlab_cpu_reference::sort::sort_pairs;
/// use sortlab_primitives::Order;
///
/// let mut keys = [2u32, 1, 2, 1];
/// let mut values = [0u32, 1, 2, 3];
/// sort_pairs(&mut keys, &mut values, Order::Descending)?;
/// assert_eq!(keys, [2, 2, 1, 1]);
/// assert_eq!(values, [0, 2, 1, 3]); // equal keys keep their input order
/// # Ok::<(), sortlab_cpu_reference::Error>(())
/// ```
pub fn sort_pairs<K: SortKey, V: SortValue>(
    keys: &mut [K],
    values: &mut [V],
    order: Order,
) -> Result<(), Error> {
    sort_pairs_impl(keys, values, order, PairSort::Par { stable: true })
}

/// Sorts key-value pairs by key in parallel (rayon), not necessarily stably.
///
/// # Overview
/// As [`sort_pairs`], with rayon's `par_sort_unstable_by_key` on the packed pairs.
///
/// # Key types
/// As [`sort_pairs`].
///
/// # Stability
/// Unstable: the keys come out as [`sort_pairs`]'s, and each value stays with its key, but
/// values of equal keys may come out in any order.
///
/// # Errors
/// [`Error::LengthMismatch`] when `keys` and `values` differ in length (data left as it was).
///
/// # Performance
/// O(n log n) work on all of rayon's threads, n packed pairs of extra memory.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::sort::sort_pairs_unstable;
/// use sortlab_primitives::Order;
///
/// let mut keys = [0.5f32, -1.0, 0.25];
/// let mut values = [10u64, 20, 30];
/// sort_pairs_unstable(&mut keys, &mut values, Order::Ascending)?;
/// assert_eq!(keys, [-1.0, 0.25, 0.5]);
/// assert_eq!(values, [20, 30, 10]);
/// # Ok::<(), sortlab_cpu_reference::Error>(())
/// ```
pub fn sort_pairs_unstable<K: SortKey, V: SortValue>(
    keys: &mut [K],
    values: &mut [V],
    order: Order,
) -> Result<(), Error> {
    sort_pairs_impl(keys, values, order, PairSort::Par { stable: false })
}

/// Sorts key-value pairs by key on the calling thread, stably.
///
/// # Overview
/// As [`sort_pairs`], with std's stable `sort_by_key`; gives exactly [`sort_pairs`]'s output.
///
/// # Key types
/// As [`sort_pairs`].
///
/// # Stability
/// Stable in both orders, as [`sort_pairs`].
///
/// # Errors
/// [`Error::LengthMismatch`] when `keys` and `values` differ in length (data left as it was).
///
/// # Performance
/// O(n log n), one thread, up to 2 n packed pairs of extra memory.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::sort::sort_pairs_seq;
/// use sortlab_primitives::Order;
///
/// let mut keys = [1i32, -1, 1];
/// let mut values = [0u32, 1, 2];
/// sort_pairs_seq(&mut keys, &mut values, Order::Ascending)?;
/// assert_eq!((keys, values), ([-1, 1, 1], [1, 0, 2]));
/// # Ok::<(), sortlab_cpu_reference::Error>(())
/// ```
pub fn sort_pairs_seq<K: SortKey, V: SortValue>(
    keys: &mut [K],
    values: &mut [V],
    order: Order,
) -> Result<(), Error> {
    sort_pairs_impl(keys, values, order, PairSort::Seq { stable: true })
}

/// Sorts key-value pairs by key on the calling thread, not necessarily stably.
///
/// # Overview
/// As [`sort_pairs_unstable`], with std's `sort_unstable_by_key`.
///
/// # Key types
/// As [`sort_pairs`].
///
/// # Stability
/// Unstable: values of equal keys may come out in any order (each stays with its key).
///
/// # Errors
/// [`Error::LengthMismatch`] when `keys` and `values` differ in length (data left as it was).
///
/// # Performance
/// O(n log n), one thread, n packed pairs of extra memory.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::sort::sort_pairs_unstable_seq;
/// use sortlab_cpu_reference::Error;
/// use sortlab_primitives::Order;
///
/// let mut keys = [1u64, 0];
/// let mut values = [7u32];
/// let err = sort_pairs_unstable_seq(&mut keys, &mut values, Order::Ascending).unwrap_err();
/// assert_eq!(err, Error::LengthMismatch { keys: 2, values: 1 });
/// assert_eq!(keys, [1, 0]); // untouched
/// ```
pub fn sort_pairs_unstable_seq<K: SortKey, V: SortValue>(
    keys: &mut [K],
    values: &mut [V],
    order: Order,
) -> Result<(), Error> {
    sort_pairs_impl(keys, values, order, PairSort::Seq { stable: false })
}
