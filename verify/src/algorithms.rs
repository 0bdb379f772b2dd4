//! The CPU engine's sorts as [`SortAlgorithm`]s, so the suite runs them in CI
//! (`tests/cpu_reference_suite.rs`) and so GPU tests can compare engines side by side.

use sortlab_cpu_reference::sort;
use sortlab_primitives::{Order, SortKey, SortValue};

use crate::suite::SortAlgorithm;

/// The CPU engine's parallel stable sort: `cpu_reference::sort::{sort, sort_pairs}`.
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuStable;

/// The CPU engine's parallel unstable sort:
/// `cpu_reference::sort::{sort_unstable, sort_pairs_unstable}`.
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuUnstable;

/// The CPU engine's sequential stable sort: `cpu_reference::sort::{sort_seq, sort_pairs_seq}`.
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuSeq;

/// Implements [`SortAlgorithm`] for a CPU engine sort given its key and pair functions.
macro_rules! cpu_algorithm {
    ($t:ty, $name:literal, stable = $stable:literal, $keys:path, $pairs:path) => {
        impl SortAlgorithm for $t {
            fn name(&self) -> String {
                $name.into()
            }
            fn is_stable(&self) -> bool {
                $stable
            }
            fn sort_keys<K: SortKey>(&self, keys: &mut [K], order: Order) -> Result<(), String> {
                $keys(keys, order);
                Ok(())
            }
            fn sort_pairs<K: SortKey, V: SortValue>(
                &self,
                keys: &mut [K],
                values: &mut [V],
                order: Order,
            ) -> Result<(), String> {
                $pairs(keys, values, order).map_err(|e| e.to_string())
            }
        }
    };
}

cpu_algorithm!(
    CpuStable,
    "cpu-reference sort (stable, parallel)",
    stable = true,
    sort::sort,
    sort::sort_pairs
);
cpu_algorithm!(
    CpuUnstable,
    "cpu-reference sort_unstable (parallel)",
    stable = false,
    sort::sort_unstable,
    sort::sort_pairs_unstable
);
cpu_algorithm!(
    CpuSeq,
    "cpu-reference sort_seq (stable, sequential)",
    stable = true,
    sort::sort_seq,
    sort::sort_pairs_seq
);
