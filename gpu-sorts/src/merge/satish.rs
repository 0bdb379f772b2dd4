//! [`MergeVariant::Satish`](super::MergeVariant::Satish): tiles sorted in shared memory, then
//! one rank-merge launch per level (`merge_rank_pass` of `merge.cu`).

use sortlab_primitives::{Gpu, KernelArgs, LaunchConfig, Result, SortKey};

use super::plan::{Plan, BLOCKS_PER_SM, RANK_THREADS};
use super::tiles::{self, Addrs};

/// Sorts `plan` (n >= 2) in place; `at.scratch` holds the plan's layout when it has levels.
pub(crate) fn sort<K: SortKey>(gpu: &Gpu, plan: &Plan, flip: K::Bits, at: &Addrs) -> Result<()> {
    let module = tiles::module::<K>(gpu, plan)?;
    let (tile_kernel, tile_cfg) = tiles::tile_launch(gpu, &module, plan, false)?;
    let rank = module.kernel("merge_rank_pass")?;
    let rank_cfg = LaunchConfig::linear(
        gpu.grid_stride_blocks(plan.n, RANK_THREADS, BLOCKS_PER_SM),
        RANK_THREADS,
    );
    rank.check(&rank_cfg)?;
    let (caller, spare) = (at.caller(), at.spare(plan));
    let first = if plan.tiles_in_place() { caller } else { spare };
    tiles::sort_tiles::<K>(&tile_kernel, tile_cfg, plan, caller, first, flip)?;
    for level in 0..plan.levels {
        let (src, dst) = if plan.level_reads_caller(level) {
            (caller, spare)
        } else {
            (spare, caller)
        };
        let mut args = KernelArgs::new();
        args.push(src.keys)
            .push(src.values)
            .push(dst.keys)
            .push(dst.values)
            .push(plan.n as u64)
            .push(plan.width_log2(level))
            .push(flip);
        // SAFETY: arguments match `merge_rank_pass(const Key*, const Value*, Key*, Value*, u64,
        // u32, Bits)`; src and dst are disjoint buffers of n keys (and values, or 0 for keys
        // only); src holds sorted runs of 2^width_log2 (the tile sort or the previous level), so
        // every key gets a distinct position < n; the grid strides over the keys.
        unsafe { rank.launch(rank_cfg, &args)? };
    }
    Ok(())
}
