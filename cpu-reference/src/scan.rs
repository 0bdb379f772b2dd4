//! Scans on the CPU: the twin of `sortlab_primitives::scan`.
//!
//! [`scan`] has the GPU scan's semantics: [`ScanOp::Sum`] adds in the key's own type (wrapping
//! for integers), [`ScanOp::Max`] and [`ScanOp::Min`] use the total order of
//! [`SortKey::total_cmp`] and return input keys bit for bit; an exclusive scan starts from `0`
//! (`+0.0`), [`SortKey::LOWEST`] or [`SortKey::HIGHEST`]; [`Direction::Reverse`] scans from the
//! end (a reverse inclusive min scan is the suffix minimum).
//!
//! Inputs of more than one chunk ([`CHUNK`]) run as a two-pass parallel scan: the chunks'
//! totals in parallel, their scan in order, then each chunk scanned from its prefix in
//! parallel. Float sums then differ in rounding from [`scan_seq`]'s strictly sequential ones
//! (element `i` stays within `i * eps * sum(|x_0..x_i|)` of the exact prefix sum) and depend on
//! the chunk size only, never on the number of threads.
//!
//! ```
//! use sortlab_cpu_reference::scan::scan;
//! use sortlab_primitives::scan::{Direction, ScanKind, ScanOp};
//! assert_eq!(scan(&[3u32, 1, 2], ScanOp::Sum, ScanKind::Exclusive, Direction::Forward), [0, 3, 4]);
//! assert_eq!(scan(&[3i64, 1, 2], ScanOp::Min, ScanKind::Inclusive, Direction::Reverse), [1, 1, 2]);
//! ```

use rayon::prelude::*;
use sortlab_primitives::scan::{Direction, ScanKind, ScanOp};
use sortlab_primitives::{ReduceKey, SortKey};

/// Keys per parallel chunk; inputs of at most one chunk run sequentially. 2^16 keys (256 to
/// 512 KiB) keep each rayon task well above its scheduling cost (not tuned).
pub const CHUNK: usize = 1 << 16;

/// The scan of `input` with `op`, `kind` and `dir` (see the [module docs](self)); parallel for
/// inputs of more than [`CHUNK`] keys.
pub fn scan<K: ReduceKey>(input: &[K], op: ScanOp, kind: ScanKind, dir: Direction) -> Vec<K> {
    let mut out = vec![identity::<K>(op); input.len()];
    if input.len() <= CHUNK {
        scan_chunk(input, &mut out, None, op, kind, dir);
        return out;
    }
    // Pass 1: each chunk's total, in the chunk's logical order.
    let totals: Vec<K> = input.par_chunks(CHUNK).map(|c| total(c, op, dir)).collect();
    // The prefix of each chunk: the totals of the chunks before it in logical order.
    let mut prefixes = vec![None; totals.len()];
    let mut acc: Option<K> = None;
    let order: Box<dyn Iterator<Item = usize>> = if dir.is_reverse() {
        Box::new((0..totals.len()).rev())
    } else {
        Box::new(0..totals.len())
    };
    for c in order {
        prefixes[c] = acc;
        acc = Some(match acc {
            None => totals[c],
            Some(a) => combine(op, a, totals[c]),
        });
    }
    // Pass 2: each chunk from its prefix.
    out.par_chunks_mut(CHUNK)
        .zip(input.par_chunks(CHUNK))
        .zip(prefixes)
        .for_each(|((o, i), p)| scan_chunk(i, o, p, op, kind, dir));
    out
}

/// [`scan`], strictly sequentially: the simple loop every other scan is checked against.
pub fn scan_seq<K: ReduceKey>(input: &[K], op: ScanOp, kind: ScanKind, dir: Direction) -> Vec<K> {
    let mut out = vec![identity::<K>(op); input.len()];
    scan_chunk(input, &mut out, None, op, kind, dir);
    out
}

/// The exclusive scan's value for an empty prefix.
fn identity<K: SortKey>(op: ScanOp) -> K {
    match op {
        ScanOp::Sum => K::from_f64(0.0),
        ScanOp::Max => K::LOWEST,
        ScanOp::Min => K::HIGHEST,
    }
}

#[inline]
fn combine<K: ReduceKey>(op: ScanOp, a: K, b: K) -> K {
    match op {
        ScanOp::Sum => K::key_add(a, b),
        ScanOp::Max => {
            if a.to_ordered_bits() < b.to_ordered_bits() {
                b
            } else {
                a
            }
        }
        ScanOp::Min => {
            if b.to_ordered_bits() < a.to_ordered_bits() {
                b
            } else {
                a
            }
        }
    }
}

/// Total of a non-empty chunk, in logical order.
fn total<K: ReduceKey>(chunk: &[K], op: ScanOp, dir: Direction) -> K {
    let f = |a, b| combine(op, a, b);
    let t = if dir.is_reverse() {
        chunk.iter().rev().copied().reduce(f)
    } else {
        chunk.iter().copied().reduce(f)
    };
    t.unwrap_or_else(|| identity(op))
}

/// Scans `input` into `out` (same length) in logical order, starting from `prefix` (the
/// combination of everything logically before the chunk; `None` when nothing is).
fn scan_chunk<K: ReduceKey>(
    input: &[K],
    out: &mut [K],
    prefix: Option<K>,
    op: ScanOp,
    kind: ScanKind,
    dir: Direction,
) {
    let mut acc = prefix;
    let mut step = |x: K, o: &mut K| {
        let next = match acc {
            None => x,
            Some(a) => combine(op, a, x),
        };
        *o = if kind.is_exclusive() {
            acc.unwrap_or_else(|| identity(op))
        } else {
            next
        };
        acc = Some(next);
    };
    if dir.is_reverse() {
        for (x, o) in input.iter().zip(out.iter_mut()).rev() {
            step(*x, o);
        }
    } else {
        for (x, o) in input.iter().zip(out.iter_mut()) {
            step(*x, o);
        }
    }
}
