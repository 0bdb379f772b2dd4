//! The shapes of `hybrid.cu`'s blocks, the bucket and sample counts of a sort, and its scratch
//! layout.

use sortlab_primitives::{Defines, Region, ScratchLayout, SortKey};

use super::variant::HybridVariant;

/// Threads of the bucket-sorting blocks (`hybrid_sort_buckets`, `hybrid_sort_small`,
/// `hybrid_sort_runs`, `hybrid_merge_level`).
pub(crate) const SORT_THREADS: u32 = 256;
/// Threads of the streaming kernels (clear, min/max, histogram, refine, sample, count, scan,
/// scatter, copy of equality buckets).
pub(crate) const THREADS: u32 = 256;
/// Keys per thread of one count/scatter segment (a warp's segment: 32 × ITEMS keys) and of one
/// equality-copy chunk (THREADS × ITEMS positions).
pub(crate) const ITEMS: u32 = 16;
/// Shared memory of a sorting block's elements before padding: two buffers of the block's
/// capacity (64 KiB; with one pad slot per thread's range, 66 to 72 KiB, so three blocks fit a
/// Hopper multiprocessor).
pub(crate) const SORT_ELEM_BYTES: usize = 64 << 10;
/// log2 of the paper variant's histogram bins (8192 bins, 8 per bucket; their u32 counters fill 32 KiB of static shared memory).
pub(crate) const HIST_LOG2: u32 = 13;
/// The paper's bucket count (1024 buckets: 1023 pivots).
pub(crate) const PAPER_PIVOTS: usize = 1023;
/// Fast: sample keys per bucket (the oversampling factor).
pub(crate) const OVERSAMPLING: usize = 32;
/// Resident blocks per multiprocessor of the grid-strided streaming kernels.
pub(crate) const BLOCKS_PER_SM: u32 = 8;

/// The block shapes for one key and value width (the same for both variants: one module per
/// key type and value width).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Shape {
    /// Bytes of a shared-memory element: the key's bits, with values a u32 tag (padded to the
    /// key's alignment).
    pub shared_elem: usize,
    /// Bytes of a global-memory element (a bucket past the capacity): the key's bits, with
    /// values a u64 tag (padded: 16 bytes).
    pub global_elem: usize,
    /// Keys a block sorts in shared memory: 8192 (4-byte keys), 4096 (4-byte keys with values,
    /// 8-byte keys), 2048 (8-byte keys with values).
    pub capacity: usize,
}

impl Shape {
    /// The shape for keys of `key_size` bytes (4 or 8) with values of `value_size` (0: none).
    pub fn of(key_size: usize, value_size: usize) -> Shape {
        let (shared_elem, global_elem) = if value_size == 0 {
            (key_size, key_size)
        } else {
            ((key_size + 4).next_multiple_of(key_size), 16)
        };
        Shape {
            shared_elem,
            global_elem,
            capacity: SORT_ELEM_BYTES / (2 * shared_elem),
        }
    }

    /// Dynamic shared memory of a sorting block (`SORT_SMEM_BYTES` of `hybrid.cu`): two
    /// buffers of `capacity` elements, each padded by one slot per thread (per `per_thread`
    /// elements, so that the threads of a warp start their ranges in distinct banks).
    pub fn sort_shared_bytes(&self) -> usize {
        2 * (self.capacity + SORT_THREADS as usize) * self.shared_elem
    }

    /// Outputs one thread merges per level step (`PER_THREAD` of `hybrid.cu`).
    pub fn per_thread(&self) -> usize {
        self.capacity / SORT_THREADS as usize
    }

    /// Positions of one block of `hybrid_copy_equal`.
    pub fn chunk(&self) -> usize {
        (THREADS * ITEMS) as usize
    }

    /// The defines of `hybrid.cu` for this shape (besides the key and value words).
    pub fn defines(&self) -> Defines {
        Defines::new()
            .set("SORT_THREADS", SORT_THREADS)
            .set("CAPACITY", self.capacity)
            .set("SORT_SMEM_BYTES", self.sort_shared_bytes())
            .set("THREADS", THREADS)
            .set("ITEMS", ITEMS)
            .set("HIST_LOG2", HIST_LOG2)
    }

    /// Every define of the module for keys `K` and values of `value` bytes (`None`: keys only).
    pub fn module_defines<K: SortKey>(&self, value: Option<usize>) -> Defines {
        Defines::new()
            .key::<K>()
            .value_size(value)
            .extend(&self.defines())
    }
}

/// One sort: n keys of `key_size` bytes (values of `value_size`, 0 for none) by a variant.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan {
    pub n: usize,
    pub key_size: usize,
    pub value_size: usize,
    pub variant: HybridVariant,
    pub shape: Shape,
    /// Pivots (0 when one block sorts the whole input).
    pub pivots: usize,
    /// Fast: sample keys (OVERSAMPLING per bucket between pivots); Paper: 0.
    pub sample: usize,
}

/// Where a sort's temporary arrays live in scratch.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    /// Zeroed by `hybrid_clear`: bucket counts, then (Paper) the histogram and min/max words.
    pub counters: Region<u64>,
    pub starts: Region<u64>,
    pub cursors: Region<u64>,
    /// The pivots' ordered bits (dense; both variants, never inside the sample's regions).
    pub pivots: Region<u8>,
    /// Fast: the sample and its merge buffer (ordered bits).
    pub sample: Region<u8>,
    pub sample_spare: Region<u8>,
    /// The scatter's keys (ordered bits) and values; the global merge's element buffers (with
    /// values both; keys alone only the second: the first is `scattered`).
    pub scattered: Region<u8>,
    pub values: Region<u8>,
    pub first: Region<u8>,
    pub spare: Region<u8>,
    /// Scratch bytes needed (`usize::MAX` if that overflows).
    pub total: usize,
}

impl Plan {
    /// The plan of `n` keys of `key_size` bytes with values of `value_size` bytes (0: none).
    pub fn new(n: usize, key_size: usize, value_size: usize, variant: HybridVariant) -> Plan {
        let shape = Shape::of(key_size, value_size);
        let (pivots, sample) = if n <= shape.capacity {
            (0, 0)
        } else {
            match variant {
                HybridVariant::Paper => (PAPER_PIVOTS, 0),
                HybridVariant::Fast => {
                    // Buckets of about half the capacity, so that sampling noise rarely pushes
                    // one past it (OVERSAMPLING = 32: a bucket needs fewer than 32 samples where
                    // 64 are expected, about 1e-5 per bucket).
                    let buckets = n.div_ceil(shape.capacity / 2);
                    (buckets - 1, buckets * OVERSAMPLING)
                }
            }
        };
        Plan {
            n,
            key_size,
            value_size,
            variant,
            shape,
            pivots,
            sample,
        }
    }

    /// Whether one block sorts the input in place (no scratch).
    pub fn small(&self) -> bool {
        self.pivots == 0
    }

    /// Buckets: two per pivot (the keys below it, the keys equal to it) and one above the last.
    pub fn buckets(&self) -> usize {
        2 * self.pivots + 1
    }

    /// Words zeroed before the counts: bucket counts (and the paper's histogram and min/max).
    pub fn counter_words(&self) -> usize {
        self.buckets()
            + match self.variant {
                HybridVariant::Paper => (1 << HIST_LOG2) + 2,
                HybridVariant::Fast => 0,
            }
    }

    /// Merge levels of the sample's sort after its runs of one block's capacity.
    pub fn sample_levels(&self) -> u32 {
        let runs = self.sample.div_ceil(self.shape.capacity) as u64;
        if runs <= 1 {
            0
        } else {
            64 - (runs - 1).leading_zeros()
        }
    }

    /// The scratch layout; `None` when one block sorts the input (no scratch).
    pub fn layout(&self) -> Option<Layout> {
        if self.small() {
            return None;
        }
        let mut l = ScratchLayout::new();
        let nb = self.buckets();
        let counters = l.region::<u64>(self.counter_words());
        let starts = l.region::<u64>(nb + 1);
        let cursors = l.region::<u64>(nb);
        // Both variants store dense pivots here. Fast's `hybrid_pivots` reads the sorted sample
        // while it writes them, so they must not share the sample's regions (an empty region
        // here put them at the start of `sample`, which holds the sorted sample after an even
        // number of merge levels: a race that left some pivots out of order).
        let pivots = l.region::<u8>(self.pivots * self.key_size);
        let sample = l.region::<u8>(self.sample * self.key_size);
        let sample_spare = l.region::<u8>(self.sample * self.key_size);
        let elems = self.n.saturating_mul(self.shape.global_elem);
        let scattered = l.region::<u8>(self.n.saturating_mul(self.key_size));
        let values = l.region::<u8>(self.n.saturating_mul(self.value_size));
        let first = l.region::<u8>(if self.value_size > 0 { elems } else { 0 });
        let spare = l.region::<u8>(elems);
        Some(Layout {
            counters,
            starts,
            cursors,
            pivots,
            sample,
            sample_spare,
            scattered,
            values,
            first,
            spare,
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
    fn shapes_fill_shared_memory() {
        for (k, v, cap) in [
            (4, 0, 8192),
            (4, 4, 4096),
            (4, 8, 4096),
            (8, 0, 4096),
            (8, 8, 2048),
        ] {
            let s = Shape::of(k, v);
            assert_eq!(s.capacity, cap, "{k} {v}");
            assert_eq!(2 * s.capacity * s.shared_elem, SORT_ELEM_BYTES);
            assert!(s.sort_shared_bytes() <= 72 << 10);
            assert!(s.per_thread() >= 4 && s.per_thread().is_power_of_two());
        }
    }

    #[test]
    fn plans() {
        let p = Plan::new(8192, 4, 0, HybridVariant::Fast);
        assert!(p.small() && p.scratch_bytes() == 0);
        let p = Plan::new(1 << 28, 4, 0, HybridVariant::Fast);
        assert_eq!(p.pivots, (1 << 16) - 1);
        assert_eq!(p.sample, 1 << 21);
        assert_eq!(p.sample_levels(), 8);
        assert!(p.sample <= p.n);
        let p = Plan::new(8193, 8, 8, HybridVariant::Fast);
        assert_eq!((p.pivots, p.sample), (8, 9 * OVERSAMPLING));
        assert!(p.sample <= p.n);
        let p = Plan::new(1 << 20, 8, 4, HybridVariant::Paper);
        assert_eq!((p.pivots, p.buckets(), p.sample), (1023, 2047, 0));
        assert!(p.scratch_bytes() > (2 * 16) << 20);
    }

    /// Fast's pivots have their own region: `hybrid_pivots` reads the sorted sample (in `sample`
    /// or `sample_spare`, by the parity of the merge levels) while it writes them.
    #[test]
    fn pivots_do_not_alias_the_sample() {
        for (k, v) in [(4, 0), (4, 4), (4, 8), (8, 0), (8, 4), (8, 8)] {
            for n in [8193usize, 1 << 20, 1 << 24, 1 << 28, (1 << 32) + 5] {
                let p = Plan::new(n, k, v, HybridVariant::Fast);
                let l = p.layout().unwrap();
                assert_eq!(l.pivots.bytes(), p.pivots * k, "{n} {k} {v}");
                let a = l.pivots.byte_range();
                for s in [l.sample.byte_range(), l.sample_spare.byte_range()] {
                    assert!(a.end <= s.start || s.end <= a.start, "{n} {k} {v}");
                }
            }
        }
    }

    /// Host arithmetic the kernels rely on, over many lengths and every shape: the sample fits
    /// the input (`hybrid_sample`'s step >= 1) and holds the last pivot pick, the pivots fit a
    /// u32, and the pairs' scratch covers the keys'.
    #[test]
    fn plan_invariants() {
        let mut ns: Vec<usize> = (0..40).map(|k| 1usize << k).collect();
        ns.extend([2049, 4097, 8193, 12_345, 1_000_007, (1 << 32) + 5, 3 << 33]);
        for variant in HybridVariant::ALL {
            for (k, v) in [(4, 0), (4, 4), (4, 8), (8, 0), (8, 4), (8, 8)] {
                for &n in &ns {
                    let p = Plan::new(n, k, v, variant);
                    assert_eq!(p.small(), n <= p.shape.capacity, "{n} {k} {v} {variant}");
                    if p.small() {
                        assert_eq!(p.scratch_bytes(), 0);
                        continue;
                    }
                    assert!(p.pivots >= 2 && p.pivots < u32::MAX as usize);
                    if variant == HybridVariant::Fast {
                        assert_eq!(p.sample, (p.pivots + 1) * OVERSAMPLING);
                        assert!(p.sample <= n, "{n} {k} {v}");
                    }
                    let keys = Plan::new(n, k, 0, variant).scratch_bytes();
                    assert!(p.scratch_bytes() >= keys, "{n} {k} {v} {variant}");
                    assert!(p.scratch_bytes() < usize::MAX);
                }
            }
        }
    }
}
