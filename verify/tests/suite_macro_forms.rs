//! The other form of `sort_suite!`: `ignore = "..."` puts `#[ignore]` on every generated test
//! (as for GPU algorithms). Here on a keys-only CPU algorithm with its own tile size, so that
//! `--include-ignored` runs (scripts/gpu-check) pass too and cover the keys-only path.

use sortlab_verify::algorithms::CpuUnstable;
use sortlab_verify::{Order, SortAlgorithm, SortKey, SortValue};

/// The CPU unstable sort, keys only, with a tile of 700 keys.
struct KeysOnly;

impl SortAlgorithm for KeysOnly {
    fn name(&self) -> String {
        "keys-only".into()
    }
    fn is_stable(&self) -> bool {
        false
    }
    fn supports_pairs(&self) -> bool {
        false
    }
    fn sort_keys<K: SortKey>(&self, keys: &mut [K], order: Order) -> Result<(), String> {
        CpuUnstable.sort_keys(keys, order)
    }
    fn sort_pairs<K: SortKey, V: SortValue>(
        &self,
        _: &mut [K],
        _: &mut [V],
        _: Order,
    ) -> Result<(), String> {
        Err("keys only".into())
    }
    fn tile_sizes(&self) -> Vec<usize> {
        vec![700]
    }
}

sortlab_verify::sort_suite!(keys_only, KeysOnly, ignore = "shows the ignore form",);
