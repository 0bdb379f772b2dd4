//! [`PHASES_ENV`]: the per-phase kernel times of an approximate sort or a refinement (a
//! diagnostic).

use std::sync::OnceLock;

use sortlab_primitives::{Gpu, GpuTimer};

/// Environment variable that makes the approximate sort and `refine` print the kernel time of
/// each phase to stderr (a diagnostic: it synchronises after every phase).
pub const PHASES_ENV: &str = "SORTLAB_APPROX_PHASES";

/// Per-phase kernel timing when [`PHASES_ENV`] is `1`.
pub(crate) struct Phases {
    timer: Option<GpuTimer>,
    what: &'static str,
}

impl Phases {
    pub(crate) fn new(gpu: &Gpu, what: &'static str) -> Self {
        static ON: OnceLock<bool> = OnceLock::new();
        let on = *ON.get_or_init(|| std::env::var_os(PHASES_ENV).is_some_and(|v| v == "1"));
        let timer = if on { GpuTimer::new(gpu).ok() } else { None };
        if let Some(t) = &timer {
            let _ = t.start();
        }
        Phases { timer, what }
    }
    pub(crate) fn mark(&mut self, phase: &str) {
        if let Some(t) = &self.timer {
            if let Ok(ms) = t.stop() {
                eprintln!("[{}] {phase}: {ms:.4} ms", self.what);
            }
            let _ = t.start();
        }
    }
}
