//! `sortlab bench scale`: the radix sort past one GPU, against one GPU in the same run.
//!
//! Rows (u32 keys by default; `--sizes 30` is the 2^30):
//! - `radix-1gpu` (op `resident`): one GPU's radix sort of device-resident keys in place, the
//!   baseline; `multi-Ngpu` (op `resident`): the keys split evenly over N GPUs (2, 4, ... and
//!   every GPU present), device-resident, sorted by `gpu-sorts::multi` in place
//!   (`MultiOptions::in_place`); `alltoall-Ngpu` (op `nccl`):
//!   NCCL's grouped send/receive alone moving the bytes that sort exchanged, the rate NCCL gives
//!   on this machine.
//! - `radix-1gpu-host` and `multi-Ngpu-host` (op `host`): host memory to host memory, uploads
//!   and downloads included (the RMG-sort comparison).
//! - `copy-h2d` and `copy-d2h` (op `copy`): pinned copies of the keys' bytes over the host link
//!   of GPU 0, the rates that bound a streamed sort; `copy-duplex` (op `copy`): both at once
//!   on two streams, each direction's rate while the other runs (a streamed pass keeps both
//!   busy); `copy-host` (op `copy`, on the CPU): the host's own parallel copy of the bytes;
//!   `copy-h2d-pageable` and
//!   `copy-d2h-pageable` (op `copy`): the same bytes copied from and to ordinary (pageable)
//!   host memory by the driver, which stages them itself (what a caller's `Vec` gets without
//!   page-locking); `stream-4x` and `stream-16x` (op `host`):
//!   `gpu-sorts::stream` with a device budget of a quarter and a sixteenth of the keys' bytes
//!   (`stream-4x-sorter` and `stream-16x-sorter`: the same through one `StreamSorter` made
//!   before the timed calls, its lanes and page-locked runs reused; `-sorter-pinned`: the same
//!   with the keys in page-locked memory, `StreamSorter::sort_keys_pinned`; `-sorter-pageable`:
//!   a sorter whose runs stay in ordinary memory, `StreamOptions::pageable_runs`);
//!   `arrays-stream-4x` (op `host`): the keys as arrays of 1000, each sorted on its own by
//!   `arraysort::stream` (jobs of whole arrays, two crossings) under a quarter of their bytes.
//!
//! Every call is timed by the wall clock around the call with every GPU synchronised (work on
//! several GPUs has no one stream to put events on), the median of `--reps` after three
//! untimed calls (`WARMUP_CALLS`); the input is restored before each call, untimed. Every row's
//! last result is checked (sorted, a permutation of the input) before the row is written. A
//! summary after the table gives each row's speed-up over one GPU, the exchange's share of the
//! multi-GPU time, and each streamed row against the bounds its crossings of the host link put
//! on it at the measured copy rates: each direction at its rate alone with the two overlapped,
//! one direction at a time, and overlapped at the duplex rate.

use sortlab_arraysort as arraysort;
use sortlab_cpu_reference::{arrays, check};
use sortlab_gpu_sorts::multi::{self, MultiOptions};
use sortlab_gpu_sorts::radix::{self, RadixOptions};
use sortlab_gpu_sorts::stream::{self, StreamOptions, StreamSorter};
use sortlab_primitives::{DeviceBuffer, Gpu, GpuGroup, PinnedBuffer};

use crate::args::BenchArgs;
use crate::backend::gen::generate;
use crate::bench::row::{gbps, wrong, BenchRow, RowId};
use crate::bench::setup::{write_rows, Run};
use crate::bench::timing::{gpu_err, time_wall};
use crate::cmd::{note, say};
use crate::error::CliError;
use crate::key::CliKey;
use crate::with_key_type;

/// Budgets of the streamed rows, as fractions of the keys' bytes: the 4x and 16x.
const STREAM_RATIOS: [u64; 2] = [4, 16];
/// The streamed arrays' row: arrays of this many keys.
const ARRAY_LEN: usize = 1000;
/// The streamed arrays' row's name; its budget is a quarter of the keys' bytes.
const ARRAYS_STREAM: &str = "arrays-stream-4x";

/// The copy rows: pinned host-to-device and device-to-host, then the same from and to pageable
/// host memory.
const COPIES: [&str; 4] = [
    "copy-h2d",
    "copy-d2h",
    "copy-h2d-pageable",
    "copy-d2h-pageable",
];
/// Pinned copies up and down at once, on two streams: the link's rate each way while both
/// directions are busy, as a streamed pass keeps them (its row's GB/s is each direction's).
const DUPLEX_COPY: &str = "copy-duplex";
/// The host's own copy of the keys' bytes between two ordinary buffers on every core (rayon,
/// `stream::par_copy`): the rate that bounds the staging copies of a streamed sort.
const HOST_COPY: &str = "copy-host";

/// The GPU counts of the multi-GPU rows on a host with `present` GPUs: powers of two from 2,
/// and `present` itself.
fn group_sizes(present: usize) -> Vec<usize> {
    let mut v: Vec<usize> = std::iter::successors(Some(2usize), |g| g.checked_mul(2))
        .take_while(|&g| g <= present)
        .collect();
    if present >= 2 && !v.contains(&present) {
        v.push(present);
    }
    v
}

/// How a streamed row sorts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum StreamRow {
    /// One call of `gpu-sorts::stream` per sort.
    Fresh,
    /// One `StreamSorter` for every call, the keys in ordinary host memory.
    Sorter,
    /// One `StreamSorter`, the keys in page-locked memory (`sort_keys_pinned`).
    SorterPinned,
    /// One `StreamSorter` asked for pageable runs (`StreamOptions::pageable_runs`), the keys
    /// in ordinary host memory.
    SorterPageable,
}

const STREAM_ROWS: [StreamRow; 4] = [
    StreamRow::Fresh,
    StreamRow::Sorter,
    StreamRow::SorterPinned,
    StreamRow::SorterPageable,
];

/// The streamed row of budget `bytes / ratio`.
fn stream_name(ratio: u64, row: StreamRow) -> String {
    match row {
        StreamRow::Fresh => format!("stream-{ratio}x"),
        StreamRow::Sorter => format!("stream-{ratio}x-sorter"),
        StreamRow::SorterPinned => format!("stream-{ratio}x-sorter-pinned"),
        StreamRow::SorterPageable => format!("stream-{ratio}x-sorter-pageable"),
    }
}

/// Every streamed row: its budget's ratio and how it sorts.
fn stream_rows() -> impl Iterator<Item = (u64, StreamRow)> {
    STREAM_RATIOS
        .into_iter()
        .flat_map(|r| STREAM_ROWS.map(|row| (r, row)))
}

/// Every streamed row's name.
fn stream_names() -> impl Iterator<Item = String> {
    stream_rows().map(|(r, row)| stream_name(r, row))
}

/// Every row name the suite knows on a host with `present` GPUs.
fn names(present: usize) -> Vec<String> {
    let mut v = vec!["radix-1gpu".to_string(), "radix-1gpu-host".to_string()];
    for g in group_sizes(present) {
        v.push(format!("multi-{g}gpu"));
        v.push(format!("alltoall-{g}gpu"));
        v.push(format!("multi-{g}gpu-host"));
    }
    v.extend(COPIES.map(String::from));
    v.push(DUPLEX_COPY.to_string());
    v.push(HOST_COPY.to_string());
    v.extend(stream_names());
    v.push(ARRAYS_STREAM.to_string());
    v
}

/// Runs the suite over the key types, patterns and sizes of `args`.
pub fn run(args: &BenchArgs) -> Result<(), CliError> {
    let present = Gpu::device_count().unwrap_or(0);
    let known = names(present.max(4));
    let ctx = Run::new(args, &known, &known)?;
    if ctx.gpu.is_none() {
        return Err(CliError::NoDevice {
            reason: "`sortlab bench scale` runs only on GPUs".into(),
        });
    }
    say(&format!(
        "{:<18} {:<9} {:<5} {:<12} {:>12} {:>10} {:>9} {:>8}",
        "algo", "op", "type", "pattern", "n", "ms", "Gkeys/s", "GB/s"
    ));
    let mut rows = Vec::new();
    for (t, p, n) in ctx.points() {
        let input_pattern = p;
        with_key_type!(t, K => {
            let input = generate::<K>(input_pattern, n as usize, ctx.seed);
            let mut point = Point {
                ctx: &ctx,
                rows: &mut rows,
                pattern: input_pattern.to_string(),
                n,
                summary: Vec::new(),
            };
            point.run::<K>(&input, present)?;
            for line in &point.summary {
                note(line);
            }
        });
    }
    write_rows(args, &rows)
}

/// One (key type, pattern, size) point: its rows and summary lines.
struct Point<'a> {
    ctx: &'a Run,
    rows: &'a mut Vec<BenchRow>,
    pattern: String,
    n: u64,
    summary: Vec<String>,
}

/// [`time_wall`] of a host-memory sort `call`: each call on a fresh copy of `input`; returns
/// the median and the last call's result.
fn time_host<K: Copy>(
    reps: u32,
    input: &[K],
    mut call: impl FnMut(&mut [K]) -> sortlab_primitives::Result<()>,
    sync: impl FnMut() -> sortlab_primitives::Result<()>,
) -> sortlab_primitives::Result<(f64, Vec<K>)> {
    let mut work = input.to_vec();
    let t = time_wall(
        reps,
        &mut work,
        |w| {
            w.copy_from_slice(input);
            Ok(())
        },
        |w| call(w),
        sync,
    )?;
    Ok((t, work))
}

/// `input` cut into `g` nearly equal consecutive shares.
fn shares<K: Copy>(input: &[K], g: usize) -> Vec<&[K]> {
    let n = input.len();
    (0..g).map(|i| &input[i * n / g..(i + 1) * n / g]).collect()
}

impl Point<'_> {
    fn wants(&self, algo: &str) -> bool {
        self.ctx.algos.wants(algo)
    }

    /// Writes the row `algo` (op `op`): `ms` median milliseconds, `bytes` moved.
    fn push<K: CliKey>(&mut self, algo: &str, op: &'static str, ms: f64, bytes: u64) {
        self.push_on::<K>("gpu", algo, op, ms, bytes)
    }

    /// A row of `engine` (`gpu`, or `cpu` for the host's own copy).
    fn push_on<K: CliKey>(
        &mut self,
        engine: &'static str,
        algo: &str,
        op: &'static str,
        ms: f64,
        bytes: u64,
    ) {
        let row = BenchRow::new(
            RowId {
                algo: algo.to_string(),
                engine,
                op,
                key_type: K::NAME,
                value_type: None,
                pattern: self.pattern.clone(),
            },
            self.n,
            ms,
            bytes,
            &self.ctx.stamp,
        );
        say(&format!(
            "{:<18} {:<9} {:<5} {:<12} {:>12} {:>10.3} {:>9.3} {:>8.1}",
            row.algo,
            row.op,
            row.key_type,
            row.pattern,
            row.n,
            row.ms,
            row.keys_per_s / 1e9,
            row.gbps
        ));
        self.rows.push(row);
    }

    /// The checks of a sort's result: sorted, and a permutation of `input`.
    fn check<K: CliKey>(&self, input: &[K], out: &[K], what: &str) -> Result<(), CliError> {
        check::check_sorted(out, self.ctx.order).map_err(|e| wrong(what, e))?;
        check::check_permutation(input, out).map_err(|e| wrong(what, e))
    }

    fn run<K: CliKey>(&mut self, input: &[K], present: usize) -> Result<(), CliError> {
        let gpu = self.ctx.gpu.clone().ok_or_else(|| CliError::NoDevice {
            reason: "no GPU".into(),
        })?;
        let bytes = (input.len() * K::SIZE) as u64;
        let order = self.ctx.order;
        let reps = self.ctx.reps;
        let mut one_gpu = [None, None];

        // One GPU, device-resident and host to host.
        if self.wants("radix-1gpu") {
            let what = "benchmarking radix-1gpu";
            let err = gpu_err(what);
            let pristine = DeviceBuffer::from_host(&gpu, input).map_err(&err)?;
            let mut work = DeviceBuffer::<K>::alloc(&gpu, input.len()).map_err(&err)?;
            let opts = RadixOptions::default().with_order(order);
            let t = time_wall(
                reps,
                &mut work,
                |w| w.copy_from_device(&pristine),
                |w| radix::sort_keys(&gpu, w, &opts),
                || gpu.synchronize(),
            )
            .map_err(&err)?;
            self.check(input, &work.to_host().map_err(&err)?, what)?;
            one_gpu[0] = Some(t);
            self.push::<K>("radix-1gpu", "resident", t, 2 * bytes);
        }
        if self.wants("radix-1gpu-host") {
            let what = "benchmarking radix-1gpu-host";
            let err = gpu_err(what);
            let opts = RadixOptions::default().with_order(order);
            let (t, work) = time_host(
                reps,
                input,
                |w| radix::sort_keys_host(&gpu, w, &opts),
                || gpu.synchronize(),
            )
            .map_err(&err)?;
            self.check(input, &work, what)?;
            one_gpu[1] = Some(t);
            self.push::<K>("radix-1gpu-host", "host", t, 2 * bytes);
        }

        // Several GPUs.
        for g in group_sizes(present) {
            let names = [
                format!("multi-{g}gpu"),
                format!("alltoall-{g}gpu"),
                format!("multi-{g}gpu-host"),
            ];
            if !names.iter().any(|a| self.wants(a)) {
                continue;
            }
            let what = format!("benchmarking {g} GPUs");
            let err = gpu_err(&what);
            let ordinals: Vec<usize> = (0..g).collect();
            let group = GpuGroup::new(&ordinals).map_err(&err)?;
            let sync_all = || group.synchronize();
            let opts = MultiOptions::default().with_order(order);
            // The bench restores the input before every call: the shares may be sorted where
            // they are, as one GPU's radix sort sorts its keys.
            let timed = opts.with_timed(true).with_in_place(true);
            if self.wants(&names[0]) || self.wants(&names[1]) {
                let pristine: Vec<DeviceBuffer<K>> = shares(input, g)
                    .into_iter()
                    .zip(group.gpus())
                    .map(|(s, gp)| DeviceBuffer::from_host(gp, s))
                    .collect::<sortlab_primitives::Result<_>>()
                    .map_err(&err)?;
                let mut work: Vec<DeviceBuffer<K>> = pristine
                    .iter()
                    .map(DeviceBuffer::try_clone)
                    .collect::<sortlab_primitives::Result<_>>()
                    .map_err(&err)?;
                let mut last = None;
                let t = time_wall(
                    reps,
                    &mut work,
                    |w| {
                        for (i, p) in pristine.iter().enumerate() {
                            if w[i].len() == p.len() {
                                w[i].copy_from_device(p)?;
                            } else {
                                w[i] = p.try_clone()?;
                            }
                        }
                        Ok(())
                    },
                    |w| {
                        last = Some(multi::sort_keys(&group, w, &timed)?);
                        Ok(())
                    },
                    sync_all,
                )
                .map_err(&err)?;
                let mut out = Vec::with_capacity(input.len());
                for s in &work {
                    out.extend(s.to_host().map_err(&err)?);
                }
                self.check(input, &out, &names[0])?;
                if self.wants(&names[0]) {
                    self.push::<K>(&names[0], "resident", t, 2 * bytes);
                }
                if let Some(report) = last {
                    let exchanged = report.exchanged_bytes;
                    if let Some(times) = report.times {
                        self.summary.push(format!(
                            "{}: exchange {:.3} ms of {:.3} ms ({:.0}%): {} bytes; local sort \
                             {:.3} ms, splitters {:.3} ms, merge {:.3} ms; shares {:?}",
                            names[0],
                            times.exchange * 1e3,
                            t,
                            100.0 * times.exchange * 1e3 / t,
                            exchanged,
                            times.local_sort * 1e3,
                            times.splitters * 1e3,
                            times.merge * 1e3,
                            report.shares
                        ));
                    }
                    if let Some(base) = one_gpu[0] {
                        self.summary
                            .push(format!("{}: {:.2}x radix-1gpu", names[0], base / t));
                    }
                    if self.wants(&names[1]) && exchanged > 0 {
                        let t = time_alltoall::<K>(&group, input.len(), reps).map_err(&err)?;
                        self.push::<K>(&names[1], "nccl", t, exchanged);
                        self.summary.push(format!(
                            "{}: {} bytes in {:.3} ms = {:.1} GB/s (algorithm bandwidth; bus \
                             bandwidth x (G-1)/G)",
                            names[1],
                            exchanged,
                            t,
                            gbps(exchanged, t)
                        ));
                    }
                }
            }
            if self.wants(&names[2]) {
                let (t, work) = time_host(
                    reps,
                    input,
                    |w| multi::sort_keys_host(&group, w, &opts).map(drop),
                    sync_all,
                )
                .map_err(&err)?;
                self.check(input, &work, &names[2])?;
                self.push::<K>(&names[2], "host", t, 2 * bytes);
                if let Some(base) = one_gpu[1] {
                    self.summary
                        .push(format!("{}: {:.2}x radix-1gpu-host", names[2], base / t));
                }
            }
        }

        // The host link and the streamed sort.
        let mut rates = [None, None];
        if self.wants(COPIES[0])
            || self.wants(COPIES[1])
            || stream_names().any(|name| self.wants(&name))
            || self.wants(ARRAYS_STREAM)
        {
            let what = "benchmarking pinned copies";
            let err = gpu_err(what);
            let (h2d, d2h) = time_pinned_copies(&gpu, input, reps).map_err(&err)?;
            rates = [Some(gbps(bytes, h2d)), Some(gbps(bytes, d2h))];
            if self.wants(COPIES[0]) {
                self.push::<K>(COPIES[0], "copy", h2d, bytes);
            }
            if self.wants(COPIES[1]) {
                self.push::<K>(COPIES[1], "copy", d2h, bytes);
            }
        }
        // The duplex rate: measured where asked for, and for every streamed row's third bound.
        let mut duplex = None;
        if self.wants(DUPLEX_COPY) || stream_names().any(|name| self.wants(&name)) {
            match time_duplex_copies(&gpu, input, reps) {
                Ok(t) => {
                    duplex = Some(gbps(bytes, t));
                    if self.wants(DUPLEX_COPY) {
                        self.push::<K>(DUPLEX_COPY, "copy", t, bytes);
                    }
                    self.summary.push(format!(
                        "{DUPLEX_COPY}: {:.1} GB/s each way with both directions at once \
                         (alone: {}, {})",
                        gbps(bytes, t),
                        rates[0].map_or("-".into(), |r| format!("{r:.1} GB/s up")),
                        rates[1].map_or("-".into(), |r| format!("{r:.1} GB/s down")),
                    ));
                }
                // Only a bound of the streamed rows needs it, and they run without it (its
                // buffers, twice the keys' bytes on each side, may not fit where theirs do).
                Err(e) if !self.wants(DUPLEX_COPY) => self.summary.push(format!(
                    "{DUPLEX_COPY}: not measured ({e}); the streamed rows' bound at the duplex \
                     rate is left out"
                )),
                Err(e) => return Err(gpu_err("benchmarking pinned copies both ways at once")(e)),
            }
        }
        if self.wants(HOST_COPY) {
            let mut dst = input.to_vec();
            let t = time_wall(
                reps,
                &mut dst,
                |_| Ok(()),
                |d| {
                    stream::par_copy(d, input);
                    Ok(())
                },
                || Ok(()),
            )
            .map_err(gpu_err("benchmarking the host copy"))?;
            self.push_on::<K>("cpu", HOST_COPY, "copy", t, bytes);
            self.summary.push(format!(
                "{HOST_COPY}: {:.1} GB/s of keys copied host to host on {} threads (each byte \
                 read once and written once)",
                gbps(bytes, t),
                rayon::current_num_threads()
            ));
        }
        let mut pageable = None;
        if self.wants(COPIES[2]) || self.wants(COPIES[3]) {
            let err = gpu_err("benchmarking pageable copies");
            let (h2d, d2h) = time_pageable_copies(&gpu, input, reps).map_err(&err)?;
            pageable = Some((h2d, d2h));
            if self.wants(COPIES[2]) {
                self.push::<K>(COPIES[2], "copy", h2d, bytes);
            }
            if self.wants(COPIES[3]) {
                self.push::<K>(COPIES[3], "copy", d2h, bytes);
            }
            self.summary.push(format!(
                "pageable copies: {:.1} GB/s up, {:.1} GB/s down (pinned: {}, {})",
                gbps(bytes, h2d),
                gbps(bytes, d2h),
                rates[0].map_or("-".into(), |r| format!("{r:.1} GB/s")),
                rates[1].map_or("-".into(), |r| format!("{r:.1} GB/s")),
            ));
        }
        for (ratio, row) in stream_rows() {
            let name = stream_name(ratio, row);
            if !self.wants(&name) {
                continue;
            }
            let what = format!("benchmarking {name}");
            let err = gpu_err(&what);
            let budget = (bytes / ratio) as usize;
            let min = stream::min_device_budget::<K>(0);
            if budget < min {
                self.summary.push(format!(
                    "{name}: skipped: a budget of {budget} bytes is below the streamed sort's \
                     minimum of {min}; use larger --sizes"
                ));
                continue;
            }
            let opts = StreamOptions::default()
                .with_order(order)
                .with_device_budget(Some(budget))
                .with_pageable_runs(row == StreamRow::SorterPageable);
            let made = std::time::Instant::now();
            let mut sorter = match row {
                StreamRow::Fresh => None,
                _ => Some(StreamSorter::<K>::for_keys(&gpu, &opts).map_err(&err)?),
            };
            let made = made.elapsed();
            let mut report = None;
            let (t, work) = match (row, &mut sorter) {
                (StreamRow::SorterPinned, Some(s)) => {
                    // The keys in page-locked memory, restored there (untimed) before each call.
                    let mut pinned = PinnedBuffer::<K>::alloc(&gpu, input.len()).map_err(&err)?;
                    let t = time_wall(
                        reps,
                        &mut pinned,
                        |p| {
                            stream::par_copy(p.as_mut_slice()?, input);
                            Ok(())
                        },
                        |p| {
                            report = Some(s.sort_keys_pinned(p)?);
                            Ok(())
                        },
                        || gpu.synchronize(),
                    )
                    .map_err(&err)?;
                    (t, pinned.as_slice().map_err(&err)?.to_vec())
                }
                _ => time_host(
                    reps,
                    input,
                    |w| {
                        report = Some(match &mut sorter {
                            Some(s) => s.sort_keys(w)?,
                            None => stream::sort_keys(&gpu, w, &opts)?,
                        });
                        Ok(())
                    },
                    || gpu.synchronize(),
                )
                .map_err(&err)?,
            };
            drop(sorter);
            if row != StreamRow::Fresh {
                self.summary.push(format!(
                    "{name}: the sorter (lanes, staging) made once in {:.3} ms, outside the \
                     timed calls",
                    made.as_secs_f64() * 1e3
                ));
            }
            self.check(input, &work, &name)?;
            self.push::<K>(&name, "host", t, 2 * bytes);
            if let (Some(r), [Some(h2d), Some(d2h)]) = (report, rates) {
                let down = r.bytes_to_device as f64 / (h2d * 1e9);
                let up = r.bytes_to_host as f64 / (d2h * 1e9);
                let serial = (down + up) * 1e3;
                let overlapped = down.max(up) * 1e3;
                // Both directions at the rate each keeps while the other runs.
                let at_duplex = duplex.map_or(String::new(), |rate| {
                    let ms = r.bytes_to_device.max(r.bytes_to_host) as f64 / (rate * 1e6);
                    format!(
                        ", {ms:.3} ms overlapped at the duplex rate ({:.0}%)",
                        100.0 * ms / t
                    )
                });
                let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
                self.summary.push(format!(
                    "{name}: {} chunks, {} buckets, {} crossings, runs in {} memory; bound at \
                     the measured copy rates {:.3} ms with both directions overlapped ({:.0}% of \
                     it reached), {:.3} ms one direction at a time ({:.0}%){at_duplex}; last \
                     call: setup {:.3} ms, runs {:.3} ms, split {:.3} ms, merge {:.3} ms",
                    r.chunks,
                    r.buckets,
                    r.crossings,
                    if r.pinned_runs {
                        "page-locked"
                    } else {
                        "pageable"
                    },
                    overlapped,
                    100.0 * overlapped / t,
                    serial,
                    100.0 * serial / t,
                    ms(r.times.setup),
                    ms(r.times.runs),
                    ms(r.times.split),
                    ms(r.times.merge)
                ));
            }
        }
        if self.wants(ARRAYS_STREAM) {
            self.arrays_stream(&gpu, input, rates, pageable)?;
        }
        Ok(())
    }

    /// The `arrays-stream-4x` row: arrays of [`ARRAY_LEN`] keys streamed through a quarter of
    /// their bytes, against the bound of one crossing each way at the measured copy rates, and
    /// against the driver's own copies of the same bytes from and to pageable memory
    /// (`pageable`: their milliseconds up and down) where those were measured.
    fn arrays_stream<K: CliKey>(
        &mut self,
        gpu: &Gpu,
        input: &[K],
        rates: [Option<f64>; 2],
        pageable: Option<(f64, f64)>,
    ) -> Result<(), CliError> {
        let bytes = (input.len() * K::SIZE) as u64;
        let budget = (bytes / 4) as usize;
        let min = arraysort::stream::min_stream_budget::<K>(0);
        if budget < min {
            self.summary.push(format!(
                "{ARRAYS_STREAM}: skipped: a budget of {budget} bytes is below the minimum of \
                 {min}; use larger --sizes"
            ));
            return Ok(());
        }
        let what = format!("benchmarking {ARRAYS_STREAM}");
        let offsets: Vec<u64> = (0..input.len().div_ceil(ARRAY_LEN))
            .map(|a| (a * ARRAY_LEN) as u64)
            .chain([input.len() as u64])
            .collect();
        let opts = arraysort::stream::StreamArraysOptions::default()
            .with_order(self.ctx.order)
            .with_device_budget(Some(budget));
        let mut report = None;
        let (t, work) = time_host(
            self.ctx.reps,
            input,
            |w| {
                report = Some(arraysort::stream::sort_keys_streamed(
                    gpu, w, &offsets, &opts,
                )?);
                Ok(())
            },
            || gpu.synchronize(),
        )
        .map_err(gpu_err(&what))?;
        let cuts: Vec<usize> = offsets.iter().map(|&o| o as usize).collect();
        check::check_arrays_sorted(&work, &cuts, self.ctx.order)
            .map_err(|e| wrong(ARRAYS_STREAM, e))?;
        arrays::check_arrays_permutation(input, &work, &offsets)
            .map_err(|e| wrong(ARRAYS_STREAM, e))?;
        self.push::<K>(ARRAYS_STREAM, "host", t, 2 * bytes);
        if let (Some(r), [Some(h2d), Some(d2h)]) = (report, rates) {
            let up = r.bytes_to_device as f64 / (h2d * 1e9) * 1e3;
            let down = r.bytes_to_host as f64 / (d2h * 1e9) * 1e3;
            self.summary.push(format!(
                "{ARRAYS_STREAM}: {} jobs of whole arrays, chunks of {} keys; bound at the \
                 measured copy rates {:.3} ms with both directions overlapped ({:.0}% of it \
                 reached), {:.3} ms one direction at a time ({:.0}%)",
                r.jobs,
                r.chunk_keys,
                up.max(down),
                100.0 * up.max(down) / t,
                up + down,
                100.0 * (up + down) / t
            ));
        }
        if let Some((up, down)) = pageable {
            self.summary.push(format!(
                "{ARRAYS_STREAM}: against the driver's pageable copies of the same bytes \
                 ({:.3} ms up + {:.3} ms down = {:.3} ms): {:.0}%",
                up,
                down,
                up + down,
                100.0 * (up + down) / t
            ));
        }
        Ok(())
    }
}

/// Median milliseconds of a pinned host-to-device and a device-to-host copy of `input`'s bytes
/// on `gpu`.
fn time_pinned_copies<K: CliKey>(
    gpu: &Gpu,
    input: &[K],
    reps: u32,
) -> sortlab_primitives::Result<(f64, f64)> {
    let n = input.len();
    let mut host = PinnedBuffer::<K>::alloc(gpu, n)?;
    host.as_mut_slice()?.copy_from_slice(input);
    time_both_ways(
        gpu,
        reps,
        n,
        &mut host,
        |d, h| d.copy_from_pinned_async(0, h, 0..n),
        |d, h| d.copy_to_pinned_async(0..n, h, 0),
    )
}

/// Median milliseconds of a host-to-device and a device-to-host copy of `input`'s bytes run at
/// once on two streams of `gpu`, page-locked at both ends: the time in which each direction
/// moves the bytes while the other is busy too, as the lanes of a streamed pass keep them.
fn time_duplex_copies<K: CliKey>(
    gpu: &Gpu,
    input: &[K],
    reps: u32,
) -> sortlab_primitives::Result<f64> {
    let n = input.len();
    let (up_gpu, down_gpu) = (gpu.fork_stream()?, gpu.fork_stream()?);
    let mut from = PinnedBuffer::<K>::alloc(gpu, n)?;
    from.as_mut_slice()?.copy_from_slice(input);
    let to = PinnedBuffer::<K>::alloc(gpu, n)?;
    let mut source = DeviceBuffer::<K>::alloc(&down_gpu, n)?;
    source.copy_from_pinned_async(0, &from, 0..n)?;
    let up_dev = DeviceBuffer::<K>::alloc(&up_gpu, n)?;
    let mut state = (up_dev, to);
    time_wall(
        reps,
        &mut state,
        |_| Ok(()),
        |(up, to)| {
            up.copy_from_pinned_async(0, &from, 0..n)?;
            source.copy_to_pinned_async(0..n, to, 0)
        },
        || {
            up_gpu.synchronize()?;
            down_gpu.synchronize()
        },
    )
}

/// Median milliseconds of a host-to-device and a device-to-host copy of `input`'s bytes on
/// `gpu` from and to pageable host memory (the driver stages them through its own pinned
/// buffers).
fn time_pageable_copies<K: CliKey>(
    gpu: &Gpu,
    input: &[K],
    reps: u32,
) -> sortlab_primitives::Result<(f64, f64)> {
    let mut host = input.to_vec();
    time_both_ways(
        gpu,
        reps,
        input.len(),
        &mut host,
        |d, h| d.copy_from_host(h),
        |d, h| d.copy_to_host(h),
    )
}

/// Median milliseconds of `up` (host buffer `host` into a device buffer of `n` keys) and of
/// `down` (back), each after the warm-up calls of [`time_wall`].
fn time_both_ways<K: CliKey, H>(
    gpu: &Gpu,
    reps: u32,
    n: usize,
    host: &mut H,
    mut up: impl FnMut(&mut DeviceBuffer<K>, &H) -> sortlab_primitives::Result<()>,
    mut down: impl FnMut(&DeviceBuffer<K>, &mut H) -> sortlab_primitives::Result<()>,
) -> sortlab_primitives::Result<(f64, f64)> {
    let mut dev = DeviceBuffer::<K>::alloc(gpu, n)?;
    let h2d = time_wall(
        reps,
        &mut dev,
        |_| Ok(()),
        |d| up(d, host),
        || gpu.synchronize(),
    )?;
    let d2h = time_wall(
        reps,
        host,
        |_| Ok(()),
        |h| down(&dev, h),
        || gpu.synchronize(),
    )?;
    Ok((h2d, d2h))
}

/// Median milliseconds of NCCL moving the bytes an all-to-all of `n` keys of `K` spread evenly
/// over `group` moves: each GPU sends every other GPU 1/G of its share.
fn time_alltoall<K: CliKey>(
    group: &GpuGroup,
    n: usize,
    reps: u32,
) -> sortlab_primitives::Result<f64> {
    let g = group.len();
    let per = n / g;
    let mut bufs = group
        .gpus()
        .iter()
        .map(|gp| {
            Ok((
                DeviceBuffer::<K>::zeroed(gp, per)?,
                DeviceBuffer::<K>::zeroed(gp, per)?,
            ))
        })
        .collect::<sortlab_primitives::Result<Vec<_>>>()?;
    let counts: Vec<usize> = (0..g).map(|j| (j + 1) * per / g - j * per / g).collect();
    let offsets: Vec<usize> = (0..g).map(|j| j * per / g).collect();
    time_wall(
        reps,
        &mut bufs,
        |_| Ok(()),
        |b| {
            // One thread a rank, as the sort runs them: each rank's grouped calls must be
            // issued while the others' are.
            let _turn = group.exclusive();
            std::thread::scope(|s| {
                let handles: Vec<_> = group
                    .communicators()
                    .iter()
                    .zip(b.iter_mut())
                    .map(|(comm, (send, recv))| {
                        let (counts, offsets) = (&counts, &offsets);
                        s.spawn(move || {
                            comm.all_to_all_v(send, counts, offsets, recv, counts, offsets)
                        })
                    })
                    .collect();
                handles.into_iter().try_for_each(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(sortlab_primitives::Error::Internal(
                            "an all-to-all thread panicked".into(),
                        ))
                    })
                })
            })
        },
        || group.synchronize(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_sizes_are_powers_of_two_and_all() {
        assert!(group_sizes(1).is_empty());
        assert_eq!(group_sizes(2), [2]);
        assert_eq!(group_sizes(3), [2, 3]);
        assert_eq!(group_sizes(4), [2, 4]);
        assert_eq!(group_sizes(8), [2, 4, 8]);
    }

    #[test]
    fn shares_cover_the_input() {
        let v: Vec<u32> = (0..10).collect();
        let s = shares(&v, 3);
        assert_eq!(s.iter().map(|x| x.len()).sum::<usize>(), 10);
        assert_eq!(s.concat(), v);
    }
}
