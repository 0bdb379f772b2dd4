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
        b[s] = pad[s] ? sortlab::max_bits<Bits>() : sortlab::flip_bits(src_k[start + e], flip);
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
            dst_k[start + e] = sortlab::key_from_flipped_bits<KEY_T>(b[s], flip);
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

// Moves the chunk's staged keys (and values) between shared memory (sk, sv) and their segments'
// places in global memory (k, v): in when ToStage, else out. Staged key j of entry t sits at
// seg_start[t] + (j - key_off[t]).
template <bool ToStage, typename GK, typename GV>
__device__ __forceinline__ void move_staged(const u64* seg_start, const u32* key_off, u32 ne, u32 total, GK* k,
                                            GV* v, Key* sk, Value* sv) {
    (void)v;
    (void)sv;
    for (u32 j = threadIdx.x; j < total; j += BLOCK_THREADS) {
        const u32 t = staged_entry(key_off, ne, j);
        const u64 pos = seg_start[t] + (j - key_off[t]);
        if constexpr (ToStage) {
            sk[j] = k[pos];
#if HAS_VALUES
            sv[j] = v[pos];
#endif
        } else {
            k[pos] = sk[j];
#if HAS_VALUES
            v[pos] = sv[j];
#endif
        }
    }
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
        move_staged<true>(seg_start, key_off, ne, total, src_k, src_v, sk, sv);
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
        move_staged<false>(seg_start, key_off, ne, total, dst_k, dst_v, sk, sv);
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
                keys[k] = sortlab::flip_bits(src_k[start + e], flip);
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
                dst_k[start + e] = sortlab::key_from_flipped_bits<KEY_T>(keys[k] + lo, flip);
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

