//! Bitonic sorts: the index-mapping network of the bitonic sorting report, the course notes'
//! kernel, and a fast shared-memory one.
//!
//! # Overview
//! [`sort_keys`] and [`sort_pairs`] sort a [`DeviceBuffer`] in place with Batcher's bitonic
//! network, on the keys' order-preserving bits (`sortlab::flip_bits` on the device: the order
//! reaches the kernels as [`Order::flip`](sortlab_primitives::Order::flip), so every network sorts ascending words). The sort
//! is chosen by [`BitonicVariant`]:
//! - [`BitonicVariant::Mapping`]: the bitonic sorting report's kernel as published
//!   (`network.cu`), one launch per (stage g, step t): thread `i` of `N/2` computes
//!   `map = (i / 2^(t-1)) * 2^t + i mod 2^(t-1)`, its partner `map + 2^(t-1)`, the direction
//!   from `(map / 2^g) mod 2`, and exchanges the pair with
//!   `atomicMin(&a[m1], atomicMax(&a[m2], a[m1]))` on the ordered bits (`unsigned int` /
//!   `unsigned long long` atomics). See [The atomic compare-exchange](#the-atomic-compare-exchange).
//! - [`BitonicVariant::Notes`]: the course notes' kernel (`network.cu`): for `k = 2, 4, ..., N`
//!   and `j = k/2, ..., 1`, one launch in which thread `i` of `N` compares `i` with `i ^ j`
//!   where that is larger, ascending where `i & k == 0`, with a plain compare-exchange. The
//!   same network as the report's, pair for pair and step for step (a unit test checks it).
//! - [`BitonicVariant::Fast`], the default (`fast.cu`): tiles of 8192 elements (4096 for 8-byte
//!   keys with values) sorted in shared memory and registers by primitives'
//!   `BlockBitonicSort`; then, for each later stage, its global steps (partner distance at
//!   least a tile) fused up to four per launch (each thread loads the 16 elements one group of
//!   the four steps touches, spaced by the smallest distance, runs the steps in registers and
//!   stores them back), and the stage's last steps (distance below a tile) in one launch in
//!   shared memory. Every launch is a programmatic dependent launch. [`FastPolicy`] is the
//!   shape, [`fast_schedule`] the list of launches.
//!
//! Temporary memory comes from a caller-supplied scratch buffer ([`scratch_bytes`] /
//! [`scratch_bytes_pairs`] + [`sort_keys_with_scratch`] / [`sort_pairs_with_scratch`]) or is
//! allocated per call; only the published variants on lengths other than powers of two need
//! any. Nothing moves to or from the host, except in the `_host` conveniences, and no call
//! waits on the device.
//!
//! # Lengths that are not powers of two
//! **Fast: a network for any n, no padding memory.** The fast sort uses the all-ascending form
//! of the network: stage k merges each block of k elements whose halves are sorted by first
//! comparing element `i` of the lower half with element `k - 1 - i` (the mirror step), then by
//! half-cleaners of distance `k/4, ..., 1` (`i` against `i + j` in each run of `2j`); every
//! comparator puts the smaller element at its lower index. (The mirror step is the bitonic
//! merge of the lower half with the reversed upper half, so this is Batcher's network with
//! the descending merges' halves read backwards: a sorting network of `N = 2^m` inputs.) A
//! comparator whose upper index is `>= n` is skipped. *Proof that this sorts n elements*: pad
//! the input to N with `+inf`. Every comparator `(lo, hi)` has `lo < hi`, so by induction
//! over the comparators the positions `>= n` hold `+inf` throughout: a comparator with
//! `hi < n` touches no padding; one with `lo < n <= hi` sees `(x, +inf)`, already in order, and
//! changes nothing; one with `lo >= n` sees two `+inf`. So the comparators with `hi >= n` are
//! exactly the no-ops, skipping them leaves the real elements where the padded network puts
//! them, and the padded network puts them, sorted, in positions `0 .. n`. The kernels read
//! positions `>= n` as the largest ordered bits and never store them, and exchange only where
//! the upper element is strictly smaller (in shared memory with values: smaller by (bits, tile
//! index), padding having the larger indices), so a real key whose flipped bits are all ones
//! (ascending: `u32::MAX`, a `+NaN` with the largest payload; descending: `0`, `i32::MIN`, a
//! `-NaN` with the largest payload) still never trades places with padding. The skip rule needs the all-ascending form: in the alternating
//! network a descending comparator carries `+inf` to its lower index, which may be below n.
//! The unit tests run the exact schedule of launches on the CPU, with the kernels' index
//! arithmetic, for every n up to 300 and more with small tiles.
//!
//! **Mapping and Notes: padding.** The published kernels are kept as published, alternating
//! directions and all, so they run on `N = 2^m` elements: for other n the keys are copied into
//! a scratch array of N ordered-bits words padded with all ones (the greatest word), sorted
//! there, and copied back (for powers of two the caller's buffer is converted in place and
//! back, with no scratch). For keys alone, padding and a real all-ones key are the same word,
//! so which of them ends among the first n is invisible. Pairs carry each element's input
//! index (padding: its position, `>= n`) instead of its value and compare by (word, index), so
//! padding sorts strictly after every real pair; the values are gathered through the indices
//! once at the end (from a copy in scratch).
//!
//! # The atomic compare-exchange
//! The report exchanges a pair with `atomicMin(&a[m1], atomicMax(&a[m2], a[m1]))` (ascending;
//! m1 and m2 swapped for descending): `atomicMax` stores `max(a[m2], a[m1])` at m2 and
//! returns the old `a[m2]`, and `atomicMin` stores the smaller of that and `a[m1]` at m1.
//! That is a correct compare-exchange only because no other thread reads or writes m1 or m2
//! during the launch: in every step the pairs partition the indices, each pair belongs to
//! exactly one thread, and consecutive steps are consecutive launches (ordered by the stream).
//! Were two threads to share an element, the plain read of `a[m1]` and the two atomics could
//! interleave with the other thread's and lose or duplicate keys; the atomics do not make the
//! pair atomic. So their atomicity buys nothing, and they cost: two read-modify-write
//! operations performed at L2, the second waiting for the first's returned value, and a write
//! of both words whether or not the pair was in order, where the plain exchange issues two
//! independent loads and stores only out-of-order pairs. [`tuning::BitonicTuning::plain_exchange`]
//! runs the same kernel with the plain exchange, for measuring the difference (`README.md`
//! beside this module has the table). The atomics cannot carry values, so pairs always use the
//! plain exchange of (key, value), or of (key, index) when padded.
//!
//! # Key types
//! `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, in IEEE total order for floats (as
//! `f32::total_cmp`: `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`), ascending or
//! descending. Values: any [`SortValue`] (4- or 8-byte plain data), moved with their keys.
//! Lengths from 0 to past 2^32 (64-bit indices throughout; the published kernels need
//! `next_power_of_two(n)` words of work memory, and one thread per pair or element).
//!
//! # Stability
//! Unstable in every variant: equal keys may change their relative order, and with values,
//! the values of equal keys may come out in any order (each value still follows its own key).
//! Keys alone equal the CPU reference (`sortlab_cpu_reference::bitonic`, or any sort) bit for
//! bit; pairs equal it as keys, with each key's values the same multiset.
//!
//! # Errors
//! [`Error::InvalidArgument`] for keys and values of different lengths, a
//! [`BitonicOptions::threads_per_block`] that is not a power of two from 32 to 1024, an invalid
//! [`FastPolicy`] (tuning), or a scratch buffer smaller than the scratch size;
//! [`Error::OutOfMemory`] when the scratch cannot be allocated; [`Error::Unsupported`] when a
//! launch would need more blocks than the device allows. On these errors the data is
//! untouched: every check, allocation, kernel compilation and launch-limit check happens before
//! the first kernel that writes it.
//!
//! # Performance
//! The published variants make `log2(N) (log2(N) + 1) / 2` passes over all N words (210 at
//! 2^20), each one launch; the notes' kernel launches twice the threads, half of them idle.
//! The fast sort makes one pass for the tiles, and for each stage past the tile
//! `ceil(global steps / 4)` passes plus one: 18 passes at 2^20 keys, 33 at 2^24 (4-byte keys).
//! The issue's targets are at least CUB `DeviceMergeSort`'s speed up to 2^20 keys and half of
//! it at 2^24; the measurements (device, command, ratio to CUB) are in `README.md` beside this
//! module, with what was tried and not kept.
//!
//! # Example
//! ```no_run
//! use sortlab_gpu_sorts::bitonic::{self, BitonicOptions, BitonicVariant};
//! use sortlab_primitives::{DeviceBuffer, Gpu, Order};
//! let gpu = Gpu::new(0)?;
//! let mut keys = DeviceBuffer::from_host(&gpu, &[3.5f32, -0.0, f32::NAN, 0.0, -2.0])?;
//! let mut values = DeviceBuffer::from_host(&gpu, &[0u32, 1, 2, 3, 4])?;
//! let opts = BitonicOptions::default().with_order(Order::Descending);
//! bitonic::sort_pairs(&gpu, &mut keys, &mut values, &opts)?;
//! assert_eq!(values.to_host()?, vec![2, 0, 3, 1, 4]); // distinct keys: one order possible
//! let mut ints = DeviceBuffer::from_host(&gpu, &[5u64, 1, 4])?;
//! let mapping = BitonicOptions::default().with_variant(BitonicVariant::Mapping);
//! bitonic::sort_keys(&gpu, &mut ints, &mapping)?;
//! assert_eq!(ints.to_host()?, vec![1, 4, 5]);
//! # Ok::<(), sortlab_primitives::Error>(())
//! ```

mod fast;
mod job;
mod mapping;
mod network;
mod notes;
mod options;
mod variant;

pub use fast::{fast_schedule, FastLaunch, FastPolicy};
pub use network::NETWORK_THREADS;
pub use options::{BitonicOptions, MAX_THREADS_PER_BLOCK, MIN_THREADS_PER_BLOCK};
pub use variant::BitonicVariant;

use std::sync::Arc;

use sortlab_primitives::{
    Defines, DeviceBuffer, Error, Gpu, KernelSource, Module, Result, Scratch, SortKey, SortValue,
};

use job::{word_defines, Addrs, Job};
use tuning::BitonicTuning;

/// Every kernel source of the bitonic sorts (for compile checks).
pub const SOURCES: [KernelSource; 2] = [network::NETWORK_SOURCE, fast::FAST_SOURCE];

/// The word defines of every key type of `key_size` bytes, with values of `value` bytes.
fn key_words(key_size: usize, value: Option<usize>) -> Vec<Defines> {
    if key_size > 4 {
        vec![
            word_defines::<u64>(value),
            word_defines::<i64>(value),
            word_defines::<f64>(value),
        ]
    } else {
        vec![
            word_defines::<u32>(value),
            word_defines::<i32>(value),
            word_defines::<f32>(value),
        ]
    }
}

/// Every module configuration (source and defines) the bitonic sorts compile for keys of
/// `key_size` bytes (each key type of that size) and values of `value_size` bytes (0: keys
/// only), under the default policies: for compile checks without a GPU, and for warming the
/// module cache.
pub fn module_configs(key_size: usize, value_size: usize) -> Vec<(KernelSource, Defines)> {
    let value = (value_size > 0).then_some(value_size);
    let policy = FastPolicy::for_types(key_size, value_size);
    key_words(key_size, value)
        .into_iter()
        .flat_map(|words| {
            [
                (
                    network::NETWORK_SOURCE,
                    words.clone().extend(&network::defines()),
                ),
                (
                    fast::FAST_SOURCE,
                    words.extend(&policy.defines(key_size, value_size)),
                ),
            ]
        })
        .collect()
}

/// The module of `network.cu` for keys `K` and values of `value` bytes.
fn network_module<K: SortKey>(gpu: &Gpu, value: Option<usize>) -> Result<Arc<Module>> {
    gpu.module_keyed(&network::NETWORK_SOURCE, (K::NAME, value), || {
        word_defines::<K>(value).extend(&network::defines())
    })
}

/// The module of `fast.cu` for keys `K`, values of `value` bytes and `policy`.
fn fast_module<K: SortKey>(
    gpu: &Gpu,
    value: Option<usize>,
    policy: &FastPolicy,
) -> Result<Arc<Module>> {
    let vs = value.unwrap_or(0);
    gpu.module_keyed(&fast::FAST_SOURCE, (K::NAME, value, *policy), || {
        word_defines::<K>(value).extend(&policy.defines(K::SIZE, vs))
    })
}

/// Scratch bytes of `job` with `variant`.
fn job_scratch(job: &Job, variant: BitonicVariant) -> usize {
    match variant {
        BitonicVariant::Mapping | BitonicVariant::Notes => {
            network::Layout::new(job).map_or(usize::MAX, |l| l.total)
        }
        BitonicVariant::Fast => 0,
    }
}

/// Scratch bytes of `n` keys `K` (with values of `value` bytes) under `opts`.
fn scratch_of<K: SortKey>(n: usize, value: Option<usize>, opts: &BitonicOptions) -> usize {
    if n < 2 {
        return 0;
    }
    job_scratch(&Job::of::<K>(n, value, opts.order), opts.variant)
}

/// Scratch bytes [`sort_keys_with_scratch`] needs for `n` keys `K` under `opts`: 0 for the
/// fast sort and for powers of two; otherwise `next_power_of_two(n)` words of the key's size.
/// The size does not depend on the GPU.
pub fn scratch_bytes<K: SortKey>(n: usize, opts: &BitonicOptions) -> usize {
    scratch_of::<K>(n, None, opts)
}

/// Scratch bytes [`sort_pairs_with_scratch`] needs for `n` pairs of keys `K` and values `V`
/// under `opts` (also enough for [`sort_keys_with_scratch`]): 0 for the fast sort and for
/// powers of two; otherwise `next_power_of_two(n)` words and as many 8-byte indices, and a
/// copy of the n values.
pub fn scratch_bytes_pairs<K: SortKey, V: SortValue>(n: usize, opts: &BitonicOptions) -> usize {
    scratch_of::<K>(n, Some(V::SIZE), opts).max(scratch_bytes::<K>(n, opts))
}

fn check_lengths(keys: usize, values: usize) -> Result<()> {
    if keys != values {
        return Err(Error::InvalidArgument(format!(
            "bitonic sort of {keys} keys with {values} values"
        )));
    }
    Ok(())
}

/// Every entry point's body: sorts `keys` (with `values`) under `opts` and `tuning`, with the
/// caller's scratch or a new one.
fn sort_tuned<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: Option<&mut DeviceBuffer<V>>,
    opts: &BitonicOptions,
    tuning: &BitonicTuning,
    scratch: Option<&mut DeviceBuffer<u8>>,
) -> Result<()> {
    opts.validate()?;
    if let Some(p) = &tuning.fast {
        p.validate()?;
    }
    if let Some(v) = &values {
        check_lengths(keys.len(), v.len())?;
    }
    let n = keys.len();
    if n < 2 {
        return Ok(());
    }
    let value = values.as_ref().map(|_| V::SIZE);
    let job = Job::of::<K>(n, value, opts.order);
    let scratch = Scratch::get(
        gpu,
        scratch,
        job_scratch(&job, opts.variant),
        "the bitonic sort",
    )?;
    let at = Addrs {
        keys: keys.ptr().addr(),
        values: values.map_or(0, |v| v.ptr().addr()),
        scratch: scratch.buffer(),
    };
    let threads = opts.threads_per_block.unwrap_or(NETWORK_THREADS);
    match opts.variant {
        BitonicVariant::Mapping => {
            let m = network_module::<K>(gpu, value)?;
            mapping::sort(gpu, &m, &job, &at, threads, tuning.plain_exchange)
        }
        BitonicVariant::Notes => {
            let m = network_module::<K>(gpu, value)?;
            notes::sort(gpu, &m, &job, &at, threads)
        }
        BitonicVariant::Fast => {
            let policy = tuning
                .fast
                .unwrap_or_else(|| FastPolicy::for_types(K::SIZE, job.value_size()));
            let m = fast_module::<K>(gpu, value, &policy)?;
            fast::sort(gpu, &m, &job, &policy, &at)
        }
    }
}

/// The entry points' body under the default tuning.
fn sort_with<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: Option<&mut DeviceBuffer<V>>,
    opts: &BitonicOptions,
    scratch: Option<&mut DeviceBuffer<u8>>,
) -> Result<()> {
    sort_tuned(gpu, keys, values, opts, &BitonicTuning::default(), scratch)
}

entry_points! {
    module: "bitonic",
    options: BitonicOptions,
    what: "bitonic sort",
    keys_stability: "Unstable, which keys alone cannot show: the result equals every other sort's bit for bit.",
    pairs_stability: "Unstable: the values of equal keys may come out in any order (each stays with its key).",
}

/// The lengths at which `variant` changes code path or launch shape, for any key and value
/// size: one tile, two tiles, and the first stage that needs two global launches (fast); one
/// block of the published kernels' launches and two. Tests visit each of them ±1 (and powers
/// of two ±1, where the published variants start or stop padding).
pub fn edge_lengths(variant: BitonicVariant) -> Vec<usize> {
    let mut v = match variant {
        BitonicVariant::Mapping | BitonicVariant::Notes => {
            vec![NETWORK_THREADS as usize, 2 * NETWORK_THREADS as usize]
        }
        BitonicVariant::Fast => [(4, 0), (4, 4), (4, 8), (8, 0), (8, 4), (8, 8)]
            .into_iter()
            .flat_map(|(k, v)| {
                let p = FastPolicy::for_types(k, v);
                let t = p.tile();
                [t, 2 * t, t << (p.fuse + 1)]
            })
            .collect(),
    };
    v.sort_unstable();
    v.dedup();
    v
}

/// Knobs beyond [`BitonicOptions`], for measurements: the report's kernel with the plain
/// compare-exchange instead of its atomic pair, and the fast sort under another
/// [`FastPolicy`].
pub mod tuning {
    use super::*;

    /// What [`sort_keys`] and [`sort_pairs`] change against the default sorts.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct BitonicTuning {
        /// [`BitonicVariant::Mapping`] on keys alone: exchange each pair with two loads and
        /// (where out of order) two stores instead of the report's
        /// `atomicMin(&a[m1], atomicMax(&a[m2], a[m1]))`. Pairs always exchange plainly.
        pub plain_exchange: bool,
        /// [`BitonicVariant::Fast`] under this policy instead of
        /// [`FastPolicy::for_types`]'s (each distinct policy is one more compiled module).
        pub fast: Option<FastPolicy>,
    }

    /// [`super::sort_keys_with_scratch`] under `tuning` (scratch: `None` allocates
    /// [`scratch_bytes`] bytes; the tuning does not change the size).
    pub fn sort_keys<K: SortKey>(
        gpu: &Gpu,
        keys: &mut DeviceBuffer<K>,
        opts: &BitonicOptions,
        tuning: &BitonicTuning,
        scratch: Option<&mut DeviceBuffer<u8>>,
    ) -> Result<()> {
        let no_values = None::<&mut DeviceBuffer<u32>>;
        sort_tuned(gpu, keys, no_values, opts, tuning, scratch)
    }

    /// [`super::sort_pairs_with_scratch`] under `tuning` (scratch: `None` allocates
    /// [`scratch_bytes_pairs`] bytes).
    pub fn sort_pairs<K: SortKey, V: SortValue>(
        gpu: &Gpu,
        keys: &mut DeviceBuffer<K>,
        values: &mut DeviceBuffer<V>,
        opts: &BitonicOptions,
        tuning: &BitonicTuning,
        scratch: Option<&mut DeviceBuffer<u8>>,
    ) -> Result<()> {
        sort_tuned(gpu, keys, Some(values), opts, tuning, scratch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sortlab_primitives::Order;

    /// The order word of `order` for keys `K`, as the kernels receive it.
    fn flip_of<K: SortKey>(order: Order) -> u64 {
        Job::of::<K>(2, None, order).flip
    }

    #[test]
    fn scratch_sizes() {
        let o = BitonicOptions::default();
        for v in BitonicVariant::ALL {
            let o = o.with_variant(v);
            assert_eq!(scratch_bytes::<u32>(0, &o), 0);
            assert_eq!(scratch_bytes::<u32>(1, &o), 0);
            assert_eq!(scratch_bytes_pairs::<u64, u64>(1 << 20, &o), 0);
        }
        assert_eq!(scratch_bytes::<u32>(1000, &o), 0);
        let m = o.with_variant(BitonicVariant::Mapping);
        assert_eq!(scratch_bytes::<u32>(1000, &m), 4096);
        assert!(scratch_bytes_pairs::<f64, u32>(1000, &m) >= 8192 + 8192 + 4000);
        assert!(scratch_bytes::<u64>((1 << 32) + 1, &m) >= 8 << 33);
        assert_eq!(flip_of::<i64>(Order::Descending), u64::MAX);
        assert_eq!(flip_of::<f32>(Order::Descending), u32::MAX as u64);
    }

    #[test]
    fn module_configs_cover_every_key_type() {
        for (k, v) in [(4, 0), (4, 4), (4, 8), (8, 0), (8, 4), (8, 8)] {
            let c = module_configs(k, v);
            assert_eq!(c.len(), 6);
            assert!(c.iter().any(|(s, _)| s.name == "fast.cu"));
        }
    }

    #[test]
    fn edge_lengths_cover_paths() {
        let e = edge_lengths(BitonicVariant::Fast);
        assert!(e.contains(&4096) && e.contains(&8192) && e.contains(&16384));
        assert_eq!(edge_lengths(BitonicVariant::Notes), vec![256, 512]);
    }
}
