//! The runners the [`crate::sort_suite!`] macro calls, one a generated test: patterns, lengths,
//! pairs, quickcheck and large inputs.

use quickcheck::{Arbitrary, Gen};
use sortlab_primitives::{Order, SortKey};

use super::check::{check_keys, check_pairs, show_keys, verify_keys, verify_pairs, Failure, Input};
use super::{IndexValue, SortAlgorithm};
use crate::lengths::{edge_lengths, large_lengths};
use crate::patterns::Pattern;
use crate::seed::{base_seed_if_set, derive, seed_for};

/// The patterns the suite runs: [`Pattern::ALL`] and k-sorted with k = 1 and 1000.
pub fn suite_patterns() -> Vec<Pattern> {
    let mut p = Pattern::ALL.to_vec();
    p.extend([Pattern::KSorted(1), Pattern::KSorted(1000)]);
    p
}

/// The lengths every pattern runs at: 0, 1, 2, 3, 31, 33, 257, 1025, 4097, 10007, and each
/// tile size ±1.
pub fn pattern_lengths(tiles: &[usize]) -> Vec<usize> {
    let mut v = vec![0, 1, 2, 3, 31, 33, 257, 1025, 4097, 10_007];
    for &t in tiles {
        v.extend([t.saturating_sub(1), t.saturating_add(1)]);
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// Lengths up to which the lengths test also runs full-range keys.
pub const FULL_RANGE_LENGTHS_UP_TO: usize = 5000;

/// Quickcheck cases per key type (each in both orders, keys and pairs).
pub const QUICKCHECK_TRIALS: usize = 100;

/// Suite test: every pattern of [`suite_patterns`] at every length of [`pattern_lengths`],
/// keys only. The seed is [`seed_for`]`(test)`.
///
/// # Panics
/// On the first failure (a test helper).
pub fn run_patterns<K: SortKey, A: SortAlgorithm + ?Sized>(alg: &A, order: Order, test: &str) {
    let seed = seed_for(test);
    for pattern in suite_patterns() {
        for n in pattern_lengths(&alg.tile_sizes()) {
            check_keys::<K, A>(alg, pattern, n, order, seed);
        }
    }
}

/// Suite test: every [`edge_lengths`] (with the algorithm's tiles) with uniform keys, and
/// full-range keys up to [`FULL_RANGE_LENGTHS_UP_TO`], keys only.
///
/// # Panics
/// On the first failure (a test helper).
pub fn run_lengths<K: SortKey, A: SortAlgorithm + ?Sized>(alg: &A, order: Order, test: &str) {
    let seed = seed_for(test);
    for n in edge_lengths(&alg.tile_sizes()) {
        check_keys::<K, A>(alg, Pattern::Uniform, n, order, seed);
        if n <= FULL_RANGE_LENGTHS_UP_TO {
            check_keys::<K, A>(alg, Pattern::FullRange, n, order, seed);
        }
    }
}

/// Suite test: key-value sorts, every pattern at every length of [`pattern_lengths`], values
/// the input indices as `V`. Passes at once if the algorithm does not support pairs.
///
/// # Panics
/// On the first failure (a test helper).
pub fn run_pairs<K: SortKey, V: IndexValue, A: SortAlgorithm + ?Sized>(
    alg: &A,
    order: Order,
    test: &str,
) {
    if !alg.supports_pairs() {
        eprintln!("{test}: {} does not sort pairs; skipped", alg.name());
        return;
    }
    let seed = seed_for(test);
    for pattern in suite_patterns() {
        for n in pattern_lengths(&alg.tile_sizes()) {
            check_pairs::<K, V, A>(alg, pattern, n, order, seed);
        }
    }
}

/// Suite test (slow, ignored by default): [`large_lengths`] with uniform keys, both orders,
/// keys only, and key-value with `u32` indices at the smallest large length.
///
/// # Panics
/// On the first failure (a test helper).
pub fn run_large<K: SortKey, A: SortAlgorithm + ?Sized>(alg: &A, test: &str) {
    let seed = seed_for(test);
    let lengths = large_lengths();
    for &n in &lengths {
        for order in [Order::Ascending, Order::Descending] {
            check_keys::<K, A>(alg, Pattern::Uniform, n, order, seed);
        }
    }
    if alg.supports_pairs() {
        if let Some(&n) = lengths.first() {
            check_pairs::<K, u32, A>(alg, Pattern::Uniform, n, Order::Ascending, seed);
        }
    }
}

/// Environment variable that enables the `large` tests of algorithms instantiated without
/// `ignore = ...` (CPU algorithms): set to `1` and run with `--include-ignored`.
pub const LARGE_ENV: &str = "SORTLAB_LARGE";

/// [`run_large`] if [`LARGE_ENV`] is set to `1`, otherwise a note on stderr. The `large` test
/// of CPU algorithms uses this, so that `--include-ignored` runs made for GPU tests do not
/// spend minutes sorting large inputs on the CPU.
///
/// # Panics
/// On the first failure (a test helper).
pub fn run_large_if_enabled<K: SortKey, A: SortAlgorithm + ?Sized>(alg: &A, test: &str) {
    if std::env::var_os(LARGE_ENV).is_some_and(|v| v == "1") {
        run_large::<K, A>(alg, test);
    } else {
        eprintln!("{test}: skipped; set {LARGE_ENV}=1 to run");
    }
}

/// A property of an input: `Some(reason)` if it fails.
type Property<'a, K> = &'a dyn Fn(&[K]) -> Option<String>;

/// Shrinks a failing input with quickcheck's shrinker until no smaller input fails.
fn shrink<K: SortKey + Arbitrary>(
    mut input: Vec<K>,
    mut reason: String,
    fails: impl Fn(&[K]) -> Option<String>,
) -> (Vec<K>, String) {
    const MAX_STEPS: usize = 2000;
    let mut steps = 0;
    'outer: while steps < MAX_STEPS {
        for candidate in input.shrink() {
            steps += 1;
            if let Some(r) = fails(&candidate) {
                input = candidate;
                reason = r;
                continue 'outer;
            }
            if steps >= MAX_STEPS {
                break 'outer;
            }
        }
        break;
    }
    (input, reason)
}

/// Suite test: [`QUICKCHECK_TRIALS`] arbitrary `Vec<K>` from quickcheck (lengths up to 4,
/// 40, 400 and 3000, rotating; quickcheck's floats include NaN, infinities and -0.0), each
/// sorted in both orders, keys only and (if supported) with `u32` indices; a failing input is
/// shrunk before it is reported. Seeded by [`seed_for`]`(test)`.
///
/// # Panics
/// On the first failure, with the shrunk input (a test helper).
pub fn run_quickcheck<K: SortKey + Arbitrary, A: SortAlgorithm + ?Sized>(alg: &A, test: &str) {
    const SIZES: [usize; 4] = [4, 40, 400, 3000];
    let seed = seed_for(test);
    for trial in 0..QUICKCHECK_TRIALS {
        let mut g = Gen::from_size_and_seed(SIZES[trial % SIZES.len()], derive(seed, trial as u64));
        let input: Vec<K> = Arbitrary::arbitrary(&mut g);
        for order in [Order::Ascending, Order::Descending] {
            let keys = |k: &[K]| verify_keys(alg, k, order).err();
            let pairs = |k: &[K]| {
                if alg.supports_pairs() {
                    verify_pairs::<K, u32, A>(alg, k, order).err()
                } else {
                    None
                }
            };
            let props: [(Option<&'static str>, Property<'_, K>); 2] = [
                (None, &keys),
                (Some(<u32 as IndexValue>::VALUE_NAME), &pairs),
            ];
            for (value_type, prop) in props {
                if let Some(reason) = prop(&input) {
                    let (small, reason) = shrink(input.clone(), reason, prop);
                    let f = Failure {
                        algorithm: alg.name(),
                        key_type: K::NAME,
                        value_type,
                        input: Input::Given {
                            n: small.len(),
                            keys: show_keys(&small),
                        },
                        order,
                        reason: format!(
                            "{reason}\n  (quickcheck trial {trial} of test seed {seed:#x}, shrunk from {} keys)",
                            input.len()
                        ),
                        base_seed: base_seed_if_set(),
                    };
                    panic!("{f}");
                }
            }
        }
    }
}
