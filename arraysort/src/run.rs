//! The launchers of the three variants, on buffers and a scratch already checked.

use sortlab_gpu_sorts::radix::{self, RadixOptions};
use sortlab_primitives::{
    DeviceBuffer, Error, Gpu, Kernel, KernelArgs, LaunchConfig, Order, Result, Scratch, SortKey,
    SortValue,
};

use crate::kernels::Kernels;
use crate::layout::{FastLayout, PaperLayout, Shape};
use crate::policy::SizeClass;
use crate::segments::Segments;

/// Resident blocks per multiprocessor the grid-stride kernels are sized for.
pub(crate) const BLOCKS_PER_SM: u32 = 8;

/// The device buffers of one call (addresses; values 0 for keys only).
pub(crate) struct Bufs<'a> {
    pub gpu: &'a Gpu,
    pub keys: u64,
    pub values: u64,
    pub segments: Segments<'a>,
    pub shape: Shape,
}

/// The fast sort: classify (offsets only), then one launch per class.
pub(crate) fn fast<K: SortKey>(
    b: &Bufs,
    k: &Kernels,
    order: Order,
    scratch: &mut Scratch,
    classes: &[SizeClass],
    layout: &FastLayout,
) -> Result<()> {
    let s = &b.shape;
    let p = &k.policy;
    // Look every kernel up before the first launch (a missing one leaves the data untouched).
    let class_kernels = classes
        .iter()
        .map(|c| {
            c.kernels()
                .iter()
                .map(|name| k.module.kernel(name))
                .collect::<Result<Vec<_>>>()
        })
        .collect::<Result<Vec<_>>>()?;
    let listed = s.fixed.is_none();
    // The class counters open `layout.words`.
    let (counts, lists) = (
        scratch.ptr(layout.words).addr(),
        scratch.ptr(layout.lists).addr(),
    );
    let zero = k.module.kernel("zero_words")?;
    let zero_words = |addr: u64, words: usize| -> Result<()> {
        let mut args = KernelArgs::new();
        args.push(addr).push(words as u32);
        // SAFETY: `zero_words(u64*, u32)`: the region at addr holds `words` (at most 32) words,
        // written by the first `words` threads of the one block of 32.
        unsafe { zero.launch(LaunchConfig::linear(1, 32), &args) }
    };
    // The class counters and the large class's plan, in one launch.
    if !layout.words.is_empty() {
        zero_words(counts, layout.words.len())?;
    }
    if listed {
        let classify = k.module.kernel("classify")?;
        let mut args = KernelArgs::new();
        args.push(b.segments.offsets_addr())
            .push(s.arrays as u64)
            .push(s.n as u64)
            .push(lists)
            .push(counts);
        let threads = p.small_threads;
        let grid = b.gpu.grid_stride_blocks(s.arrays, threads, BLOCKS_PER_SM);
        // SAFETY: `classify(const OFFSET_T*, u64, u64, u64*, u64*)` of the module of this
        // offset width: the offsets hold arrays + 1 words (checked on the host); each list write
        // is below its class's capacity, and the lists region holds every class's capacity
        // (ArrayPolicy::list_len, the device's list_start and class_most).
        unsafe { classify.launch(LaunchConfig::linear(grid, threads), &args)? };
    }
    for (&c, kernels) in classes.iter().zip(&class_kernels) {
        let (list, count, cap) = if listed {
            let start = p.list_start(c, s.arrays, s.n) as u64;
            (
                lists + 8 * start,
                counts + 8 * c.index() as u64,
                c.most_arrays(s.arrays, s.n, p),
            )
        } else {
            (0, 0, s.arrays)
        };
        if c == SizeClass::Large {
            large::<K>(b, k, kernels, order, scratch, layout, (list, count, cap))?;
            continue;
        }
        let kernel = &kernels[0];
        let threads = p.threads(c);
        let grid = b
            .gpu
            .grid_stride_blocks(cap, p.arrays_per_block(c) as u32, BLOCKS_PER_SM);
        let mut args = KernelArgs::new();
        args.push(b.keys)
            .push(b.values)
            .push(b.segments.offsets_addr())
            .push(b.segments.fixed_len())
            .push(list)
            .push(count)
            .push(cap as u64)
            .push(s.n as u64)
            .push(order.flip::<K::Bits>());
        // SAFETY: arguments match `sort_<class>(KEY_T*, VALUE_T*, const OFFSET_T*, u64, const
        // u64*, const u64*, u64, u64, KEY_BITS_T)`; keys (values) hold n elements and every
        // array span is clamped into [0, n]; the list and its count are this class's (count
        // clamped to cap, the list's length), or absent for a fixed length with cap = arrays;
        // the block size is the kernel's compiled one; shared memory is static.
        unsafe { kernel.launch(LaunchConfig::linear(grid, threads), &args)? };
    }
    Ok(())
}

/// The large class: plan the tiles, sort each as a run, then `layout.large_passes` merge passes
/// (each a partition and a merge; passes past the longest array's return at once on the
/// device). `(list, count, cap)`: the class's list, its counter and its capacity (0, 0 and the
/// array count for a fixed length).
#[allow(clippy::too_many_arguments)]
fn large<K: SortKey>(
    b: &Bufs,
    k: &Kernels,
    kernels: &[Kernel],
    order: Order,
    scratch: &mut Scratch,
    layout: &FastLayout,
    (list, count, cap): (u64, u64, usize),
) -> Result<()> {
    let s = &b.shape;
    let p = &k.policy;
    let flip = order.flip::<K::Bits>();
    let [plan, runs, partition, merge] = kernels else {
        return Err(Error::Internal("the large class runs four kernels".into()));
    };
    let tiles = layout.large_tiles;
    let (meta, first, array, splits) = (
        // The plan follows the class counters in `layout.words`.
        scratch.ptr(layout.words).addr() + 8 * layout.counts as u64,
        scratch.ptr(layout.tile_first).addr(),
        scratch.ptr(layout.tile_array).addr(),
        scratch.ptr(layout.splits).addr(),
    );
    let (tk, tv) = (scratch.ptr(layout.tk).addr(), scratch.ptr(layout.tv).addr());
    let (offsets, fixed_len) = (b.segments.offsets_addr(), b.segments.fixed_len());
    let small = p.small_threads;
    let mut args = KernelArgs::new();
    args.push(offsets)
        .push(fixed_len)
        .push(list)
        .push(count)
        .push(cap as u64)
        .push(s.n as u64)
        .push(tiles as u64)
        .push(first)
        .push(array)
        .push(meta);
    let grid = b.gpu.grid_stride_blocks(cap, small, BLOCKS_PER_SM);
    // SAFETY: `large_plan(const OFFSET_T*, u64, const u64*, const u64*, u64, u64, u64, u64*,
    // u32*, u64*)`: spans clamped into [0, n]; tile_first holds cap words (the list's length,
    // count clamped to it); tile_array holds `tiles` words and every write is checked against
    // it; meta holds 2 words, zeroed before.
    unsafe { plan.launch(LaunchConfig::linear(grid, small), &args)? };
    let run_threads = p.run_threads();
    let tile_grid = b.gpu.grid_stride_blocks(tiles, 1, BLOCKS_PER_SM);
    // The tile list's arguments, the same run of parameters in the three tile kernels.
    let tile_list = |args: &mut KernelArgs| {
        args.push(offsets)
            .push(fixed_len)
            .push(list)
            .push(s.n as u64)
            .push(first)
            .push(array)
            .push(meta)
            .push(tiles as u64);
    };
    let mut args = KernelArgs::new();
    args.push(b.keys).push(b.values).push(tk).push(tv);
    tile_list(&mut args);
    args.push(flip);
    // SAFETY: `large_runs(KEY_T*, VALUE_T*, KEY_T*, VALUE_T*, const OFFSET_T*, u64, const u64*,
    // u64, const u64*, const u32*, const u64*, u64, KEY_BITS_T)`: keys, values, tk, tv hold n
    // elements (values only with HAS_VALUES) and every tile lies inside its clamped span; the
    // tile list is the plan's, its count clamped to `tiles`; shared memory is static.
    unsafe { runs.launch(LaunchConfig::linear(tile_grid, run_threads), &args)? };
    let part_grid = b.gpu.grid_stride_blocks(tiles, small, BLOCKS_PER_SM);
    for pass in 0..layout.large_passes {
        let mut args = KernelArgs::new();
        args.push(b.keys).push(tk);
        tile_list(&mut args);
        args.push(pass).push(splits).push(flip);
        // SAFETY: `large_partition(const KEY_T*, const KEY_T*, const OFFSET_T*, u64, const u64*,
        // u64, const u64*, const u32*, const u64*, u64, u32, u64*, KEY_BITS_T)`: as large_runs;
        // splits holds `tiles` words, one per tile below the clamped count.
        unsafe { partition.launch(LaunchConfig::linear(part_grid, small), &args)? };
        let mut args = KernelArgs::new();
        args.push(b.keys).push(b.values).push(tk).push(tv);
        tile_list(&mut args);
        args.push(pass).push(splits).push(flip);
        // SAFETY: `large_merge(KEY_T*, VALUE_T*, KEY_T*, VALUE_T*, const OFFSET_T*, u64, const
        // u64*, u64, const u64*, const u32*, const u64*, u64, u32, const u64*, KEY_BITS_T)`: as
        // large_runs; each tile's slices lie inside its array's pair of runs (the partition's
        // splits of this pass), its outputs inside its array.
        unsafe { merge.launch(LaunchConfig::linear(tile_grid, run_threads), &args)? };
    }
    Ok(())
}

/// GPU-ArraySort: one block per array.
pub(crate) fn paper<K: SortKey>(
    b: &Bufs,
    k: &Kernels,
    order: Order,
    scratch: &mut Scratch,
) -> Result<()> {
    let s = &b.shape;
    let layout = PaperLayout::new(s)?;
    let kernel = k.module.kernel("paper_sort")?;
    let mut args = KernelArgs::new();
    args.push(b.keys)
        .push(b.values)
        .push(b.segments.offsets_addr())
        .push(b.segments.fixed_len())
        .push(s.arrays as u64)
        .push(s.n as u64)
        .push(order.flip::<K::Bits>())
        .push(scratch.ptr(layout.sample).addr())
        .push(scratch.ptr(layout.sorted).addr())
        .push(scratch.ptr(layout.bucket).addr())
        .push(scratch.ptr(layout.tk).addr())
        .push(scratch.ptr(layout.tv).addr())
        .push(scratch.ptr(layout.ti).addr());
    let threads = k.policy.paper_threads;
    let grid = b.gpu.grid_stride_blocks(s.arrays, 1, BLOCKS_PER_SM);
    // SAFETY: arguments match `paper_sort(KEY_T*, VALUE_T*, const OFFSET_T*, u64, u64, u64,
    // KEY_BITS_T, KEY_BITS_T*, KEY_BITS_T*, u64*, KEY_T*, VALUE_T*, u32*)`; spans are clamped
    // into [0, n]; array a's samples and counters lie inside their regions (PaperLayout: n / 10
    // + arrays + 1 and n / 20 + arrays + 1 entries); tk, tv, ti hold n entries.
    unsafe { kernel.launch(LaunchConfig::linear(grid, threads), &args) }
}

/// The tagged baseline: a stable sort of a copy of the keys carrying positions, the positions'
/// array tags, a stable sort by tag, and a gather.
pub(crate) fn tagged<K: SortKey, V: SortValue>(
    b: &Bufs,
    k: &Kernels,
    keys: &mut DeviceBuffer<K>,
    values: Option<&mut DeviceBuffer<V>>,
    order: Order,
    scratch: &mut Scratch,
) -> Result<()> {
    let s = &b.shape;
    let gpu = b.gpu;
    let (iota, tag, gather) = (
        k.module.kernel("iota")?,
        k.module.kernel("tag_of_index")?,
        k.module.kernel("gather")?,
    );
    let mut copy = DeviceBuffer::<K>::alloc(gpu, s.n)?;
    let mut idx = DeviceBuffer::<u32>::alloc(gpu, s.n)?;
    let mut tags = DeviceBuffer::<u32>::alloc(gpu, s.n)?;
    let vcopy = match &values {
        Some(_) => Some(DeviceBuffer::<V>::alloc(gpu, s.n)?),
        None => None,
    };
    let threads = k.policy.small_threads;
    let cfg = LaunchConfig::linear(gpu.grid_stride_blocks(s.n, threads, BLOCKS_PER_SM), threads);
    copy.copy_from_device(keys)?;
    let mut args = KernelArgs::new();
    args.push(idx.ptr().addr()).push(s.n as u64);
    // SAFETY: `iota(u32*, u64)`: idx holds n words (n < 2^32, checked by the caller).
    unsafe { iota.launch(cfg, &args)? };
    let by_key = RadixOptions::default().with_order(order);
    radix::sort_pairs_with_scratch(gpu, &mut copy, &mut idx, &by_key, scratch.buffer_mut())?;
    let mut args = KernelArgs::new();
    args.push(idx.ptr().addr())
        .push(tags.ptr().addr())
        .push(b.segments.offsets_addr())
        .push(b.segments.fixed_len())
        .push(s.arrays as u64)
        .push(s.n as u64);
    // SAFETY: `tag_of_index(const u32*, u32*, const OFFSET_T*, u64, u64, u64)`: idx and tags
    // hold n words; the binary search reads offsets[0 .. arrays - 1] (arrays >= 1 when n > 0),
    // a fixed length is positive when n > 0.
    unsafe { tag.launch(cfg, &args)? };
    let by_tag = RadixOptions::default().with_bits(0, tag_bits(s.arrays));
    radix::sort_pairs_with_scratch(gpu, &mut tags, &mut idx, &by_tag, scratch.buffer_mut())?;
    let mut args = KernelArgs::new();
    args.push(keys.ptr().addr())
        .push(b.values)
        .push(idx.ptr().addr())
        .push(copy.ptr().addr())
        .push(vcopy.as_ref().map_or(0, |v| v.ptr().addr()))
        .push(s.n as u64);
    // SAFETY: `gather(const KEY_T*, const VALUE_T*, const u32*, KEY_T*, VALUE_T*, u64)`: every
    // buffer holds n elements (values only read and written with HAS_VALUES); idx is a
    // permutation of 0 .. n (clamped on the device anyway).
    unsafe { gather.launch(cfg, &args)? };
    keys.copy_from_device(&copy)?;
    if let (Some(v), Some(vc)) = (values, &vcopy) {
        v.copy_from_device(vc)?;
    }
    Ok(())
}

/// Bits the tagged sort's second pass needs for tags `0 .. arrays`.
pub(crate) fn tag_bits(arrays: usize) -> u32 {
    usize::BITS - arrays.saturating_sub(1).leading_zeros()
}

/// Scratch of the tagged baseline's two radix sorts.
pub(crate) fn tagged_scratch<K: SortKey>(s: &Shape, order: Order) -> usize {
    if !s.has_work() {
        return 0;
    }
    let by_key = RadixOptions::default().with_order(order);
    let by_tag = RadixOptions::default().with_bits(0, tag_bits(s.arrays));
    radix::scratch_bytes_pairs::<K, u32>(s.n, &by_key)
        .max(radix::scratch_bytes_pairs::<u32, u32>(s.n, &by_tag))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_bits_cover_every_tag() {
        assert_eq!(tag_bits(1), 0);
        assert_eq!(tag_bits(2), 1);
        assert_eq!(tag_bits(3), 2);
        assert_eq!(tag_bits(4), 2);
        assert_eq!(tag_bits(5), 3);
        assert_eq!(tag_bits(1 << 20), 20);
        assert_eq!(tag_bits((1 << 20) + 1), 21);
    }
}
