// ---- Min and max. ----

struct NegMinMax {
    Bits nmin;  // ~min: both halves reduce with max
    Bits max;
};
struct MaxBoth {
    __device__ __forceinline__ NegMinMax operator()(NegMinMax a, NegMinMax b) const {
        NegMinMax r;
        r.nmin = a.nmin > b.nmin ? a.nmin : b.nmin;
        r.max = a.max > b.max ? a.max : b.max;
        return r;
    }
};

__device__ __forceinline__ void fold(NegMinMax& acc, KEY_T k) {
    const Bits b = Map::to_bits(k);
    const Bits nb = (Bits)~b;
    if (nb > acc.nmin) acc.nmin = nb;
    if (b > acc.max) acc.max = b;
}

// Reduces each thread's `acc` over the block and folds it into out[0..2) with atomics.
template <int Threads> __device__ __forceinline__ void publish_minmax(NegMinMax acc, Bits* out) {
    typedef sortlab::BlockReduce<NegMinMax, Threads> Reduce;
    __shared__ typename Reduce::TempStorage tmp;
    const NegMinMax r = Reduce::reduce(acc, MaxBoth(), tmp);
    if (threadIdx.x == 0) {
        atomicMax(out, r.nmin);
        atomicMax(out + 1, r.max);
    }
}

// Folds keys[0, n) into this thread's `acc` (grid-stride, Threads a block, 16-byte vectors when
// `aligned`), and with `hist` non-null counts each key's rank's leading LEAD_BITS bits there.
template <int Threads>
__device__ __forceinline__ void minmax_loop(const KEY_T* __restrict__ keys, u64 n, u32 aligned, NegMinMax& acc,
                                            u32* hist, Bits flip) {
    typedef typename sortlab::Conditional<sizeof(KEY_T) == 4, uint4, ulonglong2>::Type Vec;
    const u64 gid = (u64)blockIdx.x * Threads + threadIdx.x;
    const u64 stride = (u64)gridDim.x * Threads;
    auto take = [&](KEY_T k) {
        fold(acc, k);
        if (hist != nullptr) atomicAdd(hist + (u32)(sortlab::flip_bits(k, flip) >> LEAD_SHIFT), 1u);
    };
    u64 head = 0;  // keys [0, head) are read as vectors
    if (aligned) {
        const u64 nvec = n / KEY_VEC;
        head = nvec * KEY_VEC;
        const Vec* v = reinterpret_cast<const Vec*>(keys);
        for (u64 i = gid; i < nvec; i += stride * REDUCE_UNROLL) {
            Vec x[REDUCE_UNROLL];
#pragma unroll
            for (int u = 0; u < REDUCE_UNROLL; ++u) {
                const u64 j = i + (u64)u * stride;
                if (j < nvec) x[u] = v[j];
            }
#pragma unroll
            for (int u = 0; u < REDUCE_UNROLL; ++u) {
                if (i + (u64)u * stride < nvec) {
                    const KEY_T* p = reinterpret_cast<const KEY_T*>(&x[u]);
#pragma unroll
                    for (int q = 0; q < KEY_VEC; ++q) take(p[q]);
                }
            }
        }
    }
    for (u64 i = head + gid; i < n; i += stride) take(keys[i]);
}

// mm must hold {0, 0} before the launch; afterwards mm[0] = ~min, mm[1] = max (ordered bits).
extern "C" __global__ void __launch_bounds__(REDUCE_THREADS)
approx_minmax(const KEY_T* __restrict__ keys, u64 n, Bits* mm, u32 aligned) {
    sortlab::dependent_entry();
    NegMinMax acc;
    acc.nmin = 0;
    acc.max = 0;
    minmax_loop<REDUCE_THREADS>(keys, n, aligned, acc, nullptr, 0);
    publish_minmax<REDUCE_THREADS>(acc, mm);
}

// approx_minmax, and the number of keys whose rank (ordered bits xor flip) has each leading
// LEAD_BITS bits, added to lead_hist[0, LEAD_BUCKETS) (zeroed before, 16-byte aligned); the last
// block then makes the plan of the leading-bits path (plan_lead: `bins` bins, coarse_bounds and
// the lead words; *done zeroed before). Dynamic shared memory: LEAD_BUCKETS u32 counters, so a
// block takes fewer than 2^32 keys (the host's grid ensures it).
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)
approx_minmax_lead(const KEY_T* __restrict__ keys, u64 n, Bits* mm, Bits flip, u64* lead_hist, u32 aligned,
                   u32 bins, u64* coarse_bounds, u64* lead, u32* done) {
    sortlab::grid_dependency_wait();  // no early trigger: see "Dependent launches" above
    u32* hist = reinterpret_cast<u32*>(approx_smem);
    for (u32 i = threadIdx.x; i < LEAD_BUCKETS; i += BLOCK_THREADS) hist[i] = 0;
    __syncthreads();
    NegMinMax acc;
    acc.nmin = 0;
    acc.max = 0;
    minmax_loop<BLOCK_THREADS>(keys, n, aligned, acc, hist, flip);
    publish_minmax<BLOCK_THREADS>(acc, mm);
    __syncthreads();
    add_counts(hist, LEAD_BUCKETS, lead_hist);
    // (last_block's barrier ends the reads of hist, whose memory the plan's scan then reuses.)
    if (sortlab::last_block(done)) {
        plan_lead<BLOCK_THREADS>(lead_hist, mm, flip, bins, coarse_bounds, lead, smem_scan_tmp<BLOCK_THREADS>());
    }
}

