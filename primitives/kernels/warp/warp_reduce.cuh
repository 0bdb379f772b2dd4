// sortlab/warp/warp_reduce.cuh: warp-wide reduction with shuffles (CUB's WarpReduce).
//
// A butterfly (xor) reduction: every lane gets the total, and since each step combines the same
// pair of values on both lanes, a commutative operator (every sortlab operator) gives every lane
// the same bits, floats included.
#pragma once
#include "sortlab/warp/operators.cuh"
#include "sortlab/warp/shuffle.cuh"

namespace sortlab {

// Reduces `x` over each aligned group of LogicalWarp lanes (a power of two, at most 32); every
// lane of a group gets its group's total. All 32 lanes of the warp must call it.
template <int LogicalWarp = 32, typename T, typename Op>
__device__ __forceinline__ T warp_reduce(T x, Op op) {
    static_assert(LogicalWarp >= 1 && LogicalWarp <= 32 && (LogicalWarp & (LogicalWarp - 1)) == 0,
                  "LogicalWarp must be a power of two of at most 32");
#pragma unroll
    for (int m = LogicalWarp / 2; m > 0; m >>= 1) x = op(x, shfl_xor(x, m));
    return x;
}

}  // namespace sortlab
