//! Reductions on the CPU: the twin of `sortlab_primitives::reduce`.
//!
//! [`sum`], [`min`], [`max`] and [`min_max`] have the GPU functions' semantics: `u32` and `i32`
//! sum into 64 bits, `u64` and `i64` wrap, floats sum in their own type
//! ([`ReduceKey`]); min and max use the total order of [`SortKey::total_cmp`] (`-NaN < -inf <
//! ... < -0.0 < +0.0 < ... < +inf < +NaN`) and return one of the keys, bit for bit. The sum of
//! no keys is `0` ([`ReduceKey::SUM_ZERO`]); min and max of no keys are `None`.
//!
//! Large inputs are split into chunks of a fixed size ([`CHUNK`]) reduced in parallel with
//! rayon, then the chunk results in order: float sums depend on the chunk size only, never on
//! the number of threads, and are within `(n - 1) * eps * sum(|x|)` of the exact sum.
//!
//! ```
//! use sortlab_cpu_reference::reduce;
//! assert_eq!(reduce::sum(&[u32::MAX, 1]), 1u64 << 32);
//! assert_eq!(reduce::min_max(&[0.0f32, -0.0, f32::NAN]).map(|(a, b)| (a.to_bits(), b.is_nan())),
//!            Some(((-0.0f32).to_bits(), true)));
//! assert_eq!(reduce::max::<i64>(&[]), None);
//! ```

use rayon::prelude::*;
use sortlab_primitives::{ReduceKey, SortKey};

/// Keys per parallel chunk; inputs of at most one chunk run sequentially. A chunk of 2^16
/// 8-byte keys is 512 KiB, enough work to amortise a rayon task (not tuned).
pub const CHUNK: usize = 1 << 16;

/// Sum of the keys, `0` for none (see the [module docs](self)).
pub fn sum<K: ReduceKey>(keys: &[K]) -> K::Sum {
    fn seq<K: ReduceKey>(keys: &[K]) -> Option<K::Sum> {
        keys.iter().map(|k| k.to_sum()).reduce(K::sum_add)
    }
    let total = if keys.len() <= CHUNK {
        seq(keys)
    } else {
        let parts: Vec<Option<K::Sum>> = keys.par_chunks(CHUNK).map(seq).collect();
        parts.into_iter().flatten().reduce(K::sum_add)
    };
    total.unwrap_or(K::SUM_ZERO)
}

/// Smallest key by total order, `None` when empty.
pub fn min<K: SortKey>(keys: &[K]) -> Option<K> {
    bits_fold(keys, |a, b| a.min(b))
}

/// Largest key by total order, `None` when empty.
pub fn max<K: SortKey>(keys: &[K]) -> Option<K> {
    bits_fold(keys, |a, b| a.max(b))
}

/// Smallest and largest key by total order, `None` when empty.
pub fn min_max<K: SortKey>(keys: &[K]) -> Option<(K, K)> {
    fn seq<K: SortKey>(keys: &[K]) -> Option<(K::Bits, K::Bits)> {
        keys.iter()
            .map(|k| k.to_ordered_bits())
            .fold(None, |acc, b| {
                Some(match acc {
                    None => (b, b),
                    Some((lo, hi)) => (lo.min(b), hi.max(b)),
                })
            })
    }
    let r = if keys.len() <= CHUNK {
        seq(keys)
    } else {
        let parts: Vec<_> = keys.par_chunks(CHUNK).map(seq).collect();
        parts
            .into_iter()
            .flatten()
            .reduce(|(a, b), (c, d)| (a.min(c), b.max(d)))
    };
    r.map(|(lo, hi)| (K::from_ordered_bits(lo), K::from_ordered_bits(hi)))
}

/// Folds the keys' ordered bits with `f` (min or max), in parallel chunks for large inputs.
fn bits_fold<K: SortKey>(keys: &[K], f: fn(K::Bits, K::Bits) -> K::Bits) -> Option<K> {
    let seq = |keys: &[K]| keys.iter().map(|k| k.to_ordered_bits()).reduce(f);
    let r = if keys.len() <= CHUNK {
        seq(keys)
    } else {
        let parts: Vec<_> = keys.par_chunks(CHUNK).map(seq).collect();
        parts.into_iter().flatten().reduce(f)
    };
    r.map(K::from_ordered_bits)
}
