//! One module per subcommand.

pub mod arrays;
pub mod check;
pub mod gen;
pub mod info;
pub mod list;
pub mod reproduce;
pub mod scaled;
pub mod sort;

use std::io::Write;

/// Writes a line to stdout. A closed stdout (`sortlab bench | head`) is not an error worth
/// failing a run for, and must not panic as `println!` would.
pub(crate) fn say(line: &str) {
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}

/// Writes a line to stderr (reports: engine, timing, notes), ignoring a closed stderr.
pub(crate) fn note(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Milliseconds of a duration.
pub(crate) fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Parses an input pattern name; the error lists the known patterns.
pub(crate) fn parse_pattern(s: &str) -> Result<crate::backend::patterns::Pattern, crate::CliError> {
    s.parse().map_err(
        |e: <crate::backend::patterns::Pattern as std::str::FromStr>::Err| {
            crate::CliError::UnknownPattern {
                message: e.to_string(),
            }
        },
    )
}
