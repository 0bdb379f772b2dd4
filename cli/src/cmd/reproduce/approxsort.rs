//! `sortlab reproduce approxsort`: Figures 2, 3 and 4 of Xiao, Chen and Sun, "High Performance
//! Approximate Sort Algorithm Using GPUs".
//!
//! - Figures 2 (keys uniform in `0..2^31`) and 3 (the `gaussian` pattern: the mean of four
//!   uniforms) at 1M, 2M and 4M u32 keys (2^20, 2^21, 2^22): the approximate sort
//!   ([`approx_sort`], [`ApproxVariant::Fast`] and [`ApproxVariant::Paper`], 10,000
//!   equal-width intervals) against sortlab's full sorts: the radix sort
//!   ([`RadixVariant::Fast`]) and the bucket sort (the same approximate sort refined by
//!   [`refine`]). The paper's other full sorts (CUB's merge and radix sorts) are timed by
//!   `scripts/bench-gpu` (the CUB anchor program), since sortlab has no GPU merge sort yet.
//! - Figure 4: time of both variants against NUM_INTERVAL (10,000 to 90,000 in steps of
//!   10,000) at 1M and 2M uniform keys.
//!
//! Each point is the median of `--reps` event-timed library calls after warm-up calls, rotating
//! over copies of the buffers that span three times the L2 cache (as `sortlab bench` and the CUB
//! anchors), each input restored from a pristine device copy after its use, outside the timed
//! region: small inputs are timed from device memory too. Every result
//! is checked before it is reported: an approximate result is in interval order for the
//! boundaries it returned and a permutation of the input; a full sort equals the CPU reference.

use std::collections::BTreeSet;

use sortlab_approxsort::{
    approx_sort, refine, ApproxOptions, ApproxVariant, Intervals, DEFAULT_INTERVALS,
};
use sortlab_gpu_sorts::radix::{self, RadixOptions, RadixVariant};
use sortlab_primitives::{DeviceBuffer, Gpu, Order};

use super::primitives::{describe, figure, point, table, Point};
use super::{fmt_ms, require_gpu, Report, Table};
use crate::args::ReproduceArgs;
use crate::backend::check::{check_equal, check_interval_order};
use crate::backend::gen::generate;
use crate::backend::patterns::Pattern;
use crate::bench::row::{wrong, BenchRow, RowId, Stamp};
use crate::bench::timing::{gpu_err, time_gpu_in_place};
use crate::cmd::note;
use crate::error::CliError;
use crate::plot::{Plot, Scale, Series};

/// Sizes (log2) of Figures 2 and 3: 1M, 2M, 4M keys.
const FIG23_LOG2: [u32; 3] = [20, 21, 22];
/// Sizes (log2) of Figure 4: 1M and 2M keys.
const FIG4_LOG2: [u32; 2] = [20, 21];
/// NUM_INTERVAL of Figure 4: 10,000 to 90,000 in steps of 10,000.
const FIG4_INTERVALS: [usize; 9] = [
    10_000, 20_000, 30_000, 40_000, 50_000, 60_000, 70_000, 80_000, 90_000,
];
/// The series of Figures 2 and 3, in legend order.
const FIG23_SERIES: [&str; 4] = ["approx fast", "approx paper", "radix fast", "bucket"];

/// A point of Figure 4: a variant at `n` keys and `intervals` intervals.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct IntervalPoint {
    /// Variant name (`"fast"`, `"paper"`).
    pub(super) variant: &'static str,
    /// Input size.
    pub(super) n: u64,
    /// NUM_INTERVAL.
    pub(super) intervals: usize,
    /// Median time.
    pub(super) ms: f64,
}

/// The sizes (log2) of Figures 2-3 and of Figure 4 under `--max-log2`.
pub(super) fn sizes(max_log2: Option<u32>) -> (Vec<u32>, Vec<u32>) {
    let keep = |k: &&u32| max_log2.is_none_or(|m| **k <= m);
    (
        FIG23_LOG2.iter().filter(keep).copied().collect(),
        FIG4_LOG2.iter().filter(keep).copied().collect(),
    )
}

/// Runs the experiment on the first GPU.
pub fn run(args: &ReproduceArgs) -> Result<Report, CliError> {
    let (fig23, fig4) = sizes(args.max_log2);
    if fig23.is_empty() {
        return Err(CliError::Usage(format!(
            "reproduce approxsort runs the paper's sizes 2^20 to 2^22 keys: --max-log2 must be \
             at least 20 (got {})",
            args.max_log2.unwrap_or_default()
        )));
    }
    let gpu = require_gpu("approxsort", "GPU sorts")?;
    let stamp = Stamp::new(Some(&gpu), Order::Ascending);
    let date = stamp.date.clone();
    let device = describe(&gpu);
    let mut run = Run {
        gpu: &gpu,
        reps: args.reps,
        stamp,
        rows: Vec::new(),
        paths: BTreeSet::new(),
    };
    let mut uniform = Vec::new();
    let mut gaussian = Vec::new();
    let mut by_intervals = Vec::new();
    for (pattern, pts) in [
        (Pattern::Uniform, &mut uniform),
        (Pattern::Gaussian, &mut gaussian),
    ] {
        for &log2 in &fig23 {
            let n = 1usize << log2;
            note(&format!("reproduce approxsort: {pattern}, n = 2^{log2}"));
            let data = Data::new(&gpu, pattern, n, args.seed)?;
            for variant in [ApproxVariant::Fast, ApproxVariant::Paper] {
                let ms = run.approx(&data, variant, DEFAULT_INTERVALS)?;
                pts.push(point(
                    &format!("approx {}", variant.name()),
                    n as u64,
                    ms,
                    8 * n as u64,
                ));
            }
            let ms = run.radix(&data)?;
            pts.push(point("radix fast", n as u64, ms, 8 * n as u64));
            let ms = run.bucket(&data)?;
            pts.push(point("bucket", n as u64, ms, 8 * n as u64));
            if pattern == Pattern::Uniform && fig4.contains(&log2) {
                for &intervals in &FIG4_INTERVALS {
                    for variant in [ApproxVariant::Fast, ApproxVariant::Paper] {
                        let ms = run.approx(&data, variant, intervals)?;
                        by_intervals.push(IntervalPoint {
                            variant: variant.name(),
                            n: n as u64,
                            intervals,
                            ms,
                        });
                    }
                }
            }
        }
    }
    let mut report = build_report(&uniform, &gaussian, &by_intervals, &device);
    report.notes.insert(
        0,
        format!(
            "Device: {device}; date {date}; u32 keys (seed {}); median of {} event-timed \
             library calls after warm-up calls, rotating over input copies that span three L2 \
             caches, each restored outside the timed region.",
            args.seed, args.reps
        ),
    );
    report.notes.push(format!(
        "Kernel paths taken (variant, NUM_INTERVAL: path): {}.",
        run.paths.into_iter().collect::<Vec<_>>().join("; ")
    ));
    report.rows = run.rows;
    Ok(report)
}

/// One input on the host and the device, with its reference sort.
struct Data {
    pattern: Pattern,
    input: Vec<u32>,
    want: Vec<u32>,
    d_in: DeviceBuffer<u32>,
    what: String,
}

impl Data {
    fn new(gpu: &Gpu, pattern: Pattern, n: usize, seed: u64) -> Result<Self, CliError> {
        let what = format!("reproducing approxsort at {n} {pattern} u32 keys");
        let input = generate::<u32>(pattern, n, seed);
        let mut want = input.clone();
        sortlab_cpu_reference::radix::sort_keys(&mut want, Order::Ascending);
        let d_in = DeviceBuffer::from_host(gpu, &input).map_err(gpu_err(&what))?;
        Ok(Data {
            pattern,
            input,
            want,
            d_in,
            what,
        })
    }

    fn n(&self) -> usize {
        self.input.len()
    }
}

/// The measuring state: device, repetitions, the rows so far.
struct Run<'a> {
    gpu: &'a Gpu,
    reps: u32,
    stamp: Stamp,
    rows: Vec<BenchRow>,
    paths: BTreeSet<String>,
}

impl Run<'_> {
    /// Times `approx_sort` of `data` and checks its interval order.
    fn approx(
        &mut self,
        data: &Data,
        variant: ApproxVariant,
        intervals: usize,
    ) -> Result<f64, CliError> {
        let gpu = self.gpu;
        let err = gpu_err(&data.what);
        let opts = ApproxOptions {
            intervals,
            variant,
            boundaries: Intervals::EqualWidth,
            order: Order::Ascending,
        };
        let mut result = None;
        let (ms, keys) = time_gpu_in_place(gpu, self.reps, &data.what, &data.d_in, |keys| {
            result = Some(approx_sort(gpu, keys, &opts)?);
            Ok(())
        })?;
        let algo = format!("approx-{}", variant.name());
        let what = format!("{algo} with {intervals} intervals at {}", data.n());
        let r = result.ok_or_else(|| wrong(&what, "no result"))?;
        let bounds = r.boundaries_host().map_err(&err)?;
        let got = keys.to_host().map_err(&err)?;
        check_approx(&data.input, &data.want, &got, &bounds, intervals)
            .map_err(|m| wrong(&what, m))?;
        self.paths
            .insert(format!("{}, {intervals}: {:?}", variant.name(), r.path()));
        let algo = if intervals == DEFAULT_INTERVALS {
            algo
        } else {
            format!("{algo}/{intervals}")
        };
        self.push(data, algo, "approx_sort_keys", ms);
        Ok(ms)
    }

    /// Times the fast radix sort of `data` and checks it against the reference.
    fn radix(&mut self, data: &Data) -> Result<f64, CliError> {
        let gpu = self.gpu;
        let err = gpu_err(&data.what);
        let opts = RadixOptions::default().with_variant(RadixVariant::Fast);
        let (ms, keys) = time_gpu_in_place(gpu, self.reps, &data.what, &data.d_in, |keys| {
            radix::sort_keys(gpu, keys, &opts)
        })?;
        let got = keys.to_host().map_err(&err)?;
        check_equal(&data.want, &got)
            .map_err(|e| wrong(&format!("radix-fast at {}", data.n()), e))?;
        self.push(data, "radix-fast".into(), "sort_keys", ms);
        Ok(ms)
    }

    /// Times the bucket sort (fast approximate sort, 10,000 equal-width intervals, then
    /// `refine`) of `data` and checks it against the reference.
    fn bucket(&mut self, data: &Data) -> Result<f64, CliError> {
        let gpu = self.gpu;
        let err = gpu_err(&data.what);
        let opts = ApproxOptions::new(DEFAULT_INTERVALS);
        let (ms, keys) = time_gpu_in_place(gpu, self.reps, &data.what, &data.d_in, |keys| {
            let r = approx_sort(gpu, keys, &opts)?;
            refine(gpu, keys, &r).map(|_| ())
        })?;
        let got = keys.to_host().map_err(&err)?;
        check_equal(&data.want, &got)
            .map_err(|e| wrong(&format!("approx-refine at {}", data.n()), e))?;
        self.push(data, "approx-refine".into(), "sort_keys", ms);
        Ok(ms)
    }

    fn push(&mut self, data: &Data, algo: String, op: &'static str, ms: f64) {
        let n = data.n() as u64;
        let id = RowId {
            algo,
            engine: "gpu",
            op,
            key_type: "u32",
            value_type: None,
            pattern: data.pattern.to_string(),
        };
        self.rows.push(BenchRow::new(id, n, ms, 8 * n, &self.stamp));
    }
}

/// An approximate sort's output `got` of `input` (`want`: `input` sorted) with `bounds`: as many
/// intervals as asked for, in interval order, and a permutation of the input.
pub(super) fn check_approx(
    input: &[u32],
    want: &[u32],
    got: &[u32],
    bounds: &[usize],
    intervals: usize,
) -> Result<(), String> {
    if bounds.len() != intervals + 1 {
        return Err(format!(
            "{} boundaries for {intervals} intervals",
            bounds.len()
        ));
    }
    check_interval_order(got, bounds, Order::Ascending).map_err(|e| e.to_string())?;
    if got.len() != input.len() {
        return Err(format!("{} keys out of {}", got.len(), input.len()));
    }
    let mut sorted = got.to_vec();
    sortlab_cpu_reference::radix::sort_keys(&mut sorted, Order::Ascending);
    check_equal(want, &sorted).map_err(|e| format!("not a permutation of the input: {e}"))
}

/// The tables and figures of measured points; no device needed.
pub(super) fn build_report(
    uniform: &[Point],
    gaussian: &[Point],
    by_intervals: &[IntervalPoint],
    device: &str,
) -> Report {
    let mut report = Report {
        title: "Approximate sort: Figures 2, 3 and 4 of Xiao, Chen and Sun".into(),
        notes: vec![
            "Series: `approx fast` and `approx paper` are `approx_sort` (variants Fast and \
             Paper) into 10,000 equal-width intervals; `radix fast` is sortlab's radix sort \
             (Onesweep-class); `bucket` is the Fast approximate sort refined into a full sort \
             by `refine` (a bucket sort). The paper's full sorts from CUB (merge sort and \
             radix sort, same sizes) come from `scripts/bench-gpu` (the CUB anchor program): \
             sortlab has no GPU merge sort yet. Every approximate result was checked for \
             interval order against its boundaries and for being a permutation of the input; \
             every full sort against the CPU reference."
                .into(),
            "Figure 4 uses uniform keys; with more intervals than shared memory holds \
             (about 56,000 on Hopper) the Fast variant counts and scatters with global \
             atomics."
                .into(),
        ],
        ..Report::default()
    };
    for (fig, pattern, pts) in [
        (2, "uniform in 0..2^31", uniform),
        (3, "gaussian (mean of four uniforms)", gaussian),
    ] {
        report.tables.push(table(
            &format!("Figure {fig}: sort time (ms) against input size, u32 keys {pattern}"),
            pts,
            &FIG23_SERIES,
            |p| fmt_ms(p.ms),
        ));
        report.figures.push((
            format!("fig{fig}"),
            figure(
                &format!("Figure {fig}: {pattern} ({device})"),
                "ms",
                Scale::Log10,
                pts,
                &FIG23_SERIES,
                |p| p.ms,
            ),
        ));
    }
    let (table4, plot4) = figure4(by_intervals, device);
    report.tables.push(table4);
    report.figures.push(("fig4".into(), plot4));
    report
}

/// Figure 4's table (a row per NUM_INTERVAL, a column per variant and size) and plot.
pub(super) fn figure4(pts: &[IntervalPoint], device: &str) -> (Table, Plot) {
    let mut series: Vec<(&'static str, u64)> = Vec::new();
    let mut intervals: Vec<usize> = Vec::new();
    for p in pts {
        if !series.contains(&(p.variant, p.n)) {
            series.push((p.variant, p.n));
        }
        if !intervals.contains(&p.intervals) {
            intervals.push(p.intervals);
        }
    }
    series.sort_by_key(|&(v, n)| (n, v != "fast"));
    intervals.sort_unstable();
    let name = |(v, n): (&str, u64)| format!("{v} 2^{}", n.trailing_zeros());
    let find = |s: (&str, u64), i: usize| {
        pts.iter()
            .find(|p| (p.variant, p.n) == s && p.intervals == i)
    };
    let table = Table {
        caption: "Figure 4: approximate sort time (ms) against NUM_INTERVAL, u32 keys uniform \
                  in 0..2^31"
            .into(),
        columns: std::iter::once("NUM_INTERVAL".to_string())
            .chain(series.iter().map(|&s| name(s)))
            .collect(),
        rows: intervals
            .iter()
            .map(|&i| {
                std::iter::once(i.to_string())
                    .chain(
                        series
                            .iter()
                            .map(|&s| find(s, i).map_or_else(|| "-".into(), |p| fmt_ms(p.ms))),
                    )
                    .collect()
            })
            .collect(),
    };
    let plot = Plot {
        title: format!("Figure 4: time against NUM_INTERVAL ({device})"),
        x_label: "NUM_INTERVAL".into(),
        y_label: "ms".into(),
        x_scale: Scale::Linear,
        y_scale: Scale::Log10,
        series: series
            .iter()
            .map(|&s| {
                Series::new(
                    name(s),
                    intervals
                        .iter()
                        .filter_map(|&i| find(s, i).map(|p| (i as f64, p.ms)))
                        .collect(),
                )
            })
            .collect(),
    };
    (table, plot)
}

#[cfg(test)]
mod tests {
    use super::super::testing;
    use super::*;

    fn args(max_log2: Option<u32>) -> ReproduceArgs {
        testing::args("approxsort", max_log2, 1)
    }

    #[test]
    fn sizes_respect_max_log2() {
        assert_eq!(sizes(None), (vec![20, 21, 22], vec![20, 21]));
        assert_eq!(sizes(Some(22)), (vec![20, 21, 22], vec![20, 21]));
        assert_eq!(sizes(Some(20)), (vec![20], vec![20]));
        assert_eq!(sizes(Some(19)), (vec![], vec![]));
    }

    #[test]
    fn too_small_max_log2_is_a_usage_error() {
        let e = run(&args(Some(18))).unwrap_err();
        assert!(matches!(e, CliError::Usage(_)), "{e}");
        assert!(e.to_string().contains("at least 20"), "{e}");
    }

    #[test]
    fn runs_on_a_gpu_or_names_the_missing_device() {
        testing::runs_on_a_gpu_or_names_the_missing_device(run, &args(Some(20)));
    }

    #[test]
    fn approx_checker_wants_interval_order_and_a_permutation() {
        let input = [7u32, 1, 9, 3, 5, 2];
        let want = [1u32, 2, 3, 5, 7, 9];
        // Intervals {1,3,2} {7,5} {9}.
        let got = [3u32, 1, 2, 7, 5, 9];
        assert_eq!(check_approx(&input, &want, &got, &[0, 3, 5, 6], 3), Ok(()));
        // The same keys under boundaries that put 7 before 5's interval: out of order.
        let e = check_approx(&input, &want, &got, &[0, 3, 4, 6], 3).unwrap_err();
        assert!(e.contains("interval"), "{e}");
        // In interval order but a key lost (9 written twice).
        let e = check_approx(&input, &want, &[3, 1, 2, 7, 9, 9], &[0, 3, 5, 6], 3).unwrap_err();
        assert!(e.contains("permutation"), "{e}");
        // Fewer boundaries than intervals asked for.
        assert!(check_approx(&input, &want, &got, &[0, 3, 6], 3).is_err());
    }

    fn pts(scale: f64) -> Vec<Point> {
        let mut v = Vec::new();
        for log2 in [20u32, 21] {
            let n = 1u64 << log2;
            for (i, s) in FIG23_SERIES.iter().enumerate() {
                v.push(point(s, n, scale * (i + 1) as f64, 8 * n));
            }
        }
        v
    }

    #[test]
    fn report_has_figures_2_3_4_with_tables() {
        let mut by_intervals = Vec::new();
        for n in [1u64 << 21, 1 << 20] {
            for &i in &FIG4_INTERVALS[..3] {
                for v in ["paper", "fast"] {
                    let ms = i as f64 / 10_000.0 * if v == "fast" { 0.1 } else { 1.0 };
                    by_intervals.push(IntervalPoint {
                        variant: v,
                        n,
                        intervals: i,
                        ms: ms * (n >> 20) as f64,
                    });
                }
            }
        }
        let r = build_report(&pts(1.0), &pts(2.0), &by_intervals, "Test GPU");
        assert_eq!(r.tables.len(), 3);
        let f2 = r.tables[0].to_markdown();
        assert!(
            f2.contains("| n | approx fast | approx paper | radix fast | bucket |"),
            "{f2}"
        );
        assert!(
            f2.contains("| 2^21 | 1.000 | 2.000 | 3.000 | 4.000 |"),
            "{f2}"
        );
        let f3 = r.tables[1].to_markdown();
        assert!(
            f3.contains("gaussian") && f3.contains("| 2^20 | 2.000 | 4.000 |"),
            "{f3}"
        );
        let f4 = r.tables[2].to_markdown();
        assert!(
            f4.contains("| NUM_INTERVAL | fast 2^20 | paper 2^20 | fast 2^21 | paper 2^21 |"),
            "{f4}"
        );
        assert!(
            f4.contains("| 30000 | 0.3000 | 3.000 | 0.6000 | 6.000 |"),
            "{f4}"
        );
        let stems: Vec<&str> = r.figures.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(stems, ["fig2", "fig3", "fig4"]);
        let p4 = &r.figures[2].1;
        assert_eq!(
            (p4.x_label.as_str(), p4.y_label.as_str()),
            ("NUM_INTERVAL", "ms")
        );
        assert_eq!(p4.series.len(), 4);
        assert_eq!(p4.series[0].name, "fast 2^20");
        let xs: Vec<f64> = p4.series[0].points.iter().map(|p| p.0).collect();
        assert_eq!(xs, [10_000.0, 20_000.0, 30_000.0]);
        assert!((p4.series[3].points[2].1 - 6.0).abs() < 1e-9);
        assert_eq!(r.figures[0].1.series.len(), 4);
        assert!(r.figures[0].1.series.iter().all(|s| s.points.len() == 2));
    }

    #[test]
    fn figure4_of_no_points_is_empty_but_valid() {
        let (t, p) = figure4(&[], "Test GPU");
        assert_eq!(t.columns, ["NUM_INTERVAL"]);
        assert!(t.rows.is_empty() && p.series.is_empty());
        assert!(p.to_svg().ends_with("</svg>\n"));
    }
}
