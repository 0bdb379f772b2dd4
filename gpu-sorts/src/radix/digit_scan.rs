//! The exclusive scan of per-tile digit counts shared by the classic variants
//! (`digit_scan.cu`).

use sortlab_primitives::{Defines, DevicePtr, Gpu, KernelArgs, KernelSource, LaunchConfig, Result};

/// The scan kernels.
pub const DIGIT_SCAN_SOURCE: KernelSource =
    KernelSource::new("digit_scan.cu", include_str!("digit_scan.cu"));

/// Threads per block of the scan kernels.
const SCAN_THREADS: u32 = 256;
/// Counts per thread: chunks of 2048 counts.
const SCAN_ITEMS: u32 = 8;
/// Counts per chunk.
pub(crate) const SCAN_CHUNK: usize = (SCAN_THREADS * SCAN_ITEMS) as usize;

/// The defines of `digit_scan.cu`.
pub(crate) fn defines() -> Defines {
    Defines::new()
        .set("SCAN_THREADS", SCAN_THREADS)
        .set("SCAN_ITEMS", SCAN_ITEMS)
}

/// Chunk totals the scan of `m` counts needs (u64 words of scratch).
pub(crate) fn totals_len(m: usize) -> usize {
    m.div_ceil(SCAN_CHUNK)
}

/// Scans the `m` u64 counts at `data` in place (exclusive), with `totals_len(m)` u64 words of
/// scratch at `totals`.
pub(crate) fn scan(gpu: &Gpu, data: DevicePtr<u64>, m: u64, totals: DevicePtr<u64>) -> Result<()> {
    let module = gpu.module(&DIGIT_SCAN_SOURCE, &defines())?;
    let chunks = m.div_ceil(SCAN_CHUNK as u64);
    let cfg = LaunchConfig::linear(gpu.grid_blocks(chunks as usize), SCAN_THREADS);
    let mut args = KernelArgs::new();
    args.ptr(data).push(m).ptr(totals);
    // SAFETY: arguments match `scan_reduce(const u64*, u64, u64*)`; `data` holds m words and
    // `totals` one per chunk; the grid strides over chunks.
    unsafe { module.kernel("scan_reduce")?.launch(cfg, &args)? };
    let mut args = KernelArgs::new();
    args.ptr(totals).push(chunks);
    // SAFETY: arguments match `scan_chunk_totals(u64*, u64)`; `totals` holds `chunks` words.
    unsafe {
        module
            .kernel("scan_chunk_totals")?
            .launch(LaunchConfig::linear(1, SCAN_THREADS), &args)?
    };
    let mut args = KernelArgs::new();
    args.ptr(data).push(m).ptr(totals);
    // SAFETY: arguments match `scan_apply(u64*, u64, const u64*)`; sizes as above.
    unsafe { module.kernel("scan_apply")?.launch(cfg, &args) }
}
