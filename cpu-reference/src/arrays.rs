//! Many small arrays sorted independently (the CPU twin of `sortlab-arraysort`).
//!
//! # Overview
//! Arrays are packed back to back in one key slice and described either by CSR offsets (`m + 1`
//! offsets for `m` arrays: array `a` is `keys[offsets[a]..offsets[a + 1]]`, lengths from 0 up,
//! offsets `u32`, `u64` or `usize`) or by one fixed length (`keys.len() / len` arrays of `len`
//! keys). [`sort_arrays`] and [`sort_arrays_fixed`] sort the keys of every array, and
//! [`sort_arrays_pairs`] / [`sort_arrays_pairs_fixed`] move values with their keys, with rayon
//! over the arrays and std's sort inside each array. [`validate_offsets`] and
//! [`fixed_array_count`] hold the layout rules that the GPU crate checks too;
//! [`check_arrays_permutation`] is the per-array permutation check beside
//! [`crate::check::check_arrays_sorted`].
//!
//! # Key types
//! `u32`, `i32`, `f32`, `u64`, `i64`, `f64` in IEEE total order for floats (as
//! `f32::total_cmp`: `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`), ascending or
//! descending. Values: any [`SortValue`].
//!
//! # Stability
//! With `stable: true`, pairs of equal keys keep their input order in both orders (std's stable
//! sort on the keys' order-preserving bits, so a descending sort is not the reverse of an
//! ascending one); with `stable: false`, values of equal keys may come out in any order. Keys
//! alone have no visible stability.
//!
//! # Errors
//! [`Error::InvalidArgument`] for offsets that break a rule of [`validate_offsets`] or a fixed
//! length that does not divide the key count; [`Error::LengthMismatch`] for keys and values of
//! different lengths. On error nothing is touched.
//!
//! # Performance
//! O(n log n) work in total, arrays spread over rayon's threads (short arrays in groups, so a
//! million arrays of ten keys do not cost a million tasks).
//!
//! # Example
//! ```
//! use sortlab_cpu_reference::arrays::{sort_arrays, sort_arrays_pairs_fixed};
//! use sortlab_primitives::Order;
//!
//! let mut keys = [3u32, 1, 2, 9, 5, 7];
//! sort_arrays(&mut keys, &[0u32, 3, 3, 6], Order::Ascending)?;
//! assert_eq!(keys, [1, 2, 3, 5, 7, 9]);
//!
//! let mut keys = [2.0f32, 1.0, 2.0, 0.5, 0.5, 3.0];
//! let mut values = [0u32, 1, 2, 3, 4, 5];
//! sort_arrays_pairs_fixed(&mut keys, &mut values, 3, Order::Descending, true)?;
//! assert_eq!(values, [0, 2, 1, 5, 3, 4]);
//! # Ok::<(), sortlab_cpu_reference::Error>(())
//! ```

use rayon::prelude::*;
use sortlab_primitives::{Order, SortKey, SortValue};

use crate::sort::{sort_pairs_seq, sort_pairs_unstable_seq, sort_seq};
use crate::{CheckError, Error};

/// An array offset: `u32`, `u64` or `usize`.
pub trait ArrayOffset: Copy + Send + Sync + std::fmt::Debug + 'static {
    /// The offset as a `u64`.
    fn to_u64(self) -> u64;
}

impl ArrayOffset for u32 {
    fn to_u64(self) -> u64 {
        self as u64
    }
}
impl ArrayOffset for u64 {
    fn to_u64(self) -> u64 {
        self
    }
}
impl ArrayOffset for usize {
    fn to_u64(self) -> u64 {
        self as u64
    }
}

/// Checks CSR offsets of arrays packed in `keys` keys: at least one entry, the first 0, the
/// last `keys`, never decreasing (empty arrays are allowed). The same rules, with the same
/// messages, are what `sortlab-arraysort` checks (on the host, or on the device by its
/// `validate`).
///
/// # Errors
/// [`Error::InvalidArgument`] naming the first rule broken.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::arrays::validate_offsets;
/// assert!(validate_offsets(&[0u32, 2, 2, 5], 5).is_ok());
/// assert!(validate_offsets(&[0u64], 0).is_ok());
/// let e = validate_offsets(&[0u32, 3, 2, 5], 5).unwrap_err();
/// assert!(e.to_string().contains("decrease"), "{e}");
/// ```
pub fn validate_offsets<O: ArrayOffset>(offsets: &[O], keys: usize) -> Result<(), Error> {
    validate_offsets_shape(offsets.len(), keys)?;
    let first = offsets[0].to_u64();
    let last = offsets[offsets.len() - 1].to_u64();
    if first != 0 {
        return Err(offsets_error(format!(
            "the first offset is {first}, must be 0"
        )));
    }
    if last != keys as u64 {
        return Err(offsets_error(format!(
            "the last offset is {last}, must be the key count {keys}"
        )));
    }
    let bad = offsets
        .par_windows(2)
        .position_first(|w| w[0].to_u64() > w[1].to_u64());
    if let Some(i) = bad {
        return Err(offsets_error(format!(
            "offsets decrease at entry {i}: {} > {}",
            offsets[i].to_u64(),
            offsets[i + 1].to_u64()
        )));
    }
    Ok(())
}

/// The check of [`validate_offsets`] that needs only the number of offsets: at least one
/// (`[0]` for no arrays). The GPU crate runs it on the host for offsets it keeps on the device.
///
/// # Errors
/// [`Error::InvalidArgument`] when `offsets_len` is 0.
pub fn validate_offsets_shape(offsets_len: usize, keys: usize) -> Result<(), Error> {
    if offsets_len == 0 {
        return Err(offsets_error(format!(
            "no offsets given; m arrays need m + 1 offsets ([0] for none, [0, {keys}] for one)"
        )));
    }
    Ok(())
}

fn offsets_error(what: String) -> Error {
    Error::InvalidArgument(format!("array offsets: {what}"))
}

/// The number of arrays of `len` keys in `keys` keys: `keys / len`.
///
/// # Errors
/// [`Error::InvalidArgument`] when `len` does not divide `keys` (a fixed length of 0 holds only
/// an empty key slice, as zero arrays).
///
/// # Example
/// ```
/// use sortlab_cpu_reference::arrays::fixed_array_count;
/// assert_eq!(fixed_array_count(12, 4).unwrap(), 3);
/// assert_eq!(fixed_array_count(0, 0).unwrap(), 0);
/// assert!(fixed_array_count(10, 4).is_err());
/// ```
pub fn fixed_array_count(keys: usize, len: usize) -> Result<usize, Error> {
    if len == 0 {
        if keys == 0 {
            return Ok(0);
        }
        return Err(Error::InvalidArgument(format!(
            "arrays of fixed length 0 cannot hold {keys} keys"
        )));
    }
    if keys % len != 0 {
        return Err(Error::InvalidArgument(format!(
            "{keys} keys are not a whole number of arrays of {len} keys"
        )));
    }
    Ok(keys / len)
}

/// Keys per rayon task: short arrays are sorted in groups of about this many keys.
const TASK_KEYS: usize = 1 << 14;

/// The array bounds `(start, end)` of offsets known to be valid.
fn bounds<O: ArrayOffset>(offsets: &[O]) -> Vec<(usize, usize)> {
    offsets
        .windows(2)
        .map(|w| (w[0].to_u64() as usize, w[1].to_u64() as usize))
        .collect()
}

/// Runs `f(start, end)` for every array of `bounds` over rayon, in groups of about
/// [`TASK_KEYS`] keys. `f` gets disjoint ranges.
fn for_each_array(bounds: &[(usize, usize)], f: impl Fn(usize, usize) + Sync) {
    // Group consecutive arrays into tasks of about TASK_KEYS keys (and at most TASK_KEYS
    // arrays, so that many empty arrays also split).
    let mut groups = Vec::new();
    let mut start = 0;
    while start < bounds.len() {
        let mut end = start + 1;
        while end < bounds.len()
            && end - start < TASK_KEYS
            && bounds[end].1 - bounds[start].0 <= TASK_KEYS
        {
            end += 1;
        }
        groups.push((start, end));
        start = end;
    }
    groups.par_iter().for_each(|&(a, b)| {
        for &(s, e) in &bounds[a..b] {
            f(s, e);
        }
    });
}

/// A raw pointer that may cross threads: each task touches only its own array's range.
#[derive(Clone, Copy)]
struct Shared<T>(*mut T);
// SAFETY: only used to hand disjoint sub-slices to rayon tasks (see `slice`).
unsafe impl<T: Send> Send for Shared<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Shared<T> {}
impl<T> Shared<T> {
    /// # Safety
    /// `start..end` must be in bounds and no other live slice may overlap it.
    #[allow(clippy::mut_from_ref)]
    unsafe fn slice(&self, start: usize, end: usize) -> &mut [T] {
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.0.add(start), end - start) }
    }
}

fn sort_bounds<K: SortKey>(keys: &mut [K], bounds: &[(usize, usize)], order: Order) {
    let p = Shared(keys.as_mut_ptr());
    for_each_array(bounds, |s, e| {
        // SAFETY: validated offsets give in-bounds, disjoint array ranges.
        let k = unsafe { p.slice(s, e) };
        sort_seq(k, order);
    });
}

fn sort_bounds_pairs<K: SortKey, V: SortValue>(
    keys: &mut [K],
    values: &mut [V],
    bounds: &[(usize, usize)],
    order: Order,
    stable: bool,
) {
    let (pk, pv) = (Shared(keys.as_mut_ptr()), Shared(values.as_mut_ptr()));
    for_each_array(bounds, |s, e| {
        // SAFETY: validated offsets give in-bounds, disjoint array ranges; values has the keys'
        // length.
        let (k, v) = unsafe { (pk.slice(s, e), pv.slice(s, e)) };
        // The lengths are equal, so these cannot fail.
        let _ = if stable {
            sort_pairs_seq(k, v, order)
        } else {
            sort_pairs_unstable_seq(k, v, order)
        };
    });
}

fn fixed_bounds(keys: usize, len: usize) -> Result<Vec<(usize, usize)>, Error> {
    let m = fixed_array_count(keys, len)?;
    Ok((0..m).map(|a| (a * len, a * len + len)).collect())
}

/// Sorts every array of `keys` described by `offsets` in `order`.
///
/// See the [module documentation](self) for the layout, key types and errors.
pub fn sort_arrays<K: SortKey, O: ArrayOffset>(
    keys: &mut [K],
    offsets: &[O],
    order: Order,
) -> Result<(), Error> {
    validate_offsets(offsets, keys.len())?;
    sort_bounds(keys, &bounds(offsets), order);
    Ok(())
}

/// Sorts every array of `len` consecutive keys of `keys` in `order`.
///
/// See the [module documentation](self) for the layout, key types and errors.
pub fn sort_arrays_fixed<K: SortKey>(
    keys: &mut [K],
    len: usize,
    order: Order,
) -> Result<(), Error> {
    let b = fixed_bounds(keys.len(), len)?;
    sort_bounds(keys, &b, order);
    Ok(())
}

/// Sorts every array of `keys` described by `offsets` in `order`, `values[i]` moving with
/// `keys[i]`; stably (ties keep their input order) when `stable`.
///
/// See the [module documentation](self) for the layout, key types, stability and errors.
pub fn sort_arrays_pairs<K: SortKey, V: SortValue, O: ArrayOffset>(
    keys: &mut [K],
    values: &mut [V],
    offsets: &[O],
    order: Order,
    stable: bool,
) -> Result<(), Error> {
    Error::check_pairs(keys.len(), values.len())?;
    validate_offsets(offsets, keys.len())?;
    sort_bounds_pairs(keys, values, &bounds(offsets), order, stable);
    Ok(())
}

/// Sorts every array of `len` consecutive keys in `order`, `values[i]` moving with `keys[i]`;
/// stably when `stable`.
///
/// See the [module documentation](self) for the layout, key types, stability and errors.
pub fn sort_arrays_pairs_fixed<K: SortKey, V: SortValue>(
    keys: &mut [K],
    values: &mut [V],
    len: usize,
    order: Order,
    stable: bool,
) -> Result<(), Error> {
    Error::check_pairs(keys.len(), values.len())?;
    let b = fixed_bounds(keys.len(), len)?;
    sort_bounds_pairs(keys, values, &b, order, stable);
    Ok(())
}

/// Checks that every array of `output` is a permutation of the same array of `input` (the same
/// multiset of keys, bit for bit), arrays as given by `offsets`.
///
/// # Errors
/// [`CheckError::LengthMismatch`] when the slices differ in length, [`CheckError::BadOffsets`]
/// for offsets that break [`validate_offsets`]' rules, and [`CheckError::NotPermutation`] naming
/// the first array whose keys differ.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::arrays::check_arrays_permutation;
/// let input = [3u32, 1, 2, 5, 4];
/// assert!(check_arrays_permutation(&input, &[1, 3, 2, 4, 5], &[0u32, 3, 5]).is_ok());
/// assert!(check_arrays_permutation(&input, &[1, 2, 5, 3, 4], &[0u32, 3, 5]).is_err());
/// ```
pub fn check_arrays_permutation<K: SortKey, O: ArrayOffset>(
    input: &[K],
    output: &[K],
    offsets: &[O],
) -> Result<(), CheckError> {
    if input.len() != output.len() {
        return Err(CheckError::LengthMismatch {
            expected: input.len(),
            actual: output.len(),
        });
    }
    validate_offsets(offsets, input.len()).map_err(|e| CheckError::BadOffsets(e.to_string()))?;
    let found = bounds(offsets)
        .par_iter()
        .enumerate()
        .find_map_first(|(array, &(s, e))| {
            let mut a: Vec<K::Bits> = input[s..e].iter().map(|k| k.to_ordered_bits()).collect();
            let mut b: Vec<K::Bits> = output[s..e].iter().map(|k| k.to_ordered_bits()).collect();
            a.sort_unstable();
            b.sort_unstable();
            let i = a.iter().zip(&b).position(|(x, y)| x != y)?;
            Some(CheckError::NotPermutation {
                detail: format!(
                    "array {array} (keys {s}..{e}): the sorted input and output first differ at \
                     element {i}: {:#x} against {:#x}",
                    a[i], b[i]
                ),
            })
        });
    match found {
        None => Ok(()),
        Some(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::check_arrays_sorted;

    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    #[test]
    fn offsets_rules() {
        assert!(validate_offsets(&[0u32], 0).is_ok());
        assert!(validate_offsets(&[0usize, 0, 0], 0).is_ok());
        for (o, n, what) in [
            (vec![], 0, "no offsets"),
            (vec![1u64, 2], 2, "first offset"),
            (vec![0, 2], 3, "last offset"),
            (vec![0, 4, 3], 3, "decrease at entry 1"),
            (vec![0, 9, 3], 3, "decrease"),
        ] {
            let e = validate_offsets(&o, n).unwrap_err();
            assert!(e.to_string().contains(what), "{e}");
            assert!(matches!(e, Error::InvalidArgument(_)));
        }
    }

    #[test]
    fn sorts_every_array_and_leaves_bad_input_untouched() {
        let mut seed = 7;
        let lens = [0usize, 1, 2, 19, 20, 21, 0, 33, 1000, 5];
        let mut offsets = vec![0u64];
        for l in lens {
            offsets.push(offsets.last().unwrap() + l as u64);
        }
        let n = *offsets.last().unwrap() as usize;
        let input: Vec<f32> = (0..n)
            .map(|_| (lcg(&mut seed) % 50) as f32 - 25.0)
            .collect();
        for order in [Order::Ascending, Order::Descending] {
            let mut k = input.clone();
            sort_arrays(&mut k, &offsets, order).unwrap();
            let o: Vec<usize> = offsets.iter().map(|&x| x as usize).collect();
            check_arrays_sorted(&k, &o, order).unwrap();
            check_arrays_permutation(&input, &k, &offsets).unwrap();
            let mut v: Vec<u32> = (0..n as u32).collect();
            let mut k = input.clone();
            sort_arrays_pairs(&mut k, &mut v, &offsets, order, true).unwrap();
            for w in o.windows(2) {
                for i in w[0]..w[1].saturating_sub(1) {
                    if k[i] == k[i + 1] {
                        assert!(v[i] < v[i + 1], "stable");
                    }
                    assert_eq!(input[v[i] as usize], k[i]);
                }
            }
        }
        let mut k = input.clone();
        let bad = [0u64, 5, 3, n as u64];
        assert!(sort_arrays(&mut k, &bad, Order::Ascending).is_err());
        let mut v = vec![0u32; n - 1];
        let e = sort_arrays_pairs(&mut k, &mut v, &offsets, Order::Ascending, true).unwrap_err();
        assert_eq!(
            e,
            Error::LengthMismatch {
                keys: n,
                values: n - 1
            }
        );
        assert!(sort_arrays_fixed(&mut k, 7, Order::Ascending).is_err());
        assert_eq!(k, input);
    }

    #[test]
    fn fixed_equals_offsets() {
        let mut seed = 3;
        let input: Vec<i64> = (0..21 * 40)
            .map(|_| lcg(&mut seed) as i64 - (1 << 30))
            .collect();
        let offsets: Vec<u32> = (0..=40).map(|a| a * 21).collect();
        let mut a = input.clone();
        let mut b = input.clone();
        sort_arrays_fixed(&mut a, 21, Order::Descending).unwrap();
        sort_arrays(&mut b, &offsets, Order::Descending).unwrap();
        assert_eq!(a, b);
        let mut e: Vec<u32> = vec![];
        sort_arrays_fixed(&mut e, 0, Order::Ascending).unwrap();
    }

    #[test]
    fn permutation_check_finds_the_array() {
        let e =
            check_arrays_permutation(&[1u32, 2, 3, 4], &[1, 3, 2, 4], &[0u32, 2, 4]).unwrap_err();
        assert!(e.to_string().contains("array 0"), "{e}");
        assert!(matches!(
            check_arrays_permutation(&[1u32], &[1], &[0u32, 2]),
            Err(CheckError::BadOffsets(_))
        ));
    }
}
