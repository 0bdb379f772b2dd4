//! Roughly sorted sequences on the CPU: the radius of a sequence, and sorting of `k`-sorted
//! input in O(n log k) — the twin of `sortlab-roughsort`, after the report "Parallel Sorting of
//! Roughly-Sorted Sequences" (Altman & Igarashi 1989; Altman & Chlebus 1990).
//!
//! # Definitions
//! A sequence `a` is *`k`-sorted* in an order when `a[i]` precedes-or-equals `a[j]` for all
//! `i < j - k`; its *radius* is the smallest such `k` (0 for a sorted sequence, `n - 1` at
//! most). Keys are compared by IEEE total order ([`SortKey::total_cmp`]) in the given
//! [`Order`].
//!
//! The radius comes from the *characteristic sequences* `LR` (`b[i] = max a[0..=i]`, [`lr`]) and
//! `RL` (`c[i] = min a[i..]`, [`rl`]), both non-decreasing, and the *disorder measure* `DM`
//! (`d[i] = max({i - j : c[i] < b[j]} ∪ {0})`, [`dm`]): the radius is `max d[i]`. Since `RL` is
//! non-decreasing, the smallest `j` with `b[j] > c[i]` never moves left as `i` grows, so one
//! pointer finds every `d[i]` in O(n) time.
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

use std::cmp::{max, min};

use rayon::prelude::*;
use sortlab_primitives::{Order, SortKey, SortValue};

use crate::sort::rank;
use crate::{check, CheckError, Error};

/// Inputs shorter than this are handled on the calling thread by the `_par` functions; longer
/// ones are cut into pieces of at least this many keys. A linear pass over 2^14 keys takes a
/// few microseconds, about what handing work to rayon's pool costs (order of magnitude, as in
/// `check`; not tuned).
const PAR_MIN_LEN: usize = 1 << 14;

/// The ranks (order-adjusted ordered bits) of `keys`.
fn ranks<K: SortKey>(keys: &[K], order: Order) -> Vec<K::Bits> {
    keys.iter().map(|&k| rank(k, order)).collect()
}

/// Prefix maxima of `v` in place.
fn prefix_max_in_place<B: Ord + Copy>(v: &mut [B]) {
    for i in 1..v.len() {
        v[i] = max(v[i - 1], v[i]);
    }
}

/// Suffix minima of `v` in place.
fn suffix_min_in_place<B: Ord + Copy>(v: &mut [B]) {
    for i in (0..v.len().saturating_sub(1)).rev() {
        v[i] = min(v[i + 1], v[i]);
    }
}

/// The characteristic sequence `LR` of `keys` in `order`: `b[i]` is the largest (in `order`) of
/// `a[0..=i]`. Non-decreasing in `order`.
///
/// ```
/// use sortlab_cpu_reference::rough::lr;
/// use sortlab_primitives::Order;
/// assert_eq!(lr(&[2u32, 1, 4, 3], Order::Ascending), [2, 2, 4, 4]);
/// assert_eq!(lr(&[2u32, 1, 4, 3], Order::Descending), [2, 1, 1, 1]);
/// ```
pub fn lr<K: SortKey>(keys: &[K], order: Order) -> Vec<K> {
    let Some(&first) = keys.first() else {
        return Vec::new();
    };
    let (mut best, mut best_rank) = (first, rank(first, order));
    keys.iter()
        .map(|&k| {
            let r = rank(k, order);
            if r > best_rank {
                best = k;
                best_rank = r;
            }
            best
        })
        .collect()
}

/// The characteristic sequence `RL` of `keys` in `order`: `c[i]` is the smallest (in `order`)
/// of `a[i..]`. Non-decreasing in `order`.
///
/// ```
/// use sortlab_cpu_reference::rough::rl;
/// use sortlab_primitives::Order;
/// assert_eq!(rl(&[2u32, 1, 4, 3], Order::Ascending), [1, 1, 3, 3]);
/// ```
pub fn rl<K: SortKey>(keys: &[K], order: Order) -> Vec<K> {
    let Some(&last) = keys.last() else {
        return Vec::new();
    };
    let (mut best, mut best_rank) = (last, rank(last, order));
    let mut out: Vec<K> = keys
        .iter()
        .rev()
        .map(|&k| {
            let r = rank(k, order);
            if r < best_rank {
                best = k;
                best_rank = r;
            }
            best
        })
        .collect();
    out.reverse();
    out
}

/// Calls `f(i, d[i])` for every `i`, with `d` the disorder measure of the ranks whose `LR` and
/// `RL` are `lr` and `rl` (equal lengths), from position `start` on; the walk begins with the
/// pointer at `j0 <= start`, which must be at most the first `j` with `lr[j] > rl[start]`.
fn walk_dm<B: Ord + Copy>(
    lr: &[B],
    rl: &[B],
    start: usize,
    j0: usize,
    mut f: impl FnMut(usize, usize),
) {
    let mut j = j0;
    for (i, &c) in rl.iter().enumerate().skip(start) {
        // The smallest j <= i with LR[j] > RL[i]; if none, j stops at i (LR[i] == RL[i]).
        while j < i && lr[j] <= c {
            j += 1;
        }
        f(i, if lr[j] > c { i - j } else { 0 });
    }
}

/// The disorder measure `DM` of `keys` in `order`: `d[i] = max({i - j : c[i] < b[j]} ∪ {0})`,
/// with `b` = [`lr`] and `c` = [`rl`]: how far before `i` the first key that must come after
/// `a[i..]`'s smallest key is. The radius is `max d[i]`.
///
/// ```
/// use sortlab_cpu_reference::rough::dm;
/// use sortlab_primitives::Order;
/// assert_eq!(dm(&[1u32, 5, 3, 4, 2, 6], Order::Ascending), [0, 0, 1, 2, 3, 0]);
/// ```
pub fn dm<K: SortKey>(keys: &[K], order: Order) -> Vec<usize> {
    let mut b = ranks(keys, order);
    let mut c = b.clone();
    prefix_max_in_place(&mut b);
    suffix_min_in_place(&mut c);
    let mut d = vec![0; keys.len()];
    walk_dm(&b, &c, 0, 0, |i, di| d[i] = di);
    d
}

/// The radius of `keys` in `order` by the report's sequential algorithm: the arrays `LR`, `RL`
/// and `DM` ([`lr`], [`rl`], [`dm`]), then the largest `d[i]`.
///
/// The smallest `k` such that `keys` is `k`-sorted: the largest distance `j - i` of an
/// inversion (`i < j`, `a[i]` after `a[j]` in `order`), or 0. O(n) time, three arrays of `n`
/// words; [`radius_memory_saving`] gives the same with one array, [`radius_par`] on rayon.
///
/// ```
/// use sortlab_cpu_reference::rough::radius;
/// use sortlab_primitives::Order;
/// assert_eq!(radius(&[1u32, 5, 3, 4, 2, 6], Order::Ascending), 3);
/// assert_eq!(radius(&[4u32, 3, 2, 1], Order::Descending), 0);
/// ```
pub fn radius<K: SortKey>(keys: &[K], order: Order) -> usize {
    dm(keys, order).into_iter().max().unwrap_or(0)
}

/// The radius of `keys` in `order` by the report's memory-saving form: `RL` is stored, `LR` is
/// computed on the fly by the pointer walk and `DM` is never stored.
///
/// O(n) time on one thread, `n` words of memory. Equals [`radius`].
///
/// ```
/// use sortlab_cpu_reference::rough::radius_memory_saving;
/// use sortlab_primitives::Order;
/// assert_eq!(radius_memory_saving(&[4u32, 3, 2, 1], Order::Ascending), 3);
/// ```
pub fn radius_memory_saving<K: SortKey>(keys: &[K], order: Order) -> usize {
    let n = keys.len();
    if n < 2 {
        return 0;
    }
    let mut rl = ranks(keys, order);
    suffix_min_in_place(&mut rl);
    walk_max(|i| rank(keys[i], order), &rl, 0, 0)
}

/// The pointer walk with `LR` computed on the fly, over positions `start..start + rl.len()`
/// (`rl` their `RL`), from `j` (at most `start`): the largest `d[i]` among them. Before the
/// first j with `LR[j] > RL[start]`, the running maximum from `j` stands in for `LR`: `j` must
/// be where no key before it exceeds `RL[start]`.
fn walk_max<B: Ord + Copy>(r: impl Fn(usize) -> B, rl: &[B], start: usize, mut j: usize) -> usize {
    let mut lr_j = r(j);
    let mut best = 0;
    for (i, &rl_i) in (start..).zip(rl) {
        // Advance to the smallest j <= i with LR[j] > RL[i] (j = i when none is below i).
        while j < i && lr_j <= rl_i {
            j += 1;
            lr_j = max(lr_j, r(j));
        }
        if lr_j > rl_i {
            best = max(best, i - j);
        }
    }
    best
}

/// The radius of `keys` in `order` on rayon.
///
/// The memory-saving form of [`radius_memory_saving`], in parallel over blocks of positions:
/// one read gives every block's largest and smallest key; then each block builds its own `RL`
/// from its keys and the smallest key after it, finds where the pointer walk of [`radius`] would
/// stand at its first position (a binary search over the blocks' prefix maxima, then a scan of
/// one block) and walks, computing `LR` on the fly. O(n) work, O(n / p + log n) time on `p`
/// threads, a block of words per thread (no array of `n`). Equals [`radius`].
///
/// Against the form it replaced (parallel scans into `LR` and `RL` arrays of `n` words, then
/// the walk; `sortlab bench roughsort`, 2 cores, 2^24 `u32` keys): k-sorted with k = 16 90 ->
/// 27 ms, k = 4096 92 -> 27 ms, uniform 85 -> 20 ms; at 2^20 5.1 -> 2.5 ms (k = 16).
///
/// ```
/// use sortlab_cpu_reference::rough::radius_par;
/// use sortlab_primitives::Order;
/// let mut keys: Vec<u32> = (0..100_000).collect();
/// keys.swap(10, 50_010);
/// assert_eq!(radius_par(&keys, Order::Ascending), 50_000);
/// ```
pub fn radius_par<K: SortKey>(keys: &[K], order: Order) -> usize {
    let n = keys.len();
    if n < 2 * PAR_MIN_LEN {
        return radius_memory_saving(keys, order);
    }
    radius_par_pieces(keys, order, RADIUS_BLOCK)
}

/// Positions a block of [`radius_par`] walks: its `RL` (a 256 KiB buffer of 4-byte keys per
/// thread) stays in the cache while the block is walked.
const RADIUS_BLOCK: usize = 1 << 16;

/// [`radius_par`] with blocks of `piece` (>= 1) positions.
fn radius_par_pieces<K: SortKey>(keys: &[K], order: Order, piece: usize) -> usize {
    let n = keys.len();
    if n < 2 {
        return 0;
    }
    let r = |i: usize| rank(keys[i], order);
    // Every block's largest and smallest rank.
    let ext: Vec<(K::Bits, K::Bits)> = keys
        .par_chunks(piece)
        .map(|c| {
            let first = rank(c[0], order);
            c.iter().fold((first, first), |(hi, lo), &k| {
                let b = rank(k, order);
                (max(hi, b), min(lo, b))
            })
        })
        .collect();
    // LR at each block's last position (the prefix maxima of the blocks' maxima), and RL just
    // after each block (the suffix minima of the later blocks' minima; None after the last).
    let lr_end: Vec<K::Bits> = ext
        .iter()
        .scan(None, |acc: &mut Option<K::Bits>, &(hi, _)| {
            *acc = Some(acc.map_or(hi, |a| max(a, hi)));
            *acc
        })
        .collect();
    let mut rl_after: Vec<Option<K::Bits>> = vec![None; ext.len()];
    for b in (0..ext.len().saturating_sub(1)).rev() {
        let lo = ext[b + 1].1;
        rl_after[b] = Some(rl_after[b + 1].map_or(lo, |a| min(a, lo)));
    }
    (0..ext.len())
        .into_par_iter()
        .map_init(Vec::new, |rl: &mut Vec<K::Bits>, b| {
            let (start, end) = (b * piece, min(n, (b + 1) * piece));
            // RL over the block, from its keys and the smallest key after it.
            rl.clear();
            let mut acc = rl_after[b];
            for i in (start..end).rev() {
                let m = acc.map_or(r(i), |a| min(a, r(i)));
                acc = Some(m);
                rl.push(m);
            }
            rl.reverse();
            // The walk from the start of the block holding the first j with LR[j] > RL[start]
            // (or from `start`, if none is before it): LR stays at most RL[start] before that
            // block, so LR from there on is the keys' own running maximum, and the walk's first
            // step moves j to where `radius_memory_saving` has it at `start`.
            let c = lr_end.partition_point(|&m| m <= rl[0]);
            walk_max(r, rl, start, min(c, b) * piece)
        })
        .max()
        .unwrap_or(0)
}

/// The radius by definition, in O(n²) time: the largest `j - i` with `i < j` and `a[i]` after
/// `a[j]` in `order`, or 0. For testing only.
#[doc(hidden)]
pub fn radius_naive<K: SortKey>(keys: &[K], order: Order) -> usize {
    let r = ranks(keys, order);
    let mut best = 0;
    for i in 0..r.len() {
        for j in i + 1..r.len() {
            if r[i] > r[j] {
                best = max(best, j - i);
            }
        }
    }
    best
}

/// Whether `keys` is `k`-sorted in `order` (its radius is at most `k`): the same as
/// [`check::is_k_sorted`], O(n) time and O(1) memory.
///
/// ```
/// use sortlab_cpu_reference::rough::is_k_sorted;
/// use sortlab_primitives::Order;
/// assert!(is_k_sorted(&[2u32, 1, 4, 3], 1, Order::Ascending));
/// assert!(!is_k_sorted(&[2u32, 1, 4, 3], 0, Order::Ascending));
/// ```
pub fn is_k_sorted<K: SortKey>(keys: &[K], k: usize, order: Order) -> bool {
    check::is_k_sorted(keys, k, order)
}

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
    if keys.len() != values.len() {
        return Err(Error::LengthMismatch {
            keys: keys.len(),
            values: values.len(),
        });
    }
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
/// radius it found.
///
/// # Overview
/// Determines the radius `k` ([`radius_par`]), sorts every run of `2k` keys from position 0 in
/// parallel, then every run of `2k` from position `k` (each the sorted upper half of one run
/// and the sorted lower half of the next: a merge). In a `k`-sorted sequence every key is at
/// most `k` places from its sorted place, so this sorts it. O(n log k) work. Where the runs of
/// `2k` cover the whole input (`k >= n / 2`) they would be one sequential sort: the parallel
/// radix sort ([`crate::radix::sort_keys`]) sorts the keys instead, as the GPU rough sort takes a
/// full sort there (2 cores, 2^24 uniform `u32` keys, radius included: 548 -> 142 ms). Runs of
/// 1024 keys and more are sorted by the radix sort too, one thread each up to 2^16 keys (2
/// cores, 2^20 `u32`, radius included: k = 4096 10.05 -> 5.16 ms).
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
    let k = radius_par(keys, order);
    sort_par_with_radius(keys, k, order);
    k
}

/// Whether a radius `k` leaves Altman-Chlebus on `n` keys nothing to run in parallel: its
/// runs of `2k` cover the whole input, one sequential sort. The GPU rough sort takes a full
/// sort from the same radius on (`k >= n / 2`).
fn one_run(n: usize, k: usize) -> bool {
    k.saturating_mul(2) >= n
}

/// Sorts the `k`-sorted `keys`: Altman-Chlebus, or where that is one run, the parallel radix
/// sort (the same output).
fn sort_par_with_radius<K: SortKey>(keys: &mut [K], k: usize, order: Order) {
    if k > 0 && one_run(keys.len(), k) {
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

/// Altman-Chlebus on keys alone sorts its first runs with the radix sort from this length of
/// run (`2k`) on, with the comparison sort below. Criterion, 2 cores, 2^20 u32 k-sorted,
/// rough_sort_par with its radius: k = 1000 9.25 -> 5.06 ms, k = 4096 10.05 -> 5.16 (the
/// parallel comparison sort of the same keys 9.5-10.4); at k = 100 (runs of 200) a threshold of
/// 128 measured 8% faster, within the spread of unchanged rows in the same runs, so not taken.
const RADIX_RUN_MIN: usize = 1024;

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
/// runs would be one, by the stable parallel radix sort ([`crate::radix::sort_pairs`]).
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
    let k = radius_par(keys, order);
    if k == 0 {
        return Ok(0);
    }
    if one_run(keys.len(), k) {
        crate::radix::sort_pairs(keys, values, order)?;
        return Ok(k);
    }
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

    /// Every 0-1 sequence of length `n` (as u32), by bitmask.
    fn zero_one(n: usize) -> impl Iterator<Item = Vec<u32>> {
        (0u32..1 << n).map(move |m| (0..n).map(|i| (m >> i) & 1).collect())
    }

    #[test]
    fn radius_forms_agree_on_all_short_0_1_sequences() {
        for n in 0..=10 {
            for v in zero_one(n) {
                for order in [Order::Ascending, Order::Descending] {
                    let r = radius_naive(&v, order);
                    assert_eq!(radius(&v, order), r, "{v:?}");
                    assert_eq!(radius_memory_saving(&v, order), r, "{v:?}");
                    assert_eq!(radius_par(&v, order), r, "{v:?}");
                    for piece in [1, 2, 3, 5] {
                        assert_eq!(radius_par_pieces(&v, order, piece), r, "{v:?} {piece}");
                    }
                    assert_eq!(dm(&v, order).len(), n);
                }
            }
        }
    }

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

    /// A xorshift64 stream from a nonzero seed (test inputs).
    fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    #[test]
    fn radius_par_blocks_agree_with_the_walk_on_random_keys() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for n in [2usize, 3, 17, 100, 1000, 5000] {
            // Disorder within windows of w (radius about w) and no order at all.
            for w in [1u64, 2, 5, 40, 700, u64::MAX] {
                let v: Vec<u32> = (0..n as u64)
                    .map(|i| match w {
                        u64::MAX => (next() % 1000) as u32,
                        w => (i + next() % w) as u32,
                    })
                    .collect();
                for order in [Order::Ascending, Order::Descending] {
                    let r = radius(&v, order);
                    assert_eq!(radius_memory_saving(&v, order), r);
                    for piece in [1, 2, 7, 64, n] {
                        assert_eq!(
                            radius_par_pieces(&v, order, piece),
                            r,
                            "n {n} w {w} {piece}"
                        );
                    }
                }
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
}
