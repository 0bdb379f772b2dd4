//! What both variants share: the block shapes of `merge.cu`, their shared memory, the level
//! count, the scratch layout and the buffer each level reads and writes.

use sortlab_primitives::{Defines, Error, Region, Result, ScratchLayout, SortKey};

use super::variant::MergeVariant;

/// Threads of `merge_partition`'s blocks.
pub(crate) const PARTITION_THREADS: u32 = 256;
/// Threads of `merge_rank_pass`'s blocks.
pub(crate) const RANK_THREADS: u32 = 256;
/// Resident blocks per multiprocessor of the grid-strided partition and rank kernels.
pub(crate) const BLOCKS_PER_SM: u32 = 8;

/// The block shapes of one variant for one key and value width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Shape {
    /// The tile sort's block (a power of two, 32 to 1024) and keys per thread.
    pub sort_threads: u32,
    pub sort_items: u32,
    /// Resident tile-sort blocks per multiprocessor the compiler keeps registers for.
    pub sort_min_blocks: u32,
    /// The merge block of the fast variant and its outputs per thread; its tile divides the
    /// sort tile, so that no merge block straddles two pairs of runs.
    pub merge_threads: u32,
    pub merge_items: u32,
    /// Resident merge blocks per multiprocessor the compiler keeps registers for.
    pub merge_min_blocks: u32,
}

impl Shape {
    /// The shape of `variant` for keys of `key_size` bytes (4 or 8) and values of `value_size`
    /// (0, 4 or 8).
    ///
    /// Satish: tiles of 256 x 4 keys, as the radix sort of the same paper. Fast: tile sorts of
    /// 512 x 16 keys of 4 bytes (8 of 8 bytes: 8192 and 4096 keys, 33 to 104 KiB of shared
    /// memory), and merge blocks of 256 threads x 8 outputs (4 for 8-byte keys). With values
    /// the merge blocks are held to 32 registers a thread (8 resident blocks; 40 and 6 blocks
    /// for u32 keys with u64 values, where 32 spill): u32/u32 pairs at 2^28 then sort 1.25x as
    /// fast on an H200, and keys alone 10% slower, so keys keep the compiler's choice.
    pub fn of(variant: MergeVariant, key_size: usize, value_size: usize) -> Shape {
        match variant {
            MergeVariant::Satish => Shape {
                sort_threads: 256,
                sort_items: 4,
                sort_min_blocks: 1,
                merge_threads: 256,
                merge_items: 4,
                merge_min_blocks: 1,
            },
            MergeVariant::Fast => {
                let wide = key_size > 4;
                let merge_min_blocks = match (key_size, value_size) {
                    (_, 0) => 1,
                    (4, 8) => 6,
                    _ => 8,
                };
                Shape {
                    sort_threads: 512,
                    sort_items: if wide { 8 } else { 16 },
                    sort_min_blocks: 1,
                    merge_threads: 256,
                    merge_items: if wide { 4 } else { 8 },
                    merge_min_blocks,
                }
            }
        }
    }

    /// Keys of one tile sort.
    pub fn sort_tile(&self) -> usize {
        (self.sort_threads * self.sort_items) as usize
    }

    /// Outputs of one merge block.
    pub fn merge_tile(&self) -> usize {
        (self.merge_threads * self.merge_items) as usize
    }

    /// The shape's own limits.
    pub fn validate(&self) -> Result<()> {
        let ok = (32..=1024).contains(&self.sort_threads)
            && self.sort_threads.is_power_of_two()
            && self.sort_items.is_power_of_two()
            && (64..=1024).contains(&self.merge_threads)
            && self.merge_threads % 64 == 0
            && self.merge_items > 0
            && self.sort_tile() % self.merge_tile() == 0;
        if ok {
            Ok(())
        } else {
            Err(Error::InvalidArgument(format!(
                "merge sort shape {self:?}: power-of-two sort blocks and tiles, merge blocks a \
                 multiple of 64 threads, and the merge tile dividing the sort tile"
            )))
        }
    }

    /// Bytes of `BlockMergeSort<Bits, Value, sort_threads, sort_items>::TempStorage`
    /// (`sortlab/block/block_merge_sort.cuh`): the keys' slots, padded one per 32 (4-byte) or
    /// 16 (8-byte) keys when the items per thread are even, in a union with the values, and
    /// with values a u32 index per slot. `merge.cu` asserts that it equals the device's sizeof.
    pub fn sort_shared_bytes(&self, key_size: usize, value_size: usize) -> usize {
        let tile = self.sort_tile();
        let shift = if key_size == 4 { 5 } else { 4 };
        let slots = tile
            + if self.sort_items % 2 == 0 {
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

    /// Shared memory of one merge block: its keys' and values' slots, padded one per 32 (4-byte)
    /// or 16 (8-byte) keys.
    pub fn merge_shared_bytes(&self, key_size: usize, value_size: usize) -> usize {
        let tile = self.merge_tile();
        let slots = tile + (tile >> if key_size == 4 { 5 } else { 4 });
        slots * (key_size + value_size)
    }

    /// The defines of `merge.cu` for this shape (besides the key and value words).
    pub fn defines(&self, key_size: usize, value_size: usize) -> Defines {
        Defines::new()
            .set("SORT_THREADS", self.sort_threads)
            .set("SORT_ITEMS", self.sort_items)
            .set("SORT_MIN_BLOCKS", self.sort_min_blocks)
            .set(
                "SORT_SMEM_BYTES",
                self.sort_shared_bytes(key_size, value_size),
            )
            .set("MERGE_THREADS", self.merge_threads)
            .set("MERGE_ITEMS", self.merge_items)
            .set("MERGE_MIN_BLOCKS", self.merge_min_blocks)
            .set(
                "MERGE_SMEM_BYTES",
                self.merge_shared_bytes(key_size, value_size),
            )
            .set("PARTITION_THREADS", PARTITION_THREADS)
            .set("RANK_THREADS", RANK_THREADS)
    }

    /// Every define of the module for keys `K` and values of `value` bytes (`None`: keys only).
    pub fn module_defines<K: SortKey>(&self, value: Option<usize>) -> Defines {
        Defines::new()
            .key::<K>()
            .value_size(value)
            .extend(&self.defines(K::SIZE, value.unwrap_or(0)))
    }
}

/// Merge levels after the tile sort of `n` keys in tiles of `tile`: ceil(log2(tiles)), 0 for
/// one tile.
pub(crate) fn levels(n: usize, tile: usize) -> u32 {
    let tiles = n.div_ceil(tile.max(1)) as u64;
    if tiles <= 1 {
        0
    } else {
        64 - (tiles - 1).leading_zeros()
    }
}

/// One sort: n keys of `key_size` bytes (and values of `value_size`, 0 for keys only) by a
/// variant's shape.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan {
    pub n: usize,
    pub key_size: usize,
    pub value_size: usize,
    pub variant: MergeVariant,
    pub shape: Shape,
    /// Merge levels after the tile sort (0: one block sorts the input in place).
    pub levels: u32,
}

/// Where the second buffers and the fast variant's splits live in scratch.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    pub keys: Region<u8>,
    pub values: Region<u8>,
    /// Fast: one u64 split per merge block.
    pub splits: Region<u64>,
    /// Scratch bytes needed (`usize::MAX` if that overflows).
    pub total: usize,
}

impl Plan {
    /// The plan of `n` keys of `key_size` bytes with values of `value_size` bytes (0: none).
    pub fn new(n: usize, key_size: usize, value_size: usize, variant: MergeVariant) -> Plan {
        let shape = Shape::of(variant, key_size, value_size);
        Plan {
            n,
            key_size,
            value_size,
            variant,
            shape,
            levels: levels(n, shape.sort_tile()),
        }
    }

    /// Blocks of one fast merge level (one per merge tile of outputs).
    pub fn merge_blocks(&self) -> usize {
        self.n.div_ceil(self.shape.merge_tile())
    }

    /// log2 of the run width before merge level `level` (`sort_tile * 2^level`; sort tiles are
    /// powers of two).
    pub fn width_log2(&self, level: u32) -> u32 {
        self.shape.sort_tile().trailing_zeros() + level
    }

    /// The scratch layout; `None` when no merge level runs (no scratch).
    pub fn layout(&self) -> Option<Layout> {
        if self.levels == 0 {
            return None;
        }
        let mut l = ScratchLayout::new();
        let keys = l.region::<u8>(self.n.saturating_mul(self.key_size));
        let values = l.region::<u8>(self.n.saturating_mul(self.value_size));
        let splits = l.region::<u64>(match self.variant {
            MergeVariant::Satish => 0,
            MergeVariant::Fast => self.merge_blocks(),
        });
        Some(Layout {
            keys,
            values,
            splits,
            total: l.bytes().unwrap_or(usize::MAX),
        })
    }

    /// Scratch bytes of the sort.
    pub fn scratch_bytes(&self) -> usize {
        self.layout().map_or(0, |l| l.total)
    }

    /// Whether the tile sort writes the caller's buffers (an even number of levels follows,
    /// each swapping buffers, so the last one writes the caller's) or the scratch's.
    pub fn tiles_in_place(&self) -> bool {
        self.levels % 2 == 0
    }

    /// Whether merge level `level` reads the caller's buffers (else the scratch's; it writes
    /// the other).
    pub fn level_reads_caller(&self, level: u32) -> bool {
        (self.levels - level) % 2 == 0
    }
}
