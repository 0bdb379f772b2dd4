//! Radix sorts: the CUDPP 1-bit split sort, Satish et al.'s blocked 4-bit sort, and a fast
//! Onesweep-class sort.
//!
//! # Overview
//! [`sort_keys`] and [`sort_pairs`] sort a [`DeviceBuffer`] in place, least significant digit
//! first, by the keys' order-preserving bits ([`SortKey::to_ordered_bits`], complemented for
//! descending order), optionally only bits `begin_bit .. end_bit` of them ([`RadixOptions`]).
//! The sort is chosen by [`RadixVariant`]:
//! - [`RadixVariant::OneBit`]: one bit per pass, each a split (count, scan, scatter): the radix
//!   sort of CUDPP that Satish, Harris and Garland compare against (`onebit.cu`);
//! - [`RadixVariant::Satish`]: Satish, Harris and Garland's sort ("Designing Efficient Sorting
//!   Algorithms for Manycore GPUs", 2009): 4-bit digits, each tile sorted locally in shared
//!   memory with the block radix sort of `primitives`, per-tile digit counts, a scan, a
//!   coalesced scatter (`satish.cu`);
//! - [`RadixVariant::Fast`], the default: one histogram pass over all digits, then one kernel
//!   per 8-bit digit that ranks each tile with warp-level multi-split and finds its output
//!   offsets by decoupled look-back, as in Onesweep (Adinets and Merrill, 2022); passes whose
//!   digit is the same for every key are skipped on the device; inputs of at most one tile
//!   (4096 keys, 2048 with 8-byte keys or values) are sorted by one block (`onesweep.cu`,
//!   `small.cu`).
//!
//! Temporary memory comes from a caller-supplied scratch buffer ([`scratch_bytes`] /
//! [`scratch_bytes_pairs`] + [`sort_keys_with_scratch`] / [`sort_pairs_with_scratch`]) or is
//! allocated per call. Nothing moves to or from the host, except in the `_host` conveniences.
//!
//! # Key types
//! `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, in IEEE total order for floats (as
//! `f32::total_cmp`: `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`). Values: any
//! [`SortValue`] (4- or 8-byte plain data), moved with their keys. A descending sort sorts the
//! complemented ordered bits ascending.
//!
//! # Stability
//! Every variant is stable in both orders: keys equal in the sorted bits keep their input
//! order, with their values. Full-width sorts therefore equal the CPU reference
//! (`sortlab_cpu_reference::sort::sort_pairs`, and the rayon radix sort
//! `sortlab_cpu_reference::radix`) bit for bit.
//!
//! # Errors
//! [`Error::InvalidArgument`] for keys and values of different lengths, `begin_bit >
//! end_bit`, or a scratch buffer smaller than the scratch size; [`Error::OutOfMemory`] when the
//! scratch cannot be allocated. On these errors the data is untouched: every check, allocation,
//! kernel compilation and launch-limit check happens before the first kernel that writes it.
//!
//! # Performance
//! The fast sort moves about 4 + 8 × (passes) bytes per 4-byte key (36 for 32-bit keys, 4
//! passes), the budget of CUB's Onesweep; passes whose digit is constant are skipped (u64 keys
//! below 2^31: 4 passes instead of 8). Inputs up to 2^12 keys take the one-block sort; up to
//! 2^19, small tiles ([`FastPolicy::mid_max`]); u32/u32 pairs from 2^25 on, large tiles where a
//! block may have 187 KiB of shared memory ([`FastPolicy::large_min`]). Every launch of the fast
//! sort is a programmatic dependent launch ([`sortlab_primitives::LaunchConfig::dependent`]).
//! On an NVIDIA H100 (`scripts/bench-gpu radix`, CUB in the same run), 2^28 uniform u32 keys
//! sort 1.11x as fast as CUB's `DeviceRadixSort`, u32/u32 pairs 0.98x. The current table, the
//! tuning measurements and what was tried and not kept are in `README.md` beside this module.
//!
//! # Example
//! ```no_run
//! use sortlab_gpu_sorts::radix::{self, RadixOptions, RadixVariant};
//! use sortlab_primitives::{DeviceBuffer, Gpu, Order};
//! let gpu = Gpu::new(0)?;
//! let mut keys = DeviceBuffer::from_host(&gpu, &[3.5f32, -0.0, f32::NAN, 0.0, -2.0])?;
//! let mut values = DeviceBuffer::from_host(&gpu, &[0u32, 1, 2, 3, 4])?;
//! let opts = RadixOptions { order: Order::Descending, ..RadixOptions::default() };
//! radix::sort_pairs(&gpu, &mut keys, &mut values, &opts)?;
//! assert_eq!(values.to_host()?, vec![2, 0, 3, 1, 4]);
//! let mut ints = DeviceBuffer::from_host(&gpu, &[5u64, 1, 4])?;
//! radix::sort_keys(&gpu, &mut ints, &RadixOptions::default().with_variant(RadixVariant::Satish))?;
//! assert_eq!(ints.to_host()?, vec![1, 4, 5]);
//! # Ok::<(), sortlab_primitives::Error>(())
//! ```

mod digit_scan;
mod fast;
mod job;
mod masks;
mod onebit;
mod options;
mod policy;
mod satish;
mod variant;

pub use options::{RadixOptions, FULL_WIDTH};
pub use policy::{FastPolicy, PassShape, RankMatch};
pub use variant::RadixVariant;

use sortlab_primitives::runtime::{on_device, on_device_pairs};
use sortlab_primitives::{
    Defines, DeviceBuffer, Error, Gpu, KernelSource, Result, Scratch, SortKey, SortValue,
};

use job::{Addrs, Job};
use masks::KeySpec;

/// Every kernel source of the radix sorts (for compile checks).
pub const SOURCES: [KernelSource; 6] = [
    fast::ONESWEEP_SOURCE,
    fast::SMALL_SOURCE,
    satish::SATISH_SOURCE,
    onebit::ONEBIT_SOURCE,
    digit_scan::DIGIT_SCAN_SOURCE,
    job::UTIL_SOURCE,
];

/// Every module configuration (source and defines) the radix sorts compile for keys of
/// `key_size` bytes and values of `value_size` bytes (0: keys only), under the default
/// policies: for compile checks without a GPU, and for warming the module cache.
pub fn module_configs(key_size: usize, value_size: usize) -> Vec<(KernelSource, Defines)> {
    let key_word = if key_size > 4 {
        "unsigned long long"
    } else {
        "unsigned int"
    };
    let words = Defines::new()
        .set("KEY_BITS_T", key_word)
        .value_size((value_size > 0).then_some(value_size));
    let fast = FastPolicy::for_types(key_size, value_size);
    let mut configs = vec![
        (
            fast::ONESWEEP_SOURCE,
            words.clone().extend(&fast.pass_defines()),
        ),
        (
            fast::ONESWEEP_SOURCE,
            words
                .clone()
                .extend(&fast.for_len(fast.mid_max).pass_defines()),
        ),
        (
            fast::SMALL_SOURCE,
            words.clone().extend(&fast.small_defines()),
        ),
        (
            satish::SATISH_SOURCE,
            words.clone().extend(&satish::defines()),
        ),
        (
            onebit::ONEBIT_SOURCE,
            words.clone().extend(&onebit::defines()),
        ),
        (digit_scan::DIGIT_SCAN_SOURCE, digit_scan::defines()),
        (job::UTIL_SOURCE, job::util_defines()),
    ];
    if fast.large_min != usize::MAX {
        configs.push((
            fast::ONESWEEP_SOURCE,
            words.extend(&fast.for_len(fast.large_min).pass_defines()),
        ));
    }
    configs
}

/// The sort of `n` keys `K` (and values of `value`) under `opts`; `None` when there is
/// nothing to do (fewer than two keys or an empty bit range).
fn job<K: SortKey>(n: usize, value: Option<usize>, opts: &RadixOptions) -> Result<Option<Job>> {
    let Some((begin, end)) = opts.bit_range::<K>()? else {
        return Ok(None);
    };
    if n < 2 {
        return Ok(None);
    }
    Ok(Some(Job {
        n,
        key: KeySpec::of::<K>(opts.order),
        value,
        begin,
        end,
    }))
}

/// Scratch bytes of `job` with `variant` (and the fast policy `fast`).
fn job_scratch(job: &Job, variant: RadixVariant, fast: Option<&FastPolicy>) -> usize {
    match variant {
        RadixVariant::OneBit => onebit::scratch_bytes(job),
        RadixVariant::Satish => satish::scratch_bytes(job),
        RadixVariant::Fast => {
            let default = FastPolicy::for_types(job.key.size, job.value_size());
            fast::scratch_bytes(job, fast.unwrap_or(&default))
        }
    }
}

/// Scratch bytes [`sort_keys_with_scratch`] needs for `n` keys `K` under `opts` (0 when nothing
/// needs sorting).
///
/// The fast sort needs about `n * size_of K` bytes plus its counters (under 1% more); Satish's
/// and the one-bit sort about as much again as the keys, plus 8 bytes per 64 keys (Satish) or
/// per 512 keys (one bit). Policies are the same on every device, so the size does not depend
/// on the GPU.
pub fn scratch_bytes<K: SortKey>(n: usize, opts: &RadixOptions) -> usize {
    scratch_of::<K>(n, None, opts, opts.variant, None)
}

/// Scratch bytes [`sort_pairs_with_scratch`] needs for `n` pairs of keys `K` and values `V`
/// under `opts` (also enough for [`sort_keys_with_scratch`]): as [`scratch_bytes`], with the
/// values' size added to the keys'.
pub fn scratch_bytes_pairs<K: SortKey, V: SortValue>(n: usize, opts: &RadixOptions) -> usize {
    scratch_of::<K>(n, Some(V::SIZE), opts, opts.variant, None)
}

/// Scratch bytes of `n` keys `K` (with values of `value` bytes) under `opts`, `variant` and
/// the fast policy `fast`.
fn scratch_of<K: SortKey>(
    n: usize,
    value: Option<usize>,
    opts: &RadixOptions,
    variant: RadixVariant,
    fast: Option<&FastPolicy>,
) -> usize {
    match job::<K>(n, value, opts) {
        Ok(Some(j)) => job_scratch(&j, variant, fast),
        _ => 0,
    }
}

/// Runs `job` on the given buffers, with the caller's scratch (checked) or a new one.
fn run(
    gpu: &Gpu,
    job: &Job,
    variant: RadixVariant,
    fast: Option<&FastPolicy>,
    keys: u64,
    values: u64,
    scratch: Option<&mut DeviceBuffer<u8>>,
) -> Result<()> {
    let need = job_scratch(job, variant, fast);
    let scratch = Scratch::get(gpu, scratch, need, "the radix sort")?;
    let at = Addrs {
        keys,
        values,
        scratch: scratch.buffer(),
    };
    match variant {
        RadixVariant::OneBit => onebit::sort(gpu, job, &at),
        RadixVariant::Satish => satish::sort(gpu, job, &at),
        RadixVariant::Fast => {
            let default = FastPolicy::for_types(job.key.size, job.value_size());
            fast::sort(gpu, job, fast.unwrap_or(&default), &at)
        }
    }
}

/// Every entry point's body: sorts `keys` (with `values`) by `variant` (and the fast policy
/// `fast`), with the caller's scratch or a new one.
fn sort_with<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: Option<&mut DeviceBuffer<V>>,
    opts: &RadixOptions,
    variant: RadixVariant,
    fast: Option<&FastPolicy>,
    scratch: Option<&mut DeviceBuffer<u8>>,
) -> Result<()> {
    if let Some(v) = &values {
        check_lengths(keys.len(), v.len())?;
    }
    let value = values.as_ref().map(|_| V::SIZE);
    let Some(j) = job::<K>(keys.len(), value, opts)? else {
        return Ok(());
    };
    let values = values.map_or(0, |v| v.ptr().addr());
    run(gpu, &j, variant, fast, keys.ptr().addr(), values, scratch)
}

fn check_lengths(keys: usize, values: usize) -> Result<()> {
    if keys != values {
        return Err(Error::InvalidArgument(format!(
            "radix sort of {keys} keys with {values} values"
        )));
    }
    Ok(())
}

/// Sorts `keys` in place with the scratch buffer `scratch` (at least [`scratch_bytes`] bytes).
///
/// See the [module documentation](self) for the variants, key types, stability, errors and
/// performance.
pub fn sort_keys_with_scratch<K: SortKey>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    opts: &RadixOptions,
    scratch: &mut DeviceBuffer<u8>,
) -> Result<()> {
    let no_values = None::<&mut DeviceBuffer<u32>>;
    sort_with(
        gpu,
        keys,
        no_values,
        opts,
        opts.variant,
        None,
        Some(scratch),
    )
}

/// Sorts `keys` in place, with `values[i]` moving with `keys[i]`, using the scratch buffer
/// `scratch` (at least [`scratch_bytes_pairs`] bytes).
///
/// See the [module documentation](self) for the variants, key types, stability, errors and
/// performance.
pub fn sort_pairs_with_scratch<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    opts: &RadixOptions,
    scratch: &mut DeviceBuffer<u8>,
) -> Result<()> {
    sort_with(
        gpu,
        keys,
        Some(values),
        opts,
        opts.variant,
        None,
        Some(scratch),
    )
}

/// Sorts `keys` in place on the device, stably, by the variant of `opts`.
///
/// # Overview
/// Allocates [`scratch_bytes`] bytes of scratch (from the stream-ordered pool) and runs
/// [`sort_keys_with_scratch`]. See the [module documentation](self) for the variants.
///
/// # Key types
/// `u32`, `i32`, `f32`, `u64`, `i64`, `f64`; IEEE total order for floats; both orders.
///
/// # Stability
/// Stable (not observable for keys alone at full width; with a bit range, keys equal in those
/// bits keep their input order).
///
/// # Performance
/// See the [module documentation](self).
///
/// # Example
/// ```no_run
/// use sortlab_gpu_sorts::radix::{self, RadixOptions};
/// use sortlab_primitives::{DeviceBuffer, Gpu};
/// let gpu = Gpu::new(0)?;
/// let mut keys = DeviceBuffer::from_host(&gpu, &[3i32, -1, 2])?;
/// radix::sort_keys(&gpu, &mut keys, &RadixOptions::default())?;
/// assert_eq!(keys.to_host()?, vec![-1, 2, 3]);
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
pub fn sort_keys<K: SortKey>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    opts: &RadixOptions,
) -> Result<()> {
    let no_values = None::<&mut DeviceBuffer<u32>>;
    sort_with(gpu, keys, no_values, opts, opts.variant, None, None)
}

/// Sorts `keys` in place on the device, stably, with `values[i]` moving with `keys[i]`.
///
/// # Overview
/// Allocates [`scratch_bytes_pairs`] bytes of scratch (from the stream-ordered pool) and runs
/// [`sort_pairs_with_scratch`]. See the [module documentation](self) for the variants.
///
/// # Key types
/// Keys: `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, IEEE total order for floats, both orders.
/// Values: any [`SortValue`].
///
/// # Stability
/// Stable in both orders: values of equal keys keep their input order (so a descending sort
/// is not the reverse of an ascending one).
///
/// # Performance
/// See the [module documentation](self).
///
/// # Example
/// ```no_run
/// use sortlab_gpu_sorts::radix::{self, RadixOptions};
/// use sortlab_primitives::{DeviceBuffer, Gpu};
/// let gpu = Gpu::new(0)?;
/// let mut keys = DeviceBuffer::from_host(&gpu, &[2u32, 1, 2, 1])?;
/// let mut values = DeviceBuffer::from_host(&gpu, &[0u64, 1, 2, 3])?;
/// radix::sort_pairs(&gpu, &mut keys, &mut values, &RadixOptions::default())?;
/// assert_eq!(values.to_host()?, vec![1, 3, 0, 2]);
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
pub fn sort_pairs<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    opts: &RadixOptions,
) -> Result<()> {
    sort_with(gpu, keys, Some(values), opts, opts.variant, None, None)
}

/// Host convenience: uploads `keys`, sorts them with [`sort_keys`], downloads them.
pub fn sort_keys_host<K: SortKey>(gpu: &Gpu, keys: &mut [K], opts: &RadixOptions) -> Result<()> {
    on_device(gpu, keys, |d| sort_keys(gpu, d, opts))
}

/// Host convenience: uploads `keys` and `values`, sorts them with [`sort_pairs`], downloads
/// them.
pub fn sort_pairs_host<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut [K],
    values: &mut [V],
    opts: &RadixOptions,
) -> Result<()> {
    on_device_pairs(gpu, keys, values, "radix sort", |k, v| {
        sort_pairs(gpu, k, v, opts)
    })
}

/// The lengths at which `variant` changes code path or tile count, for any key and value
/// size: the one-block limit, the mid-sized tile, the mid-sized limit and the large tile
/// (fast), the tile (Satish, one bit). Tests visit each of them ±1.
pub fn edge_lengths(variant: RadixVariant) -> Vec<usize> {
    let mut v = match variant {
        RadixVariant::OneBit => vec![onebit::ONEBIT_TILE],
        RadixVariant::Satish => vec![satish::SATISH_TILE],
        RadixVariant::Fast => [(4, 0), (4, 4), (4, 8), (8, 0), (8, 4), (8, 8)]
            .into_iter()
            .flat_map(|(k, v)| {
                let p = FastPolicy::for_types(k, v);
                let mid = p.mid.tile_items();
                [p.small_max(), mid, 2 * mid, p.mid_max, p.tile_items()]
            })
            .collect(),
    };
    v.sort_unstable();
    v.dedup();
    v
}

/// The fast sort with an explicit [`FastPolicy`], for tuning and for research users who time
/// other tile shapes or digit widths; the variant in the options is ignored.
pub mod tuning {
    use super::*;

    /// Scratch bytes of [`sort_keys`] under `policy`.
    pub fn scratch_bytes<K: SortKey>(n: usize, opts: &RadixOptions, policy: &FastPolicy) -> usize {
        scratch_of::<K>(n, None, opts, RadixVariant::Fast, Some(policy))
    }

    /// Scratch bytes of [`sort_pairs`] under `policy`.
    pub fn scratch_bytes_pairs<K: SortKey, V: SortValue>(
        n: usize,
        opts: &RadixOptions,
        policy: &FastPolicy,
    ) -> usize {
        scratch_of::<K>(n, Some(V::SIZE), opts, RadixVariant::Fast, Some(policy))
    }

    /// [`super::sort_keys_with_scratch`] with the fast sort under `policy`.
    pub fn sort_keys<K: SortKey>(
        gpu: &Gpu,
        keys: &mut DeviceBuffer<K>,
        opts: &RadixOptions,
        policy: &FastPolicy,
        scratch: &mut DeviceBuffer<u8>,
    ) -> Result<()> {
        policy.validate()?;
        let no_values = None::<&mut DeviceBuffer<u32>>;
        let fast = RadixVariant::Fast;
        sort_with(
            gpu,
            keys,
            no_values,
            opts,
            fast,
            Some(policy),
            Some(scratch),
        )
    }

    /// [`super::sort_pairs_with_scratch`] with the fast sort under `policy`.
    pub fn sort_pairs<K: SortKey, V: SortValue>(
        gpu: &Gpu,
        keys: &mut DeviceBuffer<K>,
        values: &mut DeviceBuffer<V>,
        opts: &RadixOptions,
        policy: &FastPolicy,
        scratch: &mut DeviceBuffer<u8>,
    ) -> Result<()> {
        policy.validate()?;
        let fast = RadixVariant::Fast;
        sort_with(
            gpu,
            keys,
            Some(values),
            opts,
            fast,
            Some(policy),
            Some(scratch),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_sizes() {
        let o = RadixOptions::default();
        assert_eq!(scratch_bytes::<u32>(0, &o), 0);
        assert_eq!(scratch_bytes::<u32>(1, &o), 0);
        // One block: no scratch.
        assert_eq!(scratch_bytes::<u32>(4096, &o), 0);
        let big = scratch_bytes::<u32>(1 << 20, &o);
        assert!((4 << 20..5 << 20).contains(&big), "{big}");
        assert!(scratch_bytes_pairs::<u64, u64>(1 << 20, &o) >= 16 << 20);
        for v in RadixVariant::ALL {
            let o = o.with_variant(v);
            assert!(
                scratch_bytes_pairs::<f32, u32>(10_000, &o) >= scratch_bytes::<f32>(10_000, &o)
            );
            assert_eq!(scratch_bytes::<u32>(100, &o.with_bits(8, 8)), 0);
        }
        // 2^32 + 5 keys: several portions.
        let j = job::<u32>((1 << 32) + 5, None, &o).unwrap().unwrap();
        let p = FastPolicy::for_types(4, 0);
        let l = fast::Layout::new(&j, &p).unwrap();
        assert!(l.portions >= 5 && l.portion_len < 1 << 30);
        assert_eq!(l.passes, 4);
    }

    /// Portions cover the input, none empty, each within the policy's tile limit, and of
    /// nearly equal tile counts (the last within `portions` tiles of the others).
    #[test]
    fn portions_are_balanced() {
        let o = RadixOptions::default();
        let mut p = FastPolicy::for_types(4, 0);
        let check = |n: usize, p: &FastPolicy| {
            let j = job::<u32>(n, None, &o).unwrap().unwrap();
            let l = fast::Layout::new(&j, p).unwrap();
            let (n, tile) = (n as u64, p.tile_items() as u64);
            assert_eq!(l.portion_len, l.max_tiles * tile);
            assert!(l.max_tiles <= p.tiles_per_portion(), "{n}");
            assert!(l.portions * l.portion_len >= n && (l.portions - 1) * l.portion_len < n);
            let last_tiles = (n - (l.portions - 1) * l.portion_len).div_ceil(tile);
            assert!(last_tiles + l.portions > l.max_tiles, "{n}: {l:?}");
            l.portions
        };
        assert_eq!(check(1 << 29, &p), 1);
        assert_eq!(check(1 << 30, &p), 2);
        assert_eq!(check((1 << 30) + 1, &p), 2);
        assert_eq!(check(3 << 30, &p), 4); // portions hold fewer than 2^30 keys
        assert!(check((1 << 32) + 5, &p) >= 5);
        p.portion_tiles = Some(3);
        for tiles in [1, 2, 3, 4, 7, 10, 100] {
            check(tiles * p.tile_items() + 1, &p);
        }
    }

    #[test]
    fn edge_lengths_cover_paths() {
        let e = edge_lengths(RadixVariant::Fast);
        assert!(e.contains(&4096) && e.contains(&2048) && e.contains(&5760));
        assert_eq!(edge_lengths(RadixVariant::Satish), vec![1024]);
    }
}
