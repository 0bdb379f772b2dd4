//! CPU sort benchmarks: the reference sorts against rayon's own `par_sort_unstable`.
//!
//! Ids are `{algo}-{type}-{pattern}-{len}` (DESIGN.md §6), e.g. `sort-u32-uniform-1048576`;
//! keys uniform in 0..2^31 (the papers' pattern, `sortlab-verify`'s generator).
//! Run with `cargo bench -p sortlab-cpu-reference --bench sort`.

mod common;

use std::time::Duration;

use common::{bench_sorts, input, RayonSort, SortFn};
use criterion::{criterion_group, criterion_main, Criterion};
use sortlab_cpu_reference::sort::{sort, sort_unstable};
use sortlab_primitives::Order;
use sortlab_verify::Pattern;

/// Lengths timed: 2^16 and 2^20.
const LENGTHS: [usize; 2] = [1 << 16, 1 << 20];

fn bench_type<K: RayonSort>(c: &mut Criterion) {
    let algos: [(&str, SortFn<K>); 3] = [
        ("sort", |k| sort(k, Order::Ascending)),
        ("sort_unstable", |k| sort_unstable(k, Order::Ascending)),
        ("par_sort_unstable", K::rayon_par_sort_unstable),
    ];
    for len in LENGTHS {
        bench_sorts(c, &algos, Pattern::Uniform, &input(Pattern::Uniform, len));
    }
}

fn benches(c: &mut Criterion) {
    bench_type::<u32>(c);
    bench_type::<f64>(c);
}

criterion_group! {
    name = sort_benches;
    config = common::criterion(Duration::from_millis(500), Duration::from_secs(2));
    targets = benches
}
criterion_main!(sort_benches);
