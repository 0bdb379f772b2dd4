//! Tests of `reduce` and `scan`.
//!
//! Without a GPU (run everywhere): every kernel configuration the host can launch — each key
//! type × operation × variant, with its policy's defines — compiles with NVRTC for sm_90 without
//! a warning.
//!
//! On a CUDA device (`#[ignore = "needs a CUDA device"]`, run by `scripts/gpu-check`): every
//! variant × operation × key type × edge length (0, 1, 2, warp and block sizes ± 1, 2^16 ± 1,
//! 2^20 + 7, and about 2^26 for a subset) against sequential loops on the host, inputs checked
//! unchanged afterwards; limits and errors; 64-bit indexing past 2^32 keys. The seed is printed
//! and can be set with `SORTLAB_SEED`.
//!
//! Comparisons: integers, min, max and min-max, and max/min scans exactly (bits); float sums
//! within the classic bound for any summation order, `|gpu - exact| <= m * eps * sum(|x|)` with
//! `m` terms, `eps` the type's machine epsilon and `exact` a compensated (Neumaier) f64 sum.

mod common;

use common::{assert_configs_compile, gpu, random_key, rng_for, same_bits, Specials};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use sortlab_primitives::reduce::{
    self, reduce_max, reduce_max_into, reduce_min, reduce_min_into, reduce_min_max,
    reduce_min_max_into, reduce_sum, reduce_sum_into, ReduceKey, ReduceOp, ReducePolicy,
    ReduceVariant,
};
use sortlab_primitives::scan::{
    self, scan, scan_in_place, Direction, ScanKind, ScanOp, ScanPolicy, ScanVariant,
};
use sortlab_primitives::{
    DeviceBuffer, Error, Gpu, KernelArgs, KernelSource, LaunchConfig, SortKey,
};

// ---------------------------------------------------------------------------------------------
// Compilation of every configuration (no GPU needed).

fn compile_reduce_configs<K: ReduceKey>() {
    let mut configs = Vec::new();
    for variant in ReduceVariant::ALL {
        for op in ReduceOp::ALL {
            let policy = ReducePolicy::for_variant(variant);
            configs.push(reduce::module_defines::<K>(op, variant, &policy));
        }
    }
    assert_configs_compile(&reduce::SOURCE, configs);
}

fn compile_scan_configs<K: SortKey>() {
    let mut configs = Vec::new();
    for variant in ScanVariant::ALL {
        for op in ScanOp::ALL {
            let policy = ScanPolicy::for_variant(variant, K::SIZE);
            configs.push(scan::module_defines::<K>(op, variant, &policy));
        }
    }
    assert_configs_compile(&scan::SOURCE, configs);
}

macro_rules! compile_tests {
    ($($reduce:ident, $scan:ident: $t:ty;)*) => {$(
        #[test]
        fn $reduce() {
            compile_reduce_configs::<$t>();
        }
        #[test]
        fn $scan() {
            compile_scan_configs::<$t>();
        }
    )*};
}

compile_tests! {
    reduce_configs_compile_u32, scan_configs_compile_u32: u32;
    reduce_configs_compile_i32, scan_configs_compile_i32: i32;
    reduce_configs_compile_f32, scan_configs_compile_f32: f32;
    reduce_configs_compile_u64, scan_configs_compile_u64: u64;
    reduce_configs_compile_i64, scan_configs_compile_i64: i64;
    reduce_configs_compile_f64, scan_configs_compile_f64: f64;
}

#[test]
fn limits_and_names() {
    assert_eq!(ScanVariant::Naive.max_len(), Some(32));
    assert_eq!(ScanVariant::DoubleBuffered.max_len(), Some(1024));
    assert_eq!(ScanVariant::WorkEfficient.max_len(), Some(2048));
    assert_eq!(ScanVariant::Hierarchical.max_len(), None);
    assert_eq!(ScanVariant::Fast.max_len(), None);
    assert_eq!(ScanVariant::default(), ScanVariant::Fast);
    assert_eq!(ReduceVariant::default(), ReduceVariant::Fast);
    // The one-block variants' policies are their limits.
    for v in ScanVariant::ALL {
        if let Some(max) = v.max_len() {
            for size in [4, 8] {
                let p = ScanPolicy::for_variant(v, size);
                assert_eq!(p.tile_items(), max, "{v}");
            }
        }
    }
    let names: Vec<_> = ReduceVariant::ALL.iter().map(|v| v.name()).collect();
    assert_eq!(
        names,
        ["interleaved", "sequential", "first-add", "unrolled", "fast"]
    );
    assert_eq!(ScanVariant::WorkEfficient.to_string(), "work-efficient");
}

// ---------------------------------------------------------------------------------------------
// Host references.

/// A key type under test, with what the comparisons need.
trait TestKey: ReduceKey + Specials {
    /// Machine epsilon of a float type (0 for integers).
    const EPS: f64;
}

macro_rules! test_key {
    ($($t:ident: $eps:expr),*) => {$(
        impl TestKey for $t {
            const EPS: f64 = $eps;
        }
    )*};
}
test_key!(u32: 0.0, i32: 0.0, u64: 0.0, i64: 0.0, f32: f32::EPSILON as f64, f64: f64::EPSILON);

/// Keys for sums: full-range integers (sums wrap where the type wraps), floats in ±1000 with a
/// spread of magnitudes (no overflow, so the bound applies).
fn sum_keys<K: TestKey>(rng: &mut ChaCha8Rng, n: usize) -> Vec<K> {
    (0..n)
        .map(|_| {
            if K::IS_FLOAT {
                let mag = 10f64.powi(rng.gen_range(-3..=3));
                K::from_f64(rng.gen_range(-1.0..1.0) * mag)
            } else {
                random_key(rng)
            }
        })
        .collect()
}

/// Keys for min and max: random bit patterns (random NaN payloads included), with about 2% of
/// specials mixed in; or, with `few`, only specials (ties of distinct bits: -0.0 and +0.0, NaNs).
fn order_keys<K: TestKey>(rng: &mut ChaCha8Rng, n: usize, few: bool) -> Vec<K> {
    let specials = K::specials();
    (0..n)
        .map(|_| {
            if few || rng.gen_ratio(1, 50) {
                specials[rng.gen_range(0..specials.len())]
            } else {
                random_key(rng)
            }
        })
        .collect()
}

/// Compensated (Neumaier) sum in f64: the exact sum of f32 keys, and of f64 keys up to a few
/// ulps of the result.
#[derive(Clone, Copy, Default)]
struct ExactSum {
    sum: f64,
    comp: f64,
    abs: f64,
    terms: usize,
}

impl ExactSum {
    fn add(&mut self, x: f64) {
        let t = self.sum + x;
        if self.sum.abs() >= x.abs() {
            self.comp += (self.sum - t) + x;
        } else {
            self.comp += (x - t) + self.sum;
        }
        self.sum = t;
        self.abs += x.abs();
        self.terms += 1;
    }
    fn value(&self) -> f64 {
        self.sum + self.comp
    }
    /// Whether `got` is within `terms * eps * sum|x|` (plus a few ulps of the result for the
    /// reference's own rounding to the key type) of the exact sum.
    fn accepts(&self, got: f64, eps: f64) -> bool {
        let exact = self.value();
        let tol = (self.terms as f64) * eps * self.abs + 4.0 * eps * exact.abs() + 1e-300;
        (got - exact).abs() <= tol
    }
}

fn max_by_total<K: SortKey>(a: K, b: K) -> K {
    if a.total_cmp(&b).is_lt() {
        b
    } else {
        a
    }
}

fn min_by_total<K: SortKey>(a: K, b: K) -> K {
    if b.total_cmp(&a).is_lt() {
        b
    } else {
        a
    }
}

/// The reference scan, sequentially over the logical order (exact for every operator on
/// integers and for max/min; used for the in-place checks).
fn ref_scan<K: TestKey>(input: &[K], op: ScanOp, kind: ScanKind, dir: Direction) -> Vec<K> {
    let n = input.len();
    let identity = match op {
        ScanOp::Sum => K::from_f64(0.0),
        ScanOp::Max => K::LOWEST,
        ScanOp::Min => K::HIGHEST,
    };
    let combine = |a: K, b: K| match op {
        ScanOp::Sum => K::key_add(a, b),
        ScanOp::Max => max_by_total(a, b),
        ScanOp::Min => min_by_total(a, b),
    };
    let mut out = vec![identity; n];
    let mut acc: Option<K> = None;
    for j in 0..n {
        let i = if dir.is_reverse() { n - 1 - j } else { j };
        let x = input[i];
        let next = match acc {
            None => x,
            Some(a) => combine(a, x),
        };
        out[i] = if kind.is_exclusive() {
            acc.unwrap_or(identity)
        } else {
            next
        };
        acc = Some(next);
    }
    out
}

/// Checks `got` (the scan of `input`) element by element in logical order, streaming (no
/// reference array): exactly for integers and max/min, within the bound for float sums, whose
/// exclusive empty prefix must be +0.0.
fn verify_scan<K: TestKey>(
    input: &[K],
    got: &[K],
    op: ScanOp,
    kind: ScanKind,
    dir: Direction,
    ctx: &str,
) {
    let n = input.len();
    assert_eq!(got.len(), n, "{ctx}");
    let at = |j: usize| if dir.is_reverse() { n - 1 - j } else { j };
    if op == ScanOp::Sum && K::IS_FLOAT {
        let mut acc = ExactSum::default();
        for j in 0..n {
            let i = at(j);
            if !kind.is_exclusive() {
                acc.add(input[i].to_f64());
            }
            let g = got[i];
            if acc.terms == 0 {
                assert_eq!(
                    g.to_ordered_bits(),
                    K::from_f64(0.0).to_ordered_bits(),
                    "{ctx}: out[{i}] = {g:?} must be +0.0"
                );
            } else {
                assert!(
                    acc.accepts(g.to_f64(), K::EPS),
                    "{ctx}: out[{i}] = {g}, exact {} (sum|x| = {}, {} terms)",
                    acc.value(),
                    acc.abs,
                    acc.terms
                );
            }
            if kind.is_exclusive() {
                acc.add(input[i].to_f64());
            }
        }
        return;
    }
    let identity = match op {
        ScanOp::Sum => K::from_f64(0.0),
        ScanOp::Max => K::LOWEST,
        ScanOp::Min => K::HIGHEST,
    };
    let mut acc: Option<K> = None;
    for j in 0..n {
        let i = at(j);
        let x = input[i];
        let next = match (acc, op) {
            (None, _) => x,
            (Some(a), ScanOp::Sum) => K::key_add(a, x),
            (Some(a), ScanOp::Max) => max_by_total(a, x),
            (Some(a), ScanOp::Min) => min_by_total(a, x),
        };
        let want = if kind.is_exclusive() {
            acc.unwrap_or(identity)
        } else {
            next
        };
        if !same_bits(got[i], want) {
            panic!(
                "{ctx}: first difference at {i} (logical {j}): got {:?}, want {want:?}",
                got[i]
            );
        }
        acc = Some(next);
    }
}

// ---------------------------------------------------------------------------------------------
// GPU checks.

/// Every length of DESIGN.md §5 up to 2^20 + 7.
const LENGTHS: &[usize] = &[
    0,
    1,
    2,
    31,
    32,
    33,
    255,
    256,
    257,
    1023,
    1024,
    1025,
    2047,
    2048,
    2049,
    (1 << 16) - 1,
    (1 << 16) + 1,
    (1 << 20) + 7,
];

/// The large length (about 2^26) run for a subset of types and variants.
const BIG: usize = (1 << 26) - 5;

fn check_unchanged<K: SortKey>(d: &DeviceBuffer<K>, host: &[K], what: &str) {
    let after = d.to_host().unwrap();
    assert!(
        after
            .iter()
            .zip(host)
            .all(|(a, b)| a.to_ordered_bits() == b.to_ordered_bits()),
        "{what}: the input was modified"
    );
}

fn check_reduce_sum<K: TestKey>(g: &Gpu, host: &[K], d: &DeviceBuffer<K>, v: ReduceVariant) {
    let n = host.len();
    let got = reduce_sum(g, d, v).unwrap();
    let ctx = format!("{} sum {v} n={n}", K::NAME);
    // On the device, into a poisoned buffer, with the caller's scratch: the same bits.
    let mut out = DeviceBuffer::<K::Sum>::alloc(g, 2).unwrap();
    out.fill_bytes(0xab).unwrap();
    let mut scratch =
        DeviceBuffer::<u8>::alloc(g, reduce::scratch_bytes::<K>(g, n, ReduceOp::Sum, v).max(1))
            .unwrap();
    reduce_sum_into(g, d, v, &mut out, Some(&mut scratch)).unwrap();
    let on_device = out.to_host().unwrap();
    assert_eq!(
        format!("{:?}", on_device[0]),
        format!("{got:?}"),
        "{ctx}: reduce_sum_into differs from reduce_sum"
    );
    if K::IS_FLOAT {
        let mut exact = ExactSum::default();
        host.iter().for_each(|x| exact.add(x.to_f64()));
        let gf = K::sum_to_f64(got);
        assert!(
            exact.accepts(gf, K::EPS),
            "{ctx}: got {gf}, exact {} (sum|x| = {})",
            exact.value(),
            exact.abs
        );
    } else {
        let want = host
            .iter()
            .fold(K::SUM_ZERO, |a, &x| K::sum_add(a, x.to_sum()));
        assert_eq!(got, want, "{ctx}");
    }
}

fn check_reduce_order<K: TestKey>(g: &Gpu, host: &[K], d: &DeviceBuffer<K>, v: ReduceVariant) {
    let n = host.len();
    let want_min = host.iter().copied().reduce(min_by_total);
    let want_max = host.iter().copied().reduce(max_by_total);
    let ctx = format!("{} n={n} {v}", K::NAME);
    let bits = |o: Option<K>| o.map(|k| k.to_ordered_bits());
    let got_min = reduce_min(g, d, v).unwrap();
    assert_eq!(
        bits(got_min),
        bits(want_min),
        "{ctx} min: got {got_min:?}, want {want_min:?}"
    );
    let got_max = reduce_max(g, d, v).unwrap();
    assert_eq!(
        bits(got_max),
        bits(want_max),
        "{ctx} max: got {got_max:?}, want {want_max:?}"
    );
    // On the device, into poisoned buffers (pool scratch): the same keys, nothing for no keys.
    for (op, want) in [("min", want_min), ("max", want_max)] {
        let mut out = DeviceBuffer::<K>::alloc(g, 1).unwrap();
        out.fill_bytes(0xab).unwrap();
        let poison = out.to_host().unwrap()[0];
        let wrote = match op {
            "min" => reduce_min_into(g, d, v, &mut out, None),
            _ => reduce_max_into(g, d, v, &mut out, None),
        }
        .unwrap();
        assert_eq!(wrote, n > 0, "{ctx} {op}_into: wrote");
        let got = out.to_host().unwrap()[0];
        assert_eq!(
            got.to_ordered_bits(),
            want.unwrap_or(poison).to_ordered_bits(),
            "{ctx} {op}_into: got {got:?}, want {want:?}"
        );
    }
    let mut out = DeviceBuffer::<K>::alloc(g, 2).unwrap();
    out.fill_bytes(0xab).unwrap();
    let poison = out.to_host().unwrap()[0];
    assert_eq!(reduce_min_max_into(g, d, v, &mut out, None).unwrap(), n > 0);
    let got2 = out.to_host().unwrap();
    let (lo, hi) = want_min.zip(want_max).unwrap_or((poison, poison));
    assert_eq!(
        (got2[0].to_ordered_bits(), got2[1].to_ordered_bits()),
        (lo.to_ordered_bits(), hi.to_ordered_bits()),
        "{ctx} min_max_into: got {got2:?}"
    );
    let got = reduce_min_max(g, d, v).unwrap();
    let want = want_min.zip(want_max);
    assert_eq!(
        got.map(|(a, b)| (a.to_ordered_bits(), b.to_ordered_bits())),
        want.map(|(a, b)| (a.to_ordered_bits(), b.to_ordered_bits())),
        "{ctx} min-max: got {got:?}, want {want:?}"
    );
}

/// One `#[test]` per key type running `$suite::<$t>(test name, big)`, on a CUDA device.
macro_rules! suite_tests {
    ($suite:ident: $($name:ident: $t:ty, $big:expr;)*) => {$(
        #[test]
        #[ignore = "needs a CUDA device"]
        fn $name() {
            $suite::<$t>(stringify!($name), $big);
        }
    )*};
}

fn reduce_suite<K: TestKey>(test: &str, big: bool) {
    let g = gpu();
    let mut rng = rng_for(test);
    let mut lengths = LENGTHS.to_vec();
    if big {
        lengths.push(BIG);
    }
    for &n in &lengths {
        let sum_host = sum_keys::<K>(&mut rng, n);
        let sum_dev = DeviceBuffer::from_host(&g, &sum_host).unwrap();
        let ord_host = order_keys::<K>(&mut rng, n, false);
        let ord_dev = DeviceBuffer::from_host(&g, &ord_host).unwrap();
        let few_host = order_keys::<K>(&mut rng, n.min(1 << 16), true);
        let few_dev = DeviceBuffer::from_host(&g, &few_host).unwrap();
        for v in ReduceVariant::ALL {
            check_reduce_sum(&g, &sum_host, &sum_dev, v);
            check_reduce_order(&g, &ord_host, &ord_dev, v);
            check_reduce_order(&g, &few_host, &few_dev, v);
        }
        check_unchanged(&sum_dev, &sum_host, &format!("{} reduce n={n}", K::NAME));
        check_unchanged(&ord_dev, &ord_host, &format!("{} reduce n={n}", K::NAME));
        check_unchanged(&few_dev, &few_host, &format!("{} reduce n={n}", K::NAME));
    }
}

suite_tests! {
    reduce_suite:
    reduce_u32: u32, true;
    reduce_i32: i32, false;
    reduce_f32: f32, true;
    reduce_u64: u64, false;
    reduce_i64: i64, true;
    reduce_f64: f64, true;
}

#[test]
#[ignore = "needs a CUDA device"]
fn reduce_into_checks_its_output() {
    let g = gpu();
    let keys = DeviceBuffer::from_host(&g, &[5u32, 1, 9]).unwrap();
    for v in ReduceVariant::ALL {
        let mut none = DeviceBuffer::<u64>::alloc(&g, 0).unwrap();
        let e = reduce_sum_into(&g, &keys, v, &mut none, None).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{v}: {e}");
        let mut one = DeviceBuffer::<u32>::alloc(&g, 1).unwrap();
        let e = reduce_min_max_into(&g, &keys, v, &mut one, None).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{v}: {e}");
        let mut tiny = DeviceBuffer::<u8>::alloc(&g, 1).unwrap();
        let e = reduce_min_into(&g, &keys, v, &mut one, Some(&mut tiny)).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{v}: {e}");
        // An empty input's sum is written; an empty input's extremes are not.
        let empty = DeviceBuffer::<u32>::alloc(&g, 0).unwrap();
        let mut sum = DeviceBuffer::from_host(&g, &[7u64]).unwrap();
        reduce_sum_into(&g, &empty, v, &mut sum, None).unwrap();
        assert_eq!(sum.to_host().unwrap(), vec![0]);
        let mut two = DeviceBuffer::from_host(&g, &[3u32, 4]).unwrap();
        assert!(!reduce_min_max_into(&g, &empty, v, &mut two, None).unwrap());
        assert_eq!(two.to_host().unwrap(), vec![3, 4]);
        assert!(reduce_min_max_into(&g, &keys, v, &mut two, None).unwrap());
        assert_eq!(two.to_host().unwrap(), vec![1, 9]);
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn reduce_special_floats_and_identities() {
    let g = gpu();
    for v in ReduceVariant::ALL {
        let sum =
            |xs: &[f32]| reduce_sum(&g, &DeviceBuffer::from_host(&g, xs).unwrap(), v).unwrap();
        assert_eq!(
            sum(&[]).to_bits(),
            0.0f32.to_bits(),
            "{v}: empty sum is +0.0"
        );
        assert_eq!(
            sum(&[-0.0]).to_bits(),
            (-0.0f32).to_bits(),
            "{v}: sum of -0.0"
        );
        assert_eq!(sum(&[1.0, f32::INFINITY, 2.0]), f32::INFINITY, "{v}");
        assert!(sum(&[f32::INFINITY, f32::NEG_INFINITY]).is_nan(), "{v}");
        assert!(sum(&[1.0, f32::NAN, 3.0]).is_nan(), "{v}");
        let e = DeviceBuffer::<f64>::alloc(&g, 0).unwrap();
        assert_eq!(reduce_min(&g, &e, v).unwrap(), None);
        assert_eq!(reduce_max(&g, &e, v).unwrap(), None);
        assert_eq!(reduce_min_max(&g, &e, v).unwrap(), None);
        assert_eq!(
            reduce_sum(&g, &DeviceBuffer::<i32>::alloc(&g, 0).unwrap(), v).unwrap(),
            0i64
        );
        // -0.0 is below +0.0, -NaN below -inf, +NaN above +inf; results keep their bits.
        let d = DeviceBuffer::from_host(&g, &[0.0f64, -0.0, 1.0, -1.0]).unwrap();
        let (lo, hi) = reduce_min_max(&g, &d, v).unwrap().unwrap();
        assert_eq!((lo, hi), (-1.0, 1.0));
        let d = DeviceBuffer::from_host(&g, &[0.0f64, -0.0]).unwrap();
        let (lo, hi) = reduce_min_max(&g, &d, v).unwrap().unwrap();
        assert_eq!(
            (lo.to_bits(), hi.to_bits()),
            ((-0.0f64).to_bits(), 0f64.to_bits())
        );
        let d =
            DeviceBuffer::from_host(&g, &[f32::INFINITY, -f32::NAN, f32::NAN, f32::NEG_INFINITY])
                .unwrap();
        let (lo, hi) = reduce_min_max(&g, &d, v).unwrap().unwrap();
        assert_eq!(lo.to_bits(), (-f32::NAN).to_bits(), "{v}");
        assert_eq!(hi.to_bits(), f32::NAN.to_bits(), "{v}");
        // i32 sums do not wrap in 64 bits; u64 sums wrap.
        let d = DeviceBuffer::from_host(&g, &[i32::MIN; 5]).unwrap();
        assert_eq!(reduce_sum(&g, &d, v).unwrap(), 5 * i32::MIN as i64);
        let d = DeviceBuffer::from_host(&g, &[u64::MAX, 2]).unwrap();
        assert_eq!(reduce_sum(&g, &d, v).unwrap(), 1);
    }
    // Fast float sums are deterministic for a given device.
    let mut rng = rng_for("reduce_special_floats_and_identities");
    let host = sum_keys::<f32>(&mut rng, (1 << 22) + 3);
    let d = DeviceBuffer::from_host(&g, &host).unwrap();
    let a = reduce_sum(&g, &d, ReduceVariant::Fast).unwrap();
    let b = reduce_sum(&g, &d, ReduceVariant::Fast).unwrap();
    assert_eq!(a.to_bits(), b.to_bits());
}

/// Runs every kind and direction of `op` with `variant` on `host` and checks each result.
fn check_scans<K: TestKey>(
    g: &Gpu,
    host: &[K],
    d: &DeviceBuffer<K>,
    op: ScanOp,
    variant: ScanVariant,
    combos: &[(ScanKind, Direction)],
) {
    let n = host.len();
    let mut out = DeviceBuffer::<K>::alloc(g, n).unwrap();
    for &(kind, dir) in combos {
        let ctx = format!("{} {op} {kind} {dir} {variant} n={n}", K::NAME);
        scan(g, d, &mut out, op, kind, dir, variant).unwrap_or_else(|e| panic!("{ctx}: {e}"));
        let got = out.to_host().unwrap();
        verify_scan(host, &got, op, kind, dir, &ctx);
    }
}

const ALL_COMBOS: [(ScanKind, Direction); 4] = [
    (ScanKind::Inclusive, Direction::Forward),
    (ScanKind::Exclusive, Direction::Forward),
    (ScanKind::Inclusive, Direction::Reverse),
    (ScanKind::Exclusive, Direction::Reverse),
];

fn scan_suite<K: TestKey>(test: &str, big: bool) {
    let g = gpu();
    let mut rng = rng_for(test);
    for &n in LENGTHS {
        let sum_host = sum_keys::<K>(&mut rng, n);
        let sum_dev = DeviceBuffer::from_host(&g, &sum_host).unwrap();
        let ord_host = order_keys::<K>(&mut rng, n, n % 2 == 1 && n < 100_000);
        let ord_dev = DeviceBuffer::from_host(&g, &ord_host).unwrap();
        for variant in ScanVariant::ALL {
            if variant.max_len().is_some_and(|m| n > m) {
                continue;
            }
            for op in ScanOp::ALL {
                let (host, dev) = match op {
                    ScanOp::Sum => (&sum_host, &sum_dev),
                    _ => (&ord_host, &ord_dev),
                };
                check_scans(&g, host, dev, op, variant, &ALL_COMBOS);
            }
            let ctx = format!("{} scan {variant} n={n}", K::NAME);
            check_unchanged(&sum_dev, &sum_host, &ctx);
            check_unchanged(&ord_dev, &ord_host, &ctx);
        }
    }
    if big {
        let host = sum_keys::<K>(&mut rng, BIG);
        let dev = DeviceBuffer::from_host(&g, &host).unwrap();
        check_scans(&g, &host, &dev, ScanOp::Sum, ScanVariant::Fast, &ALL_COMBOS);
        check_scans(
            &g,
            &host,
            &dev,
            ScanOp::Sum,
            ScanVariant::Hierarchical,
            &[
                (ScanKind::Inclusive, Direction::Forward),
                (ScanKind::Exclusive, Direction::Reverse),
            ],
        );
        let suffix_min = [(ScanKind::Inclusive, Direction::Reverse)];
        let ord = order_keys::<K>(&mut rng, BIG, false);
        let dev = DeviceBuffer::from_host(&g, &ord).unwrap();
        check_scans(&g, &ord, &dev, ScanOp::Min, ScanVariant::Fast, &suffix_min);
        check_scans(
            &g,
            &ord,
            &dev,
            ScanOp::Max,
            ScanVariant::Hierarchical,
            &[(ScanKind::Exclusive, Direction::Forward)],
        );
        check_unchanged(&dev, &ord, &format!("{} big scan", K::NAME));
    }
}

suite_tests! {
    scan_suite:
    scan_u32: u32, true;
    scan_i32: i32, false;
    scan_f32: f32, false;
    scan_u64: u64, false;
    scan_i64: i64, false;
    scan_f64: f64, true;
}

#[test]
#[ignore = "needs a CUDA device"]
fn scan_limits_errors_and_in_place() {
    let g = gpu();
    let mut rng = rng_for("scan_limits_errors_and_in_place");
    // Beyond a variant's limit: InvalidArgument naming the limit, output untouched.
    for variant in ScanVariant::ALL {
        let Some(max) = variant.max_len() else {
            continue;
        };
        let host: Vec<u32> = (0..max as u32 + 1).collect();
        let d = DeviceBuffer::from_host(&g, &host).unwrap();
        let mut out = DeviceBuffer::<u32>::zeroed(&g, host.len()).unwrap();
        let e = scan(
            &g,
            &d,
            &mut out,
            ScanOp::Sum,
            ScanKind::Inclusive,
            Direction::Forward,
            variant,
        )
        .unwrap_err();
        match &e {
            Error::InvalidArgument(m) => assert!(m.contains(&format!("at most {max}")), "{m}"),
            other => panic!("{variant}: expected InvalidArgument, got {other:?}"),
        }
        assert!(out.to_host().unwrap().iter().all(|&x| x == 0));
        let mut inplace = d.try_clone().unwrap();
        assert!(matches!(
            scan_in_place(
                &g,
                &mut inplace,
                ScanOp::Max,
                ScanKind::Exclusive,
                Direction::Reverse,
                variant
            ),
            Err(Error::InvalidArgument(_))
        ));
        check_unchanged(&inplace, &host, "rejected in-place scan");
    }
    let naive = scan(
        &g,
        &DeviceBuffer::<f32>::alloc(&g, 33).unwrap(),
        &mut DeviceBuffer::<f32>::alloc(&g, 33).unwrap(),
        ScanOp::Sum,
        ScanKind::Inclusive,
        Direction::Forward,
        ScanVariant::Naive,
    )
    .unwrap_err();
    assert!(
        naive
            .to_string()
            .contains("Naive scan handles at most 32 elements (one warp)"),
        "{naive}"
    );
    // Lengths differ.
    let d = DeviceBuffer::<i64>::alloc(&g, 10).unwrap();
    let mut out = DeviceBuffer::<i64>::alloc(&g, 9).unwrap();
    for variant in ScanVariant::ALL {
        assert!(matches!(
            scan(
                &g,
                &d,
                &mut out,
                ScanOp::Min,
                ScanKind::Inclusive,
                Direction::Forward,
                variant
            ),
            Err(Error::InvalidArgument(_))
        ));
    }
    // Empty input is fine for every variant.
    let e = DeviceBuffer::<f64>::alloc(&g, 0).unwrap();
    let mut eo = DeviceBuffer::<f64>::alloc(&g, 0).unwrap();
    for variant in ScanVariant::ALL {
        for (kind, dir) in ALL_COMBOS {
            scan(&g, &e, &mut eo, ScanOp::Sum, kind, dir, variant).unwrap();
        }
    }
    // In place equals out of place, for every variant, within its limit.
    for n in [1usize, 32, 1000, 2048, 100_003] {
        let host = order_keys::<i64>(&mut rng, n, false);
        let d = DeviceBuffer::from_host(&g, &host).unwrap();
        for variant in ScanVariant::ALL {
            if variant.max_len().is_some_and(|m| n > m) {
                continue;
            }
            for op in ScanOp::ALL {
                for (kind, dir) in ALL_COMBOS {
                    let mut buf = d.try_clone().unwrap();
                    scan_in_place(&g, &mut buf, op, kind, dir, variant).unwrap();
                    let want = ref_scan(&host, op, kind, dir);
                    assert_eq!(
                        buf.to_host().unwrap(),
                        want,
                        "in place {op} {kind} {dir} {variant} n={n}"
                    );
                }
            }
        }
    }
    // The suffix minimum (roughsort's use): a reverse inclusive min scan.
    let host = vec![5.0f32, 3.0, f32::NAN, -0.0, 0.0, 7.0];
    let d = DeviceBuffer::from_host(&g, &host).unwrap();
    let mut out = DeviceBuffer::alloc(&g, host.len()).unwrap();
    for variant in ScanVariant::ALL {
        scan(
            &g,
            &d,
            &mut out,
            ScanOp::Min,
            ScanKind::Inclusive,
            Direction::Reverse,
            variant,
        )
        .unwrap();
        let got: Vec<u32> = out.to_host().unwrap().iter().map(|x| x.to_bits()).collect();
        let want: Vec<u32> = [-0.0f32, -0.0, -0.0, -0.0, 0.0, 7.0]
            .iter()
            .map(|x| x.to_bits())
            .collect();
        assert_eq!(got, want, "{variant}");
    }
}

// ---------------------------------------------------------------------------------------------
// Past 2^32 keys: 64-bit indexing everywhere.

const GATHER: KernelSource = KernelSource::new(
    "gather_test.cu",
    r#"
#include "sortlab/thread/types.cuh"
extern "C" __global__ void gather(const u32* src, const u64* idx, u32* out, u32 m) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) out[i] = src[idx[i]];
}
"#,
);

fn gather(g: &Gpu, src: &DeviceBuffer<u32>, idx: &[u64]) -> Vec<u32> {
    assert!(idx.iter().all(|&i| (i as usize) < src.len()));
    let k = g
        .module(&GATHER, &Default::default())
        .unwrap()
        .kernel("gather")
        .unwrap();
    let di = DeviceBuffer::from_host(g, idx).unwrap();
    let out = DeviceBuffer::<u32>::alloc(g, idx.len()).unwrap();
    let mut args = KernelArgs::new();
    args.ptr(src.ptr())
        .ptr(di.ptr())
        .ptr(out.ptr())
        .push(idx.len() as u32);
    // SAFETY: gather(const u32*, const u64*, u32*, u32) reads src at the checked indices and
    // writes out[0..m).
    unsafe {
        k.launch(
            LaunchConfig::linear((idx.len() as u32).div_ceil(256), 256),
            &args,
        )
        .unwrap()
    };
    out.to_host().unwrap()
}

#[test]
#[ignore = "needs a CUDA device"]
fn past_two_to_the_32_keys() {
    let g = gpu();
    let n: usize = (1 << 32) + 37;
    let bytes = n * 4;
    let (free, _) = g.memory_info().unwrap();
    // A device without the memory fails the test: it never passes without running.
    assert!(
        free >= 2 * bytes + (1 << 30),
        "needs {} bytes of free device memory, the device has {free}",
        2 * bytes + (1 << 30)
    );
    const C: u32 = 0x0101_0101;
    let mut keys = DeviceBuffer::<u32>::alloc(&g, n).unwrap();
    keys.fill_bytes(0x01).unwrap();
    for v in ReduceVariant::ALL {
        assert_eq!(
            reduce_sum(&g, &keys, v).unwrap(),
            n as u64 * C as u64,
            "{v}"
        );
        assert_eq!(reduce_min_max(&g, &keys, v).unwrap(), Some((C, C)), "{v}");
    }
    let mut out = DeviceBuffer::<u32>::alloc(&g, n).unwrap();
    let mut rng = rng_for("past_two_to_the_32_keys");
    let mut idx: Vec<u64> = vec![
        0,
        1,
        (1 << 31) - 1,
        1 << 31,
        (1 << 32) - 1,
        1 << 32,
        (1 << 32) + 1,
        n as u64 - 2,
        n as u64 - 1,
    ];
    idx.extend((0..64).map(|_| rng.gen_range(0..n as u64)));
    for variant in [ScanVariant::Fast, ScanVariant::Hierarchical] {
        for (kind, dir) in ALL_COMBOS {
            out.fill_bytes(0xee).unwrap();
            scan(&g, &keys, &mut out, ScanOp::Sum, kind, dir, variant).unwrap();
            let got = gather(&g, &out, &idx);
            for (&i, &x) in idx.iter().zip(&got) {
                // Terms before and including i, in logical order.
                let logical = if dir.is_reverse() {
                    n as u64 - 1 - i
                } else {
                    i
                };
                let terms = logical + !kind.is_exclusive() as u64;
                let want = (terms as u32).wrapping_mul(C);
                assert_eq!(x, want, "{variant} {kind} {dir} at {i}");
            }
        }
    }
    // Still the fill pattern: nothing wrote the input.
    assert_eq!(gather(&g, &keys, &idx), vec![C; idx.len()]);
}
