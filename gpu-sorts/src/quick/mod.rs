//! GPU quicksort: Cederman and Tsigas's two-pass partition ("GPU-Quicksort", ESA 2008 / ACM
//! JEA 2010), host-driven as the course notes describe it, and self-scheduling.
//!
//! # Overview
//! [`sort_keys`] and [`sort_pairs`] sort a [`DeviceBuffer`] in place by quicksort. An input of
//! at most one tile (8192 keys of 4 bytes, 4096 of 8) is sorted by one block in shared memory
//! with the block merge sort of `primitives`, in place, with no scratch. Longer inputs go
//! through partition rounds between the caller's buffer and a scratch buffer of the same size:
//! - each round, one block plans: every sequence of the round's device-side list gets a pivot
//!   (Tukey's ninther of 27 keys at regular positions) and its first chunk (a scan of the sequences'
//!   chunk counts);
//! - pass 1: every chunk (4096 keys of 4 bytes, 2048 of 8) of every sequence counts its keys
//!   below, equal to and above its sequence's pivot and reserves its place in each of the three
//!   parts (an atomic add per part on its sequence's totals: Cederman and Tsigas's prefix sum
//!   over the blocks of a sequence, in arbitrary block order);
//! - pass 2: every chunk partitions its keys (and values) in shared memory and writes the three
//!   parts coalesced to their places in the other buffer;
//! - the next round's planner appends the children: keys equal to the pivot are final (copied
//!   home later if they landed in scratch), parts longer than a tile join the next round's list,
//!   the others become finishing tasks;
//! - after the rounds, one block per task sorts its piece in shared memory into the caller's
//!   buffer (or copies a final piece home).
//!
//! The variant ([`QuickVariant`]) decides who sizes the launches:
//! - [`QuickVariant::Notes`]: the course notes' version: after planning each round, the host
//!   copies the list length and chunk total back (one device-to-host copy and one stream
//!   synchronisation per round, one more before finishing), launches exactly one block per
//!   chunk, and stops when no sequence is left. The comparison point for the round trips.
//! - [`QuickVariant::Fast`], the default: the host launches a fixed number of rounds computed
//!   from n (ceil(1.5 ceil(log2(n / tile))) + 4), every pass grid-strided over counts the device keeps;
//!   nothing comes back to the host, and every launch is a programmatic dependent launch.
//!
//! Temporary memory comes from a caller-supplied scratch buffer ([`scratch_bytes`] /
//! [`scratch_bytes_pairs`] + [`sort_keys_with_scratch`] / [`sort_pairs_with_scratch`]) or is
//! allocated per call: a second key (and value) buffer, the two sequence lists, the chunks'
//! offsets and the finishing tasks, all sized on the host from n by worst-case bounds.
//!
//! # Bounded work
//! Every round drops the keys equal to each pivot (at least the pivot itself), so all-equal
//! and few-distinct inputs finish in a few rounds. Sorted, reverse and pipe-organ inputs get
//! near-exact medians from the regular sample. Rounds are capped; a sequence still longer than
//! a tile after the cap is sorted by one block with a bottom-up merge sort through the scratch
//! buffer, so no input costs more than O(n log n) work (such an input is slow: it must be built
//! against the sampling). Memory never grows during a sort.
//!
//! # Key types
//! `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, in IEEE total order for floats (as
//! `f32::total_cmp`: `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`). Values: any
//! [`SortValue`] (4- or 8-byte plain data), moved with their keys. Kernels compare the keys'
//! ordered bits XOR the order's flip word ([`sortlab_primitives::Order::flip`]).
//!
//! # Stability
//! Unstable: the partition passes place the chunks of a sequence in the order their atomics
//! happen to run, so values of equal keys come out in an arbitrary (and run-to-run varying)
//! order. The sorted keys equal the CPU reference's exactly, and every value stays with its
//! key.
//!
//! # Errors
//! [`Error::InvalidArgument`] for keys and values of different lengths or a scratch buffer
//! smaller than the scratch size; [`Error::OutOfMemory`] when the scratch cannot be allocated;
//! [`Error::Unsupported`] when the notes' variant would need more blocks than the grid allows.
//! On these errors the data is untouched: every check, allocation, kernel compilation and
//! launch-limit check happens before the first kernel that writes it.
//!
//! # Performance
//! Each round reads every key still in play twice (count, write) and writes it once; about
//! 1.03 log2(n / tile) + 1 rounds on random keys; it runs below CUB's `DeviceMergeSort` on
//! uniform u32 keys. Sorted, reverse and pipe-organ inputs run as fast as random ones, equal
//! keys faster; the notes' per-round host round trips cost most at small sizes. `README.md`
//! beside this module has the pass and byte arithmetic, the measured tables against CUB and
//! what bounds them.
//!
//! # Example
//! ```no_run
//! use sortlab_gpu_sorts::quick::{self, QuickOptions, QuickVariant};
//! use sortlab_primitives::{DeviceBuffer, Gpu, Order};
//! let gpu = Gpu::new(0)?;
//! let mut keys = DeviceBuffer::from_host(&gpu, &[3.5f32, -0.0, f32::NAN, 0.0, -2.0])?;
//! let mut values = DeviceBuffer::from_host(&gpu, &[0u32, 1, 2, 3, 4])?;
//! let opts = QuickOptions::default().with_order(Order::Descending);
//! quick::sort_pairs(&gpu, &mut keys, &mut values, &opts)?;
//! assert_eq!(values.to_host()?, vec![2, 0, 3, 1, 4]);
//! let mut ints = DeviceBuffer::from_host(&gpu, &[5u64, 1, 4])?;
//! quick::sort_keys(&gpu, &mut ints, &QuickOptions::default().with_variant(QuickVariant::Notes))?;
//! assert_eq!(ints.to_host()?, vec![1, 4, 5]);
//! # Ok::<(), sortlab_primitives::Error>(())
//! ```

mod options;
mod plan;
mod run;
mod variant;

pub use options::QuickOptions;
pub use run::QUICK_SOURCE;
pub use variant::QuickVariant;

use sortlab_primitives::{
    Defines, DeviceBuffer, Error, Gpu, KernelSource, Result, Scratch, SortKey, SortValue,
};

use plan::{Plan, Shape};
use run::Addrs;

/// Every kernel source of the quicksorts (for compile checks).
pub const SOURCES: [KernelSource; 1] = [QUICK_SOURCE];

/// Every module configuration (source and defines) the quicksorts compile for keys of
/// `key_size` bytes (every key type of that size) and values of `value_size` bytes (0: keys
/// only). Both variants use the same modules.
pub fn module_configs(key_size: usize, value_size: usize) -> Vec<(KernelSource, Defines)> {
    let value = (value_size > 0).then_some(value_size);
    let shape = Shape::of(key_size);
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
    defines.into_iter().map(|d| (QUICK_SOURCE, d)).collect()
}

/// The plan of sorting `n` keys `K` (with values of `value` bytes); `None` when there is
/// nothing to do (fewer than two keys).
fn plan<K: SortKey>(n: usize, value: Option<usize>, variant: QuickVariant) -> Option<Plan> {
    (n >= 2).then(|| Plan::new(n, K::SIZE, value.unwrap_or(0), variant))
}

/// Scratch bytes [`sort_keys_with_scratch`] needs for `n` keys `K` under `opts` (0 when one
/// block sorts them, or nothing needs sorting).
///
/// A second buffer of the keys (`n * size_of K` bytes), plus the device's lists: two sequence
/// lists of n / (tile + 1) + 1 records of 56 bytes, 24 bytes of offsets per chunk, and 24 bytes
/// per finishing task (at most 3 per sequence and round, plus n / tile copies); under 0.5 bytes
/// per key on top of the second buffer at 2^28 u32 keys. The same on every device.
pub fn scratch_bytes<K: SortKey>(n: usize, opts: &QuickOptions) -> usize {
    plan::<K>(n, None, opts.variant).map_or(0, |p| p.scratch_bytes())
}

/// Scratch bytes [`sort_pairs_with_scratch`] needs for `n` pairs of keys `K` and values `V`
/// under `opts` (also enough for [`sort_keys_with_scratch`]): as [`scratch_bytes`], with a
/// second buffer of the values too.
pub fn scratch_bytes_pairs<K: SortKey, V: SortValue>(n: usize, opts: &QuickOptions) -> usize {
    plan::<K>(n, Some(V::SIZE), opts.variant).map_or(0, |p| p.scratch_bytes())
}

/// Every entry point's body: sorts `keys` (with `values`) by `opts`, with the caller's scratch
/// or a new one.
fn sort_with<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: Option<&mut DeviceBuffer<V>>,
    opts: &QuickOptions,
    scratch: Option<&mut DeviceBuffer<u8>>,
) -> Result<()> {
    sort_rounds(gpu, keys, values, opts, scratch, None)
}

/// Sorts `keys` and `values` as [`sort_pairs`] does, but with at most `rounds` partition
/// rounds (at least 1) before every remaining sequence is finished by one block: the fallback
/// path past the round limit, which no ordinary input reaches. For tests only.
#[doc(hidden)]
pub fn sort_pairs_with_round_limit<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    opts: &QuickOptions,
    rounds: u32,
) -> Result<()> {
    sort_rounds(gpu, keys, Some(values), opts, None, Some(rounds))
}

/// [`sort_with`] under the round limit `rounds` (`None`: the plan's own).
fn sort_rounds<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: Option<&mut DeviceBuffer<V>>,
    opts: &QuickOptions,
    scratch: Option<&mut DeviceBuffer<u8>>,
    rounds: Option<u32>,
) -> Result<()> {
    if let Some(v) = &values {
        check_lengths(keys.len(), v.len())?;
    }
    if keys.len() < 2 {
        return Ok(());
    }
    let value = values.as_ref().map_or(0, |_| V::SIZE);
    let p = Plan::with_rounds(keys.len(), K::SIZE, value, opts.variant, rounds);
    let need = p.scratch_bytes();
    let scratch = if need > 0 {
        Some(Scratch::get(gpu, scratch, need, "the quicksort")?)
    } else {
        None
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
            "quicksort of {keys} keys with {values} values"
        )));
    }
    Ok(())
}

entry_points! {
    module: "quick",
    options: QuickOptions,
    what: "quicksort",
    keys_stability: "Unstable (not observable for keys alone).",
    pairs_stability: "Unstable: values of equal keys come out in an arbitrary order (each stays with its key).",
}

/// The lengths at which `variant` changes code path, for any key and value size: the tile
/// (the one-block limit, and the phase-1 / finishing threshold), twice the tile, a half and a
/// quarter of it (the smaller block sorts of short pieces), and the partition chunk. Tests visit each of them ±1.
pub fn edge_lengths(variant: QuickVariant) -> Vec<usize> {
    let _ = variant; // both variants share the shapes
    let mut v: Vec<usize> = [4, 8]
        .into_iter()
        .flat_map(|k| {
            let s = Shape::of(k);
            [
                s.tile() / 4,
                s.tile() / 2,
                s.chunk(),
                s.tile(),
                2 * s.tile(),
            ]
        })
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The round limit of a sort of `n` keys of `key_size` bytes (the fast variant launches that
/// many rounds; the notes' stops earlier when no sequence is left): 0 when one block sorts the
/// input.
///
/// ```
/// use sortlab_gpu_sorts::quick::max_rounds;
/// assert_eq!(max_rounds(1 << 28, 4), 27);
/// assert_eq!(max_rounds(8192, 4), 0);
/// assert_eq!(max_rounds(8193, 8), 7);
/// ```
pub fn max_rounds(n: usize, key_size: usize) -> u32 {
    plan::max_rounds(n, Shape::of(key_size).tile())
}

#[cfg(test)]
mod tests;
