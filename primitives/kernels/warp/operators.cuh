// sortlab/warp/operators.cuh: the binary operators of sortlab's reductions and scans, as
// functors for the warp and block algorithms (sortlab/warp/warp_reduce.cuh, warp_scan.cuh,
// sortlab/block/block_reduce.cuh, block_scan.cuh).
//
// Every operator is associative (floating-point sums up to rounding) and commutative; the warp
// and block algorithms rely on both. Min and Max compare with `<`: for keys in total order, apply
// them to ordered bits (sortlab/thread/key_bits.cuh), never to floats directly.
#pragma once
#include "sortlab/thread/types.cuh"

namespace sortlab {

// a + b (wrapping for unsigned integers: use the unsigned type for wrapping signed sums).
struct Sum {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};

// The smaller of a and b under `<`.
struct Min {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return b < a ? b : a; }
};

// The larger of a and b under `<`.
struct Max {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return a < b ? b : a; }
};

// The lane of the calling thread within its warp.
__device__ __forceinline__ u32 lane_id() {
    u32 lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

}  // namespace sortlab
