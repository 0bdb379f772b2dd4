//! [`ReducePolicy`]: block size and loads in flight per variant.

use super::variant::ReduceVariant;
use crate::runtime::{Defines, Policy};

/// Launch policy of the reduction kernels (defines `BLOCK_THREADS` and `UNROLL` of
/// `reduce.cu`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReducePolicy {
    /// Threads per block: a power of two from 64 to 1024.
    pub block_threads: u32,
    /// [`ReduceVariant::Fast`]: 16-byte vectors each thread has in flight per round.
    pub unroll: u32,
    /// [`ReduceVariant::Fast`]: resident blocks per multiprocessor the grid is sized for.
    pub blocks_per_sm: u32,
}

/// Threads per block of the classic kernels: Harris's notes measure with 128 to 512; 256 keeps
/// eight blocks resident per multiprocessor on every architecture since Volta.
const CLASSIC_BLOCK_THREADS: u32 = 256;
/// Fast reduce: 256 threads, 8 blocks per multiprocessor (2048 threads, full occupancy), 4
/// vector loads in flight per thread (64 bytes): 128 KiB in flight per multiprocessor, well over
/// the bandwidth-latency product of an H100/H200 (about 22 KiB per SM); it reads at the copy rate
/// (more in flight measured no faster: `primitives/README.md`).
const FAST_BLOCK_THREADS: u32 = 256;
const FAST_UNROLL: u32 = 4;
const FAST_BLOCKS_PER_SM: u32 = 8;

impl ReducePolicy {
    /// The policy of `variant`: one for every key width and every architecture sortlab supports
    /// (Volta and later), since the fast kernel reads 16-byte vectors whatever the key.
    pub fn for_variant(variant: ReduceVariant) -> Self {
        match variant {
            ReduceVariant::Fast => ReducePolicy {
                block_threads: FAST_BLOCK_THREADS,
                unroll: FAST_UNROLL,
                blocks_per_sm: FAST_BLOCKS_PER_SM,
            },
            _ => ReducePolicy {
                block_threads: CLASSIC_BLOCK_THREADS,
                unroll: 1,
                blocks_per_sm: 1,
            },
        }
    }
}

impl Policy for ReducePolicy {
    fn defines(&self) -> Defines {
        Defines::new()
            .set("BLOCK_THREADS", self.block_threads)
            .set("UNROLL", self.unroll)
    }
}
