//! The radius of a sequence on the CPU, and k-sortedness: the twin of `sortlab-roughsort`'s
//! radius determination, after the report "Parallel Sorting of Roughly-Sorted Sequences"
//! (Altman & Igarashi 1989). [`crate::rough`] sorts k-sorted input and re-exports every function
//! here (`rough::radius`, `rough::radius_par`, ...).
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
//! | [`is_k_sorted`], [`check_k_sorted`] | whether the radius is at most `k` (with a witness), O(n) and O(1) memory |

use std::cmp::{max, min};

use rayon::prelude::*;
use sortlab_primitives::{Order, SortKey};

use crate::sort::rank;
use crate::{CheckError, PAR_MIN_LEN};

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
/// threads, a block of words per thread (no array of `n`). Equals [`radius`]. Measured
/// figures: the crate's `README.md`.
///
/// ```
/// use sortlab_cpu_reference::rough::radius_par;
/// use sortlab_primitives::Order;
/// let mut keys: Vec<u32> = (0..100_000).collect();
/// keys.swap(10, 50_010);
/// assert_eq!(radius_par(&keys, Order::Ascending), 50_000);
/// ```
pub fn radius_par<K: SortKey>(keys: &[K], order: Order) -> usize {
    match radius_par_up_to(keys, order, &|_| false) {
        ParRadius::Exact(r) | ParRadius::Past { lower: r } => r,
    }
}

/// What [`radius_par_up_to`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ParRadius {
    /// The radius.
    Exact(usize),
    /// The pass stopped: the radius is at least `lower`, and `stop` held for its bounds.
    Past {
        /// A lower bound on the radius.
        lower: usize,
    },
}

/// [`radius_par`], stopping before the walk when the blocks' extremes (the walk's first read)
/// bound the radius to `(lower, upper)` with `stop((lower, upper))`: a key of block `x - 1`
/// above the smallest key of block `t`, `t - x = g >= 1` (the largest such `g` over every
/// block) puts the radius in `[g * B + 1, (g + 2) * B - 1]` (`B` the block; the argument of
/// sortlab-roughsort's `halo_bounds`). Short inputs (one thread) are never stopped.
pub(crate) fn radius_par_up_to<K: SortKey>(
    keys: &[K],
    order: Order,
    stop: &dyn Fn((usize, usize)) -> bool,
) -> ParRadius {
    let n = keys.len();
    if n < 2 * PAR_MIN_LEN {
        return ParRadius::Exact(radius_memory_saving(keys, order));
    }
    radius_par_pieces(keys, order, RADIUS_BLOCK, stop)
}

/// The bounds on the radius of blocks of `piece` keys whose inclusive prefix maxima (by
/// block) are `lr_end` and smallest keys `lo`: `None` when no key lies above a key two or more
/// blocks on.
fn block_bounds<B: Ord + Copy>(lr_end: &[B], lo: &[B], piece: usize) -> Option<(usize, usize)> {
    let gaps = (2..lo.len())
        .map(|t| {
            // The first block a with a key above block t's smallest: boundary x = a + 1.
            let a = lr_end[..t].partition_point(|&m| m <= lo[t]);
            (t - 1).saturating_sub(a)
        })
        .max()
        .unwrap_or(0);
    (gaps > 0).then(|| {
        (
            gaps.saturating_mul(piece).saturating_add(1),
            gaps.saturating_add(2).saturating_mul(piece) - 1,
        )
    })
}

/// Positions a block of [`radius_par`] walks: its `RL` (a 256 KiB buffer of 4-byte keys per
/// thread) stays in the cache while the block is walked.
const RADIUS_BLOCK: usize = 1 << 16;

/// [`radius_par_up_to`] with blocks of `piece` (>= 1) positions.
fn radius_par_pieces<K: SortKey>(
    keys: &[K],
    order: Order,
    piece: usize,
    stop: &dyn Fn((usize, usize)) -> bool,
) -> ParRadius {
    let n = keys.len();
    if n < 2 {
        return ParRadius::Exact(0);
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
    let lo: Vec<K::Bits> = ext.iter().map(|e| e.1).collect();
    if let Some(bounds) = block_bounds(&lr_end, &lo, piece) {
        if stop(bounds) {
            return ParRadius::Past { lower: bounds.0 };
        }
    }
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
        .map_or(ParRadius::Exact(0), ParRadius::Exact)
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

/// Whether `keys` is `k`-sorted in `order`: `a[i]` precedes-or-equals `a[j]` for all
/// `i < j - k` (that is, [`radius`] `<= k`). 0-sorted is sorted.
///
/// ```
/// use sortlab_cpu_reference::check::is_k_sorted;
/// use sortlab_primitives::Order;
///
/// let a = [2u32, 1, 4, 3];
/// assert!(!is_k_sorted(&a, 0, Order::Ascending));
/// assert!(is_k_sorted(&a, 1, Order::Ascending));
/// ```
pub fn is_k_sorted<K: SortKey>(keys: &[K], k: usize, order: Order) -> bool {
    check_k_sorted(keys, k, order).is_ok()
}

/// Checks that `keys` is `k`-sorted in `order`: `a[i]` precedes-or-equals `a[j]` for all
/// `i < j - k`.
///
/// Scans `j` upwards keeping the maximum (in `order`) of `a[0..j - k]`, so it runs in O(n) time
/// and O(1) memory.
///
/// # Errors
/// [`CheckError::NotKSorted`] with a witness: the smallest such `j`, and an `i < j - k` whose key
/// follows `a[j]` in `order` (the first position of the largest key before `j - k`).
///
/// # Example
/// ```
/// use sortlab_cpu_reference::check::check_k_sorted;
/// use sortlab_cpu_reference::CheckError;
/// use sortlab_primitives::Order;
///
/// let a = [1u32, 5, 3, 4, 2, 6];
/// assert_eq!(check_k_sorted(&a, 3, Order::Ascending), Ok(()));
/// assert_eq!(
///     check_k_sorted(&a, 2, Order::Ascending),
///     Err(CheckError::NotKSorted { k: 2, i: 1, j: 4 })
/// );
/// ```
pub fn check_k_sorted<K: SortKey>(keys: &[K], k: usize, order: Order) -> Result<(), CheckError> {
    let n = keys.len();
    let Some(start) = k.checked_add(1).filter(|&s| s < n) else {
        return Ok(()); // no pair i < j - k exists
    };
    let mut max_i = 0; // first position of the largest rank in a[0..j - k]
    let mut max_r = rank(keys[0], order);
    for j in start..n {
        let i_new = j - k - 1; // a[0..=i_new] is the allowed left range for j
        let r_new = rank(keys[i_new], order);
        if r_new > max_r {
            max_r = r_new;
            max_i = i_new;
        }
        if max_r > rank(keys[j], order) {
            return Err(CheckError::NotKSorted { k, i: max_i, j });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_inputs::{xorshift, zero_one};

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
                        assert_eq!(
                            radius_par_pieces(&v, order, piece, &|_| false),
                            ParRadius::Exact(r),
                            "{v:?} {piece}"
                        );
                    }
                    assert_eq!(dm(&v, order).len(), n);
                }
            }
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
                            radius_par_pieces(&v, order, piece, &|_| false),
                            ParRadius::Exact(r),
                            "n {n} w {w} {piece}"
                        );
                        // Stopped at the blocks' bounds: they hold the radius.
                        let holds = |(lower, upper): (usize, usize)| {
                            assert!(lower <= r && r <= upper, "n {n} w {w} {piece}: {r}");
                            true
                        };
                        match radius_par_pieces(&v, order, piece, &holds) {
                            ParRadius::Exact(e) => assert_eq!(e, r),
                            ParRadius::Past { lower } => assert!(lower <= r && r > piece),
                        }
                    }
                }
            }
        }
    }
}
