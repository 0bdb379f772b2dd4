//! The launches of `multi.cu` (samples, cuts) and the merge of the received runs (the merge
//! sort's pair merge).

use std::sync::Arc;

use sortlab_primitives::{
    Defines, DeviceBuffer, Error, Gpu, KernelArgs, KernelSource, LaunchConfig, Module, Result,
    SortKey, SortValue,
};

use super::splitters::Cut;
use crate::merge::PairMerge;

/// The multi-GPU sort's kernels (`multi.cu`).
pub const MULTI_SOURCE: KernelSource = KernelSource::new("multi.cu", include_str!("multi.cu"));

/// Threads per block of every kernel.
const THREADS: u32 = 256;
/// Resident blocks per multiprocessor a grid-stride launch aims for.
const PER_SM: u32 = 8;

/// The defines of `multi.cu` for keys `K` and values of `value` bytes (`None`: keys only).
pub(crate) fn defines<K: SortKey>(value: Option<usize>) -> Defines {
    Defines::new()
        .key::<K>()
        .value_size(value)
        .set("MULTI_THREADS", THREADS)
}

/// The compiled `multi.cu` for keys `K` (values of `value` bytes).
pub(crate) fn module<K: SortKey>(gpu: &Gpu, value: Option<usize>) -> Result<Arc<Module>> {
    gpu.module_keyed(&MULTI_SOURCE, (K::NAME, value), || defines::<K>(value))
}

fn grid(gpu: &Gpu, items: usize) -> LaunchConfig {
    LaunchConfig::linear(gpu.grid_stride_blocks(items, THREADS, PER_SM), THREADS)
}

/// `count` samples of `keys` (sorted) at positions `0, step, ...` into `out` (u64 ordered bits
/// in the order of `flip`), from element `at` of `out` on.
pub(crate) fn samples<K: SortKey>(
    module: &Module,
    keys: &DeviceBuffer<K>,
    step: usize,
    count: usize,
    out: &mut DeviceBuffer<u64>,
    at: usize,
    flip: K::Bits,
) -> Result<()> {
    if count == 0 {
        return Ok(());
    }
    if (count - 1).saturating_mul(step) >= keys.len() || at + count > out.len() {
        return Err(Error::Internal(format!(
            "{count} samples at step {step} of {} keys into {} from {at}",
            keys.len(),
            out.len()
        )));
    }
    let kernel = module.kernel("multi_samples")?;
    let cfg = grid(keys.gpu(), count);
    kernel.check(&cfg)?;
    let mut args = KernelArgs::new();
    args.ptr(keys.ptr())
        .push(step as u64)
        .push(count as u64)
        .ptr(out.ptr().offset(at))
        .push(flip);
    // SAFETY: arguments match `multi_samples(const Key*, u64, u64, u64*, Bits)`; every index
    // j * step (j < count) is inside `keys`, and out has room for `count` words from `at`
    // (checked above).
    unsafe { kernel.launch(cfg, &args) }
}

/// Resolves every cut of `cuts` on `keys` (sorted, in the order of `flip`): the exact ones on
/// the host, the searches in one launch of `multi_cuts`; returns the positions in order.
pub(crate) fn cuts<K: SortKey>(
    module: &Module,
    keys: &DeviceBuffer<K>,
    cuts: &[Cut],
    flip: K::Bits,
) -> Result<Vec<usize>> {
    let mut queries = Vec::new();
    for c in cuts {
        if let Cut::Search {
            bits,
            lo,
            hi,
            upper,
        } = *c
        {
            if hi > keys.len() || lo > hi {
                return Err(Error::Internal(format!(
                    "cut window {lo}..{hi} outside a share of {}",
                    keys.len()
                )));
            }
            queries.extend([bits, lo as u64, hi as u64, upper as u64]);
        }
    }
    let mut found = Vec::new();
    if !queries.is_empty() {
        let gpu = keys.gpu();
        let count = queries.len() / 4;
        let q = DeviceBuffer::from_host(gpu, &queries)?;
        let out = DeviceBuffer::<u64>::alloc(gpu, count)?;
        let kernel = module.kernel("multi_cuts")?;
        let cfg = grid(gpu, count);
        kernel.check(&cfg)?;
        let mut args = KernelArgs::new();
        args.ptr(keys.ptr())
            .ptr(q.ptr())
            .push(count as u64)
            .ptr(out.ptr())
            .push(flip);
        // SAFETY: arguments match `multi_cuts(const Key*, const u64*, u64, u64*, Bits)`; q
        // holds 4 words per query, out one per query; every window lies inside `keys`
        // (checked above).
        unsafe { kernel.launch(cfg, &args)? };
        found = out.to_host()?;
    }
    let mut found = found.into_iter();
    cuts.iter()
        .map(|c| match c {
            Cut::Exact(x) => Ok(*x),
            Cut::Search { .. } => found
                .next()
                .map(|x| x as usize)
                .ok_or_else(|| Error::Internal("a cut search returned nothing".into())),
        })
        .collect()
}

/// Merges the sorted runs of `runs` (lengths, in rank order, back to back from element 0 of
/// `keys`/`values`) into one sorted run, pairwise, ceil(log2(non-empty runs)) levels, between
/// the buffers and a spare pair allocated here; returns the buffers holding the result. Every
/// pair is merged by the merge sort's shared-memory merge-path blocks (`PairMerge`); a lone
/// odd run is copied by the same launch (an empty right run). Stable: ties keep run order.
pub(crate) fn merge_runs<K: SortKey, V: SortValue>(
    keys: DeviceBuffer<K>,
    values: Option<DeviceBuffer<V>>,
    runs: &[usize],
    flip: K::Bits,
) -> Result<(DeviceBuffer<K>, Option<DeviceBuffer<V>>)> {
    let mut runs: Vec<usize> = runs.iter().copied().filter(|&r| r > 0).collect();
    if runs.len() <= 1 {
        return Ok((keys, values));
    }
    let gpu = keys.gpu().clone();
    let n = keys.len();
    if runs.iter().sum::<usize>() != n {
        return Err(Error::Internal(format!(
            "runs of {} keys in a buffer of {n}",
            runs.iter().sum::<usize>()
        )));
    }
    let mut pairs = PairMerge::<K>::new(&gpu, values.as_ref().map(|_| V::SIZE), n)?;
    let mut spare_keys = DeviceBuffer::<K>::alloc(&gpu, n)?;
    let mut spare_values = match &values {
        Some(_) => Some(DeviceBuffer::<V>::alloc(&gpu, n)?),
        None => None,
    };
    let (mut src_k, mut src_v) = (keys, values);
    while runs.len() > 1 {
        let mut next = Vec::with_capacity(runs.len().div_ceil(2));
        let mut begin = 0usize;
        for pair in runs.chunks(2) {
            let (a, b) = (pair[0], pair.get(1).copied().unwrap_or(0));
            pairs.merge(
                (&src_k, src_v.as_ref()),
                (&mut spare_keys, spare_values.as_mut()),
                begin,
                a,
                b,
                flip,
            )?;
            next.push(a + b);
            begin += a + b;
        }
        runs = next;
        std::mem::swap(&mut src_k, &mut spare_keys);
        std::mem::swap(&mut src_v, &mut spare_values);
    }
    Ok((src_k, src_v))
}
