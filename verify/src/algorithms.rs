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

impl SortAlgorithm for CpuStable {
    fn name(&self) -> String {
        "cpu-reference sort (stable, parallel)".into()
    }
    fn is_stable(&self) -> bool {
        true
    }
    fn sort_keys<K: SortKey>(&self, keys: &mut [K], order: Order) -> Result<(), String> {
        sort::sort(keys, order);
        Ok(())
    }
    fn sort_pairs<K: SortKey, V: SortValue>(
        &self,
        keys: &mut [K],
        values: &mut [V],
        order: Order,
    ) -> Result<(), String> {
        sort::sort_pairs(keys, values, order).map_err(|e| e.to_string())
    }
}

impl SortAlgorithm for CpuUnstable {
    fn name(&self) -> String {
        "cpu-reference sort_unstable (parallel)".into()
    }
    fn is_stable(&self) -> bool {
        false
    }
    fn sort_keys<K: SortKey>(&self, keys: &mut [K], order: Order) -> Result<(), String> {
        sort::sort_unstable(keys, order);
        Ok(())
    }
    fn sort_pairs<K: SortKey, V: SortValue>(
        &self,
        keys: &mut [K],
        values: &mut [V],
        order: Order,
    ) -> Result<(), String> {
        sort::sort_pairs_unstable(keys, values, order).map_err(|e| e.to_string())
    }
}

impl SortAlgorithm for CpuSeq {
    fn name(&self) -> String {
        "cpu-reference sort_seq (stable, sequential)".into()
    }
    fn is_stable(&self) -> bool {
        true
    }
    fn sort_keys<K: SortKey>(&self, keys: &mut [K], order: Order) -> Result<(), String> {
        sort::sort_seq(keys, order);
        Ok(())
    }
    fn sort_pairs<K: SortKey, V: SortValue>(
        &self,
        keys: &mut [K],
        values: &mut [V],
        order: Order,
    ) -> Result<(), String> {
        sort::sort_pairs_seq(keys, values, order).map_err(|e| e.to_string())
    }
}
