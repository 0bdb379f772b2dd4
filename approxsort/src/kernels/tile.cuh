// ---- Tile bodies. ----

// Counts the keys of [start, start + valid) into hist (valid <= TILE_ITEMS). Full tiles of a
// 16-byte aligned array load vectors (items striped by vector), others single keys.
template <typename MapT>
__device__ __forceinline__ void count_tile(const KEY_T* keys, u64 start, u32 valid, bool aligned, const MapT& map,
                                           Bits flip, u32* hist) {
    const u32 tid = threadIdx.x;
    KEY_T k[ITEMS_PER_THREAD];
    if (valid == TILE_ITEMS && aligned) {
        typedef typename sortlab::Conditional<sizeof(KEY_T) == 4, uint4, ulonglong2>::Type Vec;
        const Vec* v = reinterpret_cast<const Vec*>(keys + start);
#pragma unroll
        for (int j = 0; j < ITEMS_PER_THREAD / KEY_VEC; ++j) {
            const Vec x = v[j * BLOCK_THREADS + tid];
            const KEY_T* p = reinterpret_cast<const KEY_T*>(&x);
#pragma unroll
            for (int q = 0; q < KEY_VEC; ++q) k[j * KEY_VEC + q] = p[q];
        }
#pragma unroll
        for (int i = 0; i < ITEMS_PER_THREAD; ++i) count_in_bin(hist, map(sortlab::flip_bits(k[i], flip)), true);
    } else {
#pragma unroll
        for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
            const u32 e = i * BLOCK_THREADS + tid;
            k[i] = e < valid ? keys[start + e] : Key();
        }
#pragma unroll
        for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
            const bool ok = i * BLOCK_THREADS + tid < valid;
            count_in_bin(hist, ok ? map(sortlab::flip_bits(k[i], flip)) : 0u, ok);
        }
    }
}

// Loads the keys [start, start + valid) of a tile into registers (striped: coalesced).
__device__ __forceinline__ void load_tile(const KEY_T* keys, u64 start, u32 valid, KEY_T (&k)[ITEMS_PER_THREAD]) {
#pragma unroll
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
        const u32 e = i * BLOCK_THREADS + threadIdx.x;
        k[i] = e < valid ? keys[start + e] : Key();
    }
}

// Scatters the keys (and values) of [start, start + valid) to their bins' places, staged so that
// the writes are coalesced:
// 1. count per bin (16-bit shared counters); the first key of a bin puts it on the tile's list
//    of distinct bins (one shared atomic per warp for the list);
// 2. per listed bin: its offset in the tile (a block scan over the list) and its place (the
//    claimer: a global atomic, or the block's own cursor); the counter becomes the list slot;
// 3. every key takes the next slot of its bin in the staged tile (a second shared atomic);
// 4. the staged tile is written in order: consecutive threads write consecutive positions
//    inside each bin's run.
// Only the keys stay in registers (bins are recomputed); once staged, they are replaced by the
// next tile's (`next`, `next_valid` keys; none when 0), loaded while this tile is written.
// hist16 must be zero on entry and is zero again on exit.
template <typename MapT, typename Claimer>
__device__ __forceinline__ void staged_tile(const KEY_T* keys_in, const Value* vals_in, u64 start, u32 valid,
                                            KEY_T (&k)[ITEMS_PER_THREAD], u64 next, u32 next_valid,
                                            const MapT& map, Bits flip, const Claimer& claim, const Stage& st,
                                            KEY_T* keys_out, Value* vals_out) {
    typedef sortlab::BlockScan<u32, BLOCK_THREADS> Scan;
    __shared__ typename Scan::TempStorage scan_tmp;
    const u32 tid = threadIdx.x;
    const u32 lane = sortlab::lane_id();
    const u32 warp = tid / WARP_THREADS;
    // 1. Counts; a bin's first key lists it in its warp's region (no block-wide counter).
    u32* region = st.list + warp * (WARP_THREADS * ITEMS_PER_THREAD);
    u32 listed_here = 0;  // warp-uniform
#pragma unroll
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
        const bool ok = i * BLOCK_THREADS + tid < valid;
        const u32 bin = ok ? map(sortlab::flip_bits(k[i], flip)) : 0u;
        const u32 first = __shfl_sync(SORTLAB_FULL_WARP, bin, 0);
        bool fresh;
        if (__all_sync(SORTLAB_FULL_WARP, ok && bin == first)) {
            fresh = lane == 0 && add16(st.hist16, bin, WARP_THREADS) == 0;
        } else {
            fresh = ok && add16(st.hist16, bin, 1) == 0;
        }
        const u32 fresh_mask = __ballot_sync(SORTLAB_FULL_WARP, fresh);
        if (fresh) region[listed_here + __popc(fresh_mask & lanemask_lt())] = bin;
        listed_here += __popc(fresh_mask);
    }
    if (lane == 0) st.warp_cnt[warp] = listed_here;
    __syncthreads();
    // 2. Thread t handles slots t * ITEMS .. + ITEMS - 1, inside its own warp's region.
    const u32 mine = st.warp_cnt[warp];
    const u32 slot0 = tid * ITEMS_PER_THREAD;
    const u32 in_region = lane * ITEMS_PER_THREAD;
    u32 cnt[ITEMS_PER_THREAD];
    u32 sum = 0;
#pragma unroll
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
        cnt[i] = in_region + i < mine ? get16(st.hist16, st.list[slot0 + i]) : 0u;
        sum += cnt[i];
    }
    u32 total;
    u32 off = Scan::exclusive_scan(sum, 0u, sortlab::Sum(), total, scan_tmp);
    u64 got[ITEMS_PER_THREAD];
#pragma unroll
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
        got[i] = cnt[i] ? claim(st, st.list[slot0 + i], cnt[i]) : 0;
    }
#pragma unroll
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
        if (cnt[i]) {
            const u32 slot = slot0 + i;
            st.base[slot] = (SharedOffset)(got[i] - off);
            st.cur[slot] = off;
            set16(st.hist16, st.list[slot], slot);
            off += cnt[i];
        }
    }
    __syncthreads();
    // 3. Stage: every key takes the next place of its bin in the tile.
#pragma unroll
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
        const u32 e = i * BLOCK_THREADS + tid;
        const bool ok = e < valid;
        const u32 slot = ok ? get16(st.hist16, map(sortlab::flip_bits(k[i], flip))) : 0u;
        const u32 local = claim_slot(st.cur, slot, ok);
        if (ok) {
            st.key[local] = k[i];
            st.slot[local] = (unsigned short)slot;
#if HAS_VALUES
            st.val[local] = vals_in[start + e];
#endif
        }
    }
    __syncthreads();
    // The keys are staged: load the next tile into the same registers while this one is written.
    if (next_valid) load_tile(keys_in, next, next_valid, k);
    // 4. Write in order: consecutive threads, consecutive places inside each bin's run.
    for (u32 j = tid; j < valid; j += BLOCK_THREADS) {
        const u64 pos = (u64)(SharedOffset)(st.base[st.slot[j]] + (SharedOffset)j);
        keys_out[pos] = st.key[j];
#if HAS_VALUES
        vals_out[pos] = st.val[j];
#endif
    }
#pragma unroll
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
        if (cnt[i]) set16(st.hist16, st.list[slot0 + i], 0);
    }
    __syncthreads();
}

