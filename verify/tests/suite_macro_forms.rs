//! The other form of `sort_suite!`: `ignore = "..."` puts `#[ignore]` on every generated test
//! (as for GPU algorithms). Here on a keys-only CPU algorithm with its own tile size, so that
//! `--include-ignored` runs (scripts/gpu-check) pass too and cover the keys-only path.

use sortlab_verify::testing::KeysOnly;

sortlab_verify::sort_suite!(
    keys_only,
    KeysOnly::new(700),
    ignore = "shows the ignore form",
);
