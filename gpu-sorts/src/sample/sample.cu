// sample.cu: GPU sample sort (Leischner, Osipov and Sanders, "GPU sample sort", IPDPS 2010), both
// variants (SampleVariant::Fast and SampleVariant::Notes). One module per (key type, value width).
//
// A level splits every large segment (a range of the data longer than the variant's final tile)
// into at most 2k - 1 buckets (k = 2^TREE_LEVELS: 256 by default), all segments of the level in
// the same launches:
//   sample_splitters   one block per segment: a deterministic pseudo-random sample of 4096 keys
//                      (splitmix64 of the segment start and the sample index), sorted by the
//                      block merge sort; k' - 1 splitters at regular intervals of it (k' chosen so
//                      that a bucket is about `aim` keys, half a final tile, at most k), repeats removed,
//                      padded to k - 1 with the largest. Past `sample_depth` levels a segment takes
//                      radix splitters instead (from its minimum and maximum: TREE_LEVELS more
//                      bits of the keys' differing range each level), which bounds the depth on
//                      any input.
//   sample_chunk_scan  one block: the exclusive scan of the segments' chunk counts (chunk base).
//   sample_count       one block per chunk (CHUNK_TILES tiles of one segment): every key's bucket
//                      by the implicit search tree (j = 2j + (tree[j] < key), TREE_LEVELS steps)
//                      and an equality test (bucket 2i + 1 for a key equal to splitter i, else 2i, as
//                      cpu-reference's sample.rs `bucket_of`), counted per bucket without atomics
//                      (warp match-and-count). Counts land bucket-major, chunk-minor per segment.
//   sample_scan_*      a device-wide exclusive scan of the counts (reduce, partials, apply):
//                      every (chunk, bucket) its output position.
//   sample_scatter     recomputes the buckets, ranks each tile's keys stably by bucket (warp
//                      match: input order kept), and writes keys (and values) to their buckets.
//   sample_emit        one block per segment, a thread per bucket: empty and finished buckets
//                      (equality buckets and single keys) are done (copied home in pieces when
//                      the level wrote the scratch), buckets of at most `small_max` keys become
//                      final-sort entries, larger ones the next level's segments (atomics: the
//                      order of the lists does not matter, every entry is independent).
//   sample_final       Fast: one block per entry, primitives' BlockSortSpan (a stable block merge
//                      sort by the smallest of three tiles that holds the entry).
//   sample_final_notes Notes: one block per entry, the course notes' odd-even transposition sort
//                      in shared memory (stable: it swaps strictly out-of-order neighbours).
// Every step is stable, so the whole sort is: it equals the stable CPU sort bit for bit.
//
// Positions are u64 throughout. Keys are compared as ordered bits in the sort's order
// (sortlab::flip_bits with the flip word of Order::flip).
//
// Defines:
//   KEY_T, KEY_BITS_T, VALUE_T, HAS_VALUES   the shared vocabulary (key_defines.cuh)
//   TILE_ITEMS          keys per thread of the count and scatter tiles (256 threads)
//   CHUNK_TILES         tiles per count/scatter block
//   FINAL_THREADS, FINAL_ITEMS, FINAL_SMEM_BYTES   the Fast final sort's block
//   NOTES_THREADS       the Notes final sort's block (two keys a thread: buckets <= 2x threads)
//   TREE_LEVELS         log2 k: 7 (the paper's k = 128) or 8 (k = 256)
//   SCATTER_MIN_BLOCKS  resident scatter blocks per multiprocessor (__launch_bounds__)
#include "sortlab/block/block_merge_sort.cuh"
#include "sortlab/block/block_scan.cuh"
#include "sortlab/block/block_sort_span.cuh"
#include "sortlab/thread/key_bits.cuh"
#include "sortlab/thread/key_defines.cuh"

#ifndef TILE_ITEMS
#define TILE_ITEMS 16
#endif
#ifndef CHUNK_TILES
#define CHUNK_TILES 4
#endif
#ifndef FINAL_THREADS
#define FINAL_THREADS 512
#endif
#ifndef FINAL_ITEMS
#define FINAL_ITEMS 16
#endif
#ifndef NOTES_THREADS
#define NOTES_THREADS 512
#endif
#ifndef TREE_LEVELS
#define TREE_LEVELS 8
#endif
#ifndef SCATTER_MIN_BLOCKS
#define SCATTER_MIN_BLOCKS 3
#endif

typedef KEY_T Key;
typedef KEY_BITS_T Bits;
typedef VALUE_T Value;

#if HAS_VALUES
typedef Value SortValueT;
#else
typedef sortlab::NullValue SortValueT;
#endif

// Splitters: 2^TREE_LEVELS - 1 (k = 2^TREE_LEVELS buckets between them, as many equality
// buckets less one); bucket ids 0 .. 2 * SPLITTERS, the last id (BUCKETS - 1) pads partial tiles.
// Count/scatter blocks of 256 threads, BPT bucket ids a thread.
#define TILE_THREADS 256
#define SPLITTERS ((1 << TREE_LEVELS) - 1)
#define BUCKETS (2 << TREE_LEVELS)
#define BPT (BUCKETS / TILE_THREADS)
#define TILE (TILE_THREADS * TILE_ITEMS)
#define CHUNK (TILE * CHUNK_TILES)
#define WARPS (TILE_THREADS / 32)
#define SAMPLE_THREADS 256
#define SAMPLE_ITEMS 16
#define SAMPLE_SIZE (SAMPLE_THREADS * SAMPLE_ITEMS)
#define SCAN_THREADS 256
#define SCAN_ITEMS 8
#define SCAN_TILE (SCAN_THREADS * SCAN_ITEMS)
#define PARTIALS_THREADS 1024
#define FINAL_TILE (FINAL_THREADS * FINAL_ITEMS)
#define NOTES_TILE (2 * NOTES_THREADS)
// A final entry: start << 16 | copy << 15 | len (len <= 16384).
#define ENTRY_COPY (1ull << 15)
#define ENTRY_LEN_MASK 0x7fffull
#define COPY_PIECE 8192
// Segment records: u64 start, len, chunk base, unused.
#define SEG_WORDS 4
// Control words: next segments, final entries, chunks of the level, keys of the next segments.
#define CTRL_NEXT 0
#define CTRL_FINAL 1
#define CTRL_CHUNKS 2
#define CTRL_NEXT_KEYS 3

typedef sortlab::BlockSortSpan<Key, Bits, SortValueT, FINAL_THREADS, FINAL_ITEMS> FinalSort;
typedef sortlab::BlockMergeSort<Bits, sortlab::NullValue, SAMPLE_THREADS, SAMPLE_ITEMS> SampleSort;

static_assert(CHUNK_TILES >= 1, "a chunk holds at least one tile");
static_assert(TREE_LEVELS >= 7 && TREE_LEVELS <= 8, "k = 128 or 256: a thread per bucket id pair at most");
static_assert(SPLITTERS < SAMPLE_THREADS && SPLITTERS < TILE_THREADS, "a thread per splitter");
static_assert(FINAL_TILE <= 16384 && NOTES_TILE <= 16384 && COPY_PIECE <= 16384, "entry lengths take 15 bits");

#ifdef FINAL_SMEM_BYTES
static_assert(sizeof(FinalSort::Sort::TempStorage) == FINAL_SMEM_BYTES,
              "FINAL_SMEM_BYTES must be the block sort's TempStorage size (the host's formula)");
#else
#define FINAL_SMEM_BYTES ((int)sizeof(FinalSort::Sort::TempStorage))
#endif

extern __shared__ __align__(16) unsigned char sample_smem[];

// ---- Helpers. ----

__device__ __forceinline__ u64 splitmix64(u64 x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

__device__ __forceinline__ Bits load_bits(const Key* keys, u64 i, Bits flip) { return sortlab::flip_bits(keys[i], flip); }

// The segment of chunk `c` of a level: the last segment whose chunk base is <= c.
__device__ __forceinline__ u32 segment_of_chunk(const u64* segs, u32 nseg, u64 c) {
    u32 lo = 0, hi = nseg;  // the answer is in [lo, hi)
    while (hi - lo > 1) {
        const u32 mid = (lo + hi) >> 1;
        if (segs[(u64)mid * SEG_WORDS + 2] <= c) lo = mid; else hi = mid;
    }
    return lo;
}

// The splitters of a segment in shared memory: sorted (non-decreasing, padded with the largest)
// and as an implicit search tree (BFS order, tree[1] the median).
struct Tree {
    Bits sorted[SPLITTERS + 1];
    Bits tree[SPLITTERS + 1];
};

__device__ __forceinline__ void load_tree(Tree& t, const Bits* splitters) {
    const u32 j = threadIdx.x;
    if (j < SPLITTERS) t.sorted[j] = splitters[j];
    if (j >= 1 && j <= SPLITTERS) {
        const u32 level = 31 - __clz(j);
        const u32 pos = j - (1u << level);
        t.tree[j] = splitters[((2 * pos + 1) << (TREE_LEVELS - 1 - level)) - 1];
    }
    __syncthreads();
}

// Bucket of `key`: 2i + 1 if it equals splitter i, else 2i, i the count of splitters below it.
__device__ __forceinline__ u32 bucket_of(const Tree& t, Bits key) {
    u32 j = 1;
#pragma unroll
    for (int l = 0; l < TREE_LEVELS; ++l) j = 2 * j + (t.tree[j] < key ? 1u : 0u);
    const u32 i = j - (1u << TREE_LEVELS);
    const u32 eq = (i < SPLITTERS && t.sorted[i < SPLITTERS ? i : 0] == key) ? 1u : 0u;
    return 2 * i + eq;
}

// Per-warp bucket counts of a tile, then each warp's exclusive offsets within the tile's buckets.
typedef u32 WarpHist[WARPS][BUCKETS];

// Shared memory of the count blocks.
struct CountStorage {
    Tree tree;
    WarpHist hist;
};

// The scatter's staging word: a key, or a value (staged after the keys, in the same bytes).
#define STAGE_WORD (HAS_VALUES && sizeof(Value) > sizeof(Key) ? sizeof(Value) : sizeof(Key))

// Shared memory of the scatter blocks. A tile is staged in bucket order (keys, then values, in
// the same bytes) so that consecutive threads write consecutive positions of a bucket; the
// staging aliases the warp histograms, which are dead once every key knows its slot.
struct ScatterStorage {
    Tree tree;
    u64 delta[BUCKETS];  // bucket b's output position less its first slot in the tile's bucket order
    typename sortlab::BlockScan<u32, TILE_THREADS>::TempStorage scan;
    union {
        WarpHist hist;
        struct {
            __align__(16) unsigned char words[TILE * STAGE_WORD];
            unsigned short bucket[TILE];  // the bucket of each slot
        } stage;
    } u;
};

// Classifies and ranks one tile [tile_start, tile_start + TILE) of a segment ending at seg_end:
// thread (warp w, lane l) holds tile elements w * 32 * TILE_ITEMS + k * 32 + l (k < TILE_ITEMS),
// in order within the warp. On return slot[k] = bucket | rank << 16: the key's bucket (BUCKETS - 1
// past the segment's end) and its place among its warp's keys of that bucket (one register for
// both keeps the scatter free of spills). Afterwards hist[w][b] holds the warp's exclusive offset
// within the tile's bucket b, and count[j] (thread t) the tile's count of bucket t + j * 256.
// `hist` may alias other shared memory: the first write to it follows a barrier.
__device__ __forceinline__ void rank_tile(const Tree& tree, WarpHist& hist, const Key* src, u64 tile_start, u64 seg_end,
                                          Bits flip, Bits (&keys)[TILE_ITEMS], u32 (&bucket)[TILE_ITEMS],
                                          u32 (&count)[BPT]) {
    const u32 tid = threadIdx.x;
    const u32 lane = tid & 31;
    const u32 warp = tid >> 5;
    __syncthreads();  // the previous user of `hist` is done
    for (u32 b = tid; b < WARPS * BUCKETS; b += TILE_THREADS) (&hist[0][0])[b] = 0;
    __syncthreads();
    const u32 lt = (1u << lane) - 1;
#pragma unroll
    for (int k = 0; k < TILE_ITEMS; ++k) {
        const u64 i = tile_start + (u64)warp * 32 * TILE_ITEMS + (u64)k * 32 + lane;
        if (i < seg_end) {
            keys[k] = load_bits(src, i, flip);
            bucket[k] = bucket_of(tree, keys[k]);
        } else {
            keys[k] = 0;
            bucket[k] = BUCKETS - 1;
        }
    }
#pragma unroll
    for (int k = 0; k < TILE_ITEMS; ++k) {
        const u32 peers = __match_any_sync(0xffffffffu, bucket[k]);
        const u32 before = hist[warp][bucket[k]];
        const u32 rank = before + __popc(peers & lt);
        __syncwarp();
        if ((__ffs(peers) - 1) == (int)lane) hist[warp][bucket[k]] = before + __popc(peers);
        __syncwarp();
        bucket[k] |= rank << 16;
    }
    __syncthreads();
    // Thread t, bucket b = t + j * 256: exclusive offsets of b over the warps, the tile's count.
#pragma unroll
    for (int j = 0; j < BPT; ++j) {
        const u32 b = tid + j * TILE_THREADS;
        u32 sum = 0;
#pragma unroll
        for (int w = 0; w < WARPS; ++w) {
            const u32 c = hist[w][b];
            hist[w][b] = sum;
            sum += c;
        }
        count[j] = b == BUCKETS - 1 ? 0 : sum;
    }
    __syncthreads();
}

// ---- Level kernels. ----

// Writes the first level's only segment [0, n) and clears the control words.
extern "C" __global__ void sample_init(u64* segs, u64* ctrl, u64 n) {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        segs[0] = 0;
        segs[1] = n;
        segs[2] = 0;
        segs[3] = 0;
        ctrl[0] = ctrl[1] = ctrl[2] = ctrl[3] = 0;
    }
}

// One block per segment: writes its SPLITTERS splitters (ordered bits, sorted, padded) to
// splitters[s * (SPLITTERS + 1) ..]. depth: the level (radix splitters from sample_depth on); aim:
// the bucket size aimed at (a fraction of the final tile), which sets k' = len / aim.
extern "C" __global__ void __launch_bounds__(SAMPLE_THREADS)
sample_splitters(const Key* src, const u64* segs, u32 nseg, Bits* splitters, Bits flip, u32 depth, u32 aim,
                 u32 sample_depth) {
    __shared__ typename SampleSort::TempStorage tmp;
    __shared__ typename sortlab::BlockScan<u32, SAMPLE_THREADS>::TempStorage scan;
    __shared__ Bits distinct[SPLITTERS + 1];
    __shared__ Bits red[2][SAMPLE_THREADS / 32];
    const u32 tid = threadIdx.x;
    for (u32 s = blockIdx.x; s < nseg; s += gridDim.x) {
        const u64 start = segs[(u64)s * SEG_WORDS];
        const u64 len = segs[(u64)s * SEG_WORDS + 1];
        Bits* out = splitters + (u64)s * (SPLITTERS + 1);
        if (depth >= sample_depth) {
            // Radix splitters: the keys' common high bits, TREE_LEVELS bits below them as the
            // digit.
            Bits lo = sortlab::max_bits<Bits>(), hi = 0;
            for (u64 i = tid; i < len; i += SAMPLE_THREADS) {
                const Bits b = load_bits(src, start + i, flip);
                lo = b < lo ? b : lo;
                hi = b > hi ? b : hi;
            }
#pragma unroll
            for (int o = 16; o > 0; o >>= 1) {
                const Bits l2 = __shfl_xor_sync(0xffffffffu, lo, o);
                const Bits h2 = __shfl_xor_sync(0xffffffffu, hi, o);
                lo = l2 < lo ? l2 : lo;
                hi = h2 > hi ? h2 : hi;
            }
            if ((tid & 31) == 0) {
                red[0][tid >> 5] = lo;
                red[1][tid >> 5] = hi;
            }
            __syncthreads();
            lo = red[0][0];
            hi = red[1][0];
            for (int w = 1; w < SAMPLE_THREADS / 32; ++w) {
                lo = red[0][w] < lo ? red[0][w] : lo;
                hi = red[1][w] > hi ? red[1][w] : hi;
            }
            const Bits x = lo ^ hi;
            const u32 d = x == 0 ? 0u : (u32)(8 * sizeof(Bits)) - (sizeof(Bits) == 8 ? __clzll((u64)x) : __clz((u32)x));
            if (tid < SPLITTERS) {
                Bits v = lo;
                if (d > 0) {
                    const u32 shift = d > TREE_LEVELS ? d - TREE_LEVELS : 0;
                    const Bits prefix = d >= 8 * sizeof(Bits) ? (Bits)0 : (Bits)((lo >> d) << d);
                    const u32 count = (1u << (d - shift)) - 1;  // splitters 1 .. count
                    const u32 j = (tid + 1) < count ? tid + 1 : count;
                    v = prefix + ((Bits)j << shift);
                }
                out[tid] = v;
            }
            __syncthreads();
            continue;
        }
        // Sampled splitters.
        Bits b[SAMPLE_ITEMS];
#pragma unroll
        for (int k = 0; k < SAMPLE_ITEMS; ++k) {
            const u64 h = splitmix64(start * 0x9E3779B97F4A7C15ull + (u64)(tid * SAMPLE_ITEMS + k) + 0x5A17ull);
            b[k] = load_bits(src, start + __umul64hi(h, len), flip);
        }
        SampleSort::sort(b, tmp, SAMPLE_SIZE);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < SAMPLE_ITEMS; ++k) tmp.u.keys[SampleSort::slot(tid * SAMPLE_ITEMS + k)] = b[k];
        __syncthreads();
        const u64 per = aim > 0 ? aim : 1;
        const u64 want = (len + per - 1) / per;
        const u32 k = want < 2 ? 2u : (want > (u64)(SPLITTERS + 1) ? (u32)(SPLITTERS + 1) : (u32)want);
        // Candidate j (j < k - 1): sample element (j + 1) * SAMPLE_SIZE / k; kept if it differs
        // from candidate j - 1.
        u32 keep = 0;
        Bits cand = 0;
        if (tid + 1 < k) {
            cand = tmp.u.keys[SampleSort::slot((tid + 1) * SAMPLE_SIZE / k)];
            const Bits prev = tid == 0 ? cand : tmp.u.keys[SampleSort::slot(tid * SAMPLE_SIZE / k)];
            keep = (tid == 0 || cand != prev) ? 1u : 0u;
        }
        u32 total;
        const u32 at = sortlab::BlockScan<u32, SAMPLE_THREADS>::exclusive_scan(keep, 0u, sortlab::Sum(), total, scan);
        if (keep) distinct[at] = cand;
        __syncthreads();
        if (tid < SPLITTERS) out[tid] = distinct[tid < total ? tid : total - 1];
        __syncthreads();
    }
}

// One block: chunk bases of the level's segments (exclusive scan of ceil(len / CHUNK)), their
// total in ctrl[CTRL_CHUNKS]; clears the emit counters.
extern "C" __global__ void __launch_bounds__(1024) sample_chunk_scan(u64* segs, u32 nseg, u64* ctrl) {
    __shared__ typename sortlab::BlockScan<u64, 1024>::TempStorage scan;
    u64 carry = 0;
    for (u32 base = 0; base < nseg; base += 1024) {
        const u32 s = base + threadIdx.x;
        const u64 m = s < nseg ? (segs[(u64)s * SEG_WORDS + 1] + CHUNK - 1) / CHUNK : 0;
        u64 total;
        const u64 pre = sortlab::BlockScan<u64, 1024>::exclusive_scan(m, (u64)0, sortlab::Sum(), total, scan);
        if (s < nseg) segs[(u64)s * SEG_WORDS + 2] = carry + pre;
        carry += total;
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        ctrl[CTRL_CHUNKS] = carry;
        ctrl[CTRL_NEXT] = 0;
        ctrl[CTRL_FINAL] = 0;
        ctrl[CTRL_NEXT_KEYS] = 0;
    }
}

// The chunk this block handles: its segment s, the segment's start, end, chunk count m and chunk
// base, and the chunk's index c in it. false: no chunk (blocks past the level's chunks).
struct ChunkAt {
    u32 s;
    u64 start, end, m, base, c;
};
__device__ __forceinline__ bool chunk_at(const u64* segs, u32 nseg, const u64* ctrl, u64 chunk, ChunkAt& a) {
    if (chunk >= ctrl[CTRL_CHUNKS]) return false;
    a.s = segment_of_chunk(segs, nseg, chunk);
    a.start = segs[(u64)a.s * SEG_WORDS];
    const u64 len = segs[(u64)a.s * SEG_WORDS + 1];
    a.end = a.start + len;
    a.m = (len + CHUNK - 1) / CHUNK;
    a.base = segs[(u64)a.s * SEG_WORDS + 2];
    a.c = chunk - a.base;
    return true;
}

// One block per chunk (grid from an upper bound; blocks past ctrl[CTRL_CHUNKS] exit): bucket
// counts of the chunk into counts[base * BUCKETS + b * m + c].
extern "C" __global__ void __launch_bounds__(TILE_THREADS)
sample_count(const Key* src, const u64* segs, u32 nseg, const Bits* splitters, const u64* ctrl, u64* counts,
             Bits flip) {
    __shared__ CountStorage s;
    ChunkAt a;
    if (!chunk_at(segs, nseg, ctrl, blockIdx.x, a)) return;
    load_tree(s.tree, splitters + (u64)a.s * (SPLITTERS + 1));
    u64 total[BPT];
#pragma unroll
    for (int j = 0; j < BPT; ++j) total[j] = 0;
    const u64 first = a.start + a.c * CHUNK;
    for (int t = 0; t < CHUNK_TILES; ++t) {
        const u64 tile_start = first + (u64)t * TILE;
        if (tile_start >= a.end) break;
        Bits keys[TILE_ITEMS];
        u32 bucket[TILE_ITEMS], count[BPT];
        rank_tile(s.tree, s.hist, src, tile_start, a.end, flip, keys, bucket, count);
#pragma unroll
        for (int j = 0; j < BPT; ++j) total[j] += count[j];
    }
#pragma unroll
    for (int j = 0; j < BPT; ++j) {
        const u64 b = threadIdx.x + j * TILE_THREADS;
        counts[a.base * BUCKETS + b * a.m + a.c] = total[j];
    }
}

// Scan, step 1: block i sums counts [i * SCAN_TILE, (i + 1) * SCAN_TILE) of the level's
// ctrl[CTRL_CHUNKS] * BUCKETS into partials[i].
extern "C" __global__ void __launch_bounds__(SCAN_THREADS)
sample_scan_reduce(const u64* counts, const u64* ctrl, u64* partials) {
    __shared__ typename sortlab::BlockScan<u64, SCAN_THREADS>::TempStorage scan;
    const u64 total = ctrl[CTRL_CHUNKS] * BUCKETS;
    const u64 base = (u64)blockIdx.x * SCAN_TILE;
    if (base >= total) return;
    u64 sum = 0;
#pragma unroll
    for (int k = 0; k < SCAN_ITEMS; ++k) {
        const u64 i = base + (u64)k * SCAN_THREADS + threadIdx.x;
        if (i < total) sum += counts[i];
    }
    u64 all;
    sortlab::BlockScan<u64, SCAN_THREADS>::exclusive_scan(sum, (u64)0, sortlab::Sum(), all, scan);
    if (threadIdx.x == 0) partials[blockIdx.x] = all;
}

// Scan, step 2 (one block): exclusive scan of the partials in place.
extern "C" __global__ void __launch_bounds__(PARTIALS_THREADS) sample_scan_partials(u64* partials, const u64* ctrl) {
    __shared__ typename sortlab::BlockScan<u64, PARTIALS_THREADS>::TempStorage scan;
    const u64 total = ctrl[CTRL_CHUNKS] * BUCKETS;
    const u64 blocks = (total + SCAN_TILE - 1) / SCAN_TILE;
    u64 carry = 0;
    for (u64 base = 0; base < blocks; base += PARTIALS_THREADS) {
        const u64 i = base + threadIdx.x;
        const u64 x = i < blocks ? partials[i] : 0;
        u64 all;
        const u64 pre = sortlab::BlockScan<u64, PARTIALS_THREADS>::exclusive_scan(x, (u64)0, sortlab::Sum(), all, scan);
        if (i < blocks) partials[i] = carry + pre;
        carry += all;
        __syncthreads();
    }
}

// Scan, step 3: block i scans its counts exclusively, in place, from partials[i].
extern "C" __global__ void __launch_bounds__(SCAN_THREADS)
sample_scan_apply(u64* counts, const u64* ctrl, const u64* partials) {
    __shared__ typename sortlab::BlockScan<u64, SCAN_THREADS>::TempStorage scan;
    const u64 total = ctrl[CTRL_CHUNKS] * BUCKETS;
    const u64 base = (u64)blockIdx.x * SCAN_TILE;
    if (base >= total) return;
    // Blocked: thread t holds SCAN_ITEMS consecutive counts.
    u64 x[SCAN_ITEMS];
    u64 sum = 0;
#pragma unroll
    for (int k = 0; k < SCAN_ITEMS; ++k) {
        const u64 i = base + (u64)threadIdx.x * SCAN_ITEMS + k;
        x[k] = i < total ? counts[i] : 0;
        sum += x[k];
    }
    u64 all;
    u64 pre = sortlab::BlockScan<u64, SCAN_THREADS>::exclusive_scan(sum, (u64)0, sortlab::Sum(), all, scan);
    pre += partials[blockIdx.x];
#pragma unroll
    for (int k = 0; k < SCAN_ITEMS; ++k) {
        const u64 i = base + (u64)threadIdx.x * SCAN_ITEMS + k;
        if (i < total) counts[i] = pre;
        pre += x[k];
    }
}

// One block per chunk: every key (and value) of the chunk to its bucket in dst, stably.
// offsets: the scanned counts (global exclusive prefix over the level's counts). Each tile is
// ranked, staged in shared memory in bucket order (input order within a bucket), and written
// from there slot by slot: a warp's stores cover whole runs of a bucket instead of one key of
// each of 32 buckets.
extern "C" __global__ void __launch_bounds__(TILE_THREADS, SCATTER_MIN_BLOCKS)
sample_scatter(const Key* src_k, const Value* src_v, Key* dst_k, Value* dst_v, const u64* segs, u32 nseg,
               const Bits* splitters, const u64* ctrl, const u64* offsets, Bits flip) {
    __shared__ ScatterStorage s;
    ChunkAt a;
    if (!chunk_at(segs, nseg, ctrl, blockIdx.x, a)) return;
    load_tree(s.tree, splitters + (u64)a.s * (SPLITTERS + 1));
    const u32 tid = threadIdx.x;
    const u32 lane = tid & 31;
    const u32 warp = tid >> 5;
    const u64 seg0 = offsets[a.base * BUCKETS];
    u64 next[BPT];  // the output position of the tile's first key of bucket tid + j * 256
#pragma unroll
    for (int j = 0; j < BPT; ++j) {
        const u64 b = tid + j * TILE_THREADS;
        next[j] = a.start + offsets[a.base * BUCKETS + b * a.m + a.c] - seg0;
    }
    Key* stage_k = reinterpret_cast<Key*>(s.u.stage.words);
    const u64 first = a.start + a.c * CHUNK;
    for (int t = 0; t < CHUNK_TILES; ++t) {
        const u64 tile_start = first + (u64)t * TILE;
        if (tile_start >= a.end) break;
        const u32 valid = a.end - tile_start < (u64)TILE ? (u32)(a.end - tile_start) : (u32)TILE;
        Bits keys[TILE_ITEMS];
        u32 bucket[TILE_ITEMS], count[BPT];
        rank_tile(s.tree, s.u.hist, src_k, tile_start, a.end, flip, keys, bucket, count);
        // Each bucket's first slot in the tile's bucket order (an exclusive scan of the counts;
        // padding, the last id, counts 0 and lands past `valid`), added to the warps' offsets.
        u32 carry = 0;
#pragma unroll
        for (int j = 0; j < BPT; ++j) {
            u32 total;
            const u32 b = tid + j * TILE_THREADS;
            const u32 slot0 = carry + sortlab::BlockScan<u32, TILE_THREADS>::exclusive_scan(
                                          count[j], 0u, sortlab::Sum(), total, s.scan);
            carry += total;
#pragma unroll
            for (int w = 0; w < WARPS; ++w) s.u.hist[w][b] += slot0;
            s.delta[b] = next[j] - slot0;
            next[j] += count[j];
            __syncthreads();  // s.scan is reused; s.u.hist is complete after the last round
        }
        // Every key's slot (kept with its bucket: slot | bucket << 16), then the staging, which
        // overwrites the histograms.
#pragma unroll
        for (int k = 0; k < TILE_ITEMS; ++k) {
            const u32 b = bucket[k] & 0xffffu;
            bucket[k] = (s.u.hist[warp][b] + (bucket[k] >> 16)) | (b << 16);
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE_ITEMS; ++k) {
            const u32 slot = bucket[k] & 0xffffu;
            stage_k[slot] = sortlab::key_from_flipped_bits<Key>(keys[k], flip);
            s.u.stage.bucket[slot] = (unsigned short)(bucket[k] >> 16);
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE_ITEMS; ++k) {
            const u32 slot = (u32)k * TILE_THREADS + tid;
            if (slot < valid) dst_k[s.delta[s.u.stage.bucket[slot]] + slot] = stage_k[slot];
        }
#if HAS_VALUES
        Value* stage_v = reinterpret_cast<Value*>(s.u.stage.words);
        __syncthreads();  // the keys are out of the staging
#pragma unroll
        for (int k = 0; k < TILE_ITEMS; ++k) {
            const u64 i = tile_start + (u64)warp * 32 * TILE_ITEMS + (u64)k * 32 + lane;
            if (i < a.end) stage_v[bucket[k] & 0xffffu] = src_v[i];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE_ITEMS; ++k) {
            const u32 slot = (u32)k * TILE_THREADS + tid;
            if (slot < valid) dst_v[s.delta[s.u.stage.bucket[slot]] + slot] = stage_v[slot];
        }
#else
        (void)src_v;
        (void)dst_v;
        (void)lane;
#endif
        // The next tile's rank_tile starts with a barrier before it reuses the staging.
    }
}

// One block per segment, a thread per bucket: sorts the buckets into the next level's segments
// (longer than small_max), final-sort entries and finished buckets (copied home in pieces when
// `home` is 0, i.e. the level wrote the scratch).
extern "C" __global__ void __launch_bounds__(BUCKETS)
sample_emit(const u64* segs, u32 nseg, const u64* offsets, u64* ctrl, u64* next_segs, u64* finals, u32 small_max,
            u32 home) {
    const u32 b = threadIdx.x;
    for (u32 s = blockIdx.x; s < nseg; s += gridDim.x) {
        const u64 start = segs[(u64)s * SEG_WORDS];
        const u64 len = segs[(u64)s * SEG_WORDS + 1];
        const u64 m = (len + CHUNK - 1) / CHUNK;
        const u64 base = segs[(u64)s * SEG_WORDS + 2] * BUCKETS;
        const u64 seg0 = offsets[base];
        const u64 lo = offsets[base + (u64)b * m] - seg0;
        const u64 hi = b + 1 < BUCKETS ? offsets[base + (u64)(b + 1) * m] - seg0 : len;
        const u64 blen = hi - lo;
        const u64 bstart = start + lo;
        if (blen == 0) continue;
        if ((b & 1) || blen == 1) {
            if (!home) {
                const u64 pieces = (blen + COPY_PIECE - 1) / COPY_PIECE;
                const u64 at = atomicAdd(&ctrl[CTRL_FINAL], pieces);
                for (u64 p = 0; p < pieces; ++p) {
                    const u64 ps = p * COPY_PIECE;
                    const u64 pl = blen - ps < COPY_PIECE ? blen - ps : COPY_PIECE;
                    finals[at + p] = ((bstart + ps) << 16) | ENTRY_COPY | pl;
                }
            }
        } else if (blen <= small_max) {
            const u64 at = atomicAdd(&ctrl[CTRL_FINAL], (u64)1);
            finals[at] = (bstart << 16) | blen;
        } else {
            const u64 at = atomicAdd(&ctrl[CTRL_NEXT], (u64)1);
            atomicAdd(&ctrl[CTRL_NEXT_KEYS], blen);
            next_segs[at * SEG_WORDS] = bstart;
            next_segs[at * SEG_WORDS + 1] = blen;
            next_segs[at * SEG_WORDS + 2] = 0;
            next_segs[at * SEG_WORDS + 3] = 0;
        }
    }
}

// ---- Final sorts. ----

// Entry i of `finals`, or (finals null) the whole input [0, count) as one sort entry.
__device__ __forceinline__ void entry_at(const u64* finals, u64 i, u64 count, u64& start, u32& len, bool& copy) {
    if (finals == nullptr) {
        start = 0;
        len = (u32)count;
        copy = false;
    } else {
        const u64 e = finals[i];
        start = e >> 16;
        len = (u32)(e & ENTRY_LEN_MASK);
        copy = (e & ENTRY_COPY) != 0;
    }
}

template <int Threads>
__device__ __forceinline__ void copy_entry(const Key* src_k, const Value* src_v, Key* dst_k, Value* dst_v, u64 start,
                                           u32 len) {
    for (u32 i = threadIdx.x; i < len; i += Threads) {
        dst_k[start + i] = src_k[start + i];
#if HAS_VALUES
        dst_v[start + i] = src_v[start + i];
#endif
    }
#if !HAS_VALUES
    (void)src_v;
    (void)dst_v;
#endif
}

// Fast: each entry (grid-strided) sorted from src into dst by the block merge sort (in place
// when src == dst: the block reads its bucket before it writes it), or copied. finals null:
// one entry, [0, count) (an input of at most one tile). smem_bytes: the dynamic shared memory.
extern "C" __global__ void __launch_bounds__(FINAL_THREADS)
sample_final(const Key* src_k, const Value* src_v, Key* dst_k, Value* dst_v, const u64* finals, u64 count, Bits flip,
             u32 smem_bytes) {
    if (smem_bytes < (u32)FINAL_SMEM_BYTES) __trap();
    const u64 entries = finals == nullptr ? 1 : count;
    for (u64 e = blockIdx.x; e < entries; e += gridDim.x) {
        u64 base;
        u32 valid;
        bool copy;
        entry_at(finals, e, count, base, valid, copy);
        if (copy) {
            copy_entry<FINAL_THREADS>(src_k, src_v, dst_k, dst_v, base, valid);
            continue;
        }
#if HAS_VALUES
        FinalSort::sort(src_k + base, src_v + base, dst_k + base, dst_v + base, valid, flip, sample_smem);
#else
        FinalSort::sort(src_k + base, nullptr, dst_k + base, nullptr, valid, flip, sample_smem);
#endif
    }
}

// Notes: as sample_final, but each bucket (at most NOTES_TILE keys) is sorted by odd-even
// transposition in shared memory: `len` rounds, round r compares pairs (2t + (r & 1),
// 2t + 1 + (r & 1)) and swaps only strictly out-of-order keys (stable).
extern "C" __global__ void __launch_bounds__(NOTES_THREADS)
sample_final_notes(const Key* src_k, const Value* src_v, Key* dst_k, Value* dst_v, const u64* finals, u64 count,
                   Bits flip) {
    __shared__ Bits sk[NOTES_TILE];
#if HAS_VALUES
    __shared__ Value sv[NOTES_TILE];
#endif
    const u32 tid = threadIdx.x;
    const u64 entries = finals == nullptr ? 1 : count;
    for (u64 e = blockIdx.x; e < entries; e += gridDim.x) {
        u64 base;
        u32 len;
        bool copy;
        entry_at(finals, e, count, base, len, copy);
        if (copy) {
            copy_entry<NOTES_THREADS>(src_k, src_v, dst_k, dst_v, base, len);
            continue;
        }
        if (len > NOTES_TILE) __trap();
        for (u32 i = tid; i < len; i += NOTES_THREADS) {
            sk[i] = load_bits(src_k, base + i, flip);
#if HAS_VALUES
            sv[i] = src_v[base + i];
#endif
        }
        __syncthreads();
        for (u32 r = 0; r < len; ++r) {
            const u32 i = 2 * tid + (r & 1);
            if (i + 1 < len && sk[i + 1] < sk[i]) {
                const Bits t = sk[i];
                sk[i] = sk[i + 1];
                sk[i + 1] = t;
#if HAS_VALUES
                const Value tv = sv[i];
                sv[i] = sv[i + 1];
                sv[i + 1] = tv;
#endif
            }
            __syncthreads();
        }
        for (u32 i = tid; i < len; i += NOTES_THREADS) {
            dst_k[base + i] = sortlab::key_from_flipped_bits<Key>(sk[i], flip);
#if HAS_VALUES
            dst_v[base + i] = sv[i];
#endif
        }
        __syncthreads();
    }
#if !HAS_VALUES
    (void)src_v;
    (void)dst_v;
#endif
}
