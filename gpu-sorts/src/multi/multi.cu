// multi.cu: the device side of one rank of the multi-GPU sort (gpu-sorts/src/multi).
//   multi_samples  the ordered bits (in the sort's order, widened to u64) of every `step`-th key
//                  of the rank's sorted share: its regular samples, all-gathered through NCCL;
//   multi_cuts     per splitter, a binary search of the sorted share within the window that the
//                  samples bracket: the first position whose key is not below (or, `upper`, not
//                  at or below) the splitter's bits;
//   multi_merge_partition
//                  the merge-path split of every MERGE_TILE-th output of the merge below (one
//                  thread each, a binary search over the whole runs);
//   multi_merge    one stable merge of two adjacent sorted runs A = [a_begin, a_begin + a_len)
//                  and B = [a_begin + a_len, ... + b_len) of the received keys (and values) into
//                  the same range of the output: MULTI_ITEMS outputs per thread, each thread's
//                  first output's merge-path split by binary search in global memory within the
//                  window its tile's splits bracket, then a serial merge; ties take from A (the
//                  lower rank), so the merge is stable.
//
// Keys are compared as ordered bits XOR the order's flip word (sortlab::flip_bits), so a
// descending sort is an ascending sort of the complemented bits. Positions are u64. Every kernel
// is a grid-stride loop, so any grid size is correct. None is launched dependent.
//
// Defines:
//   KEY_T, KEY_BITS_T, VALUE_T, HAS_VALUES   the shared vocabulary (key_defines.cuh)
//   MULTI_THREADS   threads per block of every kernel (a multiple of 32)
//   MULTI_ITEMS     outputs per thread of multi_merge
#include "sortlab/thread/key_bits.cuh"
#include "sortlab/thread/key_defines.cuh"
#include "sortlab/thread/types.cuh"

#ifndef MULTI_THREADS
#define MULTI_THREADS 256
#endif
#ifndef MULTI_ITEMS
#define MULTI_ITEMS 8
#endif

static_assert(MULTI_THREADS >= 32 && MULTI_THREADS <= 1024 && MULTI_THREADS % 32 == 0,
              "MULTI_THREADS must be a multiple of 32 from 32 to 1024");
static_assert(MULTI_ITEMS >= 1, "MULTI_ITEMS must be positive");

#define MERGE_TILE ((u64)MULTI_THREADS * MULTI_ITEMS)

typedef KEY_T Key;
typedef KEY_BITS_T Bits;
typedef VALUE_T Value;

__device__ __forceinline__ Bits bits_of(Key k, Bits flip) { return sortlab::flip_bits<Key>(k, flip); }

// out[j] = bits of keys[j * step], j < count.
extern "C" __global__ void __launch_bounds__(MULTI_THREADS)
multi_samples(const Key* keys, u64 step, u64 count, u64* out, Bits flip) {
    const u64 stride = (u64)gridDim.x * MULTI_THREADS;
    for (u64 j = (u64)blockIdx.x * MULTI_THREADS + threadIdx.x; j < count; j += stride) {
        out[j] = (u64)bits_of(keys[j * step], flip);
    }
}

// queries: `count` records of 4 u64 words (bits, lo, hi, upper); cuts[q] = the first position p
// in [lo, hi) with !(bits(keys[p]) < b) (upper: !(bits(keys[p]) <= b)), or hi if none.
extern "C" __global__ void __launch_bounds__(MULTI_THREADS)
multi_cuts(const Key* keys, const u64* queries, u64 count, u64* cuts, Bits flip) {
    const u64 stride = (u64)gridDim.x * MULTI_THREADS;
    for (u64 q = (u64)blockIdx.x * MULTI_THREADS + threadIdx.x; q < count; q += stride) {
        const Bits b = (Bits)queries[4 * q];
        u64 lo = queries[4 * q + 1];
        u64 hi = queries[4 * q + 2];
        const bool upper = queries[4 * q + 3] != 0;
        while (lo < hi) {
            const u64 mid = lo + ((hi - lo) >> 1);
            const Bits x = bits_of(keys[mid], flip);
            const bool below = upper ? (x <= b) : (x < b);
            if (below) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        cuts[q] = lo;
    }
}

// The number of A's keys among the first `diag` outputs of the stable merge of A and B (merge
// path; ties from A), known to lie in [lo, hi].
__device__ __forceinline__ u64 merge_split(const Key* a, const Key* b, u64 diag, u64 lo, u64 hi, Bits flip) {
    while (lo < hi) {
        const u64 mid = (lo + hi) >> 1;
        if (bits_of(b[diag - 1 - mid], flip) < bits_of(a[mid], flip)) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

// splits[t] = the split of output min(t * MERGE_TILE, a_len + b_len), t <= tiles.
extern "C" __global__ void __launch_bounds__(MULTI_THREADS)
multi_merge_partition(const Key* keys, u64 a_begin, u64 a_len, u64 b_len, u64* splits, u64 tiles, Bits flip) {
    const Key* a = keys + a_begin;
    const Key* b = a + a_len;
    const u64 total = a_len + b_len;
    const u64 stride = (u64)gridDim.x * MULTI_THREADS;
    for (u64 t = (u64)blockIdx.x * MULTI_THREADS + threadIdx.x; t <= tiles; t += stride) {
        const u64 diag = t * MERGE_TILE < total ? t * MERGE_TILE : total;
        const u64 lo = diag > b_len ? diag - b_len : 0;
        const u64 hi = diag < a_len ? diag : a_len;
        splits[t] = merge_split(a, b, diag, lo, hi, flip);
    }
}

// Merges runs A and B of keys_in (values_in) into the same positions of keys_out (values_out),
// with the splits of multi_merge_partition. Values pointers are unused (may be null) when
// HAS_VALUES is 0.
extern "C" __global__ void __launch_bounds__(MULTI_THREADS)
multi_merge(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out, u64 a_begin,
            u64 a_len, u64 b_len, const u64* splits, Bits flip) {
    const Key* a = keys_in + a_begin;
    const Key* b = a + a_len;
    const u64 total = a_len + b_len;
    const u64 chunks = (total + MULTI_ITEMS - 1) / MULTI_ITEMS;
    const u64 stride = (u64)gridDim.x * MULTI_THREADS;
    for (u64 c = (u64)blockIdx.x * MULTI_THREADS + threadIdx.x; c < chunks; c += stride) {
        const u64 diag = c * MULTI_ITEMS;
        // The tile's splits bracket this output's: A's count in [a0, a1], B's in [b0, b1].
        const u64 t = c / MULTI_THREADS;
        const u64 d0 = t * MERGE_TILE;
        const u64 d1 = d0 + MERGE_TILE < total ? d0 + MERGE_TILE : total;
        const u64 a0 = splits[t], a1 = splits[t + 1];
        const u64 b0 = d0 - a0, b1 = d1 - a1;
        u64 lo = diag > b1 ? diag - b1 : 0;
        if (lo < a0) lo = a0;
        u64 hi = diag > b0 ? diag - b0 : 0;
        if (hi > a1) hi = a1;
        const u64 split = merge_split(a, b, diag, lo, hi, flip);
        u64 i = split;
        u64 j = diag - split;
        // The heads of both runs, as ordered bits, in registers: each output loads one key.
        Bits ka = i < a_len ? bits_of(a[i], flip) : (Bits)0;
        Bits kb = j < b_len ? bits_of(b[j], flip) : (Bits)0;
        const u64 end = diag + MULTI_ITEMS < total ? diag + MULTI_ITEMS : total;
        for (u64 o = diag; o < end; ++o) {
            const bool take_a = j >= b_len || (i < a_len && !(kb < ka));
            if (take_a) {
                keys_out[a_begin + o] = sortlab::key_from_flipped_bits<Key>(ka, flip);
#if HAS_VALUES
                values_out[a_begin + o] = values_in[a_begin + i];
#endif
                ++i;
                if (i < a_len) ka = bits_of(a[i], flip);
            } else {
                keys_out[a_begin + o] = sortlab::key_from_flipped_bits<Key>(kb, flip);
#if HAS_VALUES
                values_out[a_begin + o] = values_in[a_begin + a_len + j];
#endif
                ++j;
                if (j < b_len) kb = bits_of(b[j], flip);
            }
        }
    }
}
