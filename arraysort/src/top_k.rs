//! Per-array top-k on the device: the `k` first keys of every array in an order, sorted, with
//! their values, without sorting whole arrays where a selection is cheaper.
//!
//! The result of array `a` is the first `min(k, len_a)` elements of the stable sort of array `a`
//! (the `k` smallest ascending, the `k` largest descending; equal keys in input order, values
//! with their keys), written to `out[a * k .. a * k + min(k, len_a)]`: one slot of `k` per
//! array, so the output's place is known without a scan, and a call issues no device-to-host
//! copy (it can be captured into a CUDA graph). Slots past `min(k, len_a)` are left as they
//! were. An array shorter than `k` gives all its keys: defined behaviour, not an error. The CPU
//! twin is `sortlab_cpu_reference::top_k`, whose compacted result [`top_k_keys_host`] /
//! [`top_k_pairs_host`] return.
//!
//! Two paths ([`TopKPath`]), chosen by `k` unless [`TopKOptions::path`] names one:
//! - [`TopKPath::Select`] for `k` up to one tile ([`ArrayPolicy::top_k_tile`], 2048): one block
//!   per array finds the k-th key by an MSD radix select of 8-bit digits, stopping as soon as
//!   the keys at or before the k-th key's digit prefix fit the tile (one or two passes over
//!   uniform keys; all of them for all-equal keys, which then take the first by position),
//!   gathers those keys in position order into shared memory, sorts the tile with the stable
//!   block merge sort and writes the first `k`. Each array is read a few times and never
//!   rewritten.
//! - [`TopKPath::Sort`] for larger `k` (or 2^32 keys and more): a copy of the keys (and values)
//!   in scratch sorted by the fast segmented sort, then the first `k` of every array copied out.
//!
//! # Example
//! ```no_run
//! use sortlab_arraysort::{top_k_pairs, Segments, TopKOptions, TopKPath};
//! use sortlab_primitives::{DeviceBuffer, Gpu, Order};
//! let gpu = Gpu::new(0)?;
//! // Two rows of logits; the 2 largest of each, with their indices.
//! let logits = DeviceBuffer::from_host(&gpu, &[0.1f32, 2.5, -1.0, 0.7, 3.0, 3.0])?;
//! let index = DeviceBuffer::from_host(&gpu, &[0u32, 1, 2, 0, 1, 2])?;
//! let mut top = DeviceBuffer::<f32>::alloc(&gpu, 4)?;
//! let mut at = DeviceBuffer::<u32>::alloc(&gpu, 4)?;
//! let opts = TopKOptions::new(2).with_order(Order::Descending);
//! let r = top_k_pairs(&gpu, &logits, &index, Segments::Fixed { len: 3 }, &opts, &mut top, &mut at)?;
//! assert_eq!(r.path, TopKPath::Select);
//! assert_eq!(top.to_host()?, vec![2.5, 0.1, 3.0, 3.0]);
//! assert_eq!(at.to_host()?, vec![1, 0, 1, 2]);
//! # Ok::<(), sortlab_primitives::Error>(())
//! ```

use sortlab_cpu_reference::top_k::TopK;
use sortlab_primitives::{
    DeviceBuffer, Error, Gpu, KernelArgs, LaunchConfig, Order, Region, Result, Scratch,
    ScratchLayout, SortKey, SortValue,
};

use crate::layout::{FastLayout, Shape};
use crate::policy::ArrayPolicy;
use crate::run::{self, Bufs, BLOCKS_PER_SM};
use crate::segments::Segments;
use crate::{host_offsets, kernels, shape};

/// How a top-k runs (see the [module documentation](self)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TopKPath {
    /// One block per array: radix select of the k-th key, the keys up to it gathered into one
    /// shared-memory tile and sorted there. For `k` up to [`ArrayPolicy::top_k_tile`] and
    /// fewer than 2^32 keys in the call.
    Select,
    /// A copy of the keys sorted whole by the fast segmented sort, then every array's first
    /// `k`. Any `k`.
    Sort,
}

sortlab_primitives::named_variants!(TopKPath, "top-k path", [Select => "select", Sort => "sort"]);

/// What a top-k selects: `k`, the order, and optionally the path.
///
/// # Example
/// ```
/// use sortlab_arraysort::{TopKOptions, TopKPath};
/// use sortlab_primitives::Order;
/// let o = TopKOptions::new(64).with_order(Order::Descending).with_path(TopKPath::Sort);
/// assert_eq!((o.k, o.path), (64, Some(TopKPath::Sort)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TopKOptions {
    /// Keys kept per array (arrays shorter than `k` keep all theirs).
    pub k: usize,
    /// Ascending (the `k` smallest) or descending (the `k` largest), IEEE total order for
    /// floats.
    pub order: Order,
    /// `None`: [`TopKPath::Select`] where it applies, else [`TopKPath::Sort`]. `Some` forces
    /// a path (tests, benchmarks); forcing `Select` where it does not apply is an error.
    pub path: Option<TopKPath>,
}

impl TopKOptions {
    /// The `k` smallest of every array, path chosen by `k`.
    pub fn new(k: usize) -> Self {
        TopKOptions {
            k,
            order: Order::Ascending,
            path: None,
        }
    }
    /// The same options in `order`.
    pub fn with_order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }
    /// The same options forcing `path`.
    pub fn with_path(mut self, path: TopKPath) -> Self {
        self.path = Some(path);
        self
    }
}

/// What a top-k did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TopKReport {
    /// Arrays in the call.
    pub arrays: usize,
    /// `k`.
    pub k: usize,
    /// The path that ran.
    pub path: TopKPath,
    /// Bytes of scratch the call used.
    pub scratch_bytes: usize,
}

/// The path `opts` takes for `n` keys of `key_size` bytes (values of `value_size`, 0 for none).
fn path_of(n: usize, key_size: usize, value_size: usize, opts: &TopKOptions) -> Result<TopKPath> {
    let tile = ArrayPolicy::for_types(key_size, value_size).top_k_tile();
    let select = opts.k <= tile && n as u64 <= u32::MAX as u64;
    match opts.path {
        None if select => Ok(TopKPath::Select),
        None => Ok(TopKPath::Sort),
        Some(TopKPath::Select) if !select => Err(Error::InvalidArgument(format!(
            "the top-k select takes k up to {tile} and fewer than 2^32 keys; k = {}, {n} keys",
            opts.k
        ))),
        Some(p) => Ok(p),
    }
}

/// The sort path's scratch: the copy of keys (and values), then the fast sort's own.
struct SortLayout<K, V> {
    keys: Region<K>,
    values: Region<V>,
    fast: FastLayout,
}

impl<K: SortKey, V: SortValue> SortLayout<K, V> {
    fn new(s: &Shape) -> Result<Self> {
        let mut l = ScratchLayout::new();
        let keys = l.region::<K>(s.n);
        let values = l.region::<V>(if s.value.is_some() { s.n } else { 0 });
        let fast = FastLayout::after(l, s)?;
        Ok(SortLayout { keys, values, fast })
    }
}

fn scratch_of<K: SortKey, V: SortValue>(s: &Shape, path: TopKPath) -> Result<usize> {
    match path {
        TopKPath::Select => Ok(0),
        TopKPath::Sort => Ok(SortLayout::<K, V>::new(s)?.fast.bytes),
    }
}

/// Scratch bytes [`top_k_keys_with_scratch`] needs for `n` keys `K` in `segments` under
/// `opts`: none for [`TopKPath::Select`], a copy of the keys and the fast sort's scratch for
/// [`TopKPath::Sort`] (0 also when the arguments are invalid: the call then reports why).
pub fn top_k_scratch_bytes<K: SortKey>(n: usize, segments: &Segments, opts: &TopKOptions) -> usize {
    shape::<K>(n, segments, None)
        .and_then(|s| scratch_of::<K, u32>(&s, path_of(n, K::SIZE, 0, opts)?))
        .unwrap_or(0)
}

/// Scratch bytes [`top_k_pairs_with_scratch`] needs for `n` pairs of keys `K` and values `V`.
pub fn top_k_scratch_bytes_pairs<K: SortKey, V: SortValue>(
    n: usize,
    segments: &Segments,
    opts: &TopKOptions,
) -> usize {
    shape::<K>(n, segments, Some(V::SIZE))
        .and_then(|s| scratch_of::<K, V>(&s, path_of(n, K::SIZE, V::SIZE, opts)?))
        .unwrap_or(0)
}

/// The values of a top-k of pairs: the input and the output.
struct ValueBufs<'a, V: SortValue> {
    input: &'a DeviceBuffer<V>,
    out: &'a mut DeviceBuffer<V>,
}

fn check_len(what: &str, have: usize, need: usize) -> Result<()> {
    if have < need {
        return Err(Error::InvalidArgument(format!(
            "top-k: {what} holds {have} elements; it needs {need}"
        )));
    }
    Ok(())
}

/// Every entry point's body.
fn top_k_with<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    values: Option<ValueBufs<V>>,
    segments: Segments,
    opts: &TopKOptions,
    out: &mut DeviceBuffer<K>,
    scratch: Option<&mut DeviceBuffer<u8>>,
) -> Result<TopKReport> {
    let n = keys.len();
    if let Some(v) = &values {
        if v.input.len() != n {
            return Err(Error::InvalidArgument(format!(
                "top-k of {n} keys with {} values",
                v.input.len()
            )));
        }
    }
    let value = values.as_ref().map(|_| V::SIZE);
    let s = shape::<K>(n, &segments, value)?;
    let slots = slots(s.arrays, opts.k)?;
    check_len("the output keys", out.len(), slots)?;
    if let Some(v) = &values {
        check_len("the output values", v.out.len(), slots)?;
    }
    let path = path_of(n, K::SIZE, value.unwrap_or(0), opts)?;
    let need = scratch_of::<K, V>(&s, path)?;
    let report = TopKReport {
        arrays: s.arrays,
        k: opts.k,
        path,
        scratch_bytes: need,
    };
    if slots == 0 || n == 0 {
        return Ok(report);
    }
    let mut scratch = Scratch::get(gpu, scratch, need, "top-k")?;
    let kern = kernels::module::<K>(gpu, value, segments.width())?;
    let (values_in, values_out) = values
        .as_ref()
        .map_or((0, 0), |v| (v.input.ptr().addr(), v.out.ptr().addr()));
    let flip = opts.order.flip::<K::Bits>();
    let p = &kern.policy;
    match path {
        TopKPath::Select => {
            let select = kern.module.kernel("top_k_select")?;
            let mut args = KernelArgs::new();
            args.push(keys.ptr().addr())
                .push(values_in)
                .push(segments.offsets_addr())
                .push(segments.fixed_len())
                .push(s.arrays as u64)
                .push(n as u64)
                .push(opts.k as u64)
                .push(flip)
                .push(out.ptr().addr())
                .push(values_out);
            let grid = gpu.grid_stride_blocks(s.arrays, 1, BLOCKS_PER_SM);
            // SAFETY: arguments match `top_k_select(const KEY_T*, const VALUE_T*, const
            // OFFSET_T*, u64, u64, u64, u64, KEY_BITS_T, KEY_T*, VALUE_T*)`; keys (values) hold n
            // elements and every span is clamped into [0, n]; n < 2^32 and k <= the tile (path_of);
            // the outputs hold arrays * k elements (checked above), each array writing below
            // a * k + min(k, len); values are read and written only with HAS_VALUES; the block
            // size is the compiled one and shared memory is static.
            unsafe { select.launch(LaunchConfig::linear(grid, p.topk_threads), &args)? };
        }
        TopKPath::Sort => {
            let layout = SortLayout::<K, V>::new(&s)?;
            let compact = kern.module.kernel("top_k_compact")?;
            let classes = s.fast_classes();
            // Every kernel looked up before the first launch.
            for name in classes.iter().flat_map(|c| c.kernels()) {
                kern.module.kernel(&name)?;
            }
            let (ck, cv) = (
                scratch.ptr(layout.keys).addr(),
                scratch.ptr(layout.values).addr(),
            );
            let threads = p.small_threads;
            layout.keys.copy_from(scratch.buffer_mut(), keys)?;
            if let Some(v) = &values {
                layout.values.copy_from(scratch.buffer_mut(), v.input)?;
            }
            if !classes.is_empty() {
                let b = Bufs {
                    gpu,
                    keys: ck,
                    values: cv,
                    segments,
                    shape: s,
                };
                run::fast::<K>(&b, &kern, opts.order, &mut scratch, &classes, &layout.fast)?;
            }
            let grid = gpu.grid_stride_blocks(slots, threads, BLOCKS_PER_SM);
            let mut args = KernelArgs::new();
            args.push(ck)
                .push(cv)
                .push(segments.offsets_addr())
                .push(segments.fixed_len())
                .push(s.arrays as u64)
                .push(n as u64)
                .push(opts.k as u64)
                .push(out.ptr().addr())
                .push(values_out);
            // SAFETY: `top_k_compact(const KEY_T*, const VALUE_T*, const OFFSET_T*, u64, u64,
            // u64, u64, KEY_T*, VALUE_T*)`: the sorted copy holds n keys (values), spans are
            // clamped into [0, n], the outputs hold arrays * k = slots elements (k > 0 here).
            unsafe { compact.launch(LaunchConfig::linear(grid, threads), &args)? };
        }
    }
    Ok(report)
}

/// Writes the first `min(k, len)` keys of every array of `keys` (described by `segments`) in
/// the stable sort in `opts.order` to `out[a * k ..]`, with the scratch buffer `scratch` (at
/// least [`top_k_scratch_bytes`] bytes). `keys` is not changed.
///
/// See the [module documentation](self) for the layout of `out`, the paths and the errors of
/// [`top_k_keys`].
pub fn top_k_keys_with_scratch<K: SortKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    segments: Segments,
    opts: &TopKOptions,
    out: &mut DeviceBuffer<K>,
    scratch: &mut DeviceBuffer<u8>,
) -> Result<TopKReport> {
    top_k_with::<K, u32>(gpu, keys, None, segments, opts, out, Some(scratch))
}

/// [`top_k_pairs`] with the scratch buffer `scratch` (at least [`top_k_scratch_bytes_pairs`]
/// bytes).
#[allow(clippy::too_many_arguments)]
pub fn top_k_pairs_with_scratch<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    values: &DeviceBuffer<V>,
    segments: Segments,
    opts: &TopKOptions,
    out_keys: &mut DeviceBuffer<K>,
    out_values: &mut DeviceBuffer<V>,
    scratch: &mut DeviceBuffer<u8>,
) -> Result<TopKReport> {
    let v = ValueBufs {
        input: values,
        out: out_values,
    };
    top_k_with(gpu, keys, Some(v), segments, opts, out_keys, Some(scratch))
}

/// Writes the first `min(k, len)` keys of every array of `keys` (described by `segments`) in
/// the stable sort in `opts.order` to `out[a * k ..]`; `keys` is not changed.
///
/// # Errors
/// [`Error::InvalidArgument`] for segments that do not describe `keys` (as the sorts check
/// them), `arrays * k` overflowing, `out` shorter than `arrays * k`, or
/// [`TopKPath::Select`] forced where it does not apply; [`Error::OutOfMemory`]. Nothing is
/// written on an error.
///
/// # Example
/// ```no_run
/// use sortlab_arraysort::{top_k_keys, Segments, TopKOptions};
/// use sortlab_primitives::{DeviceBuffer, Gpu};
/// let gpu = Gpu::new(0)?;
/// let keys = DeviceBuffer::from_host(&gpu, &[5u32, 1, 4, 2, 9, 9, 0])?;
/// let offsets = DeviceBuffer::from_host(&gpu, &[0u32, 4, 4, 7])?;
/// let mut out = DeviceBuffer::from_host(&gpu, &[7u32; 6])?;
/// top_k_keys(&gpu, &keys, Segments::Offsets32(&offsets), &TopKOptions::new(2), &mut out)?;
/// // Array 1 is empty: its two slots keep what they held.
/// assert_eq!(out.to_host()?, vec![1, 2, 7, 7, 0, 9]);
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
pub fn top_k_keys<K: SortKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    segments: Segments,
    opts: &TopKOptions,
    out: &mut DeviceBuffer<K>,
) -> Result<TopKReport> {
    top_k_with::<K, u32>(gpu, keys, None, segments, opts, out, None)
}

/// [`top_k_keys`] with values: `out_values[a * k + r]` is the value of the key at
/// `out_keys[a * k + r]` (equal keys in input order: the argsort of the top k when the values
/// are indices).
///
/// # Errors
/// As [`top_k_keys`], and [`Error::InvalidArgument`] when `values` is not as long as `keys` or
/// `out_values` is shorter than `arrays * k`.
pub fn top_k_pairs<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    values: &DeviceBuffer<V>,
    segments: Segments,
    opts: &TopKOptions,
    out_keys: &mut DeviceBuffer<K>,
    out_values: &mut DeviceBuffer<V>,
) -> Result<TopKReport> {
    let v = ValueBufs {
        input: values,
        out: out_values,
    };
    top_k_with(gpu, keys, Some(v), segments, opts, out_keys, None)
}

/// Host convenience: checks `offsets` fully (the CPU twin's rules), runs [`top_k_keys`] and
/// returns the compacted result of the CPU twin's shape (array `a` at
/// `keys[offsets[a] .. offsets[a + 1]]`, `min(k, len_a)` keys).
pub fn top_k_keys_host<K: SortKey>(
    gpu: &Gpu,
    keys: &[K],
    offsets: &[u64],
    opts: &TopKOptions,
) -> Result<TopK<K, u32>> {
    top_k_host::<K, u32>(gpu, keys, None, offsets, opts)
}

/// Host convenience: [`top_k_keys_host`] with values.
pub fn top_k_pairs_host<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &[K],
    values: &[V],
    offsets: &[u64],
    opts: &TopKOptions,
) -> Result<TopK<K, V>> {
    top_k_host(gpu, keys, Some(values), offsets, opts)
}

/// Both host conveniences' body: checks, uploads, the top-k, the compacted download.
fn top_k_host<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &[K],
    values: Option<&[V]>,
    offsets: &[u64],
    opts: &TopKOptions,
) -> Result<TopK<K, V>> {
    if let Some(v) = values {
        if v.len() != keys.len() {
            return Err(Error::InvalidArgument(format!(
                "top-k of {} keys with {} values",
                keys.len(),
                v.len()
            )));
        }
    }
    host_offsets(offsets, keys.len())?;
    let slots = slots(offsets.len() - 1, opts.k)?;
    let dk = DeviceBuffer::from_host(gpu, keys)?;
    let o = DeviceBuffer::from_host(gpu, offsets)?;
    let segments = Segments::Offsets64(&o);
    let mut ok = DeviceBuffer::<K>::alloc(gpu, slots)?;
    let gv = match values {
        Some(v) => {
            let dv = DeviceBuffer::from_host(gpu, v)?;
            let mut ov = DeviceBuffer::<V>::alloc(gpu, slots)?;
            top_k_pairs(gpu, &dk, &dv, segments, opts, &mut ok, &mut ov)?;
            Some(ov.to_host()?)
        }
        None => {
            top_k_keys(gpu, &dk, segments, opts, &mut ok)?;
            None
        }
    };
    Ok(compact(&ok.to_host()?, gv.as_deref(), offsets, opts.k))
}

/// The output slots of `arrays` arrays of `k`, or [`Error::InvalidArgument`] on overflow.
fn slots(arrays: usize, k: usize) -> Result<usize> {
    arrays.checked_mul(k).ok_or_else(|| {
        Error::InvalidArgument(format!("top-k: {arrays} arrays x k = {k} overflows"))
    })
}

/// The slots of `k` per array cut down to each array's `min(k, len)` (checked offsets).
fn compact<K: Copy, V: Copy>(
    keys: &[K],
    values: Option<&[V]>,
    offsets: &[u64],
    k: usize,
) -> TopK<K, V> {
    let mut t = TopK {
        keys: Vec::new(),
        values: Vec::new(),
        offsets: vec![0],
    };
    for (a, w) in offsets.windows(2).enumerate() {
        let take = ((w[1] - w[0]) as usize).min(k);
        t.keys.extend_from_slice(&keys[a * k..a * k + take]);
        if let Some(v) = values {
            t.values.extend_from_slice(&v[a * k..a * k + take]);
        }
        t.offsets.push(t.keys.len() as u64);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_path_follows_k_and_the_key_count() {
        let tile = ArrayPolicy::for_types(4, 0).top_k_tile();
        let auto = |n, k| path_of(n, 4, 0, &TopKOptions::new(k)).unwrap();
        assert_eq!(auto(1000, 1), TopKPath::Select);
        assert_eq!(auto(1000, tile), TopKPath::Select);
        assert_eq!(auto(1000, tile + 1), TopKPath::Sort);
        assert_eq!(auto(1 << 33, 8), TopKPath::Sort);
        let forced = TopKOptions::new(tile + 1).with_path(TopKPath::Select);
        assert!(matches!(
            path_of(1000, 4, 0, &forced),
            Err(Error::InvalidArgument(_))
        ));
        let sort = TopKOptions::new(3).with_path(TopKPath::Sort);
        assert_eq!(path_of(1000, 8, 8, &sort).unwrap(), TopKPath::Sort);
    }

    #[test]
    fn scratch_only_for_the_sort_path() {
        let seg = Segments::Fixed { len: 100 };
        assert_eq!(
            top_k_scratch_bytes::<u32>(10_000, &seg, &TopKOptions::new(8)),
            0
        );
        let sort = TopKOptions::new(8).with_path(TopKPath::Sort);
        assert!(top_k_scratch_bytes::<u32>(10_000, &seg, &sort) >= 4 * 10_000);
        assert!(top_k_scratch_bytes_pairs::<u64, u64>(10_000, &seg, &sort) >= 16 * 10_000);
        // A fixed length that does not divide the keys: invalid, reported by the call.
        assert_eq!(top_k_scratch_bytes::<u32>(10_001, &seg, &sort), 0);
    }

    #[test]
    fn compact_cuts_every_slot_to_its_array() {
        let t = compact(
            &[1u32, 2, 9, 9, 5, 9],
            Some(&[10u8, 20, 0, 0, 50, 0]),
            &[0, 3, 3, 4],
            2,
        );
        assert_eq!(t.keys, [1, 2, 5]);
        assert_eq!(t.values, [10, 20, 50]);
        assert_eq!(t.offsets, [0, 2, 2, 3]);
    }

    #[test]
    fn names_round_trip() {
        for p in TopKPath::ALL {
            assert_eq!(p.name().parse::<TopKPath>().unwrap(), p);
        }
    }
}
