//! Unit tests of the suite: deliberately broken algorithms must fail its checks.

use std::panic::catch_unwind;

use sortlab_cpu_reference::sort;
use sortlab_primitives::Order;

use super::check::panic_text;
use super::*;
use crate::algorithms::{CpuStable, CpuUnstable};
use crate::patterns::Pattern;
use crate::testing::KeysOnly;

/// Deliberately wrong algorithms, to see that the checks catch them.
enum Broken {
    /// Leaves the input as it is.
    NoSort,
    /// Sorts, then drops the last element's value by duplicating its neighbour's.
    DupLast,
    /// Sorts by `partial_cmp`-like order: -0.0 == 0.0 and NaN last, so floats differ.
    PartialOrder,
    /// Claims stability but sorts pairs unstably (reverses runs of equal keys).
    FakeStable,
    /// Returns an error.
    Fails,
    /// Panics.
    Panics,
}

crate::sort_algorithm! {
    impl Broken(self) {
        name: "broken",
        stable: true,
        keys(keys, order) {
            match self {
                Broken::NoSort => {}
                Broken::DupLast => {
                    sort::sort(keys, order);
                    let n = keys.len();
                    if n >= 2 {
                        keys[n - 1] = keys[n - 2];
                    }
                }
                Broken::PartialOrder => {
                    keys.sort_by(|a, b| {
                        let (a, b) = (a.to_f64(), b.to_f64());
                        let o = a.partial_cmp(&b).unwrap_or(a.is_nan().cmp(&b.is_nan()));
                        if order.is_descending() {
                            o.reverse()
                        } else {
                            o
                        }
                    });
                }
                Broken::FakeStable => sort::sort(keys, order),
                Broken::Fails => return Err("out of cheese".into()),
                Broken::Panics => panic!("kaboom"),
            }
            Ok(())
        }
        pairs(keys, values, order) {
            if let Broken::FakeStable = self {
                // Equal keys come out in reverse input order.
                let mut p: Vec<(K, V)> = keys.iter().copied().zip(values.iter().copied()).collect();
                p.reverse();
                p.sort_by(|a, b| order.cmp_keys(&a.0, &b.0));
                for (i, (k, v)) in p.into_iter().enumerate() {
                    keys[i] = k;
                    values[i] = v;
                }
                return Ok(());
            }
            self.sort_keys(keys, order)
        }
    }
}

#[test]
fn catches_broken_algorithms() {
    let f = try_check_keys::<u32, _>(&Broken::NoSort, Pattern::Uniform, 100, Order::Ascending, 7)
        .unwrap_err();
    let msg = f.to_string();
    for part in [
        "broken",
        "u32",
        "uniform",
        "n = 100",
        "asc",
        "seed = 7",
        "not sorted",
    ] {
        assert!(msg.contains(part), "{part} missing in {msg}");
    }
    let f = try_check_keys::<i64, _>(
        &Broken::DupLast,
        Pattern::Uniform,
        100,
        Order::Descending,
        7,
    )
    .unwrap_err();
    assert!(f.reason.contains("permutation"), "{}", f.reason);
    let f = try_check_keys::<f32, _>(
        &Broken::PartialOrder,
        Pattern::FloatSpecials,
        200,
        Order::Ascending,
        1,
    )
    .unwrap_err();
    assert_eq!(f.key_type, "f32");
    let f = try_check_keys::<f64, _>(&Broken::Fails, Pattern::Uniform, 10, Order::Ascending, 1)
        .unwrap_err();
    assert!(f.reason.contains("out of cheese"));
    let f = try_check_keys::<f64, _>(&Broken::Panics, Pattern::Uniform, 10, Order::Ascending, 1)
        .unwrap_err();
    assert!(f.reason.contains("panicked: kaboom"), "{}", f.reason);
    let f = try_check_pairs::<u64, u32, _>(
        &Broken::FakeStable,
        Pattern::FewDistinct,
        100,
        Order::Ascending,
        1,
    )
    .unwrap_err();
    assert!(f.to_string().contains("pairs u64/u32"), "{f}");
    assert!(f.reason.contains("stable reference"), "{}", f.reason);
    // Values out of step with keys.
    let f =
        try_check_pairs::<u32, u64, _>(&Broken::DupLast, Pattern::Uniform, 50, Order::Ascending, 1)
            .unwrap_err();
    assert!(f.reason.contains("differs"), "{}", f.reason);
}

/// Unstable, and moves values wrongly in one of three ways.
struct BadUnstable(u8);

crate::sort_algorithm! {
    impl BadUnstable(self) {
        name: "bad-unstable",
        stable: false,
        keys(keys, order) {
            sort::sort(keys, order);
            Ok(())
        }
        pairs(keys, values, order) {
            sort::sort_pairs(keys, values, order).map_err(|e| e.to_string())?;
            if self.0 == 0 {
                values.swap(0, 1);
            } else {
                values[0] = values[1];
            }
            Ok(())
        }
    }
}

#[test]
fn unstable_checks_catch_bad_values() {
    let reasons: Vec<String> = (0..2)
        .map(|b| {
            try_check_pairs::<u32, u32, _>(
                &BadUnstable(b),
                Pattern::Uniform,
                1000,
                Order::Ascending,
                3,
            )
            .unwrap_err()
            .reason
        })
        .collect();
    assert!(reasons[0].contains("but input key"), "{}", reasons[0]);
    assert!(
        reasons[1].contains("seen twice") || reasons[1].contains("but input key"),
        "{}",
        reasons[1]
    );
    // Swapping values of equal keys is fine for an unstable sort.
    try_check_pairs::<u32, u32, _>(&CpuUnstable, Pattern::AllEqual, 1000, Order::Ascending, 3)
        .unwrap();
}

#[test]
fn quickcheck_shrinks() {
    let r = catch_unwind(|| run_quickcheck::<i32, _>(&Broken::NoSort, "shrink-test"));
    let msg = panic_text(r.unwrap_err().as_ref());
    assert!(msg.contains("(n = 2)"), "{msg}");
    assert!(msg.contains("shrunk from"), "{msg}");
    let r = catch_unwind(|| run_quickcheck::<f64, _>(&Broken::PartialOrder, "shrink-test"));
    let msg = panic_text(r.unwrap_err().as_ref());
    assert!(msg.contains("raw bits"), "{msg}");
}

#[test]
fn keys_only_and_tiles() {
    // Pair tests skip; tile lengths ±1 are visited.
    let alg = KeysOnly::new(700);
    run_pairs::<u32, u32, _>(&alg, Order::Ascending, "keys-only");
    run_quickcheck::<u32, _>(&alg, "keys-only");
    alg.seen.borrow_mut().clear();
    run_patterns::<u32, _>(&alg, Order::Ascending, "keys-only");
    let seen = alg.seen.borrow().clone();
    assert!(seen.contains(&699) && seen.contains(&701) && seen.contains(&0));
    assert_eq!(
        seen.len(),
        suite_patterns().len() * pattern_lengths(&[700]).len()
    );
    alg.seen.borrow_mut().clear();
    run_lengths::<u32, _>(&alg, Order::Descending, "keys-only");
    assert!(alg.seen.borrow().contains(&700));
}

#[test]
fn check_functions_pass_reference() {
    for p in suite_patterns() {
        check_keys::<f32, _>(&CpuStable, p, 300, Order::Descending, 2);
        check_pairs::<i32, u64, _>(&CpuUnstable, p, 300, Order::Ascending, 2);
    }
    let l = pattern_lengths(&[5000, 1]);
    assert!(l.contains(&4999) && l.contains(&5001) && l.contains(&0) && l.contains(&2));
    assert!(l.windows(2).all(|w| w[0] < w[1]));
}
