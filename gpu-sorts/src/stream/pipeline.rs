//! The lanes of a streamed pass: each a stream of its own, driven by a host thread of its own,
//! with a chunk's device buffers and radix scratch and two small pinned staging buffers; and
//! the pass that runs jobs through them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use sortlab_primitives::{
    DeviceBuffer, Error, Gpu, Order, PinnedBuffer, Result, SortKey, SortValue,
};

use super::plan;
use crate::radix::{self, RadixOptions};

/// Bytes of keys in one staging piece: 4 MiB (2^20 u32 keys), with the values of as many
/// keys beside them: the host fills one piece while the link copies the other. Three lanes of
/// two pieces page-lock 24 MiB of keys whatever the budget (page-locking costs far more per
/// byte than copying, so staging must not grow with the chunk). Untuned (README.md).
pub(crate) const PIECE_BYTES: usize = 4 << 20;

/// Writes the elements `offset .. offset + keys.len()` of job `j`'s input (keys, and values
/// when there are values) into staging; called only for pieces with input (not for pieces of
/// padding alone).
pub(crate) type Fill<'a, K, V> = dyn Fn(usize, usize, &mut [K], Option<&mut [V]>) + Sync + 'a;

/// Receives the elements `offset .. offset + keys.len()` of a job's sorted output, with the
/// job's output `O`.
pub(crate) type Drain<'a, O, K, V> = dyn Fn(&mut O, usize, &[K], Option<&[V]>) + Sync + 'a;

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

/// One lane: a forked stream, a chunk's keys (and values) on the device, the radix scratch
/// of a chunk, and the staging pieces.
pub(crate) struct Lane<K: SortKey, V: SortValue> {
    gpu: Gpu,
    keys: DeviceBuffer<K>,
    values: Option<DeviceBuffer<V>>,
    scratch: DeviceBuffer<u8>,
    staged_keys: Staging<K>,
    staged_values: Option<Staging<V>>,
    piece: usize,
}

/// Bytes of a job of `len` elements in a lane of `chunk`: to the device (a short job sends
/// padding keys up to the chunk) and back.
pub(crate) fn job_bytes(len: usize, chunk: usize, key: usize, value: usize) -> (u64, u64) {
    let up = if len < chunk { chunk } else { len };
    let to_device = (up * key + len * value) as u64;
    let to_host = (len * (key + value)) as u64;
    (to_device, to_host)
}

/// Elements of a staging piece of keys `K` in a lane of `chunk` keys.
pub(crate) fn piece_len<K: SortKey>(chunk: usize) -> usize {
    (PIECE_BYTES / K::SIZE).min(chunk).max(1)
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

/// What a pass needs of a lane: one job run through it. [`Lane`] runs it on the device; the
/// unit tests run the passes' host logic through a host model of a lane.
pub(crate) trait Transport<K: SortKey, V: SortValue>: Send {
    /// Runs job `job` of `len` elements (at most the lane's chunk): its input from `fill`,
    /// sorted stably in `order`, its output to `drain` with `out`. Returns the job's link
    /// bytes; returns early (with `Ok`) once `abort` is set.
    #[allow(clippy::too_many_arguments)]
    fn run_job<O>(
        &mut self,
        job: usize,
        len: usize,
        out: &mut O,
        order: Order,
        fill: &Fill<'_, K, V>,
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

impl<K: SortKey, V: SortValue> Lane<K, V> {
    /// A lane on a new stream of `gpu` for chunks of `chunk` keys (with values when
    /// `with_values`): every device and pinned allocation of the lane, made now.
    pub(crate) fn new(gpu: &Gpu, chunk: usize, with_values: bool, order: Order) -> Result<Self> {
        let gpu = gpu.fork_stream()?;
        let value_size = if with_values { V::SIZE } else { 0 };
        let scratch = plan::scratch::<K>(chunk, value_size, order);
        let piece = piece_len::<K>(chunk);
        Ok(Lane {
            keys: DeviceBuffer::alloc(&gpu, chunk)?,
            values: with_values
                .then(|| DeviceBuffer::alloc(&gpu, chunk))
                .transpose()?,
            scratch: DeviceBuffer::alloc(&gpu, scratch)?,
            staged_keys: Staging::new(&gpu, piece)?,
            staged_values: with_values.then(|| Staging::new(&gpu, piece)).transpose()?,
            piece,
            gpu,
        })
    }
}

impl<K: SortKey, V: SortValue> Transport<K, V> for Lane<K, V> {
    /// Runs job `job` of `len` elements: its input in pieces through the staging buffers to
    /// the device (each piece filled while the one before is copied), padded to the chunk when
    /// short; the sort; its output in pieces back (each piece drained while the next is
    /// copied). Returns the job's link bytes.
    fn run_job<O>(
        &mut self,
        job: usize,
        len: usize,
        out: &mut O,
        order: Order,
        fill: &Fill<'_, K, V>,
        drain: &Drain<'_, O, K, V>,
        abort: &AtomicBool,
    ) -> Result<u64> {
        let chunk = self.keys.len();
        let piece = self.piece;
        // A short job fills the chunk with keys that sort after every key (stably after equal
        // ones: they come later), so the chunk's first `len` keys come back sorted.
        let pad = pad_key::<K>(order);
        let up = if len < chunk { chunk } else { len };
        for (i, (s, e)) in pieces(0, up, piece).enumerate() {
            if abort.load(Ordering::Relaxed) {
                return Ok(0);
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
                if real > 0 {
                    fill(job, s, &mut keys[..real], values);
                }
                keys[real..].fill(pad);
            }
            self.keys
                .copy_from_pinned_async(s, &self.staged_keys.halves[h], 0..e - s)?;
            if let (Some(d), Some(st)) = (&mut self.values, &self.staged_values) {
                d.copy_from_pinned_async(s, &st.halves[h], 0..real)?;
            }
        }
        let opts = RadixOptions::default().with_order(order);
        match &mut self.values {
            Some(v) => radix::sort_pairs_with_scratch(
                &self.gpu,
                &mut self.keys,
                v,
                &opts,
                &mut self.scratch,
            )?,
            None => {
                radix::sort_keys_with_scratch(&self.gpu, &mut self.keys, &opts, &mut self.scratch)?
            }
        }
        let down: Vec<(usize, usize)> = pieces(0, len, piece).collect();
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
        let value = if self.values.is_some() { V::SIZE } else { 0 };
        let (to_device, to_host) = job_bytes(len, chunk, K::SIZE, value);
        Ok(to_device + to_host)
    }
}

/// Runs jobs `0..outs.len()` (job `j` of `lens[j]` elements, at most a lane's chunk, its
/// output `outs[j]`) through `lanes`, job `j` on lane `j % lanes`, each lane driven by a host
/// thread of its own: `fill` writes a job's input into staging, the lane sorts it on the
/// device, and `drain` receives it sorted. `done` gets each finished job's link bytes.
///
/// Each lane's steps are serial (fill and copy up, sort, copy down and drain), but the lanes
/// run side by side: while one lane's host thread copies, the others' copies in both
/// directions and sorts run. The host copies of all lanes share rayon's pool.
pub(crate) fn run_pass<K: SortKey, V: SortValue, O: Send, L: Transport<K, V>>(
    lanes: &mut [L],
    lens: &[usize],
    outs: Vec<O>,
    order: Order,
    fill: &Fill<'_, K, V>,
    drain: &Drain<'_, O, K, V>,
    done: &(dyn Fn(u64) + Sync),
) -> Result<()> {
    let count = lanes.len().max(1);
    let mut per_lane: Vec<Vec<(usize, usize, O)>> = (0..count).map(|_| Vec::new()).collect();
    for (job, (out, &len)) in outs.into_iter().zip(lens).enumerate() {
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
                    match lane.run_job(job, len, &mut out, order, fill, drain, abort) {
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
