// ---- refine: one bucket pass over many segments. ----
//
// Tile table: 3 words per tile (start, end, segment), end - start <= TILE_ITEMS, each tile in one
// segment. Segment table: 3 words per segment (first entry, m_s, gap): the segment's m_s
// sub-interval counts are entries first .. first + m_s - 1 of `counts`; entry first - 1 (the
// phantom) holds `gap`, the keys between the previous segment's end and this segment's start, so
// that the exclusive scan of all entries gives absolute positions. seg_mm: 2 words per segment
// (~min, max), zero before seg_minmax.

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)
seg_init(const u64* __restrict__ segs, u32 nsegs, u64* counts) {
    sortlab::dependent_entry();
    for (u32 s = blockIdx.x * BLOCK_THREADS + threadIdx.x; s < nsegs; s += gridDim.x * BLOCK_THREADS)
        counts[segs[3 * (u64)s] - 1] = segs[3 * (u64)s + 2];
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, BLOCKS_PER_SM)
seg_minmax(const u64* __restrict__ tiles, u32 ntiles, const KEY_T* __restrict__ keys, Bits* seg_mm) {
    sortlab::dependent_entry();
    for (u32 t = blockIdx.x; t < ntiles; t += gridDim.x) {
        const u64 start = tiles[3 * (u64)t], end = tiles[3 * (u64)t + 1], seg = tiles[3 * (u64)t + 2];
        NegMinMax acc;
        acc.nmin = 0;
        acc.max = 0;
#pragma unroll
        for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
            const u64 p = start + (u64)i * BLOCK_THREADS + threadIdx.x;
            if (p < end) fold(acc, keys[p]);
        }
        publish_minmax<BLOCK_THREADS>(acc, seg_mm + 2 * seg);
        __syncthreads();
    }
}

__device__ __forceinline__ EqualMap seg_map(const u64* segs, const Bits* seg_mm, u64 seg, Bits flip, u32& m_s) {
    __shared__ EqualMap map;
    __shared__ u32 shared_m;
    if (threadIdx.x == 0) {
        shared_m = (u32)segs[3 * seg + 1];
        map = make_equal_map(seg_mm[2 * seg], seg_mm[2 * seg + 1], flip, shared_m);
    }
    __syncthreads();
    m_s = shared_m;
    return map;
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, BLOCKS_PER_SM)
seg_count(const u64* __restrict__ tiles, u32 ntiles, const KEY_T* __restrict__ keys, Bits flip,
          const u64* __restrict__ segs, const Bits* __restrict__ seg_mm, u32 max_m, u64* counts) {
    sortlab::dependent_entry();
    u32* hist = count_hist();
    zero_hist(hist, max_m);
    for (u32 t = blockIdx.x; t < ntiles; t += gridDim.x) {
        const u64 start = tiles[3 * (u64)t], end = tiles[3 * (u64)t + 1], seg = tiles[3 * (u64)t + 2];
        u32 m_s;
        const EqualMap map = seg_map(segs, seg_mm, seg, flip, m_s);
        count_tile(keys, start, (u32)(end - start), false, map, flip, hist);
        __syncthreads();
        const u64 first = segs[3 * seg];
        for (u32 b = threadIdx.x; b < m_s; b += BLOCK_THREADS) {
            const u32 c = hist[b];
            if (c) {
                atomicAdd((unsigned long long*)(counts + first + b), (u64)c);
                hist[b] = 0;
            }
        }
        __syncthreads();
    }
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, BLOCKS_PER_SM)
seg_scatter(const u64* __restrict__ tiles, u32 ntiles, const KEY_T* __restrict__ keys_in,
            const Value* __restrict__ vals_in, Bits flip, const u64* __restrict__ segs, const Bits* __restrict__ seg_mm,
            u32 max_m, const u64* bounds, Claim* claimed, KEY_T* __restrict__ keys_out, Value* __restrict__ vals_out) {
    sortlab::dependent_entry();
    __shared__ u32 warp_cnt[BLOCK_THREADS / WARP_THREADS];
    const Stage st = stage_layout(max_m, warp_cnt);
    zero_hist(st.hist16, (max_m + 1) / 2);
    KEY_T k[ITEMS_PER_THREAD];
    if (blockIdx.x < ntiles) {
        const u64 s0 = tiles[3 * (u64)blockIdx.x], e0 = tiles[3 * (u64)blockIdx.x + 1];
        load_tile(keys_in, s0, (u32)(e0 - s0), k);
    }
    for (u32 t = blockIdx.x; t < ntiles; t += gridDim.x) {
        const u64 start = tiles[3 * (u64)t], end = tiles[3 * (u64)t + 1], seg = tiles[3 * (u64)t + 2];
        const u32 nt = t + gridDim.x;
        u64 next = 0;
        u32 next_valid = 0;
        if (nt < ntiles) {
            next = tiles[3 * (u64)nt];
            next_valid = (u32)(tiles[3 * (u64)nt + 1] - next);
        }
        u32 m_s;
        const EqualMap map = seg_map(segs, seg_mm, seg, flip, m_s);
        GlobalClaim claim;
        claim.bounds = bounds;
        claim.entry0 = segs[3 * seg];
        claim.claimed = claimed;
        staged_tile(keys_in, vals_in, start, (u32)(end - start), k, next, next_valid, map, flip, claim, st, keys_out,
                    vals_out);
    }
}

