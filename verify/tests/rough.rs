//! roughsort on both engines: the radius, k-sortedness, the halving step, and every roughsort
//! against the reference sort.
//!
//! CPU (CI): every radius form of `cpu_reference::rough` equals the reference radius on every
//! pattern of DESIGN.md §5 (and the O(n²) definition on short inputs); the k-sorted generator
//! has radius exactly min(k, n - 1); every halving step meets its bound `⌈k/2⌉ - 1`; the
//! sequential (halving) and parallel (Altman-Chlebus) roughsorts run the whole sort suite
//! (stable pairs exactly); a too-small radius is reported.
//!
//! GPU (`#[ignore = "needs a CUDA device"]`): the same for `sortlab_roughsort` — radius and
//! is_k_sorted against the CPU on every pattern and on k-sorted inputs whose radius crosses the
//! one-pass reach, the sort suite for `rough_sort`, for `rough_sort_with_radius` and for the
//! same without the radix fallback (`Fallback::Never`), every path (window, chained, merge
//! passes, full sort, and the radix sort past the crossover) on keys and stable pairs, a
//! too-small radius reported with the data untouched, and `gpu_rough_timings` /
//! `gpu_rough_crossover` (run them alone: they print times at 2^28 keys).

use sortlab_cpu_reference::{check, rough, sort, CheckError};
use sortlab_verify::{generate, seed_for, Order, Pattern, SortKey};

/// Lengths for the radius comparisons: the suite's, and around the GPU tile (4096) and window
/// (8192) sizes.
const RADIUS_LENGTHS: [usize; 16] = [
    0, 1, 2, 3, 31, 33, 257, 1025, 4095, 4096, 4097, 8191, 8193, 10_007, 12_289, 70_001,
];

/// Radii for the k-sorted inputs: 0, 1, 2, small, a GPU tile ±1 (the one-pass radius reach),
/// the window limits, the wide radius pass's tiles ±1 (8192 for 8-byte keys, 16,384 for 4-byte
/// keys), large.
const RADII: [usize; 19] = [
    0, 1, 2, 7, 16, 255, 512, 1023, 1024, 1025, 4095, 4096, 4097, 8191, 8193, 16_383, 16_384,
    16_385, 30_000,
];

/// The patterns of DESIGN.md §5 and k-sorted at every radius of [`RADII`].
fn radius_patterns() -> Vec<Pattern> {
    let mut p = sortlab_verify::suite::suite_patterns();
    p.extend(RADII.map(Pattern::KSorted));
    p
}

/// Every key type, as a list of calls of `$f::<K>($args)`.
macro_rules! for_each_key {
    ($f:ident ( $($args:expr),* )) => {
        $f::<u32>($($args),*);
        $f::<i32>($($args),*);
        $f::<f32>($($args),*);
        $f::<u64>($($args),*);
        $f::<i64>($($args),*);
        $f::<f64>($($args),*);
    };
}

// ---------------------------------------------------------------------------------------------
// CPU engine.

fn cpu_radius_forms<K: SortKey>(seed: u64) {
    for pattern in radius_patterns() {
        for n in RADIUS_LENGTHS {
            let keys: Vec<K> = generate(pattern, n, seed);
            for order in [Order::Ascending, Order::Descending] {
                let r = check::radius(&keys, order);
                let what = format!("{} {pattern} n = {n} {order}", K::NAME);
                assert_eq!(rough::radius(&keys, order), r, "radius, {what}");
                assert_eq!(rough::radius_memory_saving(&keys, order), r, "{what}");
                assert_eq!(rough::radius_par(&keys, order), r, "radius_par, {what}");
                assert_eq!(rough::dm(&keys, order).into_iter().max().unwrap_or(0), r);
                if n <= 300 {
                    assert_eq!(rough::radius_naive(&keys, order), r, "naive, {what}");
                }
                if let Pattern::KSorted(k) = pattern {
                    if order == Order::Ascending {
                        assert_eq!(r, k.min(n.saturating_sub(1)), "generator, {what}");
                    }
                }
                let lr = rough::lr(&keys, order);
                let rl = rough::rl(&keys, order);
                assert!(check::is_sorted(&lr, order) && check::is_sorted(&rl, order));
            }
        }
    }
}

#[test]
fn cpu_radius_forms_agree_on_every_pattern() {
    let seed = seed_for("rough::cpu_radius_forms_agree_on_every_pattern");
    // Unsigned, signed and float ranks; the GPU test runs every key type.
    cpu_radius_forms::<u32>(seed);
    cpu_radius_forms::<i64>(seed);
    cpu_radius_forms::<f64>(seed);
}

#[test]
fn cpu_radius_par_on_long_inputs() {
    let seed = seed_for("rough::cpu_radius_par_on_long_inputs");
    for pattern in [
        Pattern::KSorted(3),
        Pattern::KSorted(40_000),
        Pattern::Sorted95,
        Pattern::SawLong,
        Pattern::Uniform,
    ] {
        let keys: Vec<u32> = generate(pattern, 300_007, seed);
        for order in [Order::Ascending, Order::Descending] {
            assert_eq!(
                rough::radius_par(&keys, order),
                check::radius(&keys, order),
                "{pattern} {order}"
            );
        }
    }
}

fn cpu_halving<K: SortKey>(seed: u64) {
    for pattern in radius_patterns() {
        for n in [33, 1025, 4097, 10_007] {
            for order in [Order::Ascending, Order::Descending] {
                let mut keys: Vec<K> = generate(pattern, n, seed);
                let mut expected = keys.clone();
                sort::sort(&mut expected, order);
                let mut k = check::radius(&keys, order);
                // Every step from the exact radius, and one from a larger bound.
                let mut loose = keys.clone();
                let bound = rough::halving_step(&mut loose, k + 3, order);
                assert!(check::radius(&loose, order) <= bound);
                while k > 0 {
                    let bound = rough::halving_step(&mut keys, k, order);
                    assert_eq!(bound, k.div_ceil(2) - 1);
                    let r = check::radius(&keys, order);
                    assert!(
                        r <= bound,
                        "{} {pattern} n = {n} {order}: radius {k} -> {r} > {bound}",
                        K::NAME
                    );
                    k = r;
                }
                check::check_equal(&expected, &keys).unwrap();
            }
        }
    }
}

#[test]
fn cpu_every_halving_step_halves_the_radius() {
    let seed = seed_for("rough::cpu_every_halving_step_halves_the_radius");
    cpu_halving::<u32>(seed);
    cpu_halving::<f64>(seed);
}

#[test]
fn cpu_too_small_radius_is_reported() {
    let seed = seed_for("rough::cpu_too_small_radius_is_reported");
    for k in [1, 2, 16, 1000] {
        let input: Vec<i64> = generate(Pattern::KSorted(k), 5000, seed);
        let mut keys = input.clone();
        let err = rough::rough_sort_par_with_radius(&mut keys, k - 1, Order::Ascending)
            .expect_err("k - 1 is too small");
        assert!(matches!(err, CheckError::NotKSorted { .. }), "{err}");
        assert_eq!(keys, input, "data changed on error");
        rough::rough_sort_par_with_radius(&mut keys, k, Order::Ascending).unwrap();
        check::check_sorted(&keys, Order::Ascending).unwrap();
        assert!(rough::is_k_sorted(&input, k, Order::Ascending));
        assert!(!rough::is_k_sorted(&input, k - 1, Order::Ascending));
    }
}

#[test]
fn cpu_bubble_sort_sorts() {
    let seed = seed_for("rough::cpu_bubble_sort_sorts");
    for pattern in [
        Pattern::KSorted(5),
        Pattern::Uniform,
        Pattern::FloatSpecials,
    ] {
        for order in [Order::Ascending, Order::Descending] {
            let input: Vec<f32> = generate(pattern, 700, seed);
            let (mut keys, mut expected) = (input.clone(), input);
            let passes = rough::bubble_sort(&mut keys, order);
            sort::sort(&mut expected, order);
            check::check_equal(&expected, &keys).unwrap();
            if pattern == Pattern::KSorted(5) && order == Order::Ascending {
                assert!(passes <= 6, "{passes} passes for radius 5");
            }
        }
    }
}

/// `cpu_reference::rough::{rough_sort_seq, rough_sort_seq_pairs}`: the halving algorithm.
struct CpuRoughSeq;

/// `cpu_reference::rough::{rough_sort_par, rough_sort_par_pairs}`: Altman-Chlebus on rayon.
struct CpuRoughPar;

sortlab_verify::sort_algorithm!(
    CpuRoughSeq,
    "cpu-reference rough_sort_seq (halving)",
    stable = true,
    keys = rough::rough_sort_seq,
    pairs = rough::rough_sort_seq_pairs,
);
sortlab_verify::sort_algorithm!(
    CpuRoughPar,
    "cpu-reference rough_sort_par (Altman-Chlebus, rayon)",
    stable = true,
    keys = rough::rough_sort_par,
    pairs = rough::rough_sort_par_pairs,
);

sortlab_verify::sort_suite!(cpu_rough_seq, CpuRoughSeq);
sortlab_verify::sort_suite!(cpu_rough_par, CpuRoughPar);

// ---------------------------------------------------------------------------------------------
// GPU engine.

mod gpu {
    use super::*;
    use sortlab_primitives::{median, DeviceBuffer, Gpu, GpuTimer};
    use sortlab_roughsort::sort::{full_sort_past_k, prefers_full_sort};
    use sortlab_roughsort::{
        is_k_sorted, radius, rough_sort, rough_sort_pairs, rough_sort_pairs_with_radius,
        rough_sort_with_radius, Error, Fallback, OnWrongRadius, RoughOptions, RoughPath,
        RoughReport,
    };
    use sortlab_verify::testing::{on_device, on_device_pairs};
    use std::time::Instant;

    /// A GPU test that runs `f::<K>(&gpu, seed)` for each key type listed, seeded by its name.
    macro_rules! gpu_test {
        ($name:ident: $f:ident::<$($K:ty),+>) => {
            #[test]
            #[ignore = "needs a CUDA device"]
            fn $name() {
                let gpu = gpu();
                let seed = seed_for(concat!("rough::", stringify!($name)));
                $($f::<$K>(&gpu, seed);)+
            }
        };
    }

    const NEEDS: &str = "needs a CUDA device";

    pub(super) fn gpu() -> Gpu {
        Gpu::new(0).unwrap_or_else(|e| panic!("{NEEDS}: {e}"))
    }

    /// `rough_sort` / `rough_sort_pairs` (the radius determined on the device).
    pub(super) struct GpuRough(pub(super) Gpu);

    /// `rough_sort_with_radius` / `rough_sort_pairs_with_radius` with the CPU's radius (so the
    /// checked paths run on every pattern).
    pub(super) struct GpuRoughWithRadius(pub(super) Gpu);

    /// As [`GpuRoughWithRadius`] with [`Fallback::Never`]: the rough sort's own paths at every
    /// radius (merge passes and the full merge sort on the suite's unsorted patterns).
    pub(super) struct GpuRoughNoFallback(pub(super) Gpu);

    /// An error unless `report` of a radius determined on keys `K` (with values of
    /// `value_size` bytes) agrees with the CPU's radius `expected`: exact, or a lower bound on
    /// the radix path; the radix path exactly where the radius is past the crossover, or where
    /// the radius pass stopped early.
    pub(super) fn check_report<K: SortKey>(
        report: &RoughReport,
        expected: usize,
        value_size: Option<usize>,
    ) -> Result<(), String> {
        let past = prefers_full_sort(expected, K::SIZE, value_size);
        let ok = report.determined
            && if report.radius_exact {
                report.radius == expected && past == (report.path == RoughPath::Radix)
            } else {
                report.path == RoughPath::Radix
                    && report.radius <= expected
                    // Stopped early: the bounds reached past the crossover, so the radius is
                    // above the pass's tile at least.
                    && expected > 4096
            };
        if ok {
            Ok(())
        } else {
            Err(format!("report {report:?}, CPU radius {expected}"))
        }
    }

    sortlab_verify::sort_algorithm! {
        impl GpuRough(self) {
            name: "roughsort rough_sort (GPU)",
            stable: true,
            tiles: vec![4096, 8192],
            keys(keys, order) {
                let expected = check::radius(keys, order);
                on_device(&self.0, keys, |d| {
                    let report = rough_sort(&self.0, d, order).map_err(|e| e.to_string())?;
                    check_report::<K>(&report, expected, None)
                })
            }
            pairs(keys, values, order) {
                let expected = check::radius(keys, order);
                on_device_pairs(&self.0, keys, values, |dk, dv| {
                    let report =
                        rough_sort_pairs(&self.0, dk, dv, order).map_err(|e| e.to_string())?;
                    check_report::<K>(&report, expected, Some(V::SIZE))
                })
            }
        }
    }

    sortlab_verify::sort_algorithm! {
        impl GpuRoughWithRadius(self) {
            name: "roughsort rough_sort_with_radius (GPU, CPU radius)",
            stable: true,
            tiles: vec![4096, 8192],
            keys(keys, order) {
                let (k, opts) = with_radius(keys, order);
                on_device(&self.0, keys, |d| {
                    rough_sort_with_radius(&self.0, d, k, &opts).map_err(|e| e.to_string())?;
                    Ok(())
                })
            }
            pairs(keys, values, order) {
                let (k, opts) = with_radius(keys, order);
                on_device_pairs(&self.0, keys, values, |dk, dv| {
                    rough_sort_pairs_with_radius(&self.0, dk, dv, k, &opts)
                        .map_err(|e| e.to_string())?;
                    Ok(())
                })
            }
        }
    }

    sortlab_verify::sort_algorithm! {
        impl GpuRoughNoFallback(self) {
            name: "roughsort rough_sort_with_radius (GPU, CPU radius, Fallback::Never)",
            stable: true,
            tiles: vec![4096, 8192],
            keys(keys, order) {
                let (k, opts) = with_radius(keys, order);
                let opts = RoughOptions { fallback: Fallback::Never, ..opts };
                on_device(&self.0, keys, |d| {
                    let r = rough_sort_with_radius(&self.0, d, k, &opts).map_err(|e| e.to_string())?;
                    if r.path == RoughPath::Radix {
                        return Err(format!("Fallback::Never took the radix path: {r:?}"));
                    }
                    Ok(())
                })
            }
            pairs(keys, values, order) {
                let (k, opts) = with_radius(keys, order);
                let opts = RoughOptions { fallback: Fallback::Never, ..opts };
                on_device_pairs(&self.0, keys, values, |dk, dv| {
                    let r = rough_sort_pairs_with_radius(&self.0, dk, dv, k, &opts)
                        .map_err(|e| e.to_string())?;
                    if r.path == RoughPath::Radix {
                        return Err(format!("Fallback::Never took the radix path: {r:?}"));
                    }
                    Ok(())
                })
            }
        }
    }

    /// The CPU's radius of `keys` and the options of [`GpuRoughWithRadius`].
    fn with_radius<K: SortKey>(keys: &[K], order: Order) -> (usize, RoughOptions) {
        let opts = RoughOptions {
            order,
            ..RoughOptions::default()
        };
        (check::radius(keys, order), opts)
    }

    /// Asserts that the GPU radius of `d` (a copy of `keys`) equals the CPU's, and returns it.
    fn assert_radius<K: SortKey>(
        gpu: &Gpu,
        keys: &[K],
        d: &DeviceBuffer<K>,
        order: Order,
        what: &str,
    ) -> usize {
        let r = check::radius(keys, order);
        assert_eq!(radius(gpu, d, order).unwrap(), r, "radius, {what}");
        r
    }

    fn radius_vs_cpu<K: SortKey>(gpu: &Gpu, seed: u64) {
        let mut lengths = RADIUS_LENGTHS.to_vec();
        lengths.push((1 << 20) + 3);
        for pattern in radius_patterns() {
            for &n in &lengths {
                let keys: Vec<K> = generate(pattern, n, seed);
                let d = DeviceBuffer::from_host(gpu, &keys).unwrap();
                for order in [Order::Ascending, Order::Descending] {
                    let what = format!("{} {pattern} n = {n} {order} seed {seed}", K::NAME);
                    let r = assert_radius(gpu, &keys, &d, order, &what);
                    for k in [r.saturating_sub(1), r, r + 1, 0, 4096, 16_384] {
                        assert_eq!(
                            is_k_sorted(gpu, &d, k, order).unwrap(),
                            r <= k,
                            "is_k_sorted({k}), radius {r}, {what}"
                        );
                    }
                }
                let back = d.to_host().unwrap();
                check::check_equal(&keys, &back).expect("radius changed the keys");
            }
        }
    }

    #[test]
    #[ignore = "needs a CUDA device"]
    fn gpu_radius_and_is_k_sorted_match_the_cpu() {
        let gpu = gpu();
        let seed = seed_for("rough::gpu_radius_and_is_k_sorted_match_the_cpu");
        for_each_key!(radius_vs_cpu(&gpu, seed));
    }

    /// Long inputs, where each radius block takes several tiles in turn (the grouped path of
    /// `radius_halo`, a last block with fewer), radii around both passes' tiles: the radius
    /// equals the CPU's.
    fn long_radius_vs_cpu<K: SortKey>(gpu: &Gpu, seed: u64, n: usize) {
        let radii = [
            0, 1, 2, 100, 4095, 4096, 4097, 8191, 8192, 8193, 16_383, 16_384, 16_385, 100_000,
        ];
        let mut patterns: Vec<Pattern> = radii.map(Pattern::KSorted).to_vec();
        patterns.extend([
            Pattern::Ascending,
            Pattern::Descending,
            Pattern::AllEqual,
            Pattern::Uniform,
        ]);
        for pattern in patterns {
            let keys: Vec<K> = generate(pattern, n, seed);
            let d = DeviceBuffer::from_host(gpu, &keys).unwrap();
            for order in [Order::Ascending, Order::Descending] {
                let what = format!("{} {pattern} n = {n} {order} seed {seed}", K::NAME);
                assert_radius(gpu, &keys, &d, order, &what);
            }
        }
    }

    #[test]
    #[ignore = "needs a CUDA device"]
    fn gpu_radius_of_long_inputs_matches_the_cpu() {
        let gpu = gpu();
        let seed = seed_for("rough::gpu_radius_of_long_inputs_matches_the_cpu");
        long_radius_vs_cpu::<u32>(&gpu, seed, (1 << 24) + 5);
        long_radius_vs_cpu::<f64>(&gpu, seed, (1 << 23) + 5);
    }

    fn paths<K: SortKey>(gpu: &Gpu, seed: u64) {
        let n = (1 << 20) + 3;
        for (k, path) in [
            (0, RoughPath::AlreadySorted),
            (1, RoughPath::Window),
            (16, RoughPath::Window),
            (100, RoughPath::Window),
            (256, RoughPath::Window),
            (512, RoughPath::Window),
            (1024, RoughPath::Window),
            (1025, RoughPath::Chained),
            (4096, RoughPath::Chained),
            (70_000, RoughPath::MergePasses),
            (n / 2 + 10, RoughPath::FullSort),
            (n - 1, RoughPath::FullSort),
        ] {
            let input: Vec<K> = generate(Pattern::KSorted(k), n, seed);
            for order in [Order::Ascending, Order::Descending] {
                let mut expected = input.clone();
                sort::sort(&mut expected, order);
                let what = format!("{} k = {k} {order}", K::NAME);
                let r = check::radius(&input, order);
                let mut d = DeviceBuffer::from_host(gpu, &input).unwrap();
                let report = rough_sort(gpu, &mut d, order).unwrap();
                check::check_equal(&expected, &d.to_host().unwrap()).expect(&what);
                check_report::<K>(&report, r, None).expect(&what);
                if order == Order::Ascending {
                    // 8-byte keys have the same window (8192) as 4-byte ones; past the
                    // crossover (16,384 for 4-byte keys, 4096 for 8-byte keys) the radix sort.
                    let want = if prefers_full_sort(k, K::SIZE, None) {
                        RoughPath::Radix
                    } else {
                        path
                    };
                    assert_eq!(report.path, want, "{what}");
                }
                // The rough sort's own path for the same radius, given, without the fallback.
                let never = RoughOptions {
                    order,
                    fallback: Fallback::Never,
                    ..RoughOptions::default()
                };
                let mut d = DeviceBuffer::from_host(gpu, &input).unwrap();
                let report = rough_sort_with_radius(gpu, &mut d, r, &never).expect(&what);
                check::check_equal(&expected, &d.to_host().unwrap()).expect(&what);
                if order == Order::Ascending {
                    assert_eq!(report.path, path, "{what}, Fallback::Never");
                }
                // Pairs, stable, against the reference, with and without the fallback.
                let values: Vec<u32> = (0..n as u32).collect();
                let (mut ek, mut ev) = (input.clone(), values.clone());
                sort::sort_pairs(&mut ek, &mut ev, order).unwrap();
                let auto = RoughOptions {
                    order,
                    ..RoughOptions::default()
                };
                for opts in [auto, never] {
                    let what = format!("{what}, pairs, {:?}", opts.fallback);
                    let mut dk = DeviceBuffer::from_host(gpu, &input).unwrap();
                    let mut dv = DeviceBuffer::from_host(gpu, &values).unwrap();
                    let report =
                        rough_sort_pairs_with_radius(gpu, &mut dk, &mut dv, r, &opts).expect(&what);
                    let radix =
                        opts.fallback == Fallback::Auto && prefers_full_sort(r, K::SIZE, Some(4));
                    assert_eq!(report.path == RoughPath::Radix, radix, "{what}: {report:?}");
                    check::check_pairs_equal(
                        &ek,
                        &ev,
                        &dk.to_host().unwrap(),
                        &dv.to_host().unwrap(),
                    )
                    .expect(&what);
                }
            }
        }
    }

    gpu_test!(gpu_every_path_sorts_keys_and_stable_pairs: paths::<u32, f64, i64>);

    /// `n` k-sorted keys of radius at most `k` from `seed`, distinct (`ties` 1) and with every 16
    /// consecutive values one key (`ties` 16: a monotone map keeps the input k-sorted), each in
    /// both orders (reversed for descending, so that it is k-sorted in the order sorted).
    fn k_sorted_cases<K: SortKey>(n: usize, k: usize, seed: u64) -> Vec<(u32, Order, Vec<K>)> {
        let distinct: Vec<u32> = generate(Pattern::KSorted(k), n, seed);
        let mut cases = Vec::new();
        for ties in [1u32, 16] {
            let ascending: Vec<K> = distinct
                .iter()
                .map(|&x| K::from_f64((x / ties) as f64))
                .collect();
            let mut descending = ascending.clone();
            descending.reverse();
            cases.push((ties, Order::Ascending, ascending));
            cases.push((ties, Order::Descending, descending));
        }
        cases
    }

    /// The radix fallback: k-sorted keys (distinct, and with every 16 consecutive values one
    /// key, so that stability shows) at radii on both sides of the crossovers (16,384 for 4-byte
    /// keys alone, 4096 for 8-byte keys and for pairs), in both orders (reversed for
    /// descending, so that the input is k-sorted in the order sorted): `rough_sort`,
    /// `rough_sort_pairs` and their `_with_radius` forms take the radix path exactly past the
    /// crossover (or, for a determined radius, where the radius pass stopped early) and equal
    /// the stable reference exactly.
    fn fallback<K: SortKey, V: sortlab_verify::IndexValue>(gpu: &Gpu, seed: u64) {
        let n = (1 << 20) + 3;
        for k in [0, 16, 4096, 4097, 16_384, 16_385, 70_000, n] {
            for (ties, order, input) in k_sorted_cases::<K>(n, k, seed ^ k as u64) {
                let r = check::radius(&input, order);
                assert!(r <= k, "k {k} r {r}");
                let what = format!(
                    "{}/{} n = {n} k = {k} r = {r} ties {ties} {order}",
                    K::NAME,
                    V::VALUE_NAME
                );
                let mut expected = input.clone();
                sort::sort(&mut expected, order);
                let values: Vec<V> = (0..n).map(V::from_index).collect();
                let (mut ek, mut ev) = (input.clone(), values.clone());
                sort::sort_pairs(&mut ek, &mut ev, order).unwrap();
                let opts = RoughOptions {
                    order,
                    ..RoughOptions::default()
                };
                let past_keys = prefers_full_sort(r, K::SIZE, None);
                let past_pairs = prefers_full_sort(r, K::SIZE, Some(V::SIZE));
                // Keys, radius determined.
                let mut d = DeviceBuffer::from_host(gpu, &input).unwrap();
                let report = rough_sort(gpu, &mut d, order).expect(&what);
                check_report::<K>(&report, r, None).expect(&what);
                if r <= 4096 || past_keys {
                    // No early stop below the radius tile; always the radix sort past it.
                    assert_eq!(report.path == RoughPath::Radix, past_keys, "{what}");
                }
                check::check_equal(&expected, &d.to_host().unwrap()).expect(&what);
                // Keys, radius given.
                let mut d = DeviceBuffer::from_host(gpu, &input).unwrap();
                let report = rough_sort_with_radius(gpu, &mut d, r, &opts).expect(&what);
                assert_eq!(report.path == RoughPath::Radix, past_keys, "{what}");
                assert_eq!((report.radius, report.determined), (r, false), "{what}");
                check::check_equal(&expected, &d.to_host().unwrap()).expect(&what);
                // Pairs, radius determined, then given.
                let mut dk = DeviceBuffer::from_host(gpu, &input).unwrap();
                let mut dv = DeviceBuffer::from_host(gpu, &values).unwrap();
                let report = rough_sort_pairs(gpu, &mut dk, &mut dv, order).expect(&what);
                check_report::<K>(&report, r, Some(V::SIZE)).expect(&what);
                assert_eq!(report.path == RoughPath::Radix, past_pairs, "{what}, pairs");
                let (gk, gv) = (dk.to_host().unwrap(), dv.to_host().unwrap());
                check::check_pairs_equal(&ek, &ev, &gk, &gv).expect(&what);
                let mut dk = DeviceBuffer::from_host(gpu, &input).unwrap();
                let mut dv = DeviceBuffer::from_host(gpu, &values).unwrap();
                let report =
                    rough_sort_pairs_with_radius(gpu, &mut dk, &mut dv, r, &opts).expect(&what);
                assert_eq!(report.path == RoughPath::Radix, past_pairs, "{what}, pairs");
                let (gk, gv) = (dk.to_host().unwrap(), dv.to_host().unwrap());
                check::check_pairs_equal(&ek, &ev, &gk, &gv).expect(&what);
            }
        }
        // The crossovers themselves, as the tests above assume them.
        assert_eq!(full_sort_past_k(4, None), 16_384);
        assert_eq!(full_sort_past_k(8, None), 4096);
        assert_eq!(full_sort_past_k(K::SIZE, Some(V::SIZE)), 4096);
    }

    #[test]
    #[ignore = "needs a CUDA device"]
    fn gpu_fallback_past_the_crossover_equals_the_stable_reference() {
        let gpu = gpu();
        let seed = seed_for("rough::gpu_fallback_past_the_crossover_equals_the_stable_reference");
        fallback::<u32, u32>(&gpu, seed);
        fallback::<u64, u64>(&gpu, seed);
        fallback::<f32, u64>(&gpu, seed);
    }

    /// The chained pass (keys alone, k from an eighth to half a window) at lengths whose last run
    /// is short of, at, and past half a window, on distinct k-sorted keys and on the same with
    /// every 16 consecutive values one key (ties across the runs' halves), in both orders.
    fn chained<K: SortKey>(gpu: &Gpu, seed: u64) {
        const W: usize = 8192; // the window of 4- and 8-byte keys alone
        for n in [
            W + 1,
            3 * W + 1,
            3 * W + W / 2,
            3 * W + W / 2 + 1,
            4 * W - 1,
            5 * W,
        ] {
            for k in [W / 8 + 1, 3000, W / 2] {
                for (ties, order, input) in k_sorted_cases::<K>(n, k, seed ^ n as u64) {
                    assert!(check::radius(&input, order) <= k);
                    let what = format!("{} n = {n} k = {k} ties {ties} {order}", K::NAME);
                    let mut expected = input.clone();
                    sort::sort(&mut expected, order);
                    let mut d = DeviceBuffer::from_host(gpu, &input).unwrap();
                    let opts = RoughOptions {
                        order,
                        ..RoughOptions::default()
                    };
                    let report = rough_sort_with_radius(gpu, &mut d, k, &opts).expect(&what);
                    assert_eq!(report.path, RoughPath::Chained, "{what}");
                    check::check_equal(&expected, &d.to_host().unwrap()).expect(&what);
                }
            }
        }
    }

    gpu_test!(gpu_chained_pass_sorts_every_last_run_length: chained::<u32, f32, u64>);

    fn too_small<K: SortKey>(gpu: &Gpu, seed: u64) {
        for n in [100, 5000, (1 << 20) + 3] {
            for k in [1, 2, 16, 1024, 1025, 4096, 70_000] {
                if k >= n {
                    continue;
                }
                let input: Vec<K> = generate(Pattern::KSorted(k), n, seed);
                for order in [Order::Ascending, Order::Descending] {
                    let r = check::radius(&input, order);
                    if r == 0 {
                        continue;
                    }
                    let what = format!("{} n = {n} k = {k} r = {r} {order}", K::NAME);
                    // Without the fallback: a radius past the crossover is checked too.
                    let opts = RoughOptions {
                        order,
                        on_wrong_radius: OnWrongRadius::Error,
                        fallback: Fallback::Never,
                    };
                    let mut d = DeviceBuffer::from_host(gpu, &input).unwrap();
                    for small in [r - 1, r / 2, 0] {
                        let err =
                            rough_sort_with_radius(gpu, &mut d, small, &opts).expect_err(&what);
                        assert_eq!(err, Error::RadiusTooSmall { k: small }, "{what}");
                        check::check_equal(&input, &d.to_host().unwrap())
                            .expect("keys changed by a refused radius");
                    }
                    let values: Vec<u64> = (0..n as u64).collect();
                    let mut dv = DeviceBuffer::from_host(gpu, &values).unwrap();
                    let err = rough_sort_pairs_with_radius(gpu, &mut d, &mut dv, r - 1, &opts)
                        .expect_err(&what);
                    assert_eq!(err, Error::RadiusTooSmall { k: r - 1 });
                    assert_eq!(dv.to_host().unwrap(), values, "values changed: {what}");
                    // With the fallback, a too-small radius past the crossover is not checked: the
                    // radix sort sorts whatever the radius.
                    let auto = RoughOptions {
                        order,
                        on_wrong_radius: OnWrongRadius::Error,
                        fallback: Fallback::Auto,
                    };
                    let mut expected = input.clone();
                    sort::sort(&mut expected, order);
                    for small in [r - 1, r / 2, 0] {
                        let mut dd = DeviceBuffer::from_host(gpu, &input).unwrap();
                        let got = rough_sort_with_radius(gpu, &mut dd, small, &auto);
                        if prefers_full_sort(small, K::SIZE, None) {
                            let report = got.expect(&what);
                            assert_eq!(report.path, RoughPath::Radix, "{what}");
                            check::check_equal(&expected, &dd.to_host().unwrap()).expect(&what);
                        } else {
                            assert_eq!(got.expect_err(&what), Error::RadiusTooSmall { k: small });
                            check::check_equal(&input, &dd.to_host().unwrap()).expect(&what);
                        }
                    }
                    let opts = RoughOptions {
                        order,
                        on_wrong_radius: OnWrongRadius::Redetermine,
                        fallback: Fallback::Never,
                    };
                    let report =
                        rough_sort_pairs_with_radius(gpu, &mut d, &mut dv, r - 1, &opts).unwrap();
                    assert!(
                        report.determined && report.radius == r && report.radius_exact,
                        "{what}: {report:?}"
                    );
                    let (mut ek, mut ev) = (input.clone(), values.clone());
                    sort::sort_pairs(&mut ek, &mut ev, order).unwrap();
                    check::check_pairs_equal(
                        &ek,
                        &ev,
                        &d.to_host().unwrap(),
                        &dv.to_host().unwrap(),
                    )
                    .expect(&what);
                }
            }
        }
    }

    gpu_test!(gpu_too_small_radius_is_reported_and_leaves_the_data: too_small::<u32, f32, u64>);

    #[test]
    #[ignore = "needs a CUDA device"]
    fn gpu_mismatched_lengths_are_an_error() {
        let gpu = gpu();
        let mut k = DeviceBuffer::from_host(&gpu, &[3u32, 2, 1]).unwrap();
        let mut v = DeviceBuffer::from_host(&gpu, &[0u32, 1]).unwrap();
        let err = rough_sort_pairs(&gpu, &mut k, &mut v, Order::Ascending).unwrap_err();
        assert!(matches!(err, Error::Gpu(_)), "{err}");
        assert_eq!(k.to_host().unwrap(), [3, 2, 1]);
        // Empty and single inputs.
        let mut e = DeviceBuffer::<f64>::from_host(&gpu, &[]).unwrap();
        assert_eq!(radius(&gpu, &e, Order::Ascending).unwrap(), 0);
        assert_eq!(
            rough_sort(&gpu, &mut e, Order::Descending).unwrap().radius,
            0
        );
        let mut one = DeviceBuffer::from_host(&gpu, &[f64::NAN]).unwrap();
        let r = rough_sort(&gpu, &mut one, Order::Ascending).unwrap();
        assert_eq!(r.path, RoughPath::AlreadySorted);
        assert!(one.to_host().unwrap()[0].is_nan());
    }

    /// The first position where `out` differs from `expected(i)`, if any.
    fn first_mismatch(out: &[u32], expected: impl Fn(usize) -> u32) -> Option<usize> {
        out.iter().enumerate().position(|(i, &x)| x != expected(i))
    }

    /// 2^32 + 2^18 + 5 u32 keys `i >> 1` (ascending, each value twice), disturbed by swaps of
    /// keys `d` apart (radius exactly `d` for `d >= 2`: the swapped pair is the widest
    /// inversion, its neighbours' duplicates never lengthen it), at the start, across 2^31 and
    /// 2^32 and at the end: the radius (one-pass and far), `is_k_sorted`, and `rough_sort` on every path
    /// (window, chained, merge passes, the radix sort past the crossover with the radius pass
    /// stopped early, and, without the fallback, the full merge sort of the descending order)
    /// with 64-bit positions.
    /// Minutes long: `scripts/gpu-check` runs the `past_2_pow_32` tests only with
    /// `SORTLAB_LARGE=1`; a device without the memory fails it.
    #[test]
    #[ignore = "needs a CUDA device with 40 GiB of memory (scripts/gpu-check: SORTLAB_LARGE=1)"]
    fn past_2_pow_32_keys() {
        let g = gpu();
        let n = (1usize << 32) + (1 << 18) + 5;
        let (free, _) = g.memory_info().unwrap();
        assert!(
            free >= 40 << 30,
            "needs 40 GiB of free device memory, the device has {free} bytes"
        );
        let base = |i: usize| (i >> 1) as u32;
        let mut host: Vec<u32> = (0..n).map(base).collect();
        for (d, path) in [
            (300, RoughPath::Window),
            (3000, RoughPath::Chained),
            (5000, RoughPath::MergePasses),
            (100_000, RoughPath::Radix),
        ] {
            let starts = [5, (1 << 31) - 7, (1 << 32) - d / 2, n - 1 - d];
            for &p in &starts {
                host.swap(p, p + d);
            }
            let mut keys = DeviceBuffer::from_host(&g, &host).unwrap();
            for &p in &starts {
                host.swap(p, p + d); // back to the sorted base
            }
            let asc = Order::Ascending;
            assert_eq!(radius(&g, &keys, asc).unwrap(), d, "radius, d = {d}");
            assert!(is_k_sorted(&g, &keys, d, asc).unwrap(), "is_k_sorted({d})");
            assert!(
                !is_k_sorted(&g, &keys, d - 1, asc).unwrap(),
                "is_k_sorted({d} - 1)"
            );
            let report = rough_sort(&g, &mut keys, asc).unwrap();
            if report.radius_exact {
                assert_eq!((report.radius, report.path), (d, path), "d = {d}");
            } else {
                // Stopped early past the crossover: a lower bound.
                assert!(
                    report.radius <= d && path == RoughPath::Radix,
                    "d = {d}: {report:?}"
                );
            }
            assert_eq!(report.path, path, "d = {d}");
            let out = keys.to_host().unwrap();
            assert_eq!(out.len(), n);
            assert_eq!(
                first_mismatch(&out, base),
                None,
                "d = {d}: first wrong position"
            );
        }
        // The sorted keys in descending order: radius n - 1, the full merge sort (without the
        // fallback: the radix sort past 2^32 is sortlab-gpu-sorts' own test).
        let mut keys = DeviceBuffer::from_host(&g, &host).unwrap();
        drop(host);
        let never = RoughOptions {
            order: Order::Descending,
            fallback: Fallback::Never,
            ..RoughOptions::default()
        };
        let report = rough_sort_with_radius(&g, &mut keys, n - 1, &never).unwrap();
        assert_eq!((report.radius, report.path), (n - 1, RoughPath::FullSort));
        let out = keys.to_host().unwrap();
        assert_eq!(
            first_mismatch(&out, |i| base(n - 1 - i)),
            None,
            "descending"
        );
    }

    /// Median of `runs` GPU times (ms) of `f(state)`, after `prepare(state)` (untimed) each
    /// run and one warm-up.
    fn median_ms<S>(
        gpu: &Gpu,
        runs: usize,
        state: &mut S,
        mut prepare: impl FnMut(&mut S),
        mut f: impl FnMut(&mut S),
    ) -> f64 {
        let timer = GpuTimer::new(gpu).unwrap();
        prepare(state);
        f(state);
        let mut t: Vec<f64> = (0..runs)
            .map(|_| {
                prepare(state);
                gpu.synchronize().unwrap();
                timer.start().unwrap();
                f(state);
                timer.stop().unwrap()
            })
            .collect();
        median(&mut t)
    }

    /// Median wall time (ms) of `f` over `runs` runs after one warm-up.
    fn median_wall_ms(runs: usize, mut f: impl FnMut()) -> f64 {
        f();
        let mut t: Vec<f64> = (0..runs)
            .map(|_| {
                let s = Instant::now();
                f();
                s.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        median(&mut t)
    }

    /// One radius and one rough_sort of 2^26 u32 keys at k = 256 and k = 4096 (after a
    /// warm-up that compiles the modules): the target for `ncu`.
    #[test]
    #[ignore = "needs a CUDA device"]
    fn gpu_rough_profile_target() {
        let gpu = gpu();
        let seed = seed_for("rough::gpu_rough_profile_target");
        let mut warm = DeviceBuffer::from_host(&gpu, &[3u32, 1, 2]).unwrap();
        rough_sort(&gpu, &mut warm, Order::Ascending).unwrap();
        for k in [256, 4096] {
            let keys: Vec<u32> = generate(Pattern::KSorted(k), 1 << 26, seed);
            let mut d = DeviceBuffer::from_host(&gpu, &keys).unwrap();
            let report = rough_sort(&gpu, &mut d, Order::Ascending).unwrap();
            assert_eq!(report.radius, k);
        }
    }

    #[test]
    #[ignore = "needs a CUDA device"]
    fn gpu_rough_timings() {
        let gpu = gpu();
        let seed = seed_for("rough::gpu_rough_timings");
        let runs = 7;
        println!("device: {}", gpu.info().name);
        // Radius: GPU whole call (wall) against the sequential CPU.
        println!("radius, u32, ms: n, k, gpu wall, gpu events, cpu seq (memory-saving), cpu seq (report)");
        for log_n in [16, 20, 24] {
            let n = 1usize << log_n;
            for k in [2, 100, 4096, 5000, n / 4] {
                let keys: Vec<u32> = generate(Pattern::KSorted(k), n, seed);
                let d = DeviceBuffer::from_host(&gpu, &keys).unwrap();
                let gw = median_wall_ms(runs, || {
                    radius(&gpu, &d, Order::Ascending).unwrap();
                });
                let ge = median_ms(
                    &gpu,
                    runs,
                    &mut (),
                    |_| {},
                    |_| {
                        radius(&gpu, &d, Order::Ascending).unwrap();
                    },
                );
                let cs = median_wall_ms(3, || {
                    std::hint::black_box(rough::radius_memory_saving(&keys, Order::Ascending));
                });
                let cr = median_wall_ms(3, || {
                    std::hint::black_box(rough::radius(&keys, Order::Ascending));
                });
                println!(
                    "radius 2^{log_n} k={k}: gpu {gw:.3} (events {ge:.3}), cpu {cs:.3} / {cr:.3}"
                );
            }
        }
        // Sorts at 2^28 u32.
        let n = 1usize << 28;
        println!("2^28 u32 k-sorted, ms (GPU events, median of {runs}): radius, sort given k, rough_sort (radius + sort), path, keys/s");
        // 16, 256, 4096: the targets; 1024 / 1025: the window path's limit.
        for k in [16, 256, 1024, 1025, 4096] {
            let keys: Vec<u32> = generate(Pattern::KSorted(k), n, seed);
            let pristine = DeviceBuffer::from_host(&gpu, &keys).unwrap();
            drop(keys);
            let mut work = pristine.try_clone().unwrap();
            let r = median_ms(
                &gpu,
                runs,
                &mut (),
                |_| {},
                |_| {
                    radius(&gpu, &pristine, Order::Ascending).unwrap();
                },
            );
            let mut path = None;
            let opts = RoughOptions::default();
            let restore = |w: &mut DeviceBuffer<u32>| w.copy_from_device(&pristine).unwrap();
            let s = median_ms(&gpu, runs, &mut work, restore, |w| {
                path = Some(rough_sort_with_radius(&gpu, w, k, &opts).unwrap().path);
            });
            let t = median_ms(&gpu, runs, &mut work, restore, |w| {
                rough_sort(&gpu, w, Order::Ascending).unwrap();
            });
            assert!(is_k_sorted(&gpu, &work, 0, Order::Ascending).unwrap());
            println!(
                "k={k}: radius {r:.3} ms, sort {s:.3} ms, rough_sort {t:.3} ms, path {:?}, {:.2} Gkeys/s",
                path,
                n as f64 / t / 1e6
            );
        }
    }
}

sortlab_verify::sort_suite!(
    gpu_rough,
    gpu::GpuRough(gpu::gpu()),
    ignore = "needs a CUDA device"
);
sortlab_verify::sort_suite!(
    gpu_rough_with_radius,
    gpu::GpuRoughWithRadius(gpu::gpu()),
    ignore = "needs a CUDA device"
);
sortlab_verify::sort_suite!(
    gpu_rough_no_fallback,
    gpu::GpuRoughNoFallback(gpu::gpu()),
    ignore = "needs a CUDA device"
);
