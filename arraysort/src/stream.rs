//! Arrays in host memory, more than the device may hold, sorted through the device in jobs of
//! whole arrays (the paper's future work).
//!
//! # Overview
//! [`sort_keys_streamed`] and [`sort_pairs_streamed`] sort every array of a host slice (cut by
//! CSR offsets, checked as the CPU twin checks them) in place, using at most
//! [`StreamArraysOptions::device_budget`] bytes of device memory:
//! - If the whole input, its offsets and the fast sort's scratch fit the budget, it goes to the
//!   device in one piece, is sorted by [`crate::sort_keys`] and comes back.
//! - Otherwise the arrays are cut into jobs of whole arrays, each at most a chunk of keys
//!   ([`StreamArraysReport::chunk_keys`], the largest of which three lanes fit the budget) and
//!   at most a chunk / 8 arrays. The jobs run through `sortlab_gpu_sorts::stream`'s lanes:
//!   each lane is a stream of its own driven by a host thread of its own, with a chunk's
//!   device buffers, its offsets and fast-sort scratch, and two pinned staging pieces of
//!   4 MiB; a job's keys go up in pieces (rayon fills one piece while the link copies the
//!   other), its offsets follow, the fast sort runs, and the keys come back the same way into
//!   their place. While one lane's thread copies on the host, the other lanes' copies in both
//!   directions and sorts run. Every key crosses the link twice, the least possible.
//! - An array longer than a chunk cannot be a job: it is sorted first, on its own, by
//!   `sortlab_gpu_sorts::stream` (four crossings), within the same budget.
//!
//! # Stability, key types, order
//! As [`crate::sort_pairs`]: stable, every key type, IEEE total order for floats, both orders;
//! the result equals the CPU twin's (`sortlab_cpu_reference::arrays`) bit for bit.
//!
//! # Errors
//! Checked before anything is written, leaving the caller's slices as they were:
//! [`Error::InvalidArgument`] for offsets that do not cut the keys into arrays, keys and values
//! of different lengths, or a budget below [`min_stream_budget`]; [`Error::OutOfMemory`] and
//! [`Error::HostOutOfMemory`] when the lanes cannot be made. Arrays longer than a chunk are
//! sorted before the lanes are made; a device failure after that leaves some arrays sorted
//! and the others as they were (each array is written back whole or not at all).
//!
//! # Example
//! ```no_run
//! use sortlab_arraysort::stream::{sort_pairs_streamed, StreamArraysOptions};
//! use sortlab_primitives::Gpu;
//! let gpu = Gpu::new(0)?;
//! // One million arrays of 100 f32 keys with u32 indices: 800 MB through 64 MiB of device memory.
//! let mut keys: Vec<f32> = (0..100_000_000u32).map(|i| (i % 977) as f32).collect();
//! let mut index: Vec<u32> = (0..100_000_000u32).map(|i| i % 100).collect();
//! let offsets: Vec<u64> = (0..=1_000_000u64).map(|a| 100 * a).collect();
//! let opts = StreamArraysOptions::default().with_device_budget(Some(64 << 20));
//! let r = sort_pairs_streamed(&gpu, &mut keys, &mut index, &offsets, &opts)?;
//! assert!(r.jobs > 1);
//! assert!(keys[..100].windows(2).all(|w| w[0] <= w[1]));
//! # Ok::<(), sortlab_primitives::Error>(())
//! ```

use sortlab_gpu_sorts::stream::{self as gstream, DeviceStep, Lane, StreamOptions, Transport};
use sortlab_primitives::{DeviceBuffer, Error, Gpu, Order, Result, SortKey, SortValue};

use crate::layout::{FastLayout, Shape};
use crate::{host_offsets, sort_keys_with_scratch, sort_pairs_with_scratch};
use crate::{ArrayOptions, Segments};

/// The smallest chunk of a lane: one block's tile of the fast sort.
const MIN_CHUNK: usize = 4096;

/// Arrays per job at most: a chunk over this (offsets and the fast sort's class lists cost
/// device memory per array; jobs of shorter arrays are cut by count, not by keys).
const KEYS_PER_ARRAY_SLOT: usize = 8;

/// How a streamed sort of arrays runs: the order and the device memory it may use.
///
/// `Default`: ascending, the device's free memory less a margin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamArraysOptions {
    /// Ascending or descending (IEEE total order for floats).
    pub order: Order,
    /// Device bytes the sort may use; `None`: the device's free memory less a margin
    /// (`sortlab_gpu_sorts::stream::usable_device_memory`).
    pub device_budget: Option<usize>,
}

impl StreamArraysOptions {
    /// The same options in `order`.
    pub fn with_order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }
    /// The same options with the device budget `budget`.
    pub fn with_device_budget(mut self, budget: Option<usize>) -> Self {
        self.device_budget = budget;
        self
    }
}

/// What a streamed sort of arrays did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamArraysReport {
    /// Arrays in the call.
    pub arrays: usize,
    /// Jobs of whole arrays run through the lanes (0 when the input was sorted in one piece).
    pub jobs: usize,
    /// Keys per lane chunk (the input's length when it was sorted in one piece).
    pub chunk_keys: usize,
    /// Arrays longer than a chunk, each sorted by `sortlab_gpu_sorts::stream`.
    pub long_arrays: usize,
    /// Bytes copied to the device.
    pub bytes_to_device: u64,
    /// Bytes copied back.
    pub bytes_to_host: u64,
}

/// The shape of `n` keys `K` in `arrays` arrays given by offsets, with values of `value_size`
/// bytes (0 for none).
fn offsets_shape<K: SortKey>(n: usize, arrays: usize, value_size: usize) -> Shape {
    Shape {
        n,
        arrays,
        fixed: None,
        key_size: K::SIZE,
        value: (value_size > 0).then_some(value_size),
    }
}

/// Device bytes of sorting `n` keys `K` in `arrays` arrays in one call: the keys and values,
/// the offsets and the fast sort's scratch (`None` on overflow).
fn device_bytes<K: SortKey>(n: usize, arrays: usize, value_size: usize) -> Option<usize> {
    let scratch = FastLayout::new(&offsets_shape::<K>(n, arrays, value_size))
        .ok()?
        .bytes;
    n.checked_mul(K::SIZE + value_size)?
        .checked_add((arrays + 1).checked_mul(8)?)?
        .checked_add(scratch)
}

/// Device bytes of one lane of `chunk` keys: a job of as many arrays as it may hold.
fn lane_bytes<K: SortKey>(chunk: usize, value_size: usize) -> Option<usize> {
    device_bytes::<K>(chunk, arrays_per_job(chunk), value_size)
}

/// Arrays a job of a chunk may hold.
fn arrays_per_job(chunk: usize) -> usize {
    (chunk / KEYS_PER_ARRAY_SLOT).max(1)
}

/// The largest chunk of which `LANES` lanes fit `budget` (0 when none does).
fn chunk_for<K: SortKey>(budget: usize, value_size: usize) -> usize {
    gstream::largest_fitting(budget / (K::SIZE + value_size), |c| {
        lane_bytes::<K>(c, value_size)
            .and_then(|b| b.checked_mul(gstream::LANES))
            .is_some_and(|b| b <= budget)
    })
}

/// The smallest device budget a streamed sort of arrays of keys `K` (with values of
/// `value_size` bytes; 0 for keys only) accepts: three lanes of 4096 keys. Arrays longer than
/// the chunk a budget gives also need `sortlab_gpu_sorts::stream::min_device_budget`.
///
/// ```
/// use sortlab_arraysort::stream::min_stream_budget;
/// assert!(min_stream_budget::<u32>(0) < min_stream_budget::<f64>(8));
/// assert!(min_stream_budget::<u32>(0) < 1 << 20);
/// ```
pub fn min_stream_budget<K: SortKey>(value_size: usize) -> usize {
    lane_bytes::<K>(MIN_CHUNK, value_size)
        .unwrap_or(usize::MAX)
        .saturating_mul(gstream::LANES)
}

/// One job: arrays `first .. last` (empty ones included, skipped on the device), keys
/// `begin .. end` of the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Job {
    first: usize,
    last: usize,
    begin: usize,
    end: usize,
}

/// The jobs of whole arrays, in input order: contiguous, at most `chunk` keys and `cap`
/// non-empty arrays each; and apart, the arrays longer than `chunk` (a job ends before each).
fn plan_jobs(offsets: &[u64], chunk: usize, cap: usize) -> (Vec<Job>, Vec<usize>) {
    let (mut jobs, mut long) = (Vec::new(), Vec::new());
    let mut cur: Option<(Job, usize)> = None;
    for a in 0..offsets.len().saturating_sub(1) {
        let (b, e) = (offsets[a] as usize, offsets[a + 1] as usize);
        let len = e - b;
        if len == 0 {
            continue;
        }
        if len > chunk {
            jobs.extend(cur.take().map(|(j, _)| j));
            long.push(a);
            continue;
        }
        match &mut cur {
            Some((j, count)) if j.end - j.begin + len <= chunk && *count < cap => {
                j.last = a + 1;
                j.end = e;
                *count += 1;
            }
            _ => {
                jobs.extend(cur.take().map(|(j, _)| j));
                let job = Job {
                    first: a,
                    last: a + 1,
                    begin: b,
                    end: e,
                };
                cur = Some((job, 1));
            }
        }
    }
    jobs.extend(cur.map(|(j, _)| j));
    (jobs, long)
}

/// The device offsets of `job`: its non-empty arrays' bounds from 0, then its length repeated
/// up to `cap + 1` entries (empty arrays, nothing to sort).
fn job_offsets(offsets: &[u64], job: &Job, cap: usize, out: &mut Vec<u64>) {
    out.clear();
    out.push(0);
    for a in job.first..job.last {
        if offsets[a + 1] > offsets[a] {
            out.push(offsets[a + 1] - job.begin as u64);
        }
    }
    let len = (job.end - job.begin) as u64;
    out.resize(cap + 1, len);
}

/// A lane's device step: uploads a job's offsets and sorts its arrays with the fast sort.
struct ArrayStep<'a> {
    offsets: &'a [u64],
    jobs: &'a [Job],
    cap: usize,
    device_offsets: DeviceBuffer<u64>,
    scratch: DeviceBuffer<u8>,
    host: Vec<u64>,
    opts: ArrayOptions,
}

impl<'a> ArrayStep<'a> {
    /// The step of a lane of `chunk` keys `K` on `gpu` (the lane's stream).
    fn new<K: SortKey>(
        gpu: &Gpu,
        chunk: usize,
        value_size: usize,
        offsets: &'a [u64],
        jobs: &'a [Job],
        order: Order,
    ) -> Result<Self> {
        let cap = arrays_per_job(chunk);
        let scratch = FastLayout::new(&offsets_shape::<K>(chunk, cap, value_size))?.bytes;
        Ok(ArrayStep {
            offsets,
            jobs,
            cap,
            device_offsets: DeviceBuffer::alloc(gpu, cap + 1)?,
            scratch: DeviceBuffer::alloc(gpu, scratch)?,
            host: Vec::with_capacity(cap + 1),
            opts: ArrayOptions::default().with_order(order),
        })
    }
}

impl<K: SortKey, V: SortValue> DeviceStep<K, V> for ArrayStep<'_> {
    fn run(
        &mut self,
        gpu: &Gpu,
        job: usize,
        _len: usize,
        keys: &mut DeviceBuffer<K>,
        values: Option<&mut DeviceBuffer<V>>,
    ) -> Result<()> {
        job_offsets(self.offsets, &self.jobs[job], self.cap, &mut self.host);
        self.device_offsets.copy_from_host(&self.host)?;
        let segments = Segments::Offsets64(&self.device_offsets);
        match values {
            Some(v) => {
                sort_pairs_with_scratch(gpu, keys, v, segments, &self.opts, &mut self.scratch)
            }
            None => sort_keys_with_scratch(gpu, keys, segments, &self.opts, &mut self.scratch),
        }
        .map(drop)
    }

    fn padding(&self) -> Option<K> {
        None
    }
}

/// Sorts every array of `keys` (cut by `offsets`: arrays + 1 offsets, first 0, last the key
/// count, non-decreasing) in place through the device, within the budget of `opts`.
///
/// See the [module documentation](self) for the design, the errors and an example.
pub fn sort_keys_streamed<K: SortKey>(
    gpu: &Gpu,
    keys: &mut [K],
    offsets: &[u64],
    opts: &StreamArraysOptions,
) -> Result<StreamArraysReport> {
    sort_impl::<K, u32>(gpu, keys, None, offsets, opts)
}

/// [`sort_keys_streamed`] with `values[i]` moving with `keys[i]`, stably.
pub fn sort_pairs_streamed<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut [K],
    values: &mut [V],
    offsets: &[u64],
    opts: &StreamArraysOptions,
) -> Result<StreamArraysReport> {
    sort_impl(gpu, keys, Some(values), offsets, opts)
}

fn sort_impl<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut [K],
    mut values: Option<&mut [V]>,
    offsets: &[u64],
    opts: &StreamArraysOptions,
) -> Result<StreamArraysReport> {
    let n = keys.len();
    if let Some(v) = &values {
        if v.len() != n {
            return Err(Error::InvalidArgument(format!(
                "streamed arraysort of {n} keys with {} values",
                v.len()
            )));
        }
    }
    host_offsets(offsets, n)?;
    let value_size = if values.is_some() { V::SIZE } else { 0 };
    let min = min_stream_budget::<K>(value_size);
    let budget = match opts.device_budget {
        Some(b) if b < min => {
            return Err(Error::InvalidArgument(format!(
                "a device budget of {b} bytes is below the minimum of a streamed arraysort of {} \
                 keys: {min} bytes ({} streams of {MIN_CHUNK} keys)",
                K::NAME,
                gstream::LANES
            )))
        }
        Some(b) => b,
        None => gstream::usable_device_memory(gpu)?,
    };
    let arrays = offsets.len() - 1;
    let elem = (K::SIZE + value_size) as u64;
    let mut report = StreamArraysReport {
        arrays,
        ..StreamArraysReport::default()
    };
    if n < 2 {
        return Ok(report);
    }
    if device_bytes::<K>(n, arrays, value_size).is_some_and(|b| b <= budget) {
        let sort = ArrayOptions::default().with_order(opts.order);
        match values {
            Some(v) => crate::sort_pairs_host(gpu, keys, v, offsets, &sort)?,
            None => crate::sort_keys_host(gpu, keys, offsets, &sort)?,
        };
        report.chunk_keys = n;
        report.bytes_to_device = n as u64 * elem + 8 * (arrays as u64 + 1);
        report.bytes_to_host = n as u64 * elem;
        return Ok(report);
    }
    let chunk = chunk_for::<K>(budget, value_size);
    if chunk < MIN_CHUNK {
        return Err(Error::OutOfMemory {
            requested: min,
            free: budget,
        });
    }
    let cap = arrays_per_job(chunk);
    let (jobs, long) = plan_jobs(offsets, chunk, cap);
    report.chunk_keys = chunk;
    report.jobs = jobs.len();
    report.long_arrays = long.len();
    // Arrays longer than a chunk first, each through gpu-sorts' streamed sort (which holds the
    // device alone meanwhile).
    let whole = StreamOptions::default()
        .with_order(opts.order)
        .with_device_budget(Some(budget));
    for &a in &long {
        let (b, e) = (offsets[a] as usize, offsets[a + 1] as usize);
        let r = match values.as_deref_mut() {
            Some(v) => gstream::sort_pairs(gpu, &mut keys[b..e], &mut v[b..e], &whole)?,
            None => gstream::sort_keys(gpu, &mut keys[b..e], &whole)?,
        };
        report.bytes_to_device += r.bytes_to_device;
        report.bytes_to_host += r.bytes_to_host;
    }
    if jobs.is_empty() {
        return Ok(report);
    }
    let with_values = values.is_some();
    let mut lanes = (0..gstream::LANES.min(jobs.len()))
        .map(|_| {
            Lane::<K, V, ArrayStep>::new(gpu, chunk, with_values, |g| {
                ArrayStep::new::<K>(g, chunk, value_size, offsets, &jobs, opts.order)
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let (up, down) = pass(&mut lanes, keys, values, &jobs)?;
    report.bytes_to_device += up + 8 * (cap as u64 + 1) * jobs.len() as u64;
    report.bytes_to_host += down;
    Ok(report)
}

/// Runs `jobs` through `lanes` in place in `keys` (and `values`); returns the bytes to the
/// device and back.
fn pass<K: SortKey, V: SortValue, L: Transport<K, V>>(
    lanes: &mut [L],
    keys: &mut [K],
    values: Option<&mut [V]>,
    jobs: &[Job],
) -> Result<(u64, u64)> {
    let value_size = if values.is_some() { V::SIZE } else { 0 };
    let ranges: Vec<std::ops::Range<usize>> = jobs.iter().map(|j| j.begin..j.end).collect();
    gstream::run_in_place(lanes, keys, values, &ranges, &|_| {})?;
    let bytes: u64 = ranges
        .iter()
        .map(|r| (r.len() * (K::SIZE + value_size)) as u64)
        .sum();
    Ok((bytes, bytes))
}

#[cfg(test)]
mod tests {
    //! The pass's host logic (jobs, offsets, carving, fills and drains in place) through a
    //! host model of a lane that sorts each job's arrays by the CPU twin.

    use std::sync::atomic::AtomicBool;

    use super::*;
    use sortlab_cpu_reference::arrays::{sort_arrays, sort_arrays_pairs};
    use sortlab_gpu_sorts::stream::{Drain, Fill};
    use sortlab_verify::testing::{offsets_of_lengths, ordered_bits};

    /// A lane on the host: a job's keys gathered in pieces of `piece`, its offsets built as
    /// the device step builds them, each array sorted by the twin, drained in pieces.
    struct HostLane<'a> {
        offsets: &'a [u64],
        jobs: &'a [Job],
        chunk: usize,
        piece: usize,
        order: Order,
        with_values: bool,
    }

    impl<K: SortKey> Transport<K, u32> for HostLane<'_> {
        fn run_job<O>(
            &mut self,
            job: usize,
            len: usize,
            out: &mut O,
            fill: &Fill<'_, O, K, u32>,
            drain: &Drain<'_, O, K, u32>,
            _abort: &AtomicBool,
        ) -> Result<u64> {
            assert!(
                len > 0 && len <= self.chunk,
                "job of {len} in a chunk of {}",
                self.chunk
            );
            let cap = arrays_per_job(self.chunk);
            let (mut keys, mut values) = (Vec::new(), Vec::new());
            let with_values = self.with_values;
            for s in (0..len).step_by(self.piece) {
                let e = (s + self.piece).min(len);
                let mut k = vec![K::LOWEST; e - s];
                let mut v = vec![0u32; e - s];
                fill(out, job, s, &mut k, with_values.then_some(&mut v[..]));
                keys.extend(k);
                values.extend(v);
            }
            let mut o = Vec::new();
            job_offsets(self.offsets, &self.jobs[job], cap, &mut o);
            assert_eq!((o.len(), *o.last().unwrap()), (cap + 1, len as u64));
            sort_arrays_pairs(&mut keys, &mut values, &o, self.order, true).unwrap();
            for s in (0..len).step_by(self.piece) {
                let e = (s + self.piece).min(len);
                drain(out, s, &keys[s..e], with_values.then_some(&values[s..e]));
            }
            Ok(0)
        }
    }

    #[test]
    fn jobs_hold_whole_arrays_within_the_chunk_and_the_count() {
        let offsets = offsets_of_lengths(&[3, 0, 5, 2, 9, 1, 1, 1, 1, 0, 4]);
        let (jobs, long) = plan_jobs(&offsets, 8, 3);
        assert_eq!(long, vec![4]);
        let cut: Vec<(usize, usize, usize, usize)> = jobs
            .iter()
            .map(|j| (j.first, j.last, j.begin, j.end))
            .collect();
        // [3, 0, 5] (8 keys), [2] (ends before the long array), [1, 1, 1] (three arrays),
        // [1, 0, 4].
        assert_eq!(
            cut,
            vec![(0, 3, 0, 8), (3, 4, 8, 10), (5, 8, 19, 22), (8, 11, 22, 27)]
        );
        let mut o = Vec::new();
        job_offsets(&offsets, &jobs[0], 3, &mut o);
        assert_eq!(o, vec![0, 3, 8, 8]);
        job_offsets(&offsets, &jobs[3], 3, &mut o);
        assert_eq!(o, vec![0, 1, 5, 5]);
        assert_eq!(plan_jobs(&[0, 0, 0], 8, 3), (Vec::new(), Vec::new()));
    }

    #[test]
    fn budgets_give_chunks_that_fit() {
        for (k, v) in [(4, 0), (4, 4), (8, 8)] {
            let min = if k == 4 {
                min_stream_budget::<u32>(v)
            } else {
                min_stream_budget::<u64>(v)
            };
            for budget in [min, 2 * min, 64 << 20, 1 << 30] {
                let c = if k == 4 {
                    chunk_for::<u32>(budget, v)
                } else {
                    chunk_for::<u64>(budget, v)
                };
                assert!(c >= MIN_CHUNK, "{k}/{v}: budget {budget} gave {c}");
                let lane = if k == 4 {
                    lane_bytes::<u32>(c, v)
                } else {
                    lane_bytes::<u64>(c, v)
                };
                assert!(lane.unwrap() * gstream::LANES <= budget);
            }
        }
        assert!(chunk_for::<u32>(min_stream_budget::<u32>(0) - 1, 0) < MIN_CHUNK);
    }

    /// Streams `input` (arrays by `lens`) through host lanes, keys and pairs, against the twin.
    fn check<K: SortKey>(input: &[K], lens: &[usize], chunk: usize, piece: usize, order: Order) {
        let offsets = offsets_of_lengths(lens);
        let (jobs, long) = plan_jobs(&offsets, chunk, arrays_per_job(chunk));
        let n = input.len();
        let index: Vec<u32> = (0..n as u32).collect();
        let (mut wk, mut wv) = (input.to_vec(), index.clone());
        sort_arrays_pairs(&mut wk, &mut wv, &offsets, order, true).unwrap();
        let (mut keys, mut values) = (input.to_vec(), index.clone());
        let lanes = |with_values| -> Vec<HostLane> {
            (0..3)
                .map(|_| HostLane {
                    offsets: &offsets,
                    jobs: &jobs,
                    chunk,
                    piece,
                    order,
                    with_values,
                })
                .collect()
        };
        pass(&mut lanes(true), &mut keys, Some(&mut values[..]), &jobs).unwrap();
        // The long arrays, sorted apart in the real sort: here by the twin.
        for &a in &long {
            let (b, e) = (offsets[a] as usize, offsets[a + 1] as usize);
            sort_arrays_pairs(
                &mut keys[b..e],
                &mut values[b..e],
                &[0, (e - b) as u64],
                order,
                true,
            )
            .unwrap();
        }
        let what = format!("{} {lens:?} chunk {chunk} piece {piece} {order:?}", K::NAME);
        assert!(ordered_bits(&keys) == ordered_bits(&wk), "keys: {what}");
        assert_eq!(values, wv, "values: {what}");
        // Keys alone: the same pass without values.
        let mut alone = input.to_vec();
        pass::<K, u32, _>(&mut lanes(false), &mut alone, None, &jobs).unwrap();
        let mut want = input.to_vec();
        for j in &jobs {
            let o: Vec<u64> = offsets[j.first..=j.last]
                .iter()
                .map(|&x| x - j.begin as u64)
                .collect();
            sort_arrays(&mut want[j.begin..j.end], &o, order).unwrap();
        }
        assert!(
            ordered_bits(&alone) == ordered_bits(&want),
            "keys alone: {what}"
        );
    }

    #[test]
    fn arrays_stream_through_host_lanes_in_place() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for order in [Order::Ascending, Order::Descending] {
            for (count, max_len, chunk, piece) in [
                (50, 40, 64, 16),
                (300, 20, 100, 7),
                (40, 300, 256, 64),
                (7, 5, 4096, 4096),
            ] {
                let lens: Vec<usize> = (0..count)
                    .map(|i| match i % 11 {
                        0 => 0,
                        1 => 1,
                        5 => chunk + 3,
                        _ => (next() % max_len as u64) as usize,
                    })
                    .collect();
                let n: usize = lens.iter().sum();
                let u: Vec<u32> = (0..n).map(|_| (next() % 50) as u32).collect();
                check(&u, &lens, chunk, piece, order);
                let specials = [f64::NAN, -0.0, 0.0, 1.5, -f64::NAN, -3.0];
                let f: Vec<f64> = (0..n).map(|_| specials[(next() % 6) as usize]).collect();
                check(&f, &lens, chunk, piece, order);
            }
        }
    }
}
