// merge.cu: the merge sorts of MergeVariant::Satish and MergeVariant::Fast. Both start by sorting
// tiles in shared memory and then merge sorted runs pairwise, level after level, between the
// caller's buffer and a scratch buffer:
//   merge_sort_tiles   every tile of SORT_THREADS * SORT_ITEMS keys sorted by the block merge sort
//                      of `primitives` (sortlab/block/block_merge_sort.cuh); also the whole sort
//                      of an input of at most one tile (one block, in place);
//   merge_rank_pass    Satish: one merge level, one thread per element: its output position is
//                      its index in its run plus its rank in the other run (binary search);
//   merge_partition    Fast: the merge-path split of every merge block's first output;
//   merge_path_pass    Fast: one merge level, MERGE_THREADS * MERGE_ITEMS outputs a block: both
//                      runs' slices merged in shared memory by primitives' BlockMerge
//                      (sortlab/block/block_merge.cuh; the block body is merge_tile);
//   merge_pair_partition, merge_pair_pass
//                      the same partition and merge_tile blocks for one explicit pair of runs
//                      of any lengths, [start, start + a_len) and [start + a_len, ... + b_len),
//                      into the same positions of the output (the multi-GPU sort's merge).
//
// Keys are compared as ordered bits in the sort's order (sortlab::flip_bits with the flip word
// of Order::flip); every merge takes from the left run on ties and every tile sort is stable, so
// both sorts are stable in both orders. Positions are u64 throughout (inputs past 2^32 keys);
// counts inside a block are u32.
//
// Level geometry (both merge kernels): runs of `width` = 2^width_log2 keys (the tiles are powers
// of two: no 64-bit division), the last one possibly shorter; pair p merges runs 2p and 2p + 1
// into output [2p * width, min(n, (2p + 2) * width)); a pair
// whose right run is empty (an odd run count) is a copy.
//
// Defines:
//   KEY_T, KEY_BITS_T, VALUE_T, HAS_VALUES   the shared vocabulary (key_defines.cuh)
//   SORT_THREADS, SORT_ITEMS    the tile sort's block (a power of two) and keys per thread
//   SORT_SMEM_BYTES             its dynamic shared memory: sizeof the block sort's TempStorage
//   SORT_MIN_BLOCKS             its resident blocks per multiprocessor (__launch_bounds__)
//   MERGE_THREADS, MERGE_ITEMS  merge_tile's block and outputs per thread
//   MERGE_SMEM_BYTES            its dynamic shared memory (keys and values of one block tile)
//   MERGE_MIN_BLOCKS            its resident blocks per multiprocessor (__launch_bounds__)
//   PARTITION_THREADS           merge_partition's and merge_pair_partition's block
//   RANK_THREADS                merge_rank_pass's block
#include "sortlab/block/block_merge.cuh"
#include "sortlab/block/block_merge_sort.cuh"
#include "sortlab/block/block_sort_span.cuh"
#include "sortlab/grid/grid_dependency.cuh"
#include "sortlab/thread/key_bits.cuh"
#include "sortlab/thread/key_defines.cuh"
#include "sortlab/thread/merge_path_keys.cuh"

#ifndef SORT_THREADS
#define SORT_THREADS 256
#endif
#ifndef SORT_ITEMS
#define SORT_ITEMS 4
#endif
#ifndef MERGE_THREADS
#define MERGE_THREADS 256
#endif
#ifndef MERGE_ITEMS
#define MERGE_ITEMS 8
#endif
#ifndef SORT_MIN_BLOCKS
#define SORT_MIN_BLOCKS 1
#endif
#ifndef MERGE_MIN_BLOCKS
#define MERGE_MIN_BLOCKS 1
#endif
#ifndef PARTITION_THREADS
#define PARTITION_THREADS 256
#endif
#ifndef RANK_THREADS
#define RANK_THREADS 256
#endif

typedef KEY_T Key;
typedef KEY_BITS_T Bits;
typedef VALUE_T Value;

#if HAS_VALUES
typedef Value SortValueT;
#else
typedef sortlab::NullValue SortValueT;
#endif

#define SORT_TILE (SORT_THREADS * SORT_ITEMS)
#define MERGE_TILE (MERGE_THREADS * MERGE_ITEMS)

typedef sortlab::BlockSortSpan<Key, Bits, SortValueT, SORT_THREADS, SORT_ITEMS> TileSpan;
typedef TileSpan::Sort TileSort;

#ifdef SORT_SMEM_BYTES
static_assert(sizeof(TileSort::TempStorage) == SORT_SMEM_BYTES,
              "SORT_SMEM_BYTES must be the block sort's TempStorage size (the host's formula)");
#else
#define SORT_SMEM_BYTES ((int)sizeof(TileSort::TempStorage))
#endif

extern __shared__ __align__(16) unsigned char merge_smem[];

// ---- The tile sort. ----

// Sorts every tile [t * SORT_TILE, min(n, (t + 1) * SORT_TILE)) of keys_in (and values_in) into
// the same place of keys_out (values_out): in place when they are the same buffers (a block reads
// its whole tile before it writes it). Grid-strided over the tiles. smem_bytes: the dynamic
// shared memory given (at least SORT_SMEM_BYTES).
extern "C" __global__ void __launch_bounds__(SORT_THREADS, SORT_MIN_BLOCKS)
merge_sort_tiles(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out, u64 n, Bits flip,
                 u32 smem_bytes) {
    sortlab::dependent_entry();
    if (smem_bytes < (u32)SORT_SMEM_BYTES) __trap();
    const u64 tiles = (n + SORT_TILE - 1) / SORT_TILE;
    for (u64 t = blockIdx.x; t < tiles; t += gridDim.x) {
        const u64 base = t * SORT_TILE;
        const u64 left = n - base;
        const u32 valid = left < SORT_TILE ? (u32)left : (u32)SORT_TILE;
#if HAS_VALUES
        TileSpan::sort_tile(keys_in + base, values_in + base, keys_out + base, values_out + base, valid, flip,
                            merge_smem);
#else
        (void)values_in;
        (void)values_out;
        TileSpan::sort_tile(keys_in + base, nullptr, keys_out + base, nullptr, valid, flip, merge_smem);
#endif
    }
}

// ---- Level geometry. ----

// The pair of runs that output position `pos` of a level of runs of `width` keys belongs to:
// its first output `start`, and the lengths of its left and right runs.
struct Pair {
    u64 start;
    u64 a_len;
    u64 b_len;
};
__device__ __forceinline__ Pair pair_of(u64 pos, u64 n, u32 width_log2) {
    const u64 width = (u64)1 << width_log2;
    Pair p;
    p.start = (pos >> (width_log2 + 1)) << (width_log2 + 1);
    const u64 rest = n - p.start;
    p.a_len = rest < width ? rest : width;
    p.b_len = rest - p.a_len < width ? rest - p.a_len : width;
    return p;
}

// The ordered bits of key i of a run in global memory.
__device__ __forceinline__ Bits bits_at(const Key* run, u64 i, Bits flip) { return sortlab::flip_bits(run[i], flip); }

// ---- Satish: merge by rank. ----

// The number of keys of run[0 .. len) that go before `key`: strictly less (lower bound) when
// `or_equal` is false, less or equal (upper bound) when it is true.
__device__ __forceinline__ u64 rank_in(const Key* run, u64 len, Bits key, bool or_equal, Bits flip) {
    u64 lo = 0, hi = len;
    while (lo < hi) {
        const u64 mid = (lo + hi) >> 1;
        const Bits m = bits_at(run, mid, flip);
        if (m < key || (or_equal && m == key)) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// One merge level: key i of keys_in (runs of 2^width_log2, sorted) goes to keys_out[pair start + its
// index in its run + its rank in the other run]. Ties are broken by run, for stability and for
// distinct positions: a key of the left run counts the right run's keys strictly less, a key of
// the right run counts the left run's keys less or equal. Grid-strided over the keys.
extern "C" __global__ void __launch_bounds__(RANK_THREADS)
merge_rank_pass(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out, u64 n, u32 width_log2,
                Bits flip) {
    sortlab::dependent_entry();
    const u64 stride = (u64)gridDim.x * RANK_THREADS;
    for (u64 i = (u64)blockIdx.x * RANK_THREADS + threadIdx.x; i < n; i += stride) {
        const Pair p = pair_of(i, n, width_log2);
        const Key* a = keys_in + p.start;
        const Key* b = a + p.a_len;
        const Key raw = keys_in[i];
        const Bits key = sortlab::flip_bits(raw, flip);
        const u64 own = i - p.start;
        u64 out;
        if (own < p.a_len) {
            out = p.start + own + rank_in(b, p.b_len, key, false, flip);
        } else {
            out = p.start + (own - p.a_len) + rank_in(a, p.a_len, key, true, flip);
        }
        keys_out[out] = raw;
#if HAS_VALUES
        values_out[out] = values_in[i];
#else
        (void)values_in;
        (void)values_out;
#endif
    }
}

// ---- Fast: merge-path merges. ----

// splits[t] = the number of left-run keys among the outputs of pair_of(t * MERGE_TILE) that
// precede output t * MERGE_TILE, for every merge block t < blocks. Grid-strided.
extern "C" __global__ void __launch_bounds__(PARTITION_THREADS)
merge_partition(const Key* keys, u64 n, u32 width_log2, u64 blocks, u64* splits, Bits flip) {
    sortlab::dependent_entry();
    const u64 stride = (u64)gridDim.x * PARTITION_THREADS;
    for (u64 t = (u64)blockIdx.x * PARTITION_THREADS + threadIdx.x; t < blocks; t += stride) {
        const u64 pos = t * MERGE_TILE;
        const Pair p = pair_of(pos, n, width_log2);
        const Key* a = keys + p.start;
        splits[t] = sortlab::merge_path_keys(a, p.a_len, a + p.a_len, p.b_len, pos - p.start, flip);
    }
}

typedef sortlab::BlockMerge<Key, Bits, SortValueT, MERGE_THREADS, MERGE_ITEMS> TileMerge;
#ifdef MERGE_SMEM_BYTES
static_assert(TileMerge::SMEM_BYTES == MERGE_SMEM_BYTES, "MERGE_SMEM_BYTES must be the host's formula");
#else
#define MERGE_SMEM_BYTES TileMerge::SMEM_BYTES
#endif

// One block's tile of a merge: writes outputs [o0, min(o0 + MERGE_TILE, pair end)) of pair p
// (o0 - p.start a multiple of MERGE_TILE) of keys_in (values_in) to the same positions of
// keys_out (values_out). Its left-run slice starts at tile_splits[0] and ends at tile_splits[1]
// (or the run's end when the tile ends its pair: tile_splits[1] is then not read); its right-run
// slice follows from the diagonals. The caller has checked the dynamic shared memory.
__device__ __forceinline__ void merge_tile(const Key* keys_in, const Value* values_in, Key* keys_out,
                                           Value* values_out, const Pair p, const u64 o0, const u64* tile_splits,
                                           Bits flip) {
    const u64 pair_len = p.a_len + p.b_len;
    const u64 end = o0 + MERGE_TILE < p.start + pair_len ? o0 + MERGE_TILE : p.start + pair_len;
    const u64 diag0 = o0 - p.start;
    const u64 diag1 = end - p.start;
    const u64 a0 = tile_splits[0];
    const u64 a1 = diag1 == pair_len ? p.a_len : tile_splits[1];
#if HAS_VALUES
    const SortValueT* vin = values_in + p.start;
    SortValueT* vo = values_out + o0;
#else
    (void)values_in;
    (void)values_out;
    const SortValueT* vin = nullptr;
    SortValueT* vo = nullptr;
#endif
    TileMerge::merge_split(keys_in + p.start, vin, p.a_len, diag0, diag1, a0, a1, keys_out + o0, vo, flip, merge_smem);
}

// One merge level: block t writes outputs [t * MERGE_TILE, min(n, (t + 1) * MERGE_TILE)), all of
// one pair (MERGE_TILE divides 2 * width), with the splits of merge_partition. One block per
// output tile (the grid is exact). smem_bytes: the dynamic shared memory given (at least
// MERGE_SMEM_BYTES).
extern "C" __global__ void __launch_bounds__(MERGE_THREADS, MERGE_MIN_BLOCKS)
merge_path_pass(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out, u64 n, u32 width_log2,
                const u64* splits, Bits flip, u32 smem_bytes) {
    sortlab::dependent_entry();
    if (smem_bytes < (u32)MERGE_SMEM_BYTES) __trap();
    const u64 t = blockIdx.x;
    const u64 o0 = t * MERGE_TILE;
    merge_tile(keys_in, values_in, keys_out, values_out, pair_of(o0, n, width_log2), o0, splits + t, flip);
}

// ---- One explicit pair of runs of any lengths. ----

// The pair of runs [start, start + a_len) and [start + a_len, start + a_len + b_len).
__device__ __forceinline__ Pair explicit_pair(u64 start, u64 a_len, u64 b_len) {
    Pair p;
    p.start = start;
    p.a_len = a_len;
    p.b_len = b_len;
    return p;
}

// splits[t] = the number of left-run keys among the first t * MERGE_TILE outputs of the merge of
// the pair (start, a_len, b_len) of keys, for every tile t < blocks (blocks * MERGE_TILE <
// a_len + b_len + MERGE_TILE). Grid-strided.
extern "C" __global__ void __launch_bounds__(PARTITION_THREADS)
merge_pair_partition(const Key* keys, u64 start, u64 a_len, u64 b_len, u64 blocks, u64* splits, Bits flip) {
    sortlab::dependent_entry();
    const Key* a = keys + start;
    const u64 stride = (u64)gridDim.x * PARTITION_THREADS;
    for (u64 t = (u64)blockIdx.x * PARTITION_THREADS + threadIdx.x; t < blocks; t += stride) {
        splits[t] = sortlab::merge_path_keys(a, a_len, a + a_len, b_len, t * MERGE_TILE, flip);
    }
}

// Merges the pair (start, a_len, b_len) of keys_in (values_in) into the same positions of
// keys_out (values_out), with the splits of merge_pair_partition: block t writes outputs
// [start + t * MERGE_TILE, min(start + a_len + b_len, start + (t + 1) * MERGE_TILE)). One block
// per output tile (the grid is exact). smem_bytes: as merge_path_pass.
extern "C" __global__ void __launch_bounds__(MERGE_THREADS, MERGE_MIN_BLOCKS)
merge_pair_pass(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out, u64 start, u64 a_len,
                u64 b_len, const u64* splits, Bits flip, u32 smem_bytes) {
    sortlab::dependent_entry();
    if (smem_bytes < (u32)MERGE_SMEM_BYTES) __trap();
    // The pair's own coordinates (start 0): fewer live 64-bit words than offsets from start.
    const u64 t = blockIdx.x;
    const Value* vi = values_in;
    Value* vo = values_out;
#if HAS_VALUES
    vi += start;
    vo += start;
#endif
    merge_tile(keys_in + start, vi, keys_out + start, vo, explicit_pair(0, a_len, b_len), t * MERGE_TILE, splits + t,
               flip);
}
