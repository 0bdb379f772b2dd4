//! One stable merge of two adjacent sorted runs of any lengths, with the fast variant's blocks
//! (`merge_pair_partition` and `merge_pair_pass` of `merge.cu`, whose block body `merge_tile`
//! is `merge_path_pass`'s): for callers whose runs are not the power-of-two levels of the merge
//! sort (the multi-GPU sort's received runs).

use std::marker::PhantomData;

use sortlab_primitives::{
    DeviceBuffer, Error, Gpu, Kernel, KernelArgs, LaunchConfig, Result, SortKey, SortValue,
};

use super::plan::{Shape, BLOCKS_PER_SM, PARTITION_THREADS};
use super::tiles;
use super::variant::MergeVariant;

/// The kernels, launch shapes and splits buffer of pair merges of keys `K` (values of one
/// width, or none), for pairs of up to a given length.
pub(crate) struct PairMerge<K: SortKey> {
    gpu: Gpu,
    partition: Kernel,
    merge: Kernel,
    shape: Shape,
    /// Bytes per value (0: keys only).
    value_size: usize,
    /// One u64 split per merge tile of the longest pair.
    splits: DeviceBuffer<u64>,
    key: PhantomData<K>,
}

impl<K: SortKey> PairMerge<K> {
    /// The merge module of the fast shape for keys `K` and values of `value` bytes (`None`:
    /// keys only), compiled or from the cache, and splits for pairs of up to `max_len` keys.
    pub fn new(gpu: &Gpu, value: Option<usize>, max_len: usize) -> Result<Self> {
        let value_size = value.unwrap_or(0);
        let shape = Shape::of(MergeVariant::Fast, K::SIZE, value_size);
        shape.validate()?;
        let module = tiles::shape_module::<K>(gpu, shape, value)?;
        Ok(PairMerge {
            gpu: gpu.clone(),
            partition: module.kernel("merge_pair_partition")?,
            merge: module.kernel("merge_pair_pass")?,
            shape,
            value_size,
            splits: DeviceBuffer::alloc(gpu, max_len.div_ceil(shape.merge_tile()).max(1))?,
            key: PhantomData,
        })
    }

    /// Merges runs [start, start + a) and [start + a, start + a + b) of `src` (keys, and values
    /// when the merge has them) into the same positions of `dst`, stably (ties from the left
    /// run); b = 0 copies the left run. Both launches are dependent (every kernel of
    /// `merge.cu` waits on its predecessor first).
    pub fn merge<V: SortValue>(
        &mut self,
        src: (&DeviceBuffer<K>, Option<&DeviceBuffer<V>>),
        dst: (&mut DeviceBuffer<K>, Option<&mut DeviceBuffer<V>>),
        start: usize,
        a: usize,
        b: usize,
        flip: K::Bits,
    ) -> Result<()> {
        let (src_keys, src_values) = src;
        let (dst_keys, dst_values) = dst;
        let total = a.saturating_add(b);
        let end = start.saturating_add(total);
        let blocks = total.div_ceil(self.shape.merge_tile());
        let values_ok = match (&src_values, &dst_values) {
            (None, None) => self.value_size == 0,
            (Some(s), Some(d)) => self.value_size == V::SIZE && s.len() >= end && d.len() >= end,
            _ => false,
        };
        if end > src_keys.len() || end > dst_keys.len() || !values_ok {
            return Err(Error::Internal(format!(
                "pair merge of runs {a} + {b} from {start} between buffers of {} and {} keys \
                 (values: {} bytes, merge for {})",
                src_keys.len(),
                dst_keys.len(),
                if src_values.is_some() { V::SIZE } else { 0 },
                self.value_size
            )));
        }
        if blocks > self.splits.len() {
            return Err(Error::Internal(format!(
                "pair merge of {total} keys past its splits ({} tiles)",
                self.splits.len()
            )));
        }
        if total == 0 {
            return Ok(());
        }
        let part_cfg = LaunchConfig::linear(
            self.gpu
                .grid_stride_blocks(blocks, PARTITION_THREADS, BLOCKS_PER_SM),
            PARTITION_THREADS,
        )
        .dependent();
        self.partition.check(&part_cfg)?;
        let smem = self.shape.merge_shared_bytes(K::SIZE, self.value_size) as u32;
        let merge_cfg = LaunchConfig::linear(
            self.gpu.exact_grid(blocks, "a pair merge")?,
            self.shape.merge_threads,
        )
        .with_shared(smem)
        .dependent();
        self.merge.check(&merge_cfg)?;

        let mut args = KernelArgs::new();
        args.ptr(src_keys.ptr())
            .push(start as u64)
            .push(a as u64)
            .push(b as u64)
            .push(blocks as u64)
            .ptr(self.splits.ptr())
            .push(flip);
        // SAFETY: arguments match `merge_pair_partition(const Key*, u64, u64, u64, u64, u64*,
        // Bits)`; start + a + b <= src_keys.len() (checked above); splits holds at least
        // `blocks` words (checked above); the grid strides over the blocks.
        unsafe { self.partition.launch(part_cfg, &args)? };
        let mut args = KernelArgs::new();
        args.ptr(src_keys.ptr())
            .push(src_values.map_or(0, |v| v.ptr().addr()))
            .ptr(dst_keys.ptr())
            .push(dst_values.map_or(0, |v| v.ptr().addr()))
            .push(start as u64)
            .push(a as u64)
            .push(b as u64)
            .ptr(self.splits.ptr())
            .push(flip)
            .push(smem);
        // SAFETY: arguments match `merge_pair_pass(const Key*, const Value*, Key*, Value*, u64,
        // u64, u64, const u64*, Bits, u32)`; src and dst are distinct buffers (a shared and a
        // mutable borrow) holding start + a + b keys, and values exactly when the module has
        // them (checked above; 0 for keys only, never touched then); the splits were written
        // by the partition launch before it on the stream; one block per merge tile of the
        // pair's outputs; the dynamic shared memory is the shape's MERGE_SMEM_BYTES (asserted
        // at compile time, checked in the kernel).
        unsafe { self.merge.launch(merge_cfg, &args) }
    }
}
