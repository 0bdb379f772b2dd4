// sortlab/grid/last_block.cuh: which block of a grid finishes last, so that a small step needing
// the whole pass's results (a final reduction, a plan, a scan of counts) runs in that block at the
// pass's end instead of as a launch of its own (threadFenceReduction's pattern).
#pragma once
#include "sortlab/thread/types.cuh"

namespace sortlab {

// Whether this block is the last of its grid to get here. Every thread of every block calls it
// once, after the block's writes to global memory that the last block reads; *done (zeroed before
// the launch, or left at 0 by the previous user: see below) counts the blocks. In the last block
// every block's writes made before its call are visible; read them bypassing L1 (load_cg,
// __ldcg). A caller that reuses *done without zeroing it sets it back to 0 in the last block.
__device__ __forceinline__ bool last_block(u32* done) {
    __threadfence();
    __syncthreads();
    u32 prev = 0;
    if (threadIdx.x == 0) prev = atomicAdd(done, 1u);
    const bool last = __syncthreads_or(threadIdx.x == 0 && prev == gridDim.x - 1) != 0;
    if (last) __threadfence();
    return last;
}

}  // namespace sortlab
