//! The launches of a sample sort: the one-block sort, and the level loop (one host round trip
//! per level: the next level's segment count, final entries and keys, 32 bytes).

use std::sync::Arc;

use sortlab_primitives::{
    DeviceBuffer, Error, Gpu, Kernel, KernelArgs, KernelSource, LaunchConfig, Module, Result,
    SortKey,
};

use super::plan::{
    Plan, Shape, BUCKETS, CTRL_WORDS, FINAL_THREADS, MAX_LEVELS, NOTES_THREADS, SCAN_TILE,
    TILE_THREADS,
};
use super::variant::SampleVariant;

/// The sample sort kernels (both variants, every step).
pub const SAMPLE_SOURCE: KernelSource = KernelSource::new("sample.cu", include_str!("sample.cu"));

/// Threads of the splitter, scan and emit kernels (fixed in `sample.cu`).
const SAMPLE_THREADS: u32 = 256;
const SCAN_THREADS: u32 = 256;
const CHUNK_SCAN_THREADS: u32 = 1024;
const PARTIALS_THREADS: u32 = 1024;

/// The caller's buffers (device addresses; values 0 for keys only) and the scratch (`None`
/// when the plan needs none).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Addrs<'a> {
    pub keys: u64,
    pub values: u64,
    pub scratch: Option<&'a DeviceBuffer<u8>>,
}

/// The compiled `sample.cu` for keys `K` and `shape`'s value width.
fn module<K: SortKey>(gpu: &Gpu, shape: Shape) -> Result<Arc<Module>> {
    gpu.module_keyed(&SAMPLE_SOURCE, (K::NAME, shape), || {
        shape.module_defines::<K>()
    })
}

/// The final-sort kernel of the plan's variant and its launch over `entries` entries.
fn final_launch(
    gpu: &Gpu,
    module: &Module,
    plan: &Plan,
    entries: usize,
) -> Result<(Kernel, LaunchConfig, u32)> {
    let (name, threads, smem) = match plan.variant {
        SampleVariant::Fast => (
            "sample_final",
            FINAL_THREADS as u32,
            plan.shape.final_shared_bytes() as u32,
        ),
        SampleVariant::Notes => ("sample_final_notes", NOTES_THREADS as u32, 0),
    };
    let kernel = module.kernel(name)?;
    let cfg = LaunchConfig::linear(gpu.grid_blocks(entries), threads).with_shared(smem);
    kernel.check(&cfg)?;
    Ok((kernel, cfg, smem))
}

/// Launches the final sort over `entries` entries at `finals` (0: the whole input as one
/// entry of `count` keys), from `src` into the caller's buffers.
#[allow(clippy::too_many_arguments)]
fn launch_final<K: SortKey>(
    kernel: &Kernel,
    cfg: LaunchConfig,
    smem: u32,
    variant: SampleVariant,
    src: (u64, u64),
    dst: (u64, u64),
    finals: u64,
    count: u64,
    flip: K::Bits,
) -> Result<()> {
    let mut args = KernelArgs::new();
    args.push(src.0)
        .push(src.1)
        .push(dst.0)
        .push(dst.1)
        .push(finals)
        .push(count)
        .push(flip);
    if variant == SampleVariant::Fast {
        args.push(smem);
    }
    // SAFETY: arguments match `sample_final(const Key*, const Value*, Key*, Value*, const u64*,
    // u64, Bits, u32)` (fast) or `sample_final_notes(..., Bits)` (notes); src and dst hold n
    // keys (values: 0 for keys only, never touched then); every entry (or [0, count) when
    // finals is 0) lies inside them, is at most the kernel's tile long, and entries are
    // disjoint; a block reads its entry before writing it (in place when src == dst); the
    // dynamic shared memory is FINAL_SMEM_BYTES (asserted at compile time, checked in the
    // kernel).
    unsafe { kernel.launch(cfg, &args) }
}

/// Sorts `plan` (n >= 2) in place; `at.scratch` holds the plan's layout unless one block sorts
/// the input.
pub(crate) fn sort<K: SortKey>(gpu: &Gpu, plan: &Plan, flip: K::Bits, at: &Addrs) -> Result<()> {
    let module = module::<K>(gpu, plan.shape)?;
    let caller = (at.keys, at.values);
    if plan.one_block() {
        let (kernel, cfg, smem) = final_launch(gpu, &module, plan, 1)?;
        return launch_final::<K>(
            &kernel,
            cfg,
            smem,
            plan.variant,
            caller,
            caller,
            0,
            plan.n as u64,
            flip,
        );
    }
    let (Some(l), Some(scratch)) = (plan.layout(), at.scratch) else {
        return Err(Error::InvalidArgument(
            "the sample sort needs a scratch buffer".to_string(),
        ));
    };
    let spare = (
        l.keys.ptr(scratch).addr(),
        if plan.shape.value_size > 0 {
            l.values.ptr(scratch).addr()
        } else {
            0
        },
    );
    let bufs = [caller, spare];
    let segs = [l.segs[0].ptr(scratch), l.segs[1].ptr(scratch)];
    let splitters = l.splitters.ptr(scratch);
    let counts = l.counts.ptr(scratch);
    let partials = l.partials.ptr(scratch);
    let finals = l.finals.ptr(scratch);
    let ctrl = l.ctrl.ptr(scratch);

    // Every kernel and every launch's limits before the first launch (the data is untouched
    // on any error here). Grids: the largest a level can need.
    let k_init = module.kernel("sample_init")?;
    let k_split = module.kernel("sample_splitters")?;
    let k_chunks = module.kernel("sample_chunk_scan")?;
    let k_count = module.kernel("sample_count")?;
    let k_reduce = module.kernel("sample_scan_reduce")?;
    let k_partials = module.kernel("sample_scan_partials")?;
    let k_apply = module.kernel("sample_scan_apply")?;
    let k_scatter = module.kernel("sample_scatter")?;
    let k_emit = module.kernel("sample_emit")?;
    let max_chunks = plan.max_chunks();
    let chunk_grid = |chunks: usize| -> Result<LaunchConfig> {
        Ok(LaunchConfig::linear(
            gpu.exact_grid(chunks, "a sample sort level")?,
            TILE_THREADS as u32,
        ))
    };
    let scan_grid = |chunks: usize| -> Result<LaunchConfig> {
        Ok(LaunchConfig::linear(
            gpu.exact_grid((chunks * BUCKETS).div_ceil(SCAN_TILE), "a sample sort scan")?,
            SCAN_THREADS,
        ))
    };
    let seg_cfg =
        |threads: u32| LaunchConfig::linear(gpu.grid_blocks(plan.max_segments()), threads);
    k_init.check(&LaunchConfig::linear(1, 32))?;
    k_split.check(&seg_cfg(SAMPLE_THREADS))?;
    k_chunks.check(&LaunchConfig::linear(1, CHUNK_SCAN_THREADS))?;
    k_count.check(&chunk_grid(max_chunks)?)?;
    k_scatter.check(&chunk_grid(max_chunks)?)?;
    k_reduce.check(&scan_grid(max_chunks)?)?;
    k_apply.check(&scan_grid(max_chunks)?)?;
    k_partials.check(&LaunchConfig::linear(1, PARTIALS_THREADS))?;
    k_emit.check(&seg_cfg(BUCKETS as u32))?;
    final_launch(gpu, &module, plan, plan.max_finals())?;

    let n = plan.n as u64;
    let mut args = KernelArgs::new();
    args.ptr(segs[0]).ptr(ctrl).push(n);
    // SAFETY: arguments match `sample_init(u64*, u64*, u64)`; segs[0] holds at least one
    // record of SEG_WORDS u64 and ctrl CTRL_WORDS u64; one thread writes.
    unsafe { k_init.launch(LaunchConfig::linear(1, 32), &args)? };

    let small_max = plan.small_max() as u32;
    let aim = plan.aim() as u32;
    let chunk = plan.shape.chunk();
    let mut nseg: usize = 1;
    let mut level_keys: usize = plan.n;
    for depth in 0..MAX_LEVELS {
        let d = depth as usize;
        let (src, dst) = (bufs[d % 2], bufs[(d + 1) % 2]);
        let (cur, next) = (segs[d % 2], segs[(d + 1) % 2]);
        let nseg32 = u32::try_from(nseg)
            .map_err(|_| Error::Internal(format!("{nseg} sample sort segments")))?;
        let seg_launch = |threads: u32| LaunchConfig::linear(gpu.grid_blocks(nseg), threads);

        let mut a = KernelArgs::new();
        a.push(src.0)
            .ptr(cur)
            .push(nseg32)
            .ptr(splitters)
            .push(flip)
            .push(depth)
            .push(aim)
            .push(plan.sample_depth);
        // SAFETY: arguments match `sample_splitters(const Key*, const u64*, u32, Bits*, Bits,
        // u32, u32, u32)`; cur holds nseg records whose ranges lie inside src's n keys; splitters
        // holds 128 slots (u64, enough for Bits) for each of max_segments >= nseg segments;
        // the grid strides over the segments.
        unsafe { k_split.launch(seg_launch(SAMPLE_THREADS), &a)? };

        let mut a = KernelArgs::new();
        a.ptr(cur).push(nseg32).ptr(ctrl);
        // SAFETY: arguments match `sample_chunk_scan(u64*, u32, u64*)`; cur holds nseg records;
        // ctrl CTRL_WORDS u64; one block.
        unsafe { k_chunks.launch(LaunchConfig::linear(1, CHUNK_SCAN_THREADS), &a)? };

        // Chunks of this level at most: its keys in chunks, one partial chunk per segment.
        let chunks = (level_keys / chunk + nseg).min(max_chunks);
        let mut a = KernelArgs::new();
        a.push(src.0)
            .ptr(cur)
            .push(nseg32)
            .ptr(splitters)
            .ptr(ctrl)
            .ptr(counts)
            .push(flip);
        // SAFETY: arguments match `sample_count(const Key*, const u64*, u32, const Bits*, const
        // u64*, u64*, Bits)`; the level's chunks (ctrl, written by the chunk scan before it on
        // the stream) are at most `chunks` (each segment's keys / chunk, rounded up), so
        // counts (256 per chunk, max_chunks of them) has room; blocks past the level's chunks
        // exit.
        unsafe { k_count.launch(chunk_grid(chunks)?, &a)? };

        let mut a = KernelArgs::new();
        a.ptr(counts).ptr(ctrl).ptr(partials);
        // SAFETY: arguments match `sample_scan_reduce(const u64*, const u64*, u64*)`; counts
        // holds ctrl's chunks x 256 counts; partials one u64 per SCAN_TILE of them (the
        // layout's length); blocks past the counts exit.
        unsafe { k_reduce.launch(scan_grid(chunks)?, &a)? };
        let mut a = KernelArgs::new();
        a.ptr(partials).ptr(ctrl);
        // SAFETY: arguments match `sample_scan_partials(u64*, const u64*)`; one block over the
        // partials written just before.
        unsafe { k_partials.launch(LaunchConfig::linear(1, PARTIALS_THREADS), &a)? };
        let mut a = KernelArgs::new();
        a.ptr(counts).ptr(ctrl).ptr(partials);
        // SAFETY: arguments match `sample_scan_apply(u64*, const u64*, const u64*)`; as the
        // reduce.
        unsafe { k_apply.launch(scan_grid(chunks)?, &a)? };

        let mut a = KernelArgs::new();
        a.push(src.0)
            .push(src.1)
            .push(dst.0)
            .push(dst.1)
            .ptr(cur)
            .push(nseg32)
            .ptr(splitters)
            .ptr(ctrl)
            .ptr(counts)
            .push(flip);
        // SAFETY: arguments match `sample_scatter(const Key*, const Value*, Key*, Value*, const
        // u64*, u32, const Bits*, const u64*, const u64*, Bits)`; src and dst are disjoint
        // buffers of n keys (and values, or 0); the scanned counts give every key of a
        // segment a distinct position inside the segment's own range; blocks past the
        // level's chunks exit.
        unsafe { k_scatter.launch(chunk_grid(chunks)?, &a)? };

        let home = u32::from(dst == caller);
        let mut a = KernelArgs::new();
        a.ptr(cur)
            .push(nseg32)
            .ptr(counts)
            .ptr(ctrl)
            .ptr(next)
            .ptr(finals)
            .push(small_max)
            .push(home);
        // SAFETY: arguments match `sample_emit(const u64*, u32, const u64*, u64*, u64*, u64*,
        // u32, u32)`; next segments are longer than small_max and disjoint, so at most
        // max_segments (next's length); final entries at most max_finals (finals' length);
        // next is not cur; the grid strides over the segments.
        unsafe { k_emit.launch(seg_launch(BUCKETS as u32), &a)? };

        let c = read_ctrl(scratch, &l.ctrl)?;
        let (next_segs, entries, next_keys) = (c[0] as usize, c[1] as usize, c[3] as usize);
        if next_segs > plan.max_segments() || entries > plan.max_finals() {
            return Err(Error::Internal(format!(
                "sample sort level {depth}: {next_segs} segments, {entries} final entries"
            )));
        }
        if entries > 0 {
            let (kernel, cfg, smem) = final_launch(gpu, &module, plan, entries)?;
            launch_final::<K>(
                &kernel,
                cfg,
                smem,
                plan.variant,
                dst,
                caller,
                finals.addr(),
                entries as u64,
                flip,
            )?;
        }
        if next_segs == 0 {
            return Ok(());
        }
        nseg = next_segs;
        level_keys = next_keys;
    }
    Err(Error::Internal(format!(
        "the sample sort's depth bound ({MAX_LEVELS} levels) did not hold"
    )))
}

/// The control words of the level just run (one synchronising copy of 32 bytes).
fn read_ctrl(
    scratch: &DeviceBuffer<u8>,
    ctrl: &sortlab_primitives::Region<u64>,
) -> Result<[u64; CTRL_WORDS]> {
    let mut bytes = [0u8; 8 * CTRL_WORDS];
    scratch.copy_range_to_host(ctrl.byte_range(), &mut bytes)?;
    let mut c = [0u64; CTRL_WORDS];
    for (w, b) in c.iter_mut().zip(bytes.chunks_exact(8)) {
        let mut word = [0u8; 8];
        word.copy_from_slice(b);
        *w = u64::from_le_bytes(word);
    }
    Ok(c)
}
