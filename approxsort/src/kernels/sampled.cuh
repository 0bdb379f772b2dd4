// ---- Intervals::Sampled: the sample (ranked bits at hashed positions) and the splitters. ----

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)
sample_gather(const KEY_T* __restrict__ keys, u64 n, u64 s, u64 seed, u64 step, KEY_T* __restrict__ sample) {
    sortlab::dependent_entry();
    const u64 stride = (u64)gridDim.x * BLOCK_THREADS;
    for (u64 i = (u64)blockIdx.x * BLOCK_THREADS + threadIdx.x; i < s; i += stride) {
        const u64 pos = s >= n ? i : __umul64hi(splitmix64(seed + (i + 1) * step), n);
        sample[i] = keys[pos];
    }
}

// splitters[j] = ranked bits of sorted[(j + 1) * s / m] for j < m - 1 (the sample sorted in the
// requested order; (j + 1) * s < 2^64 since s is capped).
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)
pick_splitters(const KEY_T* __restrict__ sorted, u64 s, u32 m, Bits flip, Bits* __restrict__ splitters) {
    sortlab::dependent_entry();
    const u64 stride = (u64)gridDim.x * BLOCK_THREADS;
    for (u64 j = (u64)blockIdx.x * BLOCK_THREADS + threadIdx.x; j + 1 < (u64)m; j += stride) {
        const u64 at = (j + 1) * s / m;
        splitters[j] = sortlab::flip_bits(sorted[at < s ? at : s - 1], flip);
    }
}

// The bucket table of the m - 1 sorted splitters (m >= 2; see SampledMap): words m, m + 1 of
// `splitters` get s0 and the shift (the smallest with (largest - s0) >> shift < SPLIT_TABLE),
// then SPLIT_TABLE + 1 u32 entries, each a binary search (grid-stride over the entries).
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS) splitter_table(Bits* splitters, u32 m) {
    sortlab::dependent_entry();
    const u32 count = m - 1;
    const Bits s0 = splitters[0];
    const Bits range = (Bits)(splitters[count - 1] - s0);
    u32 shift = 0;
    while ((range >> shift) >= (Bits)SPLIT_TABLE) ++shift;
    u32* table = reinterpret_cast<u32*>(splitters + m + 2);
    const u32 stride = gridDim.x * BLOCK_THREADS;
    for (u32 u = blockIdx.x * BLOCK_THREADS + threadIdx.x; u <= SPLIT_TABLE; u += stride) {
        // x = s0 + (u << shift), saturating: past the largest word every splitter is below.
        const Bits off = (Bits)u << shift;
        u32 below = count;
        if (u < SPLIT_TABLE && off <= (Bits)~s0) {
            const Bits x = s0 + off;
            u32 lo = 0, hi = count;  // the first splitter >= x
            while (lo < hi) {
                const u32 mid = (lo + hi) >> 1;
                if (splitters[mid] < x) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            below = lo;
        }
        table[u] = below;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        splitters[m] = s0;
        splitters[m + 1] = (Bits)shift;
    }
}

