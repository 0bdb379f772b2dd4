//! CPU radix sort benchmarks: the rayon radix sort (`radix::sort_keys` /
//! `radix::sort_pairs`) against rayon's own `par_sort_unstable` and the stable reference sort.
//!
//! Ids are `{algo}-{type}-{pattern}-{len}` (DESIGN.md §6), e.g. `radix-u32-uniform-1048576`.
//! Run with `cargo bench -p sortlab-cpu-reference --bench radix`.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::slice::ParallelSliceMut;
use sortlab_cpu_reference::radix;
use sortlab_cpu_reference::sort::{sort, sort_pairs};
use sortlab_primitives::{Order, SortKey};

/// A sort under test.
type SortFn<K> = fn(&mut [K]);

/// A pair sort under test, on (keys, values).
type PairSortFn = fn(&mut (Vec<u32>, Vec<u32>));

/// Lengths timed: 2^16, 2^20 and 2^24.
const LENGTHS: [usize; 3] = [1 << 16, 1 << 20, 1 << 24];

/// Uniform keys: integers in 0..2^31 (the papers' pattern), floats in [0, 1).
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

impl Uniform for u64 {
    fn uniform(rng: &mut ChaCha8Rng) -> Self {
        rng.gen()
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
        ("radix", |k| radix::sort_keys(k, Order::Ascending)),
        ("sort", |k| sort(k, Order::Ascending)),
        ("par_sort_unstable", K::rayon_par_sort_unstable),
    ];
    for len in LENGTHS {
        let mut rng = ChaCha8Rng::seed_from_u64(len as u64);
        let input: Vec<K> = (0..len).map(|_| K::uniform(&mut rng)).collect();
        for (algo, f) in algos {
            c.bench_function(&format!("{algo}-{}-uniform-{len}", K::NAME), |b| {
                b.iter_batched_ref(|| input.clone(), |keys| f(keys), BatchSize::LargeInput)
            });
        }
    }
}

fn bench_pairs(c: &mut Criterion) {
    for len in LENGTHS {
        let mut rng = ChaCha8Rng::seed_from_u64(len as u64);
        let keys: Vec<u32> = (0..len).map(|_| u32::uniform(&mut rng)).collect();
        let values: Vec<u32> = (0..len as u32).collect();
        let algos: [(&str, PairSortFn); 2] = [
            ("radix_pairs", |p| {
                radix::sort_pairs(&mut p.0, &mut p.1, Order::Ascending).unwrap()
            }),
            ("sort_pairs", |p| {
                sort_pairs(&mut p.0, &mut p.1, Order::Ascending).unwrap()
            }),
        ];
        for (algo, f) in algos {
            c.bench_function(&format!("{algo}-u32-uniform-{len}"), |b| {
                b.iter_batched_ref(|| (keys.clone(), values.clone()), f, BatchSize::LargeInput)
            });
        }
    }
}

fn benches(c: &mut Criterion) {
    bench_type::<u32>(c);
    bench_type::<u64>(c);
    bench_type::<f64>(c);
    bench_pairs(c);
}

criterion_group! {
    name = radix_benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = benches
}
criterion_main!(radix_benches);
