// sort.cu: sorting a k-sorted key array (roughsort), keys only or key-value, stably.
//
// Altman-Chlebus: in a k-sorted sequence, sorting every run of 2m keys (m >= k) from position 0
// and then every run of 2m from position m sorts it; the second pass merges the sorted upper
// half of one run with the sorted lower half of the next. The kernels:
//
//   sort_windows     one block per window of at most WINDOW = BLOCK_THREADS * ITEMS_PER_THREAD
//                    keys, loaded into registers (blocked) through shared memory, padded with the
//                    largest rank. Two modes:
//                    - window (before = k + 1, after = k, out of place): block b writes the sorted
//                      positions [s, s + T) (s = b * T) from the window of input positions
//                      [s - k - 1, s + T + k): in a k-sorted input every key is at most k places
//                      from its sorted place, so those are exactly the window's sorted elements
//                      at the same offsets. The window is k-sorted too, so Altman-Chlebus sorts it
//                      in registers and shared memory: a stable sort of each thread's items,
//                      merges up to runs of 2m (keys alone: bitonic merge steps in each warp's
//                      registers up to runs of a warp's items, then merge levels in shared
//                      memory), one merge level of runs m from offset m (keys alone, 2m at most a
//                      warp's items: in the warps too). With `check`, the
//                      block first checks that its window is k-sorted (a prefix maximum against
//                      the key k + 1 places on); the windows overlap so that every pair of
//                      positions k + 1 to 2k + 1 apart lies in one window, and a sequence with
//                      no such pair out of order is k-sorted (an inversion further apart has a
//                      shorter one beside it), so the blocks together check the whole input.
//                    - run (before = after = 0, in place allowed): block b sorts positions
//                      [b * WINDOW, (b + 1) * WINDOW) into sorted runs of 2 * run_half.
//   sort_runs_chained  (keys alone) one block per run of WINDOW keys, taken in order by a
//                    ticket: sorts the run, publishes its upper half in place, waits for the
//                    previous run's, merges that with its own lower half and writes the merge:
//                    Altman-Chlebus with m = WINDOW / 2 in one pass (see the kernel)
//   merge_partition  one thread per merge tile of MERGE_TILE = MERGE_THREADS * MERGE_ITEMS
//                    outputs: the merge-path split at the tile's start within its segment
//   merge_pass       one block per merge tile: merges pairs of sorted runs of `run` keys from
//                    position `offset` (the keys before `offset` are copied), global memory to
//                    global memory; `run` and `offset` are multiples of MERGE_TILE, so a tile
//                    never straddles two segments.
//
// Every merge is stable (ties take from the earlier run); each thread merges its outputs in
// two independent chains of half its items (two merge-path searches) for more loads in flight.
// So is the sort of each thread's items in registers (a sorting network whose ties are broken by
// source position), so key-value sorts are stable. Values move once per kernel: each key
// carries its source index.
//
// Defines:
//   KEY_T              the key's CUDA type
//   HAS_VALUES         1 for key-value sorts (then VALUE_T, moved as raw bits), 0 for keys only
//   VALUE_T            the value's CUDA type (unsigned int or unsigned long long)
//   BLOCK_THREADS      threads of sort_windows (a multiple of 32)
//   ITEMS_PER_THREAD   keys per thread of sort_windows (a power of two)
//   WINDOW_MIN_BLOCKS  resident blocks per SM sort_windows' registers are capped for
//   MERGE_THREADS      threads of merge_pass and merge_partition (a multiple of 32)
//   MERGE_ITEMS        keys per thread of merge_pass (even)
//
// Order: every kernel takes `flip`, 0 for ascending, all ones for descending; a key's rank is
// its ordered bits xor flip, and kernels compare ranks only. Array indices are 64-bit.
#include "sortlab/thread/key_bits.cuh"
#include "sortlab/thread/merge_path.cuh"
#include "sortlab/warp/operators.cuh"
#include "sortlab/warp/shuffle.cuh"
#include "sortlab/block/block_scan.cuh"
#include "sortlab/thread/key_defines.cuh"

#ifndef BLOCK_THREADS
#define BLOCK_THREADS 512
#endif
#ifndef ITEMS_PER_THREAD
#define ITEMS_PER_THREAD 16
#endif
#ifndef MERGE_THREADS
#define MERGE_THREADS 128
#endif
#ifndef MERGE_ITEMS
#define MERGE_ITEMS 16
#endif

#ifndef WINDOW_MIN_BLOCKS
#define WINDOW_MIN_BLOCKS 1
#endif

#define WINDOW (BLOCK_THREADS * ITEMS_PER_THREAD)
#define MERGE_TILE (MERGE_THREADS * MERGE_ITEMS)

static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS <= 1024, "BLOCK_THREADS: a multiple of 32, at most 1024");
static_assert((ITEMS_PER_THREAD & (ITEMS_PER_THREAD - 1)) == 0, "ITEMS_PER_THREAD: a power of two");
static_assert(MERGE_THREADS % 32 == 0 && MERGE_THREADS <= 1024, "MERGE_THREADS: a multiple of 32, at most 1024");
static_assert(MERGE_ITEMS % 2 == 0 && ITEMS_PER_THREAD % 2 == 0, "items per thread: even (two merge chains)");

typedef sortlab::KeyBits<KEY_T> Map;
typedef Map::Bits Bits;
typedef VALUE_T Value;
typedef sortlab::BlockScan<Bits, BLOCK_THREADS> BlockScanT;

// Shared memory has 32 banks of 4 bytes (a hardware constant): one slot of padding per 32
// four-byte words (16 eight-byte words) keeps blocked accesses free of bank conflicts.
#define PAD_SHIFT (sizeof(Bits) == 4 ? 5 : 4)
__device__ __forceinline__ u32 pad(u32 i) { return i + (i >> PAD_SHIFT); }
#define PADDED(len) ((len) + ((len) >> PAD_SHIFT))
// Bytes of the shared slot array that holds keys, then values (whichever is wider).
#define SLOT_BYTES (sizeof(Bits) > sizeof(Value) ? sizeof(Bits) : sizeof(Value))

__device__ __forceinline__ Bits rank_of(KEY_T k, Bits flip) { return Map::to_bits(k) ^ flip; }
__device__ __forceinline__ KEY_T key_of(Bits r, Bits flip) { return Map::from_bits(r ^ flip); }
__device__ __forceinline__ Bits highest_rank() { return (Bits)~(Bits)0; }

// Serial stable merge of `Items` outputs of A = s[.. a1) and B = s[.. b1) in two independent
// chains (more loads in flight): outputs 0 .. Items/2 - 1 from A index a and B index b,
// outputs Items/2 .. Items - 1 from A index c and B index d. Keys into `key`, shared source
// slots into `from`. Ties take from A (stable).
template <int Items>
__device__ __forceinline__ void serial_merge(const Bits* s, u32 a, u32 b, u32 c, u32 d, u32 a1, u32 b1,
                                             Bits (&key)[Items], u32 (&from)[Items]) {
    static_assert(Items % 2 == 0, "two chains of Items / 2");
    Bits ka = a < a1 ? s[pad(a)] : highest_rank();
    Bits kb = b < b1 ? s[pad(b)] : highest_rank();
    Bits kc = c < a1 ? s[pad(c)] : highest_rank();
    Bits kd = d < b1 ? s[pad(d)] : highest_rank();
#pragma unroll
    for (int k = 0; k < Items / 2; ++k) {
        const bool take_b = b < b1 && (a >= a1 || kb < ka);
        key[k] = take_b ? kb : ka;
        from[k] = take_b ? b : a;
        const bool take_d = d < b1 && (c >= a1 || kd < kc);
        key[Items / 2 + k] = take_d ? kd : kc;
        from[Items / 2 + k] = take_d ? d : c;
        if (take_b) {
            ++b;
            kb = b < b1 ? s[pad(b)] : highest_rank();
        } else {
            ++a;
            ka = a < a1 ? s[pad(a)] : highest_rank();
        }
        if (take_d) {
            ++d;
            kd = d < b1 ? s[pad(d)] : highest_rank();
        } else {
            ++c;
            kc = c < a1 ? s[pad(c)] : highest_rank();
        }
    }
}

// Orders two keys: the smaller to a.
__device__ __forceinline__ void order2(Bits& a, Bits& b) {
    const Bits x = a;
    const Bits y = b;
    a = y < x ? y : x;
    b = y < x ? x : y;
}

// Compare-exchange of items i < l: the smaller to i. With values, ties are broken by `index`
// (the source window position, all distinct), so a network of these sorts stably; keys alone
// need no tie-break (equal keys are bit-identical).
__device__ __forceinline__ void compare_exchange(Bits (&key)[ITEMS_PER_THREAD], u32 (&index)[ITEMS_PER_THREAD], int i,
                                                 int l) {
#if HAS_VALUES
    if (key[l] < key[i] || (key[l] == key[i] && index[l] < index[i])) {
        const Bits t = key[i];
        key[i] = key[l];
        key[l] = t;
        const u32 u = index[i];
        index[i] = index[l];
        index[l] = u;
    }
#else
    (void)index;
    order2(key[i], key[l]);
#endif
}

// Sorts the thread's items in registers with Batcher's odd-even merge sort (ITEMS_PER_THREAD a
// power of two; 63 compare-exchanges for 16 items, 191 for 32, against 80 and 240 for a
// bitonic sort); stable with values (see compare_exchange).
__device__ __forceinline__ void register_sort(Bits (&key)[ITEMS_PER_THREAD], u32 (&index)[ITEMS_PER_THREAD]) {
    constexpr int N = ITEMS_PER_THREAD;
#pragma unroll
    for (int p = 1; p < N; p <<= 1) {
#pragma unroll
        for (int k = p; k >= 1; k >>= 1) {
#pragma unroll
            for (int a = 0; a < N; ++a) {
                // Batcher's pairs (a, a + k): a = j + i with j = k % p + 2 k t and i < k, both
                // inside one block of 2 p (k and p powers of two).
                const int r = a - (k & (p - 1));
                if (a + k < N && r >= 0 && (r & (2 * k - 1)) < k && (a & ~(2 * p - 1)) == ((a + k) & ~(2 * p - 1))) {
                    compare_exchange(key, index, a, a + k);
                }
            }
        }
    }
}

// ---- Warp bitonic merging, keys alone (blocked: lane l holds warp positions [I l, I l + I) in
// registers, I = ITEMS_PER_THREAD). A merge step of size S (2 I <= S <= WARP_RUN) turns every
// pair of ascending runs of S / 2 (aligned to S) into one ascending run of S: a mirrored
// compare-exchange (position i against i ^ (S - 1)), then half-cleaners of strides S / 4 down
// to 1. Strides of a thread's items or more cross lanes (shuffles), smaller ones stay in
// registers; no shared memory, no barrier. Not stable, so key-value sorts keep the merge levels (equal keys alone are
// bit-identical); for keys alone they beat the merge levels (README.md). A lane-crossing
// compare-exchange takes a shuffle, a compare folded with the lane's side (ISETP.XOR) and a
// select.
#define WARP_RUN (32 * ITEMS_PER_THREAD)
#if !HAS_VALUES

// Cross-lane compare-exchange: item k against item k (Mirror: ITEMS_PER_THREAD - 1 - k) of lane
// lane ^ lane_mask; the lane with the lower positions keeps the smaller. Written as one select
// on (partner < mine) == low, not as `low ? min : max`: the compiler hoists a branch on the lane
// out of the unrolled items (the warp then splits around its shuffles), and a predicated min and
// max issue two instructions anyway.
template <bool Mirror>
__device__ __forceinline__ void lane_stage(Bits (&key)[ITEMS_PER_THREAD], u32 lane_mask) {
    const u32 top = Mirror ? (lane_mask + 1) >> 1 : lane_mask;  // the lane bit that tells the pair apart
    const bool low = (sortlab::lane_id() & top) == 0;
#pragma unroll
    for (int k = 0; k < (Mirror ? ITEMS_PER_THREAD / 2 : ITEMS_PER_THREAD); ++k) {
        const int j = Mirror ? ITEMS_PER_THREAD - 1 - k : k;
        const Bits pk = sortlab::shfl_xor(key[j], (int)lane_mask);  // partner of item k
        if (Mirror) {
            const Bits pj = sortlab::shfl_xor(key[k], (int)lane_mask);  // partner of item j
            key[j] = ((pj < key[j]) == low) ? pj : key[j];
        }
        key[k] = ((pk < key[k]) == low) ? pk : key[k];
    }
}

// log2 of a power of two, at compile time.
__host__ __device__ constexpr int ilog2(int x) { return x > 1 ? 1 + ilog2(x >> 1) : 0; }

// The warp's WARP_RUN keys from blocked (lane l holds warp positions [l I, l I + I)) to striped
// (lane l holds l, l + 32, l + 64, ...) and back, through the warp's own WARP_RUN slots of the
// padded shared window (positions [w WARP_RUN, (w + 1) WARP_RUN) for warp w): a thread's
// blocked items lie in one padded row, and position x + 32 r is PADDED(32) r slots after x, so
// every address is a constant offset and neither direction has bank conflicts. Every lane of
// the warp calls.
__device__ __forceinline__ void warp_transpose(Bits (&key)[ITEMS_PER_THREAD], Bits* sk, bool to_striped) {
    const u32 lane = sortlab::lane_id();
    const u32 base = (threadIdx.x / 32) * WARP_RUN;
    Bits* row = sk + pad(base + lane * ITEMS_PER_THREAD);
    Bits* col = sk + pad(base + lane);
#pragma unroll
    for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
        if (to_striped) {
            row[k] = key[k];
        } else {
            col[k * PADDED(32)] = key[k];
        }
    }
    __syncwarp();
#pragma unroll
    for (int k = 0; k < ITEMS_PER_THREAD; ++k) key[k] = to_striped ? col[k * PADDED(32)] : row[k];
    __syncwarp();
}

// One merge step of size S (see above); every lane of the warp calls. With `sk` (not null),
// two or more half-cleaner strides of 32 and more (S >= 256) run in registers in the striped
// layout (a transpose there and back: four shared accesses a key instead of two ALU
// instructions a key and stride), the rest as above; the warp's slots of `sk` are then
// overwritten.
__device__ __forceinline__ void warp_merge_step(Bits (&key)[ITEMS_PER_THREAD], u32 S, Bits* sk) {
    lane_stage<true>(key, S / ITEMS_PER_THREAD - 1);
    u32 stride = S / 4;
    if (sk != nullptr && stride >= 64) {
        warp_transpose(key, sk, true);
        // Striped: stride 32 << t joins registers i and i + (1 << t).
#pragma unroll
        for (int t = ilog2(ITEMS_PER_THREAD) - 1; t >= 0; --t) {
            if ((32u << t) <= stride) {
#pragma unroll
                for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
                    if ((i & (1 << t)) == 0) order2(key[i], key[i + (1 << t)]);
                }
            }
        }
        warp_transpose(key, sk, false);
        stride = 16;
    }
    for (; stride >= ITEMS_PER_THREAD; stride >>= 1) {
        lane_stage<false>(key, stride / ITEMS_PER_THREAD);
    }
#pragma unroll
    for (int stride = ITEMS_PER_THREAD / 2; stride > 0; stride >>= 1) {
#pragma unroll
        for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
            if ((i & stride) == 0) order2(key[i], key[i + stride]);
        }
    }
}

// The offset level of runs of m (2 m <= WARP_RUN) in the warps: the window goes to shared memory
// blocked, each warp takes back the WARP_RUN positions from its own first plus m (positions past
// the window as the highest rank), merges the pairs of runs of m there (a merge step of 2 m), and
// writes them back; positions [0, m) keep their place. Ends with the window in shared memory.
// A thread's positions p0 .. p0 + I - 1 (p0 a multiple of I, as m >= I) share one padding slot
// count, so they sit at pad(p0) + k, and lie in the window all or none.
__device__ __forceinline__ void offset_level_in_warps(Bits (&key)[ITEMS_PER_THREAD], u32 m, Bits* sk) {
    static_assert((1 << PAD_SHIFT) % ITEMS_PER_THREAD == 0 && WINDOW % ITEMS_PER_THREAD == 0,
                  "a thread's items in one padded row");
    const u32 x0 = threadIdx.x * ITEMS_PER_THREAD;
    Bits* mine = sk + pad(x0);
#pragma unroll
    for (int k = 0; k < ITEMS_PER_THREAD; ++k) mine[k] = key[k];
    __syncthreads();
    const u32 p0 = x0 + m;
    const bool inside = p0 < (u32)WINDOW;
    Bits* shifted = sk + pad(p0);
#pragma unroll
    for (int k = 0; k < ITEMS_PER_THREAD; ++k) key[k] = inside ? shifted[k] : highest_rank();
    __syncthreads();
    warp_merge_step(key, 2 * m, nullptr);  // (no transposes: the window's [0, m) stays in place)
    if (inside) {
#pragma unroll
        for (int k = 0; k < ITEMS_PER_THREAD; ++k) shifted[k] = key[k];
    }
}
#endif

// The pair of runs of R keys (a power of two) from window offset o that holds window position
// x >= o: the first run [seg, a1), the second [a1, b1), both clipped to the window.
struct RunPair {
    u32 seg, a1, b1;
};
__device__ __forceinline__ RunPair run_pair(u32 x, u32 R, u32 o) {
    RunPair g;
    g.seg = o + ((x - o) & ~(2 * R - 1));
    g.a1 = min(g.seg + R, (u32)WINDOW);
    g.b1 = min(g.seg + 2 * R, (u32)WINDOW);
    return g;
}

// ---- Merges inside a window without bounds checks or branches. A merge level stages each
// pair's second run B reversed after its first run A, so [seg, b1) holds A ascending, then B
// descending (B's key q at b1 - 1 - q). Merging takes the smaller of the leftmost and rightmost
// keys not yet taken (those lie at [i, j], contiguous): once A is used up the left index reads
// B's largest keys, once B is the right index reads A's, never below what the other side has
// left, so each output is a compare, selects and one shared load. Stable merges take a tie from
// the left while it is in A (i < a1); keys alone take ties from either side (equal keys are
// bit-identical). (The forward merge with bounds checks compiled to a branch per output that the
// warp ran both ways.)

// Items outputs of a staged pair (see above; A ends at a1) in two chains of Items / 2, from
// left index i and right index j, and from i2 and j2: keys into `key`, their staged slots into
// `from` (with values). Every output of both chains must exist.
template <int Items>
__device__ __forceinline__ void serial_merge_rev(const Bits* s, u32 a1, u32 i, u32 j, u32 i2, u32 j2,
                                                 Bits (&key)[Items], u32 (&from)[Items]) {
    static_assert(Items % 2 == 0, "two chains of Items / 2");
    Bits ka = s[pad(i)];
    Bits kb = s[pad(j)];
    Bits kc = s[pad(i2)];
    Bits kd = s[pad(j2)];
#pragma unroll
    for (int k = 0; k < Items / 2; ++k) {
#if HAS_VALUES
        const bool tb = kb < ka || i >= a1;
        const bool td = kd < kc || i2 >= a1;
        from[k] = tb ? j : i;
        from[Items / 2 + k] = td ? j2 : i2;
#else
        (void)a1;
        (void)from;
        const bool tb = kb < ka;
        const bool td = kd < kc;
#endif
        key[k] = tb ? kb : ka;
        key[Items / 2 + k] = td ? kd : kc;
        if (k + 1 < Items / 2) {  // (no load past the last output: it may lie outside the pair)
            i = tb ? i : i + 1;
            j = tb ? j - 1 : j;
            const Bits v = s[pad(tb ? j : i)];
            ka = tb ? ka : v;
            kb = tb ? v : kb;
            i2 = td ? i2 : i2 + 1;
            j2 = td ? j2 - 1 : j2;
            const Bits u = s[pad(td ? j2 : i2)];
            kc = td ? kc : u;
            kd = td ? u : kd;
        }
    }
}

// One merge level of the window staged in shared memory (padded, each pair's second run
// reversed, see above; keys in sk and with values their source indices in sidx), into
// registers (blocked): pairs of runs of R keys from window offset o (R >= ITEMS_PER_THREAD and o
// a multiple of ITEMS_PER_THREAD); threads whose items lie before o keep the registers they
// have. Every thread calls; ends with a barrier.
__device__ __forceinline__ void merge_staged(Bits (&key)[ITEMS_PER_THREAD], u32 (&index)[ITEMS_PER_THREAD], u32 R,
                                             u32 o, const Bits* sk, const u32* sidx) {
    const u32 x0 = threadIdx.x * ITEMS_PER_THREAD;
    if (x0 >= o) {
        const RunPair g = run_pair(x0, R, o);
        const u32 blast = g.b1 - 1;
        const u32 la = g.a1 - g.seg;
        const u32 lb = g.b1 - g.a1;
        const u32 diag = x0 - g.seg;
        const u32 half = diag + ITEMS_PER_THREAD / 2;
        // Merge-path splits, branch-free (sortlab::merge_path_bounded): A = sk[seg ..), B staged
        // reversed (its key j at blast - j).
        const auto a = [&](u32 i) { return sk[pad(g.seg + i)]; };
        const auto b = [&](u32 j) { return sk[pad(blast - j)]; };
        const u32 p = sortlab::merge_path_bounded(a, b, diag, diag > lb ? diag - lb : 0, min(diag, la));
        // The second chain's split: at least p, at most ITEMS_PER_THREAD / 2 more.
        const u32 q = sortlab::merge_path_bounded(a, b, half, max(p, half > lb ? half - lb : 0),
                                                  min(p + ITEMS_PER_THREAD / 2, la));
        u32 from[ITEMS_PER_THREAD];
        serial_merge_rev<ITEMS_PER_THREAD>(sk, g.a1, g.seg + p, blast - (diag - p), g.seg + q, blast - (half - q),
                                           key, from);
#if HAS_VALUES
#pragma unroll
        for (int k = 0; k < ITEMS_PER_THREAD; ++k) index[k] = sidx[pad(from[k])];
#else
        (void)index;
        (void)sidx;
#endif
    }
    __syncthreads();
}

// One merge level of the window in registers (blocked), as merge_staged after staging the
// registers (and indices) in shared memory. `index` follows its key (source window index).
__device__ __forceinline__ void merge_level(Bits (&key)[ITEMS_PER_THREAD], u32 (&index)[ITEMS_PER_THREAD], u32 R, u32 o,
                                            Bits* sk, u32* sidx) {
    const u32 x0 = threadIdx.x * ITEMS_PER_THREAD;
    // A thread's items lie in one run (R >= ITEMS_PER_THREAD, o a multiple of it); a second run
    // goes reversed, to [lo, lo + I) (lo = a1 + b1 - x0 - I), which like [x0, x0 + I) lies in one
    // padded row (a multiple of I from a multiple of I).
    static_assert((1 << PAD_SHIFT) % ITEMS_PER_THREAD == 0, "a thread's items in one padded row");
    const RunPair g = run_pair(x0, R, o);
    if (x0 >= o && x0 >= g.a1) {
        const u32 lo = g.a1 + g.b1 - x0 - ITEMS_PER_THREAD;
#pragma unroll
        for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
            sk[pad(lo) + (ITEMS_PER_THREAD - 1 - k)] = key[k];
#if HAS_VALUES
            sidx[pad(lo) + (ITEMS_PER_THREAD - 1 - k)] = index[k];
#endif
        }
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
            sk[pad(x0) + k] = key[k];
#if HAS_VALUES
            sidx[pad(x0) + k] = index[k];
#endif
        }
    }
    __syncthreads();
    merge_staged(key, index, R, o, sk, sidx);
}

// Sorts the window in registers (blocked) into runs of `run` keys (a power of two from
// ITEMS_PER_THREAD to WINDOW): a thread's items in registers, up to a warp's with warp merge
// steps (keys alone), beyond by merge levels in shared memory. Every thread calls.
__device__ __forceinline__ void sort_runs(Bits (&key)[ITEMS_PER_THREAD], u32 (&index)[ITEMS_PER_THREAD], u32 run,
                                          Bits* sk, u32* sidx) {
    register_sort(key, index);
    u32 r = ITEMS_PER_THREAD;
#if !HAS_VALUES
    for (; r < run && r < (u32)WARP_RUN; r <<= 1) warp_merge_step(key, 2 * r, sk);
    // A merge level writes into other warps' slots: every warp must be done with its own.
    if (r < run) __syncthreads();
#endif
    for (; r < run; r <<= 1) merge_level(key, index, r, 0, sk, sidx);
}

// Loads keys [0, w) of `src` (w <= WINDOW) as ranks into shared memory (striped, coalesced),
// the rest of the window as the highest rank, then into registers (blocked: thread t holds window
// positions [t I, t I + I)), each with its window position as `index`. Every thread calls; the
// shared window still holds the keys afterwards.
__device__ __forceinline__ void load_window(const KEY_T* src, u32 w, Bits flip, Bits* sk,
                                            Bits (&key)[ITEMS_PER_THREAD], u32 (&index)[ITEMS_PER_THREAD]) {
#pragma unroll
    for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
        const u32 e = k * BLOCK_THREADS + threadIdx.x;
        sk[pad(e)] = e < w ? rank_of(src[e], flip) : highest_rank();
    }
    __syncthreads();
    const u32 x0 = threadIdx.x * ITEMS_PER_THREAD;
#pragma unroll
    for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
        key[k] = sk[pad(x0 + k)];
        index[k] = x0 + k;
    }
}

// ---- sort_windows: grid = ceil(n / tile_out) blocks of BLOCK_THREADS; dynamic shared memory
// PADDED(WINDOW) * SLOT_BYTES, plus PADDED(WINDOW) * 4 with values. Block b: s = b * tile_out,
// the window [max(s - before, 0), min(s + tile_out + after, n)) of at most WINDOW keys, sorted
// into runs of 2 * run_half (from ITEMS_PER_THREAD up, levels while run < WINDOW), then if
// `offset_pass`, one merge level of runs run_half from offset run_half; writes positions
// [s, min(s + tile_out, n)). With `check`, raises *flag if the window is not check_k-sorted
// (the output is then meaningless). in == out is allowed when before == after == 0. ----
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, WINDOW_MIN_BLOCKS)
sort_windows(const KEY_T* in_keys, KEY_T* out_keys, const Value* in_vals, Value* out_vals, u64 n, Bits flip,
             u64 before, u64 after, u64 tile_out, u32 run_half, u32 offset_pass, u32 check, u64 check_k, u32* flag) {
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ typename BlockScanT::TempStorage scan_tmp;
    Bits* sk = reinterpret_cast<Bits*>(smem);
    u32* sidx = reinterpret_cast<u32*>(smem + PADDED(WINDOW) * SLOT_BYTES);
#if HAS_VALUES
    Value* sv = reinterpret_cast<Value*>(smem);  // aliases the keys, once they are written out
#else
    (void)in_vals;
    (void)out_vals;
#endif
    const u32 tid = threadIdx.x;
    const u64 s = (u64)blockIdx.x * tile_out;
    const u64 ws = s > before ? s - before : 0;
    const u64 we = s + tile_out + after < n ? s + tile_out + after : n;
    const u32 w = (u32)(we - ws);
    const u32 out_lo = (u32)(s - ws);
    const u32 out_hi = (u32)((s + tile_out < n ? s + tile_out : n) - ws);

    const u32 x0 = tid * ITEMS_PER_THREAD;
    Bits key[ITEMS_PER_THREAD];
    u32 index[ITEMS_PER_THREAD];
    load_window(in_keys + ws, w, flip, sk, key, index);

    if (check) {
        // Window prefix maxima, then every key against the maximum check_k + 1 places before.
        Bits pre[ITEMS_PER_THREAD];
        Bits acc = 0;
#pragma unroll
        for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
            acc = key[k] > acc ? key[k] : acc;
            pre[k] = acc;
        }
        Bits total;
        const Bits before_me = BlockScanT::exclusive_scan(acc, (Bits)0, sortlab::Max(), total, scan_tmp);
#pragma unroll
        for (int k = 0; k < ITEMS_PER_THREAD; ++k) sk[pad(x0 + k)] = pre[k] > before_me ? pre[k] : before_me;
        __syncthreads();
        bool bad = false;
#pragma unroll
        for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
            const u64 e = x0 + k;
            if (e < w && e > check_k && sk[pad((u32)(e - check_k - 1))] > key[k]) bad = true;
        }
        if (bad) atomicOr(flag, 1u);
        __syncthreads();
    }

    sort_runs(key, index, 2 * run_half < (u32)WINDOW ? 2 * run_half : (u32)WINDOW, sk, sidx);
    bool staged = false;
#if !HAS_VALUES
    if (offset_pass && 2 * run_half <= (u32)WARP_RUN) {
        offset_level_in_warps(key, run_half, sk);
        staged = true;
    }
#endif
    if (!staged) {
        if (offset_pass) merge_level(key, index, run_half, run_half, sk, sidx);
        // Registers -> shared (blocked).
#pragma unroll
        for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
            sk[pad(x0 + k)] = key[k];
#if HAS_VALUES
            sidx[pad(x0 + k)] = index[k];
#endif
        }
    }
    // Shared -> global (striped, coalesced).
    __syncthreads();
    for (u32 e = out_lo + tid; e < out_hi; e += BLOCK_THREADS) out_keys[ws + e] = key_of(sk[pad(e)], flip);
#if HAS_VALUES
    __syncthreads();  // every key is read before the values overwrite them
#pragma unroll
    for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
        const u32 e = k * BLOCK_THREADS + tid;
        if (e < w) sv[pad(e)] = in_vals[ws + e];
    }
    __syncthreads();
    for (u32 e = out_lo + tid; e < out_hi; e += BLOCK_THREADS) out_vals[ws + e] = sv[pad(sidx[pad(e)])];
#endif
}

#if !HAS_VALUES
// Keys of shared window positions [lo, lo + len) (lo a multiple of 1 << PAD_SHIFT) to dst[0,
// len), striped: a full run of Count keys (a multiple of BLOCK_THREADS) with its addresses
// known at compile time. Every thread calls.
template <u32 Count>
__device__ __forceinline__ void store_run(KEY_T* dst, const Bits* sk, u32 lo, u32 len, Bits flip) {
    static_assert(Count % BLOCK_THREADS == 0, "whole rounds of the block");
    const Bits* src = sk + pad(lo);
    if (len == Count) {
#pragma unroll
        for (u32 k = 0; k < Count / BLOCK_THREADS; ++k) {
            const u32 e = k * BLOCK_THREADS + threadIdx.x;
            dst[e] = key_of(src[pad(e)], flip);
        }
    } else {
        for (u32 e = threadIdx.x; e < len; e += BLOCK_THREADS) dst[e] = key_of(src[pad(e)], flip);
    }
}

// ---- sort_runs_chained (keys alone): Altman-Chlebus with m = WINDOW / 2 in one pass, in place.
// grid = ceil(n / WINDOW) blocks; dynamic shared memory PADDED(WINDOW) * SLOT_BYTES; *ticket and
// ready[0 .. grid) zeroed before the launch. A block takes run b = the next ticket (so run b - 1
// belongs to a block already running), loads keys [s, s + w) (s = b * WINDOW, w <= WINDOW) and
// sorts them. Its upper half (sorted positions [H, w), H = WINDOW / 2) it publishes in place at
// [s + H, s + w) and raises ready[b]. Then it waits for ready[b - 1], merges its own lower half
// (sorted positions [0, min(w, H))) with run b - 1's published upper half (H keys at [s - H, s))
// and writes the merge to [s - H, s + min(w, H)) (run 0 writes its lower half to
// [0, min(w, H))). That is the offset pass of runs of 2H from H: every position is written once
// by the merge or, for the upper half of the last run, by its publication. ----
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, WINDOW_MIN_BLOCKS)
sort_runs_chained(KEY_T* keys, u64 n, Bits flip, u32* ticket, u32* ready) {
    extern __shared__ __align__(16) unsigned char smem[];
    Bits* sk = reinterpret_cast<Bits*>(smem);
    __shared__ u32 run_of_block;
    const u32 tid = threadIdx.x;
    const u32 H = (u32)WINDOW / 2;
    if (tid == 0) run_of_block = atomicAdd(ticket, 1u);
    __syncthreads();
    const u64 b = run_of_block;
    const u64 s = b * (u64)WINDOW;
    const u32 w = (u32)(n - s < (u64)WINDOW ? n - s : (u64)WINDOW);
    const u32 x0 = tid * ITEMS_PER_THREAD;
    Bits key[ITEMS_PER_THREAD];
    u32 index[ITEMS_PER_THREAD];  // (keys alone: unused)
    load_window(keys + s, w, flip, sk, key, index);
    sort_runs(key, index, (u32)WINDOW, sk, nullptr);
    // The sorted run to shared memory; its upper half out, then ready[b].
#pragma unroll
    for (int k = 0; k < ITEMS_PER_THREAD; ++k) sk[pad(x0 + k)] = key[k];
    __syncthreads();
    if (w > H) store_run<WINDOW / 2>(keys + s + H, sk, H, w - H, flip);
    __threadfence();
    __syncthreads();  // also: every read of the upper half in shared memory is done
    if (tid == 0) atomicExch(ready + b, 1u);
    // Staged for merge_staged (runs of H): its first run is this run's lower half, at [0, lb)
    // with the highest rank after it up to H; its second, reversed at [H, W), run b - 1's upper
    // half (H keys, none for run 0). The earlier keys come second, which keys alone allow (no
    // stable merge is needed; a real key of the highest rank that the padding displaces from the
    // first la + lb outputs is replaced by the same bits).
    const u32 lb = w < H ? w : H;
    const u32 la = b > 0 ? H : 0;
    for (u32 e = lb + tid; e < H; e += BLOCK_THREADS) sk[pad(e)] = highest_rank();
    if (b > 0 && tid == 0) {
        while (atomicAdd(ready + (b - 1), 0u) == 0) __nanosleep(64);
        __threadfence();
    }
    __syncthreads();
    // (L2 loads: this multiprocessor's L1 may hold the run's keys from before they were sorted.)
    if (la > 0) {
        // Key e of A (e = k * BLOCK_THREADS + tid) to position WINDOW - 1 - e, k rows of the
        // block (PADDED(BLOCK_THREADS) slots each, BLOCK_THREADS a multiple of 32) below the first.
        Bits* top = sk + pad(WINDOW - 1 - tid);
        const KEY_T* a = keys + (s - H) + tid;
#pragma unroll
        for (u32 k = 0; k < H / BLOCK_THREADS; ++k) {
            top[-(int)(k * PADDED(BLOCK_THREADS))] = rank_of(__ldcg(a + k * BLOCK_THREADS), flip);
        }
    }
    __syncthreads();
    if (la > 0) {
        merge_staged(key, index, H, 0, sk, nullptr);  // ends with a barrier
#pragma unroll
        for (int k = 0; k < ITEMS_PER_THREAD; ++k) sk[pad(x0 + k)] = key[k];
        __syncthreads();
    }
    const u64 out = s - la;
    store_run<WINDOW>(keys + out, sk, 0, la + lb, flip);
}
#endif

// The segment of the merge pass (run, offset) that holds position x: before `offset` the keys
// [0, offset) alone (A, with no B), then pairs A = [start, start + run), B = [start + run,
// start + 2 run), all clipped to n.
struct Segment {
    u64 start, a1, b1;
};
__device__ __forceinline__ Segment segment_of(u64 x, u64 n, u64 run, u64 offset) {
    Segment g;
    if (x < offset) {
        g.start = 0;
        g.a1 = offset < n ? offset : n;
        g.b1 = g.a1;
    } else {
        g.start = offset + ((x - offset) / (2 * run)) * (2 * run);
        g.a1 = g.start + run < n ? g.start + run : n;
        g.b1 = g.start + 2 * run < n ? g.start + 2 * run : n;
    }
    return g;
}

// ---- merge_partition: one thread per merge tile (tiles = ceil(n / MERGE_TILE)); splits[b] =
// the number of A keys among the first (b * MERGE_TILE - start) outputs of tile b's segment. ----
extern "C" __global__ void __launch_bounds__(MERGE_THREADS)
merge_partition(const KEY_T* keys, u64 n, Bits flip, u64 run, u64 offset, u64 tiles, u64* splits) {
    const u64 b = (u64)blockIdx.x * MERGE_THREADS + threadIdx.x;
    if (b >= tiles) return;
    const u64 x = b * MERGE_TILE;
    const Segment g = segment_of(x, n, run, offset);
    const u64 diag = x - g.start;
    const u64 la = g.a1 - g.start;
    const u64 lb = g.b1 - g.a1;
    u64 lo = diag > lb ? diag - lb : 0;
    u64 hi = diag < la ? diag : la;
    while (lo < hi) {
        const u64 mid = (lo + hi) >> 1;
        if (rank_of(keys[g.a1 + diag - 1 - mid], flip) < rank_of(keys[g.start + mid], flip)) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    splits[b] = lo;
}

// ---- merge_pass: one block of MERGE_THREADS per merge tile; static shared memory. Writes
// out[x0, x1) (x0 = b * MERGE_TILE, x1 = min(x0 + MERGE_TILE, n)): the merge of the tile's
// share of its segment's A and B. in and out must differ. Bounds-checked: this pass waits on memory, not on its ALU (the
// windows' branch-free merge measured no faster here: README.md). ----
extern "C" __global__ void __launch_bounds__(MERGE_THREADS)
merge_pass(const KEY_T* in_keys, KEY_T* out_keys, const Value* in_vals, Value* out_vals, u64 n, Bits flip, u64 run,
           u64 offset, const u64* splits) {
    __shared__ __align__(16) unsigned char slots[PADDED(MERGE_TILE) * SLOT_BYTES];
    Bits* sk = reinterpret_cast<Bits*>(slots);
#if HAS_VALUES
    __shared__ u32 sidx[PADDED(MERGE_TILE)];
    Value* sv = reinterpret_cast<Value*>(slots);
#else
    (void)in_vals;
    (void)out_vals;
#endif
    const u32 tid = threadIdx.x;
    const u64 b = blockIdx.x;
    const u64 x0 = b * MERGE_TILE;
    const u64 x1 = x0 + MERGE_TILE < n ? x0 + MERGE_TILE : n;
    const Segment g = segment_of(x0, n, run, offset);
    const u64 a_beg = splits[b];
    const u64 a_end = x1 >= g.b1 ? g.a1 - g.start : splits[b + 1];
    const u64 b_beg = (x0 - g.start) - a_beg;
    const u64 b_end = (x1 - g.start) - a_end;
    const u32 la = (u32)(a_end - a_beg);
    const u32 lb = (u32)(b_end - b_beg);
    const u64 ga = g.start + a_beg;  // first A key of the tile
    const u64 gb = g.a1 + b_beg;     // first B key of the tile
#pragma unroll
    for (int k = 0; k < MERGE_ITEMS; ++k) {
        const u32 e = k * MERGE_THREADS + tid;
        if (e < la + lb) sk[pad(e)] = rank_of(e < la ? in_keys[ga + e] : in_keys[gb + (e - la)], flip);
    }
    __syncthreads();
    const u32 d0 = tid * MERGE_ITEMS;
    const u32 dh = d0 + MERGE_ITEMS / 2;
    Bits key[MERGE_ITEMS];
    u32 from[MERGE_ITEMS];
    if (d0 < la + lb) {
        const auto a = [&](u32 i) { return sk[pad(i)]; };
        const auto b = [&](u32 j) { return sk[pad(la + j)]; };
        const u32 p = sortlab::merge_path_by(a, la, b, lb, d0);
        const u32 q = sortlab::merge_path_by(a, la, b, lb, dh < la + lb ? dh : la + lb);
        serial_merge<MERGE_ITEMS>(sk, p, la + d0 - p, q, la + (dh < la + lb ? dh : la + lb) - q, la, la + lb, key,
                                  from);
    }
    __syncthreads();
    if (d0 < la + lb) {
#pragma unroll
        for (int k = 0; k < MERGE_ITEMS; ++k) {
            if (d0 + k < la + lb) {
                sk[pad(d0 + k)] = key[k];
#if HAS_VALUES
                sidx[pad(d0 + k)] = from[k];
#endif
            }
        }
    }
    __syncthreads();
    for (u32 e = tid; e < la + lb; e += MERGE_THREADS) out_keys[x0 + e] = key_of(sk[pad(e)], flip);
#if HAS_VALUES
    __syncthreads();
#pragma unroll
    for (int k = 0; k < MERGE_ITEMS; ++k) {
        const u32 e = k * MERGE_THREADS + tid;
        if (e < la + lb) sv[pad(e)] = e < la ? in_vals[ga + e] : in_vals[gb + (e - la)];
    }
    __syncthreads();
    for (u32 e = tid; e < la + lb; e += MERGE_THREADS) out_vals[x0 + e] = sv[pad(sidx[pad(e)])];
#endif
}
