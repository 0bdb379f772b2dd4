//! What both variants share: the block shapes of `quick.cu`, their shared memory, the round
//! limit, the capacities of the device-side lists (worst-case bounds from n alone) and the
//! scratch layout.

use sortlab_primitives::{Defines, Region, ScratchLayout, SortKey};

use super::variant::QuickVariant;

/// Threads of `quick_plan`'s single block.
pub(crate) const PLAN_THREADS: u32 = 1024;
/// u64 words of one sequence record (`Seq` of quick.cu).
pub(crate) const SEQ_WORDS: usize = 7;
/// u64 words of one finishing task (`Task` of quick.cu).
pub(crate) const TASK_WORDS: usize = 3;
/// u64 counter words (`C_*` of quick.cu: two list lengths, tasks, chunks, overflow; padded).
pub(crate) const COUNTER_WORDS: usize = 8;
/// Index of the task count among the counters.
pub(crate) const COUNTER_TASKS: usize = 2;
/// Index of the round's chunk total among the counters.
pub(crate) const COUNTER_CHUNKS: usize = 3;
/// Index of the overflow flag among the counters.
pub(crate) const COUNTER_OVERFLOW: usize = 4;
/// Resident partition blocks per multiprocessor of the grid-strided count and write passes.
pub(crate) const CHUNK_BLOCKS_PER_SM: u32 = 8;
/// Resident finishing blocks per multiprocessor of the grid-strided finishing pass.
pub(crate) const FINISH_BLOCKS_PER_SM: u32 = 2;

/// The block shapes for one key width (both variants use the same).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Shape {
    /// The one-block sort (a power of two, 32 to 1024 threads) and keys per thread.
    pub tile_threads: u32,
    pub tile_items: u32,
    /// The partition passes' block and keys per thread.
    pub chunk_threads: u32,
    pub chunk_items: u32,
}

impl Shape {
    /// The shape for keys of `key_size` bytes: tiles of 512 x 16 keys of 4 bytes (8 of 8
    /// bytes), as the merge sort's tile sort; chunks of 256 x 16 (8) keys.
    pub fn of(key_size: usize) -> Shape {
        let wide = key_size > 4;
        Shape {
            tile_threads: 512,
            tile_items: if wide { 8 } else { 16 },
            chunk_threads: 256,
            chunk_items: if wide { 8 } else { 16 },
        }
    }

    /// Keys one block sorts in shared memory (the phase-1 / phase-2 threshold).
    pub fn tile(&self) -> usize {
        (self.tile_threads * self.tile_items) as usize
    }

    /// Keys of one partition chunk.
    pub fn chunk(&self) -> usize {
        (self.chunk_threads * self.chunk_items) as usize
    }

    /// Bytes of `BlockMergeSort<Bits, Value, tile_threads, tile_items>::TempStorage`
    /// (`sortlab/block/block_merge_sort.cuh`; `quick.cu` asserts it equals the device's sizeof).
    pub fn tile_shared_bytes(&self, key_size: usize, value_size: usize) -> usize {
        let tile = self.tile();
        let shift = if key_size == 4 { 5 } else { 4 };
        let slots = tile
            + if self.tile_items % 2 == 0 {
                tile >> shift
            } else {
                0
            };
        if value_size == 0 {
            return slots * key_size;
        }
        let align = key_size.max(value_size);
        let union = (slots * key_size).max(tile * value_size).div_ceil(align) * align;
        (union + 4 * slots).div_ceil(align) * align
    }

    /// `quick_write`'s staging: one chunk of keys and values.
    pub fn chunk_shared_bytes(&self, key_size: usize, value_size: usize) -> usize {
        self.chunk() * (key_size + value_size)
    }

    /// Every define of the module for keys `K` and values of `value` bytes (`None`: keys only).
    pub fn module_defines<K: SortKey>(&self, value: Option<usize>) -> Defines {
        let v = value.unwrap_or(0);
        Defines::new()
            .key::<K>()
            .value_size(value)
            .set("TILE_THREADS", self.tile_threads)
            .set("TILE_ITEMS", self.tile_items)
            .set("TILE_SMEM_BYTES", self.tile_shared_bytes(K::SIZE, v))
            .set("CHUNK_THREADS", self.chunk_threads)
            .set("CHUNK_ITEMS", self.chunk_items)
            .set("CHUNK_SMEM_BYTES", self.chunk_shared_bytes(K::SIZE, v))
            .set("PLAN_THREADS", PLAN_THREADS)
    }
}

/// ceil(log2(x)) for x >= 1.
fn ceil_log2(x: usize) -> u32 {
    if x <= 1 {
        0
    } else {
        usize::BITS - (x - 1).leading_zeros()
    }
}

/// One sort: n keys of `key_size` bytes (values of `value_size`, 0 for keys only).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan {
    pub n: usize,
    pub key_size: usize,
    pub value_size: usize,
    pub variant: QuickVariant,
    pub shape: Shape,
    /// Partition rounds at most (0: one block sorts the input). Past them every remaining
    /// sequence is finished by one block's merge sort.
    pub rounds: u32,
    /// Sequences one round's list can hold: each is longer than a tile and they are disjoint.
    pub cap_seqs: usize,
    /// Chunks of one round: sum of ceil(len / chunk) <= n / chunk + sequences.
    pub cap_chunks: usize,
    /// Finishing tasks: per processed sequence at most two sort tasks and ceil(E / tile) copy
    /// tasks (E: its keys equal to the pivot, disjoint over all sequences), and no more than n.
    pub cap_tasks: usize,
}

/// Where everything lives in scratch.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    pub keys: Region<u8>,
    pub values: Region<u8>,
    /// Two lists of `cap_seqs` records of SEQ_WORDS u64.
    pub lists: Region<u64>,
    /// Three u64 offsets per chunk.
    pub offsets: Region<u64>,
    /// `cap_tasks` records of TASK_WORDS u64.
    pub tasks: Region<u64>,
    pub counters: Region<u64>,
    /// Scratch bytes needed (`usize::MAX` if that overflows).
    pub total: usize,
}

impl Plan {
    /// The plan of `n` keys of `key_size` bytes with values of `value_size` bytes (0: none).
    pub fn new(n: usize, key_size: usize, value_size: usize, variant: QuickVariant) -> Plan {
        Plan::with_rounds(n, key_size, value_size, variant, None)
    }

    /// As [`Plan::new`], with the round limit `rounds` (at least 1) instead of
    /// [`max_rounds`] when given (tests of the fallback past the limit).
    pub fn with_rounds(
        n: usize,
        key_size: usize,
        value_size: usize,
        variant: QuickVariant,
        rounds: Option<u32>,
    ) -> Plan {
        let shape = Shape::of(key_size);
        let tile = shape.tile();
        let (rounds, cap_seqs, cap_chunks, cap_tasks) = if n <= tile {
            (0, 0, 0, 0)
        } else {
            let rounds = rounds.map_or(max_rounds(n, tile), |r| r.max(1));
            let cap_seqs = n / (tile + 1) + 1;
            let cap_chunks = n.div_ceil(shape.chunk()) + cap_seqs;
            let per_round = 3usize.saturating_mul(cap_seqs);
            let cap_tasks = per_round
                .saturating_mul(rounds as usize + 1)
                .saturating_add(n / tile + 1)
                .min(n);
            (rounds, cap_seqs, cap_chunks, cap_tasks)
        };
        Plan {
            n,
            key_size,
            value_size,
            variant,
            shape,
            rounds,
            cap_seqs,
            cap_chunks,
            cap_tasks,
        }
    }

    /// Whether one block sorts the whole input in place (no scratch).
    pub fn small(&self) -> bool {
        self.rounds == 0
    }

    /// The scratch layout; `None` for a small input.
    pub fn layout(&self) -> Option<Layout> {
        if self.small() {
            return None;
        }
        let mut l = ScratchLayout::new();
        let keys = l.region::<u8>(self.n.saturating_mul(self.key_size));
        let values = l.region::<u8>(self.n.saturating_mul(self.value_size));
        let lists = l.region::<u64>(self.cap_seqs.saturating_mul(2 * SEQ_WORDS));
        let offsets = l.region::<u64>(self.cap_chunks.saturating_mul(3));
        let tasks = l.region::<u64>(self.cap_tasks.saturating_mul(TASK_WORDS));
        let counters = l.region::<u64>(COUNTER_WORDS);
        Some(Layout {
            keys,
            values,
            lists,
            offsets,
            tasks,
            counters,
            total: l.bytes().unwrap_or(usize::MAX),
        })
    }

    /// Scratch bytes of the sort.
    pub fn scratch_bytes(&self) -> usize {
        self.layout().map_or(0, |l| l.total)
    }
}

/// The round limit for `n` keys and tiles of `tile`: ceil(1.5 L) + 4 with L = ceil(log2(n /
/// tile)) the rounds of perfect pivots. With ninther pivots on random keys the deepest piece
/// needs about 1.33 L + 1 rounds (Monte Carlo: 10, 16 and 21 at 2^20, 2^24 and 2^28 keys of 4
/// bytes, against limits of 15, 21 and 27), the average key 1.04 L + 1; every round past the
/// work costs the fast variant three almost empty launches. Past the limit a sequence is finished by one block's merge
/// sort (correct, O(m log m), slow: only inputs built against the sampling reach it).
pub(crate) fn max_rounds(n: usize, tile: usize) -> u32 {
    if n <= tile {
        0
    } else {
        (3 * ceil_log2(n.div_ceil(tile))).div_ceil(2) + 4
    }
}
