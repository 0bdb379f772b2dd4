//! [`MergeVariant::Fast`](super::MergeVariant::Fast): large tiles sorted by the block merge
//! sort, then per level a merge-path partition and a merge in shared memory
//! (`merge_partition` and `merge_path_pass` of `merge.cu`).
//!
//! Every launch is a programmatic dependent launch ([`LaunchConfig::dependent`]): every kernel
//! of `merge.cu` begins with `sortlab::dependent_entry()`, so a launch's blocks are scheduled
//! while the previous kernel's last blocks finish.

use sortlab_primitives::{Error, Gpu, KernelArgs, LaunchConfig, Result, SortKey};

use super::plan::{Plan, BLOCKS_PER_SM, PARTITION_THREADS};
use super::tiles::{self, Addrs};

/// Sorts `plan` (n >= 2) in place; `at.scratch` holds the plan's layout when it has levels.
pub(crate) fn sort<K: SortKey>(gpu: &Gpu, plan: &Plan, flip: K::Bits, at: &Addrs) -> Result<()> {
    plan.shape.validate()?;
    let module = tiles::module::<K>(gpu, plan)?;
    let (tile_kernel, tile_cfg) = tiles::tile_launch(gpu, &module, plan, true)?;
    let caller = at.caller();
    if plan.levels == 0 {
        return tiles::sort_tiles::<K>(&tile_kernel, tile_cfg, plan, caller, caller, flip);
    }
    let (Some(layout), Some(scratch)) = (plan.layout(), at.scratch) else {
        return Err(Error::InvalidArgument(
            "the merge sort needs a scratch buffer".to_string(),
        ));
    };
    let splits = layout.splits.ptr(scratch);
    let blocks = plan.merge_blocks();
    let partition = module.kernel("merge_partition")?;
    let part_cfg = LaunchConfig::linear(
        gpu.grid_stride_blocks(blocks, PARTITION_THREADS, BLOCKS_PER_SM),
        PARTITION_THREADS,
    )
    .dependent();
    partition.check(&part_cfg)?;
    let merge = module.kernel("merge_path_pass")?;
    let smem = plan
        .shape
        .merge_shared_bytes(plan.key_size, plan.value_size) as u32;
    let merge_cfg = LaunchConfig::linear(
        gpu.exact_grid(blocks, "a merge level")?,
        plan.shape.merge_threads,
    )
    .with_shared(smem)
    .dependent();
    merge.check(&merge_cfg)?;

    let spare = at.spare(plan);
    let first = if plan.tiles_in_place() { caller } else { spare };
    tiles::sort_tiles::<K>(&tile_kernel, tile_cfg, plan, caller, first, flip)?;
    let n = plan.n as u64;
    for level in 0..plan.levels {
        let (src, dst) = if plan.level_reads_caller(level) {
            (caller, spare)
        } else {
            (spare, caller)
        };
        let width_log2 = plan.width_log2(level);
        let mut args = KernelArgs::new();
        args.push(src.keys)
            .push(n)
            .push(width_log2)
            .push(blocks as u64)
            .ptr(splits)
            .push(flip);
        // SAFETY: arguments match `merge_partition(const Key*, u64, u32, u64, u64*, Bits)`;
        // src holds n keys in sorted runs of 2^width_log2; splits is a scratch region of `blocks`
        // u64; the grid strides over the blocks.
        unsafe { partition.launch(part_cfg, &args)? };
        let mut args = KernelArgs::new();
        args.push(src.keys)
            .push(src.values)
            .push(dst.keys)
            .push(dst.values)
            .push(n)
            .push(width_log2)
            .ptr(splits)
            .push(flip)
            .push(smem);
        // SAFETY: arguments match `merge_path_pass(const Key*, const Value*, Key*, Value*, u64,
        // u32, const u64*, Bits, u32)`; src and dst are disjoint buffers of n keys (and values,
        // or 0 for keys only); the splits were written by the partition launch before it on
        // the stream; one block per merge tile of outputs, each inside one pair of runs (the
        // merge tile divides the sort tile, checked by `validate`); the dynamic shared memory
        // is the shape's MERGE_SMEM_BYTES (asserted at compile time, checked in the kernel).
        unsafe { merge.launch(merge_cfg, &args)? };
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use sortlab_primitives::kernels::kernels_without_dependent_entry;

    /// The fast sort's launches are dependent, so every kernel of `merge.cu` must wait on its
    /// predecessor first.
    #[test]
    fn every_kernel_waits_on_its_predecessor() {
        let src = super::tiles::MERGE_SOURCE;
        assert_eq!(
            kernels_without_dependent_entry(src.code),
            Vec::<String>::new(),
            "{}",
            src.name
        );
    }
}
