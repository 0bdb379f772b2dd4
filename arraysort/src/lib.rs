//! # sortlab-arraysort
//!
//! Millions of small arrays, each sorted independently, in place on the device.
//!
//! # Overview
//! The arrays lie back to back in one keys buffer (and values buffer), described by
//! [`Segments`]: CSR offsets (`u32` or `u64`, `m + 1` of them for `m` arrays, lengths from 0
//! up) or one fixed length. [`sort_keys`] and [`sort_pairs`] sort every array by the variant of
//! [`ArrayOptions`]:
//! - [`ArrayVariant::Paper`]: GPU-ArraySort (Awan and Saeed, "GPU-ArraySort: A parallel,
//!   in-place algorithm for sorting large number of arrays"), one block per array: a regular
//!   sample of 10% of the array, sorted; p - 1 splitters at regular intervals of it, with
//!   p = floor(n / 20) buckets; each key's bucket by binary search over the splitters, the bucket
//!   sizes counted and the array rewritten bucket by bucket; each bucket insertion sorted.
//!   **The paper's bug, fixed:** its bucket test `sp1 < a < sp2` is strict on both sides, so a
//!   key equal to a splitter belongs to no bucket and is lost. Here bucket `t` holds the keys
//!   with `splitter[t - 1] <= key < splitter[t]` (an upper-bound search), so every key has
//!   exactly one bucket; arrays shorter than 20 keys (p = 0 in the paper) take one bucket; all
//!   keys equal and many duplicates sort correctly (one large bucket: slow, as in the paper,
//!   but correct).
//! - [`ArrayVariant::Tagged`]: the paper's baseline (STA): every key tagged with its array, one
//!   stable device-wide sort by key (`sortlab_gpu_sorts::radix`, carrying each key's position),
//!   one stable sort by tag, then a gather. Its memory use is reported by [`memory_bytes`].
//! - [`ArrayVariant::Fast`], the default, the one to call: explicit size classes
//!   ([`SizeClass`]). Arrays of 2 to 32 keys are sorted in registers by a bitonic network over 8,
//!   16 or 32 lanes, several arrays per warp; arrays up to 512, 1024, 2048 and (where the tile
//!   fits static shared memory) 4096 keys by one block each, with primitives' `BlockMergeSort`
//!   over a tile of that size in shared memory (the largest, [`ArrayPolicy::tile_max`], is the
//!   largest single-pass length);
//!   longer arrays are cut into tiles of that length, each sorted as a run by the same block
//!   sort, then merged pairwise inside the array by merge path, one pass per doubling, every
//!   pass spread over the whole device (so one long array uses every multiprocessor). With a
//!   fixed length the host knows the class and launches only its kernel; with offsets a
//!   classify kernel writes each array's index into its class's list on the device, and every
//!   class kernel is launched on a grid sized from an upper bound (no array of a class can be
//!   shorter than its minimum length), reading its count on the device. The classes launched
//!   are returned in an [`ArrayReport`].
//!
//! **No host round trip inside a call:** unlike CUB's `DeviceSegmentedSort`, which copies
//! segment counts to the host to size its grids, no sort here issues a device-to-host copy or a
//! synchronisation (the tagged baseline allocates from the stream-ordered pool), so a call can
//! be captured into a CUDA graph. Offsets are therefore trusted after host-side checks (see
//! [`Segments`]); [`Segments::validate`] checks them on the device when asked.
//!
//! Temporary memory comes from a caller-supplied scratch buffer ([`scratch_bytes`] /
//! [`scratch_bytes_pairs`] + [`sort_keys_with_scratch`] / [`sort_pairs_with_scratch`]) or is
//! allocated per call; [`memory_bytes`] is the whole temporary memory of a call (for the tagged
//! baseline, more than its scratch).
//!
//! The CPU twin is `sortlab_cpu_reference::arrays`.
//!
//! # Per-array top-k
//! [`top_k_keys`] and [`top_k_pairs`] write the first `k` keys of every array in an order (with
//! their values) to slots of `k` per array, leaving the input as it is: one block per array
//! radix-selects the k-th key and sorts only the keys up to it ([`TopKPath::Select`], `k` up to
//! [`ArrayPolicy::top_k_tile`]), or a copy is sorted whole ([`TopKPath::Sort`]). No host round
//! trip either; the CPU twin is `sortlab_cpu_reference::top_k`.
//!
//! # Key types
//! `u32`, `i32`, `f32`, `u64`, `i64`, `f64` in IEEE total order for floats (as
//! `f32::total_cmp`: `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`), both orders.
//! Values: any [`SortValue`] (4 or 8 bytes), moved with their keys.
//!
//! # Stability
//! Every variant is stable in both orders: the warp networks compare (key, position), the
//! block merge and radix sorts are stable, the paper's insertion sort compares (key, input
//! position), and the tagged baseline is two stable radix sorts. So pairs equal the CPU twin's
//! stable sort bit for bit, whatever [`ArrayOptions::stable`] says.
//!
//! # Errors
//! [`Error::InvalidArgument`] for keys and values of different lengths, no offsets, `u32`
//! offsets over 2^32 or more keys, a fixed length that does not divide the key count, or a
//! scratch buffer smaller than the scratch size; [`Error::Unsupported`] for the tagged
//! baseline past 2^32 keys or arrays; [`Error::OutOfMemory`]. On these errors the data is untouched:
//! every check, allocation, compilation and kernel lookup happens before the first kernel that
//! writes it.
//!
//! # Performance
//! The fast sort reads and writes each key once for arrays up to one block's tile (4096 keys):
//! one pass, sorted in registers or shared memory. Longer arrays take the large class (runs of
//! one tile, then `ceil(log2(len / tile))` merge passes through scratch), which moves each of
//! their keys once more per pass.
//! GPU-ArraySort's per-bucket insertion sort and the tagged baseline's two device-wide sorts
//! are far slower. The table of record, with CUB's `DeviceSegmentedSort` in the same run, is in
//! `README.md` beside this crate.
//!
//! # Example
//! ```no_run
//! use sortlab_arraysort::{sort_pairs, ArrayOptions, Segments, SizeClass};
//! use sortlab_primitives::{DeviceBuffer, Gpu, Order};
//! let gpu = Gpu::new(0)?;
//! let mut keys = DeviceBuffer::from_host(&gpu, &[3.0f32, 1.0, 2.0, 9.0, 5.0])?;
//! let mut values = DeviceBuffer::from_host(&gpu, &[0u32, 1, 2, 3, 4])?;
//! let offsets = DeviceBuffer::from_host(&gpu, &[0u32, 3, 5])?;
//! let opts = ArrayOptions::default().with_order(Order::Descending);
//! let report = sort_pairs(&gpu, &mut keys, &mut values, Segments::Offsets32(&offsets), &opts)?;
//! assert_eq!(keys.to_host()?, vec![3.0, 2.0, 1.0, 9.0, 5.0]);
//! assert_eq!(values.to_host()?, vec![0, 2, 1, 3, 4]);
//! assert!(report.classes.contains(&SizeClass::Group8));
//! # Ok::<(), sortlab_primitives::Error>(())
//! ```
#![deny(missing_docs)]

mod kernels;
mod layout;
mod options;
mod policy;
mod run;
mod segments;
pub mod stream;
pub mod top_k;

pub use kernels::{module_configs, SOURCE};
pub use options::{ArrayOptions, ArrayVariant};
pub use policy::{ArrayPolicy, SizeClass};
pub use segments::Segments;
pub use top_k::{
    top_k_keys, top_k_keys_host, top_k_keys_with_scratch, top_k_pairs, top_k_pairs_host,
    top_k_pairs_with_scratch, top_k_scratch_bytes, top_k_scratch_bytes_pairs, TopKOptions,
    TopKPath, TopKReport,
};

use sortlab_primitives::{DeviceBuffer, Error, Gpu, Result, Scratch, SortKey, SortValue};

use layout::{FastLayout, PaperLayout, Shape};
use run::Bufs;

/// The array lengths at which [`ArrayVariant::Fast`] changes class, for keys of `key_size` bytes
/// and values of `value_size` bytes (0: keys only): the first length of every class present,
/// and the length before it. Tests visit each of them, with 0 and 1.
///
/// ```
/// let e = sortlab_arraysort::edge_lengths(4, 0);
/// assert!(e.contains(&4096) && e.contains(&4097) && e.contains(&33));
/// assert!(sortlab_arraysort::edge_lengths(8, 8).contains(&2049));
/// ```
pub fn edge_lengths(key_size: usize, value_size: usize) -> Vec<usize> {
    let p = ArrayPolicy::for_types(key_size, value_size);
    let mut v: Vec<usize> = SizeClass::ALL
        .iter()
        .filter(|c| c.present(&p))
        .flat_map(|c| {
            let m = c.min_len(&p);
            [m - 1, m]
        })
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// What a sort did: the variant, the number of arrays, the size classes launched (the fast
/// sort's; empty for the other variants and when nothing needed sorting) and the scratch used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayReport {
    /// The variant that ran.
    pub variant: ArrayVariant,
    /// Arrays in the call.
    pub arrays: usize,
    /// The fast sort's classes launched, shortest first: the one class of a fixed length, or
    /// every class some array could belong to (the device sorts each array in its own).
    pub classes: Vec<SizeClass>,
    /// Bytes of scratch the call used (its [`scratch_bytes`]).
    pub scratch_bytes: usize,
}

/// The shape of `n` keys (with values of `value` bytes) in `segments`.
fn shape<K: SortKey>(n: usize, segments: &Segments, value: Option<usize>) -> Result<Shape> {
    Ok(Shape {
        n,
        arrays: segments.arrays(n)?,
        fixed: match segments {
            Segments::Fixed { len } => Some(*len),
            _ => None,
        },
        key_size: K::SIZE,
        value,
    })
}

fn scratch_of<K: SortKey>(s: &Shape, opts: &ArrayOptions) -> Result<usize> {
    match opts.variant {
        ArrayVariant::Fast => Ok(FastLayout::new(s)?.bytes),
        ArrayVariant::Paper => Ok(PaperLayout::new(s)?.bytes),
        ArrayVariant::Tagged => Ok(run::tagged_scratch::<K>(s, opts.order)),
    }
}

/// Scratch bytes [`sort_keys_with_scratch`] needs for `n` keys `K` in `segments` under `opts`
/// (0 when nothing needs sorting or the arguments are invalid: the sort then reports why).
///
/// The fast sort needs none for a fixed length up to [`ArrayPolicy::tile_max`]; with offsets,
/// 8 bytes per possible array of each class plus 48, and a copy of the keys when an array can
/// be longer than one tile. GPU-ArraySort needs about 1.2 times the keys plus 4 bytes a key
/// (and the values' size); the tagged baseline, its two radix sorts' scratch (see
/// [`memory_bytes`] for all it uses).
pub fn scratch_bytes<K: SortKey>(n: usize, segments: &Segments, opts: &ArrayOptions) -> usize {
    shape::<K>(n, segments, None)
        .and_then(|s| scratch_of::<K>(&s, opts))
        .unwrap_or(0)
}

/// Scratch bytes [`sort_pairs_with_scratch`] needs for `n` pairs of keys `K` and values `V`
/// (also enough for [`sort_keys_with_scratch`]).
pub fn scratch_bytes_pairs<K: SortKey, V: SortValue>(
    n: usize,
    segments: &Segments,
    opts: &ArrayOptions,
) -> usize {
    shape::<K>(n, segments, Some(V::SIZE))
        .and_then(|s| scratch_of::<K>(&s, opts))
        .unwrap_or(0)
}

/// All the temporary device memory a sort of `n` keys `K` (with values of `value_size` bytes,
/// `None` for keys only) uses: its scratch, plus, for the tagged baseline, the buffers it
/// allocates itself (a copy of the keys and the values, a 4-byte position and a 4-byte tag per
/// key). The capacity measurements (the paper's Table 1) compare variants by it.
pub fn memory_bytes<K: SortKey>(
    n: usize,
    segments: &Segments,
    value_size: Option<usize>,
    opts: &ArrayOptions,
) -> usize {
    let Ok(s) = shape::<K>(n, segments, value_size) else {
        return 0;
    };
    let scratch = scratch_of::<K>(&s, opts).unwrap_or(0);
    match opts.variant {
        ArrayVariant::Tagged => scratch.saturating_add(layout::tagged_own_bytes(&s)),
        _ => scratch,
    }
}

/// Every entry point's body.
fn sort_with<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: Option<&mut DeviceBuffer<V>>,
    segments: Segments,
    opts: &ArrayOptions,
    scratch: Option<&mut DeviceBuffer<u8>>,
) -> Result<ArrayReport> {
    if let Some(v) = &values {
        if v.len() != keys.len() {
            return Err(Error::InvalidArgument(format!(
                "arraysort of {} keys with {} values",
                keys.len(),
                v.len()
            )));
        }
    }
    let value = values.as_ref().map(|_| V::SIZE);
    let s = shape::<K>(keys.len(), &segments, value)?;
    if opts.variant == ArrayVariant::Tagged
        && (s.n as u64 > u32::MAX as u64 || s.arrays as u64 > u32::MAX as u64)
    {
        return Err(Error::Unsupported(format!(
            "the tagged baseline keeps 32-bit positions and tags; {} keys in {} arrays is too many",
            s.n, s.arrays
        )));
    }
    let classes = match opts.variant {
        ArrayVariant::Fast => s.fast_classes(),
        _ => Vec::new(),
    };
    let need = scratch_of::<K>(&s, opts)?;
    let mut report = ArrayReport {
        variant: opts.variant,
        arrays: s.arrays,
        classes,
        scratch_bytes: need,
    };
    if !s.has_work() || (opts.variant == ArrayVariant::Fast && report.classes.is_empty()) {
        return Ok(report);
    }
    let mut scratch = Scratch::get(gpu, scratch, need, "arraysort")?;
    let k = kernels::module::<K>(gpu, value, segments.width())?;
    let b = Bufs {
        gpu,
        keys: keys.ptr().addr(),
        values: values.as_ref().map_or(0, |v| v.ptr().addr()),
        segments,
        shape: s,
    };
    match opts.variant {
        ArrayVariant::Fast => {
            let classes = std::mem::take(&mut report.classes);
            let layout = FastLayout::new(&s)?;
            run::fast::<K>(&b, &k, opts.order, &mut scratch, &classes, &layout)?;
            report.classes = classes;
        }
        ArrayVariant::Paper => run::paper::<K>(&b, &k, opts.order, &mut scratch)?,
        ArrayVariant::Tagged => {
            run::tagged::<K, V>(&b, &k, keys, values, opts.order, &mut scratch)?
        }
    }
    Ok(report)
}

/// Sorts every array of `keys` (described by `segments`) in place with the scratch buffer
/// `scratch` (at least [`scratch_bytes`] bytes).
///
/// See the [crate documentation](crate) for the variants, key types, stability, errors and
/// performance.
pub fn sort_keys_with_scratch<K: SortKey>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    segments: Segments,
    opts: &ArrayOptions,
    scratch: &mut DeviceBuffer<u8>,
) -> Result<ArrayReport> {
    sort_with::<K, u32>(gpu, keys, None, segments, opts, Some(scratch))
}

/// Sorts every array of `keys` in place, `values[i]` moving with `keys[i]`, with the scratch
/// buffer `scratch` (at least [`scratch_bytes_pairs`] bytes).
///
/// See the [crate documentation](crate) for the variants, key types, stability, errors and
/// performance.
pub fn sort_pairs_with_scratch<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    segments: Segments,
    opts: &ArrayOptions,
    scratch: &mut DeviceBuffer<u8>,
) -> Result<ArrayReport> {
    sort_with(gpu, keys, Some(values), segments, opts, Some(scratch))
}

/// Sorts every array of `keys` (described by `segments`) in place on the device.
///
/// # Overview
/// Allocates [`scratch_bytes`] bytes of scratch (stream-ordered) and runs
/// [`sort_keys_with_scratch`]. See the [crate documentation](crate) for the variants.
///
/// # Key types
/// `u32`, `i32`, `f32`, `u64`, `i64`, `f64`; IEEE total order for floats; both orders.
///
/// # Stability
/// Not observable for keys alone.
///
/// # Performance
/// See the [crate documentation](crate).
///
/// # Example
/// ```no_run
/// use sortlab_arraysort::{sort_keys, ArrayOptions, Segments};
/// use sortlab_primitives::{DeviceBuffer, Gpu};
/// let gpu = Gpu::new(0)?;
/// let mut keys = DeviceBuffer::from_host(&gpu, &[3i32, -1, 2, 7, 0, 5])?;
/// sort_keys(&gpu, &mut keys, Segments::Fixed { len: 3 }, &ArrayOptions::default())?;
/// assert_eq!(keys.to_host()?, vec![-1, 2, 3, 0, 5, 7]);
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
pub fn sort_keys<K: SortKey>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    segments: Segments,
    opts: &ArrayOptions,
) -> Result<ArrayReport> {
    sort_with::<K, u32>(gpu, keys, None, segments, opts, None)
}

/// Sorts every array of `keys` in place on the device, `values[i]` moving with `keys[i]`.
///
/// # Overview
/// Allocates [`scratch_bytes_pairs`] bytes of scratch and runs [`sort_pairs_with_scratch`].
///
/// # Key types
/// Keys: `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, both orders. Values: any [`SortValue`].
///
/// # Stability
/// Stable in both orders with every variant.
///
/// # Performance
/// See the [crate documentation](crate).
///
/// # Example
/// ```no_run
/// use sortlab_arraysort::{sort_pairs, ArrayOptions, Segments};
/// use sortlab_primitives::{DeviceBuffer, Gpu};
/// let gpu = Gpu::new(0)?;
/// let mut keys = DeviceBuffer::from_host(&gpu, &[2u64, 1, 2, 1])?;
/// let mut values = DeviceBuffer::from_host(&gpu, &[0u32, 1, 2, 3])?;
/// let offsets = DeviceBuffer::from_host(&gpu, &[0u64, 4])?;
/// sort_pairs(&gpu, &mut keys, &mut values, Segments::Offsets64(&offsets), &ArrayOptions::default())?;
/// assert_eq!(values.to_host()?, vec![1, 3, 0, 2]);
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
pub fn sort_pairs<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    segments: Segments,
    opts: &ArrayOptions,
) -> Result<ArrayReport> {
    sort_with(gpu, keys, Some(values), segments, opts, None)
}

/// Host convenience: checks `offsets` fully (the CPU twin's rules), uploads, sorts with
/// [`sort_keys`], downloads.
pub fn sort_keys_host<K: SortKey>(
    gpu: &Gpu,
    keys: &mut [K],
    offsets: &[u64],
    opts: &ArrayOptions,
) -> Result<ArrayReport> {
    host_offsets(offsets, keys.len())?;
    let mut d = DeviceBuffer::from_host(gpu, keys)?;
    let o = DeviceBuffer::from_host(gpu, offsets)?;
    let r = sort_keys(gpu, &mut d, Segments::Offsets64(&o), opts)?;
    d.copy_to_host(keys)?;
    Ok(r)
}

/// Host convenience: checks `offsets` fully, uploads keys and values, sorts with
/// [`sort_pairs`], downloads.
pub fn sort_pairs_host<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut [K],
    values: &mut [V],
    offsets: &[u64],
    opts: &ArrayOptions,
) -> Result<ArrayReport> {
    if keys.len() != values.len() {
        return Err(Error::InvalidArgument(format!(
            "arraysort of {} keys with {} values",
            keys.len(),
            values.len()
        )));
    }
    host_offsets(offsets, keys.len())?;
    let mut dk = DeviceBuffer::from_host(gpu, keys)?;
    let mut dv = DeviceBuffer::from_host(gpu, values)?;
    let o = DeviceBuffer::from_host(gpu, offsets)?;
    let r = sort_pairs(gpu, &mut dk, &mut dv, Segments::Offsets64(&o), opts)?;
    dk.copy_to_host(keys)?;
    dv.copy_to_host(values)?;
    Ok(r)
}

fn host_offsets(offsets: &[u64], n: usize) -> Result<()> {
    sortlab_cpu_reference::arrays::validate_offsets(offsets, n)
        .map_err(|e| Error::InvalidArgument(e.to_string()))
}
