// radius.cu: the radius of a key array (roughsort), and whether it is k-sorted.
//
// The radius is max_i (i - j_i), j_i the first j with LR[j] > RL[i] (LR the prefix maxima, RL
// the suffix minima, both non-decreasing), or 0. In the ascending merge of LR (A) and RL (B),
// ties taking from A first, B[i] comes out after exactly j_i elements of A: every j_i is a
// merge-path rank.
//
// The one-pass form uses, instead of RL, the suffix minima *within each tile* (RLt >= RL). That
// changes single d_i but not their maximum: d_i computed from RLt[i] = a[m] (m >= i in the tile)
// is the distance i - j of some pair j <= i <= m with a[j] > a[m], so at most the radius; and
// at the right end q of a pair realising the radius, a[q] is the true suffix minimum (a later
// smaller key would give a longer pair), so RLt[q] = RL[q] and d_q is the radius.
//
// The kernels:
//   chunk_extremes   per chunk of CHUNK keys: the largest and the smallest rank, as keys (the
//                    host scans the largest into PM, the exclusive prefix maxima per chunk, with
//                    sortlab-primitives' scan; the smallest into SM only in the far case)
//   radius_near      per tile: RLt over the tile, LR over the tile and back to the first chunk
//                    whose prefix maximum exceeds the tile's smallest RLt (found from PM, at most
//                    HALO keys back), the merge of the two in shared memory, max (i - j_i) ->
//                    atomicMax; raises the `far` flag if that chunk lies further back (then some
//                    inversion spans more than HALO keys)
//   materialize      (far case) LR and RL of the whole array, as ranks
//   merge_partition  (far case) merge-path splits of LR and RL at every TILE-th diagonal
//   merge_radius     (far case) the merge of LR and RL in tiles: max (i - j_i) -> atomicMax
//   k_sorted_check   per tile: a[j] against LR[j - k - 1] for every j of the tile -> flag
//
// Defines:
//   KEY_T             the key's CUDA type
//   BLOCK_THREADS     threads per block: a power of two from 32 to 1024
//   ITEMS_PER_THREAD  keys per thread; TILE = BLOCK_THREADS * ITEMS_PER_THREAD keys per tile
//   CHUNK_ITEMS       keys per lane of a chunk; CHUNK = 32 * CHUNK_ITEMS keys (divides TILE)
//
// Order: every kernel takes `flip`, 0 for ascending, all ones for descending; a key's rank is
// its ordered bits (sortlab/thread/key_bits.cuh) xor flip, and kernels compare ranks only.
// Indices into the arrays are 64-bit; indices inside a tile are 32-bit.
#include "sortlab/thread/key_bits.cuh"
#include "sortlab/warp/operators.cuh"
#include "sortlab/warp/warp_reduce.cuh"
#include "sortlab/block/block_reduce.cuh"
#include "sortlab/block/block_scan.cuh"

#ifndef KEY_T
#define KEY_T unsigned int
#endif
#ifndef BLOCK_THREADS
#define BLOCK_THREADS 256
#endif
#ifndef ITEMS_PER_THREAD
#define ITEMS_PER_THREAD 16
#endif
#ifndef CHUNK_ITEMS
#define CHUNK_ITEMS 8
#endif

#define TILE (BLOCK_THREADS * ITEMS_PER_THREAD)
#define CHUNK (32 * CHUNK_ITEMS)
// How far back radius_near looks for the first key that exceeds a tile's smallest suffix
// minimum: one tile (so radii up to TILE are found in one pass).
#define HALO TILE
// radius_near: resident blocks per SM the registers are capped for (4 x 256 threads: 64
// registers a thread).
#ifndef NEAR_MIN_BLOCKS
#define NEAR_MIN_BLOCKS 4
#endif
// radius_near's search for j_i steps forward this many times before it bisects.
#define LINEAR_STEPS 8
static_assert(TILE % CHUNK == 0, "CHUNK must divide TILE");
static_assert((HALO + TILE) / CHUNK <= 32, "radius_near searches at most 32 chunks with one warp");

typedef sortlab::KeyBits<KEY_T> Map;
typedef Map::Bits Bits;
typedef sortlab::BlockScan<Bits, BLOCK_THREADS> BlockScanT;
typedef sortlab::BlockReduce<u64, BLOCK_THREADS> BlockReduceU64;

// Shared memory has 32 banks of 4 bytes (a hardware constant): one slot of padding per 32
// four-byte words (16 eight-byte words) keeps blocked accesses free of bank conflicts.
#define PAD_SHIFT (sizeof(Bits) == 4 ? 5 : 4)
__device__ __forceinline__ u32 pad(u32 i) { return i + (i >> PAD_SHIFT); }
// Shared-memory words an array of `len` padded elements needs.
#define PADDED(len) ((len) + ((len) >> PAD_SHIFT))

__device__ __forceinline__ Bits rank_of(KEY_T k, Bits flip) { return Map::to_bits(k) ^ flip; }
__device__ __forceinline__ KEY_T key_of(Bits r, Bits flip) { return Map::from_bits(r ^ flip); }
__device__ __forceinline__ Bits lowest_rank() { return (Bits)0; }
__device__ __forceinline__ Bits highest_rank() { return (Bits)~(Bits)0; }

// Inclusive scan with `op` of the padded shared array s[0 .. len), in place, starting from
// `carry` (forward: s[i] = op(carry, s[0], ..., s[i]); reverse: s[i] = op(carry, s[i], ...,
// s[len - 1])). Rounds of TILE elements, each thread scanning ITEMS_PER_THREAD consecutive ones
// in registers. Every thread calls; ends with __syncthreads().
template <bool Reverse, typename Op>
__device__ __forceinline__ void block_scan_inplace(Bits* s, u32 len, Bits carry, Bits identity, Op op,
                                                   typename BlockScanT::TempStorage& tmp) {
    for (u32 base = 0; base < len; base += TILE) {
        const u32 l0 = base + threadIdx.x * ITEMS_PER_THREAD;
        Bits x[ITEMS_PER_THREAD];
        Bits acc = identity;
#pragma unroll
        for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
            const u32 l = l0 + k;
            if (l < len) acc = op(acc, s[pad(Reverse ? len - 1 - l : l)]);
            x[k] = acc;
        }
        Bits block_total;
        const Bits prefix = BlockScanT::exclusive_scan(acc, identity, op, block_total, tmp);
        const Bits run = op(carry, prefix);
#pragma unroll
        for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
            const u32 l = l0 + k;
            if (l < len) s[pad(Reverse ? len - 1 - l : l)] = op(run, x[k]);
        }
        carry = op(carry, block_total);
        __syncthreads();
    }
}

// The number of elements of A (length la) among the first `diag` of the merge of A and B
// (length lb), ties taking from A first; A and B are padded shared arrays.
__device__ __forceinline__ u32 merge_path(const Bits* A, u32 la, const Bits* B, u32 lb, u32 diag) {
    u32 lo = diag > lb ? diag - lb : 0;
    u32 hi = diag < la ? diag : la;
    while (lo < hi) {
        const u32 mid = (lo + hi) >> 1;
        if (B[pad(diag - 1 - mid)] < A[pad(mid)]) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

// Walks diagonals [d0, d1) of the merge of A (length la) and B (length lb), padded shared
// arrays, and returns the largest `base + (b - a)` over the B elements b taken, a being the
// number of A elements taken before it (0 if none is positive).
__device__ __forceinline__ u64 walk_max(const Bits* A, u32 la, const Bits* B, u32 lb, u32 d0, u32 d1, i64 base) {
    i64 best = 0;
    if (d0 >= d1) return 0;
    u32 a = merge_path(A, la, B, lb, d0);
    u32 b = d0 - a;
    Bits ka = a < la ? A[pad(a)] : highest_rank();
    Bits kb = b < lb ? B[pad(b)] : highest_rank();
    for (u32 d = d0; d < d1; ++d) {
        if (b < lb && (a >= la || kb < ka)) {
            const i64 dist = base + (i64)b - (i64)a;
            if (dist > best) best = dist;
            ++b;
            if (b < lb) kb = B[pad(b)];
        } else {
            ++a;
            if (a < la) ka = A[pad(a)];
        }
    }
    return (u64)best;
}

// Reduces `best` over the block and folds it into *result with atomicMax.
__device__ __forceinline__ void publish_max(u64 best, u64* result) {
    __shared__ typename BlockReduceU64::TempStorage tmp;
    best = BlockReduceU64::reduce(best, sortlab::Max(), tmp);
    if (threadIdx.x == 0 && best > 0) atomicMax(result, best);
}

// Loads keys [start, start + TILE) ∩ [0, n) striped into registers (coalesced, every load in
// flight at once) as ranks; `fill` past n.
__device__ __forceinline__ void load_striped(const KEY_T* keys, u64 n, u64 start, Bits flip, Bits fill,
                                             Bits (&x)[ITEMS_PER_THREAD]) {
#pragma unroll
    for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
        const u64 j = start + (u64)k * BLOCK_THREADS + threadIdx.x;
        x[k] = j < n ? rank_of(keys[j], flip) : fill;
    }
}

// Striped registers -> blocked registers through the padded shared array `buf` (TILE slots).
// Every thread calls; ends with __syncthreads().
__device__ __forceinline__ void striped_to_blocked(Bits (&x)[ITEMS_PER_THREAD], Bits* buf) {
#pragma unroll
    for (int k = 0; k < ITEMS_PER_THREAD; ++k) buf[pad(k * BLOCK_THREADS + threadIdx.x)] = x[k];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < ITEMS_PER_THREAD; ++k) x[k] = buf[pad(threadIdx.x * ITEMS_PER_THREAD + k)];
    __syncthreads();
}

// ---- chunk_extremes: grid = ceil(chunks / (BLOCK_THREADS / 32)) blocks; warp w of block b
// reduces chunk c = b * BLOCK_THREADS / 32 + w (CHUNK keys, CHUNK_ITEMS per lane: 16-byte
// vector loads, coalesced, all in flight at once, for a whole chunk) into chunk_hi[c] and
// chunk_lo[c] (as keys). The keys must be 16-byte aligned (as every DeviceBuffer is). ----
#define VEC (16 / (int)sizeof(KEY_T))
static_assert(CHUNK_ITEMS % (16 / sizeof(KEY_T)) == 0, "CHUNK_ITEMS: a multiple of the keys per 16 bytes");
union KeyVector {
    uint4 v;
    KEY_T k[VEC];
};
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)
chunk_extremes(const KEY_T* keys, u64 n, Bits flip, KEY_T* chunk_hi, KEY_T* chunk_lo) {
    const u32 lane = sortlab::lane_id();
    const u64 c = (u64)blockIdx.x * (BLOCK_THREADS / 32) + threadIdx.x / 32;
    const u64 start = c * CHUNK;
    if (start >= n) return;
    Bits hi = lowest_rank();
    Bits lo = highest_rank();
    if (start + CHUNK <= n) {
        const uint4* v = reinterpret_cast<const uint4*>(keys + start);
        KeyVector q[CHUNK_ITEMS / VEC];
#pragma unroll
        for (int k = 0; k < CHUNK_ITEMS / VEC; ++k) q[k].v = v[k * 32 + lane];
#pragma unroll
        for (int k = 0; k < CHUNK_ITEMS / VEC; ++k) {
#pragma unroll
            for (int e = 0; e < VEC; ++e) {
                const Bits r = rank_of(q[k].k[e], flip);
                hi = r > hi ? r : hi;
                lo = r < lo ? r : lo;
            }
        }
    } else {
#pragma unroll
        for (int k = 0; k < CHUNK_ITEMS; ++k) {
            const u64 j = start + (u64)k * 32 + lane;
            if (j < n) {
                const Bits r = rank_of(keys[j], flip);
                hi = r > hi ? r : hi;
                lo = r < lo ? r : lo;
            }
        }
    }
    hi = sortlab::warp_reduce<32>(hi, sortlab::Max());
    lo = sortlab::warp_reduce<32>(lo, sortlab::Min());
    if (lane == 0) {
        chunk_hi[c] = key_of(hi, flip);
        chunk_lo[c] = key_of(lo, flip);
    }
}

// ---- radius_near: grid = one block per tile; dynamic shared memory PADDED(HALO + TILE) *
// sizeof(Bits). chunk_hi: the chunks' largest keys; pm: their exclusive prefix
// maxima. result[0]: the radius (atomicMax), result[1]: the far flag. ----
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, NEAR_MIN_BLOCKS)
radius_near(const KEY_T* keys, u64 n, Bits flip, const KEY_T* chunk_hi, const KEY_T* pm, u64* result) {
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ typename BlockScanT::TempStorage scan_tmp;
    __shared__ Bits tile_min;
    __shared__ u32 first_chunk;
    Bits* lr = reinterpret_cast<Bits*>(smem);  // LR from the first chunk that matters to te
    Bits* rl = lr;                             // scratch before LR is written
    const u32 tid = threadIdx.x;
    const u64 ts = (u64)blockIdx.x * TILE;
    const u32 tl = (u32)(n - ts < (u64)TILE ? n - ts : (u64)TILE);

    Bits x[ITEMS_PER_THREAD];
    load_striped(keys, n, ts, flip, highest_rank(), x);
    striped_to_blocked(x, rl);

    // RLt, blocked: suffix minima within the thread, then across threads (a scan of the thread
    // minima in reverse thread order, through shared memory).
    Bits suf[ITEMS_PER_THREAD];
    Bits acc = highest_rank();
#pragma unroll
    for (int k = ITEMS_PER_THREAD - 1; k >= 0; --k) {
        acc = x[k] < acc ? x[k] : acc;
        suf[k] = acc;
    }
    {
        Bits total;
        // Thread t scans the value of thread BLOCK_THREADS - 1 - t.
        rl[pad(BLOCK_THREADS - 1 - tid)] = acc;
        __syncthreads();
        const Bits mine = rl[pad(tid)];
        const Bits before = BlockScanT::exclusive_scan(mine, highest_rank(), sortlab::Min(), total, scan_tmp);
        __syncthreads();
        rl[pad(BLOCK_THREADS - 1 - tid)] = before;  // the minimum of the threads after me
        __syncthreads();
        const Bits after_me = rl[pad(tid)];
        if (tid == 0) tile_min = total;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < ITEMS_PER_THREAD; ++k) suf[k] = suf[k] < after_me ? suf[k] : after_me;
    }
    const Bits c0 = tile_min;

    // The first chunk whose inclusive prefix maximum exceeds c0, searched from HALO keys back.
    const u64 tc = ts / CHUNK;
    const u64 hc = ts >= HALO ? (ts - HALO) / CHUNK : 0;
    const u64 ec = (ts + tl + CHUNK - 1) / CHUNK;  // chunks [hc, ec) cover the halo and the tile
    if (tid < 32) {
        const u64 c = hc + tid;
        bool above = false;
        if (c < ec) {
            const Bits before_c = rank_of(pm[c], flip);
            const Bits hi_c = rank_of(chunk_hi[c], flip);
            above = (before_c > hi_c ? before_c : hi_c) > c0;
        }
        const u32 ballot = __ballot_sync(SORTLAB_FULL_WARP, above);
        if (tid == 0) {
            first_chunk = ballot ? (u32)(__ffs(ballot) - 1) : 0xffffffffu;
            // LR before the search range already exceeds c0: a pair spans more than HALO keys.
            if (rank_of(pm[hc], flip) > c0) atomicOr(result + 1, 1ull);
        }
    }
    __syncthreads();
    if (first_chunk == 0xffffffffu) return;  // no key up to the tile's end exceeds c0: no inversion ends here
    const u64 a_start = (hc + first_chunk) * CHUNK < ts ? (hc + first_chunk) * CHUNK : ts;
    const u32 hl = (u32)(ts - a_start);  // halo keys before the tile (< HALO + CHUNK)

    // LR of the halo part [a_start, ts), from pm at its chunk.
    if (hl > 0) {
        Bits h[ITEMS_PER_THREAD];
        load_striped(keys, ts, a_start, flip, lowest_rank(), h);
#pragma unroll
        for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
            const u32 e = k * BLOCK_THREADS + tid;
            if (e < hl) lr[pad(e)] = h[k];
        }
        __syncthreads();
        block_scan_inplace<false>(lr, hl, rank_of(pm[a_start / CHUNK], flip), lowest_rank(), sortlab::Max(),
                                  scan_tmp);
    }
    // LR of the tile, blocked, from pm at the tile's first chunk, to shared memory after the
    // halo part.
    Bits pre[ITEMS_PER_THREAD];
    {
        Bits m = lowest_rank();
#pragma unroll
        for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
            m = x[k] > m ? x[k] : m;
            pre[k] = m;
        }
        Bits total;
        const Bits before = BlockScanT::exclusive_scan(m, lowest_rank(), sortlab::Max(), total, scan_tmp);
        const Bits seed = rank_of(pm[tc], flip);
        const Bits run = seed > before ? seed : before;
#pragma unroll
        for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
            pre[k] = pre[k] > run ? pre[k] : run;
            lr[pad(hl + tid * ITEMS_PER_THREAD + k)] = pre[k];
        }
    }
    __syncthreads();
    // Each thread takes its own positions i (A index hl + e): where LR[i] > RLt[i], j_i is the
    // first A index with LR > RLt[i], at most hl + e. First, in step across the warp, one binary
    // search for the first A index with LR above the thread's smallest RLt (suf[0]), up to its
    // last position: every j_i of the thread is at or after it. RLt grows with i, so each
    // search goes on from the last j: a few steps forward, then a binary search.
    i64 best = 0;
    u32 j;
    {
        const u32 e_first = tid * ITEMS_PER_THREAD;
        u32 lo = 0;
        u32 hi = e_first < tl ? hl + min(e_first + ITEMS_PER_THREAD, tl) : 0;
        while (lo < hi) {
            const u32 mid = (lo + hi) >> 1;
            if (lr[pad(mid)] > suf[0]) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        j = lo;
    }
#pragma unroll
    for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
        const u32 e = tid * ITEMS_PER_THREAD + k;
        const Bits c = suf[k];
        if (e < tl && pre[k] > c) {
            const u32 top = hl + e;  // lr[top] = LR[i] > c
            for (int step = 0; step < LINEAR_STEPS && lr[pad(j)] <= c; ++step) ++j;
            if (lr[pad(j)] <= c) {
                u32 lo = j + 1;
                u32 hi = top;
                while (lo < hi) {
                    const u32 mid = (lo + hi) >> 1;
                    if (lr[pad(mid)] > c) {
                        hi = mid;
                    } else {
                        lo = mid + 1;
                    }
                }
                j = lo;
            }
            const i64 d = (i64)top - (i64)j;
            best = d > best ? d : best;
        }
    }
    publish_max((u64)best, result);
}

// ---- materialize: grid = one block per tile; dynamic shared memory 2 * PADDED(TILE) *
// sizeof(Bits). pm / sm: the exclusive prefix maxima and suffix minima of the chunks. Writes LR
// and RL of the whole array as ranks. ----
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)
materialize(const KEY_T* keys, u64 n, Bits flip, const KEY_T* pm, const KEY_T* sm, Bits* lr_out, Bits* rl_out) {
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ typename BlockScanT::TempStorage scan_tmp;
    Bits* lr = reinterpret_cast<Bits*>(smem);
    Bits* rl = lr + PADDED(TILE);
    const u64 ts = (u64)blockIdx.x * TILE;
    const u32 tl = (u32)(n - ts < (u64)TILE ? n - ts : (u64)TILE);
    for (u32 e = threadIdx.x; e < tl; e += BLOCK_THREADS) {
        const Bits r = rank_of(keys[ts + e], flip);
        lr[pad(e)] = r;
        rl[pad(e)] = r;
    }
    __syncthreads();
    // LR before the tile: pm at its first chunk; RL after it: sm at its last chunk (the minimum
    // of every later chunk).
    const u64 last_chunk = (ts + tl - 1) / CHUNK;
    block_scan_inplace<false>(lr, tl, rank_of(pm[ts / CHUNK], flip), lowest_rank(), sortlab::Max(), scan_tmp);
    block_scan_inplace<true>(rl, tl, rank_of(sm[last_chunk], flip), highest_rank(), sortlab::Min(), scan_tmp);
    for (u32 e = threadIdx.x; e < tl; e += BLOCK_THREADS) {
        lr_out[ts + e] = lr[pad(e)];
        rl_out[ts + e] = rl[pad(e)];
    }
}

// ---- merge_partition: one thread per split; `splits[b]` = the number of LR elements among
// the first min(b * TILE, 2n) of the merge of LR and RL, for b in 0 ..= tiles. ----
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)
merge_partition(const Bits* lr, const Bits* rl, u64 n, u64 tiles, u64* splits) {
    const u64 b = (u64)blockIdx.x * BLOCK_THREADS + threadIdx.x;
    if (b > tiles) return;
    const u64 diag = b * TILE < 2 * n ? b * TILE : 2 * n;
    u64 lo = diag > n ? diag - n : 0;
    u64 hi = diag < n ? diag : n;
    while (lo < hi) {
        const u64 mid = (lo + hi) >> 1;
        if (rl[diag - 1 - mid] < lr[mid]) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    splits[b] = lo;
}

// ---- merge_radius: grid = one block per merge tile (TILE outputs of the merge of LR and RL);
// dynamic shared memory 2 * PADDED(TILE) * sizeof(Bits). ----
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)
merge_radius(const Bits* lr, const Bits* rl, u64 n, const u64* splits, u64* result) {
    extern __shared__ __align__(16) unsigned char smem[];
    Bits* sa = reinterpret_cast<Bits*>(smem);  // this tile's part of LR
    Bits* sb = sa + PADDED(TILE);              // and of RL
    const u64 d0 = (u64)blockIdx.x * TILE;
    const u64 a0 = splits[blockIdx.x];
    const u64 a1 = splits[blockIdx.x + 1];
    const u64 d1 = d0 + TILE < 2 * n ? d0 + TILE : 2 * n;
    const u64 b0 = d0 - a0;
    const u32 la = (u32)(a1 - a0);
    const u32 lb = (u32)((d1 - a1) - b0);
    for (u32 e = threadIdx.x; e < la; e += BLOCK_THREADS) sa[pad(e)] = lr[a0 + e];
    for (u32 e = threadIdx.x; e < lb; e += BLOCK_THREADS) sb[pad(e)] = rl[b0 + e];
    __syncthreads();
    const u32 t0 = min(threadIdx.x * ITEMS_PER_THREAD, la + lb);
    const u32 t1 = min(t0 + ITEMS_PER_THREAD, la + lb);
    // B element b is position b0 + b, and a0 + a elements of LR precede it: i - j_i.
    const u64 best = walk_max(sa, la, sb, lb, t0, t1, (i64)b0 - (i64)a0);
    publish_max(best, result);
}

// ---- k_sorted_check: grid = one block per tile; dynamic shared memory PADDED(2 * TILE) *
// sizeof(Bits). pm: the exclusive prefix maxima of the chunks. Sets *flag when some j of the
// tile has LR[j - k - 1] > a[j]. ----
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)
k_sorted_check(const KEY_T* keys, u64 n, Bits flip, u64 k, const KEY_T* pm, u32* flag) {
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ typename BlockScanT::TempStorage scan_tmp;
    Bits* s = reinterpret_cast<Bits*>(smem);
    const u64 ts = (u64)blockIdx.x * TILE;
    const u64 te = n - ts < (u64)TILE ? n : ts + TILE;
    if (te <= k + 1) return;  // no j of this tile has a partner k + 1 or more places before it
    const u64 jlo = ts > k + 1 ? ts : k + 1;
    // LR is needed on [jlo - k - 1, te - k - 1): load from the start of its first tile.
    const u64 u0 = (jlo - k - 1) / TILE;
    const u64 ls = u0 * TILE;
    const u32 len = (u32)(te - k - 1 - ls);
#pragma unroll 4
    for (u32 e = threadIdx.x; e < len; e += BLOCK_THREADS) s[pad(e)] = rank_of(keys[ls + e], flip);
    __syncthreads();
    block_scan_inplace<false>(s, len, rank_of(pm[ls / CHUNK], flip), lowest_rank(), sortlab::Max(), scan_tmp);
    bool bad = false;
    for (u64 j = jlo + threadIdx.x; j < te; j += BLOCK_THREADS) {
        if (s[pad((u32)(j - k - 1 - ls))] > rank_of(keys[j], flip)) bad = true;
    }
    if (bad) atomicOr(flag, 1u);
}
