// satish.cu: RadixVariant::Satish, the blocked radix sort of Satish, Harris and Garland
// ("Designing Efficient Sorting Algorithms for Manycore GPUs", IPDPS 2009). Each pass handles
// one RADIX_BITS-wide digit (4 bits in the paper) in four steps:
//   1. satish_local_sort: every tile is sorted by the digit in shared memory (the block radix
//      sort of `primitives`) and written back to a temporary buffer, with its digit counts
//      (digit-major, [digit][tile]) and the offset of each digit inside the sorted tile;
//   2-3. the counts are scanned (digit_scan.cu) into each (digit, tile)'s output position;
//   4. satish_scatter: every tile's sorted keys go to their positions; keys of one digit are
//      contiguous in the sorted tile, so the writes are coalesced.
// Pass after pass from the least significant digit; each pass is stable, so the sort is.
//
// Keys are raw words mapped to ordered bits as in onesweep.cu (masks neg/pos, the flip word),
// and back by the inverse masks. Grids are strided over tiles, so any grid size is correct.
//
// Defines:
//   KEY_BITS_T, VALUE_T, HAS_VALUES   as in onesweep.cu
//   SATISH_THREADS                threads per block (a multiple of 32)
//   SATISH_ITEMS                  keys per thread: a tile is SATISH_THREADS * SATISH_ITEMS
//   SATISH_RADIX_BITS             digit width (1 to 8; the paper's is 4)
#include "sortlab/block/block_radix_sort.cuh"
#include "sortlab/thread/key_defines.cuh"

#ifndef SATISH_THREADS
#define SATISH_THREADS 256
#endif
#ifndef SATISH_ITEMS
#define SATISH_ITEMS 4
#endif
#ifndef SATISH_RADIX_BITS
#define SATISH_RADIX_BITS 4
#endif

typedef KEY_BITS_T Key;
typedef VALUE_T Value;
#define KEY_BITS (8 * (int)sizeof(Key))
#define TILE_ITEMS (SATISH_THREADS * SATISH_ITEMS)
#define RADIX_DIGITS (1 << SATISH_RADIX_BITS)

static_assert(RADIX_DIGITS <= SATISH_THREADS, "one thread per digit writes the tile's counts");

#if HAS_VALUES
typedef Value SortValueT;
#else
typedef sortlab::NullValue SortValueT;
#endif

typedef sortlab::BlockLoad<Key, SATISH_THREADS, SATISH_ITEMS> KeyLoad;
typedef sortlab::BlockLoad<Value, SATISH_THREADS, SATISH_ITEMS> ValueLoad;
typedef sortlab::BlockRadixSort<Key, SortValueT, SATISH_THREADS, SATISH_ITEMS, SATISH_RADIX_BITS> Sort;

__device__ __forceinline__ u32 tile_valid(u64 tile, u64 n) {
    const u64 left = n - tile * TILE_ITEMS;
    return left < TILE_ITEMS ? (u32)left : (u32)TILE_ITEMS;
}

// The masks of the inverse map, raw = ordered ^ (top bit of ordered ? inv_hi : inv_lo), from
// the forward masks (here the ascending ones; the flip word is undone first): the raw words
// whose mask leaves their top bit set become the ordered words with the top bit set.
// (Arithmetic, not a select on a flag: a flag invariant in the tile loop gets the loop
// unswitched, twice the code and twice the registers.)
__device__ __forceinline__ void inverse_masks(Key neg, Key pos, Key& inv_hi, Key& inv_lo) {
    const Key swap = (Key)0 - (~neg >> (KEY_BITS - 1));  // all ones where neg keeps the top bit clear
    inv_hi = pos ^ ((neg ^ pos) & swap);
    inv_lo = neg ^ ((neg ^ pos) & swap);
}

// Step 1. keys/values: this pass's input; tmp_keys/tmp_values: the tile-sorted output (same
// layout). counts: [RADIX_DIGITS][tiles]; tile_offsets: [tiles][RADIX_DIGITS]. The digit is
// bits [bit, bit + width) of the ordered key.
extern "C" __global__ void __launch_bounds__(SATISH_THREADS)
satish_local_sort(const Key* keys, const Value* values, Key* tmp_keys, Value* tmp_values, u64 n, u64 tiles, u32 bit,
                  u32 width, Key neg, Key pos, Key flip, u64* counts, u32* tile_offsets) {
    __shared__ union {
        typename KeyLoad::TempStorage key_load;
        typename ValueLoad::TempStorage value_load;
        typename Sort::TempStorage sort;
    } tmp;
    __shared__ u32 digit_offsets[RADIX_DIGITS];
    __shared__ u32 digit_counts[RADIX_DIGITS];
    const u32 tid = threadIdx.x;
    for (u64 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const u64 first = tile * TILE_ITEMS;
        const u32 valid = tile_valid(tile, n);
        Key k[SATISH_ITEMS];
        KeyLoad::load(keys + first, k, valid, (Key)0, tmp.key_load);
#pragma unroll
        for (int j = 0; j < SATISH_ITEMS; ++j) k[j] ^= ((k[j] >> (KEY_BITS - 1)) ? neg : pos) ^ flip;
        __syncthreads();
        sortlab::DigitSink sink;
        sink.offsets = digit_offsets;
        sink.counts = digit_counts;
        sink.valid = valid;
#if HAS_VALUES
        Value v[SATISH_ITEMS];
        ValueLoad::load(values + first, v, valid, (Value)0, tmp.value_load);
        __syncthreads();
        Sort::sort_blocked_to_striped(k, v, tmp.sort, valid, (int)bit, (int)(bit + width), sink);
#else
        (void)values;
        (void)tmp_values;
        Sort::sort_blocked_to_striped(k, tmp.sort, valid, (int)bit, (int)(bit + width), sink);
#endif
        Key inv_hi, inv_lo;
        inverse_masks(neg, pos, inv_hi, inv_lo);
#pragma unroll
        for (int j = 0; j < SATISH_ITEMS; ++j) {
            k[j] ^= flip;
            k[j] ^= (k[j] >> (KEY_BITS - 1)) ? inv_hi : inv_lo;
        }
        sortlab::store_direct_striped<SATISH_THREADS>(tid, tmp_keys + first, k, valid);
#if HAS_VALUES
        sortlab::store_direct_striped<SATISH_THREADS>(tid, tmp_values + first, v, valid);
#endif
        if (tid < RADIX_DIGITS) {
            counts[(u64)tid * tiles + tile] = digit_counts[tid];
            tile_offsets[tile * RADIX_DIGITS + tid] = digit_offsets[tid];
        }
        __syncthreads();
    }
}

// Step 4. positions: the scanned counts ([RADIX_DIGITS][tiles], exclusive); keys and values
// of tile-sorted element r of digit d go to positions[d][tile] + r - tile_offsets[tile][d].
extern "C" __global__ void __launch_bounds__(SATISH_THREADS)
satish_scatter(const Key* tmp_keys, const Value* tmp_values, Key* keys, Value* values, u64 n, u64 tiles, u32 bit,
               u32 width, Key neg, Key pos, Key flip, const u64* positions, const u32* tile_offsets) {
    neg ^= flip;
    pos ^= flip;
    __shared__ u64 digit_base[RADIX_DIGITS];
    const u32 tid = threadIdx.x;
    const u32 mask = (1u << width) - 1u;
    for (u64 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const u64 first = tile * TILE_ITEMS;
        const u32 valid = tile_valid(tile, n);
        if (tid < RADIX_DIGITS) {
            digit_base[tid] = positions[(u64)tid * tiles + tile] - (u64)tile_offsets[tile * RADIX_DIGITS + tid];
        }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < SATISH_ITEMS; ++j) {
            const u32 r = j * SATISH_THREADS + tid;
            if (r < valid) {
                const Key raw = tmp_keys[first + r];
                const Key o = raw ^ ((raw >> (KEY_BITS - 1)) ? neg : pos);
                const u64 out = digit_base[(u32)(o >> bit) & mask] + r;
                keys[out] = raw;
#if HAS_VALUES
                values[out] = tmp_values[first + r];
#endif
            }
        }
#if !HAS_VALUES
        (void)tmp_values;
        (void)values;
#endif
        __syncthreads();
    }
}
