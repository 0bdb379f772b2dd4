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
