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
//   radius_halo      per tile, one read of the keys (in groups of tiles per block, each group
//                    also reading the tile before it): LR of the previous tile and the tile from
//                    the previous tile's start, RLt, then j_i for the few positions that can
//                    realise the radius, max (i - j_i) -> atomicMax; writes each tile's largest
//                    and smallest key
//   far_check        from the exclusive prefix maxima of the tiles' largest keys: raises the
//                    `far` flag when some key lies above a key more than a tile after it, where
//                    radius_halo's j_i may be wrong (some inversion spans more than TILE keys)
//   chunk_extremes   (far case, is_k_sorted) per chunk of CHUNK keys: the largest and the
//                    smallest rank, as keys (the host scans them into PM, the exclusive prefix
//                    maxima per chunk, and SM, the suffix minima, with sortlab-primitives' scan)
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
//   HALO_MIN_BLOCKS   resident radius_halo blocks per SM its registers are capped for
//
// Order: every kernel takes `flip`, 0 for ascending, all ones for descending; a key's rank is
// its ordered bits (sortlab/thread/key_bits.cuh) xor flip, and kernels compare ranks only.
// Indices into the arrays are 64-bit; indices inside a tile are 32-bit.
#include "sortlab/thread/key_bits.cuh"
#include "sortlab/thread/merge_path.cuh"
#include "sortlab/warp/operators.cuh"
#include "sortlab/warp/warp_reduce.cuh"
#include "sortlab/block/block_reduce.cuh"
#include "sortlab/block/block_scan.cuh"
#include "sortlab/thread/key_defines.cuh"

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
static_assert(TILE % CHUNK == 0, "CHUNK must divide TILE");

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

// Walks diagonals [d0, d1) of the merge of A (length la) and B (length lb), padded shared
// arrays, and returns the largest `base + (b - a)` over the B elements b taken, a being the
// number of A elements taken before it (0 if none is positive).
__device__ __forceinline__ u64 walk_max(const Bits* A, u32 la, const Bits* B, u32 lb, u32 d0, u32 d1, i64 base) {
    i64 best = 0;
    if (d0 >= d1) return 0;
    u32 a = sortlab::merge_path_by([&](u32 i) { return A[pad(i)]; }, la, [&](u32 j) { return B[pad(j)]; }, lb, d0);
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

#ifndef HALO_MIN_BLOCKS
#define HALO_MIN_BLOCKS 1
#endif
#define HALO_WARPS (BLOCK_THREADS / 32)
static_assert(ITEMS_PER_THREAD % (16 / sizeof(KEY_T)) == 0, "ITEMS_PER_THREAD: a multiple of the keys per 16 bytes");

// Loads keys [start + tid * ITEMS, + ITEMS) ∩ [0, n) blocked into registers as ranks (16-byte
// vector loads for a whole thread's run; `start` is a multiple of TILE); highest rank past n.
__device__ __forceinline__ void load_blocked(const KEY_T* keys, u64 n, u64 start, Bits flip,
                                             Bits (&x)[ITEMS_PER_THREAD]) {
    const u64 s = start + (u64)threadIdx.x * ITEMS_PER_THREAD;
    if (s + ITEMS_PER_THREAD <= n) {
        const uint4* v = reinterpret_cast<const uint4*>(keys + s);
        KeyVector q[ITEMS_PER_THREAD / VEC];
#pragma unroll
        for (int k = 0; k < ITEMS_PER_THREAD / VEC; ++k) q[k].v = v[k];
#pragma unroll
        for (int k = 0; k < ITEMS_PER_THREAD / VEC; ++k) {
#pragma unroll
            for (int e = 0; e < VEC; ++e) x[k * VEC + e] = rank_of(q[k].k[e], flip);
        }
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
            const u64 j = s + k;
            x[k] = j < n ? rank_of(keys[j], flip) : highest_rank();
        }
    }
}

__device__ __forceinline__ Bits max_of(Bits a, Bits b) { return a < b ? b : a; }
__device__ __forceinline__ Bits min_of(Bits a, Bits b) { return b < a ? b : a; }

// ---- radius_halo: block b takes tiles [b * group, (b + 1) * group) ∩ [0, tiles) in order (no
// block waits for another); dynamic shared memory PADDED(2 * TILE) * sizeof(Bits). `result[0]`:
// the radius (atomicMax). Writes every tile's largest and smallest key (tile_hi, tile_lo; the
// padding past n counts for neither).
//
// The block first reads the tile before its first (the halo) and then its tiles one by one,
// keeping LR *from the halo's start* of the last two in shared memory (a ring of two tile
// slots). For a candidate i of a tile (a strict suffix minimum of the tile, below an earlier key
// from the halo's start on), j_i' is the first position from the previous tile's start with
// that LR above a[i]. It is the true j_i when every key before the previous tile is at most
// a[i]; `far_check` tests exactly that for every tile's smallest key (the prefix maxima of
// tile_hi against tile_lo, two tiles on) and sends the computation to the far path when it
// fails (LR from any start at or before the previous tile's is then above a[i] exactly where
// the true LR is). So the maximum of i - j_i' is the radius whenever no far_check fails (see
// the one-pass argument at the top: suffix minima within the tile suffice). The host picks the
// group so that there are about four waves of blocks (at most 16 tiles a block).
// The kernel is bound by its ALU work, not by load latency (alternatives measured: README.md).
static_assert((1 << PAD_SHIFT) % ITEMS_PER_THREAD == 0, "a thread's items share one padded row");
static_assert((TILE & (TILE - 1)) == 0 && TILE <= 0x20000000, "tiles: a power of two, positions ints");

// The kernel's body for `flip` != 0 (Flip) or == 0 (then the compiler drops every xor); `lr`:
// the dynamic shared memory, slot s holding LR (from the halo's start) of a tile at
// [s * PADDED(TILE), ...), padded.
template <bool Flip>
__device__ __forceinline__ void halo_tiles(const KEY_T* keys, u64 n, Bits flip, u64* result, KEY_T* tile_hi,
                                           KEY_T* tile_lo, u32 tiles, u32 group, Bits* lr) {
    if (!Flip) flip = 0;
    __shared__ Bits warp_max[HALO_WARPS];
    __shared__ Bits warp_min[HALO_WARPS];
    __shared__ typename BlockScanT::TempStorage halo_scan;
    const u32 tid = threadIdx.x;
    const u32 lane = tid & 31;
    const u32 warp = tid >> 5;
    const u32 e0 = tid * ITEMS_PER_THREAD;  // my first position in a tile
    const u32 first = blockIdx.x * group;
    const u32 last = min(first + group, tiles);

    // The halo: LR of tile first - 1 from its start, into slot 1 (a whole tile: not the last).
    Bits carry = lowest_rank();  // LR at the end of the tile before the current one
    if (first > 0) {
        Bits h[ITEMS_PER_THREAD];
        load_blocked(keys, n, (u64)(first - 1) * TILE, flip, h);
        Bits hmax = lowest_rank();
#pragma unroll
        for (int k = 0; k < ITEMS_PER_THREAD; ++k) hmax = max_of(hmax, h[k]);
        Bits run = BlockScanT::exclusive_scan(hmax, lowest_rank(), sortlab::Max(), carry, halo_scan);
        Bits* row = lr + PADDED(TILE) + pad(e0);
#pragma unroll
        for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
            run = max_of(run, h[k]);
            row[k] = run;
        }
    }

    int best = 0;
    for (u32 tile = first; tile < last; ++tile) {
        const u32 own = (tile - first) & 1;  // the slot of this tile; the other holds the previous
        const u64 ts = (u64)tile * TILE;
        Bits x[ITEMS_PER_THREAD];
        load_blocked(keys, n, ts, flip, x);
        Bits tmax = lowest_rank();
        Bits tmin = highest_rank();
#pragma unroll
        for (int k = 0; k < ITEMS_PER_THREAD; ++k) tmin = min_of(tmin, x[k]);  // padding never lowers it
        if (ts + TILE <= n) {
#pragma unroll
            for (int k = 0; k < ITEMS_PER_THREAD; ++k) tmax = max_of(tmax, x[k]);
        } else {
#pragma unroll
            for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
                if (ts + e0 + k < n) tmax = max_of(tmax, x[k]);
            }
        }
        // Inclusive max scan up the warp, inclusive min scan down it.
        Bits wmax = tmax;
        Bits wmin = tmin;
#pragma unroll
        for (u32 o = 1; o < 32; o <<= 1) {
            const Bits u = sortlab::shfl_up(wmax, o);
            const Bits d = sortlab::shfl_down(wmin, o);
            if (lane >= o) wmax = max_of(wmax, u);
            if (lane + o < 32) wmin = min_of(wmin, d);
        }
        Bits before_me = sortlab::shfl_up(wmax, 1);
        Bits after_me = sortlab::shfl_down(wmin, 1);
        if (lane == 0) before_me = lowest_rank();
        if (lane == 31) after_me = highest_rank();
        // The previous tile's search read warp_max / warp_min before its barrier; this one
        // orders the previous search before this tile's writes of its slot.
        if (lane == 31) warp_max[warp] = wmax;
        if (lane == 0) warp_min[warp] = wmin;
        __syncthreads();
        // The warps' totals, scanned across lanes 0 .. HALO_WARPS - 1 of every warp (up for the
        // maxima, down for the minima; the other lanes hold the identities).
        Bits pm = lane < HALO_WARPS ? warp_max[lane] : lowest_rank();
        Bits sm = lane < HALO_WARPS ? warp_min[lane] : highest_rank();
#pragma unroll
        for (u32 o = 1; o < HALO_WARPS; o <<= 1) {
            const Bits u = sortlab::shfl_up(pm, o);
            const Bits d = sortlab::shfl_down(sm, o);
            if (lane >= o) pm = max_of(pm, u);
            sm = min_of(sm, d);  // lanes past 31 - o read their own value: min is unchanged
        }
        const Bits warps_before = sortlab::shfl_idx(pm, warp == 0 ? 0 : (int)warp - 1);
        const Bits warps_after = sortlab::shfl_idx(sm, (int)warp + 1);  // lane HALO_WARPS: the identity
        const Bits tile_max = sortlab::shfl_idx(pm, HALO_WARPS - 1);
        const Bits c0 = sortlab::shfl_idx(sm, 0);
        if (warp > 0) before_me = max_of(before_me, warps_before);
        after_me = min_of(after_me, warps_after);
        before_me = max_of(before_me, carry);
        carry = max_of(carry, tile_max);
        if (tid == 0) {
            tile_hi[tile] = key_of(tile_max, flip);
            tile_lo[tile] = key_of(c0, flip);
        }
        // LR to my slot; candidates: strict suffix minima of the tile (RLt[i] = a[i] < RLt[i +
        // 1]) below an earlier key.
        u32 candidates;
        {
            Bits* row = lr + own * PADDED(TILE) + pad(e0);
            u32 above = 0;
            Bits run = before_me;
#pragma unroll
            for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
                if (run > x[k]) above |= 1u << k;
                run = max_of(run, x[k]);
                row[k] = run;
            }
            Bits acc = after_me;
            u32 strict = 0;
#pragma unroll
            for (int k = ITEMS_PER_THREAD - 1; k >= 0; --k) {
                if (x[k] < acc) strict |= 1u << k;
                acc = min_of(acc, x[k]);
            }
            candidates = strict & above;
        }
        if (!__syncthreads_or(candidates != 0)) continue;  // every key above all before it

        // j_i' for each candidate i (c = a[i]): the first position from the previous tile's
        // start (logical 0; the tile starts at logical TILE) with LR above c, at most i - 1.
        // Logical q lives in slot (q / TILE) ^ own ^ 1. Gallop back from i, then bisect. One
        // candidate per lane per round. Only a distance above the warp's best so far (0 at
        // first) matters: LR is non-decreasing, so LR[i - best - 1] <= c (or no such position)
        // rules the candidate out with one load, and LR above c there starts the gallop.
#pragma unroll
        for (u32 o = 16; o > 0; o >>= 1) best = max(best, sortlab::shfl_xor(best, (int)o));
        const u32 rot = own ? 0u : (u32)TILE;
        const int lo0 = tile == 0 ? TILE - 1 : -1;  // LR[lo0] <= c, or nothing there
        u32 todo = candidates;
        while (todo) {
            const int k = __ffs(todo) - 1;
            todo &= todo - 1;
            const u32 e = e0 + (u32)k;
            const Bits c = rank_of(keys[ts + e], flip);  // x[k] without dynamic register indexing
            const int p = (int)(TILE + e);
            int lo = lo0;
            int hi = p - best - 1;  // LR[hi] > c once checked
            if (hi <= lo || lr[pad(((u32)hi + rot) & (2 * TILE - 1))] <= c) continue;
            int step = 1;
            while (hi - step > lo) {
                const int q = hi - step;
                if (lr[pad(((u32)q + rot) & (2 * TILE - 1))] > c) {
                    hi = q;
                    step <<= 1;
                } else {
                    lo = q;
                    break;
                }
            }
            while (hi - lo > 1) {
                const int mid = (lo + hi) >> 1;
                if (lr[pad(((u32)mid + rot) & (2 * TILE - 1))] > c) {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            best = p - hi > best ? p - hi : best;
        }
    }
    publish_max((u64)best, result);
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, HALO_MIN_BLOCKS)
radius_halo(const KEY_T* keys, u64 n, Bits flip, u64* result, KEY_T* tile_hi, KEY_T* tile_lo, u32 tiles, u32 group) {
    extern __shared__ __align__(16) unsigned char smem[];
    Bits* lr = reinterpret_cast<Bits*>(smem);
    if (flip) {
        halo_tiles<true>(keys, n, flip, result, tile_hi, tile_lo, tiles, group, lr);
    } else {
        halo_tiles<false>(keys, n, flip, result, tile_hi, tile_lo, tiles, group, lr);
    }
}

// ---- far_check: one thread per tile t >= 2 (grid = ceil((tiles - 2) / BLOCK_THREADS)); pm: the
// exclusive prefix maxima of tile_hi. When some key before tile t - 1 is above tile t's smallest
// key (radius_halo's j_i' may then miss the true j_i), raises *far to at least g = t - x, x the
// first tile boundary with pm[x] above it (1 <= x <= t - 1, by bisection: pm never decreases):
// tile x - 1 holds a key above one of tile t, (t - x) * TILE + 1 or more places on, so the
// radius is at least g * TILE + 1. *far stays 0 when no tile has such a key. ----
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)
far_check(const KEY_T* pm, const KEY_T* tile_lo, u64 tiles, Bits flip, u64* far) {
    const u64 t = (u64)blockIdx.x * BLOCK_THREADS + threadIdx.x + 2;
    if (t >= tiles) return;
    const Bits lo = rank_of(tile_lo[t], flip);
    if (rank_of(pm[t - 1], flip) <= lo) return;
    u64 a = 1;  // pm[a - 1] <= lo (pm[0] is the lowest rank) ...
    u64 b = t - 1;  // ... < pm[b]
    while (a < b) {
        const u64 mid = a + (b - a) / 2;
        if (rank_of(pm[mid], flip) > lo) {
            b = mid;
        } else {
            a = mid + 1;
        }
    }
    atomicMax((unsigned long long*)far, (unsigned long long)(t - a));
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
