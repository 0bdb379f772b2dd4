//! GPU tests of the radix sorts beyond the property suite of `sortlab-verify`
//! (verify/tests/radix.rs runs that one): bit ranges, scratch memory, errors leaving the data
//! untouched, skipped and odd numbers of passes, several portions, tuning shapes, and 2^32 + 5
//! keys (with `SORTLAB_LARGE=1`). Every test needs a CUDA device.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sortlab_cpu_reference::check;
use sortlab_gpu_sorts::radix::{
    self, tuning, FastPolicy, PassShape, RadixOptions, RadixVariant, RankMatch,
};
use sortlab_primitives::{DeviceBuffer, Error, Gpu, KeyBits, Order, SortKey, SortValue};
use sortlab_verify::testing::{
    from_raw_bits as from_raw, gpu, large_input, multiset_digest, require_free_memory,
};

/// `n` keys of one of several shapes: random bits, few distinct, small range, ascending.
fn keys<K: SortKey>(n: usize, shape: u32, seed: u64) -> Vec<K> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|i| {
            let r: u64 = rng.gen();
            from_raw(match shape {
                0 => r,
                1 => (r % 7).wrapping_mul(0x9e37_79b9_7f4a_7c15),
                2 => r % 1000,
                _ => i as u64,
            })
        })
        .collect()
}

/// The sort bits of `k` in `order` as u64.
fn sort_bits<K: SortKey>(k: K, order: Order) -> u64 {
    let b = k.to_ordered_bits().to_u64();
    let width = 8 * K::SIZE as u32;
    let b = if order.is_descending() { !b } else { b };
    if width == 64 {
        b
    } else {
        b & ((1u64 << width) - 1)
    }
}

/// The stable reference: input indices sorted by sort bits `begin .. end`.
fn reference<K: SortKey>(input: &[K], order: Order, begin: u32, end: u32) -> Vec<usize> {
    let width = 8 * K::SIZE as u32;
    let end = end.min(width);
    let mut idx: Vec<usize> = (0..input.len()).collect();
    if begin < end {
        let mask = if end - begin == 64 {
            u64::MAX
        } else {
            (1u64 << (end - begin)) - 1
        };
        idx.sort_by_key(|&i| (sort_bits(input[i], order) >> begin) & mask);
    }
    idx
}

/// Sorts `input` by `opts` (keys, and pairs with u32 and u64 index values) on the device and
/// checks the results against the stable reference bit for bit.
fn check_sort<K: SortKey>(gpu: &Gpu, input: &[K], opts: &RadixOptions) {
    let what = format!(
        "{} n={} {:?} bits {}..{} {}",
        K::NAME,
        input.len(),
        opts.order,
        opts.begin_bit,
        opts.end_bit,
        opts.variant
    );
    let idx = reference(input, opts.order, opts.begin_bit, opts.end_bit);
    let expected: Vec<K> = idx.iter().map(|&i| input[i]).collect();
    let mut keys = DeviceBuffer::from_host(gpu, input).unwrap();
    radix::sort_keys(gpu, &mut keys, opts).unwrap_or_else(|e| panic!("{what}: {e}"));
    check::check_equal(&expected, &keys.to_host().unwrap())
        .unwrap_or_else(|e| panic!("keys {what}: {e}"));
    check_pairs::<K, u32>(gpu, input, opts, &expected, &idx, &what);
    check_pairs::<K, u64>(gpu, input, opts, &expected, &idx, &what);
}

fn check_pairs<K: SortKey, V: SortValue + TryFrom<usize>>(
    gpu: &Gpu,
    input: &[K],
    opts: &RadixOptions,
    expected: &[K],
    idx: &[usize],
    what: &str,
) where
    <V as TryFrom<usize>>::Error: std::fmt::Debug,
{
    let values: Vec<V> = (0..input.len()).map(|i| V::try_from(i).unwrap()).collect();
    let expected_values: Vec<V> = idx.iter().map(|&i| values[i]).collect();
    let mut k = DeviceBuffer::from_host(gpu, input).unwrap();
    let mut v = DeviceBuffer::from_host(gpu, &values).unwrap();
    radix::sort_pairs(gpu, &mut k, &mut v, opts).unwrap_or_else(|e| panic!("{what}: {e}"));
    check::check_pairs_equal(
        expected,
        &expected_values,
        &k.to_host().unwrap(),
        &v.to_host().unwrap(),
    )
    .unwrap_or_else(|e| panic!("pairs {what}: {e}"));
}

fn every_type(gpu: &Gpu, n: usize, shape: u32, seed: u64, opts: &RadixOptions) {
    check_sort(gpu, &keys::<u32>(n, shape, seed), opts);
    check_sort(gpu, &keys::<i32>(n, shape, seed), opts);
    check_sort(gpu, &keys::<f32>(n, shape, seed), opts);
    check_sort(gpu, &keys::<u64>(n, shape, seed), opts);
    check_sort(gpu, &keys::<i64>(n, shape, seed), opts);
    check_sort(gpu, &keys::<f64>(n, shape, seed), opts);
}

#[test]
#[ignore = "needs a CUDA device"]
fn every_variant_type_order_and_path() {
    let gpu = gpu();
    for variant in RadixVariant::ALL {
        let mut lengths = vec![0, 1, 2, 3, 33, 1000, 100_003];
        for e in radix::edge_lengths(variant) {
            lengths.extend([e - 1, e, e + 1]);
        }
        for order in [Order::Ascending, Order::Descending] {
            let opts = RadixOptions::default()
                .with_variant(variant)
                .with_order(order);
            for (i, &n) in lengths.iter().enumerate() {
                every_type(&gpu, n, (i % 4) as u32, i as u64, &opts);
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn bit_ranges() {
    let gpu = gpu();
    for variant in RadixVariant::ALL {
        for (begin, end) in [
            (0, 8),
            (4, 20),
            (13, 32),
            (0, 33),
            (3, 3),
            (24, 64),
            (0, 1),
            (31, 57),
        ] {
            for order in [Order::Ascending, Order::Descending] {
                let opts = RadixOptions::default()
                    .with_variant(variant)
                    .with_order(order)
                    .with_bits(begin, end);
                for n in [7, 5000, 70_001] {
                    every_type(&gpu, n, 0, n as u64 + begin as u64, &opts);
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn skipped_and_odd_passes() {
    let gpu = gpu();
    let n = 300_007;
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    // Active 8-bit digits: 3 (an odd number: the result comes home by a copy), 2, 0, 1, 1.
    let inputs: Vec<Vec<u64>> = vec![
        (0..n).map(|_| rng.gen_range(0..1u64 << 24)).collect(),
        (0..n).map(|_| rng.gen_range(0..1u64 << 16)).collect(),
        vec![0x1234_5678_9abc_def0; n],
        (0..n).map(|_| rng.gen_range(0..4u64) << 56 | 77).collect(),
        (0..n).map(|_| rng.gen_range(0..4u64)).collect(),
    ];
    for variant in RadixVariant::ALL {
        for order in [Order::Ascending, Order::Descending] {
            let opts = RadixOptions::default()
                .with_variant(variant)
                .with_order(order);
            for raw in &inputs {
                let k64: Vec<u64> = raw.clone();
                check_sort(&gpu, &k64, &opts);
                let k32: Vec<u32> = raw.iter().map(|&r| (r ^ r >> 32) as u32).collect();
                check_sort(&gpu, &k32, &opts);
                let f: Vec<f32> = raw.iter().map(|&r| from_raw(r ^ r >> 32)).collect();
                check_sort(&gpu, &f, &opts);
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn scratch_and_errors_leave_data() {
    let gpu = gpu();
    for variant in RadixVariant::ALL {
        let opts = RadixOptions::default().with_variant(variant);
        let input = keys::<f32>(50_000, 0, 1);
        let values: Vec<u64> = (0..input.len() as u64).collect();
        let mut k = DeviceBuffer::from_host(&gpu, &input).unwrap();
        let mut v = DeviceBuffer::from_host(&gpu, &values).unwrap();
        let need = radix::scratch_bytes_pairs::<f32, u64>(input.len(), &opts);
        assert!(need >= radix::scratch_bytes::<f32>(input.len(), &opts));
        // Too little scratch: an error, nothing touched.
        let mut small = DeviceBuffer::<u8>::alloc(&gpu, need - 1).unwrap();
        let e = radix::sort_pairs_with_scratch(&gpu, &mut k, &mut v, &opts, &mut small);
        assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
        check::check_equal(&input, &k.to_host().unwrap()).unwrap();
        assert_eq!(v.to_host().unwrap(), values);
        // Mismatched lengths and a reversed bit range: errors, nothing touched.
        let mut short = DeviceBuffer::from_host(&gpu, &values[1..]).unwrap();
        let e = radix::sort_pairs(&gpu, &mut k, &mut short, &opts);
        assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
        let e = radix::sort_keys(&gpu, &mut k, &opts.with_bits(9, 8));
        assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
        check::check_equal(&input, &k.to_host().unwrap()).unwrap();
        // Exact scratch, used twice (the second sort's input is sorted already).
        let mut scratch = DeviceBuffer::<u8>::alloc(&gpu, need).unwrap();
        let mut expected_k = input.clone();
        let mut expected_v = values.clone();
        sortlab_cpu_reference::sort::sort_pairs(&mut expected_k, &mut expected_v, Order::Ascending)
            .unwrap();
        for _ in 0..2 {
            radix::sort_pairs_with_scratch(&gpu, &mut k, &mut v, &opts, &mut scratch).unwrap();
            check::check_pairs_equal(
                &expected_k,
                &expected_v,
                &k.to_host().unwrap(),
                &v.to_host().unwrap(),
            )
            .unwrap();
        }
        // Keys with a larger scratch than needed.
        let mut k = DeviceBuffer::from_host(&gpu, &input).unwrap();
        let mut big = DeviceBuffer::<u8>::alloc(&gpu, need + 4096).unwrap();
        radix::sort_keys_with_scratch(&gpu, &mut k, &opts, &mut big).unwrap();
        check::check_equal(&expected_k, &k.to_host().unwrap()).unwrap();
    }
}

/// A change to a policy.
type Tweak = Box<dyn Fn(&mut FastPolicy)>;

/// Fast policies other than the defaults: several portions, other tiles and digit widths.
#[test]
#[ignore = "needs a CUDA device"]
fn fast_tuning_shapes() {
    let gpu = gpu();
    let shapes: Vec<(&str, Tweak)> = vec![
        (
            "portions of 3 tiles",
            Box::new(|p| p.portion_tiles = Some(3)),
        ),
        (
            "portions of 1 tile",
            Box::new(|p| p.portion_tiles = Some(1)),
        ),
        ("match_any", Box::new(|p| p.rank_match = RankMatch::Any)),
        ("ballot", Box::new(|p| p.rank_match = RankMatch::Ballot)),
        ("split4", Box::new(|p| p.rank_match = RankMatch::Split4)),
        (
            "split4, portions of 2 tiles, 6 bits",
            Box::new(|p| {
                p.rank_match = RankMatch::Split4;
                p.portion_tiles = Some(2);
                p.radix_bits = 6;
            }),
        ),
        (
            "split4, 3 bits, 256x18",
            Box::new(|p| {
                p.rank_match = RankMatch::Split4;
                p.radix_bits = 3;
                *p = p.with_shape(PassShape::new(256, 18, 4));
            }),
        ),
        (
            "split4, mid-sized shape 128x5 at every length",
            Box::new(|p| {
                p.rank_match = RankMatch::Split4;
                p.mid_max = usize::MAX;
                p.mid = PassShape::new(128, 5, 4);
            }),
        ),
        (
            "split4, large shape 896x18 at every length",
            Box::new(|p| {
                p.rank_match = RankMatch::Split4;
                p.large_min = 0;
                p.large = PassShape::new(896, 18, 1);
            }),
        ),
        (
            "ballot, portions of 2 tiles",
            Box::new(|p| {
                p.rank_match = RankMatch::Ballot;
                p.portion_tiles = Some(2);
            }),
        ),
        (
            "512x16",
            Box::new(|p| *p = p.with_shape(PassShape::new(512, 16, 2))),
        ),
        (
            "256x18",
            Box::new(|p| *p = p.with_shape(PassShape::new(256, 18, 4))),
        ),
        (
            "11 bits",
            Box::new(|p| {
                p.radix_bits = 11;
                *p = p.with_shape(PassShape::new(256, 16, 1));
            }),
        ),
        ("6 bits", Box::new(|p| p.radix_bits = 6)),
        (
            "mid-sized shape 128x5 at every length",
            Box::new(|p| {
                p.mid_max = usize::MAX;
                p.mid = PassShape::new(128, 5, 4);
            }),
        ),
        (
            "large shape 896x18 at every length",
            Box::new(|p| {
                p.large_min = 0;
                p.large = PassShape::new(896, 18, 1);
            }),
        ),
        ("1 bit", Box::new(|p| p.radix_bits = 1)),
    ];
    for (name, f) in &shapes {
        for order in [Order::Ascending, Order::Descending] {
            let opts = RadixOptions::default().with_order(order);
            for n in [20_000usize, 123_457] {
                for shape in 0..3 {
                    let input = keys::<u32>(n, shape, n as u64);
                    // The shape under test at every length (no mid-sized shape unless asked).
                    let mut p = FastPolicy::for_types(4, 4);
                    p.mid_max = 0;
                    p.large_min = usize::MAX;
                    f(&mut p);
                    let values: Vec<u32> = (0..n as u32).collect();
                    let mut k = DeviceBuffer::from_host(&gpu, &input).unwrap();
                    let mut v = DeviceBuffer::from_host(&gpu, &values).unwrap();
                    let bytes = tuning::scratch_bytes_pairs::<u32, u32>(n, &opts, &p);
                    let mut s = DeviceBuffer::<u8>::alloc(&gpu, bytes).unwrap();
                    tuning::sort_pairs(&gpu, &mut k, &mut v, &opts, &p, &mut s)
                        .unwrap_or_else(|e| panic!("{name}: {e}"));
                    let (mut ek, mut ev) = (input.clone(), values.clone());
                    sortlab_cpu_reference::sort::sort_pairs(&mut ek, &mut ev, order).unwrap();
                    check::check_pairs_equal(
                        &ek,
                        &ev,
                        &k.to_host().unwrap(),
                        &v.to_host().unwrap(),
                    )
                    .unwrap_or_else(|e| panic!("{name} n={n} shape {shape} {order}: {e}"));
                    let mut p8 = FastPolicy::for_types(8, 0);
                    p8.mid_max = 0;
                    p8.large_min = usize::MAX;
                    f(&mut p8);
                    let k64: Vec<f64> = keys::<f64>(n, shape, 3);
                    let mut dk = DeviceBuffer::from_host(&gpu, &k64).unwrap();
                    let bytes = tuning::scratch_bytes::<f64>(n, &opts, &p8);
                    let mut s = DeviceBuffer::<u8>::alloc(&gpu, bytes).unwrap();
                    tuning::sort_keys(&gpu, &mut dk, &opts, &p8, &mut s)
                        .unwrap_or_else(|e| panic!("{name} f64: {e}"));
                    let mut e64 = k64.clone();
                    sortlab_cpu_reference::sort::sort(&mut e64, order);
                    check::check_equal(&e64, &dk.to_host().unwrap())
                        .unwrap_or_else(|e| panic!("{name} f64 n={n} shape {shape} {order}: {e}"));
                }
            }
        }
    }
}

/// Pairs past the default policy's `large_min` take the large pass shape (where the device holds
/// its block): stable, both orders, equal to the reference (keys with many duplicates, their
/// index as value).
#[test]
#[ignore = "needs a CUDA device"]
fn fast_large_shape_pairs() {
    let gpu = gpu();
    let p = FastPolicy::for_types(4, 4);
    assert!(p.large_min < usize::MAX);
    for (n, shape) in [(p.large_min, 0), (p.large_min + 3, 2)] {
        let input = keys::<u32>(n, shape, 17);
        let values: Vec<u32> = (0..n as u32).collect();
        for order in [Order::Ascending, Order::Descending] {
            let opts = RadixOptions::default().with_order(order);
            let mut k = DeviceBuffer::from_host(&gpu, &input).unwrap();
            let mut v = DeviceBuffer::from_host(&gpu, &values).unwrap();
            radix::sort_pairs(&gpu, &mut k, &mut v, &opts).unwrap();
            let (mut ek, mut ev) = (input.clone(), values.clone());
            sortlab_cpu_reference::sort::sort_pairs(&mut ek, &mut ev, order).unwrap();
            check::check_pairs_equal(&ek, &ev, &k.to_host().unwrap(), &v.to_host().unwrap())
                .unwrap_or_else(|e| panic!("n={n} shape {shape} {order}: {e}"));
        }
    }
}

/// 2^32 + 5 u32 keys (16 GiB, and as much scratch) with each variant: sorted, and the same
/// multiset (sum and sum of squares, wrapping). Minutes long: `scripts/gpu-check` runs the
/// `past_2_pow_32` tests only with `SORTLAB_LARGE=1`; a device without the memory fails it.
#[test]
#[ignore = "needs a CUDA device with 40 GiB of memory (scripts/gpu-check: SORTLAB_LARGE=1)"]
fn past_2_pow_32_keys() {
    let gpu = gpu();
    let n: usize = (1 << 32) + 5;
    require_free_memory(&gpu, 40 << 30);
    let input = large_input(n);
    let digest = multiset_digest;
    let want = digest(&input);
    for variant in RadixVariant::ALL {
        for order in [Order::Ascending, Order::Descending] {
            let opts = RadixOptions::default()
                .with_variant(variant)
                .with_order(order);
            let mut keys = DeviceBuffer::from_host(&gpu, &input).unwrap();
            radix::sort_keys(&gpu, &mut keys, &opts).unwrap_or_else(|e| panic!("{variant}: {e}"));
            let out = keys.to_host().unwrap();
            drop(keys);
            check::check_sorted(&out, order).unwrap_or_else(|e| panic!("{variant} {order}: {e}"));
            assert_eq!(digest(&out), want, "{variant} {order}: not a permutation");
            eprintln!("2^32 + 5 keys, {variant} {order}: ok");
        }
    }
}
