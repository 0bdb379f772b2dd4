// onesweep.cu: RadixVariant::Fast, an LSD radix sort in the manner of Onesweep (Adinets and
// Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort for GPUs", 2022): one
// histogram pass counts the digits of every pass at once, then each pass ranks and scatters its
// tiles in a single kernel, finding each tile's global digit offsets by decoupled look-back.
//
// Keys are moved as raw words (KEY_BITS_T); the key type's order-preserving map
// (sortlab/thread/key_bits.cuh, DESIGN.md §3) comes as two masks `neg` and `pos`, ascending
// ordered = raw ^ (top bit of raw ? neg : pos), and the order as the flip word `flip`
// (`Order::flip`: 0 ascending, all ones descending), XOR-ed onto the ordered bits (the pass
// kernel folds it into both masks once). So one module serves every key type and both orders
// of one width.
//
// Defines:
//   KEY_BITS_T         unsigned int or unsigned long long: the key's raw word
//   VALUE_T            the value's raw word (unsigned int or unsigned long long)
//   HAS_VALUES         1: values travel with the keys; 0: keys only (value pointers unused)
//   BLOCK_THREADS      threads per block of the pass kernel (a multiple of 32)
//   ITEMS_PER_THREAD   keys per thread of the pass kernel: a tile is BLOCK_THREADS * this
//   MIN_BLOCKS         the pass kernel's __launch_bounds__ minimum of resident blocks per SM
//   RADIX_BITS         digit width, 1 to 11 (RADIX_DIGITS = 2^RADIX_BITS)
//   MATCH_ALGO         how a tile is ranked by digit: 0 __match_any_sync, 1 RADIX_BITS ballots,
//                      2 atomicOr of lane bits into per-warp digit masks in shared memory (one
//                      atomic, one load), each finding a warp's lanes with equal digits and
//                      counting them in per-warp digit counters in shared memory; 3 two stable
//                      in-tile splits by 4-bit halves of the digit (RADIX_BITS <= 8), low half
//                      first, each ranked by four ballots with the warp's 16 counters in
//                      registers (no shared-memory counters; one more exchange of the tile)
//   HIST_THREADS       threads per block of the histogram kernel
//   HIST_ITEMS         keys per thread of the histogram kernel (a multiple of the keys per
//                      16 bytes)
//   PLAN_THREADS       threads of the (one-block) plan kernel
//   LOOKBACK_WINDOW    predecessor tiles whose status a look-back reads at once
//
// Launch order (one stream; the host code in fast.rs):
//   1. radix_zero_words (util.cu) over the histograms, the tile counters and status buffer 0;
//   2. onesweep_histogram once per portion;
//   3. onesweep_plan (one block): global digit offsets of every (pass, portion), and the pass
//      plan (which passes are trivial, which buffer each pass reads);
//   4. onesweep_pass for every pass and, inside a pass, every portion, in order;
//   5. radix_copy_words (util.cu) if the plan says the data ended in the spare buffer.
//
// Portions: tile status words hold a 30-bit count, so the input is cut into portions of fewer
// than 2^30 keys, each ranked by its own launch with its own tile counter. The plan gives the
// first portion its digit offsets; each portion's last tile gives the next portion its own.
//
// Tile status: status[tile * RADIX_DIGITS + digit] is a 32-bit word, flag in bits 30-31 (0: not
// yet published, 1: the tile's own count of the digit, 2: the inclusive count over this and
// every earlier tile of the portion) and the count in bits 0-29: one single-copy-atomic store
// publishes flag and count together. Launch L uses status buffer L % 2 and zeroes buffer
// (L + 1) % 2 for launch L + 1 (launch L - 1, its last user, has finished by stream order).
#include "sortlab/block/block_scan.cuh"
#include "sortlab/grid/grid_dependency.cuh"
#include "sortlab/thread/key_defines.cuh"

#ifndef BLOCK_THREADS
#define BLOCK_THREADS 384
#endif
#ifndef ITEMS_PER_THREAD
#define ITEMS_PER_THREAD 18
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 2
#endif
#ifndef RADIX_BITS
#define RADIX_BITS 8
#endif
#ifndef MATCH_ALGO
#define MATCH_ALGO 2
#endif
#ifndef HIST_THREADS
#define HIST_THREADS 256
#endif
#ifndef HIST_ITEMS
#define HIST_ITEMS 16
#endif
#ifndef PLAN_THREADS
#define PLAN_THREADS 256
#endif
#ifndef LOOKBACK_WINDOW
#define LOOKBACK_WINDOW 8
#endif

typedef KEY_BITS_T Key;
typedef VALUE_T Value;

// Hardware constants: a warp is 32 lanes.
#define WARP_THREADS 32
#define FULL_WARP 0xffffffffu

#define RADIX_DIGITS (1 << RADIX_BITS)
#define TILE_ITEMS (BLOCK_THREADS * ITEMS_PER_THREAD)
#define WARPS (BLOCK_THREADS / WARP_THREADS)
#define WARP_ITEMS (WARP_THREADS * ITEMS_PER_THREAD)
#define DIGITS_PER_THREAD ((RADIX_DIGITS + BLOCK_THREADS - 1) / BLOCK_THREADS)
#define PLAN_DIGITS_PER_THREAD ((RADIX_DIGITS + PLAN_THREADS - 1) / PLAN_THREADS)
#define PLAN_BATCH 4  // passes whose counts the plan kernel loads at once
#define HIST_CHUNK (HIST_THREADS * HIST_ITEMS)
#define HIST_PASSES_MAX ((KEY_BITS + RADIX_BITS - 1) / RADIX_BITS)
#define HIST_VEC (16 / (int)sizeof(Key))
#define KEY_BITS (8 * (int)sizeof(Key))

// Status word format (see above).
#define STATUS_AGGREGATE (1u << 30)
#define STATUS_INCLUSIVE (2u << 30)
#define STATUS_COUNT_MASK ((1u << 30) - 1u)

// Dynamic shared memory of onesweep_pass, in bytes: digit offsets (u64), the key exchange, the
// value exchange (pairs), then for MATCH_ALGO 0-2 the warps' digit counters and the warps' digit
// masks (MATCH_ALGO 2), for MATCH_ALGO 3 the tile's digit counts, the warps' counts of the two
// splits' 16 half-digits and (pairs) each key's move in the second split (u16). The host
// (policy.rs, FastPolicy::pass_shared_bytes) computes the same; the kernel checks it.
#define ALIGN16(x) (((x) + 15) / 16 * 16)
#define SMEM_OFF_KEYS (RADIX_DIGITS * 8)
#define SMEM_OFF_VALUES (SMEM_OFF_KEYS + ALIGN16(TILE_ITEMS * (int)sizeof(Key)))
#define SMEM_OFF_WARP_HIST (SMEM_OFF_VALUES + (HAS_VALUES ? ALIGN16(TILE_ITEMS * (int)sizeof(Value)) : 0))
#define NIBBLES 16  // values of a 4-bit half-digit (MATCH_ALGO 3)
#if MATCH_ALGO == 3
#define SMEM_OFF_NIBBLES (SMEM_OFF_WARP_HIST + RADIX_DIGITS * 4)
#define SMEM_OFF_MOVES (SMEM_OFF_NIBBLES + 2 * WARPS * NIBBLES * 4)
#define SMEM_BYTES (SMEM_OFF_MOVES + (HAS_VALUES ? ALIGN16(TILE_ITEMS * 2) : 0))
#else
#define SMEM_OFF_MASKS (SMEM_OFF_WARP_HIST + WARPS * RADIX_DIGITS * 4)
#define SMEM_BYTES (SMEM_OFF_MASKS + (MATCH_ALGO == 2 ? WARPS * RADIX_DIGITS * 4 : 0))
#endif

static_assert(BLOCK_THREADS >= 32 && BLOCK_THREADS <= 1024 && BLOCK_THREADS % 32 == 0,
              "BLOCK_THREADS must be a multiple of 32 from 32 to 1024");
static_assert(ITEMS_PER_THREAD >= 1, "ITEMS_PER_THREAD must be positive");
static_assert(RADIX_BITS >= 1 && RADIX_BITS <= 11, "RADIX_BITS must be 1 to 11");
static_assert(TILE_ITEMS < (1 << 30), "a tile's counts must fit the 30-bit status count");
static_assert(PLAN_THREADS >= 32 && PLAN_THREADS <= 1024 && PLAN_THREADS % 32 == 0,
              "PLAN_THREADS must be a multiple of 32 from 32 to 1024");
static_assert(LOOKBACK_WINDOW >= 1, "LOOKBACK_WINDOW must be positive");
static_assert(HIST_THREADS >= 32 && HIST_THREADS <= 1024 && HIST_THREADS % 32 == 0,
              "HIST_THREADS must be a multiple of 32 from 32 to 1024");
static_assert(HIST_ITEMS % HIST_VEC == 0, "HIST_ITEMS must be a multiple of the keys per 16 bytes");

// The key's bits in sort order.
__device__ __forceinline__ Key ordered(Key raw, Key neg, Key pos) {
    return raw ^ ((raw >> (KEY_BITS - 1)) ? neg : pos);
}

// The digit at `shift` (`mask` = 2^width - 1) of a raw key.
__device__ __forceinline__ u32 digit_of(Key raw, Key neg, Key pos, u32 shift, u32 mask) {
    return (u32)(ordered(raw, neg, pos) >> shift) & mask;
}

__device__ __forceinline__ u32 lane_mask_lt() {
    u32 m;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
    return m;
}

static_assert(MATCH_ALGO >= 0 && MATCH_ALGO <= 3, "MATCH_ALGO must be 0 to 3");
static_assert(MATCH_ALGO != 3 || RADIX_BITS <= 8, "MATCH_ALGO 3 splits digits of at most 8 bits");
static_assert(MATCH_ALGO != 3 || (WARP_ITEMS <= 4096 && TILE_ITEMS <= 65536),
              "MATCH_ALGO 3 packs a key's rank in its warp in 12 bits and its tile position in 16");

// The lanes of the warp whose digit equals this lane's (every lane of the warp calls it), for
// MATCH_ALGO 0 and 1.
__device__ __forceinline__ u32 match_digit(u32 d) {
#if MATCH_ALGO == 1
    u32 peers = FULL_WARP;
#pragma unroll
    for (int b = 0; b < RADIX_BITS; ++b) {
        const u32 set = __ballot_sync(FULL_WARP, (d >> b) & 1u);
        peers &= ((d >> b) & 1u) ? set : ~set;
    }
    return peers;
#else
    return __match_any_sync(FULL_WARP, d);
#endif
}

// ---- MATCH_ALGO 3: stable splits of a tile by a 4-bit half-digit ("nibble"). ----
// A split ranks each key among its warp's keys (rows, then lanes: the tile's order) of the same
// nibble with four ballots, the warp's running count of each nibble held by lanes 0-15 in a
// register; the warps' totals then place each (nibble, warp) run in the tile. Ranks are packed
// as rank in the warp (bits 0-11) and nibble (bits 12-15).
#define PACK_RANK_MASK 0xfffu  // bits 16-31 are free for the caller
#define PACK_NIBBLE_SHIFT 12

// The lanes whose ballots b0..b3 of their nibble's bits spell nibble v.
__device__ __forceinline__ u32 nibble_lanes(u32 b0, u32 b1, u32 b2, u32 b3, u32 v) {
    return ~((b0 ^ (0u - (v & 1u))) | (b1 ^ (0u - ((v >> 1) & 1u))) | (b2 ^ (0u - ((v >> 2) & 1u))) |
             (b3 ^ (0u - ((v >> 3) & 1u))));
}

// One row of a warp (every lane calls it with its key's nibble v): the packed rank of the key
// among the warp's keys with nibble v so far. run: lane i < 16 holds the count of nibble i in
// the warp's earlier rows, and gets this row's added.
__device__ __forceinline__ u32 nibble_rank(u32 v, u32 lane, u32 lower_lanes, u32& run) {
    const u32 b0 = __ballot_sync(FULL_WARP, v & 1u);
    const u32 b1 = __ballot_sync(FULL_WARP, (v >> 1) & 1u);
    const u32 b2 = __ballot_sync(FULL_WARP, (v >> 2) & 1u);
    const u32 b3 = __ballot_sync(FULL_WARP, (v >> 3) & 1u);
    const u32 before = __shfl_sync(FULL_WARP, run, v);
    run += __popc(nibble_lanes(b0, b1, b2, b3, lane & (NIBBLES - 1)));
    return (before + __popc(nibble_lanes(b0, b1, b2, b3, v) & lower_lanes)) | (v << PACK_NIBBLE_SHIFT);
}

// counts: [WARPS][NIBBLES], each warp's count of each nibble. Lane i (and lane i + 16) gets the
// tile position of warp `warp`'s first key of nibble i: the keys of smaller nibbles (every
// warp) and of nibble i in earlier warps come first. end: the position after nibble i's last key.
__device__ __forceinline__ u32 nibble_offset(const u32* counts, u32 warp, u32 lane, u32& end) {
    const u32 i = lane & (NIBBLES - 1);
    u32 total = 0;
    u32 earlier = 0;
#pragma unroll
    for (int w = 0; w < WARPS; ++w) {
        const u32 c = counts[w * NIBBLES + i];
        total += c;
        earlier += (u32)w < warp ? c : 0u;
    }
    u32 inclusive = total;
#pragma unroll
    for (u32 o = 1; o < NIBBLES; o <<= 1) {
        const u32 x = __shfl_up_sync(FULL_WARP, inclusive, o);
        if (i >= o) inclusive += x;
    }
    end = inclusive;
    return inclusive - total + earlier;
}

// The tile position of a packed rank, from the warp's nibble offsets (nibble_offset's result).
__device__ __forceinline__ u32 nibble_place(u32 packed, u32 offset) {
    return (packed & PACK_RANK_MASK) + __shfl_sync(FULL_WARP, offset, (packed >> PACK_NIBBLE_SHIFT) & (NIBBLES - 1));
}

// ---- 2. Histogram of every pass's digits over keys[start .. start + len) (one portion). ----
// hist: this portion's counters, [pass][RADIX_DIGITS] (zeroed). Pass p's digit starts at bit
// begin_bit + p * RADIX_BITS and is at most RADIX_BITS wide, ending at end_bit at the latest.
// Dynamic shared memory: passes * RADIX_DIGITS * 4 bytes. One shared add a key and pass, no
// branch (the hardware merges a warp's adds to one word), 16-byte loads: as fast as CUB's
// histogram kernel (README.md has the alternatives measured).
extern "C" __global__ void __launch_bounds__(HIST_THREADS)
onesweep_histogram(const Key* keys, u64 start, u64 len, u32* hist, u32 passes, u32 begin_bit, u32 end_bit, Key neg,
                   Key pos, Key flip) {
    sortlab::dependent_entry();
    extern __shared__ u32 shared_hist[];
    const u32 tid = threadIdx.x;
    const u32 bins = passes * RADIX_DIGITS;
    for (u32 i = tid; i < bins; i += HIST_THREADS) shared_hist[i] = 0;
    __syncthreads();

    const u64 chunks = (len + HIST_CHUNK - 1) / HIST_CHUNK;
    for (u64 c = blockIdx.x; c < chunks; c += gridDim.x) {
        const u64 first = start + c * HIST_CHUNK;
        const u64 left = start + len - first;
        const u32 valid = left < HIST_CHUNK ? (u32)left : (u32)HIST_CHUNK;
        // Whole aligned chunks load 16-byte vectors; the order of a chunk's keys does not
        // matter here. Keys past the end count as 0 and are taken off digit 0 below.
        Key k[HIST_ITEMS];
        if (valid == HIST_CHUNK && (reinterpret_cast<u64>(keys + first) % 16) == 0) {
            const uint4* v = reinterpret_cast<const uint4*>(keys + first);
#pragma unroll
            for (int j = 0; j < HIST_ITEMS / HIST_VEC; ++j) {
                const uint4 x = v[j * HIST_THREADS + tid];
                const Key* xs = reinterpret_cast<const Key*>(&x);
#pragma unroll
                for (int q = 0; q < HIST_VEC; ++q) k[j * HIST_VEC + q] = ordered(xs[q], neg, pos) ^ flip;
            }
        } else {
#pragma unroll
            for (int j = 0; j < HIST_ITEMS; ++j) {
                const u32 e = j * HIST_THREADS + tid;
                k[j] = e < valid ? ordered(keys[first + e], neg, pos) ^ flip : (Key)0;
            }
        }
#pragma unroll 8
        for (u32 p = 0; p < HIST_PASSES_MAX; ++p) {
            if (p >= passes) break;
            const u32 shift = begin_bit + p * RADIX_BITS;
            const u32 width = min((u32)RADIX_BITS, end_bit - shift);
            const u32 mask = (1u << width) - 1u;
            u32* h = shared_hist + p * RADIX_DIGITS;
#pragma unroll
            for (int j = 0; j < HIST_ITEMS; ++j) atomicAdd(h + ((u32)(k[j] >> shift) & mask), 1u);
        }
        if (valid < HIST_CHUNK && tid == 0) {
            for (u32 p = 0; p < passes; ++p) atomicSub(shared_hist + p * RADIX_DIGITS, HIST_CHUNK - valid);
        }
    }
    __syncthreads();
    for (u32 i = tid; i < bins; i += HIST_THREADS) {
        const u32 c = shared_hist[i];
        if (c != 0) atomicAdd(hist + i, c);
    }
}

// ---- 3. The plan (one block of PLAN_THREADS). ----
// hist: [portions][passes][RADIX_DIGITS] counts. Writes base[(pass * portions + 0) *
// RADIX_DIGITS + d]: the output position of the first key of digit d in that pass (the count
// of keys of smaller digits). Later portions' offsets depend on the order the previous pass
// left, so the last tile of portion q writes those of portion q + 1 (onesweep_pass, next_base).
// plan[pass]: bit 0 the pass
// runs (some two keys differ in its digit; a pass where every key has the same digit is the
// identity and is skipped), bit 1 it reads the spare buffer (and writes the caller's);
// plan[passes]: bit 1 the sorted data is in the spare buffer at the end.
extern "C" __global__ void __launch_bounds__(PLAN_THREADS)
onesweep_plan(const u32* hist, u64* base, u32* plan, u32 passes, u32 portions, u64 n) {
    sortlab::dependent_entry();
    typedef sortlab::BlockScan<u64, PLAN_THREADS> Scan;
    __shared__ typename Scan::TempStorage tmp;
    __shared__ u32 active_mask_lo;
    __shared__ u32 active_mask_hi;
    const u32 tid = threadIdx.x;
    if (tid == 0) {
        active_mask_lo = 0;
        active_mask_hi = 0;
    }
    // Passes are taken PLAN_BATCH at a time, their counts loaded first (independent loads: one
    // memory latency a batch rather than one a pass), then scanned one pass after another.
    for (u32 p0 = 0; p0 < passes; p0 += PLAN_BATCH) {
        u64 totals[PLAN_BATCH][PLAN_DIGITS_PER_THREAD];
#pragma unroll
        for (int b = 0; b < PLAN_BATCH; ++b) {
#pragma unroll
            for (int i = 0; i < PLAN_DIGITS_PER_THREAD; ++i) {
                const u32 p = p0 + b;
                const u32 d = tid * PLAN_DIGITS_PER_THREAD + i;
                u64 t = 0;
                if (p < passes && d < RADIX_DIGITS) {
                    for (u32 q = 0; q < portions; ++q) t += hist[((u64)q * passes + p) * RADIX_DIGITS + d];
                }
                totals[b][i] = t;
            }
        }
#pragma unroll
        for (int b = 0; b < PLAN_BATCH; ++b) {
            const u32 p = p0 + b;
            if (p >= passes) break;  // the same for every thread
            u64 sum = 0;
            int trivial = 0;
#pragma unroll
            for (int i = 0; i < PLAN_DIGITS_PER_THREAD; ++i) {
                sum += totals[b][i];
                trivial |= (totals[b][i] == n);
            }
            trivial = __syncthreads_or(trivial);
            u64 block_total;
            u64 excl = Scan::exclusive_scan(sum, (u64)0, sortlab::Sum(), block_total, tmp);
#pragma unroll
            for (int i = 0; i < PLAN_DIGITS_PER_THREAD; ++i) {
                const u32 d = tid * PLAN_DIGITS_PER_THREAD + i;
                if (d < RADIX_DIGITS) base[(u64)p * portions * RADIX_DIGITS + d] = excl;
                excl += totals[b][i];
            }
            if (tid == 0 && !trivial) {
                if (p < 32) {
                    active_mask_lo |= 1u << p;
                } else {
                    active_mask_hi |= 1u << (p - 32);
                }
            }
            __syncthreads();
        }
    }
    if (tid == 0) {
        u32 in_spare = 0;
        for (u32 p = 0; p < passes; ++p) {
            const u32 active = p < 32 ? (active_mask_lo >> p) & 1u : (active_mask_hi >> (p - 32)) & 1u;
            plan[p] = active | (in_spare << 1);
            in_spare ^= active;
        }
        plan[passes] = in_spare << 1;
    }
}

// Loads a thread's ITEMS_PER_THREAD words of a tile warp-striped (element warp_first + j * 32 +
// lane of the tile at tile_start), so that each load is coalesced; past the end, 0.
template <typename T>
__device__ __forceinline__ void load_striped(T (&x)[ITEMS_PER_THREAD], const T* src, u64 tile_start, u32 warp_first,
                                             u32 lane, bool full, u32 valid) {
    if (full) {
#pragma unroll
        for (int j = 0; j < ITEMS_PER_THREAD; ++j) x[j] = src[tile_start + warp_first + j * WARP_THREADS + lane];
    } else {
#pragma unroll
        for (int j = 0; j < ITEMS_PER_THREAD; ++j) {
            const u32 e = warp_first + j * WARP_THREADS + lane;
            x[j] = e < valid ? src[tile_start + e] : (T)0;
        }
    }
}

// Writes tile-sorted element r (key, and value with HAS_VALUES) to its output position.
__device__ __forceinline__ void scatter_one(u32 r, const Key* exchange_keys, const Value* exchange_values,
                                            const u64* global_off, Key* dst, Value* vdst, Key neg, Key pos, u32 shift,
                                            u32 mask) {
    const Key key = exchange_keys[r];
    const u64 out = global_off[digit_of(key, neg, pos, shift, mask)] + r;
    dst[out] = key;
#if HAS_VALUES
    vdst[out] = exchange_values[r];
#else
    (void)exchange_values;
    (void)vdst;
#endif
}

typedef sortlab::BlockScan<u32, BLOCK_THREADS> TileScan;

// Publishes the tile's count of each digit this thread owns (thread t owns digits
// t * DIGITS_PER_THREAD ...; count_of(d) gives it) for the tiles after this one, and gives the
// tile position of each such digit's first key (a block scan: every thread of the block calls).
template <typename CountOf>
__device__ __forceinline__ void publish_tile_counts(CountOf count_of, u32* status, u32 tile,
                                                    u32 (&counts)[DIGITS_PER_THREAD],
                                                    u32 (&tile_excl)[DIGITS_PER_THREAD],
                                                    typename TileScan::TempStorage& tmp) {
    u32 thread_sum = 0;
#pragma unroll
    for (int i = 0; i < DIGITS_PER_THREAD; ++i) {
        const u32 d = threadIdx.x * DIGITS_PER_THREAD + i;
        u32 c = 0;
        if (d < RADIX_DIGITS) {
            c = count_of(d);
            __stcg(status + (u64)tile * RADIX_DIGITS + d, (tile == 0 ? STATUS_INCLUSIVE : STATUS_AGGREGATE) | c);
        }
        counts[i] = c;
        thread_sum += c;
    }
    u32 tile_total;
    u32 excl = TileScan::exclusive_scan(thread_sum, 0u, sortlab::Sum(), tile_total, tmp);
#pragma unroll
    for (int i = 0; i < DIGITS_PER_THREAD; ++i) {
        tile_excl[i] = excl;
        excl += counts[i];
    }
}

// ---- 4. One pass over one portion: rank each tile, find its digit offsets, scatter. ----
// keys / values: the caller's buffers; spare_keys / spare_values: the spare ones (plan[pass]
// bit 1 says which is read). The portion is keys [start, start + len), `tiles` tiles, one per
// block (grid = tiles), handed out in order by `counter` (zeroed) so that a tile only waits on
// tiles whose blocks are running. base: this (pass, portion)'s RADIX_DIGITS output positions;
// next_base: the next portion's, written here (null for the last portion).
// status: this launch's tile status (zeroed); status_next: the next launch's, of which this
// launch zeroes the first status_tiles tiles. smem_bytes: the dynamic shared memory given.
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, MIN_BLOCKS)
onesweep_pass(Key* keys, Key* spare_keys, Value* values, Value* spare_values, u64 start, u64 len, u32 tiles,
              u32 shift, u32 width, Key neg, Key pos, Key flip, const u64* base, u64* next_base, u32* status, u32* status_next,
              u32 status_tiles, u32* counter, const u32* plan, u32 pass, u32 smem_bytes) {
    sortlab::dependent_entry();
    neg ^= flip;
    pos ^= flip;
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ typename TileScan::TempStorage scan_tmp;
    __shared__ u32 tile_shared;

    const u32 tid = threadIdx.x;
    const u32 lane = tid % WARP_THREADS;
    const u32 warp = tid / WARP_THREADS;

    if (smem_bytes < (u32)SMEM_BYTES) __trap();

    // Zero this block's share of the next launch's tile status.
    for (u64 s = blockIdx.x; s < status_tiles; s += gridDim.x) {
        for (u32 d = tid; d < RADIX_DIGITS; d += BLOCK_THREADS) status_next[s * RADIX_DIGITS + d] = 0;
    }

    const u32 step = plan[pass];
    if ((step & 1u) == 0) return;  // every key has the same digit: nothing moves
    const bool from_spare = (step & 2u) != 0;
    const Key* src = from_spare ? spare_keys : keys;
    Key* dst = from_spare ? keys : spare_keys;
#if HAS_VALUES
    const Value* vsrc = from_spare ? spare_values : values;
    Value* vdst = from_spare ? values : spare_values;
#else
    (void)values;
    (void)spare_values;
    Value* vdst = nullptr;
#endif

    u64* global_off = reinterpret_cast<u64*>(smem);
    Key* exchange_keys = reinterpret_cast<Key*>(smem + SMEM_OFF_KEYS);
#if HAS_VALUES
    Value* exchange_values = reinterpret_cast<Value*>(smem + SMEM_OFF_VALUES);
#else
    const Value* exchange_values = nullptr;
#endif
#if MATCH_ALGO == 3
    u32* tile_hist = reinterpret_cast<u32*>(smem + SMEM_OFF_WARP_HIST);
    u32* nibble_counts = reinterpret_cast<u32*>(smem + SMEM_OFF_NIBBLES);  // [2 splits][WARPS][16]
#if HAS_VALUES
    unsigned short* moves = reinterpret_cast<unsigned short*>(smem + SMEM_OFF_MOVES);
#endif
    for (u32 i = tid; i < RADIX_DIGITS; i += BLOCK_THREADS) tile_hist[i] = 0;
#else
    u32* warp_hist = reinterpret_cast<u32*>(smem + SMEM_OFF_WARP_HIST);
#if MATCH_ALGO == 2
    u32* warp_masks = reinterpret_cast<u32*>(smem + SMEM_OFF_MASKS);
#endif

    for (u32 i = tid; i < WARPS * RADIX_DIGITS; i += BLOCK_THREADS) {
        warp_hist[i] = 0;
#if MATCH_ALGO == 2
        warp_masks[i] = 0;
#endif
    }
#endif
    // One tile a block (persistent blocks measured slower: a claimed tile waits a scatter
    // before it starts, and the look-backs of the tiles after it wait on it).
    if (tid == 0) tile_shared = atomicAdd(counter, 1u);
    __syncthreads();
    const u32 tile = tile_shared;
    const u64 tile_start = start + (u64)tile * TILE_ITEMS;
    const u64 left = start + len - tile_start;
    const u32 valid = left < TILE_ITEMS ? (u32)left : (u32)TILE_ITEMS;
    const bool full = valid == TILE_ITEMS;
    const u32 mask = (1u << width) - 1u;

    // Load warp-striped: the warp's keys are tile elements warp * WARP_ITEMS + j * 32 + lane, so
    // each load is coalesced and ranking item j after item j - 1 (lanes in order) follows the
    // input order. Elements past the end get the largest digit: they rank after every real key.
    const u32 warp_first = warp * WARP_ITEMS;
    Key k[ITEMS_PER_THREAD];
    load_striped(k, src, tile_start, warp_first, lane, full, valid);

#if MATCH_ALGO == 3
    // First split, by the digit's low nibble: each key's packed rank in its warp, the tile's
    // digit counts (real keys only) and each warp's nibble counts.
    const u32 lower_lanes = lane_mask_lt();
    u32 rank[ITEMS_PER_THREAD];
    {
        u32 run = 0;
#pragma unroll
        for (int j = 0; j < ITEMS_PER_THREAD; ++j) {
            const u32 e = warp_first + j * WARP_THREADS + lane;
            const bool real = full || e < valid;
            const u32 d = real ? digit_of(k[j], neg, pos, shift, mask) : mask;
            if (real) atomicAdd(tile_hist + d, 1u);
            rank[j] = nibble_rank(d & (NIBBLES - 1), lane, lower_lanes, run);
        }
        if (lane < NIBBLES) nibble_counts[warp * NIBBLES + lane] = run;
    }
    __syncthreads();

    // The keys in low-nibble order; rank[j] becomes that position. Elements past the end have
    // the largest digit's nibble and follow the real keys of that nibble: positions
    // [pad_end - padding, pad_end).
    u32 pad_end;
    {
        u32 end;
        const u32 offset = nibble_offset(nibble_counts, warp, lane, end);
        pad_end = __shfl_sync(FULL_WARP, end, mask & (NIBBLES - 1));
#pragma unroll
        for (int j = 0; j < ITEMS_PER_THREAD; ++j) {
            rank[j] = nibble_place(rank[j], offset);
            exchange_keys[rank[j]] = k[j];
        }
    }

    // The tile's digit counts, published for the tiles after this one, and their exclusive scan
    // (whose barriers also make the low-nibble order visible to every warp).
    u32 counts[DIGITS_PER_THREAD];
    u32 tile_excl[DIGITS_PER_THREAD];  // the tile position of the digit's first key
    publish_tile_counts([&](u32 d) { return tile_hist[d]; }, status, tile, counts, tile_excl, scan_tmp);

    // Second split, by the high nibble, of the keys in low-nibble order (read warp-striped):
    // stable, so the tile ends sorted by the whole digit. With values, a key's place after the
    // first split rides in the top 16 bits of its packed rank in the second.
    {
        const u32 padding = TILE_ITEMS - valid;
        Key k2[ITEMS_PER_THREAD];
        load_striped(k2, exchange_keys, 0, warp_first, lane, true, TILE_ITEMS);
        u32 run = 0;
#pragma unroll
        for (int j = 0; j < ITEMS_PER_THREAD; ++j) {
            const u32 q = warp_first + j * WARP_THREADS + lane;
            const bool pad = !full && q >= pad_end - padding && q < pad_end;
            const u32 d = pad ? mask : digit_of(k2[j], neg, pos, shift, mask);
            rank[j] = nibble_rank(d >> 4, lane, lower_lanes, run) | (HAS_VALUES ? rank[j] << 16 : 0u);
        }
        if (lane < NIBBLES) nibble_counts[(WARPS + warp) * NIBBLES + lane] = run;
        __syncthreads();  // every warp's counts written, and every key of the first order read

        u32 end;
        const u32 offset = nibble_offset(nibble_counts + WARPS * NIBBLES, warp, lane, end);
#pragma unroll
        for (int j = 0; j < ITEMS_PER_THREAD; ++j) {
            const u32 r = nibble_place(rank[j], offset);
            exchange_keys[r] = k2[j];
#if HAS_VALUES
            moves[warp_first + j * WARP_THREADS + lane] = (unsigned short)r;
#endif
        }
    }

#if HAS_VALUES
    // Values: loaded now, so that the loads overlap the look-back; each key's place in the tile
    // is its place after the first split, moved by the second.
    Value v[ITEMS_PER_THREAD];
    load_striped(v, vsrc, tile_start, warp_first, lane, full, valid);
    __syncthreads();
#pragma unroll
    for (int j = 0; j < ITEMS_PER_THREAD; ++j) rank[j] = moves[rank[j] >> 16];
#endif
#else
    // Rank within the warp: lanes with equal digits are found together, the highest of them
    // adds their number to the warp's counter, each gets the old count plus its lower peers.
    u32* wh = warp_hist + warp * RADIX_DIGITS;
#if MATCH_ALGO == 2
    u32* wm = warp_masks + warp * RADIX_DIGITS;
#endif
    const u32 lower_lanes = lane_mask_lt();
    u32 rank[ITEMS_PER_THREAD];
#pragma unroll
    for (int j = 0; j < ITEMS_PER_THREAD; ++j) {
        const u32 e = warp_first + j * WARP_THREADS + lane;
        const u32 d = (full || e < valid) ? digit_of(k[j], neg, pos, shift, mask) : mask;
#if MATCH_ALGO == 2
        // Every lane sets its bit in its digit's mask; after the warp has read the masks, each
        // digit's highest lane (its leader) bumps the digit's counter and clears the mask.
        atomicOr(wm + d, 1u << lane);
        __syncwarp();
        const u32 peers = wm[d];
        __syncwarp();
        const u32 leader = 31 - __clz(peers);
        u32 before = 0;
        if (lane == leader) {
            // One read-modify-write instruction (only the leader touches wh[d] here): a key
            // costs shared-memory wavefronts more than instructions, and random digits
            // conflict about 3x (README.md lists the alternatives measured and not kept).
            before = atomicAdd(wh + d, (u32)__popc(peers));
            wm[d] = 0;
        }
        __syncwarp();
#else
        const u32 peers = match_digit(d);
        const u32 leader = 31 - __clz(peers);
        u32 before = 0;
        if (lane == leader) before = atomicAdd(wh + d, (u32)__popc(peers));
#endif
        before = __shfl_sync(FULL_WARP, before, leader);
        rank[j] = before + __popc(peers & lower_lanes);
    }
    __syncthreads();

    // Per digit (thread t owns digits t * DIGITS_PER_THREAD ...): the tile's count, published
    // for the tiles after this one; then, once the tile's digit prefix is scanned, each warp's
    // counter becomes the tile position of the warp's first key of the digit (in place), so that
    // a key's place in the tile is one read away.
    u32 counts[DIGITS_PER_THREAD];
    u32 tile_excl[DIGITS_PER_THREAD];  // the tile position of the digit's first key
    publish_tile_counts(
        [&](u32 d) {
            u32 c = 0;
#pragma unroll
            for (int w = 0; w < WARPS; ++w) c += warp_hist[w * RADIX_DIGITS + d];
            return c;
        },
        status, tile, counts, tile_excl, scan_tmp);
#pragma unroll
    for (int i = 0; i < DIGITS_PER_THREAD; ++i) {
        const u32 d = tid * DIGITS_PER_THREAD + i;
        if (d < RADIX_DIGITS) {
            u32 at = tile_excl[i];
#pragma unroll
            for (int w = 0; w < WARPS; ++w) {
                const u32 x = warp_hist[w * RADIX_DIGITS + d];
                warp_hist[w * RADIX_DIGITS + d] = at;
                at += x;
            }
        }
    }
    __syncthreads();

    // Each key's place in the tile sorted by digit (stable), and the keys put there.
#pragma unroll
    for (int j = 0; j < ITEMS_PER_THREAD; ++j) {
        const u32 e = warp_first + j * WARP_THREADS + lane;
        const u32 d = (full || e < valid) ? digit_of(k[j], neg, pos, shift, mask) : mask;
        rank[j] += wh[d];
        exchange_keys[rank[j]] = k[j];
    }

#if HAS_VALUES
    // Values: loaded now, so that the loads overlap the look-back (loaded with the keys, their
    // registers spill through the ranking; other orders: README.md).
    Value v[ITEMS_PER_THREAD];
    load_striped(v, vsrc, tile_start, warp_first, lane, full, valid);
#endif
#endif

    // Decoupled look-back, one digit per thread: add the predecessors' counts of the digit
    // until one with an inclusive count; publish this tile's inclusive count.
#pragma unroll
    for (int i = 0; i < DIGITS_PER_THREAD; ++i) {
        const u32 d = tid * DIGITS_PER_THREAD + i;
        if (d < RADIX_DIGITS) {
            u32 prefix = 0;
            if (tile > 0) {
                // LOOKBACK_WINDOW predecessors are read at once (independent loads, one
                // latency), then added in order up to the first inclusive one; a window stops
                // early at a tile that has published nothing yet, which is read again.
                i64 t = (i64)tile - 1;
                bool done = false;
                while (!done) {
                    u32 s[LOOKBACK_WINDOW];
#pragma unroll
                    for (int w = 0; w < LOOKBACK_WINDOW; ++w) {
                        s[w] = t - w >= 0 ? *(const volatile u32*)(status + (u64)(t - w) * RADIX_DIGITS + d)
                                          : STATUS_INCLUSIVE;
                    }
                    int used = 0;
#pragma unroll
                    for (int w = 0; w < LOOKBACK_WINDOW; ++w) {
                        if (!done && used == w && s[w] != 0) {
                            prefix += s[w] & STATUS_COUNT_MASK;
                            done = (s[w] & STATUS_INCLUSIVE) != 0;
                            ++used;
                        }
                    }
                    t -= used;
                }
                __stcg(status + (u64)tile * RADIX_DIGITS + d, STATUS_INCLUSIVE | (prefix + counts[i]));
            }
            // The portion's last tile (always full when a portion follows) hands the next
            // portion its digit offsets; that launch runs after this one ends.
            if (next_base != nullptr && tile == tiles - 1) next_base[d] = base[d] + (u64)prefix + counts[i];
            // Output position of tile-sorted element r of digit d: global_off[d] + r (64-bit:
            // 32-bit offsets where every position fits measured slower).
            global_off[d] = base[d] + (u64)prefix - (u64)tile_excl[i];
        }
    }

#if HAS_VALUES
#pragma unroll
    for (int j = 0; j < ITEMS_PER_THREAD; ++j) exchange_values[rank[j]] = v[j];
#endif
    __syncthreads();

    // Scatter in tile-sorted order: consecutive threads write consecutive positions of a digit.
    // Whole tiles take a loop without bounds checks.
    if (full) {
#pragma unroll
        for (int j = 0; j < ITEMS_PER_THREAD; ++j) {
            scatter_one(j * BLOCK_THREADS + tid, exchange_keys, exchange_values, global_off, dst, vdst, neg, pos,
                        shift, mask);
        }
    } else {
#pragma unroll
        for (int j = 0; j < ITEMS_PER_THREAD; ++j) {
            const u32 r = j * BLOCK_THREADS + tid;
            if (r < valid) scatter_one(r, exchange_keys, exchange_values, global_off, dst, vdst, neg, pos, shift, mask);
        }
    }
}
