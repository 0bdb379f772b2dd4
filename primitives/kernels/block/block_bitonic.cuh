// sortlab/block/block_bitonic.cuh: block-wide bitonic sorting network over a tile of ordered key
// bits, with or without values (Batcher's network, in registers and shared memory).
//
// ---- Device API --------------------------------------------------------------------------------
//
// BlockBitonicSort<Bits, Value, Threads, Items>
//   Bits       u32 or u64: ordered key bits, ascending (sortlab::flip_bits(key, flip)
//              before, sortlab::key_from_flipped_bits<K>(bits, flip) after).
//   Value      the value type carried with each key, or sortlab::NullValue for keys only.
//   Threads    threads per block, a power of two from 32 to 1024; Items keys per thread (any
//              positive number: the tile need not be a power of two).
//
//   TempStorage
//   sort(keys, tmp, valid)
//   sort(keys, values, tmp, valid)
//       keys (and values) blocked in, blocked out (thread t's item k is sorted element
//       t * Items + k). valid: the tile's element count; elements >= valid (blocked index) are
//       partial-tile padding, sorted as sortlab::max_bits<Bits>() after every real key, so the
//       first `valid` sorted elements are exactly the real ones. Pass Threads * Items for a full
//       tile.
//
//   The network runs over kPadded = the next power of two >= Threads * Items elements (the
//   extra ones are padding too). Each thread owns kChunk = kPadded / Threads consecutive
//   elements: the steps of partner distance < kChunk run in registers, the others in shared
//   memory with one __syncthreads() each: log2(kPadded) * (log2(kPadded) + 1) / 2 steps in all.
//   Keys alone are compared by bits. With values, each key carries its blocked index and
//   compares by (bits, index): the sort is then stable, and the values move once, at the end.
//
// Rules: every thread of the block calls; the caller must __syncthreads() before the same
// TempStorage (or memory aliasing it) is used again. Shared memory: kPadded + Threads elements
// of 4 (u32 keys), 8 (u64 keys, or u32 keys with values) or 16 bytes (u64 keys with values),
// in a union with the tile's values.
// TempStorage of a large tile may exceed the 48 KiB a kernel can declare `__shared__` statically:
// carve it from dynamic shared memory (`extern __shared__` plus a launch's shared bytes, as
// primitives/src/block/block.cu does, which reports sizeof() to the host).
// ------------------------------------------------------------------------------------------------
#pragma once
#include "sortlab/thread/type_traits.cuh"

namespace sortlab {

// What the network sorts: the key bits alone, or (bits, blocked index) compared
// lexicographically. For u32 bits the pair is packed into one u64.
template <typename Bits, bool Indexed> struct BitonicElem {
    typedef Bits T;
    static __device__ __forceinline__ T make(Bits b, u32) { return b; }
    static __device__ __forceinline__ Bits bits(T e) { return e; }
    static __device__ __forceinline__ u32 index(T) { return 0; }
    static __device__ __forceinline__ bool less(T a, T b) { return a < b; }
};

template <> struct BitonicElem<u32, true> {
    typedef u64 T;
    static __device__ __forceinline__ T make(u32 b, u32 i) { return ((u64)b << 32) | (u64)i; }
    static __device__ __forceinline__ u32 bits(T e) { return (u32)(e >> 32); }
    static __device__ __forceinline__ u32 index(T e) { return (u32)e; }
    static __device__ __forceinline__ bool less(T a, T b) { return a < b; }
};

struct BitsIndex64 {
    u64 bits;
    u32 index;
};

template <> struct BitonicElem<u64, true> {
    typedef BitsIndex64 T;
    static __device__ __forceinline__ T make(u64 b, u32 i) {
        T e;
        e.bits = b;
        e.index = i;
        return e;
    }
    static __device__ __forceinline__ u64 bits(T e) { return e.bits; }
    static __device__ __forceinline__ u32 index(T e) { return e.index; }
    static __device__ __forceinline__ bool less(T a, T b) {
        return a.bits < b.bits || (a.bits == b.bits && a.index < b.index);
    }
};

template <typename Bits, typename Value, int Threads, int Items> struct BlockBitonicSort {
    static_assert(Threads >= 32 && Threads <= 1024 && IsPow2<Threads>::value,
                  "BlockBitonicSort needs a power-of-two block of 32 to 1024 threads");
    static_assert(Items >= 1, "Items must be positive");
    static constexpr bool kPairs = !IsSame<Value, NullValue>::value;
    typedef BitonicElem<Bits, kPairs> Elem;
    typedef typename Elem::T E;
    enum {
        kTileItems = Threads * Items,
        kPadded = NextPow2<Threads * Items>::value,
        kChunk = kPadded / Threads,
        // Chunk-major access (stride kChunk) is padded by one slot per chunk.
        kSlots = kPadded + (kChunk > 1 ? Threads : 0),
    };

    struct PairStorage {
        union Data {
            E elems[kSlots];
            Value values[kTileItems];
        } u;
    };
    struct KeyStorage {
        union Data {
            E elems[kSlots];
        } u;
    };
    typedef typename Conditional<kPairs, PairStorage, KeyStorage>::Type TempStorage;

    static __device__ __forceinline__ u32 slot(u32 i) { return kChunk > 1 ? i + i / kChunk : i; }

    static __device__ __forceinline__ void sort(Bits (&keys)[Items], TempStorage& tmp, u32 valid) {
        u32 index[Items];
        network(keys, index, tmp, valid);
    }

    static __device__ __forceinline__ void sort(Bits (&keys)[Items], Value (&values)[Items], TempStorage& tmp,
                                                u32 valid) {
        static_assert(kPairs, "sort(keys, values, ...) needs a Value type other than NullValue");
        const u32 tid = threadIdx.x;
        u32 index[Items];
        network(keys, index, tmp, valid);
        __syncthreads();  // the values reuse the network's shared memory
#pragma unroll
        for (int k = 0; k < Items; ++k) tmp.u.values[tid * Items + k] = values[k];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < Items; ++k) values[k] = tmp.u.values[index[k]];
    }

  private:
    // Compare-exchange of a (lower index) and b: ascending puts the smaller first.
    static __device__ __forceinline__ void cmp_swap(E& a, E& b, bool ascending) {
        if (Elem::less(b, a) == ascending) {
            const E t = a;
            a = b;
            b = t;
        }
    }

    // The register steps of stage k with partner distances J, J/2, ..., 1 (J < kChunk), on the
    // thread's chunk (global index tid * kChunk + c).
    template <int J>
    static __device__ __forceinline__ void register_steps(E (&r)[kChunk], u32 tid, u32 k) {
        if constexpr (J >= 1) {
#pragma unroll
            for (int c = 0; c < kChunk; ++c) {
                if ((c & J) == 0) cmp_swap(r[c], r[c + J], ((tid * kChunk + c) & k) == 0);
            }
            register_steps<J / 2>(r, tid, k);
        }
    }

    // The register-only stages k = 2, 4, ..., kChunk.
    template <int K>
    static __device__ __forceinline__ void local_stages(E (&r)[kChunk], u32 tid) {
        if constexpr (K <= kChunk) {
            register_steps<K / 2>(r, tid, K);
            local_stages<K * 2>(r, tid);
        }
    }

    static __device__ __forceinline__ void network(Bits (&keys)[Items], u32 (&index)[Items], TempStorage& tmp,
                                                   u32 valid) {
        const u32 tid = threadIdx.x;
        E* elems = tmp.u.elems;
#pragma unroll
        for (int k = 0; k < Items; ++k) {
            const u32 e = tid * Items + k;
            elems[slot(e)] = Elem::make(e < valid ? keys[k] : max_bits<Bits>(), e);
        }
        for (u32 e = kTileItems + tid; e < (u32)kPadded; e += Threads) elems[slot(e)] = Elem::make(max_bits<Bits>(), e);
        __syncthreads();

        E r[kChunk];
#pragma unroll
        for (int c = 0; c < kChunk; ++c) r[c] = elems[slot(tid * kChunk + c)];
        local_stages<2>(r, tid);

        for (u32 k = 2 * kChunk; k <= (u32)kPadded; k <<= 1) {
            // Each thread writes back and later reads only its own chunk, so the shared steps'
            // __syncthreads() suffice.
#pragma unroll
            for (int c = 0; c < kChunk; ++c) elems[slot(tid * kChunk + c)] = r[c];
            __syncthreads();
            for (u32 j = k / 2; j >= (u32)kChunk; j >>= 1) {
                for (u32 q = tid; q < (u32)kPadded / 2; q += Threads) {
                    const u32 lo = ((q & ~(j - 1)) << 1) | (q & (j - 1));
                    const u32 hi = lo + j;
                    E a = elems[slot(lo)];
                    E b = elems[slot(hi)];
                    if (Elem::less(b, a) == ((lo & k) == 0)) {
                        elems[slot(lo)] = b;
                        elems[slot(hi)] = a;
                    }
                }
                __syncthreads();
            }
#pragma unroll
            for (int c = 0; c < kChunk; ++c) r[c] = elems[slot(tid * kChunk + c)];
            register_steps<kChunk / 2>(r, tid, k);
        }

#pragma unroll
        for (int c = 0; c < kChunk; ++c) elems[slot(tid * kChunk + c)] = r[c];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < Items; ++k) {
            const E e = elems[slot(tid * Items + k)];
            keys[k] = Elem::bits(e);
            index[k] = Elem::index(e);
        }
    }
};

}  // namespace sortlab
