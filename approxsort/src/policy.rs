//! [`ApproxPolicy`]: tile sizes and thresholds of the approximate sort and its refinement.

use sortlab_primitives::{Defines, Gpu, Policy};

/// Launch policy and thresholds of the kernels ([`crate::SOURCE`]) (defines `BLOCK_THREADS`, `ITEMS_PER_THREAD`,
/// `BLOCKS_PER_SM`, `WIDE_THREADS`, `WIDE_ITEMS`, `WIDE_BLOCKS_PER_SM`, `REDUCE_THREADS`,
/// `REDUCE_UNROLL`, `SORT_THREADS`, `SORT_ITEMS`, `SORT_RADIX_BITS`; the other fields are
/// host-side).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ApproxPolicy {
    /// Count and scatter kernels: threads per block (a power of two, 64 to 1024).
    pub block_threads: u32,
    /// Count and scatter kernels: keys per thread (a multiple of 4 for 4-byte keys, of 2 for
    /// 8-byte keys); a tile is `block_threads * items_per_thread` keys, at most 65,535 (16-bit
    /// counters).
    pub items_per_thread: u32,
    /// Count and scatter kernels: resident blocks per multiprocessor the persistent grid is
    /// sized for (fewer when the interval counts take more shared memory); also the kernels'
    /// launch bounds (registers for this many blocks).
    pub blocks_per_sm: u32,
    /// Up to this many intervals the scatter is one staged pass; beyond, the wide scatter
    /// where it fits, else a staged coarse pass into about `sqrt(intervals)` bins, then a
    /// staged fine pass.
    pub direct_max_intervals: usize,
    /// The most coarse bins of the two-pass scatters.
    pub coarse_max: usize,
    /// Wide scatter (more than [`ApproxPolicy::direct_max_intervals`] intervals, up to
    /// [`ApproxPolicy::wide_max_intervals`] when its shared memory fits): threads per block.
    pub wide_threads: u32,
    /// Wide scatter: keys per thread (a multiple of the keys per 16-byte vector); its tile,
    /// `wide_threads * wide_items` keys, is staged in shared memory beside two words per
    /// interval.
    pub wide_items: u32,
    /// Wide scatter: resident blocks per multiprocessor (its launch bounds; fewer when the
    /// shared memory does not fit).
    pub wide_blocks_per_sm: u32,
    /// The most intervals of the wide scatter (0: never; more take the staged two-pass scatter
    /// of small tiles, as do interval counts whose two words each and tile exceed shared
    /// memory).
    pub wide_max_intervals: usize,
    /// Up to this many intervals the wide scatter is one pass; beyond, a coarse pass into about
    /// `sqrt(intervals)` bins, then a fine pass.
    pub wide_one_pass_max: usize,
    /// Min-max and helper kernels: threads per block (a power of two).
    pub reduce_threads: u32,
    /// Min-max: 16-byte vector loads each thread keeps in flight.
    pub reduce_unroll: u32,
    /// Min-max and helper kernels: blocks per multiprocessor.
    pub reduce_blocks_per_sm: u32,
    /// Refine, block-sorted segments: threads per block (a power of two).
    pub sort_threads: u32,
    /// Refine, block-sorted segments: keys per thread. Segments of 65 to
    /// `sort_threads * sort_items` keys are radix-sorted by one block.
    pub sort_items: u32,
    /// Refine, block-sorted segments: radix digit width (1 to 8).
    pub sort_radix_bits: u32,
    /// The most intervals the scatter counts in shared memory (a 16-bit counter each, when
    /// they also fit the device's shared memory); more intervals take the global-atomic path.
    /// The count kernel keeps a `u32` per interval, and uses global atomics past what fits.
    pub shared_max_intervals: usize,
    /// Inputs of at least this many keys into equal-width intervals, on the wide two-pass
    /// scatter, take their coarse bins from the keys' leading bits, counted with the min and
    /// max, and count the intervals in the coarse pass: one pass over the keys fewer, where the
    /// keys spread over enough leading bits (decided on the device; else the count pass runs).
    /// `usize::MAX`: never.
    pub lead_min: usize,
    /// Refine: keys per sub-interval a bucket pass aims for (segments of at most 64 keys are
    /// sorted by one warp, of at most `sort_threads * sort_items` by one block).
    pub sub_target: usize,
    /// Refine: the most sub-intervals one segment is split into in one bucket pass.
    pub sub_max: usize,
}

/// Count/scatter tile: 4096 keys, 1024 threads x 4 when a key and its value take at most 8
/// bytes (512 x 4 otherwise: the staged tile lives in shared memory), 2 blocks per SM. A tile's
/// runs per bin make the writes coalesced (4096 keys over 100 coarse bins: runs of about 40).
/// H100, 2^28 `u32` keys, 10,000 intervals, two staged passes: 4.89 ms (512 x 8: 5.11; README.md).
const BLOCK_THREADS_SMALL: u32 = 1024;
const BLOCK_THREADS_LARGE: u32 = 512;
const ITEMS_PER_THREAD: u32 = 4;
const BLOCKS_PER_SM: u32 = 2;
/// Up to 512 intervals, one staged pass (runs of 8 keys or more at 4096 keys a tile); more
/// take two passes over about sqrt(intervals) coarse bins (at most 1024) each.
const DIRECT_MAX_INTERVALS: usize = 512;
const COARSE_MAX: usize = 1024;
/// Wide scatter: 1024 threads x 16 keys when a key and its value take at most 8 bytes, x 8
/// otherwise, one block per SM (10,000 intervals take 80 KB of counters and cursors). H100, 2^28
/// `u32` pairs, 10,000 intervals: 5.08 ms (1024 x 12: 5.25; README.md).
const WIDE_THREADS: u32 = 1024;
const WIDE_ITEMS_SMALL: u32 = 16;
const WIDE_ITEMS_LARGE: u32 = 8;
/// 4-byte keys alone: 896 x 24 (tiles of 21,504). H100, 2^28 `u32` keys: 2.22 ms (1024 x 16:
/// 2.35; 28 items and more spill; README.md).
const WIDE_THREADS_KEYS_4B: u32 = 896;
const WIDE_ITEMS_KEYS_4B: u32 = 24;
const WIDE_BLOCKS_PER_SM: u32 = 1;
const WIDE_MAX_INTERVALS: usize = 1 << 17;
/// The wide scatter always takes two passes: one pass into 10,000 intervals took 11.4 ms
/// against 3.49 for two (H100, 2^28 `u32` keys; README.md).
const WIDE_ONE_PASS_MAX: usize = 0;
/// The leading-bits coarse bins from 2^23 keys on: H100, 10,000 intervals, 2^22 keys 0.120 ms
/// with against 0.114 without, 2^24 0.249 against 0.264 (README.md).
const LEAD_MIN: usize = 1 << 23;
/// Min-max: as the primitives' fast reduce (256 threads, 4 vectors in flight, 8 blocks/SM).
const REDUCE_THREADS: u32 = 256;
const REDUCE_UNROLL: u32 = 4;
const REDUCE_BLOCKS_PER_SM: u32 = 8;
/// Refine block sort: 256 threads x 8 keys (2048), 6-bit digits (a segment of a bucket pass
/// varies in few bits: 2 or 3 passes).
const SORT_THREADS: u32 = 256;
const SORT_ITEMS: u32 = 8;
const SORT_RADIX_BITS: u32 = 6;
/// The staged passes keep a 16-bit counter per interval in shared memory beside the staged
/// tile, and the count pass a 32-bit count: whatever fits the device decides; this caps it.
const SHARED_MAX_INTERVALS: usize = 1 << 17;
/// Refine: 1536 keys per sub-interval (almost all at most 2048, a block's radix sort of the
/// bits that vary), at most 4096 sub-intervals a segment per pass (16 KiB of counts). H100, 2^28
/// `u32` keys after 10,000 intervals: the sorts 4.7 ms (32 keys a sub-interval, warp sorts:
/// 12.7; README.md).
const SUB_TARGET: usize = 1536;
const SUB_MAX: usize = 4096;

impl ApproxPolicy {
    /// The policy for keys of `key_size` bytes with values of `value_size` bytes (0 for keys
    /// only) on a device of compute capability `cc` (the same on every architecture sortlab
    /// supports, Volta and later, for now).
    pub fn for_arch(key_size: usize, value_size: usize, _cc: (u32, u32)) -> Self {
        ApproxPolicy {
            block_threads: if key_size + value_size <= 8 {
                BLOCK_THREADS_SMALL
            } else {
                BLOCK_THREADS_LARGE
            },
            items_per_thread: ITEMS_PER_THREAD,
            blocks_per_sm: BLOCKS_PER_SM,
            direct_max_intervals: DIRECT_MAX_INTERVALS,
            coarse_max: COARSE_MAX,
            wide_threads: if key_size == 4 && value_size == 0 {
                WIDE_THREADS_KEYS_4B
            } else {
                WIDE_THREADS
            },
            wide_items: if key_size == 4 && value_size == 0 {
                WIDE_ITEMS_KEYS_4B
            } else if key_size == 4 && value_size <= 4 {
                WIDE_ITEMS_SMALL
            } else {
                WIDE_ITEMS_LARGE
            },
            wide_blocks_per_sm: WIDE_BLOCKS_PER_SM,
            wide_max_intervals: WIDE_MAX_INTERVALS,
            wide_one_pass_max: WIDE_ONE_PASS_MAX,
            reduce_threads: REDUCE_THREADS,
            reduce_unroll: REDUCE_UNROLL,
            reduce_blocks_per_sm: REDUCE_BLOCKS_PER_SM,
            sort_threads: SORT_THREADS,
            sort_items: SORT_ITEMS,
            sort_radix_bits: SORT_RADIX_BITS,
            shared_max_intervals: SHARED_MAX_INTERVALS,
            lead_min: LEAD_MIN,
            sub_target: SUB_TARGET,
            sub_max: SUB_MAX,
        }
    }

    /// The policy for keys of `key_size` bytes and values of `value_size` bytes (0 for keys
    /// only) on `gpu`.
    pub fn for_device(gpu: &Gpu, key_size: usize, value_size: usize) -> Self {
        Self::for_arch(key_size, value_size, gpu.info().compute_capability)
    }

    /// Keys per count/scatter tile.
    pub fn tile_items(&self) -> usize {
        self.block_threads as usize * self.items_per_thread as usize
    }

    /// Keys per wide-scatter tile.
    pub fn wide_tile(&self) -> usize {
        self.wide_threads as usize * self.wide_items as usize
    }

    /// Keys per block-sorted segment, at most.
    pub fn sort_tile(&self) -> usize {
        self.sort_threads as usize * self.sort_items as usize
    }
}

impl Policy for ApproxPolicy {
    fn defines(&self) -> Defines {
        Defines::new()
            .set("BLOCK_THREADS", self.block_threads)
            .set("ITEMS_PER_THREAD", self.items_per_thread)
            .set("BLOCKS_PER_SM", self.blocks_per_sm)
            .set("WIDE_THREADS", self.wide_threads)
            .set("WIDE_ITEMS", self.wide_items)
            .set("WIDE_BLOCKS_PER_SM", self.wide_blocks_per_sm)
            .set("REDUCE_THREADS", self.reduce_threads)
            .set("REDUCE_UNROLL", self.reduce_unroll)
            .set("SORT_THREADS", self.sort_threads)
            .set("SORT_ITEMS", self.sort_items)
            .set("SORT_RADIX_BITS", self.sort_radix_bits)
    }
}
