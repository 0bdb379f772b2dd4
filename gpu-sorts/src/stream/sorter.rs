//! [`StreamSorter`]: a streamed sort that keeps what it allocates between calls.

use std::time::Instant;

use sortlab_primitives::{Error, Gpu, Order, Result, SortKey, SortValue};

use super::pipeline::{job_bytes, run_in_place};
use super::{
    nothing_to_sort, plan, radix_lanes, streamed, HostTemp, RadixLane, StreamOptions, StreamPhase,
    StreamProgress, StreamReport,
};

/// A streamed sort (see the [module documentation](super)) that keeps its lanes (device
/// buffers, radix scratch, pinned staging) and its host temporary between calls.
///
/// [`super::sort_keys`] and [`super::sort_pairs`] allocate all of these in every call, and the
/// first pass then touches every page of a fresh host temporary: on a 16-core H200 host, page-
/// locking the staging and faulting in the temporary took about a third of a streamed sort of
/// 4 GiB. A sorter pays for them once, in [`StreamSorter::for_keys`] /
/// [`StreamSorter::for_pairs`] (lanes) and its first call of each length (the temporary, kept
/// at the largest length seen); later calls move bytes only. It holds its device budget for its
/// whole life.
///
/// An input of at most one chunk ([`StreamSorter::chunk_keys`]) is sorted as one job through
/// one lane (two crossings of the link); a longer one takes the two passes (four crossings).
/// The one-call functions also sort inputs of up to about three chunks in one piece, as they
/// may allocate the whole budget for it; a sorter's budget is its lanes'.
///
/// # Example
/// ```no_run
/// use sortlab_gpu_sorts::stream::{StreamOptions, StreamSorter};
/// use sortlab_primitives::Gpu;
/// let gpu = Gpu::new(0)?;
/// let opts = StreamOptions::default().with_device_budget(Some(256 << 20));
/// let mut sorter = StreamSorter::<u32>::for_keys(&gpu, &opts)?;
/// for round in 0..3u32 {
///     let mut keys: Vec<u32> = (0..200_000_000u32).map(|i| i.wrapping_mul(round + 7)).collect();
///     sorter.sort_keys(&mut keys)?;
///     assert!(keys.windows(2).all(|w| w[0] <= w[1]));
/// }
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
pub struct StreamSorter<K: SortKey, V: SortValue = u32> {
    lanes: Vec<RadixLane<K, V>>,
    chunk: usize,
    order: Order,
    with_values: bool,
    temp: HostTemp<K, V>,
}

impl<K: SortKey> StreamSorter<K, u32> {
    /// A sorter of keys alone within the budget of `opts`, in its order.
    ///
    /// # Errors
    /// As [`super::sort_keys`]'s before it writes: a budget below
    /// [`super::min_device_budget`], [`Error::OutOfMemory`], [`Error::HostOutOfMemory`] (the
    /// pinned staging).
    pub fn for_keys(gpu: &Gpu, opts: &StreamOptions) -> Result<Self> {
        Self::new(gpu, opts, false)
    }
}

impl<K: SortKey, V: SortValue> StreamSorter<K, V> {
    /// A sorter of keys with values `V` within the budget of `opts`, in its order.
    ///
    /// # Errors
    /// As [`StreamSorter::for_keys`].
    pub fn for_pairs(gpu: &Gpu, opts: &StreamOptions) -> Result<Self> {
        Self::new(gpu, opts, true)
    }

    fn new(gpu: &Gpu, opts: &StreamOptions, with_values: bool) -> Result<Self> {
        let value_size = if with_values { V::SIZE } else { 0 };
        let budget = plan::budget::<K>(gpu, opts.device_budget, value_size)?;
        let (chunk, lanes) = radix_lanes::<K, V>(gpu, budget, with_values, opts.order, None)?;
        Ok(StreamSorter {
            lanes,
            chunk,
            order: opts.order,
            with_values,
            temp: HostTemp::default(),
        })
    }

    /// Keys per chunk (and per bucket) of this sorter's passes.
    pub fn chunk_keys(&self) -> usize {
        self.chunk
    }

    /// Sorts `keys` in place (a sorter made by [`StreamSorter::for_keys`]).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a sorter of pairs; [`Error::HostOutOfMemory`] when the
    /// temporary cannot grow to `keys`' length; a device error (see the [module
    /// documentation](super) for what the caller's slice then holds).
    pub fn sort_keys(&mut self, keys: &mut [K]) -> Result<StreamReport> {
        self.sort_keys_with_progress(keys, &|_| {})
    }

    /// [`StreamSorter::sort_keys`], calling `progress` as [`super::sort_keys_with_progress`]
    /// does.
    pub fn sort_keys_with_progress(
        &mut self,
        keys: &mut [K],
        progress: &(dyn Fn(StreamProgress) + Sync),
    ) -> Result<StreamReport> {
        if self.with_values {
            return Err(Error::InvalidArgument(
                "sort_keys on a StreamSorter made for pairs: use sort_pairs, or for_keys".into(),
            ));
        }
        self.sort(keys, None, progress)
    }

    /// Sorts `keys` in place, stably, `values[i]` moving with `keys[i]` (a sorter made by
    /// [`StreamSorter::for_pairs`]).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a sorter of keys alone or keys and values of different
    /// lengths; otherwise as [`StreamSorter::sort_keys`].
    pub fn sort_pairs(&mut self, keys: &mut [K], values: &mut [V]) -> Result<StreamReport> {
        self.sort_pairs_with_progress(keys, values, &|_| {})
    }

    /// [`StreamSorter::sort_pairs`], calling `progress` as [`super::sort_pairs_with_progress`]
    /// does.
    pub fn sort_pairs_with_progress(
        &mut self,
        keys: &mut [K],
        values: &mut [V],
        progress: &(dyn Fn(StreamProgress) + Sync),
    ) -> Result<StreamReport> {
        if !self.with_values {
            return Err(Error::InvalidArgument(
                "sort_pairs on a StreamSorter made for keys: use for_pairs".into(),
            ));
        }
        if values.len() != keys.len() {
            return Err(Error::InvalidArgument(format!(
                "streamed sort of {} keys with {} values",
                keys.len(),
                values.len()
            )));
        }
        self.sort(keys, Some(values), progress)
    }

    fn sort(
        &mut self,
        keys: &mut [K],
        values: Option<&mut [V]>,
        progress: &(dyn Fn(StreamProgress) + Sync),
    ) -> Result<StreamReport> {
        let n = keys.len();
        if n < 2 {
            return Ok(nothing_to_sort(progress));
        }
        if n <= self.chunk {
            return one_job(&mut self.lanes[..1], keys, values, self.chunk, progress);
        }
        streamed(
            &mut self.lanes,
            keys,
            values,
            self.chunk,
            self.order,
            progress,
            &mut self.temp,
        )
    }
}

/// An input of at most one chunk through `lane`, in place: up, sorted, back.
fn one_job<K: SortKey, V: SortValue>(
    lane: &mut [RadixLane<K, V>],
    keys: &mut [K],
    values: Option<&mut [V]>,
    chunk: usize,
    progress: &(dyn Fn(StreamProgress) + Sync),
) -> Result<StreamReport> {
    let start = Instant::now();
    let n = keys.len();
    let value_size = if values.is_some() { V::SIZE } else { 0 };
    let (up, down) = job_bytes(n, chunk, K::SIZE, value_size, true);
    let at = |done_bytes| StreamProgress {
        phase: StreamPhase::Runs,
        done_bytes,
        total_bytes: up + down,
    };
    progress(at(0));
    let whole = std::iter::once(0..n).collect::<Vec<_>>();
    run_in_place(lane, keys, values, &whole, &|_| {})?;
    progress(at(up + down));
    Ok(StreamReport {
        chunks: 1,
        buckets: 0,
        crossings: 2,
        bytes_to_device: up,
        bytes_to_host: down,
        chunk_keys: n,
        times: super::StreamTimes {
            runs: start.elapsed(),
            ..super::StreamTimes::default()
        },
    })
}
