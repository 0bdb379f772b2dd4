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
// One Cursor pass into 10,000 intervals is not used: every block would write its own region of
// every interval, 1.3 million write fronts whose partial sectors leave L2 before they fill (10.5
// ms at 2^28 keys on an H100 against 3.5 for two passes). Claims share one front per interval.
// Thread-block clusters, a bulk copy of the next tile and an L2 prefetch of the values were tried
// and not kept (README.md). ----

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
    __device__ __forceinline__ u32 bin(KEY_T k) const { return map(sortlab::flip_bits(k, flip)) >> shift; }
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
    __device__ __forceinline__ u32 bin(KEY_T k) const { return (u32)((sortlab::flip_bits(k, flip) >> shift) - base); }
    __device__ __forceinline__ void count(KEY_T k) const { atomicAdd(fine_hist + fine(sortlab::flip_bits(k, flip)), 1u); }
    // Its tiles take the checked code of every step even when full (the unchecked code made this
    // pass slower: README.md).
    static constexpr bool kCounts = true;
};

// Step 1 of a wide tile: each valid key's rank among the tile's keys of its bin (a shared atomic
// on wend), and the smallest and largest bin met. Full: all WIDE_TILE keys valid (no check).
// Input already grouped by interval (sorted keys) sends every lane of a warp to one counter,
// where the atomics serialise; one atomic per vector of keys sharing a bin made uniform keys
// slower and was not kept (README.md).
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
// again). Each slot is written as it is read: reading every slot first (the compiler cannot move
// the reads past a store that may alias wend) made the passes slower.
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
// The lead pass keeps tiles b, b + gridDim.x, ...: claiming them spilled its registers and made
// it slower (README.md).
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
    // a fine-pass tile holds one or two coarse bins' keys, about 2 * sqrt(m) of the m intervals
    // (scanning all m bins made the fine pass half again as slow).
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
    // cache still holds some (pairs, whose values the min-max pass does not read, were slower so).
    scatter_wide<false, false>(keys_in, vals_in, n, map, bins, 0, nullptr, coarse_bounds, coarse_claimed, keys_out,
                               vals_out, nullptr, !HAS_VALUES);
    add_counts(fine_hist, m, counts);  // (scatter_wide ends with a barrier)
    // The last block scans the counts into the interval bounds (counts[0, m], in place); its
    // tiles are done with the shared memory (last_block's barrier ends add_counts' reads).
    if (sortlab::last_block(done)) scan_words<WIDE_THREADS, 8>(counts, (u64)m + 1, smem_scan_tmp<WIDE_THREADS>());
}

