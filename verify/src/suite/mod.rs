//! The property suite, written once and generic over the algorithm (DESIGN.md §5).
//!
//! An algorithm implements [`SortAlgorithm`] and joins with one line, [`crate::sort_suite!`],
//! which generates a test module with, for each of the six key types:
//!
//! | test | what |
//! |---|---|
//! | `patterns_{ascending,descending}` | every pattern of [`suite_patterns`] × [`pattern_lengths`] |
//! | `lengths_{ascending,descending}` | every [`edge_lengths`](crate::edge_lengths) (with the algorithm's tiles) × uniform, and full-range up to 5000 |
//! | `pairs_{u32,u64}_{ascending,descending}` | key-value: patterns × [`pattern_lengths`], index values |
//! | `quickcheck` | [`QUICKCHECK_TRIALS`] arbitrary `Vec<K>` from quickcheck, both orders, keys and pairs, shrunk on failure |
//! | `large` (ignored) | [`large_lengths`](crate::large_lengths) × uniform, both orders, and pairs at 2^20 + 3 |
//!
//! Each test derives its seed from its full name with [`seed_for`](crate::seed_for), so `SORTLAB_SEED=N`
//! reproduces a run. The check functions ([`check_keys`], [`check_pairs`], and their `try_`
//! and `verify_` forms) are public for tests of their own.
//!
//! Files: this one holds the [`SortAlgorithm`] trait and the [`IndexValue`] values; `check.rs`
//! the checkers and [`Failure`]; `run.rs` the runners the macro calls (`run_*`) and the suite's
//! patterns and lengths; `macros.rs` the [`crate::sort_suite!`] macro.

use sortlab_primitives::{Order, SortKey, SortValue};

mod check;
mod macros;
mod run;
#[cfg(test)]
mod tests;

pub use check::{
    check_keys, check_pairs, try_check_keys, try_check_pairs, verify_keys, verify_pairs, Failure,
    Input,
};
pub use run::{
    pattern_lengths, run_large, run_large_if_enabled, run_lengths, run_pairs, run_patterns,
    run_quickcheck, suite_patterns, FULL_RANGE_LENGTHS_UP_TO, LARGE_ENV, QUICKCHECK_TRIALS,
};

/// A sort under test: keys only and key-value, both orders, every key type.
///
/// # Example
/// ```
/// use sortlab_verify::{Order, SortAlgorithm, SortKey, SortValue};
///
/// /// Insertion sort: stable, keys only.
/// struct Insertion;
///
/// impl SortAlgorithm for Insertion {
///     fn name(&self) -> String {
///         "insertion".into()
///     }
///     fn is_stable(&self) -> bool {
///         true
///     }
///     fn supports_pairs(&self) -> bool {
///         false
///     }
///     fn sort_keys<K: SortKey>(&self, keys: &mut [K], order: Order) -> Result<(), String> {
///         for i in 1..keys.len() {
///             let mut j = i;
///             while j > 0 && order.cmp_keys(&keys[j - 1], &keys[j]).is_gt() {
///                 keys.swap(j - 1, j);
///                 j -= 1;
///             }
///         }
///         Ok(())
///     }
///     fn sort_pairs<K: SortKey, V: SortValue>(
///         &self,
///         _: &mut [K],
///         _: &mut [V],
///         _: Order,
///     ) -> Result<(), String> {
///         Err("keys only".into())
///     }
/// }
///
/// sortlab_verify::check_keys::<f32, _>(&Insertion, sortlab_verify::Pattern::FloatSpecials,
///                                      300, Order::Descending, 1);
/// ```
pub trait SortAlgorithm {
    /// Name shown in failures (e.g. `"radix (onesweep)"`).
    fn name(&self) -> String;
    /// Whether key-value sorts keep the input order of equal keys (then they must equal the
    /// stable reference exactly).
    fn is_stable(&self) -> bool;
    /// Whether [`SortAlgorithm::sort_pairs`] is implemented; if not, the pair tests pass
    /// without running.
    fn supports_pairs(&self) -> bool {
        true
    }
    /// Sorts `keys` in place in `order` (IEEE total order for floats). An `Err` fails the test
    /// with its message.
    fn sort_keys<K: SortKey>(&self, keys: &mut [K], order: Order) -> Result<(), String>;
    /// Sorts `keys` in place in `order`, moving `values[i]` with `keys[i]`.
    fn sort_pairs<K: SortKey, V: SortValue>(
        &self,
        keys: &mut [K],
        values: &mut [V],
        order: Order,
    ) -> Result<(), String>;
    /// The algorithm's own edge lengths (tile sizes, thresholds between code paths): the
    /// suite also tests each of them ±1.
    fn tile_sizes(&self) -> Vec<usize> {
        vec![]
    }
}

/// A value type that carries an element's input index through a key-value sort (`u32` or
/// `u64`), making the permutation visible.
pub trait IndexValue: SortValue {
    /// Type name (`"u32"`, `"u64"`).
    const VALUE_NAME: &'static str;
    /// The largest number of elements whose indices all fit.
    const MAX_LEN: u64;
    /// The index `i` as a value (`i < MAX_LEN`).
    fn from_index(i: usize) -> Self;
    /// The value as an index.
    fn to_index(self) -> usize;
}

impl IndexValue for u32 {
    const VALUE_NAME: &'static str = "u32";
    const MAX_LEN: u64 = 1 << 32;
    fn from_index(i: usize) -> Self {
        i as u32
    }
    fn to_index(self) -> usize {
        self as usize
    }
}

impl IndexValue for u64 {
    const VALUE_NAME: &'static str = "u64";
    const MAX_LEN: u64 = u64::MAX;
    fn from_index(i: usize) -> Self {
        i as u64
    }
    fn to_index(self) -> usize {
        self as usize
    }
}
