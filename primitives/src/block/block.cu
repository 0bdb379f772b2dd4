// block.cu: thin kernels over the block-level headers (sortlab/block/*.cuh), one tile per block:
// tile sorts (radix, bitonic, merge; keys and pairs), tile digit histograms, and two kernels that
// exist for the tests (a tile load/store round trip, a radix digit pass with its DigitSink).
// They are the host-visible `primitives::block` functions and the examples of how a sort kernel
// uses the headers.
//
// Defines (every kernel of one module shares them; KEY_T/VALUE_T/policy make one module):
//   KEY_T                the key's CUDA type (ordered bits via sortlab::KeyBits<KEY_T>)
//   VALUE_T              the value's CUDA type (moved as raw bits)
//   BLOCK_THREADS        threads per block, a power of two (every kernel is launched with it)
//   ITEMS_PER_THREAD     keys per thread: a tile holds up to BLOCK_THREADS * ITEMS_PER_THREAD
//   RADIX_BITS           bits per radix pass (and the digit width of tile_radix_digits' sink)
//   HISTOGRAM_MAX_BINS   counters of the histogram kernels (digits of at most log2 of it bits)
//
// Every kernel takes the logical tile length `tile` (1 <= tile <= BLOCK_THREADS *
// ITEMS_PER_THREAD; the host checks), walks tiles t = blockIdx.x, blockIdx.x + gridDim.x, ...
// of [t * tile, min(n, (t + 1) * tile)) with 64-bit offsets, and works in dynamic shared memory
// of the size block_temp_bytes reports for it.
#include "sortlab/block/block_bitonic.cuh"
#include "sortlab/block/block_histogram.cuh"
#include "sortlab/block/block_load_store.cuh"
#include "sortlab/block/block_merge_sort.cuh"
#include "sortlab/block/block_radix_sort.cuh"
#include "sortlab/thread/key_bits.cuh"
#include "sortlab/thread/key_defines.cuh"

#ifndef BLOCK_THREADS
#define BLOCK_THREADS 128
#endif
#ifndef ITEMS_PER_THREAD
#define ITEMS_PER_THREAD 8
#endif
#ifndef RADIX_BITS
#define RADIX_BITS 4
#endif
#ifndef HISTOGRAM_MAX_BINS
#define HISTOGRAM_MAX_BINS 256
#endif

#define TILE_CAPACITY (BLOCK_THREADS * ITEMS_PER_THREAD)

typedef KEY_T Key;
typedef VALUE_T Val;
typedef sortlab::KeyBits<Key>::Bits Bits;

extern __shared__ __align__(16) unsigned char block_smem[];

template <typename T> __device__ __forceinline__ T& smem_as() { return *reinterpret_cast<T*>(block_smem); }

// The tile a block works on: its first element and its length.
struct Tile {
    u64 base;
    u32 valid;
};
__device__ __forceinline__ Tile tile_at(u64 t, u64 n, u64 tile) {
    const u64 base = t * tile;
    const u64 left = n - base;
    return Tile{base, (u32)(left < tile ? left : tile)};
}

// ---- Tile sorts. ----

enum SortAlgo { kRadix = 0, kBitonic = 1, kMerge = 2 };

template <int Algo, typename V> struct Sorter;
template <typename V> struct Sorter<kRadix, V> {
    typedef sortlab::BlockRadixSort<Bits, V, BLOCK_THREADS, ITEMS_PER_THREAD, RADIX_BITS> T;
};
template <typename V> struct Sorter<kBitonic, V> {
    typedef sortlab::BlockBitonicSort<Bits, V, BLOCK_THREADS, ITEMS_PER_THREAD> T;
};
template <typename V> struct Sorter<kMerge, V> {
    typedef sortlab::BlockMergeSort<Bits, V, BLOCK_THREADS, ITEMS_PER_THREAD> T;
};

template <int Algo, bool Pairs> struct SortKernel {
    typedef typename sortlab::Conditional<Pairs, Val, sortlab::NullValue>::Type V;
    typedef typename Sorter<Algo, V>::T Sort;
    typedef sortlab::BlockLoad<Key, BLOCK_THREADS, ITEMS_PER_THREAD> LoadKeys;
    typedef sortlab::BlockLoad<Val, BLOCK_THREADS, ITEMS_PER_THREAD> LoadValues;
    typedef sortlab::BlockStore<Key, BLOCK_THREADS, ITEMS_PER_THREAD> StoreKeys;
    typedef sortlab::BlockStore<Val, BLOCK_THREADS, ITEMS_PER_THREAD> StoreValues;
    union Storage {
        typename LoadKeys::TempStorage load_keys;
        typename LoadValues::TempStorage load_values;
        typename Sort::TempStorage sort;
        typename StoreKeys::TempStorage store_keys;
        typename StoreValues::TempStorage store_values;
    };

    static __device__ __forceinline__ void run(Key* keys, Val* values, u64 n, u64 tile, Bits flip) {
        Storage& s = smem_as<Storage>();
        const u64 tiles = (n + tile - 1) / tile;
        for (u64 t = blockIdx.x; t < tiles; t += gridDim.x) {
            const Tile tl = tile_at(t, n, tile);
            Key k[ITEMS_PER_THREAD];
            V v[ITEMS_PER_THREAD];
            LoadKeys::load(keys + tl.base, k, tl.valid, Key(), s.load_keys);
            __syncthreads();
            if constexpr (Pairs) {
                LoadValues::load(values + tl.base, v, tl.valid, Val(), s.load_values);
                __syncthreads();
            }
            Bits b[ITEMS_PER_THREAD];
#pragma unroll
            for (int i = 0; i < ITEMS_PER_THREAD; ++i) b[i] = sortlab::flip_bits(k[i], flip);

            if constexpr (Algo == kRadix) {
                // Radix sorts straight into the striped arrangement: a coalesced store follows.
                if constexpr (Pairs) {
                    Sort::sort_blocked_to_striped(b, v, s.sort, tl.valid, 0, (int)(8 * sizeof(Bits)));
                } else {
                    Sort::sort_blocked_to_striped(b, s.sort, tl.valid, 0, (int)(8 * sizeof(Bits)));
                }
#pragma unroll
                for (int i = 0; i < ITEMS_PER_THREAD; ++i) k[i] = sortlab::key_from_flipped_bits<Key>(b[i], flip);
                sortlab::store_direct_striped<BLOCK_THREADS>(threadIdx.x, keys + tl.base, k, tl.valid);
                if constexpr (Pairs) {
                    sortlab::store_direct_striped<BLOCK_THREADS>(threadIdx.x, values + tl.base, v, tl.valid);
                }
                __syncthreads();
            } else {
                if constexpr (Pairs) {
                    Sort::sort(b, v, s.sort, tl.valid);
                } else {
                    Sort::sort(b, s.sort, tl.valid);
                }
                __syncthreads();
#pragma unroll
                for (int i = 0; i < ITEMS_PER_THREAD; ++i) k[i] = sortlab::key_from_flipped_bits<Key>(b[i], flip);
                StoreKeys::store(keys + tl.base, k, tl.valid, s.store_keys);
                __syncthreads();
                if constexpr (Pairs) {
                    StoreValues::store(values + tl.base, v, tl.valid, s.store_values);
                    __syncthreads();
                }
            }
        }
    }
};

#define SORT_KERNELS(name, algo)                                                                          \
    extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)                                           \
        sort_tiles_##name##_keys(Key* keys, u64 n, u64 tile, Bits flip) {                                  \
        SortKernel<algo, false>::run(keys, nullptr, n, tile, flip);                                       \
    }                                                                                                     \
    extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)                                           \
        sort_tiles_##name##_pairs(Key* keys, Val* values, u64 n, u64 tile, Bits flip) {                    \
        SortKernel<algo, true>::run(keys, values, n, tile, flip);                                         \
    }

SORT_KERNELS(radix, kRadix)
SORT_KERNELS(bitonic, kBitonic)
SORT_KERNELS(merge, kMerge)

// ---- Tile digit histograms: out[t * 2^bits + d] = keys of tile t whose digit (bits [bit, bit +
// bits) of the ordered bits) is d. Any tile length: a tile is counted in chunks of
// TILE_CAPACITY. ----

template <int Algo> struct HistogramKernel {
    typedef sortlab::BlockHistogram<BLOCK_THREADS, ITEMS_PER_THREAD, HISTOGRAM_MAX_BINS, Algo> Hist;
    typedef typename Hist::TempStorage Storage;

    static __device__ __forceinline__ void run(const Key* keys, u64 n, u64 tile, Bits flip, u32 bit, u32 bits,
                                               u32* out) {
        Storage& s = smem_as<Storage>();
        const u32 tid = threadIdx.x;
        const u32 bins = 1u << bits;
        const u64 tiles = (n + tile - 1) / tile;
        for (u64 t = blockIdx.x; t < tiles; t += gridDim.x) {
            const u64 base = t * tile;
            const u64 len = n - base < tile ? n - base : tile;
            Hist::init(s);
            __syncthreads();
            for (u64 off = 0; off < len; off += TILE_CAPACITY) {
                const u32 valid = (u32)(len - off < TILE_CAPACITY ? len - off : TILE_CAPACITY);
                Key k[ITEMS_PER_THREAD];
                sortlab::load_direct_striped<BLOCK_THREADS>(tid, keys + base + off, k, valid, Key());
                u32 d[ITEMS_PER_THREAD];
#pragma unroll
                for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
                    d[i] = sortlab::radix_digit(sortlab::flip_bits(k[i], flip), bit, bits);
                }
                Hist::template accumulate<sortlab::kStriped>(d, valid, s);
            }
            __syncthreads();
            for (u32 b = tid; b < bins; b += BLOCK_THREADS) out[t * bins + b] = s.bins[b];
            __syncthreads();
        }
    }
};

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)
tile_histogram_atomic(const Key* keys, u64 n, u64 tile, Bits flip, u32 bit, u32 bits, u32* out) {
    HistogramKernel<sortlab::kHistogramAtomic>::run(keys, n, tile, flip, bit, bits, out);
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)
tile_histogram_warp_aggregated(const Key* keys, u64 n, u64 tile, Bits flip, u32 bit, u32 bits, u32* out) {
    HistogramKernel<sortlab::kHistogramWarpAggregated>::run(keys, n, tile, flip, bit, bits, out);
}

// ---- Test kernels. ----

// Round trip of each tile through registers: mode 0 BlockLoad / BlockStore (transposed,
// vectorised where aligned), 1 direct blocked, 2 direct striped. Loads with `fill` past the tile's
// end, then writes the whole capacity to full[t * TILE_CAPACITY ..] (the fill visible) and the
// tile's valid elements to copy[t * tile ..].
typedef sortlab::BlockLoad<Key, BLOCK_THREADS, ITEMS_PER_THREAD> TestLoad;
typedef sortlab::BlockStore<Key, BLOCK_THREADS, ITEMS_PER_THREAD> TestStore;
union LoadStoreStorage {
    TestLoad::TempStorage load;
    TestStore::TempStorage store;
};

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)
tile_load_store(const Key* in, Key* full, Key* copy, u64 n, u64 tile, Key fill, u32 mode) {
    LoadStoreStorage& s = smem_as<LoadStoreStorage>();
    const u32 tid = threadIdx.x;
    const u64 tiles = (n + tile - 1) / tile;
    for (u64 t = blockIdx.x; t < tiles; t += gridDim.x) {
        const Tile tl = tile_at(t, n, tile);
        Key k[ITEMS_PER_THREAD];
        Key* f = full + t * TILE_CAPACITY;
        if (mode == 0) {
            TestLoad::load(in + tl.base, k, tl.valid, fill, s.load);
            __syncthreads();
            TestStore::store(f, k, s.store);
            __syncthreads();
            TestStore::store(copy + tl.base, k, tl.valid, s.store);
            __syncthreads();
        } else if (mode == 1) {
            sortlab::load_direct_blocked(tid, in + tl.base, k, tl.valid, fill);
            sortlab::store_direct_blocked(tid, f, k);
            sortlab::store_direct_blocked(tid, copy + tl.base, k, tl.valid);
        } else {
            sortlab::load_direct_striped<BLOCK_THREADS>(tid, in + tl.base, k, tl.valid, fill);
            sortlab::store_direct_striped<BLOCK_THREADS>(tid, f, k);
            sortlab::store_direct_striped<BLOCK_THREADS>(tid, copy + tl.base, k, tl.valid);
        }
    }
}

// Satish et al.'s per-tile step: each tile stably sorted by bits [begin_bit, end_bit) into out
// (keys only), with the last pass's digit offsets and counts (2^RADIX_BITS per tile) from
// BlockRadixSort's DigitSink.
typedef sortlab::BlockRadixSort<Bits, sortlab::NullValue, BLOCK_THREADS, ITEMS_PER_THREAD, RADIX_BITS> DigitSort;
struct DigitsStorage {
    union Phases {
        TestLoad::TempStorage load;
        DigitSort::TempStorage sort;
        TestStore::TempStorage store;
    } u;
    u32 offsets[1 << RADIX_BITS];
    u32 counts[1 << RADIX_BITS];
};

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)
tile_radix_digits(const Key* in, Key* out, u32* offsets, u32* counts, u64 n, u64 tile, Bits flip, u32 begin_bit,
                  u32 end_bit) {
    DigitsStorage& s = smem_as<DigitsStorage>();
    const u32 tid = threadIdx.x;
    const u64 tiles = (n + tile - 1) / tile;
    for (u64 t = blockIdx.x; t < tiles; t += gridDim.x) {
        const Tile tl = tile_at(t, n, tile);
        Key k[ITEMS_PER_THREAD];
        TestLoad::load(in + tl.base, k, tl.valid, Key(), s.u.load);
        __syncthreads();
        Bits b[ITEMS_PER_THREAD];
#pragma unroll
        for (int i = 0; i < ITEMS_PER_THREAD; ++i) b[i] = sortlab::flip_bits(k[i], flip);
        sortlab::DigitSink sink;
        sink.offsets = s.offsets;
        sink.counts = s.counts;
        sink.valid = tl.valid;
        DigitSort::sort(b, s.u.sort, tl.valid, (int)begin_bit, (int)end_bit, sink);
        __syncthreads();
#pragma unroll
        for (int i = 0; i < ITEMS_PER_THREAD; ++i) k[i] = sortlab::key_from_flipped_bits<Key>(b[i], flip);
        TestStore::store(out + tl.base, k, tl.valid, s.u.store);
        for (u32 d = tid; d < (1u << RADIX_BITS); d += BLOCK_THREADS) {
            offsets[t * (1u << RADIX_BITS) + d] = s.offsets[d];
            counts[t * (1u << RADIX_BITS) + d] = s.counts[d];
        }
        __syncthreads();
    }
}

// ---- Dynamic shared memory each kernel family needs, in bytes: [radix keys, radix pairs,
// bitonic keys, bitonic pairs, merge keys, merge pairs, histogram, load/store, radix digits]. ----
extern "C" __global__ void block_temp_bytes(u32* out) {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        out[0] = sizeof(SortKernel<kRadix, false>::Storage);
        out[1] = sizeof(SortKernel<kRadix, true>::Storage);
        out[2] = sizeof(SortKernel<kBitonic, false>::Storage);
        out[3] = sizeof(SortKernel<kBitonic, true>::Storage);
        out[4] = sizeof(SortKernel<kMerge, false>::Storage);
        out[5] = sizeof(SortKernel<kMerge, true>::Storage);
        out[6] = sizeof(HistogramKernel<sortlab::kHistogramAtomic>::Storage);
        out[7] = sizeof(LoadStoreStorage);
        out[8] = sizeof(DigitsStorage);
    }
}
