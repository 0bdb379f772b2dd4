//! GPU tests that sortlab's device-scheduled sorts issue no host round trip inside a call: each
//! is captured once into a CUDA graph (`Gpu::capture`) with its buffers and scratch allocated
//! beforehand, then replayed on new input written into the same device buffers, and the result
//! checked against the CPU reference every round. A sort that reads back from the device
//! (`gpu_sorts::sample`) must fail to capture with a clear error, never hang. Every test needs a
//! CUDA device.

use rand::seq::SliceRandom;
use rand::Rng;
use sortlab_arraysort::{
    scratch_bytes, scratch_bytes_pairs, sort_keys_with_scratch, sort_pairs_with_scratch,
    ArrayOptions, ArrayVariant, Segments,
};
use sortlab_cpu_reference::arrays::{sort_arrays, sort_arrays_pairs};
use sortlab_gpu_sorts::{merge, radix, sample};
use sortlab_primitives::{DeviceBuffer, Error, Gpu, Graph, Order, SortKey};
use sortlab_verify::testing::{gpu, ordered_bits};
use sortlab_verify::{generate, rng_for, seed_for, Pattern};

/// Rounds of new input replayed through one captured graph.
const ROUNDS: u64 = 3;

/// Offsets of arrays with lengths drawn from 0 to a few tiles past the largest single-pass
/// length, so every size class of the fast sort (the warp networks, the block tiles and the
/// large class through scratch) is in the one call.
fn mixed_offsets(name: &str, arrays: usize) -> Vec<u32> {
    let mut rng = rng_for(name);
    let mut offsets = vec![0u32];
    for a in 0..arrays {
        let len = match a % 4 {
            0 => rng.gen_range(0..=33),
            1 => rng.gen_range(34..=1100),
            2 => rng.gen_range(1100..=4200),
            _ => rng.gen_range(4097..=12_000),
        };
        let last = *offsets.last().unwrap_or(&0);
        offsets.push(last + len);
    }
    offsets
}

/// Writes `round`'s input into `keys` (outside the graph), launches `graph`, and returns the
/// input and the device's result.
fn replay<K: SortKey>(
    graph: &Graph,
    keys: &mut DeviceBuffer<K>,
    pattern: Pattern,
    seed: u64,
) -> (Vec<K>, Vec<K>) {
    let input: Vec<K> = generate(pattern, keys.len(), seed);
    keys.copy_from_host(&input).unwrap();
    // SAFETY: every buffer the captured sort uses (keys, values, offsets, scratch) is alive for
    // the whole test.
    unsafe { graph.launch().unwrap() };
    let got = keys.to_host().unwrap();
    (input, got)
}

/// Keys of arrays given by u32 offsets, both orders. Every round also shuffles the arrays'
/// lengths (same key count, same array count), so the replayed graph meets a different class
/// of array at every position: the classes are found on the device, not fixed at capture.
#[test]
#[ignore = "needs a CUDA device"]
fn graph_arraysort_fast_keys_replays() {
    let name = "gpu_graph::arraysort_fast_keys";
    let gpu = gpu();
    let offsets = mixed_offsets(name, 600);
    let n = *offsets.last().unwrap_or(&0) as usize;
    let mut lengths: Vec<u32> = offsets.windows(2).map(|w| w[1] - w[0]).collect();
    let mut rng = rng_for(name);
    let mut d_off = DeviceBuffer::from_host(&gpu, &offsets).unwrap();
    for order in [Order::Ascending, Order::Descending] {
        let opts = ArrayOptions::default()
            .with_variant(ArrayVariant::Fast)
            .with_order(order);
        let segs = Segments::Offsets32(&d_off);
        let mut keys = DeviceBuffer::<f32>::zeroed(&gpu, n).unwrap();
        let mut scratch =
            DeviceBuffer::<u8>::alloc(&gpu, scratch_bytes::<f32>(n, &segs, &opts)).unwrap();
        // Warm-up: modules compiled and loaded outside the capture.
        sort_keys_with_scratch(&gpu, &mut keys, segs, &opts, &mut scratch).unwrap();
        let graph = gpu
            .capture(|g| sort_keys_with_scratch(g, &mut keys, segs, &opts, &mut scratch).map(drop))
            .unwrap();
        assert!(graph.nodes() >= 1, "{graph:?}");
        for round in 0..ROUNDS {
            lengths.shuffle(&mut rng);
            let mut offsets = vec![0u32];
            for &len in &lengths {
                offsets.push(offsets[offsets.len() - 1] + len);
            }
            d_off.copy_from_host(&offsets).unwrap();
            let seed = seed_for(name) ^ round;
            let (mut want, got) = replay(&graph, &mut keys, Pattern::FullRange, seed);
            sort_arrays(&mut want, &offsets, order).unwrap();
            assert!(
                ordered_bits(&got) == ordered_bits(&want),
                "{name} {order:?} round {round}: differs from the CPU twin (seed {seed})"
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn graph_arraysort_fast_pairs_replays() {
    let name = "gpu_graph::arraysort_fast_pairs";
    let gpu = gpu();
    let offsets = mixed_offsets(name, 600);
    let n = *offsets.last().unwrap_or(&0) as usize;
    let offsets64: Vec<u64> = offsets.iter().map(|&o| o as u64).collect();
    let d_off = DeviceBuffer::from_host(&gpu, &offsets64).unwrap();
    let opts = ArrayOptions::default();
    let segs = Segments::Offsets64(&d_off);
    let index: Vec<u32> = (0..n as u32).collect();
    let mut keys = DeviceBuffer::<u32>::zeroed(&gpu, n).unwrap();
    let mut values = DeviceBuffer::from_host(&gpu, &index).unwrap();
    let mut scratch =
        DeviceBuffer::<u8>::alloc(&gpu, scratch_bytes_pairs::<u32, u32>(n, &segs, &opts)).unwrap();
    sort_pairs_with_scratch(&gpu, &mut keys, &mut values, segs, &opts, &mut scratch).unwrap();
    let graph = gpu
        .capture(|g| {
            sort_pairs_with_scratch(g, &mut keys, &mut values, segs, &opts, &mut scratch).map(drop)
        })
        .unwrap();
    for round in 0..ROUNDS {
        let seed = seed_for(name) ^ round;
        // Few distinct keys: stability is visible in the values.
        values.copy_from_host(&index).unwrap();
        let (input, got) = replay(&graph, &mut keys, Pattern::FewDistinct, seed);
        let (mut wk, mut wv) = (input, index.clone());
        sort_arrays_pairs(&mut wk, &mut wv, &offsets64, opts.order, true).unwrap();
        assert!(got == wk, "{name} round {round}: keys differ (seed {seed})");
        assert!(
            values.to_host().unwrap() == wv,
            "{name} round {round}: values differ from the stable twin (seed {seed})"
        );
    }
}

/// A device-wide sort of one buffer: warm up, capture, replay `ROUNDS` times against the CPU
/// reference sort.
fn device_wide<K: SortKey>(
    gpu: &Gpu,
    name: &str,
    n: usize,
    scratch_bytes: usize,
    sort: impl Fn(&Gpu, &mut DeviceBuffer<K>, &mut DeviceBuffer<u8>) -> sortlab_primitives::Result<()>,
) {
    let mut keys = DeviceBuffer::<K>::zeroed(gpu, n).unwrap();
    let mut scratch = DeviceBuffer::<u8>::alloc(gpu, scratch_bytes).unwrap();
    sort(gpu, &mut keys, &mut scratch).unwrap();
    let graph = gpu
        .capture(|g| sort(g, &mut keys, &mut scratch))
        .unwrap_or_else(|e| panic!("{name}: capture failed: {e}"));
    assert!(graph.nodes() >= 1, "{graph:?}");
    for round in 0..ROUNDS {
        let seed = seed_for(name) ^ round;
        let (mut want, got) = replay(&graph, &mut keys, Pattern::FullRange, seed);
        sortlab_cpu_reference::sort::sort(&mut want, Order::Ascending);
        assert!(
            ordered_bits(&got) == ordered_bits(&want),
            "{name} round {round}: differs from the CPU reference sort (seed {seed})"
        );
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn graph_radix_fast_replays() {
    let gpu = gpu();
    let opts = radix::RadixOptions::default().with_variant(radix::RadixVariant::Fast);
    for n in [(1usize << 20) + 3, 5000] {
        device_wide::<u32>(
            &gpu,
            "gpu_graph::radix_fast_u32",
            n,
            radix::scratch_bytes::<u32>(n, &opts),
            |g, k, s| radix::sort_keys_with_scratch(g, k, &opts, s),
        );
    }
    let n = (1usize << 19) + 7;
    device_wide::<f64>(
        &gpu,
        "gpu_graph::radix_fast_f64",
        n,
        radix::scratch_bytes::<f64>(n, &opts),
        |g, k, s| radix::sort_keys_with_scratch(g, k, &opts, s),
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn graph_merge_fast_replays() {
    let gpu = gpu();
    let opts = merge::MergeOptions::default().with_variant(merge::MergeVariant::Fast);
    for n in [(1usize << 20) + 5, 3000] {
        device_wide::<f32>(
            &gpu,
            "gpu_graph::merge_fast_f32",
            n,
            merge::scratch_bytes::<f32>(n, &opts),
            |g, k, s| merge::sort_keys_with_scratch(g, k, &opts, s),
        );
    }
}

/// The sample sort reads its control words (32 bytes) back to the host at every level, so it
/// cannot be captured: the capture returns the download's driver error
/// (`CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED` or `..._INVALIDATED`, from the captured copy or
/// the synchronisation after it), the keys are untouched (nothing ran), and the same `Gpu`
/// then sorts normally.
#[test]
#[ignore = "needs a CUDA device"]
fn graph_sample_with_host_round_trip_fails_to_capture() {
    let name = "gpu_graph::sample_round_trip";
    let gpu = gpu();
    let opts = sample::SampleOptions::default();
    let n = 1usize << 20;
    let input: Vec<u32> = generate(Pattern::FullRange, n, seed_for(name));
    let mut keys = DeviceBuffer::from_host(&gpu, &input).unwrap();
    let mut scratch =
        DeviceBuffer::<u8>::alloc(&gpu, sample::scratch_bytes::<u32>(n, &opts)).unwrap();
    // Warm-up, so that the capture fails on the round trip, not on anything else.
    sample::sort_keys_with_scratch(&gpu, &mut keys, &opts, &mut scratch).unwrap();
    keys.copy_from_host(&input).unwrap();
    let err = gpu
        .capture(|g| sample::sort_keys_with_scratch(g, &mut keys, &opts, &mut scratch))
        .unwrap_err();
    match &err {
        Error::Driver { message, .. } if message.contains("STREAM_CAPTURE") => {}
        other => panic!("expected a stream-capture driver error, got {other:?}"),
    }
    assert!(keys.to_host().unwrap() == input, "nothing ran at capture");
    sample::sort_keys_with_scratch(&gpu, &mut keys, &opts, &mut scratch).unwrap();
    let mut want = input;
    sortlab_cpu_reference::sort::sort(&mut want, Order::Ascending);
    assert!(
        keys.to_host().unwrap() == want,
        "{name}: sort after the failed capture"
    );
}
