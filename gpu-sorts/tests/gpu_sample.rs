//! GPU tests of the sample sorts beyond the property suite of `sortlab-verify`: every variant,
//! key type and order, keys and pairs (u32 and u64 values), bit for bit against the CPU
//! reference's stable sort (both variants are stable), at the lengths where code paths change
//! and on every adversarial shape (sorted, reverse, pipe organ, all equal, few distinct, zipf);
//! scratch memory; errors leaving the data untouched; and 2^32 + 5 keys (with
//! `SORTLAB_LARGE=1`). Every test needs a CUDA device.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sortlab_cpu_reference::check;
use sortlab_gpu_sorts::sample::{self, SampleOptions, SampleVariant};
use sortlab_primitives::{DeviceBuffer, Error, Gpu, Order, SortKey, SortValue};
use sortlab_verify::testing::{
    gpu, large_input, large_input_key, multiset_digest, require_free_memory, stable_index_pairs,
};
use sortlab_verify::{generate, Pattern};

/// Input shapes: `sortlab-verify`'s patterns.
const RANDOM: Pattern = Pattern::FullRange;
const FEW_DISTINCT: Pattern = Pattern::FewDistinct;
const SHAPES: [Pattern; 7] = [
    RANDOM,
    FEW_DISTINCT,
    Pattern::Zipf,
    Pattern::Ascending,
    Pattern::Descending,
    Pattern::AllEqual,
    Pattern::PipeOrgan,
];

/// `n` keys of `shape`.
fn keys<K: SortKey>(n: usize, shape: Pattern, seed: u64) -> Vec<K> {
    generate(shape, n, seed)
}

/// Sorts `input` by `opts` (keys, and pairs with u32 and u64 index values) on the device and
/// checks the results against the CPU reference's stable sort bit for bit.
fn check_sort<K: SortKey>(gpu: &Gpu, input: &[K], opts: &SampleOptions, shape: Pattern) {
    let what = format!(
        "{} n={} {:?} {} shape {shape}",
        K::NAME,
        input.len(),
        opts.order,
        opts.variant
    );
    let mut expected = input.to_vec();
    sortlab_cpu_reference::sort::sort(&mut expected, opts.order);
    let mut keys = DeviceBuffer::from_host(gpu, input).unwrap();
    sample::sort_keys(gpu, &mut keys, opts).unwrap_or_else(|e| panic!("{what}: {e}"));
    check::check_equal(&expected, &keys.to_host().unwrap())
        .unwrap_or_else(|e| panic!("keys {what}: {e}"));
    check_pairs::<K, u32>(gpu, input, opts, &what);
    check_pairs::<K, u64>(gpu, input, opts, &what);
}

fn check_pairs<K: SortKey, V: SortValue + TryFrom<usize>>(
    gpu: &Gpu,
    input: &[K],
    opts: &SampleOptions,
    what: &str,
) where
    <V as TryFrom<usize>>::Error: std::fmt::Debug,
{
    let (values, ek, ev) = stable_index_pairs::<K, V>(input, opts.order);
    let mut k = DeviceBuffer::from_host(gpu, input).unwrap();
    let mut v = DeviceBuffer::from_host(gpu, &values).unwrap();
    sample::sort_pairs(gpu, &mut k, &mut v, opts).unwrap_or_else(|e| panic!("{what}: {e}"));
    check::check_pairs_equal(&ek, &ev, &k.to_host().unwrap(), &v.to_host().unwrap())
        .unwrap_or_else(|e| panic!("pairs {what}: {e}"));
}

fn every_type(gpu: &Gpu, n: usize, shape: Pattern, seed: u64, opts: &SampleOptions) {
    check_sort(gpu, &keys::<u32>(n, shape, seed), opts, shape);
    check_sort(gpu, &keys::<i32>(n, shape, seed), opts, shape);
    check_sort(gpu, &keys::<f32>(n, shape, seed), opts, shape);
    check_sort(gpu, &keys::<u64>(n, shape, seed), opts, shape);
    check_sort(gpu, &keys::<i64>(n, shape, seed), opts, shape);
    check_sort(gpu, &keys::<f64>(n, shape, seed), opts, shape);
}

/// Lengths 0, 1, 2, every edge length (final tiles, two of them, count tiles, chunks, copy
/// pieces) ±1, 3, 5 and 7 of them and a bit, and 10^6 + 7.
fn lengths(variant: SampleVariant) -> Vec<usize> {
    let mut v = vec![0, 1, 2, 3, 33, 1000];
    for e in sample::edge_lengths(variant) {
        v.extend([e - 1, e, e + 1]);
    }
    for e in sample::edge_lengths(variant) {
        v.extend([3 * e + 1, 5 * e - 1, 7 * e + 3]);
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
    for variant in SampleVariant::ALL {
        for order in [Order::Ascending, Order::Descending] {
            let opts = SampleOptions::default()
                .with_variant(variant)
                .with_order(order);
            for (i, n) in lengths(variant).into_iter().enumerate() {
                every_type(&gpu, n, SHAPES[i % SHAPES.len()], i as u64, &opts);
            }
        }
    }
}

/// Every input shape (all equal, few distinct, sorted, reverse, pipe organ...) at lengths of
/// one, two and three levels.
#[test]
#[ignore = "needs a CUDA device"]
fn every_shape() {
    let gpu = gpu();
    for variant in SampleVariant::ALL {
        for order in [Order::Ascending, Order::Descending] {
            let opts = SampleOptions::default()
                .with_variant(variant)
                .with_order(order);
            for (s, shape) in SHAPES.into_iter().enumerate() {
                for n in [5000, 70_001, 300_007] {
                    every_type(&gpu, n, shape, n as u64 + s as u64, &opts);
                }
            }
        }
    }
}

/// Floats with NaN of both signs, infinities, -0.0 and +0.0, duplicated: total order, stable.
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
    for variant in SampleVariant::ALL {
        for order in [Order::Ascending, Order::Descending] {
            let opts = SampleOptions::default()
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
    for variant in SampleVariant::ALL {
        let opts = SampleOptions::default().with_variant(variant);
        let input = keys::<f32>(50_000, RANDOM, 1);
        let values: Vec<u64> = (0..input.len() as u64).collect();
        let mut k = DeviceBuffer::from_host(&gpu, &input).unwrap();
        let mut v = DeviceBuffer::from_host(&gpu, &values).unwrap();
        let need = sample::scratch_bytes_pairs::<f32, u64>(input.len(), &opts);
        assert!(need >= sample::scratch_bytes::<f32>(input.len(), &opts));
        // Too little scratch: an error, nothing touched.
        let mut small = DeviceBuffer::<u8>::alloc(&gpu, need - 1).unwrap();
        let e = sample::sort_pairs_with_scratch(&gpu, &mut k, &mut v, &opts, &mut small);
        assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
        let key_need = sample::scratch_bytes::<f32>(input.len(), &opts);
        let mut small = DeviceBuffer::<u8>::alloc(&gpu, key_need - 1).unwrap();
        let e = sample::sort_keys_with_scratch(&gpu, &mut k, &opts, &mut small);
        assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
        check::check_equal(&input, &k.to_host().unwrap()).unwrap();
        assert_eq!(v.to_host().unwrap(), values);
        // Mismatched lengths: an error, nothing touched.
        let mut short = DeviceBuffer::from_host(&gpu, &values[1..]).unwrap();
        let e = sample::sort_pairs(&gpu, &mut k, &mut short, &opts);
        assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
        let e = sample::sort_pairs_host(&gpu, &mut input.clone(), &mut values[1..].to_vec(), &opts);
        assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
        check::check_equal(&input, &k.to_host().unwrap()).unwrap();
        assert_eq!(short.to_host().unwrap(), values[1..]);
        // Exact scratch, used twice (the second sort's input is sorted already).
        let mut scratch = DeviceBuffer::<u8>::alloc(&gpu, need).unwrap();
        let (mut ek, mut ev) = (input.clone(), values.clone());
        sortlab_cpu_reference::sort::sort_pairs(&mut ek, &mut ev, Order::Ascending).unwrap();
        for _ in 0..2 {
            sample::sort_pairs_with_scratch(&gpu, &mut k, &mut v, &opts, &mut scratch).unwrap();
            check::check_pairs_equal(&ek, &ev, &k.to_host().unwrap(), &v.to_host().unwrap())
                .unwrap();
        }
        // Keys with a larger scratch than needed; one tile with an empty scratch.
        let mut k = DeviceBuffer::from_host(&gpu, &input).unwrap();
        let mut big = DeviceBuffer::<u8>::alloc(&gpu, need + 4096).unwrap();
        sample::sort_keys_with_scratch(&gpu, &mut k, &opts, &mut big).unwrap();
        check::check_equal(&ek, &k.to_host().unwrap()).unwrap();
        // The one-block limit of 4-byte keys: the final tile (fast) or the notes' 1024.
        let tile = match variant {
            SampleVariant::Fast => 8192,
            SampleVariant::Notes => 1024,
        };
        assert_eq!(sample::scratch_bytes_pairs::<f32, u64>(tile, &opts), 0);
        assert!(sample::scratch_bytes::<f32>(tile + 1, &opts) > 0);
        let mut k = DeviceBuffer::from_host(&gpu, &input[..tile]).unwrap();
        let mut none = DeviceBuffer::<u8>::alloc(&gpu, 0).unwrap();
        sample::sort_keys_with_scratch(&gpu, &mut k, &opts, &mut none).unwrap();
        let mut e = input[..tile].to_vec();
        sortlab_cpu_reference::sort::sort(&mut e, Order::Ascending);
        check::check_equal(&e, &k.to_host().unwrap()).unwrap();
    }
}

/// The host conveniences, against the rayon sample sort of the CPU reference (its twin).
#[test]
#[ignore = "needs a CUDA device"]
fn host_conveniences() {
    let gpu = gpu();
    let input = keys::<i64>(123_457, FEW_DISTINCT, 8);
    let values: Vec<u32> = (0..input.len() as u32).collect();
    for variant in SampleVariant::ALL {
        let opts = SampleOptions::default()
            .with_variant(variant)
            .with_order(Order::Descending);
        let (mut k, mut v) = (input.clone(), values.clone());
        sample::sort_pairs_host(&gpu, &mut k, &mut v, &opts).unwrap();
        let (mut ek, mut ev) = (input.clone(), values.clone());
        sortlab_cpu_reference::sample::sort_pairs(&mut ek, &mut ev, Order::Descending).unwrap();
        assert_eq!((k, v), (ek.clone(), ev));
        let mut k = input.clone();
        sample::sort_keys_host(&gpu, &mut k, &opts).unwrap();
        assert_eq!(k, ek);
    }
}

/// The adversarial shapes at 2^22 + 3 keys (three levels of buckets for uniform keys of 4
/// bytes, more for the sorted and pipe-organ ones if the sample failed them), u32 and u64 keys
/// with u32 values, against the stable reference: bounded depth shows as no
/// `Error::Internal`.
#[test]
#[ignore = "needs a CUDA device"]
fn adversarial_shapes_at_four_million() {
    let gpu = gpu();
    let n = (1 << 22) + 3;
    for variant in SampleVariant::ALL {
        for order in [Order::Ascending, Order::Descending] {
            let opts = SampleOptions::default()
                .with_variant(variant)
                .with_order(order);
            for (s, shape) in SHAPES.into_iter().enumerate() {
                let what = format!("{variant} {order} {shape}");
                let a = keys::<u32>(n, shape, 40 + s as u64);
                check_pairs::<u32, u32>(&gpu, &a, &opts, &what);
                let b = keys::<u64>(n, shape, 50 + s as u64);
                check_pairs::<u64, u32>(&gpu, &b, &opts, &what);
            }
        }
    }
}

/// 2^32 + 5 u32 keys (16 GiB, as much scratch and up to 6.5 GiB of lists) and 2^32 + 5
/// u32/u32 pairs, with the fast variant (the notes' lists, sized for its 1024-key buckets,
/// would not fit 80 GiB beside the data; `adversarial_shapes_at_four_million` covers it
/// deep enough: several levels, every shape): sorted, and the same multiset (sum and sum of squares, wrapping);
/// pairs: every value the index of an equal key. Minutes long: `scripts/gpu-check` runs the
/// `past_2_pow_32` tests only with `SORTLAB_LARGE=1`; a device without the memory fails it.
#[test]
#[ignore = "needs a CUDA device with 72 GiB of memory (scripts/gpu-check: SORTLAB_LARGE=1)"]
fn past_2_pow_32_keys() {
    let gpu = gpu();
    let n: usize = (1 << 32) + 5;
    require_free_memory(&gpu, 72 << 30);
    let input = large_input(n);
    let digest = multiset_digest;
    let want = digest(&input);
    for variant in [SampleVariant::Fast] {
        for order in [Order::Ascending, Order::Descending] {
            let opts = SampleOptions::default()
                .with_variant(variant)
                .with_order(order);
            let mut keys = DeviceBuffer::from_host(&gpu, &input).unwrap();
            sample::sort_keys(&gpu, &mut keys, &opts).unwrap_or_else(|e| panic!("{variant}: {e}"));
            let out = keys.to_host().unwrap();
            drop(keys);
            check::check_sorted(&out, order).unwrap_or_else(|e| panic!("{variant} {order}: {e}"));
            assert_eq!(digest(&out), want, "{variant} {order}: not a permutation");
            eprintln!("2^32 + 5 keys, {variant} {order}: ok");
        }
    }
    // Pairs, fast variant: the values (input indices, wrapping at 2^32) must carry their keys.
    let opts = SampleOptions::default();
    let values: Vec<u32> = (0..n as u64).map(|i| i as u32).collect();
    let mut k = DeviceBuffer::from_host(&gpu, &input).unwrap();
    let mut v = DeviceBuffer::from_host(&gpu, &values).unwrap();
    drop(values);
    sample::sort_pairs(&gpu, &mut k, &mut v, &opts).unwrap();
    let (ok, ov) = (k.to_host().unwrap(), v.to_host().unwrap());
    check::check_sorted(&ok, Order::Ascending).unwrap();
    for (i, (&key, &val)) in ok.iter().zip(&ov).enumerate().step_by(997) {
        let a = large_input_key(val as u64);
        let b = large_input_key(val as u64 + (1 << 32));
        assert!(key == a || key == b, "pair {i}: key {key} value {val}");
    }
    eprintln!("2^32 + 5 pairs, fast: ok");
}
