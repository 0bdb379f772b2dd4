//! The command line, as clap derive structs.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use sortlab_primitives::Order;
use sortlab_verify::ArrayLengths;

use crate::engine::EngineChoice;

/// sortlab: GPU sorting algorithms, their CPU twins, generators, checkers and benchmarks.
///
/// Key files are raw little-endian keys with no header; `--type` says how to read them.
#[derive(Debug, Parser)]
#[command(name = "sortlab", version, propagate_version = true)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show the GPU (if any), the NVRTC version and the CPU engine.
    Info,
    /// List the algorithms, key types, input patterns and bench suites.
    List,
    /// Generate an input file of raw little-endian keys.
    Gen(GenArgs),
    /// Sort a file of keys with a registered algorithm.
    Sort(SortArgs),
    /// Check a file of keys: sorted, k-sorted, equal to or a permutation of another, radius.
    ///
    /// Exits 0 when the check passes, 1 when it fails, 2 on bad input.
    Check(CheckArgs),
    /// Run a benchmark suite and print a table (optionally JSON Lines).
    Bench(BenchArgs),
    /// Re-run a source paper's experiment: tables (Markdown), figures (SVG), rows (JSON Lines).
    Reproduce(ReproduceArgs),
}

/// Arguments of `sortlab gen`.
#[derive(Debug, Args)]
pub struct GenArgs {
    /// Input pattern (`sortlab list` shows them), e.g. `uniform`, `k-sorted:16`.
    #[arg(long, default_value = "uniform")]
    pub pattern: String,
    /// Key type: u32, i32, f32, u64, i64, f64.
    #[arg(long = "type", value_name = "TYPE", default_value = "u32")]
    pub key_type: String,
    /// Number of keys: a count (`1000000`) or a power of two (`2^20`).
    #[arg(long, value_parser = parse_count)]
    pub n: u64,
    /// Generator seed (decimal or 0x-hex); the same seed gives the same file.
    #[arg(long, default_value = "42", value_parser = parse_seed)]
    pub seed: u64,
    /// The file to write (replaced only once complete).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Many small arrays: their lengths, `fixed:N`, `uniform:MIN..MAX` or `power-law:MEAN`,
    /// drawn until they hold the --n keys (the keys follow --pattern across the arrays).
    #[arg(long, value_name = "LENGTHS", requires = "offsets")]
    pub arrays: Option<ArrayLengths>,
    /// With --arrays: the file of the arrays' offsets to write (arrays + 1 little-endian u64).
    #[arg(long, value_name = "FILE", requires = "arrays")]
    pub offsets: Option<PathBuf>,
}

/// Arguments of `sortlab sort`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("arrays").args(["offsets", "array_len"]))]
pub struct SortArgs {
    /// Algorithm (`sortlab list` shows them); `reference` where not given, `radix` with
    /// --gpus or --device-memory (the only sort they take).
    #[arg(long)]
    pub algo: Option<String>,
    /// Sort order: asc or desc.
    #[arg(long, default_value = "asc")]
    pub order: Order,
    /// Key type: u32, i32, f32, u64, i64, f64.
    #[arg(long = "type", value_name = "TYPE", default_value = "u32")]
    pub key_type: String,
    /// Where to run: the GPU when possible (auto), the CPU, or the GPU or fail.
    #[arg(long, value_enum, default_value_t = EngineChoice::Auto)]
    pub engine: EngineChoice,
    /// The file of keys to sort.
    #[arg(value_name = "FILE")]
    pub input: PathBuf,
    /// The file to write the sorted keys to (replaced only once complete; may be FILE).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// Sort each array of FILE on its own, the arrays given by an offsets file (arrays + 1
    /// little-endian u64, as `sortlab gen --offsets` writes): GPU arraysort (fast) or the CPU
    /// twin; --algo is not used.
    #[arg(long, value_name = "OFFSETS", conflicts_with = "array_len")]
    pub offsets: Option<PathBuf>,
    /// Sort each array of N keys of FILE on its own (N must divide the key count).
    #[arg(long, value_name = "N")]
    pub array_len: Option<u64>,
    /// With --offsets or --array-len: keep only the first K keys of every array in the order
    /// (the K smallest ascending, the K largest descending; arrays shorter than K keep all
    /// theirs), written back to back to OUT: arraysort's top-k (radix select) or the CPU twin.
    #[arg(long, value_name = "K", requires = "arrays")]
    pub top_k: Option<u64>,
    /// With --top-k: write the offsets of the result's arrays (arrays + 1 little-endian u64)
    /// to this file.
    #[arg(long, value_name = "FILE", requires = "top_k")]
    pub out_offsets: Option<PathBuf>,
    /// With --top-k: write each kept key's position in its array (little-endian u64, equal
    /// keys in input order) to this file, in the order of OUT: the argsort of the top k.
    #[arg(long, value_name = "FILE", requires = "top_k")]
    pub indices: Option<PathBuf>,
    /// Sort across the first N GPUs of this host (gpu-sorts' multi-GPU radix sort, with the
    /// keys exchanged through NCCL); 1 is the one-GPU radix sort.
    #[arg(
        long,
        value_name = "N",
        value_parser = clap::value_parser!(u32).range(1..),
        conflicts_with_all = ["offsets", "array_len", "device_memory"]
    )]
    pub gpus: Option<u32>,
    /// The device memory the sort may use, in bytes (suffixes K, M, G, T: powers of 1024).
    /// Keys larger than that are streamed through the GPU in chunks (gpu-sorts' streamed radix
    /// sort; with --offsets or --array-len, arraysort's jobs of whole arrays); smaller ones are
    /// sorted in one piece.
    #[arg(
        long,
        value_name = "BYTES",
        value_parser = parse_bytes,
        conflicts_with = "top_k"
    )]
    pub device_memory: Option<u64>,
}

/// Arguments of `sortlab check`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("mode").multiple(false))]
pub struct CheckArgs {
    /// The file of keys to check.
    #[arg(value_name = "FILE")]
    pub input: PathBuf,
    /// Key type: u32, i32, f32, u64, i64, f64.
    #[arg(long = "type", value_name = "TYPE", default_value = "u32")]
    pub key_type: String,
    /// Order for --sorted, --k-sorted and --radius: asc or desc.
    #[arg(long, default_value = "asc")]
    pub order: Order,
    /// Check that FILE is sorted (the default check).
    #[arg(long, group = "mode")]
    pub sorted: bool,
    /// Check that FILE is K-sorted: no key is more than K places from its sorted position.
    #[arg(long, value_name = "K", group = "mode")]
    pub k_sorted: Option<usize>,
    /// Check that FILE equals REF bit for bit (e.g. a reference sort's output).
    #[arg(long, value_name = "REF", group = "mode")]
    pub same_as: Option<PathBuf>,
    /// Check that FILE holds the same multiset of keys as INPUT (a sort lost or made up none).
    #[arg(long, value_name = "INPUT", group = "mode")]
    pub permutation_of: Option<PathBuf>,
    /// Print FILE's radius: the least K for which it is K-sorted (always passes).
    #[arg(long, group = "mode")]
    pub radius: bool,
    /// Check array by array (--sorted: every array sorted; --permutation-of: every array a
    /// permutation of the same array of INPUT), the arrays given by an offsets file.
    #[arg(long, value_name = "OFFSETS", conflicts_with_all = ["array_len", "k_sorted", "same_as", "radius"])]
    pub offsets: Option<PathBuf>,
    /// Check array by array, arrays of N keys.
    #[arg(long, value_name = "N", conflicts_with_all = ["k_sorted", "same_as", "radius"])]
    pub array_len: Option<u64>,
}

/// Arguments of `sortlab bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// The suite to run (known: sort, primitives, radix, merge, bitonic, sample, quick, hybrid,
    /// approxsort, roughsort, arraysort, scale).
    #[arg(value_name = "SUITE")]
    pub suite: String,
    /// Key types, comma separated.
    #[arg(long = "type", value_name = "TYPES", default_value = "u32")]
    pub key_type: String,
    /// Input patterns, comma separated.
    #[arg(long, value_name = "PATTERNS", default_value = "uniform")]
    pub pattern: String,
    /// Algorithms, comma separated (default: all of the suite's). `sort` takes the registry's
    /// names (`sortlab list`); the other suites take their rows' names (`radix-fast`,
    /// `approx-fast-equal-width`, `roughsort`, `scan-fast`, ...), listed by the error for an
    /// unknown one.
    #[arg(long, value_name = "ALGOS")]
    pub algo: Option<String>,
    /// Sizes as powers of two, comma separated: `16,20` runs 2^16 and 2^20 keys.
    #[arg(
        long,
        value_name = "LOG2S",
        value_delimiter = ',',
        default_value = "16,17,18,19,20",
        value_parser = clap::value_parser!(u32).range(0..=40)
    )]
    pub sizes: Vec<u32>,
    /// Timed repetitions per row (after three warm-up runs); the median is reported.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub reps: u32,
    /// Sort order: asc or desc.
    #[arg(long, default_value = "asc")]
    pub order: Order,
    /// Generator seed for the inputs (decimal or 0x-hex).
    #[arg(long, default_value = "42", value_parser = parse_seed)]
    pub seed: u64,
    /// Also write the rows as JSON Lines to this file (replaced once the run completes).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

/// Arguments of `sortlab reproduce`.
#[derive(Debug, Args)]
pub struct ReproduceArgs {
    /// The experiment (`sortlab list` shows them), e.g. `primitives`.
    #[arg(value_name = "PAPER")]
    pub paper: String,
    /// Folder for `<PAPER>.md`, `<PAPER>-*.svg` and `<PAPER>.jsonl` (created if needed).
    #[arg(short, long, value_name = "DIR", default_value = "reproduce")]
    pub out: PathBuf,
    /// Timed repetitions per point (after three warm-up runs); the median is reported.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub reps: u32,
    /// Largest input size as a power of two (the experiment's larger sizes are skipped).
    #[arg(long, value_name = "LOG2", value_parser = clap::value_parser!(u32).range(0..=40))]
    pub max_log2: Option<u32>,
    /// Generator seed for the inputs (decimal or 0x-hex).
    #[arg(long, default_value = "42", value_parser = parse_seed)]
    pub seed: u64,
}

/// Parses a seed: decimal or `0x`-prefixed hexadecimal (as `SORTLAB_SEED`).
pub fn parse_seed(s: &str) -> Result<u64, String> {
    sortlab_verify::seed::parse_seed(s).map_err(|e| e.to_string())
}

/// Parses a byte count: a plain integer, or one with a suffix K, M, G or T (powers of 1024,
/// an optional trailing `B` or `iB`): `4096`, `512M`, `2GiB`.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let bad = || format!("`{s}` is not a byte count (write e.g. 1073741824, 512M or 2G)");
    let t = s.trim().replace('_', "");
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(&t);
    let (digits, shift) = match t.chars().last() {
        Some(c @ ('K' | 'k' | 'M' | 'm' | 'G' | 'g' | 'T' | 't')) => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                _ => 40,
            };
            (&t[..t.len() - 1], shift)
        }
        _ => (t, 0),
    };
    let n: u64 = digits.parse().map_err(|_| bad())?;
    n.checked_mul(1u64 << shift)
        .ok_or_else(|| format!("`{s}` is too large"))
}

/// Parses a key count: a plain integer (`1000000`) or a power of two (`2^20`).
pub fn parse_count(s: &str) -> Result<u64, String> {
    let bad = || format!("`{s}` is not a count (write e.g. 1000000 or 2^20)");
    if let Some(e) = s.strip_prefix("2^") {
        let e: u32 = e.parse().map_err(|_| bad())?;
        return 1u64
            .checked_shl(e)
            .filter(|_| e < 64)
            .ok_or_else(|| format!("2^{e} is too large"));
    }
    s.replace('_', "").parse().map_err(|_| bad())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn byte_counts_parse() {
        assert_eq!(parse_bytes("4096"), Ok(4096));
        assert_eq!(parse_bytes("512M"), Ok(512 << 20));
        assert_eq!(parse_bytes("2G"), Ok(2 << 30));
        assert_eq!(parse_bytes("2GiB"), Ok(2 << 30));
        assert_eq!(parse_bytes("3kB"), Ok(3 << 10));
        assert_eq!(parse_bytes("1T"), Ok(1 << 40));
        assert!(parse_bytes("").is_err());
        assert!(parse_bytes("G").is_err());
        assert!(parse_bytes("-1M").is_err());
        assert!(parse_bytes("lots").is_err());
        assert!(parse_bytes("99999999999T").is_err());
    }

    #[test]
    fn counts_parse() {
        assert_eq!(parse_count("1000"), Ok(1000));
        assert_eq!(parse_count("1_000"), Ok(1000));
        assert_eq!(parse_count("2^20"), Ok(1 << 20));
        assert!(parse_count("2^64").is_err());
        assert!(parse_count("lots").is_err());
        assert!(parse_count("-1").is_err());
    }
}
