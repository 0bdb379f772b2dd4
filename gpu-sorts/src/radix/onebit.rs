//! [`RadixVariant::OneBit`](super::RadixVariant::OneBit): the launcher of `onebit.cu`.

use sortlab_primitives::{Defines, Gpu, KernelArgs, KernelSource, Result};

use super::digit_scan;
use super::job::{self, Addrs, Job, TiledLayout};

/// The split radix sort kernels.
pub const ONEBIT_SOURCE: KernelSource = KernelSource::new("onebit.cu", include_str!("onebit.cu"));

/// Blocks of 256 threads × 4 keys: tiles of 1024 keys.
pub(crate) const ONEBIT_THREADS: u32 = 256;
pub(crate) const ONEBIT_ITEMS: u32 = 4;
/// Keys per tile.
pub(crate) const ONEBIT_TILE: usize = (ONEBIT_THREADS * ONEBIT_ITEMS) as usize;

/// The tile defines of `onebit.cu`.
pub(crate) fn defines() -> Defines {
    Defines::new()
        .set("ONEBIT_THREADS", ONEBIT_THREADS)
        .set("ONEBIT_ITEMS", ONEBIT_ITEMS)
}

/// The scratch layout of `job`: two counters a tile, no offsets.
fn layout(job: &Job) -> TiledLayout {
    TiledLayout::new(job, ONEBIT_TILE, 2, false)
}

/// Scratch bytes of `job`.
pub(crate) fn scratch_bytes(job: &Job) -> usize {
    layout(job).total
}

/// Sorts `job` (n >= 2, a non-empty bit range) in place: one split per bit, between the
/// caller's buffers and the spare ones, and a copy home after an odd number of bits.
pub(crate) fn sort(gpu: &Gpu, job: &Job, at: &Addrs) -> Result<()> {
    let l = layout(job);
    let module = gpu.module(&ONEBIT_SOURCE, &job.word_defines().extend(&defines()))?;
    let util = job::util_module(gpu)?;
    let count = module.kernel("onebit_count")?;
    let split = module.kernel("onebit_split")?;
    let cfg = l.config(gpu, ONEBIT_THREADS, &[&count, &split])?;
    let s = at.scratch;
    let counts = l.counts.ptr(s);
    let pairs = job.value.is_some();
    let key = &job.key;
    let n = job.n as u64;
    // (keys, values) of the buffer pair holding the data, and of the other one.
    let mut from = (at.keys, at.values);
    let spare_values = if pairs {
        l.spare_values.ptr(s).addr()
    } else {
        0
    };
    let mut to = (l.spare_keys.ptr(s).addr(), spare_values);
    for bit in job.begin..job.end {
        let mut args = KernelArgs::new();
        args.push(from.0).push(n).push(l.tiles).push(bit);
        key.push_maps(&mut args);
        args.ptr(counts);
        // SAFETY: arguments match `onebit_count(const Key*, u64, u64, u32, Key, Key, Key, u64*)`;
        // the keys hold n words and counts 2 per tile; the grid strides over tiles.
        unsafe { count.launch(cfg, &args)? };
        digit_scan::scan(gpu, counts, 2 * l.tiles, l.totals.ptr(s))?;
        let mut args = KernelArgs::new();
        args.push(from.0)
            .push(from.1)
            .push(to.0)
            .push(to.1)
            .push(n)
            .push(l.tiles)
            .push(bit);
        key.push_maps(&mut args);
        args.ptr(counts);
        // SAFETY: arguments match `onebit_split(const Key*, const Value*, Key*, Value*, u64,
        // u64, u32, Key, Key, Key, const u64*)`; both buffer pairs hold n words (values null for
        // keys only) and do not overlap; the scanned counts give distinct positions < n.
        unsafe { split.launch(cfg, &args)? };
        std::mem::swap(&mut from, &mut to);
    }
    if from.0 != at.keys {
        job::copy_words(gpu, &util, from.0, at.keys, n * key.size as u64 / 4, None)?;
        if pairs {
            let words = n * job.value_size() as u64 / 4;
            job::copy_words(gpu, &util, from.1, at.values, words, None)?;
        }
    }
    Ok(())
}
