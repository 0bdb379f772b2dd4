//! CPU approximate sort benchmarks: `approx::approx_sort` (Fast, 10,000 intervals, equal widths
//! and sampled) and `approx_sort_pairs`, beside the CPU radix sort of the same keys (a full
//! sort, the bar an approximate sort must clear).
//!
//! Ids are `{algo}-{type}-{pattern}-{len}` (DESIGN.md §6), e.g.
//! `approx-equal-u32-uniform-16777216`. Run with
//! `cargo bench -p sortlab-cpu-reference --bench approx`.

mod common;

use std::time::Duration;

use common::{bench_batched, input};
use criterion::{criterion_group, criterion_main, Criterion};
use sortlab_cpu_reference::approx::{approx_sort, approx_sort_pairs, ApproxOptions, Intervals};
use sortlab_cpu_reference::radix;
use sortlab_primitives::Order;
use sortlab_verify::Pattern;

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
        let keys: Vec<u32> = input(Pattern::Uniform, len);
        let pairs = (keys.clone(), (0..len as u32).collect::<Vec<u32>>());
        for (name, boundaries) in [
            ("approx-equal", Intervals::EqualWidth),
            ("approx-sampled", Intervals::Sampled),
        ] {
            let opts = options(boundaries);
            bench_batched(c, &format!("{name}-u32-uniform-{len}"), &keys, |k| {
                approx_sort(k, &opts).unwrap();
            });
        }
        let opts = options(Intervals::EqualWidth);
        let id = format!("approx-equal-pairs-u32-uniform-{len}");
        bench_batched(c, &id, &pairs, |p| {
            approx_sort_pairs(&mut p.0, &mut p.1, &opts).unwrap();
        });
        bench_batched(c, &format!("radix-u32-uniform-{len}"), &keys, |k| {
            radix::sort_keys(k, Order::Ascending)
        });
    }
}

criterion_group! {
    name = approx_benches;
    config = common::criterion(Duration::from_millis(500), Duration::from_secs(2));
    targets = benches
}
criterion_main!(approx_benches);
