//! The reference sorts against std's sorts, for every key type, both orders, many lengths.

mod common;

use common::{bits, keys, ref_cmp_in, TestKey, LENGTHS};
use sortlab_cpu_reference::sort::{
    sort, sort_pairs, sort_pairs_seq, sort_pairs_unstable, sort_pairs_unstable_seq, sort_seq,
    sort_unstable, sort_unstable_seq,
};
use sortlab_cpu_reference::Error;
use sortlab_primitives::{Order, SortKey, SortValue};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

type KeySort<K> = fn(&mut [K], Order);
type PairSort<K, V> = fn(&mut [K], &mut [V], Order) -> Result<(), Error>;

fn key_sorts<K: SortKey>() -> [(&'static str, KeySort<K>); 4] {
    [
        ("sort", sort::<K>),
        ("sort_unstable", sort_unstable::<K>),
        ("sort_seq", sort_seq::<K>),
        ("sort_unstable_seq", sort_unstable_seq::<K>),
    ]
}

fn pair_sorts<K: SortKey, V: SortValue>() -> [(&'static str, bool, PairSort<K, V>); 4] {
    [
        ("sort_pairs", true, sort_pairs::<K, V>),
        ("sort_pairs_seq", true, sort_pairs_seq::<K, V>),
        ("sort_pairs_unstable", false, sort_pairs_unstable::<K, V>),
        (
            "sort_pairs_unstable_seq",
            false,
            sort_pairs_unstable_seq::<K, V>,
        ),
    ]
}

fn keys_match_std<K: TestKey>() {
    for (seed, &n) in LENGTHS.iter().enumerate() {
        for dup in [false, true] {
            let input: Vec<K> = keys(n, dup, seed as u64 * 2 + dup as u64);
            for order in ORDERS {
                let mut expected = input.clone();
                expected.sort_by(|a, b| ref_cmp_in(a, b, order));
                for (name, f) in key_sorts::<K>() {
                    let mut got = input.clone();
                    f(&mut got, order);
                    assert!(
                        bits(&got) == bits(&expected),
                        "{name} {} {order} n={n} dup={dup}",
                        K::NAME
                    );
                }
            }
        }
    }
}

#[test]
fn key_sorts_match_std() {
    for_each_key!(keys_match_std);
}

/// Pairs with the input index as value: the stable sorts must equal std's stable sort exactly;
/// the unstable ones must give the same keys, each value still beside its own key.
fn pairs_match_std<K: TestKey>() {
    for (seed, &n) in LENGTHS.iter().enumerate() {
        for dup in [false, true] {
            let input: Vec<K> = keys(n, dup, 100 + seed as u64 * 2 + dup as u64);
            for order in ORDERS {
                let mut idx: Vec<u32> = (0..n as u32).collect();
                idx.sort_by(|&a, &b| ref_cmp_in(&input[a as usize], &input[b as usize], order));
                let exp_keys: Vec<K> = idx.iter().map(|&i| input[i as usize]).collect();
                for (name, stable, f) in pair_sorts::<K, u32>() {
                    let mut k = input.clone();
                    let mut v: Vec<u32> = (0..n as u32).collect();
                    f(&mut k, &mut v, order).unwrap();
                    let what = format!("{name} {} {order} n={n} dup={dup}", K::NAME);
                    assert!(bits(&k) == bits(&exp_keys), "keys: {what}");
                    if stable {
                        assert_eq!(v, idx, "values: {what}");
                    } else {
                        for (i, &vi) in v.iter().enumerate() {
                            assert_eq!(
                                input[vi as usize].to_ordered_bits(),
                                k[i].to_ordered_bits(),
                                "value {vi} left its key at {i}: {what}"
                            );
                        }
                        let mut sorted_v = v.clone();
                        sorted_v.sort_unstable();
                        assert!(sorted_v.iter().copied().eq(0..n as u32), "values: {what}");
                    }
                }
            }
        }
    }
}

#[test]
fn pair_sorts_match_std() {
    for_each_key!(pairs_match_std);
}

/// Float values and 8-byte values move bit for bit (NaN payloads and -0.0 kept).
#[test]
fn values_move_bitwise() {
    let n = 5000;
    let input: Vec<i64> = keys(n, true, 7);
    let vals: Vec<f32> = (0..n as u32)
        .map(|i| f32::from_bits(i.wrapping_mul(0x9e37_79b9)))
        .collect();
    for order in ORDERS {
        let mut idx: Vec<usize> = (0..n).collect();
        idx.sort_by(|&a, &b| ref_cmp_in(&input[a], &input[b], order));
        for (name, _, f) in pair_sorts::<i64, f32>()
            .into_iter()
            .filter(|&(_, stable, _)| stable)
        {
            let mut k = input.clone();
            let mut v = vals.clone();
            f(&mut k, &mut v, order).unwrap();
            let got: Vec<u32> = v.iter().map(|x| x.to_bits()).collect();
            let exp: Vec<u32> = idx.iter().map(|&i| vals[i].to_bits()).collect();
            assert_eq!(got, exp, "{name} {order}");
        }
        let mut k: Vec<f64> = keys(n, false, 8);
        let mut v: Vec<u64> = (0..n as u64).map(|i| i << 40 | i).collect();
        let (k0, v0) = (k.clone(), v.clone());
        sort_pairs(&mut k, &mut v, order).unwrap();
        for (i, &vi) in v.iter().enumerate() {
            let from = (vi & 0xff_ffff) as usize;
            assert_eq!(v0[from], vi);
            assert_eq!(k0[from].to_bits(), k[i].to_bits());
        }
    }
}

#[test]
fn float_total_order_by_hand() {
    let sub = 1e-45f32;
    let asc = [
        -f32::NAN,
        f32::NEG_INFINITY,
        -1.0,
        -f32::MIN_POSITIVE,
        -sub,
        -0.0,
        0.0,
        sub,
        f32::MIN_POSITIVE,
        1.0,
        f32::INFINITY,
        f32::NAN,
    ];
    let asc_bits: Vec<u32> = asc.iter().map(|x| x.to_bits()).collect();
    let desc_bits: Vec<u32> = asc_bits.iter().rev().copied().collect();
    let scrambled = [5, 11, 0, 7, 2, 9, 1, 6, 10, 3, 8, 4].map(|i| asc[i]);
    for (name, f) in key_sorts::<f32>() {
        let mut a = scrambled;
        f(&mut a, Order::Ascending);
        assert_eq!(a.map(|x| x.to_bits()).to_vec(), asc_bits, "{name}");
        f(&mut a, Order::Descending);
        assert_eq!(a.map(|x| x.to_bits()).to_vec(), desc_bits, "{name}");
    }
}

#[test]
fn stable_descending_keeps_input_order_of_equal_keys() {
    let keys0 = [1u32, 2, 1, 2, 1];
    for (name, stable, f) in pair_sorts::<u32, u32>() {
        if !stable {
            continue;
        }
        let (mut k, mut v) = (keys0, [0u32, 1, 2, 3, 4]);
        f(&mut k, &mut v, Order::Descending).unwrap();
        assert_eq!((k, v), ([2, 2, 1, 1, 1], [1, 3, 0, 2, 4]), "{name}");
        let (mut k, mut v) = (keys0, [0u32, 1, 2, 3, 4]);
        f(&mut k, &mut v, Order::Ascending).unwrap();
        assert_eq!((k, v), ([1, 1, 1, 2, 2], [0, 2, 4, 1, 3]), "{name}");
    }
}

#[test]
fn length_mismatch_leaves_data_untouched() {
    for (name, _, f) in pair_sorts::<f64, u64>() {
        let mut k = [3.0f64, 1.0, 2.0];
        let mut v = [1u64, 2];
        assert_eq!(
            f(&mut k, &mut v, Order::Ascending),
            Err(Error::LengthMismatch { keys: 3, values: 2 }),
            "{name}"
        );
        assert_eq!((k, v), ([3.0, 1.0, 2.0], [1, 2]), "{name}");
    }
    let msg = Error::LengthMismatch { keys: 3, values: 2 }.to_string();
    assert!(msg.contains("3 keys") && msg.contains("2 values"), "{msg}");
}

#[test]
fn empty_and_tiny() {
    for (name, f) in key_sorts::<i32>() {
        let mut e: [i32; 0] = [];
        f(&mut e, Order::Descending);
        let mut one = [-5];
        f(&mut one, Order::Ascending);
        assert_eq!(one, [-5], "{name}");
        let mut two = [i32::MAX, i32::MIN];
        f(&mut two, Order::Ascending);
        assert_eq!(two, [i32::MIN, i32::MAX], "{name}");
        f(&mut two, Order::Descending);
        assert_eq!(two, [i32::MAX, i32::MIN], "{name}");
    }
    for (name, _, f) in pair_sorts::<u64, i32>() {
        let (mut k, mut v): ([u64; 0], [i32; 0]) = ([], []);
        f(&mut k, &mut v, Order::Ascending).unwrap();
        let (mut k, mut v) = ([9u64, 3], [-1i32, -2]);
        f(&mut k, &mut v, Order::Ascending).unwrap();
        assert_eq!((k, v), ([3, 9], [-2, -1]), "{name}");
    }
}
