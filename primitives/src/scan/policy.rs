//! [`ScanPolicy`]: block size and items per thread per variant.

use super::variant::{ScanVariant, DOUBLE_BUFFERED_MAX, NAIVE_MAX, WORK_EFFICIENT_MAX};
use crate::runtime::{Defines, Policy};

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
/// one tile and waits on its look-back: the fastest tiles of the sweep in `primitives/README.md`
/// (H100, u32 at 2^28: 0.843 ms, 0.84 of a copy).
const FAST_BLOCK_THREADS_4B: u32 = 256;
const FAST_ITEMS_4B: u32 = 31;
const FAST_BLOCK_THREADS_8B: u32 = 256;
const FAST_ITEMS_8B: u32 = 23;
/// Fast, 4-byte keys: registers capped for 7 blocks of 256 (32 a thread), the residency the 31 KiB
/// tiles allow, so that the compiler does not trade blocks for instruction-level parallelism
/// (uncapped it took 64). 8-byte keys: no cap (their shared memory allows 4 blocks, 64 registers).
const FAST_MIN_BLOCKS_4B: u32 = 7;
const FAST_MIN_BLOCKS_8B: u32 = 0;

impl ScanPolicy {
    /// The policy of `variant` for keys of `key_size` bytes (one for every architecture sortlab
    /// supports, Volta and later). The one-warp and one-block variants' sizes are their limits
    /// ([`ScanVariant::max_len`]).
    pub fn for_variant(variant: ScanVariant, key_size: usize) -> Self {
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
