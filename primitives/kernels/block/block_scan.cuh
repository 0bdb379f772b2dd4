// sortlab/block/block_scan.cuh: block-wide exclusive and inclusive scans of one value per thread
// (CUB's BlockScan, warp-scans variant): each warp scans with shuffles, warp 0 scans the warp
// totals, every thread adds its warp's prefix.
#pragma once
#include "sortlab/warp/warp_scan.cuh"

namespace sortlab {

// BlockThreads: the block's size, a multiple of 32 of at most 1024 (one-dimensional blocks).
template <typename T, int BlockThreads> struct BlockScan {
    static_assert(BlockThreads >= 32 && BlockThreads <= 1024 && BlockThreads % 32 == 0,
                  "BlockScan needs a block of 32 to 1024 threads, a multiple of 32");
    enum { kWarps = BlockThreads / 32 };

    // Shared memory the scan needs; declare it `__shared__`.
    struct TempStorage {
        T warp_total[kWarps];
        T warp_inclusive[kWarps];
    };

    // Thread i gets op(x_0, ..., x_{i-1}) (thread 0 gets `identity`); `block_total` gets op over
    // every thread, in every thread. Every thread of the block must call it; it holds two
    // __syncthreads(), and the caller must __syncthreads() before the same TempStorage is used
    // again.
    template <typename Op>
    static __device__ __forceinline__ T exclusive_scan(T x, T identity, Op op, T& block_total, TempStorage& tmp) {
        const u32 lane = lane_id();
        const u32 warp = threadIdx.x / 32;
        const T inclusive = warp_inclusive_scan(x, op);
        if (lane == 31) tmp.warp_total[warp] = inclusive;
        __syncthreads();
        if (warp == 0) {
            const T w = lane < (u32)kWarps ? tmp.warp_total[lane] : identity;
            const T wi = warp_inclusive_scan(w, op);
            if (lane < (u32)kWarps) tmp.warp_inclusive[lane] = wi;
        }
        __syncthreads();
        const T warp_prefix = warp == 0 ? identity : tmp.warp_inclusive[warp - 1];
        block_total = tmp.warp_inclusive[kWarps - 1];
        const T before = shfl_up(inclusive, 1);
        return lane == 0 ? warp_prefix : op(warp_prefix, before);
    }

    // Thread i gets op(x_0, ..., x_i); otherwise as exclusive_scan.
    template <typename Op>
    static __device__ __forceinline__ T inclusive_scan(T x, T identity, Op op, T& block_total, TempStorage& tmp) {
        return op(exclusive_scan(x, identity, op, block_total, tmp), x);
    }
};

}  // namespace sortlab
