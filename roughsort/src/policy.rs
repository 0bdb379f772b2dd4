//! Launch policies of the roughsort kernels: plain structs that become `-D` defines.

use sortlab_primitives::{Defines, Policy};

/// Radius kernels: 256 threads × 16 keys, tiles of 4096 keys for every key type. The tile is
/// also the reach of the one-pass radius (`radius_halo` resolves every pair whose left end lies
/// at most one tile before the right end's tile), so it is at least the largest `k` the
/// benchmarks target (4096); 256 × 16 keeps the 8-byte kernels' shared memory (two padded tiles,
/// about 70 KiB for `radius_halo`) within three blocks per SM. Larger tiles of 4-byte keys
/// measured slower (README.md).
const RADIUS_BLOCK_THREADS: u32 = 256;
const RADIUS_ITEMS: u32 = 16;
/// Chunks of 32 × 8 = 256 keys: the granularity of the far path's chunk extremes and of
/// `is_k_sorted`'s prefix maxima; the chunk arrays (two keys per 256) and their scans stay small.
const RADIUS_CHUNK_ITEMS: u32 = 8;
/// Resident `radius_halo` blocks per SM that its registers are capped for: 4-byte keys 6 (40
/// registers a thread, no spills; the shared memory, 2 padded tiles, allows 6 too): the kernel
/// is bound by its ALU work (fewer blocks with more registers measured slower); 8-byte keys 3 (their shared memory allows no more).
const RADIUS_MIN_BLOCKS_4B: u32 = 6;
const RADIUS_MIN_BLOCKS_8B: u32 = 3;
/// The wide radius pass, tried when some inversion spans more than the default tile: 512
/// threads x 32 keys (4-byte keys; tiles of 16,384) or x 16 (8-byte keys; 8192), one block per SM
/// (two padded tiles take 132 KiB of shared memory; 103 registers a thread for 4-byte keys, no
/// spills). Its one read replaces the far path's five passes for radii up to its tile (H100,
/// 2^28 u32, k = 8192: the radius 3.66 -> 1.10 ms). (`radius_halo` scans
/// its warps' totals across the lanes of one warp, so a block has fewer than 32 warps.)
const RADIUS_WIDE_THREADS: u32 = 512;
const RADIUS_WIDE_ITEMS_4B: u32 = 32;
const RADIUS_WIDE_ITEMS_8B: u32 = 16;

/// Launch policy of `radius.cu` (defines `BLOCK_THREADS`, `ITEMS_PER_THREAD`, `CHUNK_ITEMS`,
/// `HALO_MIN_BLOCKS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RadiusPolicy {
    /// Threads per block (a power of two).
    pub block_threads: u32,
    /// Keys per thread; a tile is `block_threads * items_per_thread` keys.
    pub items_per_thread: u32,
    /// Keys per lane of a chunk; a chunk is `32 * chunk_items` keys and divides the tile.
    pub chunk_items: u32,
    /// Resident `radius_halo` blocks per SM that its registers are capped for.
    pub min_blocks: u32,
}

impl RadiusPolicy {
    /// The policy for keys of `key_size` bytes (the same on every device sortlab supports).
    pub fn for_key(key_size: usize) -> Self {
        RadiusPolicy {
            block_threads: RADIUS_BLOCK_THREADS,
            items_per_thread: RADIUS_ITEMS,
            chunk_items: RADIUS_CHUNK_ITEMS,
            min_blocks: if key_size <= 4 {
                RADIUS_MIN_BLOCKS_4B
            } else {
                RADIUS_MIN_BLOCKS_8B
            },
        }
    }

    /// The wide pass's policy for keys of `key_size` bytes: tiles four (4-byte keys) or two (8-byte keys) times the default's, so that one read
    /// of the keys finds radii up to the wide tile when the default pass finds an inversion
    /// longer than its tile.
    pub fn wide_for_key(key_size: usize) -> Self {
        RadiusPolicy {
            block_threads: RADIUS_WIDE_THREADS,
            items_per_thread: if key_size <= 4 {
                RADIUS_WIDE_ITEMS_4B
            } else {
                RADIUS_WIDE_ITEMS_8B
            },
            chunk_items: RADIUS_CHUNK_ITEMS,
            min_blocks: 1,
        }
    }

    /// Keys per tile.
    pub fn tile(&self) -> usize {
        self.block_threads as usize * self.items_per_thread as usize
    }

    /// Keys per chunk.
    pub fn chunk(&self) -> usize {
        32 * self.chunk_items as usize
    }
}

impl Policy for RadiusPolicy {
    fn defines(&self) -> Defines {
        Defines::new()
            .set("BLOCK_THREADS", self.block_threads)
            .set("ITEMS_PER_THREAD", self.items_per_thread)
            .set("CHUNK_ITEMS", self.chunk_items)
            .set("HALO_MIN_BLOCKS", self.min_blocks)
    }
}

/// Sort kernels. The window (`sort_windows`) holds `block_threads * items_per_thread` keys in
/// registers and shared memory: 8192 when a key and its value take at most 8 bytes (32 to 66 KiB
/// of shared memory), 256 × 16 = 4096 for 12- and 16-byte pairs (about 52 KiB). 4-byte keys
/// alone take 256 threads × 32 keys (each thread's sorting network in registers is longer, and
/// fewer of its compare-exchanges cross lanes), except for radii below 32, whose runs of 2 × 16
/// a thread's 16 keys already hold (512 × 16); pairs and 8-byte keys take 512 × 16 (32 keys
/// would take too many registers). The global merge tile is a quarter of the window, so that it
/// divides every run the merge passes see (at least a quarter of the window, see `sort/mod.rs`):
/// 128 × 16 for 4-byte keys alone (16 keys a thread halve the merge-path searches per key),
/// else 256 × 8 or 256 × 4. Each shape is the fastest measured (the sweeps are in README.md).
const SORT_SMALL_THREADS: u32 = 512;
const SORT_LARGE_THREADS: u32 = 256;
const SORT_ITEMS: u32 = 16;
const SORT_KEY_THREADS: u32 = 256;
const SORT_KEY_ITEMS: u32 = 32;
const MERGE_THREADS: u32 = 256;
const MERGE_KEY_THREADS: u32 = 128;
/// 4-byte keys alone: registers capped for 4 resident windows of 256 × 32 per SM (64 a thread;
/// the shared memory allows 6), or 3 of 512 × 16 for radii below 32 (42 a thread; the shared
/// memory allows 3 too). 8-byte keys and 4-byte pairs: see below; 12- and 16-byte pairs: no cap.
const SORT_MIN_BLOCKS_4B_KEYS: u32 = 4;
const SORT_MIN_BLOCKS_4B_KEYS_SMALL_K: u32 = 3;
/// 8-byte keys alone and 4-byte pairs (512 × 16): registers capped for 2 resident windows (64
/// a thread, no spills; the shared memory allows 3). Uncapped, the branch-free window merges
/// took 117 registers (u64 keys, sort_runs_chained) and 72 (u32 pairs, sort_windows): one
/// window per SM.
const SORT_MIN_BLOCKS_8B: u32 = 2;
/// Radii below this sort 4-byte keys alone with 16 keys a thread.
const SORT_SMALL_K: usize = 32;

/// Launch policy of `sort.cu` (defines `BLOCK_THREADS`, `ITEMS_PER_THREAD`, `MERGE_THREADS`,
/// `MERGE_ITEMS`, `WINDOW_MIN_BLOCKS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SortPolicy {
    /// Threads of the window kernel (a multiple of 32).
    pub block_threads: u32,
    /// Keys per thread of the window kernel (a power of two).
    pub items_per_thread: u32,
    /// Threads of the merge kernels (a multiple of 32).
    pub merge_threads: u32,
    /// Keys per thread of the merge kernel.
    pub merge_items: u32,
    /// Resident window blocks per SM that the window kernel's registers are capped for.
    pub window_min_blocks: u32,
    /// Radii from an eighth to half a window sort in one chained pass (`sort_runs_chained`,
    /// keys alone) instead of a window sort and a global offset merge pass.
    pub chained: bool,
}

impl SortPolicy {
    /// The policy for keys of `key_size` bytes with values of `value_size` bytes (0 for keys
    /// only) and radius `k` (the same on every device sortlab supports). Every policy's window is 8192 keys when key and value take at most 8 bytes, else
    /// 4096, whatever `k`.
    pub fn for_sizes(key_size: usize, value_size: usize, k: usize) -> Self {
        let (block_threads, items_per_thread, window_min_blocks, merge_threads) =
            match (key_size, value_size) {
                (4, 0) if k < SORT_SMALL_K => (
                    SORT_SMALL_THREADS,
                    SORT_ITEMS,
                    SORT_MIN_BLOCKS_4B_KEYS_SMALL_K,
                    MERGE_KEY_THREADS,
                ),
                (4, 0) => (
                    SORT_KEY_THREADS,
                    SORT_KEY_ITEMS,
                    SORT_MIN_BLOCKS_4B_KEYS,
                    MERGE_KEY_THREADS,
                ),
                _ if key_size + value_size <= 8 => (
                    SORT_SMALL_THREADS,
                    SORT_ITEMS,
                    SORT_MIN_BLOCKS_8B,
                    MERGE_THREADS,
                ),
                _ => (SORT_LARGE_THREADS, SORT_ITEMS, 1, MERGE_THREADS),
            };
        let window = block_threads * items_per_thread;
        SortPolicy {
            block_threads,
            items_per_thread,
            merge_threads,
            merge_items: window / 4 / merge_threads,
            window_min_blocks,
            chained: value_size == 0,
        }
    }

    /// Keys per window.
    pub fn window(&self) -> usize {
        self.block_threads as usize * self.items_per_thread as usize
    }

    /// Keys per merge tile.
    pub fn merge_tile(&self) -> usize {
        self.merge_threads as usize * self.merge_items as usize
    }
}

impl Policy for SortPolicy {
    fn defines(&self) -> Defines {
        Defines::new()
            .set("BLOCK_THREADS", self.block_threads)
            .set("ITEMS_PER_THREAD", self.items_per_thread)
            .set("MERGE_THREADS", self.merge_threads)
            .set("MERGE_ITEMS", self.merge_items)
            .set("WINDOW_MIN_BLOCKS", self.window_min_blocks)
    }
}

/// Shared-memory slots of `len` padded elements of `elem_size` bytes: one slot of padding per
/// 128 bytes of 4-byte elements or per 16 eight-byte elements, as `pad()` in the kernels.
pub(crate) fn padded(len: usize, elem_size: usize) -> usize {
    len + (len >> if elem_size == 4 { 5 } else { 4 })
}
