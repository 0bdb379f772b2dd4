// reduce.cu: sum, min, max and min-max of a key array, in the four classic variants of Mark
// Harris's "Optimizing Parallel Reduction in CUDA" and one fast single-pass variant.
//
// Defines:
//   KEY_T            the key's CUDA type
//   SUM_T            the sum's CUDA type (REDUCE_OP 0): unsigned long long for unsigned int,
//                    long long for int, the key's own type otherwise
//   REDUCE_OP        0 sum, 1 min, 2 max, 3 min-max (min and max by total order: on ordered bits)
//   REDUCE_VARIANT   which kernels to build: 0 interleaved, 1 sequential, 2 first add during
//                    load, 3 unrolled last warp, 4 fast; -1 (the default) builds them all
//   BLOCK_THREADS    threads per block, a power of two from 64 to 1024; every kernel is launched
//                    with exactly this many threads
//   UNROLL           (fast) 16-byte vectors each thread loads per round
//
// Every kernel reads indices < n only, indexes with 64 bits, and never writes its input: the
// classic kernels write one partial per tile to `out` and the host launches them again on the
// partials (the `_partials` kernels) until one value remains.
#include "sortlab/thread/key_bits.cuh"
#include "sortlab/block/block_reduce.cuh"
#include "sortlab/grid/last_block.cuh"
#include "sortlab/thread/key_defines.cuh"

#ifndef SUM_T
#define SUM_T unsigned long long
#endif
#ifndef REDUCE_OP
#define REDUCE_OP 0
#endif
#ifndef REDUCE_VARIANT
#define REDUCE_VARIANT -1
#endif
#ifndef BLOCK_THREADS
#define BLOCK_THREADS 256
#endif
#ifndef UNROLL
#define UNROLL 4
#endif

#define WANT_VARIANT(v) (REDUCE_VARIANT < 0 || REDUCE_VARIANT == (v))

static_assert(BLOCK_THREADS >= 64 && BLOCK_THREADS <= 1024 && (BLOCK_THREADS & (BLOCK_THREADS - 1)) == 0,
              "BLOCK_THREADS must be a power of two from 64 to 1024");
static_assert(UNROLL >= 1, "UNROLL must be positive");

typedef sortlab::KeyBits<KEY_T> Map;
typedef Map::Bits Bits;

// ---- The operation: accumulator type `Acc`, its operator, identity and the key -> Acc map. ----

// Integer sums accumulate in the unsigned type of SUM_T's width, so that they wrap (a signed
// overflow would be undefined); the host reads the same bits as SUM_T.
template <typename S> struct SumAccumulator { typedef S T; };
template <> struct SumAccumulator<long long> { typedef u64 T; };
template <> struct SumAccumulator<unsigned long long> { typedef u64 T; };

// The additive identity: -0.0 for floats (-0.0 + x == x for every x, -0.0 included), 0 otherwise.
template <typename T> __device__ __forceinline__ T additive_identity() { return (T)0; }
template <> __device__ __forceinline__ float additive_identity<float>() { return -0.0f; }
template <> __device__ __forceinline__ double additive_identity<double>() { return -0.0; }

struct MinMaxBits {
    Bits lo;
    Bits hi;
};

#if REDUCE_OP == 0
typedef SumAccumulator<SUM_T>::T Acc;
typedef sortlab::Sum Op;
__device__ __forceinline__ Acc identity() { return additive_identity<Acc>(); }
// Widens first (sign-extending int into long long), then reinterprets as the accumulator.
__device__ __forceinline__ Acc from_key(KEY_T k) { return (Acc)(SUM_T)k; }
#elif REDUCE_OP == 1
typedef Bits Acc;
typedef sortlab::Min Op;
__device__ __forceinline__ Acc identity() { return (Acc)~(Acc)0; }
__device__ __forceinline__ Acc from_key(KEY_T k) { return Map::to_bits(k); }
#elif REDUCE_OP == 2
typedef Bits Acc;
typedef sortlab::Max Op;
__device__ __forceinline__ Acc identity() { return (Acc)0; }
__device__ __forceinline__ Acc from_key(KEY_T k) { return Map::to_bits(k); }
#elif REDUCE_OP == 3
typedef MinMaxBits Acc;
struct Op {
    __device__ __forceinline__ Acc operator()(Acc a, Acc b) const {
        Acc r;
        r.lo = b.lo < a.lo ? b.lo : a.lo;
        r.hi = a.hi < b.hi ? b.hi : a.hi;
        return r;
    }
};
__device__ __forceinline__ Acc identity() {
    Acc r;
    r.lo = (Bits)~(Bits)0;
    r.hi = (Bits)0;
    return r;
}
__device__ __forceinline__ Acc from_key(KEY_T k) {
    Acc r;
    r.lo = Map::to_bits(k);
    r.hi = r.lo;
    return r;
}
#else
#error "REDUCE_OP must be 0 (sum), 1 (min), 2 (max) or 3 (min-max)"
#endif

// What a reduction leaves for its caller: the sum as accumulated, or keys (min, max; min then
// max), so that a device-resident result needs no conversion on the host.
#if REDUCE_OP == 0
typedef Acc Out;
__device__ __forceinline__ Out finish(Acc a) { return a; }
#elif REDUCE_OP == 3
struct Out {
    KEY_T lo;
    KEY_T hi;
};
__device__ __forceinline__ Out finish(Acc a) {
    Out o;
    o.lo = Map::from_bits(a.lo);
    o.hi = Map::from_bits(a.hi);
    return o;
}
#else
typedef KEY_T Out;
__device__ __forceinline__ Out finish(Acc a) { return Map::from_bits(a); }
#endif

// The classic variants' last step: their final level's accumulator `acc[0]` as the caller's
// result `out[0]`. Launch: one block of any size.
extern "C" __global__ void reduce_finish(const Acc* acc, Out* out) {
    if (threadIdx.x == 0) out[0] = finish(acc[0]);
}

// Element i of the input: a key (first pass) or a partial (later passes).
template <bool KEYS, typename In> __device__ __forceinline__ Acc load(const In* in, u64 i) {
    if constexpr (KEYS) {
        return from_key(in[i]);
    } else {
        return in[i];
    }
}

// ---- Classic variants: one tile per block (a grid-stride loop over tiles covers grids larger
// than the device allows), tree reduction in shared memory, one partial per tile. ----

// Variant 0 (Harris kernel 1): interleaved addressing, divergent branch `tid % (2*s) == 0`.
template <bool KEYS, typename In> __device__ __forceinline__ void interleaved(const In* in, Acc* out, u64 n) {
    __shared__ Acc s[BLOCK_THREADS];
    const u32 tid = threadIdx.x;
    const u64 tiles = (n + BLOCK_THREADS - 1) / BLOCK_THREADS;
    for (u64 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const u64 i = tile * BLOCK_THREADS + tid;
        s[tid] = i < n ? load<KEYS>(in, i) : identity();
        __syncthreads();
        for (u32 stride = 1; stride < BLOCK_THREADS; stride *= 2) {
            if (tid % (2 * stride) == 0) s[tid] = Op()(s[tid], s[tid + stride]);
            __syncthreads();
        }
        if (tid == 0) out[tile] = s[0];
        __syncthreads();
    }
}

// Variant 1 (Harris kernel 3): sequential addressing, the active threads are contiguous.
template <bool KEYS, typename In> __device__ __forceinline__ void sequential(const In* in, Acc* out, u64 n) {
    __shared__ Acc s[BLOCK_THREADS];
    const u32 tid = threadIdx.x;
    const u64 tiles = (n + BLOCK_THREADS - 1) / BLOCK_THREADS;
    for (u64 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const u64 i = tile * BLOCK_THREADS + tid;
        s[tid] = i < n ? load<KEYS>(in, i) : identity();
        __syncthreads();
        for (u32 stride = BLOCK_THREADS / 2; stride > 0; stride >>= 1) {
            if (tid < stride) s[tid] = Op()(s[tid], s[tid + stride]);
            __syncthreads();
        }
        if (tid == 0) out[tile] = s[0];
        __syncthreads();
    }
}

// Variants 2 and 3 (Harris kernels 4 and 5): tiles of 2 * BLOCK_THREADS, the first add done while
// loading; variant 3 also finishes the last 64 values in one warp, with shuffles (the original's
// volatile shared memory without __syncwarp() is a race on Volta and later).
template <bool KEYS, bool UNROLL_LAST_WARP, typename In>
__device__ __forceinline__ void first_add(const In* in, Acc* out, u64 n) {
    __shared__ Acc s[BLOCK_THREADS];
    const u32 tid = threadIdx.x;
    const u64 tile_elems = 2 * (u64)BLOCK_THREADS;
    const u64 tiles = (n + tile_elems - 1) / tile_elems;
    for (u64 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const u64 i = tile * tile_elems + tid;
        Acc v = i < n ? load<KEYS>(in, i) : identity();
        if (i + BLOCK_THREADS < n) v = Op()(v, load<KEYS>(in, i + BLOCK_THREADS));
        s[tid] = v;
        __syncthreads();
        if constexpr (UNROLL_LAST_WARP) {
#pragma unroll
            for (u32 stride = BLOCK_THREADS / 2; stride > 32; stride >>= 1) {
                if (tid < stride) s[tid] = Op()(s[tid], s[tid + stride]);
                __syncthreads();
            }
            if (tid < 32) {
                const Acc w = sortlab::warp_reduce<32>(Op()(s[tid], s[tid + 32]), Op());
                if (tid == 0) out[tile] = w;
            }
        } else {
            for (u32 stride = BLOCK_THREADS / 2; stride > 0; stride >>= 1) {
                if (tid < stride) s[tid] = Op()(s[tid], s[tid + stride]);
                __syncthreads();
            }
            if (tid == 0) out[tile] = s[0];
        }
        __syncthreads();
    }
}

#define CLASSIC_KERNELS(name, body)                                                                    \
    extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)                                       \
        reduce_##name##_keys(const KEY_T* __restrict__ in, Acc* __restrict__ out, u64 n) {           \
        body<true>(in, out, n);                                                                       \
    }                                                                                                 \
    extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)                                       \
        reduce_##name##_partials(const Acc* __restrict__ in, Acc* __restrict__ out, u64 n) {         \
        body<false>(in, out, n);                                                                      \
    }

#if WANT_VARIANT(0)
CLASSIC_KERNELS(interleaved, interleaved)
#endif
#if WANT_VARIANT(1)
CLASSIC_KERNELS(sequential, sequential)
#endif

template <bool KEYS, typename In> __device__ __forceinline__ void first_add_only(const In* in, Acc* out, u64 n) {
    first_add<KEYS, false>(in, out, n);
}
template <bool KEYS, typename In> __device__ __forceinline__ void unrolled_last_warp(const In* in, Acc* out, u64 n) {
    first_add<KEYS, true>(in, out, n);
}
#if WANT_VARIANT(2)
CLASSIC_KERNELS(first_add, first_add_only)
#endif
#if WANT_VARIANT(3)
CLASSIC_KERNELS(unrolled, unrolled_last_warp)
#endif

// ---- Variant 4: fast, one pass. ----
//
// Each thread accumulates a grid-stride share of the input with 16-byte loads (UNROLL in flight
// per round) when the input is 16-byte aligned, then the scalar tail; blocks reduce with warp
// shuffles; each block writes its partial, and the last block to finish (atomic ticket after a
// __threadfence()) reduces the partials in index order and writes the result. For a given grid
// the order of every operation is fixed, so float sums are deterministic. The result is written
// as the caller's Out (finish()).
//
// `partials` holds gridDim.x values; `counter` must be 0 at launch and is 0 again afterwards.
#if WANT_VARIANT(4)
enum { VEC = 16 / sizeof(KEY_T) };
union Vector {
    uint4 raw;
    KEY_T key[VEC];
};

__device__ __forceinline__ Acc reduce_vector(uint4 raw) {
    Vector v;
    v.raw = raw;
    Acc a = from_key(v.key[0]);
#pragma unroll
    for (int j = 1; j < VEC; ++j) a = Op()(a, from_key(v.key[j]));
    return a;
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)
reduce_fast(const KEY_T* __restrict__ in, u64 n, Acc* __restrict__ partials, u32* __restrict__ counter,
            Out* __restrict__ out) {
    typedef sortlab::BlockReduce<Acc, BLOCK_THREADS> BlockReduceT;
    __shared__ typename BlockReduceT::TempStorage tmp;

    const u64 grid_threads = (u64)gridDim.x * BLOCK_THREADS;
    const u64 gtid = (u64)blockIdx.x * BLOCK_THREADS + threadIdx.x;
    Acc acc = identity();
    u64 scalar_from = 0;
    if ((reinterpret_cast<u64>(in) & 15) == 0) {
        const uint4* vin = reinterpret_cast<const uint4*>(in);
        const u64 nvec = n / VEC;
        const u64 chunk = (u64)BLOCK_THREADS * UNROLL;
        const u64 full_chunks = nvec / chunk;
        for (u64 c = blockIdx.x; c < full_chunks; c += gridDim.x) {
            const uint4* p = vin + c * chunk + threadIdx.x;
            uint4 w[UNROLL];
#pragma unroll
            for (int k = 0; k < UNROLL; ++k) w[k] = __ldg(p + k * BLOCK_THREADS);
#pragma unroll
            for (int k = 0; k < UNROLL; ++k) acc = Op()(acc, reduce_vector(w[k]));
        }
        for (u64 v = full_chunks * chunk + gtid; v < nvec; v += grid_threads) acc = Op()(acc, reduce_vector(__ldg(vin + v)));
        scalar_from = nvec * VEC;
    }
    for (u64 i = scalar_from + gtid; i < n; i += grid_threads) acc = Op()(acc, from_key(in[i]));

    const Acc block_total = BlockReduceT::reduce(acc, Op(), tmp);
    if (gridDim.x == 1) {
        if (threadIdx.x == 0) out[0] = finish(block_total);
        return;
    }
    if (threadIdx.x == 0) sortlab::store_cg(partials + blockIdx.x, block_total);
    if (!sortlab::last_block(counter)) return;
    // The last block: every other block's partial is visible.
    Acc a = identity();
    for (u32 b = threadIdx.x; b < gridDim.x; b += BLOCK_THREADS) a = Op()(a, sortlab::load_cg(partials + b));
    a = BlockReduceT::reduce(a, Op(), tmp);
    if (threadIdx.x == 0) {
        out[0] = finish(a);
        *counter = 0;
    }
}
#endif
