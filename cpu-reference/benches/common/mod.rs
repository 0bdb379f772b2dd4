//! Shared by the CPU benchmarks: criterion's settings, inputs drawn by `sortlab-verify`'s
//! generators, rayon's own sort as the anchor, and the loop that times a set of sorts under ids
//! `{algo}-{type}-{pattern}-{len}` (DESIGN.md §6).
#![allow(dead_code)]

use std::time::Duration;

use criterion::{BatchSize, Criterion};
use rayon::slice::ParallelSliceMut;
use sortlab_primitives::SortKey;
use sortlab_verify::{generate, Pattern};

/// Criterion with 10 samples, `warm_up` of warm-up and `measure` of measurement per id.
pub fn criterion(warm_up: Duration, measure: Duration) -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(warm_up)
        .measurement_time(measure)
}

/// `len` keys of `pattern`, from a fixed seed: every run times the same input.
pub fn input<K: SortKey>(pattern: Pattern, len: usize) -> Vec<K> {
    generate(pattern, len, len as u64)
}

/// Times `f` under `id`, on a fresh copy of `input` per call (the copy is not timed).
pub fn bench_batched<I: Clone>(c: &mut Criterion, id: &str, input: &I, mut f: impl FnMut(&mut I)) {
    c.bench_function(id, |b| {
        b.iter_batched_ref(|| input.clone(), &mut f, BatchSize::LargeInput)
    });
}

/// A keys-only sort under test.
pub type SortFn<K> = fn(&mut [K]);

/// Times every sort of `algos` on `input`, drawn as `pattern`: ids
/// `{algo}-{type}-{pattern}-{len}`.
pub fn bench_sorts<K: SortKey>(
    c: &mut Criterion,
    algos: &[(&str, SortFn<K>)],
    pattern: Pattern,
    input: &Vec<K>,
) {
    for &(algo, f) in algos {
        let id = format!("{algo}-{}-{pattern}-{}", K::NAME, input.len());
        bench_batched(c, &id, input, |keys| f(keys));
    }
}

/// rayon's own `par_sort_unstable` (by `Ord`, or by `total_cmp` for floats): the anchor of the
/// CPU sorts.
pub trait RayonSort: SortKey {
    /// Sorts `keys` ascending with rayon's `par_sort_unstable`.
    fn rayon_par_sort_unstable(keys: &mut [Self]);
}

impl RayonSort for u32 {
    fn rayon_par_sort_unstable(keys: &mut [Self]) {
        keys.par_sort_unstable();
    }
}

impl RayonSort for u64 {
    fn rayon_par_sort_unstable(keys: &mut [Self]) {
        keys.par_sort_unstable();
    }
}

impl RayonSort for f64 {
    fn rayon_par_sort_unstable(keys: &mut [Self]) {
        keys.par_sort_unstable_by(f64::total_cmp);
    }
}
