//! The launches of `multi.cu`: samples, cuts and the merge of received runs.

use std::sync::Arc;

use sortlab_primitives::{
    Defines, DeviceBuffer, Error, Gpu, KernelArgs, KernelSource, LaunchConfig, Module, Result,
    SortKey, SortValue,
};

use super::splitters::Cut;

/// The multi-GPU sort's kernels (`multi.cu`).
pub const MULTI_SOURCE: KernelSource = KernelSource::new("multi.cu", include_str!("multi.cu"));

/// Threads per block of every kernel.
const THREADS: u32 = 256;
/// Outputs per thread of `multi_merge`.
const ITEMS: usize = 8;
/// Outputs per merge-path split of `multi_merge_partition` (`MERGE_TILE` of `multi.cu`).
const TILE: usize = THREADS as usize * ITEMS;
/// Resident blocks per multiprocessor a grid-stride launch aims for.
const PER_SM: u32 = 8;

/// The defines of `multi.cu` for keys `K` and values of `value` bytes (`None`: keys only).
pub(crate) fn defines<K: SortKey>(value: Option<usize>) -> Defines {
    Defines::new()
        .key::<K>()
        .value_size(value)
        .set("MULTI_THREADS", THREADS)
        .set("MULTI_ITEMS", ITEMS)
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
/// the buffers and a spare pair allocated here; returns the buffers holding the result.
/// Stable: ties keep run order.
pub(crate) fn merge_runs<K: SortKey, V: SortValue>(
    module: &Module,
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
    let partition = module.kernel("multi_merge_partition")?;
    let kernel = module.kernel("multi_merge")?;
    let splits = DeviceBuffer::<u64>::alloc(&gpu, n.div_ceil(TILE) + 1)?;
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
            let tiles = (a + b).div_ceil(TILE);
            let part_cfg = grid(&gpu, tiles + 1);
            partition.check(&part_cfg)?;
            let mut args = KernelArgs::new();
            args.ptr(src_k.ptr())
                .push(begin as u64)
                .push(a as u64)
                .push(b as u64)
                .ptr(splits.ptr())
                .push(tiles as u64)
                .push(flip);
            // SAFETY: arguments match `multi_merge_partition(const Key*, u64, u64, u64, u64*,
            // u64, Bits)`; begin + a + b <= n (the runs sum to n); splits holds
            // n / TILE + 1 >= tiles + 1 words.
            unsafe { partition.launch(part_cfg, &args)? };
            let cfg = grid(&gpu, (a + b).div_ceil(ITEMS));
            kernel.check(&cfg)?;
            let mut args = KernelArgs::new();
            args.ptr(src_k.ptr())
                .push(src_v.as_ref().map_or(0, |v| v.ptr().addr()))
                .ptr(spare_keys.ptr())
                .push(spare_values.as_ref().map_or(0, |v| v.ptr().addr()))
                .push(begin as u64)
                .push(a as u64)
                .push(b as u64)
                .ptr(splits.ptr())
                .push(flip);
            // SAFETY: arguments match `multi_merge(const Key*, const Value*, Key*, Value*, u64,
            // u64, u64, const u64*, Bits)`; begin + a + b <= n for every pair (the runs sum to
            // n), src and spare are distinct buffers of n keys (and values, or null pointers
            // for keys only, which the kernel does not touch); the splits of this pair were
            // written by the partition launch just before, on the same stream.
            unsafe { kernel.launch(cfg, &args)? };
            next.push(a + b);
            begin += a + b;
        }
        runs = next;
        std::mem::swap(&mut src_k, &mut spare_keys);
        std::mem::swap(&mut src_v, &mut spare_values);
    }
    Ok((src_k, src_v))
}

#[cfg(test)]
mod tests {
    use super::{ITEMS, THREADS, TILE};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A host twin of `multi_merge`'s index arithmetic: every "thread" (chunk of ITEMS
    /// outputs) finds its merge-path split and merges serially, exactly as the kernel does.
    fn merge_twin(
        input: &[(u32, usize)],
        a_begin: usize,
        a_len: usize,
        b_len: usize,
        out: &mut [(u32, usize)],
    ) {
        let a = &input[a_begin..a_begin + a_len];
        let b = &input[a_begin + a_len..a_begin + a_len + b_len];
        let total = a_len + b_len;
        let split = |diag: usize, mut lo: usize, mut hi: usize| {
            while lo < hi {
                let mid = (lo + hi) >> 1;
                if b[diag - 1 - mid].0 < a[mid].0 {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            lo
        };
        // multi_merge_partition
        let tiles = total.div_ceil(TILE);
        let splits: Vec<usize> = (0..=tiles)
            .map(|t| {
                let diag = (t * TILE).min(total);
                split(diag, diag.saturating_sub(b_len), diag.min(a_len))
            })
            .collect();
        // multi_merge
        for c in 0..total.div_ceil(ITEMS) {
            let diag = c * ITEMS;
            let t = c / THREADS as usize;
            let d0 = t * TILE;
            let d1 = (d0 + TILE).min(total);
            let (a0, a1) = (splits[t], splits[t + 1]);
            let (b0, b1) = (d0 - a0, d1 - a1);
            let lo = diag.saturating_sub(b1).max(a0);
            let hi = diag.saturating_sub(b0).min(a1);
            assert!(lo <= hi && hi <= a_len && lo + b_len >= diag);
            let s = split(diag, lo, hi);
            assert_eq!(s, split(diag, diag.saturating_sub(b_len), diag.min(a_len)));
            let (mut i, mut j) = (s, diag - s);
            let mut ka = if i < a_len { a[i] } else { (0, 0) };
            let mut kb = if j < b_len { b[j] } else { (0, 0) };
            for o in diag..(diag + ITEMS).min(total) {
                let take_a = j >= b_len || (i < a_len && kb.0 >= ka.0);
                if take_a {
                    out[a_begin + o] = ka;
                    i += 1;
                    if i < a_len {
                        ka = a[i];
                    }
                } else {
                    out[a_begin + o] = kb;
                    j += 1;
                    if j < b_len {
                        kb = b[j];
                    }
                }
            }
        }
    }

    #[test]
    fn merge_twin_is_a_stable_merge() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for _ in 0..300 {
            let big = rng.gen_bool(0.2);
            let max = if big { 3 * TILE } else { 70 };
            let (a_len, b_len) = (rng.gen_range(0..max), rng.gen_range(0..max));
            let off = rng.gen_range(0..5);
            let range = rng.gen_range(1..6);
            let mut run = |len: usize, tag: usize| {
                let mut r: Vec<(u32, usize)> = (0..len)
                    .map(|p| (rng.gen_range(0..range), tag * 1_000_000 + p))
                    .collect();
                r.sort_by_key(|x| x.0);
                r
            };
            let mut input = vec![(u32::MAX, 0); off];
            input.extend(run(a_len, 1));
            input.extend(run(b_len, 2));
            let mut out = input.clone();
            merge_twin(&input, off, a_len, b_len, &mut out);
            let mut expected = input[off..].to_vec();
            expected.sort_by_key(|x| x.0); // stable: A's (tag 1) before B's on ties
            assert_eq!(&out[off..], &expected[..], "a {a_len} b {b_len}");
            assert_eq!(&out[..off], &input[..off]);
        }
    }
}
