//! Block-level building blocks for the sort crates, and tile sorts built from them.
//!
//! # Overview
//! The sort crates (radix, roughsort windows, the many-small-arrays sort, merge sort's first
//! phase) all sort tiles of keys inside one thread block. The device code for that lives in
//! shared headers, split by thread scope like CUB, each starting with its device API:
//!
//! | header | what it gives (CUB's name) |
//! | --- | --- |
//! | `sortlab/block/block_load_store.cuh` | tile load / store, blocked and striped, coalesced and vectorised, with a fill value past the end (`BlockLoad`, `BlockStore`, `BlockExchange`) |
//! | `sortlab/block/block_radix_rank.cuh` | stable ranking by one digit, with the tile's digit offsets and counts (`BlockRadixRank`) |
//! | `sortlab/block/block_radix_sort.cuh` | stable LSD radix sort of a bit range, keys or pairs, blocked or striped result (`BlockRadixSort`) |
//! | `sortlab/block/block_bitonic.cuh` | bitonic sorting network, any tile size (padded to a power of two) |
//! | `sortlab/block/block_merge_sort.cuh` | stable merge sort, any tile size (`BlockMergeSort`) |
//! | `sortlab/block/block_merge.cuh` | one tile of the stable merge of two sorted slices in global memory, through shared memory (`BlockMerge`; CUB's merge agents' tile) |
//! | `sortlab/block/block_sort_span.cuh` | one block sorts a span of at most a tile from global memory to global memory, by the smallest of three tiles that holds it (`BlockSortSpan::sort`; the finishing sort of the sample sort and quicksort), or by the full tile (`sort_tile`; the merge sort's tile sort) |
//! | `sortlab/block/block_histogram.cuh` | digit histogram in shared memory (`BlockHistogram`) |
//!
//! All of them sort ordered key bits ascending (`sortlab::flip_bits(key, flip)` maps any
//! key type, and the order as its flip word, onto that) and take the tile's valid length, so a partial
//! tile is one call: its missing elements sort last, as the largest bits.
//!
//! This module makes them visible from the host, through the thin kernels of `block.cu`:
//! [`sort_tiles`] and [`sort_tiles_pairs`] sort every consecutive tile of a device buffer
//! independently (the last one partial) with the chosen [`BlockSortAlgo`], and [`histogram`]
//! counts the digits of every tile. They are the test kernels of the headers, and a template for
//! sort kernels that use them.
//!
//! # Key types
//! `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, in the total order of [`SortKey::total_cmp`]
//! (`-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`), ascending or descending. Values:
//! any [`SortValue`] (4 or 8 bytes). Tiles hold at most [`MAX_TILE_4B`] 4-byte keys or
//! [`MAX_TILE_8B`] 8-byte keys.
//!
//! # Stability
//! [`BlockSortAlgo::Radix`] and [`BlockSortAlgo::Merge`] are stable. [`BlockSortAlgo::Bitonic`]
//! is stable too for pairs (its network compares `(key, index)`), and for keys alone stability
//! is invisible (equal keys are equal bits). So every tile equals the stable reference sort of
//! that tile, bit for bit, with every algorithm.
//!
//! # Performance
//! One block per tile, one launch for the whole buffer, keys read and written once (values
//! likewise): on an H100, 2^24 `u32` keys in tiles of 2048 sort at 84 (radix), 80 (bitonic)
//! and 98 (merge) Gkeys/s; [`sort_tiles`] has the table.
//!
//! # Example
//! ```no_run
//! use sortlab_primitives::block::{sort_tiles, BlockSortAlgo};
//! use sortlab_primitives::{DeviceBuffer, Gpu, Order};
//! let gpu = Gpu::new(0)?;
//! let mut keys = DeviceBuffer::from_host(&gpu, &[3u32, 1, 2, 9, 8])?;
//! sort_tiles(&gpu, &mut keys, 2, Order::Ascending, BlockSortAlgo::Merge)?;
//! assert_eq!(keys.to_host()?, vec![1, 3, 2, 9, 8]);
//! # Ok::<(), sortlab_primitives::Error>(())
//! ```

mod policy;

pub use policy::{BlockSortPolicy, HISTOGRAM_MAX_BITS, MAX_TILE_4B, MAX_TILE_8B};

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, OnceLock};

use crate::error::{Error, Result};
use crate::key::{KeyBits, Order, SortKey, SortValue};
use crate::runtime::{
    Defines, DeviceBuffer, DevicePtr, Gpu, KernelArgs, KernelSource, LaunchConfig, Module, Policy,
};

/// The tile kernels (`block.cu`).
pub const SOURCE: KernelSource = KernelSource::new("block.cu", include_str!("block.cu"));

/// Which block-level sort [`sort_tiles`] runs on each tile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BlockSortAlgo {
    /// `BlockRadixSort`: stable LSD radix sort, [`BlockSortPolicy::radix_bits`] bits per pass
    /// over every bit of the key (8 passes for 4-byte keys, 16 for 8-byte keys with 4 bits).
    #[default]
    Radix,
    /// `BlockBitonicSort`: Batcher's bitonic network over the tile padded to a power of two.
    Bitonic,
    /// `BlockMergeSort`: a sort of each thread's keys in registers, then merge-path merges.
    Merge,
}

impl BlockSortAlgo {
    /// Every algorithm.
    pub const ALL: [BlockSortAlgo; 3] = [
        BlockSortAlgo::Radix,
        BlockSortAlgo::Bitonic,
        BlockSortAlgo::Merge,
    ];

    /// Short name (`"radix"`, `"bitonic"`, `"merge"`), as in the kernel names.
    pub fn name(self) -> &'static str {
        match self {
            BlockSortAlgo::Radix => "radix",
            BlockSortAlgo::Bitonic => "bitonic",
            BlockSortAlgo::Merge => "merge",
        }
    }
}

impl fmt::Display for BlockSortAlgo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How [`histogram`] counts in shared memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HistogramAlgo {
    /// One shared-memory atomic add per key.
    #[default]
    SharedAtomic,
    /// The lanes of a warp with the same digit add once (`__match_any_sync`): less contention
    /// when few digits are distinct.
    WarpAggregated,
}

impl HistogramAlgo {
    /// Both algorithms.
    pub const ALL: [HistogramAlgo; 2] =
        [HistogramAlgo::SharedAtomic, HistogramAlgo::WarpAggregated];

    fn kernel(self) -> &'static str {
        match self {
            HistogramAlgo::SharedAtomic => "tile_histogram_atomic",
            HistogramAlgo::WarpAggregated => "tile_histogram_warp_aggregated",
        }
    }
}

/// The defines of the module of keys `K` and values `V` under `policy`: `KEY_T`, `KEY_BITS_T`,
/// `VALUE_T` and the policy's. One module holds every kernel of `block.cu` for them.
pub fn module_defines<K: SortKey, V: SortValue>(policy: &BlockSortPolicy) -> Defines {
    // Both the keys-only and the pair kernels are in the module: VALUE_T without HAS_VALUES.
    policy.defines().key::<K>().set("VALUE_T", V::CUDA_TYPE)
}

/// Dynamic shared memory, in bytes, that each kernel of a `block.cu` module is launched with
/// (`sizeof` of its storage, as the device compiler lays it out).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TempBytes {
    /// `sort_tiles_radix_keys`.
    pub radix_keys: u32,
    /// `sort_tiles_radix_pairs`.
    pub radix_pairs: u32,
    /// `sort_tiles_bitonic_keys`.
    pub bitonic_keys: u32,
    /// `sort_tiles_bitonic_pairs`.
    pub bitonic_pairs: u32,
    /// `sort_tiles_merge_keys`.
    pub merge_keys: u32,
    /// `sort_tiles_merge_pairs`.
    pub merge_pairs: u32,
    /// `tile_histogram_atomic` and `tile_histogram_warp_aggregated`.
    pub histogram: u32,
    /// `tile_load_store` (a test kernel).
    pub load_store: u32,
    /// `tile_radix_digits` (a test kernel).
    pub radix_digits: u32,
}

impl TempBytes {
    /// The bytes of the sort kernel of `algo`, keys only or with values.
    pub fn sort(&self, algo: BlockSortAlgo, pairs: bool) -> u32 {
        match (algo, pairs) {
            (BlockSortAlgo::Radix, false) => self.radix_keys,
            (BlockSortAlgo::Radix, true) => self.radix_pairs,
            (BlockSortAlgo::Bitonic, false) => self.bitonic_keys,
            (BlockSortAlgo::Bitonic, true) => self.bitonic_pairs,
            (BlockSortAlgo::Merge, false) => self.merge_keys,
            (BlockSortAlgo::Merge, true) => self.merge_pairs,
        }
    }
}

/// Words `block_temp_bytes` writes.
const TEMP_BYTES_WORDS: usize = 9;

/// The shared memory sizes of the module of keys `K`, values `V` and `policy` on `gpu`, asked
/// of the device code once per process and configuration (one tiny launch), then cached.
pub fn temp_bytes<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    policy: &BlockSortPolicy,
) -> Result<TempBytes> {
    let defines = module_defines::<K, V>(policy);
    let module = gpu.module(&SOURCE, &defines)?;
    temp_bytes_of(gpu, &module, &defines)
}

fn temp_bytes_of(gpu: &Gpu, module: &Module, defines: &Defines) -> Result<TempBytes> {
    static CACHE: OnceLock<Mutex<HashMap<Defines, TempBytes>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(t) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(defines) {
        return Ok(*t);
    }
    let out = DeviceBuffer::<u32>::zeroed(gpu, TEMP_BYTES_WORDS)?;
    let kernel = module.kernel("block_temp_bytes")?;
    let mut args = KernelArgs::new();
    args.ptr(out.ptr());
    // SAFETY: arguments match `block_temp_bytes(u32*)`; `out` holds the 9 words its thread 0
    // writes.
    unsafe { kernel.launch(LaunchConfig::linear(1, 1), &args)? };
    let w = out.to_host()?;
    let t = TempBytes {
        radix_keys: w[0],
        radix_pairs: w[1],
        bitonic_keys: w[2],
        bitonic_pairs: w[3],
        merge_keys: w[4],
        merge_pairs: w[5],
        histogram: w[6],
        load_store: w[7],
        radix_digits: w[8],
    };
    cache
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(defines.clone(), t);
    Ok(t)
}

/// Sorts every consecutive tile of `tile` keys of `keys` independently, in place: tile `t` is
/// `keys[t * tile .. min(len, (t + 1) * tile)]`, the last one possibly shorter.
///
/// # Overview
/// One block per tile, in one launch: the block loads its tile (coalesced, vectorised where
/// aligned), maps the keys to ordered bits, sorts them with `algo`'s block-level sort (the
/// headers of the [module docs](self)), and stores them back. The tile kernels are compiled
/// once per key type, value type and tile shape ([`BlockSortPolicy::for_algo`]).
///
/// # Key types
/// Every [`SortKey`], in the total order of [`SortKey::total_cmp`], `order` ascending or
/// descending. `tile` is 1 to [`BlockSortPolicy::max_tile`] keys (16384 of 4 bytes, 8192 of 8).
///
/// # Stability
/// Each tile ends up equal, bit for bit, to the stable sort of that tile (keys alone have no
/// visible stability).
///
/// # Errors
/// [`Error::InvalidArgument`] for a tile of 0 keys or beyond the limit; the keys are then
/// untouched. An empty buffer is a no-op.
///
/// # Performance
/// 52 to 98 Gkeys/s on an H100 (2^24 random `u32` keys, tiles of 2048 and 8192; the table is in
/// `primitives/README.md`): bound by shared memory and instructions, not by DRAM.
///
/// # Example
/// ```no_run
/// use sortlab_primitives::block::{sort_tiles, BlockSortAlgo};
/// use sortlab_primitives::{DeviceBuffer, Gpu, Order};
/// let gpu = Gpu::new(0)?;
/// let mut keys = DeviceBuffer::from_host(&gpu, &[1.5f32, -0.0, 0.0, f32::NAN, -1.0])?;
/// sort_tiles(&gpu, &mut keys, 3, Order::Descending, BlockSortAlgo::Radix)?;
/// let k = keys.to_host()?;
/// assert_eq!(k[0], 1.5);
/// assert!(k[3].is_nan());
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
pub fn sort_tiles<K: SortKey>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    tile: usize,
    order: Order,
    algo: BlockSortAlgo,
) -> Result<()> {
    run_sort::<K, u32>(gpu, keys.ptr(), None, keys.len(), tile, order, algo)
}

/// [`sort_tiles`] of key-value pairs: `values[i]` moves with `keys[i]`. Stable with every
/// algorithm: within a tile, equal keys keep their order (so their values' order).
///
/// Errors: as [`sort_tiles`], and [`Error::InvalidArgument`] when `keys` and `values` differ in
/// length (nothing is touched).
pub fn sort_tiles_pairs<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    tile: usize,
    order: Order,
    algo: BlockSortAlgo,
) -> Result<()> {
    check_pairs(keys, values)?;
    run_sort::<K, V>(
        gpu,
        keys.ptr(),
        Some(values.ptr()),
        keys.len(),
        tile,
        order,
        algo,
    )
}

/// [`sort_tiles`] with a hand-made policy (block shape and radix bits) instead of
/// [`BlockSortPolicy::for_tile`]'s: for tuning, and for callers that want the same shape as
/// their own kernels. Each distinct policy is one more compiled module.
///
/// Errors: as [`sort_tiles`], and [`Error::InvalidArgument`] when `policy` fails
/// [`BlockSortPolicy::check`] for `tile`; the limits of [`BlockSortPolicy::max_tile`] do not
/// apply, but a policy whose shared memory exceeds the device's is [`Error::LaunchLimit`].
pub fn sort_tiles_with_policy<K: SortKey>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    tile: usize,
    order: Order,
    algo: BlockSortAlgo,
    policy: &BlockSortPolicy,
) -> Result<()> {
    policy.check(tile)?;
    launch_sort::<K, u32>(gpu, keys.ptr(), None, keys.len(), tile, order, algo, policy)
}

/// [`sort_tiles_pairs`] with a hand-made policy (see [`sort_tiles_with_policy`]).
#[allow(clippy::too_many_arguments)]
pub fn sort_tiles_pairs_with_policy<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    tile: usize,
    order: Order,
    algo: BlockSortAlgo,
    policy: &BlockSortPolicy,
) -> Result<()> {
    check_pairs(keys, values)?;
    policy.check(tile)?;
    launch_sort::<K, V>(
        gpu,
        keys.ptr(),
        Some(values.ptr()),
        keys.len(),
        tile,
        order,
        algo,
        policy,
    )
}

fn check_pairs<K: SortKey, V: SortValue>(
    keys: &DeviceBuffer<K>,
    values: &DeviceBuffer<V>,
) -> Result<()> {
    if keys.len() != values.len() {
        return Err(Error::InvalidArgument(format!(
            "a tile sort of {} keys with {} values",
            keys.len(),
            values.len()
        )));
    }
    Ok(())
}

fn run_sort<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: DevicePtr<K>,
    values: Option<DevicePtr<V>>,
    n: usize,
    tile: usize,
    order: Order,
    algo: BlockSortAlgo,
) -> Result<()> {
    let policy = BlockSortPolicy::for_algo(tile, K::SIZE, algo)?;
    launch_sort(gpu, keys, values, n, tile, order, algo, &policy)
}

/// Sorts the tiles with `policy` (checked: `1 <= tile <= policy.capacity()`).
#[allow(clippy::too_many_arguments)]
fn launch_sort<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: DevicePtr<K>,
    values: Option<DevicePtr<V>>,
    n: usize,
    tile: usize,
    order: Order,
    algo: BlockSortAlgo,
    policy: &BlockSortPolicy,
) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    let defines = module_defines::<K, V>(policy);
    let module = gpu.module(&SOURCE, &defines)?;
    let bytes = temp_bytes_of(gpu, &module, &defines)?.sort(algo, values.is_some());
    let kind = if values.is_some() { "pairs" } else { "keys" };
    let kernel = module.kernel(&format!("sort_tiles_{}_{kind}", algo.name()))?;
    let mut args = KernelArgs::new();
    args.ptr(keys);
    if let Some(v) = values {
        args.ptr(v);
    }
    args.push(n as u64)
        .push(tile as u64)
        .push(order.flip::<K::Bits>());
    let config = LaunchConfig::linear(gpu.grid_blocks(n.div_ceil(tile)), policy.block_threads)
        .with_shared(bytes);
    // SAFETY: arguments match `sort_tiles_<algo>_keys(KEY_T*, u64, u64, Bits)` or
    // `sort_tiles_<algo>_pairs(KEY_T*, VALUE_T*, u64, u64, Bits)`: `keys` (and `values`) hold n
    // elements; 1 <= tile <= the policy's capacity (checked by for_tile or check); each block reads and
    // writes only indices < n of the tiles it owns, reading a tile before writing it; the
    // dynamic shared memory is the size the module reports for this kernel; the block size is
    // the compiled BLOCK_THREADS.
    unsafe { kernel.launch(config, &args) }
}

/// The tile every histogram block counts at a time: the module of [`sort_tiles`] with tiles of
/// 2048 keys, so the two share one compiled module.
const HISTOGRAM_CHUNK: usize = 2048;

/// The digit histogram of every consecutive tile of `tile` keys: `out[t * 2^digit_bits + d]`
/// is the number of keys of tile `t` whose digit is `d`, the digit being bits
/// `[shift, shift + digit_bits)` of the key's ordered bits (complemented for
/// [`Order::Descending`]), as a radix sort of that order sees it.
///
/// `tile` may be any positive length (a block counts its tile in chunks of 2048 keys); the
/// last tile may be shorter. An empty buffer gives an empty histogram.
///
/// Errors: [`Error::InvalidArgument`] for a tile of 0 keys, `digit_bits` outside
/// 1..=[`HISTOGRAM_MAX_BITS`], or a digit past the key's bits.
///
/// ```no_run
/// use sortlab_primitives::block::{histogram, HistogramAlgo};
/// use sortlab_primitives::{DeviceBuffer, Gpu, Order};
/// let gpu = Gpu::new(0)?;
/// let keys = DeviceBuffer::from_host(&gpu, &[0x12u32, 0x1f, 0x21, 0x3f])?;
/// let h = histogram(&gpu, &keys, 2, 4, 4, Order::Ascending, HistogramAlgo::SharedAtomic)?;
/// let h = h.to_host()?;
/// assert_eq!(h[1], 2); // tile 0: two keys with digit 1
/// assert_eq!(h[16 + 2] + h[16 + 3], 2);
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
pub fn histogram<K: SortKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    tile: usize,
    shift: u32,
    digit_bits: u32,
    order: Order,
    algo: HistogramAlgo,
) -> Result<DeviceBuffer<u32>> {
    check_histogram_args::<K>(tile, shift, digit_bits)?;
    let n = keys.len();
    let bins = 1usize << digit_bits;
    let tiles = n.div_ceil(tile);
    let len = tiles.checked_mul(bins).ok_or_else(|| {
        Error::InvalidArgument(format!("{tiles} tiles of {bins} bins overflow usize"))
    })?;
    let out = DeviceBuffer::<u32>::alloc(gpu, len)?;
    if n == 0 {
        return Ok(out);
    }
    let policy = BlockSortPolicy::for_tile(HISTOGRAM_CHUNK, K::SIZE)?;
    let defines = module_defines::<K, u32>(&policy);
    let module = gpu.module(&SOURCE, &defines)?;
    let bytes = temp_bytes_of(gpu, &module, &defines)?.histogram;
    let kernel = module.kernel(algo.kernel())?;
    let mut args = KernelArgs::new();
    args.ptr(keys.ptr())
        .push(n as u64)
        .push(tile as u64)
        .push(order.flip::<K::Bits>())
        .push(shift)
        .push(digit_bits)
        .ptr(out.ptr());
    let config =
        LaunchConfig::linear(gpu.grid_blocks(tiles), policy.block_threads).with_shared(bytes);
    // SAFETY: arguments match `tile_histogram_*(const KEY_T*, u64, u64, Bits, u32, u32, u32*)`;
    // `keys` holds n keys, `out` tiles * 2^digit_bits counters; digit_bits <= 8 fits the
    // module's 256 bins and shift + digit_bits is within the key's bits (checked above); each
    // block reads indices < n and writes the counters of its own tiles; shared memory as the
    // module reports.
    unsafe { kernel.launch(config, &args)? };
    Ok(out)
}

fn check_histogram_args<K: SortKey>(tile: usize, shift: u32, digit_bits: u32) -> Result<()> {
    if tile == 0 {
        return Err(Error::InvalidArgument(
            "a histogram tile holds at least 1 key; got 0".into(),
        ));
    }
    if digit_bits == 0 || digit_bits > HISTOGRAM_MAX_BITS {
        return Err(Error::InvalidArgument(format!(
            "histogram digits are 1 to {HISTOGRAM_MAX_BITS} bits wide; got {digit_bits}"
        )));
    }
    let width = <K::Bits as KeyBits>::BITS;
    if shift.checked_add(digit_bits).is_none_or(|end| end > width) {
        return Err(Error::InvalidArgument(format!(
            "digit bits [{shift}, {shift} + {digit_bits}) are past the {width} bits of {} keys",
            K::NAME
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_arguments_are_checked() {
        assert!(check_histogram_args::<u32>(1, 0, 8).is_ok());
        assert!(check_histogram_args::<u32>(7, 24, 8).is_ok());
        assert!(check_histogram_args::<u64>(7, 56, 8).is_ok());
        for (tile, shift, bits) in [
            (0, 0, 4),
            (1, 0, 0),
            (1, 0, 9),
            (1, 29, 4),
            (1, u32::MAX, 4),
        ] {
            let e = check_histogram_args::<u32>(tile, shift, bits).unwrap_err();
            assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
        }
        let e = check_histogram_args::<f64>(1, 60, 8).unwrap_err();
        assert!(e.to_string().contains("64 bits of f64"), "{e}");
    }

    #[test]
    fn algorithm_names() {
        let names: Vec<_> = BlockSortAlgo::ALL.iter().map(|a| a.to_string()).collect();
        assert_eq!(names, ["radix", "bitonic", "merge"]);
        assert_eq!(BlockSortAlgo::default(), BlockSortAlgo::Radix);
        assert_eq!(HistogramAlgo::default(), HistogramAlgo::SharedAtomic);
    }

    #[test]
    fn defines_name_one_module_per_key_value_and_policy() {
        let p = BlockSortPolicy::for_tile(2048, 4).unwrap();
        let d = module_defines::<f32, u64>(&p);
        let opts = d.to_options();
        for want in [
            "-DKEY_T=float",
            "-DVALUE_T=unsigned long long",
            "-DBLOCK_THREADS=128",
            "-DITEMS_PER_THREAD=16",
            "-DRADIX_BITS=4",
            "-DHISTOGRAM_MAX_BINS=256",
        ] {
            assert!(opts.iter().any(|o| o == want), "{opts:?} lacks {want}");
        }
        // The histogram shares the module of tiles of 2048.
        assert_eq!(
            BlockSortPolicy::for_tile(HISTOGRAM_CHUNK, 4).unwrap(),
            BlockSortPolicy::for_tile(2048, 4).unwrap()
        );
    }
}
