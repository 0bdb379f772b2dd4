// small.cu: the one-block radix sort of RadixVariant::Fast for inputs of at most one tile: load
// the whole input into one block, sort it in shared memory with the block radix sort of
// `primitives` (sortlab/block/block_radix_sort.cuh), all digits in one launch, store it back in
// place. One launch instead of the onesweep sort's histogram, plan and pass launches.
//
// Keys are raw words mapped to ordered bits as in onesweep.cu (masks neg/pos, the flip word),
// and back by the inverse masks.
//
// Defines:
//   KEY_BITS_T, VALUE_T, HAS_VALUES   as in onesweep.cu
//   SMALL_THREADS                 threads of the block (a multiple of 32)
//   SMALL_ITEMS                   keys per thread: the largest input is SMALL_THREADS * SMALL_ITEMS
//   SMALL_RADIX_BITS              bits per in-block pass (1 to 8)
#include "sortlab/block/block_radix_sort.cuh"
#include "sortlab/thread/key_bits.cuh"
#include "sortlab/grid/grid_dependency.cuh"
#include "sortlab/thread/key_defines.cuh"

#ifndef SMALL_THREADS
#define SMALL_THREADS 256
#endif
#ifndef SMALL_ITEMS
#define SMALL_ITEMS 16
#endif
#ifndef SMALL_RADIX_BITS
#define SMALL_RADIX_BITS 4
#endif

typedef KEY_BITS_T Key;
typedef VALUE_T Value;
#define KEY_BITS (8 * (int)sizeof(Key))

#if HAS_VALUES
typedef Value SortValueT;
#else
typedef sortlab::NullValue SortValueT;
#endif

typedef sortlab::BlockLoad<Key, SMALL_THREADS, SMALL_ITEMS> KeyLoad;
typedef sortlab::BlockLoad<Value, SMALL_THREADS, SMALL_ITEMS> ValueLoad;
typedef sortlab::BlockRadixSort<Key, SortValueT, SMALL_THREADS, SMALL_ITEMS, SMALL_RADIX_BITS> Sort;

// The masks of the inverse map, raw = ordered ^ (top bit of ordered ? inv_hi : inv_lo), from
// the forward masks (the flip word folded in): the raw words whose mask leaves their top bit set
// become the ordered words with the top bit set.
// (Arithmetic, not a select on a flag: a flag invariant in the tile loop gets the loop
// unswitched, twice the code and twice the registers.)
__device__ __forceinline__ void inverse_masks(Key neg, Key pos, Key& inv_hi, Key& inv_lo) {
    const Key swap = (Key)0 - (~neg >> (KEY_BITS - 1));  // all ones where neg keeps the top bit clear
    inv_hi = pos ^ ((neg ^ pos) & swap);
    inv_lo = neg ^ ((neg ^ pos) & swap);
}

// Sorts keys[0 .. n) (and values) in place by ordered bits [begin_bit, end_bit); n <= the tile.
extern "C" __global__ void __launch_bounds__(SMALL_THREADS)
radix_small(Key* keys, Value* values, u32 n, u32 begin_bit, u32 end_bit, Key neg, Key pos, Key flip) {
    sortlab::dependent_entry();
    neg ^= flip;
    pos ^= flip;
    Key inv_hi, inv_lo;
    inverse_masks(neg, pos, inv_hi, inv_lo);
    __shared__ union {
        typename KeyLoad::TempStorage key_load;
        typename ValueLoad::TempStorage value_load;
        typename Sort::TempStorage sort;
    } tmp;
    const u32 tid = threadIdx.x;
    Key k[SMALL_ITEMS];
    KeyLoad::load(keys, k, n, (Key)0, tmp.key_load);
#pragma unroll
    for (int j = 0; j < SMALL_ITEMS; ++j) k[j] ^= (k[j] >> (KEY_BITS - 1)) ? neg : pos;
    __syncthreads();
#if HAS_VALUES
    Value v[SMALL_ITEMS];
    ValueLoad::load(values, v, n, (Value)0, tmp.value_load);
    __syncthreads();
    Sort::sort_blocked_to_striped(k, v, tmp.sort, n, (int)begin_bit, (int)end_bit);
#else
    (void)values;
    Sort::sort_blocked_to_striped(k, tmp.sort, n, (int)begin_bit, (int)end_bit);
#endif
#pragma unroll
    for (int j = 0; j < SMALL_ITEMS; ++j) k[j] ^= (k[j] >> (KEY_BITS - 1)) ? inv_hi : inv_lo;
    sortlab::store_direct_striped<SMALL_THREADS>(tid, keys, k, n);
#if HAS_VALUES
    sortlab::store_direct_striped<SMALL_THREADS>(tid, values, v, n);
#endif
}
