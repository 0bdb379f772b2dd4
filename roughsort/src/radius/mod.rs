//! The radius of a device key array, and whether it is `k`-sorted.
//!
//! # Overview
//! The radius of `a` is the smallest `k` such that `a[i]` precedes-or-equals `a[j]` for all
//! `i < j - k` (see `sortlab_cpu_reference::rough` for the definitions and the CPU twins). It
//! is `max_i (i - j_i)`, where `j_i` is the first `j` with `LR[j] > RL[i]` (`LR` the prefix
//! maxima, `RL` the suffix minima): `j_i` is the rank of `RL[i]` in `LR`, so all of them come
//! from one merge of the two non-decreasing sequences. [`radius`] fuses this into one read of
//! the keys when no inversion spans more than a tile (4096 keys):
//!
//! 1. `radius_halo`: each block takes a group of consecutive tiles (about four waves of blocks,
//!    at most 16 tiles a block) and first reads the tile before its group. For each tile in turn
//!    it scans the maxima and minima with warp shuffles, keeps `LR` of this tile and the previous
//!    one in shared memory (from the group's start), and searches `j_i` only for the positions
//!    that can realise the radius: strict suffix minima of the tile below an earlier key (in
//!    k-sorted data a few per disturbed block), by a galloping search back from `i`. The suffix
//!    minima within the tile change single `d_i` but never their maximum (see `radius.cu`), so
//!    no suffix scan over the array is needed, and no block waits for another. It writes each
//!    tile's largest and smallest key; `far_check` (after sortlab-primitives' [`scan`] of the
//!    largest) then checks that no key lies above a key two or more tiles on: the result is exact
//!    then, always so when the radius is at most 4096. Otherwise it bounds the radius from
//!    below by the longest such pair of tiles.
//! 2. Only if that check fails and the bound is at most the wide tile (16,384 4-byte keys or
//!    8192 8-byte keys, [`crate::RadiusPolicy::wide_for_key`]): step 1 again with the wide tiles,
//!    one more read, exact when it passes its check (always so for radii up to the wide tile).
//! 3. Only if that fails too: the chunk extremes of every 256 keys
//!    (`chunk_extremes`) and their scans (sortlab-primitives' [`scan`]), then `LR` and `RL` of
//!    the whole array are written (`materialize`) and merged tile by tile in global memory
//!    (`merge_partition`, `merge_radius`): five more passes, any radius.
//!
//! [`is_k_sorted`] runs step 1 for `k` up to a tile, step 2 alone up to the wide tile, and
//! beyond compares every `a[j]` with `LR[j - k - 1]` (one pass for the tile maxima, one that
//! reads at most three tiles per tile).
//!
//! # Key types
//! `u32`, `i32`, `f32`, `u64`, `i64`, `f64` in IEEE total order (as [`f32::total_cmp`]),
//! ascending or descending: kernels compare order-adjusted ordered bits.
//!
//! # Performance
//! Measured figures are in the crate's `README.md`. Every call downloads one or two words
//! (the result), which synchronises the stream.

use std::sync::Arc;

use sortlab_primitives::scan::{scan, scan_in_place, Direction, ScanKind, ScanOp, ScanVariant};
use sortlab_primitives::{
    Defines, DeviceBuffer, Gpu, KernelArgs, KernelSource, KeyBits, LaunchConfig, Module, Order,
    Policy, SortKey,
};

use crate::error::Result;
use crate::policy::{padded, RadiusPolicy};

/// The radius kernels (`radius.cu`).
pub const SOURCE: KernelSource = KernelSource::new("radius.cu", include_str!("radius.cu"));

/// The defines of the radius module for keys `K` under `policy`: `KEY_T`, `KEY_BITS_T` and the
/// policy's.
pub fn module_defines<K: SortKey>(policy: &RadiusPolicy) -> Defines {
    policy.defines().key::<K>()
}

/// One radius computation's module, policy and sizes.
struct Ctx<'a> {
    gpu: &'a Gpu,
    module: Arc<Module>,
    threads: u32,
    min_blocks: u32,
    tile: usize,
    n: usize,
    tiles: usize,
    chunks: usize,
    /// The order's flip word ([`Order::flip`]) in a kernel argument's slot.
    flip: u64,
    order: Order,
}

impl<'a> Ctx<'a> {
    fn new<K: SortKey>(gpu: &'a Gpu, n: usize, order: Order) -> Result<Self> {
        Self::with_policy::<K>(gpu, n, order, RadiusPolicy::for_key(K::SIZE))
    }

    fn with_policy<K: SortKey>(
        gpu: &'a Gpu,
        n: usize,
        order: Order,
        policy: RadiusPolicy,
    ) -> Result<Self> {
        let module = gpu.module_keyed(&SOURCE, (std::any::TypeId::of::<K>(), policy), || {
            module_defines::<K>(&policy)
        })?;
        let tile = policy.tile();
        Ok(Ctx {
            gpu,
            module,
            threads: policy.block_threads,
            min_blocks: policy.min_blocks,
            tile,
            n,
            tiles: n.div_ceil(tile),
            chunks: n.div_ceil(policy.chunk()),
            flip: order.flip::<K::Bits>().to_u64(),
            order,
        })
    }

    /// One block per tile, with `words` padded key words of dynamic shared memory.
    fn per_tile<K: SortKey>(&self, words: usize) -> Result<LaunchConfig> {
        let blocks = self.gpu.exact_grid(self.tiles, "a radius kernel")?;
        Ok(LaunchConfig::linear(blocks, self.threads).with_shared((words * K::SIZE) as u32))
    }

    /// The largest and smallest key of every chunk, in `order`.
    fn chunk_extremes<K: SortKey>(
        &self,
        keys: &DeviceBuffer<K>,
    ) -> Result<(DeviceBuffer<K>, DeviceBuffer<K>)> {
        let hi = DeviceBuffer::<K>::alloc(self.gpu, self.chunks)?;
        let lo = DeviceBuffer::<K>::alloc(self.gpu, self.chunks)?;
        let kernel = self.module.kernel("chunk_extremes")?;
        let mut args = KernelArgs::new();
        args.ptr(keys.ptr())
            .push(self.n as u64)
            .push(self.flip)
            .ptr(hi.ptr())
            .ptr(lo.ptr());
        let warps = self.threads as usize / 32;
        let blocks = self
            .gpu
            .exact_grid(self.chunks.div_ceil(warps), "chunk_extremes")?;
        // SAFETY: arguments match `chunk_extremes(const KEY_T*, u64, Bits, KEY_T*, KEY_T*)`
        // (`flip` fills the low bytes of its slot); keys holds n keys, 16-byte aligned (a
        // DeviceBuffer's start), and the kernel reads indices < n (vector loads only for whole
        // chunks); hi and lo hold one key per chunk, and warp c writes index c < chunks only.
        unsafe { kernel.launch(LaunchConfig::linear(blocks, self.threads), &args)? };
        Ok((hi, lo))
    }

    /// The scan ops that are "max" and "min" in `order`.
    fn ops(&self) -> (ScanOp, ScanOp) {
        match self.order {
            Order::Ascending => (ScanOp::Max, ScanOp::Min),
            Order::Descending => (ScanOp::Min, ScanOp::Max),
        }
    }

    /// The exclusive prefix maxima (in `order`) of the chunk maxima `hi`.
    fn prefix_max<K: SortKey>(&self, hi: &DeviceBuffer<K>) -> Result<DeviceBuffer<K>> {
        let mut pm = DeviceBuffer::<K>::alloc(self.gpu, self.chunks)?;
        let (kind, fast) = (ScanKind::Exclusive, ScanVariant::Fast);
        scan(
            self.gpu,
            hi,
            &mut pm,
            self.ops().0,
            kind,
            Direction::Forward,
            fast,
        )?;
        Ok(pm)
    }
}

/// The radius of the device keys `keys` in `order`: the smallest `k` such that they are
/// `k`-sorted (0 for sorted keys, at most `n - 1`).
///
/// # Overview
/// See the [module documentation](self): one pass in which each block merges `LR` of a group
/// of tiles (from the tile before the group) with each tile's suffix minima in shared memory, a
/// check over the tiles' extremes, and five more passes only when some inversion spans more than
/// a tile. Equals
/// `sortlab_cpu_reference::rough::radius`.
///
/// # Key types
/// `u32`, `i32`, `f32`, `u64`, `i64`, `f64` in IEEE total order, either order.
///
/// # Errors
/// [`Error::Gpu`](crate::Error::Gpu) for runtime failures (out of device memory: the far case
/// needs `2n` words of scratch). The keys are never modified.
///
/// # Performance
/// One read of the keys (and of one tile in 16 more) when no inversion spans more than a tile;
/// otherwise one more read with wider tiles, or five more passes. NVIDIA H100, 2^28 `u32` keys,
/// k = 16 to 4096: 0.46 to 0.48 ms, against 0.36 ms for one read at the copy rate (more in the
/// crate's `README.md`).
///
/// # Example
/// ```no_run
/// use sortlab_primitives::{DeviceBuffer, Gpu, Order};
/// let gpu = Gpu::new(0)?;
/// let keys = DeviceBuffer::from_host(&gpu, &[1u32, 5, 3, 4, 2, 6])?;
/// assert_eq!(sortlab_roughsort::radius(&gpu, &keys, Order::Ascending)?, 3);
/// # Ok::<(), sortlab_roughsort::Error>(())
/// ```
pub fn radius<K: SortKey>(gpu: &Gpu, keys: &DeviceBuffer<K>, order: Order) -> Result<usize> {
    let n = keys.len();
    if n < 2 {
        return Ok(0);
    }
    let ctx = Ctx::new::<K>(gpu, n, order)?;
    match halo_radius(&ctx, keys, None)? {
        Found::Exact(r) | Found::Past { lower: r } => Ok(r),
    }
}

/// What [`radius_up_to`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Found {
    /// The radius.
    Exact(usize),
    /// The radius may exceed the limit (a pass found an inversion whose bounds reach past it,
    /// [`past_limit`]) and is at least `lower` (which may itself be at most the limit).
    Past {
        /// A lower bound on the radius.
        lower: usize,
    },
}

/// The radius of `keys` as [`radius`], or [`Found::Past`] as soon as a pass shows that the
/// radius may exceed `limit` (the rough sort then takes a full sort, for which the exact radius
/// is not needed): the wide pass and the far path run only when the radius is certainly at
/// most `limit` (or, when the wide pass fails, they do not run at all).
pub(crate) fn radius_up_to<K: SortKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    order: Order,
    limit: usize,
) -> Result<Found> {
    let n = keys.len();
    if n < 2 {
        return Ok(Found::Exact(0));
    }
    let ctx = Ctx::new::<K>(gpu, n, order)?;
    halo_radius(&ctx, keys, Some(limit))
}

/// Whether a pass that found an inversion longer than its tile (radius between `lower` and
/// `upper`) leaves the radius possibly above `limit`: the caller then stops and takes a full
/// sort. Where the bounds straddle the limit the full sort is taken too: the rough sort's cost
/// is a step function of `k.next_power_of_two()`, so near the crossover the two cost about the
/// same, while another pass of the radius costs more than that difference (README.md, "the
/// crossover").
pub(crate) fn past_limit((_lower, upper): (usize, usize), limit: usize) -> bool {
    upper > limit
}

/// The radius by `radius_halo` and `far_check`, again with the wide tiles when some inversion
/// spans more than a tile, or by the far path when that fails too.
///
/// The wide pass is skipped when the first pass's bound on the radius exceeds the wide tile:
/// some inversion is then longer than a wide tile, and one that long almost always spans two
/// wide tiles too (the wide pass would fail: H100, 2^28 u32, k = 32768, the radius 3.66 ms
/// against 4.23 with the wide pass tried first). Either way the radius is exact.
///
/// With a `limit`, stops with [`Found::Past`] as soon as a pass's bounds leave the radius
/// possibly above it ([`past_limit`]).
fn halo_radius<K: SortKey>(
    ctx: &Ctx<'_>,
    keys: &DeviceBuffer<K>,
    limit: Option<usize>,
) -> Result<Found> {
    let past = |bounds: (usize, usize)| limit.is_some_and(|l| past_limit(bounds, l));
    let (lower, upper) = match halo_pass(ctx, keys)? {
        Halo::Exact(r) => return Ok(Found::Exact(r)),
        Halo::Beyond { lower, upper } => (lower, upper),
    };
    if past((lower, upper)) {
        return Ok(Found::Past { lower });
    }
    let wide = RadiusPolicy::wide_for_key(K::SIZE);
    if wide.tile() > ctx.tile && lower <= wide.tile() {
        let wide_ctx = Ctx::with_policy::<K>(ctx.gpu, ctx.n, ctx.order, wide)?;
        match halo_pass(&wide_ctx, keys)? {
            Halo::Exact(r) => return Ok(Found::Exact(r)),
            Halo::Beyond { lower, upper } if past((lower, upper)) => {
                return Ok(Found::Past { lower });
            }
            Halo::Beyond { .. } => {}
        }
    }
    let (hi, lo) = ctx.chunk_extremes(keys)?;
    let pm = ctx.prefix_max(&hi)?;
    let mut sm = lo;
    let (kind, fast) = (ScanKind::Exclusive, ScanVariant::Fast);
    scan_in_place(
        ctx.gpu,
        &mut sm,
        ctx.ops().1,
        kind,
        Direction::Reverse,
        fast,
    )?;
    Ok(Found::Exact(far_radius(ctx, keys, &pm, &sm)?))
}

/// What one pass of `radius_halo` and `far_check` found.
enum Halo {
    /// The radius.
    Exact(usize),
    /// Some inversion spans more than a tile: the radius is above the tile, between `lower`
    /// and `upper` (`far_check`'s bounds, [`halo_bounds`]); it needs a pass with larger tiles or
    /// the far path.
    Beyond {
        /// A lower bound on the radius.
        lower: usize,
        /// An upper bound on the radius.
        upper: usize,
    },
}

/// The bounds on the radius when `far_check` raised `gaps` (at least 1) over tiles of `tile`
/// keys: `[gaps * tile + 1, (gaps + 2) * tile - 1]`.
///
/// Lower: `far_check` found a key of tile `x - 1` above the smallest key of tile `t`, with
/// `t - x = gaps`, at least `gaps * tile + 1` places apart. Upper: let `(i, j)` be an inversion
/// of the radius's length, in tiles `ti < tj`. If `tj - ti <= 1`, `j - i < 2 * tile`. Otherwise
/// the thread of tile `tj` looks for the first tile boundary `x` with a key before it above
/// tile `tj`'s smallest key, which `a[i] > a[j]` puts at `x <= ti + 1`; its gap `tj - x` is at
/// least `tj - ti - 1`, and `gaps`, the largest gap, is at least that, so
/// `j - i <= (tj - ti + 1) * tile - 1 <= (gaps + 2) * tile - 1`.
pub(crate) fn halo_bounds(gaps: usize, tile: usize) -> (usize, usize) {
    (
        gaps.saturating_mul(tile).saturating_add(1),
        gaps.saturating_add(2).saturating_mul(tile) - 1,
    )
}

impl Halo {
    /// Whether the keys are `k`-sorted, for `k` at most the pass's tile (an inversion beyond
    /// the tile is longer than `k`).
    fn within(&self, k: usize) -> bool {
        matches!(*self, Halo::Exact(r) if r <= k)
    }
}

/// The radius by `radius_halo` and `far_check` (one read of the keys), or a bound on it when
/// some inversion spans more than a tile.
fn halo_pass<K: SortKey>(ctx: &Ctx<'_>, keys: &DeviceBuffer<K>) -> Result<Halo> {
    let (gpu, n, tiles) = (ctx.gpu, ctx.n, ctx.tiles);
    let result = DeviceBuffer::<u64>::zeroed(gpu, 2)?;
    let tile_hi = DeviceBuffer::<K>::alloc(gpu, tiles)?;
    let tile_lo = DeviceBuffer::<K>::alloc(gpu, tiles)?;
    let kernel = ctx.module.kernel("radius_halo")?;
    let resident = gpu.info().multiprocessors as usize * ctx.min_blocks as usize;
    // About four waves of blocks, at most 16 tiles a block (measured: README.md).
    let group = (tiles / (4 * resident)).clamp(1, 16);
    let blocks = gpu.exact_grid(tiles.div_ceil(group), "radius_halo")?;
    let mut args = KernelArgs::new();
    args.ptr(keys.ptr())
        .push(n as u64)
        .push(ctx.flip)
        .ptr(result.ptr())
        .ptr(tile_hi.ptr())
        .ptr(tile_lo.ptr())
        .push(tiles as u32)
        .push(group as u32);
    // SAFETY: arguments match `radius_halo(const KEY_T*, u64, Bits, u64*, KEY_T*, KEY_T*, u32,
    // u32)` (`flip` fills the low bytes of its slot); keys holds n keys, 16-byte aligned (a
    // DeviceBuffer's start), and block b reads tiles b * group - 1 to (b + 1) * group - 1, at
    // most tile `tiles - 1`, within [0, n) (vector loads only for whole runs of
    // ITEMS_PER_THREAD); result is two words; tile_hi and tile_lo hold a key per tile and block b
    // writes only its own tiles' (indices < tiles); blocks * group >= tiles; the dynamic shared
    // memory is the kernel's PADDED(2 * TILE) key words.
    let shared = (padded(2 * ctx.tile, K::SIZE) * K::SIZE) as u32;
    unsafe {
        kernel.launch(
            LaunchConfig::linear(blocks, ctx.threads).with_shared(shared),
            &args,
        )?
    };
    if tiles > 2 {
        let mut pm = DeviceBuffer::<K>::alloc(gpu, tiles)?;
        let (kind, fast) = (ScanKind::Exclusive, ScanVariant::Fast);
        scan(
            gpu,
            &tile_hi,
            &mut pm,
            ctx.ops().0,
            kind,
            Direction::Forward,
            fast,
        )?;
        let (far, _) = result.ptr_range(1..2)?;
        let check = ctx.module.kernel("far_check")?;
        let mut args = KernelArgs::new();
        args.ptr(pm.ptr())
            .ptr(tile_lo.ptr())
            .push(tiles as u64)
            .push(ctx.flip)
            .ptr(far);
        let blocks = gpu.exact_grid((tiles - 2).div_ceil(ctx.threads as usize), "far_check")?;
        // SAFETY: arguments match `far_check(const KEY_T*, const KEY_T*, u64, Bits, u64*)`; pm
        // and tile_lo hold a key per tile, read at indices < tiles; far is one word.
        unsafe { check.launch(LaunchConfig::linear(blocks, ctx.threads), &args)? };
    }
    let mut r = [0u64; 2];
    result.copy_range_to_host(0..2, &mut r)?;
    Ok(match r[1] {
        0 => Halo::Exact(r[0] as usize),
        gaps => {
            let (lower, upper) = halo_bounds(gaps as usize, ctx.tile);
            Halo::Beyond { lower, upper }
        }
    })
}

/// The radius by a global merge of `LR` and `RL` (some inversion spans more than a tile).
fn far_radius<K: SortKey>(
    ctx: &Ctx<'_>,
    keys: &DeviceBuffer<K>,
    pm: &DeviceBuffer<K>,
    sm: &DeviceBuffer<K>,
) -> Result<usize> {
    let (gpu, n, tile) = (ctx.gpu, ctx.n, ctx.tile);
    let lr = DeviceBuffer::<K::Bits>::alloc(gpu, n)?;
    let rl = DeviceBuffer::<K::Bits>::alloc(gpu, n)?;
    let kernel = ctx.module.kernel("materialize")?;
    let mut args = KernelArgs::new();
    args.ptr(keys.ptr())
        .push(n as u64)
        .push(ctx.flip)
        .ptr(pm.ptr())
        .ptr(sm.ptr())
        .ptr(lr.ptr())
        .ptr(rl.ptr());
    // SAFETY: arguments match `materialize(const KEY_T*, u64, Bits, const KEY_T*, const
    // KEY_T*, Bits*, Bits*)`; keys, lr and rl hold n elements, pm and sm one key per chunk;
    // block t touches [t * TILE, min((t + 1) * TILE, n)) only; shared memory 2 * PADDED(TILE).
    unsafe { kernel.launch(ctx.per_tile::<K>(2 * padded(tile, K::SIZE))?, &args)? };

    let merge_tiles = (2 * n).div_ceil(tile);
    let splits = DeviceBuffer::<u64>::alloc(gpu, merge_tiles + 1)?;
    let partition = ctx.module.kernel("merge_partition")?;
    let mut args = KernelArgs::new();
    args.ptr(lr.ptr())
        .ptr(rl.ptr())
        .push(n as u64)
        .push(merge_tiles as u64)
        .ptr(splits.ptr());
    let blocks = gpu.exact_grid(
        (merge_tiles + 1).div_ceil(ctx.threads as usize),
        "merge_partition",
    )?;
    // SAFETY: arguments match `merge_partition(const Bits*, const Bits*, u64, u64, u64*)`; lr
    // and rl hold n words, read at indices < n; splits holds merge_tiles + 1 words and thread b
    // writes index b <= merge_tiles only.
    unsafe { partition.launch(LaunchConfig::linear(blocks, ctx.threads), &args)? };

    let result = DeviceBuffer::<u64>::zeroed(gpu, 1)?;
    let merge = ctx.module.kernel("merge_radius")?;
    let mut args = KernelArgs::new();
    args.ptr(lr.ptr())
        .ptr(rl.ptr())
        .push(n as u64)
        .ptr(splits.ptr())
        .ptr(result.ptr());
    let blocks = gpu.exact_grid(merge_tiles, "merge_radius")?;
    let shared = (2 * padded(tile, K::SIZE) * K::SIZE) as u32;
    // SAFETY: arguments match `merge_radius(const Bits*, const Bits*, u64, const u64*, u64*)`;
    // block b reads splits[b], splits[b + 1] (b < merge_tiles) and the lr / rl ranges they
    // delimit (within n), and at most TILE of each into its 2 * PADDED(TILE) shared words.
    unsafe {
        merge.launch(
            LaunchConfig::linear(blocks, ctx.threads).with_shared(shared),
            &args,
        )?
    };
    Ok(result.to_host()?[0] as usize)
}

/// Whether the device keys `keys` are `k`-sorted in `order`: `a[i]` precedes-or-equals `a[j]`
/// for all `i < j - k` (their radius is at most `k`; 0-sorted is sorted).
///
/// # Overview
/// For `k` up to a radius tile (4096 keys), the first stage of [`radius`] (one read of the
/// keys): its radius when no inversion spans more than a tile (then compared with `k`), else
/// the radius exceeds the tile and the keys are not `k`-sorted. The same with the wide pass's
/// tiles for `k` up to 16,384 (4-byte keys; 8192 for 8-byte keys). For larger `k`: the largest
/// key of each chunk of 256 and their exclusive prefix maxima (one read and a scan), then every
/// `a[j]` against `LR[j - k - 1]`, rebuilt in shared memory from the tile it falls in.
/// Equals `sortlab_cpu_reference::rough::is_k_sorted`.
///
/// # Key types
/// `u32`, `i32`, `f32`, `u64`, `i64`, `f64` in IEEE total order, either order.
///
/// # Errors
/// [`Error::Gpu`](crate::Error::Gpu) for runtime failures. The keys are never modified.
///
/// # Example
/// ```no_run
/// use sortlab_primitives::{DeviceBuffer, Gpu, Order};
/// let gpu = Gpu::new(0)?;
/// let keys = DeviceBuffer::from_host(&gpu, &[2u32, 1, 4, 3])?;
/// assert!(sortlab_roughsort::is_k_sorted(&gpu, &keys, 1, Order::Ascending)?);
/// assert!(!sortlab_roughsort::is_k_sorted(&gpu, &keys, 0, Order::Ascending)?);
/// # Ok::<(), sortlab_roughsort::Error>(())
/// ```
pub fn is_k_sorted<K: SortKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    k: usize,
    order: Order,
) -> Result<bool> {
    let n = keys.len();
    // A pair i < j - k needs j - i >= k + 1, and j - i <= n - 1.
    if n < 2 || k >= n - 1 {
        return Ok(true);
    }
    let ctx = Ctx::new::<K>(gpu, n, order)?;
    if k <= ctx.tile {
        // No far flag: the radius is exact. A far flag: some inversion spans more than a tile.
        return Ok(halo_pass(&ctx, keys)?.within(k));
    }
    let wide = RadiusPolicy::wide_for_key(K::SIZE);
    if k <= wide.tile() {
        // The same with the wide tiles: one read instead of the check's two.
        let wide_ctx = Ctx::with_policy::<K>(gpu, n, order, wide)?;
        return Ok(halo_pass(&wide_ctx, keys)?.within(k));
    }
    let (mut pm, _) = ctx.chunk_extremes(keys)?;
    let (kind, fast) = (ScanKind::Exclusive, ScanVariant::Fast);
    scan_in_place(gpu, &mut pm, ctx.ops().0, kind, Direction::Forward, fast)?;
    let flag = DeviceBuffer::<u32>::zeroed(gpu, 1)?;
    let kernel = ctx.module.kernel("k_sorted_check")?;
    let mut args = KernelArgs::new();
    args.ptr(keys.ptr())
        .push(n as u64)
        .push(ctx.flip)
        .push(k as u64)
        .ptr(pm.ptr())
        .ptr(flag.ptr());
    // SAFETY: arguments match `k_sorted_check(const KEY_T*, u64, Bits, u64, const KEY_T*,
    // u32*)`; keys holds n keys, read at indices < n; pm one key per chunk; flag one word; the
    // kernel loads at most 2 * TILE keys into its PADDED(2 * TILE) shared words.
    unsafe { kernel.launch(ctx.per_tile::<K>(padded(2 * ctx.tile, K::SIZE))?, &args)? };
    Ok(flag.to_host()?[0] == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn far_check_bounds() {
        assert_eq!(halo_bounds(1, 4096), (4097, 12_287));
        assert_eq!(halo_bounds(2, 4096), (8193, 16_383));
        assert_eq!(halo_bounds(3, 4096), (12_289, 20_479));
        assert_eq!(halo_bounds(1, 16_384), (16_385, 49_151));
        assert_eq!(halo_bounds(usize::MAX / 2, 4096).0, usize::MAX);
        // Every inversion of a given length, as far_check would see it: the length's bounds
        // hold whatever the alignment of its ends in the tiles.
        let tile = 64;
        for len in tile + 1..8 * tile {
            for i in 0..tile {
                let (ti, tj) = (i / tile, (i + len) / tile);
                if tj < ti + 2 {
                    continue; // no far flag from this pair alone
                }
                // The first boundary with this key before it is ti + 1 (keys before i are
                // sorted below it): gap tj - ti - 1.
                let (lower, upper) = halo_bounds(tj - ti - 1, tile);
                assert!(lower <= len && len <= upper, "len {len} i {i}");
            }
        }
    }

    #[test]
    fn stop_where_the_bounds_reach_past_the_limit() {
        // 4-byte keys alone (limit 16,384, tiles of 4096): gaps 1 and 2 run the wide pass,
        // gaps 3 (up to 20,479) and more stop.
        let limit = crate::sort::FULL_SORT_PAST_K_KEYS_4B;
        assert!(!past_limit(halo_bounds(1, 4096), limit));
        assert!(!past_limit(halo_bounds(2, 4096), limit));
        assert!(past_limit(halo_bounds(3, 4096), limit));
        assert!(past_limit(halo_bounds(17, 4096), limit));
        // Pairs and 8-byte keys (limit 4096 = the tile): any far flag stops.
        for limit in [
            crate::sort::FULL_SORT_PAST_K_PAIRS,
            crate::sort::FULL_SORT_PAST_K_KEYS_8B,
        ] {
            assert!(past_limit(halo_bounds(1, 4096), limit));
        }
    }
}
