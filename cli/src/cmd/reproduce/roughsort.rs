//! `sortlab reproduce roughsort`: the report "Parallel Sorting of Roughly-Sorted Sequences"
//! (after Altman & Igarashi 1989; Altman & Chlebus 1990), its Figures 1-6.
//!
//! - Figures 1-2: radius determination time against `n`, at `k = 2` and `k = 100`: the CPU's
//!   two sequential forms (`LR`/`RL`/`DM` arrays, and the memory-saving one), the rayon one,
//!   and the GPU's [`sortlab_roughsort::radius`].
//! - Figures 3-4: sort time against `n`, at `k = 2` and `k = 15`; Figures 5-6: sort time
//!   against `k` at `n = 750,000` and `n = 1,250,000`: sequential roughsort (the halving
//!   algorithm), parallel roughsort (Altman-Chlebus on rayon), sequential merge sort (std's
//!   stable sort), bubble sort with early exit (the report's baseline), and on the GPU
//!   [`sortlab_roughsort::rough_sort`] and the radix sort ([`RadixVariant::Fast`]).
//!
//! Inputs are `u32` keys of the `k-sorted:K` pattern (distinct keys, radius exactly `K`),
//! sorted ascending. Every result is checked before it is reported: each radius equals `K`
//! (which the CPU reference finds), each sort's output equals the reference sort of its input.
//! CPU points are wall-clock times, GPU points CUDA-event times of the whole library call; both
//! the median of `--reps` after warm-up calls, the input restored before each call (untimed); GPU
//! calls rotate over input copies that span three times the L2 cache (as `sortlab bench`).
//! Without a GPU the CPU rows still run and the report says the GPU rows were skipped.

use sortlab_cpu_reference::rough;
use sortlab_gpu_sorts::radix::{self, RadixOptions, RadixVariant};
use sortlab_primitives::{DeviceBuffer, Gpu, Order};

use super::primitives::describe;
use super::{fmt_ms, Report, Table};
use crate::args::ReproduceArgs;
use crate::backend::gen::generate;
use crate::backend::patterns::Pattern;
use crate::bench::row::{wrong, BenchRow, RowId, Stamp};
use crate::bench::suites::roughsort::rough_err;
use crate::bench::timing::{
    gpu_err, slot_count, time_cpu, time_gpu_in_place, time_gpu_rotating, InputSlots,
};
use crate::cmd::note;
use crate::engine::open_gpu;
use crate::error::CliError;
use crate::plot::{Plot, Scale, Series};

/// Largest default input: 2^22 keys, so that the sequential CPU algorithms stay quick.
const DEFAULT_MAX_LOG2: u32 = 22;
/// Smallest input of the sweeps over `n` (the report's figures start about there).
const MIN_LOG2: u32 = 14;
/// Largest `--max-log2` accepted: the CPU rows hold several copies of the keys.
const MAX_LOG2: u32 = 30;
/// The radii of Figures 1-2 (radius determination against `n`).
const RADIUS_KS: [usize; 2] = [2, 100];
/// The radii of Figures 3-4 (sort time against `n`).
const SORT_KS: [usize; 2] = [2, 15];
/// The lengths of Figures 5-6 (sort time against `k`).
const AGAINST_K_NS: [u64; 2] = [750_000, 1_250_000];
/// The largest radius of Figures 5-6 is 2^this (capped below `n`).
const MAX_K_LOG2: u32 = 12;
/// Bubble sort runs only where `n * (k + 1)` (its passes times their length, at most) is at
/// most this: about 0.3 to 1 s per call on one core.
const BUBBLE_MAX_WORK: u64 = 1 << 28;

const ORDER: Order = Order::Ascending;

/// A CPU radius form of `sortlab_cpu_reference::rough`.
type RadiusFn = fn(&[u32], Order) -> usize;

/// The radius algorithms, in column order.
const RADIUS_ALGOS: [&str; 4] = ["cpu-seq", "cpu-seq-memory-saving", "cpu-par", "gpu"];
/// The sorts, in column order.
const SORT_ALGOS: [&str; 6] = [
    "roughsort-seq",
    "roughsort-par",
    "merge-sort-seq",
    "bubble-sort",
    "roughsort-gpu",
    "radix-fast-gpu",
];

/// What a figure sweeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sweep {
    /// Radius determination against `n` at a fixed radius.
    RadiusByN { k: usize },
    /// Sort time against `n` at a fixed radius.
    SortByN { k: usize },
    /// Sort time against `k` at a fixed `n`.
    SortByK { n: u64 },
}

/// One figure's measurements.
struct Figure {
    /// The report's figure number.
    number: u32,
    sweep: Sweep,
    /// (algorithm, x, ms); x is `n` or `k` as the sweep says.
    points: Vec<(String, u64, f64)>,
}

impl Figure {
    fn algos(&self) -> &'static [&'static str] {
        match self.sweep {
            Sweep::RadiusByN { .. } => &RADIUS_ALGOS,
            _ => &SORT_ALGOS,
        }
    }

    fn stem(&self) -> String {
        match self.sweep {
            Sweep::RadiusByN { k } => format!("fig{}-radius-k{k}", self.number),
            Sweep::SortByN { k } => format!("fig{}-sort-k{k}", self.number),
            Sweep::SortByK { n } => format!("fig{}-sort-n{n}", self.number),
        }
    }

    fn title(&self, device: &str) -> String {
        match self.sweep {
            Sweep::RadiusByN { k } => format!(
                "Figure {}: radius determination, k = {k} ({device})",
                self.number
            ),
            Sweep::SortByN { k } => format!("Figure {}: sort, k = {k} ({device})", self.number),
            Sweep::SortByK { n } => format!("Figure {}: sort, n = {n} ({device})", self.number),
        }
    }

    fn x_label(&self) -> &'static str {
        match self.sweep {
            Sweep::SortByK { .. } => "radius k",
            _ => "input size n (u32 keys)",
        }
    }

    fn x_cell(&self, x: u64) -> String {
        match self.sweep {
            Sweep::SortByK { .. } => x.to_string(),
            _ if x.is_power_of_two() => format!("2^{}", x.trailing_zeros()),
            _ => x.to_string(),
        }
    }

    /// The figure's table: a row per x, a column per algorithm, `-` where not measured.
    fn table(&self, device: &str) -> Table {
        let mut xs: Vec<u64> = self.points.iter().map(|p| p.1).collect();
        xs.sort_unstable();
        xs.dedup();
        let first = match self.sweep {
            Sweep::SortByK { .. } => "k",
            _ => "n",
        };
        Table {
            caption: format!("{} (ms)", self.title(device)),
            columns: std::iter::once(first.to_string())
                .chain(self.algos().iter().map(|s| s.to_string()))
                .collect(),
            rows: xs
                .iter()
                .map(|&x| {
                    std::iter::once(self.x_cell(x))
                        .chain(self.algos().iter().map(|a| {
                            self.points
                                .iter()
                                .find(|p| p.0 == *a && p.1 == x)
                                .map_or_else(|| "-".to_string(), |p| fmt_ms(p.2))
                        }))
                        .collect()
                })
                .collect(),
        }
    }

    /// The figure's plot: time against x, both axes logarithmic (x doubles).
    fn plot(&self, device: &str) -> Plot {
        Plot {
            title: self.title(device),
            x_label: self.x_label().into(),
            y_label: "time (ms)".into(),
            x_scale: Scale::Log2,
            y_scale: Scale::Log10,
            series: self
                .algos()
                .iter()
                .filter(|a| self.points.iter().any(|p| p.0 == **a))
                .map(|a| {
                    Series::new(
                        *a,
                        self.points
                            .iter()
                            .filter(|p| p.0 == *a)
                            .map(|p| (p.1 as f64, p.2))
                            .collect(),
                    )
                })
                .collect(),
        }
    }
}

/// The input sizes of the sweeps over `n`: 2^14 to 2^max, step 1.
fn sizes(max_log2: u32) -> Vec<u64> {
    (MIN_LOG2..=max_log2).map(|e| 1u64 << e).collect()
}

/// The radii of the sweeps over `k` at `n` keys: 1, 2, 4, ..., 2^12, below `n`.
fn radii(n: u64) -> Vec<usize> {
    (0..=MAX_K_LOG2)
        .map(|e| 1usize << e)
        .filter(|&k| (k as u64) < n)
        .collect()
}

/// Whether bubble sort runs at `n` keys of radius `k` (see [`BUBBLE_MAX_WORK`]).
fn bubble_fits(n: u64, k: usize) -> bool {
    n.saturating_mul(k as u64 + 1) <= BUBBLE_MAX_WORK
}

/// `--max-log2` checked: at least the sweeps' first size, at most [`MAX_LOG2`].
fn max_log2(args: &ReproduceArgs) -> Result<u32, CliError> {
    let max = args.max_log2.unwrap_or(DEFAULT_MAX_LOG2);
    if !(MIN_LOG2..=MAX_LOG2).contains(&max) {
        return Err(CliError::Usage(format!(
            "reproduce roughsort: --max-log2 must be from {MIN_LOG2} to {MAX_LOG2} (got {max})"
        )));
    }
    Ok(max)
}

/// Runs the experiment: the CPU rows always, the GPU rows on the first GPU if there is one.
pub fn run(args: &ReproduceArgs) -> Result<Report, CliError> {
    let max = max_log2(args)?;
    let gpu = open_gpu();
    if let Err(reason) = &gpu {
        note(&format!(
            "reproduce roughsort: no CUDA device ({reason}): CPU rows only"
        ));
    }
    run_with(args, max, gpu.as_ref().map_err(String::as_str))
}

/// Where measurements go, with the run's fixed fields.
struct Bench<'a> {
    gpu: Option<&'a Gpu>,
    reps: u32,
    seed: u64,
    stamp: Stamp,
    rows: Vec<BenchRow>,
    /// Points where bubble sort was skipped, as `n = .., k = ..`.
    bubble_skipped: Vec<String>,
}

impl Bench<'_> {
    /// Records a row and returns the point for a figure.
    fn push(
        &mut self,
        algo: &str,
        engine: &'static str,
        op: &'static str,
        n: u64,
        k: usize,
        ms: f64,
    ) -> (String, f64) {
        let bytes = if op == "radius" { 4 * n } else { 8 * n };
        let id = RowId {
            algo: if op == "radius" {
                format!("radius-{algo}")
            } else {
                algo.to_string()
            },
            engine,
            op,
            key_type: "u32",
            value_type: None,
            pattern: Pattern::KSorted(k).to_string(),
        };
        self.rows.push(BenchRow::new(id, n, ms, bytes, &self.stamp));
        (algo.to_string(), ms)
    }

    /// The radius algorithms on `n` keys of radius `k`; each must find `k`.
    fn radius(&mut self, n: u64, k: usize) -> Result<Vec<(String, f64)>, CliError> {
        note(&format!("reproduce roughsort: radius, n = {n}, k = {k}"));
        let input = generate::<u32>(Pattern::KSorted(k), n as usize, self.seed);
        let mut work = input.clone();
        let restore = |w: &mut [u32]| w.copy_from_slice(&input);
        let mut out = Vec::new();
        let forms: [(&str, RadiusFn); 3] = [
            ("cpu-seq", rough::radius::<u32>),
            ("cpu-seq-memory-saving", rough::radius_memory_saving::<u32>),
            ("cpu-par", rough::radius_par::<u32>),
        ];
        for (algo, f) in forms {
            let mut got = usize::MAX;
            let t = time_cpu(self.reps, &mut work[..], restore, |w| got = f(w, ORDER));
            check_radius(algo, n, k, got)?;
            out.push(self.push(algo, "cpu", "radius", n, k, t));
        }
        if let Some(gpu) = self.gpu {
            let what = format!("reproducing roughsort: radius of {n} u32 keys, k = {k}");
            let d_in = DeviceBuffer::from_host(gpu, &input).map_err(gpu_err(&what))?;
            let k_slots = slot_count(gpu, 4 * input.len());
            let ins = InputSlots::new(gpu, &d_in, k_slots, &what)?;
            let mut got = usize::MAX;
            let (t, _) = time_gpu_rotating(gpu, self.reps, &what, k_slots, |s| {
                got = sortlab_roughsort::radius(gpu, ins.get(s), ORDER).map_err(rough_err)?;
                Ok(())
            })?;
            check_radius("gpu", n, k, got)?;
            out.push(self.push("gpu", "gpu", "radius", n, k, t));
        }
        Ok(out)
    }

    /// The sorts on `n` keys of radius `k`; each output must equal the reference sort.
    fn sorts(&mut self, n: u64, k: usize) -> Result<Vec<(String, f64)>, CliError> {
        note(&format!("reproduce roughsort: sorts, n = {n}, k = {k}"));
        let input = generate::<u32>(Pattern::KSorted(k), n as usize, self.seed);
        let mut want = input.clone();
        want.sort_unstable();
        let mut work = input.clone();
        let restore = |w: &mut [u32]| w.copy_from_slice(&input);
        let mut out = Vec::new();

        let mut found = usize::MAX;
        let t = time_cpu(self.reps, &mut work[..], restore, |w| {
            found = rough::rough_sort_seq(w, ORDER)
        });
        check_radius("roughsort-seq", n, k, found)?;
        check_sorted("roughsort-seq", n, k, &work, &want)?;
        out.push(self.push("roughsort-seq", "cpu", "sort_keys", n, k, t));

        let t = time_cpu(self.reps, &mut work[..], restore, |w| {
            found = rough::rough_sort_par(w, ORDER)
        });
        check_radius("roughsort-par", n, k, found)?;
        check_sorted("roughsort-par", n, k, &work, &want)?;
        out.push(self.push("roughsort-par", "cpu", "sort_keys", n, k, t));

        let t = time_cpu(self.reps, &mut work[..], restore, |w| w.sort());
        check_sorted("merge-sort-seq", n, k, &work, &want)?;
        out.push(self.push("merge-sort-seq", "cpu", "sort_keys", n, k, t));

        if bubble_fits(n, k) {
            let mut passes = 0;
            let t = time_cpu(self.reps, &mut work[..], restore, |w| {
                passes = rough::bubble_sort(w, ORDER)
            });
            check_sorted("bubble-sort", n, k, &work, &want)?;
            if passes > k + 1 {
                return Err(wrong(
                    "bubble-sort",
                    format!("{passes} passes on a {k}-sorted input (at most {})", k + 1),
                ));
            }
            out.push(self.push("bubble-sort", "cpu", "sort_keys", n, k, t));
        } else {
            self.bubble_skipped.push(format!("n = {n}, k = {k}"));
        }

        if let Some(gpu) = self.gpu {
            let what = format!("reproducing roughsort: sorting {n} u32 keys, k = {k}");
            let err = gpu_err(&what);
            let d_in = DeviceBuffer::from_host(gpu, &input).map_err(&err)?;
            let mut found = usize::MAX;
            let (t, keys) = time_gpu_in_place(gpu, self.reps, &what, &d_in, |keys| {
                found = sortlab_roughsort::rough_sort(gpu, keys, ORDER)
                    .map_err(rough_err)?
                    .radius;
                Ok(())
            })?;
            check_radius("roughsort-gpu", n, k, found)?;
            check_sorted("roughsort-gpu", n, k, &keys.to_host().map_err(&err)?, &want)?;
            out.push(self.push("roughsort-gpu", "gpu", "sort_keys", n, k, t));

            let opts = RadixOptions::default()
                .with_order(ORDER)
                .with_variant(RadixVariant::Fast);
            let (t, keys) = time_gpu_in_place(gpu, self.reps, &what, &d_in, |keys| {
                radix::sort_keys(gpu, keys, &opts)
            })?;
            check_sorted(
                "radix-fast-gpu",
                n,
                k,
                &keys.to_host().map_err(&err)?,
                &want,
            )?;
            out.push(self.push("radix-fast-gpu", "gpu", "sort_keys", n, k, t));
        }
        Ok(out)
    }
}

/// The radius found by `algo` must be the input's exact radius `k`.
fn check_radius(algo: &str, n: u64, k: usize, got: usize) -> Result<(), CliError> {
    if got == k {
        Ok(())
    } else {
        Err(wrong(
            &format!("roughsort reproduction, {algo} at n = {n}"),
            format!("radius {got}, expected {k}"),
        ))
    }
}

/// The output of `algo` must equal the reference sort `want`.
fn check_sorted(algo: &str, n: u64, k: usize, got: &[u32], want: &[u32]) -> Result<(), CliError> {
    match got.iter().zip(want).position(|(g, w)| g != w) {
        None if got.len() == want.len() => Ok(()),
        at => Err(wrong(
            &format!("roughsort reproduction, {algo} at n = {n}, k = {k}"),
            match at {
                Some(i) => format!("key {i} is {}, expected {}", got[i], want[i]),
                None => format!("{} keys out, {} in", got.len(), want.len()),
            },
        )),
    }
}

/// Runs the experiment with `gpu` (or the reason there is none) and up to 2^`max` keys.
fn run_with(args: &ReproduceArgs, max: u32, gpu: Result<&Gpu, &str>) -> Result<Report, CliError> {
    let mut b = Bench {
        gpu: gpu.ok(),
        reps: args.reps,
        seed: args.seed,
        stamp: Stamp::new(gpu.ok(), Order::Ascending),
        rows: Vec::new(),
        bubble_skipped: Vec::new(),
    };
    let mut figures: Vec<Figure> = Vec::new();
    let mut sweeps: Vec<Sweep> = RADIUS_KS.map(|k| Sweep::RadiusByN { k }).to_vec();
    sweeps.extend(SORT_KS.map(|k| Sweep::SortByN { k }));
    sweeps.extend(AGAINST_K_NS.map(|n| Sweep::SortByK { n }));
    let mut skipped_ns = Vec::new();
    for (number, sweep) in (1..).zip(sweeps) {
        let mut fig = Figure {
            number,
            sweep,
            points: Vec::new(),
        };
        match sweep {
            Sweep::RadiusByN { k } => {
                for n in sizes(max) {
                    for (a, t) in b.radius(n, k)? {
                        fig.points.push((a, n, t));
                    }
                }
            }
            Sweep::SortByN { k } => {
                for n in sizes(max) {
                    for (a, t) in b.sorts(n, k)? {
                        fig.points.push((a, n, t));
                    }
                }
            }
            Sweep::SortByK { n } => {
                if n > 1u64 << max {
                    skipped_ns.push(format!("Figure {} (n = {n})", fig.number));
                    continue;
                }
                for k in radii(n) {
                    for (a, t) in b.sorts(n, k)? {
                        fig.points.push((a, k as u64, t));
                    }
                }
            }
        }
        figures.push(fig);
    }

    let device = match gpu {
        Ok(g) => format!("{} and {}", describe(g), b.stamp.cpu),
        Err(_) => b.stamp.cpu.clone(),
    };
    let mut notes = vec![
        format!(
            "Device: {device}; date {}; u32 keys of the `k-sorted:K` pattern (distinct keys, \
             radius exactly K; seed {}), ascending; n from 2^{MIN_LOG2} to 2^{max} for Figures \
             1-4, k from 1 to 2^{MAX_K_LOG2} (below n) for Figures 5-6. Each point is the median \
             of {} timed calls after warm-up calls, the input restored before each (untimed; GPU calls \
             rotate over input copies spanning three L2 caches): wall clock on the CPU, CUDA events around the whole library call on the GPU (scratch \
             allocation included; the radius call reads the radius back to the host).",
            b.stamp.date, args.seed, args.reps
        ),
        "Radius (Figures 1-2): `cpu-seq` is the report's sequential algorithm with the `LR`, \
         `RL` and `DM` arrays (`rough::radius`), `cpu-seq-memory-saving` its memory-saving form \
         (`rough::radius_memory_saving`), `cpu-par` the rayon form (`rough::radius_par`), `gpu` \
         `sortlab_roughsort::radius`. Every one must return K."
            .into(),
        "Sorts (Figures 3-6): `roughsort-seq` is the halving algorithm (`rough::rough_sort_seq`), \
         `roughsort-par` Altman-Chlebus on rayon (`rough::rough_sort_par`), both including their \
         radius determination; `merge-sort-seq` std's stable sort (`slice::sort`), \
         `bubble-sort` bubble sort with early exit (`rough::bubble_sort`, the report's \
         baseline), `roughsort-gpu` `sortlab_roughsort::rough_sort` (radius and sort), \
         `radix-fast-gpu` the GPU radix sort (`RadixVariant::Fast`). Every output must equal \
         the reference sort of its input."
            .into(),
    ];
    if let Err(reason) = gpu {
        notes.push(format!(
            "GPU rows skipped: no CUDA device ({reason}); the `gpu`, `roughsort-gpu` and \
             `radix-fast-gpu` columns are empty."
        ));
    }
    if !b.bubble_skipped.is_empty() {
        notes.push(format!(
            "Bubble sort skipped where n * (k + 1), the bound on its comparisons, is above \
             2^{} (a few tenths of a second a call on one core): {}.",
            BUBBLE_MAX_WORK.trailing_zeros(),
            b.bubble_skipped.join("; ")
        ));
    }
    if !skipped_ns.is_empty() {
        notes.push(format!(
            "Skipped, n above 2^{max} (`--max-log2`): {}.",
            skipped_ns.join(", ")
        ));
    }
    let short_device = match gpu {
        Ok(g) => describe(g),
        Err(_) => "CPU only".into(),
    };
    Ok(Report {
        title: "Parallel sorting of roughly-sorted sequences: Figures 1-6".into(),
        notes,
        tables: figures.iter().map(|f| f.table(&short_device)).collect(),
        figures: figures
            .iter()
            .map(|f| (f.stem(), f.plot(&short_device)))
            .collect(),
        rows: b.rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(max_log2: Option<u32>) -> ReproduceArgs {
        super::super::testing::args("roughsort", max_log2, 7)
    }

    #[test]
    fn sweeps_sizes_radii_and_bubble_budget() {
        assert_eq!(sizes(16), [1 << 14, 1 << 15, 1 << 16]);
        assert_eq!(radii(750_000).len(), 13);
        assert_eq!(radii(750_000).last(), Some(&4096));
        assert_eq!(radii(100), [1, 2, 4, 8, 16, 32, 64]);
        assert!(bubble_fits(1 << 22, 2));
        assert!(!bubble_fits(1 << 22, 100));
        assert!(bubble_fits(1_250_000, 128) && !bubble_fits(1_250_000, 256));
    }

    #[test]
    fn max_log2_out_of_range_is_a_usage_error() {
        for bad in [13, 31] {
            let e = run(&args(Some(bad))).unwrap_err();
            assert!(matches!(e, CliError::Usage(_)), "{e}");
            assert!(e.to_string().contains("--max-log2"), "{e}");
        }
        assert_eq!(max_log2(&args(None)).unwrap(), DEFAULT_MAX_LOG2);
    }

    #[test]
    fn wrong_results_are_caught() {
        assert!(check_radius("x", 10, 3, 3).is_ok());
        assert!(matches!(
            check_radius("x", 10, 3, 2),
            Err(CliError::WrongResult { .. })
        ));
        assert!(check_sorted("x", 3, 1, &[1, 2, 3], &[1, 2, 3]).is_ok());
        let e = check_sorted("x", 3, 1, &[1, 3, 2], &[1, 2, 3]).unwrap_err();
        assert!(e.to_string().contains("key 1"), "{e}");
        assert!(check_sorted("x", 3, 1, &[1, 2], &[1, 2, 3]).is_err());
    }

    #[test]
    fn tables_and_plots_from_synthetic_points() {
        let fig = Figure {
            number: 3,
            sweep: Sweep::SortByN { k: 2 },
            points: vec![
                ("roughsort-seq".into(), 1 << 14, 0.5),
                ("roughsort-seq".into(), 1 << 15, 1.25),
                ("bubble-sort".into(), 1 << 14, 2.0),
            ],
        };
        let t = fig.table("dev");
        assert_eq!(t.columns.len(), 1 + SORT_ALGOS.len());
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.rows[0][..5], ["2^14", "0.5000", "-", "-", "2.000"]);
        assert_eq!(t.rows[1][..5], ["2^15", "1.250", "-", "-", "-"]);
        let p = fig.plot("dev");
        assert_eq!(p.series.len(), 2, "series without points are left out");
        assert_eq!(p.series[0].points, [(16384.0, 0.5), (32768.0, 1.25)]);
        assert_eq!((p.x_scale, p.y_scale), (Scale::Log2, Scale::Log10));
        assert!(!p.x_label.is_empty() && !p.y_label.is_empty());
        assert_eq!(fig.stem(), "fig3-sort-k2");

        let by_k = Figure {
            number: 5,
            sweep: Sweep::SortByK { n: 750_000 },
            points: vec![("roughsort-par".into(), 16, 3.0)],
        };
        assert_eq!(by_k.table("dev").rows[0][..3], ["16", "-", "3.000"]);
        assert_eq!(by_k.plot("dev").x_label, "radius k");
    }

    #[test]
    fn cpu_rows_run_without_a_gpu() {
        let report = run_with(&args(Some(15)), 15, Err("no device here")).unwrap();
        assert_eq!(report.figures.len(), 4, "Figures 5-6 need n above 2^15");
        assert_eq!(report.tables.len(), 4);
        let notes = report.notes.join("\n");
        assert!(notes.contains("GPU rows skipped: no CUDA device (no device here)"));
        assert!(notes.contains("Figure 5 (n = 750000), Figure 6 (n = 1250000)"));
        // 2 sizes x 2 radii x 3 CPU radius forms, 2 sizes x 2 radii x 4 CPU sorts.
        assert_eq!(report.rows.len(), 12 + 16);
        assert!(report.rows.iter().all(|r| r.engine == "cpu" && r.ms >= 0.0));
        let radius_rows = report.rows.iter().filter(|r| r.op == "radius");
        assert_eq!(radius_rows.clone().count(), 12);
        assert!(radius_rows
            .clone()
            .all(|r| r.algo.starts_with("radius-cpu-")));
        assert!(report.rows.iter().any(|r| r.algo == "bubble-sort"));
        for t in &report.tables {
            assert_eq!(t.rows.len(), 2, "{}", t.caption);
            let gpu_cols: Vec<usize> = (1..t.columns.len())
                .filter(|&c| t.columns[c].contains("gpu"))
                .collect();
            assert!(!gpu_cols.is_empty());
            for r in &t.rows {
                assert!(gpu_cols.iter().all(|&c| r[c] == "-"));
                assert!((1..t.columns.len())
                    .filter(|c| !gpu_cols.contains(c))
                    .all(|c| r[c] != "-"));
            }
        }
        let dir = tempfile::tempdir().unwrap();
        super::super::write_report(dir.path(), "roughsort", &report).unwrap();
        assert!(dir.path().join("roughsort-fig1-radius-k2.svg").is_file());
        assert!(dir.path().join("roughsort-fig4-sort-k15.svg").is_file());
    }
}
