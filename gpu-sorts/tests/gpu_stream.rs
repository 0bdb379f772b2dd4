//! GPU tests of the streamed sorts: keys and pairs (u32 and u64 index values) of every key
//! type in both orders, bit for bit against the CPU reference's stable sort, with budgets that
//! force one piece, 4 chunks, 16 and hundreds; input shapes (uniform, all equal, few
//! distinct, sorted, reverse, zipf, float specials); lengths around the one-piece limit and
//! the chunk size; errors that leave the input as it was; progress. Every test needs a CUDA
//! device.
//!
//! A budget holds three lanes of chunks, and an input that fits the budget whole (about three
//! chunks' worth) is sorted in one piece, so a streamed sort has at least 4 chunks: "2
//! chunks" does not occur in this design (`README.md` beside the module).

use std::sync::Mutex;

use sortlab_cpu_reference::check;
use sortlab_gpu_sorts::stream::{
    self, budget_for_chunk, chunk_keys, min_device_budget, whole_keys, StreamOptions, StreamPhase,
    StreamProgress, StreamReport, StreamSorter, MIN_CHUNK_KEYS,
};
use sortlab_primitives::{DeviceBuffer, Error, Gpu, Order, PinnedBuffer, SortKey, SortValue};
use sortlab_verify::testing::{gpu, stable_index_pairs};
use sortlab_verify::{generate, Pattern};

const SHAPES: [Pattern; 6] = [
    Pattern::Uniform,
    Pattern::AllEqual,
    Pattern::FewDistinct,
    Pattern::Ascending,
    Pattern::Descending,
    Pattern::Zipf,
];

/// The report's arithmetic for `n` elements of `elem` bytes.
fn check_report(r: &StreamReport, n: usize, elem: usize, what: &str) {
    let bytes = (n * elem) as u64;
    match r.crossings {
        0 => assert!(n < 2, "{what}: {r:?}"),
        2 => {
            assert_eq!((r.chunks, r.buckets, r.chunk_keys), (1, 0, n), "{what}");
            assert_eq!(
                (r.bytes_to_device, r.bytes_to_host),
                (bytes, bytes),
                "{what}"
            );
        }
        4 => {
            assert!(r.chunk_keys >= MIN_CHUNK_KEYS, "{what}: {r:?}");
            assert_eq!(r.chunks, n.div_ceil(r.chunk_keys), "{what}: {r:?}");
            assert_eq!(r.buckets, r.chunks, "{what}: {r:?}");
            assert_eq!(r.bytes_to_host, 2 * bytes, "{what}: {r:?}");
            // Padding keys of each pass's last chunk only.
            assert!(r.bytes_to_device >= 2 * bytes, "{what}: {r:?}");
            assert!(r.bytes_to_device - 2 * bytes < 2 * (r.chunk_keys * elem) as u64);
        }
        c => panic!("{what}: {c} crossings"),
    }
}

/// Sorts `input` with `opts` as keys, and as pairs with u32 and u64 index values, and checks
/// all three against the CPU reference's stable sort bit for bit; returns the keys' report.
fn check_all<K: SortKey>(gpu: &Gpu, input: &[K], opts: &StreamOptions, what: &str) -> StreamReport {
    let what = format!(
        "{} n={} {:?} budget {:?} {what}",
        K::NAME,
        input.len(),
        opts.order,
        opts.device_budget
    );
    let mut expected = input.to_vec();
    sortlab_cpu_reference::sort::sort(&mut expected, opts.order);
    let mut keys = input.to_vec();
    let report = stream::sort_keys(gpu, &mut keys, opts).unwrap_or_else(|e| panic!("{what}: {e}"));
    check::check_equal(&expected, &keys).unwrap_or_else(|e| panic!("keys {what}: {e}"));
    check_report(&report, input.len(), K::SIZE, &what);
    check_pairs::<K, u32>(gpu, input, opts, &what);
    check_pairs::<K, u64>(gpu, input, opts, &what);
    report
}

fn check_pairs<K: SortKey, V: SortValue + TryFrom<usize>>(
    gpu: &Gpu,
    input: &[K],
    opts: &StreamOptions,
    what: &str,
) where
    <V as TryFrom<usize>>::Error: std::fmt::Debug,
{
    let (values, ek, ev) = stable_index_pairs::<K, V>(input, opts.order);
    let (mut k, mut v) = (input.to_vec(), values);
    let report =
        stream::sort_pairs(gpu, &mut k, &mut v, opts).unwrap_or_else(|e| panic!("{what}: {e}"));
    check::check_pairs_equal(&ek, &ev, &k, &v).unwrap_or_else(|e| panic!("pairs {what}: {e}"));
    check_report(&report, input.len(), K::SIZE + V::SIZE, what);
}

/// A budget whose streamed chunks hold about `chunk` keys `K` with 8-byte values (keys alone
/// and with 4-byte values get larger chunks under it), so that every sort of [`check_all`] is
/// above its minimum.
fn budget<K: SortKey>(chunk: usize) -> Option<usize> {
    Some(budget_for_chunk::<K>(chunk, 8))
}

fn every_type(gpu: &Gpu, n: usize, shape: Pattern, seed: u64, opts: &StreamOptions) {
    check_all(
        gpu,
        &generate::<u32>(shape, n, seed),
        opts,
        &format!("{shape}"),
    );
    check_all(
        gpu,
        &generate::<i32>(shape, n, seed),
        opts,
        &format!("{shape}"),
    );
    check_all(
        gpu,
        &generate::<f32>(shape, n, seed),
        opts,
        &format!("{shape}"),
    );
    check_all(
        gpu,
        &generate::<u64>(shape, n, seed),
        opts,
        &format!("{shape}"),
    );
    check_all(
        gpu,
        &generate::<i64>(shape, n, seed),
        opts,
        &format!("{shape}"),
    );
    check_all(
        gpu,
        &generate::<f64>(shape, n, seed),
        opts,
        &format!("{shape}"),
    );
}

/// 10^6 keys of every type, both orders, with budgets of one piece and of 4, 16 and 200
/// chunks of u64/u64 pairs (keys alone and smaller pairs get fewer), shapes rotating.
#[test]
#[ignore = "needs a CUDA device"]
fn every_type_order_and_chunk_count() {
    let gpu = gpu();
    let n: usize = 1_000_000;
    for order in [Order::Ascending, Order::Descending] {
        for (i, chunks) in [1usize, 4, 16, 200].into_iter().enumerate() {
            let shape = SHAPES[i % SHAPES.len()];
            let opts = StreamOptions::default().with_order(order);
            let opts = match chunks {
                1 => opts.with_device_budget(Some(1 << 30)),
                c => opts.with_device_budget(budget::<u64>(n.div_ceil(c))),
            };
            every_type(&gpu, n, shape, i as u64, &opts);
        }
    }
}

/// Every shape, 16 chunks and many chunks, u32 and f64 (keys and pairs).
#[test]
#[ignore = "needs a CUDA device"]
fn every_shape() {
    let gpu = gpu();
    let n: usize = 300_007;
    for order in [Order::Ascending, Order::Descending] {
        for (s, shape) in SHAPES.into_iter().enumerate() {
            for chunk in [n.div_ceil(16), MIN_CHUNK_KEYS] {
                let b = budget::<u32>(chunk);
                let opts = StreamOptions::default()
                    .with_order(order)
                    .with_device_budget(b);
                let r = check_all(&gpu, &generate::<u32>(shape, n, s as u64), &opts, "");
                let c = chunk_keys::<u32>(b.unwrap(), 0);
                assert_eq!((r.crossings, r.chunk_keys), (4, c));
                let opts = opts.with_device_budget(budget::<f64>(chunk));
                let r = check_all(&gpu, &generate::<f64>(shape, n, s as u64), &opts, "");
                assert_eq!(r.crossings, 4);
            }
        }
    }
}

/// Floats with NaN of both signs, infinities, -0.0 and +0.0, duplicated: total order, stable.
#[test]
#[ignore = "needs a CUDA device"]
fn float_specials() {
    let gpu = gpu();
    let n: usize = 200_003;
    for order in [Order::Ascending, Order::Descending] {
        for chunk in [n.div_ceil(4), n.div_ceil(16)] {
            let opts = StreamOptions::default()
                .with_order(order)
                .with_device_budget(budget::<f64>(chunk));
            check_all(
                &gpu,
                &generate::<f32>(Pattern::FloatSpecials, n, 7),
                &opts,
                "",
            );
            check_all(
                &gpu,
                &generate::<f64>(Pattern::FloatSpecials, n, 8),
                &opts,
                "",
            );
        }
    }
}

/// Lengths 0, 1, 2, around the one-piece limit W (W sorts in one piece, W + 1 is streamed),
/// and around multiples of the chunk C (C k - 1, C k, C k + 1).
#[test]
#[ignore = "needs a CUDA device"]
fn lengths_around_the_limits() {
    let gpu = gpu();
    for order in [Order::Ascending, Order::Descending] {
        for vs in [0usize, 4, 8] {
            let b = budget_for_chunk::<u32>(20_000, vs);
            let (c, w) = (chunk_keys::<u32>(b, vs), whole_keys::<u32>(b, vs));
            assert!(c >= 20_000 && w > c, "{c} {w}");
            let opts = StreamOptions::default()
                .with_order(order)
                .with_device_budget(Some(b));
            let mut lens = vec![0, 1, 2, w - 1, w, w + 1];
            for k in [3, 5] {
                lens.extend([c * k - 1, c * k, c * k + 1]);
            }
            for (i, n) in lens.into_iter().enumerate() {
                let input = generate::<u32>(SHAPES[i % SHAPES.len()], n, i as u64);
                let what = format!("n={n} vs={vs} {order:?}");
                let mut expected = input.clone();
                let r = match vs {
                    0 => {
                        let mut k = input.clone();
                        let r = stream::sort_keys(&gpu, &mut k, &opts).unwrap();
                        sortlab_cpu_reference::sort::sort(&mut expected, order);
                        assert_eq!(k, expected, "{what}");
                        r
                    }
                    4 => sort_pairs_checked::<u32>(&gpu, &input, &opts, &what),
                    _ => sort_pairs_checked::<u64>(&gpu, &input, &opts, &what),
                };
                let want = if n < 2 {
                    0
                } else if n <= w {
                    2
                } else {
                    4
                };
                assert_eq!(r.crossings, want, "{what}: {r:?}");
                if want == 4 {
                    assert_eq!(r.chunk_keys, c, "{what}");
                }
                check_report(&r, n, 4 + vs, &what);
            }
        }
    }
}

fn sort_pairs_checked<V: SortValue + TryFrom<usize>>(
    gpu: &Gpu,
    input: &[u32],
    opts: &StreamOptions,
    what: &str,
) -> StreamReport
where
    <V as TryFrom<usize>>::Error: std::fmt::Debug,
{
    let (values, ek, ev) = stable_index_pairs::<_, V>(input, opts.order);
    let (mut k, mut v) = (input.to_vec(), values);
    let r = stream::sort_pairs(gpu, &mut k, &mut v, opts).unwrap_or_else(|e| panic!("{what}: {e}"));
    check::check_pairs_equal(&ek, &ev, &k, &v).unwrap_or_else(|e| panic!("{what}: {e}"));
    r
}

/// A budget below the minimum and mismatched lengths: `InvalidArgument`, the input as it was;
/// the minimum itself works.
#[test]
#[ignore = "needs a CUDA device"]
fn errors_leave_the_input() {
    let gpu = gpu();
    let input = generate::<i64>(Pattern::Uniform, 100_000, 3);
    let values: Vec<u32> = (0..input.len() as u32).collect();
    for vs in [0usize, 4] {
        let min = min_device_budget::<i64>(vs);
        let opts = StreamOptions::default().with_device_budget(Some(min - 1));
        let (mut k, mut v) = (input.clone(), values.clone());
        let e = if vs == 0 {
            stream::sort_keys(&gpu, &mut k, &opts)
        } else {
            stream::sort_pairs(&gpu, &mut k, &mut v, &opts)
        };
        match e {
            Err(Error::InvalidArgument(m)) => assert!(m.contains(&min.to_string()), "{m}"),
            other => panic!("expected InvalidArgument, got {other:?}"),
        }
        assert_eq!((&k, &v), (&input, &values));
        // Even an empty input is refused below the minimum.
        let below = min_device_budget::<i64>(0) - 1;
        let e = stream::sort_keys(
            &gpu,
            &mut Vec::<i64>::new(),
            &opts.with_device_budget(Some(below)),
        );
        assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
        // The minimum: many chunks of MIN_CHUNK_KEYS.
        let opts = opts.with_device_budget(Some(min));
        let r = if vs == 0 {
            stream::sort_keys(&gpu, &mut k, &opts).unwrap()
        } else {
            stream::sort_pairs(&gpu, &mut k, &mut v, &opts).unwrap()
        };
        assert_eq!((r.crossings, r.chunk_keys), (4, MIN_CHUNK_KEYS));
        check::check_sorted(&k, Order::Ascending).unwrap();
    }
    // Mismatched lengths.
    let (mut k, mut v) = (input.clone(), values[1..].to_vec());
    let e = stream::sort_pairs(&gpu, &mut k, &mut v, &StreamOptions::default());
    assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
    assert_eq!((k, v), (input.clone(), values[1..].to_vec()));
}

/// Progress: phases Runs then Merge, bytes that never decrease and end at the total, the
/// total equal to the report's bytes.
#[test]
#[ignore = "needs a CUDA device"]
fn progress_is_monotone_to_the_total() {
    let gpu = gpu();
    let n: usize = 500_001;
    let input = generate::<u32>(Pattern::Uniform, n, 9);
    let values: Vec<u64> = (0..n as u64).collect();
    for chunks in [1usize, 4, 16] {
        let b = if chunks == 1 {
            1 << 30
        } else {
            budget_for_chunk::<u32>(n.div_ceil(chunks), 8)
        };
        let opts = StreamOptions::default().with_device_budget(Some(b));
        let seen = Mutex::new(Vec::<StreamProgress>::new());
        let (mut k, mut v) = (input.clone(), values.clone());
        let r = stream::sort_pairs_with_progress(&gpu, &mut k, &mut v, &opts, &|p| {
            seen.lock().unwrap().push(p)
        })
        .unwrap();
        let seen = seen.into_inner().unwrap();
        let total = r.bytes_to_device + r.bytes_to_host;
        assert!(seen.len() >= 2, "{seen:?}");
        assert!(seen.iter().all(|p| p.total_bytes == total));
        assert!(seen.windows(2).all(|w| w[0].done_bytes <= w[1].done_bytes));
        let phases: Vec<StreamPhase> = seen.iter().map(|p| p.phase).collect();
        let first_merge = phases.iter().position(|&p| p == StreamPhase::Merge);
        if let Some(m) = first_merge {
            assert!(phases[m..].iter().all(|&p| p == StreamPhase::Merge));
        }
        assert_eq!(first_merge.is_some(), r.crossings == 4, "{r:?}");
        assert_eq!(seen.last().unwrap().done_bytes, total);
        if chunks > 1 {
            assert_eq!(r.chunks, n.div_ceil(chunk_keys::<u32>(b, 8)), "{r:?}");
            assert!(r.chunks.abs_diff(chunks) <= 1, "{r:?}");
        }
        check::check_sorted(&k, Order::Ascending).unwrap();
    }
}

/// No budget: the device's free memory less a margin; 2^24 u64 pairs fit and sort in one
/// piece, with the caller's `Gpu` usable afterwards.
#[test]
#[ignore = "needs a CUDA device"]
fn default_budget() {
    let gpu = gpu();
    let n = 1 << 24;
    let input = generate::<u64>(Pattern::Uniform, n, 4);
    let r = check_all(
        &gpu,
        &input[..1 << 20],
        &StreamOptions::default(),
        "default budget",
    );
    assert_eq!(r.crossings, 2);
    let mut k = input.clone();
    let mut v: Vec<u64> = (0..n as u64).collect();
    let r = stream::sort_pairs(&gpu, &mut k, &mut v, &StreamOptions::default()).unwrap();
    assert_eq!(r.crossings, 2);
    check::check_sorted(&k, Order::Ascending).unwrap();
    gpu.synchronize().unwrap();
}

/// Pinned host-to-device and device-to-host copy rates (bytes per second): 256 MiB each way,
/// three times after a warm-up.
fn pinned_rates(gpu: &Gpu) -> (f64, f64) {
    let n = 64 << 20;
    let bytes = (3 * 4 * n) as f64;
    let mut p = PinnedBuffer::<u32>::alloc(gpu, n).unwrap();
    let mut d = DeviceBuffer::<u32>::alloc(gpu, n).unwrap();
    d.copy_from_pinned_async(0, &p, ..).unwrap();
    d.copy_to_pinned_async(.., &mut p, 0).unwrap();
    p.wait().unwrap();
    let t = std::time::Instant::now();
    for _ in 0..3 {
        d.copy_from_pinned_async(0, &p, ..).unwrap();
    }
    p.wait().unwrap();
    let h2d = bytes / t.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    for _ in 0..3 {
        d.copy_to_pinned_async(.., &mut p, 0).unwrap();
    }
    p.wait().unwrap();
    (h2d, bytes / t.elapsed().as_secs_f64())
}

/// 2^26 u32/u32 pairs at 4x and 16x the budget: sorted, stable (index values), and the wall
/// time printed next to the link bounds of README.md (not asserted: benchmarks time, tests
/// check).
#[test]
#[ignore = "needs a CUDA device"]
fn larger_inputs_at_4x_and_16x_the_budget() {
    let gpu = gpu();
    let n = 1 << 26;
    let input = generate::<u32>(Pattern::Uniform, n, 12);
    let values: Vec<u32> = (0..n as u32).collect();
    let data = n * 8;
    let (h2d, d2h) = pinned_rates(&gpu);
    eprintln!(
        "pinned copies: {:.1} GB/s up, {:.1} GB/s down",
        h2d / 1e9,
        d2h / 1e9
    );
    for times in [4usize, 16] {
        let opts = StreamOptions::default().with_device_budget(Some(data / times));
        let (mut k, mut v) = (input.clone(), values.clone());
        let t = std::time::Instant::now();
        let r = stream::sort_pairs(&gpu, &mut k, &mut v, &opts).unwrap();
        let secs = t.elapsed().as_secs_f64();
        let bound = 2.0 * data as f64 / h2d.min(d2h);
        let sum = 2.0 * data as f64 * (1.0 / h2d + 1.0 / d2h);
        eprintln!(
            "{times}x: {r:?}, {secs:.3} s, {:.2} GB/s of pairs; {:.0}% of the overlapped bound \
             ({bound:.3} s), {:.0}% of the summed one ({sum:.3} s)",
            data as f64 / secs / 1e9,
            100.0 * bound / secs,
            100.0 * sum / secs
        );
        assert_eq!(r.crossings, 4);
        check::check_sorted(&k, Order::Ascending).unwrap();
        // Stable: equal keys carry increasing indices, and every value's key is its input key.
        for (i, w) in k.windows(2).enumerate() {
            if w[0] == w[1] {
                assert!(v[i] < v[i + 1], "unstable at {i}");
            }
        }
        assert!(k.iter().zip(&v).all(|(&key, &i)| input[i as usize] == key));
    }
}

/// A sorter reused across lengths (one job, two passes, longer, shorter again), both orders,
/// keys and stable pairs against the reference; the wrong kind of call is refused untouched.
#[test]
#[ignore = "needs a CUDA device"]
fn a_sorter_is_reused_across_calls() {
    let gpu = gpu();
    for order in [Order::Ascending, Order::Descending] {
        let opts = StreamOptions::default()
            .with_order(order)
            .with_device_budget(budget_for_chunk::<f32>(20_000, 4).into());
        let mut keys_sorter = StreamSorter::<f32>::for_keys(&gpu, &opts).unwrap();
        let mut pairs_sorter = StreamSorter::<f32, u32>::for_pairs(&gpu, &opts).unwrap();
        let mut pageable =
            StreamSorter::<f32>::for_keys(&gpu, &opts.with_pageable_runs(true)).unwrap();
        let chunk = pairs_sorter.chunk_keys();
        for (i, n) in [1000, chunk, 5 * chunk + 17, 2 * chunk + 1, 300, 0, 1]
            .into_iter()
            .enumerate()
        {
            let what = format!("{order:?} call {i}: n={n} chunk {chunk}");
            let input: Vec<f32> = generate(Pattern::FewDistinct, n, 40 + i as u64);
            let mut expected = input.clone();
            sortlab_cpu_reference::sort::sort(&mut expected, order);
            let mut keys = input.clone();
            let r = keys_sorter.sort_keys(&mut keys).unwrap();
            check::check_equal(&expected, &keys).unwrap_or_else(|e| panic!("{what}: {e}"));
            if n >= 2 {
                assert_eq!(
                    r.crossings,
                    if n <= keys_sorter.chunk_keys() { 2 } else { 4 }
                );
                // The runs between the passes lie in the sorter's page-locked buffers.
                assert_eq!(r.pinned_runs, n > keys_sorter.chunk_keys(), "{what}");
                // Unless the sorter was asked for pageable runs: the same result through its
                // ordinary temporary, from ordinary and from page-locked keys.
                let mut keys = input.clone();
                let r = pageable.sort_keys(&mut keys).unwrap();
                check::check_equal(&expected, &keys).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(!r.pinned_runs, "{what} pageable");
                let mut pinned = PinnedBuffer::<f32>::alloc(&gpu, n).unwrap();
                pinned.as_mut_slice().unwrap().copy_from_slice(&input);
                let r = pageable.sort_keys_pinned(&mut pinned).unwrap();
                check::check_equal(&expected, pinned.as_slice().unwrap())
                    .unwrap_or_else(|e| panic!("{what} pinned: {e}"));
                assert!(!r.pinned_runs, "{what} pageable, pinned keys");
            }
            let (values, ek, ev) = stable_index_pairs::<f32, u32>(&input, order);
            let (mut k, mut v) = (input.clone(), values);
            pairs_sorter.sort_pairs(&mut k, &mut v).unwrap();
            check::check_pairs_equal(&ek, &ev, &k, &v).unwrap_or_else(|e| panic!("{what}: {e}"));
        }
        let mut keys = vec![3.0f32, 1.0, 2.0];
        let e = pairs_sorter.sort_keys(&mut keys).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
        let e = keys_sorter
            .sort_pairs(&mut keys, &mut [0u32, 1, 2])
            .unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
        let e = pairs_sorter
            .sort_pairs(&mut keys, &mut [0u32; 2])
            .unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
        assert_eq!(keys, [3.0, 1.0, 2.0]);
    }
}

/// A sorter's page-locked runs: many runs (so a bucket gathers many slices, some empty), every
/// shape, u64 keys with u32 values and u32 keys alone, both orders; a shorter call after a
/// longer one reuses the runs. The same pairs in page-locked buffers (the first pass reads them
/// and the second writes the buckets into place by DMA), streamed and in one job; u32 keys
/// page-locked first, then from ordinary memory; the wrong kind of sorter and unequal lengths
/// are errors that leave the buffers as they were.
#[test]
#[ignore = "needs a CUDA device"]
fn a_sorter_gathers_buckets_from_pinned_runs() {
    let gpu = gpu();
    for order in [Order::Ascending, Order::Descending] {
        let opts = StreamOptions::default()
            .with_order(order)
            .with_device_budget(budget_for_chunk::<u64>(MIN_CHUNK_KEYS, 4).into());
        let mut pairs = StreamSorter::<u64, u32>::for_pairs(&gpu, &opts).unwrap();
        let mut keys_only = StreamSorter::<u32>::for_keys(&gpu, &opts).unwrap();
        let chunk = pairs.chunk_keys();
        for (i, shape) in SHAPES.into_iter().enumerate() {
            for n in [37 * chunk + 5, 9 * chunk, chunk - 1] {
                let what = format!("{order:?} {shape:?} n={n} chunk {chunk}");
                let input: Vec<u64> = generate(shape, n, 70 + i as u64);
                let (values, ek, ev) = stable_index_pairs::<u64, u32>(&input, order);
                let (mut k, mut v) = (input.clone(), values.clone());
                let seen = Mutex::new(Vec::<StreamProgress>::new());
                let record = |p: StreamProgress| seen.lock().unwrap().push(p);
                let r = pairs
                    .sort_pairs_with_progress(&mut k, &mut v, &record)
                    .unwrap();
                check::check_pairs_equal(&ek, &ev, &k, &v)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(
                    r.pinned_runs == (n > chunk) && r.chunks == n.div_ceil(chunk),
                    "{what}: {r:?}"
                );
                let seen = seen.into_inner().unwrap();
                let total = r.bytes_to_device + r.bytes_to_host;
                assert!(seen.windows(2).all(|w| w[0].done_bytes <= w[1].done_bytes));
                assert_eq!(seen.last().map(|p| p.done_bytes), Some(total), "{what}");

                let mut pk = PinnedBuffer::<u64>::alloc(&gpu, n).unwrap();
                let mut pv = PinnedBuffer::<u32>::alloc(&gpu, n).unwrap();
                pk.as_mut_slice().unwrap().copy_from_slice(&input);
                pv.as_mut_slice().unwrap().copy_from_slice(&values);
                let r = pairs.sort_pairs_pinned(&mut pk, &mut pv).unwrap();
                let (pk_host, pv_host) = (pk.as_slice().unwrap(), pv.as_slice().unwrap());
                check::check_pairs_equal(&ek, &ev, pk_host, pv_host)
                    .unwrap_or_else(|e| panic!("{what} pinned: {e}"));
                assert_eq!(r.pinned_runs, n > chunk, "{what} pinned");

                // Page-locked keys first (the sorter's first call: no lane outputs yet), then
                // the same keys reversed from ordinary memory.
                let input32: Vec<u32> = generate(shape, n, 90 + i as u64);
                let mut expected = input32.clone();
                sortlab_cpu_reference::sort::sort(&mut expected, order);
                let mut p32 = PinnedBuffer::<u32>::alloc(&gpu, n).unwrap();
                p32.as_mut_slice().unwrap().copy_from_slice(&input32);
                let r = keys_only.sort_keys_pinned(&mut p32).unwrap();
                check::check_equal(&expected, p32.as_slice().unwrap())
                    .unwrap_or_else(|e| panic!("{what} u32 pinned: {e}"));
                assert_eq!(
                    r.pinned_runs,
                    n > keys_only.chunk_keys(),
                    "{what} u32 pinned"
                );
                let mut k32 = p32.as_slice().unwrap().to_vec();
                k32.reverse();
                let r = keys_only.sort_keys(&mut k32).unwrap();
                check::check_equal(&expected, &k32).unwrap_or_else(|e| panic!("{what} u32: {e}"));
                assert_eq!(r.pinned_runs, n > keys_only.chunk_keys(), "{what} u32");
            }
        }
        let mut pk = PinnedBuffer::<u64>::alloc(&gpu, 3).unwrap();
        pk.as_mut_slice().unwrap().copy_from_slice(&[3, 1, 2]);
        let mut pv = PinnedBuffer::<u32>::alloc(&gpu, 2).unwrap();
        let e = pairs.sort_keys_pinned(&mut pk).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
        let e = pairs.sort_pairs_pinned(&mut pk, &mut pv).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
        let mut p32 = PinnedBuffer::<u32>::alloc(&gpu, 2).unwrap();
        let e = keys_only.sort_pairs_pinned(&mut p32, &mut pv).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
        assert_eq!(pk.as_slice().unwrap(), &[3, 1, 2]);
    }
}
