//! The rayon twin of the GPU radix sorts (`sortlab_gpu_sorts::radix`): a parallel radix sort
//! of keys and key-value pairs, least significant digit first inside cache-sized buckets.
//!
//! # Overview
//! Keys are replaced in place by their sort bits (the order-preserving bits of
//! [`SortKey::to_ordered_bits`], complemented for descending order) and sorted by 8-bit digits;
//! digits on which every key agrees are skipped, as the GPU's fast variant skips their passes.
//! - A range of at most 2^16 keys is sorted on one thread, least significant digit first: one
//!   read counts every digit, then one stable counting pass per digit between the range and
//!   its scratch, all in the caches.
//! - A longer range takes one parallel pass by its most significant digit on which the keys
//!   differ (found by one AND / OR reduction): each chunk counts that digit, a scan of the
//!   chunk counts (digit-major, so chunk order is kept within a digit) gives every chunk its
//!   places, and the chunks scatter their keys (and values) into the scratch in parallel. Each
//!   bucket of that digit is then sorted by the remaining digits on its own, in parallel, the
//!   same way.
//!
//! Only the first one or two passes move the keys through main memory, where a plain parallel
//! LSD sort makes every pass over all of it.
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
//! O(n · digits) work on all of rayon's threads; n sort words (and n values) of scratch.
//! Timed against rayon's `par_sort_unstable` by the `radix` criterion benchmark
//! (`cargo bench -p sortlab-cpu-reference --bench radix`, ids `radix-{type}-uniform-{len}`);
//! the measured figures are in the crate's `README.md`.
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

/// Replaces every key of `keys` by its sort bits in `order`, in place, and returns the slice
/// viewed as those words: the sort needs no copy of the keys.
fn to_sort_bits_in_place<K: SortKey>(keys: &mut [K], order: Order) -> &mut [K::Bits] {
    const {
        assert!(size_of::<K>() == size_of::<K::Bits>());
        assert!(align_of::<K>() == align_of::<K::Bits>());
    }
    keys.par_iter_mut().for_each(|k| {
        let b = sort_bits(*k, order);
        // SAFETY: `K` and `K::Bits` have the same size and alignment (asserted above), so the
        // key's slot holds the word exactly; it is written through the only reference to it.
        unsafe { (k as *mut K).cast::<K::Bits>().write(b) }
    });
    // SAFETY: same size and alignment; every element now holds a `K::Bits` (an unsigned
    // integer: any bit pattern is valid); the returned slice takes over the `keys` borrow.
    unsafe { std::slice::from_raw_parts_mut(keys.as_mut_ptr().cast::<K::Bits>(), keys.len()) }
}

/// Undoes [`to_sort_bits_in_place`]: every word back to its key in `order`.
fn from_sort_bits_in_place<K: SortKey>(bits: &mut [K::Bits], order: Order) {
    bits.par_iter_mut().for_each(|b| {
        let k: K = from_sort_bits(*b, order);
        // SAFETY: as in `to_sort_bits_in_place`: same size and alignment, and the slot is
        // written through its only reference; the six key types accept any bit pattern, and
        // this one is a key's own.
        unsafe { (b as *mut K::Bits).cast::<K>().write(k) }
    });
}

/// Chunk length for n elements.
fn chunk_len(n: usize) -> usize {
    let chunks = (rayon::current_num_threads() * CHUNKS_PER_THREAD).max(1);
    n.div_ceil(chunks).max(MIN_CHUNK)
}

/// Per chunk of `bits`, the counts of the digit at `shift`.
fn digit_counts<B: KeyBits>(bits: &[B], chunk: usize, shift: u32) -> Vec<[usize; DIGITS]> {
    bits.par_chunks(chunk)
        .map(|c| {
            let mut h = [0usize; DIGITS];
            for &b in c {
                h[b.digit(shift, RADIX_BITS)] += 1;
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

/// Key-value words of a range being sorted: the values and their scratch, beside the keys'.
type Values<'a, V> = Option<(&'a mut [V], &'a mut [V])>;

/// Sorts `bits` (and `values`, same length) stably by every digit.
fn sort_words<B: KeyBits, V: SortValue>(bits: &mut [B], values: Option<&mut [V]>) {
    if bits.len() < 2 {
        return;
    }
    let mut spare = bits.to_vec();
    let mut spare_values = values.as_ref().map(|v| v.to_vec());
    let vals = values.zip(spare_values.as_deref_mut());
    let shifts: Vec<u32> = (0..B::BITS / RADIX_BITS).map(|p| p * RADIX_BITS).collect();
    sort_range(bits, &mut spare, vals, &shifts, Dest::Range);
}

/// Where a sort of a range is to leave its result.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dest {
    /// In the range itself.
    Range,
    /// In the range's scratch.
    Scratch,
}

/// Sorts `a` (and its values) stably by the digits at `shifts` (least significant first), with
/// `b` (and the values' scratch) as scratch, leaving the result where `into` says.
///
/// At most [`SEQ_MAX`] keys: least significant digit first, on this thread
/// ([`lsd_seq`]). More: one parallel pass by the most significant digit that is not the same
/// for every key (a stable counting sort into `b`), then every bucket of that digit sorted by
/// the remaining digits on its own, in parallel (recursively), each bucket soon small enough to
/// stay in the caches for its remaining passes. A plain parallel LSD sort makes every pass
/// over all of memory; this makes one or two, the rest in cache.
fn sort_range<B: KeyBits, V: SortValue>(
    a: &mut [B],
    b: &mut [B],
    mut vals: Values<'_, V>,
    shifts: &[u32],
    into: Dest,
) {
    let n = a.len();
    if n <= SEQ_MAX {
        let in_b = lsd_seq(
            a,
            b,
            vals.as_mut().map(|(x, y)| (&mut **x, &mut **y)),
            shifts,
        );
        settle(a, b, vals, in_b, into);
        return;
    }
    let chunk = chunk_len(n);
    // The bits in which some keys differ (one read): a digit without any is the same for every
    // key and is skipped. Then the counts of the most significant other digit, per chunk.
    let (and, or) = a
        .par_chunks(chunk)
        .map(|c| {
            c.iter().fold((u64::MAX, 0u64), |(x, y), k| {
                (x & k.to_u64(), y | k.to_u64())
            })
        })
        .reduce(|| (u64::MAX, 0), |(x, y), (p, q)| (x & p, y | q));
    let varies = |s: u32| ((and ^ or) >> s) & (DIGITS as u64 - 1) != 0;
    let active: Vec<u32> = shifts.iter().copied().filter(|&s| varies(s)).collect();
    let Some((&top, rest)) = active.split_last() else {
        // Sorted already: every digit is the same for every key.
        settle(a, b, vals, false, into);
        return;
    };
    let counts = digit_counts(a, chunk, top);
    // The most significant active digit, a into b: chunk c's keys of digit d start after every
    // key of a smaller digit and chunk c's predecessors' keys of digit d (stable).
    let mut offsets = vec![[0usize; DIGITS]; counts.len()];
    let mut next = 0;
    for d in 0..DIGITS {
        for (c, h) in counts.iter().enumerate() {
            offsets[c][d] = next;
            next += h[d];
        }
    }
    let value_pass = vals.as_mut().map(|(va, vb)| (&**va, &mut **vb));
    scatter(a, b, value_pass, chunk, top, offsets);
    // Each bucket (keys of one digit, now in b) sorted by the remaining digits, b's part of
    // it the range and a's its scratch: the result must end where `into` says, so the
    // bucket's own target is the other side.
    let inner = match into {
        Dest::Range => Dest::Scratch,
        Dest::Scratch => Dest::Range,
    };
    let mut buckets = Vec::with_capacity(DIGITS);
    let (mut ra, mut rb) = (a, b);
    let mut rv = vals;
    for d in 0..DIGITS {
        let len = counts.iter().map(|h| h[d]).sum::<usize>();
        let (ba, ta) = std::mem::take(&mut ra).split_at_mut(len);
        let (bb, tb) = std::mem::take(&mut rb).split_at_mut(len);
        (ra, rb) = (ta, tb);
        let bv = match rv.take() {
            Some((va, vb)) => {
                let (bva, tva) = va.split_at_mut(len);
                let (bvb, tvb) = vb.split_at_mut(len);
                rv = Some((tva, tvb));
                Some((bvb, bva))
            }
            None => None,
        };
        if len > 0 {
            buckets.push((bb, ba, bv));
        }
    }
    buckets
        .into_par_iter()
        .for_each(|(bb, ba, bv)| sort_range(bb, ba, bv, rest, inner));
}

/// Copies a sorted range (and its values) from where it is (`in_b`: the scratch `b`) to where
/// it is to be (`into`), if those differ.
fn settle<B: KeyBits, V: SortValue>(
    a: &mut [B],
    b: &mut [B],
    vals: Values<'_, V>,
    in_b: bool,
    into: Dest,
) {
    if in_b == (into == Dest::Scratch) {
        return;
    }
    let (from, to) = if in_b { (&*b, a) } else { (&*a, b) };
    to.copy_from_slice(from);
    if let Some((va, vb)) = vals {
        let (from, to) = if in_b { (&*vb, va) } else { (&*va, vb) };
        to.copy_from_slice(from);
    }
}

/// Ranges of at most this many keys are sorted on one thread, least significant digit first:
/// a range this long and its scratch (512 KiB of 4-byte keys) stay in a core's L2 cache for
/// every pass. Measured (2-core AMD EPYC, 1 MiB L2 a core; 2^20 uniform u32 keys): 2^16
/// 4.6 ms, against 6.3 ms at 2^15 and 7.4 ms at 2^18.
const SEQ_MAX: usize = 1 << 16;

/// Sorts `a` (and its values) stably by the digits at `shifts` (least significant first) on
/// this thread, with `b` as scratch; returns whether the result ended in `b`. One pass counts
/// every digit (one thread's counts do not depend on the keys' order); a digit the same for
/// every key is skipped.
fn lsd_seq<B: KeyBits, V: SortValue>(
    a: &mut [B],
    b: &mut [B],
    mut vals: Values<'_, V>,
    shifts: &[u32],
) -> bool {
    let n = a.len();
    let mut hist = vec![[0usize; DIGITS]; shifts.len()];
    for &k in a.iter() {
        for (h, &s) in hist.iter_mut().zip(shifts) {
            h[k.digit(s, RADIX_BITS)] += 1;
        }
    }
    let (mut src, mut dst) = (a, b);
    let mut in_b = false;
    for (h, &s) in hist.iter().zip(shifts) {
        if h.contains(&n) {
            continue;
        }
        let mut off = [0usize; DIGITS];
        let mut next = 0;
        for (o, &c) in off.iter_mut().zip(h) {
            *o = next;
            next += c;
        }
        match vals.as_mut() {
            None => {
                for &k in src.iter() {
                    let d = k.digit(s, RADIX_BITS);
                    dst[off[d]] = k;
                    off[d] += 1;
                }
            }
            Some((vs, vd)) => {
                for (&k, &v) in src.iter().zip(vs.iter()) {
                    let d = k.digit(s, RADIX_BITS);
                    dst[off[d]] = k;
                    vd[off[d]] = v;
                    off[d] += 1;
                }
                std::mem::swap(vs, vd);
            }
        }
        std::mem::swap(&mut src, &mut dst);
        in_b = !in_b;
    }
    in_b
}

/// Sorts keys in parallel with a rayon radix sort, stably.
///
/// # Overview
/// 8-bit digits, a parallel pass by the top one down to cache-sized buckets, then least
/// significant digit first inside them; digits the same for every key skipped; see the
/// [module documentation](self). The CPU twin of `sortlab_gpu_sorts::radix::sort_keys`.
///
/// # Key types
/// The six key types in IEEE total order, ascending or descending.
///
/// # Stability
/// Stable (not observable for keys alone); the output equals [`crate::sort::sort`]'s.
///
/// # Performance
/// One pass per digit on which the keys differ (at most 4 for 4-byte keys, 8 for 8-byte
/// keys), only the first one or two of them over main memory; n sort words of scratch (the
/// keys become their sort bits in place). See the [module documentation](self).
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
    let bits = to_sort_bits_in_place(keys, order);
    sort_words::<K::Bits, u32>(bits, None);
    from_sort_bits_in_place::<K>(bits, order);
}

/// Sorts key-value pairs by key in parallel with a rayon radix sort, stably.
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
/// As [`sort_keys`], moving the values too; n sort words and n values of scratch.
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
    Error::check_pairs(keys.len(), values.len())?;
    let bits = to_sort_bits_in_place(keys, order);
    sort_words(bits, Some(values));
    from_sort_bits_in_place::<K>(bits, order);
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
    fn equals_reference_past_the_sequential_length() {
        // Past SEQ_MAX: the parallel pass by the top digit, then buckets sorted on their own;
        // a bucket past SEQ_MAX recurses, and a bucket of one key value has no digit left.
        let n = 5 * SEQ_MAX + 3;
        for len in [SEQ_MAX - 1, SEQ_MAX, SEQ_MAX + 1, n] {
            let raw = lcg(len, len as u64);
            check::<u32>(&raw);
            check::<f32>(&raw);
            check::<i64>(&raw);
        }
        let raw = lcg(n, 7);
        // Nine keys in ten one value (a bucket of about 4.5 SEQ_MAX of equal keys, plus the
        // others of its top digit); only the low 16 bits vary (the top digits are skipped);
        // few distinct values spread over every byte (stability, deep recursion).
        let skewed: Vec<u64> = raw
            .iter()
            .map(|&r| {
                if r % 10 == 0 {
                    r
                } else {
                    0x8000_1234_5678_9abc
                }
            })
            .collect();
        let low: Vec<u64> = raw.iter().map(|&r| r & 0xffff).collect();
        let few: Vec<u64> = raw
            .iter()
            .map(|&r| (r % 7).wrapping_mul(0x0123_4567_89ab_cdef))
            .collect();
        for input in [&skewed, &low, &few] {
            check::<u32>(input);
            check::<i32>(input);
            check::<f64>(input);
            check::<u64>(input);
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
