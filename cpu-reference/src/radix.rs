//! The rayon twin of the GPU radix sorts (`sortlab_gpu_sorts::radix`): a parallel LSD radix
//! sort of keys and key-value pairs.
//!
//! # Overview
//! Keys are mapped to their sort bits (the order-preserving bits of
//! [`SortKey::to_ordered_bits`], complemented for descending order), then sorted by 8-bit
//! digits from the least significant. One histogram pass counts every digit of every pass at
//! once, and passes whose digit is the same for every key are skipped, as the GPU's fast
//! variant does. Each pass counts its digit per chunk (in parallel) and scatters every chunk's
//! keys (and values) to their places in a second buffer, in parallel, the chunks' places given
//! by a scan of the chunk counts (digit-major, so chunk order is kept within a digit).
//!
//! # Key types
//! `u32`, `i32`, `f32`, `u64`, `i64`, `f64`; IEEE total order for floats (as
//! [`f32::total_cmp`]: `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`); both orders.
//! Values: any [`SortValue`].
//!
//! # Stability
//! Stable in both orders: every pass is a stable counting sort. The results equal
//! [`crate::sort::sort`] and [`crate::sort::sort_pairs`] bit for bit.
//!
//! # Performance
//! O(n · passes) work on all of rayon's threads, n sort words (and n values) of extra memory.
//! Timed against rayon's `par_sort_unstable` by the `radix` criterion benchmark
//! (`cargo bench -p sortlab-cpu-reference --bench radix`, ids `radix-{type}-uniform-{len}`).
//!
//! # Example
//! ```
//! use sortlab_cpu_reference::radix::{sort_keys, sort_pairs};
//! use sortlab_primitives::Order;
//!
//! let mut keys = [2.5f64, -0.0, f64::NAN, 0.0, f64::NEG_INFINITY];
//! sort_keys(&mut keys, Order::Ascending);
//! assert_eq!(keys[..4], [f64::NEG_INFINITY, -0.0, 0.0, 2.5]);
//! assert!(keys[1].is_sign_negative() && keys[4].is_nan());
//!
//! let mut k = [1u32, 0, 1, 0];
//! let mut v = [10u64, 11, 12, 13];
//! sort_pairs(&mut k, &mut v, Order::Descending)?;
//! assert_eq!((k, v), ([1, 1, 0, 0], [10, 12, 11, 13]));
//! # Ok::<(), sortlab_cpu_reference::Error>(())
//! ```

use rayon::prelude::*;
use sortlab_primitives::{KeyBits, Order, SortKey, SortValue};

use crate::Error;

/// Bits per digit: 256 counters per chunk and pass.
const RADIX_BITS: u32 = 8;
const DIGITS: usize = 1 << RADIX_BITS;
/// Keys per parallel chunk, at least: below this a chunk's histogram and scatter cost less than
/// handing it to another thread. Inputs of at most one chunk run on the calling thread.
const MIN_CHUNK: usize = 1 << 15;
/// Chunks per rayon thread, so that an unevenly loaded thread is not waited on.
const CHUNKS_PER_THREAD: usize = 4;

/// A raw pointer that rayon tasks may share: each task writes a disjoint set of indices.
#[derive(Clone, Copy)]
struct SharedMut<T>(*mut T);

// SAFETY: the pointer is only used to write disjoint elements from different threads (see
// `scatter`), and `T: Send` may be written from any thread.
unsafe impl<T: Send> Send for SharedMut<T> {}
// SAFETY: as above: no two threads touch the same element.
unsafe impl<T: Send> Sync for SharedMut<T> {}

impl<T> SharedMut<T> {
    /// The pointer (a method, so that closures capture the whole `Send` wrapper).
    fn get(self) -> *mut T {
        self.0
    }
}

/// The sort bits of `k` in `order`.
#[inline]
fn sort_bits<K: SortKey>(k: K, order: Order) -> K::Bits {
    let b = k.to_ordered_bits();
    match order {
        Order::Ascending => b,
        Order::Descending => K::Bits::from_u64(!b.to_u64()),
    }
}

/// The key whose sort bits in `order` are `b`.
#[inline]
fn from_sort_bits<K: SortKey>(b: K::Bits, order: Order) -> K {
    match order {
        Order::Ascending => K::from_ordered_bits(b),
        Order::Descending => K::from_ordered_bits(K::Bits::from_u64(!b.to_u64())),
    }
}

/// Chunk length for n elements.
fn chunk_len(n: usize) -> usize {
    let chunks = (rayon::current_num_threads() * CHUNKS_PER_THREAD).max(1);
    n.div_ceil(chunks).max(MIN_CHUNK)
}

/// Per chunk of `bits`, the histogram of the digit at each shift of `shifts`: `[shift][digit]`
/// flattened.
fn histograms<B: KeyBits>(bits: &[B], chunk: usize, shifts: &[u32]) -> Vec<Vec<usize>> {
    bits.par_chunks(chunk)
        .map(|c| {
            let mut h = vec![0usize; shifts.len() * DIGITS];
            for &b in c {
                for (i, &s) in shifts.iter().enumerate() {
                    h[i * DIGITS + b.digit(s, RADIX_BITS)] += 1;
                }
            }
            h
        })
        .collect()
}

/// One counting-sort pass by the digit at `shift`: `src` into `dst` (and `vsrc` into `vdst`),
/// chunk `i` starting from `offsets[i]` (its first position per digit).
fn scatter<B: KeyBits, V: SortValue>(
    src: &[B],
    dst: &mut [B],
    values: Option<(&[V], &mut [V])>,
    chunk: usize,
    shift: u32,
    offsets: Vec<[usize; DIGITS]>,
) {
    let dst_ptr = SharedMut(dst.as_mut_ptr());
    let (vsrc, vdst_ptr) = match values {
        Some((s, d)) => (Some(s), Some(SharedMut(d.as_mut_ptr()))),
        None => (None, None),
    };
    src.par_chunks(chunk)
        .zip(offsets)
        .enumerate()
        .for_each(move |(i, (c, mut off))| {
            let first = i * chunk;
            for (j, &b) in c.iter().enumerate() {
                let d = b.digit(shift, RADIX_BITS);
                let at = off[d];
                off[d] += 1;
                // SAFETY: the offsets partition 0..n: chunk i's keys of digit d go to
                // [offsets[i][d], offsets[i][d] + count), disjoint from every other chunk's and
                // digit's, and inside dst (and vdst), both n long. No two writes alias.
                unsafe {
                    dst_ptr.get().add(at).write(b);
                    if let (Some(vs), Some(vd)) = (vsrc, vdst_ptr) {
                        vd.get().add(at).write(vs[first + j]);
                    }
                }
            }
        });
}

/// Sorts `bits` (and `values`, same length) stably by every digit.
fn lsd<B: KeyBits, V: SortValue>(bits: &mut Vec<B>, mut values: Option<&mut Vec<V>>) {
    let n = bits.len();
    if n < 2 {
        return;
    }
    let chunk = chunk_len(n);
    // One pass over the keys counts every digit: the passes whose digit is the same for every
    // key would not move anything and are skipped.
    let shifts: Vec<u32> = (0..B::BITS / RADIX_BITS).map(|p| p * RADIX_BITS).collect();
    let all = histograms(bits, chunk, &shifts);
    let active: Vec<u32> = shifts
        .iter()
        .enumerate()
        .filter(|&(i, _)| {
            (0..DIGITS).all(|d| all.iter().map(|h| h[i * DIGITS + d]).sum::<usize>() < n)
        })
        .map(|(_, &s)| s)
        .collect();
    let mut spare = bits.clone();
    let mut spare_values = values.as_ref().map(|v| v.to_vec());
    for (i, &shift) in active.iter().enumerate() {
        // The chunks' counts of this digit in the current order (the first pass's are known).
        let hists = if i == 0 {
            let at = (shift / RADIX_BITS) as usize * DIGITS;
            all.iter().map(|h| h[at..at + DIGITS].to_vec()).collect()
        } else {
            histograms(bits, chunk, &[shift])
        };
        let mut offsets = vec![[0usize; DIGITS]; hists.len()];
        let mut next = 0;
        for d in 0..DIGITS {
            for (c, h) in hists.iter().enumerate() {
                offsets[c][d] = next;
                next += h[d];
            }
        }
        let vals = match (values.as_deref(), spare_values.as_mut()) {
            (Some(v), Some(s)) => Some((v.as_slice(), s.as_mut_slice())),
            _ => None,
        };
        scatter(bits, &mut spare, vals, chunk, shift, offsets);
        std::mem::swap(bits, &mut spare);
        if let (Some(v), Some(s)) = (values.as_deref_mut(), spare_values.as_mut()) {
            std::mem::swap(v, s);
        }
    }
}

/// Sorts keys in parallel with a rayon LSD radix sort, stably.
///
/// # Overview
/// 8-bit digits from the least significant, passes of one digit skipped; see the
/// [module documentation](self). The CPU twin of `sortlab_gpu_sorts::radix::sort_keys`.
///
/// # Key types
/// The six key types in IEEE total order, ascending or descending.
///
/// # Stability
/// Stable (not observable for keys alone); the output equals [`crate::sort::sort`]'s.
///
/// # Performance
/// 4 passes for 4-byte keys, 8 for 8-byte keys, each reading and writing every key once; n
/// sort words of extra memory.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::radix::sort_keys;
/// use sortlab_primitives::Order;
/// let mut keys = [3i64, -7, 0, i64::MIN, 3];
/// sort_keys(&mut keys, Order::Descending);
/// assert_eq!(keys, [3, 3, 0, -7, i64::MIN]);
/// ```
pub fn sort_keys<K: SortKey>(keys: &mut [K], order: Order) {
    let mut bits: Vec<K::Bits> = keys.par_iter().map(|&k| sort_bits(k, order)).collect();
    lsd::<K::Bits, u32>(&mut bits, None);
    keys.par_iter_mut()
        .zip(bits.par_iter())
        .for_each(|(k, &b)| *k = from_sort_bits(b, order));
}

/// Sorts key-value pairs by key in parallel with a rayon LSD radix sort, stably.
///
/// # Overview
/// `values[i]` travels with `keys[i]`; see the [module documentation](self). The CPU twin of
/// `sortlab_gpu_sorts::radix::sort_pairs`.
///
/// # Key types
/// Keys: the six key types in IEEE total order, ascending or descending. Values: any
/// [`SortValue`], moved and never compared.
///
/// # Stability
/// Stable in both orders; the output equals [`crate::sort::sort_pairs`]'s bit for bit.
///
/// # Errors
/// [`Error::LengthMismatch`] when `keys` and `values` differ in length; both are then left as
/// they were.
///
/// # Performance
/// As [`sort_keys`], moving the values too; n sort words and 2 n values of extra memory.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::radix::sort_pairs;
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
    if keys.len() != values.len() {
        return Err(Error::LengthMismatch {
            keys: keys.len(),
            values: values.len(),
        });
    }
    let mut bits: Vec<K::Bits> = keys.par_iter().map(|&k| sort_bits(k, order)).collect();
    let mut vals = values.to_vec();
    lsd(&mut bits, Some(&mut vals));
    keys.par_iter_mut()
        .zip(bits.par_iter())
        .for_each(|(k, &b)| *k = from_sort_bits(b, order));
    values.copy_from_slice(&vals);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sort;

    fn lcg(n: usize, seed: u64) -> Vec<u64> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                x ^ (x >> 29)
            })
            .collect()
    }

    fn check<K: SortKey>(raw: &[u64]) {
        let keys: Vec<K> = raw
            .iter()
            .map(|&r| K::from_le_slice(&r.to_le_bytes()[..K::SIZE]))
            .collect();
        for order in [Order::Ascending, Order::Descending] {
            let mut a = keys.clone();
            sort_keys(&mut a, order);
            let mut e = keys.clone();
            sort::sort(&mut e, order);
            crate::check::check_equal(&e, &a).unwrap();
            let mut ak = keys.clone();
            let mut av: Vec<u32> = (0..keys.len() as u32).collect();
            sort_pairs(&mut ak, &mut av, order).unwrap();
            let mut ek = keys.clone();
            let mut ev: Vec<u32> = (0..keys.len() as u32).collect();
            sort::sort_pairs(&mut ek, &mut ev, order).unwrap();
            crate::check::check_pairs_equal(&ek, &ev, &ak, &av).unwrap();
        }
    }

    #[test]
    fn equals_reference_on_every_type() {
        // Past MIN_CHUNK, so several chunks; few distinct values make stability visible.
        for n in [0, 1, 2, 1000, 3 * MIN_CHUNK + 7] {
            let raw = lcg(n, n as u64);
            check::<u32>(&raw);
            check::<i32>(&raw);
            check::<f32>(&raw);
            check::<u64>(&raw);
            check::<i64>(&raw);
            check::<f64>(&raw);
            let few: Vec<u64> = raw.iter().map(|r| r % 5 * 0x0101_0101_0101).collect();
            check::<u32>(&few);
            check::<f64>(&few);
        }
    }

    #[test]
    fn mismatch_leaves_data() {
        let mut k = [3u32, 1];
        let mut v = [0u64];
        assert_eq!(
            sort_pairs(&mut k, &mut v, Order::Ascending),
            Err(Error::LengthMismatch { keys: 2, values: 1 })
        );
        assert_eq!(k, [3, 1]);
    }
}
