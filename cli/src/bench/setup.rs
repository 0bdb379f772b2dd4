//! What every suite takes from the command line before it runs anything.

use std::path::Path;

use sortlab_primitives::{Gpu, KeyType, Order};

use super::filter::AlgoFilter;
use super::row::{write_jsonl, BenchRow, Stamp};
use crate::args::BenchArgs;
use crate::backend::patterns::Pattern;
use crate::cmd::{note, parse_pattern};
use crate::engine::open_gpu;
use crate::error::CliError;
use crate::key::parse_key_type;

/// A suite's run whose rows the suite names itself (all but `sort`): what the command line asks
/// for, and the GPU where a row to run needs one.
pub(crate) struct Run {
    /// The key types, patterns and sizes (log2), every combination a point.
    pub(crate) types: Vec<KeyType>,
    pub(crate) patterns: Vec<Pattern>,
    pub(crate) sizes: Vec<u32>,
    /// The GPU, where a GPU row is to run and one opens.
    pub(crate) gpu: Option<Gpu>,
    /// The rows `--algo` picks.
    pub(crate) algos: AlgoFilter,
    pub(crate) reps: u32,
    pub(crate) seed: u64,
    pub(crate) order: Order,
    pub(crate) stamp: Stamp,
}

impl Run {
    /// The run of `args` for a suite whose rows are `known`, of which `gpu_rows` run on the GPU.
    pub(crate) fn new(
        args: &BenchArgs,
        known: &[String],
        gpu_rows: &[String],
    ) -> Result<Self, CliError> {
        let (types, patterns) = parse_common(args)?;
        let algos = AlgoFilter::new(args.algo.as_deref(), known)?;
        let gpu = gpu_if(algos.wants_any(gpu_rows));
        Ok(Run {
            types,
            patterns,
            sizes: args.sizes.clone(),
            stamp: Stamp::new(gpu.as_ref(), args.order),
            gpu,
            algos,
            reps: args.reps,
            seed: args.seed,
            order: args.order,
        })
    }

    /// Every (key type, pattern, number of keys) point, types outermost, sizes innermost.
    pub(crate) fn points(&self) -> impl Iterator<Item = (KeyType, Pattern, u64)> + '_ {
        self.types.iter().flat_map(move |&t| {
            self.patterns
                .iter()
                .flat_map(move |&p| self.sizes.iter().map(move |&log2| (t, p, 1u64 << log2)))
        })
    }
}

/// Writes `rows` to the `--json` file of `args`, if any, and says so.
pub(crate) fn write_rows(args: &BenchArgs, rows: &[BenchRow]) -> Result<(), CliError> {
    if let Some(json) = &args.json {
        write_jsonl(json, rows)?;
        note(&format!("wrote {} rows to {}", rows.len(), json.display()));
    }
    Ok(())
}

/// The items of a comma-separated list, trimmed, empty ones left out.
pub(crate) fn split_list(s: &str) -> impl Iterator<Item = &str> {
    s.split(',').map(str::trim).filter(|x| !x.is_empty())
}

/// The key types and patterns of `args` (unknown names are errors), after a check that the
/// `--json` file can be written (its folder exists), so that a long run does not end in an
/// error.
pub(crate) fn parse_common(args: &BenchArgs) -> Result<(Vec<KeyType>, Vec<Pattern>), CliError> {
    let types = split_list(&args.key_type)
        .map(parse_key_type)
        .collect::<Result<Vec<KeyType>, _>>()?;
    let patterns = split_list(&args.pattern)
        .map(parse_pattern)
        .collect::<Result<Vec<Pattern>, _>>()?;
    if let Some(json) = &args.json {
        check_writable_dir(json)?;
    }
    Ok((types, patterns))
}

/// The GPU, where some row to run needs one (`wanted`) and there is one; else `None`, with a
/// note when one was wanted.
pub(crate) fn gpu_if(wanted: bool) -> Option<Gpu> {
    if !wanted {
        return None;
    }
    match open_gpu() {
        Ok(gpu) => Some(gpu),
        Err(reason) => {
            note(&format!("no CUDA device ({reason}): CPU rows only"));
            None
        }
    }
}

/// Fails early, before minutes of benchmarking, when the JSON file's directory is missing.
fn check_writable_dir(path: &Path) -> Result<(), CliError> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if dir.is_dir() {
        Ok(())
    } else {
        Err(CliError::Write {
            path: path.to_path_buf(),
            source: std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("directory {} does not exist", dir.display()),
            ),
        })
    }
}
