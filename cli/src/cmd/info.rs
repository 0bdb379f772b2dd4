//! `sortlab info`: the GPU, NVRTC and the CPU engine.

use sortlab_primitives::{runtime, Error};

use super::say;
use crate::engine::{cpu_model, open_gpu};
use crate::error::CliError;

/// Prints what this machine offers. Never fails for want of a GPU: without one it says so and
/// that the CPU engine will be used.
pub fn run() -> Result<(), CliError> {
    match open_gpu() {
        Ok(gpu) => {
            let i = gpu.info();
            let (major, minor) = i.compute_capability;
            say(&format!("GPU {}: {}", i.ordinal, i.name));
            say(&format!(
                "  compute capability: {major}.{minor} ({})",
                i.arch()
            ));
            say(&format!("  memory: {:.1} GiB", gib(i.total_memory)));
            say(&format!("  multiprocessors: {}", i.multiprocessors));
            say(&format!(
                "  L2 cache: {:.1} MiB",
                i.l2_bytes as f64 / (1 << 20) as f64
            ));
            say(&format!(
                "  peak memory bandwidth: {:.0} GB/s (datasheet)",
                i.peak_bandwidth / 1e9
            ));
        }
        Err(reason) => say(&format!(
            "no CUDA device found ({reason}); the CPU engine will be used"
        )),
    }
    say(&nvrtc_line());
    say(&format!(
        "CPU engine: rayon, {} threads on {}",
        rayon::current_num_threads(),
        cpu_model()
    ));
    Ok(())
}

fn nvrtc_line() -> String {
    match runtime::nvrtc_version() {
        Ok((major, minor)) => format!("NVRTC: {major}.{minor}"),
        Err(Error::NvrtcUnavailable { reason }) => format!("NVRTC not available: {reason}"),
        Err(e) => format!("NVRTC not available: {e}"),
    }
}

fn gib(bytes: usize) -> f64 {
    bytes as f64 / (1u64 << 30) as f64
}
