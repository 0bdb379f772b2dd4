//! The registry's table: unique names, every entry sorting every key (and value) type on the
//! CPU, look-up by name. An integration test (not unit tests in the crate), so that the test
//! build links the compiled library instead of compiling the whole registry a second time.

use sortlab_primitives::{Order, SortKey, SortValue};
use sortlab_registry::{find, gpu_names, names, Algo, ALGOS};

#[test]
fn names_are_unique() {
    for (i, a) in ALGOS.iter().enumerate() {
        assert!(ALGOS[..i].iter().all(|b| b.name != a.name), "{}", a.name);
    }
}

fn sorts<K: SortKey>(a: &Algo, keys: &[K]) {
    let mut v = keys.to_vec();
    (a.cpu_for::<K>().expect("every key type"))(&mut v, Order::Descending);
    assert!(
        v.windows(2).all(|w| w[0].total_cmp(&w[1]).is_ge()),
        "{} {}",
        a.name,
        K::NAME
    );
    assert_eq!(a.has_gpu(), a.gpu_for::<K>().is_some(), "{}", a.name);
}

#[test]
fn every_entry_has_every_key_type_and_sorts_on_the_cpu() {
    for a in ALGOS {
        sorts::<u32>(a, &[3, 1, 2, 1]);
        sorts::<i32>(a, &[3, -1, 2, 1]);
        sorts::<f32>(a, &[3.0, -0.0, f32::NAN, 0.0]);
        sorts::<u64>(a, &[3, 1, u64::MAX, 1]);
        sorts::<i64>(a, &[3, i64::MIN, 2, 1]);
        sorts::<f64>(a, &[3.0, f64::NEG_INFINITY, 2.0, 1.0]);
    }
}

/// The CPU pair sort of `K` keys with `V` index values on `keys` (descending): keys in
/// order, each value with its key, and equal keys in input order where stable.
fn sorts_pairs<K: SortKey, V: SortValue + TryFrom<usize> + Copy>(a: &Algo, keys: &[K])
where
    usize: TryFrom<V>,
{
    let Some(pairs) = a.cpu_pairs else { return };
    let index = |i: usize| V::try_from(i).ok().expect("small index");
    let mut k = keys.to_vec();
    let mut v: Vec<V> = (0..keys.len()).map(index).collect();
    let sort = a.cpu_pairs_for::<K, V>().expect("every key and value type");
    sort(&mut k, &mut v, Order::Descending).expect("equal lengths");
    let what = format!("{} {}", a.name, K::NAME);
    assert!(
        k.windows(2).all(|w| w[0].total_cmp(&w[1]).is_ge()),
        "{what}"
    );
    let at = |x: V| usize::try_from(x).ok().expect("an index");
    assert!(
        k.iter()
            .zip(&v)
            .all(|(key, &i)| key.total_cmp(&keys[at(i)]).is_eq()),
        "{what}"
    );
    if pairs.stable {
        let in_order = (k.windows(2).zip(v.windows(2)))
            .all(|(kw, vw)| kw[0].total_cmp(&kw[1]).is_ne() || at(vw[0]) < at(vw[1]));
        assert!(in_order, "{what}: not stable");
    }
    let mut short = vec![index(0); keys.len().saturating_sub(1)];
    assert!(
        sort(&mut k, &mut short, Order::Ascending).is_err(),
        "{what}"
    );
}

fn sorts_both_values<K: SortKey>(a: &Algo, keys: &[K]) {
    sorts_pairs::<K, u32>(a, keys);
    sorts_pairs::<K, u64>(a, keys);
    assert!(a.cpu_pairs_for::<K, i32>().is_none(), "{}", a.name);
    assert_eq!(a.gpu_pairs.is_some(), a.gpu_pairs_for::<K, u64>().is_some());
}

#[test]
fn pair_sorts_sort_on_the_cpu_with_every_key_and_value_type() {
    for a in ALGOS {
        assert!(a.has_gpu() || a.gpu_pairs.is_none(), "{}", a.name);
        sorts_both_values::<u32>(a, &[3, 1, 2, 1, 3]);
        sorts_both_values::<i32>(a, &[3, -1, 2, -1, 1]);
        sorts_both_values::<f32>(a, &[3.0, -0.0, f32::NAN, 0.0, 3.0]);
        sorts_both_values::<u64>(a, &[3, 1, u64::MAX, 1, 3]);
        sorts_both_values::<i64>(a, &[3, i64::MIN, 2, 1, i64::MIN]);
        sorts_both_values::<f64>(a, &[3.0, f64::NEG_INFINITY, 2.0, 1.0, 2.0]);
    }
}

#[test]
fn look_up_and_names() {
    assert_eq!(find("radix").map(|a| a.name), Some("radix"));
    assert!(find("bogo").is_none());
    assert!(names(ALGOS).starts_with("reference, reference-unstable"));
    assert!(gpu_names().contains("radix-satish"));
}
