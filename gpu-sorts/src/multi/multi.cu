// multi.cu: the device side of one rank of the multi-GPU sort (gpu-sorts/src/multi).
//   multi_samples  the ordered bits (in the sort's order, widened to u64) of every `step`-th key
//                  of the rank's sorted share: its regular samples, all-gathered through NCCL;
//   multi_cuts     per splitter, a binary search of the sorted share within the window that the
//                  samples bracket: the first position whose key is not below (or, `upper`, not
//                  at or below) the splitter's bits.
//
// Keys are compared as ordered bits XOR the order's flip word (sortlab::flip_bits), so a
// descending sort is an ascending sort of the complemented bits. Positions are u64. Every kernel
// is a grid-stride loop, so any grid size is correct. None is launched dependent.
//
// Defines:
//   KEY_T, KEY_BITS_T, VALUE_T, HAS_VALUES   the shared vocabulary (key_defines.cuh)
//   MULTI_THREADS   threads per block of every kernel (a multiple of 32)
//
// The received runs are merged by merge.cu's merge_pair_partition and merge_pair_pass.
#include "sortlab/thread/key_bits.cuh"
#include "sortlab/thread/key_defines.cuh"
#include "sortlab/thread/types.cuh"

#ifndef MULTI_THREADS
#define MULTI_THREADS 256
#endif

static_assert(MULTI_THREADS >= 32 && MULTI_THREADS <= 1024 && MULTI_THREADS % 32 == 0,
              "MULTI_THREADS must be a multiple of 32 from 32 to 1024");

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
