//! [`FastPolicy`]: the tuning of [`super::RadixVariant::Fast`], turned into kernel defines.

use sortlab_primitives::{Defines, Error, Result};

/// Tile counts of a portion stay below this, so a tile status word's 30-bit count never
/// overflows (onesweep.cu).
pub(crate) const PORTION_LIMIT: u64 = (1 << 30) - 1;

/// How the pass kernel finds, for each key, the lanes of its warp holding the same digit (the
/// warp-level multi-split of the ranking): the `MATCH_ALGO` define of `onesweep.cu`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RankMatch {
    /// `__match_any_sync`: one instruction, but slow on Hopper (README.md).
    Any = 0,
    /// `radix_bits` warp ballots, one per digit bit (CUB's `MatchAny`).
    Ballot = 1,
    /// Each lane `atomicOr`s its bit into its digit's mask in shared memory, and reads the
    /// mask back (CUB's `WARP_MATCH_ATOMIC_OR`): the fewest instructions, and the default
    /// (H100, u32 keys at 2^28: 7.04 ms against 7.84 with ballots).
    AtomicOr = 2,
    /// No warp finds its lanes with equal digits: the tile is split twice, stably, by the low
    /// and then the high 4 bits of the digit, each split ranked with four ballots and the
    /// warp's 16 counters in registers (no counters in shared memory, one more exchange of the
    /// tile through it). Digits of at most 8 bits. Fewer shared-memory wavefronts but twice
    /// the instructions, and slower than `AtomicOr` (README.md, "Tried and not kept").
    Split4 = 3,
}

/// The shape of the onesweep pass kernel's blocks.
///
/// ```
/// use sortlab_gpu_sorts::radix::PassShape;
/// assert_eq!(PassShape::new(384, 8, 3).tile_items(), 3072);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PassShape {
    /// Threads per block (a multiple of 32).
    pub threads: u32,
    /// Keys per thread; a tile is `threads * items` keys.
    pub items: u32,
    /// `__launch_bounds__` minimum of resident blocks per multiprocessor (caps registers).
    pub min_blocks: u32,
}

impl PassShape {
    /// `threads` × `items` keys a tile, `min_blocks` resident blocks.
    pub const fn new(threads: u32, items: u32, min_blocks: u32) -> Self {
        PassShape {
            threads,
            items,
            min_blocks,
        }
    }

    /// Keys per tile.
    pub fn tile_items(&self) -> usize {
        self.threads as usize * self.items as usize
    }
}

/// Tuning of the fast radix sort: the onesweep pass kernel, its histogram and plan kernels,
/// and the one-block kernel for small inputs (defines of `onesweep.cu` and `small.cu`).
///
/// [`FastPolicy::for_types`] gives the default for a key and value size; the fields are
/// public so that research users can time other shapes ([`super::tuning`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FastPolicy {
    /// Threads per block of the pass kernel (a multiple of 32).
    pub block_threads: u32,
    /// Keys per thread of the pass kernel; a tile is `block_threads * items_per_thread` keys.
    pub items_per_thread: u32,
    /// `__launch_bounds__` minimum of resident pass blocks per multiprocessor (caps registers).
    pub min_blocks: u32,
    /// Inputs of at most this many keys (and more than [`FastPolicy::small_max`]) take the pass
    /// kernel shaped `mid` instead: such an input has few tiles, each pass lasts about as long
    /// as one tile takes, and smaller tiles take less ([`FastPolicy::for_len`]). 0: never.
    pub mid_max: usize,
    /// The pass kernel's shape for inputs of at most `mid_max` keys.
    pub mid: PassShape,
    /// Inputs of at least this many keys take the pass kernel shaped `large` instead, where the
    /// device's shared memory holds such a block ([`FastPolicy::for_device`]); `usize::MAX`:
    /// never.
    pub large_min: usize,
    /// The pass kernel's shape for inputs of at least `large_min` keys.
    pub large: PassShape,
    /// Digit width, 1 to 11 bits (8: 256 digits, 4 passes for 32-bit keys).
    pub radix_bits: u32,
    /// How a warp finds its lanes with equal digits.
    pub rank_match: RankMatch,
    /// Threads per block of the histogram kernel.
    pub hist_threads: u32,
    /// Keys per thread of the histogram kernel.
    pub hist_items: u32,
    /// Resident histogram blocks per multiprocessor (the histogram grid is this times the
    /// multiprocessor count, or fewer).
    pub hist_blocks_per_sm: u32,
    /// Threads of the one-block plan kernel.
    pub plan_threads: u32,
    /// Predecessor tiles whose status one look-back step reads at once (1: one at a time).
    pub lookback_window: u32,
    /// Threads of the one-block sort of small inputs.
    pub small_threads: u32,
    /// Keys per thread of the one-block sort: inputs of at most `small_threads * small_items`
    /// keys take it (at most 65535).
    pub small_items: u32,
    /// Bits per in-block pass of the one-block sort (1 to 8).
    pub small_radix_bits: u32,
    /// Most tiles per portion (one pass launch each); `None`: as many as the 30-bit tile
    /// status counts allow. Small values test the multi-portion path on small inputs.
    pub portion_tiles: Option<u32>,
}

/// (threads, keys per thread, min blocks per SM) of the pass kernel for 4-byte keys: the fastest
/// shape measured (H100, 2^28 u32, 6.27-6.31 ms; the sweep is in README.md).
const KEYS_4B: PassShape = PassShape::new(384, 24, 2);
/// Mid-sized inputs (up to MID_MAX keys): a sort of so few tiles lasts about as long as a tile
/// takes, and smaller tiles take less (H100, 2^16 u32: 0.042 ms against 0.058 with KEYS_4B).
const MID: PassShape = PassShape::new(384, 8, 3);
/// The largest input that takes the mid-sized shape (between 2^18 and 2^20, where the two
/// shapes cross).
const MID_MAX: usize = 1 << 19;
/// 4-byte keys with 4-byte values from LARGE_MIN keys on: 896×18, one block an SM (187 KiB of
/// shared memory: Hopper's 227 KiB hold it, Ampere's 163 do not, and keep PAIRS_4B). H100, 2^28:
/// 8.66 ms against 9.28 with PAIRS_4B.
const LARGE_PAIRS_4B: PassShape = PassShape::new(896, 18, 1);
/// The smallest input that takes the large shape (between 2^24, where the two shapes tie, and
/// 2^26).
const LARGE_MIN: usize = 1 << 25;
/// 4-byte keys with 4-byte values (H100, 2^28 u32/u32: 9.27 ms, the fastest measured).
const PAIRS_4B: PassShape = PassShape::new(512, 16, 2);
/// 4-byte keys with 8-byte values: 384×15, so that two blocks' shared memory fits.
const PAIRS_4B_WIDE: PassShape = PassShape::new(384, 15, 2);
/// 8-byte keys.
const KEYS_8B: PassShape = PassShape::new(512, 12, 2);
/// 8-byte keys with values: 384×12, so that two blocks' shared memory fits.
const PAIRS_8B: PassShape = PassShape::new(384, 12, 2);
/// Histogram kernel: 8 blocks of 256 threads × 16 keys per SM (H100, 2^28 u32 keys: 0.456 ms,
/// as CUB's histogram kernel).
const HIST_BLOCKS_PER_SM: u32 = 8;
/// Look-back window: 8 predecessors per step (H100, 2^28 u32 keys: 5.80 ms, 4: 5.77, 16: 5.93;
/// pairs 9.27 with 8, the best).
const LOOKBACK_WINDOW: u32 = 8;
/// The digit: 8 bits (11 bits, three passes, measured slower: README.md).
const RADIX_BITS: u32 = 8;
/// One-block sort: 256 threads × 16 keys (4096) where key and value take at most 8 bytes,
/// × 8 (2048) otherwise: the block radix sort's exchange of keys and values then fits the
/// 48 KiB of static shared memory.
const SMALL_THREADS: u32 = 256;
const SMALL_ITEMS_NARROW: u32 = 16;
const SMALL_ITEMS_WIDE: u32 = 8;
/// The one-block sort's digit: 4 bits (its packed counters take 9 words per thread; 8 bits
/// would take 129).
const SMALL_RADIX_BITS: u32 = 4;

impl FastPolicy {
    /// The default policy for keys of `key_size` bytes and values of `value_size` bytes (0 for
    /// keys only); the same on every architecture sortlab supports, for now.
    pub fn for_types(key_size: usize, value_size: usize) -> Self {
        let main = match (key_size > 4, value_size) {
            (true, 0) => KEYS_8B,
            (true, _) => PAIRS_8B,
            (false, 0) => KEYS_4B,
            (false, v) if v <= 4 => PAIRS_4B,
            (false, _) => PAIRS_4B_WIDE,
        };
        let (large_min, large) = if key_size <= 4 && (1..=4).contains(&value_size) {
            (LARGE_MIN, LARGE_PAIRS_4B)
        } else {
            (usize::MAX, main)
        };
        FastPolicy {
            block_threads: main.threads,
            items_per_thread: main.items,
            min_blocks: main.min_blocks,
            mid_max: MID_MAX,
            mid: MID,
            large_min,
            large,
            radix_bits: RADIX_BITS,
            rank_match: RankMatch::AtomicOr,
            hist_threads: 256,
            hist_items: 16,
            hist_blocks_per_sm: HIST_BLOCKS_PER_SM,
            plan_threads: 256,
            lookback_window: LOOKBACK_WINDOW,
            small_threads: SMALL_THREADS,
            small_items: if key_size + value_size <= 8 {
                SMALL_ITEMS_NARROW
            } else {
                SMALL_ITEMS_WIDE
            },
            small_radix_bits: SMALL_RADIX_BITS,
            portion_tiles: None,
        }
    }

    /// The policy that sorts `n` keys: this one, with the mid-sized pass shape in place of the
    /// main one when `n <= mid_max`, the large shape when `n >= large_min` (whether or not a
    /// device holds its block: see [`FastPolicy::for_device`]).
    ///
    /// ```
    /// use sortlab_gpu_sorts::radix::FastPolicy;
    /// let p = FastPolicy::for_types(4, 4);
    /// assert_eq!(p.for_len(p.mid_max).shape(), p.mid);
    /// assert_eq!(p.for_len(p.mid_max + 1), p);
    /// assert_eq!(p.for_len(p.large_min).shape(), p.large);
    /// ```
    pub fn for_len(&self, n: usize) -> FastPolicy {
        if n <= self.mid_max {
            self.with_shape(self.mid)
        } else if n >= self.large_min {
            self.with_shape(self.large)
        } else {
            *self
        }
    }

    /// The main pass shape (`block_threads`, `items_per_thread`, `min_blocks`).
    pub fn shape(&self) -> PassShape {
        PassShape::new(self.block_threads, self.items_per_thread, self.min_blocks)
    }

    /// This policy with `shape` as its main pass shape.
    pub fn with_shape(&self, shape: PassShape) -> FastPolicy {
        FastPolicy {
            block_threads: shape.threads,
            items_per_thread: shape.items,
            min_blocks: shape.min_blocks,
            ..*self
        }
    }

    /// [`FastPolicy::for_len`] on a device whose blocks may use `max_shared` bytes of shared
    /// memory: the main shape where the chosen one's block would need more (keys of
    /// `key_size` and values of `value_size` bytes).
    ///
    /// ```
    /// use sortlab_gpu_sorts::radix::FastPolicy;
    /// let p = FastPolicy::for_types(4, 4);
    /// assert_eq!(p.for_device(p.large_min, 4, 4, 227 << 10).shape(), p.large);
    /// assert_eq!(p.for_device(p.large_min, 4, 4, 163 << 10), p);
    /// ```
    pub fn for_device(
        &self,
        n: usize,
        key_size: usize,
        value_size: usize,
        max_shared: usize,
    ) -> FastPolicy {
        let p = self.for_len(n);
        if p.pass_shared_bytes(key_size, value_size) <= max_shared {
            p
        } else {
            *self
        }
    }

    /// Keys per tile of the pass kernel.
    pub fn tile_items(&self) -> usize {
        self.shape().tile_items()
    }

    /// The largest input the one-block sort takes.
    pub fn small_max(&self) -> usize {
        self.small_threads as usize * self.small_items as usize
    }

    /// Tiles per portion.
    pub(crate) fn tiles_per_portion(&self) -> u64 {
        let limit = PORTION_LIMIT / self.tile_items() as u64;
        match self.portion_tiles {
            Some(t) => (t as u64).min(limit),
            None => limit,
        }
    }

    /// Digits per pass.
    pub(crate) fn digits(&self) -> usize {
        1 << self.radix_bits
    }

    /// Dynamic shared memory of the pass kernel (onesweep.cu's SMEM_BYTES).
    pub fn pass_shared_bytes(&self, key_size: usize, value_size: usize) -> usize {
        let align16 = |x: usize| x.div_ceil(16) * 16;
        let d = self.digits();
        let tile = self.tile_items();
        let warps = self.block_threads as usize / 32;
        let exchange = d * 8 + align16(tile * key_size) + align16(tile * value_size);
        match self.rank_match {
            // The tile's digit counts, the warps' counts of 16 nibbles for each of the two
            // splits, and (pairs) each key's 16-bit move in the second split.
            RankMatch::Split4 => {
                let moves = if value_size > 0 { align16(tile * 2) } else { 0 };
                exchange + d * 4 + 2 * warps * 16 * 4 + moves
            }
            RankMatch::AtomicOr => exchange + 2 * warps * d * 4,
            RankMatch::Any | RankMatch::Ballot => exchange + warps * d * 4,
        }
    }

    /// Checks the policy's own limits (the device's are checked before launching).
    pub fn validate(&self) -> Result<()> {
        let bad = |what: String| Err(Error::InvalidArgument(format!("fast radix policy: {what}")));
        for (name, shape) in [
            ("main", self.shape()),
            ("mid", self.mid),
            ("large", self.large),
        ] {
            let PassShape {
                threads,
                items,
                min_blocks,
            } = shape;
            if !(32..=1024).contains(&threads) || threads % 32 != 0 || items == 0 || min_blocks == 0
            {
                return bad(format!(
                    "{name} pass shape {threads}x{items} x{min_blocks}: threads a multiple of 32 \
                     from 32 to 1024, items and blocks positive"
                ));
            }
            if shape.tile_items() as u64 > PORTION_LIMIT {
                return bad(format!(
                    "a tile of {} keys is too large",
                    shape.tile_items()
                ));
            }
            // Split4 packs a key's rank in its warp in 12 bits and its tile position in 16.
            if self.rank_match == RankMatch::Split4
                && (items * 32 > 4096 || shape.tile_items() > 1 << 16)
            {
                return bad(format!(
                    "{name} pass shape {threads}x{items}: Split4 takes at most 128 keys a \
                     thread and 65536 a tile"
                ));
            }
        }
        if self.rank_match == RankMatch::Split4 && self.radix_bits > 8 {
            return bad(format!(
                "Split4 splits digits of at most 8 bits, not {}",
                self.radix_bits
            ));
        }
        for (name, t) in [
            ("hist_threads", self.hist_threads),
            ("plan_threads", self.plan_threads),
            ("small_threads", self.small_threads),
        ] {
            if !(32..=1024).contains(&t) || t % 32 != 0 {
                return bad(format!(
                    "{name} = {t} is not a multiple of 32 from 32 to 1024"
                ));
            }
        }
        if self.hist_items == 0 || self.small_items == 0 {
            return bad("items per thread must be positive".into());
        }
        if self.hist_items % 4 != 0 {
            return bad(format!(
                "hist_items = {} is not a multiple of 4 (16-byte loads)",
                self.hist_items
            ));
        }
        if !(1..=64).contains(&self.lookback_window) {
            return bad(format!(
                "lookback_window = {} is not 1 to 64",
                self.lookback_window
            ));
        }
        if self.hist_blocks_per_sm == 0 {
            return bad("hist_blocks_per_sm must be positive".into());
        }
        if !(1..=11).contains(&self.radix_bits) {
            return bad(format!("radix_bits = {} is not 1 to 11", self.radix_bits));
        }
        if !(1..=8).contains(&self.small_radix_bits) {
            return bad(format!(
                "small_radix_bits = {} is not 1 to 8",
                self.small_radix_bits
            ));
        }
        if self.small_max() > 65535 {
            return bad(format!(
                "the one-block sort takes at most 65535 keys, not {}",
                self.small_max()
            ));
        }
        if self.portion_tiles == Some(0) {
            return bad("portion_tiles must be positive".into());
        }
        Ok(())
    }

    /// Defines of `onesweep.cu` (besides the key and value words).
    pub(crate) fn pass_defines(&self) -> Defines {
        Defines::new()
            .set("BLOCK_THREADS", self.block_threads)
            .set("ITEMS_PER_THREAD", self.items_per_thread)
            .set("MIN_BLOCKS", self.min_blocks)
            .set("RADIX_BITS", self.radix_bits)
            .set("MATCH_ALGO", self.rank_match as u32)
            .set("HIST_THREADS", self.hist_threads)
            .set("HIST_ITEMS", self.hist_items)
            .set("PLAN_THREADS", self.plan_threads)
            .set("LOOKBACK_WINDOW", self.lookback_window)
    }

    /// Defines of `small.cu` (besides the key and value words).
    pub(crate) fn small_defines(&self) -> Defines {
        Defines::new()
            .set("SMALL_THREADS", self.small_threads)
            .set("SMALL_ITEMS", self.small_items)
            .set("SMALL_RADIX_BITS", self.small_radix_bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        for (k, v) in [(4, 0), (4, 4), (4, 8), (8, 0), (8, 4), (8, 8)] {
            let p = FastPolicy::for_types(k, v);
            p.validate().unwrap();
            assert!(p.tiles_per_portion() * (p.tile_items() as u64) < 1 << 30);
            // Within what a Hopper or Ampere block may opt into (227 KiB, 163 KiB on A100).
            // Two blocks per multiprocessor fit Hopper's 228 KiB, and three mid-sized ones.
            assert!(p.pass_shared_bytes(k, v) < 110 * 1024, "{k} {v}");
            let mid = p.for_len(p.mid_max);
            assert!(mid.pass_shared_bytes(k, v) <= 74 * 1024, "{k} {v} mid");
            assert!(p.mid_max > p.small_max() && p.large_min > p.mid_max);
            // The large shape: within Hopper's 227 KiB; elsewhere the main shape takes over.
            let large = p.for_len(p.large_min);
            assert!(large.pass_shared_bytes(k, v) <= 227 * 1024, "{k} {v} large");
            assert_eq!(p.for_device(p.large_min, k, v, 100 * 1024), p);
            assert!(p.small_max() * (k + v) <= 40 * 1024);
        }
        let mut p = FastPolicy::for_types(4, 0);
        p.radix_bits = 12;
        assert!(p.validate().is_err());
        p.radix_bits = 8;
        p.block_threads = 100;
        assert!(p.validate().is_err());
        let mut p = FastPolicy::for_types(4, 4);
        p.mid.items = 0;
        assert!(p.validate().is_err());
    }
}
