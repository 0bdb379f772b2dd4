//! GPU tests of the bitonic sorts: every variant, key type and order, keys and pairs, on
//! lengths around every tile, block and power of two; scratch memory; errors leaving the data
//! untouched; the published kernels' block sizes and plain exchange; other fast policies; and
//! 2^32 + 5 keys (with `SORTLAB_LARGE=1`). Every test needs a CUDA device.
//!
//! The sorts are unstable: keys must equal the CPU reference bit for bit, and pairs must have
//! the reference's keys with every value next to a key equal to its own input key (the values
//! are input indices, so that is checked exactly, and that they are a permutation).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sortlab_cpu_reference::{check, sort};
use sortlab_gpu_sorts::bitonic::{
    self, tuning, tuning::BitonicTuning, BitonicOptions, BitonicVariant, FastPolicy,
};
use sortlab_primitives::{DeviceBuffer, Error, Gpu, Order, SortKey, SortValue};
use sortlab_verify::testing::{
    from_raw_bits as from_raw, gpu, large_input, multiset_digest, require_free_memory,
};

/// Input shapes.
const RANDOM: u32 = 0;
const FEW: u32 = 1;
const ALL_EQUAL: u32 = 2;
const SORTED: u32 = 3;
const REVERSE: u32 = 4;
const SHAPES: [u32; 5] = [RANDOM, FEW, ALL_EQUAL, SORTED, REVERSE];

/// `n` keys of `shape`: random bits; few distinct including the greatest and least bit
/// patterns (all ones is the padding's word in either order); all equal (all ones); ascending;
/// descending.
fn keys<K: SortKey>(n: usize, shape: u32, seed: u64) -> Vec<K> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|i| {
            let r: u64 = rng.gen();
            from_raw(match shape {
                RANDOM => r,
                FEW => [0, 1, u64::MAX, 1 << 63, u64::MAX >> 1, 1 << 31][(r % 6) as usize],
                ALL_EQUAL => u64::MAX,
                SORTED => i as u64,
                _ => (n - i) as u64,
            })
        })
        .collect()
}

/// Unstable pairs check: the keys equal `expected` bit for bit, every value (an input index)
/// sits next to a key equal to its input key, and the values are a permutation.
fn check_pairs_unstable<K: SortKey, V: SortValue + Copy + Into<u64>>(
    input: &[K],
    expected: &[K],
    keys: &[K],
    values: &[V],
    what: &str,
) {
    check::check_equal(expected, keys).unwrap_or_else(|e| panic!("pairs {what}: {e}"));
    let mut seen = vec![false; input.len()];
    for (i, (k, &v)) in keys.iter().zip(values).enumerate() {
        let v: u64 = v.into();
        assert!(
            (v as usize) < input.len(),
            "{what}: value {v} at {i} out of range"
        );
        assert_eq!(
            k.to_ordered_bits(),
            input[v as usize].to_ordered_bits(),
            "{what}: value {v} at {i} left its key"
        );
        assert!(
            !std::mem::replace(&mut seen[v as usize], true),
            "{what}: value {v} twice"
        );
    }
}

/// Panics unless `actual` holds the same bits as `expected` (NaN keys compare unequal by `==`).
fn assert_same_bits<K: SortKey>(expected: &[K], actual: &[K], what: &str) {
    assert_eq!(expected.len(), actual.len(), "{what}");
    assert!(
        expected
            .iter()
            .zip(actual)
            .all(|(a, b)| a.to_ordered_bits() == b.to_ordered_bits()),
        "{what}: the keys changed"
    );
}

fn sort_pairs_checked<K: SortKey, V: SortValue + Copy + Into<u64> + TryFrom<usize>>(
    gpu: &Gpu,
    input: &[K],
    expected: &[K],
    opts: &BitonicOptions,
    tune: &BitonicTuning,
    what: &str,
) where
    <V as TryFrom<usize>>::Error: std::fmt::Debug,
{
    let values: Vec<V> = (0..input.len()).map(|i| V::try_from(i).unwrap()).collect();
    let mut k = DeviceBuffer::from_host(gpu, input).unwrap();
    let mut v = DeviceBuffer::from_host(gpu, &values).unwrap();
    tuning::sort_pairs(gpu, &mut k, &mut v, opts, tune, None)
        .unwrap_or_else(|e| panic!("pairs {what}: {e}"));
    check_pairs_unstable(
        input,
        expected,
        &k.to_host().unwrap(),
        &v.to_host().unwrap(),
        what,
    );
}

/// Sorts `input` by `opts` (keys, and pairs with u32 and u64 index values) and checks the
/// results.
fn check_sort_tuned<K: SortKey>(
    gpu: &Gpu,
    input: &[K],
    opts: &BitonicOptions,
    tune: &BitonicTuning,
    pairs: bool,
) {
    let what = format!(
        "{} n={} {:?} {} tpb {:?} {tune:?}",
        K::NAME,
        input.len(),
        opts.order,
        opts.variant,
        opts.threads_per_block
    );
    let mut expected = input.to_vec();
    sort::sort(&mut expected, opts.order);
    let mut keys = DeviceBuffer::from_host(gpu, input).unwrap();
    tuning::sort_keys(gpu, &mut keys, opts, tune, None).unwrap_or_else(|e| panic!("{what}: {e}"));
    check::check_equal(&expected, &keys.to_host().unwrap())
        .unwrap_or_else(|e| panic!("keys {what}: {e}"));
    if pairs {
        sort_pairs_checked::<K, u32>(gpu, input, &expected, opts, tune, &what);
        sort_pairs_checked::<K, u64>(gpu, input, &expected, opts, tune, &what);
    }
}

fn check_sort<K: SortKey>(gpu: &Gpu, input: &[K], opts: &BitonicOptions) {
    check_sort_tuned(gpu, input, opts, &BitonicTuning::default(), true);
}

fn every_type(gpu: &Gpu, n: usize, shape: u32, seed: u64, opts: &BitonicOptions) {
    check_sort(gpu, &keys::<u32>(n, shape, seed), opts);
    check_sort(gpu, &keys::<i32>(n, shape, seed), opts);
    check_sort(gpu, &keys::<f32>(n, shape, seed), opts);
    check_sort(gpu, &keys::<u64>(n, shape, seed), opts);
    check_sort(gpu, &keys::<i64>(n, shape, seed), opts);
    check_sort(gpu, &keys::<f64>(n, shape, seed), opts);
}

/// Lengths: 0 .. 3, warp and default block sizes ±1, the variant's edges ±1, powers of two ±1.
fn lengths(variant: BitonicVariant) -> Vec<usize> {
    let mut v = vec![0, 1, 2, 3, 31, 32, 33, 255, 256, 257];
    for e in bitonic::edge_lengths(variant) {
        v.extend([e - 1, e, e + 1]);
    }
    for k in [10, 15, 17] {
        v.extend([(1 << k) - 1, 1 << k, (1 << k) + 1]);
    }
    v.sort_unstable();
    v.dedup();
    v
}

#[test]
#[ignore = "needs a CUDA device"]
fn every_variant_type_order_and_length() {
    let gpu = gpu();
    for variant in BitonicVariant::ALL {
        for order in [Order::Ascending, Order::Descending] {
            let opts = BitonicOptions::default()
                .with_variant(variant)
                .with_order(order);
            for n in lengths(variant) {
                every_type(&gpu, n, RANDOM, n as u64, &opts);
            }
            every_type(&gpu, 1_000_007, RANDOM, 7, &opts);
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn every_variant_and_shape() {
    let gpu = gpu();
    for variant in BitonicVariant::ALL {
        for order in [Order::Ascending, Order::Descending] {
            let opts = BitonicOptions::default()
                .with_variant(variant)
                .with_order(order);
            for shape in SHAPES {
                for n in [3, 100, 8191, 8193, 70_001] {
                    every_type(&gpu, n, shape, n as u64 + shape as u64, &opts);
                }
            }
        }
    }
}

/// Floats whose bits are extreme in total order: every NaN and infinity, both zeros,
/// subnormals; u32::MAX-like all-ones patterns (the padding's word) among them.
#[test]
#[ignore = "needs a CUDA device"]
fn special_floats() {
    let gpu = gpu();
    let specials = [
        f64::NAN,
        -f64::NAN,
        f64::from_bits(u64::MAX),
        f64::from_bits(u64::MAX >> 1),
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        f64::MIN_POSITIVE / 8.0,
        -1.5,
        2.5,
    ];
    let input: Vec<f64> = (0..5003)
        .map(|i| specials[i * 7 % specials.len()])
        .collect();
    let input32: Vec<f32> = input
        .iter()
        .map(|&x| match x.to_bits() {
            u64::MAX => f32::from_bits(u32::MAX),
            b if b == u64::MAX >> 1 => f32::from_bits(u32::MAX >> 1),
            _ => x as f32,
        })
        .collect();
    for variant in BitonicVariant::ALL {
        for order in [Order::Ascending, Order::Descending] {
            let opts = BitonicOptions::default()
                .with_variant(variant)
                .with_order(order);
            check_sort(&gpu, &input, &opts);
            check_sort(&gpu, &input32, &opts);
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn caller_scratch_and_errors_leave_data_untouched() {
    let gpu = gpu();
    let input = keys::<f32>(1000, RANDOM, 3);
    let values: Vec<u32> = (0..1000).collect();
    for variant in BitonicVariant::ALL {
        let opts = BitonicOptions::default().with_variant(variant);
        let need = bitonic::scratch_bytes_pairs::<f32, u32>(input.len(), &opts);
        let need_keys = bitonic::scratch_bytes::<f32>(input.len(), &opts);
        assert!(need >= need_keys);
        let mut expected = input.clone();
        sort::sort(&mut expected, opts.order);
        // Exactly the size, and larger: sorted.
        for extra in [0, 4096] {
            let mut scratch = DeviceBuffer::<u8>::alloc(&gpu, need + extra).unwrap();
            let mut k = DeviceBuffer::from_host(&gpu, &input).unwrap();
            let mut v = DeviceBuffer::from_host(&gpu, &values).unwrap();
            bitonic::sort_pairs_with_scratch(&gpu, &mut k, &mut v, &opts, &mut scratch).unwrap();
            check_pairs_unstable(
                &input,
                &expected,
                &k.to_host().unwrap(),
                &v.to_host().unwrap(),
                variant.name(),
            );
            let mut k = DeviceBuffer::from_host(&gpu, &input).unwrap();
            let mut scratch = DeviceBuffer::<u8>::alloc(&gpu, need_keys + extra).unwrap();
            bitonic::sort_keys_with_scratch(&gpu, &mut k, &opts, &mut scratch).unwrap();
            check::check_equal(&expected, &k.to_host().unwrap()).unwrap();
        }
        // Too small (where any is needed): InvalidArgument, nothing touched.
        if need > 0 {
            let mut scratch = DeviceBuffer::<u8>::alloc(&gpu, need - 1).unwrap();
            let mut k = DeviceBuffer::from_host(&gpu, &input).unwrap();
            let mut v = DeviceBuffer::from_host(&gpu, &values).unwrap();
            let e = bitonic::sort_pairs_with_scratch(&gpu, &mut k, &mut v, &opts, &mut scratch);
            assert!(
                matches!(e, Err(Error::InvalidArgument(_))),
                "{variant}: {e:?}"
            );
            assert_same_bits(&input, &k.to_host().unwrap(), variant.name());
            assert_eq!(v.to_host().unwrap(), values);
        }
        // Mismatched lengths.
        let mut k = DeviceBuffer::from_host(&gpu, &input).unwrap();
        let mut v = DeviceBuffer::from_host(&gpu, &values[..999]).unwrap();
        let e = bitonic::sort_pairs(&gpu, &mut k, &mut v, &opts);
        assert!(
            matches!(e, Err(Error::InvalidArgument(_))),
            "{variant}: {e:?}"
        );
        assert_same_bits(&input, &k.to_host().unwrap(), variant.name());
        assert_eq!(v.to_host().unwrap(), &values[..999]);
        // A block size that is not a power of two from 32 to 1024.
        for bad in [16, 100, 2048] {
            let o = opts.with_threads_per_block(Some(bad));
            let mut k = DeviceBuffer::from_host(&gpu, &input).unwrap();
            let e = bitonic::sort_keys(&gpu, &mut k, &o);
            assert!(
                matches!(e, Err(Error::InvalidArgument(_))),
                "{variant} {bad}: {e:?}"
            );
            assert_same_bits(&input, &k.to_host().unwrap(), variant.name());
        }
    }
    // An invalid fast policy.
    let bad = BitonicTuning {
        fast: Some(FastPolicy {
            threads: 48,
            ..FastPolicy::for_types(4, 0)
        }),
        ..BitonicTuning::default()
    };
    let mut k = DeviceBuffer::from_host(&gpu, &input).unwrap();
    let e = tuning::sort_keys(&gpu, &mut k, &BitonicOptions::default(), &bad, None);
    assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
    assert_same_bits(&input, &k.to_host().unwrap(), "fast policy");
}

/// The report's threads-per-block experiment: every block size of the published kernels sorts.
#[test]
#[ignore = "needs a CUDA device"]
fn threads_per_block_sweep() {
    let gpu = gpu();
    for variant in [BitonicVariant::Mapping, BitonicVariant::Notes] {
        for tpb in [32, 64, 128, 256, 512, 1024] {
            for order in [Order::Ascending, Order::Descending] {
                let opts = BitonicOptions::default()
                    .with_variant(variant)
                    .with_order(order)
                    .with_threads_per_block(Some(tpb));
                for n in [2, 33, 1000, 4096, 65_539] {
                    check_sort(&gpu, &keys::<u32>(n, RANDOM, n as u64), &opts);
                    check_sort(&gpu, &keys::<f64>(n, FEW, n as u64), &opts);
                }
            }
        }
    }
}

/// The report's kernel with the plain compare-exchange instead of its atomic pair.
#[test]
#[ignore = "needs a CUDA device"]
fn mapping_plain_exchange() {
    let gpu = gpu();
    let tune = BitonicTuning {
        plain_exchange: true,
        ..BitonicTuning::default()
    };
    for order in [Order::Ascending, Order::Descending] {
        let opts = BitonicOptions::default()
            .with_variant(BitonicVariant::Mapping)
            .with_order(order);
        for n in [2, 1000, 1 << 16, (1 << 16) + 1] {
            check_sort_tuned(&gpu, &keys::<i32>(n, RANDOM, 1), &opts, &tune, false);
            check_sort_tuned(&gpu, &keys::<u64>(n, FEW, 2), &opts, &tune, false);
        }
    }
}

/// Other fast policies: small tiles (many global stages, every fusion depth, several launches
/// per stage) and other block shapes.
#[test]
#[ignore = "needs a CUDA device"]
fn fast_policies() {
    let gpu = gpu();
    for (threads, items, global_threads, fuse) in [
        (32, 2, 32, 1),
        (32, 2, 64, 2),
        (64, 4, 128, 3),
        (32, 4, 256, 4),
        (256, 16, 128, 3),
        (1024, 8, 512, 4),
    ] {
        let tune = BitonicTuning {
            fast: Some(FastPolicy {
                threads,
                items,
                global_threads,
                fuse,
            }),
            ..BitonicTuning::default()
        };
        for order in [Order::Ascending, Order::Descending] {
            let opts = BitonicOptions::default().with_order(order);
            for n in [2, 63, 64, 65, 1000, 4097, 100_003, 1 << 18] {
                check_sort_tuned(&gpu, &keys::<u32>(n, RANDOM, n as u64), &opts, &tune, true);
                check_sort_tuned(&gpu, &keys::<f64>(n, FEW, n as u64), &opts, &tune, true);
            }
        }
    }
}

/// 2^32 + 5 u32 keys (16 GiB) with the fast sort: sorted, and the same multiset (sum and sum
/// of squares, wrapping). Minutes long: `scripts/gpu-check` runs the `past_2_pow_32` tests only
/// with `SORTLAB_LARGE=1`; a device without the memory fails it.
#[test]
#[ignore = "needs a CUDA device with 24 GiB of memory (scripts/gpu-check: SORTLAB_LARGE=1)"]
fn past_2_pow_32_keys() {
    let gpu = gpu();
    let n: usize = (1 << 32) + 5;
    require_free_memory(&gpu, 24 << 30);
    let input = large_input(n);
    let digest = multiset_digest;
    let want = digest(&input);
    for order in [Order::Ascending, Order::Descending] {
        let opts = BitonicOptions::default().with_order(order);
        let mut keys = DeviceBuffer::from_host(&gpu, &input).unwrap();
        bitonic::sort_keys(&gpu, &mut keys, &opts).unwrap_or_else(|e| panic!("{order:?}: {e}"));
        let out = keys.to_host().unwrap();
        drop(keys);
        check::check_sorted(&out, order).unwrap_or_else(|e| panic!("{order:?}: {e}"));
        assert_eq!(digest(&out), want, "{order:?}: not a permutation");
        eprintln!("2^32 + 5 keys, fast {order:?}: ok");
    }
}
