// approxsort's kernels: the interval approximate sort (Xiao, Chen, Sun, "High Performance
// Approximate Sort Algorithm Using GPUs"), its refinement into a full sort (a bucket sort) and its
// quality report. One NVRTC module per configuration, `SOURCE` of kernels.rs: the family files of
// this folder concatenated in this order (each relies on those before it):
//   common.cuh          defines, types, arithmetic      maps.cuh        the interval maps
//   block_steps.cuh     warp, shared-memory, word-run and scan steps, the lead plan, claims
//   tile.cuh            tile bodies (count, load, staged scatter)
//   minmax.cuh, count.cuh, staged_scatter.cuh, wide_scatter.cuh (with the leading-bits pass),
//   paper.cuh, sampled.cuh, quality.cuh, refine_bucket.cuh, refine_small.cuh, helpers.cuh: the
//   kernels below, by family.
//
// Every key is ranked by its ordered bits (sortlab/thread/key_bits.cuh), XOR `flip` (all ones for
// a descending order), and its interval is a function of that word alone, the same function as
// the CPU twin (sortlab_cpu_reference::approx::IntervalMap):
//   equal width: with lo, hi the smallest and largest ranked word and span = hi - lo: interval
//     b - lo when span < m (every distinct key its own interval), else
//     floor((b - lo) * scale / 2^W) with scale = floor(m * 2^W / (span + 1)) (scale = m when
//     span + 1 = 2^W): exact integer arithmetic, no overflow, no division by zero;
//   sampled: the number of splitters <= b (splitters: m - 1 words from a sorted sample).
//
// Kernels (all index with 64 bits; n may exceed 2^32):
//   approx_minmax                       smallest and largest ordered bits (atomics into 2 words,
//                                       zeroed before: word 0 holds ~min, word 1 max)
//   approx_count_{equal,sampled}        per-block shared-memory counts of the m intervals
//                                       (m <= the policy's shared limit), flushed to `counts`;
//                                       the last block may scan them and the count matrix
//   approx_count_{equal,sampled}_global one warp-aggregated global atomic per interval and warp
//   approx_scatter_{equal,sampled}      tiles: keys ranked inside their interval with shared
//                                       atomics, one global atomic claim per interval and tile,
//                                       keys (and values) written to their interval
//   approx_scatter_{equal,sampled}_global  per-key claims, warp-aggregated
//   approx_minmax_lead                  min and max with a histogram of the ranks' leading bits;
//                                       its last block plans equal-width coarse bins of those
//                                       bits (or raises the flag that sends the sort to the
//                                       count pass)
//   approx_{coarse,fine}_{equal,sampled}   the staged two-pass scatter (coarse: each block at
//                                       its own places; fine: claims)
//   approx_wide_{equal,sampled}, approx_wide_fine_{equal,sampled}, approx_wide_lead   the wide
//                                       scatter: large tiles grouped by bin in shared memory,
//                                       each block at its own places (its column of the scanned
//                                       count matrix) or claiming them; the lead pass also
//                                       counts the intervals, its last block scans the counts
//   zero_words, scan_small, copy_pairs  helpers: counters zeroed in one launch, the counts and
//                                       the matrix scanned by one block, a copy
//   paper_assign_{equal,sampled}, paper_scatter   the paper's kernels: interval-index and
//                                       offset arrays in device memory, an atomic per key
//   sample_gather, pick_splitters, splitter_table   the sample of Intervals::Sampled, its
//                                       splitters and their bucket table
//   refine: seg_init, seg_minmax, seg_count, seg_scatter (one bucket pass over many segments at
//   once, described by tile and segment tables), classify_sort_small (sorts segments of at most
//   64 keys with a warp-wide bitonic network, lists the others), sort_block_list (segments of at
//   most SORT_THREADS * SORT_ITEMS keys, sortlab's BlockRadixSort on the bits that vary),
//   copy_list (segments of equal keys that must move).
//
// Dependent launches: every kernel is launched dependent (LaunchConfig::dependent,
// sortlab/grid/grid_dependency.cuh) and waits on its predecessor first thing. The small kernels
// (zeroing, gated fallbacks, scans, the paper's and refine's kernels) also let their successor
// launch at once (sortlab::dependent_entry); the three long passes of the leading-bits path
// (approx_minmax_lead, approx_wide_lead, approx_wide_fine_*) only wait: a successor launched at
// their start sits resident beside them for the whole pass (measured slower: README.md).
//
// Defines (policy: ApproxPolicy in policy.rs):
//   KEY_T, KEY_BITS_T the key's CUDA type and the word of its ordered bits
//   HAS_VALUES        1: key-value (VALUE_T values travel with their keys), 0: keys only
//   VALUE_T           the values' CUDA type (moved as raw bits)
//   SMALL_OFFSETS     1: every position fits 32 bits (n < 2^32): shared interval bases are u32
//                     and alias the counts
//   BLOCK_THREADS, ITEMS_PER_THREAD   the count/scatter tile (BLOCK_THREADS * ITEMS_PER_THREAD
//                     keys); ITEMS_PER_THREAD a multiple of the keys per 16-byte vector
//   BLOCKS_PER_SM     the blocks of BLOCK_THREADS that must fit a multiprocessor (register limit of
//                     the tile kernels' launch bounds)
//   WIDE_THREADS, WIDE_ITEMS, WIDE_BLOCKS_PER_SM   the wide scatter's tile (WIDE_THREADS *
//                     WIDE_ITEMS keys) and launch bounds
//   REDUCE_THREADS, REDUCE_UNROLL     approx_minmax: block size, 16-byte vectors per thread in
//                     flight
//   SORT_THREADS, SORT_ITEMS, SORT_RADIX_BITS   sort_block_list's tile and digit
#include "sortlab/thread/key_bits.cuh"
#include "sortlab/thread/type_traits.cuh"
#include "sortlab/warp/operators.cuh"
#include "sortlab/warp/shuffle.cuh"
#include "sortlab/block/block_reduce.cuh"
#include "sortlab/block/block_scan.cuh"
#include "sortlab/grid/last_block.cuh"
#include "sortlab/grid/grid_dependency.cuh"
#include "sortlab/block/block_radix_sort.cuh"
#include "sortlab/thread/key_defines.cuh"

#ifndef SMALL_OFFSETS
#define SMALL_OFFSETS 1
#endif
#ifndef BLOCK_THREADS
#define BLOCK_THREADS 1024
#endif
#ifndef ITEMS_PER_THREAD
#define ITEMS_PER_THREAD 4
#endif
#ifndef BLOCKS_PER_SM
#define BLOCKS_PER_SM 2
#endif
#ifndef REDUCE_THREADS
#define REDUCE_THREADS 256
#endif
#ifndef REDUCE_UNROLL
#define REDUCE_UNROLL 4
#endif
#ifndef WIDE_THREADS
#define WIDE_THREADS 1024
#endif
#ifndef WIDE_ITEMS
#define WIDE_ITEMS 16
#endif
#ifndef WIDE_BLOCKS_PER_SM
#define WIDE_BLOCKS_PER_SM 1
#endif
#ifndef SORT_THREADS
#define SORT_THREADS 256
#endif
#ifndef SORT_ITEMS
#define SORT_ITEMS 8
#endif
#ifndef SORT_RADIX_BITS
#define SORT_RADIX_BITS 6
#endif
// Sizes the host passes too (kernels.rs, module_defines: the values the host plans with; these
// defaults serve a compile of the file alone):
//   LEAD_BITS           the leading-bits histogram's buckets, log2
//   SPLIT_TABLE_BITS    the sampled map's table buckets, log2
//   SCAN_SMALL_THREADS  scan_small's block
#ifndef LEAD_BITS
#define LEAD_BITS 14
#endif
#ifndef SPLIT_TABLE_BITS
#define SPLIT_TABLE_BITS 12
#endif
#ifndef SCAN_SMALL_THREADS
#define SCAN_SMALL_THREADS 1024
#endif

// Hardware constants, not tuning: the warp and the 16-byte vector load.
#define WARP_THREADS 32
#define VECTOR_BYTES 16
// Segments of at most this many keys are sorted by one warp, two keys per lane.
#define WARP_SORT_MAX (2 * WARP_THREADS)

typedef KEY_T Key;
typedef sortlab::KeyBits<KEY_T> Map;
// The word of the keys' ordered bits (KEY_BITS_T from Defines::key): every kernel takes the
// order as a flip word of this type (Order::flip).
typedef KEY_BITS_T Bits;
static_assert(sortlab::IsSame<Bits, Map::Bits>::value, "KEY_BITS_T must be the ordered-bits word of KEY_T");
typedef VALUE_T Value;
// Shared interval bases and global claim counters: 32-bit when every position fits.
#if SMALL_OFFSETS
typedef u32 SharedOffset;
typedef u32 Claim;
#else
typedef u64 SharedOffset;
typedef unsigned long long Claim;
#endif

#define TILE_ITEMS (BLOCK_THREADS * ITEMS_PER_THREAD)
// The leading-bits histogram (approx_minmax_lead): 2^LEAD_BITS buckets of the ranks' leading bits.
#define LEAD_BUCKETS (1u << LEAD_BITS)
#define LEAD_SHIFT (8 * (int)sizeof(Bits) - LEAD_BITS)
#define KEY_VEC (VECTOR_BYTES / (int)sizeof(KEY_T))
#define SORT_TILE (SORT_THREADS * SORT_ITEMS)
static_assert(BLOCK_THREADS % WARP_THREADS == 0 && BLOCK_THREADS <= 1024, "BLOCK_THREADS: a multiple of 32, <= 1024");
static_assert(ITEMS_PER_THREAD % KEY_VEC == 0, "ITEMS_PER_THREAD must be a multiple of the keys per 16-byte vector");
static_assert(SORT_TILE > WARP_SORT_MAX, "the block sort tile must be larger than a warp sort");

// SplitMix64's finaliser (Steele, Lea, Flood): the sample-position hash, the same as
// sortlab_cpu_reference::approx::splitmix64. Published constants, not tuning.
__device__ __forceinline__ u64 splitmix64(u64 z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

__device__ __forceinline__ u32 mulhi(u32 a, u32 b) { return __umulhi(a, b); }
__device__ __forceinline__ u64 mulhi(u64 a, u64 b) { return __umul64hi(a, b); }

// floor(m * 2^32 / d) for m < d <= 2^32 - 1.
__device__ __forceinline__ u32 wide_div(u32 m, u32 d) { return (u32)(((u64)m << 32) / (u64)d); }
// floor(m * 2^64 / d) for m < d: restoring long division, one quotient bit per step.
__device__ __forceinline__ u64 wide_div(u64 m, u64 d) {
    u64 r = m, q = 0;
    for (int i = 0; i < 64; ++i) {
        const u64 carry = r >> 63;
        r <<= 1;
        q <<= 1;
        if (carry || r >= d) {
            r -= d;
            q |= 1;
        }
    }
    return q;
}

__device__ __forceinline__ u32 bit_length(u32 x) { return 32 - __clz(x); }
__device__ __forceinline__ u32 bit_length(u64 x) { return 64 - __clzll(x); }

