// key_map.cu: the key <-> ordered-bits map over a whole array, the device twin of
// `SortKey::to_ordered_bits` (used by tests and by sorts that work on bits).
//
// Defines: KEY_T (the key's CUDA type), BLOCK_THREADS.
#include "sortlab/thread/key_bits.cuh"
#include "sortlab/thread/key_defines.cuh"

#ifndef BLOCK_THREADS
#define BLOCK_THREADS 256
#endif

typedef sortlab::KeyBits<KEY_T> Map;
typedef Map::Bits Bits;

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)
to_ordered_bits(const KEY_T* __restrict__ keys, Bits* __restrict__ out, u64 n, Bits flip) {
    const u64 stride = (u64)gridDim.x * BLOCK_THREADS;
    for (u64 i = (u64)blockIdx.x * BLOCK_THREADS + threadIdx.x; i < n; i += stride) {
        out[i] = sortlab::flip_bits(keys[i], flip);
    }
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)
from_ordered_bits(const Bits* __restrict__ bits, KEY_T* __restrict__ out, u64 n, Bits flip) {
    const u64 stride = (u64)gridDim.x * BLOCK_THREADS;
    for (u64 i = (u64)blockIdx.x * BLOCK_THREADS + threadIdx.x; i < n; i += stride) {
        out[i] = sortlab::key_from_flipped_bits<KEY_T>(bits[i], flip);
    }
}
