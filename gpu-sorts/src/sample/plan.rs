//! The shapes of `sample.cu` (one per key and value width), the plan of one sort and its scratch
//! layout.

use sortlab_primitives::{Defines, Region, ScratchLayout, SortKey};

use super::variant::SampleVariant;

/// Threads of the count and scatter blocks: one per bucket id (`sample.cu` fixes it).
pub(crate) const TILE_THREADS: usize = 256;
/// log2 of the paper's k, the most buckets between splitters a level makes: 8 (k = 256; the
/// paper's k = 128 is 7, the other value `sample.cu` takes). With k = 256, uniform 2^28 keys of
/// 4 bytes reach final buckets (half a tile, 4096 keys, on average) in 2 levels; k = 128 needs
/// 3, so 256 saves a whole pass over the data (a level moves 12 bytes a u32 key).
pub(crate) const TREE_LEVELS: u32 = 8;
/// Bucket ids of a level: k - 1 splitters give k buckets between them and k - 1 equality
/// buckets; the last id pads partial tiles.
pub(crate) const BUCKETS: usize = 2 << TREE_LEVELS;
/// Splitter slots per segment (k - 1 splitters and one spare, as `sample.cu`'s layout).
pub(crate) const SPLITTER_SLOTS: usize = 1 << TREE_LEVELS;
/// u64 words of a segment record (start, length, chunk base, unused).
pub(crate) const SEG_WORDS: usize = 4;
/// Counts one block of the scan kernels covers (`SCAN_TILE` of `sample.cu`).
pub(crate) const SCAN_TILE: usize = 2048;
/// Longest piece of a finished bucket one block copies home (`COPY_PIECE` of `sample.cu`).
pub(crate) const COPY_PIECE: usize = 8192;
/// Control words (next segments, final entries, chunks, keys of the next segments).
pub(crate) const CTRL_WORDS: usize = 4;
/// Levels of sampled splitters before a segment takes radix splitters (TREE_LEVELS bits of its
/// keys' differing range a level). Uniform 2^32 keys need 3 sampled levels (2 below 2^29).
pub(crate) const SAMPLE_DEPTH: u32 = 4;
/// Levels at most: the sampled ones, then ceil(64 / TREE_LEVELS) radix levels reduce any
/// segment to equal keys, one more puts those in an equality bucket, and one spare.
pub(crate) const MAX_LEVELS: u32 = SAMPLE_DEPTH + 64u32.div_ceil(TREE_LEVELS) + 2;
/// The bucket size a level aims at, as a fraction of the final tile (numerator, denominator):
/// half a tile leaves room for the sample's error (with 16 or more sample keys a bucket, few
/// buckets reach twice their average, and those take one more level), at the price of final
/// block sorts that run half empty. A larger aim saves final-sort work and risks more
/// third-level buckets: one to measure.
pub(crate) const BUCKET_AIM: (usize, usize) = (1, 2);
/// Tiles per count and scatter block: 8 (32768 keys of 4 bytes, 16384 of 8). The counts (512
/// u64 a chunk, written, scanned and read back: about 5 passes over them) then cost about 0.6
/// bytes a key a level, against 12 for the keys; 2^28 keys still make 8192 blocks.
pub(crate) const CHUNK_TILES: usize = 8;
/// The final sort's block (fast) and the notes' block (two keys a thread).
pub(crate) const FINAL_THREADS: usize = 512;
pub(crate) const NOTES_THREADS: usize = 512;

/// The kernel shapes for one key and value width (the same for both variants: one module).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Shape {
    pub key_size: usize,
    pub value_size: usize,
    /// Keys per thread of the count and scatter tiles (256 threads).
    pub tile_items: usize,
    /// Keys per thread of the fast final sort (512 threads).
    pub final_items: usize,
    /// Resident scatter blocks per multiprocessor the compiler keeps registers for.
    pub scatter_min_blocks: usize,
}

impl Shape {
    /// Tiles of 256 x 16 keys of 4 bytes (x 8 of 8 bytes) for counting and scattering, chunks
    /// of eight tiles a block; final sorts of 512 x 16 (x 8) keys, as the merge sort's tiles.
    /// Scatter blocks hold a tile's keys and slot words in registers until the tile is staged in
    /// shared memory (`scripts/sass`): 3 blocks a multiprocessor with 4-byte keys (80 registers,
    /// no spills but 8 bytes of stack with 8-byte values; 4 blocks spill) and 4 with 8-byte keys
    /// (64 registers, no spills).
    pub fn of(key_size: usize, value_size: usize) -> Shape {
        let wide = key_size > 4;
        Shape {
            key_size,
            value_size,
            tile_items: if wide { 8 } else { 16 },
            final_items: if wide { 8 } else { 16 },
            scatter_min_blocks: if wide { 4 } else { 3 },
        }
    }

    /// Keys of one count/scatter block (a chunk).
    pub fn chunk(&self) -> usize {
        TILE_THREADS * self.tile_items * CHUNK_TILES
    }

    /// Keys of one count/scatter tile.
    pub fn tile(&self) -> usize {
        TILE_THREADS * self.tile_items
    }

    /// Keys of the fast final sort's tile.
    pub fn final_tile(&self) -> usize {
        FINAL_THREADS * self.final_items
    }

    /// The largest bucket `variant` sorts in one block (larger ones take another level).
    pub fn small_max(&self, variant: SampleVariant) -> usize {
        match variant {
            SampleVariant::Fast => self.final_tile(),
            SampleVariant::Notes => 2 * NOTES_THREADS,
        }
    }

    /// Bytes of `BlockMergeSort<Bits, Value, 512, final_items>::TempStorage`
    /// (`sortlab/block/block_merge_sort.cuh`), as the merge sort computes it: the keys' slots,
    /// padded one per 32 (4-byte) or 16 (8-byte) keys when the items per thread are even, in a
    /// union with the values, and with values a u32 index per slot. `sample.cu` asserts that it
    /// equals the device's sizeof.
    pub fn final_shared_bytes(&self) -> usize {
        let (key_size, value_size) = (self.key_size, self.value_size);
        let tile = self.final_tile();
        let shift = if key_size == 4 { 5 } else { 4 };
        let slots = tile
            + if self.final_items % 2 == 0 {
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

    /// Every define of the module for keys `K` (this shape's widths).
    pub fn module_defines<K: SortKey>(&self) -> Defines {
        Defines::new()
            .key::<K>()
            .value_size((self.value_size > 0).then_some(self.value_size))
            .set("TILE_ITEMS", self.tile_items)
            .set("CHUNK_TILES", CHUNK_TILES)
            .set("FINAL_THREADS", FINAL_THREADS)
            .set("FINAL_ITEMS", self.final_items)
            .set("FINAL_SMEM_BYTES", self.final_shared_bytes())
            .set("NOTES_THREADS", NOTES_THREADS)
            .set("TREE_LEVELS", TREE_LEVELS)
            .set("SCATTER_MIN_BLOCKS", self.scatter_min_blocks)
    }
}

/// One sort: n keys of `key_size` bytes (and values of `value_size`, 0 for keys only) by a
/// variant.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan {
    pub n: usize,
    pub variant: SampleVariant,
    pub shape: Shape,
    /// Levels of sampled splitters before radix splitters ([`SAMPLE_DEPTH`]; tests lower it to
    /// run the radix regime on the device).
    pub sample_depth: u32,
}

/// Where everything lives in scratch.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    /// The second key and value buffers.
    pub keys: Region<u8>,
    pub values: Region<u8>,
    /// Two segment lists (a level reads one and fills the other), `max_segments` records each.
    pub segs: [Region<u64>; 2],
    /// SPLITTER_SLOTS splitter slots (ordered bits, in u64 slots) per segment.
    pub splitters: Region<u64>,
    /// Bucket counts, then their exclusive scan: BUCKETS per chunk.
    pub counts: Region<u64>,
    /// The scan's block partials.
    pub partials: Region<u64>,
    /// Final entries of a level (start << 16 | copy << 15 | length).
    pub finals: Region<u64>,
    /// Control words.
    pub ctrl: Region<u64>,
    /// Scratch bytes needed (`usize::MAX` if that overflows).
    pub total: usize,
}

impl Plan {
    /// The plan of `n` keys of `key_size` bytes with values of `value_size` bytes (0: none).
    pub fn new(n: usize, key_size: usize, value_size: usize, variant: SampleVariant) -> Plan {
        Plan {
            n,
            variant,
            shape: Shape::of(key_size, value_size),
            sample_depth: SAMPLE_DEPTH,
        }
    }

    /// The largest bucket sorted by one block.
    pub fn small_max(&self) -> usize {
        self.shape.small_max(self.variant)
    }

    /// The bucket size a level aims at (at least 1).
    pub fn aim(&self) -> usize {
        (self.small_max() * BUCKET_AIM.0 / BUCKET_AIM.1).max(1)
    }

    /// Whether one block sorts the whole input (no levels, no scratch).
    pub fn one_block(&self) -> bool {
        self.n <= self.small_max()
    }

    /// Segments of one level at most: each is longer than `small_max` and they are disjoint.
    pub fn max_segments(&self) -> usize {
        (self.n / (self.small_max() + 1)).max(1)
    }

    /// Chunks of one level at most: every segment's keys in chunks, the last one partial.
    pub fn max_chunks(&self) -> usize {
        self.n / self.shape.chunk() + self.max_segments() + 1
    }

    /// Final entries of one level at most: a sort entry or copy pieces per non-empty bucket,
    /// the pieces of a bucket at most one more than its length over the piece.
    pub fn max_finals(&self) -> usize {
        (BUCKETS - 1)
            .saturating_mul(self.max_segments())
            .saturating_add(self.n / COPY_PIECE + 1)
    }

    /// The scratch layout; `None` when one block sorts the input.
    pub fn layout(&self) -> Option<Layout> {
        if self.one_block() {
            return None;
        }
        let mut l = ScratchLayout::new();
        let keys = l.region::<u8>(self.n.saturating_mul(self.shape.key_size));
        let values = l.region::<u8>(self.n.saturating_mul(self.shape.value_size));
        let seg_words = self.max_segments().saturating_mul(SEG_WORDS);
        let segs = [l.region::<u64>(seg_words), l.region::<u64>(seg_words)];
        let splitters = l.region::<u64>(self.max_segments().saturating_mul(SPLITTER_SLOTS));
        let counts_len = self.max_chunks().saturating_mul(BUCKETS);
        let counts = l.region::<u64>(counts_len);
        let partials = l.region::<u64>(counts_len.div_ceil(SCAN_TILE) + 1);
        let finals = l.region::<u64>(self.max_finals());
        let ctrl = l.region::<u64>(CTRL_WORDS);
        Some(Layout {
            keys,
            values,
            segs,
            splitters,
            counts,
            partials,
            finals,
            ctrl,
            total: l.bytes().unwrap_or(usize::MAX),
        })
    }

    /// Scratch bytes of the sort.
    pub fn scratch_bytes(&self) -> usize {
        self.layout().map_or(0, |l| l.total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_memory_fits_and_scratch_is_bounded() {
        for (k, v) in [(4, 0), (4, 4), (4, 8), (8, 0), (8, 4), (8, 8)] {
            let s = Shape::of(k, v);
            assert!(s.final_shared_bytes() <= 227 * 1024, "{s:?}");
            assert!(s.small_max(SampleVariant::Fast) < 1 << 15);
            for variant in SampleVariant::ALL {
                let n = 1 << 24;
                let p = Plan::new(n, k, v, variant);
                // The second buffers plus at most 3.2 bytes a key of lists (notes, with
                // buckets of 1024 keys: 11).
                let extra = p.scratch_bytes() - n * (k + v);
                let per_key = if variant == SampleVariant::Fast {
                    3.2
                } else {
                    11.0
                };
                assert!(
                    (extra as f64) < per_key * n as f64,
                    "{k} {v} {variant}: {extra}"
                );
                assert_eq!(Plan::new(p.small_max(), k, v, variant).scratch_bytes(), 0);
                assert!(Plan::new(p.small_max() + 1, k, v, variant).scratch_bytes() > 0);
            }
        }
    }
}
