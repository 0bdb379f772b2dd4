//! The lanes of a streamed pass: each a stream of its own with a chunk's device buffers, radix
//! scratch and pinned staging buffers, and the loop that keeps them all busy.

use sortlab_primitives::{DeviceBuffer, Gpu, Order, PinnedBuffer, Result, SortKey, SortValue};

use super::plan;
use crate::radix::{self, RadixOptions};

/// Writes job `j`'s input (keys, and values when there are values) into staging.
pub(crate) type Fill<'a, K, V> = dyn Fn(usize, &mut [K], Option<&mut [V]>) + 'a;
/// Receives job `j`'s sorted keys (and values).
pub(crate) type Drain<'a, K, V> = dyn FnMut(usize, &[K], Option<&[V]>) + 'a;

/// One lane: a forked stream, a chunk's keys (and values) on the device, the radix scratch
/// of a chunk, the staging buffers, and the job it has in flight.
pub(crate) struct Lane<K: SortKey, V: SortValue> {
    gpu: Gpu,
    keys: DeviceBuffer<K>,
    values: Option<DeviceBuffer<V>>,
    scratch: DeviceBuffer<u8>,
    staged_keys: PinnedBuffer<K>,
    staged_values: Option<PinnedBuffer<V>>,
    /// The job (index, length) whose results are on their way into the staging buffers.
    pending: Option<(usize, usize)>,
}

/// Bytes of a job of `len` elements in a lane of `chunk`: to the device (a short job sends
/// padding keys up to the chunk) and back.
pub(crate) fn job_bytes(len: usize, chunk: usize, key: usize, value: usize) -> (u64, u64) {
    let up = if len < chunk { chunk } else { len };
    let to_device = (up * key + len * value) as u64;
    let to_host = (len * (key + value)) as u64;
    (to_device, to_host)
}

impl<K: SortKey, V: SortValue> Lane<K, V> {
    /// A lane on a new stream of `gpu` for chunks of `chunk` keys (with values when
    /// `with_values`): every device and pinned allocation of the lane, made now.
    pub(crate) fn new(gpu: &Gpu, chunk: usize, with_values: bool, order: Order) -> Result<Self> {
        let gpu = gpu.fork_stream()?;
        let value_size = if with_values { V::SIZE } else { 0 };
        let scratch = plan::scratch::<K>(chunk, value_size, order);
        Ok(Lane {
            keys: DeviceBuffer::alloc(&gpu, chunk)?,
            values: with_values
                .then(|| DeviceBuffer::alloc(&gpu, chunk))
                .transpose()?,
            scratch: DeviceBuffer::alloc(&gpu, scratch)?,
            staged_keys: PinnedBuffer::alloc(&gpu, chunk)?,
            staged_values: with_values
                .then(|| PinnedBuffer::alloc(&gpu, chunk))
                .transpose()?,
            pending: None,
            gpu,
        })
    }

    /// Waits for the job in flight, hands its results to `drain`, and reports its bytes.
    fn finish(&mut self, drain: &mut Drain<'_, K, V>, done: &mut dyn FnMut(u64)) -> Result<()> {
        let Some((job, len)) = self.pending.take() else {
            return Ok(());
        };
        let keys = &self.staged_keys.as_slice()?[..len];
        let values = match &self.staged_values {
            Some(p) => Some(&p.as_slice()?[..len]),
            None => None,
        };
        drain(job, keys, values);
        let (up, down) = job_bytes(len, self.keys.len(), K::SIZE, value_size(&self.values));
        done(up + down);
        Ok(())
    }

    /// Stages job `job` of `len` elements with `fill`, and queues its copy to the device, its
    /// sort and its copy back, on the lane's stream.
    fn start(&mut self, job: usize, len: usize, order: Order, fill: &Fill<'_, K, V>) -> Result<()> {
        let chunk = self.keys.len();
        {
            let keys = self.staged_keys.as_mut_slice()?;
            let values = match &mut self.staged_values {
                Some(p) => Some(&mut p.as_mut_slice()?[..len]),
                None => None,
            };
            fill(job, &mut keys[..len], values);
            // A short job fills the chunk with keys that sort after every key (stably after
            // equal ones: they come later), so the chunk's first `len` keys come back sorted.
            let pad = match order {
                Order::Ascending => K::HIGHEST,
                Order::Descending => K::LOWEST,
            };
            keys[len..].fill(pad);
        }
        let up = if len < chunk { chunk } else { len };
        self.keys
            .copy_from_pinned_async(0, &self.staged_keys, 0..up)?;
        if let (Some(d), Some(p)) = (&mut self.values, &self.staged_values) {
            d.copy_from_pinned_async(0, p, 0..len)?;
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
        self.keys
            .copy_to_pinned_async(0..len, &mut self.staged_keys, 0)?;
        if let (Some(d), Some(p)) = (&self.values, &mut self.staged_values) {
            d.copy_to_pinned_async(0..len, p, 0)?;
        }
        self.pending = Some((job, len));
        Ok(())
    }
}

fn value_size<V: SortValue>(values: &Option<DeviceBuffer<V>>) -> usize {
    if values.is_some() {
        V::SIZE
    } else {
        0
    }
}

/// Runs jobs `0..lens.len()` (job `j` of `lens[j]` elements, at most a lane's chunk) through
/// `lanes` in turn: `fill` writes job `j`'s input into a staging buffer, the lane sorts it on
/// the device, and `drain` receives it sorted, in job order. `done` gets each finished job's
/// link bytes.
///
/// Job `j` runs on lane `j % lanes`: while the host drains and fills one lane, the others'
/// copies and sorts run, so the link is busy in both directions while the host works.
pub(crate) fn run_pass<K: SortKey, V: SortValue>(
    lanes: &mut [Lane<K, V>],
    lens: &[usize],
    order: Order,
    fill: &Fill<'_, K, V>,
    drain: &mut Drain<'_, K, V>,
    done: &mut dyn FnMut(u64),
) -> Result<()> {
    let count = lanes.len();
    for (job, &len) in lens.iter().enumerate() {
        let lane = &mut lanes[job % count];
        lane.finish(drain, done)?;
        lane.start(job, len, order, fill)?;
    }
    // The last jobs, in job order.
    let first = lens.len().saturating_sub(count);
    for job in first..lens.len() {
        lanes[job % count].finish(drain, done)?;
    }
    Ok(())
}
