// sortlab/warp/warp_scan.cuh: warp-wide inclusive and exclusive scans with shuffles
// (Hillis-Steele over the 32 lanes, CUB's WarpScanShfl).
#pragma once
#include "sortlab/warp/operators.cuh"
#include "sortlab/warp/shuffle.cuh"

namespace sortlab {

// Lane i gets op(x_0, ..., x_i). All 32 lanes must call it.
template <typename T, typename Op>
__device__ __forceinline__ T warp_inclusive_scan(T x, Op op) {
    const u32 lane = lane_id();
#pragma unroll
    for (u32 offset = 1; offset < 32; offset <<= 1) {
        const T y = shfl_up(x, offset);
        if (lane >= offset) x = op(y, x);
    }
    return x;
}

// Lane i gets op(x_0, ..., x_{i-1}) (lane 0 gets `identity`); `total` gets op over all 32 lanes,
// in every lane. All 32 lanes must call it.
template <typename T, typename Op>
__device__ __forceinline__ T warp_exclusive_scan(T x, T identity, Op op, T& total) {
    const T inclusive = warp_inclusive_scan(x, op);
    total = shfl_idx(inclusive, 31);
    const T before = shfl_up(inclusive, 1);
    return lane_id() == 0 ? identity : before;
}

}  // namespace sortlab
