//! Lanes: the engine of a streamed pass. Each lane is a stream of its own, driven by a host
//! thread of its own, with a chunk's device buffers, two small pinned staging buffers and a
//! device step (the radix sort here; other crates bring their own, e.g. arraysort's segmented
//! sort of whole arrays); [`run_pass`] runs jobs through them.
//!
//! A job is at most a chunk of elements: its input goes up in pieces through the staging
//! buffers (the host fills one piece while the link copies the other), the step runs on the
//! device, and the output comes back the same way. Lanes overlap: while one lane's host thread
//! copies, the others' copies in both directions and steps run.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use sortlab_primitives::{
    DeviceBuffer, Error, Gpu, Order, PinnedBuffer, PinnedWrites, Result, SortKey, SortValue,
};

use super::host::par_copy;
use super::plan;
use crate::radix::{self, RadixOptions};

/// Bytes of keys in one staging piece: 4 MiB (2^20 u32 keys), with the values of as many
/// keys beside them: the host fills one piece while the link copies the other. Three lanes of
/// two pieces page-lock 24 MiB of keys whatever the budget (page-locking costs far more per
/// byte than copying, so staging must not grow with the chunk); a [`super::StreamSorter`],
/// which page-locks once, takes larger pieces. The environment variable
/// `SORTLAB_STREAM_PIECE_BYTES`, read when a lane is made, overrides both for tuning runs
/// (README.md has the sweep).
pub const PIECE_BYTES: usize = 4 << 20;

/// `fill(out, job, offset, keys, values)` writes the elements `offset .. offset + keys.len()`
/// of job `job`'s input (keys, and values when there are values) into staging; `out` is the
/// job's output (an in-place pass reads its input there). Called only for pieces with input
/// (not for pieces of padding alone).
pub type Fill<'a, O, K, V> = dyn Fn(&O, usize, usize, &mut [K], Option<&mut [V]>) + Sync + 'a;

/// `drain(out, offset, keys, values)` receives the elements `offset .. offset + keys.len()` of
/// a job's output, with the job's output `out`.
pub type Drain<'a, O, K, V> = dyn Fn(&mut O, usize, &[K], Option<&[V]>) + Sync + 'a;

/// What a lane does on the device to a job between its copy up and its copy down.
pub trait DeviceStep<K: SortKey, V: SortValue>: Send {
    /// Runs on job `job`'s `len` elements at the start of `keys` (and `values`), on the lane's
    /// stream `gpu`, leaving the job's output in their first `len` elements.
    fn run(
        &mut self,
        gpu: &Gpu,
        job: usize,
        len: usize,
        keys: &mut DeviceBuffer<K>,
        values: Option<&mut DeviceBuffer<V>>,
    ) -> Result<()>;

    /// The key a short job is padded with up to the chunk, for a step that works on the whole
    /// buffer (a sort: padding that sorts after every key leaves the job's keys first);
    /// `None` for a step that reads only the job's elements.
    fn padding(&self) -> Option<K>;
}

/// The streamed sort's step: a stable radix sort of the whole chunk (short jobs padded with
/// keys that sort last), with its scratch.
pub(crate) struct RadixStep {
    scratch: DeviceBuffer<u8>,
    order: Order,
    with_values: bool,
}

impl RadixStep {
    /// The step for chunks of `chunk` keys `K`, on `gpu` (the lane's stream).
    pub(crate) fn new<K: SortKey>(
        gpu: &Gpu,
        chunk: usize,
        with_values: bool,
        value_size: usize,
        order: Order,
    ) -> Result<Self> {
        let bytes = plan::scratch::<K>(chunk, if with_values { value_size } else { 0 }, order);
        Ok(RadixStep {
            scratch: DeviceBuffer::alloc(gpu, bytes)?,
            order,
            with_values,
        })
    }
}

impl<K: SortKey, V: SortValue> DeviceStep<K, V> for RadixStep {
    fn run(
        &mut self,
        gpu: &Gpu,
        _job: usize,
        _len: usize,
        keys: &mut DeviceBuffer<K>,
        values: Option<&mut DeviceBuffer<V>>,
    ) -> Result<()> {
        let opts = RadixOptions::default().with_order(self.order);
        match values {
            Some(v) if self.with_values => {
                radix::sort_pairs_with_scratch(gpu, keys, v, &opts, &mut self.scratch)
            }
            _ => radix::sort_keys_with_scratch(gpu, keys, &opts, &mut self.scratch),
        }
    }

    fn padding(&self) -> Option<K> {
        Some(pad_key::<K>(self.order))
    }
}

/// Two staging buffers: while the device copies one, the host fills or drains the other.
struct Staging<T: sortlab_primitives::DeviceCopy> {
    halves: [PinnedBuffer<T>; 2],
}

impl<T: sortlab_primitives::DeviceCopy> Staging<T> {
    fn new(gpu: &Gpu, piece: usize) -> Result<Self> {
        Ok(Staging {
            halves: [
                PinnedBuffer::alloc(gpu, piece)?,
                PinnedBuffer::alloc(gpu, piece)?,
            ],
        })
    }
}

/// One lane: a forked stream, a chunk's keys (and values) on the device, the staging pieces
/// and the device step `S`.
pub struct Lane<K: SortKey, V: SortValue, S: DeviceStep<K, V>> {
    gpu: Gpu,
    keys: DeviceBuffer<K>,
    values: Option<DeviceBuffer<V>>,
    step: S,
    staged_keys: Staging<K>,
    staged_values: Option<Staging<V>>,
    piece: usize,
}

/// Bytes of a job of `len` elements in a lane of `chunk`: to the device (a short job of a
/// padded step sends padding keys up to the chunk) and back.
pub(crate) fn job_bytes(
    len: usize,
    chunk: usize,
    key: usize,
    value: usize,
    padded: bool,
) -> (u64, u64) {
    let up = if padded && len < chunk { chunk } else { len };
    let to_device = (up * key + len * value) as u64;
    let to_host = (len * (key + value)) as u64;
    (to_device, to_host)
}

/// Elements of a staging piece of `bytes` bytes of keys `K` in a lane of `chunk` keys
/// (`SORTLAB_STREAM_PIECE_BYTES`, where set to a positive number, takes the place of `bytes`).
pub(crate) fn piece_len<K: SortKey>(chunk: usize, bytes: usize) -> usize {
    let bytes = std::env::var("SORTLAB_STREAM_PIECE_BYTES")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&b| b > 0)
        .unwrap_or(bytes);
    (bytes / K::SIZE).min(chunk).max(1)
}

/// `start .. end` cut into pieces of `piece`.
pub(crate) fn pieces(
    start: usize,
    end: usize,
    piece: usize,
) -> impl Iterator<Item = (usize, usize)> {
    (start..end)
        .step_by(piece)
        .map(move |s| (s, (s + piece).min(end)))
}

/// What a pass needs of a lane: one job run through it. [`Lane`] runs it on the device; unit
/// tests run a pass's host logic through host models of a lane.
pub trait Transport<K: SortKey, V: SortValue>: Send {
    /// Runs job `job` of `len` elements (at most the lane's chunk): its input from `fill`, the
    /// lane's step on the device, its output to `drain` with `out`. Returns the job's link
    /// bytes; returns early (with `Ok`) once `abort` is set.
    fn run_job<O>(
        &mut self,
        job: usize,
        len: usize,
        out: &mut O,
        fill: &Fill<'_, O, K, V>,
        drain: &Drain<'_, O, K, V>,
        abort: &AtomicBool,
    ) -> Result<u64>;
}

/// The key that sorts after every key in `order` (stably after keys equal to it, which come
/// earlier): the padding of a short job.
pub(crate) fn pad_key<K: SortKey>(order: Order) -> K {
    match order {
        Order::Ascending => K::HIGHEST,
        Order::Descending => K::LOWEST,
    }
}

impl<K: SortKey, V: SortValue, S: DeviceStep<K, V>> Lane<K, V, S> {
    /// A lane on a new stream of `gpu` for chunks of `chunk` keys (with values when
    /// `with_values`), its step made by `step` on the lane's stream: every device and pinned
    /// allocation of the lane, made now.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] or [`Error::HostOutOfMemory`] (the pinned staging), or the
    /// step's own error.
    pub fn new(
        gpu: &Gpu,
        chunk: usize,
        with_values: bool,
        step: impl FnOnce(&Gpu) -> Result<S>,
    ) -> Result<Self> {
        Self::with_piece_bytes(gpu, chunk, with_values, PIECE_BYTES, step)
    }

    /// [`Lane::new`] with staging pieces of `piece_bytes` bytes of keys instead of
    /// [`PIECE_BYTES`] (the same errors): larger pieces cost more page-locked memory, paid
    /// once by a lane kept across calls, and fewer waits per job.
    pub fn with_piece_bytes(
        gpu: &Gpu,
        chunk: usize,
        with_values: bool,
        piece_bytes: usize,
        step: impl FnOnce(&Gpu) -> Result<S>,
    ) -> Result<Self> {
        let gpu = gpu.fork_stream()?;
        let piece = piece_len::<K>(chunk, piece_bytes);
        Ok(Lane {
            keys: DeviceBuffer::alloc(&gpu, chunk)?,
            values: with_values
                .then(|| DeviceBuffer::alloc(&gpu, chunk))
                .transpose()?,
            step: step(&gpu)?,
            staged_keys: Staging::new(&gpu, piece)?,
            staged_values: with_values.then(|| Staging::new(&gpu, piece)).transpose()?,
            piece,
            gpu,
        })
    }

    /// Elements of a job at most: the chunk.
    pub fn chunk(&self) -> usize {
        self.keys.len()
    }
}

/// A range of page-locked host memory a job reads by DMA: elements `range` of `keys` (and of
/// `values`, when the lane carries values).
pub struct PinnedRange<'a, K: SortKey, V: SortValue> {
    /// The keys.
    pub keys: &'a PinnedBuffer<K>,
    /// The values beside them (`None` without values).
    pub values: Option<&'a PinnedBuffer<V>>,
    /// The elements read.
    pub range: std::ops::Range<usize>,
}

/// Page-locked host memory a job writes its output into by DMA, from element 0 on.
pub struct PinnedOut<'a, K: SortKey, V: SortValue> {
    /// The keys.
    pub keys: &'a mut PinnedBuffer<K>,
    /// The values (`None` without values).
    pub values: Option<&'a mut PinnedBuffer<V>>,
}

impl<K: SortKey, V: SortValue, S: DeviceStep<K, V>> Lane<K, V, S> {
    /// Job `job`'s input from element `from` on (`len` in all) in pieces through the staging
    /// buffers to the device (each piece filled while the one before is copied), padded to the
    /// chunk when short and the step pads; `fill` is not called without input (`from ==
    /// len`: padding alone). Returns false when `abort` stopped it.
    fn up_through_staging<O>(
        &mut self,
        job: usize,
        from: usize,
        len: usize,
        out: &O,
        fill: Option<&Fill<'_, O, K, V>>,
        abort: &AtomicBool,
    ) -> Result<bool> {
        let chunk = self.keys.len();
        // A short job of a padded step fills the chunk with the step's padding (keys that sort
        // after every key, stably after equal ones: they come later), so the chunk's first
        // `len` keys come back sorted.
        let pad = self.step.padding();
        let up = match pad {
            Some(_) if len < chunk => chunk,
            _ => len,
        };
        for (i, (s, e)) in pieces(from, up, self.piece).enumerate() {
            if abort.load(Ordering::Relaxed) {
                return Ok(false);
            }
            let h = i % 2;
            let real = e.min(len).saturating_sub(s);
            {
                // Waits for this half's previous copy.
                let keys = &mut self.staged_keys.halves[h].as_mut_slice()?[..e - s];
                let values = match &mut self.staged_values {
                    Some(st) => Some(&mut st.halves[h].as_mut_slice()?[..real]),
                    None => None,
                };
                if let (true, Some(fill)) = (real > 0, fill) {
                    fill(out, job, s, &mut keys[..real], values);
                }
                if let Some(p) = pad {
                    keys[real..].fill(p);
                }
            }
            self.keys
                .copy_from_pinned_async(s, &self.staged_keys.halves[h], 0..e - s)?;
            if let (Some(d), Some(st)) = (&mut self.values, &self.staged_values) {
                d.copy_from_pinned_async(s, &st.halves[h], 0..real)?;
            }
        }
        Ok(true)
    }

    /// The job's `len` output elements back in pieces through the staging buffers (each piece
    /// drained while the next is copied).
    fn down_through_staging<O>(
        &mut self,
        len: usize,
        out: &mut O,
        drain: &Drain<'_, O, K, V>,
    ) -> Result<()> {
        let down: Vec<(usize, usize)> = pieces(0, len, self.piece).collect();
        let queue = |lane: &mut Self, i: usize| -> Result<()> {
            let (s, e) = down[i];
            let h = i % 2;
            lane.keys
                .copy_to_pinned_async(s..e, &mut lane.staged_keys.halves[h], 0)?;
            if let (Some(d), Some(st)) = (&lane.values, &mut lane.staged_values) {
                d.copy_to_pinned_async(s..e, &mut st.halves[h], 0)?;
            }
            Ok(())
        };
        if !down.is_empty() {
            queue(self, 0)?;
        }
        for i in 0..down.len() {
            // The other half was drained in the last round: queue the next piece into it
            // before draining this one.
            if i + 1 < down.len() {
                queue(self, i + 1)?;
            }
            let (s, e) = down[i];
            let h = i % 2;
            // Waits for the piece's copy.
            let keys = &self.staged_keys.halves[h].as_slice()?[..e - s];
            let values = match &self.staged_values {
                Some(st) => Some(&st.halves[h].as_slice()?[..e - s]),
                None => None,
            };
            drain(out, s, keys, values);
        }
        Ok(())
    }

    /// The job's link bytes.
    pub(crate) fn bytes(&self, len: usize) -> u64 {
        let value = if self.values.is_some() { V::SIZE } else { 0 };
        let (to_device, to_host) = job_bytes(
            len,
            self.keys.len(),
            K::SIZE,
            value,
            self.step.padding().is_some(),
        );
        to_device + to_host
    }

    /// Checks that `out` holds a job of `len` elements (and values where the lane carries
    /// values), before any of the job's work is queued.
    fn check_out(&self, len: usize, out: &PinnedOut<'_, K, V>) -> Result<()> {
        let values = out.values.as_ref().map(|v| v.len());
        self.check_room(len, 0, out.keys.len(), values)
    }

    /// Checks that a job of `len` elements fits the lane and, from element `at` on, page-locked
    /// outputs of `keys` keys and (where the lane carries values) `values` values.
    fn check_room(&self, len: usize, at: usize, keys: usize, values: Option<usize>) -> Result<()> {
        check_job(len, self.keys.len())?;
        let fits = |n: usize| at.checked_add(len).is_some_and(|end| end <= n);
        if !fits(keys) || (self.values.is_some() && !values.is_some_and(fits)) {
            return Err(Error::InvalidArgument(format!(
                "a job of {len} elements into a pinned output of {keys} from element {at}"
            )));
        }
        Ok(())
    }

    /// Queues the copy of the job's `len` output elements by DMA into `out` (checked by
    /// `check_out`).
    fn down_into_pinned(&mut self, len: usize, out: PinnedOut<'_, K, V>) -> Result<()> {
        self.keys.copy_to_pinned_async(0..len, out.keys, 0)?;
        if let (Some(d), Some(o)) = (&self.values, out.values) {
            d.copy_to_pinned_async(0..len, o, 0)?;
        }
        Ok(())
    }

    /// Queues the copy of job `job`'s `len` output elements (the job queued by
    /// [`Lane::sort_from_pinned`]) by DMA into elements `at ..` of the buffers behind `keys`
    /// (and `values`), beside other lanes' copies into other elements.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the buffers are too short for `len` elements from `at`
    /// (or `values` is missing where the lane carries values), before anything is queued;
    /// otherwise a driver error of the copies.
    pub(crate) fn job_down_into_parts(
        &mut self,
        len: usize,
        keys: &PinnedWrites<'_, K>,
        values: Option<&PinnedWrites<'_, V>>,
        at: usize,
    ) -> Result<()> {
        self.check_room(len, at, keys.len(), values.map(|v| v.len()))?;
        self.keys.copy_to_pinned_part_async(0..len, keys, at)?;
        if let (Some(d), Some(v)) = (&self.values, values) {
            d.copy_to_pinned_part_async(0..len, v, at)?;
        }
        Ok(())
    }

    /// Waits (on the host) for everything queued on the lane's stream.
    pub(crate) fn synchronize(&self) -> Result<()> {
        self.gpu.synchronize()
    }

    /// Runs job `job` of `len` elements with its input from `fill` (through the staging
    /// buffers) and its output copied by DMA into `out` (no host copy), and returns once the
    /// copy is queued: `out`'s views wait for it. Returns the job's link bytes.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `out` holds fewer than `len` elements (or lacks values
    /// the lane carries); otherwise as [`Transport::run_job`].
    pub fn run_job_into_pinned<O>(
        &mut self,
        job: usize,
        len: usize,
        input: &O,
        fill: &Fill<'_, O, K, V>,
        out: PinnedOut<'_, K, V>,
        abort: &AtomicBool,
    ) -> Result<u64> {
        self.check_out(len, &out)?;
        if !self.up_through_staging(job, 0, len, input, Some(fill), abort)? {
            return Ok(0);
        }
        self.step
            .run(&self.gpu, job, len, &mut self.keys, self.values.as_mut())?;
        self.down_into_pinned(len, out)?;
        Ok(self.bytes(len))
    }

    /// Runs job `job` with its input copied by DMA from `ranges` (their elements in order, all
    /// of the job's), padded to the chunk when short and the step pads, and its output copied
    /// by DMA into `out`; no host copy. Returns once the copies are queued (`out`'s views wait
    /// for them), with the job's link bytes.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the ranges hold more than a chunk, or the ranges or
    /// `out` lack values the lane carries, or `out` is too short; otherwise as
    /// [`Transport::run_job`].
    pub fn run_job_between_pinned(
        &mut self,
        job: usize,
        ranges: &[PinnedRange<'_, K, V>],
        out: PinnedOut<'_, K, V>,
        abort: &AtomicBool,
    ) -> Result<u64> {
        let len: usize = ranges.iter().map(|r| r.range.len()).sum();
        self.check_out(len, &out)?;
        if !self.sort_from_pinned(job, ranges, abort)? {
            return Ok(0);
        }
        self.down_into_pinned(len, out)?;
        Ok(self.bytes(len))
    }

    /// Queues job `job`'s copy up by DMA from `ranges` (as [`Lane::run_job_between_pinned`])
    /// and its step, leaving the output on the device for [`Lane::job_down_into_parts`].
    /// Returns false when `abort` stopped it.
    pub(crate) fn sort_from_pinned(
        &mut self,
        job: usize,
        ranges: &[PinnedRange<'_, K, V>],
        abort: &AtomicBool,
    ) -> Result<bool> {
        let len: usize = ranges.iter().map(|r| r.range.len()).sum();
        check_job(len, self.keys.len())?;
        if self.values.is_some() && ranges.iter().any(|r| r.values.is_none()) {
            return Err(Error::InvalidArgument(
                "a pinned range without the values the lane carries".into(),
            ));
        }
        let mut at = 0;
        for r in ranges {
            self.keys
                .copy_from_pinned_async(at, r.keys, r.range.clone())?;
            if let (Some(d), Some(v)) = (&mut self.values, r.values) {
                d.copy_from_pinned_async(at, v, r.range.clone())?;
            }
            at += r.range.len();
        }
        // Padding, when the job is short and the step pads.
        if !self.up_through_staging::<()>(job, len, len, &(), None, abort)? {
            return Ok(false);
        }
        self.step
            .run(&self.gpu, job, len, &mut self.keys, self.values.as_mut())?;
        Ok(true)
    }
}

/// A job of `len` elements fits a lane of `chunk`.
fn check_job(len: usize, chunk: usize) -> Result<()> {
    if len > chunk {
        return Err(Error::InvalidArgument(format!(
            "a job of {len} elements in a lane of {chunk}"
        )));
    }
    Ok(())
}

impl<K: SortKey, V: SortValue, S: DeviceStep<K, V>> Transport<K, V> for Lane<K, V, S> {
    /// Runs job `job` of `len` elements: its input in pieces through the staging buffers to
    /// the device (each piece filled while the one before is copied), padded to the chunk when
    /// short and the step pads; the step; its output in pieces back (each piece drained while
    /// the next is copied). Returns the job's link bytes.
    fn run_job<O>(
        &mut self,
        job: usize,
        len: usize,
        out: &mut O,
        fill: &Fill<'_, O, K, V>,
        drain: &Drain<'_, O, K, V>,
        abort: &AtomicBool,
    ) -> Result<u64> {
        if !self.up_through_staging(job, 0, len, out, Some(fill), abort)? {
            return Ok(0);
        }
        self.step
            .run(&self.gpu, job, len, &mut self.keys, self.values.as_mut())?;
        self.down_through_staging(len, out, drain)?;
        Ok(self.bytes(len))
    }
}

/// Runs jobs `0..outs.len()` (job `j` of `lens[j]` elements, at most a lane's chunk, its
/// output `outs[j]`) through `lanes`, job `j` on lane `j % lanes`, each lane driven by a host
/// thread of its own: `fill` writes a job's input into staging, the lane's step runs on the
/// device, and `drain` receives the output. `done` gets each finished job's link bytes.
///
/// Each lane's steps are serial (fill and copy up, step, copy down and drain), but the lanes
/// run side by side: while one lane's host thread copies, the others' copies in both
/// directions and steps run. The host copies of all lanes share rayon's pool.
///
/// # Errors
/// The first error of any lane; the other lanes stop at their next piece.
pub fn run_pass<K: SortKey, V: SortValue, O: Send, L: Transport<K, V>>(
    lanes: &mut [L],
    lens: &[usize],
    outs: Vec<O>,
    fill: &Fill<'_, O, K, V>,
    drain: &Drain<'_, O, K, V>,
    done: &(dyn Fn(u64) + Sync),
) -> Result<()> {
    let jobs = outs.into_iter().zip(lens.iter().copied());
    drive(lanes, jobs, done, &|lane, job, len, out, abort| {
        lane.run_job(job, len, out, fill, drain, abort)
    })
}

/// `run(lane, job, len, output, abort)`: runs one job through a lane, returns its link bytes.
pub(crate) type RunJob<'a, L, O> =
    dyn Fn(&mut L, usize, usize, &mut O, &AtomicBool) -> Result<u64> + Sync + 'a;

/// Runs `jobs` (each its output and length, job `j` the `j`-th) through `lanes` as
/// [`run_pass`] does, each by `run`.
pub(crate) fn drive<L: Send, O: Send>(
    lanes: &mut [L],
    jobs: impl Iterator<Item = (O, usize)>,
    done: &(dyn Fn(u64) + Sync),
    run: &RunJob<'_, L, O>,
) -> Result<()> {
    let count = lanes.len().max(1);
    let mut per_lane: Vec<Vec<(usize, usize, O)>> = (0..count).map(|_| Vec::new()).collect();
    for (job, (out, len)) in jobs.enumerate() {
        per_lane[job % count].push((job, len, out));
    }
    let abort = AtomicBool::new(false);
    let first_error: Mutex<Option<Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for (lane, jobs) in lanes.iter_mut().zip(per_lane) {
            let (abort, first_error) = (&abort, &first_error);
            scope.spawn(move || {
                for (job, len, mut out) in jobs {
                    if abort.load(Ordering::Relaxed) {
                        return;
                    }
                    match run(lane, job, len, &mut out, abort) {
                        Ok(bytes) => done(bytes),
                        Err(e) => {
                            abort.store(true, Ordering::Relaxed);
                            let mut slot = first_error.lock().unwrap_or_else(|p| p.into_inner());
                            slot.get_or_insert(e);
                            return;
                        }
                    }
                }
            });
        }
    });
    match first_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// A job's place in the caller's slices (values empty without values).
type Place<'a, K, V> = (&'a mut [K], &'a mut [V]);

/// Runs one job per range of `ranges` (in increasing order, disjoint, each at most a lane's
/// chunk) through `lanes` in place: job `j` reads `keys[ranges[j]]` (and `values`) and its
/// output goes back there; elements outside the ranges are not touched. `done` as in
/// [`run_pass`].
///
/// # Errors
/// As [`run_pass`].
///
/// # Panics
/// When the ranges are out of order or leave `keys` (or `values`).
pub fn run_in_place<K: SortKey, V: SortValue, L: Transport<K, V>>(
    lanes: &mut [L],
    keys: &mut [K],
    values: Option<&mut [V]>,
    ranges: &[std::ops::Range<usize>],
    done: &(dyn Fn(u64) + Sync),
) -> Result<()> {
    let places = carve(keys, values, ranges);
    let lens: Vec<usize> = ranges.iter().map(|r| r.len()).collect();
    let fill =
        |place: &Place<'_, K, V>, _job: usize, off: usize, k: &mut [K], v: Option<&mut [V]>| {
            par_copy(k, &place.0[off..off + k.len()]);
            if let Some(v) = v {
                par_copy(v, &place.1[off..off + v.len()]);
            }
        };
    let drain = |place: &mut Place<'_, K, V>, off: usize, k: &[K], v: Option<&[V]>| {
        par_copy(&mut place.0[off..off + k.len()], k);
        if let Some(v) = v {
            par_copy(&mut place.1[off..off + v.len()], v);
        }
    };
    run_pass(lanes, &lens, places, &fill, &drain, done)
}

/// The places of `ranges` in `keys` (and `values`), in order.
fn carve<'a, K, V>(
    mut keys: &'a mut [K],
    mut values: Option<&'a mut [V]>,
    ranges: &[std::ops::Range<usize>],
) -> Vec<Place<'a, K, V>> {
    let mut places = Vec::with_capacity(ranges.len());
    let mut at = 0;
    for r in ranges {
        let (_, rest) = std::mem::take(&mut keys).split_at_mut(r.start - at);
        let (place, rest) = rest.split_at_mut(r.len());
        keys = rest;
        let vplace: &mut [V] = match values.take() {
            Some(v) => {
                let (_, rest) = v.split_at_mut(r.start - at);
                let (p, rest) = rest.split_at_mut(r.len());
                values = Some(rest);
                p
            }
            None => &mut [],
        };
        places.push((place, vplace));
        at = r.end;
    }
    places
}
