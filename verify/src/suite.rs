//! The property suite, written once and generic over the algorithm (DESIGN.md §5).
//!
//! An algorithm implements [`SortAlgorithm`] and joins with one line, [`crate::sort_suite!`],
//! which generates a test module with, for each of the six key types:
//!
//! | test | what |
//! |---|---|
//! | `patterns_{ascending,descending}` | every pattern of [`suite_patterns`] × [`pattern_lengths`] |
//! | `lengths_{ascending,descending}` | every [`edge_lengths`] (with the algorithm's tiles) × uniform, and full-range up to 5000 |
//! | `pairs_{u32,u64}_{ascending,descending}` | key-value: patterns × [`pattern_lengths`], index values |
//! | `quickcheck` | [`QUICKCHECK_TRIALS`] arbitrary `Vec<K>` from quickcheck, both orders, keys and pairs, shrunk on failure |
//! | `large` (ignored) | [`large_lengths`] × uniform, both orders, and pairs at 2^20 + 3 |
//!
//! Each test derives its seed from its full name with [`seed_for`], so `SORTLAB_SEED=N`
//! reproduces a run. The check functions ([`check_keys`], [`check_pairs`], and their `try_`
//! and `verify_` forms) are public for tests of their own.

use std::any::Any;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};

use quickcheck::{Arbitrary, Gen};
use sortlab_cpu_reference::{check, sort};
use sortlab_primitives::{Order, SortKey, SortValue};

use crate::gen::generate;
use crate::lengths::{edge_lengths, large_lengths};
use crate::patterns::Pattern;
use crate::seed::{base_seed_if_set, derive, seed_for, SEED_ENV};

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

/// The input a failed case ran on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// Drawn by [`generate`].
    Generated {
        /// The pattern.
        pattern: Pattern,
        /// The length.
        n: usize,
        /// The seed given to [`generate`].
        seed: u64,
    },
    /// Given explicitly (quickcheck, a hand-written case).
    Given {
        /// The length.
        n: usize,
        /// The keys, printed (shortened past 64 keys; floats also as raw bits).
        keys: String,
    },
}

/// A failed check: what ran, on what, and why, with what it takes to reproduce it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct Failure {
    /// [`SortAlgorithm::name`].
    pub algorithm: String,
    /// The key type ([`SortKey::NAME`]).
    pub key_type: &'static str,
    /// The value type for key-value sorts, `None` for keys only.
    pub value_type: Option<&'static str>,
    /// The input.
    pub input: Input,
    /// The order.
    pub order: Order,
    /// What went wrong.
    pub reason: String,
    /// The process's base seed, if one was set up ([`crate::seed`](mod@crate::seed)).
    pub base_seed: Option<u64>,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.value_type {
            Some(v) => format!("pairs {}/{v}", self.key_type),
            None => format!("keys {}", self.key_type),
        };
        writeln!(
            f,
            "{} failed on {what}, order {}:",
            self.algorithm, self.order
        )?;
        writeln!(f, "  {}", self.reason)?;
        match &self.input {
            Input::Generated { pattern, n, seed } => {
                writeln!(
                    f,
                    "  input: pattern {pattern}, n = {n}, seed = {seed} ({seed:#x})"
                )?;
                write!(
                    f,
                    "  reproduce: sortlab_verify::generate::<{}>(\"{pattern}\".parse()?, {n}, {seed:#x})",
                    self.key_type
                )?;
            }
            Input::Given { n, keys } => write!(f, "  input (n = {n}): {keys}")?,
        }
        if let Some(b) = self.base_seed {
            write!(f, "\n  whole run: {SEED_ENV}={b}")?;
        }
        Ok(())
    }
}

/// The text of a panic payload.
fn panic_text(p: &(dyn Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic payload)".to_string()
    }
}

/// Runs `f`, turning a panic into an error.
fn no_panic(what: &str, f: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(format!("{what} returned an error: {e}")),
        Err(p) => Err(format!("{what} panicked: {}", panic_text(p.as_ref()))),
    }
}

/// Checks one keys-only sort of `input`: the output has the input's length, is sorted, is a
/// permutation of the input, and equals the CPU reference sort bit for bit (equal keys are
/// bit-identical in total order, so every correct sort gives exactly the reference).
/// A panic inside the algorithm is reported as a failure.
pub fn verify_keys<K: SortKey, A: SortAlgorithm + ?Sized>(
    alg: &A,
    input: &[K],
    order: Order,
) -> Result<(), String> {
    let mut actual = input.to_vec();
    no_panic("sort_keys", || alg.sort_keys(&mut actual, order))?;
    if actual.len() != input.len() {
        return Err(format!(
            "output length {} != input length {}",
            actual.len(),
            input.len()
        ));
    }
    check::check_sorted(&actual, order).map_err(|e| format!("output not sorted: {e}"))?;
    check::check_permutation(input, &actual)
        .map_err(|e| format!("output not a permutation of the input: {e}"))?;
    let mut expected = input.to_vec();
    sort::sort(&mut expected, order);
    check::check_equal(&expected, &actual)
        .map_err(|e| format!("output differs from the reference: {e}"))
}

/// Checks one key-value sort of `input` with values = input indices (`V` = `u32` or `u64`).
///
/// Stable algorithms must equal the stable reference `sort_pairs` exactly. Unstable ones must
/// give the reference keys, and every value must be a distinct valid index whose input key is
/// bit-identical to the output key beside it (so the (key, value) multiset is preserved).
/// A panic inside the algorithm is reported as a failure.
pub fn verify_pairs<K: SortKey, V: IndexValue, A: SortAlgorithm + ?Sized>(
    alg: &A,
    input: &[K],
    order: Order,
) -> Result<(), String> {
    let n = input.len();
    if n as u64 > V::MAX_LEN {
        return Err(format!(
            "{n} elements: too many for {} indices",
            V::VALUE_NAME
        ));
    }
    let values: Vec<V> = (0..n).map(V::from_index).collect();
    let (mut ak, mut av) = (input.to_vec(), values.clone());
    no_panic("sort_pairs", || alg.sort_pairs(&mut ak, &mut av, order))?;
    if ak.len() != n || av.len() != n {
        return Err(format!(
            "output lengths {} keys, {} values != input length {n}",
            ak.len(),
            av.len()
        ));
    }
    check::check_sorted(&ak, order).map_err(|e| format!("keys not sorted: {e}"))?;
    if alg.is_stable() {
        let (mut ek, mut ev) = (input.to_vec(), values);
        sort::sort_pairs(&mut ek, &mut ev, order)
            .map_err(|e| format!("reference sort_pairs failed: {e}"))?;
        return check::check_pairs_equal(&ek, &ev, &ak, &av)
            .map_err(|e| format!("differs from the stable reference: {e}"));
    }
    let mut ek = input.to_vec();
    sort::sort(&mut ek, order);
    check::check_equal(&ek, &ak).map_err(|e| format!("keys differ from the reference: {e}"))?;
    let mut seen = vec![false; n];
    for (pos, (k, v)) in ak.iter().zip(&av).enumerate() {
        let i = v.to_index();
        if i >= n {
            return Err(format!(
                "value at {pos} is {v:?}: not an input index (n = {n})"
            ));
        }
        if seen[i] {
            return Err(format!("value at {pos} is {v:?}: index seen twice"));
        }
        seen[i] = true;
        if input[i].to_ordered_bits() != k.to_ordered_bits() {
            return Err(format!(
                "at {pos}: key {k:?} carries value {i}, but input key {i} is {:?}",
                input[i]
            ));
        }
    }
    Ok(())
}

fn generated<K: SortKey, A: SortAlgorithm + ?Sized>(
    alg: &A,
    value_type: Option<&'static str>,
    pattern: Pattern,
    n: usize,
    order: Order,
    seed: u64,
    reason: String,
) -> Failure {
    Failure {
        algorithm: alg.name(),
        key_type: K::NAME,
        value_type,
        input: Input::Generated { pattern, n, seed },
        order,
        reason,
        base_seed: base_seed_if_set(),
    }
}

/// [`verify_keys`] on `generate::<K>(pattern, n, seed)`, the failure with full context.
pub fn try_check_keys<K: SortKey, A: SortAlgorithm + ?Sized>(
    alg: &A,
    pattern: Pattern,
    n: usize,
    order: Order,
    seed: u64,
) -> Result<(), Box<Failure>> {
    let input = generate::<K>(pattern, n, seed);
    verify_keys(alg, &input, order)
        .map_err(|r| Box::new(generated::<K, A>(alg, None, pattern, n, order, seed, r)))
}

/// Sorts `generate::<K>(pattern, n, seed)` with `alg` and checks it against the CPU
/// reference ([`verify_keys`]).
///
/// # Panics
/// On failure, with a message naming the algorithm, key type, pattern, n, order and seed
/// (see [`Failure`]): this is a test helper.
///
/// # Example
/// ```
/// use sortlab_verify::{algorithms::CpuUnstable, check_keys, Order, Pattern};
/// check_keys::<i64, _>(&CpuUnstable, Pattern::Zipf, 10_000, Order::Ascending, 5);
/// ```
pub fn check_keys<K: SortKey, A: SortAlgorithm + ?Sized>(
    alg: &A,
    pattern: Pattern,
    n: usize,
    order: Order,
    seed: u64,
) {
    if let Err(f) = try_check_keys::<K, A>(alg, pattern, n, order, seed) {
        panic!("{f}");
    }
}

/// [`verify_pairs`] on `generate::<K>(pattern, n, seed)` with index values of type `V`, the
/// failure with full context.
pub fn try_check_pairs<K: SortKey, V: IndexValue, A: SortAlgorithm + ?Sized>(
    alg: &A,
    pattern: Pattern,
    n: usize,
    order: Order,
    seed: u64,
) -> Result<(), Box<Failure>> {
    let input = generate::<K>(pattern, n, seed);
    verify_pairs::<K, V, A>(alg, &input, order).map_err(|r| {
        Box::new(generated::<K, A>(
            alg,
            Some(V::VALUE_NAME),
            pattern,
            n,
            order,
            seed,
            r,
        ))
    })
}

/// Key-value sort of `generate::<K>(pattern, n, seed)` with values = input indices as `V`,
/// checked by [`verify_pairs`] (exact for stable algorithms; keys and permutation for
/// unstable ones).
///
/// # Panics
/// On failure, with a message naming algorithm, key and value type, pattern, n, order and
/// seed: this is a test helper.
///
/// # Example
/// ```
/// use sortlab_verify::{algorithms::CpuStable, check_pairs, Order, Pattern};
/// check_pairs::<f64, u32, _>(&CpuStable, Pattern::FewDistinct, 5000, Order::Descending, 5);
/// ```
pub fn check_pairs<K: SortKey, V: IndexValue, A: SortAlgorithm + ?Sized>(
    alg: &A,
    pattern: Pattern,
    n: usize,
    order: Order,
    seed: u64,
) {
    if let Err(f) = try_check_pairs::<K, V, A>(alg, pattern, n, order, seed) {
        panic!("{f}");
    }
}

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

/// Formats keys for a failure: Debug, shortened past 64 keys; floats also as raw bits (the
/// sign of a NaN and its payload do not show in Debug).
fn show_keys<K: SortKey>(keys: &[K]) -> String {
    const SHOW: usize = 64;
    let head = &keys[..keys.len().min(SHOW)];
    let more = if keys.len() > SHOW { ", ..." } else { "" };
    let mut s = format!("{head:?}{more}");
    if K::IS_FLOAT {
        let raw: Vec<String> = head
            .iter()
            .map(|&k| {
                let mut b = Vec::with_capacity(8);
                k.write_le(&mut b);
                let w = b
                    .iter()
                    .rev()
                    .fold(0u64, |acc, &byte| (acc << 8) | byte as u64);
                format!("{w:#x}")
            })
            .collect();
        s.push_str(&format!("\n  raw bits: [{}{more}]", raw.join(", ")));
    }
    s
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

/// Generates a test module that runs the whole suite on one algorithm.
///
/// `sort_suite!(name, expr)` makes `mod name` with, for each key type (`key_u32`, `key_i32`,
/// `key_f32`, `key_u64`, `key_i64`, `key_f64`), the `#[test]`s of the table in
/// [`crate::suite`]: `patterns_ascending`, `patterns_descending`, `lengths_ascending`,
/// `lengths_descending`, `pairs_u32_ascending`, `pairs_u32_descending`,
/// `pairs_u64_ascending`, `pairs_u64_descending`, `quickcheck`, and `large` (ignored; in
/// this form it also needs `SORTLAB_LARGE=1`, see [`crate::suite::run_large_if_enabled`]).
/// `expr` must evaluate to a [`SortAlgorithm`]; it is evaluated once per test, inside the
/// generated module (which imports everything from the calling module with `use super::*`),
/// so it may construct a device handle.
///
/// `sort_suite!(name, expr, ignore = "reason")` puts `#[ignore = "reason"]` on every
/// generated test (for GPU algorithms: run them with `--include-ignored` on a CUDA machine;
/// `large` then runs without `SORTLAB_LARGE`).
///
/// # Example
/// ```ignore
/// sortlab_verify::sort_suite!(cpu_stable, sortlab_verify::algorithms::CpuStable);
/// sortlab_verify::sort_suite!(gpu_radix, GpuRadix::new(Gpu::new().unwrap()),
///                             ignore = "needs a CUDA device");
/// ```
/// Run one algorithm's suite: `cargo test -p my-crate cpu_stable::`; one key type:
/// `cargo test -p my-crate cpu_stable::key_f32`.
#[macro_export]
macro_rules! sort_suite {
    ($name:ident, $alg:expr $(,)?) => {
        $crate::__sort_suite!(@suite $name, $alg, [],
            [#[ignore = "large inputs: set SORTLAB_LARGE=1 and run with --include-ignored"]],
            run_large_if_enabled);
    };
    ($name:ident, $alg:expr, ignore = $reason:literal $(,)?) => {
        $crate::__sort_suite!(@suite $name, $alg, [#[ignore = $reason]], [#[ignore = $reason]],
            run_large);
    };
}

/// Implementation of [`sort_suite!`]; not a public interface.
#[doc(hidden)]
#[macro_export]
macro_rules! __sort_suite {
    (@suite $name:ident, $alg:expr, [$($attr:tt)*], [$($large:tt)*], $run_large:ident) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            fn algorithm() -> impl $crate::suite::SortAlgorithm {
                $alg
            }

            $crate::__sort_suite!(@key [$($attr)*] [$($large)*] $run_large key_u32 u32);
            $crate::__sort_suite!(@key [$($attr)*] [$($large)*] $run_large key_i32 i32);
            $crate::__sort_suite!(@key [$($attr)*] [$($large)*] $run_large key_f32 f32);
            $crate::__sort_suite!(@key [$($attr)*] [$($large)*] $run_large key_u64 u64);
            $crate::__sort_suite!(@key [$($attr)*] [$($large)*] $run_large key_i64 i64);
            $crate::__sort_suite!(@key [$($attr)*] [$($large)*] $run_large key_f64 f64);
        }
    };
    (@key [$($attr:tt)*] [$($large:tt)*] $run_large:ident $m:ident $K:ty) => {
        mod $m {
            use $crate::suite as s;
            use $crate::Order::{Ascending, Descending};

            fn name(test: &str) -> ::std::string::String {
                ::std::format!("{}::{}", ::std::module_path!(), test)
            }

            #[test]
            $($attr)*
            fn patterns_ascending() {
                s::run_patterns::<$K, _>(&super::algorithm(), Ascending, &name("patterns_ascending"));
            }

            #[test]
            $($attr)*
            fn patterns_descending() {
                s::run_patterns::<$K, _>(&super::algorithm(), Descending, &name("patterns_descending"));
            }

            #[test]
            $($attr)*
            fn lengths_ascending() {
                s::run_lengths::<$K, _>(&super::algorithm(), Ascending, &name("lengths_ascending"));
            }

            #[test]
            $($attr)*
            fn lengths_descending() {
                s::run_lengths::<$K, _>(&super::algorithm(), Descending, &name("lengths_descending"));
            }

            #[test]
            $($attr)*
            fn pairs_u32_ascending() {
                s::run_pairs::<$K, u32, _>(&super::algorithm(), Ascending, &name("pairs_u32_ascending"));
            }

            #[test]
            $($attr)*
            fn pairs_u32_descending() {
                s::run_pairs::<$K, u32, _>(&super::algorithm(), Descending, &name("pairs_u32_descending"));
            }

            #[test]
            $($attr)*
            fn pairs_u64_ascending() {
                s::run_pairs::<$K, u64, _>(&super::algorithm(), Ascending, &name("pairs_u64_ascending"));
            }

            #[test]
            $($attr)*
            fn pairs_u64_descending() {
                s::run_pairs::<$K, u64, _>(&super::algorithm(), Descending, &name("pairs_u64_descending"));
            }

            #[test]
            $($attr)*
            fn quickcheck() {
                s::run_quickcheck::<$K, _>(&super::algorithm(), &name("quickcheck"));
            }

            #[test]
            $($large)*
            fn large() {
                s::$run_large::<$K, _>(&super::algorithm(), &name("large"));
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::{CpuStable, CpuUnstable};

    /// Deliberately wrong algorithms, to see that the checks catch them.
    enum Broken {
        /// Leaves the input as it is.
        NoSort,
        /// Sorts, then drops the last element's value by duplicating its neighbour's.
        DupLast,
        /// Sorts by `partial_cmp`-like order: -0.0 == 0.0 and NaN last, so floats differ.
        PartialOrder,
        /// Claims stability but sorts pairs unstably (reverses runs of equal keys).
        FakeStable,
        /// Returns an error.
        Fails,
        /// Panics.
        Panics,
    }

    impl SortAlgorithm for Broken {
        fn name(&self) -> String {
            "broken".into()
        }
        fn is_stable(&self) -> bool {
            true
        }
        fn sort_keys<K: SortKey>(&self, keys: &mut [K], order: Order) -> Result<(), String> {
            match self {
                Broken::NoSort => {}
                Broken::DupLast => {
                    sort::sort(keys, order);
                    let n = keys.len();
                    if n >= 2 {
                        keys[n - 1] = keys[n - 2];
                    }
                }
                Broken::PartialOrder => {
                    keys.sort_by(|a, b| {
                        let (a, b) = (a.to_f64(), b.to_f64());
                        let o = a.partial_cmp(&b).unwrap_or(a.is_nan().cmp(&b.is_nan()));
                        if order.is_descending() {
                            o.reverse()
                        } else {
                            o
                        }
                    });
                }
                Broken::FakeStable => sort::sort(keys, order),
                Broken::Fails => return Err("out of cheese".into()),
                Broken::Panics => panic!("kaboom"),
            }
            Ok(())
        }
        fn sort_pairs<K: SortKey, V: SortValue>(
            &self,
            keys: &mut [K],
            values: &mut [V],
            order: Order,
        ) -> Result<(), String> {
            if let Broken::FakeStable = self {
                // Equal keys come out in reverse input order.
                let mut p: Vec<(K, V)> = keys.iter().copied().zip(values.iter().copied()).collect();
                p.reverse();
                p.sort_by(|a, b| order.cmp_keys(&a.0, &b.0));
                for (i, (k, v)) in p.into_iter().enumerate() {
                    keys[i] = k;
                    values[i] = v;
                }
                return Ok(());
            }
            self.sort_keys(keys, order)
        }
    }

    #[test]
    fn catches_broken_algorithms() {
        let f =
            try_check_keys::<u32, _>(&Broken::NoSort, Pattern::Uniform, 100, Order::Ascending, 7)
                .unwrap_err();
        let msg = f.to_string();
        for part in [
            "broken",
            "u32",
            "uniform",
            "n = 100",
            "asc",
            "seed = 7",
            "not sorted",
        ] {
            assert!(msg.contains(part), "{part} missing in {msg}");
        }
        let f = try_check_keys::<i64, _>(
            &Broken::DupLast,
            Pattern::Uniform,
            100,
            Order::Descending,
            7,
        )
        .unwrap_err();
        assert!(f.reason.contains("permutation"), "{}", f.reason);
        let f = try_check_keys::<f32, _>(
            &Broken::PartialOrder,
            Pattern::FloatSpecials,
            200,
            Order::Ascending,
            1,
        )
        .unwrap_err();
        assert_eq!(f.key_type, "f32");
        let f = try_check_keys::<f64, _>(&Broken::Fails, Pattern::Uniform, 10, Order::Ascending, 1)
            .unwrap_err();
        assert!(f.reason.contains("out of cheese"));
        let f =
            try_check_keys::<f64, _>(&Broken::Panics, Pattern::Uniform, 10, Order::Ascending, 1)
                .unwrap_err();
        assert!(f.reason.contains("panicked: kaboom"), "{}", f.reason);
        let f = try_check_pairs::<u64, u32, _>(
            &Broken::FakeStable,
            Pattern::FewDistinct,
            100,
            Order::Ascending,
            1,
        )
        .unwrap_err();
        assert!(f.to_string().contains("pairs u64/u32"), "{f}");
        assert!(f.reason.contains("stable reference"), "{}", f.reason);
        // Values out of step with keys.
        let f = try_check_pairs::<u32, u64, _>(
            &Broken::DupLast,
            Pattern::Uniform,
            50,
            Order::Ascending,
            1,
        )
        .unwrap_err();
        assert!(f.reason.contains("differs"), "{}", f.reason);
    }

    /// Unstable, and moves values wrongly in one of three ways.
    struct BadUnstable(u8);

    impl SortAlgorithm for BadUnstable {
        fn name(&self) -> String {
            "bad-unstable".into()
        }
        fn is_stable(&self) -> bool {
            false
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
            sort::sort_pairs(keys, values, order).map_err(|e| e.to_string())?;
            if self.0 == 0 {
                values.swap(0, 1);
            } else {
                values[0] = values[1];
            }
            Ok(())
        }
    }

    #[test]
    fn unstable_checks_catch_bad_values() {
        let reasons: Vec<String> = (0..2)
            .map(|b| {
                try_check_pairs::<u32, u32, _>(
                    &BadUnstable(b),
                    Pattern::Uniform,
                    1000,
                    Order::Ascending,
                    3,
                )
                .unwrap_err()
                .reason
            })
            .collect();
        assert!(reasons[0].contains("but input key"), "{}", reasons[0]);
        assert!(
            reasons[1].contains("seen twice") || reasons[1].contains("but input key"),
            "{}",
            reasons[1]
        );
        // Swapping values of equal keys is fine for an unstable sort.
        try_check_pairs::<u32, u32, _>(&CpuUnstable, Pattern::AllEqual, 1000, Order::Ascending, 3)
            .unwrap();
    }

    #[test]
    fn quickcheck_shrinks() {
        let r = catch_unwind(|| run_quickcheck::<i32, _>(&Broken::NoSort, "shrink-test"));
        let msg = panic_text(r.unwrap_err().as_ref());
        assert!(msg.contains("(n = 2)"), "{msg}");
        assert!(msg.contains("shrunk from"), "{msg}");
        let r = catch_unwind(|| run_quickcheck::<f64, _>(&Broken::PartialOrder, "shrink-test"));
        let msg = panic_text(r.unwrap_err().as_ref());
        assert!(msg.contains("raw bits"), "{msg}");
    }

    /// Keys only, with a tile size: pair tests skip, tile lengths ±1 are visited.
    struct KeysOnly(std::cell::RefCell<Vec<usize>>);

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
            self.0.borrow_mut().push(keys.len());
            sort::sort_unstable(keys, order);
            Ok(())
        }
        fn sort_pairs<K: SortKey, V: SortValue>(
            &self,
            _: &mut [K],
            _: &mut [V],
            _: Order,
        ) -> Result<(), String> {
            panic!("must not be called")
        }
        fn tile_sizes(&self) -> Vec<usize> {
            vec![700]
        }
    }

    #[test]
    fn keys_only_and_tiles() {
        let alg = KeysOnly(Default::default());
        run_pairs::<u32, u32, _>(&alg, Order::Ascending, "keys-only");
        run_quickcheck::<u32, _>(&alg, "keys-only");
        alg.0.borrow_mut().clear();
        run_patterns::<u32, _>(&alg, Order::Ascending, "keys-only");
        let seen = alg.0.borrow().clone();
        assert!(seen.contains(&699) && seen.contains(&701) && seen.contains(&0));
        assert_eq!(
            seen.len(),
            suite_patterns().len() * pattern_lengths(&[700]).len()
        );
        alg.0.borrow_mut().clear();
        run_lengths::<u32, _>(&alg, Order::Descending, "keys-only");
        assert!(alg.0.borrow().contains(&700));
    }

    #[test]
    fn check_functions_pass_reference() {
        for p in suite_patterns() {
            check_keys::<f32, _>(&CpuStable, p, 300, Order::Descending, 2);
            check_pairs::<i32, u64, _>(&CpuUnstable, p, 300, Order::Ascending, 2);
        }
        let l = pattern_lengths(&[5000, 1]);
        assert!(l.contains(&4999) && l.contains(&5001) && l.contains(&0) && l.contains(&2));
        assert!(l.windows(2).all(|w| w[0] < w[1]));
    }
}
