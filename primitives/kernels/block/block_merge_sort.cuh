// sortlab/block/block_merge_sort.cuh: block-wide stable merge sort of a tile of ordered key bits,
// with or without values (CUB's BlockMergeSort: a sort in registers, then merge-path merges in
// shared memory).
//
// ---- Device API --------------------------------------------------------------------------------
//
// BlockMergeSort<Bits, Value, Threads, Items>
//   Bits       u32 or u64: ordered key bits, ascending (sortlab::flip_bits(key, flip)
//              before, sortlab::key_from_flipped_bits<K>(bits, flip) after; a descending
//              sort stays stable).
//   Value      the value type carried with each key, or sortlab::NullValue for keys only.
//   Threads    threads per block, a power of two from 32 to 1024; Items keys per thread (any
//              positive number: tiles of 256 x 7 or 128 x 15 keys are fine).
//
//   TempStorage
//   sort(keys, tmp, valid)
//   sort(keys, values, tmp, valid)
//       keys (and values) blocked in, blocked out (thread t's item k is sorted element
//       t * Items + k). Stable: equal keys keep their blocked order. valid: the tile's element
//       count; elements >= valid (blocked index) are partial-tile padding, set to
//       sortlab::max_bits<Bits>() and sorted after every real key, so the first `valid` sorted
//       elements are exactly the real ones. Pass Threads * Items for a full tile.
//
//   Each thread first sorts its Items keys in registers (a stable odd-even transposition
//   network), then log2(Threads) rounds merge pairs of sorted runs in shared memory, each
//   thread producing Items outputs of its pair by a merge-path search
//   (sortlab/thread/merge_path.cuh) and a serial merge. With
//   values, each key carries its blocked index; the values move once, at the end.
//
// Rules: every thread of the block calls; the caller must __syncthreads() before the same
// TempStorage (or memory aliasing it) is used again. Shared memory: Threads * Items keys (plus
// as many u32 indices with values), padded against bank conflicts, in a union with the values.
// TempStorage of a large tile may exceed the 48 KiB a kernel can declare `__shared__` statically:
// carve it from dynamic shared memory (`extern __shared__` plus a launch's shared bytes, as
// primitives/src/block/block.cu does, which reports sizeof() to the host).
// ------------------------------------------------------------------------------------------------
#pragma once
#include "sortlab/thread/type_traits.cuh"
#include "sortlab/thread/merge_path.cuh"

namespace sortlab {

template <typename Bits, typename Value, int Threads, int Items> struct BlockMergeSort {
    static_assert(Threads >= 32 && Threads <= 1024 && IsPow2<Threads>::value,
                  "BlockMergeSort needs a power-of-two block of 32 to 1024 threads");
    static_assert(Items >= 1, "Items must be positive");
    static constexpr bool kPairs = !IsSame<Value, NullValue>::value;
    enum { kTileItems = Threads * Items };
    // Blocked accesses (stride Items) are padded by one slot per 128 bytes when Items is even;
    // slot() maps a tile index to its padded place (merge paths read through it too).
    static constexpr int kPadShift = sizeof(Bits) == 4 ? 5 : 4;
    static constexpr bool kPad = Items % 2 == 0;
    enum { kSlots = kTileItems + (kPad ? (kTileItems >> kPadShift) : 0) };

    struct PairStorage {
        union Data {
            Bits keys[kSlots];
            Value values[kTileItems];
        } u;
        u32 index[kSlots];
    };
    struct KeyStorage {
        union Data {
            Bits keys[kSlots];
        } u;
    };
    typedef typename Conditional<kPairs, PairStorage, KeyStorage>::Type TempStorage;

    static __device__ __forceinline__ u32 slot(u32 i) { return kPad ? i + (i >> kPadShift) : i; }

    static __device__ __forceinline__ void sort(Bits (&keys)[Items], TempStorage& tmp, u32 valid) {
        u32 index[Items];
        run<false>(keys, index, tmp, valid);
    }

    static __device__ __forceinline__ void sort(Bits (&keys)[Items], Value (&values)[Items], TempStorage& tmp,
                                                u32 valid) {
        static_assert(kPairs, "sort(keys, values, ...) needs a Value type other than NullValue");
        const u32 tid = threadIdx.x;
        u32 index[Items];
        run<true>(keys, index, tmp, valid);
        __syncthreads();  // the values reuse the keys' shared memory
#pragma unroll
        for (int k = 0; k < Items; ++k) tmp.u.values[tid * Items + k] = values[k];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < Items; ++k) values[k] = tmp.u.values[index[k]];
    }

  private:
    template <bool Indexed>
    static __device__ __forceinline__ void run(Bits (&keys)[Items], u32 (&index)[Items], TempStorage& tmp, u32 valid) {
        const u32 tid = threadIdx.x;
#pragma unroll
        for (int k = 0; k < Items; ++k) {
            const u32 e = tid * Items + k;
            if (e >= valid) keys[k] = max_bits<Bits>();
            index[k] = e;
        }

        // Stable odd-even transposition sort of the thread's items: Items rounds, swapping only
        // strictly out-of-order neighbours.
#pragma unroll
        for (int round = 0; round < Items; ++round) {
#pragma unroll
            for (int j = round & 1; j + 1 < Items; j += 2) {
                if (keys[j + 1] < keys[j]) {
                    const Bits t = keys[j];
                    keys[j] = keys[j + 1];
                    keys[j + 1] = t;
                    if constexpr (Indexed) {
                        const u32 i = index[j];
                        index[j] = index[j + 1];
                        index[j + 1] = i;
                    }
                }
            }
        }

        Bits* sk = tmp.u.keys;
        for (u32 merged = 2; merged <= (u32)Threads; merged <<= 1) {
            if (merged > 2) __syncthreads();  // every read of the previous round is done
#pragma unroll
            for (int k = 0; k < Items; ++k) {
                sk[slot(tid * Items + k)] = keys[k];
                if constexpr (Indexed) tmp.index[slot(tid * Items + k)] = index[k];
            }
            __syncthreads();

            // The pair of runs this thread's group of `merged` threads merges, each run
            // `merged / 2 * Items` long, and this thread's diagonal in it.
            const u32 mask = merged - 1;
            const u32 len = (merged / 2) * Items;
            const u32 a0 = (tid & ~mask) * Items;
            const u32 b0 = a0 + len;
            const u32 diag = (tid & mask) * Items;
            const u32 p = merge_path_by([&](u32 i) { return sk[slot(a0 + i)]; }, len,
                                        [&](u32 j) { return sk[slot(b0 + j)]; }, len, diag);

            // Serial merge of Items outputs; ties take from the first run (stable).
            u32 a = a0 + p;
            u32 b = b0 + diag - p;
            const u32 a_end = b0;
            const u32 b_end = b0 + len;
            Bits ka = a < a_end ? sk[slot(a)] : max_bits<Bits>();
            Bits kb = b < b_end ? sk[slot(b)] : max_bits<Bits>();
            u32 from[Items];
#pragma unroll
            for (int k = 0; k < Items; ++k) {
                const bool take_b = b < b_end && (a >= a_end || kb < ka);
                keys[k] = take_b ? kb : ka;
                from[k] = take_b ? b : a;
                if (take_b) {
                    ++b;
                    if (b < b_end) kb = sk[slot(b)];
                } else {
                    ++a;
                    if (a < a_end) ka = sk[slot(a)];
                }
            }
            if constexpr (Indexed) {
#pragma unroll
                for (int k = 0; k < Items; ++k) index[k] = tmp.index[slot(from[k])];
            }
        }
    }
};

}  // namespace sortlab
