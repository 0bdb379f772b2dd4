//! Property tests of the interval approximate sort: the CPU twin
//! (`sortlab_cpu_reference::approx`, in CI) and the GPU (`sortlab_approxsort`, ignored: run with
//! `--include-ignored` on a CUDA machine).
//!
//! For every key type, both orders and the patterns of DESIGN.md §5: the output is a permutation
//! of the input; it is in interval order ([`check_interval_order`]); the boundaries are
//! consistent; every key lies in the interval the interval map gives it ([`IntervalMap`], the
//! definition both engines share); values travel with their keys; `refine` equals the reference
//! sort. On the GPU also: the boundaries equal the CPU twin's exactly (so every key is in the same
//! interval on both engines), the quality report matches the CPU's, and `approx_sort` +
//! `refine` passes the whole generic sort suite. Edge cases: n = 0, 1, all-equal keys,
//! 1 interval, more intervals than keys, 0 intervals (an error), NaN and infinities.

use sortlab_cpu_reference::approx::{self as cpu, IntervalMap};
use sortlab_cpu_reference::check::{check_equal, check_interval_order, check_permutation, radius};
use sortlab_cpu_reference::sort::sort;
use sortlab_verify::{generate, seed_for, Order, Pattern, SortKey};

/// Lengths of the property tests: edges, the GPU tile (6144 keys for 4-byte keys, 4096 for
/// 8-byte) and block-sort tile (2048) ±1, and larger.
const LENGTHS: [usize; 16] = [
    0, 1, 2, 3, 31, 33, 64, 65, 257, 2049, 4095, 6145, 10_007, 65_537, 100_000, 262_147,
];
/// Interval counts: one, a few, the paper's, more than most inputs, past the GPU's
/// shared-memory limit (global-atomic path).
const INTERVALS: [usize; 6] = [1, 2, 7, 10_000, 300_000, 40_000];

/// The options of case `c` (rotating through variants, modes, interval counts and orders, so
/// that every combination meets many patterns and lengths).
fn case_options(c: usize, n: usize) -> cpu::ApproxOptions {
    let intervals = match INTERVALS[c % INTERVALS.len()] {
        // "more than the keys" relative to this input
        300_000 => n + 5,
        m => m,
    };
    cpu::ApproxOptions {
        intervals,
        order: if (c / 6) % 2 == 0 {
            Order::Ascending
        } else {
            Order::Descending
        },
        variant: if (c / 12) % 2 == 0 {
            cpu::ApproxVariant::Fast
        } else {
            cpu::ApproxVariant::Paper
        },
        boundaries: if (c / 24) % 2 == 0 {
            cpu::Intervals::EqualWidth
        } else {
            cpu::Intervals::Sampled
        },
    }
}

/// Checks an approximate sort's output against its input: boundaries, permutation, interval
/// order, and every key in the interval the shared definition gives it.
fn check_approx<K: SortKey>(
    input: &[K],
    output: &[K],
    boundaries: &[usize],
    opts: &cpu::ApproxOptions,
) -> Result<(), String> {
    let n = input.len();
    if boundaries.len() != opts.intervals + 1 {
        return Err(format!(
            "{} boundaries for {} intervals",
            boundaries.len(),
            opts.intervals
        ));
    }
    check_permutation(input, output).map_err(|e| format!("not a permutation: {e}"))?;
    check_interval_order(output, boundaries, opts.order)
        .map_err(|e| format!("interval order: {e}"))?;
    let map = IntervalMap::for_keys(input, opts).map_err(|e| e.to_string())?;
    if let Some(map) = map {
        for (i, w) in boundaries.windows(2).enumerate() {
            for (p, &k) in output[w[0]..w[1]].iter().enumerate() {
                let want = map.interval(k);
                if want != i {
                    return Err(format!(
                        "key {k:?} at {} is in interval {i}, its interval is {want}",
                        w[0] + p
                    ));
                }
            }
        }
    } else if n != 0 {
        return Err("no interval map for a non-empty input".into());
    }
    Ok(())
}

/// Checks that values (input indices) travel with their keys.
fn check_values<K: SortKey>(input: &[K], keys: &[K], values: &[u32]) -> Result<(), String> {
    let mut seen = vec![false; input.len()];
    for (p, (&k, &v)) in keys.iter().zip(values).enumerate() {
        let i = v as usize;
        if i >= input.len() || seen[i] {
            return Err(format!("value {v} at {p}: not an index or seen twice"));
        }
        seen[i] = true;
        if input[i].to_ordered_bits() != k.to_ordered_bits() {
            return Err(format!(
                "key {k:?} at {p} carries value {v} of key {:?}",
                input[i]
            ));
        }
    }
    Ok(())
}

fn fail<K: SortKey>(
    what: &str,
    pattern: Pattern,
    n: usize,
    seed: u64,
    opts: &cpu::ApproxOptions,
    e: String,
) -> ! {
    panic!(
        "{what} failed: {e}\n  input: {} {pattern} n = {n} seed = {seed:#x}\n  options: {opts:?}",
        K::NAME
    )
}

// ---------------------------------------------------------------------------------------------
// CPU twin (CI).

/// The CPU runs the lengths up to this (CI time); the GPU runs all of [`LENGTHS`].
const CPU_MAX_LEN: usize = 10_007;

fn cpu_properties<K: SortKey>(test: &str) {
    let seed = seed_for(test);
    let mut c = 0;
    for pattern in Pattern::ALL {
        for n in LENGTHS.into_iter().filter(|&n| n <= CPU_MAX_LEN) {
            let input: Vec<K> = generate(pattern, n, seed);
            let opts = case_options(c, n);
            c += 1;
            let mut keys = input.clone();
            let r = cpu::approx_sort(&mut keys, &opts).unwrap_or_else(|e| {
                fail::<K>("cpu approx_sort", pattern, n, seed, &opts, e.to_string())
            });
            check_approx(&input, &keys, &r.boundaries, &opts)
                .unwrap_or_else(|e| fail::<K>("cpu approx_sort", pattern, n, seed, &opts, e));
            // Pairs: the same keys and boundaries (stable), values travel.
            let mut pk = input.clone();
            let mut pv: Vec<u32> = (0..n as u32).collect();
            let rp = cpu::approx_sort_pairs(&mut pk, &mut pv, &opts).unwrap();
            assert_eq!(rp.boundaries, r.boundaries);
            check_equal(&keys, &pk).unwrap();
            check_values(&input, &pk, &pv)
                .unwrap_or_else(|e| fail::<K>("cpu approx_sort_pairs", pattern, n, seed, &opts, e));
            // Both variants give the same (stable) result.
            let mut other = input.clone();
            let o = cpu::ApproxOptions {
                variant: match opts.variant {
                    cpu::ApproxVariant::Fast => cpu::ApproxVariant::Paper,
                    cpu::ApproxVariant::Paper => cpu::ApproxVariant::Fast,
                },
                ..opts
            };
            assert_eq!(
                cpu::approx_sort(&mut other, &o).unwrap().boundaries,
                r.boundaries
            );
            check_equal(&keys, &other).unwrap();
            // Quality.
            let q = r.quality(&keys);
            assert!(q.largest == 0 || q.radius < q.largest, "{q:?}");
            assert_eq!(q.radius, radius(&keys, opts.order));
            // Refine: a stable full sort.
            cpu::refine(&mut keys, &r).unwrap();
            let mut expected = input.clone();
            sort(&mut expected, opts.order);
            check_equal(&expected, &keys).unwrap_or_else(|e| {
                fail::<K>("cpu refine", pattern, n, seed, &opts, e.to_string())
            });
            cpu::refine_pairs(&mut pk, &mut pv, &rp).unwrap();
            let mut ek = input.clone();
            let mut ev: Vec<u32> = (0..n as u32).collect();
            sortlab_cpu_reference::sort::sort_pairs(&mut ek, &mut ev, opts.order).unwrap();
            assert_eq!(
                pv, ev,
                "refine_pairs is not the stable sort ({pattern}, n = {n})"
            );
        }
    }
}

/// One test per key type `K` listed, each `f::<K>("approx::{test name}")`, with the attributes
/// given (the GPU ones ignored without a device).
macro_rules! per_key_type {
    ([$($attr:tt)*] $($f:ident)::+ :) => {};
    ([$($attr:tt)*] $($f:ident)::+ : $name:ident: $K:ty $(, $($rest:tt)*)?) => {
        #[test]
        $($attr)*
        fn $name() {
            $($f)::+::<$K>(concat!("approx::", stringify!($name)));
        }
        per_key_type!([$($attr)*] $($f)::+ : $($($rest)*)?);
    };
}

per_key_type!(
    []
    cpu_properties: cpu_u32: u32,
    cpu_i32: i32,
    cpu_f32: f32,
    cpu_u64: u64,
    cpu_i64: i64,
    cpu_f64: f64,
);

#[test]
fn cpu_edge_cases() {
    let mut k: Vec<f32> = vec![];
    assert!(cpu::approx_sort(&mut k, &cpu::ApproxOptions::new(0)).is_err());
    let mut k = vec![
        1.0f32,
        f32::NAN,
        -0.0,
        0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -f32::NAN,
    ];
    let before = k.clone();
    assert!(cpu::approx_sort(&mut k, &cpu::ApproxOptions::new(0)).is_err());
    assert_eq!(
        k.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        before.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
    // NaN and infinities by total order: -NaN first, +NaN last.
    let r = cpu::approx_sort(&mut k, &cpu::ApproxOptions::new(1 << 20)).unwrap();
    check_interval_order(&k, &r.boundaries, Order::Ascending).unwrap();
    assert!(k[0].is_nan() && k[0].is_sign_negative());
    assert_eq!(k[1], f32::NEG_INFINITY);
    assert!(k[6].is_nan() && k[6].is_sign_positive());
    // Fewer distinct bit patterns than intervals: each its own interval.
    let mut k = vec![5u32, 3, 4, 3];
    let r = cpu::approx_sort(&mut k, &cpu::ApproxOptions::new(10)).unwrap();
    assert_eq!(r.boundaries, [0, 2, 3, 4, 4, 4, 4, 4, 4, 4, 4]);
    // All equal: one interval, whatever the count.
    let mut k = vec![7u64; 1000];
    let r = cpu::approx_sort(&mut k, &cpu::ApproxOptions::new(10)).unwrap();
    assert_eq!(r.boundaries[1], 1000);
    // 64-bit extremes: the top and bottom key in the last and first interval.
    let mut k = vec![u64::MAX, 0, u64::MAX / 2];
    let r = cpu::approx_sort(&mut k, &cpu::ApproxOptions::new(3)).unwrap();
    assert_eq!(r.boundaries, [0, 1, 2, 3]);
    assert_eq!(k, [0, u64::MAX / 2, u64::MAX]);
}

// ---------------------------------------------------------------------------------------------
// GPU (ignored here; run with --include-ignored on a CUDA machine).

mod gpu {
    use super::*;
    use sortlab_approxsort as ax;
    use sortlab_primitives::{DeviceBuffer, Gpu};
    use std::sync::OnceLock;

    pub(super) fn gpu() -> &'static Gpu {
        static GPU: OnceLock<Gpu> = OnceLock::new();
        GPU.get_or_init(|| Gpu::new(0).expect("a CUDA device"))
    }

    /// One GPU case: keys and pairs, against the CPU twin; quality; refine.
    pub(super) fn gpu_case<K: SortKey>(
        input: &[K],
        opts: &cpu::ApproxOptions,
    ) -> Result<(), String> {
        let g = gpu();
        let n = input.len();
        let e = |what: &str, x: sortlab_primitives::Error| format!("{what}: {x}");
        let mut d = DeviceBuffer::from_host(g, input).map_err(|x| e("upload", x))?;
        let r = ax::approx_sort(g, &mut d, opts).map_err(|x| e("approx_sort", x))?;
        let out = d.to_host().map_err(|x| e("download", x))?;
        let b = r.boundaries_host().map_err(|x| e("boundaries", x))?;
        check_approx(input, &out, &b, opts)?;
        let mut ck = input.to_vec();
        let cr = cpu::approx_sort(&mut ck, opts).map_err(|x| x.to_string())?;
        if b != cr.boundaries {
            let i = b
                .iter()
                .zip(&cr.boundaries)
                .position(|(x, y)| x != y)
                .unwrap_or(0);
            return Err(format!(
                "GPU boundaries differ from the CPU twin's first at {i}: {} vs {}",
                b[i], cr.boundaries[i]
            ));
        }
        let q = r.quality(&d).map_err(|x| e("quality", x))?;
        let want = cr.quality(&out);
        if (q.non_empty, q.largest, q.radius) != (want.non_empty, want.largest, want.radius) {
            return Err(format!("quality {q:?}, the CPU says {want:?}"));
        }
        // Pairs.
        let vals: Vec<u32> = (0..n as u32).collect();
        let mut dk = DeviceBuffer::from_host(g, input).map_err(|x| e("upload", x))?;
        let mut dv = DeviceBuffer::from_host(g, &vals).map_err(|x| e("upload", x))?;
        let rp = ax::approx_sort_pairs(g, &mut dk, &mut dv, opts).map_err(|x| e("pairs", x))?;
        let (pk, pv) = (dk.to_host().unwrap(), dv.to_host().unwrap());
        if rp.boundaries_host().unwrap() != b {
            return Err("pair boundaries differ from the keys'".into());
        }
        check_approx(input, &pk, &b, opts)?;
        check_values(input, &pk, &pv)?;
        // Refine.
        ax::refine(g, &mut d, &r).map_err(|x| e("refine", x))?;
        let mut expected = input.to_vec();
        sort(&mut expected, opts.order);
        check_equal(&expected, &d.to_host().unwrap()).map_err(|x| format!("refine: {x}"))?;
        ax::refine_pairs(g, &mut dk, &mut dv, &rp).map_err(|x| e("refine_pairs", x))?;
        let (rk, rv) = (dk.to_host().unwrap(), dv.to_host().unwrap());
        check_equal(&expected, &rk).map_err(|x| format!("refine_pairs keys: {x}"))?;
        check_values(input, &rk, &rv).map_err(|x| format!("refine_pairs: {x}"))?;
        Ok(())
    }

    pub(super) fn gpu_properties<K: SortKey>(test: &str) {
        let seed = seed_for(test);
        let mut c = 0;
        for pattern in Pattern::ALL {
            for n in LENGTHS {
                let input: Vec<K> = generate(pattern, n, seed);
                let opts = case_options(c, n);
                c += 1;
                gpu_case(&input, &opts)
                    .unwrap_or_else(|e| fail::<K>("gpu approx_sort", pattern, n, seed, &opts, e));
            }
        }
    }

    /// `approx_sort` (sampled intervals, n / 16 of them) + `refine` as a full sort, for the
    /// generic suite.
    pub(super) struct GpuApproxRefine;

    sortlab_verify::sort_algorithm! {
        impl GpuApproxRefine(self) {
            name: "approxsort approx_sort + refine (GPU)",
            stable: false,
            tiles: vec![64, 2048, 4096, 6144],
            keys(keys, order) {
                let g = gpu();
                let opts = refine_options(keys.len(), order);
                let b = ax::approx_sort_host(g, keys, &opts).map_err(|e| e.to_string())?;
                ax::refine_host(g, keys, &b, order).map_err(|e| e.to_string())?;
                Ok(())
            }
            pairs(keys, values, order) {
                let g = gpu();
                let opts = pairs_options(order);
                let b = ax::approx_sort_pairs_host(g, keys, values, &opts)
                    .map_err(|e| e.to_string())?;
                ax::refine_pairs_host(g, keys, values, &b, order).map_err(|e| e.to_string())?;
                Ok(())
            }
        }
    }
}

per_key_type!(
    [#[ignore = "needs a CUDA device"]]
    gpu::gpu_properties: gpu_u32: u32,
    gpu_i32: i32,
    gpu_f32: f32,
    gpu_u64: u64,
    gpu_i64: i64,
    gpu_f64: f64,
);

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_large_uniform_and_skewed() {
    // 2^22 + 1 keys: many tiles per block, refine's bucket passes (intervals of ~420 keys with
    // 10,000 intervals... and ~4200 with 1000), skew (zipf, sampled and equal width).
    let n = (1 << 22) + 1;
    let seed = seed_for("approx::gpu_large");
    for (pattern, intervals) in [
        (Pattern::Uniform, 10_000),
        (Pattern::Uniform, 1000),
        (Pattern::Gaussian, 10_000),
        (Pattern::Zipf, 10_000),
        (Pattern::FewDistinct, 100),
        (Pattern::SawLong, 50_000),
    ] {
        for boundaries in [cpu::Intervals::EqualWidth, cpu::Intervals::Sampled] {
            let input: Vec<u32> = generate(pattern, n, seed);
            let opts = cpu::ApproxOptions {
                intervals,
                boundaries,
                ..Default::default()
            };
            gpu::gpu_case(&input, &opts)
                .unwrap_or_else(|e| fail::<u32>("gpu large", pattern, n, seed, &opts, e));
            let input: Vec<f64> = generate(pattern, n, seed);
            let opts = cpu::ApproxOptions {
                order: Order::Descending,
                ..opts
            };
            gpu::gpu_case(&input, &opts)
                .unwrap_or_else(|e| fail::<f64>("gpu large f64", pattern, n, seed, &opts, e));
        }
    }
}

/// The CPU twin's approx_sort + refine as a full sort (stable).
struct CpuApproxRefine;

sortlab_verify::sort_algorithm! {
    impl CpuApproxRefine(self) {
        name: "cpu-reference approx_sort + refine",
        stable: true,
        keys(keys, order) {
            let r = cpu::approx_sort(keys, &refine_options(keys.len(), order))
                .map_err(|e| e.to_string())?;
            cpu::refine(keys, &r).map_err(|e| e.to_string())
        }
        pairs(keys, values, order) {
            let r = cpu::approx_sort_pairs(keys, values, &pairs_options(order))
                .map_err(|e| e.to_string())?;
            cpu::refine_pairs(keys, values, &r).map_err(|e| e.to_string())
        }
    }
}

/// The options of the approximate sort + refine as a full sort of `n` keys (both engines):
/// sampled boundaries, `n / 16` intervals.
fn refine_options(n: usize, order: Order) -> cpu::ApproxOptions {
    cpu::ApproxOptions {
        intervals: (n / 16).max(1),
        order,
        boundaries: cpu::Intervals::Sampled,
        ..Default::default()
    }
}

/// The options of the approximate sort + refine as a key-value sort (both engines): the
/// defaults in `order`.
fn pairs_options(order: Order) -> cpu::ApproxOptions {
    cpu::ApproxOptions {
        order,
        ..Default::default()
    }
}

sortlab_verify::sort_suite!(cpu_approx_refine, super::CpuApproxRefine);
sortlab_verify::sort_suite!(
    gpu_approx_refine,
    super::gpu::GpuApproxRefine,
    ignore = "needs a CUDA device"
);
