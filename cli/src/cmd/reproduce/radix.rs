//! `sortlab reproduce radix`: the source notes' latency and bandwidth comparison of the radix
//! sorts: CUDPP's one-bit split sort ([`RadixVariant::OneBit`]), Satish, Harris and Garland's
//! blocked 4-bit sort ([`RadixVariant::Satish`]) and the Onesweep-class [`RadixVariant::Fast`],
//! keys and `u32`/`u32` pairs, against input size, with the device-to-device copy of the same
//! bytes as the bound.
//!
//! Keys are u32 uniform in `0..2^31` (the papers' pattern), sizes `2^10 ..= 2^max` in steps of
//! 2 (default max 2^26). Each point is the median of `--reps` event-timed library calls after
//! warm-up calls, rotating over copies of the buffers that span three times the L2 cache (as
//! `sortlab bench` and the CUB anchors), each input restored from a pristine device copy after its
//! use, outside the timed region. Every result is checked before it is reported: the keys equal the
//! CPU reference sort, and for pairs (values: the input index) every value points at its key in
//! the input, stably, so the values are the reference permutation.

use sortlab_gpu_sorts::radix::{self, RadixOptions, RadixVariant};
use sortlab_primitives::{DeviceBuffer, Order};

use super::primitives::{describe, figure, point, table, Point};
use super::{fmt_ms, require_gpu, Report};
use crate::args::ReproduceArgs;
use crate::backend::check::{check_equal, check_index_values};
use crate::backend::gen::generate;
use crate::backend::patterns::Pattern;
use crate::bench::row::{wrong, BenchRow, RowId, Stamp};
use crate::bench::timing::{gpu_err, time_copy, time_gpu_in_place, time_gpu_made_slots};
use crate::cmd::note;
use crate::error::CliError;
use crate::plot::Scale;

/// Largest default input: 2^26 keys (256 MiB of keys, 512 MiB of pairs).
const DEFAULT_MAX_LOG2: u32 = 26;
/// Smallest input: 2^10 keys.
const MIN_LOG2: u32 = 10;
/// Largest input ever run: 2^30 pairs are 8 GiB, with the pristine copies and the sort's
/// scratch about 32 GiB of device memory.
const CAP_LOG2: u32 = 30;

/// The sizes (log2) the experiment runs under `--max-log2`.
pub(super) fn sizes(max_log2: Option<u32>) -> Vec<u32> {
    let max = max_log2.unwrap_or(DEFAULT_MAX_LOG2).min(CAP_LOG2);
    (MIN_LOG2..=max).step_by(2).collect()
}

/// Series name of a variant (`"onebit"`, `"satish"`, `"fast"`, `"copy"`) and a kind.
fn series(name: &str, pairs: bool) -> String {
    format!("{name} {}", if pairs { "pairs" } else { "keys" })
}

/// Runs the experiment on the first GPU.
pub fn run(args: &ReproduceArgs) -> Result<Report, CliError> {
    let sizes = sizes(args.max_log2);
    if sizes.is_empty() {
        return Err(CliError::Usage(format!(
            "reproduce radix starts at 2^{MIN_LOG2} keys: --max-log2 must be at least {MIN_LOG2}"
        )));
    }
    let gpu = require_gpu("radix", "GPU sorts")?;
    let stamp = Stamp::new(Some(&gpu), Order::Ascending);
    let date = &stamp.date;
    let device = describe(&gpu);
    let mut pts = Vec::new();
    let mut rows = Vec::new();
    for &log2 in &sizes {
        let n = 1usize << log2;
        note(&format!("reproduce radix: n = 2^{log2}"));
        let what = format!("reproducing radix at {n} u32 keys");
        let err = gpu_err(&what);
        let input = generate::<u32>(Pattern::Uniform, n, args.seed);
        let mut want = input.clone();
        sortlab_cpu_reference::radix::sort_keys(&mut want, Order::Ascending);
        let index: Vec<u32> = (0..n as u32).collect();
        let d_in = DeviceBuffer::from_host(&gpu, &input).map_err(&err)?;
        let d_index = DeviceBuffer::from_host(&gpu, &index).map_err(&err)?;
        let alloc = || DeviceBuffer::<u32>::alloc(&gpu, n);
        // The bound: a device-to-device copy of the same bytes (keys; keys and values).
        let t = time_copy(&gpu, args.reps, &what, &d_in)?;
        let mut measured = vec![(series("copy", false), "copy", t, 8 * n as u64)];
        let t = t + time_copy(&gpu, args.reps, &what, &d_index)?;
        measured.push((series("copy", true), "copy", t, 16 * n as u64));
        for v in RadixVariant::ALL {
            let opts = RadixOptions::default().with_variant(v);
            let algo = format!("radix-{}", v.name());
            let (t, keys) = time_gpu_in_place(&gpu, args.reps, &what, &d_in, |keys| {
                radix::sort_keys(&gpu, keys, &opts)
            })?;
            let got = keys.to_host().map_err(&err)?;
            check_equal(&want, &got).map_err(|e| wrong(&format!("{algo} keys at {n}"), e))?;
            measured.push((series(v.name(), false), "sort_keys", t, 8 * n as u64));
            let (t, (keys, values)) = time_gpu_made_slots(
                &gpu,
                args.reps,
                &what,
                16 * n,
                || Ok((alloc()?, alloc()?)),
                |(keys, values)| {
                    keys.copy_from_device(&d_in)?;
                    values.copy_from_device(&d_index)
                },
                |(keys, values)| radix::sort_pairs(&gpu, keys, values, &opts),
            )?;
            let (k, vals) = (
                keys.to_host().map_err(&err)?,
                values.to_host().map_err(&err)?,
            );
            check_pairs(&input, &want, &k, &vals)
                .map_err(|m| wrong(&format!("{algo} pairs at {n}"), m))?;
            measured.push((series(v.name(), true), "sort_pairs", t, 16 * n as u64));
        }
        for (name, op, ms, bytes) in measured {
            let p = point(&name, n as u64, ms, bytes);
            let id = RowId {
                algo: match name.split(' ').next() {
                    Some("copy") | None => "copy".to_string(),
                    Some(v) => format!("radix-{v}"),
                },
                engine: "gpu",
                op,
                key_type: "u32",
                value_type: name.ends_with("pairs").then_some("u32"),
                pattern: "uniform".into(),
            };
            rows.push(BenchRow::new(id, n as u64, ms, bytes, &stamp));
            pts.push(p);
        }
    }
    let mut report = build_report(&pts, &device, args);
    report.notes.insert(
        0,
        format!(
            "Device: {device}; date {date}; u32 keys uniform in 0..2^31 (seed {}); median of {} \
             event-timed library calls after warm-up calls, rotating over input copies that span \
             three L2 caches, each restored outside the timed region.",
            args.seed, args.reps
        ),
    );
    report.rows = rows;
    Ok(report)
}

/// The tables and figures of measured points (`pts` named by [`series`]); no device needed.
pub(super) fn build_report(pts: &[Point], device: &str, args: &ReproduceArgs) -> Report {
    let mut report = Report {
        title: "Radix sorts: the source notes' latency and bandwidth comparison".into(),
        notes: vec![
            "Variants: `onebit` is CUDPP's split radix sort (one bit per pass, 32 passes), \
             `satish` Satish, Harris and Garland's blocked 4-bit sort (8 passes), `fast` the \
             Onesweep-class sort (8-bit digits, decoupled look-back). Pairs carry u32 values \
             (the input index). `copy` is a device-to-device copy of the same bytes (keys: 8n \
             bytes read and written; pairs: 16n), the bound no sort can beat. Every result was \
             checked against the CPU reference sort before it was reported (pairs: keys equal, \
             values the stable permutation)."
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
    let names = |pairs: bool| -> Vec<String> {
        RadixVariant::ALL
            .iter()
            .map(|v| series(v.name(), pairs))
            .chain([series("copy", pairs)])
            .collect()
    };
    let mkeys = |p: &Point| p.n as f64 / (p.ms / 1e3).max(f64::MIN_POSITIVE) / 1e6;
    for pairs in [false, true] {
        let owned = names(pairs);
        let cols: Vec<&str> = owned.iter().map(String::as_str).collect();
        let kind = if pairs { "u32/u32 pairs" } else { "u32 keys" };
        report.tables.push(table(
            &format!("Radix sort latency (ms) against input size, {kind}"),
            pts,
            &cols,
            |p| fmt_ms(p.ms),
        ));
        report.tables.push(table(
            &format!("Radix sort throughput (Mkeys/s) against input size, {kind}"),
            pts,
            &cols,
            |p| format!("{:.1}", mkeys(p)),
        ));
    }
    let owned: Vec<String> = names(false).into_iter().chain(names(true)).collect();
    let all: Vec<&str> = owned.iter().map(String::as_str).collect();
    report.figures.push((
        "latency".into(),
        figure(
            &format!("Radix sort latency ({device})"),
            "ms",
            Scale::Log10,
            pts,
            &all,
            |p| p.ms,
        ),
    ));
    report.figures.push((
        "throughput".into(),
        figure(
            &format!("Radix sort throughput ({device})"),
            "Mkeys/s",
            Scale::Log10,
            pts,
            &all,
            mkeys,
        ),
    ));
    report
}

/// Pairs sorted from `input` with index values: the keys equal `want` (the reference sort) and
/// the values followed their keys stably, which makes them exactly the stable reference
/// permutation.
pub(super) fn check_pairs(
    input: &[u32],
    want: &[u32],
    keys: &[u32],
    values: &[u32],
) -> Result<(), String> {
    check_equal(want, keys).map_err(|e| format!("keys: {e}"))?;
    check_index_values(input, keys, values, true).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::super::testing;
    use super::*;

    fn args(max_log2: Option<u32>) -> ReproduceArgs {
        testing::args("radix", max_log2, 1)
    }

    #[test]
    fn sizes_step_by_two_and_respect_max_log2() {
        assert_eq!(sizes(None), vec![10, 12, 14, 16, 18, 20, 22, 24, 26]);
        assert_eq!(sizes(Some(22)), vec![10, 12, 14, 16, 18, 20, 22]);
        assert_eq!(sizes(Some(13)), vec![10, 12]);
        assert_eq!(sizes(Some(40)).last(), Some(&30));
        assert!(sizes(Some(9)).is_empty());
    }

    #[test]
    fn too_small_max_log2_is_a_usage_error() {
        let e = run(&args(Some(8))).unwrap_err();
        assert!(matches!(e, CliError::Usage(_)), "{e}");
        assert!(e.to_string().contains("--max-log2"), "{e}");
    }

    #[test]
    fn runs_on_a_gpu_or_names_the_missing_device() {
        testing::runs_on_a_gpu_or_names_the_missing_device(run, &args(Some(10)));
    }

    #[test]
    fn pairs_checker_accepts_the_stable_sort_only() {
        let input = [5u32, 1, 5, 0];
        let want = [0u32, 1, 5, 5];
        assert_eq!(check_pairs(&input, &want, &want, &[3, 1, 0, 2]), Ok(()));
        // Equal keys swapped: unstable.
        let e = check_pairs(&input, &want, &want, &[3, 1, 2, 0]).unwrap_err();
        assert!(e.contains("input order"), "{e}");
        // A value pointing at another key.
        let e = check_pairs(&input, &want, &want, &[1, 3, 0, 2]).unwrap_err();
        assert!(e.contains("belongs to key"), "{e}");
        // Out of range, wrong keys, wrong length.
        assert!(check_pairs(&input, &want, &want, &[3, 1, 0, 9]).is_err());
        assert!(check_pairs(&input, &want, &[0, 1, 5, 6], &[3, 1, 0, 2]).is_err());
        assert!(check_pairs(&input, &want, &want, &[3, 1, 0]).is_err());
    }

    #[test]
    fn report_has_latency_and_throughput_of_keys_and_pairs() {
        let mut pts = Vec::new();
        for log2 in [10u32, 12] {
            let n = 1u64 << log2;
            for (i, name) in ["onebit", "satish", "fast", "copy"].iter().enumerate() {
                for pairs in [false, true] {
                    let ms = 0.01 * (4 - i) as f64 * (1 + pairs as u64) as f64;
                    pts.push(point(&series(name, pairs), n, ms, 8 * n));
                }
            }
        }
        let r = build_report(&pts, "Test GPU", &args(Some(12)));
        assert_eq!(r.tables.len(), 4);
        let lat = r.tables[0].to_markdown();
        assert!(
            lat.contains("| n | onebit keys | satish keys | fast keys | copy keys |"),
            "{lat}"
        );
        // onebit keys at 2^10: 0.04 ms.
        assert!(
            lat.contains("| 2^10 | 0.0400 | 0.0300 | 0.0200 | 0.0100 |"),
            "{lat}"
        );
        // Throughput of fast pairs at 2^12: 4096 keys in 0.04 ms = 102.4 Mkeys/s.
        let thr = r.tables[3].to_markdown();
        assert!(
            thr.contains("| 2^12 | 51.2 | 68.3 | 102.4 | 204.8 |"),
            "{thr}"
        );
        let stems: Vec<&str> = r.figures.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(stems, ["latency", "throughput"]);
        let thr_plot = &r.figures[1].1;
        assert_eq!(thr_plot.y_label, "Mkeys/s");
        assert_eq!(thr_plot.x_scale, Scale::Log2);
        assert_eq!(thr_plot.series.len(), 8);
        assert!(thr_plot.series.iter().all(|s| s.points.len() == 2));
        assert!(r.notes.iter().any(|n| n.contains("2^10 to 2^12")));
    }
}
