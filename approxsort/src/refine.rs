//! `refine`: sorting inside every interval of an approximate sort, which turns it into a full
//! sort (a bucket sort).
//!
//! # Algorithm
//! Level by level, on the device, with one small download per level:
//! 1. every segment (at first: every interval) of at most 64 keys is sorted by one warp (a
//!    bitonic network in registers); segments of at most `sort_threads * sort_items` keys are
//!    listed and sorted by one block each (sortlab's `BlockRadixSort`, on the bits that vary
//!    inside the segment only); longer segments are listed as large;
//! 2. the large segments (downloaded, usually few) are split by one bucket pass over all of them
//!    at once: each segment's own min and max, about `len / sub_target` equal-width
//!    sub-intervals, the approximate sort's shared-memory count and scatter kernels, into the
//!    other buffer; the sub-intervals are the next level's segments.
//!
//! A segment whose keys are all equal is never split again (it is copied where needed), and a
//! split always separates its smallest from its largest key, so the levels end: after one for
//! uniform data, at most about 2 * 64 for adversarial 64-bit data.

use sortlab_primitives::scan::{scan_in_place, Direction, ScanKind, ScanOp, ScanVariant};
use sortlab_primitives::{
    DeviceBuffer, DevicePtr, Error, Gpu, KernelArgs, KeyBits, Order, Result, SortKey, SortValue,
};

use sortlab_arraysort::{self as arraysort, ArrayOptions, Segments};

use crate::kernels::Kernels;
use crate::phases::Phases;
use crate::policy::ApproxPolicy;
use crate::result::ApproxResult;

/// Segments of at most this many keys are sorted by one warp (two keys a lane; `WARP_SORT_MAX`
/// of `kernels/refine_small.cuh`).
const WARP_SORT_MAX: usize = 64;
/// The fewest entries a block of `classify_sort_small` handles at once (its chunk is 32 to 128
/// entries, by key and value size): the grid needs no more blocks than entries / this.
const CLASSIFY_MIN_CHUNK: usize = 32;
/// Blocks per multiprocessor of the list kernels.
const LIST_BLOCKS_PER_SM: u32 = 8;

/// What a refinement did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RefineStats {
    /// Bucket passes run after the approximate sort (0 when every interval was small enough to
    /// sort directly, and with [`RefineVariant::Arrays`]).
    pub bucket_passes: usize,
}

/// How [`refine_with`] sorts inside the intervals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RefineVariant {
    /// This crate's bucket sort, level by level (see [`refine`]): large intervals are split
    /// by bucket passes until every piece fits a warp or a block. Not stable.
    #[default]
    Buckets,
    /// Every interval sorted as an array by `sortlab_arraysort`'s fast segmented sort, in one
    /// call with no host round trip: warp and block classes up to one tile (4096 keys), one
    /// block per interval beyond (its weak case: few, very large intervals). Stable.
    Arrays,
}

sortlab_primitives::named_variants!(
    RefineVariant,
    "refine variant",
    [Buckets => "buckets", Arrays => "arrays"]
);

/// [`refine`] by `variant`.
///
/// # Errors
/// As [`refine`].
///
/// # Example
/// ```no_run
/// use sortlab_approxsort::{approx_sort, refine_with, ApproxOptions, RefineVariant};
/// use sortlab_primitives::{DeviceBuffer, Gpu};
/// let gpu = Gpu::new(0)?;
/// let mut keys = DeviceBuffer::from_host(&gpu, &[7u32, 3, 9, 1, 4, 4])?;
/// let r = approx_sort(&gpu, &mut keys, &ApproxOptions::new(3))?;
/// refine_with(&gpu, &mut keys, &r, RefineVariant::Arrays)?;
/// assert_eq!(keys.to_host()?, vec![1, 3, 4, 4, 7, 9]);
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
pub fn refine_with<K: SortKey>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    approx: &ApproxResult,
    variant: RefineVariant,
) -> Result<RefineStats> {
    match variant {
        RefineVariant::Buckets => refine(gpu, keys, approx),
        RefineVariant::Arrays => refine_arrays::<K, u32>(gpu, keys, None, approx),
    }
}

/// [`refine_pairs`] by `variant` (stable with [`RefineVariant::Arrays`]).
///
/// # Errors
/// As [`refine_pairs`].
pub fn refine_pairs_with<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    approx: &ApproxResult,
    variant: RefineVariant,
) -> Result<RefineStats> {
    if values.len() != keys.len() {
        return Err(Error::InvalidArgument(format!(
            "refine_pairs: {} keys, {} values",
            keys.len(),
            values.len()
        )));
    }
    match variant {
        RefineVariant::Buckets => refine_impl(gpu, keys, Some(values), approx),
        RefineVariant::Arrays => refine_arrays(gpu, keys, Some(values), approx),
    }
}

/// [`Error::InvalidArgument`] unless `approx` is the result of a sort of `n` keys.
fn same_length(approx: &ApproxResult, n: usize) -> Result<()> {
    if approx.len() != n {
        return Err(Error::InvalidArgument(format!(
            "refine: the approximate sort was of {} keys, the buffer holds {n}",
            approx.len()
        )));
    }
    Ok(())
}

/// [`RefineVariant::Arrays`]: the intervals' boundaries are the arrays' offsets.
fn refine_arrays<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: Option<&mut DeviceBuffer<V>>,
    approx: &ApproxResult,
) -> Result<RefineStats> {
    same_length(approx, keys.len())?;
    let segments = Segments::Offsets64(approx.boundaries());
    let opts = ArrayOptions::default().with_order(approx.order());
    match values {
        Some(v) => arraysort::sort_pairs(gpu, keys, v, segments, &opts)?,
        None => arraysort::sort_keys(gpu, keys, segments, &opts)?,
    };
    Ok(RefineStats::default())
}

/// Sorts inside every interval of `approx` (the result of an approximate sort of `keys`),
/// which makes `keys` fully sorted in `approx.order()`.
///
/// # Overview
/// A bucket sort on the device, level by level with one small download per level: segments
/// (at first the intervals) of at most 64 keys are sorted by one warp (a bitonic network in
/// registers), of at most `sort_threads * sort_items` keys by one block (sortlab's
/// `BlockRadixSort` on the bits that vary inside the segment); longer ones are split by one
/// bucket pass over all of them at once (each segment's own min and max, about
/// `len / sub_target` equal-width sub-intervals, the staged scatter) and the sub-intervals are
/// the next level. Segments of equal keys are never split again, so the levels end (one for
/// uniform data). The sorted keys go to a new allocation that replaces `*keys`, as with
/// [`crate::approx_sort`].
///
/// # Performance
/// See the [crate docs](crate#performance) and the crate's `README.md`.
///
/// # Key types
/// All six, by IEEE total order; the result equals `sortlab_cpu_reference::sort::sort` bit for
/// bit.
///
/// # Stability
/// Not stable (the warp and bucket steps are not).
///
/// # Errors
/// [`Error::InvalidArgument`] when `approx` describes another number of keys;
/// [`Error::OutOfMemory`]. `keys` is unchanged on error.
///
/// # Example
/// ```no_run
/// use sortlab_approxsort::{approx_sort, refine, ApproxOptions};
/// use sortlab_primitives::{DeviceBuffer, Gpu};
/// let gpu = Gpu::new(0)?;
/// let mut keys = DeviceBuffer::from_host(&gpu, &[3.5f64, -1.0, f64::NAN, 0.0])?;
/// let r = approx_sort(&gpu, &mut keys, &ApproxOptions::new(2))?;
/// refine(&gpu, &mut keys, &r)?;
/// let k = keys.to_host()?;
/// assert_eq!(&k[..3], &[-1.0, 0.0, 3.5]);
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
pub fn refine<K: SortKey>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    approx: &ApproxResult,
) -> Result<RefineStats> {
    refine_impl::<K, u32>(gpu, keys, None, approx)
}

/// [`refine`] of key-value pairs: values travel with their keys (not stable).
///
/// # Errors
/// As [`refine`], and [`Error::InvalidArgument`] when the lengths differ.
pub fn refine_pairs<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    approx: &ApproxResult,
) -> Result<RefineStats> {
    refine_pairs_with(gpu, keys, values, approx, RefineVariant::Buckets)
}

/// Host-slice convenience: sorts inside every interval of `boundaries` (`0 = b[0] <= ... <=
/// b[last] = keys.len()`).
///
/// # Errors
/// [`Error::InvalidArgument`] for malformed boundaries; as [`refine`].
pub fn refine_host<K: SortKey>(
    gpu: &Gpu,
    keys: &mut [K],
    boundaries: &[usize],
    order: Order,
) -> Result<RefineStats> {
    let r = ApproxResult::from_host(gpu, boundaries, keys.len(), order)?;
    let mut d = DeviceBuffer::from_host(gpu, keys)?;
    let stats = refine(gpu, &mut d, &r)?;
    d.copy_to_host(keys)?;
    Ok(stats)
}

/// Host-slice convenience of [`refine_pairs`].
///
/// # Errors
/// As [`refine_host`] and [`refine_pairs`].
pub fn refine_pairs_host<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut [K],
    values: &mut [V],
    boundaries: &[usize],
    order: Order,
) -> Result<RefineStats> {
    let r = ApproxResult::from_host(gpu, boundaries, keys.len(), order)?;
    let mut dk = DeviceBuffer::from_host(gpu, keys)?;
    let mut dv = DeviceBuffer::from_host(gpu, values)?;
    let stats = refine_pairs(gpu, &mut dk, &mut dv, &r)?;
    let (hk, hv) = (dk.to_host()?, dv.to_host()?);
    keys.copy_from_slice(&hk);
    values.copy_from_slice(&hv);
    Ok(stats)
}

/// One level's segments: `bounds[e]..bounds[e + 1]` for `e < entries`.
struct Level<B: KeyBits> {
    bounds: u64,
    entries: usize,
    /// After a bucket pass: the claims (real entries claim their whole length), the segment
    /// table and the segments' extremes. At the first level: none.
    pass: Option<Pass<B>>,
    /// Keep the bucket pass's buffers alive.
    _owned: Option<DeviceBuffer<u64>>,
}

struct Pass<B: KeyBits> {
    claimed: DeviceBuffer<u64>,
    segs: DeviceBuffer<u64>,
    nsegs: usize,
    seg_mm: DeviceBuffer<B>,
}

/// Device addresses of keys and values (values 0 for keys only).
#[derive(Clone, Copy)]
struct Side {
    k: u64,
    v: u64,
}

fn internal(what: String) -> Error {
    Error::Driver {
        op: "refine",
        message: what,
    }
}

fn refine_impl<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    mut values: Option<&mut DeviceBuffer<V>>,
    approx: &ApproxResult,
) -> Result<RefineStats> {
    let n = keys.len();
    same_length(approx, n)?;
    let mut stats = RefineStats::default();
    if n <= 1 {
        return Ok(stats);
    }
    let with_values = values.is_some();
    let policy = ApproxPolicy::for_device(gpu, K::SIZE, if with_values { V::SIZE } else { 0 });
    let kern = Kernels::new::<K>(gpu, with_values.then_some(V::SIZE), n, policy)?;
    let p = kern.policy;
    let flip = approx.order().flip::<K::Bits>().to_u64();
    let mut out_k = DeviceBuffer::<K>::alloc(gpu, n)?;
    let mut out_v = DeviceBuffer::<V>::alloc(gpu, if with_values { n } else { 0 })?;
    let a = Side {
        k: keys.ptr().addr(),
        v: values.as_ref().map_or(0, |v| v.ptr().addr()),
    };
    let b = Side {
        k: out_k.ptr().addr(),
        v: if with_values { out_v.ptr().addr() } else { 0 },
    };
    let sort_tile = p.sort_tile();
    let max_levels = 2 * (K::SIZE * 8) + 4;
    let mut phases = Phases::new(gpu, "refine");
    let mut level = Level::<K::Bits> {
        bounds: approx.boundaries().ptr().addr(),
        entries: approx.intervals(),
        pass: None,
        _owned: None,
    };
    // The current segments live in A at odd levels, in B at even ones; sorted output goes to B.
    let mut in_b = false;
    loop {
        let src = if in_b { b } else { a };
        let entries = level.entries;
        let nsegs = level.pass.as_ref().map_or(0, |q| q.nsegs);
        let block_cap = entries.min(n / (WARP_SORT_MAX + 1) + 1);
        let large_cap = entries.min(n / (sort_tile + 1) + 1);
        let copy_cap = entries.min(nsegs + 1);
        let block_list = DeviceBuffer::<u64>::alloc(gpu, 2 * block_cap)?;
        let large_list = DeviceBuffer::<u64>::alloc(gpu, 2 * large_cap)?;
        let copy_list = DeviceBuffer::<u64>::alloc(gpu, 2 * copy_cap)?;
        let counts = DeviceBuffer::<u64>::zeroed(gpu, 3)?;
        let (claimed, segs, seg_mm) = match &level.pass {
            Some(q) => (
                q.claimed.ptr().addr(),
                q.segs.ptr().addr(),
                q.seg_mm.ptr().addr(),
            ),
            None => (0, 0, 0),
        };
        let mut args = KernelArgs::new();
        args.push(level.bounds)
            .push(entries as u64)
            .push(claimed)
            .push(src.k)
            .push(src.v)
            .push(b.k)
            .push(b.v)
            .push(flip)
            .push(in_b as u32)
            .push(segs)
            .push(nsegs as u32)
            .push(seg_mm)
            .ptr(block_list.ptr())
            .ptr(large_list.ptr())
            .ptr(copy_list.ptr())
            .ptr(counts.ptr())
            .push(block_cap as u64)
            .push(large_cap as u64)
            .push(copy_cap as u64);
        // SAFETY: `classify_sort_small(const u64*, u64, const u64*, const KEY_T*, const Value*,
        // KEY_T*, Value*, Bits, u32, const u64*, u32, const Bits*, u64*, u64*, u64*, u64*, u64,
        // u64, u64)`: bounds holds entries + 1 offsets <= n; claimed (or null) one word per
        // entry; segs/seg_mm (or null) describe nsegs parents; src and dst hold n keys
        // (values); the lists hold 2 * cap words each and appends past a cap are dropped (the
        // caps bound the counts: block segments are longer than 64 keys, large ones than the
        // sort tile, copied ones are one per parent).
        unsafe {
            kern.launch(
                "classify_sort_small",
                gpu.grid_stride_blocks(entries, CLASSIFY_MIN_CHUNK as u32, p.blocks_per_sm),
                p.block_threads,
                0,
                &args,
            )?
        };
        if block_cap > 0 {
            // SAFETY: `sort_block_list(const u64*, const u64*, const KEY_T*, const Value*,
            // KEY_T*, Value*, Bits)`: reads min(count, cap) entries (the kernel reads the
            // count, which never exceeds the cap), each a segment of at most sort_tile keys
            // inside 0..n.
            unsafe {
                launch_list(
                    &kern,
                    "sort_block_list",
                    &block_list,
                    counts.ptr(),
                    block_cap,
                    src,
                    b,
                    Some(flip),
                )?
            };
        }
        if copy_cap > 0 && !in_b {
            // SAFETY: `copy_list(const u64*, const u64*, const KEY_T*, const Value*, KEY_T*,
            // Value*)`: segments inside 0..n, from A to B (distinct buffers); the count is the
            // third word.
            unsafe {
                launch_list(
                    &kern,
                    "copy_list",
                    &copy_list,
                    counts.ptr().offset(2),
                    copy_cap,
                    src,
                    b,
                    None,
                )?
            };
        }
        phases.mark("classify and sort segments");
        let c = counts.to_host()?;
        let (nblock, nlarge, ncopy) = (c[0] as usize, c[1] as usize, c[2] as usize);
        if nblock > block_cap || nlarge > large_cap || ncopy > copy_cap {
            return Err(internal(format!(
                "segment lists overflowed: {nblock}/{block_cap} block, {nlarge}/{large_cap} large, \
                 {ncopy}/{copy_cap} copy"
            )));
        }
        if nlarge == 0 {
            break;
        }
        stats.bucket_passes += 1;
        if stats.bucket_passes > max_levels {
            return Err(internal(format!(
                "no progress after {max_levels} bucket passes"
            )));
        }
        let words = large_list.to_host()?;
        let mut large: Vec<(u64, u64)> = words[..2 * nlarge]
            .chunks_exact(2)
            .map(|w| (w[0], w[1]))
            .collect();
        large.sort_unstable();
        let dst = if in_b { a } else { b };
        phases.mark("plan bucket pass");
        level = bucket_pass::<K>(&kern, &large, src, dst, flip)?;
        phases.mark("bucket pass");
        in_b = !in_b;
    }
    std::mem::swap(keys, &mut out_k);
    if let Some(v) = values.as_mut() {
        std::mem::swap(*v, &mut out_v);
    }
    Ok(stats)
}

/// Launches the list kernel `name` (`sort_block_list` with `flip`, `copy_list` without): one
/// block per entry of `list` (at most `cap`; the count at `count`), from `src` into `dst`.
///
/// # Safety
/// As [`Kernels::launch`] for the kernel's parameters `(list, count, src keys, src values, dst
/// keys, dst values[, flip])`.
#[allow(clippy::too_many_arguments)]
unsafe fn launch_list(
    kern: &Kernels,
    name: &str,
    list: &DeviceBuffer<u64>,
    count: DevicePtr<u64>,
    cap: usize,
    src: Side,
    dst: Side,
    flip: Option<u64>,
) -> Result<()> {
    let mut args = KernelArgs::new();
    args.ptr(list.ptr())
        .ptr(count)
        .push(src.k)
        .push(src.v)
        .push(dst.k)
        .push(dst.v);
    if let Some(f) = flip {
        args.push(f);
    }
    let p = &kern.policy;
    let grid = kern.gpu.grid_stride_blocks(cap, 1, LIST_BLOCKS_PER_SM);
    // SAFETY: forwarded to the caller.
    unsafe { kern.launch(name, grid, p.sort_threads, 0, &args) }
}

/// One bucket pass over the `large` segments (sorted, disjoint) from `src` into `dst`;
/// returns the next level (the sub-intervals).
fn bucket_pass<K: SortKey>(
    kern: &Kernels,
    large: &[(u64, u64)],
    src: Side,
    dst: Side,
    flip: u64,
) -> Result<Level<K::Bits>> {
    let gpu = &kern.gpu;
    let p = &kern.policy;
    let tile = p.tile_items() as u64;
    let mut segs: Vec<u64> = Vec::with_capacity(3 * large.len());
    let mut tiles: Vec<u64> = Vec::new();
    let mut entry = 0u64;
    let mut prev_end = 0u64;
    let mut max_m = 2usize;
    for (s, &(start, end)) in large.iter().enumerate() {
        let len = (end - start) as usize;
        let m_s = len.div_ceil(p.sub_target).clamp(2, p.sub_max);
        max_m = max_m.max(m_s);
        // Entry `entry` is the phantom (the gap), then m_s real entries.
        segs.extend([entry + 1, m_s as u64, start - prev_end]);
        entry += 1 + m_s as u64;
        prev_end = end;
        let mut t = start;
        while t < end {
            tiles.extend([t, (t + tile).min(end), s as u64]);
            t += tile;
        }
    }
    let total = entry as usize;
    let nsegs = large.len();
    let ntiles = tiles.len() / 3;
    if ntiles > u32::MAX as usize || nsegs > u32::MAX as usize {
        return Err(Error::Unsupported(format!(
            "a bucket pass over {ntiles} tiles of {nsegs} segments"
        )));
    }
    let segs_d = DeviceBuffer::from_host(gpu, &segs)?;
    let tiles_d = DeviceBuffer::from_host(gpu, &tiles)?;
    let mut counts = DeviceBuffer::<u64>::zeroed(gpu, total + 1)?;
    let claimed = DeviceBuffer::<u64>::zeroed(gpu, total + 1)?;
    let seg_mm = DeviceBuffer::<K::Bits>::zeroed(gpu, 2 * nsegs)?;

    let mut args = KernelArgs::new();
    args.ptr(segs_d.ptr()).push(nsegs as u32).ptr(counts.ptr());
    // SAFETY: `seg_init(const u64*, u32, u64*)`: writes the phantom entry (first - 1 < total)
    // of each of nsegs segments.
    unsafe { kern.launch_over("seg_init", nsegs, p.block_threads, 1, &args)? };
    let tile_grid = gpu.grid_stride_blocks(ntiles, 1, p.blocks_per_sm * 2);
    let mut args = KernelArgs::new();
    args.ptr(tiles_d.ptr())
        .push(ntiles as u32)
        .push(src.k)
        .ptr(seg_mm.ptr());
    // SAFETY: `seg_minmax(const u64*, u32, const KEY_T*, Bits*)`: tiles inside 0..n, segment
    // numbers < nsegs (2 words each in seg_mm, zeroed).
    unsafe { kern.launch("seg_minmax", tile_grid, p.block_threads, 0, &args)? };
    let hist = max_m * 4;
    let grid = gpu.grid_stride_blocks(ntiles, 1, kern.blocks_that_fit(hist, p.blocks_per_sm));
    let mut args = KernelArgs::new();
    args.ptr(tiles_d.ptr())
        .push(ntiles as u32)
        .push(src.k)
        .push(flip)
        .ptr(segs_d.ptr())
        .ptr(seg_mm.ptr())
        .push(max_m as u32)
        .ptr(counts.ptr());
    // SAFETY: `seg_count(const u64*, u32, const KEY_T*, Bits, const u64*, const Bits*, u32,
    // u64*)`: each key of a segment lands in one of its m_s <= max_m entries (< total);
    // max_m u32 counts of dynamic shared memory.
    unsafe { kern.launch("seg_count", grid, p.block_threads, hist, &args)? };
    scan_in_place(
        gpu,
        &mut counts,
        ScanOp::Sum,
        ScanKind::Exclusive,
        Direction::Forward,
        ScanVariant::Fast,
    )?;
    let shared = kern.staged_shared_bytes(max_m, false);
    let grid = gpu.grid_stride_blocks(ntiles, 1, kern.blocks_that_fit(shared, p.blocks_per_sm));
    let mut args = KernelArgs::new();
    args.ptr(tiles_d.ptr())
        .push(ntiles as u32)
        .push(src.k)
        .push(src.v)
        .push(flip)
        .ptr(segs_d.ptr())
        .ptr(seg_mm.ptr())
        .push(max_m as u32)
        .ptr(counts.ptr())
        .ptr(claimed.ptr())
        .push(dst.k)
        .push(dst.v);
    // SAFETY: `seg_scatter(const u64*, u32, const KEY_T*, const Value*, Bits, const u64*,
    // const Bits*, u32, const u64*, u64*, KEY_T*, Value*)`: the same maps as seg_count, so
    // every real entry receives exactly its count at its scanned (absolute) position, inside
    // its segment's range of dst; claimed zeroed; dynamic shared memory for max_m counts (and
    // bases).
    unsafe { kern.launch("seg_scatter", grid, p.block_threads, shared, &args)? };
    Ok(Level {
        bounds: counts.ptr().addr(),
        entries: total,
        pass: Some(Pass {
            claimed,
            segs: segs_d,
            nsegs,
            seg_mm,
        }),
        _owned: Some(counts),
    })
}
