//! The launches of both variants: the module of `quick.cu`, the small-input sort, and the
//! rounds (planned by the device; sized by the host from copied-back counts in the notes'
//! variant, from n's upper bounds in the fast one).

use std::sync::Arc;

use sortlab_primitives::{
    DeviceBuffer, Error, Gpu, Kernel, KernelArgs, KernelSource, LaunchConfig, Module, Result,
    SortKey,
};

use super::plan::{
    Layout, Plan, CHUNK_BLOCKS_PER_SM, COUNTER_CHUNKS, COUNTER_OVERFLOW, COUNTER_TASKS,
    COUNTER_WORDS, FINISH_BLOCKS_PER_SM, PLAN_THREADS, SEQ_WORDS, TASK_WORDS,
};
use super::variant::QuickVariant;

/// The quicksort kernels: the one-block sort, the planner, the two partition passes, the
/// finishing pass.
pub const QUICK_SOURCE: KernelSource = KernelSource::new("quick.cu", include_str!("quick.cu"));

/// The buffers of a sort: the caller's keys and values (device addresses; values 0 for keys
/// only) and the scratch buffer (`None` for a small input).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Addrs<'a> {
    pub keys: u64,
    pub values: u64,
    pub scratch: Option<&'a DeviceBuffer<u8>>,
}

/// The compiled `quick.cu` for keys `K` under `plan`'s shape.
fn module<K: SortKey>(gpu: &Gpu, plan: &Plan) -> Result<Arc<Module>> {
    let value = (plan.value_size > 0).then_some(plan.value_size);
    let shape = plan.shape;
    gpu.module_keyed(&QUICK_SOURCE, (K::NAME, value, shape), || {
        shape.module_defines::<K>(value)
    })
}

/// The kernels of a sort with their checked launches (grids of the fast variant; the notes'
/// variant replaces the partition and finishing grids by exact ones each round).
struct Launches {
    plan: (Kernel, LaunchConfig),
    count: (Kernel, LaunchConfig),
    write: (Kernel, LaunchConfig),
    finish: (Kernel, LaunchConfig),
}

/// `cfg` marked dependent when `dependent`.
fn dep(cfg: LaunchConfig, dependent: bool) -> LaunchConfig {
    if dependent {
        cfg.dependent()
    } else {
        cfg
    }
}

/// Sorts `plan` (n >= 2) in place; `at.scratch` holds the plan's layout unless it is small.
pub(crate) fn sort<K: SortKey>(gpu: &Gpu, plan: &Plan, flip: K::Bits, at: &Addrs) -> Result<()> {
    let module = module::<K>(gpu, plan)?;
    let shape = plan.shape;
    let tile_smem = shape.tile_shared_bytes(plan.key_size, plan.value_size) as u32;
    let fast = plan.variant == QuickVariant::Fast;
    if plan.small() {
        let kernel = module.kernel("quick_sort_small")?;
        let cfg = dep(
            LaunchConfig::linear(1, shape.tile_threads).with_shared(tile_smem),
            fast,
        );
        kernel.check(&cfg)?;
        let mut args = KernelArgs::new();
        args.push(at.keys)
            .push(at.values)
            .push(plan.n as u64)
            .push(flip)
            .push(tile_smem);
        // SAFETY: arguments match `quick_sort_small(Key*, Value*, u64, Bits, u32)`; keys (and
        // values, 0 for keys only, never touched then) hold n <= tile elements (small plan);
        // one block reads them all before writing; the dynamic shared memory is the shape's
        // TILE_SMEM_BYTES (asserted at compile time, checked in the kernel).
        return unsafe { kernel.launch(cfg, &args) };
    }
    let (Some(layout), Some(scratch)) = (plan.layout(), at.scratch) else {
        return Err(Error::InvalidArgument(
            "the quicksort needs a scratch buffer".to_string(),
        ));
    };
    let chunk_smem = shape.chunk_shared_bytes(plan.key_size, plan.value_size) as u32;
    let l = Launches {
        plan: (
            module.kernel("quick_plan")?,
            dep(LaunchConfig::linear(1, PLAN_THREADS), fast),
        ),
        count: (
            module.kernel("quick_count")?,
            dep(
                LaunchConfig::linear(
                    gpu.grid_stride_blocks(
                        plan.cap_chunks.saturating_mul(shape.chunk_threads as usize),
                        shape.chunk_threads,
                        CHUNK_BLOCKS_PER_SM,
                    ),
                    shape.chunk_threads,
                ),
                fast,
            ),
        ),
        write: (
            module.kernel("quick_write")?,
            dep(
                LaunchConfig::linear(
                    gpu.grid_stride_blocks(
                        plan.cap_chunks.saturating_mul(shape.chunk_threads as usize),
                        shape.chunk_threads,
                        CHUNK_BLOCKS_PER_SM,
                    ),
                    shape.chunk_threads,
                )
                .with_shared(chunk_smem),
                fast,
            ),
        ),
        finish: (
            module.kernel("quick_finish")?,
            dep(
                LaunchConfig::linear(
                    gpu.grid_stride_blocks(
                        plan.cap_tasks.saturating_mul(shape.tile_threads as usize),
                        shape.tile_threads,
                        FINISH_BLOCKS_PER_SM,
                    ),
                    shape.tile_threads,
                )
                .with_shared(tile_smem),
                fast,
            ),
        ),
    };
    for (k, c) in [&l.plan, &l.count, &l.write, &l.finish] {
        k.check(c)?;
    }
    let b = Bufs::new(plan, &layout, scratch, at);
    if fast {
        for round in 0..plan.rounds {
            launch_plan::<K>(plan, &l.plan, &b, round, false, flip)?;
            launch_round::<K>(plan, &l, l.count.1, l.write.1, &b, round, flip, chunk_smem)?;
        }
        launch_plan::<K>(plan, &l.plan, &b, plan.rounds, true, flip)?;
        return launch_finish::<K>(&l.finish.0, l.finish.1, &b, flip, tile_smem);
    }
    // The notes' variant: every round's sizes come back to the host. Its exact grids are at
    // most the capacities: checked now, before anything is written.
    gpu.exact_grid(plan.cap_chunks, "a quicksort round")?;
    gpu.exact_grid(plan.cap_tasks, "the quicksort's finishing pass")?;
    let mut round = 0;
    let mut last = true;
    while round < plan.rounds {
        launch_plan::<K>(plan, &l.plan, &b, round, false, flip)?;
        let c = read_counters(scratch, &layout)?;
        let (seqs, chunks) = (c[(round & 1) as usize], c[COUNTER_CHUNKS]);
        if seqs == 0 {
            last = false;
            break;
        }
        let grid = gpu.exact_grid(chunks as usize, "a quicksort round")?;
        let count_cfg = LaunchConfig {
            grid: (grid, 1, 1),
            ..l.count.1
        };
        let write_cfg = LaunchConfig {
            grid: (grid, 1, 1),
            ..l.write.1
        };
        l.count.0.check(&count_cfg)?;
        l.write.0.check(&write_cfg)?;
        launch_round::<K>(plan, &l, count_cfg, write_cfg, &b, round, flip, chunk_smem)?;
        round += 1;
    }
    if last {
        launch_plan::<K>(plan, &l.plan, &b, round, true, flip)?;
    }
    let c = read_counters(scratch, &layout)?;
    if c[COUNTER_OVERFLOW] != 0 {
        return Err(Error::InvalidArgument(
            "quicksort: a device list overflowed its bound (a bug)".to_string(),
        ));
    }
    let tasks = c[COUNTER_TASKS] as usize;
    if tasks == 0 {
        return Ok(());
    }
    let cfg = LaunchConfig {
        grid: (
            gpu.exact_grid(tasks, "the quicksort's finishing pass")?,
            1,
            1,
        ),
        ..l.finish.1
    };
    l.finish.0.check(&cfg)?;
    launch_finish::<K>(&l.finish.0, cfg, &b, flip, tile_smem)
}

/// The device addresses of a sort's buffers and scratch regions.
struct Bufs {
    keys: [u64; 2],
    values: [u64; 2],
    lists: u64,
    offsets: u64,
    tasks: u64,
    counters: u64,
}

impl Bufs {
    fn new(plan: &Plan, layout: &Layout, scratch: &DeviceBuffer<u8>, at: &Addrs) -> Bufs {
        let values1 = if plan.value_size > 0 {
            layout.values.ptr(scratch).addr()
        } else {
            0
        };
        Bufs {
            keys: [at.keys, layout.keys.ptr(scratch).addr()],
            values: [at.values, values1],
            lists: layout.lists.ptr(scratch).addr(),
            offsets: layout.offsets.ptr(scratch).addr(),
            tasks: layout.tasks.ptr(scratch).addr(),
            counters: layout.counters.ptr(scratch).addr(),
        }
    }
}

/// The counter words, copied to the host (the notes' variant's round trip: a copy and a
/// synchronisation).
fn read_counters(scratch: &DeviceBuffer<u8>, layout: &Layout) -> Result<[u64; COUNTER_WORDS]> {
    let mut bytes = [0u8; COUNTER_WORDS * 8];
    scratch.copy_range_to_host(layout.counters.byte_range(), &mut bytes)?;
    let mut words = [0u64; COUNTER_WORDS];
    for (w, b) in words.iter_mut().zip(bytes.chunks_exact(8)) {
        let mut le = [0u8; 8];
        le.copy_from_slice(b);
        *w = u64::from_le_bytes(le);
    }
    Ok(words)
}

fn launch_plan<K: SortKey>(
    plan: &Plan,
    (kernel, cfg): &(Kernel, LaunchConfig),
    b: &Bufs,
    round: u32,
    last: bool,
    flip: K::Bits,
) -> Result<()> {
    let mut args = KernelArgs::new();
    args.push(b.lists)
        .push(plan.cap_seqs as u64)
        .push(b.counters)
        .push(b.tasks)
        .push(plan.cap_tasks as u64)
        .push(b.keys[0])
        .push(b.keys[1])
        .push(plan.n as u64)
        .push(round)
        .push(last as u32)
        .push(flip);
    // SAFETY: arguments match `quick_plan(Seq*, u64, u64*, Task*, u64, const Key*, const Key*,
    // u64, u32, u32, Bits)`; lists holds 2 * cap_seqs records of SEQ_WORDS u64, tasks cap_tasks
    // records of TASK_WORDS u64, counters COUNTER_WORDS u64 (scratch regions of the plan's
    // layout); both key buffers hold n keys; every append checks its capacity (raising the
    // overflow flag instead of writing past it); the sample positions lie inside each sequence.
    const _: () = assert!(SEQ_WORDS == 7 && TASK_WORDS == 3);
    unsafe { kernel.launch(*cfg, &args) }
}

#[allow(clippy::too_many_arguments)]
fn launch_round<K: SortKey>(
    plan: &Plan,
    l: &Launches,
    count_cfg: LaunchConfig,
    write_cfg: LaunchConfig,
    b: &Bufs,
    round: u32,
    flip: K::Bits,
    chunk_smem: u32,
) -> Result<()> {
    let src = (round & 1) as usize;
    let dst = src ^ 1;
    let list = b.lists + (src * plan.cap_seqs * SEQ_WORDS * 8) as u64;
    let list_count = b.counters + 8 * src as u64;
    let mut args = KernelArgs::new();
    args.push(b.keys[src])
        .push(list)
        .push(list_count)
        .push(b.counters)
        .push(b.offsets)
        .push(flip);
    // SAFETY: arguments match `quick_count(const Key*, Seq*, const u64*, const u64*, u64*,
    // Bits)`; the list (this round's, planned by quick_plan just before on the stream) covers
    // disjoint ranges of the n keys of the source buffer; its chunk total is at most
    // cap_chunks, the length of offsets / 3; the grid strides over the chunks.
    unsafe { l.count.0.launch(count_cfg, &args)? };
    let mut args = KernelArgs::new();
    args.push(b.keys[src])
        .push(b.values[src])
        .push(b.keys[dst])
        .push(b.values[dst])
        .push(list)
        .push(list_count)
        .push(b.counters)
        .push(b.offsets)
        .push(flip)
        .push(chunk_smem);
    // SAFETY: arguments match `quick_write(const Key*, const Value*, Key*, Value*, const Seq*,
    // const u64*, const u64*, const u64*, Bits, u32)`; source and destination are the two
    // disjoint buffers of n keys (values: 0 for keys only, never touched then); every chunk
    // writes inside its own sequence's range at offsets reserved by quick_count, so no two
    // chunks write one position; the dynamic shared memory is CHUNK_SMEM_BYTES (checked in
    // the kernel).
    unsafe { l.write.0.launch(write_cfg, &args) }
}

fn launch_finish<K: SortKey>(
    kernel: &Kernel,
    cfg: LaunchConfig,
    b: &Bufs,
    flip: K::Bits,
    tile_smem: u32,
) -> Result<()> {
    let mut args = KernelArgs::new();
    args.push(b.keys[0])
        .push(b.values[0])
        .push(b.keys[1])
        .push(b.values[1])
        .push(b.tasks)
        .push(b.counters)
        .push(flip)
        .push(tile_smem);
    // SAFETY: arguments match `quick_finish(Key*, Value*, Key*, Value*, const Task*, const
    // u64*, Bits, u32)`; the tasks (written by quick_plan before on the stream) are disjoint
    // ranges of the n positions, so blocks never share a position; a task longer than a tile
    // uses both buffers' range of its own positions only; the dynamic shared memory is
    // TILE_SMEM_BYTES (asserted at compile time, checked in the kernel).
    unsafe { kernel.launch(cfg, &args) }
}
