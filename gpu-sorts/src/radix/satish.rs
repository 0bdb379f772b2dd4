//! [`RadixVariant::Satish`](super::RadixVariant::Satish): the launcher of `satish.cu`.

use sortlab_primitives::{Defines, Error, Gpu, KernelArgs, KernelSource, LaunchConfig, Result};

use super::digit_scan;
use super::job::{self, Addrs, Carver, Job};

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

/// Scratch regions (byte offsets).
struct Layout {
    tiles: u64,
    tmp_keys: usize,
    tmp_values: usize,
    counts: usize,
    offsets: usize,
    totals: usize,
    total: usize,
}

impl Layout {
    fn new(job: &Job) -> Layout {
        let tiles = job.n.div_ceil(SATISH_TILE);
        let mut c = Carver::default();
        let tmp_keys = c.take(job.n * job.key.size);
        let tmp_values = c.take(job.n * job.value_size());
        let counts = c.take(DIGITS * tiles * 8);
        let offsets = c.take(DIGITS * tiles * 4);
        let totals = c.take(digit_scan::totals_len(DIGITS * tiles) * 8);
        Layout {
            tiles: tiles as u64,
            tmp_keys,
            tmp_values,
            counts,
            offsets,
            totals,
            total: c.total(),
        }
    }
}

/// Scratch bytes of `job`.
pub(crate) fn scratch_bytes(job: &Job) -> usize {
    Layout::new(job).total
}

/// Sorts `job` (n >= 2, a non-empty bit range) in place: each pass sorts tiles into the
/// temporary buffer and scatters them back into the caller's.
pub(crate) fn sort(gpu: &Gpu, job: &Job, at: &Addrs) -> Result<()> {
    let l = Layout::new(job);
    if l.tiles > u32::MAX as u64 {
        return Err(Error::Unsupported(format!(
            "{} keys make more than 2^32 tiles",
            job.n
        )));
    }
    let module = gpu.module(&SATISH_SOURCE, &job.word_defines().extend(&defines()))?;
    let local = module.kernel("satish_local_sort")?;
    let scatter = module.kernel("satish_scatter")?;
    let cfg = LaunchConfig::linear(job::grid(gpu, l.tiles), SATISH_THREADS);
    local.check(&cfg)?;
    scatter.check(&cfg)?;
    let s = |offset: usize| at.scratch + offset as u64;
    let tmp_values = if job.value.is_some() {
        s(l.tmp_values)
    } else {
        0
    };
    let key = &job.key;
    let n = job.n as u64;
    let mut bit = job.begin;
    while bit < job.end {
        let width = SATISH_RADIX_BITS.min(job.end - bit);
        let mut args = KernelArgs::new();
        args.push(at.keys)
            .push(at.values)
            .push(s(l.tmp_keys))
            .push(tmp_values)
            .push(n)
            .push(l.tiles)
            .push(bit)
            .push(width);
        for m in [key.neg, key.pos, key.inv_hi, key.inv_lo] {
            key.push(&mut args, m);
        }
        args.push(s(l.counts)).push(s(l.offsets));
        // SAFETY: arguments match `satish_local_sort(const Key*, const Value*, Key*, Value*,
        // u64, u64, u32, u32, Key, Key, Key, Key, u64*, u32*)`; keys (values, or null) and the
        // temporary buffers hold n words; counts and offsets hold 16 per tile; the grid strides
        // over tiles.
        unsafe { local.launch(cfg, &args)? };
        digit_scan::scan(gpu, s(l.counts), DIGITS as u64 * l.tiles, s(l.totals))?;
        let mut args = KernelArgs::new();
        args.push(s(l.tmp_keys))
            .push(tmp_values)
            .push(at.keys)
            .push(at.values)
            .push(n)
            .push(l.tiles)
            .push(bit)
            .push(width);
        key.push(&mut args, key.neg);
        key.push(&mut args, key.pos);
        args.push(s(l.counts)).push(s(l.offsets));
        // SAFETY: arguments match `satish_scatter(const Key*, const Value*, Key*, Value*, u64,
        // u64, u32, u32, Key, Key, const u64*, const u32*)`; sizes as above; the scanned counts
        // place every key at a distinct position < n.
        unsafe { scatter.launch(cfg, &args)? };
        bit += width;
    }
    Ok(())
}
