//! Checkers: is a result sorted, a permutation of its input, equal to the reference, k-sorted,
//! in interval order, or sorted array by array?
//!
//! Each `check_*` returns `Ok(())` or a [`CheckError`] that says what is wrong and where (the
//! first offending index, a witness pair, or the key whose count differs). Every comparison is by
//! IEEE total order ([`SortKey::total_cmp`]) in the given [`Order`], and every equality is bit for
//! bit, so NaN payloads and `-0.0` versus `+0.0` count. Linear checks run on rayon for long
//! inputs.

use rayon::prelude::*;
use sortlab_primitives::{Order, SortKey, SortValue};

use crate::sort::rank;
use crate::{CheckError, PAR_MIN_LEN};

/// A key for a message: its value and, in brackets, its ordered bits in hex.
fn fmt_key<K: SortKey>(key: K) -> String {
    format!("{key:?} [0x{:x}]", key.to_ordered_bits())
}

/// The bytes of a value, for bitwise comparison.
fn value_bytes<V: SortValue>(value: &V) -> &[u8] {
    // SAFETY: `V: SortValue` implies `V: DeviceCopy`, whose contract is a `Copy` type with no
    // padding, so all `size_of::<V>()` bytes behind `value` are initialized. The slice borrows
    // `value` for its own lifetime, and `u8` has alignment 1.
    unsafe {
        std::slice::from_raw_parts((value as *const V).cast::<u8>(), std::mem::size_of::<V>())
    }
}

/// A value for a message: its `Debug` form and, in brackets, its bits in hex.
fn fmt_value<V: SortValue>(value: &V) -> String {
    let bytes = value_bytes(value);
    let mut hex = String::with_capacity(2 * bytes.len());
    let mut push = |b: &u8| hex.push_str(&format!("{b:02x}"));
    if cfg!(target_endian = "little") {
        bytes.iter().rev().for_each(&mut push);
    } else {
        bytes.iter().for_each(&mut push);
    }
    format!("{value:?} [0x{hex}]")
}

/// Index of the first `i` with `keys[i]` after `keys[i + 1]` in `order`, if any.
fn first_unsorted<K: SortKey>(keys: &[K], order: Order) -> Option<usize> {
    let out_of_order = |w: &[K]| rank(w[0], order) > rank(w[1], order);
    if keys.len() < PAR_MIN_LEN {
        keys.windows(2).position(out_of_order)
    } else {
        keys.par_windows(2)
            .with_min_len(PAR_MIN_LEN)
            .position_first(out_of_order)
    }
}

/// Whether `keys` is sorted in `order` (by total order; equal neighbours allowed).
///
/// ```
/// use sortlab_cpu_reference::check::is_sorted;
/// use sortlab_primitives::Order;
///
/// assert!(is_sorted(&[-0.0f32, 0.0, f32::NAN], Order::Ascending));
/// assert!(!is_sorted(&[0.0f32, -0.0], Order::Ascending));
/// ```
pub fn is_sorted<K: SortKey>(keys: &[K], order: Order) -> bool {
    first_unsorted(keys, order).is_none()
}

/// Checks that `keys` is sorted in `order` (by total order; equal neighbours allowed).
///
/// # Errors
/// [`CheckError::NotSorted`] with the first `index` such that `keys[index]` follows
/// `keys[index + 1]` in `order`.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::check::check_sorted;
/// use sortlab_cpu_reference::CheckError;
/// use sortlab_primitives::Order;
///
/// assert_eq!(check_sorted(&[3u32, 2, 2, 1], Order::Descending), Ok(()));
/// assert_eq!(
///     check_sorted(&[1u32, 2, 4, 3], Order::Ascending),
///     Err(CheckError::NotSorted { index: 2 })
/// );
/// ```
pub fn check_sorted<K: SortKey>(keys: &[K], order: Order) -> Result<(), CheckError> {
    match first_unsorted(keys, order) {
        None => Ok(()),
        Some(index) => Err(CheckError::NotSorted { index }),
    }
}

/// The ordered bits of `keys`, sorted (in parallel).
fn sorted_bits<K: SortKey>(keys: &[K]) -> Vec<K::Bits> {
    let mut bits: Vec<K::Bits> = keys.par_iter().map(|k| k.to_ordered_bits()).collect();
    bits.par_sort_unstable();
    bits
}

/// Checks that `output` holds the same multiset of keys as `input`, bit for bit.
///
/// Sorts copies of the ordered bits of both (in parallel) and compares them, so it costs
/// O(n log n) time and 2 n words of memory.
///
/// # Errors
/// [`CheckError::LengthMismatch`] (`expected` = input length) when the lengths differ;
/// [`CheckError::NotPermutation`] naming the smallest key (in total order) whose count differs,
/// with both counts.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::check::check_permutation;
/// use sortlab_cpu_reference::CheckError;
///
/// assert_eq!(check_permutation(&[3i32, 1, 3], &[1, 3, 3]), Ok(()));
/// let err = check_permutation(&[0.0f64, 1.0], &[-0.0, 1.0]).unwrap_err();
/// assert!(matches!(err, CheckError::NotPermutation { .. }));
/// ```
pub fn check_permutation<K: SortKey>(input: &[K], output: &[K]) -> Result<(), CheckError> {
    if input.len() != output.len() {
        return Err(CheckError::LengthMismatch {
            expected: input.len(),
            actual: output.len(),
        });
    }
    let a = sorted_bits(input);
    let b = sorted_bits(output);
    let Some(i) = a
        .par_iter()
        .zip(b.par_iter())
        .with_min_len(PAR_MIN_LEN)
        .position_first(|(x, y)| x != y)
    else {
        return Ok(());
    };
    // Both sorted sequences agree before `i`; the smaller of the two words at `i` occurs once
    // more in its own sequence than in the other.
    let v = a[i].min(b[i]);
    let count = |s: &[K::Bits]| s.partition_point(|&x| x <= v) - s.partition_point(|&x| x < v);
    Err(CheckError::NotPermutation {
        detail: format!(
            "key {} occurs {}x in the input but {}x in the output",
            fmt_key(K::from_ordered_bits(v)),
            count(&a),
            count(&b)
        ),
    })
}

/// Checks that `actual` equals `expected` bit for bit (by ordered bits, so `-0.0 != 0.0` and
/// NaNs differ by sign and payload).
///
/// # Errors
/// [`CheckError::LengthMismatch`] when the lengths differ; [`CheckError::Differs`] at the first
/// differing index, with both keys written as `key [0xORDERED_BITS]`.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::check::check_equal;
/// use sortlab_cpu_reference::CheckError;
///
/// assert_eq!(check_equal(&[1.0f32, f32::NAN], &[1.0, f32::NAN]), Ok(()));
/// let err = check_equal(&[1u64, 2, 3], &[1, 2, 4]).unwrap_err();
/// assert!(matches!(err, CheckError::Differs { index: 2, .. }));
/// ```
pub fn check_equal<K: SortKey>(expected: &[K], actual: &[K]) -> Result<(), CheckError> {
    if expected.len() != actual.len() {
        return Err(CheckError::LengthMismatch {
            expected: expected.len(),
            actual: actual.len(),
        });
    }
    let found = expected
        .par_iter()
        .zip(actual.par_iter())
        .with_min_len(PAR_MIN_LEN)
        .position_first(|(e, a)| e.to_ordered_bits() != a.to_ordered_bits());
    match found {
        None => Ok(()),
        Some(index) => Err(CheckError::Differs {
            index,
            expected: fmt_key(expected[index]),
            actual: fmt_key(actual[index]),
        }),
    }
}

/// Checks that key-value pairs `(act_k, act_v)` equal `(exp_k, exp_v)` bit for bit, keys and
/// values both (values are compared as raw bytes, so float values are compared by their bits).
///
/// # Errors
/// [`CheckError::LengthMismatch`] when `act_k` and `exp_k` differ in length, then when `act_v`
/// and `exp_v` do, then when `exp_v` and `exp_k` do (`expected` = key count);
/// [`CheckError::Differs`] at the first index where the key or the value differs, with both
/// pairs written as `key [0xORDERED_BITS] => value [0xBITS]`.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::check::check_pairs_equal;
/// use sortlab_cpu_reference::CheckError;
///
/// assert_eq!(check_pairs_equal(&[1u32, 2], &[0.5f32, 1.5], &[1, 2], &[0.5, 1.5]), Ok(()));
/// let err = check_pairs_equal(&[1u32, 2], &[10u32, 20], &[1, 2], &[20, 10]).unwrap_err();
/// assert!(matches!(err, CheckError::Differs { index: 0, .. }));
/// ```
pub fn check_pairs_equal<K: SortKey, V: SortValue>(
    exp_k: &[K],
    exp_v: &[V],
    act_k: &[K],
    act_v: &[V],
) -> Result<(), CheckError> {
    for (expected, actual) in [
        (exp_k.len(), act_k.len()),
        (exp_v.len(), act_v.len()),
        (exp_k.len(), exp_v.len()),
    ] {
        if expected != actual {
            return Err(CheckError::LengthMismatch { expected, actual });
        }
    }
    let found = (0..exp_k.len())
        .into_par_iter()
        .with_min_len(PAR_MIN_LEN)
        .position_first(|i| {
            exp_k[i].to_ordered_bits() != act_k[i].to_ordered_bits()
                || value_bytes(&exp_v[i]) != value_bytes(&act_v[i])
        });
    match found {
        None => Ok(()),
        Some(index) => Err(CheckError::Differs {
            index,
            expected: format!("{} => {}", fmt_key(exp_k[index]), fmt_value(&exp_v[index])),
            actual: format!("{} => {}", fmt_key(act_k[index]), fmt_value(&act_v[index])),
        }),
    }
}

/// Checks that index values followed their keys through a sort: `values[i]` is a position of
/// `input` (every position named once), `input[values[i]]` equals `keys[i]` bit for bit, and,
/// with `stable`, equal neighbouring keys keep their input order (their values increase).
///
/// Sorting `input` with values `0..n` and passing the result here checks a key-value sort
/// without a reference: combined with [`check_sorted`] or [`check_equal`] on the keys, an
/// unstable sort passes with `stable = false` and a stable one is pinned down exactly with
/// `stable = true` (the values are then the stable reference permutation).
///
/// # Errors
/// [`CheckError::LengthMismatch`] when `keys`, `values` and `input` differ in length (`expected`
/// is the input's); [`CheckError::ValuesDoNotFollow`] at the first output position at fault.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::check::check_index_values;
/// use sortlab_cpu_reference::CheckError;
///
/// let input = [3u32, 1, 3, 0];
/// assert_eq!(check_index_values(&input, &[0, 1, 3, 3], &[3u32, 1, 0, 2], true), Ok(()));
/// assert_eq!(check_index_values(&input, &[0, 1, 3, 3], &[3u64, 1, 2, 0], false), Ok(()));
/// let err = check_index_values(&input, &[0, 1, 3, 3], &[3u32, 1, 2, 0], true).unwrap_err();
/// assert!(matches!(err, CheckError::ValuesDoNotFollow { index: 3, .. }));
/// ```
pub fn check_index_values<K: SortKey, V: SortValue + Into<u64>>(
    input: &[K],
    keys: &[K],
    values: &[V],
    stable: bool,
) -> Result<(), CheckError> {
    for actual in [keys.len(), values.len()] {
        if actual != input.len() {
            return Err(CheckError::LengthMismatch {
                expected: input.len(),
                actual,
            });
        }
    }
    let fault = |index: usize, detail: String| CheckError::ValuesDoNotFollow { index, detail };
    let mut seen = vec![false; input.len()];
    for (i, (&k, &v)) in keys.iter().zip(values).enumerate() {
        let v: u64 = v.into();
        let Some(j) = usize::try_from(v).ok().filter(|&j| j < input.len()) else {
            return Err(fault(i, format!("value {v} is no input position")));
        };
        if std::mem::replace(&mut seen[j], true) {
            return Err(fault(i, format!("value {v} names a position named before")));
        }
        if input[j].to_ordered_bits() != k.to_ordered_bits() {
            return Err(fault(
                i,
                format!(
                    "value {v} belongs to key {}, not {}",
                    fmt_key(input[j]),
                    fmt_key(k)
                ),
            ));
        }
        if stable && i > 0 && keys[i - 1].to_ordered_bits() == k.to_ordered_bits() {
            let before: u64 = values[i - 1].into();
            if before > v {
                return Err(fault(
                    i,
                    format!("equal keys out of input order (values {before} then {v})"),
                ));
            }
        }
    }
    Ok(())
}

/// The radius of `keys` in `order`: the smallest `k` such that the sequence is `k`-sorted, that
/// is `a[i]` precedes-or-equals `a[j]` in `order` for all `i < j - k`.
///
/// Equivalently, the largest distance `j - i` of an inversion (`i < j`, `a[i]` after `a[j]`),
/// or 0 when there is none: a sorted sequence has radius 0, a strictly reversed one of length
/// `n` has radius `n - 1`, and swapping two keys `d` apart in a sorted sequence of distinct keys
/// gives radius `d`. This is the radius of the roughsort papers, and the oracle for
/// `roughsort`'s radius determination.
///
/// # Algorithm
/// With `LR[i] = max(a[0..=i])` (prefix maxima) and `RL[i] = min(a[i..])` (suffix minima), both
/// nondecreasing, `D[i] = max{ i - j : RL[i] < LR[j] } ∪ {0}` and the radius is `max D[i]`.
/// Because `RL` is nondecreasing, the smallest `j` with `LR[j] > RL[i]` never moves left as `i`
/// grows, so one pointer `j` walks with `i`, computing `LR[j]` on the fly: O(n) time on one
/// thread, with `n` words of memory for `RL` (this is
/// [`crate::radius::radius_memory_saving`]; [`crate::radius`] has the other forms).
///
/// # Example
/// ```
/// use sortlab_cpu_reference::check::radius;
/// use sortlab_primitives::Order;
///
/// assert_eq!(radius(&[1u32, 2, 3, 4], Order::Ascending), 0);
/// assert_eq!(radius(&[4u32, 3, 2, 1], Order::Ascending), 3);
/// assert_eq!(radius(&[1u32, 5, 3, 4, 2, 6], Order::Ascending), 3);
/// assert_eq!(radius(&[4u32, 3, 2, 1], Order::Descending), 0);
/// ```
pub fn radius<K: SortKey>(keys: &[K], order: Order) -> usize {
    crate::radius::radius_memory_saving(keys, order)
}

#[doc(hidden)]
pub use crate::radius::radius_naive;

pub use crate::radius::{check_k_sorted, is_k_sorted};

/// Checks that `cuts` is `0 = c[0] <= c[1] <= ... <= c[m] = len`; says what is wrong if not.
fn validate_cuts(cuts: &[usize], len: usize) -> Result<(), String> {
    let (Some(&first), Some(&last)) = (cuts.first(), cuts.last()) else {
        return Err(format!(
            "none given; need at least one entry ([0] for no parts, or [0, {len}])"
        ));
    };
    if first != 0 {
        return Err(format!("first entry is {first}, must be 0"));
    }
    if last != len {
        return Err(format!("last entry is {last}, must be the length {len}"));
    }
    if let Some(i) = cuts.windows(2).position(|w| w[0] > w[1]) {
        return Err(format!(
            "decreasing at entry {i}: {} > {}",
            cuts[i],
            cuts[i + 1]
        ));
    }
    Ok(())
}

/// First position of the smallest and of the largest rank in a non-empty `keys`, offset by
/// `base`: `(min rank, its index, max rank, its index)`.
fn min_max<K: SortKey>(
    keys: &[K],
    base: usize,
    order: Order,
) -> Option<(K::Bits, usize, K::Bits, usize)> {
    let first = rank(*keys.first()?, order);
    let mut acc = (first, base, first, base);
    for (i, &k) in keys.iter().enumerate().skip(1) {
        let r = rank(k, order);
        if r < acc.0 {
            acc.0 = r;
            acc.1 = base + i;
        }
        if r > acc.2 {
            acc.2 = r;
            acc.3 = base + i;
        }
    }
    Some(acc)
}

/// Checks interval order: every key of interval `i` precedes-or-equals (in `order`) every key of
/// every later interval, where interval `i` is `keys[boundaries[i]..boundaries[i + 1]]`.
///
/// `boundaries` has `m + 1` entries for `m` intervals: `0 = b[0] <= b[1] <= ... <= b[m] =
/// keys.len()`. Empty intervals are allowed (and skipped: the intervals on either side of one
/// are compared). Keys within an interval may be in any order. This is the output contract of
/// the interval approximate sort (`approxsort`).
///
/// # Errors
/// [`CheckError::BadBoundaries`] when `boundaries` is empty, does not start at 0 or end at
/// `keys.len()`, or decreases. [`CheckError::IntervalOrder`] for the first non-empty interval
/// whose largest key follows the smallest key of the next non-empty interval; the detail names
/// both keys, their indices and the later interval.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::check::check_interval_order;
/// use sortlab_cpu_reference::CheckError;
/// use sortlab_primitives::Order;
///
/// let keys = [2u32, 1, 3, 5, 4, 5];
/// assert_eq!(check_interval_order(&keys, &[0, 2, 2, 5, 6], Order::Ascending), Ok(()));
/// let err = check_interval_order(&keys, &[0, 4, 6], Order::Ascending).unwrap_err();
/// assert!(matches!(err, CheckError::IntervalOrder { interval: 0, .. }));
/// let err = check_interval_order(&keys, &[0, 4], Order::Ascending).unwrap_err();
/// assert!(matches!(err, CheckError::BadBoundaries(_)));
/// ```
pub fn check_interval_order<K: SortKey>(
    keys: &[K],
    boundaries: &[usize],
    order: Order,
) -> Result<(), CheckError> {
    validate_cuts(boundaries, keys.len()).map_err(CheckError::BadBoundaries)?;
    let extremes: Vec<_> = boundaries
        .par_windows(2)
        .map(|w| min_max(&keys[w[0]..w[1]], w[0], order))
        .collect();
    // The last non-empty interval seen: (its number, max rank, index of the max).
    let mut prev: Option<(usize, K::Bits, usize)> = None;
    for (q, ext) in extremes.into_iter().enumerate() {
        let Some((min_r, min_i, max_r, max_i)) = ext else {
            continue;
        };
        if let Some((p, prev_max, prev_i)) = prev {
            if prev_max > min_r {
                return Err(CheckError::IntervalOrder {
                    interval: p,
                    detail: format!(
                        "keys[{prev_i}] = {} in interval {p} follows keys[{min_i}] = {} in \
                         interval {q} ({order} order)",
                        fmt_key(keys[prev_i]),
                        fmt_key(keys[min_i]),
                    ),
                });
            }
        }
        prev = Some((q, max_r, max_i));
    }
    Ok(())
}

/// Checks that each array is sorted in `order`, where array `a` is `keys[offsets[a]..offsets[a +
/// 1]]` (many small arrays packed back to back, as `arraysort` takes them).
///
/// `offsets` has `m + 1` entries for `m` arrays: `0 = o[0] <= o[1] <= ... <= o[m] =
/// keys.len()`; empty arrays are allowed. Arrays are checked in parallel.
///
/// # Errors
/// [`CheckError::BadOffsets`] when `offsets` is empty, does not start at 0 or end at
/// `keys.len()`, or decreases. [`CheckError::ArrayNotSorted`] for the first unsorted array, with
/// the index *within that array* of the first key out of order with its successor.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::check::check_arrays_sorted;
/// use sortlab_cpu_reference::CheckError;
/// use sortlab_primitives::Order;
///
/// let keys = [1i32, 5, 9, -3, 0, 2, 1];
/// assert_eq!(check_arrays_sorted(&keys[..6], &[0, 3, 3, 6], Order::Ascending), Ok(()));
/// assert_eq!(
///     check_arrays_sorted(&keys, &[0, 3, 7], Order::Ascending),
///     Err(CheckError::ArrayNotSorted { array: 1, index: 2 })
/// );
/// ```
pub fn check_arrays_sorted<K: SortKey>(
    keys: &[K],
    offsets: &[usize],
    order: Order,
) -> Result<(), CheckError> {
    validate_cuts(offsets, keys.len()).map_err(CheckError::BadOffsets)?;
    let found = offsets
        .par_windows(2)
        .enumerate()
        .find_map_first(|(array, w)| {
            first_unsorted(&keys[w[0]..w[1]], order)
                .map(|index| CheckError::ArrayNotSorted { array, index })
        });
    match found {
        None => Ok(()),
        Some(e) => Err(e),
    }
}
