// fast.cu: BitonicVariant::Fast, a bitonic sort of any length n with no padding memory.
//
// The network is the all-ascending form of Batcher's: every comparator puts the smaller element
// at the lower index. Stage k (k = 2, 4, ..., the next power of two >= n) merges each block of k
// elements whose halves are sorted: first the mirror step (element i of the block's lower half
// against element k - 1 - i), then half-cleaners of distance k/4, ..., 1 (i against i + j inside
// each run of 2j). A comparator whose upper index is >= n is skipped, as if the input were padded
// with +infinity: since every comparator's upper index is its larger one, that padding would never
// move, so skipping is exact (gpu-sorts/src/bitonic/mod.rs has the proof).
//
// Three kernels, each launched as a programmatic dependent launch:
//   bitonic_fast_tiles     every tile of TILE = FAST_THREADS * FAST_ITEMS elements sorted by
//                          primitives' BlockBitonicSort (stages 2 .. TILE), ascending;
//   bitonic_fast_global_S  S (1 .. 4) consecutive global steps of one stage (partner distances
//   bitonic_fast_mirror_S  >= TILE), mirror first or not: each thread loads the 2^S elements
//                          one of its groups holds (spaced by the smallest distance d of the
//                          S steps), runs the S steps in registers, stores them back;
//   bitonic_fast_merge     the half-cleaners of distance TILE/2 .. 1 of a stage, one tile per
//                          block, in shared memory (distances >= FAST_ITEMS) then registers.
// Elements past n read as the largest ordered bits (all ones) and are never stored; a swap
// happens only where the upper element is strictly smaller (or, in shared memory with values,
// smaller by (bits, tile index), padding having the larger indices), so padding never moves.
//
// Defines:
//   KEY_T, KEY_BITS_T, HAS_VALUES, VALUE_T   the shared vocabulary (sortlab/thread/key_defines.cuh)
//   FAST_THREADS          threads per block of the tile kernels (a power of two, 32 .. 1024)
//   FAST_ITEMS            elements per thread of a tile (a power of two >= 2)
//   FAST_GLOBAL_THREADS   threads per block of the global-step kernels (a multiple of 32)
//   FAST_FUSE             the most global steps one launch runs (1 .. 4)
//   FAST_SMEM_BYTES       the dynamic shared memory the tile kernels are launched with
#include "sortlab/block/block_bitonic.cuh"
#include "sortlab/block/block_load_store.cuh"
#include "sortlab/grid/grid_dependency.cuh"
#include "sortlab/thread/key_defines.cuh"

#ifndef FAST_THREADS
#define FAST_THREADS 512
#endif
#ifndef FAST_ITEMS
#define FAST_ITEMS 16
#endif
#ifndef FAST_GLOBAL_THREADS
#define FAST_GLOBAL_THREADS 256
#endif
#ifndef FAST_FUSE
#define FAST_FUSE 4
#endif
#ifndef FAST_SMEM_BYTES
#define FAST_SMEM_BYTES (227 * 1024)
#endif

typedef KEY_T Key;
typedef KEY_BITS_T Bits;
typedef VALUE_T Value;

#define TILE (FAST_THREADS * FAST_ITEMS)

static_assert(sortlab::IsPow2<FAST_THREADS>::value && FAST_THREADS >= 32 && FAST_THREADS <= 1024,
              "FAST_THREADS must be a power of two from 32 to 1024");
static_assert(sortlab::IsPow2<FAST_ITEMS>::value && FAST_ITEMS >= 2, "FAST_ITEMS must be a power of two >= 2");
static_assert(FAST_GLOBAL_THREADS % 32 == 0 && FAST_GLOBAL_THREADS <= 1024,
              "FAST_GLOBAL_THREADS must be a multiple of 32 up to 1024");
static_assert(FAST_FUSE >= 1 && FAST_FUSE <= 4, "FAST_FUSE must be 1 to 4");

#if HAS_VALUES
typedef Value SortValueT;
#else
typedef sortlab::NullValue SortValueT;
#endif

extern __shared__ __align__(16) unsigned char fast_smem[];

// The tile a block works on.
struct Tile {
    u64 base;
    u32 valid;
};
__device__ __forceinline__ Tile block_tile(u64 n) {
    const u64 base = (u64)blockIdx.x * TILE;
    const u64 left = n - base;
    return Tile{base, left < (u64)TILE ? (u32)left : (u32)TILE};
}

// ---- Stages 2 .. TILE: every tile sorted by BlockBitonicSort. ----

typedef sortlab::BlockBitonicSort<Bits, SortValueT, FAST_THREADS, FAST_ITEMS> TileSort;
typedef sortlab::BlockLoad<Key, FAST_THREADS, FAST_ITEMS> LoadKeys;
typedef sortlab::BlockStore<Key, FAST_THREADS, FAST_ITEMS> StoreKeys;
typedef sortlab::BlockLoad<Value, FAST_THREADS, FAST_ITEMS> LoadValues;
typedef sortlab::BlockStore<Value, FAST_THREADS, FAST_ITEMS> StoreValues;

union TileStorage {
    typename LoadKeys::TempStorage load_keys;
    typename StoreKeys::TempStorage store_keys;
    typename TileSort::TempStorage sort;
#if HAS_VALUES
    typename LoadValues::TempStorage load_values;
    typename StoreValues::TempStorage store_values;
#endif
};
static_assert(sizeof(TileStorage) <= FAST_SMEM_BYTES, "FAST_SMEM_BYTES is too small for the tile sort");

extern "C" __global__ void __launch_bounds__(FAST_THREADS) bitonic_fast_tiles(Key* keys, Value* values, u64 n, Bits flip) {
    sortlab::dependent_entry();
    TileStorage& s = *reinterpret_cast<TileStorage*>(fast_smem);
    const Tile t = block_tile(n);
    Key k[FAST_ITEMS];
    LoadKeys::load(keys + t.base, k, t.valid, Key(), s.load_keys);
    __syncthreads();
    Bits b[FAST_ITEMS];
#pragma unroll
    for (int i = 0; i < FAST_ITEMS; ++i) b[i] = sortlab::flip_bits(k[i], flip);
#if HAS_VALUES
    Value v[FAST_ITEMS];
    LoadValues::load(values + t.base, v, t.valid, Value(), s.load_values);
    __syncthreads();
    TileSort::sort(b, v, s.sort, t.valid);
#else
    (void)values;
    TileSort::sort(b, s.sort, t.valid);
#endif
    __syncthreads();
#pragma unroll
    for (int i = 0; i < FAST_ITEMS; ++i) k[i] = sortlab::key_from_flipped_bits<Key>(b[i], flip);
    StoreKeys::store(keys + t.base, k, t.valid, s.store_keys);
#if HAS_VALUES
    __syncthreads();
    StoreValues::store(values + t.base, v, t.valid, s.store_values);
#endif
}

// ---- Global steps: S steps of one stage in registers. ----

// Group g of a launch whose smallest distance is d = 2^log_d: R = 2^S elements of the run of
// R * d elements that g / d names, at offset r = g mod d. Without the mirror they are
// first + r + m * d; with it (the stage's first step, run = the stage's block) the lower half
// is first + r + m * d and the upper half first + R/2 * d + (d - 1 - r) + (m - R/2) * d, so
// that register m's mirror partner is register R - 1 - m. In both, register order is index
// order, so every comparator of the register network below has its lower index first.
template <int S, bool Mirror>
__device__ __forceinline__ u64 group_position(u64 first, u64 r, u64 d, int m) {
    constexpr int R = 1 << S;
    if (Mirror && m >= R / 2) return first + (u64)(R / 2) * d + (d - 1 - r) + (u64)(m - R / 2) * d;
    return first + r + (u64)m * d;
}

template <int S, bool Mirror>
__device__ __forceinline__ void global_steps(Key* keys, Value* values, u64 n, Bits flip, u32 log_d) {
    constexpr int R = 1 << S;
    sortlab::dependent_entry();
    const u64 g = (u64)blockIdx.x * FAST_GLOBAL_THREADS + threadIdx.x;
    const u64 d = 1ull << log_d;
    const u64 r = g & (d - 1);
    const u64 first = (g >> log_d) << (log_d + S);
    if (first + r >= n) return;  // every element of the group is past the end
    Bits b[R];
#if HAS_VALUES
    Value v[R];
#else
    (void)values;
#endif
#pragma unroll
    for (int m = 0; m < R; ++m) {
        const u64 p = group_position<S, Mirror>(first, r, d, m);
        const bool in = p < n;
        b[m] = in ? sortlab::flip_bits(keys[p], flip) : sortlab::max_bits<Bits>();
#if HAS_VALUES
        v[m] = in ? values[p] : Value();
#endif
    }
    // Compare-exchange of registers lo < hi: swap only if hi is strictly smaller.
#define FAST_EXCHANGE(lo, hi)                                                                                \
    do {                                                                                                 \
        if (b[hi] < b[lo]) {                                                                             \
            const Bits tb = b[lo];                                                                       \
            b[lo] = b[hi];                                                                               \
            b[hi] = tb;                                                                                  \
            FAST_EXCHANGE_VALUES(lo, hi);                                                                \
        }                                                                                                \
    } while (0)
#if HAS_VALUES
#define FAST_EXCHANGE_VALUES(lo, hi) \
    do {                             \
        const Value tv = v[lo];      \
        v[lo] = v[hi];               \
        v[hi] = tv;                  \
    } while (0)
#else
#define FAST_EXCHANGE_VALUES(lo, hi) \
    do {                             \
    } while (0)
#endif
    if (Mirror) {
#pragma unroll
        for (int m = 0; m < R / 2; ++m) FAST_EXCHANGE(m, R - 1 - m);
    }
    // Then half-cleaners of register distance R/4 .. 1 after the mirror, R/2 .. 1 without it.
    constexpr int top = Mirror ? R / 4 : R / 2;
#pragma unroll
    for (int h = top; h >= 1; h /= 2) {
#pragma unroll
        for (int m = 0; m < R; ++m) {
            if ((m & h) == 0) FAST_EXCHANGE(m, m + h);
        }
    }
#undef FAST_EXCHANGE
#undef FAST_EXCHANGE_VALUES
#pragma unroll
    for (int m = 0; m < R; ++m) {
        const u64 p = group_position<S, Mirror>(first, r, d, m);
        if (p < n) {
            keys[p] = sortlab::key_from_flipped_bits<Key>(b[m], flip);
#if HAS_VALUES
            values[p] = v[m];
#endif
        }
    }
}

#define FAST_GLOBAL_KERNELS(S)                                                                                    \
    extern "C" __global__ void __launch_bounds__(FAST_GLOBAL_THREADS)                                             \
        bitonic_fast_global_##S(Key* keys, Value* values, u64 n, Bits flip, u32 log_d) {                          \
        global_steps<S, false>(keys, values, n, flip, log_d);                                                     \
    }                                                                                                             \
    extern "C" __global__ void __launch_bounds__(FAST_GLOBAL_THREADS)                                             \
        bitonic_fast_mirror_##S(Key* keys, Value* values, u64 n, Bits flip, u32 log_d) {                          \
        global_steps<S, true>(keys, values, n, flip, log_d);                                                      \
    }

FAST_GLOBAL_KERNELS(1)
#if FAST_FUSE >= 2
FAST_GLOBAL_KERNELS(2)
#endif
#if FAST_FUSE >= 3
FAST_GLOBAL_KERNELS(3)
#endif
#if FAST_FUSE >= 4
FAST_GLOBAL_KERNELS(4)
#endif

// ---- The last steps of a stage: half-cleaners TILE/2 .. 1 inside each tile. ----

// Elements in shared memory: the bits alone, or (bits, tile index) with values (the values move
// once, at the end, by index), as in BlockBitonicSort.
typedef sortlab::BitonicElem<Bits, HAS_VALUES != 0> Elem;
typedef typename Elem::T E;
enum { kSlots = TILE + FAST_THREADS };
// Chunk-major access (thread t's elements t * FAST_ITEMS ...) is padded by one slot per chunk.
__device__ __forceinline__ u32 merge_slot(u32 i) { return i + i / FAST_ITEMS; }

struct MergeStorage {
    union {
        E elems[kSlots];
#if HAS_VALUES
        Value values[TILE];
#endif
    } u;
};
static_assert(sizeof(MergeStorage) <= FAST_SMEM_BYTES, "FAST_SMEM_BYTES is too small for the merge");

extern "C" __global__ void __launch_bounds__(FAST_THREADS) bitonic_fast_merge(Key* keys, Value* values, u64 n, Bits flip) {
    sortlab::dependent_entry();
    MergeStorage& s = *reinterpret_cast<MergeStorage*>(fast_smem);
    E* elems = s.u.elems;
    const u32 tid = threadIdx.x;
    const Tile t = block_tile(n);
#pragma unroll
    for (int k = 0; k < FAST_ITEMS; ++k) {
        const u32 i = k * FAST_THREADS + tid;
        const Bits b = i < t.valid ? sortlab::flip_bits(keys[t.base + i], flip) : sortlab::max_bits<Bits>();
        elems[merge_slot(i)] = Elem::make(b, i);
    }
#if HAS_VALUES
    Value v[FAST_ITEMS];
#pragma unroll
    for (int k = 0; k < FAST_ITEMS; ++k) {
        const u32 i = k * FAST_THREADS + tid;
        v[k] = i < t.valid ? values[t.base + i] : Value();
    }
#else
    (void)values;
#endif
    __syncthreads();
    for (u32 j = TILE / 2; j >= (u32)FAST_ITEMS; j >>= 1) {
#pragma unroll 4
        for (u32 q = tid; q < (u32)TILE / 2; q += FAST_THREADS) {
            const u32 lo = ((q & ~(j - 1)) << 1) | (q & (j - 1));
            const u32 hi = lo + j;
            const E a = elems[merge_slot(lo)];
            const E b = elems[merge_slot(hi)];
            if (Elem::less(b, a)) {
                elems[merge_slot(lo)] = b;
                elems[merge_slot(hi)] = a;
            }
        }
        __syncthreads();
    }
    E r[FAST_ITEMS];
#pragma unroll
    for (int c = 0; c < FAST_ITEMS; ++c) r[c] = elems[merge_slot(tid * FAST_ITEMS + c)];
#pragma unroll
    for (int j = FAST_ITEMS / 2; j >= 1; j /= 2) {
#pragma unroll
        for (int c = 0; c < FAST_ITEMS; ++c) {
            if ((c & j) == 0 && Elem::less(r[c + j], r[c])) {
                const E tmp = r[c];
                r[c] = r[c + j];
                r[c + j] = tmp;
            }
        }
    }
#pragma unroll
    for (int c = 0; c < FAST_ITEMS; ++c) elems[merge_slot(tid * FAST_ITEMS + c)] = r[c];
    __syncthreads();
    Bits ob[FAST_ITEMS];
#if HAS_VALUES
    u32 oi[FAST_ITEMS];
#endif
#pragma unroll
    for (int k = 0; k < FAST_ITEMS; ++k) {
        const E e = elems[merge_slot(k * FAST_THREADS + tid)];
        ob[k] = Elem::bits(e);
#if HAS_VALUES
        oi[k] = Elem::index(e);
#endif
    }
#if HAS_VALUES
    __syncthreads();  // the values reuse the elements' shared memory
#pragma unroll
    for (int k = 0; k < FAST_ITEMS; ++k) s.u.values[k * FAST_THREADS + tid] = v[k];
    __syncthreads();
#endif
#pragma unroll
    for (int k = 0; k < FAST_ITEMS; ++k) {
        const u32 i = k * FAST_THREADS + tid;
        if (i < t.valid) {
            keys[t.base + i] = sortlab::key_from_flipped_bits<Key>(ob[k], flip);
#if HAS_VALUES
            values[t.base + i] = s.u.values[oi[k]];
#endif
        }
    }
}
