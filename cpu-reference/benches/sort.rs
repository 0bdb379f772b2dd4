//! CPU sort benchmarks: the reference sorts against rayon's own `par_sort_unstable`.
//!
//! Ids are `{algo}-{type}-{pattern}-{len}` (DESIGN.md §6), e.g. `sort-u32-uniform-1048576`.
//! Run with `cargo bench -p sortlab-cpu-reference --bench sort`.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::slice::ParallelSliceMut;
use sortlab_cpu_reference::sort::{sort, sort_unstable};
use sortlab_primitives::{Order, SortKey};

/// A sort under test.
type SortFn<K> = fn(&mut [K]);

/// Lengths timed: 2^16 and 2^20.
const LENGTHS: [usize; 2] = [1 << 16, 1 << 20];

/// Uniform keys: u32 in 0..2^31 (the papers' pattern), f64 in [0, 1).
trait Uniform: SortKey {
    fn uniform(rng: &mut ChaCha8Rng) -> Self;
    /// rayon's `par_sort_unstable` for this type (by `Ord`, or by `total_cmp` for floats).
    fn rayon_par_sort_unstable(keys: &mut [Self]);
}

impl Uniform for u32 {
    fn uniform(rng: &mut ChaCha8Rng) -> Self {
        rng.gen_range(0..1u32 << 31)
    }
    fn rayon_par_sort_unstable(keys: &mut [Self]) {
        keys.par_sort_unstable();
    }
}

impl Uniform for f64 {
    fn uniform(rng: &mut ChaCha8Rng) -> Self {
        rng.gen()
    }
    fn rayon_par_sort_unstable(keys: &mut [Self]) {
        keys.par_sort_unstable_by(f64::total_cmp);
    }
}

fn bench_type<K: Uniform>(c: &mut Criterion) {
    let algos: [(&str, SortFn<K>); 3] = [
        ("sort", |k| sort(k, Order::Ascending)),
        ("sort_unstable", |k| sort_unstable(k, Order::Ascending)),
        ("par_sort_unstable", K::rayon_par_sort_unstable),
    ];
    for len in LENGTHS {
        let mut rng = ChaCha8Rng::seed_from_u64(len as u64);
        let input: Vec<K> = (0..len).map(|_| K::uniform(&mut rng)).collect();
        for (algo, f) in algos {
            // A top-level function, so that the id is exactly `{algo}-{type}-{pattern}-{len}`.
            c.bench_function(&format!("{algo}-{}-uniform-{len}", K::NAME), |b| {
                b.iter_batched_ref(|| input.clone(), |keys| f(keys), BatchSize::LargeInput)
            });
        }
    }
}

fn benches(c: &mut Criterion) {
    bench_type::<u32>(c);
    bench_type::<f64>(c);
}

criterion_group! {
    name = sort_benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = benches
}
criterion_main!(sort_benches);
