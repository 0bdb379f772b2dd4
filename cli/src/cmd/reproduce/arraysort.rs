//! `sortlab reproduce arraysort`: Awan and Saeed, "GPU-ArraySort: A parallel, in-place
//! algorithm for sorting large number of arrays": Figure 2 (time against the array size n at
//! N = 50,000 arrays), Figures 4-7 (time against the number of arrays N at n = 1000, 2000, 3000
//! and 4000, GPU-ArraySort against the tagged stable-sort baseline STA) and Table 1 (the most
//! arrays each variant can sort on the card), with the fast segmented sort beside them.
//!
//! Keys are f32 uniform in `0..2^31` (the paper's spectra are float intensities), arrays of one
//! length ([`Segments::Fixed`]). Points whose N x n passes `2^--max-log2` keys (default 2^28)
//! are skipped. Each time is the median of `--reps` event-timed calls after warm-up calls,
//! rotating over copies that span three L2 caches, each restored outside the timed region; the
//! paper's times include the host-device copies, these do not. Every result is checked against
//! the CPU twin (each array sorted, bit for bit) before it is reported. Table 1 is computed,
//! not probed by allocation: the largest N for which the keys plus each variant's temporary
//! memory ([`arraysort::memory_bytes`]) fit in the device memory free at the start.

use sortlab_arraysort::{self as arraysort, ArrayOptions, ArrayVariant, Segments};
use sortlab_primitives::{DeviceBuffer, Order};

use super::primitives::describe;
use super::{fmt_ms, require_gpu, Report, Table};
use crate::args::ReproduceArgs;
use crate::backend::check::check_equal;
use crate::backend::gen::generate;
use crate::backend::patterns::Pattern;
use crate::bench::row::{wrong, BenchRow, RowId, Stamp};
use crate::bench::timing::{gpu_err, time_gpu_in_place};
use crate::cmd::note;
use crate::error::CliError;
use crate::plot::{Plot, Scale, Series};

/// Figure 2's number of arrays.
const FIG2_ARRAYS: u64 = 50_000;
/// Figure 2's array sizes.
const FIG2_SIZES: [u64; 6] = [250, 500, 1000, 2000, 3000, 4000];
/// Figures 4-7's array sizes (one figure each) and Table 1's.
const FIG4_SIZES: [u64; 4] = [1000, 2000, 3000, 4000];
/// Figures 4-7's numbers of arrays.
const FIG4_ARRAYS: [u64; 6] = [10_000, 25_000, 50_000, 100_000, 200_000, 400_000];
/// Largest default input: 2^28 keys.
const DEFAULT_MAX_LOG2: u32 = 28;

/// One measured point: a variant sorting `arrays` arrays of `len` keys in `ms`.
#[derive(Clone, Debug, PartialEq)]
struct Point {
    variant: ArrayVariant,
    arrays: u64,
    len: u64,
    ms: f64,
}

/// The (arrays, length) points of the figures under `--max-log2`, Figure 2's first.
fn workloads(max_log2: Option<u32>) -> Vec<(u64, u64)> {
    let max = 1u64 << max_log2.unwrap_or(DEFAULT_MAX_LOG2).min(34);
    let mut w: Vec<(u64, u64)> = FIG2_SIZES.iter().map(|&n| (FIG2_ARRAYS, n)).collect();
    for n in FIG4_SIZES {
        w.extend(FIG4_ARRAYS.iter().map(|&m| (m, n)));
    }
    w.retain(|&(m, n)| m * n <= max);
    w.sort_unstable();
    w.dedup();
    w
}

/// The largest number of arrays of `len` f32 keys whose keys and temporary memory under
/// `variant` fit in `free` bytes.
fn capacity(variant: ArrayVariant, len: u64, free: u64) -> u64 {
    let opts = ArrayOptions::default().with_variant(variant);
    let need = |m: u64| -> u64 {
        let n = (m * len) as usize;
        let seg = Segments::Fixed { len: len as usize };
        4 * n as u64 + arraysort::memory_bytes::<f32>(n, &seg, None, &opts) as u64
    };
    let (mut lo, mut hi) = (0u64, free / (4 * len) + 1);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if need(mid) <= free {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// Runs the experiment on the first GPU.
pub fn run(args: &ReproduceArgs) -> Result<Report, CliError> {
    let work = workloads(args.max_log2);
    if work.is_empty() {
        return Err(CliError::Usage(
            "reproduce arraysort: --max-log2 leaves no workload (the smallest is 50,000 x 250 \
             keys: give at least 24)"
                .into(),
        ));
    }
    let gpu = require_gpu("arraysort", "GPU array sorts")?;
    let stamp = Stamp::new(Some(&gpu), Order::Ascending);
    let device = describe(&gpu);
    let (free, _) = gpu
        .memory_info()
        .map_err(gpu_err("reading the free memory"))?;
    let mut pts = Vec::new();
    let mut rows = Vec::new();
    for &(arrays, len) in &work {
        let n = (arrays * len) as usize;
        note(&format!(
            "reproduce arraysort: {arrays} arrays of {len} keys"
        ));
        let what = format!("reproducing GPU-ArraySort at {arrays} x {len} f32 keys");
        let err = gpu_err(&what);
        let input = generate::<f32>(Pattern::Uniform, n, args.seed);
        let mut want = input.clone();
        sortlab_cpu_reference::arrays::sort_arrays_fixed(&mut want, len as usize, Order::Ascending)
            .map_err(|e| wrong(&what, e))?;
        let d_in = DeviceBuffer::from_host(&gpu, &input).map_err(&err)?;
        for v in ArrayVariant::ALL {
            let opts = ArrayOptions::default().with_variant(v);
            let seg = Segments::Fixed { len: len as usize };
            let (ms, keys) = time_gpu_in_place(&gpu, args.reps, &what, &d_in, |keys| {
                arraysort::sort_keys(&gpu, keys, seg, &opts).map(drop)
            })?;
            let got = keys.to_host().map_err(&err)?;
            check_equal(&want, &got).map_err(|e| wrong(&format!("{what}, {v}"), e))?;
            let id = RowId {
                algo: format!("arraysort-{}", v.name()),
                engine: "gpu",
                op: "sort_arrays",
                key_type: "f32",
                value_type: None,
                pattern: format!("fixed:{len}"),
            };
            rows.push(BenchRow::new(id, n as u64, ms, 8 * n as u64, &stamp));
            pts.push(Point {
                variant: v,
                arrays,
                len,
                ms,
            });
        }
    }
    let mut report = build_report(&pts, &device, free as u64);
    report.notes.insert(
        0,
        format!(
            "Device: {device}; date {}; f32 keys uniform in 0..2^31 (seed {}); medians of {} \
             event-timed calls on device-resident keys (the paper's times include the copies \
             to and from the host; these do not); {:.1} GiB of device memory free for Table 1.",
            stamp.date,
            args.seed,
            args.reps,
            free as f64 / (1u64 << 30) as f64
        ),
    );
    report.rows = rows;
    Ok(report)
}

/// The time of `variant` at (`arrays`, `len`), if measured.
fn ms_of(pts: &[Point], variant: ArrayVariant, arrays: u64, len: u64) -> Option<f64> {
    pts.iter()
        .find(|p| p.variant == variant && p.arrays == arrays && p.len == len)
        .map(|p| p.ms)
}

/// A table with a row per value of `rows` and a column per variant, cells from `ms(variant,
/// row)`.
fn variant_table(
    caption: String,
    first: &str,
    rows: &[u64],
    ms: impl Fn(ArrayVariant, u64) -> Option<f64>,
) -> Table {
    Table {
        caption,
        columns: std::iter::once(first.to_string())
            .chain(ArrayVariant::ALL.iter().map(|v| format!("{v} (ms)")))
            .collect(),
        rows: rows
            .iter()
            .map(|&r| {
                std::iter::once(r.to_string())
                    .chain(
                        ArrayVariant::ALL
                            .iter()
                            .map(|&v| ms(v, r).map_or_else(|| "-".into(), fmt_ms)),
                    )
                    .collect()
            })
            .collect(),
    }
}

/// A plot of time against `x` with a line per variant, points from `ms(variant, x)`.
fn variant_plot(
    title: String,
    x_label: &str,
    xs: &[u64],
    ms: impl Fn(ArrayVariant, u64) -> Option<f64>,
) -> Plot {
    Plot {
        title,
        x_label: x_label.into(),
        y_label: "ms".into(),
        x_scale: Scale::Log2,
        y_scale: Scale::Log10,
        series: ArrayVariant::ALL
            .iter()
            .map(|&v| {
                let line = xs.iter().filter_map(|&x| ms(v, x).map(|t| (x as f64, t)));
                Series::new(v.name(), line.collect())
            })
            .collect(),
    }
}

/// The report's figures and tables from measured points; `free` bytes of device memory for
/// Table 1. No device needed.
fn build_report(pts: &[Point], device: &str, free: u64) -> Report {
    let mut report = Report {
        title: "GPU-ArraySort: the paper's Figures 2 and 4-7 and Table 1".into(),
        notes: vec![
            "`paper` is GPU-ArraySort (sampling, splitters, buckets, insertion sort; the \
             splitter test fixed so keys equal to a splitter are kept), `tagged` the paper's \
             STA baseline (stable sort by key carrying positions, stable sort by tag), `fast` \
             sortlab's segmented sort (size classes in registers and shared memory)."
                .into(),
        ],
        ..Report::default()
    };
    let present = |arrays: u64, len: u64| pts.iter().any(|p| p.arrays == arrays && p.len == len);
    let sizes: Vec<u64> = FIG2_SIZES
        .into_iter()
        .filter(|&n| present(FIG2_ARRAYS, n))
        .collect();
    let fig2 = |v, n| ms_of(pts, v, FIG2_ARRAYS, n);
    report.tables.push(variant_table(
        format!("Figure 2: time against the array size n, N = {FIG2_ARRAYS} arrays"),
        "n",
        &sizes,
        fig2,
    ));
    report.figures.push((
        "figure2".into(),
        variant_plot(
            format!("Time against n, N = {FIG2_ARRAYS} ({device})"),
            "keys per array",
            &sizes,
            fig2,
        ),
    ));
    for (i, len) in FIG4_SIZES.into_iter().enumerate() {
        let counts: Vec<u64> = FIG4_ARRAYS
            .into_iter()
            .filter(|&m| present(m, len))
            .collect();
        if counts.is_empty() {
            continue;
        }
        let fig = |v, m| ms_of(pts, v, m, len);
        report.tables.push(variant_table(
            format!(
                "Figure {}: time against the number of arrays N, n = {len}",
                4 + i
            ),
            "N",
            &counts,
            fig,
        ));
        report.figures.push((
            format!("figure{}", 4 + i),
            variant_plot(
                format!("Time against N, n = {len} ({device})"),
                "arrays",
                &counts,
                fig,
            ),
        ));
    }
    let table1 = Table {
        caption: format!(
            "Table 1: the most arrays of n f32 keys each variant can sort in {:.1} GiB",
            free as f64 / (1u64 << 30) as f64
        ),
        columns: std::iter::once("n".to_string())
            .chain(ArrayVariant::ALL.iter().map(|v| format!("{v} (arrays)")))
            .chain(["paper / tagged".to_string()])
            .collect(),
        rows: FIG4_SIZES
            .iter()
            .map(|&len| {
                let of = |v| capacity(v, len, free);
                let ratio = of(ArrayVariant::Paper) as f64 / of(ArrayVariant::Tagged).max(1) as f64;
                std::iter::once(len.to_string())
                    .chain(ArrayVariant::ALL.map(|v| of(v).to_string()))
                    .chain([format!("{ratio:.2}")])
                    .collect()
            })
            .collect(),
    };
    report.tables.push(table1);
    report
}

#[cfg(test)]
mod tests {
    use super::super::testing;
    use super::*;

    fn args(max_log2: Option<u32>) -> ReproduceArgs {
        testing::args("arraysort", max_log2, 1)
    }

    #[test]
    fn workloads_respect_max_log2() {
        let all = workloads(Some(34));
        assert!(all.contains(&(50_000, 250)) && all.contains(&(400_000, 4000)));
        let w = workloads(None);
        assert!(w.iter().all(|&(m, n)| m * n <= 1 << 28));
        assert!(w.contains(&(50_000, 4000)) && !w.contains(&(400_000, 1000)));
        assert!(workloads(Some(20)).is_empty());
    }

    #[test]
    fn too_small_max_log2_is_a_usage_error() {
        let e = run(&args(Some(20))).unwrap_err();
        assert!(matches!(e, CliError::Usage(_)), "{e}");
    }

    #[test]
    fn runs_on_a_gpu_or_names_the_missing_device() {
        testing::runs_on_a_gpu_or_names_the_missing_device(run, &args(Some(24)));
    }

    #[test]
    fn capacity_fits_and_one_more_does_not() {
        let free = 8u64 << 30;
        for v in ArrayVariant::ALL {
            let m = capacity(v, 1000, free);
            assert!(m > 0 && m <= free / 4000, "{v}: {m}");
            let opts = ArrayOptions::default().with_variant(v);
            let need = |m: u64| {
                let n = (m * 1000) as usize;
                let seg = Segments::Fixed { len: 1000 };
                4 * n as u64 + arraysort::memory_bytes::<f32>(n, &seg, None, &opts) as u64
            };
            assert!(need(m) <= free && need(m + 1) > free, "{v}");
        }
        // The baseline's copies and tags leave room for fewer arrays.
        assert!(
            capacity(ArrayVariant::Tagged, 1000, free) < capacity(ArrayVariant::Paper, 1000, free)
        );
    }

    #[test]
    fn report_has_every_figure_and_table_1() {
        let mut pts = Vec::new();
        for &(arrays, len) in &workloads(Some(26)) {
            for (i, v) in ArrayVariant::ALL.into_iter().enumerate() {
                pts.push(Point {
                    variant: v,
                    arrays,
                    len,
                    ms: 1.0 + i as f64,
                });
            }
        }
        let r = build_report(&pts, "Test GPU", 8 << 30);
        let fig2 = r.tables[0].to_markdown();
        assert!(
            fig2.contains("| n | paper (ms) | tagged (ms) | fast (ms) |"),
            "{fig2}"
        );
        assert!(fig2.contains("| 1000 | 1.000 | 2.000 | 3.000 |"), "{fig2}");
        let t1 = r.tables.last().unwrap();
        assert!(t1.to_markdown().contains("| paper / tagged |"));
        assert_eq!(t1.rows.len(), FIG4_SIZES.len());
        assert!(t1.rows.iter().all(|row| row.len() == t1.columns.len()));
        let stems: Vec<&str> = r.figures.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(stems[0], "figure2");
        assert!(stems.contains(&"figure4"));
    }
}
