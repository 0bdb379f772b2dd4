//! The rayon twin of a GPU sample sort (Leischner, Osipov and Sanders, "GPU sample sort"): a
//! stable, parallel sample sort of keys and key-value pairs.
//!
//! # Overview
//! A range longer than [`SEQ_MAX`] is split into buckets by up to [`BUCKETS`]` - 1` splitters
//! taken at regular intervals from a sorted regular sample of [`OVERSAMPLING`] elements per
//! bucket. A key equal to a splitter goes to that splitter's *equality bucket*, which is done
//! (all its keys are equal): the paper's answer to many equal keys, so all-equal and
//! few-distinct inputs finish in one level. Every chunk of the range finds its keys' buckets
//! (a binary search over the splitters) and counts them in parallel; a scan of the counts
//! (bucket-major, chunk-minor) gives every chunk its place in every bucket, and the chunks
//! scatter in parallel, in input order. The other buckets are sorted recursively in parallel;
//! below [`SEQ_MAX`] elements, or past [`MAX_DEPTH`] levels (inputs built against the
//! sampling), by the standard library's stable sort.
//!
//! # Key types
//! `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, by their order-preserving bits (IEEE total order
//! for floats), both orders. Values: any [`SortValue`], never compared.
//!
//! # Stability
//! Stable in both orders (stable scatter, equality buckets in input order, stable base case):
//! the results equal [`crate::sort::sort`] and [`crate::sort::sort_pairs`] bit for bit.
//!
//! # Example
//! ```
//! use sortlab_cpu_reference::sample::{sort_keys, sort_pairs};
//! use sortlab_primitives::Order;
//! let mut keys: Vec<u32> = (0..100_000).map(|i| (i * 7919) % 1000).collect();
//! sort_keys(&mut keys, Order::Descending);
//! assert!(keys.windows(2).all(|w| w[0] >= w[1]));
//! let mut k = [2u64, 1, 2, 1];
//! let mut v = [0u32, 1, 2, 3];
//! sort_pairs(&mut k, &mut v, Order::Ascending)?;
//! assert_eq!((k, v), ([1, 1, 2, 2], [1, 3, 0, 2]));
//! # Ok::<(), sortlab_cpu_reference::Error>(())
//! ```

use rayon::prelude::*;
use sortlab_primitives::{Order, SortKey, SortValue};

use crate::sort::{rank, unrank};
use crate::Error;

/// Most buckets between splitters a level makes (the paper's k).
pub const BUCKETS: usize = 128;
/// Sample elements drawn per bucket.
pub const OVERSAMPLING: usize = 16;
/// Ranges of at most this many elements are sorted on one thread by the standard library's
/// stable sort.
pub const SEQ_MAX: usize = 1 << 14;
/// Levels of bucketing at most; deeper ranges take the stable sort.
pub const MAX_DEPTH: u32 = 8;
/// Elements one rayon task classifies and scatters.
const CHUNK: usize = 1 << 14;

/// A raw pointer that may cross threads: each task writes only its own positions.
#[derive(Clone, Copy)]
struct Shared<T>(*mut T);
// SAFETY: only used to write disjoint positions from rayon tasks (see `sample_sort`).
unsafe impl<T: Send> Send for Shared<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Shared<T> {}
impl<T> Shared<T> {
    /// The pointer (a method, so that closures capture the whole `Shared`).
    fn at(&self, i: usize) -> *mut T {
        self.0.wrapping_add(i)
    }
}

/// The bucket of `key` among `splitters` (sorted, distinct): `2 i + 1` when it equals splitter
/// `i` (an equality bucket), else `2 i` with `i` the number of splitters below it.
fn bucket_of<B: Ord>(splitters: &[B], key: &B) -> usize {
    let i = splitters.partition_point(|s| s < key);
    if splitters.get(i) == Some(key) {
        2 * i + 1
    } else {
        2 * i
    }
}

/// Sorts `items` stably by `key`, with `scratch` (as long) as the scatter's target.
fn sample_sort<T, B>(items: &mut [T], scratch: &mut [T], key: fn(&T) -> B, depth: u32)
where
    T: Copy + Send + Sync,
    B: Ord + Copy + Send + Sync,
{
    let n = items.len();
    if n <= SEQ_MAX || depth >= MAX_DEPTH {
        items.sort_by_key(key);
        return;
    }
    // A regular sample, sorted; splitters at regular intervals of it, distinct.
    let s = BUCKETS * OVERSAMPLING;
    let mut sample: Vec<B> = (0..s).map(|i| key(&items[i * n / s])).collect();
    sample.sort_unstable();
    let mut splitters: Vec<B> = (1..BUCKETS).map(|j| sample[j * OVERSAMPLING]).collect();
    splitters.dedup();
    let buckets = 2 * splitters.len() + 1;
    // Every chunk's bucket of each element, and its counts per bucket.
    let classified: Vec<(Vec<u32>, Vec<usize>)> = items
        .par_chunks(CHUNK)
        .map(|c| {
            let mut counts = vec![0usize; buckets];
            let ids = c
                .iter()
                .map(|x| {
                    let b = bucket_of(&splitters, &key(x));
                    counts[b] += 1;
                    b as u32
                })
                .collect();
            (ids, counts)
        })
        .collect();
    // Bucket-major, chunk-minor exclusive scan: where each chunk writes in each bucket.
    let mut starts = vec![vec![0usize; buckets]; classified.len()];
    let mut bounds = Vec::with_capacity(buckets + 1);
    let mut at = 0;
    for b in 0..buckets {
        bounds.push(at);
        for (c, (_, counts)) in classified.iter().enumerate() {
            starts[c][b] = at;
            at += counts[b];
        }
    }
    bounds.push(at);
    let out = Shared(scratch.as_mut_ptr());
    items
        .par_chunks(CHUNK)
        .zip(classified.par_iter().zip(starts.par_iter_mut()))
        .for_each(|(c, ((ids, _), next))| {
            for (x, &b) in c.iter().zip(ids) {
                let b = b as usize;
                // SAFETY: the scan gives every (chunk, bucket) its own range of positions
                // below n, and each chunk writes its range in order: positions are disjoint.
                unsafe { out.at(next[b]).write(*x) };
                next[b] += 1;
            }
        });
    items.copy_from_slice(scratch);
    // Recurse on the buckets between splitters, in parallel.
    let mut parts = Vec::with_capacity(buckets);
    let (mut rest, mut rest_scratch) = (items, scratch);
    for b in 0..buckets {
        let len = bounds[b + 1] - bounds[b];
        let (head, tail) = rest.split_at_mut(len);
        let (head_s, tail_s) = rest_scratch.split_at_mut(len);
        if b % 2 == 0 && len > 1 {
            parts.push((head, head_s));
        }
        (rest, rest_scratch) = (tail, tail_s);
    }
    parts
        .into_par_iter()
        .for_each(|(part, part_scratch)| sample_sort(part, part_scratch, key, depth + 1));
}

/// Sorts `keys` in `order` by the stable parallel sample sort; see the [module
/// documentation](self).
pub fn sort_keys<K: SortKey>(keys: &mut [K], order: Order) {
    let mut ranks: Vec<K::Bits> = keys.par_iter().map(|&k| rank(k, order)).collect();
    let mut scratch = ranks.clone();
    sample_sort(&mut ranks, &mut scratch, |&r| r, 0);
    keys.par_iter_mut()
        .zip(ranks.par_iter())
        .for_each(|(k, &r)| *k = unrank(r, order));
}

/// Sorts `keys` in `order`, `values[i]` moving with `keys[i]`, stably; see the [module
/// documentation](self).
///
/// # Errors
/// [`Error::LengthMismatch`] when `values` is not as long as `keys` (nothing moved).
pub fn sort_pairs<K: SortKey, V: SortValue>(
    keys: &mut [K],
    values: &mut [V],
    order: Order,
) -> Result<(), Error> {
    Error::check_pairs(keys.len(), values.len())?;
    let mut items: Vec<(K::Bits, V)> = keys
        .par_iter()
        .zip(values.par_iter())
        .map(|(&k, &v)| (rank(k, order), v))
        .collect();
    let mut scratch = items.clone();
    sample_sort(&mut items, &mut scratch, |x| x.0, 0);
    keys.par_iter_mut()
        .zip(values.par_iter_mut())
        .zip(items.par_iter())
        .for_each(|((k, v), &(r, x))| {
            *k = unrank(r, order);
            *v = x;
        });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sort;
    use crate::test_inputs::xorshift;

    fn equals_the_reference<K: SortKey>(keys: &[K]) {
        let index: Vec<u32> = (0..keys.len() as u32).collect();
        for order in [Order::Ascending, Order::Descending] {
            let (mut a, mut b) = (keys.to_vec(), keys.to_vec());
            sort_keys(&mut a, order);
            sort::sort(&mut b, order);
            let same = a
                .iter()
                .zip(&b)
                .all(|(x, y)| x.to_ordered_bits() == y.to_ordered_bits());
            assert!(same, "{} keys, n = {} {order:?}", K::NAME, keys.len());
            let (mut ka, mut va) = (keys.to_vec(), index.clone());
            let (mut kb, mut vb) = (keys.to_vec(), index.clone());
            sort_pairs(&mut ka, &mut va, order).unwrap();
            sort::sort_pairs(&mut kb, &mut vb, order).unwrap();
            assert_eq!(va, vb, "{} pairs, n = {} {order:?}", K::NAME, keys.len());
        }
    }

    #[test]
    fn equals_the_stable_reference_on_every_shape() {
        let n = 3 * SEQ_MAX + 17;
        let mut next = xorshift(5);
        let uniform: Vec<u64> = (0..n).map(|_| next()).collect();
        let few: Vec<u32> = (0..n).map(|_| (next() % 5) as u32).collect();
        let equal = vec![7i32; n];
        let ascending: Vec<u32> = (0..n as u32).collect();
        let descending: Vec<i64> = (0..n as i64).rev().collect();
        let organ: Vec<u32> = (0..n).map(|i| i.min(n - i) as u32).collect();
        equals_the_reference(&uniform);
        equals_the_reference(&few);
        equals_the_reference(&equal);
        equals_the_reference(&ascending);
        equals_the_reference(&descending);
        equals_the_reference(&organ);
        let floats: Vec<f32> = (0..n)
            .map(|i| [f32::NAN, -0.0, 0.0, -f32::NAN, 1.5, f32::NEG_INFINITY][i % 6])
            .collect();
        equals_the_reference(&floats);
        let wide: Vec<f64> = (0..n).map(|_| f64::from_bits(next())).collect();
        equals_the_reference(&wide);
        for n in [0, 1, 2, SEQ_MAX, SEQ_MAX + 1] {
            equals_the_reference(&uniform[..n]);
        }
    }

    #[test]
    fn equality_buckets_hold_the_splitters() {
        let s = [10u32, 20, 30];
        assert_eq!(bucket_of(&s, &5), 0);
        assert_eq!(bucket_of(&s, &10), 1);
        assert_eq!(bucket_of(&s, &15), 2);
        assert_eq!(bucket_of(&s, &30), 5);
        assert_eq!(bucket_of(&s, &31), 6);
    }

    #[test]
    fn mismatched_lengths_move_nothing() {
        let (mut k, mut v) = ([3u32, 1], [0u64]);
        assert!(matches!(
            sort_pairs(&mut k, &mut v, Order::Ascending),
            Err(Error::LengthMismatch { .. })
        ));
        assert_eq!(k, [3, 1]);
    }
}
