//! Adapters from the algorithm crates' entry points to the registry's shapes
//! ([`CpuSortFn`](crate::CpuSortFn), [`GpuSortFn`](crate::GpuSortFn)), one per registered
//! algorithm whose entry point takes options: each is a one-line call with the algorithm's
//! default options.

use sortlab_approxsort::{self as approxsort, ApproxOptions};
use sortlab_cpu_reference as cref;
use sortlab_gpu_sorts::radix::{self, RadixOptions, RadixVariant};
use sortlab_primitives::{DeviceBuffer, Gpu, Order, Result, SortKey};

fn radix_gpu<K: SortKey>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    order: Order,
    variant: RadixVariant,
) -> Result<()> {
    let opts = RadixOptions::default()
        .with_order(order)
        .with_variant(variant);
    radix::sort_keys(gpu, keys, &opts)
}

/// `radix-onebit` on the GPU: [`RadixVariant::OneBit`].
pub(crate) fn radix_onebit<K: SortKey>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    order: Order,
) -> Result<()> {
    radix_gpu(gpu, keys, order, RadixVariant::OneBit)
}

/// `radix-satish` on the GPU: [`RadixVariant::Satish`].
pub(crate) fn radix_satish<K: SortKey>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    order: Order,
) -> Result<()> {
    radix_gpu(gpu, keys, order, RadixVariant::Satish)
}

/// `radix` on the GPU: [`RadixVariant::Fast`].
pub(crate) fn radix_fast<K: SortKey>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    order: Order,
) -> Result<()> {
    radix_gpu(gpu, keys, order, RadixVariant::Fast)
}

/// `roughsort` on the GPU: radius determination, then the k-sorted sort.
pub(crate) fn rough_gpu<K: SortKey>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    order: Order,
) -> Result<()> {
    match sortlab_roughsort::rough_sort(gpu, keys, order) {
        Ok(_) => Ok(()),
        Err(sortlab_roughsort::Error::Gpu(e)) => Err(e),
        // Only `rough_sort_with_radius` can report a wrong radius; keep the message anyway.
        Err(e) => Err(sortlab_primitives::Error::InvalidArgument(e.to_string())),
    }
}

/// `roughsort` on the CPU: the parallel (Altman-Chlebus) roughsort.
pub(crate) fn rough_cpu<K: SortKey>(keys: &mut [K], order: Order) {
    cref::rough::rough_sort_par(keys, order);
}

/// `roughsort-seq` on the CPU: the sequential halving roughsort.
pub(crate) fn rough_seq_cpu<K: SortKey>(keys: &mut [K], order: Order) {
    cref::rough::rough_sort_seq(keys, order);
}

/// `approx-refine` on the GPU: the approximate sort with sampled intervals, then `refine`
/// (a bucket sort: a full sort).
pub(crate) fn approx_refine_gpu<K: SortKey>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    order: Order,
) -> Result<()> {
    let opts = ApproxOptions {
        order,
        ..ApproxOptions::new(approxsort::DEFAULT_INTERVALS)
    };
    let result = approxsort::approx_sort(gpu, keys, &opts)?;
    approxsort::refine(gpu, keys, &result)?;
    Ok(())
}

/// `approx-refine` on the CPU: the twin's approximate sort, then its refine.
pub(crate) fn approx_refine_cpu<K: SortKey>(keys: &mut [K], order: Order) {
    let opts = cref::approx::ApproxOptions {
        order,
        ..cref::approx::ApproxOptions::new(approxsort::DEFAULT_INTERVALS)
    };
    // Options with a non-zero interval count never fail; a failure would leave the keys
    // unsorted, which the caller's check reports.
    if let Ok(r) = cref::approx::approx_sort(keys, &opts) {
        let _ = cref::approx::refine(keys, &r);
    }
}
