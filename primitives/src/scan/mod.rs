//! Scans of a device key array: inclusive and exclusive, sum / max / min, forward or in reverse.
//!
//! # Overview
//! [`scan`] reads one [`DeviceBuffer`] of keys and writes another of the same length;
//! [`scan_in_place`] overwrites its buffer. The kernel is chosen by [`ScanVariant`]: the
//! classic scans of GPU Gems 3 chapter 39 (Hillis-Steele in one warp, Hillis-Steele with two
//! buffers in one block, Blelloch's work-efficient scan in one block, and the hierarchical scan
//! of any length), kept for comparison, and [`ScanVariant::Fast`], the default: one pass with
//! decoupled look-back. The warp- and block-level scans are shared headers
//! (`sortlab/warp/warp_scan.cuh`, `sortlab/block/block_scan.cuh`) for the sort kernels.
//!
//! A [`Direction::Reverse`] scan maps index `i` to `n - 1 - i` on load and store, so a suffix
//! scan costs the same as a prefix scan; a reverse inclusive [`ScanOp::Min`] scan is the suffix
//! minimum.
//!
//! # Key types
//! `u32`, `i32`, `f32`, `u64`, `i64`, `f64`. [`ScanOp::Sum`] adds in the key's own type,
//! wrapping for integers. [`ScanOp::Max`] and [`ScanOp::Min`] use the total order of
//! [`SortKey::total_cmp`] on ordered bits, so every output is one of the input keys, bit for
//! bit. Exclusive scans start from `0` (`+0.0`), [`SortKey::LOWEST`] or [`SortKey::HIGHEST`].
//!
//! # Limits, empty input, rounding
//! [`ScanVariant::max_len`]: 32 keys for [`ScanVariant::Naive`], 1024 for
//! [`ScanVariant::DoubleBuffered`], 2048 for [`ScanVariant::WorkEfficient`]; longer input is
//! [`Error::InvalidArgument`], never a wrong answer. A scan of no keys writes nothing. The input
//! is never modified. Float sums round in a variant-specific tree order; element `i` is within
//! `i * eps * sum(|x_0..x_i|)` of the exact prefix sum.
//!
//! # Scratch memory
//! A scan needs a little temporary device memory (partials, tile status words): about one
//! word per tile of a few thousand keys. The plain functions take it from the device's
//! stream-ordered memory pool; [`scan_with_scratch`] and [`scan_in_place_with_scratch`] take it from the caller,
//! who sizes it with [`scratch_bytes`] and may reuse it across calls (its contents need not be
//! initialised). A buffer that is too small is [`Error::InvalidArgument`], naming the size
//! needed, and nothing runs.
//!
//! # Performance
//! [`ScanVariant::Fast`] runs at 0.84 of the device-to-device copy rate of the same bytes and
//! at 1.03 to 1.07 times CUB's `DeviceScan` (H100, u32, 2^24 and 2^28 keys): the table, the
//! device and the command are in `primitives/README.md`. `sortlab bench primitives` measures it.
//!
//! # Example
//! ```no_run
//! use sortlab_primitives::scan::{scan, Direction, ScanKind, ScanOp, ScanVariant};
//! use sortlab_primitives::{DeviceBuffer, Gpu};
//! let gpu = Gpu::new(0)?;
//! let keys = DeviceBuffer::from_host(&gpu, &[3u32, 1, 2])?;
//! let mut out = DeviceBuffer::alloc(&gpu, 3)?;
//! scan(&gpu, &keys, &mut out, ScanOp::Sum, ScanKind::Exclusive, Direction::Forward,
//!      ScanVariant::Fast)?;
//! assert_eq!(out.to_host()?, vec![0, 3, 4]);
//! scan(&gpu, &keys, &mut out, ScanOp::Min, ScanKind::Inclusive, Direction::Reverse,
//!      ScanVariant::default())?;
//! assert_eq!(out.to_host()?, vec![1, 1, 2]);
//! # Ok::<(), sortlab_primitives::Error>(())
//! ```

mod op;
mod policy;
mod variant;

pub use op::{Direction, ScanKind, ScanOp};
pub use policy::ScanPolicy;
pub use variant::ScanVariant;

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::key::SortKey;
use crate::runtime::{
    Defines, DeviceBuffer, DevicePtr, Gpu, KernelArgs, KernelSource, LaunchConfig, Module, Policy,
    Region, Scratch, ScratchLayout,
};

/// The scan kernels (`scan.cu`).
pub const SOURCE: KernelSource = KernelSource::new("scan.cu", include_str!("scan.cu"));

/// The defines of the module that runs `op` with `variant` on keys `K` under `policy`:
/// `KEY_T`, `SCAN_OP`, `SCAN_VARIANT` and the policy's. Kind and direction are kernel
/// arguments.
pub fn module_defines<K: SortKey>(
    op: ScanOp,
    variant: ScanVariant,
    policy: &ScanPolicy,
) -> Defines {
    policy
        .defines()
        .key::<K>()
        .set("SCAN_OP", op.index())
        .set("SCAN_VARIANT", variant.index())
}

/// Blocks per multiprocessor of the grid-stride add-back kernel of the hierarchical scan.
const ADD_PREFIX_BLOCKS_PER_SM: usize = 8;

/// Scans `input` into `output` (same length) with `op`, `kind` and `dir`, on the device.
///
/// Temporary memory ([`scratch_bytes`]) comes from the device's pool; [`scan_with_scratch`]
/// takes it from the caller.
///
/// Errors: [`Error::InvalidArgument`] when the lengths differ or the input is longer than
/// `variant.max_len()`; the input is never modified, and nothing is written on error.
pub fn scan<K: SortKey>(
    gpu: &Gpu,
    input: &DeviceBuffer<K>,
    output: &mut DeviceBuffer<K>,
    op: ScanOp,
    kind: ScanKind,
    dir: Direction,
    variant: ScanVariant,
) -> Result<()> {
    scan_impl(gpu, input, output, op, kind, dir, variant, None)
}

/// [`scan`] with caller-supplied temporary memory: `scratch` must hold at least
/// [`scratch_bytes`]`::<K>(input.len(), variant)` bytes (any contents; the call may
/// overwrite all of them), else [`Error::InvalidArgument`] naming the size needed.
#[allow(clippy::too_many_arguments)]
pub fn scan_with_scratch<K: SortKey>(
    gpu: &Gpu,
    input: &DeviceBuffer<K>,
    output: &mut DeviceBuffer<K>,
    op: ScanOp,
    kind: ScanKind,
    dir: Direction,
    variant: ScanVariant,
    scratch: &mut DeviceBuffer<u8>,
) -> Result<()> {
    scan_impl(gpu, input, output, op, kind, dir, variant, Some(scratch))
}

#[allow(clippy::too_many_arguments)]
fn scan_impl<K: SortKey>(
    gpu: &Gpu,
    input: &DeviceBuffer<K>,
    output: &mut DeviceBuffer<K>,
    op: ScanOp,
    kind: ScanKind,
    dir: Direction,
    variant: ScanVariant,
    scratch: Option<&mut DeviceBuffer<u8>>,
) -> Result<()> {
    same_len(input, output)?;
    run(
        gpu,
        input.ptr(),
        output.ptr(),
        input.len(),
        op,
        kind,
        dir,
        variant,
        scratch,
        None,
    )
}

/// [`scan`] with [`ScanVariant::Fast`] under a chosen launch policy instead of the device's
/// default ([`ScanPolicy::for_variant`]): for tuning and for research on tile shapes. Temporary
/// memory comes from the device's pool.
///
/// # Errors
/// As [`scan`]; a policy the kernel rejects (threads not a multiple of 32 up to 1024, no items,
/// a tile over the static shared-memory limit) fails to compile and returns the NVRTC error.
#[allow(clippy::too_many_arguments)]
pub fn scan_with_policy<K: SortKey>(
    gpu: &Gpu,
    input: &DeviceBuffer<K>,
    output: &mut DeviceBuffer<K>,
    op: ScanOp,
    kind: ScanKind,
    dir: Direction,
    policy: &ScanPolicy,
) -> Result<()> {
    same_len(input, output)?;
    if policy.block_threads == 0 || policy.items_per_thread == 0 {
        return Err(Error::InvalidArgument(format!(
            "scan policy with {} threads of {} keys",
            policy.block_threads, policy.items_per_thread
        )));
    }
    run(
        gpu,
        input.ptr(),
        output.ptr(),
        input.len(),
        op,
        kind,
        dir,
        ScanVariant::Fast,
        None,
        Some(policy),
    )
}

/// [`scan`] over `data` in place: every variant reads each key before any thread writes it.
pub fn scan_in_place<K: SortKey>(
    gpu: &Gpu,
    data: &mut DeviceBuffer<K>,
    op: ScanOp,
    kind: ScanKind,
    dir: Direction,
    variant: ScanVariant,
) -> Result<()> {
    run(
        gpu,
        data.ptr(),
        data.ptr(),
        data.len(),
        op,
        kind,
        dir,
        variant,
        None,
        None,
    )
}

/// [`scan_in_place`] with caller-supplied temporary memory of at least
/// [`scratch_bytes`]`::<K>(data.len(), variant)` bytes (see [`scan_with_scratch`]).
pub fn scan_in_place_with_scratch<K: SortKey>(
    gpu: &Gpu,
    data: &mut DeviceBuffer<K>,
    op: ScanOp,
    kind: ScanKind,
    dir: Direction,
    variant: ScanVariant,
    scratch: &mut DeviceBuffer<u8>,
) -> Result<()> {
    run(
        gpu,
        data.ptr(),
        data.ptr(),
        data.len(),
        op,
        kind,
        dir,
        variant,
        Some(scratch),
        None,
    )
}

/// Bytes of temporary device memory a scan of `n` keys `K` with `variant` needs (on any device):
/// what [`scan_with_scratch`] and [`scan_in_place_with_scratch`] require of their scratch
/// buffer (the same for every operation, kind and direction; 0 for no keys and for the
/// one-warp and one-block variants). The allocating functions take the same amount from the
/// device's memory pool.
pub fn scratch_bytes<K: SortKey>(n: usize, variant: ScanVariant) -> usize {
    let policy = ScanPolicy::for_variant(variant, K::SIZE);
    // A size past usize (never, for keys that fit in memory) asks for what no buffer holds.
    Plan::new::<K>(&policy, variant, n)
        .layout
        .bytes()
        .unwrap_or(usize::MAX)
}

/// Where one scan keeps its temporaries.
struct Plan {
    layout: ScratchLayout,
    /// Hierarchical and work-efficient: the tile totals of each level that has more than one
    /// tile (level 0 scans the keys, level i + 1 the totals of level i), as (tiles, offset).
    levels: Vec<(usize, Region<u8>)>,
    /// Fast: the tile count, the status words (tiles + 1, zeroed per call) and the 8-byte
    /// keys' values (2 per tile).
    tiles: usize,
    status: Region<u64>,
    values: Region<u8>,
}

impl Plan {
    fn new<K: SortKey>(policy: &ScanPolicy, variant: ScanVariant, n: usize) -> Self {
        let mut plan = Plan {
            layout: ScratchLayout::new(),
            levels: Vec::new(),
            tiles: 0,
            status: Region::default(),
            values: Region::default(),
        };
        if n == 0 || variant.max_len().is_some_and(|max| n > max) {
            return plan;
        }
        match variant {
            ScanVariant::Naive | ScanVariant::DoubleBuffered => {}
            ScanVariant::WorkEfficient | ScanVariant::Hierarchical => {
                let tile = 2 * policy.block_threads as usize;
                let mut m = n;
                loop {
                    let tiles = m.div_ceil(tile);
                    if tiles <= 1 {
                        break;
                    }
                    let offset = plan.layout.region::<u8>(tiles * K::SIZE);
                    plan.levels.push((tiles, offset));
                    m = tiles;
                }
            }
            ScanVariant::Fast => {
                plan.tiles = n.div_ceil(policy.tile_items());
                plan.status = plan.layout.region::<u64>(plan.tiles + 1);
                let values = if K::SIZE == 8 { 2 * plan.tiles } else { 0 };
                plan.values = plan.layout.region::<u8>(values * K::SIZE);
            }
        }
        plan
    }
}

#[allow(clippy::too_many_arguments)]
fn run<K: SortKey>(
    gpu: &Gpu,
    input: DevicePtr<K>,
    output: DevicePtr<K>,
    n: usize,
    op: ScanOp,
    kind: ScanKind,
    dir: Direction,
    variant: ScanVariant,
    scratch: Option<&mut DeviceBuffer<u8>>,
    policy: Option<&ScanPolicy>,
) -> Result<()> {
    if let Some(max) = variant.max_len() {
        if n > max {
            return Err(Error::InvalidArgument(format!(
                "{} scan handles at most {max} elements ({}); got {n} (use ScanVariant::Hierarchical \
                 or ScanVariant::Fast for any length)",
                variant_title(variant),
                variant.limit_reason()
            )));
        }
    }
    let policy = policy
        .copied()
        .unwrap_or_else(|| ScanPolicy::for_variant(variant, K::SIZE));
    let plan = Plan::new::<K>(&policy, variant, n);
    let scratch = Scratch::get(gpu, scratch, plan.layout.bytes()?, "this scan")?;
    if n == 0 {
        return Ok(());
    }
    let module = gpu.module(&SOURCE, &module_defines::<K>(op, variant, &policy))?;
    let mut launch = Launcher {
        gpu,
        module,
        policy,
        exclusive: kind.is_exclusive() as u32,
        reverse: dir.is_reverse() as u32,
        plan,
        scratch,
    };
    match variant {
        ScanVariant::Naive => launch.single_block("scan_naive", input, output, n),
        ScanVariant::DoubleBuffered => {
            launch.single_block("scan_double_buffered", input, output, n)
        }
        ScanVariant::WorkEfficient | ScanVariant::Hierarchical => {
            launch.hierarchical(input, output, n)
        }
        ScanVariant::Fast => launch.fast(input, output, n),
    }
}

/// An output of the input's length, else [`Error::InvalidArgument`].
fn same_len<K: SortKey>(input: &DeviceBuffer<K>, output: &DeviceBuffer<K>) -> Result<()> {
    if input.len() != output.len() {
        return Err(Error::InvalidArgument(format!(
            "scan of {} keys into an output of {}",
            input.len(),
            output.len()
        )));
    }
    Ok(())
}

fn variant_title(v: ScanVariant) -> &'static str {
    match v {
        ScanVariant::Naive => "Naive",
        ScanVariant::DoubleBuffered => "DoubleBuffered",
        ScanVariant::WorkEfficient => "WorkEfficient",
        ScanVariant::Hierarchical => "Hierarchical",
        ScanVariant::Fast => "Fast",
    }
}

/// One scan's module, policy, flags and temporaries.
struct Launcher<'a> {
    gpu: &'a Gpu,
    module: Arc<Module>,
    policy: ScanPolicy,
    exclusive: u32,
    reverse: u32,
    plan: Plan,
    scratch: Scratch<'a>,
}

impl Launcher<'_> {
    fn config(&self, blocks: usize) -> LaunchConfig {
        LaunchConfig::linear(self.gpu.grid_blocks(blocks), self.policy.block_threads)
    }

    /// Naive and double-buffered: one block (n is within the variant's limit).
    fn single_block<K: SortKey>(
        &self,
        name: &str,
        input: DevicePtr<K>,
        output: DevicePtr<K>,
        n: usize,
    ) -> Result<()> {
        let kernel = self.module.kernel(name)?;
        let mut args = KernelArgs::new();
        args.ptr(input)
            .ptr(output)
            .push(n as u64)
            .push(self.exclusive)
            .push(self.reverse);
        // SAFETY: arguments match `scan_naive` / `scan_double_buffered(const KEY_T*, KEY_T*, u64,
        // u32, u32)`; both pointers hold n keys (n <= the block size, checked by the caller), the
        // kernel reads and writes indices < n only, and reads every key before writing any.
        unsafe { kernel.launch(self.config(1), &args) }
    }

    /// The tile totals of level `depth` (when that level has more than one tile).
    fn level<K: SortKey>(&self, depth: usize) -> Option<(usize, DevicePtr<K::Bits>)> {
        self.plan
            .levels
            .get(depth)
            .map(|&(tiles, region)| (tiles, self.scratch.ptr(region).cast()))
    }

    /// Work-efficient (one tile) and hierarchical (any length): Blelloch scans of tiles, the
    /// tile totals scanned recursively and added back.
    fn hierarchical<K: SortKey>(
        &self,
        input: DevicePtr<K>,
        output: DevicePtr<K>,
        n: usize,
    ) -> Result<()> {
        let tile = 2 * self.policy.block_threads as usize;
        let tiles = n.div_ceil(tile);
        let sums = self.level::<K>(0);
        let kernel = self.module.kernel("scan_tiles_keys")?;
        let mut args = KernelArgs::new();
        args.ptr(input).ptr(output).push(n as u64);
        match sums {
            Some((_, p)) => args.ptr(p),
            None => args.push(0u64), // null: no tile totals
        };
        args.push(self.exclusive).push(self.reverse);
        // SAFETY: arguments match `scan_tiles_keys(const KEY_T*, KEY_T*, u64, Work*, u32, u32)`;
        // input and output hold n keys, `sums` (a scratch region) holds one Work
        // (K::Bits-sized) per tile or is null for one tile; a block reads its whole tile before
        // writing it.
        unsafe { kernel.launch(self.config(tiles), &args)? };
        let Some((sum_count, sums)) = sums else {
            return Ok(());
        };
        self.scan_partials::<K>(sums, sum_count, 1)?;
        let add = self.module.kernel("add_prefix_keys")?;
        let mut args = KernelArgs::new();
        args.ptr(output).push(n as u64).ptr(sums).push(self.reverse);
        // SAFETY: arguments match `add_prefix_keys(KEY_T*, u64, const Work*, u32)`; output holds
        // n keys and `sums` one Work per tile; the kernel touches indices < n.
        unsafe { add.launch(self.config(self.add_blocks(n - tile)), &args) }
    }

    /// Exclusive forward scan of `m` tile totals in place; level `depth` holds their own tile
    /// totals.
    fn scan_partials<K: SortKey>(
        &self,
        data: DevicePtr<K::Bits>,
        m: usize,
        depth: usize,
    ) -> Result<()> {
        let tile = 2 * self.policy.block_threads as usize;
        let tiles = m.div_ceil(tile);
        let sums = self.level::<K>(depth);
        let kernel = self.module.kernel("scan_tiles_partials")?;
        let mut args = KernelArgs::new();
        args.ptr(data).push(m as u64);
        match sums {
            Some((_, p)) => args.ptr(p),
            None => args.push(0u64),
        };
        // SAFETY: arguments match `scan_tiles_partials(Work*, u64, Work*)`; `data` holds m
        // Works and `sums` (a scratch region disjoint from `data`) one per tile, or is null
        // for one tile.
        unsafe { kernel.launch(self.config(tiles), &args)? };
        let Some((sum_count, sums)) = sums else {
            return Ok(());
        };
        self.scan_partials::<K>(sums, sum_count, depth + 1)?;
        let add = self.module.kernel("add_prefix_partials")?;
        let mut args = KernelArgs::new();
        args.ptr(data).push(m as u64).ptr(sums);
        // SAFETY: arguments match `add_prefix_partials(Work*, u64, const Work*)`; sizes as
        // above.
        unsafe { add.launch(self.config(self.add_blocks(m - tile)), &args) }
    }

    fn add_blocks(&self, elements: usize) -> usize {
        let resident = self.gpu.info().multiprocessors as usize * ADD_PREFIX_BLOCKS_PER_SM;
        elements
            .div_ceil(self.policy.block_threads as usize)
            .min(resident)
    }

    /// Fast: single pass with decoupled look-back.
    fn fast<K: SortKey>(
        &mut self,
        input: DevicePtr<K>,
        output: DevicePtr<K>,
        n: usize,
    ) -> Result<()> {
        let tiles = self.plan.tiles;
        if tiles >= u32::MAX as usize {
            return Err(Error::Unsupported(format!(
                "a fast scan of {n} keys needs {tiles} tiles, more than the 32-bit tile counter holds"
            )));
        }
        // Word 0: the tile counter; then one status word per tile; all zero (invalid).
        self.scratch
            .buffer_mut()
            .fill_bytes_range(self.plan.status.byte_range(), 0)?;
        // 8-byte keys: aggregates, then inclusive prefixes, one each per tile (4-byte keys pack
        // them into the status words).
        let status: DevicePtr<u64> = self.scratch.ptr(self.plan.status);
        let values: DevicePtr<K::Bits> = self.scratch.ptr(self.plan.values).cast();
        let kernel = self.module.kernel("scan_fast")?;
        let mut args = KernelArgs::new();
        args.ptr(input)
            .ptr(output)
            .push(n as u64)
            .push(self.exclusive)
            .push(self.reverse)
            .ptr(status)
            .ptr(values)
            .push(tiles as u32);
        // SAFETY: arguments match `scan_fast(const KEY_T*, KEY_T*, u64, u32, u32, u64*, Work*,
        // u32)`; input and output hold n keys, `status` tiles + 1 words zeroed just before on
        // the stream, `values` 2 * tiles Works for 8-byte keys (unused otherwise), both scratch
        // regions; tiles are claimed through the counter, so no block waits on a block that
        // has not started; a block reads its whole tile before writing it.
        unsafe { kernel.launch(self.config(tiles), &args) }
    }
}
