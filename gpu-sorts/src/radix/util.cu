// util.cu: the radix sorts' housekeeping kernels: zeroing counters and copying a result home.
//
// Defines:
//   UTIL_THREADS   threads per block of both kernels (a multiple of 32)
//
// Both kernels are grid-stride loops over 64-bit indices, so any grid size is correct.
#include "sortlab/thread/types.cuh"
#include "sortlab/grid/grid_dependency.cuh"

#ifndef UTIL_THREADS
#define UTIL_THREADS 256
#endif

static_assert(UTIL_THREADS >= 32 && UTIL_THREADS <= 1024 && UTIL_THREADS % 32 == 0,
              "UTIL_THREADS must be a multiple of 32 from 32 to 1024");

// Sets words[0 .. count) to zero.
extern "C" __global__ void __launch_bounds__(UTIL_THREADS) radix_zero_words(u32* words, u64 count) {
    sortlab::dependent_entry();
    const u64 stride = (u64)gridDim.x * UTIL_THREADS;
    for (u64 i = (u64)blockIdx.x * UTIL_THREADS + threadIdx.x; i < count; i += stride) words[i] = 0;
}

// Copies `words` 32-bit words from src to dst (non-overlapping), as 16-byte vectors where both
// are 16-byte aligned. When `flag` is not null, copies only if (*flag & flag_bit) != 0: the
// onesweep sort's device-side pass plan says there whether the data ended in the spare buffer.
extern "C" __global__ void __launch_bounds__(UTIL_THREADS)
radix_copy_words(const u32* src, u32* dst, u64 words, const u32* flag, u32 flag_bit) {
    sortlab::dependent_entry();
    if (flag != nullptr && (*flag & flag_bit) == 0) return;
    const u64 stride = (u64)gridDim.x * UTIL_THREADS;
    const u64 first = (u64)blockIdx.x * UTIL_THREADS + threadIdx.x;
    u64 done = 0;
    if (((reinterpret_cast<u64>(src) | reinterpret_cast<u64>(dst)) & 15) == 0) {
        const u64 vectors = words / 4;
        const uint4* vs = reinterpret_cast<const uint4*>(src);
        uint4* vd = reinterpret_cast<uint4*>(dst);
        for (u64 i = first; i < vectors; i += stride) vd[i] = vs[i];
        done = vectors * 4;
    }
    for (u64 i = done + first; i < words; i += stride) dst[i] = src[i];
}
