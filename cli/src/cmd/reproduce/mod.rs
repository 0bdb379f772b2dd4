//! `sortlab reproduce <paper>`: re-runs a source paper's experiment on this machine and writes
//! its tables (Markdown), its figures (SVG) and the raw rows (JSON Lines) into one folder.
//!
//! Each experiment is one module returning a [`Report`]; adding one is a module and an arm in
//! [`run`] with its name in [`PAPERS`].

mod approxsort;
mod arraysort;
mod bitonic;
mod primitives;
mod radix;
mod roughsort;
mod sorts;

use std::fmt::Write as _;
use std::path::Path;

use super::{note, say};
use crate::args::ReproduceArgs;
use crate::bench::row::{write_jsonl, BenchRow};
use crate::engine::open_gpu;
use crate::error::CliError;
use crate::io::write_atomic;
use crate::plot::Plot;

/// The experiments `sortlab reproduce` knows, with what each reproduces.
pub const PAPERS: &[(&str, &str)] = &[
    (
        "primitives",
        "the course notes' performance comparison of the four reductions and the four scans \
     (latency and bandwidth against input size), with the Fast variants beside them",
    ),
    (
        "roughsort",
        "the report \"Parallel Sorting of Roughly-Sorted Sequences\" (Altman & Igarashi, Altman & \
         Chlebus), Figures 1-6: radius determination and sort time against n and against k, \
         CPU (sequential, rayon, merge sort, bubble sort) and GPU (roughsort, radix sort)",
    ),
    (
        "radix",
        "the source notes' latency and bandwidth comparison of the radix sorts (one-bit split, \
         Satish et al., Fast), u32 keys and pairs against input size, with the copy rate as \
         the bound",
    ),
    (
        "approxsort",
        "Xiao, Chen, Sun, \"High Performance Approximate Sort Algorithm Using GPUs\", Figures \
         2-4: approximate sort (Fast, Paper) against radix and bucket sort, uniform and \
         gaussian keys, and time against NUM_INTERVAL",
    ),
    (
        "bitonic",
        "the bitonic sorting report: a sequential CPU sort against the GPU bitonic sorts for n \
         = 2^2 .. 2^20 (time and speedup), and its threads-per-block experiment, with the course \
         notes' kernel and the fast sort beside the report's",
    ),
    (
        "arraysort",
        "Awan and Saeed, \"GPU-ArraySort\", Figure 2 (time against the array size at 50,000 \
         arrays), Figures 4-7 (time against the number of arrays, n = 1000..4000: GPU-ArraySort \
         against the tagged baseline STA) and Table 1 (capacity), with the fast segmented sort",
    ),
    (
        "sorts",
        "the course notes' latency and bandwidth comparison of the sorts: every registered \
         sort with a GPU engine, u32 keys against input size, with the copy rate as the bound",
    ),
];

/// A table: a caption, column names, rows of cells.
#[derive(Clone, Debug, Default)]
pub struct Table {
    /// One line above the table.
    pub caption: String,
    /// Column headers.
    pub columns: Vec<String>,
    /// Rows, each as long as `columns`.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// The table as GitHub Markdown.
    pub fn to_markdown(&self) -> String {
        let mut s = format!(
            "**{}**\n\n| {} |\n|",
            self.caption,
            self.columns.join(" | ")
        );
        for _ in &self.columns {
            s.push_str(" ---: |");
        }
        s.push('\n');
        for r in &self.rows {
            let _ = writeln!(s, "| {} |", r.join(" | "));
        }
        s
    }
}

/// What an experiment produced.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Heading of the Markdown file.
    pub title: String,
    /// Paragraphs under the heading: setup, device, what to compare with.
    pub notes: Vec<String>,
    /// Tables, in order.
    pub tables: Vec<Table>,
    /// Figures: (file stem, plot); written as `<paper>-<stem>.svg`.
    pub figures: Vec<(String, Plot)>,
    /// Every measurement, as `sortlab bench` rows.
    pub rows: Vec<BenchRow>,
}

/// Runs the experiment `args.paper` and writes `<out>/<paper>.md`, `<out>/<paper>-*.svg` and
/// `<out>/<paper>.jsonl`.
pub fn run(args: &ReproduceArgs) -> Result<(), CliError> {
    let report = match args.paper.as_str() {
        "primitives" => primitives::run(args)?,
        "roughsort" => roughsort::run(args)?,
        "radix" => radix::run(args)?,
        "approxsort" => approxsort::run(args)?,
        "sorts" => sorts::run(args)?,
        "arraysort" => arraysort::run(args)?,
        "bitonic" => bitonic::run(args)?,
        other => {
            return Err(CliError::Usage(format!(
                "unknown experiment `{other}`; known: {}",
                PAPERS.iter().map(|p| p.0).collect::<Vec<_>>().join(", ")
            )))
        }
    };
    write_report(&args.out, &args.paper, &report)
}

/// Writes a report's files into `dir` (created if needed), each atomically.
pub fn write_report(dir: &Path, paper: &str, report: &Report) -> Result<(), CliError> {
    std::fs::create_dir_all(dir).map_err(|source| CliError::Write {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut md = format!("# {}\n\n", report.title);
    for n in &report.notes {
        let _ = writeln!(md, "{n}\n");
    }
    for t in &report.tables {
        let _ = writeln!(md, "{}", t.to_markdown());
    }
    for (stem, plot) in &report.figures {
        let file = format!("{paper}-{stem}.svg");
        write_atomic(&dir.join(&file), |w| w.write_all(plot.to_svg().as_bytes()))?;
        let _ = writeln!(md, "![{}]({file})\n", plot.title);
    }
    let md_path = dir.join(format!("{paper}.md"));
    write_atomic(&md_path, |w| w.write_all(md.as_bytes()))?;
    write_jsonl(&dir.join(format!("{paper}.jsonl")), &report.rows)?;
    say(&md);
    note(&format!(
        "wrote {} ({} tables, {} figures, {} rows)",
        md_path.display(),
        report.tables.len(),
        report.figures.len(),
        report.rows.len()
    ));
    Ok(())
}

/// The first GPU, or the usage error of an experiment (`paper`) that times `what` on one.
pub(crate) fn require_gpu(paper: &str, what: &str) -> Result<sortlab_primitives::Gpu, CliError> {
    open_gpu().map_err(|reason| {
        CliError::Usage(format!(
            "reproduce {paper} times {what} and needs a CUDA device ({reason})"
        ))
    })
}

/// Formats a time in milliseconds with 4 significant digits.
pub(crate) fn fmt_ms(ms: f64) -> String {
    if ms >= 100.0 {
        format!("{ms:.1}")
    } else if ms >= 1.0 {
        format!("{ms:.3}")
    } else {
        format!("{ms:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::{Scale, Series};

    #[test]
    fn report_files_are_written_together() {
        let dir = tempfile::tempdir().unwrap();
        let report = Report {
            title: "demo".into(),
            notes: vec!["note".into()],
            tables: vec![Table {
                caption: "cap".into(),
                columns: vec!["n".into(), "ms".into()],
                rows: vec![vec!["1024".into(), "0.5".into()]],
            }],
            figures: vec![(
                "latency".into(),
                Plot {
                    title: "lat".into(),
                    x_label: "n".into(),
                    y_label: "ms".into(),
                    x_scale: Scale::Log2,
                    y_scale: Scale::Log10,
                    series: vec![Series::new("a", vec![(1024.0, 0.5), (2048.0, 0.7)])],
                },
            )],
            rows: vec![],
        };
        write_report(dir.path(), "demo", &report).unwrap();
        let md = std::fs::read_to_string(dir.path().join("demo.md")).unwrap();
        assert!(md.contains("| 1024 | 0.5 |") && md.contains("(demo-latency.svg)"));
        assert!(dir.path().join("demo-latency.svg").is_file());
        assert!(dir.path().join("demo.jsonl").is_file());
    }

    #[test]
    fn unknown_experiment_is_a_usage_error() {
        let args = ReproduceArgs {
            paper: "nope".into(),
            out: std::env::temp_dir(),
            reps: 1,
            max_log2: None,
            seed: 1,
        };
        let e = run(&args).unwrap_err();
        assert!(e.to_string().contains("primitives"), "{e}");
    }
}

/// What the experiments' tests share.
#[cfg(test)]
pub(crate) mod testing {
    use super::Report;
    use crate::args::ReproduceArgs;
    use crate::engine::open_gpu;
    use crate::error::CliError;

    /// `paper`'s arguments up to 2^`max_log2` keys, one timed run a point, output in the
    /// temporary folder.
    pub(crate) fn args(paper: &str, max_log2: Option<u32>, seed: u64) -> ReproduceArgs {
        ReproduceArgs {
            paper: paper.into(),
            out: std::env::temp_dir(),
            reps: 1,
            max_log2,
            seed,
        }
    }

    /// On a CUDA machine the experiment runs (its results checked) and reports rows and
    /// tables; without one it is a usage error naming the missing device.
    pub(crate) fn runs_on_a_gpu_or_names_the_missing_device(
        run: fn(&ReproduceArgs) -> Result<Report, CliError>,
        args: &ReproduceArgs,
    ) {
        match open_gpu() {
            Ok(_) => {
                let report = run(args).unwrap();
                assert!(!report.rows.is_empty() && !report.tables.is_empty());
            }
            Err(_) => {
                let e = run(args).unwrap_err();
                assert!(matches!(e, CliError::Usage(_)), "{e}");
                assert!(e.to_string().contains("needs a CUDA device"), "{e}");
            }
        }
    }
}
