// sortlab/block/block_reduce.cuh: block-wide reduction (CUB's BlockReduce with warp
// reductions): each warp reduces with shuffles, warp totals meet in shared memory, warp 0
// reduces them.
#pragma once
#include "sortlab/warp/warp_reduce.cuh"

namespace sortlab {

// BlockThreads: the block's size, a power of two from 32 to 1024 (one-dimensional blocks).
template <typename T, int BlockThreads> struct BlockReduce {
    static_assert(BlockThreads >= 32 && BlockThreads <= 1024 && (BlockThreads & (BlockThreads - 1)) == 0,
                  "BlockReduce needs a power-of-two block of 32 to 1024 threads");
    enum { kWarps = BlockThreads / 32 };

    // Shared memory the reduction needs; declare it `__shared__`.
    struct TempStorage {
        T warp_total[kWarps];
    };

    // Reduces one value per thread. The total is valid in every thread of warp 0 (so in thread 0).
    // Every thread of the block must call it; it holds one __syncthreads(), and the caller must
    // __syncthreads() before the same TempStorage is used again.
    template <typename Op> static __device__ __forceinline__ T reduce(T x, Op op, TempStorage& tmp) {
        x = warp_reduce<32>(x, op);
        if constexpr (kWarps == 1) {
            return x;
        } else {
            const u32 lane = lane_id();
            const u32 warp = threadIdx.x / 32;
            if (lane == 0) tmp.warp_total[warp] = x;
            __syncthreads();
            if (warp == 0) x = warp_reduce<kWarps>(tmp.warp_total[lane % kWarps], op);
            return x;
        }
    }
};

}  // namespace sortlab
