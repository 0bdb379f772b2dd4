//! The hybrid sort of Sintorn and Assarsson: bucket sort, then a vector merge sort per bucket.
//!
//! # Overview
//! [`sort_keys`] and [`sort_pairs`] sort a [`DeviceBuffer`] in place in two phases ("Fast
//! parallel GPU sorting using a hybrid algorithm", JPDC 2008):
//! 1. Buckets: pivots split the key range so that buckets hold about equal numbers of keys;
//!    every key's bucket is counted (warp-aggregated atomics), the counts are scanned, and every
//!    key (and value) is scattered to its bucket in scratch (atomic cursors).
//! 2. Per bucket, one block runs the vector merge sort: 4-key vectors sorted by a bitonic
//!    network, then sorted lists merged pairwise as vectors (two 4-vectors through an 8-key
//!    bitonic merge network, the lower four emitted, the next vector taken from the list with
//!    the smaller head), writing the caller's buffer.
//!
//! The variant ([`HybridVariant`]) decides the pivots and the bucket size:
//! - [`HybridVariant::Paper`]: min and max, a uniform histogram of 8192 bins over them, and
//!   1023 pivots placed where the histogram's prefix crosses j·n/1024, linearly interpolated
//!   inside the bin (the paper's refinement of uniform pivots, done once with a fine histogram,
//!   on the device). 1024 buckets: past about 4 to 8 million keys they exceed shared memory and
//!   their merge sort runs in global memory through scratch, as in the paper.
//! - [`HybridVariant::Fast`], the default: pivots from a sorted sample (32 keys per bucket at
//!   jittered regular positions, sorted by the same vector merge sort), about 2n / capacity
//!   buckets, so that each fits one block's shared memory (capacity 8192 keys of 4 bytes; 4096
//!   with values or 8-byte keys; 2048 for 8-byte keys with values) and is sorted there.
//!
//! Duplicates (the paper assumes distinct keys): as in the CPU reference's sample sort, a key
//! equal to a pivot goes to an equality bucket of that pivot, which holds one key value and is
//! copied, never sorted (a key repeated among the pivots spreads over their equality buckets,
//! so that its atomics do not all hit one counter). Other buckets hold keys
//! strictly between two pivots. A bucket that still exceeds shared memory (the paper's, or an
//! unlucky sample) is sorted by one block in global memory: bounded time (n log n work), no
//! recursion, no host round trip. Inputs of at most one block's capacity are sorted by one
//! block in place, without scratch.
//!
//! Temporary memory comes from a caller-supplied scratch buffer ([`scratch_bytes`] /
//! [`scratch_bytes_pairs`] + [`sort_keys_with_scratch`] / [`sort_pairs_with_scratch`]) or is
//! allocated per call; its size depends on n only. Grids come from n on the host; nothing moves
//! to or from the host, except in the `_host` conveniences.
//!
//! # Key types
//! `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, in IEEE total order for floats (as
//! `f32::total_cmp`: `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`). Values: any
//! [`SortValue`] (4- or 8-byte plain data), moved with their keys. Kernels compare the keys'
//! ordered bits XOR the order's flip word ([`sortlab_primitives::Order::flip`]).
//!
//! # Stability
//! Unstable in both variants: the scatter takes positions from atomic cursors, so equal keys
//! reach their bucket in no fixed order. A stable scatter would need per-tile counts of every
//! bucket (tiles × n / 4096 words) or two radix passes over the bucket ids, each a full pass
//! over the data; the issue asks for stability only where it is cheap. Keys always equal the
//! CPU reference's; every value stays with its key. (Inside a bucket the sort is deterministic:
//! with values, elements carry their position in the bucket as a tie-break.)
//!
//! # Errors
//! [`Error::InvalidArgument`] for keys and values of different lengths or a scratch buffer
//! smaller than the scratch size; [`Error::OutOfMemory`] when the scratch cannot be allocated;
//! [`Error::Unsupported`] past the grid's limit (2^31 buckets). On these errors the data is
//! untouched: every check, allocation, kernel compilation and launch-limit check happens before
//! the first kernel that writes it.
//!
//! # Performance
//! Fast, keys alone: one read to sample (n / 64 keys), one read to count, one read and one
//! scattered write to bucket, one read and one write to sort: 5 passes over the keys (with
//! values, a scattered write and a read of them, and a gather inside each bucket). The count
//! and the bucket scatter take one global atomic a key each, which bounds it below CUB's
//! `DeviceMergeSort` on uniform u32 keys; every pattern is at least as fast as uniform keys.
//! `README.md` beside this module has the arithmetic, the measured tables against CUB and what
//! bounds them.
//!
//! # Example
//! ```no_run
//! use sortlab_gpu_sorts::hybrid::{self, HybridOptions, HybridVariant};
//! use sortlab_primitives::{DeviceBuffer, Gpu, Order};
//! let gpu = Gpu::new(0)?;
//! let mut keys = DeviceBuffer::from_host(&gpu, &[3.5f32, -0.0, f32::NAN, 0.0, -2.0])?;
//! let mut values = DeviceBuffer::from_host(&gpu, &[0u32, 1, 2, 3, 4])?;
//! let opts = HybridOptions::default().with_order(Order::Descending);
//! hybrid::sort_pairs(&gpu, &mut keys, &mut values, &opts)?;
//! assert_eq!(values.to_host()?, vec![2, 0, 3, 1, 4]);
//! let mut ints = DeviceBuffer::from_host(&gpu, &[5u64, 1, 4])?;
//! hybrid::sort_keys(&gpu, &mut ints, &HybridOptions::default().with_variant(HybridVariant::Paper))?;
//! assert_eq!(ints.to_host()?, vec![1, 4, 5]);
//! # Ok::<(), sortlab_primitives::Error>(())
//! ```

mod options;
mod plan;
mod sort;
mod variant;

pub use options::HybridOptions;
pub use sort::HYBRID_SOURCE;
pub use variant::HybridVariant;

use sortlab_primitives::{
    Defines, DeviceBuffer, Error, Gpu, KernelSource, Result, Scratch, SortKey, SortValue,
};

use plan::{Plan, Shape};

/// Every kernel source of the hybrid sorts (for compile checks).
pub const SOURCES: [KernelSource; 1] = [HYBRID_SOURCE];

/// Every module configuration (source and defines) the hybrid sorts compile for keys of
/// `key_size` bytes (every key type of that size) and values of `value_size` bytes (0: keys
/// only): one module per key type and value width, shared by both variants.
pub fn module_configs(key_size: usize, value_size: usize) -> Vec<(KernelSource, Defines)> {
    let value = (value_size > 0).then_some(value_size);
    let shape = Shape::of(key_size, value_size);
    let defines = match key_size {
        4 => vec![
            shape.module_defines::<u32>(value),
            shape.module_defines::<i32>(value),
            shape.module_defines::<f32>(value),
        ],
        _ => vec![
            shape.module_defines::<u64>(value),
            shape.module_defines::<i64>(value),
            shape.module_defines::<f64>(value),
        ],
    };
    defines.into_iter().map(|d| (HYBRID_SOURCE, d)).collect()
}

/// The plan of sorting `n` keys `K` (with values of `value` bytes) by `variant`; `None` when
/// there is nothing to do (fewer than two keys).
fn plan<K: SortKey>(n: usize, value: Option<usize>, variant: HybridVariant) -> Option<Plan> {
    (n >= 2).then(|| Plan::new(n, K::SIZE, value.unwrap_or(0), variant))
}

/// Scratch bytes [`sort_keys_with_scratch`] needs for `n` keys `K` under `opts` (0 when one
/// block sorts them, or nothing needs sorting).
///
/// Two element buffers of n keys (the scatter's target and the global merge's second buffer),
/// the bucket counts, starts and cursors (24 bytes per bucket), the pivots, and the sample
/// (Fast, two buffers of n / 64 keys) or the histogram (Paper). Independent of the device.
pub fn scratch_bytes<K: SortKey>(n: usize, opts: &HybridOptions) -> usize {
    plan::<K>(n, None, opts.variant).map_or(0, |p| p.scratch_bytes())
}

/// Scratch bytes [`sort_pairs_with_scratch`] needs for `n` pairs of keys `K` and values `V`
/// under `opts`: the scattered keys and values, and two buffers of 16-byte elements (key and
/// a u64 tag) for buckets past shared memory, besides the bucket arrays and the sample (also
/// enough for [`sort_keys_with_scratch`] of the same n).
pub fn scratch_bytes_pairs<K: SortKey, V: SortValue>(n: usize, opts: &HybridOptions) -> usize {
    plan::<K>(n, Some(V::SIZE), opts.variant).map_or(0, |p| p.scratch_bytes())
}

/// Every entry point's body: sorts `keys` (with `values`) by `opts`, with the caller's scratch
/// or a new one.
fn sort_with<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: Option<&mut DeviceBuffer<V>>,
    opts: &HybridOptions,
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
    if need == usize::MAX {
        return Err(Error::InvalidArgument(format!(
            "the hybrid sort of {} keys needs more scratch than usize holds",
            keys.len()
        )));
    }
    let scratch = if need > 0 {
        Some(Scratch::get(gpu, scratch, need, "the hybrid sort")?)
    } else {
        None
    };
    let flip = opts.order.flip::<K::Bits>();
    sort::sort::<K>(
        gpu,
        &p,
        flip,
        keys.ptr().addr(),
        values.map_or(0, |v| v.ptr().addr()),
        scratch.as_ref().map(|s| s.buffer()),
    )
}

fn check_lengths(keys: usize, values: usize) -> Result<()> {
    if keys != values {
        return Err(Error::InvalidArgument(format!(
            "hybrid sort of {keys} keys with {values} values"
        )));
    }
    Ok(())
}

entry_points! {
    module: "hybrid",
    options: HybridOptions,
    what: "hybrid sort",
    keys_stability: "Unstable (not observable for keys alone).",
    pairs_stability: "Unstable: values of equal keys come out in an arbitrary order (each stays with its key).",
}

/// The lengths at which `variant` changes code path, for any key and value size: each shape's
/// capacity (the one-block limit: 2048, 4096, 8192) and, for the paper, 1024 × capacity (its
/// buckets start to exceed shared memory and take the global-memory merge). Tests visit each
/// of them ±1.
pub fn edge_lengths(variant: HybridVariant) -> Vec<usize> {
    let mut v: Vec<usize> = [(4, 0), (4, 4), (4, 8), (8, 0), (8, 4), (8, 8)]
        .into_iter()
        .flat_map(|(k, val)| {
            let c = Shape::of(k, val).capacity;
            match variant {
                HybridVariant::Paper => vec![c, (plan::PAPER_PIVOTS + 1) * c],
                HybridVariant::Fast => vec![c],
            }
        })
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_and_configs() {
        assert_eq!(edge_lengths(HybridVariant::Fast), vec![2048, 4096, 8192]);
        assert_eq!(edge_lengths(HybridVariant::Paper).len(), 6);
        assert_eq!(module_configs(4, 0).len(), 3);
        assert_eq!(scratch_bytes::<u32>(8192, &HybridOptions::default()), 0);
        assert!(scratch_bytes::<u32>(8193, &HybridOptions::default()) > 2 * 4 * 8193);
    }
}
