//! Multi-sequence selection: where the output rank `r` of a stable sort falls in each of `k`
//! sorted runs, exactly, so that the second pass's buckets hold exactly their share.
//!
//! The runs are consecutive chunks of the input, each sorted stably, so the stable order of the
//! whole input is: by key, then by (run, position in the run). For a rank `r` the split point
//! is found by bisecting the key's ordered bits (XOR the order's flip word, so that every run
//! is ascending in them) for the smallest value `v` with more than `r` keys at most `v`; the
//! split then takes every key below `v`, and of the keys equal to `v` the first `r - below`
//! in (run, position) order. Cost: one bisection of the key width (32 or 64 steps), each `k`
//! binary searches: `O(w k log n)` per split point.

use rayon::prelude::*;
use sortlab_primitives::{KeyBits, Order, SortKey};

/// A key's ordered bits under `order` (complemented for descending): every run is
/// ascending in them.
#[inline]
fn rank_bits<K: SortKey>(k: &K, flip: u64) -> u64 {
    k.to_ordered_bits().to_u64() ^ flip
}

/// The order's flip word for keys `K`.
pub(crate) fn flip_of<K: SortKey>(order: Order) -> u64 {
    order.flip::<K::Bits>().to_u64()
}

/// How many keys of every run precede output rank `r` (`r <= total length`): the split
/// points of the stable order at rank `r`, summing to `r`.
pub(crate) fn split_point<K: SortKey>(runs: &[&[K]], flip: u64, r: usize) -> Vec<usize> {
    let total: usize = runs.iter().map(|s| s.len()).sum();
    if r == 0 {
        return vec![0; runs.len()];
    }
    if r >= total {
        return runs.iter().map(|s| s.len()).collect();
    }
    let at_most = |v: u64| -> usize {
        runs.iter()
            .map(|s| s.partition_point(|k| rank_bits(k, flip) <= v))
            .sum()
    };
    // The smallest v with at_most(v) > r: exists, since at_most(max) = total > r.
    let max = u64::MAX >> (64 - 8 * K::SIZE as u32);
    let (mut lo, mut hi) = (0u64, max);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if at_most(mid) > r {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let v = lo;
    let below: Vec<usize> = runs
        .iter()
        .map(|s| s.partition_point(|k| rank_bits(k, flip) < v))
        .collect();
    let mut need = r - below.iter().sum::<usize>();
    let mut split = Vec::with_capacity(runs.len());
    for (s, &b) in runs.iter().zip(&below) {
        let equal = s[b..].partition_point(|k| rank_bits(k, flip) <= v);
        let take = equal.min(need);
        need -= take;
        split.push(b + take);
    }
    split
}

/// The split points of ranks `0, bucket, 2 bucket, ...` and the total length (`buckets + 1`
/// rows of `runs.len()` positions), computed in parallel.
pub(crate) fn bucket_bounds<K: SortKey>(
    runs: &[&[K]],
    order: Order,
    bucket: usize,
) -> Vec<Vec<usize>> {
    let total: usize = runs.iter().map(|s| s.len()).sum();
    let flip = flip_of::<K>(order);
    let buckets = total.div_ceil(bucket.max(1));
    (0..=buckets)
        .into_par_iter()
        .map(|b| split_point(runs, flip, (b * bucket).min(total)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stable sort of the concatenated runs, as (key, run, position) triples.
    fn reference<K: SortKey>(runs: &[&[K]], order: Order) -> Vec<(K, usize, usize)> {
        let mut all: Vec<(K, usize, usize)> = runs
            .iter()
            .enumerate()
            .flat_map(|(j, s)| s.iter().enumerate().map(move |(i, &k)| (k, j, i)))
            .collect();
        all.sort_by(|a, b| order.cmp_keys(&a.0, &b.0)); // stable: (run, position) on ties
        all
    }

    /// Every split point against the reference: the first r elements of the stable order
    /// are exactly the prefixes the split gives.
    fn check<K: SortKey>(runs: &[Vec<K>], order: Order, bucket: usize) {
        let mut runs = runs.to_vec();
        for r in &mut runs {
            r.sort_by(|a, b| order.cmp_keys(a, b));
        }
        let views: Vec<&[K]> = runs.iter().map(|r| r.as_slice()).collect();
        let total: usize = views.iter().map(|s| s.len()).sum();
        let sorted = reference(&views, order);
        let bounds = bucket_bounds(&views, order, bucket);
        assert_eq!(bounds.len(), total.div_ceil(bucket) + 1);
        for (b, split) in bounds.iter().enumerate() {
            let r = (b * bucket).min(total);
            assert_eq!(split.iter().sum::<usize>(), r, "rank {r}");
            let mut taken = vec![0usize; views.len()];
            for &(_, j, _) in &sorted[..r] {
                taken[j] += 1;
            }
            assert_eq!(&taken, split, "rank {r}, {order:?}");
        }
        // Buckets in order, each sorted, reproduce the stable sort.
        let mut out = Vec::new();
        for w in bounds.windows(2) {
            let mut bucket: Vec<(K, usize, usize)> = Vec::new();
            for (j, s) in views.iter().enumerate() {
                bucket.extend((w[0][j]..w[1][j]).map(|i| (s[i], j, i)));
            }
            bucket.sort_by(|a, b| order.cmp_keys(&a.0, &b.0));
            out.extend(bucket);
        }
        assert_eq!(out.len(), sorted.len());
        for (a, b) in out.iter().zip(&sorted) {
            assert!(a.0.to_ordered_bits() == b.0.to_ordered_bits() && a.1 == b.1 && a.2 == b.2);
        }
    }

    /// `n` pseudo-random values below `modulo` from `seed` (the workspace's one hash).
    fn values_below(seed: u64, n: usize, modulo: u64) -> Vec<u64> {
        (0..n as u64)
            .map(|i| sortlab_verify::seed::splitmix64(seed ^ i.wrapping_mul(0x9e37_79b9)) % modulo)
            .collect()
    }

    #[test]
    fn exact_buckets_random_and_few_distinct() {
        for order in [Order::Ascending, Order::Descending] {
            for modulo in [u64::MAX >> 1, 5, 1] {
                let runs: Vec<Vec<u32>> = (0..7)
                    .map(|j| values_below(j, 1000 + 37 * j as usize, modulo))
                    .map(|v| v.into_iter().map(|x| x as u32).collect())
                    .collect();
                for bucket in [1, 2, 999, 1000, 1001, 2500, 100_000] {
                    check(&runs, order, bucket);
                }
            }
        }
    }

    #[test]
    fn ties_split_by_position() {
        // All keys equal: buckets take whole runs in order, then the next run's first keys.
        let runs = vec![vec![7u64; 10], vec![7u64; 10], vec![7u64; 5]];
        let views: Vec<&[u64]> = runs.iter().map(|r| r.as_slice()).collect();
        let flip = flip_of::<u64>(Order::Ascending);
        assert_eq!(split_point(&views, flip, 0), vec![0, 0, 0]);
        assert_eq!(split_point(&views, flip, 4), vec![4, 0, 0]);
        assert_eq!(split_point(&views, flip, 12), vec![10, 2, 0]);
        assert_eq!(split_point(&views, flip, 23), vec![10, 10, 3]);
        assert_eq!(split_point(&views, flip, 25), vec![10, 10, 5]);
        for order in [Order::Ascending, Order::Descending] {
            check(&runs, order, 3);
        }
    }

    #[test]
    fn float_and_signed_keys_and_empty_runs() {
        let specials = [
            f32::NAN,
            -f32::NAN,
            -0.0,
            0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1.0,
            -1.0,
        ];
        let runs: Vec<Vec<f32>> = (0..5)
            .map(|j| {
                values_below(j + 11, 300 * j as usize, 8)
                    .into_iter()
                    .map(|i| specials[i as usize])
                    .collect()
            })
            .collect();
        let ints: Vec<Vec<i64>> = (0..4)
            .map(|j| {
                values_below(j + 3, 500, 7)
                    .into_iter()
                    .map(|x| x as i64 - 3)
                    .collect()
            })
            .collect();
        for order in [Order::Ascending, Order::Descending] {
            for bucket in [1, 7, 299, 300, 301, 10_000] {
                check(&runs, order, bucket);
                check(&ints, order, bucket);
            }
        }
        check::<u32>(&[], Order::Ascending, 5);
        check::<u32>(&[vec![], vec![]], Order::Ascending, 5);
    }
}
