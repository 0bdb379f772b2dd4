//! CPU radix sort benchmarks: the rayon radix sort (`radix::sort_keys` /
//! `radix::sort_pairs`) against rayon's own `par_sort_unstable` and the stable reference sort.
//!
//! Ids are `{algo}-{type}-{pattern}-{len}` (DESIGN.md §6), e.g. `radix-u32-uniform-1048576`;
//! 32-bit and float keys uniform in 0..2^31 (the papers' pattern), `u64` keys full-range (random
//! bits: a 0..2^31 input would let the radix sort skip its high digits).
//! Run with `cargo bench -p sortlab-cpu-reference --bench radix`.

mod common;

use std::time::Duration;

use common::{bench_batched, bench_sorts, input, RayonSort, SortFn};
use criterion::{criterion_group, criterion_main, Criterion};
use sortlab_cpu_reference::radix;
use sortlab_cpu_reference::sort::{sort, sort_pairs};
use sortlab_primitives::Order;
use sortlab_verify::Pattern;

/// A pair sort under test, on (keys, values).
type PairSortFn = fn(&mut (Vec<u32>, Vec<u32>));

/// Lengths timed: 2^16, 2^20 and 2^24.
const LENGTHS: [usize; 3] = [1 << 16, 1 << 20, 1 << 24];

fn bench_type<K: RayonSort>(c: &mut Criterion, pattern: Pattern) {
    let algos: [(&str, SortFn<K>); 3] = [
        ("radix", |k| radix::sort_keys(k, Order::Ascending)),
        ("sort", |k| sort(k, Order::Ascending)),
        ("par_sort_unstable", K::rayon_par_sort_unstable),
    ];
    for len in LENGTHS {
        bench_sorts(c, &algos, pattern, &input(pattern, len));
    }
}

fn bench_pairs(c: &mut Criterion) {
    let algos: [(&str, PairSortFn); 2] = [
        ("radix_pairs", |p| {
            radix::sort_pairs(&mut p.0, &mut p.1, Order::Ascending).unwrap()
        }),
        ("sort_pairs", |p| {
            sort_pairs(&mut p.0, &mut p.1, Order::Ascending).unwrap()
        }),
    ];
    for len in LENGTHS {
        let pairs = (
            input::<u32>(Pattern::Uniform, len),
            (0..len as u32).collect(),
        );
        for (algo, f) in algos {
            bench_batched(c, &format!("{algo}-u32-uniform-{len}"), &pairs, f);
        }
    }
}

fn benches(c: &mut Criterion) {
    bench_type::<u32>(c, Pattern::Uniform);
    bench_type::<u64>(c, Pattern::FullRange);
    bench_type::<f64>(c, Pattern::Uniform);
    bench_pairs(c);
}

criterion_group! {
    name = radix_benches;
    config = common::criterion(Duration::from_millis(500), Duration::from_secs(2));
    targets = benches
}
criterion_main!(radix_benches);
