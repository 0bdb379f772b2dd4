//! CPU roughsort benchmarks: radius determination (the report's sequential form, the
//! memory-saving form, rayon) and sorting of k-sorted input (sequential halving roughsort,
//! Altman-Chlebus on rayon, the reference sorts, and the report's bubble sort baseline).
//!
//! Ids are `{algo}-{type}-{pattern}-{len}` (DESIGN.md §6), e.g.
//! `radius_par-u32-k-sorted:100-1048576`. Run with
//! `cargo bench -p sortlab-cpu-reference --bench rough`.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sortlab_cpu_reference::{rough, sort};
use sortlab_primitives::Order;

/// Lengths timed: 2^16 and 2^20.
const LENGTHS: [usize; 2] = [1 << 16, 1 << 20];

/// Radii timed: the report's figures use k = 2, 15 and 100; 1000 and 4096 as the GPU benchmarks.
const RADII: [usize; 5] = [2, 15, 100, 1000, 4096];

/// Bubble sort is O(n k): timed only up to this length.
const BUBBLE_MAX_LEN: usize = 1 << 16;

/// `0..n` with radius exactly `min(k, n - 1)`, as `sortlab-verify`'s `k-sorted:K` pattern: cut
/// into blocks of `k + 1` from a random offset, and in a random half of the blocks the two ends
/// are swapped and the inside shuffled. (A copy: `sortlab-verify` depends on this crate.)
fn k_sorted(n: usize, k: usize, seed: u64) -> Vec<u32> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut v: Vec<u32> = (0..n as u32).collect();
    let k = k.min(n.saturating_sub(1));
    if k == 0 {
        return v;
    }
    let block = k + 1;
    let offset = rng.gen_range(0..=k.min(n - block));
    let blocks = (n - offset) / block;
    let forced = rng.gen_range(0..blocks);
    for b in 0..blocks {
        if b != forced && rng.gen_bool(0.5) {
            continue;
        }
        let s = offset + b * block;
        v.swap(s, s + k);
        let inner = &mut v[s + 1..s + k];
        for i in (1..inner.len()).rev() {
            inner.swap(i, rng.gen_range(0..=i));
        }
    }
    v
}

/// A sort under test.
type KeysFn = fn(&mut [u32]);

/// A radius determination under test.
type RadiusFn = fn(&[u32]) -> usize;

fn benches(c: &mut Criterion) {
    let asc = Order::Ascending;
    let radius_fns: [(&str, RadiusFn); 3] = [
        ("radius", |k| rough::radius(k, Order::Ascending)),
        ("radius_memory_saving", |k| {
            rough::radius_memory_saving(k, Order::Ascending)
        }),
        ("radius_par", |k| rough::radius_par(k, Order::Ascending)),
    ];
    let sort_fns: [(&str, KeysFn); 4] = [
        ("rough_sort_seq", |k| {
            rough::rough_sort_seq(k, Order::Ascending);
        }),
        ("rough_sort_par", |k| {
            rough::rough_sort_par(k, Order::Ascending);
        }),
        ("sort_seq", |k| sort::sort_seq(k, Order::Ascending)),
        ("sort", |k| sort::sort(k, Order::Ascending)),
    ];
    for len in LENGTHS {
        for k in RADII {
            let input = k_sorted(len, k, (len * 1000 + k) as u64);
            assert_eq!(rough::radius(&input, asc), k);
            let id = |algo: &str| format!("{algo}-u32-k-sorted:{k}-{len}");
            for (algo, f) in radius_fns {
                c.bench_function(&id(algo), |b| b.iter(|| f(std::hint::black_box(&input))));
            }
            for (algo, f) in sort_fns {
                c.bench_function(&id(algo), |b| {
                    b.iter_batched_ref(|| input.clone(), |keys| f(keys), BatchSize::LargeInput)
                });
            }
            if len <= BUBBLE_MAX_LEN {
                c.bench_function(&id("bubble_sort"), |b| {
                    b.iter_batched_ref(
                        || input.clone(),
                        |keys| rough::bubble_sort(keys, Order::Ascending),
                        BatchSize::LargeInput,
                    )
                });
            }
        }
    }
}

criterion_group! {
    name = rough_benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    targets = benches
}
criterion_main!(rough_benches);
