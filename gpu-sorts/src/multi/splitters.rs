//! The host side of the multi-GPU sort: the sample step, the splitters every rank picks the
//! same way from the all-gathered samples, each rank's search windows for its cuts, and the
//! bound on the largest share.
//!
//! Every key is identified by the tuple (ordered bits in the sort's order, rank, position in
//! its rank's locally sorted share): tuples are distinct, so the global order is total, and it
//! is the stable order (ties by rank, then by input position, since the local sort is stable).
//! Splitters are such tuples; equal keys split between ranks by position.

use sortlab_primitives::{Error, Result};

/// A splitter: the tuple of a sample, or `None` for "past the last key".
pub(crate) type Splitter = Option<Tuple>;

/// (ordered bits in the sort's order, rank, position in that rank's sorted share).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Tuple {
    pub bits: u64,
    pub rank: usize,
    pub pos: usize,
}

/// The sample step: every rank samples positions `0, step, 2 step, ...` of its sorted share, so
/// every sample stands for at most `step` keys. `ceil(n / (ranks * oversampling))`, at least 1.
pub(crate) fn sample_step(n: usize, ranks: usize, oversampling: usize) -> usize {
    n.div_ceil(ranks.max(1).saturating_mul(oversampling.max(1)))
        .max(1)
}

/// The number of samples of a share of `len` keys: `ceil(len / step)`.
pub(crate) fn sample_count(len: usize, step: usize) -> usize {
    len.div_ceil(step.max(1))
}

/// The bound on the keys any rank holds after the sort of `n` keys over `ranks` ranks with
/// `oversampling`: `ceil(n / ranks) + (ranks + 1) * (step - 1)`, where `step`, the sample
/// step, is `max(1, ceil(n / (ranks * oversampling)))` (never more than `n`).
///
/// ```
/// use sortlab_gpu_sorts::multi::max_share;
/// assert_eq!(max_share(1000, 4, 1024), 250); // step 1: an exact split
/// assert_eq!(max_share(1 << 30, 4, 1024), (1 << 28) + 5 * ((1 << 18) - 1));
/// ```
pub fn max_share(n: usize, ranks: usize, oversampling: usize) -> usize {
    let ranks = ranks.max(1);
    let step = sample_step(n, ranks, oversampling);
    (n.div_ceil(ranks) + (ranks + 1) * (step - 1)).min(n)
}

/// The `ranks - 1` splitters from every rank's samples (`samples[r]`: the ordered bits at
/// positions `0, step, ...` of rank `r`'s sorted share of `lens[r]` keys).
///
/// Each sample weighs the keys it stands for (`step`, less for a share's last one). Splitter
/// `i` is the first sample, in tuple order, whose preceding samples weigh at least
/// `floor(i n / ranks)`, or past the end when no sample does. Every rank computes the same
/// splitters from the same all-gathered samples.
pub(crate) fn choose(lens: &[usize], step: usize, samples: &[Vec<u64>]) -> Result<Vec<Splitter>> {
    let ranks = lens.len();
    if samples.len() != ranks {
        return Err(Error::Internal(format!(
            "{} sample lists for {ranks} ranks",
            samples.len()
        )));
    }
    let n: usize = lens.iter().sum();
    let mut all = Vec::with_capacity(samples.iter().map(Vec::len).sum());
    for (rank, (s, &len)) in samples.iter().zip(lens).enumerate() {
        if s.len() != sample_count(len, step) {
            return Err(Error::Internal(format!(
                "rank {rank}: {} samples of a share of {len} keys at step {step}",
                s.len()
            )));
        }
        for (j, &bits) in s.iter().enumerate() {
            let pos = j * step;
            let weight = step.min(len - pos);
            all.push((Tuple { bits, rank, pos }, weight));
        }
    }
    all.sort_unstable_by_key(|&(t, _)| t);
    let mut out = Vec::with_capacity(ranks.saturating_sub(1));
    let (mut idx, mut before) = (0, 0usize);
    for i in 1..ranks {
        let target = ((i as u128 * n as u128) / ranks as u128) as usize;
        while idx < all.len() && before < target {
            before += all[idx].1;
            idx += 1;
        }
        out.push(all.get(idx).map(|&(t, _)| t));
    }
    Ok(out)
}

/// How rank `me` finds its cut for one splitter: the number of its keys whose tuple is below
/// the splitter's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cut {
    /// Known without looking at the keys.
    Exact(usize),
    /// The first position in `lo .. hi` whose key is not below `bits` (is above it when
    /// `upper`: the splitter's rank comes after `me`, so `me`'s keys equal to it go first), or
    /// `hi` if none; the cut lies in `lo ..= hi`.
    Search {
        bits: u64,
        lo: usize,
        hi: usize,
        upper: bool,
    },
}

/// Rank `me`'s cut for `splitter`, from its share's length, the sample step and its own
/// samples: the samples bracket the cut within one step.
pub(crate) fn cut(me: usize, len: usize, step: usize, mine: &[u64], splitter: Splitter) -> Cut {
    let Some(s) = splitter else {
        return Cut::Exact(len);
    };
    if s.rank == me {
        return Cut::Exact(s.pos);
    }
    let upper = me < s.rank;
    // Samples of `me` below the splitter: bits below, or equal with `me` first.
    let k = mine.partition_point(|&b| b < s.bits || (upper && b == s.bits));
    if k == 0 {
        return Cut::Exact(0);
    }
    let lo = (k - 1) * step + 1;
    let hi = (k * step).min(len);
    if lo >= hi {
        return Cut::Exact(hi);
    }
    Cut::Search {
        bits: s.bits,
        lo,
        hi,
        upper,
    }
}

/// The search [`Cut::Search`] describes, over a host slice of ordered bits (the device kernel
/// `multi_cuts` does the same): for tests and one-key windows.
#[cfg(test)]
pub(crate) fn search(bits: &[u64], c: Cut) -> usize {
    match c {
        Cut::Exact(x) => x,
        Cut::Search {
            bits: b,
            lo,
            hi,
            upper,
        } => lo + bits[lo..hi].partition_point(|&x| x < b || (upper && x == b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Splits `shares` (ordered bits, any order) as the sort does, and returns the keys each
    /// rank ends with, as (bits, rank, position-in-sorted-share) tuples; checks the cuts
    /// against a brute-force count.
    fn split(shares: &[Vec<u64>], oversampling: usize) -> Vec<Vec<Tuple>> {
        let ranks = shares.len();
        let sorted: Vec<Vec<u64>> = shares
            .iter()
            .map(|s| {
                let mut s = s.clone();
                s.sort();
                s
            })
            .collect();
        let lens: Vec<usize> = sorted.iter().map(Vec::len).collect();
        let n: usize = lens.iter().sum();
        let step = sample_step(n, ranks, oversampling);
        let samples: Vec<Vec<u64>> = sorted
            .iter()
            .map(|s| s.iter().step_by(step).copied().collect())
            .collect();
        let splitters = choose(&lens, step, &samples).unwrap();
        assert_eq!(splitters.len(), ranks - 1);
        assert!(splitters.windows(2).all(|w| match (w[0], w[1]) {
            (Some(a), Some(b)) => a <= b,
            (None, Some(_)) => false,
            _ => true,
        }));
        let mut out = vec![Vec::new(); ranks];
        for (me, keys) in sorted.iter().enumerate() {
            let mut cuts = vec![0];
            for &s in &splitters {
                let c = search(keys, cut(me, keys.len(), step, &samples[me], s));
                // Brute force: keys of `me` whose tuple is below the splitter.
                let brute = match s {
                    None => keys.len(),
                    Some(s) => (0..keys.len())
                        .filter(|&p| {
                            Tuple {
                                bits: keys[p],
                                rank: me,
                                pos: p,
                            } < s
                        })
                        .count(),
                };
                assert_eq!(c, brute, "rank {me}, splitter {s:?}");
                cuts.push(c);
            }
            cuts.push(keys.len());
            for (dst, w) in cuts.windows(2).enumerate() {
                assert!(w[0] <= w[1]);
                out[dst].extend((w[0]..w[1]).map(|pos| Tuple {
                    bits: keys[pos],
                    rank: me,
                    pos,
                }));
            }
        }
        for (r, got) in out.iter_mut().enumerate() {
            got.sort();
            assert!(
                got.len() <= max_share(n, ranks, oversampling),
                "rank {r} holds {} of {n} keys over {ranks} ranks, bound {}",
                got.len(),
                max_share(n, ranks, oversampling)
            );
        }
        // Ranges: every key of rank r precedes every key of rank r + 1.
        let flat: Vec<Tuple> = out.iter().flatten().copied().collect();
        assert_eq!(flat.len(), n);
        assert!(flat.windows(2).all(|w| w[0] < w[1]));
        out
    }

    fn shares(
        ranks: usize,
        lens: &[usize],
        mut key: impl FnMut(&mut ChaCha8Rng) -> u64,
    ) -> Vec<Vec<u64>> {
        let mut rng = ChaCha8Rng::seed_from_u64(ranks as u64);
        (0..ranks)
            .map(|r| (0..lens[r % lens.len()]).map(|_| key(&mut rng)).collect())
            .collect()
    }

    #[test]
    fn all_equal_keys_balance_by_position() {
        for ranks in [2, 3, 4, 8] {
            for n in [1000, 4099] {
                let out = split(&shares(ranks, &[n], |_| 42), 16);
                let total = n * ranks;
                for got in &out {
                    assert!(got.len() <= max_share(total, ranks, 16));
                    assert!(
                        got.len() + (ranks + 1) * sample_step(total, ranks, 16) >= total / ranks
                    );
                }
            }
        }
    }

    #[test]
    fn skewed_and_uneven_inputs_stay_within_the_bound() {
        for ranks in [2, 4, 5] {
            for os in [1, 4, 64, 1024] {
                split(&shares(ranks, &[3000], |r| r.gen_range(0..4)), os);
                split(
                    &shares(ranks, &[2000], |r| {
                        // Zipf-like: small values far more likely.
                        let u: f64 = r.gen_range(0.0..1.0);
                        (1.0 / (u + 1e-3)) as u64
                    }),
                    os,
                );
                split(&shares(ranks, &[5000, 0, 17, 1], |r| r.gen()), os);
                split(&shares(ranks, &[0], |r| r.gen()), os);
            }
        }
    }

    #[test]
    fn fewer_keys_than_ranks_spread_one_each() {
        for ranks in [2, 4, 8] {
            for n in 0..ranks {
                let mut lens = vec![0; ranks];
                lens[0] = n;
                let s: Vec<Vec<u64>> = lens.iter().map(|&l| vec![7; l]).collect();
                let out = split(&s, 1024);
                assert!(out.iter().all(|o| o.len() <= 1), "{out:?}");
            }
        }
    }

    #[test]
    fn exact_bound_with_small_inputs() {
        // n <= ranks * oversampling: the step is 1 and the split is perfect.
        let out = split(&shares(4, &[100, 3, 50, 0], |r| r.gen_range(0..10)), 64);
        let n: usize = 153;
        for got in &out {
            assert!(got.len() <= n.div_ceil(4));
        }
        assert_eq!(max_share(n, 4, 64), n.div_ceil(4));
    }

    #[test]
    fn steps_and_bounds() {
        assert_eq!(sample_step(0, 4, 1024), 1);
        assert_eq!(sample_step(1 << 30, 4, 1024), 1 << 18);
        assert_eq!(sample_count(10, 3), 4);
        assert_eq!(max_share(0, 4, 8), 0);
        assert_eq!(max_share(3, 4, 8), 1);
        assert_eq!(max_share(1 << 30, 4, 1024), (1 << 28) + 5 * ((1 << 18) - 1));
    }
}
