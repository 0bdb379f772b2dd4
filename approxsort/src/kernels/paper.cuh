// ---- The paper's kernels: idx[i] = interval, off[i] = atomicAdd(&counts[interval], 1); after
// the scan, out[bounds[idx[i]] + off[i]] = key i. Grid-stride, one key per thread. ----

template <typename MapT>
__device__ __forceinline__ void paper_assign(const KEY_T* keys, u64 n, const MapArgs<MapT>& args, Bits flip, u32 m,
                                             u32* idx, u64* off, u64* counts) {
    const MapT map = shared_map(args, flip, m);
    const u64 stride = (u64)gridDim.x * BLOCK_THREADS;
    for (u64 i = (u64)blockIdx.x * BLOCK_THREADS + threadIdx.x; i < n; i += stride) {
        const u32 iv = map(sortlab::flip_bits(keys[i], flip));
        idx[i] = iv;
        off[i] = atomicAdd((unsigned long long*)(counts + iv), 1ull);
    }
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, BLOCKS_PER_SM)
paper_assign_equal(const KEY_T* __restrict__ keys, u64 n, const Bits* mm, Bits flip, u32 m, u32* idx, u64* off,
                   u64* counts) {
    sortlab::dependent_entry();
    paper_assign<EqualMap>(keys, n, MapArgs<EqualMap>{mm}, flip, m, idx, off, counts);
}
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, BLOCKS_PER_SM)
paper_assign_sampled(const KEY_T* __restrict__ keys, u64 n, const Bits* splitters, Bits flip, u32 m, u32* idx,
                     u64* off, u64* counts) {
    sortlab::dependent_entry();
    paper_assign<SampledMap>(keys, n, MapArgs<SampledMap>{splitters}, flip, m, idx, off, counts);
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, BLOCKS_PER_SM)
paper_scatter(const KEY_T* __restrict__ keys_in, const Value* __restrict__ vals_in, u64 n, const u32* __restrict__ idx,
              const u64* __restrict__ off, const u64* __restrict__ bounds, KEY_T* __restrict__ keys_out,
              Value* __restrict__ vals_out) {
    sortlab::dependent_entry();
    const u64 stride = (u64)gridDim.x * BLOCK_THREADS;
    for (u64 i = (u64)blockIdx.x * BLOCK_THREADS + threadIdx.x; i < n; i += stride) {
        const u64 pos = bounds[idx[i]] + off[i];
        keys_out[pos] = keys_in[i];
#if HAS_VALUES
        vals_out[pos] = vals_in[i];
#endif
    }
}

