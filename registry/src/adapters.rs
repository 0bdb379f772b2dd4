//! Adapters from the algorithm crates' entry points to the registry's shapes
//! ([`CpuSortFn`](crate::CpuSortFn), [`GpuSortFn`](crate::GpuSortFn),
//! [`CpuPairsFn`](crate::CpuPairsFn), [`GpuPairsFn`](crate::GpuPairsFn)), one per registered
//! algorithm whose entry point takes options or reports more than success: each is a one-line
//! call with the algorithm's default options.

use sortlab_approxsort::{self as approxsort, ApproxOptions};
use sortlab_cpu_reference as cref;
use sortlab_gpu_sorts::bitonic::{self, BitonicVariant};
use sortlab_gpu_sorts::hybrid::{self, HybridVariant};
use sortlab_gpu_sorts::merge::{self, MergeVariant};
use sortlab_gpu_sorts::quick::{self, QuickVariant};
use sortlab_gpu_sorts::radix::{self, RadixVariant};
use sortlab_gpu_sorts::sample::{self, SampleVariant};
use sortlab_primitives::{DeviceBuffer, Gpu, Order, Result, SortKey, SortValue};

/// The GPU keys and pairs adapters (`$keys`, `$pairs`) of one variant of a gpu-sorts module
/// whose options have `with_order` and `with_variant` (the rest default).
macro_rules! gpu_variant {
    ($keys:ident, $pairs:ident, $module:ident :: $opts:ident, $variant:ident :: $v:ident, $name:literal) => {
        #[doc = concat!("`", $name, "` on the GPU: [`", stringify!($variant), "::", stringify!($v), "`].")]
        pub(crate) fn $keys<K: SortKey>(
            gpu: &Gpu,
            keys: &mut DeviceBuffer<K>,
            order: Order,
        ) -> Result<()> {
            let opts = $module::$opts::default().with_order(order).with_variant($variant::$v);
            $module::sort_keys(gpu, keys, &opts)
        }

        #[doc = concat!("`", $name, "` pairs: [`", stringify!($variant), "::", stringify!($v), "`].")]
        pub(crate) fn $pairs<K: SortKey, V: SortValue>(
            gpu: &Gpu,
            keys: &mut DeviceBuffer<K>,
            values: &mut DeviceBuffer<V>,
            order: Order,
        ) -> Result<()> {
            let opts = $module::$opts::default().with_order(order).with_variant($variant::$v);
            $module::sort_pairs(gpu, keys, values, &opts)
        }
    };
}

gpu_variant!(
    radix_onebit,
    radix_onebit_pairs,
    radix::RadixOptions,
    RadixVariant::OneBit,
    "radix-onebit"
);
gpu_variant!(
    radix_satish,
    radix_satish_pairs,
    radix::RadixOptions,
    RadixVariant::Satish,
    "radix-satish"
);
gpu_variant!(
    radix_fast,
    radix_fast_pairs,
    radix::RadixOptions,
    RadixVariant::Fast,
    "radix"
);

gpu_variant!(
    bitonic_mapping,
    bitonic_mapping_pairs,
    bitonic::BitonicOptions,
    BitonicVariant::Mapping,
    "bitonic-mapping"
);
gpu_variant!(
    bitonic_notes,
    bitonic_notes_pairs,
    bitonic::BitonicOptions,
    BitonicVariant::Notes,
    "bitonic-notes"
);
gpu_variant!(
    bitonic_fast,
    bitonic_fast_pairs,
    bitonic::BitonicOptions,
    BitonicVariant::Fast,
    "bitonic"
);
gpu_variant!(
    merge_satish,
    merge_satish_pairs,
    merge::MergeOptions,
    MergeVariant::Satish,
    "merge-satish"
);
gpu_variant!(
    merge_fast,
    merge_fast_pairs,
    merge::MergeOptions,
    MergeVariant::Fast,
    "merge"
);

gpu_variant!(
    sample_notes,
    sample_notes_pairs,
    sample::SampleOptions,
    SampleVariant::Notes,
    "sample-notes"
);
gpu_variant!(
    sample_fast,
    sample_fast_pairs,
    sample::SampleOptions,
    SampleVariant::Fast,
    "sample"
);
gpu_variant!(
    quick_notes,
    quick_notes_pairs,
    quick::QuickOptions,
    QuickVariant::Notes,
    "quick-notes"
);
gpu_variant!(
    quick_fast,
    quick_fast_pairs,
    quick::QuickOptions,
    QuickVariant::Fast,
    "quick"
);
gpu_variant!(
    hybrid_fast,
    hybrid_fast_pairs,
    hybrid::HybridOptions,
    HybridVariant::Fast,
    "hybrid"
);

/// A roughsort error as the registry's GPU error.
fn rough_error(e: sortlab_roughsort::Error) -> sortlab_primitives::Error {
    match e {
        sortlab_roughsort::Error::Gpu(e) => e,
        // Only `rough_sort_with_radius` can report a wrong radius; keep the message anyway.
        e => sortlab_primitives::Error::InvalidArgument(e.to_string()),
    }
}

/// `roughsort` on the GPU: radius determination, then the k-sorted sort.
pub(crate) fn rough_gpu<K: SortKey>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    order: Order,
) -> Result<()> {
    sortlab_roughsort::rough_sort(gpu, keys, order)
        .map(drop)
        .map_err(rough_error)
}

/// `roughsort` pairs on the GPU: radius determination, then the stable k-sorted sort.
pub(crate) fn rough_pairs_gpu<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    order: Order,
) -> Result<()> {
    sortlab_roughsort::rough_sort_pairs(gpu, keys, values, order)
        .map(drop)
        .map_err(rough_error)
}

/// `roughsort` on the CPU: the parallel (Altman-Chlebus) roughsort.
pub(crate) fn rough_cpu<K: SortKey>(keys: &mut [K], order: Order) {
    cref::rough::rough_sort_par(keys, order);
}

/// `roughsort` pairs on the CPU: the parallel roughsort's stable key-value form.
pub(crate) fn rough_pairs_cpu<K: SortKey, V: SortValue>(
    keys: &mut [K],
    values: &mut [V],
    order: Order,
) -> std::result::Result<(), cref::Error> {
    cref::rough::rough_sort_par_pairs(keys, values, order).map(drop)
}

/// `roughsort-seq` on the CPU: the sequential halving roughsort.
pub(crate) fn rough_seq_cpu<K: SortKey>(keys: &mut [K], order: Order) {
    cref::rough::rough_sort_seq(keys, order);
}

/// `roughsort-seq` pairs on the CPU: the halving roughsort's stable key-value form.
pub(crate) fn rough_seq_pairs_cpu<K: SortKey, V: SortValue>(
    keys: &mut [K],
    values: &mut [V],
    order: Order,
) -> std::result::Result<(), cref::Error> {
    cref::rough::rough_sort_seq_pairs(keys, values, order).map(drop)
}

/// The GPU approximate sort's default options in `order`.
fn approx_opts(order: Order) -> ApproxOptions {
    ApproxOptions {
        order,
        ..ApproxOptions::new(approxsort::DEFAULT_INTERVALS)
    }
}

/// The CPU twin's default approximate sort options in `order`.
fn approx_opts_cpu(order: Order) -> cref::approx::ApproxOptions {
    cref::approx::ApproxOptions {
        order,
        ..cref::approx::ApproxOptions::new(approxsort::DEFAULT_INTERVALS)
    }
}

/// The approximate sort with sampled intervals, then `refine_with(variant)`: a full sort.
fn approx_refine_by<K: SortKey>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    order: Order,
    variant: approxsort::RefineVariant,
) -> Result<()> {
    let result = approxsort::approx_sort(gpu, keys, &approx_opts(order))?;
    approxsort::refine_with(gpu, keys, &result, variant)?;
    Ok(())
}

/// [`approx_refine_by`] of pairs: values move with their keys (not stable: the approximate
/// sort is not).
fn approx_refine_pairs_by<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    order: Order,
    variant: approxsort::RefineVariant,
) -> Result<()> {
    let result = approxsort::approx_sort_pairs(gpu, keys, values, &approx_opts(order))?;
    approxsort::refine_pairs_with(gpu, keys, values, &result, variant)?;
    Ok(())
}

/// `approx-refine` on the GPU: the approximate sort, then the bucket refine.
pub(crate) fn approx_refine_gpu<K: SortKey>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    order: Order,
) -> Result<()> {
    approx_refine_by(gpu, keys, order, approxsort::RefineVariant::Buckets)
}

/// `approx-refine` pairs on the GPU.
pub(crate) fn approx_refine_pairs_gpu<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    order: Order,
) -> Result<()> {
    approx_refine_pairs_by(gpu, keys, values, order, approxsort::RefineVariant::Buckets)
}

/// `approx-refine-arrays` on the GPU: the approximate sort, then every interval sorted as an
/// array by arraysort.
pub(crate) fn approx_refine_arrays_gpu<K: SortKey>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    order: Order,
) -> Result<()> {
    approx_refine_by(gpu, keys, order, approxsort::RefineVariant::Arrays)
}

/// `approx-refine-arrays` pairs on the GPU. Not stable, though its arrays step is: the approximate
/// pass before it places equal keys by the timing of atomics.
pub(crate) fn approx_refine_arrays_pairs_gpu<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    order: Order,
) -> Result<()> {
    approx_refine_pairs_by(gpu, keys, values, order, approxsort::RefineVariant::Arrays)
}

/// `approx-refine` on the CPU: the twin's approximate sort, then its refine.
pub(crate) fn approx_refine_cpu<K: SortKey>(keys: &mut [K], order: Order) {
    // Options with a non-zero interval count never fail; a failure would leave the keys
    // unsorted, which the caller's check reports.
    if let Ok(r) = cref::approx::approx_sort(keys, &approx_opts_cpu(order)) {
        let _ = cref::approx::refine(keys, &r);
    }
}

/// `approx-refine` pairs on the CPU: the twin's approximate sort of pairs, then its stable
/// refine of pairs (together the stable sort).
pub(crate) fn approx_refine_pairs_cpu<K: SortKey, V: SortValue>(
    keys: &mut [K],
    values: &mut [V],
    order: Order,
) -> std::result::Result<(), cref::Error> {
    let r = cref::approx::approx_sort_pairs(keys, values, &approx_opts_cpu(order))?;
    cref::approx::refine_pairs(keys, values, &r)
}
