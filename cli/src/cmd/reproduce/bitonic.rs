//! `sortlab reproduce bitonic`: the bitonic sorting report's experiments: its table of a
//! sequential CPU sort against the GPU bitonic sort for n = 2^2 .. 2^20 (time and speedup), and
//! its threads-per-block experiment, with the course notes' kernel ([`BitonicVariant::Notes`])
//! and the fast sort ([`BitonicVariant::Fast`]) beside the report's ([`BitonicVariant::Mapping`]).
//!
//! Keys are u32 uniform in `0..2^31`. The CPU sort is the standard library's sequential
//! unstable sort (pattern-defeating quicksort), wall-clock timed; the GPU sorts are timed on
//! device-resident keys with CUDA events (median of `--reps` calls after warm-up calls, rotating
//! over copies of the buffer that span three L2 caches, each restored outside the timed region):
//! the report's host-device copies are not part of the time. Every GPU result equals the CPU
//! sort before it is reported.

use sortlab_gpu_sorts::bitonic::tuning::{self, BitonicTuning};
use sortlab_gpu_sorts::bitonic::{BitonicOptions, BitonicVariant};
use sortlab_primitives::{DeviceBuffer, Gpu, Order};

use super::primitives::{describe, point, Point};
use super::{fmt_ms, require_gpu, Report, Table};
use crate::args::ReproduceArgs;
use crate::backend::check::check_equal;
use crate::backend::gen::generate;
use crate::backend::patterns::Pattern;
use crate::bench::row::{wrong, BenchRow, RowId, Stamp};
use crate::bench::timing::{gpu_err, time_cpu, time_gpu_in_place};
use crate::cmd::note;
use crate::error::CliError;
use crate::plot::{Plot, Scale, Series};

/// The report's largest input: 2^20 keys.
const DEFAULT_MAX_LOG2: u32 = 20;
/// The report's smallest input: 2^2 keys.
const MIN_LOG2: u32 = 2;
/// Largest input ever run (the published variants take one launch per step: 2^26 keys is
/// 351 launches).
const CAP_LOG2: u32 = 26;
/// Threads per block of the report's experiment.
const THREADS: [u32; 6] = [32, 64, 128, 256, 512, 1024];
/// The CPU series.
const CPU: &str = "cpu";

/// The sizes (log2) of the first table under `--max-log2`: every power of two.
fn sizes(max_log2: Option<u32>) -> Vec<u32> {
    (MIN_LOG2..=max_log2.unwrap_or(DEFAULT_MAX_LOG2).min(CAP_LOG2)).collect()
}

/// The series name of a variant at a block size (`None`: its default).
fn series(v: BitonicVariant, threads: Option<u32>) -> String {
    match threads {
        None => v.name().to_string(),
        Some(t) => format!("{} {t}", v.name()),
    }
}

/// The series of the report's kernel with a plain compare-exchange instead of its atomic one.
const PLAIN: &str = "mapping-plain";

/// One timed GPU bitonic sort of `d_in` under `tuning`, checked against `want`.
fn time_variant(
    gpu: &Gpu,
    args: &ReproduceArgs,
    d_in: &DeviceBuffer<u32>,
    want: &[u32],
    opts: &BitonicOptions,
    tuning: &BitonicTuning,
    what: &str,
) -> Result<f64, CliError> {
    let (t, keys) = time_gpu_in_place(gpu, args.reps, what, d_in, |keys| {
        tuning::sort_keys(gpu, keys, opts, tuning, None)
    })?;
    let got = keys.to_host().map_err(gpu_err(what))?;
    check_equal(want, &got).map_err(|e| wrong(&format!("bitonic {}", opts.variant), e))?;
    Ok(t)
}

/// Runs the experiment on the first GPU.
pub fn run(args: &ReproduceArgs) -> Result<Report, CliError> {
    let sizes = sizes(args.max_log2);
    if sizes.is_empty() {
        return Err(CliError::Usage(format!(
            "reproduce bitonic starts at 2^{MIN_LOG2} keys: --max-log2 must be at least {MIN_LOG2}"
        )));
    }
    let gpu = require_gpu("bitonic", "GPU bitonic sorts")?;
    let stamp = Stamp::new(Some(&gpu), Order::Ascending);
    let device = describe(&gpu);
    let mut pts = Vec::new();
    let mut rows = Vec::new();
    let largest = sizes.last().copied().unwrap_or(MIN_LOG2);
    for &log2 in &sizes {
        let n = 1usize << log2;
        note(&format!("reproduce bitonic: n = 2^{log2}"));
        let what = format!("reproducing the bitonic report at {n} u32 keys");
        let input = generate::<u32>(Pattern::Uniform, n, args.seed);
        let mut want = input.clone();
        let t = time_cpu(
            args.reps,
            &mut want,
            |w| w.copy_from_slice(&input),
            |w| sortlab_cpu_reference::sort::sort_unstable_seq(w, Order::Ascending),
        );
        let mut measured = vec![(CPU.to_string(), "cpu", t)];
        let d_in = DeviceBuffer::from_host(&gpu, &input).map_err(gpu_err(&what))?;
        let default = BitonicTuning::default();
        for v in BitonicVariant::ALL {
            let opts = BitonicOptions::default().with_variant(v);
            let t = time_variant(&gpu, args, &d_in, &want, &opts, &default, &what)?;
            measured.push((series(v, None), "gpu", t));
            if v == BitonicVariant::Mapping {
                let plain = BitonicTuning {
                    plain_exchange: true,
                    ..default
                };
                let t = time_variant(&gpu, args, &d_in, &want, &opts, &plain, &what)?;
                measured.push((PLAIN.to_string(), "gpu", t));
            }
            if log2 == largest && v != BitonicVariant::Fast {
                for threads in THREADS {
                    let opts = BitonicOptions {
                        threads_per_block: Some(threads),
                        ..opts
                    };
                    let t = time_variant(&gpu, args, &d_in, &want, &opts, &default, &what)?;
                    measured.push((series(v, Some(threads)), "gpu", t));
                }
            }
        }
        for (name, engine, ms) in measured {
            let algo = match name.split(' ').next() {
                Some(CPU) | None => "reference-unstable-seq".to_string(),
                Some(v) => format!("bitonic-{v}"),
            };
            let id = RowId {
                algo,
                engine,
                op: "sort_keys",
                key_type: "u32",
                value_type: None,
                pattern: "uniform".into(),
            };
            rows.push(BenchRow::new(id, n as u64, ms, 8 * n as u64, &stamp));
            pts.push(point(&name, n as u64, ms, 8 * n as u64));
        }
    }
    let mut report = build_report(&pts, &device, largest);
    report.notes.insert(
        0,
        format!(
            "Device: {device}; date {}; u32 keys uniform in 0..2^31 (seed {}); medians of {} \
             timed calls (GPU: CUDA events on device-resident keys, copies to and from the host \
             not included; CPU: wall clock, one thread).",
            stamp.date, args.seed, args.reps
        ),
    );
    report.rows = rows;
    Ok(report)
}

/// The time of series `name` at `n`, if measured.
fn ms_of(pts: &[Point], name: &str, n: u64) -> Option<f64> {
    pts.iter()
        .find(|p| p.n == n && p.variant == name)
        .map(|p| p.ms)
}

/// The report's tables and figures from measured points; no device needed.
fn build_report(pts: &[Point], device: &str, largest: u32) -> Report {
    let mut report = Report {
        title: "Bitonic sort: the bitonic sorting report's experiments".into(),
        notes: vec![
            "`mapping` is the report's kernel (one launch per stage and step, each thread's \
             pair from the index mapping, the compare-exchange by atomicMin/atomicMax), `notes` \
             the course notes' (j, k) kernel (one launch per step), `fast` the shared-memory \
             sort (tiles sorted in shared memory, several global steps per launch); \
             `mapping-plain` the report's kernel with a plain compare-exchange (two loads, two \
             stores where out of order) instead of the atomic pair, correct because each pair \
             belongs to one thread in a step. Speedup is the CPU time over the GPU time."
                .into(),
        ],
        ..Report::default()
    };
    let mut ns: Vec<u64> = pts.iter().map(|p| p.n).collect();
    ns.sort_unstable();
    ns.dedup();
    let cell = |ms: Option<f64>| ms.map_or_else(|| "-".to_string(), fmt_ms);
    let speedup = |cpu: Option<f64>, gpu: Option<f64>| match (cpu, gpu) {
        (Some(c), Some(g)) if g > 0.0 => format!("{:.2}", c / g),
        _ => "-".to_string(),
    };
    let mut columns = vec!["n".to_string(), "CPU (ms)".to_string()];
    for v in BitonicVariant::ALL {
        columns.push(format!("{v} (ms)"));
        columns.push(format!("{v} speedup"));
    }
    report.tables.push(Table {
        caption: "Sequential CPU sort against the GPU bitonic sorts (time and speedup)".into(),
        columns,
        rows: ns
            .iter()
            .map(|&n| {
                let cpu = ms_of(pts, CPU, n);
                let mut row = vec![format!("2^{}", n.trailing_zeros()), cell(cpu)];
                for v in BitonicVariant::ALL {
                    let g = ms_of(pts, &series(v, None), n);
                    row.push(cell(g));
                    row.push(speedup(cpu, g));
                }
                row
            })
            .collect(),
    });
    let published = [BitonicVariant::Mapping, BitonicVariant::Notes];
    let n_max = 1u64 << largest;
    report.tables.push(Table {
        caption: format!("Threads per block against time (ms) at n = 2^{largest}"),
        columns: std::iter::once("threads per block".to_string())
            .chain(published.iter().map(|v| v.name().to_string()))
            .collect(),
        rows: THREADS
            .iter()
            .map(|&t| {
                std::iter::once(t.to_string())
                    .chain(
                        published
                            .iter()
                            .map(|&v| cell(ms_of(pts, &series(v, Some(t)), n_max))),
                    )
                    .collect()
            })
            .collect(),
    });
    let mapping = series(BitonicVariant::Mapping, None);
    report.tables.push(Table {
        caption: "The report's atomic compare-exchange against a plain one (mapping, ms)".into(),
        columns: ["n", "atomic", "plain", "atomic / plain"]
            .map(String::from)
            .to_vec(),
        rows: ns
            .iter()
            .map(|&n| {
                let (a, p) = (ms_of(pts, &mapping, n), ms_of(pts, PLAIN, n));
                vec![
                    format!("2^{}", n.trailing_zeros()),
                    cell(a),
                    cell(p),
                    speedup(a, p),
                ]
            })
            .collect(),
    });
    let names: Vec<String> = std::iter::once(CPU.to_string())
        .chain(BitonicVariant::ALL.iter().map(|&v| series(v, None)))
        .collect();
    report.figures.push((
        "time".into(),
        Plot {
            title: format!("Bitonic sort time ({device})"),
            x_label: "input size (u32 keys)".into(),
            y_label: "ms".into(),
            x_scale: Scale::Log2,
            y_scale: Scale::Log10,
            series: names
                .iter()
                .map(|name| {
                    let line = pts.iter().filter(|p| &p.variant == name);
                    Series::new(name, line.map(|p| (p.n as f64, p.ms)).collect())
                })
                .collect(),
        },
    ));
    report
}

#[cfg(test)]
mod tests {
    use super::super::testing;
    use super::*;

    fn args(max_log2: Option<u32>) -> ReproduceArgs {
        testing::args("bitonic", max_log2, 1)
    }

    #[test]
    fn sizes_are_every_power_of_two_up_to_max_log2() {
        assert_eq!(sizes(None).first(), Some(&2));
        assert_eq!(sizes(None).last(), Some(&20));
        assert_eq!(sizes(Some(4)), vec![2, 3, 4]);
        assert_eq!(sizes(Some(40)).last(), Some(&CAP_LOG2));
        assert!(sizes(Some(1)).is_empty());
    }

    #[test]
    fn too_small_max_log2_is_a_usage_error() {
        let e = run(&args(Some(1))).unwrap_err();
        assert!(matches!(e, CliError::Usage(_)), "{e}");
    }

    #[test]
    fn runs_on_a_gpu_or_names_the_missing_device() {
        testing::runs_on_a_gpu_or_names_the_missing_device(run, &args(Some(6)));
    }

    #[test]
    fn report_has_the_speedup_table_and_the_threads_table() {
        let mut pts = Vec::new();
        for log2 in [2u32, 3] {
            let n = 1u64 << log2;
            pts.push(point(CPU, n, 0.02, 8 * n));
            for v in BitonicVariant::ALL {
                pts.push(point(&series(v, None), n, 0.01, 8 * n));
            }
            pts.push(point(PLAIN, n, 0.005, 8 * n));
        }
        for t in THREADS {
            pts.push(point(&series(BitonicVariant::Notes, Some(t)), 8, 0.5, 64));
        }
        let r = build_report(&pts, "Test GPU", 3);
        let speed = r.tables[0].to_markdown();
        assert!(
            speed.contains("| n | CPU (ms) | mapping (ms) | mapping speedup |"),
            "{speed}"
        );
        assert!(
            speed.contains("| 2^2 | 0.0200 | 0.0100 | 2.00 |"),
            "{speed}"
        );
        let threads = r.tables[1].to_markdown();
        assert!(threads.contains("| 32 | - | 0.5000 |"), "{threads}");
        let exchange = r.tables[2].to_markdown();
        assert!(
            exchange.contains("| 2^2 | 0.0100 | 0.0050 | 2.00 |"),
            "{exchange}"
        );
        assert_eq!(r.figures[0].1.series.len(), 4);
    }
}
