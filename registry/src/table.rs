//! The entries, in listing order, and look-up by name.

use sortlab_cpu_reference::{bitonic, merge, radix, sample, sort};

use crate::adapters as ad;
use crate::algo::{per_key, Algo};
use crate::pairs::per_pair;

/// Every registered algorithm, in listing order.
pub static ALGOS: &[Algo] = &[
    Algo::new(
        "reference",
        "CPU reference: stable parallel merge sort (rayon par_sort_by)",
        true,
        per_key!(CpuSort, sort::sort),
    )
    .with_cpu_pairs(per_pair!(CpuPairs, true, sort::sort_pairs)),
    Algo::new(
        "reference-unstable",
        "CPU reference: unstable parallel pattern-defeating quicksort (rayon)",
        false,
        per_key!(CpuSort, sort::sort_unstable),
    )
    .with_cpu_pairs(per_pair!(CpuPairs, false, sort::sort_pairs_unstable)),
    Algo::new(
        "reference-seq",
        "CPU reference: stable sequential sort (std sort_by)",
        true,
        per_key!(CpuSort, sort::sort_seq),
    )
    .with_cpu_pairs(per_pair!(CpuPairs, true, sort::sort_pairs_seq)),
    Algo::new(
        "reference-unstable-seq",
        "CPU reference: unstable sequential sort (std sort_unstable_by)",
        false,
        per_key!(CpuSort, sort::sort_unstable_seq),
    )
    .with_cpu_pairs(per_pair!(CpuPairs, false, sort::sort_pairs_unstable_seq)),
    gpu_entry(
        "radix",
        "GPU LSD radix sort, the fast variant (onesweep); CPU twin: rayon radix sort",
        true,
        RADIX,
        per_key!(GpuSort, ad::radix_fast),
        per_pair!(GpuPairs, true, ad::radix_fast_pairs),
    ),
    gpu_entry(
        "radix-satish",
        "GPU 4-bit blocked radix sort (Satish, Harris, Garland)",
        true,
        RADIX,
        per_key!(GpuSort, ad::radix_satish),
        per_pair!(GpuPairs, true, ad::radix_satish_pairs),
    ),
    gpu_entry(
        "radix-onebit",
        "GPU 1-bit split radix sort (CUDPP style)",
        true,
        RADIX,
        per_key!(GpuSort, ad::radix_onebit),
        per_pair!(GpuPairs, true, ad::radix_onebit_pairs),
    ),
    gpu_entry(
        "merge",
        "GPU merge sort, the fast variant (merge-path partitions); CPU twin: rayon merge sort",
        true,
        MERGE,
        per_key!(GpuSort, ad::merge_fast),
        per_pair!(GpuPairs, true, ad::merge_fast_pairs),
    ),
    gpu_entry(
        "merge-satish",
        "GPU merge sort by ranks (Satish, Harris, Garland)",
        true,
        MERGE,
        per_key!(GpuSort, ad::merge_satish),
        per_pair!(GpuPairs, true, ad::merge_satish_pairs),
    ),
    gpu_entry(
        "bitonic",
        "GPU bitonic sort, the fast variant (shared-memory tiles, fused global steps)",
        false,
        BITONIC,
        per_key!(GpuSort, ad::bitonic_fast),
        per_pair!(GpuPairs, false, ad::bitonic_fast_pairs),
    ),
    gpu_entry(
        "bitonic-mapping",
        "GPU bitonic sort of the bitonic sorting report (index mapping, atomic exchange)",
        false,
        BITONIC,
        per_key!(GpuSort, ad::bitonic_mapping),
        per_pair!(GpuPairs, false, ad::bitonic_mapping_pairs),
    ),
    gpu_entry(
        "bitonic-notes",
        "GPU bitonic sort of the course notes (one (j, k) launch per step)",
        false,
        BITONIC,
        per_key!(GpuSort, ad::bitonic_notes),
        per_pair!(GpuPairs, false, ad::bitonic_notes_pairs),
    ),
    gpu_entry(
        "sample",
        "GPU sample sort, the fast variant (256-way splitter tree, equality buckets, block merge sorts); CPU twin: rayon sample sort",
        true,
        SAMPLE,
        per_key!(GpuSort, ad::sample_fast),
        per_pair!(GpuPairs, true, ad::sample_fast_pairs),
    ),
    gpu_entry(
        "sample-notes",
        "GPU sample sort of the course notes (buckets sorted by odd-even transposition)",
        true,
        SAMPLE,
        per_key!(GpuSort, ad::sample_notes),
        per_pair!(GpuPairs, true, ad::sample_notes_pairs),
    ),
    gpu_entry(
        "quick",
        "GPU quicksort (Cederman-Tsigas two-pass partition), the device schedules its rounds; CPU twin: rayon parallel quicksort",
        false,
        QUICK,
        per_key!(GpuSort, ad::quick_fast),
        per_pair!(GpuPairs, false, ad::quick_fast_pairs),
    ),
    gpu_entry(
        "quick-notes",
        "GPU quicksort of the course notes (sizes copied to the host every round)",
        false,
        QUICK,
        per_key!(GpuSort, ad::quick_notes),
        per_pair!(GpuPairs, false, ad::quick_notes_pairs),
    ),
    gpu_entry(
        "hybrid",
        "GPU hybrid sort (Sintorn-Assarsson: sample pivots to buckets, vector merge sort per bucket); CPU twin: rayon sample sort",
        false,
        SAMPLE,
        per_key!(GpuSort, ad::hybrid_fast),
        per_pair!(GpuPairs, false, ad::hybrid_fast_pairs),
    ),
    Algo::new(
        "roughsort",
        "radius, then k-sorted sort in O(n log k) (GPU windows; CPU Altman-Chlebus)",
        false,
        per_key!(CpuSort, ad::rough_cpu),
    )
    .with_gpu(per_key!(GpuSort, ad::rough_gpu))
    .with_cpu_pairs(per_pair!(CpuPairs, true, ad::rough_pairs_cpu))
    .with_gpu_pairs(per_pair!(GpuPairs, true, ad::rough_pairs_gpu)),
    Algo::new(
        "roughsort-seq",
        "CPU sequential roughsort (halving algorithm)",
        false,
        per_key!(CpuSort, ad::rough_seq_cpu),
    )
    .with_cpu_pairs(per_pair!(CpuPairs, true, ad::rough_seq_pairs_cpu)),
    Algo::new(
        "approx-refine",
        "interval approximate sort then refine inside intervals (a bucket sort)",
        false,
        per_key!(CpuSort, ad::approx_refine_cpu),
    )
    .with_gpu(per_key!(GpuSort, ad::approx_refine_gpu))
    .with_cpu_pairs(per_pair!(CpuPairs, true, ad::approx_refine_pairs_cpu))
    .with_gpu_pairs(per_pair!(GpuPairs, false, ad::approx_refine_pairs_gpu)),
    Algo::new(
        "approx-refine-arrays",
        "interval approximate sort then each interval sorted as an array (arraysort)",
        false,
        per_key!(CpuSort, ad::approx_refine_cpu),
    )
    .with_gpu(per_key!(GpuSort, ad::approx_refine_arrays_gpu))
    .with_cpu_pairs(per_pair!(CpuPairs, true, ad::approx_refine_pairs_cpu))
    .with_gpu_pairs(per_pair!(GpuPairs, false, ad::approx_refine_arrays_pairs_gpu)),
];

/// A GPU sort's CPU twin: its keys and pairs entry points.
struct Twin {
    keys: crate::CpuSort,
    pairs: crate::CpuPairs,
}

/// The radix variants' twin: the rayon radix sort (stable).
const RADIX: Twin = Twin {
    keys: per_key!(CpuSort, radix::sort_keys),
    pairs: per_pair!(CpuPairs, true, radix::sort_pairs),
};
/// The merge variants' twin: the rayon merge sort (stable).
const MERGE: Twin = Twin {
    keys: per_key!(CpuSort, merge::sort_keys),
    pairs: per_pair!(CpuPairs, true, merge::sort_pairs),
};
/// The bitonic variants' twin: the rayon bitonic network (unstable).
const BITONIC: Twin = Twin {
    keys: per_key!(CpuSort, bitonic::sort_keys),
    pairs: per_pair!(CpuPairs, false, bitonic::sort_pairs),
};
/// The bucketing sorts' twin (sample, hybrid): the rayon sample sort (stable).
const SAMPLE: Twin = Twin {
    keys: per_key!(CpuSort, sample::sort_keys),
    pairs: per_pair!(CpuPairs, true, sample::sort_pairs),
};
/// The quicksorts' twin: rayon's parallel pattern-defeating quicksort (unstable).
const QUICK: Twin = Twin {
    keys: per_key!(CpuSort, sort::sort_unstable),
    pairs: per_pair!(CpuPairs, false, sort::sort_pairs_unstable),
};

/// A GPU sort (keys and pairs; `stable`: whether the GPU sort is) with its CPU `twin`.
const fn gpu_entry(
    name: &'static str,
    description: &'static str,
    stable: bool,
    twin: Twin,
    gpu: crate::GpuSort,
    gpu_pairs: crate::GpuPairs,
) -> Algo {
    Algo::new(name, description, stable, twin.keys)
        .with_gpu(gpu)
        .with_cpu_pairs(twin.pairs)
        .with_gpu_pairs(gpu_pairs)
}

/// The registered algorithm called `name`.
pub fn find(name: &str) -> Option<&'static Algo> {
    ALGOS.iter().find(|a| a.name == name)
}

/// The names of `algos`, comma separated.
pub fn names<'a>(algos: impl IntoIterator<Item = &'a Algo>) -> String {
    algos
        .into_iter()
        .map(|a| a.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The names of the algorithms that have a GPU implementation, comma separated, or
/// `none yet`.
pub fn gpu_names() -> String {
    let names = names(ALGOS.iter().filter(|a| a.has_gpu()));
    if names.is_empty() {
        "none yet".to_string()
    } else {
        names
    }
}

#[cfg(test)]
mod tests {
    use sortlab_primitives::{Order, SortKey, SortValue};

    use super::*;

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
}
