// sortlab/block/block_merge.cuh: one block's tile of the stable merge of two sorted slices in
// global memory, the body of every merge-path pass in sortlab (gpu-sorts' merge sort, arraysort's
// long arrays).
//
//   BlockMerge<Key, Bits, Value, THREADS, ITEMS>
//       Key        the keys' type in global memory; Bits their ordered bits (key_bits.cuh)
//       Value      the values' type, or sortlab::NullValue for keys only
//       TILE       THREADS * ITEMS: the most outputs of one merge
//       SLOTS      shared slots of one array: TILE plus one pad word per 32 four-byte (16
//                  eight-byte) keys, so that the blocked accesses of a warp fall in distinct banks
//       SMEM_BYTES the shared memory merge() needs: SLOTS keys' bits, then SLOTS values
//   merge(a, va, na, b, vb, nb, out, vout, flip, smem)
//       writes the stable merge of a[0 .. na) and b[0 .. nb) (na + nb <= TILE; ties take from
//       a) to out[0 .. na + nb), values va / vb following their keys to vout (unused for
//       NullValue). Keys are compared as flip_bits(key, flip). smem: SMEM_BYTES, 8-byte aligned.
//       Both slices are loaded into shared memory coalesced, each thread finds its ITEMS outputs
//       by a merge-path split and merges them serially (branch-free: one shared load a step, at
//       the side that advanced), and the tile goes back through shared memory to a coalesced
//       store. Every thread of the block must call it; it ends with the shared memory free.
//   merge_split(in, vin, a_len, d0, d1, a0, a1, out, vout, flip, smem)
//       the tile of outputs [d0, d1) (d1 - d0 <= TILE) of the stable merge of two adjacent runs,
//       A = in[0 .. a_len) and B = in[a_len ..) (values vin beside them), to out[0 .. d1 - d0)
//       (vout), given the merge-path splits a0 of diagonal d0 and a1 of d1 (A's elements among
//       the first d0 and d1 outputs): merge() of A[a0 .. a1) and B[d0 - a0 .. d1 - a1). vin and
//       vout are not used (and may be null) for NullValue.
#pragma once
#include "sortlab/thread/key_bits.cuh"
#include "sortlab/thread/merge_path.cuh"
#include "sortlab/thread/type_traits.cuh"

namespace sortlab {

template <typename Key, typename Bits, typename Value, int THREADS, int ITEMS> struct BlockMerge {
    static constexpr bool kPairs = !IsSame<Value, NullValue>::value;
    static constexpr int TILE = THREADS * ITEMS;
    static constexpr int PAD_SHIFT = sizeof(Bits) == 4 ? 5 : 4;
    static constexpr int SLOTS = TILE + (TILE >> PAD_SHIFT);
    static constexpr int SMEM_BYTES = SLOTS * (int)sizeof(Bits) + (kPairs ? SLOTS * (int)sizeof(Value) : 0);
    static_assert((SLOTS * sizeof(Bits)) % 8 == 0, "the values start 8-byte aligned");

    static __device__ __forceinline__ u32 slot(u32 i) { return i + (i >> PAD_SHIFT); }

    static __device__ __forceinline__ void merge_split(const Key* in, const Value* vin, u64 a_len, u64 d0, u64 d1,
                                                       u64 a0, u64 a1, Key* out, Value* vout, Bits flip,
                                                       unsigned char* smem) {
        const u64 b0 = d0 - a0;
        const u32 na = (u32)(a1 - a0);
        const u32 nb = (u32)(d1 - d0) - na;
        const Value* va = vin;
        const Value* vb = vin;
        if constexpr (kPairs) {
            va = vin + a0;
            vb = vin + a_len + b0;
        }
        merge(in + a0, va, na, in + a_len + b0, vb, nb, out, vout, flip, smem);
    }

    static __device__ __forceinline__ void merge(const Key* a, const Value* va, u32 na, const Key* b, const Value* vb,
                                                 u32 nb, Key* out, Value* vout, Bits flip, unsigned char* smem) {
        Bits* sk = reinterpret_cast<Bits*>(smem);
        Value* sv = reinterpret_cast<Value*>(smem + SLOTS * sizeof(Bits));
        const u32 tid = threadIdx.x;
        const u32 count = na + nb;

        // Both slices into shared memory, a then b, coalesced.
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const u32 i = k * THREADS + tid;
            if (i < count) {
                sk[slot(i)] = flip_bits(i < na ? a[i] : b[i - na], flip);
                if constexpr (kPairs) sv[slot(i)] = i < na ? va[i] : vb[i - na];
            }
        }
        __syncthreads();

        // This thread's ITEMS outputs from diagonal d: a merge-path split, a serial merge. A side
        // past its end reads some other slot of the tile; its key is never used.
        const u32 d = tid * ITEMS < count ? tid * ITEMS : count;
        const u32 split =
            merge_path_by([&](u32 i) { return sk[slot(i)]; }, na, [&](u32 j) { return sk[slot(na + j)]; }, nb, d);
        u32 ia = split;
        u32 ib = na + d - split;
        const u32 last = count > 0 ? count - 1 : 0;
        Bits ka = sk[slot(ia < last ? ia : last)];
        Bits kb = sk[slot(ib < last ? ib : last)];
        Bits outk[ITEMS];
        u32 from[ITEMS];
        Value v[ITEMS];
        (void)from;
        (void)v;
        (void)sv;
        (void)va;
        (void)vb;
        (void)vout;
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const bool take_b = ib < count && (ia >= na || kb < ka);
            outk[k] = take_b ? kb : ka;
            if constexpr (kPairs) from[k] = take_b ? ib : ia;
            ib += take_b;
            ia += !take_b;
            const u32 next = take_b ? ib : ia;
            const Bits key = sk[slot(next < last ? next : last)];
            kb = take_b ? key : kb;
            ka = take_b ? ka : key;
        }
        if constexpr (kPairs) {
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) {
                if (d + k < count) v[k] = sv[slot(from[k])];
            }
        }
        __syncthreads();

        // Blocked registers back through shared memory, stored striped (coalesced).
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            if (d + k < count) {
                sk[slot(d + k)] = outk[k];
                if constexpr (kPairs) sv[slot(d + k)] = v[k];
            }
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const u32 i = k * THREADS + tid;
            if (i < count) {
                out[i] = key_from_flipped_bits<Key>(sk[slot(i)], flip);
                if constexpr (kPairs) vout[i] = sv[slot(i)];
            }
        }
        __syncthreads();
    }
};

}  // namespace sortlab
