// scan.cu: inclusive and exclusive scans (sum, max, min) of a key array, forward or in reverse,
// in the classic variants of GPU Gems 3 chapter 39 and one single-pass decoupled look-back
// variant (Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back").
//
// Defines:
//   KEY_T              the key's CUDA type
//   SCAN_OP            0 sum (wrapping for integers, in the key's own width), 1 max, 2 min
//                      (max and min by total order: on ordered bits)
//   SCAN_VARIANT       which kernels to build: 0 naive, 1 double-buffered, 2 work-efficient,
//                      3 hierarchical, 4 fast; -1 (the default) builds them all
//   BLOCK_THREADS      threads per block of the block-wide kernels (every one of them is launched
//                      with exactly this many; a power of two of at most 1024 for 1 to 3, a
//                      multiple of 32 for 4)
//   ITEMS_PER_THREAD   (fast) keys each thread scans in registers; odd keeps the shared-memory
//                      transposition free of bank conflicts
//   FAST_MIN_BLOCKS    (fast) resident blocks per SM its registers are capped for; 0: no cap
//
// Element j of the logical sequence is in[j] forward and in[n - 1 - j] in reverse; out uses the
// same map, so a reverse scan needs no extra pass. Every kernel reads indices < n only, indexes
// with 64 bits, and reads each element before any thread of the grid writes it, so `in == out`
// (an in-place scan) is allowed: no pointer is __restrict__.
#include "sortlab/thread/key_bits.cuh"
#include "sortlab/block/block_scan.cuh"
#include "sortlab/grid/tile_status.cuh"
#include "sortlab/block/bulk_copy.cuh"
#include "sortlab/warp/warp_reduce.cuh"
#include "sortlab/thread/key_defines.cuh"

#ifndef SCAN_OP
#define SCAN_OP 0
#endif
#ifndef SCAN_VARIANT
#define SCAN_VARIANT -1
#endif
#ifndef BLOCK_THREADS
#define BLOCK_THREADS 128
#endif
#ifndef ITEMS_PER_THREAD
#define ITEMS_PER_THREAD 31
#endif

#define WANT_VARIANT(v) (SCAN_VARIANT < 0 || SCAN_VARIANT == (v))

// The warp is 32 lanes (the naive scan's fixed size) and shared memory has 32 banks of 4 bytes:
// hardware constants, not tuning.
#define WARP_THREADS 32
#define LOG_NUM_BANKS 5

typedef sortlab::KeyBits<KEY_T> Map;
typedef Map::Bits Bits;

// ---- The operation: working type `Work`, its operator and identity, and the key <-> Work maps. ----

// Integer sums work in the unsigned type of the key's width (wrapping, no signed overflow).
template <typename K> struct SumWork { typedef K T; };
template <> struct SumWork<int> { typedef u32 T; };
template <> struct SumWork<long long> { typedef u64 T; };

// The additive identity: -0.0 for floats (-0.0 + x == x for every x, -0.0 included), 0 otherwise.
template <typename T> __device__ __forceinline__ T additive_identity() { return (T)0; }
template <> __device__ __forceinline__ float additive_identity<float>() { return -0.0f; }
template <> __device__ __forceinline__ double additive_identity<double>() { return -0.0; }

#if SCAN_OP == 0
typedef SumWork<KEY_T>::T Work;
typedef sortlab::Sum Op;
__device__ __forceinline__ Work identity() { return additive_identity<Work>(); }
__device__ __forceinline__ Work to_work(KEY_T k) { return (Work)k; }
__device__ __forceinline__ KEY_T from_work(Work w) { return (KEY_T)w; }
// What an exclusive scan writes where the prefix is empty (logical element 0): +0.
__device__ __forceinline__ KEY_T empty_prefix() { return (KEY_T)0; }
#elif SCAN_OP == 1
typedef Bits Work;
typedef sortlab::Max Op;
__device__ __forceinline__ Work identity() { return (Work)0; }
__device__ __forceinline__ Work to_work(KEY_T k) { return Map::to_bits(k); }
__device__ __forceinline__ KEY_T from_work(Work w) { return Map::from_bits(w); }
__device__ __forceinline__ KEY_T empty_prefix() { return Map::from_bits(identity()); }
#elif SCAN_OP == 2
typedef Bits Work;
typedef sortlab::Min Op;
__device__ __forceinline__ Work identity() { return (Work)~(Work)0; }
__device__ __forceinline__ Work to_work(KEY_T k) { return Map::to_bits(k); }
__device__ __forceinline__ KEY_T from_work(Work w) { return Map::from_bits(w); }
__device__ __forceinline__ KEY_T empty_prefix() { return Map::from_bits(identity()); }
#else
#error "SCAN_OP must be 0 (sum), 1 (max) or 2 (min)"
#endif

// Physical index of logical element j.
__device__ __forceinline__ u64 phys(u64 j, u64 n, u32 reverse) { return reverse ? n - 1 - j : j; }

// Element i of the input as Work: a key (KEYS) or a partial.
template <bool KEYS, typename In> __device__ __forceinline__ Work load(const In* in, u64 i) {
    if constexpr (KEYS) {
        return to_work(in[i]);
    } else {
        return in[i];
    }
}

// Writes the scan value `w` of logical element j to out[i]; for keys, an exclusive scan's empty
// prefix (j == 0) is written as +0 / LOWEST / HIGHEST.
template <bool KEYS, typename Out>
__device__ __forceinline__ void store(Out* out, u64 i, Work w, u64 j, u32 exclusive) {
    if constexpr (KEYS) {
        out[i] = (exclusive && j == 0) ? empty_prefix() : from_work(w);
    } else {
        out[i] = w;
    }
}

// ---- Variant 0: naive, Hillis-Steele in one warp (n <= 32). Launch: one block of 32 threads. ----
#if WANT_VARIANT(0)
extern "C" __global__ void __launch_bounds__(WARP_THREADS)
scan_naive(const KEY_T* in, KEY_T* out, u64 n, u32 exclusive, u32 reverse) {
    const u32 lane = threadIdx.x;
    // An exclusive scan is the inclusive scan of the input shifted right by one (GPU Gems 39-1).
    const u64 src = exclusive ? (u64)lane - 1 : (u64)lane;
    Work x = ((!exclusive || lane > 0) && src < n) ? to_work(in[phys(src, n, reverse)]) : identity();
#pragma unroll
    for (u32 offset = 1; offset < WARP_THREADS; offset <<= 1) {
        const Work y = sortlab::shfl_up(x, offset);
        if (lane >= offset) x = Op()(y, x);
    }
    if (lane < n) store<true>(out, phys(lane, n, reverse), x, lane, exclusive);
}
#endif

// ---- Variant 1: Hillis-Steele with two shared buffers in one block (n <= BLOCK_THREADS, GPU
// Gems 39-1). ----
#if WANT_VARIANT(1)
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)
scan_double_buffered(const KEY_T* in, KEY_T* out, u64 n, u32 exclusive, u32 reverse) {
    __shared__ Work buf[2][BLOCK_THREADS];
    const u32 tid = threadIdx.x;
    const u64 src = exclusive ? (u64)tid - 1 : (u64)tid;
    buf[0][tid] = ((!exclusive || tid > 0) && src < n) ? to_work(in[phys(src, n, reverse)]) : identity();
    __syncthreads();
    u32 pout = 0;
    for (u32 offset = 1; offset < BLOCK_THREADS && offset < n; offset <<= 1) {
        const u32 pin = pout;
        pout = 1 - pout;
        buf[pout][tid] = tid >= offset ? Op()(buf[pin][tid - offset], buf[pin][tid]) : buf[pin][tid];
        __syncthreads();
    }
    if (tid < n) store<true>(out, phys(tid, n, reverse), buf[pout][tid], tid, exclusive);
}
#endif

// ---- Variants 2 and 3: Blelloch's work-efficient scan (up-sweep, down-sweep) of tiles of
// 2 * BLOCK_THREADS elements, with GPU Gems 39's bank-conflict padding. Variant 2 runs one tile;
// variant 3 (hierarchical, any length) writes each tile's total to `tile_sums`, scans those
// recursively (the `_partials` kernels, in place) and adds them back (add_prefix_*). ----
#if WANT_VARIANT(2) || WANT_VARIANT(3)
#define TILE_ELEMS (2 * BLOCK_THREADS)
#define CONFLICT_FREE_OFFSET(i) ((i) >> LOG_NUM_BANKS)
static_assert(BLOCK_THREADS >= 32 && BLOCK_THREADS <= 1024 && (BLOCK_THREADS & (BLOCK_THREADS - 1)) == 0,
              "the work-efficient scan needs a power-of-two block of 32 to 1024 threads");

template <bool KEYS, typename In, typename Out>
__device__ __forceinline__ void blelloch_tiles(const In* in, Out* out, u64 n, Work* tile_sums, u32 exclusive,
                                               u32 reverse) {
    __shared__ Work temp[TILE_ELEMS + TILE_ELEMS / (1 << LOG_NUM_BANKS)];
    const u32 tid = threadIdx.x;
    const u32 ai = tid;
    const u32 bi = tid + BLOCK_THREADS;
    const u32 pa = ai + CONFLICT_FREE_OFFSET(ai);
    const u32 pb = bi + CONFLICT_FREE_OFFSET(bi);
    const u64 tiles = (n + TILE_ELEMS - 1) / TILE_ELEMS;
    for (u64 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const u64 ja = tile * TILE_ELEMS + ai;
        const u64 jb = tile * TILE_ELEMS + bi;
        const Work a = ja < n ? load<KEYS>(in, phys(ja, n, reverse)) : identity();
        const Work b = jb < n ? load<KEYS>(in, phys(jb, n, reverse)) : identity();
        temp[pa] = a;
        temp[pb] = b;
        // Up-sweep: build the sum tree in place.
        u32 offset = 1;
        for (u32 d = BLOCK_THREADS; d > 0; d >>= 1) {
            __syncthreads();
            if (tid < d) {
                u32 x = offset * (2 * tid + 1) - 1;
                u32 y = offset * (2 * tid + 2) - 1;
                x += CONFLICT_FREE_OFFSET(x);
                y += CONFLICT_FREE_OFFSET(y);
                temp[y] = Op()(temp[x], temp[y]);
            }
            offset <<= 1;
        }
        if (tid == 0) {
            const u32 root = TILE_ELEMS - 1 + CONFLICT_FREE_OFFSET(TILE_ELEMS - 1);
            if (tile_sums != nullptr) tile_sums[tile] = temp[root];
            temp[root] = identity();
        }
        // Down-sweep: each node passes its prefix to the left child, prefix + left sum to the right.
        for (u32 d = 1; d < TILE_ELEMS; d <<= 1) {
            offset >>= 1;
            __syncthreads();
            if (tid < d) {
                u32 x = offset * (2 * tid + 1) - 1;
                u32 y = offset * (2 * tid + 2) - 1;
                x += CONFLICT_FREE_OFFSET(x);
                y += CONFLICT_FREE_OFFSET(y);
                const Work left = temp[x];
                temp[x] = temp[y];
                temp[y] = Op()(temp[y], left);
            }
        }
        __syncthreads();
        const Work ea = temp[pa];
        const Work eb = temp[pb];
        if (ja < n) store<KEYS>(out, phys(ja, n, reverse), exclusive ? ea : Op()(ea, a), ja, exclusive);
        if (jb < n) store<KEYS>(out, phys(jb, n, reverse), exclusive ? eb : Op()(eb, b), jb, exclusive);
        __syncthreads();
    }
}

// Scans each tile of the keys; `tile_sums` (one per tile) may be null when there is one tile.
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)
scan_tiles_keys(const KEY_T* in, KEY_T* out, u64 n, Work* tile_sums, u32 exclusive, u32 reverse) {
    blelloch_tiles<true>(in, out, n, tile_sums, exclusive, reverse);
}
#endif

#if WANT_VARIANT(3)
// Exclusive forward scan of each tile of partials, in place.
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)
scan_tiles_partials(Work* data, u64 n, Work* tile_sums) {
    blelloch_tiles<false>(data, data, n, tile_sums, 1u, 0u);
}

// Logical element j of tile t >= 1 becomes op(prefix[t], element): the scan of the tile totals
// (exclusive) added back.
template <bool KEYS, typename Out>
__device__ __forceinline__ void add_prefix(Out* out, u64 n, const Work* prefix, u32 reverse) {
    const u64 stride = (u64)gridDim.x * BLOCK_THREADS;
    for (u64 j = TILE_ELEMS + (u64)blockIdx.x * BLOCK_THREADS + threadIdx.x; j < n; j += stride) {
        const u64 i = phys(j, n, reverse);
        const Work w = Op()(prefix[j / TILE_ELEMS], load<KEYS>(out, i));
        if constexpr (KEYS) {
            out[i] = from_work(w);
        } else {
            out[i] = w;
        }
    }
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)
add_prefix_keys(KEY_T* out, u64 n, const Work* prefix, u32 reverse) {
    add_prefix<true>(out, n, prefix, reverse);
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)
add_prefix_partials(Work* out, u64 n, const Work* prefix) {
    add_prefix<false>(out, n, prefix, 0u);
}
#endif

// ---- Variant 4: fast, single pass with decoupled look-back. ----
//
// Tiles of BLOCK_THREADS * ITEMS_PER_THREAD keys are handed out in order by an atomic counter
// (never by blockIdx, so a tile only ever waits for tiles that running blocks hold). A block
// copies its tile into shared memory without registers (sm_90: one bulk copy of a whole tile,
// forward, or in reverse where input and output both align; else cp.async per key, or checked
// loads for the last tile), sums each thread's consecutive keys there, scans the sums with warp
// shuffles, and publishes its total as AGGREGATE; warp 0 then looks back over up to 32
// predecessors at a time, combining AGGREGATEs until it meets an INCLUSIVE prefix, and publishes
// its own INCLUSIVE prefix. Each thread then scans its keys in place from its prefix, and the
// tile goes out (a bulk copy, or striped).
// Holding no keys in registers, a thread needs about 32 of them, so shared memory alone limits
// the blocks per SM (seven tiles of 31 KiB, every key of them in flight at once).
//
// Tile status: `status` holds the tile counter in word 0, then one status word per tile
// (sortlab/grid/tile_status.cuh), all 0 at launch; 8-byte Works go to `tile_values` (2 * tiles).
#if WANT_VARIANT(4)
#define TILE_ITEMS (BLOCK_THREADS * ITEMS_PER_THREAD)
static_assert(BLOCK_THREADS >= 32 && BLOCK_THREADS <= 1024 && BLOCK_THREADS % 32 == 0,
              "the fast scan needs a block of 32 to 1024 threads, a multiple of 32");
static_assert(ITEMS_PER_THREAD >= 1, "ITEMS_PER_THREAD must be positive");

// Publishes `value` as `kind` for `tile`.
__device__ __forceinline__ void publish(u64* status, Work* tile_values, u32 tiles, u32 tile, u32 kind, Work value) {
    sortlab::tile_publish(status + 1, tile_values, tiles, tile, kind, value);
}

// Called by all of warp 0 of the block holding `tile` >= 1: the op over every earlier tile.
__device__ __forceinline__ Work look_back(const u64* status, const Work* tile_values, u32 tiles, u32 tile) {
    const u32 lane = sortlab::lane_id();
    Work later = identity();  // op over the tiles between the window and `tile`
    i64 window = (i64)tile - 1;  // the window is tiles window - 31 .. window, lane l on window - l
    while (true) {
        const i64 t = window - (i64)lane;
        u32 kind;
        const Work v = sortlab::tile_status_read(status + 1, tile_values, tiles, t, identity(), kind);
        const u32 inclusive_lanes = __ballot_sync(SORTLAB_FULL_WARP, kind == sortlab::TILE_INCLUSIVE);
        // The nearest tile with an inclusive prefix ends the look-back; older ones are not needed.
        const u32 stop = inclusive_lanes ? (u32)(__ffs(inclusive_lanes) - 1) : (u32)(WARP_THREADS - 1);
        const Work window_total = sortlab::warp_reduce<32>(lane <= stop ? v : identity(), Op());
        later = Op()(window_total, later);
        if (inclusive_lanes) return later;
        window -= WARP_THREADS;
    }
}

// The tile is loaded as raw keys and read as Works in place (the same size).
static_assert(sizeof(Work) == sizeof(KEY_T), "a Work takes a key's place in the tile");

// A whole tile's elements, thread tid's striped share: src[k * Step] (Step = +-BLOCK_THREADS,
// forward or in reverse: immediate offsets) into raw[k * BLOCK_THREADS + tid] by asynchronous
// copies (cp.async, sm_80+): global to shared memory without registers, so every load of the
// tile is in flight at once whatever the registers allow; then waits for them.
template <int Step>
__device__ __forceinline__ void load_whole(const KEY_T* src, KEY_T* raw, u32 tid) {
#pragma unroll
    for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
        const u32 dst = (u32)__cvta_generic_to_shared(raw + k * BLOCK_THREADS + tid);
        if constexpr (sizeof(KEY_T) == 4) {
            asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(src + k * Step) : "memory");
        } else {
            asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(dst), "l"(src + k * Step) : "memory");
        }
    }
    asm volatile("cp.async.wait_all;\n" ::: "memory");
}
// The op over a thread's keys mine[k * Step], k < ITEMS_PER_THREAD.
template <int Step>
__device__ __forceinline__ Work thread_reduce(const KEY_T* mine) {
    Work total = to_work(mine[0]);
#pragma unroll
    for (int k = 1; k < ITEMS_PER_THREAD; ++k) total = Op()(total, to_work(mine[k * Step]));
    return total;
}

// Scans a thread's keys mine[k * Step] in place from `running`, inclusive or exclusive.
template <int Step>
__device__ __forceinline__ void thread_scan(KEY_T* mine, Work running, u32 exclusive) {
#pragma unroll
    for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
        const Work v = to_work(mine[k * Step]);
        if (exclusive) {
            mine[k * Step] = from_work(running);
            running = Op()(running, v);
        } else {
            running = Op()(running, v);
            mine[k * Step] = from_work(running);
        }
    }
}

template <int Step>
__device__ __forceinline__ void store_whole(KEY_T* dst, const KEY_T* raw, u32 tid) {
#pragma unroll 8
    for (int k = 0; k < ITEMS_PER_THREAD; ++k) dst[k * Step] = raw[k * BLOCK_THREADS + tid];
}

// Whole tiles of 16-byte aligned arrays move with one bulk copy each way where the hardware has
// them (sortlab/block/bulk_copy.cuh: sm_90+); elsewhere by cp.async and stores.
#define FAST_BULK SORTLAB_BULK_COPY

// Resident blocks per SM the fast kernel's registers are capped for (__launch_bounds__; 0: no
// cap).
#ifndef FAST_MIN_BLOCKS
#define FAST_MIN_BLOCKS 0
#endif

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, FAST_MIN_BLOCKS)
scan_fast(const KEY_T* in, KEY_T* out, u64 n, u32 exclusive, u32 reverse, u64* status, Work* tile_values,
          u32 tiles) {
    typedef sortlab::BlockScan<Work, BLOCK_THREADS> BlockScanT;
    __shared__ __align__(128) Work tile_data[TILE_ITEMS];
    __shared__ typename BlockScanT::TempStorage scan_tmp;
    __shared__ u32 tile_id;
    __shared__ Work tile_prefix_shared;

    u32* counter = reinterpret_cast<u32*>(status);
    const u32 tid = threadIdx.x;
#if FAST_BULK
    __shared__ u64 bulk_bar;
    u32 bulk_parity = 0;
    // A whole tile's keys lie at [mem, mem + TILE_ITEMS) (mem = start forward, n - start -
    // TILE_ITEMS in reverse): the same alignment for every tile, as TILE_ITEMS keys are 16-byte
    // multiples. In reverse both copies must be possible: the tile then sits in shared memory in
    // memory order (flipped), logical element e at TILE_ITEMS - 1 - e.
    constexpr bool tile_vectors = (TILE_ITEMS * sizeof(KEY_T)) % 16 == 0;
    const u64 mem0 = reverse && n >= TILE_ITEMS ? n - TILE_ITEMS : 0;
    const bool bulk_in = tile_vectors && ((u64)(in + mem0) & 15) == 0;
    const bool bulk_out = tile_vectors && ((u64)(out + mem0) & 15) == 0 && (!reverse || bulk_in);
    if (tid == 0) sortlab::bulk_barrier_init(&bulk_bar);
    __syncthreads();
#endif

    while (true) {
        if (tid == 0) {
            const u32 t = atomicAdd(counter, 1u);
#if FAST_BULK
            sortlab::bulk_store_reads_done();  // the previous tile's bulk store has read the buffer
#endif
            tile_id = t;
        }
        __syncthreads();
        const u32 tile = tile_id;
        if (tile >= tiles) break;
        const u64 start = (u64)tile * TILE_ITEMS;

        // Load striped (coalesced), read back blocked: thread tid holds items tid * ITEMS ...
        // A whole tile (every tile but the last) needs no bounds checks: its elements are one
        // pointer and a fixed stride apart, forward or in reverse.
        const bool whole = start + TILE_ITEMS <= n;
        const u64 first = whole ? phys(start + tid, n, reverse) : 0;
        KEY_T* raw = reinterpret_cast<KEY_T*>(tile_data);
        bool flipped = false;
#if FAST_BULK
        const u64 mem = reverse ? n - start - TILE_ITEMS : start;  // used for whole tiles only
        if (whole && bulk_in && (!reverse || bulk_out)) {
            if (tid == 0) sortlab::bulk_load(raw, in + mem, TILE_ITEMS * sizeof(KEY_T), &bulk_bar);
            sortlab::bulk_wait(&bulk_bar, bulk_parity);
            bulk_parity ^= 1;
            flipped = reverse;
        } else
#endif
        if (whole && !reverse) {
            load_whole<BLOCK_THREADS>(in + first, raw, tid);
        } else if (whole) {
            load_whole<-BLOCK_THREADS>(in + first, raw, tid);
        } else {
            // The last tile: checked loads, a few at a time (their registers would cap the blocks).
#pragma unroll 4
            for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
                const u64 j = start + (u64)k * BLOCK_THREADS + tid;
                raw[k * BLOCK_THREADS + tid] = j < n ? in[phys(j, n, reverse)] : from_work(identity());
            }
        }
        __syncthreads();
        // The thread's items stay in shared memory (read twice, not held in registers across the
        // look-back): few registers, so as many blocks per SM as the tiles' shared memory allows,
        // and more loads in flight.
        // Thread tid's logical items tid * ITEMS + k at mine[k * Step] (Step -1 when flipped).
        KEY_T* mine = flipped ? raw + (TILE_ITEMS - 1 - tid * ITEMS_PER_THREAD) : raw + tid * ITEMS_PER_THREAD;
        const Work thread_total = flipped ? thread_reduce<-1>(mine) : thread_reduce<1>(mine);

        Work block_total;
        const Work thread_prefix = BlockScanT::exclusive_scan(thread_total, identity(), Op(), block_total, scan_tmp);

        Work tile_prefix = identity();
        if (tile == 0) {
            if (tid == 0) publish(status, tile_values, tiles, 0, sortlab::TILE_INCLUSIVE, block_total);
        } else {
            if (tid < WARP_THREADS) {
                if (tid == 0) publish(status, tile_values, tiles, tile, sortlab::TILE_AGGREGATE, block_total);
                const Work p = look_back(status, tile_values, tiles, tile);
                if (tid == 0) {
                    publish(status, tile_values, tiles, tile, sortlab::TILE_INCLUSIVE, Op()(p, block_total));
                    tile_prefix_shared = p;
                }
            }
            __syncthreads();
            tile_prefix = tile_prefix_shared;
        }

        // Scan the thread's items from its prefix, in place in shared memory (blocked; only this
        // thread touches them) ...
        const Work running = Op()(tile_prefix, thread_prefix);
        if (flipped) {
            thread_scan<-1>(mine, running, exclusive);
        } else {
            thread_scan<1>(mine, running, exclusive);
        }
        // An exclusive scan's logical element 0 (tile 0, thread 0's first) has the empty prefix.
        if (exclusive && tile == 0 && tid == 0) mine[0] = empty_prefix();
        __syncthreads();
        // ... and store the keys: one bulk copy, or striped (coalesced).
#if FAST_BULK
        if (whole && bulk_out && (flipped || !reverse)) {
            if (tid == 0) sortlab::bulk_store(out + mem, raw, TILE_ITEMS * sizeof(KEY_T));
        } else
#endif
        if (whole && !reverse) {
            store_whole<BLOCK_THREADS>(out + first, raw, tid);
        } else if (whole) {
            store_whole<-BLOCK_THREADS>(out + first, raw, tid);
        } else {
#pragma unroll 4
            for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
                const u64 j = start + (u64)k * BLOCK_THREADS + tid;
                if (j < n) out[phys(j, n, reverse)] = raw[k * BLOCK_THREADS + tid];
            }
        }
        __syncthreads();
    }
#if FAST_BULK
    if (tid == 0) sortlab::bulk_store_drain();
#endif
}
#endif
