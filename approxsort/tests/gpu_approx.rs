//! GPU tests of `sortlab-approxsort` (ignored: run with `--include-ignored` on a CUDA machine):
//! bad input and errors, every entry point (in place, into, with scratch, host slices), paper
//! and fast variants against each other and the CPU twin, the global-atomic path, 64-bit
//! offsets past 2^32 keys (`past_2_pow_32_keys`: `scripts/gpu-check` runs it only with
//! `SORTLAB_LARGE=1`), and the benchmark
//! (`bench`, prints kernel times; `SORTLAB_BENCH_MAX_LOG2` caps the sizes, default 28).
//! The property suite over patterns and key types is `verify/tests/approx.rs`.

use std::sync::OnceLock;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sortlab_approxsort::{
    approx_sort, approx_sort_host, approx_sort_into, approx_sort_into_with_policy,
    approx_sort_pairs, approx_sort_pairs_into, approx_sort_pairs_into_with_policy,
    approx_sort_pairs_with_scratch, approx_sort_with_scratch, refine, refine_host, refine_pairs,
    refine_pairs_with, refine_with, scratch_bytes, scratch_bytes_pairs, ApproxOptions, ApproxPath,
    ApproxPolicy, ApproxResult, ApproxVariant, Intervals, RefineVariant,
};
use sortlab_cpu_reference::approx as cpu;
use sortlab_cpu_reference::check::{check_equal, check_interval_order, check_permutation};
use sortlab_cpu_reference::sort::sort;
use sortlab_primitives::{median, DeviceBuffer, Error, Gpu, GpuTimer, Order, SortKey};

fn gpu() -> &'static Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| Gpu::new(0).expect("a CUDA device"))
}

fn random_u32(n: usize, seed: u64) -> Vec<u32> {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| r.gen::<u32>() >> 1).collect()
}

fn cpu_opts(o: &ApproxOptions) -> cpu::ApproxOptions {
    cpu::ApproxOptions {
        intervals: o.intervals,
        order: o.order,
        variant: cpu::ApproxVariant::Fast,
        boundaries: match o.boundaries {
            Intervals::EqualWidth => cpu::Intervals::EqualWidth,
            Intervals::Sampled => cpu::Intervals::Sampled,
        },
    }
}

/// The GPU output is a permutation in interval order with the CPU twin's boundaries.
fn check_against_cpu<K: SortKey>(input: &[K], out: &[K], r: &ApproxResult, o: &ApproxOptions) {
    let b = r.boundaries_host().unwrap();
    check_permutation(input, out).unwrap();
    check_interval_order(out, &b, o.order).unwrap();
    let mut c = input.to_vec();
    let cr = cpu::approx_sort(&mut c, &cpu_opts(o)).unwrap();
    assert_eq!(
        b, cr.boundaries,
        "boundaries differ from the CPU twin ({o:?})"
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn bad_input_is_an_error_and_leaves_data() {
    let g = gpu();
    let host = random_u32(1000, 1);
    let mut d = DeviceBuffer::from_host(g, &host).unwrap();
    let zero = ApproxOptions::new(0);
    assert!(matches!(
        approx_sort(g, &mut d, &zero),
        Err(Error::InvalidArgument(_))
    ));
    let too_many = ApproxOptions::new(u32::MAX as usize + 1);
    assert!(matches!(
        approx_sort(g, &mut d, &too_many),
        Err(Error::InvalidArgument(_))
    ));
    let mut v = DeviceBuffer::<u32>::zeroed(g, 999).unwrap();
    assert!(matches!(
        approx_sort_pairs(g, &mut d, &mut v, &ApproxOptions::default()),
        Err(Error::InvalidArgument(_))
    ));
    let mut out = DeviceBuffer::<u32>::alloc(g, 10).unwrap();
    assert!(approx_sort_into(g, &d, &mut out, &ApproxOptions::default()).is_err());
    let mut small = DeviceBuffer::<u8>::alloc(g, 16).unwrap();
    assert!(matches!(
        approx_sort_with_scratch(g, &mut d, &ApproxOptions::default(), &mut small),
        Err(Error::InvalidArgument(_))
    ));
    assert_eq!(d.to_host().unwrap(), host, "keys changed by a failed call");
    // refine with a result of another length, and malformed host boundaries.
    let r = approx_sort(g, &mut d, &ApproxOptions::new(4)).unwrap();
    let mut other = DeviceBuffer::from_host(g, &host[..10]).unwrap();
    assert!(refine(g, &mut other, &r).is_err());
    assert!(ApproxResult::from_host(g, &[0, 5, 3, 10], 10, Order::Ascending).is_err());
    assert!(ApproxResult::from_host(g, &[0], 0, Order::Ascending).is_err());
    let mut k = host[..10].to_vec();
    assert!(refine_host(g, &mut k, &[0, 4, 11], Order::Ascending).is_err());
}

#[test]
#[ignore = "needs a CUDA device"]
fn edge_cases() {
    let g = gpu();
    for variant in ApproxVariant::ALL {
        for boundaries in Intervals::ALL {
            for order in [Order::Ascending, Order::Descending] {
                let o = |m| ApproxOptions {
                    intervals: m,
                    order,
                    variant,
                    boundaries,
                };
                // n = 0: boundaries all zero.
                let mut e = DeviceBuffer::<f32>::alloc(g, 0).unwrap();
                let r = approx_sort(g, &mut e, &o(5)).unwrap();
                assert_eq!(r.boundaries_host().unwrap(), vec![0; 6]);
                assert_eq!(r.path(), ApproxPath::Empty);
                refine(g, &mut e, &r).unwrap();
                // n = 1, all equal, one interval, more intervals than keys, NaN and infinities.
                let specials = vec![
                    1.0f64,
                    f64::NAN,
                    -0.0,
                    0.0,
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                    -f64::NAN,
                    f64::MIN_POSITIVE / 4.0,
                    f64::MAX,
                    f64::MIN,
                ];
                let inputs: Vec<Vec<f64>> = vec![
                    vec![3.0],
                    vec![-2.5; 5000],
                    specials.clone(),
                    specials.iter().cycle().take(7001).copied().collect(),
                ];
                for input in &inputs {
                    for m in [1, 2, 3, input.len() + 7, 40_000] {
                        let opts = o(m);
                        let mut k = input.clone();
                        let b = approx_sort_host(g, &mut k, &opts).unwrap();
                        let mut d = DeviceBuffer::from_host(g, input).unwrap();
                        let r = approx_sort(g, &mut d, &opts).unwrap();
                        assert_eq!(r.boundaries_host().unwrap(), b);
                        check_against_cpu(input, &d.to_host().unwrap(), &r, &opts);
                        refine(g, &mut d, &r).unwrap();
                        let mut want = input.clone();
                        sort(&mut want, order);
                        check_equal(&want, &d.to_host().unwrap()).unwrap();
                    }
                }
            }
        }
    }
}

/// Both refine variants give the full sort, keys and pairs (values with their keys), on
/// uniform, all-equal, few-distinct and special keys, with few and many intervals.
#[test]
#[ignore = "needs a CUDA device"]
fn refine_variants_agree() {
    let g = gpu();
    let specials = [f32::NAN, -0.0, 0.0, 1.0, f32::NEG_INFINITY, -f32::NAN, 7.5];
    let inputs: Vec<Vec<f32>> = vec![
        random_u32(300_000, 5).iter().map(|&x| x as f32).collect(),
        vec![2.0; 100_000],
        random_u32(100_000, 6)
            .iter()
            .map(|&x| (x % 3) as f32)
            .collect(),
        specials.iter().cycle().take(50_001).copied().collect(),
    ];
    for input in &inputs {
        for m in [1, 10, 1000, 100_000] {
            for order in [Order::Ascending, Order::Descending] {
                let mut want = input.clone();
                sort(&mut want, order);
                let opts = ApproxOptions {
                    order,
                    ..ApproxOptions::new(m)
                };
                for variant in RefineVariant::ALL {
                    let what = format!("{variant} m={m} {order:?} n={}", input.len());
                    let mut d = DeviceBuffer::from_host(g, input).unwrap();
                    let r = approx_sort(g, &mut d, &opts).unwrap();
                    let stats = refine_with(g, &mut d, &r, variant).unwrap();
                    if variant == RefineVariant::Arrays {
                        assert_eq!(stats.bucket_passes, 0, "{what}");
                    }
                    check_equal(&want, &d.to_host().unwrap())
                        .unwrap_or_else(|e| panic!("{what}: {e}"));
                    let index: Vec<u32> = (0..input.len() as u32).collect();
                    let mut dk = DeviceBuffer::from_host(g, input).unwrap();
                    let mut dv = DeviceBuffer::from_host(g, &index).unwrap();
                    let r = approx_sort_pairs(g, &mut dk, &mut dv, &opts).unwrap();
                    refine_pairs_with(g, &mut dk, &mut dv, &r, variant).unwrap();
                    let (kh, vh) = (dk.to_host().unwrap(), dv.to_host().unwrap());
                    check_equal(&want, &kh).unwrap_or_else(|e| panic!("pairs {what}: {e}"));
                    for (&k, &v) in kh.iter().zip(&vh) {
                        assert_eq!(input[v as usize].to_bits(), k.to_bits(), "{what}");
                    }
                }
            }
        }
    }
    // A result of another length is refused by both.
    let mut d = DeviceBuffer::from_host(g, &[1u32, 2, 3]).unwrap();
    let r = approx_sort(g, &mut d, &ApproxOptions::new(2)).unwrap();
    let mut other = DeviceBuffer::from_host(g, &[1u32, 2]).unwrap();
    for variant in RefineVariant::ALL {
        assert!(
            refine_with(g, &mut other, &r, variant).is_err(),
            "{variant}"
        );
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn entry_points_agree() {
    let g = gpu();
    for n in [1usize, 777, 6143, 6144, 6145, 100_003] {
        let host = random_u32(n, n as u64);
        let vals: Vec<u64> = (0..n as u64).collect();
        for intervals in [1, 100, 10_000, 40_000] {
            for boundaries in Intervals::ALL {
                let o = ApproxOptions {
                    intervals,
                    boundaries,
                    order: if n % 2 == 0 {
                        Order::Ascending
                    } else {
                        Order::Descending
                    },
                    ..Default::default()
                };
                let input = DeviceBuffer::from_host(g, &host).unwrap();
                let mut out = DeviceBuffer::<u32>::alloc(g, n).unwrap();
                let r = approx_sort_into(g, &input, &mut out, &o).unwrap();
                assert_eq!(input.to_host().unwrap(), host, "input modified");
                let policy = ApproxPolicy::for_device(g, 4, 0);
                let want_path = if intervals <= policy.direct_max_intervals {
                    ApproxPath::SharedCounts
                } else if intervals == 10_000 {
                    // Two words per interval and the tile fit shared memory.
                    ApproxPath::WideTwoPass
                } else {
                    ApproxPath::TwoPass
                };
                assert_eq!(r.path(), want_path);
                let out_h = out.to_host().unwrap();
                check_against_cpu(&host, &out_h, &r, &o);
                let b = r.boundaries_host().unwrap();
                // The two-pass scatter where the wide one would run, and a small wide tile
                // (several tiles a chunk, each chunk counted by several blocks).
                // The wide scatter in one pass, and in two of small tiles.
                for (wide_max, one_pass, threads, items) in [
                    (0, 0, policy.wide_threads, policy.wide_items),
                    (usize::MAX, 0, 64, 4),
                    (usize::MAX, usize::MAX, 64, 4),
                    (
                        usize::MAX,
                        usize::MAX,
                        policy.wide_threads,
                        policy.wide_items,
                    ),
                ] {
                    let p = ApproxPolicy {
                        wide_max_intervals: wide_max,
                        wide_one_pass_max: one_pass,
                        wide_threads: threads,
                        wide_items: items,
                        ..policy
                    };
                    let mut o2 = DeviceBuffer::<u32>::alloc(g, n).unwrap();
                    let r2 = approx_sort_into_with_policy(g, &input, &mut o2, &o, p).unwrap();
                    if intervals > policy.direct_max_intervals && wide_max == 0 {
                        assert_eq!(r2.path(), ApproxPath::TwoPass);
                    }
                    assert_eq!(r2.boundaries_host().unwrap(), b);
                    check_against_cpu(&host, &o2.to_host().unwrap(), &r2, &o);
                }
                // With scratch.
                let mut d = DeviceBuffer::from_host(g, &host).unwrap();
                let mut scratch =
                    DeviceBuffer::<u8>::alloc(g, scratch_bytes::<u32>(n, &o).unwrap()).unwrap();
                let rs = approx_sort_with_scratch(g, &mut d, &o, &mut scratch).unwrap();
                assert_eq!(rs.boundaries_host().unwrap(), b);
                check_against_cpu(&host, &d.to_host().unwrap(), &rs, &o);
                // Pairs into and with scratch (8-byte values).
                let vin = DeviceBuffer::from_host(g, &vals).unwrap();
                let mut kout = DeviceBuffer::<u32>::alloc(g, n).unwrap();
                let mut vout = DeviceBuffer::<u64>::alloc(g, n).unwrap();
                let rp = approx_sort_pairs_into(g, &input, &vin, &mut kout, &mut vout, &o).unwrap();
                assert_eq!(rp.boundaries_host().unwrap(), b);
                let (kh, vh) = (kout.to_host().unwrap(), vout.to_host().unwrap());
                for (p, (&k, &v)) in kh.iter().zip(&vh).enumerate() {
                    assert_eq!(host[v as usize], k, "value at {p}");
                }
                check_against_cpu(&host, &kh, &rp, &o);
                let mut dk = DeviceBuffer::from_host(g, &host).unwrap();
                let mut dv = DeviceBuffer::from_host(g, &vals).unwrap();
                let need = scratch_bytes_pairs::<u32, u64>(n, &o).unwrap();
                let mut scratch = DeviceBuffer::<u8>::alloc(g, need).unwrap();
                let rps =
                    approx_sort_pairs_with_scratch(g, &mut dk, &mut dv, &o, &mut scratch).unwrap();
                assert_eq!(rps.boundaries_host().unwrap(), b);
                let (kh, vh) = (dk.to_host().unwrap(), dv.to_host().unwrap());
                for (&k, &v) in kh.iter().zip(&vh) {
                    assert_eq!(host[v as usize], k);
                }
                // Paper variant: the same boundaries.
                let po = ApproxOptions {
                    variant: ApproxVariant::Paper,
                    ..o
                };
                let mut d = DeviceBuffer::from_host(g, &host).unwrap();
                let rpp = approx_sort(g, &mut d, &po).unwrap();
                assert_eq!(rpp.path(), ApproxPath::Paper);
                assert_eq!(rpp.boundaries_host().unwrap(), b);
                check_against_cpu(&host, &d.to_host().unwrap(), &rpp, &po);
                // Refine pairs: fully sorted, values with their keys.
                refine_pairs(g, &mut dk, &mut dv, &rps).unwrap();
                let (kh, vh) = (dk.to_host().unwrap(), dv.to_host().unwrap());
                let mut want = host.clone();
                sort(&mut want, o.order);
                assert_eq!(kh, want);
                for (&k, &v) in kh.iter().zip(&vh) {
                    assert_eq!(host[v as usize], k);
                }
            }
        }
    }
}

/// The leading-bits path (coarse bins from the keys' leading bits, counted with the min and max;
/// forced at every length with `lead_min = 0`) against the CPU twin and the default policy:
/// keys spread over many leading bits (the device takes the path) and keys in few buckets (it
/// falls back to the count pass), every key width, both orders, keys and pairs.
fn lead_case<K: SortKey>(host: &[K], intervals: usize, order: Order) {
    let g = gpu();
    let n = host.len();
    let o = ApproxOptions {
        intervals,
        order,
        ..Default::default()
    };
    let input = DeviceBuffer::from_host(g, host).unwrap();
    let mut base = DeviceBuffer::<K>::alloc(g, n).unwrap();
    let rb = approx_sort_into(g, &input, &mut base, &o).unwrap();
    for value_size in [0usize, 4] {
        let p = ApproxPolicy {
            lead_min: 0,
            ..ApproxPolicy::for_device(g, K::SIZE, value_size)
        };
        let mut out = DeviceBuffer::<K>::alloc(g, n).unwrap();
        let r = if value_size == 0 {
            approx_sort_into_with_policy(g, &input, &mut out, &o, p).unwrap()
        } else {
            let vals: Vec<u32> = (0..n as u32).collect();
            let vin = DeviceBuffer::from_host(g, &vals).unwrap();
            let mut vout = DeviceBuffer::<u32>::alloc(g, n).unwrap();
            let r = approx_sort_pairs_into_with_policy(g, &input, &vin, &mut out, &mut vout, &o, p)
                .unwrap();
            let (kh, vh) = (out.to_host().unwrap(), vout.to_host().unwrap());
            for (at, (k, &v)) in kh.iter().zip(&vh).enumerate() {
                assert_eq!(
                    host[v as usize].to_ordered_bits(),
                    k.to_ordered_bits(),
                    "value at {at} ({} keys, {intervals} intervals, {order:?})",
                    K::NAME
                );
            }
            r
        };
        assert_eq!(
            r.boundaries_host().unwrap(),
            rb.boundaries_host().unwrap(),
            "{} keys, {intervals} intervals, {order:?}, values {value_size}",
            K::NAME
        );
        check_against_cpu(host, &out.to_host().unwrap(), &r, &o);
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn leading_bits_path() {
    let mut r = ChaCha8Rng::seed_from_u64(7);
    for n in [1usize, 1000, 65_537, 300_007] {
        let spread: Vec<u32> = (0..n).map(|_| r.gen::<u32>() >> 1).collect();
        // Few leading bits: all keys in one bucket, and half of them in one.
        let narrow: Vec<u32> = (0..n).map(|_| 5000 + (r.gen::<u32>() & 4095)).collect();
        let half: Vec<u32> = (0..n)
            .map(|i| {
                if i % 2 == 0 {
                    r.gen::<u32>() & 1023
                } else {
                    r.gen()
                }
            })
            .collect();
        for order in [Order::Ascending, Order::Descending] {
            for m in [1000, 2049, 10_000] {
                lead_case(&spread, m, order);
            }
            lead_case(&narrow, 10_000, order);
            lead_case(&half, 10_000, order);
            let i32s: Vec<i32> = spread.iter().map(|&x| (x as i32).wrapping_mul(3)).collect();
            lead_case(&i32s, 10_000, order);
            let f32s: Vec<f32> = (0..n).map(|_| f32::from_bits(r.gen())).collect();
            lead_case(&f32s, 10_000, order);
            let u64s: Vec<u64> = (0..n).map(|_| r.gen()).collect();
            lead_case(&u64s, 10_000, order);
            let f64s: Vec<f64> = (0..n).map(|_| r.gen::<f64>() * 1e6 - 5e5).collect();
            lead_case(&f64s, 4096, order);
        }
    }
}

/// 2^32 + 3 keys: 64-bit offsets. Minutes long: `scripts/gpu-check` runs the `past_2_pow_32`
/// tests only with `SORTLAB_LARGE=1`; a device without the memory fails it.
#[test]
#[ignore = "needs a CUDA device with 40 GiB of memory (scripts/gpu-check: SORTLAB_LARGE=1)"]
fn past_2_pow_32_keys() {
    let g = gpu();
    let n = (1usize << 32) + 3;
    let (free, _) = g.memory_info().unwrap();
    assert!(
        free >= 40 << 30,
        "needs 40 GiB of free device memory, the device has {free} bytes"
    );
    // Keys: a cheap hash of the index, so the input needs no 16 GB host array.
    let host: Vec<u32> = (0..n as u64)
        .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 33) as u32)
        .collect();
    let o = ApproxOptions::new(10_000);
    let input = DeviceBuffer::from_host(g, &host).unwrap();
    let mut out = DeviceBuffer::<u32>::alloc(g, n).unwrap();
    let r = approx_sort_into(g, &input, &mut out, &o).unwrap();
    drop(input);
    let b = r.boundaries_host().unwrap();
    assert_eq!(b[o.intervals], n);
    let out_h = out.to_host().unwrap();
    check_interval_order(&out_h, &b, Order::Ascending).unwrap();
    let map = cpu::IntervalMap::for_keys(&host, &cpu_opts(&o))
        .unwrap()
        .unwrap();
    let mut counts = vec![0usize; o.intervals];
    for &k in &host {
        counts[map.interval(k)] += 1;
    }
    for (i, w) in b.windows(2).enumerate() {
        assert_eq!(w[1] - w[0], counts[i], "interval {i}");
    }
}

/// A benchmark input of `n` random keys: the host keys, the device keys and values (the
/// index), and output buffers for keys and values.
struct BenchInput {
    host: Vec<u32>,
    input: DeviceBuffer<u32>,
    vin: DeviceBuffer<u32>,
    out: DeviceBuffer<u32>,
    vout: DeviceBuffer<u32>,
}

impl BenchInput {
    fn new(n: usize) -> Self {
        let g = gpu();
        let host = random_u32(n, 42);
        let vals: Vec<u32> = (0..n as u32).collect();
        BenchInput {
            input: DeviceBuffer::from_host(g, &host).unwrap(),
            vin: DeviceBuffer::from_host(g, &vals).unwrap(),
            out: DeviceBuffer::<u32>::alloc(g, n).unwrap(),
            vout: DeviceBuffer::<u32>::alloc(g, n).unwrap(),
            host,
        }
    }
}

/// Median of the kernel time (CUDA events around the call) of `f(true)` over `reps` runs after
/// two warm-ups; `f(false)` (the preparation) runs untimed before each.
fn time_ms(reps: usize, mut f: impl FnMut(bool)) -> f64 {
    let g = gpu();
    let t = GpuTimer::new(g).unwrap();
    for _ in 0..2 {
        f(false);
        f(true);
    }
    let mut v: Vec<f64> = (0..reps)
        .map(|_| {
            f(false);
            g.synchronize().unwrap();
            t.start().unwrap();
            f(true);
            t.stop().unwrap()
        })
        .collect();
    median(&mut v)
}

/// Kernel times of the keys `input` into `out` under `keys_policy` and of the pairs `(input,
/// vin)` into `(out, vout)` under `pairs_policy` (`approx_sort_*into_with_policy`).
fn time_into_policies(
    reps: usize,
    (input, vin, out, vout): (
        &DeviceBuffer<u32>,
        &DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
    ),
    o: &ApproxOptions,
    keys_policy: ApproxPolicy,
    pairs_policy: ApproxPolicy,
) -> (f64, f64) {
    let g = gpu();
    let keys_ms = time_ms(reps, |run| {
        if run {
            approx_sort_into_with_policy(g, input, out, o, keys_policy).unwrap();
        }
    });
    let pairs_ms = time_ms(reps, |run| {
        if run {
            approx_sort_pairs_into_with_policy(g, input, vin, out, vout, o, pairs_policy).unwrap();
        }
    });
    (keys_ms, pairs_ms)
}

#[test]
#[ignore = "needs a CUDA device (benchmark: prints kernel times)"]
fn bench() {
    let g = gpu();
    let max_log2: u32 = std::env::var("SORTLAB_BENCH_MAX_LOG2")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(28);
    println!("device: {}", g.info().name);
    let reps = 10;
    for log2 in [20u32, 24, 28].into_iter().filter(|&l| l <= max_log2) {
        let n = 1usize << log2;
        let BenchInput {
            host,
            input,
            vin,
            mut out,
            mut vout,
        } = BenchInput::new(n);
        let mut copy = DeviceBuffer::<u32>::alloc(g, n).unwrap();
        let gb = (n * 4) as f64 / 1e9;
        let ms = time_ms(reps, |run| {
            if run {
                copy.copy_from_device(&input).unwrap()
            }
        });
        println!(
            "n=2^{log2} copy u32: {ms:.4} ms ({:.2} TB/s read+write)",
            2.0 * gb / ms
        );
        let row = |what: &str, ms: f64| {
            println!(
                "n=2^{log2} {what}: {ms:.4} ms, {:.2} Gkeys/s",
                n as f64 / ms / 1e6
            )
        };
        for (name, o) in [
            ("fast equal-width m=10000", ApproxOptions::new(10_000)),
            ("fast equal-width m=1000", ApproxOptions::new(1000)),
            ("fast equal-width m=100", ApproxOptions::new(100)),
            (
                "fast equal-width m=90000 (global)",
                ApproxOptions::new(90_000),
            ),
            ("fast equal-width m=40000", ApproxOptions::new(40_000)),
            (
                "fast sampled m=10000",
                ApproxOptions {
                    boundaries: Intervals::Sampled,
                    ..ApproxOptions::new(10_000)
                },
            ),
            (
                "paper equal-width m=10000",
                ApproxOptions {
                    variant: ApproxVariant::Paper,
                    ..ApproxOptions::new(10_000)
                },
            ),
        ] {
            let ms = time_ms(reps, |run| {
                if run {
                    approx_sort_into(g, &input, &mut out, &o).unwrap();
                }
            });
            row(&format!("approx keys into, {name}"), ms);
            let ms = time_ms(reps, |run| {
                if run {
                    approx_sort_pairs_into(g, &input, &vin, &mut out, &mut vout, &o).unwrap();
                }
            });
            row(&format!("approx pairs into, {name}"), ms);
        }
        let o = ApproxOptions::new(10_000);
        // In place (allocates the output and swaps).
        let mut d = DeviceBuffer::<u32>::alloc(g, n).unwrap();
        let ms = time_ms(reps, |run| {
            if run {
                approx_sort(g, &mut d, &o).unwrap();
            } else {
                d.copy_from_device(&input).unwrap();
            }
        });
        row("approx keys in place, fast m=10000", ms);
        // Refine alone, and approx + refine (a full sort).
        let r = approx_sort_into(g, &input, &mut out, &o).unwrap();
        let q = r.quality(&out).unwrap();
        println!("n=2^{log2} quality m=10000: {q:?}");
        let ms = time_ms(reps, |run| {
            if run {
                refine(g, &mut d, &r).unwrap();
            } else {
                d.copy_from_device(&out).unwrap();
            }
        });
        row("refine keys after m=10000", ms);
        let mut dv = DeviceBuffer::<u32>::alloc(g, n).unwrap();
        let rp = approx_sort_pairs_into(g, &input, &vin, &mut out, &mut vout, &o).unwrap();
        let ms = time_ms(reps, |run| {
            if run {
                refine_pairs(g, &mut d, &mut dv, &rp).unwrap();
            } else {
                d.copy_from_device(&out).unwrap();
                dv.copy_from_device(&vout).unwrap();
            }
        });
        row("refine pairs after m=10000", ms);
        let ms = time_ms(reps, |run| {
            if run {
                let r = approx_sort(g, &mut d, &o).unwrap();
                refine(g, &mut d, &r).unwrap();
            } else {
                d.copy_from_device(&input).unwrap();
            }
        });
        row("full sort keys (approx m=10000 + refine)", ms);
        if log2 == 28 {
            // Scatter tile policies (keys into, m = 10000).
            // Wide one-pass tiles (threads, items, blocks/SM; 0 threads: the two-pass scatter
            // of 1024 x 4 tiles instead), then the staged tiles of the two-pass scatter.
            let wide = [
                (0, 0, 0),
                (1024, 16, 1),
                (1024, 8, 1),
                (512, 16, 2),
                (1024, 12, 1),
            ];
            let staged = [(1024, 4, 2), (512, 8, 2), (1024, 8, 1), (512, 4, 3)];
            let cases = wide
                .iter()
                .map(|&w| (true, w))
                .chain(staged.iter().map(|&s| (false, s)));
            for (is_wide, (bt, items, bps)) in cases {
                let set = |base: ApproxPolicy| {
                    if !is_wide {
                        return ApproxPolicy {
                            block_threads: bt,
                            items_per_thread: items,
                            blocks_per_sm: bps,
                            wide_max_intervals: 0,
                            ..base
                        };
                    }
                    if bt == 0 {
                        return ApproxPolicy {
                            wide_max_intervals: 0,
                            ..base
                        };
                    }
                    ApproxPolicy {
                        wide_threads: bt,
                        wide_items: items,
                        wide_blocks_per_sm: bps,
                        ..base
                    }
                };
                let p = set(ApproxPolicy::for_device(g, 4, 4));
                let pk = set(ApproxPolicy::for_device(g, 4, 0));
                let bt = if is_wide {
                    format!("wide {bt}")
                } else {
                    bt.to_string()
                };
                let bufs = (&input, &vin, &mut out, &mut vout);
                let (keys_ms, pairs_ms) = time_into_policies(reps, bufs, &o, pk, p);
                let what = format!("policy {bt}x{items} {bps}/SM");
                row(&format!("approx keys into, {what}"), keys_ms);
                row(&format!("approx pairs into, {what}"), pairs_ms);
            }
        }
        if log2 == 28 {
            // The wide scatter's one and two passes at 1000 and 10,000 intervals.
            for (m, one_pass) in [(1000, 0), (10_000, usize::MAX)] {
                let o = ApproxOptions::new(m);
                let pk = ApproxPolicy {
                    wide_one_pass_max: one_pass,
                    ..ApproxPolicy::for_device(g, 4, 0)
                };
                let p = ApproxPolicy {
                    wide_one_pass_max: one_pass,
                    ..ApproxPolicy::for_device(g, 4, 4)
                };
                let bufs = (&input, &vin, &mut out, &mut vout);
                let (keys_ms, pairs_ms) = time_into_policies(reps, bufs, &o, pk, p);
                let what = format!("m={m} wide one pass to {one_pass}");
                row(&format!("approx keys into, {what}"), keys_ms);
                row(&format!("approx pairs into, {what}"), pairs_ms);
            }
        }
        // Correctness of what was timed.
        let r = approx_sort_into(g, &input, &mut out, &o).unwrap();
        check_against_cpu(&host, &out.to_host().unwrap(), &r, &o);
    }
}

#[test]
#[ignore = "needs a CUDA device (diagnostic: run with SORTLAB_APPROX_PHASES=1 --nocapture)"]
fn phases() {
    let g = gpu();
    let log2: u32 = std::env::var("SORTLAB_BENCH_MAX_LOG2")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(28);
    let n = 1usize << log2;
    let host = random_u32(n, 42);
    let vals: Vec<u32> = (0..n as u32).collect();
    let input = DeviceBuffer::from_host(g, &host).unwrap();
    let vin = DeviceBuffer::from_host(g, &vals).unwrap();
    let mut out = DeviceBuffer::<u32>::alloc(g, n).unwrap();
    let mut vout = DeviceBuffer::<u32>::alloc(g, n).unwrap();
    for (name, o) in [
        ("fast m=10000", ApproxOptions::new(10_000)),
        ("fast m=1000", ApproxOptions::new(1000)),
        ("fast m=90000", ApproxOptions::new(90_000)),
        ("fast m=300000", ApproxOptions::new(300_000)),
        (
            "sampled m=10000",
            ApproxOptions {
                boundaries: Intervals::Sampled,
                ..ApproxOptions::new(10_000)
            },
        ),
        (
            "paper m=10000",
            ApproxOptions {
                variant: ApproxVariant::Paper,
                ..ApproxOptions::new(10_000)
            },
        ),
    ] {
        for rep in 0..2 {
            eprintln!("--- keys {name} (run {rep})");
            approx_sort_into(g, &input, &mut out, &o).unwrap();
        }
        eprintln!("--- pairs {name}");
        approx_sort_pairs_into(g, &input, &vin, &mut out, &mut vout, &o).unwrap();
    }
    let o = ApproxOptions::new(10_000);
    let r = approx_sort_into(g, &input, &mut out, &o).unwrap();
    for rep in 0..2 {
        let mut d = out.try_clone().unwrap();
        eprintln!("--- refine keys (run {rep})");
        let s = refine(g, &mut d, &r).unwrap();
        eprintln!("    {s:?}");
    }
}

#[test]
#[ignore = "needs a CUDA device (benchmark: scatter paths at mid sizes, prints kernel times)"]
fn bench_mid_sizes() {
    let g = gpu();
    println!("device: {}", g.info().name);
    // SORTLAB_MID_SAMPLED=1: sampled intervals.
    let o = ApproxOptions {
        boundaries: if std::env::var("SORTLAB_MID_SAMPLED").is_ok_and(|v| v == "1") {
            Intervals::Sampled
        } else {
            Intervals::EqualWidth
        },
        ..ApproxOptions::new(10_000)
    };
    // SORTLAB_MID_REPS: timed runs a variant (default 20).
    let mid_reps: usize = std::env::var("SORTLAB_MID_REPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    // SORTLAB_MID_LOG2: one size only.
    let only: Option<u32> = std::env::var("SORTLAB_MID_LOG2")
        .ok()
        .and_then(|s| s.parse().ok());
    for log2 in [16u32, 18, 20, 21, 22, 23, 24, 25, 26, 28] {
        if only.is_some_and(|o| o != log2) {
            continue;
        }
        let n = 1usize << log2;
        let mut b = BenchInput::new(n);
        // SORTLAB_MID_SHAPES: wide scatter shapes THREADSxITEMSxBLOCKS to time beside the
        // default and the staged two-pass scatter.
        let shapes = std::env::var("SORTLAB_MID_SHAPES").unwrap_or_default();
        type Tweak = Box<dyn Fn(ApproxPolicy) -> ApproxPolicy>;
        let mut variants: Vec<(String, Tweak)> = vec![
            ("default".into(), Box::new(|p| p)),
            (
                "staged two pass".into(),
                Box::new(|p| ApproxPolicy {
                    wide_max_intervals: 0,
                    ..p
                }),
            ),
            (
                "no leading bits".into(),
                Box::new(|p| ApproxPolicy {
                    lead_min: usize::MAX,
                    ..p
                }),
            ),
            (
                "leading bits".into(),
                Box::new(|p| ApproxPolicy { lead_min: 0, ..p }),
            ),
        ];
        for shape in shapes.split(',').filter(|s| !s.is_empty()) {
            let d: Vec<u32> = shape.split('x').map(|x| x.parse().unwrap()).collect();
            let (t, i, b) = (d[0], d[1], d[2]);
            variants.push((
                format!("wide {shape}"),
                Box::new(move |p| ApproxPolicy {
                    wide_threads: t,
                    wide_items: i,
                    wide_blocks_per_sm: b,
                    ..p
                }),
            ));
        }
        // SORTLAB_MID_ONLY: time only the variants whose names contain one of these
        // comma-separated words (for a profiler's short run).
        let only_names = std::env::var("SORTLAB_MID_ONLY").unwrap_or_default();
        variants.retain(|(name, _)| {
            only_names.is_empty() || only_names.split(',').any(|w| name.contains(w))
        });
        for (name, f) in &variants {
            let pk = f(ApproxPolicy::for_device(g, 4, 0));
            let p = f(ApproxPolicy::for_device(g, 4, 4));
            let keys = time_ms(mid_reps, |run| {
                if run {
                    approx_sort_into_with_policy(g, &b.input, &mut b.out, &o, pk).unwrap();
                }
            });
            let r = approx_sort_into_with_policy(g, &b.input, &mut b.out, &o, pk).unwrap();
            check_against_cpu(&b.host, &b.out.to_host().unwrap(), &r, &o);
            // SORTLAB_MID_B2B=1: also 10 calls queued back to back (the device's time a call
            // when the host runs ahead) and the host's time to queue one.
            if std::env::var("SORTLAB_MID_B2B").is_ok_and(|v| v == "1") {
                let t = GpuTimer::new(g).unwrap();
                g.synchronize().unwrap();
                let h = std::time::Instant::now();
                t.start().unwrap();
                for _ in 0..10 {
                    approx_sort_into_with_policy(g, &b.input, &mut b.out, &o, pk).unwrap();
                }
                let host = h.elapsed().as_secs_f64() * 1e5;
                let ms = t.stop().unwrap() / 10.0;
                println!("n=2^{log2} {name:<16} keys back to back {ms:.4} ms a call, host {host:.1} us a call");
                // And single calls in place with the scratch memory given (default policy): from
                // the second on, their input is the last call's output, ordered by interval (every
                // warp's keys share a bin, so the rank atomics contend: slower than uniform keys).
                let mut scratch =
                    DeviceBuffer::<u8>::alloc(g, scratch_bytes::<u32>(n, &o).unwrap()).unwrap();
                let scratch_ms = time_ms(mid_reps, |run| {
                    if run {
                        approx_sort_with_scratch(g, &mut b.out, &o, &mut scratch).unwrap();
                    }
                });
                println!("n=2^{log2} {name:<16} keys in place, ordered input {scratch_ms:.4} ms");
            }
            let pairs = time_ms(mid_reps, |run| {
                if run {
                    approx_sort_pairs_into_with_policy(
                        g,
                        &b.input,
                        &b.vin,
                        &mut b.out,
                        &mut b.vout,
                        &o,
                        p,
                    )
                    .unwrap();
                }
            });
            println!(
                "n=2^{log2} {name:<16} {:?}: keys {keys:.4} ms, pairs {pairs:.4} ms",
                r.path()
            );
        }
    }
}
