//! Streamed sorts: keys (and key-value pairs) in host memory, larger than the device memory
//! the caller allows, sorted through the device in chunks.
//!
//! # Overview
//! [`sort_keys`] and [`sort_pairs`] sort host slices in place using at most
//! [`StreamOptions::device_budget`] bytes of device memory:
//! - If the input fits the budget in one chunk (keys, values and the radix scratch), it goes to
//!   the device, is sorted there by [`crate::radix`] and comes back: every byte crosses the host
//!   link twice.
//! - Otherwise, pass 1 ([`StreamPhase::Runs`]): chunks of `C` keys ([`chunk_keys`]: the
//!   largest chunk of which three lanes fit the budget, each lane a stream of its own, driven
//!   by a host thread of its own, with the chunk's device buffers and its radix scratch) go to
//!   the device through two small pinned staging buffers per lane (pieces of 4 MiB of keys,
//!   one filled by rayon while the other is copied), are sorted there (stable radix), and come
//!   back the same way into a host temporary as sorted runs. While one lane's thread copies on
//!   the host, the other lanes' copies in both directions and sorts run.
//! - The output is then split into buckets of exactly `C` keys (the last may be short) by
//!   multi-sequence selection over the sorted runs on the host: for each bucket boundary, the
//!   exact position in every run, equal keys split by (run, position), which is input order.
//! - Pass 2 ([`StreamPhase::Merge`]): each bucket's slices of the runs are gathered by rayon
//!   into a staging buffer, in run order, sent to the device, sorted there (stable radix, so
//!   equal keys keep input order), sent back and copied into the bucket's final place in the
//!   caller's slices. Same lanes, same overlap.
//!
//! Every key (and value) crosses the link four times when streamed, twice when it fits:
//! [`StreamReport`] says which, with the bytes moved. A host-side merge of the runs instead of
//! pass 2 would save two crossings, but it is bound by host memory bandwidth and not hidden
//! behind the transfers; the GPU pass is, and costs what the link costs. `README.md` beside
//! this module has the arithmetic and the bound the benchmark compares against.
//!
//! # Key types
//! `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, in IEEE total order for floats (as
//! `f32::total_cmp`: `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`); both orders.
//! Values: any [`SortValue`] (4- or 8-byte plain data), moved with their keys.
//!
//! # Stability
//! Stable in both orders: equal keys keep their input order, with their values, so results
//! equal `sortlab_cpu_reference::sort::sort_pairs` bit for bit.
//!
//! # Errors
//! Checked before anything is written, leaving the caller's slices as they were:
//! [`Error::InvalidArgument`] for keys and values of different lengths or a budget below
//! [`min_device_budget`] (named in the message); [`Error::OutOfMemory`] when the device
//! cannot hold the budget's buffers (or, with no budget given, has less free memory than the
//! minimum); [`Error::HostOutOfMemory`] when the host cannot hold the temporary of the runs or
//! page-lock the staging buffers; any device or compile error of pass 1. Pass 1 writes only
//! the host temporary, never the caller's slices. Pass 2 writes the caller's slices bucket by
//! bucket and allocates nothing; only a failing device (a driver error) can stop it, and then
//! the caller's slices hold some sorted buckets and some of the input.
//!
//! # Performance
//! Host memory: a temporary of `n` keys (and values) besides the caller's slices, and 24 MiB
//! of pinned staging for keys (three lanes, two pieces each), with the values of as many. The bound is the link: a streamed sort
//! moves `4 n (key + value)` bytes across it (plus the padding of each pass's last, short
//! chunk), two passes each at best as fast as the slower direction (copies in both
//! directions overlap), so its time is at least `2 n (k + v) / min(h2d, d2h)` with the pinned
//! copy rates measured in the same run (`2 n (k + v) (1/h2d + 1/d2h)` where the directions do
//! not overlap). What bounds the one-call functions (the host's copies through the staging and
//! the first touch of the host temporary) and a [`StreamSorter`] (the host's copies of the
//! input into staging and of the buckets into place), with the measurements, is in `README.md`
//! beside this module.
//!
//! # Sorting again and again
//! [`StreamSorter`] keeps the lanes and the runs between calls: page-locking the staging and
//! the runs is paid once, not in every call, and with the runs page-locked both passes copy
//! them by DMA, without host copies through the staging pieces.
//!
//! # Lanes for other passes
//! The engine under both passes is public: a [`Lane`] (a forked stream, a chunk's device
//! buffers, double-buffered pinned staging) runs any [`DeviceStep`], and [`run_pass`] drives
//! jobs through several lanes with caller-supplied [`Fill`] and [`Drain`]; [`run_in_place`]
//! runs jobs over ranges of the caller's slices, in place (arraysort streams whole arrays
//! through it). [`usable_device_memory`] and [`par_copy`] are the budget and the
//! host copies the passes use.
//!
//! # Example
//! ```no_run
//! use sortlab_gpu_sorts::stream::{self, StreamOptions, StreamPhase};
//! use sortlab_primitives::{Gpu, Order};
//! let gpu = Gpu::new(0)?;
//! let mut keys: Vec<u32> = (0..10_000_000u32).rev().collect();
//! let mut values: Vec<u32> = (0..10_000_000u32).collect();
//! // 16 MiB of device memory for 80 MB of pairs: streamed, in chunks.
//! let opts = StreamOptions::default().with_device_budget(Some(16 << 20));
//! let report = stream::sort_pairs_with_progress(&gpu, &mut keys, &mut values, &opts, &|p| {
//!     let phase = if p.phase == StreamPhase::Runs { "runs" } else { "merge" };
//!     eprintln!("{phase}: {} of {} bytes", p.done_bytes, p.total_bytes);
//! })?;
//! assert_eq!(report.crossings, 4);
//! assert!(keys.windows(2).all(|w| w[0] <= w[1]));
//! assert_eq!(values[0], 9_999_999);
//! stream::sort_keys(&gpu, &mut keys, &opts.with_order(Order::Descending))?;
//! assert_eq!(keys[0], 9_999_999);
//! # Ok::<(), sortlab_primitives::Error>(())
//! ```

mod host;
mod options;
mod pipeline;
mod plan;
mod select;
mod sorter;

pub use host::par_copy;
pub use options::{StreamOptions, StreamPhase, StreamProgress, StreamReport, StreamTimes};
pub use pipeline::{
    run_in_place, run_pass, DeviceStep, Drain, Fill, Lane, PinnedOut, PinnedRange, Transport,
    PIECE_BYTES,
};
pub use plan::{
    budget_for_chunk, chunk_keys, largest_fitting, min_device_budget, usable_device_memory,
    whole_keys, LANES, MIN_CHUNK_KEYS,
};
pub use sorter::StreamSorter;

use std::mem::MaybeUninit;
use std::time::Instant;

use sortlab_primitives::{Error, Gpu, Order, Result, SortKey, SortValue};

use crate::radix::{self, RadixOptions};
use pipeline::{job_bytes, RadixStep};

/// Sorts `keys` in host memory through the device, within the device budget of `opts`.
///
/// See the [module documentation](self) for the design, key types, stability, errors and
/// performance; [`sort_keys_with_progress`] reports progress as it goes.
///
/// # Example
/// ```no_run
/// use sortlab_gpu_sorts::stream::{self, StreamOptions};
/// use sortlab_primitives::Gpu;
/// let gpu = Gpu::new(0)?;
/// let mut keys = vec![3.5f64, -0.0, f64::NAN, 0.0, -2.0];
/// let report = stream::sort_keys(&gpu, &mut keys, &StreamOptions::default())?;
/// assert_eq!(report.crossings, 2); // it fits the device in one chunk
/// assert_eq!(keys[..4], [-2.0, -0.0, 0.0, 3.5]);
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
pub fn sort_keys<K: SortKey>(
    gpu: &Gpu,
    keys: &mut [K],
    opts: &StreamOptions,
) -> Result<StreamReport> {
    sort_keys_with_progress(gpu, keys, opts, &|_| {})
}

/// [`sort_keys`], calling `progress` after every chunk and bucket (and once at the start of
/// each pass), one call at a time (from the sort's lane threads), with bytes done that never
/// decrease and end at the total.
pub fn sort_keys_with_progress<K: SortKey>(
    gpu: &Gpu,
    keys: &mut [K],
    opts: &StreamOptions,
    progress: &(dyn Fn(StreamProgress) + Sync),
) -> Result<StreamReport> {
    sort_impl::<K, u32>(gpu, keys, None, opts, progress)
}

/// Sorts `keys` in host memory through the device, stably, with `values[i]` moving with
/// `keys[i]`, within the device budget of `opts`.
///
/// See the [module documentation](self) for the design, key types, stability, errors and
/// performance; [`sort_pairs_with_progress`] reports progress as it goes.
///
/// # Example
/// ```no_run
/// use sortlab_gpu_sorts::stream::{self, StreamOptions};
/// use sortlab_primitives::Gpu;
/// let gpu = Gpu::new(0)?;
/// let mut keys = vec![2u64, 1, 2, 1];
/// let mut values = vec![0u32, 1, 2, 3];
/// stream::sort_pairs(&gpu, &mut keys, &mut values, &StreamOptions::default())?;
/// assert_eq!(values, [1, 3, 0, 2]);
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
pub fn sort_pairs<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut [K],
    values: &mut [V],
    opts: &StreamOptions,
) -> Result<StreamReport> {
    sort_pairs_with_progress(gpu, keys, values, opts, &|_| {})
}

/// [`sort_pairs`], calling `progress` after every chunk and bucket (and once at the start of
/// each pass), one call at a time (from the sort's lane threads), with bytes done that never
/// decrease and end at the total.
pub fn sort_pairs_with_progress<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut [K],
    values: &mut [V],
    opts: &StreamOptions,
    progress: &(dyn Fn(StreamProgress) + Sync),
) -> Result<StreamReport> {
    sort_impl(gpu, keys, Some(values), opts, progress)
}

/// Every entry point's body: keys, with values when given.
fn sort_impl<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut [K],
    values: Option<&mut [V]>,
    opts: &StreamOptions,
    progress: &(dyn Fn(StreamProgress) + Sync),
) -> Result<StreamReport> {
    let n = keys.len();
    check_value_count(n, values.as_ref().map(|v| v.len()))?;
    let value_size = if values.is_some() { V::SIZE } else { 0 };
    let budget = plan::budget::<K>(gpu, opts.device_budget, value_size)?;
    let order = opts.order;
    if n < 2 {
        return Ok(nothing_to_sort(progress));
    }
    let elem = (K::SIZE + value_size) as u64;
    if plan::sort_bytes::<K>(n, value_size, order).is_some_and(|b| b <= budget) {
        return sort_whole(gpu, keys, values, order, elem, progress);
    }

    // Streamed. Everything that can fail for want of memory is allocated first: the lanes
    // (device buffers, scratch, pinned staging) and the host temporary of the runs.
    let start = Instant::now();
    let (chunk, mut lanes) =
        radix_lanes::<K, V>(gpu, budget, values.is_some(), order, Some(n), PIECE_BYTES)?;
    let lanes_made = start.elapsed();
    let mut temp = HostTemp::default();
    let mut report = streamed(&mut lanes, keys, values, chunk, order, progress, &mut temp)?;
    report.times.setup += lanes_made;
    Ok(report)
}

/// `n` keys with `values` values (`None`: keys alone) are a valid input: as many of each.
pub(crate) fn check_value_count(n: usize, values: Option<usize>) -> Result<()> {
    match values {
        Some(v) if v != n => Err(Error::InvalidArgument(format!(
            "streamed sort of {n} keys with {v} values"
        ))),
        _ => Ok(()),
    }
}

/// A lane of the streamed sort: its step is the radix sort.
pub(crate) type RadixLane<K, V> = Lane<K, V, RadixStep>;

/// The chunk that `budget` gives keys `K` (with values `V` when `with_values`) and the lanes
/// of the radix step for it: [`plan::LANES`] of them, or as many as `n` keys fill: every
/// allocation of the streamed passes on the device.
pub(crate) fn radix_lanes<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    budget: usize,
    with_values: bool,
    order: Order,
    n: Option<usize>,
    piece_bytes: usize,
) -> Result<(usize, Vec<RadixLane<K, V>>)> {
    let value_size = if with_values { V::SIZE } else { 0 };
    let chunk = plan::chunk_keys_in::<K>(budget, value_size, order);
    if chunk < plan::MIN_CHUNK_KEYS {
        return Err(Error::Internal(format!(
            "a budget of {budget} bytes gave chunks of {chunk} keys"
        )));
    }
    let count = n.map_or(plan::LANES, |n| plan::LANES.min(n.div_ceil(chunk)));
    let lanes = (0..count)
        .map(|_| {
            Lane::with_piece_bytes(gpu, chunk, with_values, piece_bytes, |g| {
                RadixStep::new::<K>(g, chunk, with_values, V::SIZE, order)
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((chunk, lanes))
}

/// The report of a sort of fewer than two keys, after its one progress call.
pub(crate) fn nothing_to_sort(progress: &(dyn Fn(StreamProgress) + Sync)) -> StreamReport {
    progress(StreamProgress {
        phase: StreamPhase::Runs,
        done_bytes: 0,
        total_bytes: 0,
    });
    StreamReport::default()
}

/// The two passes of a streamed sort of `keys` (and `values`) in chunks of `chunk` through
/// `lanes` (made for that chunk).
fn streamed<K: SortKey, V: SortValue, L: Transport<K, V>>(
    lanes: &mut [L],
    keys: &mut [K],
    values: Option<&mut [V]>,
    chunk: usize,
    order: Order,
    progress: &(dyn Fn(StreamProgress) + Sync),
    temp: &mut HostTemp<K, V>,
) -> Result<StreamReport> {
    let mut clock = Laps::start();
    let n = keys.len();
    let with_values = values.is_some();
    let (lens, tally) = Tally::plan::<K, V>(n, chunk, with_values, progress);
    let (temp_keys, temp_values) = temp.reserve(n, with_values)?;

    // Pass 1: chunks of the input into sorted runs in the temporary.
    clock.setup();
    tally.add(StreamPhase::Runs, 0);
    {
        let fill = fill_from_input(keys, values.as_deref(), chunk);
        let value_out = &mut temp_values.spare_capacity_mut()[..if with_values { n } else { 0 }];
        let outs: Vec<Out<'_, MaybeUninit<K>, MaybeUninit<V>>> = temp_keys.spare_capacity_mut()
            [..n]
            .chunks_mut(chunk)
            .zip(chunks_or_empty(value_out, chunk))
            .collect();
        let drain = |out: &mut Out<'_, MaybeUninit<K>, MaybeUninit<V>>,
                     off: usize,
                     k: &[K],
                     v: Option<&[V]>| {
            host::par_copy_uninit(&mut out.0[off..off + k.len()], k);
            if let Some(v) = v {
                host::par_copy_uninit(&mut out.1[off..off + v.len()], v);
            }
        };
        let done = |bytes| tally.add(StreamPhase::Runs, bytes);
        pipeline::run_pass(lanes, &lens, outs, &fill, &drain, &done)?;
    }
    // SAFETY: pass 1 succeeded, so every job was drained in full, and jobs `j * chunk ..
    // + lens[j]` cover `0..n`: every element of the temporaries (of the values, when there are
    // values) has been written.
    unsafe {
        temp_keys.set_len(n);
        if with_values {
            temp_values.set_len(n);
        }
    }
    clock.runs();

    let runs: Vec<&[K]> = temp_keys.chunks(chunk).collect();
    let bounds = split_runs(&runs, order, chunk, &lens)?;
    clock.split();

    // Pass 2: each bucket gathered from the runs, sorted, into its place in the caller's slices.
    tally.add(StreamPhase::Merge, 0);
    {
        let value_runs: Vec<&[V]> = temp_values.chunks(chunk).collect();
        let fill =
            |_: &(&mut [K], &mut [V]), b: usize, off: usize, k: &mut [K], v: Option<&mut [V]>| {
                if k.is_empty() {
                    return; // padding only
                }
                let (lo, hi) = (&bounds[b], &bounds[b + 1]);
                let slices: Vec<&[K]> = (0..runs.len()).map(|j| &runs[j][lo[j]..hi[j]]).collect();
                host::par_gather(k, &host::sub_slices(&slices, off, k.len()));
                if let Some(v) = v {
                    let slices: Vec<&[V]> = (0..runs.len())
                        .map(|j| &value_runs[j][lo[j]..hi[j]])
                        .collect();
                    host::par_gather(v, &host::sub_slices(&slices, off, v.len()));
                }
            };
        let done = |bytes| tally.add(StreamPhase::Merge, bytes);
        let outs = bucket_places(keys, values, chunk);
        pipeline::run_pass(lanes, &lens, outs, &fill, &drain_to_place, &done)?;
    }
    clock.merge();
    Ok(tally.report(lens.len(), bounds.len() - 1, chunk, clock.times))
}

/// The lengths of the jobs of `n` elements in chunks of `chunk` (the last one short).
fn job_lens(n: usize, chunk: usize) -> Vec<usize> {
    (0..n.div_ceil(chunk))
        .map(|j| chunk.min(n - j * chunk))
        .collect()
}

/// The wall-clock laps of a streamed sort's steps.
pub(crate) struct Laps {
    clock: Instant,
    pub(crate) times: StreamTimes,
}

impl Laps {
    pub(crate) fn start() -> Self {
        Laps {
            clock: Instant::now(),
            times: StreamTimes::default(),
        }
    }

    fn lap(&mut self) -> std::time::Duration {
        let t = self.clock.elapsed();
        self.clock = Instant::now();
        t
    }

    pub(crate) fn setup(&mut self) {
        self.times.setup = self.lap();
    }

    pub(crate) fn runs(&mut self) {
        self.times.runs = self.lap();
    }

    pub(crate) fn split(&mut self) {
        self.times.split = self.lap();
    }

    pub(crate) fn merge(&mut self) {
        self.times.merge = self.lap();
    }
}

/// The link bytes of a two-pass streamed sort and its progress: calls from every lane's
/// thread, one at a time, so that the bytes reported never decrease.
pub(crate) struct Tally<'p> {
    done: std::sync::Mutex<u64>,
    to_device: u64,
    to_host: u64,
    progress: &'p (dyn Fn(StreamProgress) + Sync),
}

impl<'p> Tally<'p> {
    /// The jobs' lengths of a two-pass sort of `n` keys `K` (with values `V` when
    /// `with_values`) in chunks of `chunk`, the same in both passes (buckets have the chunks'
    /// lengths), and the tally of their link bytes.
    pub(crate) fn plan<K: SortKey, V: SortValue>(
        n: usize,
        chunk: usize,
        with_values: bool,
        progress: &'p (dyn Fn(StreamProgress) + Sync),
    ) -> (Vec<usize>, Self) {
        let lens = job_lens(n, chunk);
        let value_size = if with_values { V::SIZE } else { 0 };
        let (mut to_device, mut to_host) = (0u64, 0u64);
        for &len in &lens {
            let (up, down) = job_bytes(len, chunk, K::SIZE, value_size, true);
            to_device += up;
            to_host += down;
        }
        let tally = Tally {
            done: std::sync::Mutex::new(0),
            to_device: 2 * to_device,
            to_host: 2 * to_host,
            progress,
        };
        (lens, tally)
    }

    /// `bytes` more done in `phase`.
    pub(crate) fn add(&self, phase: StreamPhase, bytes: u64) {
        let mut d = self.done.lock().unwrap_or_else(|p| p.into_inner());
        *d += bytes;
        (self.progress)(StreamProgress {
            phase,
            done_bytes: *d,
            total_bytes: self.to_device + self.to_host,
        });
    }

    /// The report of the finished sort.
    pub(crate) fn report(
        &self,
        chunks: usize,
        buckets: usize,
        chunk: usize,
        times: StreamTimes,
    ) -> StreamReport {
        StreamReport {
            chunks,
            buckets,
            crossings: 4,
            bytes_to_device: self.to_device,
            bytes_to_host: self.to_host,
            chunk_keys: chunk,
            times,
            pinned_runs: false,
        }
    }
}

/// Pass 1's fill: job `j`'s elements from `j * chunk` on of the caller's input.
pub(crate) fn fill_from_input<'a, O, K: SortKey, V: SortValue>(
    keys: &'a [K],
    values: Option<&'a [V]>,
    chunk: usize,
) -> impl Fn(&O, usize, usize, &mut [K], Option<&mut [V]>) + Sync + 'a {
    move |_: &O, j: usize, off: usize, k: &mut [K], v: Option<&mut [V]>| {
        if k.is_empty() {
            return; // padding only
        }
        let at = j * chunk + off;
        host::par_copy(k, &keys[at..at + k.len()]);
        if let (Some(v), Some(src)) = (v, values) {
            host::par_copy(v, &src[at..at + v.len()]);
        }
    }
}

/// The exact split points of every `chunk`-th output rank in the sorted `runs` (select.rs),
/// checked against the jobs' lengths `lens`: bucket `b` is `bounds[b][j]..bounds[b + 1][j]` of
/// every run `j`.
pub(crate) fn split_runs<K: SortKey>(
    runs: &[&[K]],
    order: Order,
    chunk: usize,
    lens: &[usize],
) -> Result<Vec<Vec<usize>>> {
    let bounds = select::bucket_bounds(runs, order, chunk);
    let bucket_lens: Vec<usize> = bounds
        .windows(2)
        .map(|w| w[1].iter().sum::<usize>() - w[0].iter().sum::<usize>())
        .collect();
    if bucket_lens != lens {
        return Err(Error::Internal(format!(
            "bucket sizes {bucket_lens:?} differ from the chunks' {lens:?}"
        )));
    }
    Ok(bounds)
}

/// Pass 2's outputs: bucket `b`'s place in the caller's slices, `b * chunk ..`.
pub(crate) fn bucket_places<'a, K, V>(
    keys: &'a mut [K],
    values: Option<&'a mut [V]>,
    chunk: usize,
) -> Vec<(&'a mut [K], &'a mut [V])> {
    let value_out: &mut [V] = match values {
        Some(v) => v,
        None => &mut [],
    };
    keys.chunks_mut(chunk)
        .zip(chunks_or_empty(value_out, chunk))
        .collect()
}

/// Pass 2's drain: a bucket's sorted elements into its place.
pub(crate) fn drain_to_place<K: Copy + Send + Sync, V: Copy + Send + Sync>(
    out: &mut (&mut [K], &mut [V]),
    off: usize,
    k: &[K],
    v: Option<&[V]>,
) {
    host::par_copy(&mut out.0[off..off + k.len()], k);
    if let Some(v) = v {
        host::par_copy(&mut out.1[off..off + v.len()], v);
    }
}

/// An input that fits the budget in one chunk: to the device, the radix sort, back.
fn sort_whole<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut [K],
    values: Option<&mut [V]>,
    order: Order,
    elem: u64,
    progress: &(dyn Fn(StreamProgress) + Sync),
) -> Result<StreamReport> {
    let n = keys.len();
    let bytes = n as u64 * elem;
    let at = |done_bytes| StreamProgress {
        phase: StreamPhase::Runs,
        done_bytes,
        total_bytes: 2 * bytes,
    };
    progress(at(0));
    let start = Instant::now();
    let opts = RadixOptions::default().with_order(order);
    match values {
        Some(v) => radix::sort_pairs_host(gpu, keys, v, &opts)?,
        None => radix::sort_keys_host(gpu, keys, &opts)?,
    }
    progress(at(2 * bytes));
    Ok(StreamReport {
        chunks: 1,
        buckets: 0,
        crossings: 2,
        bytes_to_device: bytes,
        bytes_to_host: bytes,
        chunk_keys: n,
        times: StreamTimes {
            runs: start.elapsed(),
            ..StreamTimes::default()
        },
        pinned_runs: false,
    })
}

/// A job's output: its place for keys and for values (empty without values).
type Out<'a, K, V> = (&'a mut [K], &'a mut [V]);

/// `slice` in chunks of `chunk`, then empty slices without end (for values that may be absent).
fn chunks_or_empty<T>(slice: &mut [T], chunk: usize) -> impl Iterator<Item = &mut [T]> {
    slice
        .chunks_mut(chunk)
        .chain(std::iter::repeat_with(|| -> &mut [T] { &mut [] }))
}

/// The host temporary of the runs (keys, and values when there are values), in ordinary
/// memory: a [`StreamSorter`] keeps one for when its page-locked runs cannot be had, so that
/// its pages are touched once.
pub(crate) struct HostTemp<K, V> {
    keys: Vec<K>,
    values: Vec<V>,
}

impl<K, V> Default for HostTemp<K, V> {
    fn default() -> Self {
        HostTemp {
            keys: Vec::new(),
            values: Vec::new(),
        }
    }
}

impl<K, V> HostTemp<K, V> {
    /// The two vectors emptied, with room for `n` elements each (values only `with_values`),
    /// or [`Error::HostOutOfMemory`].
    fn reserve(&mut self, n: usize, with_values: bool) -> Result<(&mut Vec<K>, &mut Vec<V>)> {
        self.keys.clear();
        self.values.clear();
        room(&mut self.keys, n)?;
        if with_values {
            room(&mut self.values, n)?;
        }
        Ok((&mut self.keys, &mut self.values))
    }
}

/// Room for `n` elements in the empty `v` (backed by huge pages where the kernel will), or
/// [`Error::HostOutOfMemory`].
fn room<T>(v: &mut Vec<T>, n: usize) -> Result<()> {
    v.try_reserve_exact(n).map_err(|_| Error::HostOutOfMemory {
        requested: n.saturating_mul(std::mem::size_of::<T>()),
    })?;
    host::advise_huge_pages(&mut v.spare_capacity_mut()[..n]);
    Ok(())
}

#[cfg(test)]
mod tests {
    //! The passes' host logic (chunks, pieces, padding, selection, gather, placement, progress)
    //! through a host model of a lane: the same jobs, pieces and padding, sorted by the CPU
    //! reference's stable sort instead of the device.

    use std::sync::atomic::AtomicBool;
    use std::sync::Mutex;

    use super::pipeline::{pad_key, pieces, Drain, Fill};
    use super::*;
    use sortlab_cpu_reference::sort as reference;

    /// A lane on the host: a chunk's buffers, filled and drained in pieces of `piece`.
    struct HostLane {
        chunk: usize,
        piece: usize,
        with_values: bool,
        order: Order,
    }

    impl<K: SortKey> Transport<K, u32> for HostLane {
        fn run_job<O>(
            &mut self,
            job: usize,
            len: usize,
            out: &mut O,
            fill: &Fill<'_, O, K, u32>,
            drain: &Drain<'_, O, K, u32>,
            _abort: &AtomicBool,
        ) -> Result<u64> {
            let order = self.order;
            assert!(len <= self.chunk && len > 0);
            let up = if len < self.chunk { self.chunk } else { len };
            let mut keys: Vec<K> = Vec::new();
            let mut values: Vec<u32> = Vec::new();
            let mut stage_k = vec![pad_key::<K>(order); self.piece];
            let mut stage_v = vec![0u32; self.piece];
            for (s, e) in pieces(0, up, self.piece) {
                let real = e.min(len).saturating_sub(s);
                let v = self.with_values.then_some(&mut stage_v[..real]);
                fill(out, job, s, &mut stage_k[..real], v);
                stage_k[real..e - s].fill(pad_key::<K>(order));
                keys.extend_from_slice(&stage_k[..e - s]);
                values.extend_from_slice(&stage_v[..real]);
            }
            values.resize(up, 0);
            if self.with_values {
                reference::sort_pairs(&mut keys, &mut values, order).unwrap();
            } else {
                reference::sort(&mut keys, order);
            }
            for (s, e) in pieces(0, len, self.piece) {
                let v = self.with_values.then_some(&values[s..e]);
                drain(out, s, &keys[s..e], v);
            }
            let value = if self.with_values { 4 } else { 0 };
            let (a, b) = pipeline::job_bytes(len, self.chunk, K::SIZE, value, true);
            Ok(a + b)
        }
    }

    /// `n` pseudo-random values below `modulo` from `seed` (the workspace's one hash).
    fn values_below(seed: u64, n: usize, modulo: u64) -> Vec<u64> {
        (0..n as u64)
            .map(|i| sortlab_verify::seed::splitmix64(seed ^ i.wrapping_mul(0x9e37_79b9)) % modulo)
            .collect()
    }

    /// Sorts `input` (keys; and pairs with index values) through host lanes in chunks of
    /// `chunk` and pieces of `piece`, against the reference; checks the report and progress.
    fn check<K: SortKey>(
        input: &[K],
        chunk: usize,
        piece: usize,
        order: Order,
        temp: &mut HostTemp<K, u32>,
    ) {
        let n = input.len();
        let what = format!("{} n={n} chunk={chunk} piece={piece} {order:?}", K::NAME);
        for with_values in [false, true] {
            let mut lanes: Vec<HostLane> = (0..3)
                .map(|_| HostLane {
                    chunk,
                    piece,
                    with_values,
                    order,
                })
                .collect();
            let mut keys = input.to_vec();
            let mut values: Vec<u32> = (0..n as u32).collect();
            let seen = Mutex::new(Vec::<StreamProgress>::new());
            let record = |p: StreamProgress| seen.lock().unwrap().push(p);
            let r = streamed::<K, u32, HostLane>(
                &mut lanes,
                &mut keys,
                with_values.then_some(&mut values[..]),
                chunk,
                order,
                &record,
                temp,
            )
            .unwrap();
            let (mut ek, mut ev) = (input.to_vec(), (0..n as u32).collect::<Vec<_>>());
            reference::sort_pairs(&mut ek, &mut ev, order).unwrap();
            assert!(
                keys.iter()
                    .zip(&ek)
                    .all(|(a, b)| a.to_ordered_bits() == b.to_ordered_bits()),
                "keys {what}"
            );
            if with_values {
                assert_eq!(values, ev, "values {what}");
            } else {
                assert!(values.iter().enumerate().all(|(i, &v)| v == i as u32));
            }
            let elem = (K::SIZE + if with_values { 4 } else { 0 }) as u64;
            assert_eq!(r.chunks, n.div_ceil(chunk), "{what}");
            assert_eq!((r.buckets, r.crossings, r.chunk_keys), (r.chunks, 4, chunk));
            assert_eq!(r.bytes_to_host, 2 * n as u64 * elem, "{what}");
            let pad = (r.chunks * chunk - n) as u64 * K::SIZE as u64;
            assert_eq!(r.bytes_to_device, 2 * (n as u64 * elem + pad), "{what}");
            let seen = seen.into_inner().unwrap();
            let total = r.bytes_to_device + r.bytes_to_host;
            assert!(seen.windows(2).all(|w| w[0].done_bytes <= w[1].done_bytes));
            assert!(seen.iter().all(|p| p.total_bytes == total));
            assert_eq!(seen.last().unwrap().done_bytes, total, "{what}");
            assert_eq!(seen.last().unwrap().phase, StreamPhase::Merge);
            assert_eq!(seen[0].phase, StreamPhase::Runs);
        }
    }

    #[test]
    fn passes_through_host_lanes() {
        // One temporary per key type for every call: reused across lengths, as a
        // `StreamSorter` reuses it.
        let (mut tu, mut ti, mut tf, mut tf32) = (
            HostTemp::default(),
            HostTemp::default(),
            HostTemp::default(),
            HostTemp::default(),
        );
        for order in [Order::Ascending, Order::Descending] {
            for (n, chunk, piece) in [
                (2, 1, 1),
                (10, 3, 2),
                (1000, 100, 100),
                (1000, 101, 7),
                (999, 100, 64),
                (1001, 100, 30),
                (4097, 1000, 1000),
                (50_000, 4096, 1024),
                (50_000, 3000, 4096),
            ] {
                for modulo in [u64::MAX, 1000, 3, 1] {
                    let raw = values_below((n as u64).wrapping_add(modulo), n, modulo);
                    let u: Vec<u32> = raw.iter().map(|&x| x as u32).collect();
                    check(&u, chunk, piece.min(chunk), order, &mut tu);
                    let i: Vec<i64> = raw.iter().map(|&x| x as i64 - 500).collect();
                    check(&i, chunk, piece.min(chunk), order, &mut ti);
                }
                let specials = [f64::NAN, -f64::NAN, -0.0, 0.0, 1.0, f64::NEG_INFINITY];
                let f: Vec<f64> = values_below(n as u64, n, 6)
                    .into_iter()
                    .map(|i| specials[i as usize])
                    .collect();
                check(&f, chunk, piece.min(chunk), order, &mut tf);
                let f32s: Vec<f32> = f.iter().map(|&x| x as f32).collect();
                check(&f32s, chunk, piece.min(chunk), order, &mut tf32);
            }
        }
    }
}
