//! GPU tests of the many-arrays sorts: every variant, key type and order, keys and pairs
//! (stable, bit for bit against the CPU twin `sortlab_cpu_reference::arrays`), lengths around
//! every class edge, mixed lengths in one call with u32 and u64 offsets and fixed lengths,
//! all-equal arrays, NaN / -0.0, the patterns of `sortlab-verify`, scratch, and bad input that
//! must leave the data untouched. Every test needs a CUDA device.

use rand::seq::SliceRandom;
use sortlab_arraysort::{
    memory_bytes, scratch_bytes, scratch_bytes_pairs, sort_keys, sort_keys_host,
    sort_keys_with_scratch, sort_pairs, sort_pairs_host, ArrayOptions, ArrayPolicy, ArrayVariant,
    Segments, SizeClass,
};
use sortlab_cpu_reference::arrays::{check_arrays_permutation, sort_arrays, sort_arrays_pairs};
use sortlab_cpu_reference::check::check_arrays_sorted;
use sortlab_primitives::{DeviceBuffer, Error, Gpu, Order, SortKey, SortValue};
use sortlab_verify::testing::{gpu, offsets_of_lengths, ordered_bits};
use sortlab_verify::{generate, rng_for, seed_for, specials, Pattern};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// How the arrays reach the device.
#[derive(Clone, Copy, Debug)]
enum Layout {
    Off32,
    Off64,
    Fixed(usize),
}

/// Sorts `input` (arrays by `offsets`) on the device as keys and as pairs with `V` index
/// values, and checks both against the CPU twin bit for bit, with per-array order and
/// permutation checks for readable failures.
fn check_case<K: SortKey, V: SortValue + TryFrom<usize>>(
    gpu: &Gpu,
    input: &[K],
    offsets: &[u64],
    layout: Layout,
    opts: &ArrayOptions,
    what: &str,
) {
    let what = format!(
        "{what}: {} {} {layout:?} {:?}, {} keys in {} arrays",
        opts.variant,
        K::NAME,
        opts.order,
        input.len(),
        offsets.len() - 1
    );
    let o32: Vec<u32> = offsets.iter().map(|&o| o as u32).collect();
    let d32 = DeviceBuffer::from_host(gpu, &o32).unwrap();
    let d64 = DeviceBuffer::from_host(gpu, offsets).unwrap();
    let segs = match layout {
        Layout::Off32 => Segments::Offsets32(&d32),
        Layout::Off64 => Segments::Offsets64(&d64),
        Layout::Fixed(len) => Segments::Fixed { len },
    };
    let ou: Vec<usize> = offsets.iter().map(|&o| o as usize).collect();
    // Keys.
    let mut want = input.to_vec();
    sort_arrays(&mut want, offsets, opts.order).unwrap();
    let mut d = DeviceBuffer::from_host(gpu, input).unwrap();
    let report = sort_keys(gpu, &mut d, segs, opts).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(report.variant, opts.variant);
    let got = d.to_host().unwrap();
    check_arrays_sorted(&got, &ou, opts.order).unwrap_or_else(|e| panic!("{what}: {e}"));
    check_arrays_permutation(input, &got, offsets).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        ordered_bits(&got) == ordered_bits(&want),
        "{what}: keys differ from the twin"
    );
    // Pairs, stable.
    let values: Vec<V> = (0..input.len())
        .map(|i| V::try_from(i).ok().unwrap())
        .collect();
    let (mut wk, mut wv) = (input.to_vec(), values.clone());
    sort_arrays_pairs(&mut wk, &mut wv, offsets, opts.order, true).unwrap();
    let mut dk = DeviceBuffer::from_host(gpu, input).unwrap();
    let mut dv = DeviceBuffer::from_host(gpu, &values).unwrap();
    sort_pairs(gpu, &mut dk, &mut dv, segs, opts).unwrap_or_else(|e| panic!("{what}: {e}"));
    let (gk, gv) = (dk.to_host().unwrap(), dv.to_host().unwrap());
    assert!(
        ordered_bits(&gk) == ordered_bits(&wk),
        "{what}: pair keys differ from the twin"
    );
    if let Some(i) = (0..gv.len()).find(|&i| gv[i] != wv[i]) {
        panic!("{what}: values differ from the stable twin first at {i}");
    }
}

/// Lengths at every edge: 0, 1, 2, the paper's 19..21, the warp classes' edges, the block
/// classes' edges (±1) and one far larger.
fn edge_lengths(policy: &ArrayPolicy) -> Vec<usize> {
    let mut v = vec![0, 1, 2, 7, 8, 9, 16, 17, 19, 20, 21, 31, 32, 33];
    for e in [512, 1024, 2048, policy.tile_max()] {
        v.extend([e - 1, e, e + 1]);
    }
    v.push(100_000);
    v
}

/// Every variant, one key type, both orders: the edge lengths mixed in one call (u32 and u64
/// offsets, shuffled), and each edge length as a fixed length.
fn every_length<K: SortKey, V: SortValue + TryFrom<usize>>(name: &str) {
    let gpu = gpu();
    let policy = ArrayPolicy::for_types(K::SIZE, V::SIZE);
    let mut rng = rng_for(name);
    for variant in ArrayVariant::ALL {
        for order in ORDERS {
            let opts = ArrayOptions::default()
                .with_order(order)
                .with_variant(variant);
            let mut lens = edge_lengths(&policy);
            lens.extend(edge_lengths(&policy).iter().filter(|&&l| l < 5000));
            lens.shuffle(&mut rng);
            let offsets = offsets_of_lengths(&lens);
            let n = *offsets.last().unwrap() as usize;
            let input: Vec<K> = generate(Pattern::FullRange, n, seed_for(name));
            for layout in [Layout::Off32, Layout::Off64] {
                check_case::<K, V>(&gpu, &input, &offsets, layout, &opts, "mixed");
            }
            for len in edge_lengths(&policy) {
                let count = 60_000usize.checked_div(len).map_or(3, |c| c.clamp(1, 3000));
                let lens = vec![len; count];
                let offsets = offsets_of_lengths(&lens);
                let n = len * count;
                let input: Vec<K> = generate(Pattern::Uniform, n, seed_for(name) ^ len as u64);
                check_case::<K, V>(&gpu, &input, &offsets, Layout::Fixed(len), &opts, "fixed");
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn every_length_u32() {
    every_length::<u32, u32>("arraysort::every_length_u32");
}
#[test]
#[ignore = "needs a CUDA device"]
fn every_length_i32() {
    every_length::<i32, u64>("arraysort::every_length_i32");
}
#[test]
#[ignore = "needs a CUDA device"]
fn every_length_f32() {
    every_length::<f32, u32>("arraysort::every_length_f32");
}
#[test]
#[ignore = "needs a CUDA device"]
fn every_length_u64() {
    every_length::<u64, u64>("arraysort::every_length_u64");
}
#[test]
#[ignore = "needs a CUDA device"]
fn every_length_i64() {
    every_length::<i64, u32>("arraysort::every_length_i64");
}
#[test]
#[ignore = "needs a CUDA device"]
fn every_length_f64() {
    every_length::<f64, u64>("arraysort::every_length_f64");
}

/// Every pattern of `sortlab-verify` inside arrays of mixed lengths, every variant.
fn every_pattern<K: SortKey>(name: &str) {
    let gpu = gpu();
    let mut rng = rng_for(name);
    let mut lens: Vec<usize> = (0..400)
        .map(|i| [0, 1, 5, 20, 33, 300, 1000, 3000][i % 8])
        .collect();
    lens.push(9000);
    lens.shuffle(&mut rng);
    let offsets = offsets_of_lengths(&lens);
    let n = *offsets.last().unwrap() as usize;
    for pattern in Pattern::ALL {
        let input: Vec<K> = generate(pattern, n, seed_for(name));
        for variant in ArrayVariant::ALL {
            let opts = ArrayOptions::default().with_variant(variant);
            check_case::<K, u32>(&gpu, &input, &offsets, Layout::Off64, &opts, pattern.name());
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn every_pattern_f32() {
    every_pattern::<f32>("arraysort::every_pattern_f32");
}
#[test]
#[ignore = "needs a CUDA device"]
fn every_pattern_u64() {
    every_pattern::<u64>("arraysort::every_pattern_u64");
}

/// All-equal arrays of every class (the large class's merges keep ties in input order) and NaN,
/// ±inf, -0.0 and subnormals repeated inside arrays.
fn equal_and_special<K: SortKey>() {
    let gpu = gpu();
    for variant in ArrayVariant::ALL {
        for order in ORDERS {
            let opts = ArrayOptions::default()
                .with_order(order)
                .with_variant(variant);
            for len in [2usize, 8, 20, 32, 500, 4000, 20_000] {
                let count = (40_000 / len).clamp(1, 500);
                let input: Vec<K> = generate(Pattern::AllEqual, len * count, 11);
                let offsets = offsets_of_lengths(&vec![len; count]);
                check_case::<K, u32>(&gpu, &input, &offsets, Layout::Fixed(len), &opts, "equal");
            }
            let sp = specials::<K>();
            let input: Vec<K> = (0..50_000)
                .map(|i| sp[(i * 7 + i / 13) % sp.len()])
                .collect();
            let lens = [3usize, 17, 29, 64, 700, 4500, 0, 1, 44_686];
            let offsets = offsets_of_lengths(&lens);
            assert_eq!(*offsets.last().unwrap(), 50_000);
            check_case::<K, u64>(&gpu, &input, &offsets, Layout::Off32, &opts, "specials");
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
fn all_equal_and_special_keys_i32() {
    equal_and_special::<i32>();
}

/// The large class's merge passes: arrays of 2 to 513 tiles (odd and even pass counts, a lone
/// last run copied through a pass, lengths at multiples of the tile and one past), several
/// long arrays beside short ones in one call, and a fixed length of many tiles; keys and
/// stable pairs, both orders, with few distinct keys (ties across runs).
fn large_arrays<K: SortKey, V: SortValue + TryFrom<usize>>(name: &str) {
    let gpu = gpu();
    let t = ArrayPolicy::for_types(K::SIZE, V::SIZE).tile_max();
    let mut lens = vec![
        t + 1,
        2 * t - 1,
        2 * t,
        2 * t + 1,
        3 * t,
        4 * t + 1,
        5 * t + 7,
        16 * t,
        100_003,
        (1 << 21) + 5,
        512 * t + 1,
        3,
        700,
        0,
        t,
    ];
    lens.shuffle(&mut rng_for(name));
    let offsets = offsets_of_lengths(&lens);
    let n = *offsets.last().unwrap() as usize;
    for order in ORDERS {
        let opts = ArrayOptions::default().with_order(order);
        for pattern in [
            Pattern::FullRange,
            Pattern::FewDistinct,
            Pattern::Descending,
        ] {
            let input: Vec<K> = generate(pattern, n, seed_for(name));
            check_case::<K, V>(&gpu, &input, &offsets, Layout::Off64, &opts, pattern.name());
        }
        let len = 37 * t + 1;
        let input: Vec<K> = generate(Pattern::Uniform, 5 * len, seed_for(name) ^ 5);
        let offsets = offsets_of_lengths(&[len; 5]);
        check_case::<K, V>(&gpu, &input, &offsets, Layout::Fixed(len), &opts, "fixed");
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn large_arrays_u32() {
    large_arrays::<u32, u32>("arraysort::large_arrays_u32");
}
#[test]
#[ignore = "needs a CUDA device"]
fn large_arrays_f64() {
    large_arrays::<f64, u64>("arraysort::large_arrays_f64");
}
#[test]
#[ignore = "needs a CUDA device"]
fn large_arrays_i64() {
    large_arrays::<i64, u32>("arraysort::large_arrays_i64");
}

/// The classes reported: the one class of a fixed length, every possible class with offsets.
#[test]
#[ignore = "needs a CUDA device"]
fn reports_the_classes() {
    let gpu = gpu();
    let opts = ArrayOptions::default();
    let p = ArrayPolicy::for_types(4, 0);
    for (len, class) in [
        (5, SizeClass::Group8),
        (12, SizeClass::Group16),
        (32, SizeClass::Group32),
        (100, SizeClass::Block512),
        (1000, SizeClass::Block1024),
        (2000, SizeClass::Block2048),
        (p.tile_max(), SizeClass::Block4096),
        (p.tile_max() + 1, SizeClass::Large),
    ] {
        let mut k = DeviceBuffer::from_host(&gpu, &vec![1u32; 2 * len]).unwrap();
        let r = sort_keys(&gpu, &mut k, Segments::Fixed { len }, &opts).unwrap();
        assert_eq!(r.classes, vec![class], "{len}");
        assert_eq!(r.arrays, 2);
    }
    let offsets = DeviceBuffer::from_host(&gpu, &[0u32, 3, 40]).unwrap();
    let mut k = DeviceBuffer::from_host(&gpu, &[5u32; 40]).unwrap();
    let r = sort_keys(&gpu, &mut k, Segments::Offsets32(&offsets), &opts).unwrap();
    assert_eq!(
        r.classes,
        vec![
            SizeClass::Group8,
            SizeClass::Group16,
            SizeClass::Group32,
            SizeClass::Block512
        ]
    );
}

/// Caller scratch: the exact size works, one byte less is an error with the data untouched.
#[test]
#[ignore = "needs a CUDA device"]
fn caller_scratch() {
    let gpu = gpu();
    let lens = [10usize, 5000, 300, 0, 9000];
    let offsets = offsets_of_lengths(&lens);
    let n = *offsets.last().unwrap() as usize;
    let input: Vec<f32> = generate(Pattern::FullRange, n, 5);
    let d_off = DeviceBuffer::from_host(&gpu, &offsets).unwrap();
    for variant in ArrayVariant::ALL {
        let opts = ArrayOptions::default().with_variant(variant);
        let segs = Segments::Offsets64(&d_off);
        let need = scratch_bytes::<f32>(n, &segs, &opts);
        assert!(need > 0, "{variant}");
        assert!(scratch_bytes_pairs::<f32, u64>(n, &segs, &opts) >= need);
        assert!(memory_bytes::<f32>(n, &segs, None, &opts) >= need);
        let mut keys = DeviceBuffer::from_host(&gpu, &input).unwrap();
        let mut small = DeviceBuffer::<u8>::alloc(&gpu, need - 1).unwrap();
        let e = sort_keys_with_scratch(&gpu, &mut keys, segs, &opts, &mut small).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{variant}: {e}");
        assert!(
            ordered_bits(&keys.to_host().unwrap()) == ordered_bits(&input),
            "{variant}: touched"
        );
        let mut exact = DeviceBuffer::<u8>::alloc(&gpu, need).unwrap();
        let r = sort_keys_with_scratch(&gpu, &mut keys, segs, &opts, &mut exact).unwrap();
        assert_eq!(r.scratch_bytes, need);
        let mut want = input.clone();
        sort_arrays(&mut want, &offsets, opts.order).unwrap();
        assert!(
            ordered_bits(&keys.to_host().unwrap()) == ordered_bits(&want),
            "{variant}"
        );
    }
    // The tagged baseline's memory beyond its scratch: a copy of keys, positions and tags.
    let opts = ArrayOptions::default().with_variant(ArrayVariant::Tagged);
    let segs = Segments::Fixed { len: 1000 };
    let m = memory_bytes::<f32>(1_000_000, &segs, Some(4), &opts);
    assert!(m >= 16 * 1_000_000, "{m}");
    let fast = ArrayOptions::default();
    assert_eq!(scratch_bytes::<f32>(1_000_000, &segs, &fast), 0);
}

/// Bad input: a clear InvalidArgument and the data untouched.
#[test]
#[ignore = "needs a CUDA device"]
fn bad_input_is_rejected_untouched() {
    let gpu = gpu();
    let input: Vec<u32> = (0..100).rev().collect();
    let empty = DeviceBuffer::<u64>::alloc(&gpu, 0).unwrap();
    let good = DeviceBuffer::from_host(&gpu, &[0u64, 50, 100]).unwrap();
    for variant in ArrayVariant::ALL {
        let opts = ArrayOptions::default().with_variant(variant);
        let mut keys = DeviceBuffer::from_host(&gpu, &input).unwrap();
        let mut values = DeviceBuffer::from_host(&gpu, &vec![0u32; 99]).unwrap();
        let cases: Vec<(Result<_, Error>, &str)> = vec![
            (
                sort_keys(&gpu, &mut keys, Segments::Offsets64(&empty), &opts),
                "no offsets",
            ),
            (
                sort_keys(&gpu, &mut keys, Segments::Fixed { len: 7 }, &opts),
                "not a whole number",
            ),
            (
                sort_keys(&gpu, &mut keys, Segments::Fixed { len: 0 }, &opts),
                "fixed length 0",
            ),
            (
                sort_pairs(
                    &gpu,
                    &mut keys,
                    &mut values,
                    Segments::Offsets64(&good),
                    &opts,
                ),
                "99 values",
            ),
        ];
        for (r, want) in cases {
            match r {
                Err(Error::InvalidArgument(m)) => assert!(m.contains(want), "{variant}: {m}"),
                other => panic!("{variant}: expected InvalidArgument ({want}), got {other:?}"),
            }
        }
        assert_eq!(keys.to_host().unwrap(), input, "{variant}");
        // Host conveniences check every rule before uploading.
        let mut host = input.clone();
        for bad in [
            vec![0u64, 60, 50, 100],
            vec![0, 50, 99],
            vec![1, 100],
            vec![0, 101, 100],
        ] {
            let e = sort_keys_host(&gpu, &mut host, &bad, &opts).unwrap_err();
            assert!(matches!(e, Error::InvalidArgument(_)), "{bad:?}: {e}");
        }
        let mut hv = vec![0u64; 100];
        sort_pairs_host(&gpu, &mut host, &mut hv, &[0, 100], &opts).unwrap();
        assert_eq!(host, (0..100).collect::<Vec<u32>>());
    }
}

/// Segments::validate finds every rule broken on the device; a sort given such offsets stays
/// inside its buffers (the device clamps) and the device stays usable.
#[test]
#[ignore = "needs a CUDA device"]
fn validate_and_untrusted_offsets() {
    let gpu = gpu();
    let n = 1000;
    for (bad, what) in [
        (vec![0u32, 600, 400, 1000], "decrease at entry 1"),
        (vec![0, 500, 999], "last offset"),
        (vec![3, 500, 1000], "first offset"),
        (vec![0, 5000, 1000], "decrease"),
        (vec![0, 500, 4000], "last offset"),
    ] {
        let d = DeviceBuffer::from_host(&gpu, &bad).unwrap();
        let e = Segments::Offsets32(&d).validate(&gpu, n).unwrap_err();
        assert!(e.to_string().contains(what), "{bad:?}: {e}");
        for variant in ArrayVariant::ALL {
            let opts = ArrayOptions::default().with_variant(variant);
            let mut keys = DeviceBuffer::from_host(&gpu, &vec![7u32; n]).unwrap();
            let mut values = DeviceBuffer::from_host(&gpu, &vec![1u64; n]).unwrap();
            let _ = sort_pairs(&gpu, &mut keys, &mut values, Segments::Offsets32(&d), &opts);
            gpu.synchronize().unwrap();
        }
    }
    let good = DeviceBuffer::from_host(&gpu, &[0u64, 0, 10, 10, 1000]).unwrap();
    Segments::Offsets64(&good).validate(&gpu, n).unwrap();
    let mut keys = DeviceBuffer::from_host(&gpu, &(0..n as u32).rev().collect::<Vec<_>>()).unwrap();
    sort_keys(
        &gpu,
        &mut keys,
        Segments::Offsets64(&good),
        &ArrayOptions::default(),
    )
    .unwrap();
    let k = keys.to_host().unwrap();
    check_arrays_sorted(&k, &[0, 0, 10, 10, 1000], Order::Ascending).unwrap();
}
