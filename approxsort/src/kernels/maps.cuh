// ---- Interval maps. ----

struct EqualMap {
    Bits lo;
    Bits scale;
    u32 direct;
    __device__ __forceinline__ u32 operator()(Bits b) const {
        const Bits d = b - lo;
        return direct ? (u32)d : (u32)mulhi(d, scale);
    }
};

// The smallest and largest rank (ordered bits xor flip) from the extremes as the min-max
// kernels leave them (word 0 ~min, word 1 max, unflipped).
__device__ __forceinline__ void rank_range(Bits nmin, Bits mx, Bits flip, Bits& lo, Bits& hi) {
    const Bits mn = (Bits)~nmin;
    lo = flip ? (Bits)~mx : mn;
    hi = flip ? (Bits)~mn : mx;
}

// The equal-width map of m intervals from the extremes (word 0 ~min, word 1 max, unflipped).
__device__ __forceinline__ EqualMap make_equal_map(Bits nmin, Bits mx, Bits flip, u32 m) {
    Bits lo, hi;
    rank_range(nmin, mx, flip, lo, hi);
    const Bits span = hi - lo;
    EqualMap e;
    e.lo = lo;
    e.scale = 0;
    e.direct = 0;
    if ((u64)span < (u64)m) {
        e.direct = 1;
    } else if (span == sortlab::max_bits<Bits>()) {
        e.scale = (Bits)m;
    } else {
        e.scale = wide_div((Bits)m, (Bits)(span + 1));
    }
    return e;
}

// The sampled map's bucket table: splitter_table puts, after the m - 1 splitters (from word m on),
// s0 (the smallest splitter), the shift, and SPLIT_TABLE + 1 u32 entries: entry u is the number
// of splitters below s0 + (u << shift) (m - 1 past the largest), so the splitters <= a key of
// bucket u = (b - s0) >> shift number between entries u and u + 1: a search of a few splitters
// instead of all (14 steps for 10,000 intervals, three times a key a pass).
#define SPLIT_TABLE (1u << SPLIT_TABLE_BITS)

struct SampledMap {
    const Bits* splitters;
    const u32* table;
    Bits s0;
    u32 shift;
    u32 count;  // m - 1
    // The number of splitters <= b (upper bound): below s0 none, past the table all, else a
    // binary search between the bucket's table entries.
    __device__ __forceinline__ u32 operator()(Bits b) const {
        if (count == 0 || b < s0) return 0;
        const Bits d = (Bits)(b - s0) >> shift;
        if (d >= (Bits)SPLIT_TABLE) return count;
        u32 lo = __ldg(table + (u32)d);
        u32 hi = __ldg(table + (u32)d + 1);
        while (lo < hi) {
            const u32 mid = (lo + hi) >> 1;
            if (__ldg(splitters + mid) <= b) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
};

// The map every block of a kernel shares, built once by thread 0.
template <typename MapT> struct MapArgs;
template <> struct MapArgs<EqualMap> {
    const Bits* minmax;
    __device__ __forceinline__ EqualMap build(Bits flip, u32 m) const {
        return make_equal_map(minmax[0], minmax[1], flip, m);
    }
};
template <> struct MapArgs<SampledMap> {
    const Bits* splitters;
    __device__ __forceinline__ SampledMap build(Bits, u32 m) const {
        SampledMap s;
        s.splitters = splitters;
        s.count = m - 1;
        s.s0 = 0;
        s.shift = 0;
        s.table = nullptr;
        if (m >= 2) {
            s.s0 = splitters[m];
            s.shift = (u32)splitters[m + 1];
            s.table = reinterpret_cast<const u32*>(splitters + m + 2);
        }
        return s;
    }
};

template <typename MapT> __device__ __forceinline__ MapT shared_map(const MapArgs<MapT>& args, Bits flip, u32 m) {
    __shared__ MapT map;
    if (threadIdx.x == 0) map = args.build(flip, m);
    __syncthreads();
    return map;
}

// Adds a block's n shared counters to out[0, n) (global u64 words), the non-zero ones; after a
// barrier that ends the counting.
__device__ __forceinline__ void add_counts(const u32* hist, u32 n, u64* out) {
    for (u32 i = threadIdx.x; i < n; i += blockDim.x) {
        const u32 c = hist[i];
        if (c) atomicAdd((unsigned long long*)(out + i), (u64)c);
    }
}

