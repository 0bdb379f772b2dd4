//! Each checker accepts good input and rejects crafted bad input with the right error.

mod common;

use common::{keys, ref_cmp_in, rng, TestKey};
use rand::seq::SliceRandom;
use rand::Rng;
use sortlab_cpu_reference::check::{
    check_arrays_sorted, check_equal, check_interval_order, check_k_sorted, check_pairs_equal,
    check_permutation, check_sorted, is_k_sorted, is_sorted, radius, radius_naive,
};
use sortlab_cpu_reference::CheckError;
use sortlab_primitives::{KeyBits, Order, SortKey};

const ASC: Order = Order::Ascending;
const DESC: Order = Order::Descending;

fn sorted<K: TestKey>(n: usize, dup: bool, seed: u64, order: Order) -> Vec<K> {
    let mut v: Vec<K> = keys(n, dup, seed);
    v.sort_by(|a, b| ref_cmp_in(a, b, order));
    v
}

/// First index of a strict descent in `order`, by std's order.
fn ref_first_unsorted<K: TestKey>(v: &[K], order: Order) -> Option<usize> {
    v.windows(2)
        .position(|w| ref_cmp_in(&w[0], &w[1], order).is_gt())
}

fn sorted_checks<K: TestKey>() {
    // 40_000 > the parallel cut-off, so both paths run.
    for (seed, n) in [0usize, 1, 2, 17, 1000, 40_000].into_iter().enumerate() {
        for order in [ASC, DESC] {
            let v: Vec<K> = sorted(n, seed % 2 == 0, seed as u64, order);
            assert!(is_sorted(&v, order), "{} n={n} {order}", K::NAME);
            assert_eq!(check_sorted(&v, order), Ok(()));
            let other = if order == ASC { DESC } else { ASC };
            let expect = ref_first_unsorted(&v, other).map(|index| CheckError::NotSorted { index });
            assert_eq!(check_sorted(&v, other).err(), expect);
            assert_eq!(is_sorted(&v, other), expect.is_none());
            if n >= 2 {
                // Break it in two places; the first must be reported.
                let mut w = v.clone();
                let a = n / 3;
                let b = n - 2;
                w.swap(b, b + 1);
                w.swap(a, a + 1);
                let expect =
                    ref_first_unsorted(&w, order).map(|index| CheckError::NotSorted { index });
                assert_eq!(check_sorted(&w, order).err(), expect);
                assert_eq!(is_sorted(&w, order), expect.is_none());
            }
        }
    }
}

#[test]
fn sorted_checker() {
    for_each_key!(sorted_checks);
    let big: Vec<u32> = (0..50_000).collect();
    let mut w = big.clone();
    w[30_000] = 0;
    w[45_000] = 0;
    assert_eq!(
        check_sorted(&w, ASC),
        Err(CheckError::NotSorted { index: 29_999 })
    );
    assert_eq!(
        check_sorted(&big, DESC),
        Err(CheckError::NotSorted { index: 0 })
    );
}

#[test]
fn sorted_checker_uses_total_order() {
    assert!(is_sorted(
        &[
            -f32::NAN,
            f32::NEG_INFINITY,
            -0.0,
            0.0,
            f32::INFINITY,
            f32::NAN
        ],
        ASC
    ));
    assert_eq!(
        check_sorted(&[0.0f64, -0.0], ASC),
        Err(CheckError::NotSorted { index: 0 })
    );
    assert_eq!(
        check_sorted(&[f64::NAN, 1.0], ASC),
        Err(CheckError::NotSorted { index: 0 })
    );
    assert_eq!(
        check_sorted(&[1.0f32, -f32::NAN], ASC),
        Err(CheckError::NotSorted { index: 0 })
    );
    assert!(is_sorted(&[f64::NAN, 1.0, 0.0, -0.0, -f64::NAN], DESC));
    assert!(is_sorted(&[i32::MAX, 0, -1, i32::MIN], DESC));
    assert_eq!(
        check_sorted(&[-1i64, 0], DESC),
        Err(CheckError::NotSorted { index: 0 })
    );
}

fn permutation_checks<K: TestKey>() {
    for (seed, n) in [0usize, 1, 2, 100, 30_000].into_iter().enumerate() {
        let input: Vec<K> = keys(n, seed % 2 == 1, 50 + seed as u64);
        let mut out = input.clone();
        out.shuffle(&mut rng(seed as u64));
        assert_eq!(check_permutation(&input, &out), Ok(()), "{} n={n}", K::NAME);
        if n == 0 {
            continue;
        }
        // Replace one key by a key whose bits differ.
        let i = n / 2;
        let old = out[i];
        let new = K::from_ordered_bits(K::Bits::from_u64(old.to_ordered_bits().to_u64() ^ 1));
        out[i] = new;
        let err = check_permutation(&input, &out).unwrap_err();
        let CheckError::NotPermutation { detail } = &err else {
            panic!("{err:?}");
        };
        let smaller = if old.to_ordered_bits() < new.to_ordered_bits() {
            old
        } else {
            new
        };
        assert!(
            detail.contains(&format!("[0x{:x}]", smaller.to_ordered_bits())),
            "{} {detail}",
            K::NAME
        );
        let c_in = input
            .iter()
            .filter(|k| k.to_ordered_bits() == smaller.to_ordered_bits())
            .count();
        let c_out = out
            .iter()
            .filter(|k| k.to_ordered_bits() == smaller.to_ordered_bits())
            .count();
        assert_ne!(c_in, c_out);
        assert!(
            detail.contains(&format!("{c_in}x in the input but {c_out}x")),
            "{detail}"
        );
        assert!(!err.to_string().contains('\n'));
        // Lengths.
        assert_eq!(
            check_permutation(&input, &out[1..]),
            Err(CheckError::LengthMismatch {
                expected: n,
                actual: n - 1
            })
        );
    }
}

#[test]
fn permutation_checker() {
    for_each_key!(permutation_checks);
    assert!(check_permutation(&[0.0f32, 1.0], &[-0.0, 1.0]).is_err());
    assert!(check_permutation(&[f64::NAN], &[-f64::NAN]).is_err());
    let payload = f32::from_bits(0x7fc0_0001);
    assert!(check_permutation(&[f32::NAN, 2.0], &[2.0, payload]).is_err());
    assert_eq!(
        check_permutation(&[f32::NAN, payload], &[payload, f32::NAN]),
        Ok(())
    );
    // Same set, different multiplicities.
    assert!(matches!(
        check_permutation(&[1u32, 1, 2], &[1, 2, 2]),
        Err(CheckError::NotPermutation { .. })
    ));
}

#[test]
fn equal_checker() {
    let a: Vec<f64> = keys(30_000, false, 3);
    assert_eq!(check_equal(&a, &a.clone()), Ok(()));
    let mut b = a.clone();
    b[20_000] = f64::from_bits(b[20_000].to_bits() ^ 1);
    b[25_000] = 1234.5;
    let err = check_equal(&a, &b).unwrap_err();
    match &err {
        CheckError::Differs {
            index,
            expected,
            actual,
        } => {
            assert_eq!(*index, 20_000);
            assert!(
                expected.contains(&format!("{:x}", a[20_000].to_ordered_bits())),
                "{err}"
            );
            assert!(
                actual.contains(&format!("{:x}", b[20_000].to_ordered_bits())),
                "{err}"
            );
        }
        e => panic!("{e:?}"),
    }
    assert!(matches!(
        check_equal(&[0.0f32], &[-0.0]),
        Err(CheckError::Differs { index: 0, .. })
    ));
    assert!(check_equal(&[f32::NAN], &[-f32::NAN]).is_err());
    assert_eq!(check_equal(&[f32::NAN, -0.0], &[f32::NAN, -0.0]), Ok(()));
    assert_eq!(
        check_equal(&[1u32, 2], &[1]),
        Err(CheckError::LengthMismatch {
            expected: 2,
            actual: 1
        })
    );
    assert_eq!(check_equal::<i32>(&[], &[]), Ok(()));
}

#[test]
fn pairs_equal_checker() {
    let k: Vec<u32> = keys(30_000, true, 4);
    let v: Vec<f32> = keys(30_000, false, 5);
    assert_eq!(check_pairs_equal(&k, &v, &k, &v), Ok(()));
    // A value that differs only in bits PartialEq ignores.
    let mut v2 = v.clone();
    v2[100] = 0.0;
    let mut v3 = v2.clone();
    v3[100] = -0.0;
    assert_eq!(
        check_pairs_equal(&k, &v2, &k, &v3).map_err(|e| match e {
            CheckError::Differs { index, .. } => index,
            e => panic!("{e:?}"),
        }),
        Err(100)
    );
    v3[100] = 0.0;
    v2[200] = f32::NAN;
    v3[200] = f32::from_bits(0x7fc0_0001);
    assert!(matches!(
        check_pairs_equal(&k, &v2, &k, &v3),
        Err(CheckError::Differs { index: 200, .. })
    ));
    // A key that differs.
    let mut k2 = k.clone();
    k2[29_999] ^= 1;
    let err = check_pairs_equal(&k, &v, &k2, &v).unwrap_err();
    assert!(
        matches!(err, CheckError::Differs { index: 29_999, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("=>"), "{err}");
    // Swapped values of equal keys (what an unstable sort may do) are caught.
    assert_eq!(
        check_pairs_equal(&[5u64, 5], &[0u32, 1], &[5, 5], &[1, 0]),
        Err(CheckError::Differs {
            index: 0,
            expected: "5 [0x5] => 0 [0x00000000]".into(),
            actual: "5 [0x5] => 1 [0x00000001]".into()
        })
    );
    // Lengths, in the documented precedence.
    let mm = |expected, actual| Err(CheckError::LengthMismatch { expected, actual });
    assert_eq!(
        check_pairs_equal(&[1i32, 2], &[1u32, 2], &[1], &[1, 2]),
        mm(2, 1)
    );
    assert_eq!(
        check_pairs_equal(&[1i32, 2], &[1u32, 2], &[1, 2], &[1]),
        mm(2, 1)
    );
    assert_eq!(
        check_pairs_equal(&[1i32, 2], &[1u32], &[1, 2], &[1]),
        mm(2, 1)
    );
}

#[test]
fn radius_known_values() {
    for n in [0usize, 1, 2, 3, 10, 1000] {
        let asc: Vec<u32> = (0..n as u32).collect();
        let rev: Vec<u32> = asc.iter().rev().copied().collect();
        assert_eq!(radius(&asc, ASC), 0);
        assert_eq!(radius(&rev, ASC), n.saturating_sub(1));
        assert_eq!(radius(&rev, DESC), 0);
        assert_eq!(radius(&asc, DESC), n.saturating_sub(1));
        for d in 1..n.min(40) {
            for p in [0, (n - d) / 2, n - 1 - d] {
                let mut s = asc.clone();
                s.swap(p, p + d);
                assert_eq!(radius(&s, ASC), d, "n={n} swap {p}<->{}", p + d);
                assert!(is_k_sorted(&s, d, ASC) && !is_k_sorted(&s, d - 1, ASC));
            }
        }
    }
    assert_eq!(radius(&[7i64; 100], ASC), 0);
    assert_eq!(radius(&[7i64; 100], DESC), 0);
    // Total order: -0.0 < 0.0, so this is out of order by 2.
    assert_eq!(radius(&[0.0f32, 1.0, -0.0], ASC), 2);
    assert_eq!(radius(&[f64::NAN, 0.0, 1.0, f64::INFINITY], ASC), 3);
}

fn radius_matches_naive<K: TestKey>() {
    let mut r = rng(99);
    for case in 0..300 {
        let n = r.gen_range(0..40);
        let dup = case % 3 == 0;
        let mut v: Vec<K> = keys(n, dup, 1000 + case);
        if case % 2 == 0 {
            // Nearly sorted: sort, then swap a few pairs at bounded distance.
            v.sort_by(|a, b| a.ref_cmp(b));
            for _ in 0..r.gen_range(0..4) {
                if n > 1 {
                    let i = r.gen_range(0..n - 1);
                    let j = (i + r.gen_range(1..6)).min(n - 1);
                    v.swap(i, j);
                }
            }
        }
        for order in [ASC, DESC] {
            let rad = radius_naive(&v, order);
            assert_eq!(radius(&v, order), rad, "{} {v:?} {order}", K::NAME);
            assert!(is_k_sorted(&v, rad, order));
            assert_eq!(check_k_sorted(&v, usize::MAX, order), Ok(()));
            if rad > 0 {
                assert!(!is_k_sorted(&v, rad - 1, order));
                let k = r.gen_range(0..rad);
                match check_k_sorted(&v, k, order) {
                    Err(CheckError::NotKSorted { k: kk, i, j }) => {
                        assert_eq!(kk, k);
                        assert!(i + k < j && j < n, "witness {i} {j} k={k}");
                        assert!(ref_cmp_in(&v[i], &v[j], order).is_gt(), "witness {i} {j}");
                    }
                    other => panic!("{} {v:?} k={k} {order}: {other:?}", K::NAME),
                }
            }
        }
    }
}

#[test]
fn radius_and_k_sorted_match_naive() {
    for_each_key!(radius_matches_naive);
}

#[test]
fn k_sorted_witness() {
    let a = [1u32, 5, 3, 4, 2, 6];
    assert_eq!(check_k_sorted(&a, 3, ASC), Ok(()));
    assert_eq!(
        check_k_sorted(&a, 2, ASC),
        Err(CheckError::NotKSorted { k: 2, i: 1, j: 4 })
    );
    assert_eq!(
        check_k_sorted(&a, 0, ASC),
        Err(CheckError::NotKSorted { k: 0, i: 1, j: 2 })
    );
    assert_eq!(
        check_k_sorted(&a, 0, DESC),
        Err(CheckError::NotKSorted { k: 0, i: 0, j: 1 })
    );
    assert_eq!(check_k_sorted::<u32>(&[], 0, ASC), Ok(()));
    assert_eq!(check_k_sorted(&[2u32, 1], 1, ASC), Ok(()));
    assert_eq!(
        check_k_sorted(&[2u32, 1], 0, ASC),
        Err(CheckError::NotKSorted { k: 0, i: 0, j: 1 })
    );
}

#[test]
fn interval_order_checker() {
    let keys = [2u32, 1, 3, 5, 4, 5, 9, 7];
    let ok = [0, 2, 2, 5, 6, 6, 8];
    assert_eq!(check_interval_order(&keys, &ok, ASC), Ok(()));
    assert_eq!(check_interval_order(&keys, &[0, 8], ASC), Ok(()));
    assert_eq!(check_interval_order::<u32>(&[], &[0], ASC), Ok(()));
    assert_eq!(check_interval_order::<u32>(&[], &[0, 0, 0], ASC), Ok(()));
    // Interval 3 = [5] against interval 5 = [9, 7] across the empty interval 4: fine; but
    // against [4] (interval 3 of [0, 2, 2, 4, 5, 8]) not.
    let err = check_interval_order(&keys, &[0, 2, 2, 4, 5, 8], ASC).unwrap_err();
    match &err {
        CheckError::IntervalOrder { interval, detail } => {
            assert_eq!(*interval, 2);
            assert!(
                detail.contains("keys[3]") && detail.contains("keys[4]"),
                "{detail}"
            );
            assert!(detail.contains("interval 3"), "{detail}");
        }
        e => panic!("{e:?}"),
    }
    // Across an empty interval.
    let err = check_interval_order(&[1u32, 0], &[0, 1, 1, 2], ASC).unwrap_err();
    assert!(
        matches!(err, CheckError::IntervalOrder { interval: 0, .. }),
        "{err:?}"
    );
    // Equal keys at the border are allowed.
    assert_eq!(check_interval_order(&[1i32, 1, 1], &[0, 1, 3], ASC), Ok(()));
    // Descending, floats in total order.
    let f = [f32::NAN, 3.0, 0.0, -0.0, f32::NEG_INFINITY];
    assert_eq!(check_interval_order(&f, &[0, 2, 4, 5], DESC), Ok(()));
    let err = check_interval_order(&f, &[0, 2, 4, 5], ASC).unwrap_err();
    assert!(
        matches!(err, CheckError::IntervalOrder { interval: 0, .. }),
        "{err:?}"
    );
    assert!(!err.to_string().contains('\n'), "{err}");
    let g = [3.0f32, f32::NAN, -0.0, 0.0];
    assert!(matches!(
        check_interval_order(&g, &[0, 3, 4], DESC),
        Err(CheckError::IntervalOrder { interval: 0, .. })
    ));
    // Malformed boundaries.
    for b in [&[][..], &[1, 8], &[0, 7], &[0, 9], &[0, 5, 3, 8]] {
        assert!(
            matches!(
                check_interval_order(&keys, b, ASC),
                Err(CheckError::BadBoundaries(_))
            ),
            "{b:?}"
        );
    }
}

#[test]
fn interval_order_random() {
    let mut r = rng(5);
    for case in 0..50 {
        let n = r.gen_range(0..2000);
        let mut v: Vec<i64> = keys(n, case % 2 == 0, case);
        let order = if case % 3 == 0 { DESC } else { ASC };
        v.sort_by(|a, b| ref_cmp_in(a, b, order));
        let mut cuts: Vec<usize> = (0..r.gen_range(0..10))
            .map(|_| r.gen_range(0..=n))
            .collect();
        cuts.push(0);
        cuts.push(n);
        cuts.sort_unstable();
        // Scramble inside each interval: still in interval order.
        for w in cuts.windows(2) {
            v[w[0]..w[1]].shuffle(&mut r);
        }
        assert_eq!(check_interval_order(&v, &cuts, order), Ok(()));
        // Moving the largest key of a non-last non-empty interval into the next non-empty one
        // (swapping it with that interval's smallest) breaks the order unless they are equal.
        let nonempty: Vec<(usize, usize)> = cuts
            .windows(2)
            .filter(|w| w[0] < w[1])
            .map(|w| (w[0], w[1]))
            .collect();
        if nonempty.len() >= 2 {
            let (a, b) = (nonempty[0], nonempty[1]);
            let hi = (a.0..a.1)
                .max_by(|&x, &y| ref_cmp_in(&v[x], &v[y], order))
                .unwrap();
            let lo = (b.0..b.1)
                .min_by(|&x, &y| ref_cmp_in(&v[x], &v[y], order))
                .unwrap();
            let strict = ref_cmp_in(&v[hi], &v[lo], order).is_lt();
            v.swap(hi, lo);
            assert_eq!(check_interval_order(&v, &cuts, order).is_err(), strict);
        }
    }
}

#[test]
fn arrays_sorted_checker() {
    let keys = [1i32, 5, 9, -3, 0, 2, 1];
    assert_eq!(check_arrays_sorted(&keys[..6], &[0, 3, 3, 6], ASC), Ok(()));
    assert_eq!(check_arrays_sorted(&keys, &[0, 3, 6, 7], ASC), Ok(()));
    assert_eq!(
        check_arrays_sorted(&keys, &[0, 3, 7], ASC),
        Err(CheckError::ArrayNotSorted { array: 1, index: 2 })
    );
    assert_eq!(
        check_arrays_sorted(&keys, &[0, 0, 7], ASC),
        Err(CheckError::ArrayNotSorted { array: 1, index: 2 })
    );
    assert_eq!(
        check_arrays_sorted(&keys, &[0, 3, 6, 7], DESC),
        Err(CheckError::ArrayNotSorted { array: 0, index: 0 })
    );
    assert_eq!(check_arrays_sorted::<f32>(&[], &[0], ASC), Ok(()));
    assert_eq!(check_arrays_sorted::<f32>(&[], &[0, 0, 0], DESC), Ok(()));
    for o in [&[][..], &[1, 7], &[0, 6], &[0, 8], &[0, 4, 2, 7]] {
        assert!(
            matches!(
                check_arrays_sorted(&keys, o, ASC),
                Err(CheckError::BadOffsets(_))
            ),
            "{o:?}"
        );
    }
    // Many arrays, and one long array (parallel inner scan).
    let mut r = rng(11);
    let mut offsets = vec![0usize];
    let mut all: Vec<f64> = Vec::new();
    for a in 0..300 {
        let len = if a == 150 { 40_000 } else { r.gen_range(0..40) };
        let mut arr: Vec<f64> = common::keys(len, a % 2 == 0, 500 + a as u64);
        arr.sort_by(|x, y| x.total_cmp(y));
        all.extend(arr);
        offsets.push(all.len());
    }
    assert_eq!(check_arrays_sorted(&all, &offsets, ASC), Ok(()));
    let start = offsets[150];
    let mut broken = all.clone();
    // The lowest key in total order (a negative NaN) after a key that is not it.
    broken[start + 30_001] = f64::LOWEST;
    assert_eq!(
        check_arrays_sorted(&broken, &offsets, ASC),
        Err(CheckError::ArrayNotSorted {
            array: 150,
            index: 30_000
        })
    );
}

#[test]
fn messages_are_one_line() {
    let errs = [
        CheckError::NotSorted { index: 3 },
        CheckError::LengthMismatch {
            expected: 1,
            actual: 2,
        },
        CheckError::NotPermutation { detail: "x".into() },
        CheckError::Differs {
            index: 1,
            expected: "a".into(),
            actual: "b".into(),
        },
        CheckError::NotKSorted { k: 1, i: 0, j: 5 },
        CheckError::IntervalOrder {
            interval: 2,
            detail: "d".into(),
        },
        CheckError::BadBoundaries("b".into()),
        CheckError::ArrayNotSorted { array: 4, index: 6 },
        CheckError::BadOffsets("o".into()),
    ];
    for e in errs {
        let s = e.to_string();
        assert!(!s.is_empty() && !s.contains('\n'), "{s:?}");
    }
    assert_eq!(
        CheckError::NotKSorted { k: 1, i: 0, j: 5 }.to_string(),
        "not 1-sorted: a[0] follows a[5] but 5 - 0 > 1"
    );
}
