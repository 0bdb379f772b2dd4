// sortlab/block/block_load_store.cuh: block-wide tile load and store (CUB's BlockLoad,
// BlockStore, BlockExchange and the Load/StoreDirect* functions).
//
// ---- Device API --------------------------------------------------------------------------------
//
// A tile is Threads * Items consecutive elements; `in` / `out` point at its first element (the
// caller adds the tile's 64-bit offset), indices inside a tile are u32. Arrangements, as in CUB:
//   blocked: thread t's item k is tile element t * Items + k   (what block sorts and scans use)
//   striped: thread t's item k is tile element k * Threads + t (what coalesced access gives)
// (the enum sortlab::Arrangement { kBlocked, kStriped } names them where a template needs to).
// A partial tile has `valid` < Threads * Items elements: loads give `fill` to every item whose
// element index is >= valid and never read past it; stores never write past it.
//
// Direct (registers <-> global memory, no shared memory, no __syncthreads):
//   load_direct_blocked(tid, in, items)                     full tile, blocked
//   load_direct_blocked(tid, in, items, valid, fill)        partial tile, blocked
//   load_direct_striped<Threads>(tid, in, items)            full tile, striped (coalesced)
//   load_direct_striped<Threads>(tid, in, items, valid, fill)
//   store_direct_blocked(tid, out, items[, valid])
//   store_direct_striped<Threads>(tid, out, items[, valid])
//
// BlockExchange<T, Threads, Items>: rearranges the block's registers through shared memory
// (padded against bank conflicts):
//   TempStorage                          declare `__shared__` (or carve from dynamic shared memory)
//   striped_to_blocked(items, tmp)       blocked_to_striped(items, tmp)
//   scatter_to_blocked(items, ranks, tmp) item k goes to blocked slot ranks[k] (ranks: a
//                                        permutation of 0 .. Threads * Items - 1)
//   scatter_to_striped(items, ranks, tmp) item k goes to striped slot ranks[k]
//
// BlockLoad<T, Threads, Items>: a coalesced load into blocked registers (global memory is read
// striped, 16-byte vectors where the tile is 16-byte aligned and Items is a multiple of the
// vector width, then transposed through shared memory; CUB's BLOCK_LOAD_TRANSPOSE and
// BLOCK_LOAD_VECTORIZE in one):
//   TempStorage
//   load(in, items, tmp)                 full tile
//   load(in, items, valid, fill, tmp)    partial tile (valid >= Threads * Items: a full tile)
// BlockStore<T, Threads, Items>: the mirror image, blocked registers to a coalesced store:
//   TempStorage
//   store(out, items, tmp)               full tile
//   store(out, items, valid, tmp)        partial tile
//
// Rules: one-dimensional blocks of exactly Threads threads (a multiple of 32); every thread of
// the block calls every function that takes a TempStorage; such a function holds one
// __syncthreads(), and the caller must __syncthreads() before the same TempStorage (or memory
// aliasing it) is used again. T is any plain type (keys, ordered bits, values).
// TempStorage of a large tile may exceed the 48 KiB a kernel can declare `__shared__` statically:
// carve it from dynamic shared memory (`extern __shared__` plus a launch's shared bytes, as
// primitives/src/block/block.cu does, which reports sizeof() to the host).
// ------------------------------------------------------------------------------------------------
#pragma once
#include "sortlab/thread/type_traits.cuh"

namespace sortlab {

// Which tile element a thread's item k is: kBlocked t * Items + k, kStriped k * Threads + t.
enum Arrangement { kBlocked = 0, kStriped = 1 };

// ---- Direct loads and stores. ----

template <typename T, int Items>
__device__ __forceinline__ void load_direct_blocked(u32 tid, const T* in, T (&items)[Items]) {
#pragma unroll
    for (int k = 0; k < Items; ++k) items[k] = in[tid * Items + k];
}

template <typename T, int Items>
__device__ __forceinline__ void load_direct_blocked(u32 tid, const T* in, T (&items)[Items], u32 valid, T fill) {
#pragma unroll
    for (int k = 0; k < Items; ++k) {
        const u32 e = tid * Items + k;
        items[k] = e < valid ? in[e] : fill;
    }
}

template <int Threads, typename T, int Items>
__device__ __forceinline__ void load_direct_striped(u32 tid, const T* in, T (&items)[Items]) {
#pragma unroll
    for (int k = 0; k < Items; ++k) items[k] = in[k * Threads + tid];
}

template <int Threads, typename T, int Items>
__device__ __forceinline__ void load_direct_striped(u32 tid, const T* in, T (&items)[Items], u32 valid, T fill) {
#pragma unroll
    for (int k = 0; k < Items; ++k) {
        const u32 e = k * Threads + tid;
        items[k] = e < valid ? in[e] : fill;
    }
}

template <typename T, int Items>
__device__ __forceinline__ void store_direct_blocked(u32 tid, T* out, const T (&items)[Items]) {
#pragma unroll
    for (int k = 0; k < Items; ++k) out[tid * Items + k] = items[k];
}

template <typename T, int Items>
__device__ __forceinline__ void store_direct_blocked(u32 tid, T* out, const T (&items)[Items], u32 valid) {
#pragma unroll
    for (int k = 0; k < Items; ++k) {
        const u32 e = tid * Items + k;
        if (e < valid) out[e] = items[k];
    }
}

template <int Threads, typename T, int Items>
__device__ __forceinline__ void store_direct_striped(u32 tid, T* out, const T (&items)[Items]) {
#pragma unroll
    for (int k = 0; k < Items; ++k) out[k * Threads + tid] = items[k];
}

template <int Threads, typename T, int Items>
__device__ __forceinline__ void store_direct_striped(u32 tid, T* out, const T (&items)[Items], u32 valid) {
#pragma unroll
    for (int k = 0; k < Items; ++k) {
        const u32 e = k * Threads + tid;
        if (e < valid) out[e] = items[k];
    }
}

// ---- BlockExchange. ----

template <typename T, int Threads, int Items> struct BlockExchange {
    static_assert(Threads >= 32 && Threads <= 1024 && Threads % 32 == 0,
                  "block algorithms need 32 to 1024 threads, a multiple of 32");
    static_assert(Items >= 1, "Items must be positive");
    enum { kTileItems = Threads * Items };
    // One padding slot per 128 bytes (32 four-byte or 16 eight-byte elements) when Items is even,
    // so that blocked accesses (stride Items) hit distinct banks; odd strides need none.
    static constexpr int kPadShift = sizeof(T) == 4 ? 5 : (sizeof(T) == 8 ? 4 : 0);
    static constexpr bool kPad = (Items % 2 == 0) && kPadShift > 0;
    enum { kSlots = kTileItems + (kPad ? (kTileItems >> (kPadShift > 0 ? kPadShift : 1)) : 0) };

    struct TempStorage {
        T buf[kSlots];
    };

    // The shared-memory slot of tile element i.
    static __device__ __forceinline__ u32 slot(u32 i) { return kPad ? i + (i >> kPadShift) : i; }

    static __device__ __forceinline__ void striped_to_blocked(T (&items)[Items], TempStorage& tmp) {
        const u32 tid = threadIdx.x;
#pragma unroll
        for (int k = 0; k < Items; ++k) tmp.buf[slot(k * Threads + tid)] = items[k];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < Items; ++k) items[k] = tmp.buf[slot(tid * Items + k)];
    }

    static __device__ __forceinline__ void blocked_to_striped(T (&items)[Items], TempStorage& tmp) {
        const u32 tid = threadIdx.x;
#pragma unroll
        for (int k = 0; k < Items; ++k) tmp.buf[slot(tid * Items + k)] = items[k];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < Items; ++k) items[k] = tmp.buf[slot(k * Threads + tid)];
    }

    static __device__ __forceinline__ void scatter_to_blocked(T (&items)[Items], const u32 (&ranks)[Items],
                                                              TempStorage& tmp) {
        const u32 tid = threadIdx.x;
#pragma unroll
        for (int k = 0; k < Items; ++k) tmp.buf[slot(ranks[k])] = items[k];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < Items; ++k) items[k] = tmp.buf[slot(tid * Items + k)];
    }

    static __device__ __forceinline__ void scatter_to_striped(T (&items)[Items], const u32 (&ranks)[Items],
                                                              TempStorage& tmp) {
        const u32 tid = threadIdx.x;
#pragma unroll
        for (int k = 0; k < Items; ++k) tmp.buf[slot(ranks[k])] = items[k];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < Items; ++k) items[k] = tmp.buf[slot(k * Threads + tid)];
    }
};

// ---- BlockLoad and BlockStore. ----

// 16 bytes as a vector of T (4-byte and 8-byte T only).
template <typename T> struct Vector16 {
    enum { kWidth = 16 / sizeof(T) };
    union Words {
        uint4 v;
        T t[kWidth];
    };
};

template <typename T, int Threads, int Items> struct BlockLoad {
    typedef BlockExchange<T, Threads, Items> Exchange;
    typedef typename Exchange::TempStorage TempStorage;
    enum { kTileItems = Threads * Items };
    // Whether full tiles may be read as 16-byte vectors (when the tile is 16-byte aligned).
    static constexpr bool kVectorize = (sizeof(T) == 4 || sizeof(T) == 8) && (Items * sizeof(T)) % 16 == 0;

    static __device__ __forceinline__ void load(const T* in, T (&items)[Items], TempStorage& tmp) {
        const u32 tid = threadIdx.x;
        if constexpr (kVectorize) {
            if ((reinterpret_cast<u64>(in) & 15) == 0) {
                enum { kWidth = Vector16<T>::kWidth, kVectors = Items / Vector16<T>::kWidth };
                const uint4* vin = reinterpret_cast<const uint4*>(in);
#pragma unroll
                for (int k = 0; k < kVectors; ++k) {
                    typename Vector16<T>::Words w;
                    const u32 vi = k * Threads + tid;
                    w.v = vin[vi];
#pragma unroll
                    for (int j = 0; j < kWidth; ++j) tmp.buf[Exchange::slot(vi * kWidth + j)] = w.t[j];
                }
                __syncthreads();
#pragma unroll
                for (int k = 0; k < Items; ++k) items[k] = tmp.buf[Exchange::slot(tid * Items + k)];
                return;
            }
        }
        load_direct_striped<Threads>(tid, in, items);
        Exchange::striped_to_blocked(items, tmp);
    }

    static __device__ __forceinline__ void load(const T* in, T (&items)[Items], u32 valid, T fill,
                                                TempStorage& tmp) {
        if (valid >= (u32)kTileItems) {
            load(in, items, tmp);
            return;
        }
        load_direct_striped<Threads>(threadIdx.x, in, items, valid, fill);
        Exchange::striped_to_blocked(items, tmp);
    }
};

template <typename T, int Threads, int Items> struct BlockStore {
    typedef BlockExchange<T, Threads, Items> Exchange;
    typedef typename Exchange::TempStorage TempStorage;
    enum { kTileItems = Threads * Items };
    static constexpr bool kVectorize = (sizeof(T) == 4 || sizeof(T) == 8) && (Items * sizeof(T)) % 16 == 0;

    static __device__ __forceinline__ void store(T* out, const T (&items)[Items], TempStorage& tmp) {
        const u32 tid = threadIdx.x;
        if constexpr (kVectorize) {
            if ((reinterpret_cast<u64>(out) & 15) == 0) {
                enum { kWidth = Vector16<T>::kWidth, kVectors = Items / Vector16<T>::kWidth };
#pragma unroll
                for (int k = 0; k < Items; ++k) tmp.buf[Exchange::slot(tid * Items + k)] = items[k];
                __syncthreads();
                uint4* vout = reinterpret_cast<uint4*>(out);
#pragma unroll
                for (int k = 0; k < kVectors; ++k) {
                    typename Vector16<T>::Words w;
                    const u32 vi = k * Threads + tid;
#pragma unroll
                    for (int j = 0; j < kWidth; ++j) w.t[j] = tmp.buf[Exchange::slot(vi * kWidth + j)];
                    vout[vi] = w.v;
                }
                return;
            }
        }
        T striped[Items];
#pragma unroll
        for (int k = 0; k < Items; ++k) striped[k] = items[k];
        Exchange::blocked_to_striped(striped, tmp);
        store_direct_striped<Threads>(tid, out, striped);
    }

    static __device__ __forceinline__ void store(T* out, const T (&items)[Items], u32 valid, TempStorage& tmp) {
        if (valid >= (u32)kTileItems) {
            store(out, items, tmp);
            return;
        }
        T striped[Items];
#pragma unroll
        for (int k = 0; k < Items; ++k) striped[k] = items[k];
        Exchange::blocked_to_striped(striped, tmp);
        store_direct_striped<Threads>(threadIdx.x, out, striped, valid);
    }
};

}  // namespace sortlab
