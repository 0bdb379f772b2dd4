//! [`RadixVariant::Satish`](super::RadixVariant::Satish): the launcher of `satish.cu`.

use sortlab_primitives::{Defines, Gpu, KernelArgs, KernelSource, Result};

use super::digit_scan;
use super::job::{Addrs, Job, TiledLayout};

/// The blocked radix sort kernels.
pub const SATISH_SOURCE: KernelSource = KernelSource::new("satish.cu", include_str!("satish.cu"));

/// Satish et al.'s blocks: 256 threads × 4 keys, tiles of 1024 keys.
pub(crate) const SATISH_THREADS: u32 = 256;
pub(crate) const SATISH_ITEMS: u32 = 4;
/// Their digit: 4 bits (16 counters per tile).
pub(crate) const SATISH_RADIX_BITS: u32 = 4;
/// Keys per tile.
pub(crate) const SATISH_TILE: usize = (SATISH_THREADS * SATISH_ITEMS) as usize;
const DIGITS: usize = 1 << SATISH_RADIX_BITS;

/// The tile defines of `satish.cu`.
pub(crate) fn defines() -> Defines {
    Defines::new()
        .set("SATISH_THREADS", SATISH_THREADS)
        .set("SATISH_ITEMS", SATISH_ITEMS)
        .set("SATISH_RADIX_BITS", SATISH_RADIX_BITS)
}

/// The scratch layout of `job`: a counter and an offset per digit and tile.
fn layout(job: &Job) -> TiledLayout {
    TiledLayout::new(job, SATISH_TILE, DIGITS, true)
}

/// Scratch bytes of `job`.
pub(crate) fn scratch_bytes(job: &Job) -> usize {
    layout(job).total
}

/// Sorts `job` (n >= 2, a non-empty bit range) in place: each pass sorts tiles into the
/// temporary buffer and scatters them back into the caller's.
pub(crate) fn sort(gpu: &Gpu, job: &Job, at: &Addrs) -> Result<()> {
    let l = layout(job);
    let module = gpu.module(&SATISH_SOURCE, &job.word_defines().extend(&defines()))?;
    let local = module.kernel("satish_local_sort")?;
    let scatter = module.kernel("satish_scatter")?;
    let cfg = l.config(gpu, SATISH_THREADS, &[&local, &scatter])?;
    let s = at.scratch;
    let (tmp_keys, counts, offsets) = (l.spare_keys.ptr(s), l.counts.ptr(s), l.offsets.ptr(s));
    let tmp_values = if job.value.is_some() {
        l.spare_values.ptr(s).addr()
    } else {
        0
    };
    let n = job.n as u64;
    let (caller, tmp) = ((at.keys, at.values), (tmp_keys.addr(), tmp_values));
    // Both kernels take (source keys, values, destination keys, values, n, tiles, bit, width,
    // the key maps, counts, offsets).
    let args = |(src_k, src_v): (u64, u64), (dst_k, dst_v): (u64, u64), bit: u32, width: u32| {
        let mut args = KernelArgs::new();
        args.push(src_k)
            .push(src_v)
            .push(dst_k)
            .push(dst_v)
            .push(n)
            .push(l.tiles)
            .push(bit)
            .push(width);
        job.key.push_maps(&mut args);
        args.ptr(counts).ptr(offsets);
        args
    };
    let mut bit = job.begin;
    while bit < job.end {
        let width = SATISH_RADIX_BITS.min(job.end - bit);
        // SAFETY: arguments match `satish_local_sort(const Key*, const Value*, Key*, Value*,
        // u64, u64, u32, u32, Key, Key, Key, u64*, u32*)`; keys (values, or null) and the
        // temporary buffers hold n words; counts and offsets hold 16 per tile; the grid strides
        // over tiles.
        unsafe { local.launch(cfg, &args(caller, tmp, bit, width))? };
        digit_scan::scan(gpu, counts, DIGITS as u64 * l.tiles, l.totals.ptr(s))?;
        // SAFETY: arguments match `satish_scatter(const Key*, const Value*, Key*, Value*, u64,
        // u64, u32, u32, Key, Key, Key, const u64*, const u32*)`; sizes as above; the scanned
        // counts place every key at a distinct position < n.
        unsafe { scatter.launch(cfg, &args(tmp, caller, bit, width))? };
        bit += width;
    }
    Ok(())
}
