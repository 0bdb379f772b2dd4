//! CPU approximate sort benchmarks: `approx::approx_sort` (Fast, 10,000 intervals, equal widths
//! and sampled) and `approx_sort_pairs`, beside the CPU radix sort of the same keys (a full
//! sort, the bar an approximate sort must clear).
//!
//! Ids are `{algo}-{type}-{pattern}-{len}` (DESIGN.md §6), e.g.
//! `approx-equal-u32-uniform-16777216`. Run with
//! `cargo bench -p sortlab-cpu-reference --bench approx`.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sortlab_cpu_reference::approx::{approx_sort, approx_sort_pairs, ApproxOptions, Intervals};
use sortlab_cpu_reference::radix;
use sortlab_primitives::Order;

/// Lengths timed: 2^20 and 2^24.
const LENGTHS: [usize; 2] = [1 << 20, 1 << 24];

fn options(boundaries: Intervals) -> ApproxOptions {
    ApproxOptions {
        intervals: 10_000,
        boundaries,
        ..ApproxOptions::default()
    }
}

fn benches(c: &mut Criterion) {
    for len in LENGTHS {
        let mut rng = ChaCha8Rng::seed_from_u64(len as u64);
        let keys: Vec<u32> = (0..len).map(|_| rng.gen_range(0..1u32 << 31)).collect();
        let values: Vec<u32> = (0..len as u32).collect();
        for (name, boundaries) in [
            ("approx-equal", Intervals::EqualWidth),
            ("approx-sampled", Intervals::Sampled),
        ] {
            let opts = options(boundaries);
            c.bench_function(&format!("{name}-u32-uniform-{len}"), |b| {
                b.iter_batched_ref(
                    || keys.clone(),
                    |k| approx_sort(k, &opts).unwrap(),
                    BatchSize::LargeInput,
                )
            });
        }
        let opts = options(Intervals::EqualWidth);
        c.bench_function(&format!("approx-equal-pairs-u32-uniform-{len}"), |b| {
            b.iter_batched_ref(
                || (keys.clone(), values.clone()),
                |p| approx_sort_pairs(&mut p.0, &mut p.1, &opts).unwrap(),
                BatchSize::LargeInput,
            )
        });
        c.bench_function(&format!("radix-u32-uniform-{len}"), |b| {
            b.iter_batched_ref(
                || keys.clone(),
                |k| radix::sort_keys(k, Order::Ascending),
                BatchSize::LargeInput,
            )
        });
    }
}

criterion_group! {
    name = approx_benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = benches
}
criterion_main!(approx_benches);
