//! `sortlab reproduce sorts`: the course notes' comparison of the GPU sorts: latency and
//! bandwidth against input size for every registered sort with a GPU engine
//! (`sortlab_registry::ALGOS`), so a sort added to the registry joins the comparison without a
//! change here, with the device-to-device copy of the same bytes as the bound.
//!
//! Keys are u32 uniform in `0..2^31`, sizes `2^10 ..= 2^max` in steps of 2 (default max 2^24).
//! Each point is the median of `--reps` event-timed calls after warm-up calls, rotating over
//! copies of the buffer that span three L2 caches, each restored from a pristine device copy
//! outside the timed region. Every result equals the CPU reference sort before it is reported.

use sortlab_primitives::{DeviceBuffer, Order};
use sortlab_registry::{Algo, ALGOS};

use super::primitives::{describe, figure, point, table, Point};
use super::{fmt_ms, require_gpu, Report};
use crate::args::ReproduceArgs;
use crate::backend::check::check_equal;
use crate::backend::gen::generate;
use crate::backend::patterns::Pattern;
use crate::bench::row::{wrong, BenchRow, RowId, Stamp};
use crate::bench::timing::{gpu_err, time_copy, time_gpu_in_place};
use crate::cmd::note;
use crate::error::CliError;
use crate::plot::Scale;

/// Largest default input: 2^24 keys (the slowest published variants take seconds beyond).
const DEFAULT_MAX_LOG2: u32 = 24;
/// Smallest input: 2^10 keys.
const MIN_LOG2: u32 = 10;
/// Largest input ever run: 2^30 keys (4 GiB, with copies and scratch about 16 GiB).
const CAP_LOG2: u32 = 30;
/// The bound's series name.
const COPY: &str = "copy";

/// The sizes (log2) the experiment runs under `--max-log2`.
fn sizes(max_log2: Option<u32>) -> Vec<u32> {
    let max = max_log2.unwrap_or(DEFAULT_MAX_LOG2).min(CAP_LOG2);
    (MIN_LOG2..=max).step_by(2).collect()
}

/// The registered sorts with a GPU engine, in listing order.
fn gpu_algos() -> Vec<&'static Algo> {
    ALGOS.iter().filter(|a| a.has_gpu()).collect()
}

/// Runs the experiment on the first GPU.
pub fn run(args: &ReproduceArgs) -> Result<Report, CliError> {
    let sizes = sizes(args.max_log2);
    if sizes.is_empty() {
        return Err(CliError::Usage(format!(
            "reproduce sorts starts at 2^{MIN_LOG2} keys: --max-log2 must be at least {MIN_LOG2}"
        )));
    }
    let gpu = require_gpu("sorts", "GPU sorts")?;
    let stamp = Stamp::new(Some(&gpu), Order::Ascending);
    let device = describe(&gpu);
    let algos = gpu_algos();
    let mut pts = Vec::new();
    let mut rows = Vec::new();
    for &log2 in &sizes {
        let n = 1usize << log2;
        note(&format!("reproduce sorts: n = 2^{log2}"));
        let what = format!("reproducing the sort comparison at {n} u32 keys");
        let input = generate::<u32>(Pattern::Uniform, n, args.seed);
        let mut want = input.clone();
        sortlab_cpu_reference::sort::sort(&mut want, Order::Ascending);
        let d_in = DeviceBuffer::from_host(&gpu, &input).map_err(gpu_err(&what))?;
        let bytes = 8 * n as u64;
        let mut measured = vec![(COPY, time_copy(&gpu, args.reps, &what, &d_in)?)];
        for a in &algos {
            let Some(sort) = a.gpu_for::<u32>() else {
                continue;
            };
            let (t, keys) = time_gpu_in_place(&gpu, args.reps, &what, &d_in, |keys| {
                sort(&gpu, keys, Order::Ascending)
            })?;
            let got = keys.to_host().map_err(gpu_err(&what))?;
            check_equal(&want, &got).map_err(|e| wrong(&format!("{} at {n}", a.name), e))?;
            measured.push((a.name, t));
        }
        for (name, ms) in measured {
            let id = RowId {
                algo: name.to_string(),
                engine: "gpu",
                op: if name == COPY { "copy" } else { "sort_keys" },
                key_type: "u32",
                value_type: None,
                pattern: "uniform".into(),
            };
            rows.push(BenchRow::new(id, n as u64, ms, bytes, &stamp));
            pts.push(point(name, n as u64, ms, bytes));
        }
    }
    let names: Vec<&str> = algos.iter().map(|a| a.name).chain([COPY]).collect();
    let mut report = build_report(&pts, &names, &device, args);
    report.notes.insert(
        0,
        format!(
            "Device: {device}; date {}; u32 keys uniform in 0..2^31 (seed {}); median of {} \
             event-timed library calls after warm-up calls, rotating over input copies that span \
             three L2 caches, each restored outside the timed region.",
            stamp.date, args.seed, args.reps
        ),
    );
    report.rows = rows;
    Ok(report)
}

/// The tables and figures of measured points, a series per name in `names`; no device needed.
fn build_report(pts: &[Point], names: &[&str], device: &str, args: &ReproduceArgs) -> Report {
    let mut report = Report {
        title: "GPU sorts: the course notes' latency and bandwidth comparison".into(),
        notes: vec![
            "Every registered sort with a GPU engine (`sortlab list`), keys alone. Bandwidth is \
             the bytes of one read and one write of every key (8n) over the time: the sorts \
             move more, so it is a lower bound of their traffic, and `copy` (a \
             device-to-device copy of the same bytes) is the bound no sort can beat. Every \
             result was checked against the CPU reference sort before it was reported."
                .into(),
            format!(
                "Sizes 2^{MIN_LOG2} to 2^{} in steps of 2 (`--max-log2` {}).",
                sizes(args.max_log2).last().copied().unwrap_or(MIN_LOG2),
                args.max_log2.map_or_else(
                    || format!("not given: {DEFAULT_MAX_LOG2}"),
                    |m| m.to_string()
                )
            ),
        ],
        ..Report::default()
    };
    report.tables.push(table(
        "Sort latency (ms) against input size, u32 keys",
        pts,
        names,
        |p| fmt_ms(p.ms),
    ));
    report.tables.push(table(
        "Sort bandwidth (GB/s of 8n bytes) against input size, u32 keys",
        pts,
        names,
        |p| format!("{:.1}", p.gbps),
    ));
    report.figures.push((
        "latency".into(),
        figure(
            &format!("Sort latency ({device})"),
            "ms",
            Scale::Log10,
            pts,
            names,
            |p| p.ms,
        ),
    ));
    report.figures.push((
        "bandwidth".into(),
        figure(
            &format!("Sort bandwidth ({device})"),
            "GB/s",
            Scale::Log10,
            pts,
            names,
            |p| p.gbps,
        ),
    ));
    report
}

#[cfg(test)]
mod tests {
    use super::super::testing;
    use super::*;

    fn args(max_log2: Option<u32>) -> ReproduceArgs {
        testing::args("sorts", max_log2, 1)
    }

    #[test]
    fn sizes_step_by_two_and_respect_max_log2() {
        assert_eq!(sizes(None), vec![10, 12, 14, 16, 18, 20, 22, 24]);
        assert_eq!(sizes(Some(13)), vec![10, 12]);
        assert_eq!(sizes(Some(40)).last(), Some(&30));
        assert!(sizes(Some(9)).is_empty());
    }

    #[test]
    fn every_gpu_entry_of_the_registry_is_compared() {
        let names: Vec<&str> = gpu_algos().iter().map(|a| a.name).collect();
        assert!(names.contains(&"radix") && names.contains(&"radix-onebit"));
        assert!(!names.contains(&"reference"));
    }

    #[test]
    fn too_small_max_log2_is_a_usage_error() {
        let e = run(&args(Some(8))).unwrap_err();
        assert!(matches!(e, CliError::Usage(_)), "{e}");
    }

    #[test]
    fn runs_on_a_gpu_or_names_the_missing_device() {
        testing::runs_on_a_gpu_or_names_the_missing_device(run, &args(Some(10)));
    }

    #[test]
    fn report_has_latency_and_bandwidth_of_every_series() {
        let mut pts = Vec::new();
        for log2 in [10u32, 12] {
            let n = 1u64 << log2;
            pts.push(point("radix", n, 0.01, 8 * n));
            pts.push(point(COPY, n, 0.005, 8 * n));
        }
        let r = build_report(&pts, &["radix", "merge", COPY], "Test GPU", &args(Some(12)));
        let lat = r.tables[0].to_markdown();
        assert!(lat.contains("| n | radix | merge | copy |"), "{lat}");
        assert!(lat.contains("| 2^10 | 0.0100 | - | 0.0050 |"), "{lat}");
        let bw = r.tables[1].to_markdown();
        assert!(bw.contains("| 2^12 | 3.3 | - | 6.6 |"), "{bw}");
        let stems: Vec<&str> = r.figures.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(stems, ["latency", "bandwidth"]);
        assert_eq!(r.figures[1].1.series.len(), 3);
    }
}
