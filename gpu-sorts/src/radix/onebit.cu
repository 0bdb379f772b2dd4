// onebit.cu: RadixVariant::OneBit, the radix sort of CUDPP built on the split primitive (Blelloch;
// Harris, Sengupta and Owens, "Parallel Prefix Sum (Scan) with CUDA", GPU Gems 3 ch. 39.3.3;
// the 1-bit sort Satish et al. compare against). One pass per bit, from the least significant:
//   1. onebit_count: each tile counts its keys whose bit is 0 and 1, digit-major [2][tiles];
//   2-3. the counts are scanned (digit_scan.cu): every (bit value, tile)'s first position;
//   4. onebit_split: each tile scans its bit flags (block scan) and scatters every key (and
//      value) straight to its position: falses first, then trues, each in input order.
// Every pass is a stable split, so the sort is stable.
//
// Keys are raw words mapped to ordered bits as in onesweep.cu (masks neg/pos, the flip word). Grids are strided
// over tiles, so any grid size is correct.
//
// Defines:
//   KEY_BITS_T, VALUE_T, HAS_VALUES   as in onesweep.cu
//   ONEBIT_THREADS                threads per block (a power of two, 32 to 1024)
//   ONEBIT_ITEMS                  keys per thread: a tile is ONEBIT_THREADS * ONEBIT_ITEMS
#include "sortlab/block/block_load_store.cuh"
#include "sortlab/block/block_reduce.cuh"
#include "sortlab/block/block_scan.cuh"
#include "sortlab/thread/key_defines.cuh"

#ifndef ONEBIT_THREADS
#define ONEBIT_THREADS 256
#endif
#ifndef ONEBIT_ITEMS
#define ONEBIT_ITEMS 4
#endif

typedef KEY_BITS_T Key;
typedef VALUE_T Value;
#define KEY_BITS (8 * (int)sizeof(Key))
#define TILE_ITEMS (ONEBIT_THREADS * ONEBIT_ITEMS)

typedef sortlab::BlockLoad<Key, ONEBIT_THREADS, ONEBIT_ITEMS> KeyLoad;
typedef sortlab::BlockLoad<Value, ONEBIT_THREADS, ONEBIT_ITEMS> ValueLoad;
typedef sortlab::BlockReduce<u32, ONEBIT_THREADS> Reduce;
typedef sortlab::BlockScan<u32, ONEBIT_THREADS> Scan;

__device__ __forceinline__ u32 tile_valid(u64 tile, u64 n) {
    const u64 left = n - tile * TILE_ITEMS;
    return left < TILE_ITEMS ? (u32)left : (u32)TILE_ITEMS;
}

// The bit of the ordered key.
__device__ __forceinline__ u32 key_bit(Key raw, Key neg, Key pos, u32 bit) {
    return (u32)((raw ^ ((raw >> (KEY_BITS - 1)) ? neg : pos)) >> bit) & 1u;
}

// Step 1. counts[tile] = keys of the tile whose bit is 0, counts[tiles + tile] = those with 1.
extern "C" __global__ void __launch_bounds__(ONEBIT_THREADS)
onebit_count(const Key* keys, u64 n, u64 tiles, u32 bit, Key neg, Key pos, Key flip, u64* counts) {
    neg ^= flip;
    pos ^= flip;
    __shared__ typename Reduce::TempStorage tmp;
    const u32 tid = threadIdx.x;
    for (u64 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const u64 first = tile * TILE_ITEMS;
        const u32 valid = tile_valid(tile, n);
        u32 ones = 0;
#pragma unroll
        for (int j = 0; j < ONEBIT_ITEMS; ++j) {
            const u32 e = j * ONEBIT_THREADS + tid;
            if (e < valid) ones += key_bit(keys[first + e], neg, pos, bit);
        }
        ones = Reduce::reduce(ones, sortlab::Sum(), tmp);
        if (tid == 0) {
            counts[tile] = valid - ones;
            counts[tiles + tile] = ones;
        }
        __syncthreads();
    }
}

// Step 4. positions: the scanned counts ([2][tiles], exclusive).
extern "C" __global__ void __launch_bounds__(ONEBIT_THREADS)
onebit_split(const Key* keys, const Value* values, Key* out_keys, Value* out_values, u64 n, u64 tiles, u32 bit,
             Key neg, Key pos, Key flip, const u64* positions) {
    neg ^= flip;
    pos ^= flip;
    __shared__ union {
        typename KeyLoad::TempStorage key_load;
        typename ValueLoad::TempStorage value_load;
        typename Scan::TempStorage scan;
    } tmp;
    const u32 tid = threadIdx.x;
    for (u64 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const u64 first = tile * TILE_ITEMS;
        const u32 valid = tile_valid(tile, n);
        // Blocked: thread tid holds tile elements tid * ONEBIT_ITEMS + j, in input order.
        Key k[ONEBIT_ITEMS];
        KeyLoad::load(keys + first, k, valid, (Key)0, tmp.key_load);
        __syncthreads();
#if HAS_VALUES
        Value v[ONEBIT_ITEMS];
        ValueLoad::load(values + first, v, valid, (Value)0, tmp.value_load);
        __syncthreads();
#else
        (void)values;
        (void)out_values;
#endif
        u32 zeros = 0;
#pragma unroll
        for (int j = 0; j < ONEBIT_ITEMS; ++j) {
            if (tid * ONEBIT_ITEMS + j < valid) zeros += 1u - key_bit(k[j], neg, pos, bit);
        }
        u32 tile_zeros;
        // The split's scan: falses before this thread's first element.
        u32 zeros_before = Scan::exclusive_scan(zeros, 0u, sortlab::Sum(), tile_zeros, tmp.scan);
        const u64 zero_base = positions[tile];
        const u64 one_base = positions[tiles + tile];
#pragma unroll
        for (int j = 0; j < ONEBIT_ITEMS; ++j) {
            const u32 e = tid * ONEBIT_ITEMS + j;
            if (e < valid) {
                const u32 b = key_bit(k[j], neg, pos, bit);
                // Trues before element e: e - falses before it.
                const u64 out = b ? one_base + (e - zeros_before) : zero_base + zeros_before;
                zeros_before += 1u - b;
                out_keys[out] = k[j];
#if HAS_VALUES
                out_values[out] = v[j];
#endif
            }
        }
        __syncthreads();
    }
}
