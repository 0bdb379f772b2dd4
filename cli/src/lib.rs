//! # sortlab-cli
//!
//! The `sortlab` command, as a library so that it can be tested and extended:
//!
//! - `sortlab info`: the GPU (or why there is none), NVRTC, the CPU engine;
//! - `sortlab list`: registered algorithms, key types, input patterns, bench suites;
//! - `sortlab gen`: write a generated input file (raw little-endian keys);
//! - `sortlab sort`: sort a file with a registered algorithm (`sortlab_registry::ALGOS`) on
//!   the CPU or GPU engine ([`engine`]);
//! - `sortlab check`: sorted / k-sorted / equal / permutation checks and the radius;
//! - `sortlab bench`: benchmark suites ([`mod@bench`]) with a table and JSON Lines output;
//! - `sortlab reproduce`: a source paper's experiment as Markdown tables, SVG figures
//!   ([`plot`]) and JSON Lines rows.
//!
//! Exit codes: [`EXIT_OK`] (0), [`EXIT_CHECK_FAILED`] (1, a check ran and failed),
//! [`EXIT_ERROR`] (2, bad usage or input: `sortlab: error: ...` on stderr). Output files are
//! written atomically ([`io::write_atomic`]): a failed command leaves no partial file and an
//! existing output untouched.
//!
//! Adding a sort is one entry in `sortlab_registry::ALGOS` (the registry crate's docs have the
//! recipe); adding a bench suite is a file in `bench/suites/`, one arm in [`bench::run`] and a
//! name in [`bench::SUITES`].
#![deny(missing_docs)]

pub mod algo;
pub mod args;
mod backend;
pub mod bench;
pub mod cmd;
pub mod engine;
mod error;
pub mod io;
mod key;
pub mod plot;
pub mod progress;

use std::ffi::OsString;

use clap::Parser;

pub use args::Cli;
pub use error::CliError;
pub use key::{parse_key_type, CliKey};

#[doc(hidden)]
pub mod __private {
    pub use sortlab_primitives::KeyType;
}

/// Exit code of a command that succeeded (and of a check that passed).
pub const EXIT_OK: u8 = 0;
/// Exit code of `sortlab check` when the check ran and failed.
pub const EXIT_CHECK_FAILED: u8 = 1;
/// Exit code of bad usage or bad input (unknown name, unreadable file, bad length, ...).
pub const EXIT_ERROR: u8 = 2;

/// How a command that ran without error ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Done; exit 0.
    Ok,
    /// A check ran and failed; exit 1.
    CheckFailed,
}

/// Runs a parsed command line.
pub fn execute(cli: &Cli) -> Result<Status, CliError> {
    use args::Command;
    match &cli.command {
        Command::Info => cmd::info::run().map(|()| Status::Ok),
        Command::List => {
            cmd::list::run();
            Ok(Status::Ok)
        }
        Command::Gen(a) => cmd::gen::run(a).map(|()| Status::Ok),
        Command::Sort(a) => cmd::sort::run(a).map(|()| Status::Ok),
        Command::Check(a) => cmd::check::run(a).map(|v| match v {
            cmd::check::Verdict::Pass => Status::Ok,
            cmd::check::Verdict::Fail(_) => Status::CheckFailed,
        }),
        Command::Bench(a) => bench::run(a).map(|()| Status::Ok),
        Command::Reproduce(a) => cmd::reproduce::run(a).map(|()| Status::Ok),
    }
}

/// Parses `args` (program name first), runs the command, reports any error on stderr as
/// `sortlab: error: ...`, and returns the process exit code.
pub fn run<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => return report_clap_error(&e),
    };
    match execute(&cli) {
        Ok(Status::Ok) => EXIT_OK,
        Ok(Status::CheckFailed) => EXIT_CHECK_FAILED,
        Err(e) => {
            cmd::note(&format!("sortlab: error: {e}"));
            EXIT_ERROR
        }
    }
}

fn report_clap_error(e: &clap::Error) -> u8 {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            if e.use_stderr() {
                EXIT_ERROR
            } else {
                EXIT_OK
            }
        }
        _ => {
            let text = e.render().to_string();
            let text = text.strip_prefix("error: ").unwrap_or(&text).trim_end();
            cmd::note(&format!("sortlab: error: {text}"));
            EXIT_ERROR
        }
    }
}
