//! [`BlockSortPolicy`]: threads, keys per thread and radix bits of the tile kernels.

use super::BlockSortAlgo;
use crate::error::{Error, Result};
use crate::runtime::{Defines, Policy};

/// Launch policy of the tile kernels of `block.cu` (defines `BLOCK_THREADS`,
/// `ITEMS_PER_THREAD`, `RADIX_BITS` and `HISTOGRAM_MAX_BINS`). A block sorts a tile of up to
/// [`BlockSortPolicy::capacity`] keys; a shorter tile is a partial one (padded in the block).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlockSortPolicy {
    /// Threads per block: a power of two from 32 to 1024.
    pub block_threads: u32,
    /// Keys per thread, in registers (any positive number).
    pub items_per_thread: u32,
    /// Bits per radix pass (1 to 8).
    pub radix_bits: u32,
}

/// The largest tile of 4-byte keys: 512 threads × 32 keys. The block radix rank counts in 16
/// bits (at most 65535 keys), and with 8-byte values the radix sort's exchange needs 206 KiB of
/// shared memory, within the 227 KiB a Hopper or Ampere block may opt into.
pub const MAX_TILE_4B: usize = 16384;
/// The largest tile of 8-byte keys: 512 threads × 16 keys (the bitonic network with values
/// needs 136 KiB of shared memory).
pub const MAX_TILE_8B: usize = 8192;
/// The widest digit [`crate::block::histogram`] counts: 256 bins per tile.
pub const HISTOGRAM_MAX_BITS: u32 = 8;

/// Bytes of keys per thread the policy aims for: 64, i.e. 16 four-byte or 8 eight-byte keys (the
/// fastest shapes of the sweep in `primitives/README.md`; H100, tiles of 2048 as 128 × 16: 84 /
/// 54 / 98 Gkeys/s radix / bitonic / merge). Eight-byte keys take the same register bytes.
const TARGET_KEY_BYTES: usize = 64;
/// The bitonic network's target: 128 bytes (32 four-byte keys) per thread, since every step of
/// partner distance below the thread's chunk runs in registers without a __syncthreads() (H100,
/// tiles of 2048 as 64 × 32: 80 Gkeys/s against 54 as 128 × 16; `primitives/README.md`).
const BITONIC_KEY_BYTES: usize = 128;
/// The smallest block (one warp).
const MIN_THREADS: usize = 32;
/// The largest block: 512 threads leave 128 registers per thread (1024 would leave 64).
const MAX_THREADS: usize = 512;
/// Satish et al.'s digit: 4 bits, 16 counters per thread and pass.
const RADIX_BITS: u32 = 4;

impl BlockSortPolicy {
    /// The largest tile of keys of `key_size` bytes (4 or 8).
    pub fn max_tile(key_size: usize) -> usize {
        if key_size <= 4 {
            MAX_TILE_4B
        } else {
            MAX_TILE_8B
        }
    }

    /// The policy for tiles of `tile` keys of `key_size` bytes: the smallest power-of-two
    /// block (32 to 512 threads) that holds the tile with about 64 bytes of keys per thread
    /// (16 four-byte or 8 eight-byte keys), and as many keys per thread as then needed. Four-byte
    /// keys: tiles of 2048 run as 128 × 16, 8192 as 512 × 16, 16384 as 512 × 32, 1792 as
    /// 128 × 14, 100 as 32 × 4 (a partial tile of 128); eight-byte keys: 2048 as 256 × 8,
    /// 1792 as 256 × 7.
    ///
    /// Errors: [`Error::InvalidArgument`] for a tile of 0 keys or one longer than
    /// [`BlockSortPolicy::max_tile`].
    pub fn for_tile(tile: usize, key_size: usize) -> Result<Self> {
        Self::shaped(tile, key_size, TARGET_KEY_BYTES)
    }

    /// The policy [`crate::block::sort_tiles`] uses for `algo`: [`BlockSortPolicy::for_tile`]'s,
    /// except for [`BlockSortAlgo::Bitonic`], which runs fastest with twice the keys per thread
    /// (tiles of 2048 four-byte keys as 64 × 32, 8192 as 256 × 32).
    ///
    /// Errors: as [`BlockSortPolicy::for_tile`].
    pub fn for_algo(tile: usize, key_size: usize, algo: BlockSortAlgo) -> Result<Self> {
        match algo {
            BlockSortAlgo::Bitonic => Self::shaped(tile, key_size, BITONIC_KEY_BYTES),
            BlockSortAlgo::Radix | BlockSortAlgo::Merge => Self::for_tile(tile, key_size),
        }
    }

    fn shaped(tile: usize, key_size: usize, key_bytes: usize) -> Result<Self> {
        let max = Self::max_tile(key_size);
        if tile == 0 || tile > max {
            return Err(Error::InvalidArgument(format!(
                "a block tile holds 1 to {max} keys of {key_size} bytes; got a tile of {tile}"
            )));
        }
        let threads = tile
            .div_ceil(key_bytes / key_size.clamp(4, 8))
            .next_power_of_two()
            .clamp(MIN_THREADS, MAX_THREADS);
        Ok(BlockSortPolicy {
            block_threads: threads as u32,
            items_per_thread: tile.div_ceil(threads) as u32,
            radix_bits: RADIX_BITS,
        })
    }

    /// Keys per block: `block_threads * items_per_thread`.
    pub fn capacity(&self) -> usize {
        self.block_threads as usize * self.items_per_thread as usize
    }

    /// Checks a hand-made policy for tiles of `tile` keys: a power-of-two block of 32 to 1024
    /// threads, 1 to 64 keys per thread, 1 to 8 radix bits, a capacity of at least `tile` and
    /// at most 65535 keys (the radix rank's 16-bit counters).
    ///
    /// Errors: [`Error::InvalidArgument`] naming the first rule broken.
    pub fn check(&self, tile: usize) -> Result<()> {
        let fail = |what: String| Err(Error::InvalidArgument(format!("{self:?}: {what}")));
        if !(32..=1024).contains(&self.block_threads) || !self.block_threads.is_power_of_two() {
            return fail("block_threads must be a power of two from 32 to 1024".into());
        }
        if !(1..=MAX_ITEMS).contains(&self.items_per_thread) {
            return fail(format!("items_per_thread must be 1 to {MAX_ITEMS}"));
        }
        if !(1..=8).contains(&self.radix_bits) {
            return fail("radix_bits must be 1 to 8".into());
        }
        if self.capacity() > MAX_CAPACITY {
            return fail(format!("a block holds at most {MAX_CAPACITY} keys"));
        }
        if tile == 0 || tile > self.capacity() {
            return fail(format!(
                "a tile of {tile} keys needs a capacity of 1 to {} keys",
                self.capacity()
            ));
        }
        Ok(())
    }
}

/// The most keys per thread a hand-made policy may ask for (registers, and compile time: the
/// per-thread sorting networks are unrolled).
const MAX_ITEMS: u32 = 64;
/// The block radix rank's 16-bit counters hold at most 65535 keys.
const MAX_CAPACITY: usize = 65535;

impl Policy for BlockSortPolicy {
    fn defines(&self) -> Defines {
        Defines::new()
            .set("BLOCK_THREADS", self.block_threads)
            .set("ITEMS_PER_THREAD", self.items_per_thread)
            .set("RADIX_BITS", self.radix_bits)
            .set("HISTOGRAM_MAX_BINS", 1u32 << HISTOGRAM_MAX_BITS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_hold_their_tiles() {
        for (tile, size, shape) in [
            (2048, 4, (128, 16)),
            (8192, 4, (512, 16)),
            (16384, 4, (512, 32)),
            (1792, 4, (128, 14)),
            (100, 4, (32, 4)),
            (2048, 8, (256, 8)),
            (8192, 8, (512, 16)),
            (1792, 8, (256, 7)),
        ] {
            let p = BlockSortPolicy::for_tile(tile, size).unwrap();
            assert_eq!(
                (p.block_threads, p.items_per_thread),
                shape,
                "{tile} x {size}"
            );
        }
        for (tile, size, shape) in [
            (2048, 4, (64, 32)),
            (8192, 4, (256, 32)),
            (8192, 8, (512, 16)),
        ] {
            let p = BlockSortPolicy::for_algo(tile, size, BlockSortAlgo::Bitonic).unwrap();
            assert_eq!(
                (p.block_threads, p.items_per_thread),
                shape,
                "{tile} x {size}"
            );
        }
        for key_size in [4, 8] {
            for tile in (1..=BlockSortPolicy::max_tile(key_size)).step_by(97) {
                for algo in BlockSortAlgo::ALL {
                    let p = BlockSortPolicy::for_algo(tile, key_size, algo).unwrap();
                    assert!(p.capacity() >= tile, "{tile}: {p:?}");
                    assert!(p.check(tile).is_ok(), "{tile}: {p:?}");
                    assert!(p.items_per_thread <= 32);
                }
            }
        }
    }

    #[test]
    fn hand_made_policies_are_checked() {
        let ok = BlockSortPolicy {
            block_threads: 128,
            items_per_thread: 15,
            radix_bits: 6,
        };
        assert!(ok.check(1920).is_ok());
        assert!(ok.check(1).is_ok());
        for (p, tile) in [
            (
                BlockSortPolicy {
                    block_threads: 96,
                    ..ok
                },
                10,
            ),
            (
                BlockSortPolicy {
                    block_threads: 2048,
                    ..ok
                },
                10,
            ),
            (
                BlockSortPolicy {
                    items_per_thread: 0,
                    ..ok
                },
                10,
            ),
            (
                BlockSortPolicy {
                    items_per_thread: 65,
                    ..ok
                },
                10,
            ),
            (
                BlockSortPolicy {
                    radix_bits: 9,
                    ..ok
                },
                10,
            ),
            (
                BlockSortPolicy {
                    block_threads: 1024,
                    items_per_thread: 64,
                    ..ok
                },
                10,
            ),
            (ok, 1921),
            (ok, 0),
        ] {
            let e = p.check(tile).unwrap_err();
            assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
        }
    }

    #[test]
    fn bad_tiles_are_errors() {
        for (tile, size) in [(0, 4), (MAX_TILE_4B + 1, 4), (MAX_TILE_8B + 1, 8)] {
            let e = BlockSortPolicy::for_tile(tile, size).unwrap_err();
            assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
            assert!(
                e.to_string()
                    .contains(&BlockSortPolicy::max_tile(size).to_string()),
                "{e}"
            );
        }
    }
}
