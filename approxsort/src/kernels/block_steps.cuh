// Building blocks of the tile kernels (after common.cuh and maps.cuh): warp helpers, the
// shared-memory layouts, runs of words and the small scans and plans of a last block, claims.

// ---- Warp helpers. ----

__device__ __forceinline__ u32 lanemask_lt() {
    u32 m;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
    return m;
}

// Adds 1 to slot[iv] for every lane with `valid` and returns each such lane's old value (its
// position). A warp whose lanes all hold the same interval adds 32 once. All lanes call.
template <typename T> __device__ __forceinline__ T claim_slot(T* slot, u32 iv, bool valid) {
    const u32 lane = sortlab::lane_id();
    const u32 first = __shfl_sync(SORTLAB_FULL_WARP, iv, 0);
    if (__all_sync(SORTLAB_FULL_WARP, valid && iv == first)) {
        T base = 0;
        if (lane == 0) base = atomicAdd(slot + first, (T)WARP_THREADS);
        return sortlab::shfl_idx(base, 0) + lane;
    }
    return valid ? atomicAdd(slot + iv, (T)1) : (T)0;
}

__device__ __forceinline__ void count_in_bin(u32* hist, u32 iv, bool valid) {
    const u32 first = __shfl_sync(SORTLAB_FULL_WARP, iv, 0);
    if (__all_sync(SORTLAB_FULL_WARP, valid && iv == first)) {
        if (sortlab::lane_id() == 0) atomicAdd(hist + first, (u32)WARP_THREADS);
    } else if (valid) {
        atomicAdd(hist + iv, 1u);
    }
}

// ---- Shared memory. The count kernels: hist[m] u32. The staged scatter kernels (TILE_ITEMS
// keys a tile), in this order:
//   sbase[TILE_ITEMS]  SharedOffset  the listed bins' bases, less their offsets in the tile
//   slist[TILE_ITEMS]  u32           the tile's distinct bins, each warp listing in its own region
//                                    of WARP_THREADS * ITEMS_PER_THREAD slots
//   scur[TILE_ITEMS]   u32           the listed bins' offsets in the staged tile, then cursors
//   skey[TILE_ITEMS]   Key           the tile, grouped by bin
//   sval[TILE_ITEMS]   Value         (HAS_VALUES) its values
//   sslot[TILE_ITEMS]  u16           each staged key's list slot
//   hist16[bins]       16-bit counters packed two a word (a bin's count, then its list slot)
//   cursor[bins]       SharedOffset  (coarse scatter only) the block's next position per bin
// (staged_smem_bytes in kernels.rs computes the same size.) ----

extern __shared__ __align__(16) unsigned char approx_smem[];

__device__ __forceinline__ u32* count_hist() { return reinterpret_cast<u32*>(approx_smem); }

// ---- Runs of words, and the small scans and plans that a grid's last block
// (sortlab/grid/last_block.cuh) does. ----

// Words [first, first + N) of p (those below len; 0 beyond) into x, by 16-byte vectors when all
// are in range and `vec` (p 16-byte aligned; first is even). Loads bypass L1 (ld.global.cg):
// the words may come from other blocks of the same kernel (sortlab::last_block).
template <int N>
__device__ __forceinline__ void load_run(const u64* p, u64 first, u64 len, bool vec, u64 (&x)[N]) {
    if (vec && first + N <= len) {
        const ulonglong2* v = reinterpret_cast<const ulonglong2*>(p + first);
#pragma unroll
        for (int j = 0; j < N / 2; ++j) {
            const ulonglong2 q = __ldcg(v + j);
            x[2 * j] = q.x;
            x[2 * j + 1] = q.y;
        }
    } else {
#pragma unroll
        for (int j = 0; j < N; ++j) x[j] = first + j < len ? __ldcg(p + first + j) : 0;
    }
}

// x into words [first, first + N) of p (those below len), as load_run reads them.
template <int N>
__device__ __forceinline__ void store_run(u64* p, u64 first, u64 len, bool vec, const u64 (&x)[N]) {
    if (vec && first + N <= len) {
        ulonglong2* v = reinterpret_cast<ulonglong2*>(p + first);
#pragma unroll
        for (int j = 0; j < N / 2; ++j) v[j] = make_ulonglong2(x[2 * j], x[2 * j + 1]);
    } else {
#pragma unroll
        for (int j = 0; j < N; ++j) {
            if (first + j < len) p[first + j] = x[j];
        }
    }
}

// Exclusive sum scan of p[0, len) in place by one block of Threads (all call): rounds of
// Threads * Run words, each thread a run of Run consecutive ones (16-byte vectors) summed in
// registers, then one block scan of the runs (faster than row-by-row warp shuffles:
// approxsort/README.md). Kernels bound to 32 registers a thread take Run 2.
template <int Threads, int Run>
__device__ __forceinline__ void scan_words(u64* p, u64 len,
                                           typename sortlab::BlockScan<u64, Threads>::TempStorage& tmp) {
    static_assert(Run % 2 == 0, "runs of whole 16-byte vectors");
    typedef sortlab::BlockScan<u64, Threads> Scan;
    const bool vec = reinterpret_cast<u64>(p) % VECTOR_BYTES == 0;
    u64 carry = 0;
    for (u64 base = 0; base < len; base += (u64)Threads * Run) {
        const u64 first = base + (u64)threadIdx.x * Run;
        u64 x[Run];
        load_run(p, first, len, vec, x);
        u64 sum = 0;
#pragma unroll
        for (int j = 0; j < Run; ++j) {
            const u64 v = x[j];
            x[j] = sum;
            sum += v;
        }
        u64 total;
        const u64 before = carry + Scan::exclusive_scan(sum, (u64)0, sortlab::Sum(), total, tmp);
#pragma unroll
        for (int j = 0; j < Run; ++j) x[j] += before;
        store_run(p, first, len, vec, x);
        carry += total;
        __syncthreads();  // (tmp is used again)
    }
}

// The leading-bits plan, by one block of Threads (all call). From the smallest and largest rank
// (mm: word 0 ~min, word 1 max, unflipped, as approx_minmax_lead leaves them): the smallest shift
// >= LEAD_SHIFT that spans the ranks with at most `bins` bins of rank >> shift; coarse_bounds[0,
// bins] the exclusive scan of the bins' totals (a bin's width covers whole buckets: bin j starts
// at bucket (base + j) << (shift - LEAD_SHIFT), and its bound is the scan of the bucket counts
// there); lead[0] = 1 when the path pays (the shift is above LEAD_SHIFT, or at it the ranks
// still span at least half the bins; else the keys lie in too few buckets for sqrt(m)-wide bins
// and the chunked coarse pass runs), lead[1] the shift, lead[2] the smallest rank >> shift.
// Rounds of Threads * PLAN_RUN buckets (approx_minmax_lead stays at 32 registers a thread with 4).
#define PLAN_RUN 4
template <int Threads>
__device__ __forceinline__ void plan_lead(const u64* lead_hist, const Bits* mm, Bits flip, u32 bins, u64* coarse_bounds,
                                          u64* lead, typename sortlab::BlockScan<u64, Threads>::TempStorage& tmp) {
    typedef sortlab::BlockScan<u64, Threads> Scan;
    // Every thread finds the shift itself (two words, a short loop: no broadcast needed).
    Bits lo, hi;
    rank_range(__ldcg(mm), __ldcg(mm + 1), flip, lo, hi);
    u32 shift = LEAD_SHIFT;
    while ((u64)((hi >> shift) - (lo >> shift)) + 1 > bins) ++shift;
    const u64 used = (u64)((hi >> shift) - (lo >> shift)) + 1;
    const u64 base = (u64)(lo >> shift);
    if (threadIdx.x == 0) {
        lead[0] = (shift > (u32)LEAD_SHIFT || 2 * used >= bins) ? 1 : 0;
        lead[1] = shift;
        lead[2] = base;
    }
    const u32 group = shift - LEAD_SHIFT;  // buckets a bin, log2 (< LEAD_BITS: bins >= 2)
    const bool vec = reinterpret_cast<u64>(lead_hist) % VECTOR_BYTES == 0;
    u64 carry = 0;
    for (u32 r = 0; r < LEAD_BUCKETS; r += Threads * PLAN_RUN) {
        const u32 first = r + threadIdx.x * PLAN_RUN;
        u64 c[PLAN_RUN];
        load_run(lead_hist, first, LEAD_BUCKETS, vec, c);
        u64 sum = 0;
#pragma unroll
        for (u32 j = 0; j < PLAN_RUN; ++j) sum += c[j];
        u64 all;
        u64 before = carry + Scan::exclusive_scan(sum, (u64)0, sortlab::Sum(), all, tmp);
        // Bins that start in this thread's buckets (below the first bin's bucket all are empty).
#pragma unroll
        for (u32 j = 0; j < PLAN_RUN; ++j) {
            const u32 u = first + j;
            const u64 b = (u64)(u >> group);
            if (u < LEAD_BUCKETS && (u & ((1u << group) - 1)) == 0 && b >= base && b - base <= bins)
                coarse_bounds[b - base] = before;
            before += c[j];
        }
        carry += all;
        __syncthreads();  // (tmp is used again)
    }
    // Bins that start past the last bucket.
    for (u32 j = threadIdx.x; j <= bins; j += Threads) {
        if (((base + j) << group) >= (u64)LEAD_BUCKETS) coarse_bounds[j] = carry;
    }
}

// Block scan temporary storage in the dynamic shared memory (a kernel's last block, once its
// tiles are done with it; the kernel's dynamic shared memory must hold it).
template <int Threads>
__device__ __forceinline__ typename sortlab::BlockScan<u64, Threads>::TempStorage& smem_scan_tmp() {
    return *reinterpret_cast<typename sortlab::BlockScan<u64, Threads>::TempStorage*>(approx_smem);
}

struct Stage {
    SharedOffset* base;
    u32* list;
    u32* cur;
    Key* key;
    Value* val;
    unsigned short* slot;
    u32* hist16;
    SharedOffset* cursor;
    u32* warp_cnt;  // per warp: how many bins it listed (its list region: WARP_THREADS * ITEMS)
};

__device__ __forceinline__ u64 align16(u64 x) { return (x + 15) & ~(u64)15; }

__device__ __forceinline__ Stage stage_layout(u32 bins, u32* warp_cnt) {
    Stage st;
    u64 at = 0;
    st.base = reinterpret_cast<SharedOffset*>(approx_smem + at);
    at = align16(at + (u64)TILE_ITEMS * sizeof(SharedOffset));
    st.list = reinterpret_cast<u32*>(approx_smem + at);
    at = align16(at + (u64)TILE_ITEMS * sizeof(u32));
    st.cur = reinterpret_cast<u32*>(approx_smem + at);
    at = align16(at + (u64)TILE_ITEMS * sizeof(u32));
    st.key = reinterpret_cast<Key*>(approx_smem + at);
    at = align16(at + (u64)TILE_ITEMS * sizeof(Key));
#if HAS_VALUES
    st.val = reinterpret_cast<Value*>(approx_smem + at);
    at = align16(at + (u64)TILE_ITEMS * sizeof(Value));
#else
    st.val = nullptr;
#endif
    st.slot = reinterpret_cast<unsigned short*>(approx_smem + at);
    at = align16(at + (u64)TILE_ITEMS * sizeof(unsigned short));
    st.hist16 = reinterpret_cast<u32*>(approx_smem + at);
    at = align16(at + (u64)((bins + 1) / 2) * sizeof(u32));
    st.cursor = reinterpret_cast<SharedOffset*>(approx_smem + at);
    st.warp_cnt = warp_cnt;
    return st;
}

__device__ __forceinline__ void zero_hist(u32* hist, u32 m) {
    for (u32 b = threadIdx.x; b < m; b += BLOCK_THREADS) hist[b] = 0;
}

// 16-bit counter b of the packed array: add (returning the old value), read, write.
__device__ __forceinline__ u32 add16(u32* words, u32 b, u32 v) {
    const u32 sh = (b & 1u) * 16u;
    return (atomicAdd(words + (b >> 1), v << sh) >> sh) & 0xFFFFu;
}
__device__ __forceinline__ u32 get16(const u32* words, u32 b) {
    return (words[b >> 1] >> ((b & 1u) * 16u)) & 0xFFFFu;
}
__device__ __forceinline__ void set16(u32* words, u32 b, u32 v) {
    reinterpret_cast<unsigned short*>(words)[b] = (unsigned short)v;
}

// log2 of a coarse bin's intervals f (a power of two, plan in sort.rs): a key's coarse bin is
// its interval >> shift (a division by a run-time f cost the wide coarse pass a fifth of its time).
__device__ __forceinline__ u32 bin_shift(u32 f) { return (u32)(__ffs(f) - 1); }

// The bin of a key for a coarse pass: its interval / f.
template <typename MapT> struct CoarseMap {
    MapT fine;
    u32 shift;
    __device__ __forceinline__ u32 operator()(Bits b) const { return fine(b) >> shift; }
};

// Where a staged tile's bins go. Global: claims on shared counters (`claimed[entry0 + bin]`, on
// top of `bounds[entry0 + bin]`), any number of tiles at once. BlockCursor: the block's own
// running positions (the block's column of the scanned count matrix), no atomics.
struct GlobalClaim {
    const u64* bounds;
    u64 entry0;
    Claim* claimed;
    __device__ __forceinline__ u64 operator()(const Stage&, u32 bin, u32 count) const {
        return bounds[entry0 + bin] + (u64)atomicAdd(claimed + entry0 + bin, (Claim)count);
    }
};
struct BlockCursor {
    __device__ __forceinline__ u64 operator()(const Stage& st, u32 bin, u32 count) const {
        const SharedOffset at = st.cursor[bin];
        st.cursor[bin] = at + count;
        return (u64)at;
    }
};

