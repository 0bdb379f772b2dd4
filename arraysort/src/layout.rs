//! Scratch layouts of the variants, and the classes a call launches: pure arithmetic on the
//! lengths, the same on every device.

use sortlab_primitives::{Region, Result, ScratchLayout};

use crate::policy::{ArrayPolicy, SizeClass};

/// The shape of a call: keys, arrays, how they are described, and the element sizes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    /// Keys in all.
    pub n: usize,
    /// Arrays.
    pub arrays: usize,
    /// `Some(len)` for arrays of one length, `None` for offsets.
    pub fixed: Option<usize>,
    /// Bytes per key.
    pub key_size: usize,
    /// Bytes per value; `None` for keys only.
    pub value: Option<usize>,
}

impl Shape {
    pub fn policy(&self) -> ArrayPolicy {
        ArrayPolicy::for_types(self.key_size, self.value.unwrap_or(0))
    }

    /// Whether anything needs sorting: some array may hold two keys.
    pub fn has_work(&self) -> bool {
        self.n >= 2 && self.arrays > 0
    }

    /// The size classes the fast sort launches: the one class of a fixed length, or every
    /// class some array could be in (the device decides which arrays go where).
    pub fn fast_classes(&self) -> Vec<SizeClass> {
        let p = self.policy();
        if !self.has_work() {
            return Vec::new();
        }
        match self.fixed {
            Some(len) => SizeClass::of_len(len, &p).into_iter().collect(),
            None => SizeClass::ALL
                .into_iter()
                .filter(|c| c.most_arrays(self.arrays, self.n, &p) > 0)
                .collect(),
        }
    }
}

/// Words of the large class's plan: the tile count and the most passes (`meta[0]`, `meta[1]`).
pub(crate) const LARGE_META_WORDS: usize = 2;

// One `zero_words` launch (a block of 32 threads) clears the class counters and the large class's
// plan together.
const _: () = assert!(SizeClass::ALL.len() + LARGE_META_WORDS <= 32);

/// The fast sort's scratch: class counters and lists (offsets only), and for the large class
/// (only when some array can be large) its plan, a copy of the keys and values for its merge
/// passes, its tile list and the passes' splits.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FastLayout {
    /// The words zeroed before the sort, by one launch: the class counters (offsets only), then
    /// the large class's plan ([`LARGE_META_WORDS`], only when some array can be large).
    pub words: Region<u64>,
    /// Class counters at the start of `words`: one per class with offsets, none for a fixed
    /// length; the large class's plan follows them.
    pub counts: usize,
    pub lists: Region<u64>,
    pub tk: Region<u8>,
    pub tv: Region<u8>,
    /// Each large array's first tile in the tile list (by its index in the class's list).
    pub tile_first: Region<u64>,
    /// Each tile's array (its index in the class's list).
    pub tile_array: Region<u32>,
    /// Each tile's merge-path split of the current pass.
    pub splits: Region<u64>,
    /// The tile list's length (a bound on the tiles).
    pub large_tiles: usize,
    /// The merge passes launched: enough for the longest array the call can hold.
    pub large_passes: u32,
    pub bytes: usize,
}

impl FastLayout {
    pub fn new(s: &Shape) -> Result<FastLayout> {
        Self::after(ScratchLayout::new(), s)
    }

    /// The layout placed after the regions `l` already holds (`bytes` is then the whole).
    pub fn after(mut l: ScratchLayout, s: &Shape) -> Result<FastLayout> {
        let p = s.policy();
        let classes = s.fast_classes();
        let listed = s.fixed.is_none() && s.has_work();
        let large = classes.contains(&SizeClass::Large);
        let counts = if listed { SizeClass::ALL.len() } else { 0 };
        let words = l.region::<u64>(counts + if large { LARGE_META_WORDS } else { 0 });
        let lists = l.region::<u64>(if listed { p.list_len(s.arrays, s.n) } else { 0 });
        let copy = |size: usize| if large { s.n.saturating_mul(size) } else { 0 };
        let tk = l.region::<u8>(copy(s.key_size));
        let tv = l.region::<u8>(copy(s.value.unwrap_or(0)));
        let (large_arrays, longest) = match (large, s.fixed) {
            (false, _) => (0, 0),
            (true, Some(len)) => (s.arrays, len),
            (true, None) => (SizeClass::Large.most_arrays(s.arrays, s.n, &p), s.n),
        };
        let large_tiles = p.large_tiles(large_arrays, s.n);
        let tile_first = l.region::<u64>(large_arrays);
        let tile_array = l.region::<u32>(large_tiles);
        let splits = l.region::<u64>(large_tiles);
        Ok(FastLayout {
            words,
            counts,
            lists,
            tk,
            tv,
            tile_first,
            tile_array,
            splits,
            large_tiles,
            large_passes: p.large_passes(longest),
            bytes: l.bytes()?,
        })
    }
}

/// GPU-ArraySort's scratch: the samples (raw and sorted, as ordered bits), the bucket
/// counters, and the keys, values and input positions bucket by bucket. Array `a` starting at
/// key `b` uses samples from `b / 10 + a` and counters from `b / 20 + a` (disjoint between
/// arrays).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PaperLayout {
    pub sample: Region<u8>,
    pub sorted: Region<u8>,
    pub bucket: Region<u64>,
    pub tk: Region<u8>,
    pub tv: Region<u8>,
    pub ti: Region<u32>,
    pub bytes: usize,
}

impl PaperLayout {
    pub fn new(s: &Shape) -> Result<PaperLayout> {
        let mut l = ScratchLayout::new();
        let work = s.has_work();
        let samples = if work { s.n / 10 + s.arrays + 1 } else { 0 };
        let buckets = if work { s.n / 20 + s.arrays + 1 } else { 0 };
        let n = if work { s.n } else { 0 };
        let sample = l.region::<u8>(samples.saturating_mul(s.key_size));
        let sorted = l.region::<u8>(samples.saturating_mul(s.key_size));
        let bucket = l.region::<u64>(buckets);
        let tk = l.region::<u8>(n.saturating_mul(s.key_size));
        let tv = l.region::<u8>(n.saturating_mul(s.value.unwrap_or(0)));
        let ti = l.region::<u32>(n);
        Ok(PaperLayout {
            sample,
            sorted,
            bucket,
            tk,
            tv,
            ti,
            bytes: l.bytes()?,
        })
    }
}

/// The tagged baseline's buffers, in bytes: the caller's scratch (the two radix sorts') and
/// what it allocates itself (a copy of the keys, positions, tags, a copy of the values).
pub(crate) fn tagged_own_bytes(s: &Shape) -> usize {
    if !s.has_work() {
        return 0;
    }
    s.n.saturating_mul(s.key_size + 4 + 4 + s.value.unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(n: usize, arrays: usize, fixed: Option<usize>) -> Shape {
        Shape {
            n,
            arrays,
            fixed,
            key_size: 4,
            value: Some(4),
        }
    }

    #[test]
    fn fast_scratch_only_where_needed() {
        // Fixed lengths up to one tile: no scratch at all.
        let s = shape(1000 * 2000, 1000, Some(2000));
        assert_eq!(s.fast_classes(), vec![SizeClass::Block2048]);
        assert_eq!(FastLayout::new(&s).unwrap().bytes, 0);
        let s = shape(10 * 5000, 10, Some(5000));
        assert_eq!(s.fast_classes(), vec![SizeClass::Large]);
        let l = FastLayout::new(&s).unwrap();
        assert!(l.bytes >= 8 * 50_000);
        assert_eq!((l.counts, l.words.len()), (0, LARGE_META_WORDS));
        // Offsets: counters and lists, and the copy once an array can pass the tile.
        let s = shape(4096, 3, None);
        let l = FastLayout::new(&s).unwrap();
        assert_eq!(l.tk.len(), 0);
        assert_eq!(l.counts, 8);
        assert_eq!(l.words.len(), 8);
        assert!(!s.fast_classes().contains(&SizeClass::Large));
        let s = shape(4097, 3, None);
        assert!(s.fast_classes().contains(&SizeClass::Large));
        let l = FastLayout::new(&s).unwrap();
        assert_eq!(l.tk.len(), 4 * 4097);
        // The large class's plan right after the counters, zeroed with them.
        assert_eq!((l.counts, l.words.len()), (8, 8 + LARGE_META_WORDS));
        // Nothing to sort.
        assert!(shape(1, 1, None).fast_classes().is_empty());
        assert_eq!(FastLayout::new(&shape(0, 0, None)).unwrap().bytes, 0);
    }

    /// The paper's per-array sample and counter ranges are disjoint and inside the regions.
    #[test]
    fn paper_ranges_are_disjoint() {
        let lens = [
            0usize, 1, 2, 9, 10, 19, 20, 21, 39, 40, 41, 199, 200, 1001, 3, 0, 77,
        ];
        let n: usize = lens.iter().sum();
        let s = shape(n, lens.len(), None);
        let l = PaperLayout::new(&s).unwrap();
        let (samples, buckets) = (l.sample.len() / 4, l.bucket.len());
        let (mut b, mut prev_s, mut prev_c) = (0usize, 0usize, 0usize);
        for (a, &len) in lens.iter().enumerate() {
            if len >= 2 {
                let (s0, c0) = (b / 10 + a, b / 20 + a);
                let (s1, c1) = (s0 + (len / 10).max(1), c0 + (len / 20).max(1));
                assert!(s0 >= prev_s && c0 >= prev_c, "array {a}");
                assert!(s1 <= samples && c1 <= buckets, "array {a}");
                (prev_s, prev_c) = (s1, c1);
            }
            b += len;
        }
    }
}
