//! Property tests of the primitives (`sortlab_primitives::{reduce, scan}`) against the CPU
//! engine (`sortlab_cpu_reference::{reduce, scan}`): every variant, operation, kind, direction
//! and key type, on the patterns of DESIGN.md §5 at the edge lengths and large ones.
//!
//! Comparison rules:
//! - integers, min, max and min-max: exactly (min/max bit for bit, `-0.0` and NaN payloads
//!   included);
//! - float sums: within `n * eps * sum(|x|)` (reduce) and `(i + 1) * eps * sum(|x_0..x_i|)`
//!   (element `i` of a scan) of the CPU value, the worst-case bound of any summation order.
//!   Float sums are compared on the patterns of finite, moderate values only (not on
//!   random bit patterns: full-range, few-distinct, all-equal, float-specials): with
//!   infinities and values near `MAX` in the input, whether an intermediate overflows depends on the order of additions.
//!
//! The CPU tests (run in CI) check the parallel CPU scan against the sequential one; the GPU
//! tests are `#[ignore = "needs a CUDA device"]` and run through `scripts/gpu-check`.
//! `SORTLAB_LARGE=1` adds 2^28 keys.

use sortlab_cpu_reference::{reduce as cref, scan as cscan};
use sortlab_primitives::reduce::{
    reduce_max, reduce_min, reduce_min_max, reduce_sum, ReduceKey, ReduceVariant,
};
use sortlab_primitives::scan::{scan, Direction, ScanKind, ScanOp, ScanVariant};
use sortlab_primitives::{DeviceBuffer, Gpu, SortKey};
use sortlab_verify::{edge_lengths, generate, large_lengths, seed_for, Pattern};

/// Tiles of the reduce and scan kernels (hierarchical 1024, work-efficient 2048, fast scan
/// 3840 and 3968): their neighbourhoods are where tile arithmetic breaks.
const TILES: [usize; 4] = [1024, 2048, 3840, 3968];
/// Lengths for the non-uniform patterns (uniform runs every edge length).
const PATTERN_LENGTHS: [usize; 8] = [0, 1, 2, 33, 1025, 3969, 65_537, (1 << 18) + 3];

fn lengths_for(p: Pattern) -> Vec<usize> {
    let mut l = if p == Pattern::Uniform {
        let mut l = edge_lengths(&TILES);
        l.extend(large_lengths());
        if std::env::var_os("SORTLAB_LARGE").is_some_and(|v| v == "1") {
            l.push(1 << 28);
        }
        l
    } else {
        PATTERN_LENGTHS.to_vec()
    };
    l.sort_unstable();
    l
}

fn same_bits<K: SortKey>(a: K, b: K) -> bool {
    a.to_ordered_bits() == b.to_ordered_bits()
}

/// Whether a float-sum comparison is meaningful on this input (see the module docs).
fn sums_comparable<K: SortKey>(p: Pattern) -> bool {
    !K::IS_FLOAT
        || !matches!(
            p,
            Pattern::FullRange | Pattern::FloatSpecials | Pattern::FewDistinct | Pattern::AllEqual
        )
}

fn abs_f64<K: ReduceKey>(k: K) -> f64 {
    K::sum_to_f64(k.to_sum()).abs()
}

/// `got` within the summation bound of `want` (exact for integers).
fn sum_close<K: ReduceKey>(got: f64, want: f64, terms: usize, abs_sum: f64) -> bool {
    if !K::IS_FLOAT || got == want || (got.is_nan() && want.is_nan()) {
        return got == want || (got.is_nan() && want.is_nan());
    }
    let eps = if K::SIZE == 4 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    (got - want).abs() <= terms as f64 * eps * abs_sum + f64::MIN_POSITIVE
}

fn gpu() -> Gpu {
    match Gpu::new(0) {
        Ok(g) => g,
        Err(e) => panic!("this test needs a CUDA device: {e}"),
    }
}

fn check_reduce<K: ReduceKey>(g: &Gpu, test: &str) {
    let seed = seed_for(test);
    for p in Pattern::ALL {
        for n in lengths_for(p) {
            let host = generate::<K>(p, n, seed);
            let d = DeviceBuffer::from_host(g, &host).expect("upload");
            let ctx = || format!("{test}: pattern {p}, n {n}, seed {seed}");
            let (want_min, want_max) = (cref::min(&host), cref::max(&host));
            let want_sum = K::sum_to_f64(cref::sum(&host));
            let abs_sum: f64 = host.iter().map(|&k| abs_f64(k)).sum();
            for v in ReduceVariant::ALL {
                let got = reduce_min(g, &d, v).expect("reduce_min");
                assert!(
                    opt_same(got, want_min),
                    "{} {v} min {got:?} != {want_min:?}",
                    ctx()
                );
                let got = reduce_max(g, &d, v).expect("reduce_max");
                assert!(
                    opt_same(got, want_max),
                    "{} {v} max {got:?} != {want_max:?}",
                    ctx()
                );
                let got = reduce_min_max(g, &d, v).expect("reduce_min_max");
                assert!(
                    opt_same(got.map(|m| m.0), want_min) && opt_same(got.map(|m| m.1), want_max),
                    "{} {v} min_max {got:?}",
                    ctx()
                );
                if sums_comparable::<K>(p) {
                    let got = K::sum_to_f64(reduce_sum(g, &d, v).expect("reduce_sum"));
                    assert!(
                        sum_close::<K>(got, want_sum, n, abs_sum),
                        "{} {v} sum {got} != {want_sum}",
                        ctx()
                    );
                }
            }
            let after = d.to_host().expect("download");
            assert!(
                after.iter().zip(&host).all(|(&a, &b)| same_bits(a, b)),
                "{}: the input was modified",
                ctx()
            );
        }
    }
}

fn opt_same<K: SortKey>(a: Option<K>, b: Option<K>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => same_bits(a, b),
        (None, None) => true,
        _ => false,
    }
}

/// Compares a scan output with the CPU engine's, element by element.
fn scan_matches<K: ReduceKey>(
    input: &[K],
    got: &[K],
    want: &[K],
    op: ScanOp,
    dir: Direction,
) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("length {} != {}", got.len(), want.len()));
    }
    // Running sum of |x| in the scan's logical order, for the float-sum bound.
    let mut abs_prefix = 0.0f64;
    for j in 0..got.len() {
        let i = match dir {
            Direction::Forward => j,
            Direction::Reverse => got.len() - 1 - j,
        };
        abs_prefix += abs_f64(input[i]);
        let ok = if op == ScanOp::Sum && K::IS_FLOAT {
            let (g, w) = (
                K::sum_to_f64(got[i].to_sum()),
                K::sum_to_f64(want[i].to_sum()),
            );
            sum_close::<K>(g, w, j + 1, abs_prefix)
        } else {
            same_bits(got[i], want[i])
        };
        if !ok {
            return Err(format!("element {i}: {:?}, expected {:?}", got[i], want[i]));
        }
    }
    Ok(())
}

fn check_scan<K: ReduceKey>(g: &Gpu, test: &str) {
    let seed = seed_for(test);
    for p in Pattern::ALL {
        for n in lengths_for(p) {
            let host = generate::<K>(p, n, seed);
            let d_in = DeviceBuffer::from_host(g, &host).expect("upload");
            let mut d_out = DeviceBuffer::<K>::alloc(g, n).expect("alloc");
            for op in [ScanOp::Sum, ScanOp::Max, ScanOp::Min] {
                if op == ScanOp::Sum && !sums_comparable::<K>(p) {
                    continue;
                }
                for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
                    for dir in [Direction::Forward, Direction::Reverse] {
                        let want = cscan::scan(&host, op, kind, dir);
                        for v in ScanVariant::ALL {
                            let ctx = || {
                                format!(
                                    "{test}: {v} {op:?} {kind:?} {dir:?}, pattern {p}, n {n}, seed {seed}"
                                )
                            };
                            let r = scan(g, &d_in, &mut d_out, op, kind, dir, v);
                            if v.max_len().is_some_and(|m| n > m) {
                                assert!(r.is_err(), "{}: no error past the limit", ctx());
                                continue;
                            }
                            r.unwrap_or_else(|e| panic!("{}: {e}", ctx()));
                            let got = d_out.to_host().expect("download");
                            if let Err(m) = scan_matches(&host, &got, &want, op, dir) {
                                panic!("{}: {m}", ctx());
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The parallel CPU scan equals the sequential one exactly for integers and min/max (the
/// twin's own contract), across its chunk boundary.
fn check_cpu_scan<K: ReduceKey>(test: &str) {
    let seed = seed_for(test);
    let chunk = cscan::CHUNK;
    for p in Pattern::ALL {
        for n in [0, 1, chunk - 1, chunk, chunk + 1, 3 * chunk + 7] {
            let host = generate::<K>(p, n, seed);
            for op in [ScanOp::Sum, ScanOp::Max, ScanOp::Min] {
                for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
                    for dir in [Direction::Forward, Direction::Reverse] {
                        let par = cscan::scan(&host, op, kind, dir);
                        let seq = cscan::scan_seq(&host, op, kind, dir);
                        if op == ScanOp::Sum && !sums_comparable::<K>(p) {
                            assert_eq!(par.len(), seq.len());
                            continue;
                        }
                        if let Err(m) = scan_matches(&host, &par, &seq, op, dir) {
                            panic!("{test}: {op:?} {kind:?} {dir:?} {p} n {n}: {m}");
                        }
                    }
                }
            }
        }
    }
}

macro_rules! primitive_tests {
    ($($t:ty => $reduce:ident, $scan:ident, $cpu:ident;)*) => {$(
        #[test]
        #[ignore = "needs a CUDA device"]
        fn $reduce() {
            check_reduce::<$t>(&gpu(), stringify!($reduce));
        }

        #[test]
        #[ignore = "needs a CUDA device"]
        fn $scan() {
            check_scan::<$t>(&gpu(), stringify!($scan));
        }

        #[test]
        fn $cpu() {
            check_cpu_scan::<$t>(stringify!($cpu));
        }
    )*};
}

primitive_tests! {
    u32 => gpu_reduce_u32, gpu_scan_u32, cpu_scan_par_eq_seq_u32;
    i32 => gpu_reduce_i32, gpu_scan_i32, cpu_scan_par_eq_seq_i32;
    f32 => gpu_reduce_f32, gpu_scan_f32, cpu_scan_par_eq_seq_f32;
    u64 => gpu_reduce_u64, gpu_scan_u64, cpu_scan_par_eq_seq_u64;
    i64 => gpu_reduce_i64, gpu_scan_i64, cpu_scan_par_eq_seq_i64;
    f64 => gpu_reduce_f64, gpu_scan_f64, cpu_scan_par_eq_seq_f64;
}
