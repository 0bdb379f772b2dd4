//! `sortlab bench`: the benchmark suites ([`suites`]), timed as `timing` says, written as
//! [`row`]s (a table on stdout, JSON Lines with `--json`).
//!
//! Adding a suite is a file in `suites/`, one arm in [`run`] and its name in [`SUITES`].

mod filter;
pub mod row;
mod setup;
pub mod suites;
pub mod timing;

use crate::args::BenchArgs;
use crate::error::CliError;

pub use row::BenchRow;

/// The benchmark suites `sortlab bench` knows.
pub const SUITES: &[&str] = &[
    "sort",
    "primitives",
    "radix",
    "merge",
    "bitonic",
    "sample",
    "quick",
    "hybrid",
    "approxsort",
    "roughsort",
    "arraysort",
    "scale",
];

/// Runs the suite `args.suite`, prints a table on stdout and writes `--json` if asked.
pub fn run(args: &BenchArgs) -> Result<(), CliError> {
    use suites::algos::Suite;
    use suites::full::Family;
    match args.suite.as_str() {
        "sort" => suites::sort::run(args),
        "primitives" => suites::primitives::run(args),
        "radix" => suites::algos::run(Suite::Full(Family::Radix), args),
        "merge" => suites::algos::run(Suite::Full(Family::Merge), args),
        "bitonic" => suites::algos::run(Suite::Full(Family::Bitonic), args),
        "sample" => suites::algos::run(Suite::Full(Family::Sample), args),
        "quick" => suites::algos::run(Suite::Full(Family::Quick), args),
        "hybrid" => suites::algos::run(Suite::Full(Family::Hybrid), args),
        "approxsort" => suites::algos::run(Suite::Approx, args),
        "roughsort" => suites::algos::run(Suite::Rough, args),
        "arraysort" => suites::arraysort::run(args),
        "scale" => suites::scale::run(args),
        other => Err(CliError::UnknownSuite {
            given: other.to_string(),
            known: SUITES.join(", "),
        }),
    }
}
