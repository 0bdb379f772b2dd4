//! GPU tests of the quicksorts beyond the property suite of `sortlab-verify`: every variant,
//! key type and order, keys (bit for bit against the CPU reference's sort) and pairs (u32 and
//! u64 index values: keys bit for bit, every value still with its key, the values a
//! permutation; the sort is unstable), at the lengths where code paths change and on every
//! adversarial pattern; scratch memory; errors leaving the data untouched; and 2^32 + 5 keys
//! (with `SORTLAB_LARGE=1`). Every test needs a CUDA device.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sortlab_cpu_reference::check;
use sortlab_gpu_sorts::quick::{self, QuickOptions, QuickVariant};
use sortlab_primitives::{DeviceBuffer, Error, Gpu, Order, SortKey, SortValue};
use sortlab_verify::testing::{
    gpu, large_input, large_input_key, multiset_digest, require_free_memory,
};
use sortlab_verify::{generate, Pattern};

/// Input patterns, the pivot-choice adversaries among them.
const PATTERNS: [Pattern; 7] = [
    Pattern::FullRange,
    Pattern::FewDistinct,
    Pattern::Zipf,
    Pattern::Ascending,
    Pattern::Descending,
    Pattern::AllEqual,
    Pattern::PipeOrgan,
];

/// `n` keys of `pattern`.
fn keys<K: SortKey>(n: usize, pattern: Pattern, seed: u64) -> Vec<K> {
    generate(pattern, n, seed)
}

/// Panics unless `actual` holds the same bits as `expected`.
fn same_bits<K: SortKey>(expected: &[K], actual: &[K], what: &str) {
    check::check_equal(expected, actual).unwrap_or_else(|e| panic!("{what}: {e}"));
}

/// Sorts `input` by `opts` (keys, and pairs with u32 and u64 index values) on the device and
/// checks the results against the CPU reference.
fn check_sort<K: SortKey>(gpu: &Gpu, input: &[K], opts: &QuickOptions, pattern: Pattern) {
    let what = format!(
        "{} n={} {:?} {} pattern {pattern}",
        K::NAME,
        input.len(),
        opts.order,
        opts.variant
    );
    let mut expected = input.to_vec();
    sortlab_cpu_reference::sort::sort(&mut expected, opts.order);
    let mut keys = DeviceBuffer::from_host(gpu, input).unwrap();
    quick::sort_keys(gpu, &mut keys, opts).unwrap_or_else(|e| panic!("{what}: {e}"));
    same_bits(&expected, &keys.to_host().unwrap(), &format!("keys {what}"));
    check_pairs::<K, u32>(gpu, input, &expected, opts, &what);
    check_pairs::<K, u64>(gpu, input, &expected, opts, &what);
}

/// Pairs with values = input indices: keys equal to `expected`, every value with its key, the
/// values a permutation.
fn check_pairs<K: SortKey, V: SortValue + TryFrom<usize> + Into<u64>>(
    gpu: &Gpu,
    input: &[K],
    expected: &[K],
    opts: &QuickOptions,
    what: &str,
) where
    <V as TryFrom<usize>>::Error: std::fmt::Debug,
{
    let values: Vec<V> = (0..input.len()).map(|i| V::try_from(i).unwrap()).collect();
    let mut k = DeviceBuffer::from_host(gpu, input).unwrap();
    let mut v = DeviceBuffer::from_host(gpu, &values).unwrap();
    quick::sort_pairs(gpu, &mut k, &mut v, opts).unwrap_or_else(|e| panic!("{what}: {e}"));
    let (keys, values) = (k.to_host().unwrap(), v.to_host().unwrap());
    same_bits(expected, &keys, &format!("pairs {what}"));
    let mut seen = vec![false; input.len()];
    for (i, (key, &val)) in keys.iter().zip(&values).enumerate() {
        let val: u64 = val.into();
        assert!((val as usize) < input.len(), "{what}: value {val} at {i}");
        assert_eq!(
            key.to_ordered_bits(),
            input[val as usize].to_ordered_bits(),
            "{what}: value {val} at {i} left its key"
        );
        assert!(
            !std::mem::replace(&mut seen[val as usize], true),
            "{what}: value {val} twice"
        );
    }
}

fn every_type(gpu: &Gpu, n: usize, pattern: Pattern, seed: u64, opts: &QuickOptions) {
    check_sort(gpu, &keys::<u32>(n, pattern, seed), opts, pattern);
    check_sort(gpu, &keys::<i32>(n, pattern, seed), opts, pattern);
    check_sort(gpu, &keys::<f32>(n, pattern, seed), opts, pattern);
    check_sort(gpu, &keys::<u64>(n, pattern, seed), opts, pattern);
    check_sort(gpu, &keys::<i64>(n, pattern, seed), opts, pattern);
    check_sort(gpu, &keys::<f64>(n, pattern, seed), opts, pattern);
}

/// Lengths 0, 1, 2, every edge length (chunk, tile, two tiles) ±1, a few tiles and a bit, and
/// 10^6 + 7.
fn lengths(variant: QuickVariant) -> Vec<usize> {
    let mut v = vec![0, 1, 2, 3, 33, 1000];
    for e in quick::edge_lengths(variant) {
        v.extend([e - 1, e, e + 1, 3 * e + 1, 5 * e - 1]);
    }
    v.push(1_000_007);
    v.sort_unstable();
    v.dedup();
    v
}

#[test]
#[ignore = "needs a CUDA device"]
fn every_variant_type_order_and_length() {
    let gpu = gpu();
    for variant in QuickVariant::ALL {
        for order in [Order::Ascending, Order::Descending] {
            let opts = QuickOptions::default()
                .with_variant(variant)
                .with_order(order);
            for (i, n) in lengths(variant).into_iter().enumerate() {
                every_type(&gpu, n, PATTERNS[i % PATTERNS.len()], i as u64, &opts);
            }
        }
    }
}

/// Every pattern (the pivot adversaries: sorted, reverse, pipe organ, all equal, few distinct,
/// zipf) at lengths of one to many rounds.
#[test]
#[ignore = "needs a CUDA device"]
fn every_pattern() {
    let gpu = gpu();
    for variant in QuickVariant::ALL {
        for order in [Order::Ascending, Order::Descending] {
            let opts = QuickOptions::default()
                .with_variant(variant)
                .with_order(order);
            for (s, pattern) in PATTERNS.into_iter().enumerate() {
                for n in [5000, 70_001, 300_007] {
                    every_type(&gpu, n, pattern, n as u64 + s as u64, &opts);
                }
            }
        }
    }
}

/// The adversarial patterns at 2^24 + 3 u32 and u64 keys (many rounds): sorted exactly.
#[test]
#[ignore = "needs a CUDA device"]
fn adversarial_patterns_large() {
    let gpu = gpu();
    let n = (1 << 24) + 3;
    for variant in QuickVariant::ALL {
        let opts = QuickOptions::default().with_variant(variant);
        for pattern in PATTERNS {
            sorts_exactly(&gpu, &keys::<u32>(n, pattern, 5), &opts, pattern);
            sorts_exactly(&gpu, &keys::<f64>(n, pattern, 6), &opts, pattern);
        }
    }
}

/// Keys only: `input` sorted by `opts` equals the CPU reference.
fn sorts_exactly<K: SortKey>(gpu: &Gpu, input: &[K], opts: &QuickOptions, pattern: Pattern) {
    let mut expected = input.to_vec();
    sortlab_cpu_reference::sort::sort(&mut expected, opts.order);
    let mut k = DeviceBuffer::from_host(gpu, input).unwrap();
    quick::sort_keys(gpu, &mut k, opts).unwrap();
    let what = format!("{} n={} {} {pattern}", K::NAME, input.len(), opts.variant);
    same_bits(&expected, &k.to_host().unwrap(), &what);
}

/// The fallback past the round limit (one block's merge sort of a long piece), forced by a
/// limit of 1 and 2 rounds: pairs (u32 and u64 keys, u64 index values) on every pattern.
#[test]
#[ignore = "needs a CUDA device"]
fn fallback_past_the_round_limit() {
    let gpu = gpu();
    for variant in QuickVariant::ALL {
        for order in [Order::Ascending, Order::Descending] {
            let opts = QuickOptions::default()
                .with_variant(variant)
                .with_order(order);
            for rounds in [1, 2] {
                for (s, pattern) in PATTERNS.into_iter().enumerate() {
                    for n in [20_001, 300_007] {
                        fallback_case(&gpu, &keys::<u32>(n, pattern, s as u64), &opts, rounds);
                        fallback_case(&gpu, &keys::<f64>(n, pattern, s as u64), &opts, rounds);
                    }
                }
            }
        }
    }
}

fn fallback_case<K: SortKey>(gpu: &Gpu, input: &[K], opts: &QuickOptions, rounds: u32) {
    let what = format!(
        "{} n={} {:?} {} at most {rounds} rounds",
        K::NAME,
        input.len(),
        opts.order,
        opts.variant
    );
    let mut expected = input.to_vec();
    sortlab_cpu_reference::sort::sort(&mut expected, opts.order);
    let values: Vec<u64> = (0..input.len() as u64).collect();
    let mut k = DeviceBuffer::from_host(gpu, input).unwrap();
    let mut v = DeviceBuffer::from_host(gpu, &values).unwrap();
    quick::sort_pairs_with_round_limit(gpu, &mut k, &mut v, opts, rounds)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let (keys, values) = (k.to_host().unwrap(), v.to_host().unwrap());
    same_bits(&expected, &keys, &what);
    let mut seen = vec![false; input.len()];
    for (i, (key, &val)) in keys.iter().zip(&values).enumerate() {
        assert_eq!(
            key.to_ordered_bits(),
            input[val as usize].to_ordered_bits(),
            "{what}: value {val} at {i} left its key"
        );
        assert!(
            !std::mem::replace(&mut seen[val as usize], true),
            "{what}: {val} twice"
        );
    }
}

/// Floats with NaN of both signs, infinities, -0.0 and +0.0, duplicated: total order.
#[test]
#[ignore = "needs a CUDA device"]
fn float_specials() {
    let gpu = gpu();
    let specials = [
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        1.0,
        -1.0,
        f64::MIN_POSITIVE / 2.0,
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let n = 100_003;
    let f64s: Vec<f64> = (0..n)
        .map(|_| specials[rng.gen_range(0..specials.len())])
        .collect();
    let f32s: Vec<f32> = f64s.iter().map(|&x| x as f32).collect();
    for variant in QuickVariant::ALL {
        for order in [Order::Ascending, Order::Descending] {
            let opts = QuickOptions::default()
                .with_variant(variant)
                .with_order(order);
            check_sort(&gpu, &f64s, &opts, Pattern::FloatSpecials);
            check_sort(&gpu, &f32s, &opts, Pattern::FloatSpecials);
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn scratch_and_errors_leave_data() {
    let gpu = gpu();
    for variant in QuickVariant::ALL {
        let opts = QuickOptions::default().with_variant(variant);
        let input = keys::<f32>(50_000, Pattern::FullRange, 1);
        let values: Vec<u64> = (0..input.len() as u64).collect();
        let mut k = DeviceBuffer::from_host(&gpu, &input).unwrap();
        let mut v = DeviceBuffer::from_host(&gpu, &values).unwrap();
        let need = quick::scratch_bytes_pairs::<f32, u64>(input.len(), &opts);
        assert!(need >= quick::scratch_bytes::<f32>(input.len(), &opts));
        // Too little scratch: an error, nothing touched.
        let mut small = DeviceBuffer::<u8>::alloc(&gpu, need - 1).unwrap();
        let e = quick::sort_pairs_with_scratch(&gpu, &mut k, &mut v, &opts, &mut small);
        assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
        let key_need = quick::scratch_bytes::<f32>(input.len(), &opts);
        let mut small = DeviceBuffer::<u8>::alloc(&gpu, key_need - 1).unwrap();
        let e = quick::sort_keys_with_scratch(&gpu, &mut k, &opts, &mut small);
        assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
        same_bits(&input, &k.to_host().unwrap(), "untouched keys");
        assert_eq!(v.to_host().unwrap(), values);
        // Mismatched lengths: an error, nothing touched.
        let mut short = DeviceBuffer::from_host(&gpu, &values[1..]).unwrap();
        let e = quick::sort_pairs(&gpu, &mut k, &mut short, &opts);
        assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
        let e = quick::sort_pairs_host(&gpu, &mut input.clone(), &mut values[1..].to_vec(), &opts);
        assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
        same_bits(&input, &k.to_host().unwrap(), "untouched keys");
        assert_eq!(short.to_host().unwrap(), values[1..]);
        // Exact scratch, used twice (the second sort's input is sorted already).
        let mut scratch = DeviceBuffer::<u8>::alloc(&gpu, need).unwrap();
        let mut expected = input.clone();
        sortlab_cpu_reference::sort::sort(&mut expected, Order::Ascending);
        for _ in 0..2 {
            quick::sort_pairs_with_scratch(&gpu, &mut k, &mut v, &opts, &mut scratch).unwrap();
            let (ok, ov) = (k.to_host().unwrap(), v.to_host().unwrap());
            same_bits(&expected, &ok, "pairs with scratch");
            for (key, &val) in ok.iter().zip(&ov) {
                assert_eq!(key.to_bits(), input[val as usize].to_bits());
            }
        }
        // Keys with a larger scratch than needed; one tile with an empty scratch.
        let mut k = DeviceBuffer::from_host(&gpu, &input).unwrap();
        let mut big = DeviceBuffer::<u8>::alloc(&gpu, need + 4096).unwrap();
        quick::sort_keys_with_scratch(&gpu, &mut k, &opts, &mut big).unwrap();
        same_bits(
            &expected,
            &k.to_host().unwrap(),
            "keys with a larger scratch",
        );
        let tile = 8192;
        assert_eq!(quick::scratch_bytes_pairs::<f32, u64>(tile, &opts), 0);
        let mut k = DeviceBuffer::from_host(&gpu, &input[..tile]).unwrap();
        let mut none = DeviceBuffer::<u8>::alloc(&gpu, 0).unwrap();
        quick::sort_keys_with_scratch(&gpu, &mut k, &opts, &mut none).unwrap();
        let mut e = input[..tile].to_vec();
        sortlab_cpu_reference::sort::sort(&mut e, Order::Ascending);
        same_bits(&e, &k.to_host().unwrap(), "one tile");
    }
}

/// The host conveniences.
#[test]
#[ignore = "needs a CUDA device"]
fn host_conveniences() {
    let gpu = gpu();
    let input = keys::<i64>(123_457, Pattern::FewDistinct, 8);
    let values: Vec<u32> = (0..input.len() as u32).collect();
    for variant in QuickVariant::ALL {
        let opts = QuickOptions::default()
            .with_variant(variant)
            .with_order(Order::Descending);
        let mut expected = input.clone();
        sortlab_cpu_reference::sort::sort(&mut expected, Order::Descending);
        let (mut k, mut v) = (input.clone(), values.clone());
        quick::sort_pairs_host(&gpu, &mut k, &mut v, &opts).unwrap();
        assert_eq!(k, expected);
        for (key, &val) in k.iter().zip(&v) {
            assert_eq!(*key, input[val as usize]);
        }
        let mut k = input.clone();
        quick::sort_keys_host(&gpu, &mut k, &opts).unwrap();
        assert_eq!(k, expected);
    }
}

/// 2^32 + 5 u32 keys (16 GiB, and as much scratch) with each variant, and 2^32 + 5 u32/u32
/// pairs with the fast one: sorted, and the same multiset (sum and sum of squares, wrapping);
/// pairs: every value the index of an equal key. Minutes long: `scripts/gpu-check` runs the
/// `past_2_pow_32` tests only with `SORTLAB_LARGE=1`; a device without the memory fails it.
#[test]
#[ignore = "needs a CUDA device with 72 GiB of memory (scripts/gpu-check: SORTLAB_LARGE=1)"]
fn past_2_pow_32_keys() {
    let gpu = gpu();
    let n: usize = (1 << 32) + 5;
    require_free_memory(&gpu, 72 << 30);
    let input = large_input(n);
    let want = multiset_digest(&input);
    for variant in QuickVariant::ALL {
        for order in [Order::Ascending, Order::Descending] {
            let opts = QuickOptions::default()
                .with_variant(variant)
                .with_order(order);
            let mut keys = DeviceBuffer::from_host(&gpu, &input).unwrap();
            quick::sort_keys(&gpu, &mut keys, &opts).unwrap_or_else(|e| panic!("{variant}: {e}"));
            let out = keys.to_host().unwrap();
            drop(keys);
            check::check_sorted(&out, order).unwrap_or_else(|e| panic!("{variant} {order}: {e}"));
            assert_eq!(
                multiset_digest(&out),
                want,
                "{variant} {order}: not a permutation"
            );
            eprintln!("2^32 + 5 keys, {variant} {order}: ok");
        }
    }
    let opts = QuickOptions::default();
    let values: Vec<u32> = (0..n as u64).map(|i| i as u32).collect();
    let mut k = DeviceBuffer::from_host(&gpu, &input).unwrap();
    let mut v = DeviceBuffer::from_host(&gpu, &values).unwrap();
    drop(values);
    quick::sort_pairs(&gpu, &mut k, &mut v, &opts).unwrap();
    let (ok, ov) = (k.to_host().unwrap(), v.to_host().unwrap());
    check::check_sorted(&ok, Order::Ascending).unwrap();
    for (i, (&key, &val)) in ok.iter().zip(&ov).enumerate().step_by(997) {
        let a = large_input_key(val as u64);
        let b = large_input_key(val as u64 + (1 << 32));
        assert!(key == a || key == b, "pair {i}: key {key} value {val}");
    }
    eprintln!("2^32 + 5 pairs, fast: ok");
}
