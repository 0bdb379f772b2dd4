//! Progress bars on stderr, shown only where they help: stderr is a terminal and the work is
//! large enough to take about a second or more.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Work below this many bytes finishes well within a second: no bar.
pub const MIN_BYTES: u64 = 32 << 20;

fn visible(bytes: u64) -> bool {
    bytes >= MIN_BYTES && std::io::stderr().is_terminal()
}

/// A bar counting `total` bytes, labelled `msg`; hidden for small work or a non-terminal.
pub fn bytes_bar(total: u64, msg: &str) -> ProgressBar {
    if !visible(total) {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template(
        "{msg} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ");
    bar.set_style(style);
    bar.set_message(msg.to_string());
    bar
}

/// A spinner for one step of unknown length over `bytes` bytes of data (generating, sorting),
/// labelled `msg`; hidden for small work or a non-terminal. Call `finish_and_clear` when done.
pub fn spinner(bytes: u64, msg: &str) -> ProgressBar {
    if !visible(bytes) {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
        .unwrap_or_else(|_| ProgressStyle::default_spinner());
    bar.set_style(style);
    bar.set_message(msg.to_string());
    bar.enable_steady_tick(Duration::from_millis(100));
    bar
}
