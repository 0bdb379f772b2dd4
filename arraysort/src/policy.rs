//! [`ArrayPolicy`] and [`SizeClass`]: which kernel sorts an array of a given length.

use sortlab_primitives::{Defines, Policy};

/// The size classes of [`crate::ArrayVariant::Fast`], shortest arrays first. Arrays of 0 or 1
/// key belong to none (nothing to sort).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SizeClass {
    /// 2 to 8 keys: four arrays per warp, each sorted by a bitonic network over 8 lanes.
    Group8,
    /// 9 to 16 keys: two arrays per warp, a bitonic network over 16 lanes.
    Group16,
    /// 17 to 32 keys: one array per warp, a bitonic network over the warp.
    Group32,
    /// 33 to 512 keys: one array per block, `BlockMergeSort` over a tile of 512.
    Block512,
    /// 513 to 1024 keys: one array per block, a tile of 1024.
    Block1024,
    /// 1025 to 2048 keys: one array per block, a tile of 2048.
    Block2048,
    /// 2049 to 4096 keys: one array per block, a tile of 4096; only where the tile fits a
    /// block's static shared memory ([`ArrayPolicy::tile_max`] is 4096).
    Block4096,
    /// Longer arrays: cut into tiles of [`ArrayPolicy::tile_max`] keys, each sorted by the
    /// largest block class, then merged pairwise inside the array by merge path, one pass per
    /// doubling, each pass spread over the whole device (one long array uses every
    /// multiprocessor).
    Large,
}

/// The block classes' tiles, in keys.
const BLOCK_CAPS: [usize; 4] = [512, 1024, 2048, 4096];

impl SizeClass {
    /// Every class, in the order of their device numbers (`CLASS_*` defines).
    pub const ALL: [SizeClass; 8] = [
        SizeClass::Group8,
        SizeClass::Group16,
        SizeClass::Group32,
        SizeClass::Block512,
        SizeClass::Block1024,
        SizeClass::Block2048,
        SizeClass::Block4096,
        SizeClass::Large,
    ];

    /// Short name, as in the kernels: `"group8"`, ..., `"block512"`, ..., `"large"`.
    pub fn name(self) -> &'static str {
        match self {
            SizeClass::Group8 => "group8",
            SizeClass::Group16 => "group16",
            SizeClass::Group32 => "group32",
            SizeClass::Block512 => "block512",
            SizeClass::Block1024 => "block1024",
            SizeClass::Block2048 => "block2048",
            SizeClass::Block4096 => "block4096",
            SizeClass::Large => "large",
        }
    }

    /// The class's device number (its index in [`SizeClass::ALL`]).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The block class's tile (`None` for the warp classes and the large class).
    pub fn block_cap(self) -> Option<usize> {
        match self {
            SizeClass::Block512 => Some(BLOCK_CAPS[0]),
            SizeClass::Block1024 => Some(BLOCK_CAPS[1]),
            SizeClass::Block2048 => Some(BLOCK_CAPS[2]),
            SizeClass::Block4096 => Some(BLOCK_CAPS[3]),
            _ => None,
        }
    }

    /// Whether `policy` has this class (every class but [`SizeClass::Block4096`] always).
    pub fn present(self, policy: &ArrayPolicy) -> bool {
        self != SizeClass::Block4096 || policy.tile_max() >= 4096
    }

    /// The fewest keys an array of this class has under `policy` (`usize::MAX` for a class the
    /// policy does not have).
    pub fn min_len(self, policy: &ArrayPolicy) -> usize {
        if !self.present(policy) {
            return usize::MAX;
        }
        match self {
            SizeClass::Group8 => 2,
            SizeClass::Group16 => 9,
            SizeClass::Group32 => 17,
            SizeClass::Block512 => 33,
            SizeClass::Block1024 => BLOCK_CAPS[0] + 1,
            SizeClass::Block2048 => BLOCK_CAPS[1] + 1,
            SizeClass::Block4096 => BLOCK_CAPS[2] + 1,
            SizeClass::Large => policy.tile_max() + 1,
        }
    }

    /// The class of an array of `len` keys under `policy`; `None` for 0 or 1 key. The device's
    /// `size_class` in `arraysort.cu` is the same function.
    pub fn of_len(len: usize, policy: &ArrayPolicy) -> Option<SizeClass> {
        if len < 2 {
            return None;
        }
        SizeClass::ALL
            .into_iter()
            .rev()
            .find(|c| len >= c.min_len(policy))
    }

    /// The most arrays of this class that `arrays` arrays holding `keys` keys in all can have:
    /// the length of the class's list in scratch, and the grid the host sizes without knowing
    /// the lengths.
    pub fn most_arrays(self, arrays: usize, keys: usize, policy: &ArrayPolicy) -> usize {
        arrays.min(keys / self.min_len(policy))
    }

    /// Warp lanes per array of the warp classes (8, 16 or 32); `None` for the others.
    pub fn group(self) -> Option<u32> {
        match self {
            SizeClass::Group8 => Some(8),
            SizeClass::Group16 => Some(16),
            SizeClass::Group32 => Some(32),
            _ => None,
        }
    }

    /// The kernels that sort this class, in launch order: `sort_<name>`, or for the large class
    /// its plan, run sort, merge partition and merge.
    pub(crate) fn kernels(self) -> Vec<String> {
        match self {
            SizeClass::Large => ["large_plan", "large_runs", "large_partition", "large_merge"]
                .map(String::from)
                .to_vec(),
            _ => vec![format!("sort_{}", self.name())],
        }
    }
}

impl std::fmt::Display for SizeClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Block shapes of the arraysort kernels (defines of `arraysort.cu`), by key and value size.
///
/// Every block-class kernel declares its shared memory statically, so each tile stays within
/// the 48 KiB a kernel may declare: the 4096-key tile ([`SizeClass::Block4096`]) exists for
/// 4-byte keys alone or with 4-byte values and for 8-byte keys alone; otherwise the largest
/// single-pass tile is 2048 keys (`BlockMergeSort` keeps a key and a 4-byte index per element,
/// padded).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ArrayPolicy {
    /// Threads per block of the warp classes and the helper kernels.
    pub small_threads: u32,
    /// Threads per block of the block classes (tiles of 512, 1024, 2048, 4096 keys).
    pub block_threads: [u32; 4],
    /// Keys per thread of the block classes (threads × keys is the tile).
    pub block_items: [u32; 4],
    /// Whether the 4096-key class exists.
    pub block4096: bool,
    /// Threads per block of [`crate::ArrayVariant::Paper`].
    pub paper_threads: u32,
    /// Threads per block of the top-k select (one block per array).
    pub topk_threads: u32,
    /// Keys per thread of the top-k select's tile (threads × keys is
    /// [`ArrayPolicy::top_k_tile`], the largest k it selects).
    pub topk_items: u32,
}

impl ArrayPolicy {
    /// The policy for keys of `key_size` bytes and values of `value_size` bytes (0: keys only).
    pub fn for_types(key_size: usize, value_size: usize) -> ArrayPolicy {
        ArrayPolicy {
            small_threads: 128,
            block_threads: [64, 128, 256, 256],
            block_items: [8, 8, 8, 16],
            block4096: matches!((key_size, value_size), (4, 0) | (4, 4) | (8, 0)),
            paper_threads: 128,
            topk_threads: 256,
            topk_items: 8,
        }
    }

    /// The largest `k` the top-k select takes (its shared-memory tile); a larger `k` sorts
    /// every array whole ([`crate::TopKPath::Sort`]).
    pub fn top_k_tile(&self) -> usize {
        (self.topk_threads * self.topk_items) as usize
    }

    /// The longest array sorted in one pass: 4096 or 2048 keys.
    pub fn tile_max(&self) -> usize {
        if self.block4096 {
            BLOCK_CAPS[3]
        } else {
            BLOCK_CAPS[2]
        }
    }

    /// Threads per block of `class`'s kernel.
    pub fn threads(&self, class: SizeClass) -> u32 {
        match class {
            SizeClass::Group8 | SizeClass::Group16 | SizeClass::Group32 => self.small_threads,
            SizeClass::Block512 => self.block_threads[0],
            SizeClass::Block1024 => self.block_threads[1],
            SizeClass::Block2048 => self.block_threads[2],
            SizeClass::Block4096 => self.block_threads[3],
            SizeClass::Large => self.run_threads(),
        }
    }

    /// Threads per block of the large class's run sort and merge: the largest block class's.
    pub fn run_threads(&self) -> u32 {
        if self.block4096 {
            self.block_threads[3]
        } else {
            self.block_threads[2]
        }
    }

    /// The most tiles of [`ArrayPolicy::tile_max`] keys that `large` arrays of the large class
    /// holding at most `keys` keys in all can have: the length of the large class's tile list.
    pub fn large_tiles(&self, large: usize, keys: usize) -> usize {
        if large == 0 {
            return 0;
        }
        // sum of ceil(len / tile) <= sum of len / tile + one partial tile an array.
        (keys / self.tile_max()).saturating_add(large)
    }

    /// The merge passes an array of `len` keys needs in the large class: ceil(log2(tiles)); the
    /// device's `large_passes` computes the same.
    pub fn large_passes(&self, len: usize) -> u32 {
        let tiles = len.div_ceil(self.tile_max());
        if tiles <= 1 {
            0
        } else {
            usize::BITS - (tiles - 1).leading_zeros()
        }
    }

    /// Arrays one block of `class`'s kernel sorts at a time.
    pub fn arrays_per_block(&self, class: SizeClass) -> usize {
        match class.group() {
            Some(g) => (self.small_threads / 32 * (32 / g)) as usize,
            None => 1,
        }
    }

    /// The offset of `class`'s list in the list region (the sum of the lists before it), for
    /// `arrays` arrays of `keys` keys; the device's `list_start` computes the same.
    pub fn list_start(&self, class: SizeClass, arrays: usize, keys: usize) -> usize {
        SizeClass::ALL[..class.index()]
            .iter()
            .map(|c| c.most_arrays(arrays, keys, self))
            .sum()
    }

    /// The length of the whole list region: every class's list.
    pub fn list_len(&self, arrays: usize, keys: usize) -> usize {
        SizeClass::ALL
            .iter()
            .map(|c| c.most_arrays(arrays, keys, self))
            .sum()
    }
}

impl Policy for ArrayPolicy {
    fn defines(&self) -> Defines {
        let mut d = Defines::new().set("SMALL_THREADS", self.small_threads);
        for (i, cap) in BLOCK_CAPS.iter().enumerate() {
            d = d
                .set(&format!("BLOCK{cap}_THREADS"), self.block_threads[i])
                .set(&format!("BLOCK{cap}_ITEMS"), self.block_items[i]);
        }
        d = d
            .set("HAS_BLOCK4096", self.block4096 as u32)
            .set("PAPER_THREADS", self.paper_threads)
            .set("TOPK_THREADS", self.topk_threads)
            .set("TOPK_ITEMS", self.topk_items);
        for c in SizeClass::ALL {
            d = d.set(&format!("CLASS_{}", c.name().to_uppercase()), c.index());
        }
        d.set("CLASS_COUNT", SizeClass::ALL.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_cover_every_length_once() {
        for (k, v) in [(4, 0), (4, 4), (4, 8), (8, 0), (8, 4), (8, 8)] {
            let p = ArrayPolicy::for_types(k, v);
            assert_eq!(SizeClass::of_len(0, &p), None);
            assert_eq!(SizeClass::of_len(1, &p), None);
            for (len, c) in [
                (2, SizeClass::Group8),
                (8, SizeClass::Group8),
                (9, SizeClass::Group16),
                (16, SizeClass::Group16),
                (17, SizeClass::Group32),
                (32, SizeClass::Group32),
                (33, SizeClass::Block512),
                (512, SizeClass::Block512),
                (513, SizeClass::Block1024),
                (1024, SizeClass::Block1024),
                (1025, SizeClass::Block2048),
                (2048, SizeClass::Block2048),
                (p.tile_max() + 1, SizeClass::Large),
                (1 << 40, SizeClass::Large),
            ] {
                assert_eq!(SizeClass::of_len(len, &p), Some(c), "{len} ({k}, {v})");
            }
            if p.block4096 {
                assert_eq!(SizeClass::of_len(2049, &p), Some(SizeClass::Block4096));
                assert_eq!(SizeClass::of_len(4096, &p), Some(SizeClass::Block4096));
            } else {
                assert_eq!(SizeClass::of_len(2049, &p), Some(SizeClass::Large));
            }
            // Each class's arrays fit its kernel, and each tile is its threads x items.
            for (i, cap) in BLOCK_CAPS.iter().enumerate() {
                assert_eq!((p.block_threads[i] * p.block_items[i]) as usize, *cap);
            }
            for len in 2..3 * p.tile_max() {
                let c = SizeClass::of_len(len, &p).unwrap();
                assert!(c.present(&p));
                match (c.group(), c.block_cap()) {
                    (Some(g), _) => assert!(len <= g as usize),
                    (None, Some(cap)) => assert!(len <= cap && cap <= p.tile_max()),
                    _ => assert!(len > p.tile_max()),
                }
            }
        }
        assert_eq!(ArrayPolicy::for_types(4, 4).tile_max(), 4096);
        assert_eq!(ArrayPolicy::for_types(8, 8).tile_max(), 2048);
    }

    /// No class can hold more arrays than its list: n keys in m arrays have at most
    /// min(m, n / min_len) arrays of the class.
    #[test]
    fn lists_hold_every_array_of_their_class() {
        let p = ArrayPolicy::for_types(4, 0);
        let lens = [0usize, 1, 2, 5, 9, 16, 17, 33, 600, 5000, 2, 2, 2];
        let n: usize = lens.iter().sum();
        for c in SizeClass::ALL {
            let have = lens
                .iter()
                .filter(|&&l| SizeClass::of_len(l, &p) == Some(c))
                .count();
            assert!(have <= c.most_arrays(lens.len(), n, &p), "{c}");
        }
        // All arrays of length 2: the first list holds them all.
        assert_eq!(SizeClass::Group8.most_arrays(1000, 2000, &p), 1000);
        assert_eq!(p.list_start(SizeClass::Group16, 1000, 2000), 1000);
        assert_eq!(p.list_len(10, 0), 0);
    }

    /// The large class's pass counts and tile-list bound, against a direct count.
    #[test]
    fn large_passes_and_tiles() {
        for (k, v) in [(4, 0), (8, 8)] {
            let p = ArrayPolicy::for_types(k, v);
            let t = p.tile_max();
            for (len, passes) in [
                (t + 1, 1),
                (2 * t, 1),
                (2 * t + 1, 2),
                (4 * t, 2),
                (4 * t + 1, 3),
                (1 << 30, 30 - t.trailing_zeros()),
            ] {
                assert_eq!(p.large_passes(len), passes, "{len}");
                // Runs double each pass until one holds the array.
                assert!(t << passes >= len && t << (passes - 1) < len, "{len}");
            }
            let lens = [t + 1, 3 * t, 5 * t - 1, 9000, t + 2];
            let keys: usize = lens.iter().sum::<usize>() + 700;
            let tiles: usize = lens.iter().map(|l| l.div_ceil(t)).sum();
            assert!(p.large_tiles(lens.len(), keys) >= tiles);
            assert_eq!(p.large_tiles(0, keys), 0);
        }
    }

    /// The warp classes' network: a bitonic sort over G lanes, simulated with the kernel's
    /// compare-exchange rule on (bits, position) pairs, sorts every 0/1 input (the 0-1
    /// principle) and random ones stably.
    #[test]
    fn group_network_sorts() {
        fn network(x: &mut [(u32, u32)]) {
            let g = x.len();
            let mut k = 2;
            while k <= g {
                let mut j = k / 2;
                while j > 0 {
                    let before = x.to_vec();
                    for (e, slot) in x.iter_mut().enumerate() {
                        let o = before[e ^ j];
                        let me = before[e];
                        let keep_min = ((e & k) == 0) == ((e & j) == 0);
                        let take = if keep_min { o < me } else { me < o };
                        if take {
                            *slot = o;
                        }
                    }
                    j /= 2;
                }
                k *= 2;
            }
        }
        for g in [8usize, 16, 32] {
            for len in 0..=g {
                // Padding: the largest bits and positions past every real key.
                for mask in 0..(1u64 << len.min(12)) {
                    let mut x: Vec<(u32, u32)> = (0..g)
                        .map(|e| {
                            let b = if e < len {
                                (mask >> (e % 12)) as u32 & 1
                            } else {
                                u32::MAX
                            };
                            (b, e as u32)
                        })
                        .collect();
                    let mut want = x.clone();
                    want.sort();
                    network(&mut x);
                    assert_eq!(x, want, "g {g} len {len} mask {mask:b}");
                }
            }
        }
    }

    #[test]
    fn defines_name_the_classes() {
        let d = ArrayPolicy::for_types(4, 0).defines().to_options();
        for want in [
            "-DCLASS_GROUP8=0",
            "-DCLASS_BLOCK4096=6",
            "-DCLASS_LARGE=7",
            "-DCLASS_COUNT=8",
            "-DBLOCK4096_ITEMS=16",
            "-DHAS_BLOCK4096=1",
        ] {
            assert!(d.iter().any(|o| o == want), "{d:?} lacks {want}");
        }
    }
}
