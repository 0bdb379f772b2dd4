//! [`ScanPolicy`]: block size and items per thread per variant.

use super::variant::{ScanVariant, DOUBLE_BUFFERED_MAX, NAIVE_MAX, WORK_EFFICIENT_MAX};
use crate::runtime::{Defines, Gpu, Policy};

/// Launch policy of the scan kernels (defines `BLOCK_THREADS` and `ITEMS_PER_THREAD` of
/// `scan.cu`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanPolicy {
    /// Threads per block.
    pub block_threads: u32,
    /// [`ScanVariant::Fast`]: keys per thread, scanned in place in shared memory (odd: no bank
    /// conflicts when each thread reads its consecutive keys).
    pub items_per_thread: u32,
    /// [`ScanVariant::Fast`]: resident blocks per multiprocessor the kernel's registers are
    /// capped for (`__launch_bounds__`; 0 leaves the compiler free).
    pub min_blocks: u32,
}

/// Hierarchical: 512 threads, tiles of 1024 keys; three levels reach 2^30 keys.
const HIERARCHICAL_BLOCK_THREADS: u32 = 512;
/// Fast: 4-byte keys 256 threads × 31 keys (tiles of 7936, 31 KiB of shared memory), 8-byte
/// keys 256 × 23 (tiles of 5888, 46 KiB). Throughput grows with the tile, since each block scans
/// one tile and waits on its look-back. Measured on an H100 (2026-11-24, `examples/scan_tune.rs`,
/// exclusive sum, whole call, median of 15; a device-to-device copy of the same bytes 0.713 ms),
/// with whole tiles moved by bulk copies (the kernel's FAST_BULK) and 32 registers a thread: u32
/// at 2^28 128×47 0.876 ms, 128×55 0.867, 128×63 0.867, 192×39 0.845, 256×23 0.869, 256×27
/// 0.844, **256×31 0.843**, 256×35 0.917, 256×39 0.850, 256×47 0.859, 384×23 0.873, 512×19
/// 0.900; u64 at 2^27 256×15 1.019, 256×19 0.982, 128×31 1.011, 128×39 0.964, 512×11 0.976,
/// **256×23 0.953**. With the register cap below and bulk copies in reverse too (input and
/// output aligned): u32 256×31 forward 0.846 ms, reverse 0.844 (0.899 before). Before the bulk copies (each thread's keys held in 80 registers across the
/// look-back) the best u32 tile was 128×55 at 0.900 ms. Earlier, on an H200 at 2^30 bytes: u32
/// 256×15 2.38 TB/s, 256×23 2.68, 128×31 2.78. A backoff sleep in the look-back spin made no
/// difference.
const FAST_BLOCK_THREADS_4B: u32 = 256;
const FAST_ITEMS_4B: u32 = 31;
const FAST_BLOCK_THREADS_8B: u32 = 256;
const FAST_ITEMS_8B: u32 = 23;
/// Fast, 4-byte keys: registers capped for 7 blocks of 256 (32 a thread), the residency the 31 KiB
/// tiles allow, so that the compiler does not trade blocks for instruction-level parallelism
/// (uncapped it took 64). 8-byte keys: no cap (their shared memory allows 4 blocks, 64 registers).
/// Tried on an H100 (2026-11-24, `examples/scan_tune.rs`, u32 at 2^28, whole call): a variant
/// that loads full forward tiles as 16-byte vectors and scans them with warp shuffles (no
/// shared-memory transposition) needed 80 registers and ran at best 0.963 ms (128 × 32, capped
/// for 8 blocks) against the then kernel's 0.945 ms at 128 × 31, so it was not kept; capping
/// that kernel's registers (its keys then in registers) only added spills.
const FAST_MIN_BLOCKS_4B: u32 = 7;
const FAST_MIN_BLOCKS_8B: u32 = 0;

impl ScanPolicy {
    /// The policy of `variant` for keys of `key_size` bytes on a device of compute capability
    /// `cc` (the same on every architecture sortlab supports, Volta and later, for now). The
    /// one-warp and one-block variants' sizes are their limits ([`ScanVariant::max_len`]).
    pub fn for_variant(variant: ScanVariant, key_size: usize, _cc: (u32, u32)) -> Self {
        let (block_threads, items_per_thread) = match variant {
            ScanVariant::Naive => (NAIVE_MAX as u32, 1),
            ScanVariant::DoubleBuffered => (DOUBLE_BUFFERED_MAX as u32, 1),
            ScanVariant::WorkEfficient => ((WORK_EFFICIENT_MAX / 2) as u32, 2),
            ScanVariant::Hierarchical => (HIERARCHICAL_BLOCK_THREADS, 2),
            ScanVariant::Fast if key_size <= 4 => (FAST_BLOCK_THREADS_4B, FAST_ITEMS_4B),
            ScanVariant::Fast => (FAST_BLOCK_THREADS_8B, FAST_ITEMS_8B),
        };
        ScanPolicy {
            block_threads,
            items_per_thread,
            min_blocks: match variant {
                ScanVariant::Fast if key_size <= 4 => FAST_MIN_BLOCKS_4B,
                ScanVariant::Fast => FAST_MIN_BLOCKS_8B,
                _ => 0,
            },
        }
    }

    /// The policy of `variant` for keys of `key_size` bytes on `gpu`.
    pub fn for_device(gpu: &Gpu, variant: ScanVariant, key_size: usize) -> Self {
        Self::for_variant(variant, key_size, gpu.info().compute_capability)
    }

    /// Keys per tile (per block and step) of the block-wide kernels.
    pub fn tile_items(&self) -> usize {
        self.block_threads as usize * self.items_per_thread as usize
    }
}

impl Policy for ScanPolicy {
    fn defines(&self) -> Defines {
        Defines::new()
            .set("BLOCK_THREADS", self.block_threads)
            .set("ITEMS_PER_THREAD", self.items_per_thread)
            .set("FAST_MIN_BLOCKS", self.min_blocks)
    }
}
