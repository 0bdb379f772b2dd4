//! CPU roughsort benchmarks: radius determination (the report's sequential form, the
//! memory-saving form, rayon) and sorting of k-sorted input (sequential halving roughsort,
//! Altman-Chlebus on rayon, the reference sorts, and the report's bubble sort baseline).
//!
//! Ids are `{algo}-{type}-{pattern}-{len}` (DESIGN.md §6), e.g.
//! `radius_par-u32-k-sorted:100-1048576`; inputs are `sortlab-verify`'s k-sorted keys of exact
//! radius. Run with `cargo bench -p sortlab-cpu-reference --bench rough`.

mod common;

use std::time::Duration;

use common::{bench_batched, bench_sorts, input, SortFn};
use criterion::{criterion_group, criterion_main, Criterion};
use sortlab_cpu_reference::{rough, sort};
use sortlab_primitives::Order;
use sortlab_verify::Pattern;

/// Lengths timed: 2^16 and 2^20.
const LENGTHS: [usize; 2] = [1 << 16, 1 << 20];

/// Radii timed: the report's figures use k = 2, 15 and 100; 1000 and 4096 as the GPU benchmarks.
const RADII: [usize; 5] = [2, 15, 100, 1000, 4096];

/// Bubble sort is O(n k): timed only up to this length.
const BUBBLE_MAX_LEN: usize = 1 << 16;

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
    let sort_fns: [(&str, SortFn<u32>); 4] = [
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
            let pattern = Pattern::KSorted(k);
            let keys: Vec<u32> = input(pattern, len);
            assert_eq!(rough::radius(&keys, asc), k);
            let id = |algo: &str| format!("{algo}-u32-{pattern}-{len}");
            for (algo, f) in radius_fns {
                c.bench_function(&id(algo), |b| b.iter(|| f(std::hint::black_box(&keys))));
            }
            bench_sorts(c, &sort_fns, pattern, &keys);
            if len <= BUBBLE_MAX_LEN {
                bench_batched(c, &id("bubble_sort"), &keys, |k| {
                    rough::bubble_sort(k, asc);
                });
            }
        }
    }
}

criterion_group! {
    name = rough_benches;
    config = common::criterion(Duration::from_millis(300), Duration::from_secs(1));
    targets = benches
}
criterion_main!(rough_benches);
