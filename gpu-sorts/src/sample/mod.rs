//! GPU sample sort (Leischner, Osipov and Sanders, "GPU sample sort", IPDPS 2010).
//!
//! # Overview
//! [`sort_keys`] and [`sort_pairs`] sort a [`DeviceBuffer`] in place. An input of at most one
//! final tile (8192 keys of 4 bytes, 4096 of 8; the notes' variant: 1024) is sorted by one
//! block, in place, without scratch. A longer one goes through *levels*; each level splits
//! every *segment* (a range still to sort, longer than the final tile; the first level has one,
//! the whole input) into buckets, all segments of the level in the same launches:
//! 1. **Splitters**: one block per segment draws a deterministic pseudo-random sample of 4096
//!    keys (splitmix64 of the segment's start and the sample index: runs are reproducible),
//!    sorts it with the block merge sort and takes k' - 1 splitters at regular intervals, k'
//!    chosen so that a bucket averages half a final tile, at most k = 256 (the paper's 128
//!    would need a third level at 2^28 keys: `README.md`). Repeated splitters are dropped and
//!    the list is padded to 255 with the largest.
//! 2. **Count**: one block per chunk of 32768 keys (16384 of 8 bytes) of a segment holds the
//!    splitters in shared memory as an implicit search tree and finds each key's bucket by
//!    walking it branch-free (`j = 2j + (tree[j] < key)`, 8 steps) plus one equality test: a
//!    key equal to splitter i goes to *equality bucket* 2i + 1, any other to 2i (i splitters
//!    below it), as `sortlab_cpu_reference::sample`'s `bucket_of`. Counts per (chunk, bucket)
//!    come from warp match-and-count (`__match_any_sync`), no atomics.
//! 3. **Scan**: one device-wide exclusive scan of the counts, laid out bucket-major and
//!    chunk-minor per segment, gives every (chunk, bucket) its output position.
//! 4. **Scatter**: each chunk recomputes its buckets, ranks its keys stably by bucket (warp
//!    match: input order kept within a bucket), stages each tile in shared memory in bucket
//!    order and writes keys (and values) from there to the other buffer, a bucket's run by
//!    consecutive threads.
//! 5. **Emit**: a thread per bucket files it: equality buckets and single keys are done
//!    (copied home when the level wrote the scratch buffer), buckets of at most one final
//!    tile go to the level's final sort, larger ones become the next level's segments. One
//!    host round trip per level reads three counters (32 bytes) to size the next launches.
//! 6. **Final sort**: every small bucket of the level sorted by one block, all in one launch:
//!    the block merge sort of `primitives` by the smallest of three tiles that holds the
//!    bucket ([`SampleVariant::Fast`]) or the course notes' odd-even transposition sort in
//!    shared memory ([`SampleVariant::Notes`], buckets of at most 1024 keys).
//!
//! Depth is bounded on every input: equality buckets end all-equal and few-distinct inputs in
//! one level; from level 4 on (uniform keys need 2 levels at 2^28, 3 at 2^32) a segment's
//! splitters are radix splitters from its minimum and maximum (8 more bits of its keys'
//! differing range a level), so no segment lives past 14 levels, whatever the sample saw. Scratch memory comes
//! from the caller ([`scratch_bytes`] / [`scratch_bytes_pairs`] + the `_with_scratch` entry
//! points) or is allocated per call, sized from n on the host.
//!
//! # Key types
//! `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, in IEEE total order for floats (as
//! `f32::total_cmp`: `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`). Values: any
//! [`SortValue`] (4- or 8-byte plain data), moved with their keys. Kernels compare the keys'
//! ordered bits XOR the order's flip word ([`sortlab_primitives::Order::flip`]).
//!
//! # Stability
//! Both variants are stable in both orders and equal the CPU reference
//! (`sortlab_cpu_reference::sort::sort_pairs`, and the rayon sample sort
//! `sortlab_cpu_reference::sample`) bit for bit: the scatter keeps input order within a bucket
//! (warp-striped tiles ranked in element order, chunks and warps in order), equality buckets
//! hold equal keys in input order, and both final sorts are stable. Stability costs nothing
//! extra: the ranking that places keys is the stable one. A descending sort keeps equal keys in
//! input order (it is not the reverse of an ascending one).
//!
//! # Errors
//! [`Error::InvalidArgument`] for keys and values of different lengths or a scratch buffer
//! smaller than the scratch size; [`Error::OutOfMemory`] when the scratch cannot be allocated;
//! [`Error::Unsupported`] past the grid's limit. On these errors the data is untouched: every
//! check, allocation, kernel compilation and launch-limit check happens before the first kernel
//! that writes it. [`Error::Internal`] if the depth bound failed (a bug).
//!
//! # Performance
//! A level reads the keys twice (count, scatter) and writes them once; values are read and
//! written once. Uniform 2^28 u32 keys take 2 levels and the final sort (about 32 bytes a key
//! in all, where CUB's merge sort moves 136), yet the sort is bound by the count's and the
//! scatter's search-tree walks and the final block sorts, not by memory: it runs below CUB's
//! `DeviceMergeSort` on uniform u32 keys. Sorted, reverse and equal keys are faster than uniform
//! ones. `README.md` beside this module has the arithmetic, the measured tables against CUB and
//! the profile.
//!
//! # Example
//! ```no_run
//! use sortlab_gpu_sorts::sample::{self, SampleOptions, SampleVariant};
//! use sortlab_primitives::{DeviceBuffer, Gpu, Order};
//! let gpu = Gpu::new(0)?;
//! let mut keys = DeviceBuffer::from_host(&gpu, &[3.5f32, -0.0, f32::NAN, 0.0, -2.0])?;
//! let mut values = DeviceBuffer::from_host(&gpu, &[0u32, 1, 2, 3, 4])?;
//! let opts = SampleOptions::default().with_order(Order::Descending);
//! sample::sort_pairs(&gpu, &mut keys, &mut values, &opts)?;
//! assert_eq!(values.to_host()?, vec![2, 0, 3, 1, 4]);
//! let mut ints = DeviceBuffer::from_host(&gpu, &[5u64, 1, 4])?;
//! sample::sort_keys(&gpu, &mut ints, &SampleOptions::default().with_variant(SampleVariant::Notes))?;
//! assert_eq!(ints.to_host()?, vec![1, 4, 5]);
//! # Ok::<(), sortlab_primitives::Error>(())
//! ```

mod options;
mod plan;
mod run;
mod variant;

pub use options::SampleOptions;
pub use run::SAMPLE_SOURCE;
pub use variant::SampleVariant;

use sortlab_primitives::{
    Defines, DeviceBuffer, Error, Gpu, KernelSource, Result, Scratch, SortKey, SortValue,
};

use plan::{Plan, Shape};
use run::Addrs;

/// Every kernel source of the sample sorts (for compile checks).
pub const SOURCES: [KernelSource; 1] = [SAMPLE_SOURCE];

/// Every module configuration (source and defines) the sample sorts compile for keys of
/// `key_size` bytes (every key type of that size) and values of `value_size` bytes (0: keys
/// only): one module per key type and value width serves both variants.
pub fn module_configs(key_size: usize, value_size: usize) -> Vec<(KernelSource, Defines)> {
    let shape = Shape::of(key_size, value_size);
    let defines = match key_size {
        4 => vec![
            shape.module_defines::<u32>(),
            shape.module_defines::<i32>(),
            shape.module_defines::<f32>(),
        ],
        _ => vec![
            shape.module_defines::<u64>(),
            shape.module_defines::<i64>(),
            shape.module_defines::<f64>(),
        ],
    };
    defines.into_iter().map(|d| (SAMPLE_SOURCE, d)).collect()
}

/// The plan of sorting `n` keys `K` (with values of `value` bytes) by `variant`; `None` when
/// there is nothing to do (fewer than two keys).
fn plan<K: SortKey>(n: usize, value: Option<usize>, variant: SampleVariant) -> Option<Plan> {
    (n >= 2).then(|| Plan::new(n, K::SIZE, value.unwrap_or(0), variant))
}

/// Scratch bytes [`sort_keys_with_scratch`] needs for `n` keys `K` under `opts` (0 when one
/// block sorts them, or nothing needs sorting).
///
/// A second buffer of the keys (`n * size_of K` bytes), plus the level's lists: segments,
/// splitters, counts and final entries, sized from n alone: at most about 1.5 bytes a key for
/// 4-byte keys and 3 for 8-byte keys (fast); up to about 11 (notes, whose buckets are
/// smaller). Shapes are the same on every device.
pub fn scratch_bytes<K: SortKey>(n: usize, opts: &SampleOptions) -> usize {
    plan::<K>(n, None, opts.variant).map_or(0, |p| p.scratch_bytes())
}

/// Scratch bytes [`sort_pairs_with_scratch`] needs for `n` pairs of keys `K` and values `V`
/// under `opts` (also enough for [`sort_keys_with_scratch`]): as [`scratch_bytes`], with a
/// second buffer of the values too.
pub fn scratch_bytes_pairs<K: SortKey, V: SortValue>(n: usize, opts: &SampleOptions) -> usize {
    plan::<K>(n, Some(V::SIZE), opts.variant).map_or(0, |p| p.scratch_bytes())
}

/// Every entry point's body: sorts `keys` (with `values`) by `opts`, with the caller's scratch
/// or a new one.
fn sort_with<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: Option<&mut DeviceBuffer<V>>,
    opts: &SampleOptions,
    scratch: Option<&mut DeviceBuffer<u8>>,
) -> Result<()> {
    if let Some(v) = &values {
        check_lengths(keys.len(), v.len())?;
    }
    let value = values.as_ref().map(|_| V::SIZE);
    let Some(p) = plan::<K>(keys.len(), value, opts.variant) else {
        return Ok(());
    };
    let need = p.scratch_bytes();
    let scratch = match (need, scratch) {
        (0, _) => None,
        (need, given) => Some(Scratch::get(gpu, given, need, "the sample sort")?),
    };
    let at = Addrs {
        keys: keys.ptr().addr(),
        values: values.map_or(0, |v| v.ptr().addr()),
        scratch: scratch.as_ref().map(|s| s.buffer()),
    };
    run::sort::<K>(gpu, &p, opts.order.flip::<K::Bits>(), &at)
}

fn check_lengths(keys: usize, values: usize) -> Result<()> {
    if keys != values {
        return Err(Error::InvalidArgument(format!(
            "sample sort of {keys} keys with {values} values"
        )));
    }
    Ok(())
}

entry_points! {
    module: "sample",
    options: SampleOptions,
    what: "sample sort",
    keys_stability: "Stable (not observable for keys alone).",
    pairs_stability: "Stable in both orders: values of equal keys keep their input order (so a descending sort is not the reverse of an ascending one).",
}

/// The lengths at which `variant` changes code path, for any key and value size: the final
/// tile (the one-block limit, and the largest bucket sorted by one block), twice it, the
/// count/scatter tile and chunk, and the copy piece. Tests visit each of them ±1.
pub fn edge_lengths(variant: SampleVariant) -> Vec<usize> {
    let mut v: Vec<usize> = [(4, 0), (4, 4), (4, 8), (8, 0), (8, 4), (8, 8)]
        .into_iter()
        .flat_map(|(k, val)| {
            let s = Shape::of(k, val);
            let m = s.small_max(variant);
            vec![m, 2 * m, s.tile(), s.chunk(), plan::COPY_PIECE]
        })
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

#[cfg(test)]
mod tests;
