//! The launches of both variants (`hybrid.cu`).
//!
//! Every launch is a programmatic dependent launch ([`LaunchConfig::dependent`]): every kernel
//! of `hybrid.cu` begins with `sortlab::dependent_entry()`. Every kernel and launch is checked
//! before the first one runs, so an error leaves the caller's data untouched.

use std::sync::Arc;

use sortlab_primitives::{
    DeviceBuffer, Error, Gpu, Kernel, KernelArgs, KernelSource, LaunchConfig, Module, Result,
    SortKey,
};

use super::plan::{Plan, BLOCKS_PER_SM, SORT_THREADS, THREADS};
use super::variant::HybridVariant;

/// The hybrid sort kernels (both variants).
pub const HYBRID_SOURCE: KernelSource = KernelSource::new("hybrid.cu", include_str!("hybrid.cu"));

/// The compiled `hybrid.cu` for keys `K` and values of `value_size` bytes (0: none).
fn module<K: SortKey>(gpu: &Gpu, plan: &Plan) -> Result<Arc<Module>> {
    let value = (plan.value_size > 0).then_some(plan.value_size);
    let shape = plan.shape;
    gpu.module_keyed(&HYBRID_SOURCE, (K::NAME, value, shape), || {
        shape.module_defines::<K>(value)
    })
}

/// `name` of `module` with `cfg` (made dependent), checked against its limits.
fn kernel(module: &Module, name: &str, cfg: LaunchConfig) -> Result<(Kernel, LaunchConfig)> {
    let k = module.kernel(name)?;
    let cfg = cfg.dependent();
    k.check(&cfg)?;
    Ok((k, cfg))
}

/// Sorts `plan` (n >= 2) in place: keys at `keys`, values at `values` (0 for keys only),
/// `scratch` holding the plan's layout unless the plan is small.
pub(crate) fn sort<K: SortKey>(
    gpu: &Gpu,
    plan: &Plan,
    flip: K::Bits,
    keys: u64,
    values: u64,
    scratch: Option<&DeviceBuffer<u8>>,
) -> Result<()> {
    let module = module::<K>(gpu, plan)?;
    let smem = plan.shape.sort_shared_bytes() as u32;
    let sort_cfg = |blocks: u32| LaunchConfig::linear(blocks, SORT_THREADS).with_shared(smem);
    if plan.small() {
        let (k, cfg) = kernel(&module, "hybrid_sort_small", sort_cfg(1))?;
        let mut args = KernelArgs::new();
        args.push(keys)
            .push(values)
            .push(plan.n as u32)
            .push(flip)
            .push(smem);
        // SAFETY: arguments match `hybrid_sort_small(Key*, Value*, u32, Bits, u32)`; keys (and
        // values, or 0 for keys only) hold n <= CAPACITY elements (a small plan); one block,
        // with the SORT_SMEM_BYTES of dynamic shared memory the kernel asserts.
        return unsafe { k.launch(cfg, &args) };
    }
    let (Some(layout), Some(scratch)) = (plan.layout(), scratch) else {
        return Err(Error::InvalidArgument(
            "the hybrid sort needs a scratch buffer".to_string(),
        ));
    };
    let n = plan.n as u64;
    let nb = plan.buckets();
    let stream = |items: usize| {
        LaunchConfig::linear(
            gpu.grid_stride_blocks(items, THREADS, BLOCKS_PER_SM),
            THREADS,
        )
    };
    let segments = plan.n.div_ceil(32 * super::plan::ITEMS as usize);
    // Every kernel and launch checked before the first launch.
    let clear = kernel(&module, "hybrid_clear", stream(plan.counter_words()))?;
    let count = kernel(&module, "hybrid_count", stream(segments * 32))?;
    let scan = kernel(&module, "hybrid_scan", LaunchConfig::linear(1, THREADS))?;
    let scatter = kernel(&module, "hybrid_scatter", stream(segments * 32))?;
    let buckets = kernel(
        &module,
        "hybrid_sort_buckets",
        sort_cfg(gpu.exact_grid(nb, "the hybrid sort's buckets")?),
    )?;
    let chunks = plan.n.div_ceil(plan.shape.chunk());
    let copy = kernel(
        &module,
        "hybrid_copy_equal",
        LaunchConfig::linear(gpu.exact_grid(chunks, "the hybrid sort's copy")?, THREADS),
    )?;
    let paper = match plan.variant {
        HybridVariant::Paper => Some((
            kernel(&module, "hybrid_minmax", stream(plan.n))?,
            kernel(&module, "hybrid_histogram", stream(plan.n))?,
            kernel(&module, "hybrid_refine", LaunchConfig::linear(1, THREADS))?,
        )),
        HybridVariant::Fast => None,
    };
    let fast = match plan.variant {
        HybridVariant::Fast => {
            let runs = plan.sample.div_ceil(plan.shape.capacity);
            let threads = plan.sample.div_ceil(plan.shape.per_thread());
            Some((
                kernel(&module, "hybrid_sample", stream(plan.sample))?,
                kernel(&module, "hybrid_sort_runs", sort_cfg(gpu.grid_blocks(runs)))?,
                kernel(&module, "hybrid_pivots", stream(plan.pivots))?,
                kernel(
                    &module,
                    "hybrid_merge_level",
                    LaunchConfig::linear(
                        gpu.grid_stride_blocks(threads, SORT_THREADS, BLOCKS_PER_SM),
                        SORT_THREADS,
                    ),
                )?,
            ))
        }
        HybridVariant::Paper => None,
    };

    let counters = layout.counters.ptr(scratch);
    let counts = counters;
    let starts = layout.starts.ptr(scratch);
    let cursors = layout.cursors.ptr(scratch);
    let scattered = layout.scattered.ptr(scratch);
    let spare = layout.spare.ptr(scratch);
    let first = if plan.value_size > 0 {
        layout.first.ptr(scratch).addr()
    } else {
        0
    };
    let scattered_values = if plan.value_size > 0 {
        layout.values.ptr(scratch).addr()
    } else {
        0
    };

    let (k, cfg) = clear;
    let mut args = KernelArgs::new();
    args.ptr(counters).push(plan.counter_words() as u64);
    // SAFETY: arguments match `hybrid_clear(u64*, u64)`; the counters region holds that many
    // u64 words; grid-strided.
    unsafe { k.launch(cfg, &args)? };

    // The pivots' address (dense, sorted ordered bits).
    let pivots = if let Some((minmax, histogram, refine)) = paper {
        let hist = counters.offset(nb);
        let mm = counters.offset(nb + (1 << super::plan::HIST_LOG2));
        let piv = layout.pivots.ptr(scratch);
        let (k, cfg) = minmax;
        let mut args = KernelArgs::new();
        args.push(keys).push(n).push(flip).ptr(mm);
        // SAFETY: arguments match `hybrid_minmax(const Key*, u64, Bits, u64*)`; keys hold n
        // keys; mm is two zeroed u64 of the counters region; grid-strided.
        unsafe { k.launch(cfg, &args)? };
        let (k, cfg) = histogram;
        let mut args = KernelArgs::new();
        args.push(keys).push(n).push(flip).ptr(mm).ptr(hist);
        // SAFETY: arguments match `hybrid_histogram(const Key*, u64, Bits, const u64*, u64*)`;
        // hist is HIST_BINS zeroed u64 of the counters region, mm the min/max just written;
        // grid-strided.
        unsafe { k.launch(cfg, &args)? };
        let (k, cfg) = refine;
        let mut args = KernelArgs::new();
        args.push(n)
            .ptr(mm)
            .ptr(hist)
            .push(plan.pivots as u32)
            .ptr(piv);
        // SAFETY: arguments match `hybrid_refine(u64, const u64*, u64*, u32, Bits*)`; one block
        // of THREADS; piv holds plan.pivots keys' bits.
        unsafe { k.launch(cfg, &args)? };
        piv.addr()
    } else if let Some((sample, runs, gather, level)) = fast {
        let mut src = layout.sample.ptr(scratch);
        let mut dst = layout.sample_spare.ptr(scratch);
        let s = plan.sample as u64;
        let (k, cfg) = sample;
        let mut args = KernelArgs::new();
        args.push(keys).push(n).push(flip).ptr(src).push(s);
        // SAFETY: arguments match `hybrid_sample(const Key*, u64, Bits, Bits*, u64)`; keys hold
        // n keys, src s keys' bits, s <= n (the plan's sample is at most n / 32 + 32 <= n);
        // grid-strided.
        unsafe { k.launch(cfg, &args)? };
        let (k, cfg) = runs;
        let mut args = KernelArgs::new();
        args.ptr(src).push(s).push(smem);
        // SAFETY: arguments match `hybrid_sort_runs(Bits*, u64, u32)`; src holds s bits; the
        // dynamic shared memory is SORT_SMEM_BYTES, asserted in the kernel; grid-strided.
        unsafe { k.launch(cfg, &args)? };
        let (k, cfg) = level;
        let mut width = plan.shape.capacity as u64;
        for _ in 0..plan.sample_levels() {
            let mut args = KernelArgs::new();
            args.ptr(src).ptr(dst).push(s).push(width);
            // SAFETY: arguments match `hybrid_merge_level(const Bits*, Bits*, u64, u64)`; src
            // and dst are disjoint regions of s bits; grid-strided.
            unsafe { k.launch(cfg, &args)? };
            std::mem::swap(&mut src, &mut dst);
            width *= 2;
        }
        let piv = layout.pivots.ptr(scratch);
        let (k, cfg) = gather;
        let mut args = KernelArgs::new();
        args.ptr(src)
            .push(super::plan::OVERSAMPLING as u32)
            .push(plan.pivots as u32)
            .ptr(piv);
        // SAFETY: arguments match `hybrid_pivots(const Bits*, u32, u32, Bits*)`; src holds the
        // sorted sample of (pivots + 1) * OVERSAMPLING keys' bits, so the last pick, pivots *
        // OVERSAMPLING, is inside it; piv holds plan.pivots bits in a region of its own (not
        // src: every pick is read while other threads write pivots); grid-strided.
        unsafe { k.launch(cfg, &args)? };
        piv.addr()
    } else {
        return Err(Error::InvalidArgument("hybrid sort plan".into()));
    };
    let npivots = plan.pivots as u32;

    let (k, cfg) = count;
    let mut args = KernelArgs::new();
    args.push(keys)
        .push(n)
        .push(flip)
        .push(pivots)
        .push(npivots)
        .ptr(counts);
    // SAFETY: arguments match `hybrid_count(const Key*, u64, Bits, const Bits*, u32, u64*)`;
    // the pivots region holds npivots sorted bits; counts holds the buckets' zeroed words.
    unsafe { k.launch(cfg, &args)? };
    let (k, cfg) = scan;
    let mut args = KernelArgs::new();
    args.ptr(counts).push(nb as u64).ptr(starts).ptr(cursors);
    // SAFETY: arguments match `hybrid_scan(const u64*, u64, u64*, u64*)`; starts holds nb + 1
    // words, cursors nb; one block of THREADS.
    unsafe { k.launch(cfg, &args)? };
    let (k, cfg) = scatter;
    let mut args = KernelArgs::new();
    args.push(keys)
        .push(values)
        .push(n)
        .push(flip)
        .push(pivots)
        .push(npivots)
        .ptr(cursors)
        .ptr(scattered)
        .push(scattered_values);
    // SAFETY: arguments match `hybrid_scatter(const Key*, const Value*, u64, Bits, const Bits*,
    // u32, u64*, Bits*, Value*)`; the same pivots as the count, so every bucket receives
    // exactly its count and every position below n is written once; scattered holds n keys'
    // bits, scattered_values n values (0 for keys only, never touched then).
    unsafe { k.launch(cfg, &args)? };
    let (k, cfg) = buckets;
    let mut args = KernelArgs::new();
    args.ptr(scattered)
        .push(first)
        .ptr(spare)
        .push(scattered_values)
        .ptr(starts)
        .push(keys)
        .push(values)
        .push(flip)
        .push(smem);
    // SAFETY: arguments match `hybrid_sort_buckets(Bits*, GElem*, GElem*, const Value*, const
    // u64*, Key*, Value*, Bits, u32)`; one block per bucket (exact grid of nb); bucket b reads
    // and writes only positions starts[b] .. starts[b + 1] of scattered (n bits), first (n
    // elements with values; 0 and unused for keys alone) and spare (n elements), and writes
    // the same positions of the caller's buffers; SORT_SMEM_BYTES of dynamic shared memory,
    // asserted in the kernel.
    unsafe { k.launch(cfg, &args)? };
    let (k, cfg) = copy;
    let mut args = KernelArgs::new();
    args.ptr(scattered)
        .push(scattered_values)
        .ptr(starts)
        .push(nb as u64)
        .push(n)
        .push(keys)
        .push(values)
        .push(flip);
    // SAFETY: arguments match `hybrid_copy_equal(const Bits*, const Value*, const u64*, u64,
    // u64, Key*, Value*, Bits)`; one block per chunk of positions (exact grid), each writing
    // only the positions of its chunk that lie in equality buckets, which no other kernel of
    // this sort writes.
    unsafe { k.launch(cfg, &args) }
}

#[cfg(test)]
mod tests {
    use sortlab_primitives::kernels::kernels_without_dependent_entry;

    /// Every launch is dependent, so every kernel of `hybrid.cu` must wait on its predecessor
    /// first.
    #[test]
    fn every_kernel_waits_on_its_predecessor() {
        let src = super::HYBRID_SOURCE;
        assert_eq!(
            kernels_without_dependent_entry(src.code),
            Vec::<String>::new(),
            "{}",
            src.name
        );
    }
}
