// hybrid.cu: the hybrid sort of Sintorn and Assarsson (bucket sort, then a vector merge sort per
// bucket), both variants (HybridVariant::Paper and ::Fast). Kernels, in launch order:
//   hybrid_clear         zeroes the counters (bucket counts, histogram, min/max words)
//   Paper:  hybrid_minmax      min and max ordered bits (atomics on two u64 words)
//           hybrid_histogram   a fine histogram of HIST_BINS uniform bins over [min, max]
//           hybrid_refine      the PIVOTS pivots placed where the histogram's prefix crosses
//                              j * n / (PIVOTS + 1), linearly interpolated inside a bin
//   Fast:   hybrid_sample      a sample of s keys at jittered regular positions
//           hybrid_sort_runs   the sample's runs of CAPACITY keys sorted in shared memory
//           hybrid_merge_level one level of merging the sample's runs pairwise (global memory)
//           hybrid_pivots      every 32nd key of the sorted sample: the pivots
//   hybrid_count         bucket counts (warp-aggregated atomics)
//   hybrid_scan          exclusive prefix of the counts: bucket starts, and scatter cursors
//   hybrid_scatter       every key (and value) to its bucket in scratch (atomic cursors)
//   hybrid_sort_buckets  one block per bucket: the vector merge sort of the bucket, in shared
//                        memory when it fits (at most CAPACITY keys), else in global memory
//                        through scratch; writes the caller's buffers. Equality buckets skip.
//   hybrid_copy_equal    copies the equality buckets (all keys equal) to the caller's buffers,
//                        spread over all blocks by output position
//   hybrid_sort_small    an input of at most CAPACITY keys, sorted by one block in place
//
// Buckets follow cpu-reference's sample sort (`bucket_of`): with P pivots p_0 <= ... <= p_{P-1},
// a key k with i = #{pivots < k} goes to bucket 2i if p_i != k (keys strictly between p_{i-1}
// and p_i), else to an equality bucket (all its keys equal, never sorted): one of 2(i + j) + 1
// for the r pivots p_i .. p_{i+r-1} equal to k, chosen per warp segment, so that a frequent
// key's atomics spread over r counters. 2P + 1 buckets in all; the even ones between equal
// pivots stay empty.
//
// The vector merge sort (Sintorn and Assarsson; Inoue et al.'s AA-sort merge): 4-key vectors
// sorted by a bitonic network, then sorted lists merged pairwise, level by level, as vectors: two
// 4-vectors are merged by an 8-key bitonic merge network, the lower four are emitted and the upper
// four kept, and the next vector is loaded from the list whose head is smaller. Each thread merges
// a fixed range of outputs: the start of its range is found by a merge-path search (Green, McColl
// and Bader), so the top levels keep every thread busy (the paper gave one thread per list pair).
// Lists need not be multiples of 4: a read past a list's end yields the sentinel, which sorts
// after every element (the paper's padding with the greatest key, without storing it).
//
// Elements: ordered bits in the sort's order (flip_bits with Order::flip's word). With values
// every element also carries a tag (its position in its bucket after the scatter), compared
// after the bits, so elements are distinct, the sentinel (max bits, max tag) is above all of
// them, and the value is fetched once at the end by the tag. The scatter is unstable (atomic
// cursors), so the sort is unstable.
//
// Defines:
//   KEY_T, KEY_BITS_T, VALUE_T, HAS_VALUES   the shared vocabulary (key_defines.cuh)
//   SORT_THREADS     threads of the bucket sort blocks (a power of two)
//   CAPACITY         keys a block sorts in shared memory (a power of two, SORT_THREADS * 4 * 2^k)
//   SORT_SMEM_BYTES  dynamic shared memory of the sorting blocks: 2 * CAPACITY elements
//   SAMPLE_CAPACITY  keys of one sample run (CAPACITY elements of the element size)
//   THREADS          threads of the streaming kernels (count, scatter, minmax, ...)
//   ITEMS            keys per thread per segment of the count and scatter kernels
//   HIST_LOG2        log2 of the Paper histogram's bins
#include "sortlab/grid/grid_dependency.cuh"
#include "sortlab/thread/key_bits.cuh"
#include "sortlab/thread/key_defines.cuh"
#include "sortlab/thread/type_traits.cuh"

#ifndef SORT_THREADS
#define SORT_THREADS 256
#endif
#ifndef CAPACITY
#define CAPACITY 4096
#endif
#ifndef THREADS
#define THREADS 256
#endif
#ifndef ITEMS
#define ITEMS 16
#endif
#ifndef HIST_LOG2
#define HIST_LOG2 13
#endif
#define HIST_BINS (1u << HIST_LOG2)
// Outputs one thread merges per step of a level (a power of two, a multiple of 4).
#define PER_THREAD (CAPACITY / SORT_THREADS)
static_assert(PER_THREAD >= 4 && (PER_THREAD & (PER_THREAD - 1)) == 0, "CAPACITY / SORT_THREADS: a power of two >= 4");
#define SAMPLE_PER_THREAD PER_THREAD

typedef KEY_T Key;
typedef KEY_BITS_T Bits;
typedef VALUE_T Value;

// ---- Elements. ----

struct KElem {
    Bits k;
};
struct SPElem {
    Bits k;
    u32 t;
};
struct GPElem {
    Bits k;
    u64 t;
};
__device__ __forceinline__ bool lt(const KElem& a, const KElem& b) { return a.k < b.k; }
__device__ __forceinline__ bool lt(const SPElem& a, const SPElem& b) { return a.k < b.k || (a.k == b.k && a.t < b.t); }
__device__ __forceinline__ bool lt(const GPElem& a, const GPElem& b) { return a.k < b.k || (a.k == b.k && a.t < b.t); }
template <typename E>
__device__ __forceinline__ E sentinel();
template <>
__device__ __forceinline__ KElem sentinel<KElem>() {
    KElem e;
    e.k = sortlab::max_bits<Bits>();
    return e;
}
template <>
__device__ __forceinline__ SPElem sentinel<SPElem>() {
    SPElem e;
    e.k = sortlab::max_bits<Bits>();
    e.t = 0xffffffffu;
    return e;
}
template <>
__device__ __forceinline__ GPElem sentinel<GPElem>() {
    GPElem e;
    e.k = sortlab::max_bits<Bits>();
    e.t = ~(u64)0;
    return e;
}

#if HAS_VALUES
typedef SPElem SElem;  // in shared memory (tags < CAPACITY)
typedef GPElem GElem;  // in global memory (tags: positions in a bucket, u64)
#else
typedef KElem SElem;
typedef KElem GElem;
#endif

static_assert(sizeof(KElem) == sizeof(Bits), "keys alone: the scatter buffer of bits is the first element buffer");

// Shared memory of the sorting blocks: two buffers of CAPACITY shared elements, each padded by
// one slot per PER_THREAD elements (SORT_THREADS slots).
#define SORT_SLOTS (CAPACITY + SORT_THREADS)
#define SORT_SMEM_NEEDED (2 * SORT_SLOTS * (int)sizeof(SElem))
#ifdef SORT_SMEM_BYTES
static_assert(SORT_SMEM_NEEDED == SORT_SMEM_BYTES, "SORT_SMEM_BYTES must be the host's formula");
#else
#define SORT_SMEM_BYTES SORT_SMEM_NEEDED
#endif
static_assert(2 * SORT_SLOTS * sizeof(KElem) <= SORT_SMEM_BYTES, "the sample runs fit the same memory");

extern __shared__ __align__(16) unsigned char hybrid_smem[];

// ---- Vector networks. ----

template <typename E>
__device__ __forceinline__ void cas(E& a, E& b) {
    if (lt(b, a)) {
        E t = a;
        a = b;
        b = t;
    }
}

// Sorts 4 elements by the bitonic network: pairs in opposite directions (a bitonic sequence),
// then the half-cleaner and the pair cleaners.
template <typename E>
__device__ __forceinline__ void bitonic_sort4(E v[4]) {
    cas(v[0], v[1]);
    cas(v[3], v[2]);
    cas(v[0], v[2]);
    cas(v[1], v[3]);
    cas(v[0], v[1]);
    cas(v[2], v[3]);
}

// Merges the sorted 4-vectors a and b by the bitonic merge network: afterwards a holds the four
// smallest of the eight, b the four greatest, both sorted.
template <typename E>
__device__ __forceinline__ void bitonic_merge8(E a[4], E b[4]) {
    // a ascending and b reversed form a bitonic sequence; the first cleaner splits it.
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        if (lt(b[3 - i], a[i])) {
            E t = a[i];
            a[i] = b[3 - i];
            b[3 - i] = t;
        }
    }
    // Each half is bitonic: clean it.
    cas(a[0], a[2]);
    cas(a[1], a[3]);
    cas(a[0], a[1]);
    cas(a[2], a[3]);
    cas(b[0], b[2]);
    cas(b[1], b[3]);
    cas(b[0], b[1]);
    cas(b[2], b[3]);
}

// ---- Merging (any memory, index type I: u32 in shared memory, u64 in global memory). ----

// A list in memory: element i of it is base[slot(off + i)]. In shared memory (PAD = PER_THREAD)
// one slot is skipped after every PER_THREAD elements, so that the threads of a warp, which
// start their ranges PER_THREAD elements apart, start in distinct banks; in global memory (PAD
// = 0) slots are indices.
template <typename E, typename I, u32 PAD>
struct Run {
    E* base;
    I off;
    __device__ __forceinline__ I slot(I i) const {
        const I j = off + i;
        return PAD ? j + j / PAD : j;
    }
    __device__ __forceinline__ E get(I i) const { return base[slot(i)]; }
    __device__ __forceinline__ void put(I i, const E& e) const { base[slot(i)] = e; }
    __device__ __forceinline__ Run at(I d) const {
        Run r;
        r.base = base;
        r.off = off + d;
        return r;
    }
};
template <typename E, typename I, u32 PAD>
__device__ __forceinline__ Run<E, I, PAD> run_of(E* base) {
    Run<E, I, PAD> r;
    r.base = base;
    r.off = 0;
    return r;
}
// The shared slot of element i of a padded shared buffer.
__device__ __forceinline__ u32 sslot(u32 i) { return i + i / PER_THREAD; }
typedef Run<SElem, u32, PER_THREAD> SRun;
typedef Run<KElem, u32, PER_THREAD> KRun;
typedef Run<GElem, u64, 0> GRun;
typedef Run<KElem, u64, 0> KGRun;

template <typename R, typename I>
__device__ __forceinline__ auto at_or_sentinel(const R& r, I i, I len) -> decltype(r.get(i)) {
    typedef decltype(r.get(i)) E;
    return i < len ? r.get(i) : sentinel<E>();
}

template <typename R, typename I, typename E>
__device__ __forceinline__ void load4(const R& r, I i, I len, E v[4]) {
#pragma unroll
    for (int k = 0; k < 4; ++k) v[k] = at_or_sentinel(r, i + (I)k, len);
}

// The number of elements of a among the first `diag` outputs of the merge of a and b (ties from
// a; elements with values are distinct anyway).
template <typename R, typename I>
__device__ __forceinline__ I merge_path(const R& a, I na, const R& b, I nb, I diag) {
    I lo = diag > nb ? diag - nb : 0;
    I hi = diag < na ? diag : na;
    while (lo < hi) {
        const I mid = lo + ((hi - lo) >> 1);
        if (lt(b.get(diag - 1 - mid), a.get(mid))) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

// Writes outputs [d0, d0 + count) of the merge of the sorted lists a (na) and b (nb) to out[0 ..
// count), by the vector merge: two vectors merged by the 8-key network, the lower half emitted,
// the next vector taken from the list whose head is smaller.
template <typename R, typename I>
__device__ __forceinline__ void vector_merge(R a, I na, R b, I nb, I d0, I count, const R& out) {
    typedef decltype(a.get(0)) E;
    if (count == 0) return;
    const I sa = merge_path(a, na, b, nb, d0);
    a = a.at(sa);
    na -= sa;
    const I sb = d0 - sa;
    b = b.at(sb);
    nb -= sb;
    E lo[4], hi[4];
    load4(a, (I)0, na, lo);
    load4(b, (I)0, nb, hi);
    I ia = 4, ib = 4;
    for (I o = 0;;) {
        bitonic_merge8(lo, hi);
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            if (o + (I)k < count) out.put(o + (I)k, lo[k]);
        }
        o += 4;
        if (o >= count) break;
        const E ha = at_or_sentinel(a, ia, na);
        const E hb = at_or_sentinel(b, ib, nb);
        if (lt(hb, ha)) {
            load4(b, ib, nb, lo);
            ib += 4;
        } else {
            load4(a, ia, na, lo);
            ia += 4;
        }
    }
}

// Outputs [lo, hi) of one merge level over src[0 .. len) in sorted lists of `width` (a power of
// two >= 4), written to dst: lo is a multiple of hi - lo (a power of two), so the range either
// holds whole pairs of lists or lies inside one pair.
template <typename R, typename I>
__device__ __forceinline__ void merge_level_range(const R& src, const R& dst, I len, I width, I lo, I hi) {
    if (hi > len) hi = len;
    for (I start = lo; start < hi;) {
        const I pair = start & ~(2 * width - 1);
        const I na = len - pair < width ? len - pair : width;
        const I rest = len - pair - na;
        const I nb = rest < width ? rest : width;
        const I pair_end = pair + na + nb;
        const I end = hi < pair_end ? hi : pair_end;
        const R a = src.at(pair);
        vector_merge(a, na, a.at(na), nb, start - pair, end - start, dst.at(start));
        start = end;
    }
}

// The 4-vectors of [lo, hi) of buf (lo a multiple of 4) each sorted by the bitonic network.
template <typename R, typename I>
__device__ __forceinline__ void sort_vectors(const R& buf, I len, I lo, I hi) {
    typedef decltype(buf.get(0)) E;
    if (hi > len) hi = len;
    for (I v = lo; v < hi; v += 4) {
        E x[4];
        load4(buf, v, len, x);
        bitonic_sort4(x);
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            if (v + (I)k < len) buf.put(v + (I)k, x[k]);
        }
    }
}

// The vector merge sort of the padded shared buffer buf0 (len <= CAPACITY elements, element i
// at sslot(i)) by one block of SORT_THREADS, with buf1 as the second buffer; returns the buffer
// that holds the result. Each thread owns the same range of outputs in every level.
template <typename E>
__device__ E* block_vector_sort(E* buf0, E* buf1, u32 len) {
    typedef Run<E, u32, PER_THREAD> R;
    // Outputs per thread: PER_THREAD, halved while the block still covers len (fast buckets
    // hold about half the capacity: every thread then works).
    u32 per = PER_THREAD;
    while (per > 4 && (per / 2) * SORT_THREADS >= len) per /= 2;
    const u32 lo = threadIdx.x * per;
    sort_vectors(run_of<E, u32, PER_THREAD>(buf0), len, lo, lo + per);
    __syncthreads();
    E* src = buf0;
    E* dst = buf1;
    for (u32 width = 4; width < len; width *= 2) {
        const R s = run_of<E, u32, PER_THREAD>(src);
        const R d = run_of<E, u32, PER_THREAD>(dst);
        merge_level_range(s, d, len, width, lo, lo + per);
        __syncthreads();
        E* t = src;
        src = dst;
        dst = t;
    }
    return src;
}

// The same in global memory by one block, for a bucket of any length: each thread merges
// PER_THREAD outputs at a time, striding by the block. Returns the buffer holding the result.
__device__ GElem* block_vector_sort_global(GElem* buf0, GElem* buf1, u64 len) {
    const u64 stride = (u64)SORT_THREADS * PER_THREAD;
    const GRun r0 = run_of<GElem, u64, 0>(buf0);
    for (u64 lo = (u64)threadIdx.x * PER_THREAD; lo < len; lo += stride) sort_vectors(r0, len, lo, lo + PER_THREAD);
    __syncthreads();
    GElem* src = buf0;
    GElem* dst = buf1;
    for (u64 width = 4; width < len; width *= 2) {
        const GRun s = run_of<GElem, u64, 0>(src);
        const GRun d = run_of<GElem, u64, 0>(dst);
        for (u64 lo = (u64)threadIdx.x * PER_THREAD; lo < len; lo += stride) {
            merge_level_range(s, d, len, width, lo, lo + PER_THREAD);
        }
        __syncthreads();
        GElem* t = src;
        src = dst;
        dst = t;
    }
    return src;
}

// ---- Small warp helpers. ----

__device__ __forceinline__ u32 lane_id() { return threadIdx.x & 31; }
__device__ __forceinline__ u32 lanes_below() { return (1u << lane_id()) - 1; }

// ---- Counters. ----

// words[0 .. count) = 0. Grid-strided.
extern "C" __global__ void __launch_bounds__(THREADS) hybrid_clear(u64* words, u64 count) {
    sortlab::dependent_entry();
    const u64 stride = (u64)gridDim.x * THREADS;
    for (u64 i = (u64)blockIdx.x * THREADS + threadIdx.x; i < count; i += stride) words[i] = 0;
}

// ---- Paper: pivots from min/max and a refined histogram. ----

// minmax[0] = max bits, minmax[1] = ~min bits (both by atomicMax from zero). Grid-strided.
extern "C" __global__ void __launch_bounds__(THREADS) hybrid_minmax(const Key* keys, u64 n, Bits flip, u64* minmax) {
    sortlab::dependent_entry();
    u64 hi = 0, nlo = 0;
    const u64 stride = (u64)gridDim.x * THREADS;
    for (u64 i = (u64)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride) {
        const u64 b = (u64)sortlab::flip_bits(keys[i], flip);
        hi = b > hi ? b : hi;
        nlo = ~b > nlo ? ~b : nlo;
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const u64 h = __shfl_xor_sync(0xffffffffu, hi, o);
        const u64 l = __shfl_xor_sync(0xffffffffu, nlo, o);
        hi = h > hi ? h : hi;
        nlo = l > nlo ? l : nlo;
    }
    if (lane_id() == 0) {
        atomicMax(&minmax[0], hi);
        atomicMax(&minmax[1], nlo);
    }
}

// The histogram's bin width: 2^shift, the smallest power of two that puts [min, max] into
// HIST_BINS bins.
__device__ __forceinline__ u32 hist_shift(u64 range) {
    const u32 bits = range == 0 ? 0 : 64 - __clzll((long long)range);
    return bits > HIST_LOG2 ? bits - HIST_LOG2 : 0;
}
__device__ __forceinline__ u64 min_of(const u64* minmax) {
    u64 m = ~minmax[1];
    if (sizeof(Bits) == 4) m &= 0xffffffffull;
    return m;
}

// hist[bin of key] += 1 for every key (bins of 2^shift ordered bits from min). Shared counters
// per block, then one global atomic per non-empty bin. Grid-strided.
extern "C" __global__ void __launch_bounds__(THREADS)
hybrid_histogram(const Key* keys, u64 n, Bits flip, const u64* minmax, u64* hist) {
    sortlab::dependent_entry();
    __shared__ u32 local[HIST_BINS];
    for (u32 i = threadIdx.x; i < HIST_BINS; i += THREADS) local[i] = 0;
    __syncthreads();
    const u64 lo = min_of(minmax);
    const u32 shift = hist_shift(minmax[0] - lo);
    const u64 stride = (u64)gridDim.x * THREADS;
    for (u64 i = (u64)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride) {
        const u64 b = (u64)sortlab::flip_bits(keys[i], flip);
        atomicAdd(&local[(u32)((b - lo) >> shift)], 1u);
    }
    __syncthreads();
    for (u32 i = threadIdx.x; i < HIST_BINS; i += THREADS) {
        if (local[i] != 0) atomicAdd(&hist[i], (u64)local[i]);
    }
}

// Block-wide exclusive prefix of one u64 per thread (THREADS threads); total in *total.
__device__ u64 block_exclusive_sum(u64 x, u64* total) {
    __shared__ u64 warp_sums[THREADS / 32];
    const u32 lane = lane_id(), warp = threadIdx.x / 32;
    u64 inc = x;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const u64 y = __shfl_up_sync(0xffffffffu, inc, o);
        if (lane >= (u32)o) inc += y;
    }
    if (lane == 31) warp_sums[warp] = inc;
    __syncthreads();
    u64 before = 0, all = 0;
    for (u32 w = 0; w < THREADS / 32; ++w) {
        if (w < warp) before += warp_sums[w];
        all += warp_sums[w];
    }
    __syncthreads();
    *total = all;
    return before + inc - x;
}

// One block of THREADS: the histogram's inclusive prefix (in place), then pivot j (0 <= j <
// npivots) at the key rank (j + 1) * n / (npivots + 1): the first bin whose prefix passes the
// rank, and inside it the linear interpolation of the rank between the bin's bounds (the
// paper's refinement, with one fine histogram instead of iterations).
extern "C" __global__ void __launch_bounds__(THREADS)
hybrid_refine(u64 n, const u64* minmax, u64* hist, u32 npivots, Bits* pivots) {
    sortlab::dependent_entry();
    constexpr u32 per = HIST_BINS / THREADS;
    static_assert(HIST_BINS % THREADS == 0, "bins divide among threads");
    const u32 first = threadIdx.x * per;
    u64 sum = 0;
    for (u32 i = 0; i < per; ++i) sum += hist[first + i];
    u64 total;
    u64 run = block_exclusive_sum(sum, &total);
    __syncthreads();
    for (u32 i = 0; i < per; ++i) {
        run += hist[first + i];
        hist[first + i] = run;
    }
    __threadfence_block();
    __syncthreads();
    const u64 lo = min_of(minmax);
    const u64 hi = minmax[0];
    const u32 shift = hist_shift(hi - lo);
    const u64 width = (u64)1 << shift;
    for (u32 j = threadIdx.x; j < npivots; j += THREADS) {
        const u64 rank = (u64)((double)(j + 1) * (double)n / (double)(npivots + 1));
        // First bin with prefix > rank.
        u32 a = 0, b = HIST_BINS - 1;
        while (a < b) {
            const u32 m = (a + b) / 2;
            if (hist[m] > rank) {
                b = m;
            } else {
                a = m + 1;
            }
        }
        const u64 before = a == 0 ? 0 : hist[a - 1];
        const u64 in_bin = hist[a] - before;
        const double frac = in_bin == 0 ? 0.0 : (double)(rank - before) / (double)in_bin;
        u64 off = (u64)(frac * (double)width);
        if (off >= width) off = width - 1;
        u64 p = lo + ((u64)a << shift) + off;
        if (p > hi || p < lo) p = hi;
        pivots[j] = (Bits)p;
    }
}

// ---- Fast: a sorted sample. ----

__device__ __forceinline__ u64 mix64(u64 x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// sample[i] = the ordered bits of the key at a jittered regular position: i * n / s plus a hash
// of i below n / s (no periodic input lines up with it). Grid-strided.
extern "C" __global__ void __launch_bounds__(THREADS)
hybrid_sample(const Key* keys, u64 n, Bits flip, Bits* sample, u64 s) {
    sortlab::dependent_entry();
    const u64 step = n / s;
    const u64 stride = (u64)gridDim.x * THREADS;
    for (u64 i = (u64)blockIdx.x * THREADS + threadIdx.x; i < s; i += stride) {
        const u64 pos = i * step + (step > 1 ? mix64(i) % step : 0);
        sample[i] = sortlab::flip_bits(keys[pos], flip);
    }
}

// Every run [r * CAPACITY, ...) of the sample sorted in shared memory, in place. Grid-strided
// over runs.
extern "C" __global__ void __launch_bounds__(SORT_THREADS)
hybrid_sort_runs(Bits* sample, u64 s, u32 smem_bytes) {
    sortlab::dependent_entry();
    if (smem_bytes < (u32)SORT_SMEM_BYTES) __trap();
    KElem* buf0 = reinterpret_cast<KElem*>(hybrid_smem);
    KElem* buf1 = buf0 + SORT_SLOTS;
    const u64 runs = (s + CAPACITY - 1) / CAPACITY;
    for (u64 r = blockIdx.x; r < runs; r += gridDim.x) {
        const u64 base = r * CAPACITY;
        const u32 len = s - base < CAPACITY ? (u32)(s - base) : CAPACITY;
        for (u32 i = threadIdx.x; i < len; i += SORT_THREADS) buf0[sslot(i)].k = sample[base + i];
        __syncthreads();
        KElem* res = block_vector_sort(buf0, buf1, len);
        for (u32 i = threadIdx.x; i < len; i += SORT_THREADS) sample[base + i] = res[sslot(i)].k;
        __syncthreads();
    }
}

// One level of the sample's merge sort: lists of `width` in src merged pairwise into dst, every
// thread PER_THREAD outputs. Grid-strided.
extern "C" __global__ void __launch_bounds__(SORT_THREADS)
hybrid_merge_level(const Bits* src, Bits* dst, u64 s, u64 width) {
    sortlab::dependent_entry();
    const KGRun a = run_of<KElem, u64, 0>(reinterpret_cast<KElem*>(const_cast<Bits*>(src)));
    const KGRun d = run_of<KElem, u64, 0>(reinterpret_cast<KElem*>(dst));
    const u64 stride = (u64)gridDim.x * SORT_THREADS * PER_THREAD;
    for (u64 lo = ((u64)blockIdx.x * SORT_THREADS + threadIdx.x) * PER_THREAD; lo < s; lo += stride) {
        merge_level_range(a, d, s, width, lo, lo + PER_THREAD);
    }
}

// ---- Buckets. ----

// The pivots: p_j = pivots[j], j < npivots, and in shared memory every `group`-th of them,
// coarse[c] = pivots[c * group] for c < ncoarse (ncoarse <= COARSE_MAX): a bucket lookup
// searches the coarse pivots in shared memory, then at most group - 1 pivots in global memory.
#ifndef COARSE_MAX
#define COARSE_MAX 2048
#endif
struct Pivots {
    const Bits* all;
    u32 count;
    u32 group;
    u32 ncoarse;
    const Bits* coarse;
};

// Loads the coarse pivots into `coarse` (COARSE_MAX slots of shared memory); every thread of the
// block calls it.
__device__ __forceinline__ Pivots load_pivots(const Bits* pivots, u32 npivots, Bits* coarse) {
    Pivots p;
    p.all = pivots;
    p.count = npivots;
    p.group = (npivots + COARSE_MAX - 1) / COARSE_MAX;
    if (p.group < 16) p.group = 16;
    p.ncoarse = (npivots + p.group - 1) / p.group;
    for (u32 c = threadIdx.x; c < p.ncoarse; c += blockDim.x) coarse[c] = pivots[(u64)c * p.group];
    __syncthreads();
    p.coarse = coarse;
    return p;
}

// #{pivots < b} (or_equal: #{pivots <= b}): the coarse pivots in shared memory narrow the
// search to at most group - 1 pivots, searched in global memory.
__device__ __forceinline__ u32 pivot_rank(Bits b, const Pivots& p, bool or_equal) {
    // c = #{coarse before b}: then p_{(c - 1) * group} is before b and p_{c * group} is not.
    u32 lo = 0, hi = p.ncoarse;
    while (lo < hi) {
        const u32 mid = (lo + hi) >> 1;
        const Bits x = p.coarse[mid];
        if (x < b || (or_equal && x == b)) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    const u32 c = lo;
    lo = c > 0 ? (c - 1) * p.group + 1 : 0;
    hi = c * p.group < p.count ? c * p.group : p.count;
    while (lo < hi) {
        const u32 mid = (lo + hi) >> 1;
        const Bits x = p.all[mid];
        if (x < b || (or_equal && x == b)) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// The bucket of ordered bits b, read in warp segment `seg` (cpu-reference's `bucket_of`, with
// repeated pivots put to use): i = #{pivots < b}; 2i if p_i != b. If b equals the r pivots p_i
// .. p_{i+r-1}, it goes to one of their r equality buckets 2(i + j) + 1, j picked by a hash of
// the segment: a frequent key (few distinct keys, all equal) spreads its atomics over r
// counters instead of one, and a whole segment of it still shares one bucket. The count and
// the scatter read the same segments, so they agree.
__device__ __forceinline__ u32 bucket_of(Bits b, const Pivots& p, u64 seg) {
    const u32 i = pivot_rank(b, p, false);
    if (i >= p.count || p.all[i] != b) return 2 * i;
    const u32 r = pivot_rank(b, p, true) - i;
    const u32 j = __umulhi((u32)seg * 2654435761u, r);
    return 2 * (i + j) + 1;
}

// Fast: pivots[j] = sample[(j + 1) * stride], j < count (the sorted sample's regular picks,
// dense so that lookups share cache lines). Grid-strided.
extern "C" __global__ void __launch_bounds__(THREADS)
hybrid_pivots(const Bits* sample, u32 stride, u32 count, Bits* pivots) {
    sortlab::dependent_entry();
    for (u64 j = (u64)blockIdx.x * THREADS + threadIdx.x; j < count; j += (u64)gridDim.x * THREADS) {
        pivots[j] = sample[(j + 1) * stride];
    }
}

// Segments of 32 * ITEMS consecutive keys, one per warp at a time: key k of a lane is at
// segment + k * 32 + lane (coalesced). A segment whose keys all fall in one bucket (sorted and
// equal inputs, mostly) costs one atomic; otherwise lanes of equal bucket share one atomic per
// step (__match_any_sync).
#define SEGMENT (32 * ITEMS)
#define NO_BUCKET 0xffffffffu

// counts[bucket] = keys in the bucket. Grid-strided over segments.
extern "C" __global__ void __launch_bounds__(THREADS)
hybrid_count(const Key* keys, u64 n, Bits flip, const Bits* pivots, u32 npivots, u64* counts) {
    sortlab::dependent_entry();
    __shared__ Bits coarse[COARSE_MAX];
    const Pivots piv = load_pivots(pivots, npivots, coarse);
    const u64 segments = (n + SEGMENT - 1) / SEGMENT;
    const u64 warps = (u64)gridDim.x * (THREADS / 32);
    const u32 lane = lane_id();
    for (u64 seg = (u64)blockIdx.x * (THREADS / 32) + threadIdx.x / 32; seg < segments; seg += warps) {
        const u64 base = seg * SEGMENT;
        u32 b[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const u64 i = base + (u64)k * 32 + lane;
            b[k] = i < n ? bucket_of(sortlab::flip_bits(keys[i], flip), piv, seg) : NO_BUCKET;
        }
        const u32 b0 = __shfl_sync(0xffffffffu, b[0], 0);
        bool same = true;
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) same = same && (b[k] == b0 || b[k] == NO_BUCKET);
        if (__all_sync(0xffffffffu, same)) {
            if (lane == 0) {
                const u64 left = n - base;
                atomicAdd(&counts[b0], left < SEGMENT ? left : (u64)SEGMENT);
            }
            continue;
        }
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const u32 peers = __match_any_sync(0xffffffffu, b[k]);
            if (b[k] != NO_BUCKET && (peers & lanes_below()) == 0) atomicAdd(&counts[b[k]], (u64)__popc(peers));
        }
    }
}

// One block of THREADS: starts[b] = keys in buckets before b (starts[nb] = n) and cursors[b] =
// starts[b], for nb buckets. Each thread owns a contiguous range of buckets.
extern "C" __global__ void __launch_bounds__(THREADS)
hybrid_scan(const u64* counts, u64 nb, u64* starts, u64* cursors) {
    sortlab::dependent_entry();
    const u64 per = (nb + THREADS - 1) / THREADS;
    const u64 first = threadIdx.x * per;
    const u64 last = first + per < nb ? first + per : nb;
    u64 sum = 0;
    for (u64 i = first; i < last; ++i) sum += counts[i];
    u64 total;
    u64 run = block_exclusive_sum(sum, &total);
    for (u64 i = first; i < last; ++i) {
        starts[i] = run;
        cursors[i] = run;
        run += counts[i];
    }
    if (threadIdx.x == 0) starts[nb] = total;
}

// Every key's ordered bits to out[cursor of its bucket++] (and its value to out_values at the
// same position). Grid-strided over segments.
extern "C" __global__ void __launch_bounds__(THREADS)
hybrid_scatter(const Key* keys, const Value* values, u64 n, Bits flip, const Bits* pivots, u32 npivots,
               u64* cursors, Bits* out, Value* out_values) {
    sortlab::dependent_entry();
    __shared__ Bits coarse[COARSE_MAX];
    const Pivots piv = load_pivots(pivots, npivots, coarse);
    const u64 segments = (n + SEGMENT - 1) / SEGMENT;
    const u64 warps = (u64)gridDim.x * (THREADS / 32);
    const u32 lane = lane_id();
#if !HAS_VALUES
    (void)values;
    (void)out_values;
#endif
    for (u64 seg = (u64)blockIdx.x * (THREADS / 32) + threadIdx.x / 32; seg < segments; seg += warps) {
        const u64 base = seg * SEGMENT;
        Bits kb[ITEMS];
        u32 b[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const u64 i = base + (u64)k * 32 + lane;
            kb[k] = i < n ? sortlab::flip_bits(keys[i], flip) : sortlab::max_bits<Bits>();
            b[k] = i < n ? bucket_of(kb[k], piv, seg) : NO_BUCKET;
        }
        const u32 b0 = __shfl_sync(0xffffffffu, b[0], 0);
        bool same = true;
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) same = same && (b[k] == b0 || b[k] == NO_BUCKET);
        if (__all_sync(0xffffffffu, same)) {
            // One reservation for the segment; key k of this lane goes to its segment offset.
            u64 pos = 0;
            if (lane == 0) {
                const u64 left = n - base;
                pos = atomicAdd(&cursors[b0], left < SEGMENT ? left : (u64)SEGMENT);
            }
            pos = __shfl_sync(0xffffffffu, pos, 0);
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) {
                if (b[k] == NO_BUCKET) continue;
                const u64 at = pos + (u64)k * 32 + lane;
                out[at] = kb[k];
#if HAS_VALUES
                out_values[at] = values[base + (u64)k * 32 + lane];
#endif
            }
            continue;
        }
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const u32 peers = __match_any_sync(0xffffffffu, b[k]);
            const u32 leader = __ffs(peers) - 1;
            u64 pos = 0;
            if (b[k] != NO_BUCKET && lane == leader) pos = atomicAdd(&cursors[b[k]], (u64)__popc(peers));
            pos = __shfl_sync(0xffffffffu, pos, leader);
            if (b[k] != NO_BUCKET) {
                const u64 at = pos + __popc(peers & lanes_below());
                out[at] = kb[k];
#if HAS_VALUES
                out_values[at] = values[base + (u64)k * 32 + lane];
#endif
            }
        }
    }
}

// Element i of a sorted bucket (at `start` in the scatter buffers) to the caller's position
// start + i: the key from its bits, the value by its tag.
__device__ __forceinline__ void write_out(u64 start, u64 i, Bits k, u64 tag, const Value* scattered_values, Key* keys,
                                          Value* values, Bits flip) {
    keys[start + i] = sortlab::key_from_flipped_bits<Key>(k, flip);
#if HAS_VALUES
    values[start + i] = scattered_values[start + tag];
#else
    (void)tag;
    (void)scattered_values;
    (void)values;
#endif
}

// One block per bucket (the grid is exact): bucket b in scat[starts[b] .. starts[b + 1]) sorted
// into the caller's keys and values at the same positions. Equality buckets (odd b) are left to
// hybrid_copy_equal. A bucket of at most CAPACITY keys is sorted in shared memory; a larger one
// (pivots could not split it) by the vector merge sort in global memory, between g0 and g1 (with
// values: element i of the bucket first copied to g0 with its tag i; keys alone: g0 is scat).
// An element's tag is its position in the bucket after the scatter, where its value is.
extern "C" __global__ void __launch_bounds__(SORT_THREADS)
hybrid_sort_buckets(Bits* scat, GElem* g0, GElem* g1, const Value* scat_values, const u64* starts, Key* keys,
                    Value* values, Bits flip, u32 smem_bytes) {
    sortlab::dependent_entry();
    if (smem_bytes < (u32)SORT_SMEM_BYTES) __trap();
    const u64 b = blockIdx.x;
    if (b & 1) return;
    const u64 start = starts[b];
    const u64 len = starts[b + 1] - start;
    if (len == 0) return;
    if (len <= CAPACITY) {
        SElem* buf0 = reinterpret_cast<SElem*>(hybrid_smem);
        SElem* buf1 = buf0 + SORT_SLOTS;
        const u32 m = (u32)len;
        for (u32 i = threadIdx.x; i < m; i += SORT_THREADS) {
            SElem e;
            e.k = scat[start + i];
#if HAS_VALUES
            e.t = i;
#endif
            buf0[sslot(i)] = e;
        }
        __syncthreads();
        const SElem* res = block_vector_sort(buf0, buf1, m);
        for (u32 i = threadIdx.x; i < m; i += SORT_THREADS) {
            const SElem e = res[sslot(i)];
#if HAS_VALUES
            write_out(start, i, e.k, e.t, scat_values, keys, values, flip);
#else
            write_out(start, i, e.k, 0, scat_values, keys, values, flip);
#endif
        }
        return;
    }
#if HAS_VALUES
    GElem* first = g0 + start;
    for (u64 i = threadIdx.x; i < len; i += SORT_THREADS) {
        GElem e;
        e.k = scat[start + i];
        e.t = i;
        first[i] = e;
    }
    __syncthreads();
#else
    (void)g0;
    GElem* first = reinterpret_cast<GElem*>(scat) + start;
#endif
    const GElem* res = block_vector_sort_global(first, g1 + start, len);
    for (u64 i = threadIdx.x; i < len; i += SORT_THREADS) {
        const GElem e = res[i];
#if HAS_VALUES
        write_out(start, i, e.k, e.t, scat_values, keys, values, flip);
#else
        write_out(start, i, e.k, 0, scat_values, keys, values, flip);
#endif
    }
}

// Output positions [t * CHUNK, (t + 1) * CHUNK) per block t (the grid is exact): every part of
// them inside an equality bucket copied from the scatter buffers to the caller's. The block walks
// the buckets that overlap its chunk, from the last bucket starting at or before the chunk.
#define CHUNK (THREADS * ITEMS)
extern "C" __global__ void __launch_bounds__(THREADS)
hybrid_copy_equal(const Bits* scat, const Value* scat_values, const u64* starts, u64 nb, u64 n, Key* keys,
                  Value* values, Bits flip) {
    sortlab::dependent_entry();
    const u64 c0 = (u64)blockIdx.x * CHUNK;
    const u64 c1 = c0 + CHUNK < n ? c0 + CHUNK : n;
    // The last bucket b with starts[b] <= c0.
    u64 lo = 0, hi = nb;
    while (hi - lo > 1) {
        const u64 mid = (lo + hi) >> 1;
        if (starts[mid] <= c0) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    for (u64 b = lo; b < nb; ++b) {
        const u64 s = starts[b];
        if (s >= c1) break;
        if ((b & 1) == 0) continue;
        const u64 e = starts[b + 1];
        const u64 from = s > c0 ? s : c0;
        const u64 to = e < c1 ? e : c1;
        for (u64 i = from + threadIdx.x; i < to; i += THREADS) {
            keys[i] = sortlab::key_from_flipped_bits<Key>(scat[i], flip);
#if HAS_VALUES
            values[i] = scat_values[i];
#endif
        }
    }
#if !HAS_VALUES
    (void)scat_values;
    (void)values;
#endif
}

// An input of at most CAPACITY keys sorted by one block, in place.
extern "C" __global__ void __launch_bounds__(SORT_THREADS)
hybrid_sort_small(Key* keys, Value* values, u32 n, Bits flip, u32 smem_bytes) {
    sortlab::dependent_entry();
    if (smem_bytes < (u32)SORT_SMEM_BYTES) __trap();
    if (n > CAPACITY) __trap();
    SElem* buf0 = reinterpret_cast<SElem*>(hybrid_smem);
    SElem* buf1 = buf0 + SORT_SLOTS;
    for (u32 i = threadIdx.x; i < n; i += SORT_THREADS) {
        SElem e;
        e.k = sortlab::flip_bits(keys[i], flip);
#if HAS_VALUES
        e.t = i;
#endif
        buf0[sslot(i)] = e;
    }
    __syncthreads();
#if HAS_VALUES
    // The values, by tag, after everyone has read them.
    const SElem* res = block_vector_sort(buf0, buf1, n);
    Value v[PER_THREAD];
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        const u32 i = k * SORT_THREADS + threadIdx.x;
        if (i < n) v[k] = values[res[sslot(i)].t];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        const u32 i = k * SORT_THREADS + threadIdx.x;
        if (i < n) {
            keys[i] = sortlab::key_from_flipped_bits<Key>(res[sslot(i)].k, flip);
            values[i] = v[k];
        }
    }
#else
    (void)values;
    const SElem* res = block_vector_sort(buf0, buf1, n);
    for (u32 i = threadIdx.x; i < n; i += SORT_THREADS) keys[i] = sortlab::key_from_flipped_bits<Key>(res[sslot(i)].k, flip);
#endif
}
