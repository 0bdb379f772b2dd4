//! The CPU reduce and scan against simple sequential loops: every key type, operation, kind and
//! direction, at edge lengths and past the parallel threshold. Integers, min, max and max/min
//! scans must match exactly (bits); float sums within `m * eps * sum(|x|)` of the exact
//! (compensated f64) sum, and bit for bit where the input fits in one chunk (same order).
//! Inputs are drawn by `sortlab_verify::rng_for(test name)`: the seed is printed, and
//! `SORTLAB_SEED` reproduces a run.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use sortlab_cpu_reference::{reduce, scan};
use sortlab_primitives::scan::{Direction, ScanKind, ScanOp};
use sortlab_primitives::{KeyBits, ReduceKey, SortKey};
use sortlab_verify::rng_for;

const LENGTHS: &[usize] = &[
    0,
    1,
    2,
    31,
    32,
    33,
    1000,
    scan::CHUNK - 1,
    scan::CHUNK,
    scan::CHUNK + 1,
    3 * scan::CHUNK + 5,
    1_000_007,
];

fn eps<K: SortKey>() -> f64 {
    match (K::IS_FLOAT, K::SIZE) {
        (false, _) => 0.0,
        (true, 4) => f32::EPSILON as f64,
        _ => f64::EPSILON,
    }
}

/// The workspace's special keys (every NaN kind, ±inf, ±0.0, subnormals, extremes).
fn specials<K: SortKey>() -> Vec<K> {
    sortlab_verify::specials::<K>()
}

/// Full-range integers; floats in ±1000 of mixed magnitude (no overflow).
fn sum_keys<K: SortKey>(rng: &mut ChaCha8Rng, n: usize) -> Vec<K> {
    (0..n)
        .map(|_| {
            if K::IS_FLOAT {
                K::from_f64(rng.gen_range(-1.0..1.0) * 10f64.powi(rng.gen_range(-3..=3)))
            } else {
                K::from_ordered_bits(<K::Bits as KeyBits>::from_u64(rng.gen()))
            }
        })
        .collect()
}

/// Random bit patterns with 2% specials (every NaN, ±0.0, ±inf).
fn order_keys<K: SortKey>(rng: &mut ChaCha8Rng, n: usize) -> Vec<K> {
    let sp = specials::<K>();
    (0..n)
        .map(|_| {
            if rng.gen_ratio(1, 50) {
                sp[rng.gen_range(0..sp.len())]
            } else {
                K::from_ordered_bits(<K::Bits as KeyBits>::from_u64(rng.gen()))
            }
        })
        .collect()
}

/// Compensated f64 sum and the bound's ingredients.
#[derive(Clone, Copy, Default)]
struct Exact {
    sum: f64,
    comp: f64,
    abs: f64,
    terms: usize,
}

impl Exact {
    fn add(&mut self, x: f64) {
        let t = self.sum + x;
        self.comp += if self.sum.abs() >= x.abs() {
            (self.sum - t) + x
        } else {
            (x - t) + self.sum
        };
        self.sum = t;
        self.abs += x.abs();
        self.terms += 1;
    }
    fn accepts(&self, got: f64, eps: f64) -> bool {
        let exact = self.sum + self.comp;
        (got - exact).abs() <= self.terms as f64 * eps * self.abs + 4.0 * eps * exact.abs()
    }
}

fn bits<K: SortKey>(v: &[K]) -> Vec<K::Bits> {
    v.iter().map(|k| k.to_ordered_bits()).collect()
}

fn check_reduce<K: ReduceKey>(rng: &mut ChaCha8Rng) {
    for &n in LENGTHS {
        let keys = sum_keys::<K>(rng, n);
        let got = reduce::sum(&keys);
        if K::IS_FLOAT {
            let mut e = Exact::default();
            let mut seq: Option<K::Sum> = None;
            for k in &keys {
                e.add(k.to_f64());
                seq = Some(seq.map_or(k.to_sum(), |s| K::sum_add(s, k.to_sum())));
            }
            let g = K::sum_to_f64(got);
            assert!(e.accepts(g, eps::<K>()), "{} sum n={n}: {g}", K::NAME);
            if n <= reduce::CHUNK {
                assert_eq!(
                    Some(got),
                    seq.or(Some(K::SUM_ZERO)),
                    "{} sum n={n}: one chunk sums in order",
                    K::NAME
                );
            }
        } else {
            let mut want = K::SUM_ZERO;
            for k in &keys {
                want = K::sum_add(want, k.to_sum());
            }
            assert_eq!(got, want, "{} sum n={n}", K::NAME);
        }

        let keys = order_keys::<K>(rng, n);
        let mut lo: Option<K> = None;
        let mut hi: Option<K> = None;
        for &k in &keys {
            if lo.is_none_or(|l| k.total_cmp(&l).is_lt()) {
                lo = Some(k);
            }
            if hi.is_none_or(|h| k.total_cmp(&h).is_gt()) {
                hi = Some(k);
            }
        }
        let b = |o: Option<K>| o.map(|k| k.to_ordered_bits());
        assert_eq!(b(reduce::min(&keys)), b(lo), "{} min n={n}", K::NAME);
        assert_eq!(b(reduce::max(&keys)), b(hi), "{} max n={n}", K::NAME);
        let mm = reduce::min_max(&keys);
        assert_eq!(b(mm.map(|m| m.0)), b(lo), "{} min_max n={n}", K::NAME);
        assert_eq!(b(mm.map(|m| m.1)), b(hi), "{} min_max n={n}", K::NAME);
    }
}

/// The simple loop: out[i] over the logical prefix before (exclusive) or through (inclusive) i.
fn loop_scan<K: ReduceKey>(input: &[K], op: ScanOp, kind: ScanKind, dir: Direction) -> Vec<K> {
    let n = input.len();
    let mut acc: Option<K> = None;
    let identity = match op {
        ScanOp::Sum => K::from_f64(0.0),
        ScanOp::Max => K::LOWEST,
        ScanOp::Min => K::HIGHEST,
    };
    let idx: Vec<usize> = if dir.is_reverse() {
        (0..n).rev().collect()
    } else {
        (0..n).collect()
    };
    let mut vals = vec![identity; n];
    for &i in &idx {
        let x = input[i];
        let next = match acc {
            None => x,
            Some(a) => match op {
                ScanOp::Sum => K::key_add(a, x),
                ScanOp::Max => {
                    if x.total_cmp(&a).is_gt() {
                        x
                    } else {
                        a
                    }
                }
                ScanOp::Min => {
                    if x.total_cmp(&a).is_lt() {
                        x
                    } else {
                        a
                    }
                }
            },
        };
        vals[i] = if kind.is_exclusive() {
            acc.unwrap_or(identity)
        } else {
            next
        };
        acc = Some(next);
    }
    vals
}

fn check_scan<K: ReduceKey>(rng: &mut ChaCha8Rng) {
    for &n in LENGTHS {
        let sums = sum_keys::<K>(rng, n);
        let ords = order_keys::<K>(rng, n);
        for op in ScanOp::ALL {
            let input = if op == ScanOp::Sum { &sums } else { &ords };
            for kind in ScanKind::ALL {
                for dir in Direction::ALL {
                    let ctx = format!("{} {op} {kind} {dir} n={n}", K::NAME);
                    let want = loop_scan(input, op, kind, dir);
                    let seq = scan::scan_seq(input, op, kind, dir);
                    assert_eq!(bits(&seq), bits(&want), "{ctx}: scan_seq");
                    let got = scan::scan(input, op, kind, dir);
                    if op == ScanOp::Sum && K::IS_FLOAT && n > scan::CHUNK {
                        // Chunked: within the bound of the exact prefix sums.
                        let mut e = Exact::default();
                        let order: Vec<usize> = if dir.is_reverse() {
                            (0..n).rev().collect()
                        } else {
                            (0..n).collect()
                        };
                        for i in order {
                            if !kind.is_exclusive() {
                                e.add(input[i].to_f64());
                            }
                            assert!(
                                e.accepts(got[i].to_f64(), eps::<K>()),
                                "{ctx}: out[{i}] = {}",
                                got[i]
                            );
                            if kind.is_exclusive() {
                                e.add(input[i].to_f64());
                            }
                        }
                    } else {
                        assert_eq!(bits(&got), bits(&want), "{ctx}");
                    }
                }
            }
        }
    }
}

#[test]
fn reduce_matches_loops_for_every_key_type() {
    let mut r = rng_for("reduce_scan::reduce_matches_loops_for_every_key_type");
    check_reduce::<u32>(&mut r);
    check_reduce::<i32>(&mut r);
    check_reduce::<f32>(&mut r);
    check_reduce::<u64>(&mut r);
    check_reduce::<i64>(&mut r);
    check_reduce::<f64>(&mut r);
}

#[test]
fn scan_matches_loops_for_every_key_type() {
    let mut r = rng_for("reduce_scan::scan_matches_loops_for_every_key_type");
    check_scan::<u32>(&mut r);
    check_scan::<i32>(&mut r);
    check_scan::<f32>(&mut r);
    check_scan::<u64>(&mut r);
    check_scan::<i64>(&mut r);
    check_scan::<f64>(&mut r);
}

#[test]
fn identities_and_special_values() {
    assert_eq!(reduce::sum::<u32>(&[]), 0);
    assert_eq!(reduce::sum::<f64>(&[]).to_bits(), 0.0f64.to_bits());
    assert_eq!(reduce::sum(&[-0.0f32]).to_bits(), (-0.0f32).to_bits());
    assert_eq!(reduce::sum(&[i32::MIN; 3]), 3 * i32::MIN as i64);
    assert_eq!(reduce::sum(&[i64::MAX, 1]), i64::MIN);
    assert!(reduce::sum(&[f32::INFINITY, f32::NEG_INFINITY]).is_nan());
    assert_eq!(reduce::min::<f32>(&[]), None);
    assert_eq!(reduce::min_max::<u64>(&[]), None);
    let (lo, hi) = reduce::min_max(&[0.0f64, -0.0]).unwrap();
    assert_eq!(
        (lo.to_bits(), hi.to_bits()),
        ((-0.0f64).to_bits(), 0f64.to_bits())
    );
    assert!(
        scan::scan::<f32>(&[], ScanOp::Sum, ScanKind::Exclusive, Direction::Forward).is_empty()
    );
    // Exclusive identities: +0.0, LOWEST, HIGHEST.
    let x = [-0.0f32, 2.0];
    let s = scan::scan(&x, ScanOp::Sum, ScanKind::Exclusive, Direction::Forward);
    assert_eq!(s[0].to_bits(), 0.0f32.to_bits());
    assert_eq!(s[1].to_bits(), (-0.0f32).to_bits());
    let s = scan::scan(&x, ScanOp::Max, ScanKind::Exclusive, Direction::Reverse);
    assert_eq!(s[1].to_bits(), f32::LOWEST.to_bits());
    let s = scan::scan(
        &[5i32, 3],
        ScanOp::Min,
        ScanKind::Exclusive,
        Direction::Forward,
    );
    assert_eq!(s, [i32::MAX, 5]);
    // The suffix minimum.
    let s = scan::scan(
        &[5.0f64, 3.0, f64::NAN, -0.0, 0.0, 7.0],
        ScanOp::Min,
        ScanKind::Inclusive,
        Direction::Reverse,
    );
    let want = [-0.0f64, -0.0, -0.0, -0.0, 0.0, 7.0];
    assert_eq!(
        s.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        want.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
}
