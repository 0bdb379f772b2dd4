//! GPU tests of the hybrid sorts beyond the property suite of `sortlab-verify`: every variant,
//! key type and order, keys and pairs (u32 and u64 index values), at the lengths where code
//! paths change and on every adversarial pattern; buckets that exceed shared memory (the
//! paper's at a few million keys, and a forced one in the fast variant); scratch memory; errors
//! leaving the data untouched; and 2^32 + 5 keys (with `SORTLAB_LARGE=1`). The sorts are
//! unstable: keys must equal the CPU reference bit for bit, and every value (an input index)
//! must sit by a key equal to its input key, the values a permutation. Every test needs a CUDA
//! device.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sortlab_cpu_reference::check;
use sortlab_gpu_sorts::hybrid::{self, HybridOptions, HybridVariant};
use sortlab_primitives::{DeviceBuffer, Error, Gpu, Order, SortKey, SortValue};
use sortlab_verify::testing::{gpu, large_input, multiset_digest, require_free_memory};
use sortlab_verify::{generate, Pattern};

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

fn describe<K: SortKey>(n: usize, opts: &HybridOptions, shape: &str) -> String {
    format!(
        "{} n={n} {:?} {} shape {shape}",
        K::NAME,
        opts.order,
        opts.variant
    )
}

/// Unstable pairs check: the keys equal `expected` bit for bit, every value (an input index)
/// sits by a key equal to its input key, and the values are a permutation.
fn check_pairs_unstable<K: SortKey, V: SortValue + Copy + Into<u64>>(
    input: &[K],
    expected: &[K],
    keys: &[K],
    values: &[V],
    what: &str,
) {
    check::check_equal(expected, keys).unwrap_or_else(|e| panic!("pairs {what}: {e}"));
    assert_eq!(values.len(), input.len(), "{what}");
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

/// Sorts `input` by `opts` (keys, and pairs with u32 and u64 index values) on the device and
/// checks the results against the CPU reference's sort.
fn check_sort<K: SortKey>(gpu: &Gpu, input: &[K], opts: &HybridOptions, shape: &str) {
    let what = describe::<K>(input.len(), opts, shape);
    let mut expected = input.to_vec();
    sortlab_cpu_reference::sort::sort(&mut expected, opts.order);
    let mut keys = DeviceBuffer::from_host(gpu, input).unwrap();
    hybrid::sort_keys(gpu, &mut keys, opts).unwrap_or_else(|e| panic!("{what}: {e}"));
    check::check_equal(&expected, &keys.to_host().unwrap())
        .unwrap_or_else(|e| panic!("keys {what}: {e}"));
    check_pairs::<K, u32>(gpu, input, &expected, opts, &what);
    check_pairs::<K, u64>(gpu, input, &expected, opts, &what);
}

fn check_pairs<K: SortKey, V: SortValue + Copy + Into<u64> + TryFrom<usize>>(
    gpu: &Gpu,
    input: &[K],
    expected: &[K],
    opts: &HybridOptions,
    what: &str,
) where
    <V as TryFrom<usize>>::Error: std::fmt::Debug,
{
    let values: Vec<V> = (0..input.len()).map(|i| V::try_from(i).unwrap()).collect();
    let mut k = DeviceBuffer::from_host(gpu, input).unwrap();
    let mut v = DeviceBuffer::from_host(gpu, &values).unwrap();
    hybrid::sort_pairs(gpu, &mut k, &mut v, opts).unwrap_or_else(|e| panic!("{what}: {e}"));
    check_pairs_unstable(
        input,
        expected,
        &k.to_host().unwrap(),
        &v.to_host().unwrap(),
        what,
    );
}

fn every_type(gpu: &Gpu, n: usize, shape: Pattern, seed: u64, opts: &HybridOptions) {
    let s = shape.to_string();
    check_sort(gpu, &keys::<u32>(n, shape, seed), opts, &s);
    check_sort(gpu, &keys::<i32>(n, shape, seed), opts, &s);
    check_sort(gpu, &keys::<f32>(n, shape, seed), opts, &s);
    check_sort(gpu, &keys::<u64>(n, shape, seed), opts, &s);
    check_sort(gpu, &keys::<i64>(n, shape, seed), opts, &s);
    check_sort(gpu, &keys::<f64>(n, shape, seed), opts, &s);
}

/// Lengths 0, 1, 2, 3, small odd ones, every edge length up to 10^6 (the one-block capacities)
/// ±1, a few multiples of them, and 10^6 + 7.
fn lengths(variant: HybridVariant) -> Vec<usize> {
    let mut v = vec![0, 1, 2, 3, 4, 5, 7, 33, 1000];
    let edges: Vec<usize> = hybrid::edge_lengths(variant)
        .into_iter()
        .filter(|&e| e < 1_000_000)
        .collect();
    for &e in &edges {
        v.extend([e - 1, e, e + 1, 2 * e + 3, 5 * e - 1]);
    }
    v.push(1_000_007);
    v.sort_unstable();
    v.dedup();
    v
}

fn options(variant: HybridVariant, order: Order) -> HybridOptions {
    HybridOptions::default()
        .with_variant(variant)
        .with_order(order)
}

#[test]
#[ignore = "needs a CUDA device"]
fn every_variant_type_order_and_length() {
    let gpu = gpu();
    for variant in HybridVariant::ALL {
        for order in [Order::Ascending, Order::Descending] {
            let opts = options(variant, order);
            for (i, n) in lengths(variant).into_iter().enumerate() {
                every_type(&gpu, n, SHAPES[i % SHAPES.len()], i as u64, &opts);
            }
        }
    }
}

/// Every input shape (all equal, few distinct, zipf, sorted, reverse, pipe organ) at lengths of
/// one block, a few buckets and many buckets.
#[test]
#[ignore = "needs a CUDA device"]
fn every_shape() {
    let gpu = gpu();
    for variant in HybridVariant::ALL {
        for order in [Order::Ascending, Order::Descending] {
            let opts = options(variant, order);
            for (s, shape) in SHAPES.into_iter().enumerate() {
                for n in [5000, 70_001, 300_007] {
                    every_type(&gpu, n, shape, n as u64 + s as u64, &opts);
                }
            }
        }
    }
}

/// The paper's buckets past shared memory (n / 1024 above the capacity): sorted by the vector
/// merge sort in global memory. Around each edge length past 10^6, u32 and f64 keys.
#[test]
#[ignore = "needs a CUDA device"]
fn paper_global_memory_buckets() {
    let gpu = gpu();
    for order in [Order::Ascending, Order::Descending] {
        let opts = options(HybridVariant::Paper, order);
        for e in hybrid::edge_lengths(HybridVariant::Paper) {
            if e < 1_000_000 {
                continue;
            }
            for (i, n) in [e - 1, e + 1].into_iter().enumerate() {
                let shape = [RANDOM, Pattern::Zipf][i];
                let s = shape.to_string();
                check_sort(&gpu, &keys::<u32>(n, shape, e as u64), &opts, &s);
                check_sort(&gpu, &keys::<f64>(n, shape, e as u64), &opts, &s);
            }
        }
    }
}

/// The fast variant's sample positions (as `hybrid_sample` of `hybrid.cu` picks them), for an
/// input of n keys whose one-block capacity is `capacity`.
fn sample_positions(n: usize, capacity: usize) -> Vec<usize> {
    let buckets = n.div_ceil(capacity / 2);
    let s = (buckets * 32) as u64;
    let step = n as u64 / s;
    let mix = |mut x: u64| {
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^ (x >> 31)
    };
    (0..s)
        .map(|i| (i * step + if step > 1 { mix(i) % step } else { 0 }) as usize)
        .collect()
}

/// An input crafted against the fast variant's sample: every sampled key is one value, so all
/// pivots are equal and the keys above and below them form two buckets far past shared memory,
/// which the vector merge sort in global memory must sort (slowly, but correctly). The sample
/// depends on the capacity (8192 for u32 keys, 4096 for u32 pairs and f64 keys, 2048 for f64
/// pairs): each input is crafted for one of them (the other forms of `check_sort` then see an
/// ordinary input).
#[test]
#[ignore = "needs a CUDA device"]
fn fast_oversized_buckets() {
    let gpu = gpu();
    let n = 300_007;
    for order in [Order::Ascending, Order::Descending] {
        let opts = options(HybridVariant::Fast, order);
        for capacity in [8192, 4096] {
            let mut k32 = keys::<u32>(n, RANDOM, 5);
            for p in sample_positions(n, capacity) {
                k32[p] = 1 << 31;
            }
            check_sort(&gpu, &k32, &opts, &format!("sample-adversarial {capacity}"));
        }
        for capacity in [4096, 2048] {
            let mut f64s = keys::<f64>(n, RANDOM, 6);
            for p in sample_positions(n, capacity) {
                f64s[p] = 0.5;
            }
            check_sort(
                &gpu,
                &f64s,
                &opts,
                &format!("sample-adversarial {capacity}"),
            );
        }
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
    for variant in HybridVariant::ALL {
        for order in [Order::Ascending, Order::Descending] {
            let opts = options(variant, order);
            check_sort(&gpu, &f64s, &opts, "float specials");
            check_sort(&gpu, &f32s, &opts, "float specials");
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn scratch_and_errors_leave_data() {
    let gpu = gpu();
    for variant in HybridVariant::ALL {
        let opts = HybridOptions::default().with_variant(variant);
        let input = keys::<f32>(50_000, RANDOM, 1);
        let values: Vec<u64> = (0..input.len() as u64).collect();
        let mut expected = input.clone();
        sortlab_cpu_reference::sort::sort(&mut expected, Order::Ascending);
        let mut k = DeviceBuffer::from_host(&gpu, &input).unwrap();
        let mut v = DeviceBuffer::from_host(&gpu, &values).unwrap();
        let need = hybrid::scratch_bytes_pairs::<f32, u64>(input.len(), &opts);
        let key_need = hybrid::scratch_bytes::<f32>(input.len(), &opts);
        assert!(need >= key_need && key_need > 0);
        // Too little scratch: an error, nothing touched.
        let mut small = DeviceBuffer::<u8>::alloc(&gpu, need - 1).unwrap();
        let e = hybrid::sort_pairs_with_scratch(&gpu, &mut k, &mut v, &opts, &mut small);
        assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
        let mut small = DeviceBuffer::<u8>::alloc(&gpu, key_need - 1).unwrap();
        let e = hybrid::sort_keys_with_scratch(&gpu, &mut k, &opts, &mut small);
        assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
        check::check_equal(&input, &k.to_host().unwrap()).unwrap();
        assert_eq!(v.to_host().unwrap(), values);
        // Mismatched lengths: an error, nothing touched.
        let mut short = DeviceBuffer::from_host(&gpu, &values[1..]).unwrap();
        let e = hybrid::sort_pairs(&gpu, &mut k, &mut short, &opts);
        assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
        let e = hybrid::sort_pairs_host(&gpu, &mut input.clone(), &mut values[1..].to_vec(), &opts);
        assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
        check::check_equal(&input, &k.to_host().unwrap()).unwrap();
        assert_eq!(short.to_host().unwrap(), values[1..]);
        // Exact scratch, used twice (the second sort's input is sorted already).
        let mut scratch = DeviceBuffer::<u8>::alloc(&gpu, need).unwrap();
        for _ in 0..2 {
            hybrid::sort_pairs_with_scratch(&gpu, &mut k, &mut v, &opts, &mut scratch).unwrap();
            let (ok, ov) = (k.to_host().unwrap(), v.to_host().unwrap());
            check_pairs_unstable(&input, &expected, &ok, &ov, "exact scratch");
        }
        // Keys with a larger scratch than needed; one block's capacity with an empty scratch.
        let mut k = DeviceBuffer::from_host(&gpu, &input).unwrap();
        let mut big = DeviceBuffer::<u8>::alloc(&gpu, need + 4096).unwrap();
        hybrid::sort_keys_with_scratch(&gpu, &mut k, &opts, &mut big).unwrap();
        check::check_equal(&expected, &k.to_host().unwrap()).unwrap();
        let cap = hybrid::edge_lengths(variant)[1]; // 4096: f32 keys with u64 values
        assert_eq!(hybrid::scratch_bytes_pairs::<f32, u64>(cap, &opts), 0);
        let mut k = DeviceBuffer::from_host(&gpu, &input[..cap]).unwrap();
        let mut v = DeviceBuffer::from_host(&gpu, &values[..cap]).unwrap();
        let mut none = DeviceBuffer::<u8>::alloc(&gpu, 0).unwrap();
        hybrid::sort_pairs_with_scratch(&gpu, &mut k, &mut v, &opts, &mut none).unwrap();
        let mut e = input[..cap].to_vec();
        sortlab_cpu_reference::sort::sort(&mut e, Order::Ascending);
        let (ok, ov) = (k.to_host().unwrap(), v.to_host().unwrap());
        check_pairs_unstable(&input[..cap], &e, &ok, &ov, "one block");
    }
}

/// The host conveniences.
#[test]
#[ignore = "needs a CUDA device"]
fn host_conveniences() {
    let gpu = gpu();
    let input = keys::<i64>(123_457, FEW_DISTINCT, 8);
    let values: Vec<u32> = (0..input.len() as u32).collect();
    let mut expected = input.clone();
    sortlab_cpu_reference::sort::sort(&mut expected, Order::Descending);
    for variant in HybridVariant::ALL {
        let opts = options(variant, Order::Descending);
        let (mut k, mut v) = (input.clone(), values.clone());
        hybrid::sort_pairs_host(&gpu, &mut k, &mut v, &opts).unwrap();
        check_pairs_unstable(&input, &expected, &k, &v, "host pairs");
        let mut k = input.clone();
        hybrid::sort_keys_host(&gpu, &mut k, &opts).unwrap();
        assert_eq!(k, expected);
    }
}

/// 2^32 + 5 u32 keys (16 GiB, and 32 GiB of scratch) with each variant, both orders: sorted,
/// and the same multiset (sum and sum of squares, wrapping). Pairs are not tested this far: a
/// u32/u32 pair's scratch is 40 bytes, past an 80 GiB device at 2^32. Minutes
/// long: `scripts/gpu-check` runs the `past_2_pow_32` tests only with `SORTLAB_LARGE=1`; a
/// device without the memory fails it.
#[test]
#[ignore = "needs a CUDA device with 56 GiB of memory (scripts/gpu-check: SORTLAB_LARGE=1)"]
fn past_2_pow_32_keys() {
    let gpu = gpu();
    let n: usize = (1 << 32) + 5;
    require_free_memory(&gpu, 56 << 30);
    let input = large_input(n);
    let want = multiset_digest(&input);
    for variant in HybridVariant::ALL {
        for order in [Order::Ascending, Order::Descending] {
            let opts = options(variant, order);
            let mut keys = DeviceBuffer::from_host(&gpu, &input).unwrap();
            hybrid::sort_keys(&gpu, &mut keys, &opts).unwrap_or_else(|e| panic!("{variant}: {e}"));
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
}
