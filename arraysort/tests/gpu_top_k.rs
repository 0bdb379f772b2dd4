//! GPU tests of the per-array top-k: both paths, every key type, both orders, keys and pairs
//! (index values: the stable order checked exactly) against the CPU twin
//! `sortlab_cpu_reference::top_k`; lengths around the select tile, mixed lengths with u32 and
//! u64 offsets and fixed lengths; all-equal arrays (every radix pass, then the cut by position),
//! NaN / -0.0, the patterns of `sortlab-verify`, rows of logits; slots past short arrays left
//! untouched; bad input rejected with the output untouched. Every test needs a CUDA device.

use rand::seq::SliceRandom;
use sortlab_arraysort::{
    top_k_keys, top_k_keys_host, top_k_pairs, top_k_pairs_host, top_k_pairs_with_scratch,
    top_k_scratch_bytes_pairs, ArrayPolicy, Segments, TopKOptions, TopKPath,
};
use sortlab_cpu_reference::top_k::{top_k, top_k_pairs as cpu_top_k_pairs};
use sortlab_primitives::{DeviceBuffer, Error, Gpu, KeyBits, Order, SortKey};
use sortlab_verify::testing::{gpu, index_values, offsets_of_lengths, ordered_bits};
use sortlab_verify::{generate, rng_for, seed_for, specials, Pattern};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// The options of `k` in `order` on `path` (`None`: the automatic one).
fn opts(k: usize, order: Order, path: Option<TopKPath>) -> TopKOptions {
    TopKOptions { k, order, path }
}

/// How the arrays reach the device.
#[derive(Clone, Copy, Debug)]
enum Layout {
    Off32,
    Off64,
    Fixed(usize),
}

/// The top-k of `input` (arrays by `offsets`) on the device, keys alone and with index
/// values, on `path` (or the automatic one), checked slot by slot against the CPU twin; slots
/// past a short array must keep the sentinel they held.
fn check<K: SortKey>(
    gpu: &Gpu,
    input: &[K],
    offsets: &[u64],
    layout: Layout,
    opts: TopKOptions,
    what: &str,
) {
    let (k, order, path) = (opts.k, opts.order, opts.path);
    let arrays = offsets.len() - 1;
    let what = format!(
        "{what}: {} {order:?} k={k} {path:?} {layout:?}, {} keys in {arrays} arrays",
        K::NAME,
        input.len()
    );
    let o32: Vec<u32> = offsets.iter().map(|&o| o as u32).collect();
    let d32 = DeviceBuffer::from_host(gpu, &o32).unwrap();
    let d64 = DeviceBuffer::from_host(gpu, offsets).unwrap();
    let segs = match layout {
        Layout::Off32 => Segments::Offsets32(&d32),
        Layout::Off64 => Segments::Offsets64(&d64),
        Layout::Fixed(len) => Segments::Fixed { len },
    };
    let index: Vec<u32> = index_values(input.len());
    let want = cpu_top_k_pairs(input, &index, offsets, k, order).unwrap();
    let slots = arrays * k;
    let sentinel = u32::MAX - 1;
    let dk = DeviceBuffer::from_host(gpu, input).unwrap();
    let dv = DeviceBuffer::from_host(gpu, &index).unwrap();
    let key_fill = vec![K::from_ordered_bits(K::Bits::from_u64(0)); slots];
    // Keys alone.
    let mut out = DeviceBuffer::from_host(gpu, &key_fill).unwrap();
    let r = top_k_keys(gpu, &dk, segs, &opts, &mut out).unwrap_or_else(|e| panic!("{what}: {e}"));
    if let Some(p) = path {
        assert_eq!(r.path, p, "{what}");
    }
    let got = out.to_host().unwrap();
    // Pairs.
    let mut ok = DeviceBuffer::from_host(gpu, &key_fill).unwrap();
    let mut ov = DeviceBuffer::from_host(gpu, &vec![sentinel; slots]).unwrap();
    top_k_pairs(gpu, &dk, &dv, segs, &opts, &mut ok, &mut ov)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let (gk, gv) = (ok.to_host().unwrap(), ov.to_host().unwrap());
    for a in 0..arrays {
        let (s, e) = (want.offsets[a] as usize, want.offsets[a + 1] as usize);
        let take = e - s;
        let slot = a * k..a * k + take;
        assert_eq!(
            ordered_bits(&got[slot.clone()]),
            ordered_bits(&want.keys[s..e]),
            "{what}: keys of array {a}"
        );
        assert_eq!(
            ordered_bits(&gk[slot.clone()]),
            ordered_bits(&want.keys[s..e]),
            "{what}: pair keys of array {a}"
        );
        assert_eq!(&gv[slot], &want.values[s..e], "{what}: values of array {a}");
        let rest = a * k + take..(a + 1) * k;
        assert!(
            gv[rest.clone()].iter().all(|&v| v == sentinel),
            "{what}: slots past array {a} were written"
        );
        assert!(
            ordered_bits(&got[rest]).iter().all(|&b| b == 0),
            "{what}: key slots past array {a} were written"
        );
    }
    // The input is not changed.
    assert_eq!(
        ordered_bits(&dk.to_host().unwrap()),
        ordered_bits(input),
        "{what}: input changed"
    );
}

/// Lengths around the select tile and the radix passes, mixed in one call and shuffled, with
/// k around the tile; both paths.
fn every_length<K: SortKey>(name: &str) {
    let gpu = gpu();
    let tile = ArrayPolicy::for_types(K::SIZE, 4).top_k_tile();
    let mut rng = rng_for(name);
    let mut lens = vec![0, 1, 2, 3, 31, 32, 33, 255, 256, 257, 1000];
    lens.extend([tile - 1, tile, tile + 1, 2 * tile, 5000, 40_000]);
    lens.shuffle(&mut rng);
    let offsets = offsets_of_lengths(&lens);
    let n = *offsets.last().unwrap() as usize;
    let input: Vec<K> = generate(Pattern::Uniform, n, seed_for(name));
    for order in ORDERS {
        for k in [1, 2, 7, 64, 1000, tile - 1, tile] {
            for (path, layout) in [
                (None, Layout::Off64),
                (Some(TopKPath::Select), Layout::Off32),
                (Some(TopKPath::Sort), Layout::Off64),
            ] {
                check(
                    &gpu,
                    &input,
                    &offsets,
                    layout,
                    opts(k, order, path),
                    "mixed",
                );
            }
        }
        check(
            &gpu,
            &input,
            &offsets,
            Layout::Off64,
            opts(tile + 1, order, None),
            "past the tile",
        );
        for len in [1usize, 33, tile + 1, 9000] {
            let count = 60_000 / len;
            let input: Vec<K> = generate(Pattern::Uniform, len * count, seed_for(name) + 1);
            let offsets = offsets_of_lengths(&vec![len; count]);
            for path in [Some(TopKPath::Select), Some(TopKPath::Sort)] {
                check(
                    &gpu,
                    &input,
                    &offsets,
                    Layout::Fixed(len),
                    opts(64, order, path),
                    "fixed",
                );
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn every_length_u32() {
    every_length::<u32>("top_k::every_length_u32");
}
#[test]
#[ignore = "needs a CUDA device"]
fn every_length_i32() {
    every_length::<i32>("top_k::every_length_i32");
}
#[test]
#[ignore = "needs a CUDA device"]
fn every_length_f32() {
    every_length::<f32>("top_k::every_length_f32");
}
#[test]
#[ignore = "needs a CUDA device"]
fn every_length_u64() {
    every_length::<u64>("top_k::every_length_u64");
}
#[test]
#[ignore = "needs a CUDA device"]
fn every_length_i64() {
    every_length::<i64>("top_k::every_length_i64");
}
#[test]
#[ignore = "needs a CUDA device"]
fn every_length_f64() {
    every_length::<f64>("top_k::every_length_f64");
}

/// Every pattern inside arrays of mixed lengths (all equal and few distinct take every radix
/// pass and the cut by position).
fn every_pattern<K: SortKey>(name: &str) {
    let gpu = gpu();
    let mut rng = rng_for(name);
    let mut lens: Vec<usize> = (0..200)
        .map(|i| [0, 1, 5, 20, 300, 3000, 9000][i % 7])
        .collect();
    lens.shuffle(&mut rng);
    let offsets = offsets_of_lengths(&lens);
    let n = *offsets.last().unwrap() as usize;
    for pattern in Pattern::ALL {
        let input: Vec<K> = generate(pattern, n, seed_for(name));
        for order in ORDERS {
            for k in [1, 100, 2048] {
                check(
                    &gpu,
                    &input,
                    &offsets,
                    Layout::Off64,
                    opts(k, order, None),
                    pattern.name(),
                );
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn every_pattern_f32() {
    every_pattern::<f32>("top_k::every_pattern_f32");
}
#[test]
#[ignore = "needs a CUDA device"]
fn every_pattern_u64() {
    every_pattern::<u64>("top_k::every_pattern_u64");
}

/// All-equal rows (the select resolves every bit, then takes the first k by position) and
/// NaN, ±inf, -0.0 repeated inside rows.
fn equal_and_special<K: SortKey>() {
    let gpu = gpu();
    for order in ORDERS {
        for len in [5usize, 2048, 2049, 20_000] {
            let count = (60_000 / len).clamp(1, 200);
            let input: Vec<K> = generate(Pattern::AllEqual, len * count, 3);
            let offsets = offsets_of_lengths(&vec![len; count]);
            for k in [1, 64, 2048] {
                check(
                    &gpu,
                    &input,
                    &offsets,
                    Layout::Fixed(len),
                    opts(k, order, None),
                    "equal",
                );
            }
        }
        let sp = specials::<K>();
        let input: Vec<K> = (0..50_000)
            .map(|i| sp[(i * 7 + i / 13) % sp.len()])
            .collect();
        let offsets = offsets_of_lengths(&[3, 17, 4500, 0, 1, 45_479]);
        for k in [2, 500, 2048] {
            check(
                &gpu,
                &input,
                &offsets,
                Layout::Off32,
                opts(k, order, None),
                "specials",
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn all_equal_and_special_keys_f32() {
    equal_and_special::<f32>();
}
#[test]
#[ignore = "needs a CUDA device"]
fn all_equal_and_special_keys_f64() {
    equal_and_special::<f64>();
}
#[test]
#[ignore = "needs a CUDA device"]
fn all_equal_and_special_keys_i64() {
    equal_and_special::<i64>();
}

/// Rows of logits (sums of uniforms, so most keys share their exponent): the largest 64 of
/// 64 rows of 32,768 with their indices, through the host convenience.
#[test]
#[ignore = "needs a CUDA device"]
fn rows_of_logits() {
    let gpu = gpu();
    let (rows, len) = (64usize, 32_768usize);
    let u: Vec<u32> = generate(Pattern::Uniform, rows * len * 4, 5);
    let logits: Vec<f32> = u
        .chunks(4)
        .map(|c| c.iter().map(|&x| x as f32 / u32::MAX as f32).sum::<f32>() - 2.0)
        .collect();
    let offsets = offsets_of_lengths(&vec![len; rows]);
    let index: Vec<u32> = (0..rows * len).map(|i| (i % len) as u32).collect();
    for k in [1, 64, 1024] {
        let opts = TopKOptions::new(k).with_order(Order::Descending);
        let got = top_k_pairs_host(&gpu, &logits, &index, &offsets, &opts).unwrap();
        let want = cpu_top_k_pairs(&logits, &index, &offsets, k, Order::Descending).unwrap();
        assert_eq!(got, want, "k={k}");
        let keys = top_k_keys_host(&gpu, &logits, &offsets, &opts).unwrap();
        let want = top_k(&logits, &offsets, k, Order::Descending).unwrap();
        assert_eq!(keys, want, "keys k={k}");
    }
}

/// Keys of a narrow range in a wide type (u64 below 2^31, i64 around 0 and a few high bits
/// set, all rows the benchmark's shape): the select skips the digits every key of a row shares,
/// which every warp of the block must agree on. Many rows and several calls, so that warps of a
/// block drift apart as they would on a full device.
#[test]
#[ignore = "needs a CUDA device"]
fn shared_leading_digits() {
    let gpu = gpu();
    let (rows, len) = (2048usize, 8192usize);
    let offsets = offsets_of_lengths(&vec![len; rows]);
    let u: Vec<u32> = generate(Pattern::Uniform, rows * len, 9);
    let narrow: Vec<u64> = u.iter().map(|&x| (x >> 1) as u64).collect();
    let high: Vec<u64> = u
        .iter()
        .map(|&x| (0xabcd_u64 << 40) | (x & 0xfff) as u64)
        .collect();
    let around: Vec<i64> = u.iter().map(|&x| (x % 5000) as i64 - 2500).collect();
    for rep in 0..3 {
        for (k, order) in [(64, Order::Ascending), (100, Order::Descending)] {
            let o = opts(k, order, Some(TopKPath::Select));
            check(
                &gpu,
                &narrow,
                &offsets,
                Layout::Fixed(len),
                o,
                &format!("narrow {rep}"),
            );
            check(
                &gpu,
                &high,
                &offsets,
                Layout::Off64,
                o,
                &format!("high {rep}"),
            );
            check(
                &gpu,
                &around,
                &offsets,
                Layout::Off32,
                o,
                &format!("around {rep}"),
            );
        }
    }
}

/// Caller scratch on the sort path, and too small a scratch rejected before anything is
/// written.
#[test]
#[ignore = "needs a CUDA device"]
fn caller_scratch() {
    let gpu = gpu();
    let input: Vec<f64> = generate(Pattern::Uniform, 30_000, 9);
    let offsets = offsets_of_lengths(&[10_000, 5, 19_995]);
    let index: Vec<u64> = index_values(input.len());
    let d_off = DeviceBuffer::from_host(&gpu, &offsets).unwrap();
    let segs = Segments::Offsets64(&d_off);
    let opts = TopKOptions::new(3000)
        .with_order(Order::Descending)
        .with_path(TopKPath::Sort);
    let need = top_k_scratch_bytes_pairs::<f64, u64>(input.len(), &segs, &opts);
    assert!(need >= input.len() * 16);
    let (dk, dv) = (
        DeviceBuffer::from_host(&gpu, &input).unwrap(),
        DeviceBuffer::from_host(&gpu, &index).unwrap(),
    );
    let mut ok = DeviceBuffer::from_host(&gpu, &vec![0.5f64; 9000]).unwrap();
    let mut ov = DeviceBuffer::from_host(&gpu, &vec![7u64; 9000]).unwrap();
    let mut small = DeviceBuffer::<u8>::alloc(&gpu, need - 1).unwrap();
    let e = top_k_pairs_with_scratch(&gpu, &dk, &dv, segs, &opts, &mut ok, &mut ov, &mut small)
        .unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    assert!(ov.to_host().unwrap().iter().all(|&v| v == 7));
    let mut scratch = DeviceBuffer::<u8>::alloc(&gpu, need).unwrap();
    let r = top_k_pairs_with_scratch(&gpu, &dk, &dv, segs, &opts, &mut ok, &mut ov, &mut scratch)
        .unwrap();
    assert_eq!((r.path, r.scratch_bytes), (TopKPath::Sort, need));
    let want = cpu_top_k_pairs(&input, &index, &offsets, 3000, Order::Descending).unwrap();
    let (gk, gv) = (ok.to_host().unwrap(), ov.to_host().unwrap());
    assert_eq!(&gv[..3000], &want.values[..3000]);
    assert_eq!(&gv[3000..3005], &want.values[3000..3005]);
    assert!(gv[3005..6000].iter().all(|&v| v == 7));
    assert_eq!(&gk[6000..9000], &want.keys[3005..6005]);
}

/// Bad input: a clear error, the output untouched.
#[test]
#[ignore = "needs a CUDA device"]
fn bad_input_is_rejected_untouched() {
    let gpu = gpu();
    let keys = DeviceBuffer::from_host(&gpu, &[3u32, 1, 2, 5, 4, 0]).unwrap();
    let values = DeviceBuffer::from_host(&gpu, &[0u32; 5]).unwrap();
    let segs = Segments::Fixed { len: 3 };
    let mut out = DeviceBuffer::from_host(&gpu, &[9u32; 4]).unwrap();
    let mut out_v = DeviceBuffer::from_host(&gpu, &[9u32; 4]).unwrap();
    let opts = TopKOptions::new(2);
    let untouched = |b: &DeviceBuffer<u32>| b.to_host().unwrap().iter().all(|&x| x == 9);
    // Values shorter than the keys.
    let e = top_k_pairs(&gpu, &keys, &values, segs, &opts, &mut out, &mut out_v).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    // An output shorter than arrays * k.
    let e = top_k_keys(&gpu, &keys, segs, &TopKOptions::new(3), &mut out).unwrap_err();
    assert!(e.to_string().contains("needs 6"), "{e}");
    // A fixed length that does not divide the keys.
    let e = top_k_keys(&gpu, &keys, Segments::Fixed { len: 4 }, &opts, &mut out).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    // The select forced past its tile.
    let big = TopKOptions::new(5000).with_path(TopKPath::Select);
    let mut wide = DeviceBuffer::from_host(&gpu, &vec![9u32; 10_000]).unwrap();
    let e = top_k_keys(&gpu, &keys, segs, &big, &mut wide).unwrap_err();
    assert!(e.to_string().contains("select"), "{e}");
    // Host offsets that do not cut the keys.
    let e = top_k_keys_host(&gpu, &[1u32, 2, 3], &[0, 4], &opts).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    assert!(untouched(&out) && untouched(&out_v) && untouched(&wide));
    // k = 0 writes nothing and succeeds.
    top_k_keys(&gpu, &keys, segs, &TopKOptions::new(0), &mut out).unwrap();
    assert!(untouched(&out));
    // The good call.
    top_k_keys(&gpu, &keys, segs, &opts, &mut out).unwrap();
    assert_eq!(out.to_host().unwrap(), vec![1, 2, 0, 4]);
}
