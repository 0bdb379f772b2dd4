//! GPU tests of arrays streamed from host memory: budgets that sort in one piece, in many
//! jobs of whole arrays, and with arrays longer than a chunk (sorted apart by gpu-sorts'
//! streamed sort); keys and stable pairs bit for bit against the CPU twin; bad input and too
//! small a budget rejected with the data untouched. Every test needs a CUDA device.

use sortlab_arraysort::stream::{
    min_stream_budget, sort_keys_streamed, sort_pairs_streamed, StreamArraysOptions,
};
use sortlab_cpu_reference::arrays::sort_arrays_pairs;
use sortlab_gpu_sorts::stream::min_device_budget;
use sortlab_primitives::{Error, Order, SortKey};
use sortlab_verify::testing::{gpu, index_values, offsets_of_lengths, ordered_bits};
use sortlab_verify::{generate, seed_for, Pattern};

/// Streams `input` (arrays by `lens`) as keys and as pairs with index values under `budget`,
/// against the twin; returns the pairs' report.
fn check<K: SortKey>(
    input: &[K],
    lens: &[usize],
    budget: usize,
    order: Order,
    what: &str,
) -> sortlab_arraysort::stream::StreamArraysReport {
    let gpu = gpu();
    let offsets = offsets_of_lengths(lens);
    let what = format!(
        "{what}: {} {order:?} budget {budget}, {} keys",
        K::NAME,
        input.len()
    );
    let opts = StreamArraysOptions::default()
        .with_order(order)
        .with_device_budget(Some(budget));
    let index: Vec<u32> = index_values(input.len());
    let (mut wk, mut wv) = (input.to_vec(), index.clone());
    sort_arrays_pairs(&mut wk, &mut wv, &offsets, order, true).unwrap();
    let mut keys = input.to_vec();
    let r = sort_keys_streamed(&gpu, &mut keys, &offsets, &opts)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(r.arrays, lens.len(), "{what}");
    assert!(
        ordered_bits(&keys) == ordered_bits(&wk),
        "{what}: keys differ from the twin"
    );
    let (mut keys, mut values) = (input.to_vec(), index);
    let r = sort_pairs_streamed(&gpu, &mut keys, &mut values, &offsets, &opts)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        ordered_bits(&keys) == ordered_bits(&wk),
        "{what}: pair keys differ from the twin"
    );
    if let Some(i) = (0..values.len()).find(|&i| values[i] != wv[i]) {
        panic!("{what}: values differ from the stable twin first at {i}");
    }
    r
}

/// Mixed lengths: many short arrays, some empty, a few past the chunk.
fn lengths(count: usize, long: usize) -> Vec<usize> {
    (0..count)
        .map(|i| match i % 97 {
            0 => 0,
            1 => 1,
            50 => long,
            _ => [5, 20, 33, 300, 1000, 4097][i % 6],
        })
        .collect()
}

fn budgets<K: SortKey>() {
    let name = format!("stream::{}", K::NAME);
    let lens = lengths(3000, 300_000);
    let n: usize = lens.iter().sum();
    let input: Vec<K> = generate(Pattern::Uniform, n, seed_for(&name));
    for order in [Order::Ascending, Order::Descending] {
        // Room for everything: one piece.
        let r = check(&input, &lens, 1 << 30, order, "whole");
        assert_eq!((r.jobs, r.long_arrays), (0, 0));
        // Small budgets: jobs of whole arrays, the longest arrays apart.
        let small = min_stream_budget::<K>(4)
            .max(min_device_budget::<K>(4))
            .max(4 << 20);
        let r = check(&input, &lens, small, order, "small");
        assert!(r.jobs > 3 && r.long_arrays > 0, "{r:?}");
        // Every key comes back at least once (long arrays streamed twice).
        assert!(r.bytes_to_host >= (n * (K::SIZE + 4)) as u64, "{r:?}");
        let r = check(&input, &lens, 4 * small, order, "larger");
        assert!(r.jobs > 1, "{r:?}");
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn budgets_u32() {
    budgets::<u32>();
}
#[test]
#[ignore = "needs a CUDA device"]
fn budgets_f64() {
    budgets::<f64>();
}

/// Every pattern inside the arrays, and all-equal arrays, under a small budget.
#[test]
#[ignore = "needs a CUDA device"]
fn patterns_under_a_small_budget() {
    let lens = lengths(2000, 50_000);
    let n: usize = lens.iter().sum();
    let budget = min_stream_budget::<f32>(4).max(min_device_budget::<f32>(4));
    for pattern in Pattern::ALL {
        let input: Vec<f32> = generate(pattern, n, 7);
        check(&input, &lens, budget, Order::Ascending, pattern.name());
    }
}

/// Bad offsets, values of another length and too small a budget: clear errors, the data as it
/// was.
#[test]
#[ignore = "needs a CUDA device"]
fn bad_input_is_rejected_untouched() {
    let gpu = gpu();
    let input = vec![3u32, 1, 2, 9, 8, 7];
    let opts = StreamArraysOptions::default();
    let mut keys = input.clone();
    for bad in [vec![0u64, 4, 2, 6], vec![0, 3], vec![1, 6], vec![]] {
        let e = sort_keys_streamed(&gpu, &mut keys, &bad, &opts).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{bad:?}: {e}");
    }
    let mut values = vec![0u32; 5];
    let e = sort_pairs_streamed(&gpu, &mut keys, &mut values, &[0, 6], &opts).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    let tiny = opts.with_device_budget(Some(min_stream_budget::<u32>(0) - 1));
    let e = sort_keys_streamed(&gpu, &mut keys, &[0, 3, 6], &tiny).unwrap_err();
    assert!(e.to_string().contains("minimum"), "{e}");
    assert_eq!(keys, input);
    sort_keys_streamed(&gpu, &mut keys, &[0, 3, 6], &opts).unwrap();
    assert_eq!(keys, vec![1, 2, 3, 7, 8, 9]);
}
