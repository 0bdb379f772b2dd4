//! The `sortlab` command; the logic lives in the `sortlab_cli` library.
use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(sortlab_cli::run(std::env::args_os()))
}
