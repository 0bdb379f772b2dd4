//! A sort across several GPUs of one host (or of several processes), through NCCL.
//!
//! # Overview
//! G ranks each hold a share of the keys (and values) on their GPU. After the sort, rank `i`
//! holds the `i`-th range of the sorted sequence: the concatenation of the shares in rank order
//! is the stable sort of the concatenated input. The steps, each rank on its own thread (one
//! scoped thread per GPU of a [`GpuGroup`]) or its own process ([`sort_keys_rank`]):
//! 1. **Local sort**: each rank sorts a copy of its share with the stable radix sort
//!    ([`crate::radix`]), so the caller's buffers stay untouched until the end (or, with
//!    [`MultiOptions::in_place`] and in the host-memory entry points, the share itself).
//! 2. **Samples**: each rank takes the keys at positions `0, s, 2s, ...` of its sorted share,
//!    with the step `s = ceil(n / (G * oversampling))` the same on every rank (so every sample
//!    stands for at most `s` keys, whatever the shares' lengths), and all ranks all-gather them
//!    through NCCL. Every key is identified by the tuple (ordered bits in the sort's order,
//!    rank, position in its rank's sorted share): tuples are distinct and their order is the
//!    stable order.
//! 3. **Splitters and cuts**: every rank picks the same G - 1 splitters on the host: splitter
//!    `i` is the first sample whose preceding samples weigh `floor(i n / G)` keys or more. Each
//!    rank then finds, for every splitter, how many of its keys have a smaller tuple: a binary
//!    search on the device (`multi_cuts`) within the one sample step its own samples bracket.
//!    Equal keys are split by (rank, position), so all-equal, few-distinct and zipf inputs
//!    balance as well as distinct keys.
//! 4. **Exchange**: the send counts are all-gathered (every rank learns what it receives), then
//!    one grouped all-to-all (`ncclGroupStart`, a send and a receive per peer, `ncclGroupEnd`)
//!    moves the keys, and another the values.
//! 5. **Merge**: each rank received G sorted runs, in rank order; merge-path merges of pairs of
//!    runs (ceil(log2 G) levels, ties from the lower rank) make them one, stably, with the
//!    merge sort's shared-memory merge blocks for one pair of runs of any lengths
//!    (`merge_pair_partition` + `merge_pair_pass` of `merge.cu`).
//!
//! Before each NCCL step the ranks all-gather a status word, so that a rank that fails
//! locally (a bad argument, out of memory) stops every rank at the same step with an error
//! instead of leaving them waiting in NCCL. A failure of the status exchange itself, or in the
//! middle of the all-to-all, cannot be agreed on that way.
//!
//! With G = 1 there is no NCCL call: the rank sorts its share with the radix sort.
//!
//! # Balance
//! No rank ends with more than [`max_share`]`(n, G, oversampling)` = `ceil(n / G) + (G + 1)
//! (s - 1)` keys, for any input (the cuts are within `s - 1` of the samples' estimate on each
//! of the G ranks, and each splitter within one sample's weight of its target). With the
//! default oversampling of 1024 and G = 4, that is at most 0.5% over `n / G`; with `n <= G *
//! oversampling` the step is 1 and the split is exact (`ceil(n / G)`; n smaller than G leaves
//! one key on each of the first ranks at most). The bound does not depend on how the keys are
//! spread over the input shares (empty shares included).
//!
//! # Key types
//! `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, in IEEE total order for floats (as
//! `f32::total_cmp`), both orders. Values: any [`SortValue`]. Keys and values cross NCCL as
//! raw 4- or 8-byte words.
//!
//! # Stability
//! Stable in both orders: keys equal in their ordered bits keep the order (rank, position in
//! the rank's input share), with their values. The result equals the CPU reference's stable
//! sort of the concatenated shares (`sortlab_cpu_reference::sort::sort_pairs`) exactly.
//!
//! # Errors
//! [`Error::InvalidArgument`] for shares not matching the group (count, device), keys and
//! values of different lengths, or an oversampling of 0; [`Error::OutOfMemory`]; NCCL failures
//! as [`Error::Nccl`] (a rank that stops because a peer failed reports that as `Error::Nccl`
//! naming the peer; the group entry points return the failing rank's own error). On every
//! error the caller's shares are unchanged: the sorted shares replace them only when every
//! rank succeeded (with [`MultiOptions::in_place`], an error after the local sort leaves each
//! share sorted, the same keys and values in another order).
//!
//! # Performance
//! Each key crosses between GPUs at most once (in the exchange): (G - 1) / G of them on
//! average for random inputs, `(key + value bytes) * n * (G - 1) / G` over NVLink or PCIe in
//! all. Per rank, the device moves the radix sort's traffic over n / G keys, a copy of the
//! share (none in place), the exchange, and 2 × ceil(log2 G) merge passes over the received
//! keys; the sample, cut and count steps move a few KiB (one synchronisation each). Memory per rank: the input,
//! its sorted copy and the radix sort's scratch, then the sorted copy and the received keys,
//! then the received keys and the merge's second buffer: about 3 times the share (plus the
//! caller's). Measured on 4 NVIDIA H200s (NVLink), 2^30 `u32` keys resident: 1.10x one GPU's
//! radix sort with 2 GPUs, 1.45x with 4, the exchange about a third of the time. `README.md`
//! beside this module has the table, the byte arithmetic and what bounds the speedup.
//!
//! # Example
//! ```no_run
//! use sortlab_gpu_sorts::multi::{self, MultiOptions};
//! use sortlab_primitives::runtime::GpuGroup;
//! use sortlab_primitives::{DeviceBuffer, Order};
//! let group = GpuGroup::all()?;
//! let mut shares = group
//!     .gpus()
//!     .iter()
//!     .enumerate()
//!     .map(|(i, gpu)| DeviceBuffer::from_host(gpu, &[9u32 - i as u32, 3, 7]))
//!     .collect::<Result<Vec<_>, _>>()?;
//! let report = multi::sort_keys(&group, &mut shares, &MultiOptions::default())?;
//! assert_eq!(report.shares.iter().sum::<usize>(), 3 * group.len());
//! let mut keys = vec![5.0f64, -1.0, 2.5, f64::NAN];
//! multi::sort_keys_host(&group, &mut keys, &MultiOptions::default().with_order(Order::Descending))?;
//! assert!(keys[0].is_nan() && keys[3] == -1.0);
//! # Ok::<(), sortlab_primitives::Error>(())
//! ```

mod kernels;
mod rank;
mod splitters;

pub use kernels::MULTI_SOURCE;
pub use splitters::max_share;

use std::ops::Range;

use sortlab_primitives::runtime::{Communicator, GpuGroup};
use sortlab_primitives::{
    Defines, DeviceBuffer, Error, KernelSource, Order, Result, SortKey, SortValue,
};

use rank::{Failure, Outcome, Share};

/// Every kernel source of the multi-GPU sort (for compile checks).
pub const SOURCES: [KernelSource; 1] = [MULTI_SOURCE];

/// Every module configuration (source and defines) the multi-GPU sort compiles for keys of
/// `key_size` bytes (every key type of that size) and values of `value_size` bytes (0: keys
/// only): for compile checks without a GPU. The local sort's are the radix sort's
/// ([`crate::radix::module_configs`]), the merge's the merge sort's fast ones
/// ([`crate::merge::module_configs`]).
pub fn module_configs(key_size: usize, value_size: usize) -> Vec<(KernelSource, Defines)> {
    let value = (value_size > 0).then_some(value_size);
    let defines = match key_size {
        4 => vec![
            kernels::defines::<u32>(value),
            kernels::defines::<i32>(value),
            kernels::defines::<f32>(value),
        ],
        _ => vec![
            kernels::defines::<u64>(value),
            kernels::defines::<i64>(value),
            kernels::defines::<f64>(value),
        ],
    };
    defines.into_iter().map(|d| (MULTI_SOURCE, d)).collect()
}

/// How a multi-GPU sort runs.
///
/// `Default`: ascending, oversampling 1024, untimed, the input shares left as they are.
///
/// ```
/// use sortlab_gpu_sorts::multi::MultiOptions;
/// use sortlab_primitives::Order;
/// let opts = MultiOptions::default().with_order(Order::Descending).with_timed(true);
/// assert_eq!(opts.oversampling, 1024);
/// assert!(opts.timed);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MultiOptions {
    /// Ascending or descending (IEEE total order for floats).
    pub order: Order,
    /// Samples per rank when the shares are equal (the sample step is `ceil(n / (G *
    /// oversampling))`); larger means better balance ([`max_share`]) and more samples to
    /// gather (8 bytes each). At least 1.
    pub oversampling: usize,
    /// Whether to time the steps ([`MultiReport::times`]): the ranks synchronise their streams
    /// at the end of each step, which costs a little.
    pub timed: bool,
    /// Whether the local sort may sort each input share where it is instead of a copy: saves
    /// a copy of the share (time and memory), but on an error after the local sort the input
    /// shares hold their keys (and values) sorted, no longer as they came. The host-memory
    /// entry points always sort their uploads in place (the host keeps the input).
    pub in_place: bool,
}

impl Default for MultiOptions {
    fn default() -> Self {
        MultiOptions {
            order: Order::Ascending,
            oversampling: 1024,
            timed: false,
            in_place: false,
        }
    }
}

impl MultiOptions {
    /// The same options in `order`.
    pub fn with_order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }
    /// The same options with `oversampling` samples per rank.
    pub fn with_oversampling(mut self, oversampling: usize) -> Self {
        self.oversampling = oversampling;
        self
    }
    /// The same options, timed or not.
    pub fn with_timed(mut self, timed: bool) -> Self {
        self.timed = timed;
        self
    }
    /// The same options, sorting the input shares in place or not.
    pub fn with_in_place(mut self, in_place: bool) -> Self {
        self.in_place = in_place;
        self
    }
}

/// What a multi-GPU sort did.
#[derive(Clone, Debug, PartialEq)]
pub struct MultiReport {
    /// The number of keys each rank holds after the sort, rank order.
    pub shares: Vec<usize>,
    /// Bytes of keys and values that crossed between GPUs in the exchange (all ranks together;
    /// a rank's keys for itself are not counted).
    pub exchanged_bytes: u64,
    /// Seconds per step when [`MultiOptions::timed`] (the slowest rank's, for the group entry
    /// points), else `None`.
    pub times: Option<MultiTimes>,
}

/// Seconds spent in each step of a multi-GPU sort (each step ends with its rank's stream idle).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MultiTimes {
    /// The local radix sort of the share and its samples.
    pub local_sort: f64,
    /// The sample all-gather, the splitters, the cuts, the count all-gather and the receive
    /// buffers.
    pub splitters: f64,
    /// The all-to-all of keys and values.
    pub exchange: f64,
    /// The merge of the received runs.
    pub merge: f64,
}

impl MultiTimes {
    /// The sum of the steps.
    pub fn total(&self) -> f64 {
        self.local_sort + self.splitters + self.exchange + self.merge
    }
    fn max(self, o: MultiTimes) -> MultiTimes {
        MultiTimes {
            local_sort: self.local_sort.max(o.local_sort),
            splitters: self.splitters.max(o.splitters),
            exchange: self.exchange.max(o.exchange),
            merge: self.merge.max(o.merge),
        }
    }
}

/// Runs `per_rank` for every rank of `group` (with its item of `inputs`) on its own scoped
/// thread; returns every rank's outcome and the report, or the error of the lowest rank that
/// failed on its own (else the first peer error).
fn run_group<K: SortKey, V: SortValue, I: Send>(
    group: &GpuGroup,
    inputs: Vec<I>,
    per_rank: impl Fn(&Communicator, I) -> std::result::Result<Outcome<K, V>, Failure> + Sync,
) -> Result<(Vec<Outcome<K, V>>, MultiReport)> {
    if inputs.len() != group.len() {
        return Err(Error::Internal(format!(
            "{} inputs for {} ranks",
            inputs.len(),
            group.len()
        )));
    }
    // One group operation at a time: two sorts' collectives interleaved would deadlock.
    let _turn = group.exclusive();
    let results: Vec<std::result::Result<Outcome<K, V>, Failure>> = std::thread::scope(|s| {
        let handles: Vec<_> = group
            .communicators()
            .iter()
            .zip(inputs)
            .map(|(comm, input)| {
                let f = &per_rank;
                s.spawn(move || f(comm, input))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(Failure::Own(Error::Internal(
                        "a rank of the multi-GPU sort panicked".into(),
                    )))
                })
            })
            .collect()
    });
    let mut outcomes = Vec::with_capacity(results.len());
    let (mut own, mut peer) = (None, None);
    for r in results {
        match r {
            Ok(o) => outcomes.push(o),
            Err(Failure::Own(e)) => {
                own.get_or_insert(e);
            }
            Err(Failure::Peer(e)) => {
                peer.get_or_insert(e);
            }
        }
    }
    if let Some(e) = own.or(peer) {
        return Err(e);
    }
    let mut report = outcomes
        .first()
        .map(|o| o.report.clone())
        .ok_or_else(|| Error::Internal("a GPU group without ranks".into()))?;
    report.times = outcomes
        .iter()
        .filter_map(|o| o.report.times)
        .reduce(MultiTimes::max);
    Ok((outcomes, report))
}

/// Checks that `bufs` are one buffer per GPU of `group`, each on its GPU.
fn check_shares<T: sortlab_primitives::DeviceCopy>(
    group: &GpuGroup,
    bufs: &[DeviceBuffer<T>],
    what: &str,
) -> Result<()> {
    if bufs.len() != group.len() {
        return Err(Error::InvalidArgument(format!(
            "{} {what} shares for a group of {} GPUs",
            bufs.len(),
            group.len()
        )));
    }
    for (i, (b, gpu)) in bufs.iter().zip(group.gpus()).enumerate() {
        let (have, want) = (b.gpu().info().ordinal, gpu.info().ordinal);
        if have != want {
            return Err(Error::InvalidArgument(format!(
                "{what} share {i} lives on device {have}, rank {i} runs on device {want}"
            )));
        }
    }
    Ok(())
}

/// Sorts keys spread over the GPUs of `group`: `shares[i]` lives on `group.gpus()[i]`; on
/// success each is replaced by rank `i`'s range of the sorted keys
/// ([`MultiReport::shares`] gives the lengths).
///
/// # Overview
/// One scoped thread per GPU runs the steps of the [module documentation](self) with its
/// rank's communicator. With one GPU, the radix sort of the share, no NCCL.
///
/// # Key types
/// `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, IEEE total order for floats, both orders.
///
/// # Stability
/// Stable (not observable for keys alone).
///
/// # Errors
/// [`Error::InvalidArgument`] when `shares` does not have one buffer per GPU, on its GPU, or
/// the oversampling is 0; [`Error::OutOfMemory`]; [`Error::Nccl`]. The shares are unchanged on
/// error.
///
/// # Performance
/// See the [module documentation](self).
///
/// # Example
/// ```no_run
/// use sortlab_gpu_sorts::multi::{self, MultiOptions};
/// use sortlab_primitives::runtime::GpuGroup;
/// use sortlab_primitives::DeviceBuffer;
/// let group = GpuGroup::new(&[0, 1])?;
/// let mut shares = vec![
///     DeviceBuffer::from_host(&group.gpus()[0], &[5u64, 1, 9])?,
///     DeviceBuffer::from_host(&group.gpus()[1], &[4u64, 8])?,
/// ];
/// let report = multi::sort_keys(&group, &mut shares, &MultiOptions::default())?;
/// let flat: Vec<u64> = shares.iter().flat_map(|s| s.to_host().unwrap()).collect();
/// assert_eq!(flat, [1, 4, 5, 8, 9]);
/// assert_eq!(report.shares.iter().sum::<usize>(), 5);
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
pub fn sort_keys<K: SortKey>(
    group: &GpuGroup,
    shares: &mut Vec<DeviceBuffer<K>>,
    opts: &MultiOptions,
) -> Result<MultiReport> {
    check_shares(group, shares, "key")?;
    let inputs: Vec<&mut DeviceBuffer<K>> = shares.iter_mut().collect();
    let (outcomes, report) = run_group::<K, u32, _>(group, inputs, |comm, keys| {
        let share = Share {
            keys,
            values: None,
            in_place: opts.in_place,
        };
        rank::run(comm, Ok(share), opts)
    })?;
    *shares = outcomes.into_iter().map(|o| o.keys).collect();
    Ok(report)
}

/// [`sort_keys`] for keys and values: `values[i]` (as long as `keys[i]`, on the same GPU)
/// moves with `keys[i]`.
///
/// # Overview
/// As [`sort_keys`]; values cross NCCL in a second all-to-all after the keys.
///
/// # Key types
/// Keys: `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, IEEE total order for floats, both orders.
/// Values: any [`SortValue`].
///
/// # Stability
/// Stable in both orders: equal keys keep the order (rank, position in the rank's share), with
/// their values; the concatenated result equals the CPU reference's stable sort exactly.
///
/// # Errors
/// As [`sort_keys`], and [`Error::InvalidArgument`] for a share whose keys and values differ
/// in length. Keys and values are unchanged on error.
///
/// # Performance
/// See the [module documentation](self).
///
/// # Example
/// ```no_run
/// use sortlab_gpu_sorts::multi::{self, MultiOptions};
/// use sortlab_primitives::runtime::GpuGroup;
/// use sortlab_primitives::DeviceBuffer;
/// let group = GpuGroup::new(&[0, 1])?;
/// let g = group.gpus();
/// let mut keys = vec![DeviceBuffer::from_host(&g[0], &[2u32, 1])?, DeviceBuffer::from_host(&g[1], &[1u32])?];
/// let mut values = vec![DeviceBuffer::from_host(&g[0], &[0u32, 1])?, DeviceBuffer::from_host(&g[1], &[2u32])?];
/// multi::sort_pairs(&group, &mut keys, &mut values, &MultiOptions::default())?;
/// let flat: Vec<u32> = values.iter().flat_map(|s| s.to_host().unwrap()).collect();
/// assert_eq!(flat, [1, 2, 0]);
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
pub fn sort_pairs<K: SortKey, V: SortValue>(
    group: &GpuGroup,
    keys: &mut Vec<DeviceBuffer<K>>,
    values: &mut Vec<DeviceBuffer<V>>,
    opts: &MultiOptions,
) -> Result<MultiReport> {
    check_shares(group, keys, "key")?;
    check_shares(group, values, "value")?;
    for (i, (k, v)) in keys.iter().zip(values.iter()).enumerate() {
        if k.len() != v.len() {
            return Err(Error::InvalidArgument(format!(
                "multi-GPU sort of {} keys with {} values in share {i}",
                k.len(),
                v.len()
            )));
        }
    }
    let inputs: Vec<_> = keys.iter_mut().zip(values.iter_mut()).collect();
    let (outcomes, report) = run_group::<K, V, _>(group, inputs, |comm, (k, v)| {
        let share = Share {
            keys: k,
            values: Some(v),
            in_place: opts.in_place,
        };
        rank::run(comm, Ok(share), opts)
    })?;
    let (mut ok, mut ov) = (Vec::new(), Vec::new());
    for o in outcomes {
        let v = o
            .values
            .ok_or_else(|| Error::Internal("a pair sort lost its values".into()))?;
        ok.push(o.keys);
        ov.push(v);
    }
    *keys = ok;
    *values = ov;
    Ok(report)
}

/// One rank's part of [`sort_keys`], for ranks in separate processes (or threads): every rank
/// of `comm`'s clique calls it, with the same options, and `keys` (on `comm.gpu()`) is replaced
/// on success by this rank's range.
///
/// # Overview
/// The same body as [`sort_keys`] runs for every rank. Make the communicators with
/// [`Communicator::from_unique_id`] from one [`sortlab_primitives::runtime::NcclUniqueId`]
/// passed to every process (its text form is 256 hex digits).
///
/// # Key types
/// `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, IEEE total order for floats, both orders.
///
/// # Stability
/// Stable (not observable for keys alone).
///
/// # Errors
/// As [`sort_keys`]; when a peer fails at one of the agreed steps, [`Error::Nccl`] naming it.
/// `keys` is unchanged on error.
///
/// # Performance
/// See the [module documentation](self).
///
/// # Example
/// ```no_run
/// use sortlab_gpu_sorts::multi::{self, MultiOptions};
/// use sortlab_primitives::runtime::{Communicator, NcclUniqueId};
/// use sortlab_primitives::{DeviceBuffer, Gpu};
/// // In each of `ranks` processes, with the id rank 0 made and passed on as text:
/// let (rank, ranks): (usize, usize) = (0, 1);
/// let id: NcclUniqueId = NcclUniqueId::new()?.to_string().parse()?;
/// let gpu = Gpu::new(rank)?;
/// let comm = Communicator::from_unique_id(&gpu, &id, rank, ranks)?;
/// let mut keys = DeviceBuffer::from_host(&gpu, &[3i64, -1, 2])?;
/// multi::sort_keys_rank(&comm, &mut keys, &MultiOptions::default())?;
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
pub fn sort_keys_rank<K: SortKey>(
    comm: &Communicator,
    keys: &mut DeviceBuffer<K>,
    opts: &MultiOptions,
) -> Result<MultiReport> {
    let share = Share {
        keys,
        values: None,
        in_place: opts.in_place,
    };
    let o = rank::run::<K, u32>(comm, Ok(share), opts).map_err(Failure::into_error)?;
    *keys = o.keys;
    Ok(o.report)
}

/// One rank's part of [`sort_pairs`]: as [`sort_keys_rank`], with `values` moving with `keys`.
///
/// # Overview
/// The same body as [`sort_pairs`] runs for every rank.
///
/// # Key types
/// Keys: `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, IEEE total order for floats, both orders.
/// Values: any [`SortValue`].
///
/// # Stability
/// Stable in both orders, ties ordered by (rank, position).
///
/// # Errors
/// As [`sort_keys_rank`], and [`Error::InvalidArgument`] for keys and values of different
/// lengths (on any rank: every rank stops). Keys and values are unchanged on error.
///
/// # Performance
/// See the [module documentation](self).
///
/// # Example
/// ```no_run
/// use sortlab_gpu_sorts::multi::{self, MultiOptions};
/// use sortlab_primitives::runtime::Communicator;
/// use sortlab_primitives::{DeviceBuffer, Gpu};
/// let gpu = Gpu::new(0)?;
/// let comm = Communicator::single(&gpu);
/// let mut keys = DeviceBuffer::from_host(&gpu, &[3u32, 1, 3])?;
/// let mut values = DeviceBuffer::from_host(&gpu, &[0u64, 1, 2])?;
/// multi::sort_pairs_rank(&comm, &mut keys, &mut values, &MultiOptions::default())?;
/// assert_eq!(values.to_host()?, [1, 0, 2]);
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
pub fn sort_pairs_rank<K: SortKey, V: SortValue>(
    comm: &Communicator,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    opts: &MultiOptions,
) -> Result<MultiReport> {
    let share = Share {
        keys,
        values: Some(values),
        in_place: opts.in_place,
    };
    let o = rank::run::<K, V>(comm, Ok(share), opts).map_err(Failure::into_error)?;
    let v = o
        .values
        .ok_or_else(|| Error::Internal("a pair sort lost its values".into()))?;
    *keys = o.keys;
    *values = v;
    Ok(o.report)
}

/// The even split of `n` keys over `g` ranks: rank `i` gets `floor(i n / g) ..
/// floor((i + 1) n / g)`.
fn even_split(n: usize, g: usize) -> Vec<Range<usize>> {
    let at = |i: usize| ((i as u128 * n as u128) / g as u128) as usize;
    (0..g).map(|i| at(i)..at(i + 1)).collect()
}

/// Splits `host` into consecutive parts of `lens`.
fn split_mut<'a, T>(mut host: &'a mut [T], lens: &[usize]) -> Result<Vec<&'a mut [T]>> {
    let mut parts = Vec::with_capacity(lens.len());
    for &l in lens {
        if l > host.len() {
            return Err(Error::Internal(format!(
                "shares of {} keys for {} host keys",
                lens.iter().sum::<usize>(),
                parts.iter().map(|p: &&mut [T]| p.len()).sum::<usize>() + host.len()
            )));
        }
        let (a, b) = host.split_at_mut(l);
        parts.push(a);
        host = b;
    }
    Ok(parts)
}

/// Downloads every rank's `bufs[i]` into its part of `host` (parts of `lens`), one thread per
/// rank.
fn download<T: sortlab_primitives::DeviceCopy>(
    host: &mut [T],
    bufs: &[&DeviceBuffer<T>],
    lens: &[usize],
) -> Result<()> {
    let parts = split_mut(host, lens)?;
    std::thread::scope(|s| {
        let handles: Vec<_> = parts
            .into_iter()
            .zip(bufs)
            .map(|(part, buf)| s.spawn(move || buf.copy_to_host(part)))
            .collect();
        handles.into_iter().try_for_each(|h| {
            h.join()
                .unwrap_or_else(|_| Err(Error::Internal("a download thread panicked".into())))
        })
    })
}

/// Sorts host keys with every GPU of `group`: the keys are split evenly, each GPU uploads its
/// part (concurrently, one thread per GPU), the ranks sort as [`sort_keys`], and each rank's
/// range is downloaded into its place in `keys`.
///
/// # Overview
/// Host memory to host memory: every key crosses the host link twice (up and down), in
/// parallel on all GPUs, and between GPUs at most once.
///
/// # Key types
/// `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, IEEE total order for floats, both orders.
///
/// # Stability
/// Stable (not observable for keys alone).
///
/// # Errors
/// As [`sort_keys`]. `keys` is unchanged on every error before the downloads (a download that
/// fails part way may leave it partly written).
///
/// # Performance
/// See the [module documentation](self).
///
/// # Example
/// ```no_run
/// use sortlab_gpu_sorts::multi::{self, MultiOptions};
/// use sortlab_primitives::runtime::GpuGroup;
/// let group = GpuGroup::all()?;
/// let mut keys: Vec<u32> = (0..1_000_000u32).rev().collect();
/// multi::sort_keys_host(&group, &mut keys, &MultiOptions::default())?;
/// assert!(keys.windows(2).all(|w| w[0] <= w[1]));
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
pub fn sort_keys_host<K: SortKey>(
    group: &GpuGroup,
    keys: &mut [K],
    opts: &MultiOptions,
) -> Result<MultiReport> {
    let input: &[K] = keys;
    let parts = even_split(input.len(), group.len());
    let (outcomes, report) = run_group::<K, u32, _>(group, parts, |comm, range| {
        let mut up = DeviceBuffer::from_host(comm.gpu(), &input[range]);
        let share = up.as_mut().map_err(|e| e.clone()).map(|k| Share {
            keys: k,
            values: None,
            in_place: true,
        });
        rank::run(comm, share, opts)
    })?;
    let bufs: Vec<&DeviceBuffer<K>> = outcomes.iter().map(|o| &o.keys).collect();
    download(keys, &bufs, &report.shares)?;
    Ok(report)
}

/// [`sort_keys_host`] for keys and values: `values[i]` moves with `keys[i]`.
///
/// # Overview
/// As [`sort_keys_host`], values uploaded and downloaded beside the keys.
///
/// # Key types
/// Keys: `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, IEEE total order for floats, both orders.
/// Values: any [`SortValue`].
///
/// # Stability
/// Stable in both orders: the result equals the CPU reference's stable sort of the pairs.
///
/// # Errors
/// [`Error::InvalidArgument`] for keys and values of different lengths (nothing uploaded);
/// else as [`sort_keys_host`].
///
/// # Performance
/// See the [module documentation](self).
///
/// # Example
/// ```no_run
/// use sortlab_gpu_sorts::multi::{self, MultiOptions};
/// use sortlab_primitives::runtime::GpuGroup;
/// let group = GpuGroup::all()?;
/// let mut keys = vec![2.0f32, 1.0, 2.0];
/// let mut values = vec![0u32, 1, 2];
/// multi::sort_pairs_host(&group, &mut keys, &mut values, &MultiOptions::default())?;
/// assert_eq!(values, [1, 0, 2]);
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
pub fn sort_pairs_host<K: SortKey, V: SortValue>(
    group: &GpuGroup,
    keys: &mut [K],
    values: &mut [V],
    opts: &MultiOptions,
) -> Result<MultiReport> {
    if keys.len() != values.len() {
        return Err(Error::InvalidArgument(format!(
            "multi-GPU sort of {} keys with {} values",
            keys.len(),
            values.len()
        )));
    }
    let (ik, iv): (&[K], &[V]) = (keys, values);
    let parts = even_split(ik.len(), group.len());
    let (outcomes, report) = run_group::<K, V, _>(group, parts, |comm, range| {
        let mut up = DeviceBuffer::from_host(comm.gpu(), &ik[range.clone()])
            .and_then(|k| DeviceBuffer::from_host(comm.gpu(), &iv[range]).map(|v| (k, v)));
        let share = up.as_mut().map_err(|e| e.clone()).map(|(k, v)| Share {
            keys: k,
            values: Some(v),
            in_place: true,
        });
        rank::run(comm, share, opts)
    })?;
    let kbufs: Vec<&DeviceBuffer<K>> = outcomes.iter().map(|o| &o.keys).collect();
    let vbufs = outcomes
        .iter()
        .map(|o| {
            o.values
                .as_ref()
                .ok_or_else(|| Error::Internal("a pair sort lost its values".into()))
        })
        .collect::<Result<Vec<_>>>()?;
    download(keys, &kbufs, &report.shares)?;
    download(values, &vbufs, &report.shares)?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_splits_cover_the_input() {
        for (n, g) in [(0, 1), (3, 4), (10, 3), (1_000_003, 4)] {
            let parts = even_split(n, g);
            assert_eq!(parts.len(), g);
            assert_eq!(parts[0].start, 0);
            assert_eq!(parts[g - 1].end, n);
            assert!(parts.windows(2).all(|w| w[0].end == w[1].start));
            assert!(parts.iter().all(|p| p.len() <= n.div_ceil(g)));
        }
    }

    #[test]
    fn split_mut_cuts_in_place() {
        let mut v = [1, 2, 3, 4, 5];
        let parts = split_mut(&mut v, &[2, 0, 3]).unwrap();
        assert_eq!(parts.iter().map(|p| p.len()).collect::<Vec<_>>(), [2, 0, 3]);
        assert!(split_mut(&mut v, &[6]).is_err());
    }

    #[test]
    fn multi_needs_nccl_only_past_one_gpu() {
        // Without a GPU: NoDevice; with one and no NCCL, a group of one still works.
        match GpuGroup::new(&[0]) {
            Ok(g) => assert_eq!(g.len(), 1),
            Err(e) => assert!(matches!(e, Error::NoDevice { .. }), "{e}"),
        }
    }
}
