//! [`StreamSorter`]: a streamed sort that keeps what it allocates between calls.

use std::time::Instant;

use sortlab_primitives::{Error, Gpu, Order, PinnedBuffer, Result, SortKey, SortValue};

use super::host::par_copy;
use super::pipeline::{drive, job_bytes, run_in_place, PinnedOut, PinnedRange};
use super::{
    bucket_places, check_value_count, fill_from_input, nothing_to_sort, plan, radix_lanes,
    split_runs, streamed, HostTemp, Laps, RadixLane, StreamOptions, StreamPhase, StreamProgress,
    StreamReport, Tally,
};

/// Bytes of keys in a sorter's staging pieces: 16 MiB, four times the one-call functions'
/// [`super::PIECE_BYTES`] (96 MiB of page-locked keys for three lanes, paid once): 270 ms
/// against 312 with 4 MiB (H200, 2^30 u32 at 4x the budget; the sweep is in README.md).
const SORTER_PIECE_BYTES: usize = 16 << 20;

/// A streamed sort (see the [module documentation](super)) that keeps its lanes (device
/// buffers, radix scratch, pinned staging) and its runs between calls, the runs in page-locked
/// memory.
///
/// [`super::sort_keys`] and [`super::sort_pairs`] allocate all of these in every call, and the
/// first pass then touches every page of a fresh host temporary: on a 16-core H200 host, page-
/// locking the staging and faulting in the temporary took about a third of a streamed sort of
/// 4 GiB. A sorter pays for them once, in [`StreamSorter::for_keys`] /
/// [`StreamSorter::for_pairs`] (lanes) and its first call of each length (the runs, kept at
/// the largest length seen); later calls move bytes only. It holds its device budget and the
/// page-locked runs (as large as the longest input, keys and values) for its whole life.
///
/// Its runs being page-locked, the first pass copies each sorted run down and the second
/// gathers each bucket up (and copies it down into a page-locked lane output) by DMA: the host
/// copies only the input into the staging pieces and each bucket into place, half the host
/// copies of the one-call functions
/// ([`StreamReport::pinned_runs`](super::StreamReport::pinned_runs)). Keys in page-locked
/// memory ([`StreamSorter::sort_keys_pinned`]) cross by DMA alone: the second pass writes each
/// bucket into its place from every lane at once ([`PinnedBuffer::parts_mut`]), and the host
/// copies nothing. Where the host will not page-lock that much ([`Error::HostOutOfMemory`]
/// from the driver), the sorter keeps an ordinary temporary instead, from then on;
/// [`StreamOptions::pageable_runs`] asks for that temporary from the start.
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
    gpu: Gpu,
    lanes: Vec<RadixLane<K, V>>,
    chunk: usize,
    order: Order,
    with_values: bool,
    runs: PinnedRuns<K, V>,
    /// The ordinary host temporary, used where the runs are not page-locked.
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
        let (chunk, lanes) = radix_lanes::<K, V>(
            gpu,
            budget,
            with_values,
            opts.order,
            None,
            SORTER_PIECE_BYTES,
        )?;
        Ok(StreamSorter {
            gpu: gpu.clone(),
            lanes,
            chunk,
            order: opts.order,
            with_values,
            runs: if opts.pageable_runs {
                PinnedRuns::off()
            } else {
                PinnedRuns::default()
            },
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
        self.sort(Input::Host { keys, values: None }, progress)
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
        let values = Some(values);
        self.sort(Input::Host { keys, values }, progress)
    }

    /// Sorts keys that lie in page-locked memory, in place (a sorter made by
    /// [`StreamSorter::for_keys`]): the first pass reads them by DMA and, with the runs page-
    /// locked (the default), the second writes each sorted bucket into its place by DMA, so
    /// the host copies none of them.
    ///
    /// # Errors
    /// As [`StreamSorter::sort_keys`]; [`Error::InvalidArgument`] for a buffer of another
    /// device, before anything is written.
    ///
    /// # Example
    /// ```no_run
    /// use sortlab_gpu_sorts::stream::{StreamOptions, StreamSorter};
    /// use sortlab_primitives::{Gpu, PinnedBuffer};
    /// let gpu = Gpu::new(0)?;
    /// let opts = StreamOptions::default().with_device_budget(Some(256 << 20));
    /// let mut sorter = StreamSorter::<u32>::for_keys(&gpu, &opts)?;
    /// let mut keys = PinnedBuffer::<u32>::alloc(&gpu, 300_000_000)?;
    /// for (i, k) in keys.as_mut_slice()?.iter_mut().enumerate() {
    ///     *k = (i as u32).wrapping_mul(2_654_435_761);
    /// }
    /// sorter.sort_keys_pinned(&mut keys)?;
    /// assert!(keys.as_slice()?.windows(2).all(|w| w[0] <= w[1]));
    /// # Ok::<(), sortlab_primitives::Error>(())
    /// ```
    pub fn sort_keys_pinned(&mut self, keys: &mut PinnedBuffer<K>) -> Result<StreamReport> {
        self.sort(Input::Pinned { keys, values: None }, &|_| {})
    }

    /// Sorts keys and values that lie in page-locked memory, in place, stably (a sorter made
    /// by [`StreamSorter::for_pairs`]), as [`StreamSorter::sort_keys_pinned`].
    ///
    /// # Errors
    /// As [`StreamSorter::sort_pairs`]; [`Error::InvalidArgument`] for a buffer of another
    /// device, before anything is written.
    pub fn sort_pairs_pinned(
        &mut self,
        keys: &mut PinnedBuffer<K>,
        values: &mut PinnedBuffer<V>,
    ) -> Result<StreamReport> {
        let values = Some(values);
        self.sort(Input::Pinned { keys, values }, &|_| {})
    }

    /// Every entry point's sort: checks the input against the sorter's kind first.
    fn sort(
        &mut self,
        input: Input<'_, K, V>,
        progress: &(dyn Fn(StreamProgress) + Sync),
    ) -> Result<StreamReport> {
        let n = input.len();
        match (self.with_values, input.values_len()) {
            (true, None) => {
                return Err(Error::InvalidArgument(
                    "keys alone on a StreamSorter made for pairs: sort pairs, or use for_keys"
                        .into(),
                ))
            }
            (false, Some(_)) => {
                return Err(Error::InvalidArgument(
                    "pairs on a StreamSorter made for keys: use for_pairs".into(),
                ))
            }
            (_, values) => check_value_count(n, values)?,
        }
        if n < 2 {
            return Ok(nothing_to_sort(progress));
        }
        if n <= self.chunk {
            let (keys, values) = input.into_slices()?;
            return one_job(&mut self.lanes[..1], keys, values, self.chunk, progress);
        }
        if !self.runs.off {
            // Pass 2 writes page-locked input by DMA, without lane outputs.
            let out_lanes = match input {
                Input::Host { .. } => self.lanes.len(),
                Input::Pinned { .. } => 0,
            };
            let runs = n.div_ceil(self.chunk);
            match self
                .runs
                .grow(&self.gpu, runs, out_lanes, self.chunk, self.with_values)
            {
                Ok(()) => {
                    return streamed_pinned(
                        &mut self.lanes,
                        input,
                        self.chunk,
                        self.order,
                        progress,
                        &mut self.runs,
                    )
                }
                // The host would not page-lock that much: the ordinary temporary from now on.
                Err(Error::HostOutOfMemory { .. }) => self.runs = PinnedRuns::off(),
                Err(e) => return Err(e),
            }
        }
        let (keys, values) = input.into_slices()?;
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

/// A sorter's input: keys (and values) in ordinary host memory, or in page-locked buffers.
enum Input<'a, K: SortKey, V: SortValue> {
    Host {
        keys: &'a mut [K],
        values: Option<&'a mut [V]>,
    },
    Pinned {
        keys: &'a mut PinnedBuffer<K>,
        values: Option<&'a mut PinnedBuffer<V>>,
    },
}

impl<'a, K: SortKey, V: SortValue> Input<'a, K, V> {
    fn len(&self) -> usize {
        match self {
            Input::Host { keys, .. } => keys.len(),
            Input::Pinned { keys, .. } => keys.len(),
        }
    }

    /// The number of values (`None` for keys alone).
    fn values_len(&self) -> Option<usize> {
        match self {
            Input::Host { values, .. } => values.as_ref().map(|v| v.len()),
            Input::Pinned { values, .. } => values.as_ref().map(|v| v.len()),
        }
    }

    /// The input as host slices (a pinned buffer's view waits for its copies).
    fn into_slices(self) -> Result<(&'a mut [K], Option<&'a mut [V]>)> {
        Ok(match self {
            Input::Host { keys, values } => (keys, values),
            Input::Pinned { keys, values } => {
                let values = match values {
                    Some(v) => Some(v.as_mut_slice()?),
                    None => None,
                };
                (keys.as_mut_slice()?, values)
            }
        })
    }
}

/// The sorted runs between a sorter's two passes, in page-locked memory: one buffer of a chunk
/// per run (keys, and values), so that pass 1 copies each run down and pass 2 gathers each
/// bucket up by DMA, without the host copies through staging (half of a pass's host copies:
/// what bounded the sorter, README.md). A buffer per run, not one for all: each is written by
/// one lane only, and a copy into a pinned buffer waits for every copy before it.
/// Grown to the most runs a call has needed, kept between calls.
struct PinnedRuns<K: SortKey, V: SortValue> {
    keys: Vec<PinnedBuffer<K>>,
    values: Vec<PinnedBuffer<V>>,
    /// Two outputs of a chunk a lane for the second pass of an ordinary input (keys, and
    /// values).
    outs: Vec<PinnedPair<K, V>>,
    /// Not to be page-locked (the caller asked for pageable runs, or page-locking failed
    /// once): the sorter uses its ordinary temporary instead.
    off: bool,
}

impl<K: SortKey, V: SortValue> Default for PinnedRuns<K, V> {
    fn default() -> Self {
        PinnedRuns {
            keys: Vec::new(),
            values: Vec::new(),
            outs: Vec::new(),
            off: false,
        }
    }
}

impl<K: SortKey, V: SortValue> PinnedRuns<K, V> {
    /// No runs, and none to be page-locked.
    fn off() -> Self {
        PinnedRuns {
            off: true,
            ..PinnedRuns::default()
        }
    }

    /// At least `runs` buffers of `chunk` keys (and values), and two outputs of a chunk for
    /// each of `lanes` (0 where the second pass needs none), in `gpu`'s context.
    fn grow(
        &mut self,
        gpu: &Gpu,
        runs: usize,
        lanes: usize,
        chunk: usize,
        with_values: bool,
    ) -> Result<()> {
        while self.keys.len() < runs {
            self.keys.push(PinnedBuffer::alloc(gpu, chunk)?);
        }
        while with_values && self.values.len() < runs {
            self.values.push(PinnedBuffer::alloc(gpu, chunk)?);
        }
        while self.outs.len() < 2 * lanes {
            let values = with_values
                .then(|| PinnedBuffer::alloc(gpu, chunk))
                .transpose()?;
            self.outs.push((PinnedBuffer::alloc(gpu, chunk)?, values));
        }
        Ok(())
    }
}

/// A page-locked buffer of keys with one of values (`None` without values).
type PinnedPair<K, V> = (PinnedBuffer<K>, Option<PinnedBuffer<V>>);

/// A job's run buffers in the first pass (each job writes its own run).
type RunOut<'a, K, V> = (&'a mut PinnedBuffer<K>, Option<&'a mut PinnedBuffer<V>>);

/// The job's run buffers as the output of its copy down.
fn run_out<'o, K: SortKey, V: SortValue>(out: &'o mut RunOut<'_, K, V>) -> PinnedOut<'o, K, V> {
    PinnedOut {
        keys: &mut *out.0,
        values: out.1.as_deref_mut(),
    }
}

/// A lane of the second pass with its two page-locked outputs (`next` the one its next bucket
/// goes to) and the bucket whose copy down is queued and not yet copied into its place.
struct MergeLane<'a, K: SortKey, V: SortValue> {
    lane: &'a mut RadixLane<K, V>,
    outs: &'a mut [PinnedPair<K, V>],
    next: usize,
    pending: Option<Pending<'a, K, V>>,
}

/// A bucket in `outs[which]` (its `len` elements, `bytes` of link traffic) and its place.
struct Pending<'a, K, V> {
    which: usize,
    len: usize,
    bytes: u64,
    place: (&'a mut [K], &'a mut [V]),
}

impl<K: SortKey, V: SortValue> MergeLane<'_, K, V> {
    /// Copies the pending bucket into its place, once its copy down has finished, and returns
    /// its link bytes (0 when none was pending).
    fn finish(&mut self) -> Result<u64> {
        let Some(p) = self.pending.take() else {
            return Ok(0);
        };
        let (k, v) = &self.outs[p.which];
        par_copy(p.place.0, &k.as_slice()?[..p.len]);
        if let Some(v) = v {
            par_copy(p.place.1, &v.as_slice()?[..p.len]);
        }
        Ok(p.bytes)
    }
}

/// The two passes of a streamed sort (as `streamed`) with the runs in `runs` (grown to the
/// input's chunks and the lanes' outputs): pass 1 copies each chunk's sorted run down into its
/// buffer by DMA, pass 2 gathers each bucket's slices of the runs up and copies the sorted
/// bucket down by DMA, into its place in a page-locked input or else into a lane output; the
/// host copies only an ordinary input into the staging pieces and each of its buckets from its
/// lane output into place.
fn streamed_pinned<K: SortKey, V: SortValue>(
    lanes: &mut [RadixLane<K, V>],
    input: Input<'_, K, V>,
    chunk: usize,
    order: Order,
    progress: &(dyn Fn(StreamProgress) + Sync),
    runs: &mut PinnedRuns<K, V>,
) -> Result<StreamReport> {
    let mut clock = Laps::start();
    let with_values = input.values_len().is_some();
    let (lens, tally) = Tally::plan::<K, V>(input.len(), chunk, with_values, progress);
    let count = lens.len();
    clock.setup();

    // Pass 1: chunks of the input into sorted runs, each copied down into its buffer: the
    // chunks filled through staging from host slices, or copied up by DMA from pinned buffers.
    tally.add(StreamPhase::Runs, 0);
    {
        // Each job gets its own run's buffers (mutable: the copy down writes them).
        let value_runs = runs.values.iter_mut().map(Some);
        let outs = runs.keys[..count]
            .iter_mut()
            .zip(value_runs.chain(std::iter::repeat_with(|| None)));
        let jobs = outs.zip(lens.iter().copied());
        let done = |bytes| tally.add(StreamPhase::Runs, bytes);
        match &input {
            Input::Host { keys, values } => {
                let fill = fill_from_input::<(), K, V>(keys, values.as_deref(), chunk);
                drive(lanes, jobs, &done, &|lane, job, len, out, abort| {
                    lane.run_job_into_pinned(job, len, &(), &fill, run_out(out), abort)
                })?;
            }
            Input::Pinned { keys, values } => {
                let (keys, values) = (&**keys, values.as_deref());
                drive(lanes, jobs, &done, &|lane, job, len, out, abort| {
                    let range = job * chunk..job * chunk + len;
                    let from = [PinnedRange {
                        keys,
                        values,
                        range,
                    }];
                    lane.run_job_between_pinned(job, &from, run_out(out), abort)
                })?;
            }
        }
    }

    // The host's views of the runs wait for every copy down (pass 1 ends there: a page-locked
    // input's jobs are only queued by the lanes).
    let PinnedRuns {
        keys: run_keys,
        values: run_values,
        outs,
        ..
    } = runs;
    let (run_keys, run_values) = (&*run_keys, &*run_values);
    let views: Vec<&[K]> = run_keys[..count]
        .iter()
        .zip(&lens)
        .map(|(b, &len)| Ok(&b.as_slice()?[..len]))
        .collect::<Result<_>>()?;
    clock.runs();
    let bounds = split_runs(&views, order, chunk, &lens)?;
    clock.split();

    // Pass 2: each bucket's slices of the runs copied up by DMA and sorted; then copied down by
    // DMA into its place in page-locked keys, or else into one of its lane's two page-locked
    // outputs and from there into place by the lane's host thread while the lane's next bucket
    // is on its way (so the thread never waits for a bucket's sort before it copies).
    tally.add(StreamPhase::Merge, 0);
    let ranges = |b: usize| -> Vec<PinnedRange<'_, K, V>> {
        (0..count)
            .filter(|&j| bounds[b][j] < bounds[b + 1][j])
            .map(|j| PinnedRange {
                keys: &run_keys[j],
                values: with_values.then(|| &run_values[j]),
                range: bounds[b][j]..bounds[b + 1][j],
            })
            .collect()
    };
    let done = |bytes| tally.add(StreamPhase::Merge, bytes);
    match input {
        Input::Pinned { keys, values } => {
            // Each lane copies its buckets into their places in the caller's buffers, beside the
            // other lanes' copies into other places; progress counts a bucket once its lane's
            // stream has finished it.
            let keys = keys.parts_mut();
            let values = values.map(|v| v.parts_mut());
            let places = (0..count).map(|b| b * chunk);
            drive(
                lanes,
                places.zip(lens.iter().copied()),
                &done,
                &|lane, job, len, at, abort| {
                    if !lane.sort_from_pinned(job, &ranges(job), abort)? {
                        return Ok(0);
                    }
                    lane.job_down_into_parts(len, &keys, values.as_ref(), *at)?;
                    lane.synchronize()?;
                    Ok(lane.bytes(len))
                },
            )?;
        }
        Input::Host { keys, values } => {
            let places = bucket_places(keys, values, chunk);
            let mut states: Vec<MergeLane<'_, K, V>> = lanes
                .iter_mut()
                .zip(outs.chunks_mut(2))
                .map(|(lane, outs)| MergeLane {
                    lane,
                    outs,
                    next: 0,
                    pending: None,
                })
                .collect();
            drive(
                &mut states,
                places.into_iter().zip(lens.iter().copied()),
                &done,
                &|st, job, len, place, abort| {
                    let h = st.next;
                    st.next ^= 1;
                    let (k, v) = &mut st.outs[h];
                    let out = PinnedOut {
                        keys: k,
                        values: v.as_mut(),
                    };
                    let bytes = st
                        .lane
                        .run_job_between_pinned(job, &ranges(job), out, abort)?;
                    // Progress counts a bucket once it is in place: the lane's previous one now.
                    let finished = st.finish()?;
                    st.pending = Some(Pending {
                        which: h,
                        len,
                        bytes,
                        place: std::mem::take(place),
                    });
                    Ok(finished)
                },
            )?;
            for st in &mut states {
                let finished = st.finish()?;
                tally.add(StreamPhase::Merge, finished);
            }
        }
    }
    clock.merge();
    let mut report = tally.report(count, bounds.len() - 1, chunk, clock.times);
    report.pinned_runs = true;
    Ok(report)
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
        pinned_runs: false,
    })
}
