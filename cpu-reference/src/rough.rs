//! Roughly sorted sequences on the CPU: the radius of a sequence, and sorting of `k`-sorted
//! input in O(n log k) — the twin of `sortlab-roughsort`, after the report "Parallel Sorting of
//! Roughly-Sorted Sequences" (Altman & Igarashi 1989; Altman & Chlebus 1990).
//!
//! # Definitions
//! A sequence is *`k`-sorted* when every key is at most `k` places before any key it must
//! follow; its *radius* is the smallest such `k`. The radius functions live in
//! [`crate::radius`] (definitions, `LR`/`RL`/`DM`) and are re-exported here.
//!
//! | function | what |
//! |---|---|
//! | [`radius`] | the report's sequential algorithm: `LR`, `RL` and `DM` arrays, O(n) |
//! | [`radius_memory_saving`] | the report's memory-saving form: only `RL` is stored, O(n) |
//! | [`radius_par`] | rayon: the memory-saving walk in parallel blocks, no array of `n` words |
//! | [`is_k_sorted`] | whether the radius is at most `k`, O(n) and O(1) memory |
//! | [`halving_step`] | one step of the halving algorithm: `k`-sorted in, `(⌈k/2⌉ - 1)`-sorted out |
//! | [`rough_sort_seq`] | the halving algorithm (sequential roughsort), stable pairs too |
//! | [`rough_sort_par`] | Altman-Chlebus on rayon: sort runs of `2k`, then runs of `2k` from `a[k]` |
//! | [`bubble_sort`] | bubble sort with early exit, the report's baseline |
//!
//! # Why a halving step halves the radius
//! [`halving_step`] on a `k`-sorted sequence, with `h = ⌈k/2⌉`: cut the positions into segments
//! of `h`; partition each pair of segments `(2p, 2p + 1)` about its median (the `h` smallest
//! keys of the pair into its first segment, in any order), then each pair `(2p + 1, 2p + 2)`
//! (the pairs staggered by half a run), then the pairs `(2p, 2p + 1)` again. The result is
//! `(h - 1)`-sorted.
//!
//! Proof (0-1 principle): a sequence is `r`-sorted exactly when, for every threshold `t`, its
//! 0-1 image (0 for keys `<= t`, 1 above) is; a 0-1 sequence is `r`-sorted when its last 0 is at
//! most `r` places after its first 1. Partitioning a pair of segments maps the image's counts
//! of zeros `(z, z')` to `(min(h, z + z'), rest)` whatever the keys, so the counts of zeros per
//! segment evolve like masses moved left by the three passes. In a `k`-sorted input the first 1
//! and the last 0 are at most `k <= 2h` apart, so the segments that hold both 0s and 1s are at
//! most 3 consecutive ones, with only 0s before and only 1s after; three alternating passes
//! over 3 such segments leave the counts non-increasing (full segments, at most one partial
//! segment, then empty ones), whichever pairing comes first. Then every 0-1 image has its first
//! 1 and last 0 in one segment, at most `h - 1` apart. So each step takes radius `k` to at most
//! `⌈k/2⌉ - 1` (2 and 1 go to 0); the tests check the bound on every step.
//!
//! # Stability
//! For key-value pairs, ties are broken by input position: the keys `(key, position)` are all
//! distinct and have the same radius as the keys alone (no two equal keys are out of position
//! order), so an algorithm that sorts them exactly yields the stable sort.
//! [`rough_sort_seq_pairs`] does this; [`rough_sort_par_pairs`] uses stable sorts of the runs,
//! which keep equal keys in input order across the whole sequence.

use std::cmp::max;

use rayon::prelude::*;
use sortlab_primitives::{Order, SortKey, SortValue};

use crate::radius::{radius_par_up_to, ParRadius};
use crate::sort::rank;
use crate::{check, CheckError, Error, PAR_MIN_LEN};

pub use crate::radius::{
    dm, is_k_sorted, lr, radius, radius_memory_saving, radius_naive, radius_par, rl,
};

/// Partitions each pair of segments of `h` positions, from `offset` on, about its median: the
/// `h` smallest (by `key`) into the pair's first segment. A last pair without a second segment
/// is left alone.
fn partition_pairs<T, R: Ord>(v: &mut [T], h: usize, offset: usize, key: &impl Fn(&T) -> R) {
    if offset >= v.len() {
        return;
    }
    for pair in v[offset..].chunks_mut(2 * h) {
        if pair.len() > h {
            pair.select_nth_unstable_by_key(h - 1, key);
        }
    }
}

/// One halving step on `v`, `k`-sorted by `key`; returns the new bound `⌈k/2⌉ - 1`.
fn halve_by<T, R: Ord>(v: &mut [T], k: usize, key: &impl Fn(&T) -> R) -> usize {
    if k == 0 {
        return 0;
    }
    let h = k.div_ceil(2);
    for offset in [0, h, 0] {
        partition_pairs(v, h, offset, key);
    }
    h - 1
}

/// One pass of adjacent exchanges, left to right: sorts a 1-sorted `v` (its inversions are
/// disjoint adjacent pairs). Returns whether anything moved.
fn bubble_pass_by<T, R: Ord>(v: &mut [T], key: &impl Fn(&T) -> R) -> bool {
    let mut moved = false;
    for i in 1..v.len() {
        if key(&v[i - 1]) > key(&v[i]) {
            v.swap(i - 1, i);
            moved = true;
        }
    }
    moved
}

/// The halving algorithm on `v`, `k`-sorted by `key` (the keys must be distinct for pairs to
/// come out stable: see the module docs).
fn halving_sort_by<T, R: Ord>(v: &mut [T], k: usize, key: &impl Fn(&T) -> R) {
    let mut k = k;
    while k > 1 {
        k = halve_by(v, k, key);
    }
    if k == 1 {
        bubble_pass_by(v, key);
    }
}

/// One step of the halving algorithm: takes `keys`, `k`-sorted in `order`, to `(⌈k/2⌉ - 1)`-
/// sorted, and returns that bound (0 for `k` <= 2).
///
/// # Overview
/// With `h = ⌈k/2⌉`, the positions are cut into segments of `h`; each pair of segments is
/// partitioned about its median ([`slice::select_nth_unstable_by_key`]: the `h` smallest keys
/// into the first segment), first the pairs starting at position 0, then the pairs starting at
/// `h` (staggered by half a run), then those starting at 0 again: three O(n) passes. The module
/// docs prove the bound; the tests check it on every step.
///
/// If `keys` is not `k`-sorted the keys are still permuted, but no bound holds.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::rough::{halving_step, radius};
/// use sortlab_primitives::Order;
/// let mut keys: Vec<u32> = (0..1000).collect();
/// for s in (0..990).step_by(10) {
///     keys.swap(s, s + 9); // radius 9
/// }
/// assert_eq!(radius(&keys, Order::Ascending), 9);
/// let bound = halving_step(&mut keys, 9, Order::Ascending);
/// assert_eq!(bound, 4);
/// assert!(radius(&keys, Order::Ascending) <= 4);
/// ```
pub fn halving_step<K: SortKey>(keys: &mut [K], k: usize, order: Order) -> usize {
    halve_by(keys, k, &|x: &K| rank(*x, order))
}

/// Sorts `keys` in `order` with the halving algorithm (sequential roughsort) and returns the
/// radius it found.
///
/// # Overview
/// Determines the radius `k` ([`radius_memory_saving`]), then applies [`halving_step`] until
/// the bound is at most 1 (about `lg k` steps of three O(n) passes each) and finishes a
/// 1-sorted sequence with one bubble pass. O(n log k) expected time on one thread, no extra
/// memory beyond the radius determination's `n` words.
///
/// # Key types
/// `u32`, `i32`, `f32`, `u64`, `i64`, `f64` in IEEE total order, ascending or descending.
///
/// # Stability
/// Unstable (not observable for keys alone: the output equals [`crate::sort::sort`]'s).
/// [`rough_sort_seq_pairs`] is the stable key-value form.
///
/// # Performance
/// O(n log k); timed by the `rough` criterion benchmark (`cargo bench -p sortlab-cpu-reference
/// --bench rough`, ids `rough_sort_seq-{type}-k-sorted:{k}-{len}`).
///
/// # Example
/// ```
/// use sortlab_cpu_reference::rough::rough_sort_seq;
/// use sortlab_primitives::Order;
/// let mut keys = [1.0f32, 5.0, 3.0, 4.0, 2.0, 6.0];
/// assert_eq!(rough_sort_seq(&mut keys, Order::Ascending), 3);
/// assert_eq!(keys, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
/// ```
pub fn rough_sort_seq<K: SortKey>(keys: &mut [K], order: Order) -> usize {
    let k = radius_memory_saving(keys, order);
    halving_sort_by(keys, k, &|x: &K| rank(*x, order));
    k
}

/// Sorts key-value pairs by key in `order` with the halving algorithm, stably, and returns the
/// radius of the keys.
///
/// # Overview
/// As [`rough_sort_seq`] on the distinct keys `(rank, input position)`, which have the keys'
/// radius; the pairs are then gathered in the order found.
///
/// # Key types
/// As [`rough_sort_seq`]; values are any [`SortValue`], moved and never compared.
///
/// # Stability
/// Stable: the output equals [`crate::sort::sort_pairs`]'s exactly.
///
/// # Errors
/// [`Error::LengthMismatch`] when `keys` and `values` differ in length (data left as it was).
///
/// # Performance
/// O(n log k) on one thread, with `n` (rank, position) words and a copy of the pairs.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::rough::rough_sort_seq_pairs;
/// use sortlab_primitives::Order;
/// let mut keys = [2u32, 1, 2, 1];
/// let mut values = [0u32, 1, 2, 3];
/// assert_eq!(rough_sort_seq_pairs(&mut keys, &mut values, Order::Ascending)?, 3);
/// assert_eq!((keys, values), ([1, 1, 2, 2], [1, 3, 0, 2]));
/// # Ok::<(), sortlab_cpu_reference::Error>(())
/// ```
pub fn rough_sort_seq_pairs<K: SortKey, V: SortValue>(
    keys: &mut [K],
    values: &mut [V],
    order: Order,
) -> Result<usize, Error> {
    check_lengths(keys, values)?;
    let k = radius_memory_saving(keys, order);
    if k == 0 {
        return Ok(0);
    }
    let mut tagged: Vec<(K::Bits, usize)> = keys
        .iter()
        .enumerate()
        .map(|(i, &key)| (rank(key, order), i))
        .collect();
    halving_sort_by(&mut tagged, k, &|t: &(K::Bits, usize)| *t);
    let (old_keys, old_values) = (keys.to_vec(), values.to_vec());
    for (i, &(_, src)) in tagged.iter().enumerate() {
        keys[i] = old_keys[src];
        values[i] = old_values[src];
    }
    Ok(k)
}

/// The error of key-value functions given slices of different lengths.
fn check_lengths<K, V>(keys: &[K], values: &[V]) -> Result<(), Error> {
    Error::check_pairs(keys.len(), values.len())?;
    Ok(())
}

/// Altman-Chlebus on rayon: sorts the runs of `2k` from position 0 with `first`, then the runs
/// of `2k` from position `k` (whose halves are sorted, so std's stable sort merges them in
/// O(run)). Sorts a `k`-sorted `v` exactly; stably when `first` is stable.
fn altman_chlebus_by<T, R, F>(v: &mut [T], k: usize, key: &F, first: &(dyn Fn(&mut [T]) + Sync))
where
    T: Send,
    R: Ord,
    F: Fn(&T) -> R + Sync,
{
    if k == 0 || v.len() < 2 {
        return;
    }
    let run = k.saturating_mul(2).min(v.len());
    let min_runs = max(1, PAR_MIN_LEN / run);
    v.par_chunks_mut(run).with_min_len(min_runs).for_each(first);
    if k < v.len() {
        v[k..]
            .par_chunks_mut(run)
            .with_min_len(min_runs)
            .for_each(|c| c.sort_by_key(key));
    }
}

/// Sorts `keys` in `order` with Altman-Chlebus parallel roughsort on rayon and returns the
/// radius it found (a lower bound on it where the radius pass stopped early for the full sort).
///
/// # Overview
/// Determines the radius `k` ([`radius_par`]), sorts every run of `2k` keys from position 0 in
/// parallel, then every run of `2k` from position `k` (each the sorted upper half of one run
/// and the sorted lower half of the next: a merge). In a `k`-sorted sequence every key is at
/// most `k` places from its sorted place, so this sorts it. O(n log k) work. Where the runs of
/// `2k` are half the input or more (`k >= n / 4`: two passes over at most two runs each, more
/// work than one full sort) the parallel radix sort ([`crate::radix::sort_keys`]) sorts the
/// keys instead, as the GPU rough sort takes its radix sort past a fixed crossover radius. The
/// radius pass stops after its first read (the extremes of blocks of 2^16 keys) when those
/// bound the radius to where `k >= n / 4` may hold, so such input costs little more than
/// the full sort; the radius returned is then a lower bound. Runs of 256 keys and more are
/// sorted by the radix sort too, one thread each up to 2^16 keys. Measured figures: the crate's
/// `README.md`.
///
/// # Key types
/// `u32`, `i32`, `f32`, `u64`, `i64`, `f64` in IEEE total order, ascending or descending.
///
/// # Stability
/// Unstable for keys (not observable: equal keys are bit-identical); [`rough_sort_par_pairs`]
/// is stable.
///
/// # Performance
/// O(n log k) work on all of rayon's threads; timed by the `rough` criterion benchmark (ids
/// `rough_sort_par-{type}-k-sorted:{k}-{len}`).
///
/// # Example
/// ```
/// use sortlab_cpu_reference::rough::rough_sort_par;
/// use sortlab_primitives::Order;
/// let mut keys = [3i64, 1, 2, 6, 4, 5];
/// assert_eq!(rough_sort_par(&mut keys, Order::Descending), 5);
/// assert_eq!(keys, [6, 5, 4, 3, 2, 1]);
/// ```
pub fn rough_sort_par<K: SortKey>(keys: &mut [K], order: Order) -> usize {
    match radius_or_full_sort(keys, order) {
        ParRadius::Exact(k) => {
            sort_par_with_radius(keys, k, order);
            k
        }
        ParRadius::Past { lower } => {
            crate::radix::sort_keys(keys, order);
            lower
        }
    }
}

/// The radius of `keys` by [`radius_par`], or [`ParRadius::Past`] when the walk's first read
/// (the blocks' extremes) already bounds it to where [`few_runs`] may hold: the full sort is
/// then taken without the rest of the radius (the walk, about three quarters of its time).
fn radius_or_full_sort<K: SortKey>(keys: &[K], order: Order) -> ParRadius {
    let n = keys.len();
    radius_par_up_to(keys, order, &|(_, upper)| few_runs(n, upper))
}

/// Whether a radius `k` leaves Altman-Chlebus on `n` keys at most two runs of `2k` a pass:
/// its two passes then sort more keys than one full sort does, so the full sort is taken
/// (`README.md` has the measurements). The GPU rough sort takes a full sort from `k >= n / 2`.
fn few_runs(n: usize, k: usize) -> bool {
    k.saturating_mul(4) >= n
}

/// Sorts the `k`-sorted `keys`: Altman-Chlebus, or where it has few runs, the parallel radix
/// sort (the same output).
fn sort_par_with_radius<K: SortKey>(keys: &mut [K], k: usize, order: Order) {
    if k > 0 && few_runs(keys.len(), k) {
        crate::radix::sort_keys(keys, order);
    } else {
        let key = |x: &K| rank(*x, order);
        if k.saturating_mul(2) >= RADIX_RUN_MIN {
            // Runs long enough for the radix sort (one thread each up to 2^16 keys, skipping
            // the digits on which a run's keys agree).
            altman_chlebus_by(keys, k, &key, &|c| crate::radix::sort_keys(c, order));
        } else {
            altman_chlebus_by(keys, k, &key, &|c| c.sort_unstable_by_key(key));
        }
    }
}

/// Altman-Chlebus on keys alone sorts its runs with the radix sort from this length of run
/// (`2k`) on, with the comparison sort below (measured on 2^24 u32 k-sorted keys with k = 256;
/// `README.md` has the figures).
const RADIX_RUN_MIN: usize = 256;

/// Sorts `keys` in `order` with Altman-Chlebus on rayon, trusting the radius `k` given.
///
/// # Errors
/// [`CheckError::NotKSorted`] (with a witness pair) when `keys` is not `k`-sorted; the keys are
/// then left as they were. The check costs one O(n) pass ([`check::check_k_sorted`]).
///
/// # Example
/// ```
/// use sortlab_cpu_reference::rough::rough_sort_par_with_radius;
/// use sortlab_cpu_reference::CheckError;
/// use sortlab_primitives::Order;
/// let mut keys = [2u32, 1, 4, 3];
/// let err = rough_sort_par_with_radius(&mut keys, 0, Order::Ascending).unwrap_err();
/// assert!(matches!(err, CheckError::NotKSorted { k: 0, .. }));
/// assert_eq!(keys, [2, 1, 4, 3]);
/// rough_sort_par_with_radius(&mut keys, 1, Order::Ascending)?;
/// assert_eq!(keys, [1, 2, 3, 4]);
/// # Ok::<(), CheckError>(())
/// ```
pub fn rough_sort_par_with_radius<K: SortKey>(
    keys: &mut [K],
    k: usize,
    order: Order,
) -> Result<(), CheckError> {
    check::check_k_sorted(keys, k, order)?;
    sort_par_with_radius(keys, k, order);
    Ok(())
}

/// Sorts key-value pairs by key in `order` with Altman-Chlebus on rayon, stably, and returns
/// the radius of the keys.
///
/// # Overview
/// As [`rough_sort_par`], on packed `(rank, value)` pairs sorted with stable sorts; where the
/// runs would be few (`k >= n / 4`, or the radius pass's first read shows it may be), by the
/// stable parallel radix sort ([`crate::radix::sort_pairs`]); the radius returned is then a
/// lower bound where the pass stopped early.
///
/// # Key types
/// As [`rough_sort_par`]; values are any [`SortValue`], moved and never compared.
///
/// # Stability
/// Stable: a stable sort of each run keeps equal keys in input order, across runs too, so the
/// output equals [`crate::sort::sort_pairs`]'s exactly.
///
/// # Errors
/// [`Error::LengthMismatch`] when `keys` and `values` differ in length (data left as it was).
///
/// # Performance
/// O(n log k) work on rayon, with `n` packed pairs of extra memory.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::rough::rough_sort_par_pairs;
/// use sortlab_primitives::Order;
/// let mut keys = [1.5f64, 0.5, 1.5];
/// let mut values = [0u64, 1, 2];
/// assert_eq!(rough_sort_par_pairs(&mut keys, &mut values, Order::Ascending)?, 1);
/// assert_eq!((keys, values), ([0.5, 1.5, 1.5], [1, 0, 2]));
/// # Ok::<(), sortlab_cpu_reference::Error>(())
/// ```
pub fn rough_sort_par_pairs<K: SortKey, V: SortValue>(
    keys: &mut [K],
    values: &mut [V],
    order: Order,
) -> Result<usize, Error> {
    check_lengths(keys, values)?;
    let k = match radius_or_full_sort(keys, order) {
        ParRadius::Exact(0) => return Ok(0),
        ParRadius::Exact(k) if !few_runs(keys.len(), k) => k,
        ParRadius::Exact(k) | ParRadius::Past { lower: k } => {
            crate::radix::sort_pairs(keys, values, order)?;
            return Ok(k);
        }
    };
    let mut packed: Vec<(K::Bits, K, V)> = keys
        .par_iter()
        .zip(values.par_iter())
        .map(|(&key, &v)| (rank(key, order), key, v))
        .collect();
    let key = |p: &(K::Bits, K, V)| p.0;
    altman_chlebus_by(&mut packed, k, &key, &|c| c.sort_by_key(key));
    keys.par_iter_mut()
        .zip(values.par_iter_mut())
        .zip(packed.par_iter())
        .for_each(|((key, v), p)| {
            *key = p.1;
            *v = p.2;
        });
    Ok(k)
}

/// Bubble sort with early exit: the report's baseline, for the reproduction only.
///
/// Passes of adjacent exchanges, each one position shorter, until a pass exchanges nothing: a
/// `k`-sorted input takes at most `k + 1` passes, O(n k) time. Stable. Returns the number of
/// passes made.
///
/// ```
/// use sortlab_cpu_reference::rough::bubble_sort;
/// use sortlab_primitives::Order;
/// let mut keys = [2u32, 1, 3, 5, 4];
/// assert_eq!(bubble_sort(&mut keys, Order::Ascending), 2);
/// assert_eq!(keys, [1, 2, 3, 4, 5]);
/// ```
pub fn bubble_sort<K: SortKey>(keys: &mut [K], order: Order) -> usize {
    let mut passes = 0;
    let mut end = keys.len();
    while end > 1 {
        passes += 1;
        let mut last_swap = 0;
        for i in 1..end {
            if rank(keys[i - 1], order) > rank(keys[i], order) {
                keys.swap(i - 1, i);
                last_swap = i;
            }
        }
        if last_swap == 0 {
            break;
        }
        end = last_swap;
    }
    passes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_inputs::{xorshift, zero_one};

    #[test]
    fn halving_step_meets_its_bound_on_all_short_0_1_sequences() {
        for n in 0..=12 {
            for v in zero_one(n) {
                let r = radius_naive(&v, Order::Ascending);
                for k in r..=n {
                    let mut w = v.clone();
                    let bound = halving_step(&mut w, k, Order::Ascending);
                    assert_eq!(bound, k.div_ceil(2).saturating_sub(1));
                    assert!(
                        radius_naive(&w, Order::Ascending) <= bound,
                        "{v:?} k = {k} -> {w:?}"
                    );
                    let (mut a, mut b) = (v.clone(), w.clone());
                    a.sort_unstable();
                    b.sort_unstable();
                    assert_eq!(a, b);
                }
            }
        }
    }

    #[test]
    fn altman_chlebus_sorts_all_short_0_1_sequences() {
        for n in 0..=12 {
            for v in zero_one(n) {
                let r = radius_naive(&v, Order::Ascending);
                let mut expected = v.clone();
                expected.sort_unstable();
                for k in [r, r + 1, n] {
                    let mut w = v.clone();
                    altman_chlebus_by(&mut w, k, &|x: &u32| *x, &|c| c.sort_unstable());
                    assert_eq!(w, expected, "{v:?} k = {k}");
                }
                let mut w = v.clone();
                halving_sort_by(&mut w, r, &|x: &u32| *x);
                assert_eq!(w, expected, "{v:?}");
            }
        }
    }

    /// Keys alone with runs long enough for the radix sort (and just below): every radius
    /// around the switch, past 2^16-key runs, keys with ties and floats, both orders, against
    /// the comparison sort.
    #[test]
    fn rough_sort_par_with_radix_runs_sorts() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let n = 150_003usize;
        for w in [
            RADIX_RUN_MIN as u64 / 2 - 1,
            RADIX_RUN_MIN as u64 / 2 + 1,
            3000,
            40_000,
        ] {
            // Keys i + (a random offset below w), then every 8 one value: radius below w.
            let v: Vec<u32> = (0..n as u64)
                .map(|i| ((i + next() % w) / 8) as u32)
                .collect();
            let f: Vec<f64> = v.iter().map(|&x| x as f64 - 1e5).collect();
            for order in [Order::Ascending, Order::Descending] {
                let mut got = v.clone();
                if order == Order::Descending {
                    got.reverse();
                }
                let mut want = got.clone();
                crate::sort::sort(&mut want, order);
                let k = rough_sort_par(&mut got, order);
                assert!(k < w as usize, "w {w} k {k}");
                assert_eq!(got, want, "w {w} {order}");
                let mut got = f.clone();
                if order == Order::Descending {
                    got.reverse();
                }
                let mut want = got.clone();
                crate::sort::sort(&mut want, order);
                rough_sort_par(&mut got, order);
                assert!(
                    got.iter()
                        .zip(&want)
                        .all(|(a, b)| a.to_bits() == b.to_bits()),
                    "f64 w {w}"
                );
            }
        }
    }

    /// The radius pass stops after the blocks' extremes exactly where they bound the radius
    /// to where the full sort may be taken (`k >= n / 4`), keys and pairs alike.
    #[test]
    fn rough_sort_par_stops_the_radius_pass_early_past_n_over_4() {
        let n = 1usize << 20;
        for (d, stops) in [
            (n / 8, false),
            (n / 4 - 1, false),
            (n / 4, true),
            (n - 1, true),
        ] {
            let mut v: Vec<u32> = (0..n as u32).collect();
            v.swap(0, d); // radius exactly d
            let mut keys = v.clone();
            let found = rough_sort_par(&mut keys, Order::Ascending);
            assert!(
                keys.iter().enumerate().all(|(i, &x)| x == i as u32),
                "d {d}"
            );
            let mut values: Vec<u64> = (0..n as u64).collect();
            let mut pkeys = v.clone();
            let pfound = rough_sort_par_pairs(&mut pkeys, &mut values, Order::Ascending).unwrap();
            assert_eq!(pkeys, keys, "d {d}");
            let mut want = (0..n as u64).collect::<Vec<_>>();
            want.swap(0, d);
            assert_eq!(values, want, "d {d}");
            if stops {
                // A lower bound, more than a block of 2^16 below the radius here.
                assert!(found < d && found > 1 << 16, "d {d}: {found}");
                assert_eq!(pfound, found);
            } else {
                assert_eq!((found, pfound), (d, d));
            }
        }
    }
}
