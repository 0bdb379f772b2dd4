//! One rank's part of the multi-GPU sort: the body every entry point runs, once per rank.
//!
//! The ranks move in lockstep through four all-gathers of a few words (each with a status word
//! in front, so that a rank that failed locally stops every rank at the same step instead of
//! leaving its peers waiting in NCCL), then one grouped all-to-all of the keys (and values).

use std::time::Instant;

use sortlab_primitives::runtime::Communicator;
use sortlab_primitives::{DeviceBuffer, DeviceCopy, Error, Result, SortKey, SortValue};

use super::kernels;
use super::splitters::{self, Cut};
use super::{MultiOptions, MultiReport, MultiTimes};
use crate::radix::{self, RadixOptions};

/// What one rank ends with: its range of the sorted keys (and values) and the report.
pub(crate) struct Outcome<K: SortKey, V: SortValue> {
    pub keys: DeviceBuffer<K>,
    pub values: Option<DeviceBuffer<V>>,
    pub report: MultiReport,
}

/// Why a rank stopped: its own error, or a peer's (reported at the same step by every rank).
#[derive(Debug)]
pub(crate) enum Failure {
    /// This rank's own error.
    Own(Error),
    /// Another rank failed; this one stopped with it.
    Peer(Error),
}

impl Failure {
    /// The error, whichever rank it came from.
    pub fn into_error(self) -> Error {
        match self {
            Failure::Own(e) | Failure::Peer(e) => e,
        }
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Own(e)
    }
}

/// A rank's share: its keys and values, and whether the local sort may sort them where they are
/// (no copy; on a later error they stay sorted, not as they came).
pub(crate) struct Share<'a, K: SortKey, V: SortValue> {
    pub keys: &'a mut DeviceBuffer<K>,
    pub values: Option<&'a mut DeviceBuffer<V>>,
    pub in_place: bool,
}

/// The input of a rank: its share, or the error that kept it from having one (an upload that
/// failed): the error is reported to the peers at the first step.
pub(crate) type Input<'a, K, V> = Result<Share<'a, K, V>>;

/// A rank's locally sorted keys or values: a copy, or the caller's buffer sorted in place.
enum Sorted<'a, T: DeviceCopy> {
    Copy(DeviceBuffer<T>),
    InPlace(&'a DeviceBuffer<T>),
}

impl<T: DeviceCopy> std::ops::Deref for Sorted<'_, T> {
    type Target = DeviceBuffer<T>;
    fn deref(&self) -> &DeviceBuffer<T> {
        match self {
            Sorted::Copy(b) => b,
            Sorted::InPlace(b) => b,
        }
    }
}

/// All-gathers `local` (`width` words, shorter lists padded with zeros) with a status word in
/// front; returns every rank's words, or this rank's error, or a peer error naming the ranks
/// that failed `during`.
fn gather(
    comm: &Communicator,
    local: std::result::Result<&[u64], &Error>,
    width: usize,
    during: &str,
) -> std::result::Result<Vec<Vec<u64>>, Failure> {
    let mut words = vec![0u64; width + 1];
    match local {
        Ok(w) if w.len() <= width => words[1..1 + w.len()].copy_from_slice(w),
        Ok(w) => {
            return Err(Failure::Own(Error::Internal(format!(
                "{} words for an all-gather of {width}",
                w.len()
            ))))
        }
        Err(_) => words[0] = 1,
    }
    let gpu = comm.gpu();
    let send = DeviceBuffer::from_host(gpu, &words)?;
    let mut recv = DeviceBuffer::<u64>::alloc(gpu, words.len() * comm.ranks())?;
    comm.all_gather(&send, &mut recv)?;
    let all = recv.to_host()?;
    if let Err(e) = local {
        return Err(Failure::Own(e.clone()));
    }
    let per_rank: Vec<Vec<u64>> = all.chunks(width + 1).map(|c| c[1..].to_vec()).collect();
    let failed: Vec<usize> = all
        .chunks(width + 1)
        .enumerate()
        .filter(|(_, c)| c[0] != 0)
        .map(|(r, _)| r)
        .collect();
    if !failed.is_empty() {
        return Err(Failure::Peer(Error::Nccl {
            call: "the multi-GPU sort",
            message: format!(
                "rank(s) {failed:?} failed while {during}; rank {} stopped with them",
                comm.rank()
            ),
        }));
    }
    Ok(per_rank)
}

/// This rank's own checks, before anything runs: the buffers on its GPU, as many values as
/// keys, a positive oversampling.
fn check<K: SortKey, V: SortValue>(
    comm: &Communicator,
    keys: &DeviceBuffer<K>,
    values: Option<&DeviceBuffer<V>>,
    opts: &MultiOptions,
) -> Result<()> {
    let device = comm.gpu().info().ordinal;
    let on = |ordinal: usize, what: &str| {
        if ordinal != device {
            return Err(Error::InvalidArgument(format!(
                "rank {}'s {what} live on device {ordinal}, its communicator on device {device}",
                comm.rank()
            )));
        }
        Ok(())
    };
    on(keys.gpu().info().ordinal, "keys")?;
    if let Some(v) = values {
        on(v.gpu().info().ordinal, "values")?;
        if v.len() != keys.len() {
            return Err(Error::InvalidArgument(format!(
                "multi-GPU sort of {} keys with {} values on rank {}",
                keys.len(),
                v.len(),
                comm.rank()
            )));
        }
    }
    if opts.oversampling == 0 {
        return Err(Error::InvalidArgument(
            "the multi-GPU sort's oversampling must be at least 1".into(),
        ));
    }
    Ok(())
}

/// The share sorted on `comm`'s GPU by the stable radix sort: a copy of it, or (`in_place`) the
/// share's own buffers.
///
/// Everything a rank does runs on its communicator's stream; the caller's buffers may belong
/// to another [`sortlab_primitives::Gpu`] handle of the same device (another stream), so their
/// pending work is waited for first.
fn local_sort<'a, K: SortKey, V: SortValue>(
    comm: &Communicator,
    share: Share<'a, K, V>,
    opts: &MultiOptions,
) -> Result<(Sorted<'a, K>, Option<Sorted<'a, V>>)> {
    let gpu = comm.gpu();
    let radix_opts = RadixOptions::default().with_order(opts.order);
    share.keys.gpu().synchronize()?;
    if let Some(v) = &share.values {
        v.gpu().synchronize()?;
    }
    if share.in_place {
        let keys = share.keys;
        return match share.values {
            Some(v) => {
                radix::sort_pairs(gpu, keys, v, &radix_opts)?;
                Ok((Sorted::InPlace(keys), Some(Sorted::InPlace(v))))
            }
            None => {
                radix::sort_keys(gpu, keys, &radix_opts)?;
                Ok((Sorted::InPlace(keys), None))
            }
        };
    }
    let mut k = DeviceBuffer::<K>::alloc(gpu, share.keys.len())?;
    k.copy_from_device(share.keys)?;
    let v = match share.values {
        Some(v) => {
            let mut copy = DeviceBuffer::<V>::alloc(gpu, v.len())?;
            copy.copy_from_device(v)?;
            radix::sort_pairs(gpu, &mut k, &mut copy, &radix_opts)?;
            Some(Sorted::Copy(copy))
        }
        None => {
            radix::sort_keys(gpu, &mut k, &radix_opts)?;
            None
        }
    };
    Ok((Sorted::Copy(k), v))
}

/// Takes `place`'s buffer out, leaving an empty one (no allocation) there.
fn take<T: DeviceCopy>(place: &mut DeviceBuffer<T>) -> Result<DeviceBuffer<T>> {
    let empty = DeviceBuffer::alloc(place.gpu(), 0)?;
    Ok(std::mem::replace(place, empty))
}

/// The one-rank sort: the local sort is the whole sort.
fn run_single<K: SortKey, V: SortValue>(
    comm: &Communicator,
    share: Share<'_, K, V>,
    opts: &MultiOptions,
) -> Result<(DeviceBuffer<K>, Option<DeviceBuffer<V>>)> {
    if share.in_place {
        let radix_opts = RadixOptions::default().with_order(opts.order);
        share.keys.gpu().synchronize()?;
        return match share.values {
            Some(v) => {
                v.gpu().synchronize()?;
                radix::sort_pairs(comm.gpu(), share.keys, v, &radix_opts)?;
                Ok((take(share.keys)?, Some(take(v)?)))
            }
            None => {
                radix::sort_keys(comm.gpu(), share.keys, &radix_opts)?;
                Ok((take(share.keys)?, None))
            }
        };
    }
    match local_sort(comm, share, opts)? {
        (Sorted::Copy(k), None) => Ok((k, None)),
        (Sorted::Copy(k), Some(Sorted::Copy(v))) => Ok((k, Some(v))),
        _ => Err(Error::Internal("a copied share came back in place".into())),
    }
}

/// Seconds since `*since`, after the stream is idle when timing (then restarts the clock).
fn lap(comm: &Communicator, timed: bool, since: &mut Instant) -> Result<f64> {
    if !timed {
        return Ok(0.0);
    }
    comm.synchronize()?;
    let s = since.elapsed().as_secs_f64();
    *since = Instant::now();
    Ok(s)
}

/// One rank's sort: see the module documentation of `multi` for the steps.
pub(crate) fn run<K: SortKey, V: SortValue>(
    comm: &Communicator,
    input: Input<'_, K, V>,
    opts: &MultiOptions,
) -> std::result::Result<Outcome<K, V>, Failure> {
    let (g, me) = (comm.ranks(), comm.rank());
    let value_size = std::mem::size_of::<V>();
    let checked = input.and_then(|s| check(comm, s.keys, s.values.as_deref(), opts).map(|_| s));
    let mut clock = Instant::now();
    let mut times = MultiTimes::default();
    if g == 1 {
        let (k, v) = run_single(comm, checked?, opts)?;
        times.local_sort = lap(comm, opts.timed, &mut clock)?;
        // The caller may drop its old buffers on another stream of the device.
        comm.synchronize()?;
        return Ok(Outcome {
            report: MultiReport {
                shares: vec![k.len()],
                exchanged_bytes: 0,
                times: opts.timed.then_some(times),
            },
            keys: k,
            values: v,
        });
    }

    // 1. Every rank's length (and whether its input is usable).
    let len_word = checked.as_ref().map(|s| vec![s.keys.len() as u64]);
    let lens: Vec<usize> = gather(
        comm,
        len_word.as_deref().map_err(|e| *e),
        1,
        "checking inputs",
    )?
    .iter()
    .map(|w| w[0] as usize)
    .collect();
    let share = checked?;
    let len = share.keys.len();
    let n: usize = lens.iter().sum();
    let step = splitters::sample_step(n, g, opts.oversampling);
    let counts: Vec<usize> = lens
        .iter()
        .map(|&l| splitters::sample_count(l, step))
        .collect();
    let width = counts.iter().copied().max().unwrap_or(0);
    let flip = opts.order.flip::<K::Bits>();
    let value = share.values.as_ref().map(|_| value_size);

    // 2. The local sort and its regular samples.
    let local = (|| {
        let module = kernels::module::<K>(comm.gpu(), value)?;
        let (k, v) = local_sort(comm, share, opts)?;
        let mut s = DeviceBuffer::<u64>::alloc(comm.gpu(), counts[me])?;
        kernels::samples(&module, &k, step, counts[me], &mut s, 0, flip)?;
        let host = s.to_host()?;
        Ok((module, k, v, host))
    })()
    .and_then(|l| {
        times.local_sort = lap(comm, opts.timed, &mut clock)?;
        Ok(l)
    });
    let local_words = local.as_ref().map(|l| l.3.as_slice());
    let gathered = gather(comm, local_words, width, "sorting locally")?;
    let (module, sorted_keys, sorted_values, _) = local?;
    let samples: Vec<Vec<u64>> = gathered
        .into_iter()
        .zip(&counts)
        .map(|(mut w, &c)| {
            w.truncate(c);
            w
        })
        .collect();

    // 3. The same splitters on every rank; this rank's cuts.
    let chosen = splitters::choose(&lens, step, &samples)?;
    let specs: Vec<Cut> = chosen
        .iter()
        .map(|&s| splitters::cut(me, len, step, &samples[me], s))
        .collect();
    let send_counts = kernels::cuts(&module, &sorted_keys, &specs, flip).and_then(|cuts| {
        let mut bounds = Vec::with_capacity(g + 1);
        bounds.push(0);
        bounds.extend(cuts);
        bounds.push(len);
        if bounds.windows(2).any(|w| w[0] > w[1]) {
            return Err(Error::Internal(format!(
                "rank {me}'s cuts are not in order: {bounds:?}"
            )));
        }
        Ok(bounds
            .windows(2)
            .map(|w| (w[1] - w[0]) as u64)
            .collect::<Vec<u64>>())
    });
    let matrix = gather(comm, send_counts.as_deref(), g, "finding the cuts")?;
    let send_counts: Vec<usize> = send_counts?.iter().map(|&c| c as usize).collect();
    let recv_counts: Vec<usize> = matrix.iter().map(|row| row[me] as usize).collect();
    let shares: Vec<usize> = (0..g)
        .map(|p| matrix.iter().map(|row| row[p] as usize).sum())
        .collect();
    let pair_bytes = (K::SIZE + value.unwrap_or(0)) as u64;
    let exchanged_bytes = (0..g)
        .flat_map(|j| (0..g).filter(move |&p| p != j).map(move |p| (j, p)))
        .map(|(j, p)| matrix[j][p] * pair_bytes)
        .sum();
    let offsets = |counts: &[usize]| {
        counts
            .iter()
            .scan(0, |acc, &c| {
                let o = *acc;
                *acc += c;
                Some(o)
            })
            .collect::<Vec<usize>>()
    };
    let (send_offsets, recv_offsets) = (offsets(&send_counts), offsets(&recv_counts));
    let total: usize = recv_counts.iter().sum();

    // 4. Receive buffers on every rank, agreed, then one grouped all-to-all per array.
    let recv = (|| {
        let k = DeviceBuffer::<K>::alloc(comm.gpu(), total)?;
        let v = match value {
            Some(_) => Some(DeviceBuffer::<V>::alloc(comm.gpu(), total)?),
            None => None,
        };
        Ok((k, v))
    })()
    .and_then(|r| {
        // Before the status all-gather: no rank may leave between it and the all-to-all.
        times.splitters = lap(comm, opts.timed, &mut clock)?;
        Ok(r)
    });
    gather(
        comm,
        recv.as_ref().map(|_| &[][..]),
        0,
        "allocating receive buffers",
    )?;
    let (mut recv_keys, mut recv_values) = recv?;
    comm.all_to_all_v(
        &sorted_keys,
        &send_counts,
        &send_offsets,
        &mut recv_keys,
        &recv_counts,
        &recv_offsets,
    )?;
    if let (Some(sv), Some(rv)) = (&sorted_values, &mut recv_values) {
        comm.all_to_all_v(
            sv,
            &send_counts,
            &send_offsets,
            rv,
            &recv_counts,
            &recv_offsets,
        )?;
    }
    times.exchange = lap(comm, opts.timed, &mut clock)?;
    drop((sorted_keys, sorted_values));

    // 5. The received runs (one per rank, in rank order) merged.
    let (keys, values) = kernels::merge_runs(recv_keys, recv_values, &recv_counts, flip)?;
    times.merge = lap(comm, opts.timed, &mut clock)?;
    // The caller may drop its old buffers (read by the copy or the all-to-all) on another
    // stream of the device.
    comm.synchronize()?;
    Ok(Outcome {
        keys,
        values,
        report: MultiReport {
            shares,
            exchanged_bytes,
            times: opts.timed.then_some(times),
        },
    })
}
