// ---- Count kernels. counts[0..m) must be zero before the launch. ----

// Counts chunk `blockIdx.x` (keys [b * chunk, min(n, (b + 1) * chunk))) per interval in shared
// memory, adds the counts to counts[0..m) and writes the chunk's count of every coarse bin j
// (intervals j * f .. j * f + f - 1) to matrix[j * gridDim.x + b] (bin-major: the exclusive scan
// of the matrix gives each chunk its place in every coarse bin).
// With split > 1, `split` consecutive blocks share one column of the matrix (a wide scatter
// chunk counted by several blocks): column blockIdx.x / split of gridDim.x / split, their sums
// added with atomics (the matrix zeroed before the launch).
template <typename MapT>
__device__ __forceinline__ void count_chunks(const KEY_T* keys, u64 n, const MapArgs<MapT>& args, Bits flip, u32 m,
                                             u32 f, u32 coarse, u64 chunk, u32 split, u64* counts, u64* matrix) {
    const MapT map = shared_map(args, flip, m);
    u32* hist = count_hist();
    zero_hist(hist, m);
    __syncthreads();
    const bool aligned = (reinterpret_cast<u64>(keys) % VECTOR_BYTES) == 0;
    const u64 c0 = min(n, (u64)blockIdx.x * chunk);
    const u64 c1 = min(n, c0 + chunk);
    for (u64 start = c0; start < c1; start += TILE_ITEMS) {
        const u32 valid = (u32)min((u64)TILE_ITEMS, c1 - start);
        count_tile(keys, start, valid, aligned, map, flip, hist);
    }
    __syncthreads();
    add_counts(hist, m, counts);
    for (u32 j = threadIdx.x; j < coarse; j += BLOCK_THREADS) {
        u64 sum = 0;
        const u32 end = min(m, (j + 1) * f);
        for (u32 b = j * f; b < end; ++b) sum += hist[b];
        if (split <= 1) {
            matrix[(u64)j * gridDim.x + blockIdx.x] = sum;
        } else if (sum) {
            atomicAdd((unsigned long long*)(matrix + (u64)j * (gridDim.x / split) + blockIdx.x / split), (u64)sum);
        }
    }
}

template <typename MapT>
__device__ __forceinline__ void count_global(const KEY_T* keys, u64 n, const MapArgs<MapT>& args, Bits flip, u32 m,
                                             u64* counts) {
    const MapT map = shared_map(args, flip, m);
    const u64 stride = (u64)gridDim.x * BLOCK_THREADS;
    // Whole warps iterate together (the bound is rounded up to a multiple of the stride).
    const u64 rounds = (n + stride - 1) / stride;
    for (u64 r = 0; r < rounds; ++r) {
        const u64 i = r * stride + (u64)blockIdx.x * BLOCK_THREADS + threadIdx.x;
        const bool ok = i < n;
        const u32 vmask = __ballot_sync(SORTLAB_FULL_WARP, ok);
        if (ok) {
            const u32 iv = map(sortlab::flip_bits(keys[i], flip));
            const u32 peers = __match_any_sync(vmask, iv);
            if (sortlab::lane_id() == (u32)(__ffs(peers) - 1))
                atomicAdd((unsigned long long*)(counts + iv), (u64)__popc(peers));
        }
    }
}

// With `done` non-null (a u32 zeroed before the launch), the last block then scans counts[0, m]
// and matrix[0, matrix_len) (exclusive sums, in place): no scan launch of its own.
__device__ __forceinline__ void scan_after_count(u32* done, u64* counts, u32 m, u64* matrix, u64 matrix_len) {
    typedef sortlab::BlockScan<u64, BLOCK_THREADS> Scan;
    __shared__ typename Scan::TempStorage tmp;  // (the dynamic counters may be fewer bytes)
    if (done != nullptr && sortlab::last_block(done)) {
        scan_words<BLOCK_THREADS, 2>(counts, (u64)m + 1, tmp);
        scan_words<BLOCK_THREADS, 2>(matrix, matrix_len, tmp);
    }
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, BLOCKS_PER_SM)
approx_count_equal(const KEY_T* __restrict__ keys, u64 n, const Bits* mm, Bits flip, u32 m, u32 f, u32 coarse,
                   u64 chunk, u32 split, u64* counts, u64* matrix, const u64* skip, u32* done, u64 matrix_len) {
    sortlab::dependent_entry();
    if (skip != nullptr && *skip) return;
    count_chunks<EqualMap>(keys, n, MapArgs<EqualMap>{mm}, flip, m, f, coarse, chunk, split, counts, matrix);
    scan_after_count(done, counts, m, matrix, matrix_len);
}
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, BLOCKS_PER_SM)
approx_count_sampled(const KEY_T* __restrict__ keys, u64 n, const Bits* splitters, Bits flip, u32 m, u32 f,
                     u32 coarse, u64 chunk, u32 split, u64* counts, u64* matrix, const u64* skip, u32* done,
                     u64 matrix_len) {
    sortlab::dependent_entry();
    if (skip != nullptr && *skip) return;
    count_chunks<SampledMap>(keys, n, MapArgs<SampledMap>{splitters}, flip, m, f, coarse, chunk, split, counts,
                             matrix);
    scan_after_count(done, counts, m, matrix, matrix_len);
}
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, BLOCKS_PER_SM)
approx_count_equal_global(const KEY_T* __restrict__ keys, u64 n, const Bits* mm, Bits flip, u32 m, u64* counts) {
    sortlab::dependent_entry();
    count_global<EqualMap>(keys, n, MapArgs<EqualMap>{mm}, flip, m, counts);
}
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, BLOCKS_PER_SM)
approx_count_sampled_global(const KEY_T* __restrict__ keys, u64 n, const Bits* splitters, Bits flip, u32 m,
                            u64* counts) {
    sortlab::dependent_entry();
    count_global<SampledMap>(keys, n, MapArgs<SampledMap>{splitters}, flip, m, counts);
}

