// arraysort.cu: many small arrays, each sorted independently, in place.
//
// Arrays are packed back to back in `keys` (n keys); array a is [offsets[a], offsets[a + 1]) when
// `offsets` is given (OFFSET_T words), else [a * fixed_len, (a + 1) * fixed_len). Every bound is
// clamped to [0, n] on the device (array_span), so offsets the host did not check can never make a
// kernel touch memory outside the keys (values, scratch) of the call.
//
// Kernels (every one walks its work grid-stride, so any grid size is correct):
//   classify            one thread per array: its size class, and the array's index appended to
//                       that class's list (the lists and counters live in scratch; the class
//                       kernels read the counters on the device: no host round trip)
//   sort_group8/16/32   the warp class: arrays of at most G keys, 32 / G of them per warp, each
//                       sorted by a bitonic network over G lanes in registers (shfl_xor)
//   sort_block512 .. sort_block4096
//                       the block classes: one array per block, BlockMergeSort over a tile of
//                       512, 1024, 2048 or 4096 keys (BLOCKnnn_THREADS * BLOCKnnn_ITEMS; the
//                       4096 tile only where HAS_BLOCK4096: its static shared memory must fit)
//   large_plan, large_runs, large_partition, large_merge
//                       arrays longer than the tile: cut into tiles, each sorted as a run by the
//                       largest block class, then merged pairwise inside each array, a merge-path
//                       pass per doubling, every pass over the whole device (see the section)
//   paper_sort          GPU-ArraySort (Awan and Saeed), one block per array: regular sample,
//                       splitters, buckets, insertion sort of each bucket
//   iota, tag_of_index, gather   the tagged baseline's helpers
//   top_k_select        per-array top-k, one block per array: an MSD radix select of the k-th key
//                       (8-bit digits, only as many passes as it takes for the keys at or before
//                       the k-th's digit prefix to fit one tile), an ordered gather of those keys
//                       into shared memory, a block merge sort of the tile, the first k written
//   top_k_compact       the top-k's sort path for k past one tile: after a copy of the keys
//                       (values) sorted whole by the fast sort, each array's first k
//   zero_words, find_decrease   housekeeping, and the explicit offsets check
//
// Defines: KEY_T, KEY_BITS_T, HAS_VALUES, VALUE_T (sortlab/thread/key_defines.cuh), OFFSET_T,
// SMALL_THREADS, BLOCK512_THREADS, BLOCK512_ITEMS (and for 1024, 2048, 4096), PAPER_THREADS,
// TOPK_THREADS, TOPK_ITEMS, CLASS_GROUP8, CLASS_GROUP16, CLASS_GROUP32, CLASS_BLOCK512,
// CLASS_BLOCK1024, CLASS_BLOCK2048, CLASS_BLOCK4096, CLASS_LARGE, CLASS_COUNT (the class
// numbers, as the host's SizeClass::index), HAS_BLOCK4096.
#include "sortlab/block/block_load_store.cuh"
#include "sortlab/block/block_merge.cuh"
#include "sortlab/block/block_merge_sort.cuh"
#include "sortlab/thread/key_bits.cuh"
#include "sortlab/thread/key_defines.cuh"
#include "sortlab/thread/merge_path_keys.cuh"
#include "sortlab/warp/shuffle.cuh"
#include "sortlab/warp/warp_scan.cuh"

#ifndef OFFSET_T
#define OFFSET_T unsigned long long
#endif
#ifndef SMALL_THREADS
#define SMALL_THREADS 128
#endif
#ifndef BLOCK512_THREADS
#define BLOCK512_THREADS 64
#define BLOCK512_ITEMS 8
#define BLOCK1024_THREADS 128
#define BLOCK1024_ITEMS 8
#define BLOCK2048_THREADS 256
#define BLOCK2048_ITEMS 8
#define BLOCK4096_THREADS 256
#define BLOCK4096_ITEMS 16
#endif
#ifndef HAS_BLOCK4096
#define HAS_BLOCK4096 1
#endif
#ifndef PAPER_THREADS
#define PAPER_THREADS 128
#endif
#ifndef TOPK_THREADS
#define TOPK_THREADS 256
#define TOPK_ITEMS 8
#endif
#ifndef CLASS_GROUP8
#define CLASS_GROUP8 0
#define CLASS_GROUP16 1
#define CLASS_GROUP32 2
#define CLASS_BLOCK512 3
#define CLASS_BLOCK1024 4
#define CLASS_BLOCK2048 5
#define CLASS_BLOCK4096 6
#define CLASS_LARGE 7
#define CLASS_COUNT 8
#endif

typedef KEY_T Key;
typedef KEY_BITS_T Bits;
typedef VALUE_T Val;
typedef OFFSET_T Offset;
#if HAS_VALUES
typedef Val SortVal;
#else
typedef sortlab::NullValue SortVal;
#endif

#define B512_CAP (BLOCK512_THREADS * BLOCK512_ITEMS)
#define B1024_CAP (BLOCK1024_THREADS * BLOCK1024_ITEMS)
#define B2048_CAP (BLOCK2048_THREADS * BLOCK2048_ITEMS)
#if HAS_BLOCK4096
#define TILE_CAP (BLOCK4096_THREADS * BLOCK4096_ITEMS)
#else
#define TILE_CAP B2048_CAP
#endif
#define KEY_BITS (8 * (int)sizeof(Bits))

// ---- Array bounds. ----

struct Span {
    u64 begin;
    u64 len;
};

// Array a's keys, clamped into [0, n] (an end before its begin gives an empty array).
__device__ __forceinline__ Span array_span(const Offset* offsets, u64 fixed_len, u64 a, u64 n) {
    u64 b, e;
    if (offsets != nullptr) {
        b = (u64)offsets[a];
        e = (u64)offsets[a + 1];
    } else {
        b = a * fixed_len;
        e = b + fixed_len;
    }
    b = b < n ? b : n;
    e = e < n ? e : n;
    return Span{b, e > b ? e - b : 0};
}

// The class of an array of `len` keys; CLASS_COUNT for arrays with nothing to sort (0 or 1 key).
__device__ __forceinline__ u32 size_class(u64 len) {
    if (len < 2) return CLASS_COUNT;
    if (len <= 8) return CLASS_GROUP8;
    if (len <= 16) return CLASS_GROUP16;
    if (len <= 32) return CLASS_GROUP32;
    if (len <= B512_CAP) return CLASS_BLOCK512;
    if (len <= B1024_CAP) return CLASS_BLOCK1024;
    if (len <= B2048_CAP) return CLASS_BLOCK2048;
    if (len <= TILE_CAP) return CLASS_BLOCK4096;
    return CLASS_LARGE;
}

// ---- classify: the arrays of class c are lists[list_start(c) + i], i < counts[c]. ----

// The fewest keys of an array of class c (SizeClass::min_len).
__device__ __forceinline__ u64 class_min_len(u32 c) {
    switch (c) {
        case CLASS_GROUP8: return 2;
        case CLASS_GROUP16: return 9;
        case CLASS_GROUP32: return 17;
        case CLASS_BLOCK512: return 33;
        case CLASS_BLOCK1024: return B512_CAP + 1;
        case CLASS_BLOCK2048: return B1024_CAP + 1;
        case CLASS_BLOCK4096: return HAS_BLOCK4096 ? B2048_CAP + 1 : ~0ull;  // absent: no arrays
        default: return TILE_CAP + 1;
    }
}
// The most arrays of class c among `arrays` arrays of n keys (SizeClass::most_arrays).
__device__ __forceinline__ u64 class_most(u32 c, u64 arrays, u64 n) {
    const u64 m = n / class_min_len(c);
    return m < arrays ? m : arrays;
}
// Where class c's list starts (ArrayPolicy::list_start).
__device__ __forceinline__ u64 list_start(u32 c, u64 arrays, u64 n) {
    u64 s = 0;
    for (u32 d = 0; d < c; ++d) s += class_most(d, arrays, n);
    return s;
}

extern "C" __global__ void __launch_bounds__(SMALL_THREADS)
classify(const Offset* offsets, u64 arrays, u64 n, u64* lists, unsigned long long* counts) {
    const u64 stride = (u64)gridDim.x * SMALL_THREADS;
    for (u64 a = (u64)blockIdx.x * SMALL_THREADS + threadIdx.x; a < arrays; a += stride) {
        const u32 c = size_class(array_span(offsets, 0, a, n).len);
        if (c < CLASS_COUNT) {
            const u64 at = atomicAdd(&counts[c], 1ull);
            // Clamped arrays never outnumber class_most (their lengths sum to at most n); the
            // test keeps a bad count from writing past the list.
            if (at < class_most(c, arrays, n)) lists[list_start(c, arrays, n) + at] = a;
        }
    }
}

// words[0 .. n) = 0, n at most the block's threads.
extern "C" __global__ void zero_words(unsigned long long* words, u32 n) {
    if (threadIdx.x < n) words[threadIdx.x] = 0;
}

// The i-th array of a class: list[i], or i itself when there is no list (fixed length).
__device__ __forceinline__ u64 array_at(const u64* list, u64 i) { return list != nullptr ? list[i] : i; }
// The number of arrays of a class: min(*count, arrays) with a list (`arrays` is then the list's
// capacity, so bad offsets never read past it), else `arrays` (fixed length).
__device__ __forceinline__ u64 class_count(const unsigned long long* count, u64 arrays) {
    if (count == nullptr) return arrays;
    const u64 c = (u64)*count;
    return c < arrays ? c : arrays;
}

// ---- The warp class: 32 / G arrays per warp, one element per lane. ----

// (b, i) before (ob, oi): by bits, then by position (stable; padding has the largest bits and
// positions past every real key, so it sorts last).
__device__ __forceinline__ bool pair_less(Bits ob, u32 oi, Bits b, u32 i) { return ob < b || (ob == b && oi < i); }

template <int G>
__device__ __forceinline__ void group_sort(Key* keys, Val* values, const Offset* offsets, u64 fixed_len,
                                           const u64* list, const unsigned long long* count, u64 arrays, u64 n,
                                           Bits flip) {
    (void)values;
    const u32 lane = threadIdx.x & 31u;
    const u32 e = lane & (G - 1);
    const u64 total = class_count(count, arrays);
    const u64 warp = ((u64)blockIdx.x * SMALL_THREADS + threadIdx.x) / 32;
    const u64 warps = (u64)gridDim.x * (SMALL_THREADS / 32);
    for (u64 base = warp * (32 / G); base < total; base += warps * (32 / G)) {
        const u64 g = base + lane / G;
        Span s = Span{0, 0};
        if (g < total) s = array_span(offsets, fixed_len, array_at(list, g), n);
        const bool real = e < s.len;
        Bits b = real ? sortlab::flip_bits(keys[s.begin + e], flip) : ~Bits(0);
        u32 idx = e;
#if HAS_VALUES
        Val v = real ? values[s.begin + e] : Val();
#endif
#pragma unroll
        for (u32 k = 2; k <= (u32)G; k <<= 1) {
#pragma unroll
            for (u32 j = k >> 1; j > 0; j >>= 1) {
                const Bits ob = sortlab::shfl_xor(b, (int)j);
                const u32 oi = __shfl_xor_sync(SORTLAB_FULL_WARP, idx, (int)j);
#if HAS_VALUES
                const Val ov = sortlab::shfl_xor(v, (int)j);
#endif
                const bool keep_min = ((e & k) == 0) == ((e & j) == 0);
                const bool take = keep_min ? pair_less(ob, oi, b, idx) : pair_less(b, idx, ob, oi);
                if (take) {
                    b = ob;
                    idx = oi;
#if HAS_VALUES
                    v = ov;
#endif
                }
            }
        }
        if (real) {
            keys[s.begin + e] = sortlab::key_from_flipped_bits<Key>(b, flip);
#if HAS_VALUES
            values[s.begin + e] = v;
#endif
        }
    }
}

#define GROUP_KERNEL(G)                                                                                           \
    extern "C" __global__ void __launch_bounds__(SMALL_THREADS)                                                   \
        sort_group##G(Key* keys, Val* values, const Offset* offsets, u64 fixed_len, const u64* list,              \
                      const unsigned long long* count, u64 arrays, u64 n, Bits flip) {                            \
        group_sort<G>(keys, values, offsets, fixed_len, list, count, arrays, n, flip);                           \
    }
GROUP_KERNEL(8)
GROUP_KERNEL(16)
GROUP_KERNEL(32)

// ---- The block classes: one array per block, merge sorted in one tile. ----

// values + i as the block sorts' and merges' value type (keys only: null, never read).
__device__ __forceinline__ SortVal* values_at(Val* values, u64 i) {
#if HAS_VALUES
    return values + i;
#else
    (void)values;
    (void)i;
    return nullptr;
#endif
}

template <int Threads, int Items> struct TileSort {
    typedef sortlab::BlockMergeSort<Bits, SortVal, Threads, Items> Sort;
    typedef sortlab::BlockLoad<Key, Threads, Items> LoadKeys;
    typedef sortlab::BlockLoad<Val, Threads, Items> LoadValues;
    typedef sortlab::BlockStore<Key, Threads, Items> StoreKeys;
    typedef sortlab::BlockStore<Val, Threads, Items> StoreValues;
    union Storage {
        typename LoadKeys::TempStorage load_keys;
        typename LoadValues::TempStorage load_values;
        typename Sort::TempStorage sort;
        typename StoreKeys::TempStorage store_keys;
        typename StoreValues::TempStorage store_values;
    };

    // Sorts the `valid` keys (values) at ik (iv) into ok (ov): in place when they are the same (the
    // whole tile is read before any of it is written).
    static __device__ __forceinline__ void sort_span(const Key* ik, const SortVal* iv, Key* ok, SortVal* ov, u32 valid,
                                                     Bits flip, Storage& st) {
        (void)iv;
        (void)ov;
        Key k[Items];
        LoadKeys::load(ik, k, valid, Key(), st.load_keys);
        __syncthreads();
        Bits b[Items];
#pragma unroll
        for (int t = 0; t < Items; ++t) b[t] = sortlab::flip_bits(k[t], flip);
#if HAS_VALUES
        Val v[Items];
        LoadValues::load(iv, v, valid, Val(), st.load_values);
        __syncthreads();
        Sort::sort(b, v, st.sort, valid);
#else
        Sort::sort(b, st.sort, valid);
#endif
        __syncthreads();
#pragma unroll
        for (int t = 0; t < Items; ++t) k[t] = sortlab::key_from_flipped_bits<Key>(b[t], flip);
        StoreKeys::store(ok, k, valid, st.store_keys);
        __syncthreads();
#if HAS_VALUES
        StoreValues::store(ov, v, valid, st.store_values);
        __syncthreads();
#endif
    }

    static __device__ __forceinline__ void run(Key* keys, Val* values, const Offset* offsets, u64 fixed_len,
                                               const u64* list, const unsigned long long* count, u64 arrays, u64 n,
                                               Bits flip, Storage& st) {
        const u64 total = class_count(count, arrays);
        for (u64 i = blockIdx.x; i < total; i += gridDim.x) {
            const Span s = array_span(offsets, fixed_len, array_at(list, i), n);
            // The host puts only arrays of at most Threads * Items keys in this class; clamp anyway.
            const u32 valid = (u32)(s.len < (u64)(Threads * Items) ? s.len : (u64)(Threads * Items));
            SortVal* v = values_at(values, s.begin);
            sort_span(keys + s.begin, v, keys + s.begin, v, valid, flip, st);
        }
    }
};

#define BLOCK_KERNEL(CAP)                                                                                         \
    extern "C" __global__ void __launch_bounds__(BLOCK##CAP##_THREADS)                                            \
        sort_block##CAP(Key* keys, Val* values, const Offset* offsets, u64 fixed_len, const u64* list,           \
                        const unsigned long long* count, u64 arrays, u64 n, Bits flip) {                          \
        typedef TileSort<BLOCK##CAP##_THREADS, BLOCK##CAP##_ITEMS> T;                                             \
        __shared__ typename T::Storage st;                                                                        \
        T::run(keys, values, offsets, fixed_len, list, count, arrays, n, flip, st);                               \
    }
BLOCK_KERNEL(512)
BLOCK_KERNEL(1024)
BLOCK_KERNEL(2048)
#if HAS_BLOCK4096
BLOCK_KERNEL(4096)
#endif

// ---- The large class: runs of one tile sorted, then merged pairwise inside each array. ----
//
// Array i of the class (list index i) of len > RUN keys is cut into ceil(len / RUN) tiles of RUN
// keys (the largest block class's tile). Each tile is sorted as a run by that class's block sort,
// then runs are merged pairwise inside the array, one merge-path pass per doubling of the run
// width (passes(len) = ceil(log2(tiles)) of them), every pass spread over the whole device one
// output tile a block, so one long array uses every multiprocessor. The passes alternate between
// keys and the scratch copy tk (values: tv); the runs are sorted into keys when the array needs an
// even number of passes and into tk when odd, so the last pass of every array ends in keys.
//   large_plan       one thread per array: its first tile's index in the class's tile list
//                    (tile_first[i], taken from a counter: the tiles of one array are consecutive,
//                    arrays in any order), tile_array[g] = i for its tiles, and the most passes any
//                    array needs (meta[1]; meta[0] ends as the tile count)
//   large_runs       one block per tile: the tile sorted
//   large_partition  pass p, one thread per tile: where the tile's slice of the left run starts
//   large_merge      pass p, one block per tile: its outputs merged from the two runs' slices by
//                    primitives' BlockMerge; tiles of arrays that need fewer passes skip
// Every kernel reads the tile count from meta (no host round trip); the host launches enough
// passes for the longest array the call could hold, and passes past meta[1] return at once.

#if HAS_BLOCK4096
#define RUN_THREADS BLOCK4096_THREADS
#define RUN_ITEMS BLOCK4096_ITEMS
#else
#define RUN_THREADS BLOCK2048_THREADS
#define RUN_ITEMS BLOCK2048_ITEMS
#endif
#define RUN (RUN_THREADS * RUN_ITEMS)
static_assert(RUN == TILE_CAP, "the large class's runs are the largest block tile");
static_assert((RUN & (RUN - 1)) == 0, "run widths double from a power of two");
typedef TileSort<RUN_THREADS, RUN_ITEMS> RunSort;
typedef sortlab::BlockMerge<Key, Bits, SortVal, RUN_THREADS, RUN_ITEMS> RunMerge;
static_assert(RunMerge::SMEM_BYTES <= 48 * 1024, "the merge tile fits static shared memory");

// Merge passes an array of len keys needs: ceil(log2(ceil(len / RUN))).
__device__ __forceinline__ u32 large_passes(u64 len) {
    const u64 tiles = (len + RUN - 1) / RUN;
    return tiles <= 1 ? 0u : 64u - (u32)__clzll((long long)(tiles - 1));
}

// The tile of index g: its array's span, its index t in the array, and the array's pass count.
struct LargeTile {
    Span s;
    u64 t;
    u32 passes;
};
__device__ __forceinline__ LargeTile large_tile(const Offset* offsets, u64 fixed_len, const u64* list, u64 n,
                                                const u64* tile_first, const u32* tile_array, u64 g) {
    const u32 i = tile_array[g];
    LargeTile lt;
    lt.s = array_span(offsets, fixed_len, array_at(list, i), n);
    lt.t = g - tile_first[i];
    lt.passes = large_passes(lt.s.len);
    return lt;
}

// The tile count, clamped to the host's bound `tiles` (meta[0] counts every array's tiles).
__device__ __forceinline__ u64 large_tile_count(const unsigned long long* meta, u64 tiles) {
    const u64 c = (u64)meta[0];
    return c < tiles ? c : tiles;
}

// meta[0 .. 2) must be zero. `tiles`: the host's bound on the tile count (the list's length).
extern "C" __global__ void __launch_bounds__(SMALL_THREADS)
large_plan(const Offset* offsets, u64 fixed_len, const u64* list, const unsigned long long* count, u64 arrays, u64 n,
           u64 tiles, u64* tile_first, u32* tile_array, unsigned long long* meta) {
    const u64 total = class_count(count, arrays);
    const u64 stride = (u64)gridDim.x * SMALL_THREADS;
    for (u64 i = (u64)blockIdx.x * SMALL_THREADS + threadIdx.x; i < total; i += stride) {
        const u64 len = array_span(offsets, fixed_len, array_at(list, i), n).len;
        const u64 own = (len + RUN - 1) / RUN;
        const u64 first = atomicAdd(&meta[0], (unsigned long long)own);
        atomicMax(&meta[1], (unsigned long long)large_passes(len));
        tile_first[i] = first;
        // Clamped arrays' tiles never pass the bound; the test keeps bad offsets in bounds.
        for (u64 t = 0; t < own && first + t < tiles; ++t) tile_array[first + t] = (u32)i;
    }
}

extern "C" __global__ void __launch_bounds__(RUN_THREADS)
large_runs(Key* keys, Val* values, Key* tk, Val* tv, const Offset* offsets, u64 fixed_len, const u64* list, u64 n,
           const u64* tile_first, const u32* tile_array, const unsigned long long* meta, u64 tiles, Bits flip) {
    __shared__ RunSort::Storage st;
    const u64 count = large_tile_count(meta, tiles);
    for (u64 g = blockIdx.x; g < count; g += gridDim.x) {
        const LargeTile lt = large_tile(offsets, fixed_len, list, n, tile_first, tile_array, g);
        const u64 o = lt.t * RUN;
        if (o >= lt.s.len) continue;  // only for offsets changed under the call
        const u64 rest = lt.s.len - o;
        const u32 valid = (u32)(rest < (u64)RUN ? rest : (u64)RUN);
        const u64 at_in = lt.s.begin + o;
        Key* ok = (lt.passes & 1u) ? tk : keys;
        Val* ov = (lt.passes & 1u) ? tv : values;
        RunSort::sort_span(keys + at_in, values_at(values, at_in), ok + at_in, values_at(ov, at_in), valid, flip, st);
    }
}

// Pass p's pair of runs holding the array's outputs from o (relative to the array): its start,
// and its left and right runs' lengths (the right one 0 for a lone last run: a copy).
struct RunPair {
    u64 start, a_len, b_len;
};
__device__ __forceinline__ RunPair run_pair(u64 len, u64 o, u32 p) {
    const u64 width = (u64)RUN << p;
    RunPair r;
    r.start = o & ~(2 * width - 1);
    const u64 rest = len - r.start;
    r.a_len = rest < width ? rest : width;
    r.b_len = rest - r.a_len < width ? rest - r.a_len : width;
    return r;
}
// The buffers pass p reads of an array needing `passes` passes: tk when passes - p is odd.
__device__ __forceinline__ bool large_reads_copy(u32 passes, u32 p) { return ((passes - p) & 1u) != 0; }

extern "C" __global__ void __launch_bounds__(SMALL_THREADS)
large_partition(const Key* keys, const Key* tk, const Offset* offsets, u64 fixed_len, const u64* list, u64 n,
                const u64* tile_first, const u32* tile_array, const unsigned long long* meta, u64 tiles, u32 p,
                u64* splits, Bits flip) {
    if (p >= (u32)meta[1]) return;
    const u64 count = large_tile_count(meta, tiles);
    const u64 stride = (u64)gridDim.x * SMALL_THREADS;
    for (u64 g = (u64)blockIdx.x * SMALL_THREADS + threadIdx.x; g < count; g += stride) {
        const LargeTile lt = large_tile(offsets, fixed_len, list, n, tile_first, tile_array, g);
        const u64 o = lt.t * RUN;
        if (p >= lt.passes || o >= lt.s.len) continue;
        const RunPair r = run_pair(lt.s.len, o, p);
        const Key* a = (large_reads_copy(lt.passes, p) ? tk : keys) + lt.s.begin + r.start;
        splits[g] = sortlab::merge_path_keys(a, r.a_len, a + r.a_len, r.b_len, o - r.start, flip);
    }
}

extern "C" __global__ void __launch_bounds__(RUN_THREADS)
large_merge(Key* keys, Val* values, Key* tk, Val* tv, const Offset* offsets, u64 fixed_len, const u64* list, u64 n,
            const u64* tile_first, const u32* tile_array, const unsigned long long* meta, u64 tiles, u32 p,
            const u64* splits, Bits flip) {
    __shared__ __align__(16) unsigned char smem[RunMerge::SMEM_BYTES];
    if (p >= (u32)meta[1]) return;
    const u64 count = large_tile_count(meta, tiles);
    for (u64 g = blockIdx.x; g < count; g += gridDim.x) {
        const LargeTile lt = large_tile(offsets, fixed_len, list, n, tile_first, tile_array, g);
        const u64 o = lt.t * RUN;
        if (p >= lt.passes || o >= lt.s.len) continue;
        const RunPair r = run_pair(lt.s.len, o, p);
        const bool from_copy = large_reads_copy(lt.passes, p);
        const Key* ik = from_copy ? tk : keys;
        Key* okb = from_copy ? keys : tk;
        Val* iv = from_copy ? tv : values;
        Val* ovb = from_copy ? values : tv;
        const u64 pair_len = r.a_len + r.b_len;
        const u64 d0 = o - r.start;
        const u64 d1 = d0 + RUN < pair_len ? d0 + RUN : pair_len;
        // Unless d1 ends the pair, the list's next tile is this array's next, in this pair (it
        // is missing only when bad offsets overflowed the list: the tile is then left as it is).
        if (d1 < pair_len && g + 1 >= count) continue;
        const u64 a1 = d1 == pair_len ? r.a_len : splits[g + 1];
        const u64 base = lt.s.begin + r.start;
        RunMerge::merge_split(ik + base, values_at(iv, base), r.a_len, d0, d1, splits[g], a1, okb + lt.s.begin + o,
                              values_at(ovb, lt.s.begin + o), flip, smem);
    }
}

// ---- GPU-ArraySort (the paper's algorithm), one block per array. ----
//
// Scratch, per array a of len keys starting at begin:
//   sample[begin / 10 + a ..] and sorted[begin / 10 + a ..]: s = max(1, len / 10) keys' bits
//   bucket[begin / 20 + a ..]: p = max(1, len / 20) counters
//   tk, tv, ti at [begin, begin + len): the keys, values and input positions bucket by bucket
// (these ranges are disjoint between arrays: floor((b + l) / 10) >= floor(b / 10) + floor(l / 10)).

__device__ __forceinline__ u64 paper_samples(u64 len) { return len / 10 > 1 ? len / 10 : 1; }
__device__ __forceinline__ u64 paper_buckets(u64 len) { return len / 20 > 1 ? len / 20 : 1; }

// Splitter j (0 <= j < p - 1) of a sorted sample of s: at regular intervals.
__device__ __forceinline__ Bits splitter(const Bits* sorted, u64 s, u64 p, u64 j) { return sorted[(j + 1) * s / p]; }

// The bucket of b: the number of splitters <= b (binary search). Bucket t holds the keys with
// splitter[t - 1] <= key < splitter[t]: every key has exactly one bucket, keys equal to a
// splitter included (the paper's strict sp1 < a < sp2 test drops them).
__device__ __forceinline__ u64 bucket_of(Bits b, const Bits* sorted, u64 s, u64 p) {
    u64 lo = 0, hi = p - 1;  // answer in [lo, hi]
    while (lo < hi) {
        const u64 mid = (lo + hi) / 2;  // is splitter mid <= b?
        if (splitter(sorted, s, p, mid) <= b) lo = mid + 1; else hi = mid;
    }
    return lo;
}

extern "C" __global__ void __launch_bounds__(PAPER_THREADS)
paper_sort(Key* keys, Val* values, const Offset* offsets, u64 fixed_len, u64 arrays, u64 n, Bits flip, Bits* sample,
           Bits* sorted, unsigned long long* bucket, Key* tk, Val* tv, u32* ti) {
    (void)values;
    (void)tv;
    const u32 tid = threadIdx.x;
    for (u64 a = blockIdx.x; a < arrays; a += gridDim.x) {
        const Span sp = array_span(offsets, fixed_len, a, n);
        if (sp.len < 2) continue;
        const u64 s = paper_samples(sp.len);
        const u64 p = paper_buckets(sp.len);
        Bits* smp = sample + sp.begin / 10 + a;
        Bits* srt = sorted + sp.begin / 10 + a;
        unsigned long long* cnt = bucket + sp.begin / 20 + a;
        // Phase 1: a regular sample of 10%, sorted (by rank: ties by sample position).
        for (u64 i = tid; i < s; i += PAPER_THREADS) smp[i] = sortlab::flip_bits(keys[sp.begin + i * sp.len / s], flip);
        for (u64 i = tid; i < p; i += PAPER_THREADS) cnt[i] = 0;
        __syncthreads();
        for (u64 i = tid; i < s; i += PAPER_THREADS) {
            const Bits x = smp[i];
            u64 r = 0;
            for (u64 j = 0; j < s; ++j) {
                const Bits y = smp[j];
                r += (y < x || (y == x && j < i)) ? 1 : 0;
            }
            srt[r] = x;
        }
        __syncthreads();
        // Phase 2: every key's bucket, the bucket sizes, then the keys rewritten bucket by bucket.
        for (u64 i = tid; i < sp.len; i += PAPER_THREADS) {
            atomicAdd(&cnt[bucket_of(sortlab::flip_bits(keys[sp.begin + i], flip), srt, s, p)], 1ull);
        }
        __syncthreads();
        if (tid == 0) {
            u64 run = 0;
            for (u64 t = 0; t < p; ++t) {
                const u64 c = cnt[t];
                cnt[t] = run;
                run += c;
            }
        }
        __syncthreads();
        for (u64 i = tid; i < sp.len; i += PAPER_THREADS) {
            const Key k = keys[sp.begin + i];
            const u64 slot = atomicAdd(&cnt[bucket_of(sortlab::flip_bits(k, flip), srt, s, p)], 1ull);
            if (slot >= sp.len) continue;  // only with overlapping (bad) offsets
            const u64 to = sp.begin + slot;
            tk[to] = k;
#if HAS_VALUES
            tv[to] = values[sp.begin + i];
#endif
            ti[to] = (u32)i;
        }
        __syncthreads();
        // Phase 3: each bucket insertion sorted (by bits, then input position: stable), back in
        // place. cnt[t] is now the end of bucket t.
        for (u64 t = tid; t < p; t += PAPER_THREADS) {
            // Clamped into the array: only bad (overlapping) offsets could take them past it.
            const u64 b0 = t == 0 ? 0 : (u64)cnt[t - 1];
            const u64 b1 = (u64)cnt[t];
            const u64 hi = sp.begin + (b1 < sp.len ? b1 : sp.len);
            const u64 lo = sp.begin + (b0 < sp.len ? b0 : sp.len);
            if (lo >= hi) continue;
            for (u64 i = lo + 1; i < hi; ++i) {
                const Key k = tk[i];
                const Bits b = sortlab::flip_bits(k, flip);
                const u32 x = ti[i];
#if HAS_VALUES
                const Val v = tv[i];
#endif
                u64 j = i;
                while (j > lo) {
                    const Bits pb = sortlab::flip_bits(tk[j - 1], flip);
                    if (!(b < pb || (b == pb && x < ti[j - 1]))) break;
                    tk[j] = tk[j - 1];
                    ti[j] = ti[j - 1];
#if HAS_VALUES
                    tv[j] = tv[j - 1];
#endif
                    --j;
                }
                tk[j] = k;
                ti[j] = x;
#if HAS_VALUES
                tv[j] = v;
#endif
            }
            for (u64 i = lo; i < hi; ++i) {
                keys[i] = tk[i];
#if HAS_VALUES
                values[i] = tv[i];
#endif
            }
        }
        __syncthreads();
    }
}

// ---- The tagged baseline's helpers. ----

// tags[i] = the array of key position idx[i] (binary search over the offsets, or idx / fixed_len).
extern "C" __global__ void __launch_bounds__(SMALL_THREADS)
tag_of_index(const u32* idx, u32* tags, const Offset* offsets, u64 fixed_len, u64 arrays, u64 n) {
    const u64 stride = (u64)gridDim.x * SMALL_THREADS;
    for (u64 i = (u64)blockIdx.x * SMALL_THREADS + threadIdx.x; i < n; i += stride) {
        const u64 x = idx[i];
        u64 tag;
        if (offsets == nullptr) {
            tag = x / fixed_len;
        } else {
            u64 lo = 0, hi = arrays - 1;  // the last array a with offsets[a] <= x
            while (lo < hi) {
                const u64 mid = (lo + hi + 1) / 2;
                if ((u64)offsets[mid] <= x) lo = mid; else hi = mid - 1;
            }
            tag = lo;
        }
        tags[i] = (u32)tag;
    }
}

// idx[i] = i.
extern "C" __global__ void __launch_bounds__(SMALL_THREADS) iota(u32* idx, u64 n) {
    const u64 stride = (u64)gridDim.x * SMALL_THREADS;
    for (u64 i = (u64)blockIdx.x * SMALL_THREADS + threadIdx.x; i < n; i += stride) idx[i] = (u32)i;
}

// out_k[i] = keys[idx[i]] (and out_v[i] = values[idx[i]]).
extern "C" __global__ void __launch_bounds__(SMALL_THREADS)
gather(const Key* keys, const Val* values, const u32* idx, Key* out_k, Val* out_v, u64 n) {
    (void)values;
    (void)out_v;
    const u64 stride = (u64)gridDim.x * SMALL_THREADS;
    for (u64 i = (u64)blockIdx.x * SMALL_THREADS + threadIdx.x; i < n; i += stride) {
        const u64 x = idx[i] < n ? idx[i] : 0;
        out_k[i] = keys[x];
#if HAS_VALUES
        out_v[i] = values[x];
#endif
    }
}

// ---- Per-array top-k: array a's first min(k, len) keys in the stable sort, at out[a * k ..]. ----
//
// top_k_select, one block per array (k <= TOPK_CAP, arrays shorter than 2^32 keys):
//   1. Radix select, most significant 8-bit digit first. After each pass, `prefix` holds the
//      digits of the k-th key down to bit `shift`; `before` keys have a smaller prefix (all of
//      them are in the top k) and `count` share it (the k-th among them). Passes stop as soon as
//      before + count fits one tile (uniform keys: after one or two passes), or when every bit
//      is resolved: the `count` keys are then all equal to the k-th, and only the first
//      k - before of them by position belong to the stable top k.
//   2. Gather, in position order (striped tiles, ballots and a warp scan of the per-(item, warp)
//      counts): keys with a smaller prefix, then (up to the cap) keys with the same prefix, as
//      (bits, position) into shared memory.
//   3. A stable block merge sort of the gathered tile by bits; equal bits stay in position order
//      (both gathered groups are in position order, and the first group's bits are all smaller),
//      so the first min(k, len) are exactly the stable sort's. Values are read by position.

#define TOPK_CAP (TOPK_THREADS * TOPK_ITEMS)
#define TOPK_DIGIT_BITS 8
#define TOPK_DIGITS (1 << TOPK_DIGIT_BITS)
#define TOPK_WARPS (TOPK_THREADS / 32)
#define TOPK_GROUPS (TOPK_ITEMS * TOPK_WARPS)
static_assert(TOPK_DIGITS == 8 * 32, "the digit search gives each lane of one warp 8 digits");
static_assert(TOPK_GROUPS % 32 == 0, "the gather scan gives each lane of one warp whole groups");
static_assert(KEY_BITS % TOPK_DIGIT_BITS == 0, "keys are whole digits");
static_assert(TOPK_CAP < 65536, "the gather packs two per-tile counts into one word");

typedef sortlab::BlockMergeSort<Bits, u32, TOPK_THREADS, TOPK_ITEMS> TopSort;
// The sort of a gather that fits one key per thread (uniform keys and k up to about 100: the
// k-th key's 8-bit bucket holds about len / 256 keys), an eighth of the full tile's work.
typedef sortlab::BlockMergeSort<Bits, u32, TOPK_THREADS, 1> TopSmallSort;
struct TopStorage {
    union Phases {
        struct Stage {
            Bits bits[TOPK_CAP];
            u32 pos[TOPK_CAP];
        } stage;
        TopSort::TempStorage sort;
        TopSmallSort::TempStorage small;
    } u;
    u32 hist[TOPK_DIGITS];
    u32 groups[TOPK_GROUPS];  // one gather tile's counts per (item, warp), then their prefixes
    u32 tile_total;           // the tile's packed counts: smaller prefix (low half), same (high)
    u32 digit;                // the digit search's answer
    unsigned long long below;
    unsigned long long count;
    Bits all_and;             // the first pass's AND and OR of every key's bits: the bits that
    Bits all_or;              // all keys share (where they agree) are skipped
};

// One key's part of a select pass: its bits join the AND and the OR, and its digit below `hi` is
// counted when its bits above `hi` equal `prefix` (every key in the first pass).
__device__ __forceinline__ void top_k_count(Bits b, bool first, u32 hi, Bits prefix, Bits& all_and, Bits& all_or,
                                            TopStorage& st) {
    all_and &= b;
    all_or |= b;
    if (first || (b >> hi) == prefix) {
        atomicAdd(&st.hist[(u32)(b >> (hi - TOPK_DIGIT_BITS)) & (TOPK_DIGITS - 1)], 1u);
    }
}

// One radix-select pass over array [begin, begin + len): the histogram of the digit below `hi`
// among keys whose bits above `hi` equal `prefix` (every key when hi == KEY_BITS), then the digit
// holding the `need`-th of them (1-based). Returns through st (digit, below: how many of them
// have a smaller digit, count: how many have that digit).
__device__ __forceinline__ void top_k_pass(const Key* keys, u64 len, Bits flip, u32 hi, Bits prefix, u64 need,
                                           TopStorage& st) {
    const u32 tid = threadIdx.x;
    const bool first = hi == (u32)KEY_BITS;
    for (u32 d = tid; d < TOPK_DIGITS; d += TOPK_THREADS) st.hist[d] = 0;
    // Only the first pass writes the AND and the OR: every thread reads them after it, and a
    // later pass's reset could overtake a slower warp's read.
    if (first && tid == 0) {
        st.all_and = ~Bits(0);
        st.all_or = 0;
    }
    __syncthreads();
    // The first pass also takes the AND and OR of every key (two operations a key).
    Bits all_and = ~Bits(0), all_or = 0;
    // TOPK_ITEMS loads in flight per thread before their counts (one load at a time leaves the
    // pass bound by memory latency, not bandwidth).
    u64 j = tid;
    for (; j + (u64)(TOPK_ITEMS - 1) * TOPK_THREADS < len; j += (u64)TOPK_ITEMS * TOPK_THREADS) {
        Bits b[TOPK_ITEMS];
#pragma unroll
        for (int t = 0; t < TOPK_ITEMS; ++t) b[t] = sortlab::flip_bits(keys[j + (u64)t * TOPK_THREADS], flip);
#pragma unroll
        for (int t = 0; t < TOPK_ITEMS; ++t) top_k_count(b[t], first, hi, prefix, all_and, all_or, st);
    }
    for (; j < len; j += TOPK_THREADS) {
        top_k_count(sortlab::flip_bits(keys[j], flip), first, hi, prefix, all_and, all_or, st);
    }
    if (first) {
        atomicAnd(&st.all_and, all_and);
        atomicOr(&st.all_or, all_or);
    }
    __syncthreads();
    if (tid < 32) {
        const u32 lane = tid;
        u32 s = 0;
#pragma unroll
        for (int t = 0; t < 8; ++t) s += st.hist[lane * 8 + t];
        const u32 incl = sortlab::warp_inclusive_scan(s, sortlab::Sum());
        const u32 excl = incl - s;
        // Exactly one lane holds the digit (lanes with no keys have excl == incl).
        if ((u64)excl < need && need <= (u64)incl) {
            u64 run = excl;
            for (u32 d = lane * 8; d < lane * 8 + 8; ++d) {
                const u32 h = st.hist[d];
                if (run + h >= need) {
                    st.digit = d;
                    st.below = run;
                    st.count = h;
                    break;
                }
                run += h;
            }
        }
    }
    __syncthreads();
}

// Writes output rank r of array `sp`: the key from its bits, and (with values) the value at its
// position in the array.
__device__ __forceinline__ void top_k_emit(Key* ok, Val* ov, const Val* values, Span sp, u32 r, Bits bits, u32 pos,
                                           Bits flip) {
    ok[r] = sortlab::key_from_flipped_bits<Key>(bits, flip);
#if HAS_VALUES
    ov[r] = values[sp.begin + (pos < sp.len ? pos : 0u)];
#else
    (void)ov;
    (void)values;
    (void)sp;
    (void)pos;
#endif
}

extern "C" __global__ void __launch_bounds__(TOPK_THREADS)
top_k_select(const Key* keys, const Val* values, const Offset* offsets, u64 fixed_len, u64 arrays, u64 n, u64 k,
             Bits flip, Key* out_k, Val* out_v) {
    (void)values;
    (void)out_v;
    __shared__ TopStorage st;
    const u32 tid = threadIdx.x;
    const u32 lane = tid & 31u;
    const u32 warp = tid / 32;
    const u32 lower_lanes = (1u << lane) - 1u;
    for (u64 a = blockIdx.x; a < arrays; a += gridDim.x) {
        const Span sp = array_span(offsets, fixed_len, a, n);
        const u64 kk = sp.len < k ? sp.len : k;
        if (kk == 0) continue;
        const Key* in = keys + sp.begin;
        // 1. Radix select (uniform across the block: every thread reads the same answers).
        u32 shift = (u32)KEY_BITS;
        Bits prefix = 0;
        u64 before = 0, count = sp.len;
        while (before + count > (u64)TOPK_CAP && shift > 0) {
            const bool first = shift == (u32)KEY_BITS;
            top_k_pass(in, sp.len, flip, shift, prefix, kk - before, st);
            shift -= TOPK_DIGIT_BITS;
            prefix = (prefix << TOPK_DIGIT_BITS) | (Bits)st.digit;
            before += st.below;
            count = st.count;
            if (first && count == sp.len) {
                // Every key has the k-th key's top digit: skip every further digit that all
                // keys share (they agree on every bit above the highest bit where the AND and
                // the OR differ), keys of a narrow range in a wide type (u64 keys below 2^31:
                // four digits) included. All keys equal resolve every bit at once.
                const Bits differ = st.all_and ^ st.all_or;
                u32 keep = 0;  // bits below the shared ones, rounded up to whole digits
                if (differ != 0) {
                    const u32 top = sizeof(Bits) == 8 ? 63u - (u32)__clzll((long long)differ)
                                                      : 31u - (u32)__clz((int)differ);
                    keep = (top / TOPK_DIGIT_BITS + 1) * TOPK_DIGIT_BITS;
                }
                if (keep < shift) {
                    shift = keep;
                    prefix = keep == (u32)KEY_BITS ? Bits(0) : st.all_and >> keep;
                }
            }
        }
        // Keys with the prefix taken: all of them, or the first kk - before when every bit is
        // resolved and they do not fit (they are then equal: the stable order takes the first).
        const u64 same_cap = before + count <= (u64)TOPK_CAP ? count : kk - before;
        const u64 gathered = before + same_cap;
        // 2. Ordered gather.
        u64 below_seen = 0, same_seen = 0;
        for (u64 base = 0; base < sp.len; base += TOPK_CAP) {
            if (below_seen == before && same_seen >= same_cap) break;  // uniform
            Bits b[TOPK_ITEMS];
            u32 below_rank[TOPK_ITEMS], same_rank[TOPK_ITEMS];
            bool is_below[TOPK_ITEMS], is_same[TOPK_ITEMS];
#pragma unroll
            for (int t = 0; t < TOPK_ITEMS; ++t) {
                const u64 j = base + (u64)t * TOPK_THREADS + tid;
                const bool valid = j < sp.len;
                b[t] = valid ? sortlab::flip_bits(in[j], flip) : Bits(0);
                is_below[t] = valid && shift < (u32)KEY_BITS && (b[t] >> shift) < prefix;
                is_same[t] = valid && (shift == (u32)KEY_BITS || (b[t] >> shift) == prefix);
                const u32 mb = __ballot_sync(SORTLAB_FULL_WARP, is_below[t]);
                const u32 ms = __ballot_sync(SORTLAB_FULL_WARP, is_same[t]);
                below_rank[t] = __popc(mb & lower_lanes);
                same_rank[t] = __popc(ms & lower_lanes);
                if (lane == 0) st.groups[t * TOPK_WARPS + warp] = (u32)__popc(mb) | ((u32)__popc(ms) << 16);
            }
            __syncthreads();
            if (tid < 32) {
                // Exclusive prefix of the groups in (item, warp) order, which is position order.
                constexpr int per_lane = TOPK_GROUPS / 32;
                u32 g[per_lane];
                u32 s = 0;
#pragma unroll
                for (int t = 0; t < per_lane; ++t) {
                    g[t] = st.groups[lane * per_lane + t];
                    s += g[t];
                }
                const u32 incl = sortlab::warp_inclusive_scan(s, sortlab::Sum());
                u32 run = incl - s;
#pragma unroll
                for (int t = 0; t < per_lane; ++t) {
                    st.groups[lane * per_lane + t] = run;
                    run += g[t];
                }
                if (lane == 31) st.tile_total = incl;
            }
            __syncthreads();
#pragma unroll
            for (int t = 0; t < TOPK_ITEMS; ++t) {
                const u32 g = st.groups[t * TOPK_WARPS + warp];
                const u64 j = base + (u64)t * TOPK_THREADS + tid;
                if (is_below[t]) {
                    const u64 slot = below_seen + (g & 0xffffu) + below_rank[t];
                    if (slot < before) {
                        st.u.stage.bits[slot] = b[t];
                        st.u.stage.pos[slot] = (u32)j;
                    }
                } else if (is_same[t]) {
                    const u64 r = same_seen + (g >> 16) + same_rank[t];
                    if (r < same_cap) {
                        st.u.stage.bits[before + r] = b[t];
                        st.u.stage.pos[before + r] = (u32)j;
                    }
                }
            }
            const u32 total = st.tile_total;
            below_seen += total & 0xffffu;
            same_seen += total >> 16;
            __syncthreads();
        }
        // 3. Sort the gathered tile, write the first kk (one key per thread when they fit).
        Key* ok = out_k + a * k;
        Val* ov = HAS_VALUES ? out_v + a * k : out_v;
        if (gathered <= (u64)TOPK_THREADS) {
            Bits one[1] = {tid < gathered ? st.u.stage.bits[tid] : sortlab::max_bits<Bits>()};
            u32 one_pos[1] = {tid < gathered ? st.u.stage.pos[tid] : 0u};
            __syncthreads();
            TopSmallSort::sort(one, one_pos, st.u.small, (u32)gathered);
            if (tid < kk) top_k_emit(ok, ov, values, sp, tid, one[0], one_pos[0], flip);
            __syncthreads();
            continue;
        }
        Bits sb[TOPK_ITEMS];
        u32 sp_pos[TOPK_ITEMS];
#pragma unroll
        for (int t = 0; t < TOPK_ITEMS; ++t) {
            const u32 i = tid * TOPK_ITEMS + (u32)t;
            sb[t] = i < gathered ? st.u.stage.bits[i] : sortlab::max_bits<Bits>();
            sp_pos[t] = i < gathered ? st.u.stage.pos[i] : 0u;
        }
        __syncthreads();
        TopSort::sort(sb, sp_pos, st.u.sort, (u32)gathered);
#pragma unroll
        for (int t = 0; t < TOPK_ITEMS; ++t) {
            const u32 r = tid * TOPK_ITEMS + (u32)t;
            if (r < kk) top_k_emit(ok, ov, values, sp, r, sb[t], sp_pos[t], flip);
        }
        __syncthreads();
    }
}

// out[a * k + r] = sorted array a's key r, for r < min(k, len): the sort path's result.
extern "C" __global__ void __launch_bounds__(SMALL_THREADS)
top_k_compact(const Key* sk, const Val* sv, const Offset* offsets, u64 fixed_len, u64 arrays, u64 n, u64 k,
              Key* out_k, Val* out_v) {
    (void)sv;
    (void)out_v;
    const u64 stride = (u64)gridDim.x * SMALL_THREADS;
    const u64 slots = arrays * k;
    for (u64 i = (u64)blockIdx.x * SMALL_THREADS + threadIdx.x; i < slots; i += stride) {
        const u64 a = i / k, r = i - a * k;
        const Span sp = array_span(offsets, fixed_len, a, n);
        if (r < sp.len) {
            out_k[i] = sk[sp.begin + r];
#if HAS_VALUES
            out_v[i] = sv[sp.begin + r];
#endif
        }
    }
}

// ---- Offsets validation (an explicit call, not part of a sort). ----

// *first = the smallest i < count - 1 with offsets[i] > offsets[i + 1] (left as set, all ones,
// when there is none).
extern "C" __global__ void __launch_bounds__(SMALL_THREADS)
find_decrease(const Offset* offsets, u64 count, unsigned long long* first) {
    const u64 stride = (u64)gridDim.x * SMALL_THREADS;
    for (u64 i = (u64)blockIdx.x * SMALL_THREADS + threadIdx.x; i + 1 < count; i += stride) {
        if ((u64)offsets[i] > (u64)offsets[i + 1]) atomicMin(first, (unsigned long long)i);
    }
}
