// approx.cu: the interval approximate sort (Xiao, Chen, Sun, "High Performance Approximate Sort
// Algorithm Using GPUs"), its refinement into a full sort (a bucket sort) and its quality report.
//
// Every key is ranked by its ordered bits (sortlab/thread/key_bits.cuh), XOR `flip` (all ones for
// a descending order), and its interval is a function of that word alone, the same function as
// the CPU twin (sortlab_cpu_reference::approx::IntervalMap):
//   equal width: with lo, hi the smallest and largest ranked word and span = hi - lo: interval
//     b - lo when span < m (every distinct key its own interval), else
//     floor((b - lo) * scale / 2^W) with scale = floor(m * 2^W / (span + 1)) (scale = m when
//     span + 1 = 2^W): exact integer arithmetic, no overflow, no division by zero;
//   sampled: the number of splitters <= b (splitters: m - 1 words from a sorted sample).
//
// Kernels (all index with 64 bits; n may exceed 2^32):
//   approx_minmax                       smallest and largest ordered bits (atomics into 2 words,
//                                       zeroed before: word 0 holds ~min, word 1 max)
//   approx_count_{equal,sampled}        per-block shared-memory counts of the m intervals
//                                       (m <= the policy's shared limit), flushed to `counts`;
//                                       the last block may scan them and the count matrix
//   approx_count_{equal,sampled}_global one warp-aggregated global atomic per interval and warp
//   approx_scatter_{equal,sampled}      tiles: keys ranked inside their interval with shared
//                                       atomics, one global atomic claim per interval and tile,
//                                       keys (and values) written to their interval
//   approx_scatter_{equal,sampled}_global  per-key claims, warp-aggregated
//   approx_minmax_lead                  min and max with a histogram of the ranks' leading bits;
//                                       its last block plans equal-width coarse bins of those
//                                       bits (or raises the flag that sends the sort to the
//                                       count pass)
//   approx_{coarse,fine}_{equal,sampled}   the staged two-pass scatter (coarse: each block at
//                                       its own places; fine: claims)
//   approx_wide_{equal,sampled}, approx_wide_fine_{equal,sampled}, approx_wide_lead   the wide
//                                       scatter: large tiles grouped by bin in shared memory,
//                                       each block at its own places (its column of the scanned
//                                       count matrix) or claiming them; the lead pass also
//                                       counts the intervals, its last block scans the counts
//   zero_words, scan_small, copy_pairs  helpers: counters zeroed in one launch, the counts and
//                                       the matrix scanned by one block, a copy
//   paper_assign_{equal,sampled}, paper_scatter   the paper's kernels: interval-index and
//                                       offset arrays in device memory, an atomic per key
//   sample_gather, pick_splitters, splitter_table   the sample of Intervals::Sampled, its
//                                       splitters and their bucket table
//   radius_distances                    the radius of an output from its prefix maxima and
//                                       suffix minima (computed with sortlab's scans)
//   refine: seg_init, seg_minmax, seg_count, seg_scatter (one bucket pass over many segments at
//   once, described by tile and segment tables), classify_sort_small (sorts segments of at most
//   64 keys with a warp-wide bitonic network, lists the others), sort_block_list (segments of at
//   most SORT_THREADS * SORT_ITEMS keys, sortlab's BlockRadixSort on the bits that vary),
//   copy_list (segments of equal keys that must move).
//
// Dependent launches: every kernel is launched dependent (LaunchConfig::dependent,
// sortlab/grid/grid_dependency.cuh) and waits on its predecessor first thing. The small kernels
// (zeroing, gated fallbacks, scans, the paper's and refine's kernels) also let their successor
// launch at once (sortlab::dependent_entry); the three long passes of the leading-bits path
// (approx_minmax_lead, approx_wide_lead, approx_wide_fine_*) only wait: a successor launched at
// their start sits resident beside them for the whole pass. H100, 2^28 u32 keys, ten calls back
// to back (device time a call), three runs each: passes waiting only 2.130-2.132 ms, passes
// letting the successor launch at their start 2.143-2.149, no dependent launches 2.137-2.139
// (2^20 keys: 0.062-0.064 against 0.065-0.069 without).
//
// Defines (policy: ApproxPolicy in policy.rs):
//   KEY_T             the key's CUDA type
//   HAS_VALUES        1: key-value (VALUE_T values travel with their keys), 0: keys only
//   VALUE_T           the values' CUDA type (moved as raw bits)
//   SMALL_OFFSETS     1: every position fits 32 bits (n < 2^32): shared interval bases are u32
//                     and alias the counts
//   BLOCK_THREADS, ITEMS_PER_THREAD   the count/scatter tile (BLOCK_THREADS * ITEMS_PER_THREAD
//                     keys); ITEMS_PER_THREAD a multiple of the keys per 16-byte vector
//   BLOCKS_PER_SM     the blocks of BLOCK_THREADS that must fit a multiprocessor (register limit of
//                     the tile kernels' launch bounds)
//   WIDE_THREADS, WIDE_ITEMS, WIDE_BLOCKS_PER_SM   the wide scatter's tile (WIDE_THREADS *
//                     WIDE_ITEMS keys) and launch bounds
//   REDUCE_THREADS, REDUCE_UNROLL     approx_minmax: block size, 16-byte vectors per thread in
//                     flight
//   SORT_THREADS, SORT_ITEMS, SORT_RADIX_BITS   sort_block_list's tile and digit
#include "sortlab/thread/key_bits.cuh"
#include "sortlab/thread/type_traits.cuh"
#include "sortlab/warp/operators.cuh"
#include "sortlab/warp/shuffle.cuh"
#include "sortlab/block/block_reduce.cuh"
#include "sortlab/block/block_scan.cuh"
#include "sortlab/grid/last_block.cuh"
#include "sortlab/grid/grid_dependency.cuh"
#include "sortlab/block/block_radix_sort.cuh"

#ifndef KEY_T
#define KEY_T unsigned int
#endif
#ifndef HAS_VALUES
#define HAS_VALUES 0
#endif
#ifndef VALUE_T
#define VALUE_T unsigned int
#endif
#ifndef SMALL_OFFSETS
#define SMALL_OFFSETS 1
#endif
#ifndef BLOCK_THREADS
#define BLOCK_THREADS 1024
#endif
#ifndef ITEMS_PER_THREAD
#define ITEMS_PER_THREAD 4
#endif
#ifndef BLOCKS_PER_SM
#define BLOCKS_PER_SM 2
#endif
#ifndef REDUCE_THREADS
#define REDUCE_THREADS 256
#endif
#ifndef REDUCE_UNROLL
#define REDUCE_UNROLL 4
#endif
#ifndef WIDE_THREADS
#define WIDE_THREADS 1024
#endif
#ifndef WIDE_ITEMS
#define WIDE_ITEMS 16
#endif
#ifndef WIDE_BLOCKS_PER_SM
#define WIDE_BLOCKS_PER_SM 1
#endif
#ifndef SORT_THREADS
#define SORT_THREADS 256
#endif
#ifndef SORT_ITEMS
#define SORT_ITEMS 8
#endif
#ifndef SORT_RADIX_BITS
#define SORT_RADIX_BITS 6
#endif
// Sizes the host passes too (kernels.rs, module_defines: the values the host plans with; these
// defaults serve a compile of the file alone):
//   LEAD_BITS           the leading-bits histogram's buckets, log2
//   SPLIT_TABLE_BITS    the sampled map's table buckets, log2
//   SCAN_SMALL_THREADS  scan_small's block
#ifndef LEAD_BITS
#define LEAD_BITS 14
#endif
#ifndef SPLIT_TABLE_BITS
#define SPLIT_TABLE_BITS 12
#endif
#ifndef SCAN_SMALL_THREADS
#define SCAN_SMALL_THREADS 1024
#endif

// Hardware constants, not tuning: the warp and the 16-byte vector load.
#define WARP_THREADS 32
#define VECTOR_BYTES 16
// Segments of at most this many keys are sorted by one warp, two keys per lane.
#define WARP_SORT_MAX (2 * WARP_THREADS)

typedef KEY_T Key;
typedef sortlab::KeyBits<KEY_T> Map;
typedef Map::Bits Bits;
typedef VALUE_T Value;
// Shared interval bases and global claim counters: 32-bit when every position fits.
#if SMALL_OFFSETS
typedef u32 SharedOffset;
typedef u32 Claim;
#else
typedef u64 SharedOffset;
typedef unsigned long long Claim;
#endif

#define TILE_ITEMS (BLOCK_THREADS * ITEMS_PER_THREAD)
// The leading-bits histogram (approx_minmax_lead): 2^LEAD_BITS buckets of the ranks' leading bits.
#define LEAD_BUCKETS (1u << LEAD_BITS)
#define LEAD_SHIFT (8 * (int)sizeof(Bits) - LEAD_BITS)
#define KEY_VEC (VECTOR_BYTES / (int)sizeof(KEY_T))
#define SORT_TILE (SORT_THREADS * SORT_ITEMS)
static_assert(BLOCK_THREADS % WARP_THREADS == 0 && BLOCK_THREADS <= 1024, "BLOCK_THREADS: a multiple of 32, <= 1024");
static_assert(ITEMS_PER_THREAD % KEY_VEC == 0, "ITEMS_PER_THREAD must be a multiple of the keys per 16-byte vector");
static_assert(SORT_TILE > WARP_SORT_MAX, "the block sort tile must be larger than a warp sort");

// SplitMix64's finaliser (Steele, Lea, Flood): the sample-position hash, the same as
// sortlab_cpu_reference::approx::splitmix64. Published constants, not tuning.
__device__ __forceinline__ u64 splitmix64(u64 z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

__device__ __forceinline__ Bits rank_bits(KEY_T k, Bits flip) { return Map::to_bits(k) ^ flip; }
__device__ __forceinline__ KEY_T unrank(Bits b, Bits flip) { return Map::from_bits(b ^ flip); }

__device__ __forceinline__ u32 mulhi(u32 a, u32 b) { return __umulhi(a, b); }
__device__ __forceinline__ u64 mulhi(u64 a, u64 b) { return __umul64hi(a, b); }

// floor(m * 2^32 / d) for m < d <= 2^32 - 1.
__device__ __forceinline__ u32 wide_div(u32 m, u32 d) { return (u32)(((u64)m << 32) / (u64)d); }
// floor(m * 2^64 / d) for m < d: restoring long division, one quotient bit per step.
__device__ __forceinline__ u64 wide_div(u64 m, u64 d) {
    u64 r = m, q = 0;
    for (int i = 0; i < 64; ++i) {
        const u64 carry = r >> 63;
        r <<= 1;
        q <<= 1;
        if (carry || r >= d) {
            r -= d;
            q |= 1;
        }
    }
    return q;
}

__device__ __forceinline__ u32 bit_length(u32 x) { return 32 - __clz(x); }
__device__ __forceinline__ u32 bit_length(u64 x) { return 64 - __clzll(x); }

// ---- Interval maps. ----

struct EqualMap {
    Bits lo;
    Bits scale;
    u32 direct;
    __device__ __forceinline__ u32 operator()(Bits b) const {
        const Bits d = b - lo;
        return direct ? (u32)d : (u32)mulhi(d, scale);
    }
};

// The smallest and largest rank (ordered bits xor flip) from the extremes as the min-max
// kernels leave them (word 0 ~min, word 1 max, unflipped).
__device__ __forceinline__ void rank_range(Bits nmin, Bits mx, Bits flip, Bits& lo, Bits& hi) {
    const Bits mn = (Bits)~nmin;
    lo = flip ? (Bits)~mx : mn;
    hi = flip ? (Bits)~mn : mx;
}

// The equal-width map of m intervals from the extremes (word 0 ~min, word 1 max, unflipped).
__device__ __forceinline__ EqualMap make_equal_map(Bits nmin, Bits mx, Bits flip, u32 m) {
    Bits lo, hi;
    rank_range(nmin, mx, flip, lo, hi);
    const Bits span = hi - lo;
    EqualMap e;
    e.lo = lo;
    e.scale = 0;
    e.direct = 0;
    if ((u64)span < (u64)m) {
        e.direct = 1;
    } else if (span == sortlab::max_bits<Bits>()) {
        e.scale = (Bits)m;
    } else {
        e.scale = wide_div((Bits)m, (Bits)(span + 1));
    }
    return e;
}

// The sampled map's bucket table: splitter_table puts, after the m - 1 splitters (from word m on),
// s0 (the smallest splitter), the shift, and SPLIT_TABLE + 1 u32 entries: entry u is the number
// of splitters below s0 + (u << shift) (m - 1 past the largest), so the splitters <= a key of
// bucket u = (b - s0) >> shift number between entries u and u + 1: a search of a few splitters
// instead of all (14 steps for 10,000 intervals, three times a key a pass).
#define SPLIT_TABLE (1u << SPLIT_TABLE_BITS)

struct SampledMap {
    const Bits* splitters;
    const u32* table;
    Bits s0;
    u32 shift;
    u32 count;  // m - 1
    // The number of splitters <= b (upper bound): below s0 none, past the table all, else a
    // binary search between the bucket's table entries.
    __device__ __forceinline__ u32 operator()(Bits b) const {
        if (count == 0 || b < s0) return 0;
        const Bits d = (Bits)(b - s0) >> shift;
        if (d >= (Bits)SPLIT_TABLE) return count;
        u32 lo = __ldg(table + (u32)d);
        u32 hi = __ldg(table + (u32)d + 1);
        while (lo < hi) {
            const u32 mid = (lo + hi) >> 1;
            if (__ldg(splitters + mid) <= b) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
};

// The map every block of a kernel shares, built once by thread 0.
template <typename MapT> struct MapArgs;
template <> struct MapArgs<EqualMap> {
    const Bits* minmax;
    __device__ __forceinline__ EqualMap build(Bits flip, u32 m) const {
        return make_equal_map(minmax[0], minmax[1], flip, m);
    }
};
template <> struct MapArgs<SampledMap> {
    const Bits* splitters;
    __device__ __forceinline__ SampledMap build(Bits, u32 m) const {
        SampledMap s;
        s.splitters = splitters;
        s.count = m - 1;
        s.s0 = 0;
        s.shift = 0;
        s.table = nullptr;
        if (m >= 2) {
            s.s0 = splitters[m];
            s.shift = (u32)splitters[m + 1];
            s.table = reinterpret_cast<const u32*>(splitters + m + 2);
        }
        return s;
    }
};

template <typename MapT> __device__ __forceinline__ MapT shared_map(const MapArgs<MapT>& args, Bits flip, u32 m) {
    __shared__ MapT map;
    if (threadIdx.x == 0) map = args.build(flip, m);
    __syncthreads();
    return map;
}

// Adds a block's n shared counters to out[0, n) (global u64 words), the non-zero ones; after a
// barrier that ends the counting.
__device__ __forceinline__ void add_counts(const u32* hist, u32 n, u64* out) {
    for (u32 i = threadIdx.x; i < n; i += blockDim.x) {
        const u32 c = hist[i];
        if (c) atomicAdd((unsigned long long*)(out + i), (u64)c);
    }
}

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
// registers, then one block scan of the runs. (Measured on an H100, 10,001 counts: 13.3 us as a
// kernel when warp w took the round's w-th run of 32 * 8, lane l its elements j * 32 + l,
// scanned row by row with 64-bit shuffles, ~1000 dependent instructions a warp; 9.9 us with
// Threads 1024, Run 8.) Kernels bound to 32 registers a thread take Run 2.
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
// its interval >> shift. (A division by a run-time f cost the wide coarse pass about a fifth of
// its time: H100, 2^28 u32 keys, 10,000 intervals, f = 100.)
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
        for (int i = 0; i < ITEMS_PER_THREAD; ++i) count_in_bin(hist, map(rank_bits(k[i], flip)), true);
    } else {
#pragma unroll
        for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
            const u32 e = i * BLOCK_THREADS + tid;
            k[i] = e < valid ? keys[start + e] : Key();
        }
#pragma unroll
        for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
            const bool ok = i * BLOCK_THREADS + tid < valid;
            count_in_bin(hist, ok ? map(rank_bits(k[i], flip)) : 0u, ok);
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
        const u32 bin = ok ? map(rank_bits(k[i], flip)) : 0u;
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
        const u32 slot = ok ? get16(st.hist16, map(rank_bits(k[i], flip))) : 0u;
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
        if (hist != nullptr) atomicAdd(hist + (u32)(rank_bits(k, flip) >> LEAD_SHIFT), 1u);
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
            const u32 iv = map(rank_bits(keys[i], flip));
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
            const u32 iv = map(rank_bits(k, flip));
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

// ---- The wide scatter: WIDE_THREADS * WIDE_ITEMS keys a tile, grouped by bin in shared memory.
// Two kinds: Cursor (each block owns a chunk and writes at its own places, its column of the
// scanned count matrix: no global atomics; one pass into all intervals, or the coarse pass into
// bins of f intervals), and Claim (any tiles, each tile's run of a bin claimed with a
// global atomic on top of the bin's boundary: the fine pass over the coarse pass's output, whose
// tiles each meet few intervals). Dynamic shared memory, in this order (wide_shared_bytes in
// kernels.rs computes the same size):
//   wend[bins]       u32           per bin: the tile's count, then its run's end in the tile
//   wbase[bins]      SharedOffset  per bin: (Cursor) the block's cursor; then place - run start
//   wkey[WIDE_TILE]  Key           the tile, grouped by bin
//   wval[WIDE_TILE]  Value         (HAS_VALUES) its values
// Per tile (five barriers with cursors, four with claims): 1. every key's rank in its bin (a
// shared atomic; keys and ranks, the bin packed above the rank, stay in registers);
// 2. a block scan over the bins (each thread a contiguous run of them): wend = run end, wbase =
// place - run start; 3. the key of rank r goes to wend - 1 - r of the staged tile; 4. the staged
// tile is written in order, staged key j to wbase[bin] + j (consecutive threads, consecutive
// places inside each run; the next tile is loaded meanwhile); 5. (Cursor) wbase += wend, the
// next cursor; wend = 0.
//
// Why not one Cursor pass into 10,000 intervals: every block then writes its own region of every
// interval, 1.3 million write fronts at once (132 blocks), each advancing a few bytes a tile;
// their partial sectors leave L2 before they fill (measured on an H100, 2^28 keys: 10.5 ms, at
// tiles of 16,384; 1000 intervals: 2.4 ms). Claims share one front per interval.
// Why not one pass by thread-block clusters (sm_90; commit 04724f4 holds the code): blocks of a
// cluster exchanging counts through distributed shared memory, claiming each interval once per
// cluster tile and writing adjacent parts of its run at once, took 5.30-5.54 ms for the whole
// sort at 2-8 blocks a cluster (7.32 at 16; pairs 9.45-12.7) against 3.53 for the two wide
// passes (pairs 5.15): a block's runs are still ~1.6 keys, so every warp's store meets ~20
// sectors. Grouping the cluster's keys by interval across the blocks' shared memory first (runs
// of ~13 keys at 8 blocks) took 5.91 (pairs 9.36): one remote 4-byte store a key.
//
// Measured and not kept (H100, 2^28 u32, 10,000 equal-width intervals, same run): the next whole
// tile's keys brought into a second shared buffer by one bulk copy (sortlab/block/bulk_copy.cuh)
// from step 2 on, instead of into registers during step 4: keys 3.61 ms against 3.50, pairs 5.23
// against 5.09 (the passes do not wait on their loads). And (2026-11-26, 2^28 u32/u32 pairs, same
// run, two runs each) every tile's values asked of L2 while the keys are loaded (one
// prefetch.global.L2 a 128-byte line), so that step 3 reads them from L2: 3.94-3.98 ms against
// 3.90 (2^24: 0.325 against 0.317), keys alone unchanged. ----

#define WIDE_TILE (WIDE_THREADS * WIDE_ITEMS)
static_assert(WIDE_ITEMS % KEY_VEC == 0, "WIDE_ITEMS must be a multiple of the keys per 16-byte vector");
static_assert(WIDE_THREADS % WARP_THREADS == 0 && WIDE_THREADS <= 1024, "WIDE_THREADS: a multiple of 32, <= 1024");

// Step 1 keeps a key's bin in the high bits of its rank: a tile's ranks take WIDE_RANK_BITS bits,
// and the bins fewer than 2^16 (two 4-byte words each in at most 227 KB of shared memory).
#define WIDE_RANK_BITS 16
static_assert(WIDE_TILE <= (1u << WIDE_RANK_BITS), "a wide tile's ranks take 16 bits");

// Tile item i of this thread: 16-byte vectors striped over the block.
__device__ __forceinline__ u32 wide_item(int i) {
    return ((u32)(i / KEY_VEC) * WIDE_THREADS + threadIdx.x) * KEY_VEC + (u32)(i % KEY_VEC);
}

// Loads keys [start, start + valid) (valid <= WIDE_TILE) into k as wide_item lays them out:
// 16-byte vectors for a full tile at an aligned address, single keys otherwise.
__device__ __forceinline__ void wide_load(const KEY_T* keys, u64 start, u32 valid, bool aligned,
                                          KEY_T (&k)[WIDE_ITEMS]) {
    if (valid == WIDE_TILE && aligned && start % KEY_VEC == 0) {
        typedef typename sortlab::Conditional<sizeof(KEY_T) == 4, uint4, ulonglong2>::Type Vec;
        const Vec* v = reinterpret_cast<const Vec*>(keys + start);
#pragma unroll
        for (int j = 0; j < WIDE_ITEMS / KEY_VEC; ++j) {
            const Vec x = v[j * WIDE_THREADS + threadIdx.x];
            const KEY_T* p = reinterpret_cast<const KEY_T*>(&x);
#pragma unroll
            for (int q = 0; q < KEY_VEC; ++q) k[j * KEY_VEC + q] = p[q];
        }
    } else {
#pragma unroll
        for (int i = 0; i < WIDE_ITEMS; ++i) {
            const u32 e = wide_item(i);
            k[i] = e < valid ? keys[start + e] : Key();
        }
    }
}

// The interval (or coarse bin) of a key's ranked bits, and the rank flip, for the wide scatter.
template <typename MapT> struct FlipMap {
    MapT map;
    Bits flip;
    u32 shift;  // log2 of the intervals a bin (0: the intervals themselves)
    __device__ __forceinline__ u32 bin(KEY_T k) const { return map(rank_bits(k, flip)) >> shift; }
    __device__ __forceinline__ void count(KEY_T) const {}
    static constexpr bool kCounts = false;  // count() does nothing
};

// The leading-bits coarse bins (approx_wide_lead): a key's bin is its rank >> shift, less the
// smallest rank's (bins of equal width on the rank's leading bits), and each key is also counted
// in its interval (fine_hist, shared memory).
struct LeadMap {
    u32 shift;
    Bits base;  // the smallest rank >> shift
    Bits flip;
    EqualMap fine;
    u32* fine_hist;
    __device__ __forceinline__ u32 bin(KEY_T k) const { return (u32)((rank_bits(k, flip) >> shift) - base); }
    __device__ __forceinline__ void count(KEY_T k) const { atomicAdd(fine_hist + fine(rank_bits(k, flip)), 1u); }
    // Its tiles take the checked code of every step even when full (measured on an
    // H100, 2^28 u32 keys, clocks locked: the unchecked code made this pass slower, 1.10 -> 1.15 ms).
    static constexpr bool kCounts = true;
};

// Step 1 of a wide tile: each valid key's rank among the tile's keys of its bin (a shared atomic
// on wend), and the smallest and largest bin met. Full: all WIDE_TILE keys valid (no check; on
// an H100 at 2^28 u32 keys the cursor coarse pass and the fine pass took 0.3 ms less in all).
// Input already grouped by interval (an approximate sort's output, sorted keys) sends every lane
// of a warp to one counter, where the atomics serialise: 3.56 ms at 2^28 against 2.14 for uniform
// keys. Measured and not kept (H100, 2^28 u32, same runs): one atomic for the keys of a 16-byte
// vector that share their bin (and their interval, in the lead pass's counts) on every tile,
// ordered input 3.56 -> 2.61-2.69 ms but uniform 2.131 -> 2.204 a call back to back; the same
// only after a tile that met at most 4 bins (both forms in the kernel, no spills but in the
// sampled fine pass, 8 bytes), ordered 3.18, uniform 2.139 -> 2.155, sampled 5.48 -> 5.51.
template <bool Full, typename MapT>
__device__ __forceinline__ void wide_rank(const KEY_T (&k)[WIDE_ITEMS], u32 valid, const MapT& map, u32* wend,
                                          u32 (&r)[WIDE_ITEMS], u32& lo, u32& hi) {
#pragma unroll
    for (int i = 0; i < WIDE_ITEMS; ++i) {
        r[i] = 0;
        if (Full || wide_item(i) < valid) {
            const u32 b = map.bin(k[i]);
            r[i] = atomicAdd(wend + b, 1u) | (b << WIDE_RANK_BITS);
            map.count(k[i]);
            lo = min(lo, b);
            hi = max(hi, b);
        }
    }
}

// Step 3: the key of rank r in its bin (and its value) to slot wend[bin] - 1 - r of the staged
// tile (wend: the bins' run ends; r packs the bin above the rank, so the bin is not computed
// again). (Measured on an H100, 2^28 u32 keys: reading every slot before the first store, which
// the compiler cannot move past a store that may alias wend, made the passes slower, 0.88 ->
// 0.97 ms.)
template <bool Full>
__device__ __forceinline__ void wide_stage(const KEY_T (&k)[WIDE_ITEMS], const u32 (&r)[WIDE_ITEMS], u32 valid,
                                           u64 start, const u32* wend, const Value* vals_in, Key* wkey,
                                           Value* wval) {
#pragma unroll
    for (int i = 0; i < WIDE_ITEMS; ++i) {
        const u32 e = wide_item(i);
        if (Full || e < valid) {
            const u32 slot = wend[r[i] >> WIDE_RANK_BITS] - 1u - (r[i] & ((1u << WIDE_RANK_BITS) - 1));
            wkey[slot] = k[i];
#if HAS_VALUES
            wval[slot] = vals_in[start + e];
#endif
        }
    }
}

// Step 4: staged key j (and its value) to its place, wbase[bin] + j.
template <typename MapT>
__device__ __forceinline__ void wide_write(u32 j, const MapT& map, const SharedOffset* wbase, const Key* wkey,
                                           const Value* wval, KEY_T* keys_out, Value* vals_out) {
    const Key key = wkey[j];
    const u64 pos = (u64)(SharedOffset)(wbase[map.bin(key)] + (SharedOffset)j);
    keys_out[pos] = key;
#if HAS_VALUES
    vals_out[pos] = wval[j];
#endif
}

// Cursor: block b takes chunk b (keys [b * chunk, min(n, (b + 1) * chunk)), the count kernels'
// column b) and its cursors from matrix[j * gridDim.x + b]. Otherwise bin j's places from
// bounds[j] + claimed[j] (claimed zero before the launch), and the tiles of the n keys (counted
// from the last tile when `reverse`): with Claimed, each block takes the next one from *next_tile
// (zeroed before the launch) while it ranks the current one, so that blocks on faster
// multiprocessors take more and all end together; else tiles b, b + gridDim.x, ...
// Measured (H100, 2^28 u32, 10,000 intervals): the fine pass's multiprocessors were active 98.1 %
// of its elapsed cycles with tiles b, b + gridDim.x, ..., 99.1 % with claimed tiles (848 -> 840
// us). The lead pass keeps tiles b, b + gridDim.x, ...: claiming cost its kernel of 4-byte keys
// spilled registers (its 72 are all used), 907 -> 1095 us.
template <bool Cursor, bool Claimed, typename MapT>
__device__ __forceinline__ void scatter_wide(const KEY_T* keys_in, const Value* vals_in, u64 n, const MapT& map,
                                             u32 bins, u64 chunk, const u64* matrix, const u64* bounds,
                                             Claim* claimed, KEY_T* keys_out, Value* vals_out,
                                             u32* next_tile, bool reverse = false) {
    typedef sortlab::BlockScan<u32, WIDE_THREADS> Scan;
    __shared__ typename Scan::TempStorage scan_tmp;
    u32* wend = reinterpret_cast<u32*>(approx_smem);
    unsigned char* at = approx_smem + align16((u64)bins * sizeof(u32));
    SharedOffset* wbase = reinterpret_cast<SharedOffset*>(at);
    at += align16((u64)bins * sizeof(SharedOffset));
    Key* wkey = reinterpret_cast<Key*>(at);
    at += align16((u64)WIDE_TILE * sizeof(Key));
    Value* wval = reinterpret_cast<Value*>(at);  // (HAS_VALUES)
    // The smallest and largest bin of the tile (two slots, alternating by tile: one is reset for
    // the next tile while the other is read), so that step 2 and the reset visit only the bins between:
    // a fine-pass tile holds one or two coarse bins' keys, about 2 * sqrt(m) of the m intervals.
    // (Measured on an H100, 2^28 u32 keys, 10,000 intervals: the fine pass took 1.34 ms when
    // every tile scanned all m bins.)
    __shared__ u32 tile_lo[2];
    __shared__ u32 tile_hi[2];
    // (Claimed) the tile a block takes next: slot 1 the first, then tile i's claim in slot i % 2
    // (read after the tile's first barrier; the slot is written again two tiles later).
    __shared__ u32 claimed_tile[2];
    const u32 tid = threadIdx.x;
    if (Claimed && tid == 0) claimed_tile[1] = atomicAdd(next_tile, 1u);
    for (u32 b = tid; b < bins; b += WIDE_THREADS) {
        wend[b] = 0;
        if (Cursor) wbase[b] = (SharedOffset)matrix[(u64)b * gridDim.x + blockIdx.x];
    }
    if (tid < 2) {
        tile_lo[tid] = ~0u;
        tile_hi[tid] = 0;
    }
    __syncthreads();
    const bool aligned = (reinterpret_cast<u64>(keys_in) % VECTOR_BYTES) == 0;
    // The block's tiles: t = first, first + stride, ... < count, tile t at base + t * WIDE_TILE
    // (from the last tile down when reversed), up to end.
    u64 base, end, count, first, stride;
    if (Cursor) {
        base = min(n, (u64)blockIdx.x * chunk);
        end = min(n, base + chunk);
        first = 0;
        stride = 1;
    } else {
        base = 0;
        end = n;
        first = Claimed ? claimed_tile[1] : blockIdx.x;  // (the barrier above)
        stride = gridDim.x;
    }
    count = (end - base + WIDE_TILE - 1) / WIDE_TILE;
    const auto tile_start = [&](u64 t) { return base + (reverse ? count - 1 - t : t) * WIDE_TILE; };
    KEY_T k[WIDE_ITEMS];
    if (first < count) {
        const u64 s = tile_start(first);
        wide_load(keys_in, s, (u32)min((u64)WIDE_TILE, end - s), aligned, k);
    }
    u32 parity = 0;
    // The tile after t: (Claimed) read from its slot where needed, not kept in a register.
    const auto next_of = [&](u64 t, u32 parity) -> u64 { return Claimed ? claimed_tile[parity] : t + stride; };
    for (u64 t = first; t < count; t = next_of(t, parity), parity ^= 1) {
        // (Claimed) the next tile: claimed now, read after step 1's barrier.
        if (Claimed && tid == 0) claimed_tile[parity] = atomicAdd(next_tile, 1u);
        const u64 start = tile_start(t);
        const u32 valid = (u32)min((u64)WIDE_TILE, end - start);
        // 1. Ranks inside the tile's run of each bin; the tile's smallest and largest bin.
        // (A full tile, almost every tile, takes code without a bound check per key; but see
        // LeadMap.)
        const bool full = valid == WIDE_TILE && !MapT::kCounts;
        u32 r[WIDE_ITEMS];
        u32 lo = ~0u;
        u32 hi = 0;
        if (full) {
            wide_rank<true>(k, valid, map, wend, r, lo, hi);
        } else {
            wide_rank<false>(k, valid, map, wend, r, lo, hi);
        }
        lo = sortlab::warp_reduce<WARP_THREADS>(lo, sortlab::Min());
        hi = sortlab::warp_reduce<WARP_THREADS>(hi, sortlab::Max());
        if (tid % WARP_THREADS == 0 && lo <= hi) {
            atomicMin(tile_lo + parity, lo);
            atomicMax(tile_hi + parity, hi);
        }
        __syncthreads();
        // 2. Runs: end in the tile, and where the run's first key goes less its start. Thread t
        // takes a contiguous share of the bins tile_lo .. tile_hi (the others are empty).
        const u32 bin_lo = tile_lo[parity];
        const u32 span = tile_hi[parity] + 1 - bin_lo;  // the tile has a key: bin_lo <= tile_hi
        const u32 per = (span + WIDE_THREADS - 1) / WIDE_THREADS;
        const u32 b0 = bin_lo + min(span, tid * per);
        const u32 b1 = bin_lo + min(span, tid * per + per);
        u32 sum = 0;
        for (u32 b = b0; b < b1; ++b) sum += wend[b];
        // With claims and at most one bin a thread (almost every tile), the claim goes out before
        // the scan and its place is used only after step 3: its round trip to L2 overlaps both.
        const bool early = !Cursor && per == 1 && sum != 0;
        Claim got = 0;
        SharedOffset bound = 0;
        if (early) {
            got = atomicAdd(claimed + b0, (Claim)sum);
            bound = (SharedOffset)bounds[b0];
        }
        u32 total;
        u32 off = Scan::exclusive_scan(sum, 0u, sortlab::Sum(), total, scan_tmp);
        if (early) wbase[b0] = (SharedOffset)0 - (SharedOffset)off;  // the place added after step 3
        for (u32 b = b0; b < b1; ++b) {
            const u32 c = wend[b];
            if (Cursor) {
                wbase[b] = (SharedOffset)(wbase[b] - (SharedOffset)off);
            } else if (c && !early) {
                const u64 place = bounds[b] + (u64)atomicAdd(claimed + b, (Claim)c);
                wbase[b] = (SharedOffset)((SharedOffset)place - (SharedOffset)off);
            }
            off += c;
            wend[b] = off;
        }
        __syncthreads();
        // 3. Stage, grouped by bin.
        if (full) {
            wide_stage<true>(k, r, valid, start, wend, vals_in, wkey, wval);
        } else {
            wide_stage<false>(k, r, valid, start, wend, vals_in, wkey, wval);
        }
        if (early) wbase[b0] = (SharedOffset)(wbase[b0] + bound + (SharedOffset)got);
        __syncthreads();
        // The keys are staged: load the next tile into the same registers while this one is
        // written.
        if (const u64 next = next_of(t, parity); next < count) {
            const u64 s = tile_start(next);
            wide_load(keys_in, s, (u32)min((u64)WIDE_TILE, end - s), aligned, k);
        }
        // The next tile's bin range slots reset; with claims (no cursors to advance) the counts
        // too, here, as step 4 reads neither: one barrier a tile fewer.
        if (tid == 0) {
            tile_lo[parity ^ 1] = ~0u;
            tile_hi[parity ^ 1] = 0;
        }
        if (!Cursor) {
            for (u32 b = b0; b < b1; ++b) wend[b] = 0;
        }
        // 4. Write in order.
        if (full) {
#pragma unroll
            for (int i = 0; i < WIDE_ITEMS; ++i) {
                wide_write(i * WIDE_THREADS + tid, map, wbase, wkey, wval, keys_out, vals_out);
            }
        } else {
            for (u32 j = tid; j < valid; j += WIDE_THREADS) {
                wide_write(j, map, wbase, wkey, wval, keys_out, vals_out);
            }
        }
        __syncthreads();
        // 5. (Cursors) the next tile's cursors, and the counts reset.
        if (Cursor) {
            for (u32 b = b0; b < b1; ++b) {
                wbase[b] = (SharedOffset)(wbase[b] + (SharedOffset)wend[b]);
                wend[b] = 0;
            }
            __syncthreads();
        }
    }
}

extern "C" __global__ void __launch_bounds__(WIDE_THREADS, WIDE_BLOCKS_PER_SM)
approx_wide_equal(const KEY_T* __restrict__ keys_in, const Value* __restrict__ vals_in, u64 n, const Bits* mm,
                  Bits flip, u32 m, u32 f, u32 bins, u64 chunk, const u64* matrix, KEY_T* __restrict__ keys_out,
                  Value* __restrict__ vals_out, const u64* skip) {
    sortlab::dependent_entry();
    if (skip != nullptr && *skip) return;
    const FlipMap<EqualMap> map{shared_map(MapArgs<EqualMap>{mm}, flip, m), flip, bin_shift(f)};
    scatter_wide<true, false>(keys_in, vals_in, n, map, bins, chunk, matrix, nullptr, nullptr, keys_out, vals_out,
                              nullptr);
}
extern "C" __global__ void __launch_bounds__(WIDE_THREADS, WIDE_BLOCKS_PER_SM)
approx_wide_sampled(const KEY_T* __restrict__ keys_in, const Value* __restrict__ vals_in, u64 n,
                    const Bits* splitters, Bits flip, u32 m, u32 f, u32 bins, u64 chunk, const u64* matrix,
                    KEY_T* __restrict__ keys_out, Value* __restrict__ vals_out, const u64* skip) {
    sortlab::dependent_entry();
    if (skip != nullptr && *skip) return;
    const FlipMap<SampledMap> map{shared_map(MapArgs<SampledMap>{splitters}, flip, m), flip, bin_shift(f)};
    scatter_wide<true, false>(keys_in, vals_in, n, map, bins, chunk, matrix, nullptr, nullptr, keys_out, vals_out,
                              nullptr);
}
extern "C" __global__ void __launch_bounds__(WIDE_THREADS, WIDE_BLOCKS_PER_SM)
approx_wide_fine_equal(const KEY_T* __restrict__ keys_in, const Value* __restrict__ vals_in, u64 n, const Bits* mm,
                       Bits flip, u32 m, const u64* bounds, Claim* claimed, KEY_T* __restrict__ keys_out,
                       Value* __restrict__ vals_out, u32* next_tile) {
    sortlab::grid_dependency_wait();  // no early trigger: see "Dependent launches" above
    const FlipMap<EqualMap> map{shared_map(MapArgs<EqualMap>{mm}, flip, m), flip, 0u};
    scatter_wide<false, true>(keys_in, vals_in, n, map, m, 0, nullptr, bounds, claimed, keys_out, vals_out,
                              next_tile);
}
extern "C" __global__ void __launch_bounds__(WIDE_THREADS, WIDE_BLOCKS_PER_SM)
approx_wide_fine_sampled(const KEY_T* __restrict__ keys_in, const Value* __restrict__ vals_in, u64 n,
                         const Bits* splitters, Bits flip, u32 m, const u64* bounds, Claim* claimed,
                         KEY_T* __restrict__ keys_out, Value* __restrict__ vals_out, u32* next_tile) {
    sortlab::grid_dependency_wait();  // no early trigger: see "Dependent launches" above
    const FlipMap<SampledMap> map{shared_map(MapArgs<SampledMap>{splitters}, flip, m), flip, 0u};
    scatter_wide<false, true>(keys_in, vals_in, n, map, m, 0, nullptr, bounds, claimed, keys_out, vals_out,
                              next_tile);
}

// ---- The leading-bits coarse bins. When the keys' ranks spread over enough of their leading
// LEAD_BITS bits, the coarse bins are equal-width ranges of them (rank >> shift), their totals
// summed from a histogram of the leading bits taken with the min and max (approx_minmax_lead),
// and the coarse pass claims places (as the fine pass) and counts the intervals itself: no
// separate count pass over the keys (20 bytes a 4-byte key moved instead of 24). The plan's
// flag (plan_lead, in approx_minmax_lead's last block) says whether the path pays; where it does
// not (the ranks in too few buckets) the count and chunked coarse kernels run instead and
// approx_wide_lead returns at once: the choice stays on the device. ----

// Bytes of scatter_wide's dynamic shared memory for `bins` bins (as wide_shared_bytes in
// kernels.rs); approx_wide_lead's interval counters follow.
__device__ __forceinline__ u32 wide_bytes(u32 bins) {
    u32 b = (u32)align16((u64)bins * sizeof(u32)) + (u32)align16((u64)bins * sizeof(SharedOffset)) +
            (u32)align16((u64)WIDE_TILE * sizeof(Key));
#if HAS_VALUES
    b += (u32)align16((u64)WIDE_TILE * sizeof(Value));
#endif
    return b;
}

// The coarse pass into the leading-bits bins (when lead[0], see plan_lead): tiles grid-stride,
// each tile's run of a bin claimed on top of coarse_bounds (coarse_claimed zeroed before), every
// key counted in its interval (counts[0, m], zeroed before), and by the last block (*done zeroed
// before) the counts scanned into the interval bounds. Dynamic shared memory: wide_bytes(bins),
// then m u32 interval counters; a block takes fewer than 2^32 keys.
extern "C" __global__ void __launch_bounds__(WIDE_THREADS, WIDE_BLOCKS_PER_SM)
approx_wide_lead(const KEY_T* __restrict__ keys_in, const Value* __restrict__ vals_in, u64 n, const Bits* mm,
                 Bits flip, u32 m, u32 bins, const u64* coarse_bounds, Claim* coarse_claimed, u64* counts,
                 const u64* lead, KEY_T* __restrict__ keys_out, Value* __restrict__ vals_out, u32* done) {
    sortlab::grid_dependency_wait();  // no early trigger: see "Dependent launches" above
    if (lead[0] == 0) return;
    u32* fine_hist = reinterpret_cast<u32*>(approx_smem + wide_bytes(bins));
    for (u32 i = threadIdx.x; i < m; i += WIDE_THREADS) fine_hist[i] = 0;
    // (shared_map's barrier orders these before any use.)
    const LeadMap map{(u32)lead[1], (Bits)lead[2], flip, shared_map(MapArgs<EqualMap>{mm}, flip, m), fine_hist};
    // Keys alone are read from the last tile down: the min-max pass read them last, and the L2
    // cache still holds some (H100, 2^28 u32 keys: the whole sort 2.23 -> 2.21 ms; pairs, whose
    // values the min-max pass does not read, were slower so).
    scatter_wide<false, false>(keys_in, vals_in, n, map, bins, 0, nullptr, coarse_bounds, coarse_claimed, keys_out,
                               vals_out, nullptr, !HAS_VALUES);
    add_counts(fine_hist, m, counts);  // (scatter_wide ends with a barrier)
    // The last block scans the counts into the interval bounds (counts[0, m], in place); its
    // tiles are done with the shared memory (last_block's barrier ends add_counts' reads).
    if (sortlab::last_block(done)) scan_words<WIDE_THREADS, 8>(counts, (u64)m + 1, smem_scan_tmp<WIDE_THREADS>());
}

// ---- The paper's kernels: idx[i] = interval, off[i] = atomicAdd(&counts[interval], 1); after
// the scan, out[bounds[idx[i]] + off[i]] = key i. Grid-stride, one key per thread. ----

template <typename MapT>
__device__ __forceinline__ void paper_assign(const KEY_T* keys, u64 n, const MapArgs<MapT>& args, Bits flip, u32 m,
                                             u32* idx, u64* off, u64* counts) {
    const MapT map = shared_map(args, flip, m);
    const u64 stride = (u64)gridDim.x * BLOCK_THREADS;
    for (u64 i = (u64)blockIdx.x * BLOCK_THREADS + threadIdx.x; i < n; i += stride) {
        const u32 iv = map(rank_bits(keys[i], flip));
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
        splitters[j] = rank_bits(sorted[at < s ? at : s - 1], flip);
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

// ---- Quality: the radius from LR (prefix maxima) and RL (suffix minima) in sort order. ----
// D[i] = i - (the smallest j <= i with LR[j] > RL[i]), 0 if none; radius = max D. LR is
// nondecreasing, and in an interval-ordered output j lies in i's interval, so an exponential
// search back from i finds it in O(log(interval)) reads. result[0] must be 0 before the launch.
extern "C" __global__ void __launch_bounds__(REDUCE_THREADS)
radius_distances(const KEY_T* __restrict__ lr, const KEY_T* __restrict__ rl, u64 n, Bits flip, u64* result) {
    sortlab::dependent_entry();
    const u64 stride = (u64)gridDim.x * REDUCE_THREADS;
    u64 best = 0;
    for (u64 i = (u64)blockIdx.x * REDUCE_THREADS + threadIdx.x; i < n; i += stride) {
        const Bits r = rank_bits(rl[i], flip);
        if (rank_bits(lr[i], flip) <= r) continue;
        u64 hi = i;  // LR[hi] > r
        u64 d = 1;
        while (d <= i && rank_bits(lr[i - d], flip) > r) {
            hi = i - d;
            d <<= 1;
        }
        u64 lo = d <= i ? i - d + 1 : 0;  // LR[lo - 1] <= r (or lo = 0); answer in [lo, hi]
        while (lo < hi) {
            const u64 mid = lo + (hi - lo) / 2;
            if (rank_bits(lr[mid], flip) > r) hi = mid; else lo = mid + 1;
        }
        if (i - lo > best) best = i - lo;
    }
    typedef sortlab::BlockReduce<u64, REDUCE_THREADS> Reduce;
    __shared__ typename Reduce::TempStorage tmp;
    const u64 total = Reduce::reduce(best, sortlab::Max(), tmp);
    if (threadIdx.x == 0 && total) atomicMax((unsigned long long*)result, (unsigned long long)total);
}

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

// ---- refine: small segments. ----

// a before b: real keys before padding, then by ranked bits.
__device__ __forceinline__ bool elem_less(Bits ab, u32 ai, Bits bb, u32 bi) {
    return ai != bi ? ai < bi : ab < bb;
}

// Sorts keys [start, start + len) of src into dst (len <= 32 * Slots) with a bitonic network
// over the warp's lanes: element e = slot * 32 + lane. All 32 lanes call.
template <int Slots>
__device__ __forceinline__ void warp_sort(const KEY_T* src_k, const Value* src_v, KEY_T* dst_k, Value* dst_v, u64 start,
                                          u32 len, Bits flip) {
    const u32 lane = sortlab::lane_id();
    Bits b[Slots];
    u32 pad[Slots];
#if HAS_VALUES
    Value v[Slots];
#else
    (void)src_v;
    (void)dst_v;
#endif
#pragma unroll
    for (int s = 0; s < Slots; ++s) {
        const u32 e = s * WARP_THREADS + lane;
        pad[s] = e >= len;
        b[s] = pad[s] ? sortlab::max_bits<Bits>() : rank_bits(src_k[start + e], flip);
#if HAS_VALUES
        v[s] = pad[s] ? Value() : src_v[start + e];
#endif
    }
#pragma unroll
    for (u32 k = 2; k <= WARP_THREADS * Slots; k <<= 1) {
#pragma unroll
        for (u32 j = k >> 1; j > 0; j >>= 1) {
            if (j >= WARP_THREADS) {
                // Slots == 2, j == 32, k == 64: slot 0 (the lower element) keeps the smaller.
                if (elem_less(b[Slots - 1], pad[Slots - 1], b[0], pad[0])) {
                    const Bits tb = b[0];
                    b[0] = b[Slots - 1];
                    b[Slots - 1] = tb;
                    const u32 tp = pad[0];
                    pad[0] = pad[Slots - 1];
                    pad[Slots - 1] = tp;
#if HAS_VALUES
                    const Value tv = v[0];
                    v[0] = v[Slots - 1];
                    v[Slots - 1] = tv;
#endif
                }
            } else {
#pragma unroll
                for (int s = 0; s < Slots; ++s) {
                    const u32 e = s * WARP_THREADS + lane;
                    const Bits ob = sortlab::shfl_xor(b[s], (int)j);
                    const u32 op = __shfl_xor_sync(SORTLAB_FULL_WARP, pad[s], (int)j);
#if HAS_VALUES
                    const Value ov = sortlab::shfl_xor(v[s], (int)j);
#endif
                    const bool up = (e & k) == 0;
                    const bool lower = (e & j) == 0;
                    const bool take = (lower == up) ? elem_less(ob, op, b[s], pad[s]) : elem_less(b[s], pad[s], ob, op);
                    if (take) {
                        b[s] = ob;
                        pad[s] = op;
#if HAS_VALUES
                        v[s] = ov;
#endif
                    }
                }
            }
        }
    }
#pragma unroll
    for (int s = 0; s < Slots; ++s) {
        const u32 e = s * WARP_THREADS + lane;
        if (e < len) {
            dst_k[start + e] = unrank(b[s], flip);
#if HAS_VALUES
            dst_v[start + e] = v[s];
#endif
        }
    }
}

// classify_sort_small's lists: block (WARP_SORT_MAX < len <= SORT_TILE), large (longer, keys not
// all equal), copy (all keys equal, must move to dst); 2 words (start, end) an entry.
__device__ __forceinline__ void append(u64* list, u64* counter, u64 cap, u64 s0, u64 s1) {
    const u64 at = atomicAdd((unsigned long long*)counter, 1ull);
    if (at < cap) {
        list[2 * at] = s0;
        list[2 * at + 1] = s1;
    }
}

// Entries per chunk of classify_sort_small: the chunk's small segments (at most WARP_SORT_MAX keys
// each) are staged in CHUNK_STAGE_BYTES of shared memory.
#define CHUNK_STAGE_BYTES 32768
#define CHUNK_ENTRIES_RAW (CHUNK_STAGE_BYTES / (WARP_SORT_MAX * ((int)sizeof(Key) + (HAS_VALUES ? (int)sizeof(Value) : 0))))
#define CHUNK_ENTRIES (CHUNK_ENTRIES_RAW < BLOCK_THREADS ? CHUNK_ENTRIES_RAW : BLOCK_THREADS)
#define CHUNK_KEYS (CHUNK_ENTRIES * WARP_SORT_MAX)

// The last t < ne with off[t] <= j: the small segment holding staged key j.
__device__ __forceinline__ u32 staged_entry(const u32* off, u32 ne, u32 j) {
    u32 lo = 0, hi = ne - 1;
    while (lo < hi) {
        const u32 mid = (lo + hi + 1) / 2;
        if (off[mid] <= j) lo = mid; else hi = mid - 1;
    }
    return lo;
}

// Entries e < `entries` of `bounds` (entries + 1 words), segment e = [bounds[e], bounds[e + 1]),
// in chunks of CHUNK_ENTRIES per block: segments of at most 64 keys are loaded into shared
// memory (coalesced), sorted there by one warp each (a bitonic network over the lanes) and
// stored to dst; the others are listed. claimed (may be null): after a bucket pass, an entry is
// real iff claimed[e] equals its length (phantom entries claim nothing; empty ones are skipped
// anyway). segs/seg_mm (may be null): the parent segments, to tell segments of equal keys.
// in_place: src == dst (single keys and equal-key segments need no move).
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, BLOCKS_PER_SM)
classify_sort_small(const u64* __restrict__ bounds, u64 entries, const Claim* __restrict__ claimed,
                    const KEY_T* src_k, const Value* src_v, KEY_T* dst_k, Value* dst_v, Bits flip, u32 in_place,
                    const u64* __restrict__ segs, u32 nsegs, const Bits* __restrict__ seg_mm, u64* block_list,
                    u64* large_list, u64* copy_list, u64* list_counts, u64 block_cap, u64 large_cap, u64 copy_cap) {
    sortlab::dependent_entry();
    typedef sortlab::BlockScan<u32, BLOCK_THREADS> Scan;
    __shared__ typename Scan::TempStorage scan_tmp;
    __shared__ u64 seg_start[CHUNK_ENTRIES + 1];
    __shared__ u32 key_off[CHUNK_ENTRIES];
    __shared__ u32 key_len[CHUNK_ENTRIES];
    __shared__ Key sk[CHUNK_KEYS];
#if HAS_VALUES
    __shared__ Value sv[CHUNK_KEYS];
#else
    Value* sv = nullptr;
    (void)src_v;
    (void)dst_v;
#endif
    const u32 tid = threadIdx.x;
    const u32 warp = tid / WARP_THREADS;
    const u64 chunks = (entries + CHUNK_ENTRIES - 1) / CHUNK_ENTRIES;
    for (u64 c = blockIdx.x; c < chunks; c += gridDim.x) {
        const u64 e0 = c * CHUNK_ENTRIES;
        const u32 ne = (u32)min((u64)CHUNK_ENTRIES, entries - e0);
        if (tid <= ne) seg_start[tid] = bounds[e0 + tid];
        __syncthreads();
        u32 small = 0;
        if (tid < ne) {
            const u64 e = e0 + tid;
            const u64 s0 = seg_start[tid], s1 = seg_start[tid + 1];
            const u64 len = s1 - s0;
            const bool real = len > 0 && (claimed == nullptr || (u64)claimed[e] == len);
            if (real && len <= WARP_SORT_MAX) {
                if (!(in_place && len == 1)) small = (u32)len;
            } else if (real && len <= SORT_TILE) {
                append(block_list, list_counts + 0, block_cap, s0, s1);
            } else if (real) {
                bool equal = false;
                if (segs != nullptr && nsegs > 0) {
                    // The parent: the last segment whose first entry is <= e.
                    u32 lo = 0, hi = nsegs - 1;
                    while (lo < hi) {
                        const u32 mid = (lo + hi + 1) / 2;
                        if (segs[3 * (u64)mid] <= e) lo = mid; else hi = mid - 1;
                    }
                    equal = (Bits)~seg_mm[2 * (u64)lo] == seg_mm[2 * (u64)lo + 1];
                }
                if (!equal) {
                    append(large_list, list_counts + 1, large_cap, s0, s1);
                } else if (!in_place) {
                    append(copy_list, list_counts + 2, copy_cap, s0, s1);
                }
            }
        }
        u32 total;
        const u32 off = Scan::exclusive_scan(small, 0u, sortlab::Sum(), total, scan_tmp);
        if (tid < ne) {
            key_off[tid] = off;
            key_len[tid] = small;
        }
        __syncthreads();
        for (u32 j = tid; j < total; j += BLOCK_THREADS) {
            const u32 t = staged_entry(key_off, ne, j);
            const u64 pos = seg_start[t] + (j - key_off[t]);
            sk[j] = src_k[pos];
#if HAS_VALUES
            sv[j] = src_v[pos];
#endif
        }
        __syncthreads();
        for (u32 t = warp; t < ne; t += BLOCK_THREADS / WARP_THREADS) {
            const u32 len = key_len[t];
            if (len == 0) continue;
            if (len <= WARP_THREADS) {
                warp_sort<1>(sk, sv, sk, sv, key_off[t], len, flip);
            } else {
                warp_sort<2>(sk, sv, sk, sv, key_off[t], len, flip);
            }
        }
        __syncthreads();
        for (u32 j = tid; j < total; j += BLOCK_THREADS) {
            const u32 t = staged_entry(key_off, ne, j);
            const u64 pos = seg_start[t] + (j - key_off[t]);
            dst_k[pos] = sk[j];
#if HAS_VALUES
            dst_v[pos] = sv[j];
#endif
        }
        __syncthreads();
    }
}

#if HAS_VALUES
typedef Value SortValueT;
#else
typedef sortlab::NullValue SortValueT;
#endif
typedef sortlab::BlockRadixSort<Bits, SortValueT, SORT_THREADS, SORT_ITEMS, SORT_RADIX_BITS> BlockSortT;

// One block per list entry: load the segment (at most SORT_TILE keys), find the bits that vary
// (the block's min and max), radix-sort those, store.
extern "C" __global__ void __launch_bounds__(SORT_THREADS)
sort_block_list(const u64* __restrict__ list, const u64* __restrict__ count, const KEY_T* src_k, const Value* src_v,
                KEY_T* dst_k, Value* dst_v, Bits flip) {
    sortlab::dependent_entry();
    typedef sortlab::BlockReduce<NegMinMax, SORT_THREADS> Reduce;
    __shared__ union {
        typename BlockSortT::TempStorage sort;
        typename Reduce::TempStorage reduce;
    } tmp;
    __shared__ NegMinMax extremes;
    const u64 entries = *count;
    const u32 tid = threadIdx.x;
    for (u64 idx = blockIdx.x; idx < entries; idx += gridDim.x) {
        const u64 start = list[2 * idx];
        const u32 len = (u32)(list[2 * idx + 1] - start);
        Bits keys[SORT_ITEMS];
#if HAS_VALUES
        SortValueT vals[SORT_ITEMS];
#endif
        NegMinMax acc;
        acc.nmin = 0;
        acc.max = 0;
#pragma unroll
        for (int k = 0; k < SORT_ITEMS; ++k) {
            const u32 e = tid * SORT_ITEMS + k;
            keys[k] = 0;
#if HAS_VALUES
            vals[k] = Value();
#endif
            if (e < len) {
                keys[k] = rank_bits(src_k[start + e], flip);
#if HAS_VALUES
                vals[k] = src_v[start + e];
#endif
                const Bits nb = (Bits)~keys[k];
                if (nb > acc.nmin) acc.nmin = nb;
                if (keys[k] > acc.max) acc.max = keys[k];
            }
        }
        const NegMinMax r = Reduce::reduce(acc, MaxBoth(), tmp.reduce);
        if (tid == 0) extremes = r;
        __syncthreads();
        const Bits lo = (Bits)~extremes.nmin;
        const Bits span = extremes.max - lo;
        const int end_bit = span ? (int)bit_length(span) : 0;
#pragma unroll
        for (int k = 0; k < SORT_ITEMS; ++k) keys[k] -= lo;
#if HAS_VALUES
        BlockSortT::sort(keys, vals, tmp.sort, len, 0, end_bit);
#else
        BlockSortT::sort(keys, tmp.sort, len, 0, end_bit);
#endif
#pragma unroll
        for (int k = 0; k < SORT_ITEMS; ++k) {
            const u32 e = tid * SORT_ITEMS + k;
            if (e < len) {
                dst_k[start + e] = unrank(keys[k] + lo, flip);
#if HAS_VALUES
                dst_v[start + e] = vals[k];
#endif
            }
        }
        __syncthreads();
    }
}

// One block per list entry: dst[start, end) = src[start, end) (segments of equal keys).
extern "C" __global__ void __launch_bounds__(SORT_THREADS)
copy_list(const u64* __restrict__ list, const u64* __restrict__ count, const KEY_T* __restrict__ src_k,
          const Value* __restrict__ src_v, KEY_T* __restrict__ dst_k, Value* __restrict__ dst_v) {
    sortlab::dependent_entry();
    const u64 entries = *count;
    for (u64 idx = blockIdx.x; idx < entries; idx += gridDim.x) {
        const u64 start = list[2 * idx], end = list[2 * idx + 1];
        for (u64 p = start + threadIdx.x; p < end; p += SORT_THREADS) {
            dst_k[p] = src_k[p];
#if HAS_VALUES
            dst_v[p] = src_v[p];
#endif
        }
    }
}

// ---- Plain helpers for scratch memory (sub-ranges the runtime cannot memset or copy). ----

// Zeroes three word ranges at once, [p0, p0 + n0), [p1, p1 + n1), [p2, p2 + n2) (one launch for
// a sort's counters instead of one memset each; empty ranges may be null).
extern "C" __global__ void __launch_bounds__(REDUCE_THREADS)
zero_words(u64* __restrict__ p0, u64 n0, u64* __restrict__ p1, u64 n1, u64* __restrict__ p2, u64 n2) {
    sortlab::dependent_entry();
    const u64 stride = (u64)gridDim.x * REDUCE_THREADS;
    const u64 total = n0 + n1 + n2;
    for (u64 i = (u64)blockIdx.x * REDUCE_THREADS + threadIdx.x; i < total; i += stride) {
        if (i < n0) {
            p0[i] = 0;
        } else if (i < n0 + n1) {
            p1[i - n0] = 0;
        } else {
            p2[i - n0 - n1] = 0;
        }
    }
}

// Exclusive sum scans of two small u64 arrays in place, a[0, na) then b[0, nb), by one block of
// SCAN_SMALL_THREADS (scan_words; one launch for both instead of a device-wide scan each, whose
// fixed costs dominate at these lengths).
extern "C" __global__ void __launch_bounds__(SCAN_SMALL_THREADS) scan_small(u64* a, u64 na, u64* b, u64 nb) {
    sortlab::dependent_entry();
    typedef sortlab::BlockScan<u64, SCAN_SMALL_THREADS> Scan;
    __shared__ typename Scan::TempStorage tmp;
    scan_words<SCAN_SMALL_THREADS, 8>(a, na, tmp);
    scan_words<SCAN_SMALL_THREADS, 8>(b, nb, tmp);
}

// dst[0, n) = src[0, n), keys and (with HAS_VALUES) values.
extern "C" __global__ void __launch_bounds__(REDUCE_THREADS)
copy_pairs(const KEY_T* __restrict__ src_k, const Value* __restrict__ src_v, KEY_T* __restrict__ dst_k,
           Value* __restrict__ dst_v, u64 n) {
    sortlab::dependent_entry();
    const u64 stride = (u64)gridDim.x * REDUCE_THREADS;
    for (u64 i = (u64)blockIdx.x * REDUCE_THREADS + threadIdx.x; i < n; i += stride) {
        dst_k[i] = src_k[i];
#if HAS_VALUES
        dst_v[i] = src_v[i];
#endif
    }
}
