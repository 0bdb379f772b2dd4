// quick.cu: GPU quicksort after Cederman and Tsigas ("GPU-Quicksort", ESA 2008 / ACM JEA 2010),
// both variants (QuickVariant::Notes and QuickVariant::Fast share every kernel; they differ in who
// sizes the grids: the host after copying the sizes back, or the device itself).
//
//   quick_sort_small  an input of at most one tile: one block sorts it in shared memory (the block
//                     merge sort of primitives), in place, no scratch;
//   quick_plan        one block: appends the children of the previous round's sequences (below,
//                     equal to, above its pivot) to this round's list or to the finishing tasks,
//                     then plans this round: every sequence's pivot (the ninther of 27 keys at
//                     regular positions) and its first chunk (an exclusive scan of its chunk
//                     counts), and the round's chunk total;
//   quick_count       pass 1: every chunk (CHUNK_THREADS * CHUNK_ITEMS keys of one sequence)
//                     counts its keys below, equal to and above the pivot and reserves its place in
//                     each of the three parts with one atomicAdd per part on its sequence's totals
//                     (the blocks' offsets: the order among blocks is arbitrary, the sort unstable);
//   quick_write       pass 2: every chunk partitions its keys (and values) in shared memory and
//                     writes the three parts coalesced to their places in the other buffer;
//   quick_finish      one block per task: a piece of at most one tile sorted in shared memory into
//                     the caller's buffer, a piece of keys equal to a pivot copied home from
//                     scratch, or (only after the round limit) a longer piece sorted by one block
//                     with a bottom-up merge sort through the other buffer (O(m log m)).
//
// Buffers: 0 is the caller's, 1 the scratch's second buffer; every sequence owns the same
// positions [start, start + len) in both. Round r reads buffer r % 2 and writes the other; all of
// a round's sequences live in one buffer. Keys equal to a pivot are final where they land.
// Positions are u64 throughout; counts inside a chunk or a tile are u32.
//
// Defines:
//   KEY_T, KEY_BITS_T, VALUE_T, HAS_VALUES   the shared vocabulary (key_defines.cuh)
//   TILE_THREADS, TILE_ITEMS   the one-block sort (quick_sort_small, quick_finish)
//   TILE_SMEM_BYTES            its dynamic shared memory: sizeof the block sort's TempStorage
//   CHUNK_THREADS, CHUNK_ITEMS the partition passes' blocks and keys per thread
//   CHUNK_SMEM_BYTES           quick_write's dynamic shared memory (keys and values of a chunk)
//   PLAN_THREADS               quick_plan's block
#include "sortlab/block/block_merge_sort.cuh"
#include "sortlab/block/block_scan.cuh"
#include "sortlab/block/block_sort_span.cuh"
#include "sortlab/grid/grid_dependency.cuh"
#include "sortlab/thread/key_bits.cuh"
#include "sortlab/thread/key_defines.cuh"
#include "sortlab/thread/merge_path.cuh"
#include "sortlab/warp/operators.cuh"

#ifndef TILE_THREADS
#define TILE_THREADS 512
#endif
#ifndef TILE_ITEMS
#define TILE_ITEMS 16
#endif
#ifndef CHUNK_THREADS
#define CHUNK_THREADS 256
#endif
#ifndef CHUNK_ITEMS
#define CHUNK_ITEMS 16
#endif
#ifndef PLAN_THREADS
#define PLAN_THREADS 1024
#endif

typedef KEY_T Key;
typedef KEY_BITS_T Bits;
typedef VALUE_T Value;

#if HAS_VALUES
typedef Value SortValueT;
#else
typedef sortlab::NullValue SortValueT;
#endif

#define TILE (TILE_THREADS * TILE_ITEMS)
#define CHUNK (CHUNK_THREADS * CHUNK_ITEMS)

static_assert(CHUNK <= (1 << 20), "a chunk's three counts are packed in 21 bits each");

static_assert(TILE_ITEMS % 4 == 0, "pieces are sorted with TILE_ITEMS / 4, / 2 or TILE_ITEMS keys a thread");

// The largest block sort: its TempStorage is the dynamic shared memory of the one-block kernels
// (the smaller two fit in it).
typedef sortlab::BlockMergeSort<Bits, SortValueT, TILE_THREADS, TILE_ITEMS> TileSort;

#ifdef TILE_SMEM_BYTES
static_assert(sizeof(TileSort::TempStorage) == TILE_SMEM_BYTES,
              "TILE_SMEM_BYTES must be the block sort's TempStorage size (the host's formula)");
#else
#define TILE_SMEM_BYTES ((int)sizeof(TileSort::TempStorage))
#endif
#ifndef CHUNK_SMEM_BYTES
#define CHUNK_SMEM_BYTES (CHUNK * ((int)sizeof(Key) + HAS_VALUES * (int)sizeof(Value)))
#endif

// One sequence of a round's list (7 u64, the host's SEQ_WORDS): its positions, its first chunk
// in the round's chunk numbering, the totals of its parts (pass 1's atomics), its pivot's bits.
struct Seq {
    u64 start;
    u64 len;
    u64 chunk_begin;
    u64 lt;
    u64 eq;
    u64 gt;
    u64 pivot;
};

// One finishing task (3 u64, the host's TASK_WORDS): a piece [start, start + len) of buffer
// `buf`, to sort (TASK_SORT) or to copy home (TASK_COPY, keys equal to a pivot, in scratch).
struct Task {
    u64 start;
    u64 len;
    u32 kind;
    u32 buf;
};
#define TASK_SORT 0u
#define TASK_COPY 1u

// Counter words (the host's COUNTER_* constants): the two lists' lengths, the task count, the
// round's chunk total, and an overflow flag (a capacity exceeded: never, by the host's bounds).
#define C_LIST0 0
#define C_LIST1 1
#define C_TASKS 2
#define C_CHUNKS 3
#define C_OVERFLOW 4

extern __shared__ __align__(16) unsigned char quick_smem[];

// ---- Small helpers. ----

__device__ __forceinline__ Bits bits_of(Key k, Bits flip) { return sortlab::flip_bits(k, flip); }

// The three counts of a chunk packed in one u64, 21 bits each.
__device__ __forceinline__ u64 pack3(u32 lt, u32 eq, u32 gt) {
    return (u64)lt | ((u64)eq << 21) | ((u64)gt << 42);
}
__device__ __forceinline__ u32 lt_of(u64 p) { return (u32)(p & 0x1FFFFF); }
__device__ __forceinline__ u32 eq_of(u64 p) { return (u32)((p >> 21) & 0x1FFFFF); }
__device__ __forceinline__ u32 gt_of(u64 p) { return (u32)(p >> 42); }

// 0 below the pivot, 1 equal, 2 above.
__device__ __forceinline__ u32 side_of(Bits b, Bits pivot) { return b < pivot ? 0u : (b == pivot ? 1u : 2u); }

// The sequence holding virtual block v: the last j < count with chunk_begin <= v.
__device__ __forceinline__ u64 seq_of_chunk(const Seq* seqs, u64 count, u64 v) {
    u64 lo = 0, hi = count;
    while (hi - lo > 1) {
        const u64 mid = (lo + hi) >> 1;
        if (seqs[mid].chunk_begin <= v) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return lo;
}

typedef sortlab::BlockSortSpan<Key, Bits, SortValueT, TILE_THREADS, TILE_ITEMS> PieceSort;

// Sorts piece [start, start + valid) (valid <= TILE) of src into the same place of dst (the same
// buffers: in place), with the smallest of BlockSortSpan's three tiles that holds it (most pieces
// are well under a tile). Every thread calls.
__device__ __forceinline__ void sort_piece(const Key* keys_in, const Value* values_in, Key* keys_out,
                                           Value* values_out, u64 start, u32 valid, Bits flip,
                                           unsigned char* smem) {
#if HAS_VALUES
    PieceSort::sort(keys_in + start, values_in + start, keys_out + start, values_out + start, valid, flip, smem);
#else
    (void)values_in;
    (void)values_out;
    PieceSort::sort(keys_in + start, nullptr, keys_out + start, nullptr, valid, flip, smem);
#endif
}

// ---- The one-block sort of a small input. ----

extern "C" __global__ void __launch_bounds__(TILE_THREADS, 1)
quick_sort_small(Key* keys, Value* values, u64 n, Bits flip, u32 smem_bytes) {
    sortlab::dependent_entry();
    if (smem_bytes < (u32)TILE_SMEM_BYTES || n > (u64)TILE) __trap();
    sort_piece(keys, values, keys, values, 0, (u32)n, flip, quick_smem);
}

// ---- The planner (one block). ----

// Appends a task, or raises the overflow flag.
__device__ __forceinline__ void push_task(Task* tasks, u64 cap_tasks, u64* counters, u64 start, u64 len, u32 kind,
                                          u32 buf) {
    const u64 at = atomicAdd(&counters[C_TASKS], (u64)1);
    if (at >= cap_tasks) {
        counters[C_OVERFLOW] = 1;
        return;
    }
    Task t;
    t.start = start;
    t.len = len;
    t.kind = kind;
    t.buf = buf;
    tasks[at] = t;
}

// A child below or above its parent's pivot, in buffer `buf`: to the next list if longer than a
// tile (and rounds remain), else a sort task (none for one key already home).
__device__ __forceinline__ void push_child(Seq* list, u64 cap_seqs, u64* list_count, Task* tasks, u64 cap_tasks,
                                           u64* counters, u64 start, u64 len, u32 buf, bool last) {
    if (len == 0) return;
    if (len > (u64)TILE && !last) {
        const u64 at = atomicAdd(list_count, (u64)1);
        if (at >= cap_seqs) {
            counters[C_OVERFLOW] = 1;
            return;
        }
        Seq s;
        s.start = start;
        s.len = len;
        s.chunk_begin = 0;
        s.lt = s.eq = s.gt = 0;
        s.pivot = 0;
        list[at] = s;
    } else if (!(len == 1 && buf == 0)) {
        push_task(tasks, cap_tasks, counters, start, len, TASK_SORT, buf);
    }
}

// Copy task j (of ceil(len / TILE)) of the final range [start, start + len), at tasks[first + j].
__device__ __forceinline__ void write_copy_task(Task* tasks, u64 first, u64 j, u64 start, u64 len) {
    const u64 o = j * TILE;
    Task t;
    t.start = start + o;
    t.len = len - o < (u64)TILE ? len - o : (u64)TILE;
    t.kind = TASK_COPY;
    t.buf = 1;
    tasks[first + j] = t;
}

// The median of 9 ordered bits (sorted in place by an insertion sort).
__device__ __forceinline__ Bits median9(Bits (&s)[9]) {
#pragma unroll
    for (int i = 1; i < 9; ++i) {
#pragma unroll
        for (int j = i; j > 0; --j) {
            if (s[j] < s[j - 1]) {
                const Bits t = s[j];
                s[j] = s[j - 1];
                s[j - 1] = t;
            }
        }
    }
    return s[4];
}

// A sequence's pivot: the median of three medians of 9 (Tukey's ninther) of 27 keys at regular
// positions start + len (2i + 1) / 54, group g taking samples g, g + 3, ..., so that each group
// spans the whole sequence (on sorted and pipe-organ inputs every group median is near the
// sequence's median).
__device__ __forceinline__ Bits sample_pivot(const Key* keys, u64 start, u64 len, Bits flip) {
    Bits m[3];
#pragma unroll
    for (int g = 0; g < 3; ++g) {
        Bits s[9];
#pragma unroll
        for (int i = 0; i < 9; ++i) s[i] = bits_of(keys[start + (len * (u64)(2 * (3 * i + g) + 1)) / 54], flip);
        m[g] = median9(s);
    }
    const Bits lo = m[0] < m[1] ? m[0] : m[1];
    const Bits hi = m[0] < m[1] ? m[1] : m[0];
    return m[2] < lo ? lo : (m[2] > hi ? hi : m[2]);
}

// Round `round`: lists (two of cap_seqs each) alternate; list round % 2 is this round's.
// round == 0: the list becomes [0, n) of buffer 0 and the task count 0. round > 0: the children
// of list (round - 1) % 2 (partitioned into buffer round % 2) are appended first. last: every
// child becomes a task and nothing is planned (after the final round).
extern "C" __global__ void __launch_bounds__(PLAN_THREADS, 1)
quick_plan(Seq* lists, u64 cap_seqs, u64* counters, Task* tasks, u64 cap_tasks, const Key* keys0, const Key* keys1,
           u64 n, u32 round, u32 last, Bits flip) {
    sortlab::dependent_entry();
    typedef sortlab::BlockScan<u64, PLAN_THREADS> Scan;
    __shared__ typename Scan::TempStorage scan_tmp;
    __shared__ u64 carry;
    // Equal-key ranges needing more than 4 copy tasks, written by the whole block.
    __shared__ u32 big_copies;
    __shared__ u64 big_first[PLAN_THREADS];
    __shared__ u64 big_start[PLAN_THREADS];
    __shared__ u64 big_len[PLAN_THREADS];
    const u32 tid = threadIdx.x;
    const u32 cur = round & 1;
    Seq* list = lists + (u64)cur * cap_seqs;
    const Key* keys = cur ? keys1 : keys0;
    if (tid == 0) {
        counters[cur] = 0;
        if (round == 0) {
            counters[C_TASKS] = 0;
            counters[C_OVERFLOW] = 0;
        }
        carry = 0;
    }
    __syncthreads();
    if (round == 0) {
        if (tid == 0) {
            counters[cur] = 1;
            Seq s;
            s.start = 0;
            s.len = n;
            s.chunk_begin = 0;
            s.lt = s.eq = s.gt = 0;
            s.pivot = 0;
            list[0] = s;
        }
    } else {
        const Seq* prev = lists + (u64)(cur ^ 1) * cap_seqs;
        const u64 prev_count = counters[cur ^ 1];
        for (u64 base = 0; base < prev_count; base += PLAN_THREADS) {
            const u64 i = base + tid;
            if (tid == 0) big_copies = 0;
            __syncthreads();
            if (i < prev_count) {
                const Seq p = prev[i];
                push_child(list, cap_seqs, &counters[cur], tasks, cap_tasks, counters, p.start, p.lt, cur, last != 0);
                push_child(list, cap_seqs, &counters[cur], tasks, cap_tasks, counters, p.start + p.lt + p.eq, p.gt,
                           cur, last != 0);
                if (cur == 1 && p.eq > 0) {
                    // Keys equal to the pivot are final but in scratch: copy tasks of at most a
                    // tile, reserved at once; many of them are written by the whole block below.
                    const u64 k = (p.eq + TILE - 1) / TILE;
                    const u64 first = atomicAdd(&counters[C_TASKS], k);
                    if (first + k > cap_tasks) {
                        counters[C_OVERFLOW] = 1;
                    } else if (k <= 4) {
                        for (u64 j = 0; j < k; ++j) write_copy_task(tasks, first, j, p.start + p.lt, p.eq);
                    } else {
                        const u32 at = atomicAdd(&big_copies, 1u);
                        big_first[at] = first;
                        big_start[at] = p.start + p.lt;
                        big_len[at] = p.eq;
                    }
                }
            }
            __syncthreads();
            const u32 m = big_copies;
            for (u32 r = 0; r < m; ++r) {
                const u64 k = (big_len[r] + TILE - 1) / TILE;
                for (u64 j = tid; j < k; j += PLAN_THREADS) write_copy_task(tasks, big_first[r], j, big_start[r], big_len[r]);
            }
            __syncthreads();
        }
    }
    __syncthreads();
    if (last) return;
    // The list's length after this block's atomics (read through L2, not a stale L1 line).
    const u64 count = *(volatile const u64*)&counters[cur];
    for (u64 base = 0; base < count; base += PLAN_THREADS) {
        const u64 i = base + tid;
        u64 chunks = 0;
        Seq s = {0, 0, 0, 0, 0, 0, 0};
        if (i < count) {
            s = list[i];
            chunks = (s.len + CHUNK - 1) / CHUNK;
        }
        u64 total;
        const u64 before = Scan::exclusive_scan(chunks, (u64)0, sortlab::Sum(), total, scan_tmp);
        if (i < count) {
            s.chunk_begin = carry + before;
            s.lt = s.eq = s.gt = 0;
            s.pivot = (u64)sample_pivot(keys, s.start, s.len, flip);
            list[i] = s;
        }
        __syncthreads();
        if (tid == 0) carry += total;
        __syncthreads();
    }
    if (tid == 0) counters[C_CHUNKS] = carry;
}

// ---- Pass 1: count. ----

// Every chunk of the round's sequences (grid-strided over the round's chunk total) counts its
// keys below, equal to and above its sequence's pivot and reserves its offsets in the three
// parts: offsets[3v .. 3v + 3].
extern "C" __global__ void __launch_bounds__(CHUNK_THREADS)
quick_count(const Key* keys, Seq* list, const u64* list_count, const u64* counters, u64* offsets, Bits flip) {
    sortlab::dependent_entry();
    typedef sortlab::BlockScan<u64, CHUNK_THREADS> Scan;
    __shared__ typename Scan::TempStorage scan_tmp;
    const u32 tid = threadIdx.x;
    const u64 total = counters[C_CHUNKS];
    const u64 count = *list_count;
    for (u64 v = blockIdx.x; v < total; v += gridDim.x) {
        const u64 j = seq_of_chunk(list, count, v);
        const u64 s_start = list[j].start, s_len = list[j].len;
        const Bits pivot = (Bits)list[j].pivot;
        const u64 first = (v - list[j].chunk_begin) * CHUNK;
        const u64 rest = s_len - first;
        const u32 valid = rest < (u64)CHUNK ? (u32)rest : (u32)CHUNK;
        const Key* in = keys + s_start + first;
        u32 lt = 0, eq = 0, gt = 0;
#pragma unroll
        for (int k = 0; k < CHUNK_ITEMS; ++k) {
            const u32 i = k * CHUNK_THREADS + tid;
            if (i < valid) {
                const Bits b = bits_of(in[i], flip);
                lt += b < pivot;
                eq += b == pivot;
                gt += b > pivot;
            }
        }
        u64 sum;
        (void)Scan::exclusive_scan(pack3(lt, eq, gt), (u64)0, sortlab::Sum(), sum, scan_tmp);
        if (tid == 0) {
            offsets[3 * v + 0] = lt_of(sum) ? atomicAdd(&list[j].lt, (u64)lt_of(sum)) : 0;
            offsets[3 * v + 1] = eq_of(sum) ? atomicAdd(&list[j].eq, (u64)eq_of(sum)) : 0;
            offsets[3 * v + 2] = gt_of(sum) ? atomicAdd(&list[j].gt, (u64)gt_of(sum)) : 0;
        }
        __syncthreads();
    }
}

// ---- Pass 2: write. ----

// Every chunk partitions its keys (and values) three ways in shared memory and writes each part
// coalesced to its place in the other buffer: below at start + offset, equal at start + L +
// offset, above at start + L + E + offset (L, E: the sequence's totals from pass 1).
extern "C" __global__ void __launch_bounds__(CHUNK_THREADS)
quick_write(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out, const Seq* list,
            const u64* list_count, const u64* counters, const u64* offsets, Bits flip, u32 smem_bytes) {
    sortlab::dependent_entry();
    if (smem_bytes < (u32)CHUNK_SMEM_BYTES) __trap();
    typedef sortlab::BlockScan<u64, CHUNK_THREADS> Scan;
    __shared__ typename Scan::TempStorage scan_tmp;
    Key* sk = reinterpret_cast<Key*>(quick_smem);
#if HAS_VALUES
    Value* sv = reinterpret_cast<Value*>(quick_smem + CHUNK * sizeof(Key));
#else
    (void)values_in;
    (void)values_out;
#endif
    const u32 tid = threadIdx.x;
    const u64 total = counters[C_CHUNKS];
    const u64 count = *list_count;
    for (u64 v = blockIdx.x; v < total; v += gridDim.x) {
        const u64 j = seq_of_chunk(list, count, v);
        const Seq s = list[j];
        const Bits pivot = (Bits)s.pivot;
        const u64 first = (v - s.chunk_begin) * CHUNK;
        const u64 rest = s.len - first;
        const u32 valid = rest < (u64)CHUNK ? (u32)rest : (u32)CHUNK;
        Key k_in[CHUNK_ITEMS];
        u32 side[CHUNK_ITEMS];
        u32 lt = 0, eq = 0, gt = 0;
#pragma unroll
        for (int k = 0; k < CHUNK_ITEMS; ++k) {
            const u32 i = k * CHUNK_THREADS + tid;
            side[k] = 3;
            if (i < valid) {
                k_in[k] = keys_in[s.start + first + i];
                side[k] = side_of(bits_of(k_in[k], flip), pivot);
                lt += side[k] == 0;
                eq += side[k] == 1;
                gt += side[k] == 2;
            }
        }
#if HAS_VALUES
        Value v_in[CHUNK_ITEMS];
#pragma unroll
        for (int k = 0; k < CHUNK_ITEMS; ++k) {
            const u32 i = k * CHUNK_THREADS + tid;
            if (i < valid) v_in[k] = values_in[s.start + first + i];
        }
#endif
        u64 sum;
        const u64 before = Scan::exclusive_scan(pack3(lt, eq, gt), (u64)0, sortlab::Sum(), sum, scan_tmp);
        const u32 n_lt = lt_of(sum), n_eq = eq_of(sum);
        u32 at_lt = lt_of(before), at_eq = n_lt + eq_of(before), at_gt = n_lt + n_eq + gt_of(before);
#pragma unroll
        for (int k = 0; k < CHUNK_ITEMS; ++k) {
            if (side[k] < 3) {
                const u32 p = side[k] == 0 ? at_lt++ : (side[k] == 1 ? at_eq++ : at_gt++);
                sk[p] = k_in[k];
#if HAS_VALUES
                sv[p] = v_in[k];
#endif
            }
        }
        __syncthreads();
        const u64 base_lt = s.start + offsets[3 * v + 0];
        const u64 base_eq = s.start + s.lt + offsets[3 * v + 1];
        const u64 base_gt = s.start + s.lt + s.eq + offsets[3 * v + 2];
        for (u32 i = tid; i < valid; i += CHUNK_THREADS) {
            const u64 to = i < n_lt ? base_lt + i : (i < n_lt + n_eq ? base_eq + (i - n_lt) : base_gt + (i - n_lt - n_eq));
            keys_out[to] = sk[i];
#if HAS_VALUES
            values_out[to] = sv[i];
#endif
        }
        __syncthreads();
    }
}

// ---- Finishing. ----

// The fallback of a piece longer than a tile (only after the round limit): tiles sorted in place
// in buffer `b`, then bottom-up merge passes between the two buffers by this block alone (each
// thread a merge-path split and a serial merge of TILE_ITEMS outputs), the result copied home if
// it ends in scratch. O(m log m) work for m keys: no input is quadratic.
__device__ void fallback_sort(Key* const (&keys)[2], Value* const (&values)[2], u64 start, u64 len, u32 b,
                              Bits flip, unsigned char* smem) {
    const u32 tid = threadIdx.x;
    for (u64 t = 0; t < len; t += TILE) {
        const u32 valid = len - t < (u64)TILE ? (u32)(len - t) : (u32)TILE;
        sort_piece(keys[b], values[b], keys[b], values[b], start + t, valid, flip, smem);
    }
    u32 cur = b;
    for (u64 width = TILE; width < len; width *= 2) {
        const Key* src = keys[cur];
        Key* dst = keys[cur ^ 1];
        for (u64 o = (u64)tid * TILE_ITEMS; o < len; o += (u64)TILE) {
            const u64 ps = o / (2 * width) * (2 * width);
            const u64 a_len = len - ps < width ? len - ps : width;
            const u64 b_len = len - ps - a_len < width ? len - ps - a_len : width;
            const Key* a = src + start + ps;
            const Key* bb = a + a_len;
            const u64 diag = o - ps;
            u64 lo = diag > b_len ? diag - b_len : 0;
            u64 hi = diag < a_len ? diag : a_len;
            while (lo < hi) {
                const u64 mid = (lo + hi) >> 1;
                if (bits_of(bb[diag - 1 - mid], flip) < bits_of(a[mid], flip)) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            u64 ia = lo, ib = diag - lo;
            for (int k = 0; k < TILE_ITEMS && o + k < ps + a_len + b_len; ++k) {
                const bool take_b = ib < b_len && (ia >= a_len || bits_of(bb[ib], flip) < bits_of(a[ia], flip));
                const u64 from = take_b ? a_len + ib : ia;
                dst[start + o + k] = src[start + ps + from];
#if HAS_VALUES
                values[cur ^ 1][start + o + k] = values[cur][start + ps + from];
#endif
                if (take_b) {
                    ++ib;
                } else {
                    ++ia;
                }
            }
        }
        __syncthreads();
        cur ^= 1;
    }
    if (cur != 0) {
        for (u64 i = tid; i < len; i += TILE_THREADS) {
            keys[0][start + i] = keys[1][start + i];
#if HAS_VALUES
            values[0][start + i] = values[1][start + i];
#endif
        }
    }
    __syncthreads();
}

// One block per task (grid-strided over the task count): every piece ends sorted in buffer 0.
extern "C" __global__ void __launch_bounds__(TILE_THREADS, 1)
quick_finish(Key* keys0, Value* values0, Key* keys1, Value* values1, const Task* tasks, const u64* counters, Bits flip,
             u32 smem_bytes) {
    sortlab::dependent_entry();
    if (smem_bytes < (u32)TILE_SMEM_BYTES) __trap();
    Key* const keys[2] = {keys0, keys1};
    Value* const values[2] = {values0, values1};
    const u32 tid = threadIdx.x;
    const u64 count = counters[C_TASKS];
    for (u64 t = blockIdx.x; t < count; t += gridDim.x) {
        const Task task = tasks[t];
        if (task.kind == TASK_COPY) {
            // At most a tile: every load of a thread issued before its stores.
            const u32 valid = (u32)task.len;
            Key k[TILE_ITEMS];
#pragma unroll
            for (int j = 0; j < TILE_ITEMS; ++j) {
                const u32 i = j * TILE_THREADS + tid;
                if (i < valid) k[j] = keys1[task.start + i];
            }
#pragma unroll
            for (int j = 0; j < TILE_ITEMS; ++j) {
                const u32 i = j * TILE_THREADS + tid;
                if (i < valid) keys0[task.start + i] = k[j];
            }
#if HAS_VALUES
            Value v[TILE_ITEMS];
#pragma unroll
            for (int j = 0; j < TILE_ITEMS; ++j) {
                const u32 i = j * TILE_THREADS + tid;
                if (i < valid) v[j] = values1[task.start + i];
            }
#pragma unroll
            for (int j = 0; j < TILE_ITEMS; ++j) {
                const u32 i = j * TILE_THREADS + tid;
                if (i < valid) values0[task.start + i] = v[j];
            }
#endif
        } else if (task.len <= (u64)TILE) {
            sort_piece(keys[task.buf], values[task.buf], keys0, values0, task.start, (u32)task.len, flip, quick_smem);
        } else {
            fallback_sort(keys, values, task.start, task.len, task.buf, flip, quick_smem);
        }
    }
}
