// ---- Scatter kernels. bounds: the exclusive scan of the counts; claimed[0..m) zero before. ----

// The coarse pass: chunk blockIdx.x (as count_chunks) into the coarse bins (intervals / f),
// each block writing at its own places (its column of the scanned matrix). With f == 1 the
// coarse bins are the intervals and this is the whole scatter.
template <typename MapT>
__device__ __forceinline__ void scatter_coarse(const KEY_T* keys_in, const Value* vals_in, u64 n,
                                               const MapArgs<MapT>& args, Bits flip, u32 m, u32 f, u32 coarse,
                                               u64 chunk, const u64* matrix, KEY_T* keys_out, Value* vals_out) {
    __shared__ u32 warp_cnt[BLOCK_THREADS / WARP_THREADS];
    CoarseMap<MapT> map;
    map.fine = shared_map(args, flip, m);
    map.shift = bin_shift(f);
    const Stage st = stage_layout(coarse, warp_cnt);
    zero_hist(st.hist16, (coarse + 1) / 2);
    for (u32 j = threadIdx.x; j < coarse; j += BLOCK_THREADS)
        st.cursor[j] = (SharedOffset)matrix[(u64)j * gridDim.x + blockIdx.x];
    __syncthreads();
    const u64 c0 = min(n, (u64)blockIdx.x * chunk);
    const u64 c1 = min(n, c0 + chunk);
    KEY_T k[ITEMS_PER_THREAD];
    if (c0 < c1) load_tile(keys_in, c0, (u32)min((u64)TILE_ITEMS, c1 - c0), k);
    for (u64 start = c0; start < c1; start += TILE_ITEMS) {
        const u32 valid = (u32)min((u64)TILE_ITEMS, c1 - start);
        const u64 next = start + TILE_ITEMS;
        const u32 next_valid = next < c1 ? (u32)min((u64)TILE_ITEMS, c1 - next) : 0u;
        staged_tile(keys_in, vals_in, start, valid, k, next, next_valid, map, flip, BlockCursor(), st, keys_out,
                    vals_out);
    }
}

// The fine pass: any tiles of the coarse pass's output (grid-stride) to the intervals, claiming
// each tile's share of an interval with a global atomic on top of the interval's boundary.
template <typename MapT>
__device__ __forceinline__ void scatter_fine(const KEY_T* keys_in, const Value* vals_in, u64 n,
                                             const MapArgs<MapT>& args, Bits flip, u32 m, const u64* bounds,
                                             Claim* claimed, KEY_T* keys_out, Value* vals_out) {
    __shared__ u32 warp_cnt[BLOCK_THREADS / WARP_THREADS];
    const MapT map = shared_map(args, flip, m);
    const Stage st = stage_layout(m, warp_cnt);
    zero_hist(st.hist16, (m + 1) / 2);
    __syncthreads();
    GlobalClaim claim;
    claim.bounds = bounds;
    claim.entry0 = 0;
    claim.claimed = claimed;
    const u64 tiles = (n + TILE_ITEMS - 1) / TILE_ITEMS;
    KEY_T k[ITEMS_PER_THREAD];
    if (blockIdx.x < tiles) {
        const u64 s0 = (u64)blockIdx.x * TILE_ITEMS;
        load_tile(keys_in, s0, (u32)min((u64)TILE_ITEMS, n - s0), k);
    }
    for (u64 t = blockIdx.x; t < tiles; t += gridDim.x) {
        const u64 start = t * TILE_ITEMS;
        const u32 valid = (u32)min((u64)TILE_ITEMS, n - start);
        const u64 nt = t + gridDim.x;
        const u64 next = nt * TILE_ITEMS;
        const u32 next_valid = nt < tiles ? (u32)min((u64)TILE_ITEMS, n - next) : 0u;
        staged_tile(keys_in, vals_in, start, valid, k, next, next_valid, map, flip, claim, st, keys_out, vals_out);
    }
}

template <typename MapT>
__device__ __forceinline__ void scatter_global(const KEY_T* keys_in, const Value* vals_in, u64 n,
                                               const MapArgs<MapT>& args, Bits flip, u32 m, const u64* bounds,
                                               Claim* claimed, KEY_T* keys_out, Value* vals_out) {
    const MapT map = shared_map(args, flip, m);
    const u64 stride = (u64)gridDim.x * BLOCK_THREADS;
    const u64 rounds = (n + stride - 1) / stride;
    const u32 lane = sortlab::lane_id();
    for (u64 r = 0; r < rounds; ++r) {
        const u64 i = r * stride + (u64)blockIdx.x * BLOCK_THREADS + threadIdx.x;
        const bool ok = i < n;
        const u32 vmask = __ballot_sync(SORTLAB_FULL_WARP, ok);
        if (ok) {
            const KEY_T k = keys_in[i];
            const u32 iv = map(sortlab::flip_bits(k, flip));
            const u32 peers = __match_any_sync(vmask, iv);
            const u32 leader = (u32)(__ffs(peers) - 1);
            u64 b = 0;
            if (lane == leader)
                b = bounds[iv] + (u64)atomicAdd(claimed + iv, (Claim)__popc(peers));
            b = sortlab::shfl_idx(b, (int)leader, vmask);
            const u64 pos = b + __popc(peers & lanemask_lt());
            keys_out[pos] = k;
#if HAS_VALUES
            vals_out[pos] = vals_in[i];
#endif
        }
    }
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, BLOCKS_PER_SM)
approx_coarse_equal(const KEY_T* __restrict__ keys_in, const Value* __restrict__ vals_in, u64 n, const Bits* mm,
                    Bits flip, u32 m, u32 f, u32 coarse, u64 chunk, const u64* matrix, KEY_T* __restrict__ keys_out,
                    Value* __restrict__ vals_out, const u64* skip) {
    sortlab::dependent_entry();
    if (skip != nullptr && *skip) return;
    scatter_coarse<EqualMap>(keys_in, vals_in, n, MapArgs<EqualMap>{mm}, flip, m, f, coarse, chunk, matrix, keys_out,
                             vals_out);
}
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, BLOCKS_PER_SM)
approx_coarse_sampled(const KEY_T* __restrict__ keys_in, const Value* __restrict__ vals_in, u64 n,
                      const Bits* splitters, Bits flip, u32 m, u32 f, u32 coarse, u64 chunk, const u64* matrix,
                      KEY_T* __restrict__ keys_out, Value* __restrict__ vals_out, const u64* skip) {
    sortlab::dependent_entry();
    if (skip != nullptr && *skip) return;
    scatter_coarse<SampledMap>(keys_in, vals_in, n, MapArgs<SampledMap>{splitters}, flip, m, f, coarse, chunk, matrix,
                               keys_out, vals_out);
}
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, BLOCKS_PER_SM)
approx_fine_equal(const KEY_T* __restrict__ keys_in, const Value* __restrict__ vals_in, u64 n, const Bits* mm,
                  Bits flip, u32 m, const u64* bounds, Claim* claimed, KEY_T* __restrict__ keys_out,
                  Value* __restrict__ vals_out) {
    sortlab::dependent_entry();
    scatter_fine<EqualMap>(keys_in, vals_in, n, MapArgs<EqualMap>{mm}, flip, m, bounds, claimed, keys_out, vals_out);
}
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, BLOCKS_PER_SM)
approx_fine_sampled(const KEY_T* __restrict__ keys_in, const Value* __restrict__ vals_in, u64 n,
                    const Bits* splitters, Bits flip, u32 m, const u64* bounds, Claim* claimed,
                    KEY_T* __restrict__ keys_out, Value* __restrict__ vals_out) {
    sortlab::dependent_entry();
    scatter_fine<SampledMap>(keys_in, vals_in, n, MapArgs<SampledMap>{splitters}, flip, m, bounds, claimed, keys_out,
                             vals_out);
}
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, BLOCKS_PER_SM)
approx_scatter_equal_global(const KEY_T* __restrict__ keys_in, const Value* __restrict__ vals_in, u64 n,
                            const Bits* mm, Bits flip, u32 m, const u64* bounds, Claim* claimed,
                            KEY_T* __restrict__ keys_out, Value* __restrict__ vals_out) {
    sortlab::dependent_entry();
    scatter_global<EqualMap>(keys_in, vals_in, n, MapArgs<EqualMap>{mm}, flip, m, bounds, claimed, keys_out, vals_out);
}
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, BLOCKS_PER_SM)
approx_scatter_sampled_global(const KEY_T* __restrict__ keys_in, const Value* __restrict__ vals_in, u64 n,
                              const Bits* splitters, Bits flip, u32 m, const u64* bounds, Claim* claimed,
                              KEY_T* __restrict__ keys_out, Value* __restrict__ vals_out) {
    sortlab::dependent_entry();
    scatter_global<SampledMap>(keys_in, vals_in, n, MapArgs<SampledMap>{splitters}, flip, m, bounds, claimed,
                               keys_out, vals_out);
}

