//! `sortlab reproduce primitives`: the course notes' performance comparison of the four
//! reductions (interleaved, sequential addressing, first add during load, unrolled last warp)
//! and the four scans (naive one-warp Hillis-Steele, double-buffered one-block Hillis-Steele,
//! work-efficient one-block Blelloch, hierarchical any-size), with the `Fast` variants and the
//! device-to-device copy rate beside them: latency and bandwidth against input size.
//!
//! Keys are uniform u32 (sums into 64 bits); a reduction moves 4n bytes, a scan (exclusive
//! sum) 8n. Each point is the median of `--reps` event-timed library calls after warm-up calls,
//! rotating over copies of the input and output that span three times the L2 cache (as `sortlab
//! bench` and the CUB anchors): inputs below the L2 size are timed from device memory too.

use sortlab_primitives::reduce::{reduce_sum, ReduceVariant};
use sortlab_primitives::scan::{scan, Direction, ScanKind, ScanOp, ScanVariant};
use sortlab_primitives::{DeviceBuffer, Gpu, Order};

use super::{fmt_ms, require_gpu, Report, Table};
use crate::args::ReproduceArgs;
use crate::backend::gen::generate;
use crate::backend::patterns::Pattern;
use crate::bench::row::{gbps, BenchRow, RowId, Stamp};
use crate::bench::timing::{buffers, gpu_err, slot_count, time_gpu_rotating, InputSlots};
use crate::cmd::note;
use crate::error::CliError;
use crate::plot::{Plot, Scale, Series};

/// Largest default input: 2^28 u32 keys (1 GiB), the size of the targets.
const DEFAULT_MAX_LOG2: u32 = 28;

/// One measured point (also the other experiments' point of a latency/bandwidth series).
pub(super) struct Point {
    /// Series name.
    pub(super) variant: String,
    /// Input size.
    pub(super) n: u64,
    /// Median time.
    pub(super) ms: f64,
    /// Bytes moved.
    pub(super) bytes: u64,
    /// Bytes moved over the time.
    pub(super) gbps: f64,
}

/// Runs the experiment on the first GPU.
pub fn run(args: &ReproduceArgs) -> Result<Report, CliError> {
    let gpu = require_gpu("primitives", "GPU kernels")?;
    let max = args.max_log2.unwrap_or(DEFAULT_MAX_LOG2).min(32);
    let reduce_sizes: Vec<u32> = (10..=max).step_by(2).collect();
    let mut scan_sizes: Vec<u32> = [5, 8, 10, 11].into_iter().filter(|&k| k <= max).collect();
    scan_sizes.extend((12..=max).step_by(2));

    let mut reduce_pts = Vec::new();
    let mut scan_pts = Vec::new();
    let mut rows = Vec::new();
    let stamp = Stamp::new(Some(&gpu), Order::Ascending);
    let date = &stamp.date;
    let mut sizes: Vec<u32> = reduce_sizes.iter().chain(&scan_sizes).copied().collect();
    sizes.sort_unstable();
    sizes.dedup();
    for &log2 in &sizes {
        let n = 1u64 << log2;
        note(&format!("reproduce primitives: n = 2^{log2}"));
        let input = generate::<u32>(Pattern::Uniform, n as usize, args.seed);
        let what = format!("reproducing primitives at {n} u32 keys");
        // Each call's input and output: slots of copies spanning the L2 cache three times (the
        // reductions read the inputs alone).
        let d_in = DeviceBuffer::from_host(&gpu, &input).map_err(gpu_err(&what))?;
        let k = slot_count(&gpu, 8 * n as usize);
        let ins = InputSlots::new(&gpu, &d_in, k, &what)?;
        let mut outs = buffers::<u32>(&gpu, input.len(), k, &what)?;
        let (t, _) = time_gpu_rotating(&gpu, args.reps, &what, k, |s| {
            outs[s].copy_from_device(ins.get(s))
        })?;
        let copy = point("copy", n, t, 8 * n);
        if reduce_sizes.contains(&log2) {
            let want: u64 = input.iter().map(|&k| k as u64).sum();
            for v in ReduceVariant::ALL {
                let mut got = 0u64;
                let (t, _) = time_gpu_rotating(&gpu, args.reps, &what, k, |s| {
                    got = reduce_sum(&gpu, ins.get(s), v)?;
                    Ok(())
                })?;
                check(got == want, &what, || {
                    format!("{v} sum {got}, expected {want}")
                })?;
                reduce_pts.push(point(v.name(), n, t, 4 * n));
            }
            reduce_pts.push(point("copy", n, copy.ms, 8 * n));
        }
        if scan_sizes.contains(&log2) {
            for v in ScanVariant::ALL {
                if v.max_len().is_some_and(|m| n as usize > m) {
                    continue;
                }
                let (t, last) = time_gpu_rotating(&gpu, args.reps, &what, k, |s| {
                    scan(
                        &gpu,
                        ins.get(s),
                        &mut outs[s],
                        ScanOp::Sum,
                        ScanKind::Exclusive,
                        Direction::Forward,
                        v,
                    )
                })?;
                let d_out = &outs[last];
                check_scan(&input, d_out, &what, v)?;
                scan_pts.push(point(v.name(), n, t, 8 * n));
            }
            scan_pts.push(point("copy", n, copy.ms, 8 * n));
        }
    }
    for (op, pts) in [
        ("reduce_sum", &reduce_pts),
        ("scan_exclusive_sum", &scan_pts),
    ] {
        for p in pts.iter() {
            let id = RowId {
                algo: p.variant.clone(),
                engine: "gpu",
                op,
                key_type: "u32",
                value_type: None,
                pattern: "uniform".into(),
            };
            rows.push(BenchRow::new(id, p.n, p.ms, p.bytes, &stamp));
        }
    }
    let device = describe(&gpu);
    let reduce_names: Vec<&str> = ReduceVariant::ALL
        .iter()
        .map(|v| v.name())
        .chain(["copy"])
        .collect();
    let scan_names: Vec<&str> = ScanVariant::ALL
        .iter()
        .map(|v| v.name())
        .chain(["copy"])
        .collect();
    let mut report = Report {
        title: "Reductions and scans: the course notes' performance comparison".into(),
        notes: vec![
            format!(
                "Device: {device}; date {date}; uniform u32 keys (seed {}); median of {} \
                     event-timed library calls after warm-up calls, rotating over buffer copies \
                     that span three L2 caches.",
                args.seed, args.reps
            ),
            "Reduce: sum into 64 bits, 4n bytes read. Scan: exclusive sum, 8n bytes read and \
             written. `copy` is a device-to-device copy of the same keys (8n bytes), the \
             bandwidth ceiling. Naive scans one warp (32 keys), double-buffered one block \
             (1024), work-efficient one block (2048): beyond those sizes they return an error, \
             so their columns end there."
                .into(),
        ],
        ..Report::default()
    };
    for (label, pts, names) in [
        ("Reduction", &reduce_pts, &reduce_names),
        ("Scan", &scan_pts, &scan_names),
    ] {
        report.tables.push(table(
            &format!("{label} latency (ms) against input size"),
            pts,
            names,
            |p| fmt_ms(p.ms),
        ));
        report.tables.push(table(
            &format!("{label} bandwidth (GB/s) against input size"),
            pts,
            names,
            |p| format!("{:.1}", p.gbps),
        ));
        let stem = label.to_lowercase();
        report.figures.push((
            format!("{stem}-latency"),
            figure(
                &format!("{label} latency ({device})"),
                "ms",
                Scale::Log10,
                pts,
                names,
                |p| p.ms,
            ),
        ));
        report.figures.push((
            format!("{stem}-bandwidth"),
            figure(
                &format!("{label} bandwidth ({device})"),
                "GB/s",
                Scale::Linear,
                pts,
                names,
                |p| p.gbps,
            ),
        ));
    }
    report.rows = rows;
    Ok(report)
}

/// A point of `variant` at `n` keys taking `ms`, moving `bytes`.
pub(super) fn point(variant: &str, n: u64, ms: f64, bytes: u64) -> Point {
    Point {
        variant: variant.to_string(),
        n,
        ms,
        bytes,
        gbps: gbps(bytes, ms),
    }
}

/// The device's name and architecture, for the notes and titles.
pub(super) fn describe(gpu: &Gpu) -> String {
    let i = gpu.info();
    format!(
        "{} (sm_{}{})",
        i.name, i.compute_capability.0, i.compute_capability.1
    )
}

fn check(ok: bool, what: &str, message: impl FnOnce() -> String) -> Result<(), CliError> {
    if ok {
        Ok(())
    } else {
        Err(CliError::WrongResult {
            what: what.to_string(),
            message: message(),
        })
    }
}

/// The exclusive sum must equal the host's, every key of it.
fn check_scan(
    input: &[u32],
    out: &DeviceBuffer<u32>,
    what: &str,
    v: ScanVariant,
) -> Result<(), CliError> {
    let got = out.to_host().map_err(gpu_err(what))?;
    let mut acc = 0u32;
    for (i, (&x, &g)) in input.iter().zip(&got).enumerate() {
        check(g == acc, what, || {
            format!("{v} scan: key {i} is {g}, expected {acc}")
        })?;
        acc = acc.wrapping_add(x);
    }
    Ok(())
}

/// A table with a row per size (`2^k`) and a column per series in `names` (`-` where absent).
pub(super) fn table(
    caption: &str,
    pts: &[Point],
    names: &[&str],
    cell: impl Fn(&Point) -> String,
) -> Table {
    let mut ns: Vec<u64> = pts.iter().map(|p| p.n).collect();
    ns.sort_unstable();
    ns.dedup();
    Table {
        caption: caption.to_string(),
        columns: std::iter::once("n".to_string())
            .chain(names.iter().map(|s| s.to_string()))
            .collect(),
        rows: ns
            .iter()
            .map(|&n| {
                std::iter::once(format!("2^{}", n.trailing_zeros()))
                    .chain(names.iter().map(|name| {
                        pts.iter()
                            .find(|p| p.n == n && p.variant == *name)
                            .map_or_else(|| "-".to_string(), &cell)
                    }))
                    .collect()
            })
            .collect(),
    }
}

/// A plot against input size (log2 x axis) with a line per series in `names`.
pub(super) fn figure(
    title: &str,
    y_label: &str,
    y_scale: Scale,
    pts: &[Point],
    names: &[&str],
    y: impl Fn(&Point) -> f64,
) -> Plot {
    Plot {
        title: title.to_string(),
        x_label: "input size (u32 keys)".into(),
        y_label: y_label.to_string(),
        x_scale: Scale::Log2,
        y_scale,
        series: names
            .iter()
            .map(|name| {
                Series::new(
                    *name,
                    pts.iter()
                        .filter(|p| p.variant == *name)
                        .map(|p| (p.n as f64, y(p)))
                        .collect(),
                )
            })
            .collect(),
    }
}
