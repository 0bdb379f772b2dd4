// sortlab/block/block_sort_span.cuh: one block sorts a span of at most one tile of keys (and
// values) from global memory into global memory, stably: the finishing step of every sort that
// splits its input into pieces a block can hold (gpu-sorts' sample sort and quicksort).
//
//   BlockSortSpan<Key, Bits, Value, THREADS, ITEMS>
//       Key        the keys' type in global memory; Bits their ordered bits (key_bits.cuh)
//       Value      the values' type, or sortlab::NullValue for keys only
//       TILE       THREADS * ITEMS: the longest span
//       Sort       the block sort of a full tile, BlockMergeSort<Bits, Value, THREADS, ITEMS>;
//                  Sort::TempStorage is the shared memory sort() needs at most
//   sort(keys_in, values_in, keys_out, values_out, valid, flip, smem)
//       writes keys_in[0 .. valid) sorted (as flip_bits(key, flip), ties in input order) to
//       keys_out[0 .. valid), values following their keys (unused for NullValue). valid <= TILE;
//       the spans may be the same memory (the block reads all of it before it writes). smem:
//       sizeof(Sort::TempStorage) bytes, 16-byte aligned.
//       A block sort's work grows with its tile, not with `valid`, so a span is sorted by the
//       smallest of three tiles that holds it: ITEMS / 4, ITEMS / 2 or ITEMS keys a thread (ITEMS
//       a multiple of 4). The branch on `valid` is uniform over the block, so every barrier is.
//       Loads and stores are coalesced (striped) and go through shared memory to the sort's
//       blocked arrangement. Every thread of the block must call it; it ends with the shared
//       memory free.
//   sort_tile(keys_in, values_in, keys_out, values_out, valid, flip, smem)
//       the same with the full tile whatever `valid` (any ITEMS): for callers whose spans are
//       full tiles but for the last one (a tile sort over a whole array), where the smaller
//       tiles' code would only cost registers.
#pragma once
#include "sortlab/block/block_merge_sort.cuh"
#include "sortlab/thread/key_bits.cuh"
#include "sortlab/thread/type_traits.cuh"

namespace sortlab {

template <typename Key, typename Bits, typename Value, int THREADS, int ITEMS> struct BlockSortSpan {
    static constexpr bool kPairs = !IsSame<Value, NullValue>::value;
    static constexpr int TILE = THREADS * ITEMS;
    typedef BlockMergeSort<Bits, Value, THREADS, ITEMS> Sort;

    static __device__ __forceinline__ void sort(const Key* keys_in, const Value* values_in, Key* keys_out,
                                                Value* values_out, u32 valid, Bits flip, unsigned char* smem) {
        static_assert(ITEMS % 4 == 0, "BlockSortSpan::sort's smaller tiles take ITEMS / 4 and ITEMS / 2 keys a thread");
        if (valid <= (u32)(THREADS * (ITEMS / 4))) {
            sort_items<ITEMS / 4>(keys_in, values_in, keys_out, values_out, valid, flip, smem);
        } else if (valid <= (u32)(THREADS * (ITEMS / 2))) {
            sort_items<ITEMS / 2>(keys_in, values_in, keys_out, values_out, valid, flip, smem);
        } else {
            sort_items<ITEMS>(keys_in, values_in, keys_out, values_out, valid, flip, smem);
        }
    }

    static __device__ __forceinline__ void sort_tile(const Key* keys_in, const Value* values_in, Key* keys_out,
                                                     Value* values_out, u32 valid, Bits flip, unsigned char* smem) {
        sort_items<ITEMS>(keys_in, values_in, keys_out, values_out, valid, flip, smem);
    }

  private:
    template <int Items>
    static __device__ __forceinline__ void sort_items(const Key* keys_in, const Value* values_in, Key* keys_out,
                                                      Value* values_out, u32 valid, Bits flip, unsigned char* smem) {
        typedef BlockMergeSort<Bits, Value, THREADS, Items> S;
        typename S::TempStorage& tmp = *reinterpret_cast<typename S::TempStorage*>(smem);
        const u32 tid = threadIdx.x;
        Bits b[Items];
#pragma unroll
        for (int k = 0; k < Items; ++k) {
            const u32 i = k * THREADS + tid;
            tmp.u.keys[S::slot(i)] = i < valid ? flip_bits(keys_in[i], flip) : max_bits<Bits>();
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < Items; ++k) b[k] = tmp.u.keys[S::slot(tid * Items + k)];
        __syncthreads();
        if constexpr (kPairs) {
            Value v[Items];
#pragma unroll
            for (int k = 0; k < Items; ++k) {
                const u32 i = k * THREADS + tid;
                if (i < valid) tmp.u.values[i] = values_in[i];
            }
            __syncthreads();
#pragma unroll
            for (int k = 0; k < Items; ++k) v[k] = tmp.u.values[tid * Items + k];
            __syncthreads();
            S::sort(b, v, tmp, valid);
            __syncthreads();
            store_keys<S, Items>(b, keys_out, valid, flip, tmp);
#pragma unroll
            for (int k = 0; k < Items; ++k) tmp.u.values[tid * Items + k] = v[k];
            __syncthreads();
#pragma unroll
            for (int k = 0; k < Items; ++k) {
                const u32 i = k * THREADS + tid;
                if (i < valid) values_out[i] = tmp.u.values[i];
            }
            __syncthreads();
        } else {
            (void)values_in;
            (void)values_out;
            S::sort(b, tmp, valid);
            __syncthreads();
            store_keys<S, Items>(b, keys_out, valid, flip, tmp);
        }
    }

    // The sorted keys, blocked in registers, out through shared memory to a striped store.
    template <typename S, int Items>
    static __device__ __forceinline__ void store_keys(const Bits (&b)[Items], Key* keys_out, u32 valid, Bits flip,
                                                      typename S::TempStorage& tmp) {
        const u32 tid = threadIdx.x;
#pragma unroll
        for (int k = 0; k < Items; ++k) tmp.u.keys[S::slot(tid * Items + k)] = b[k];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < Items; ++k) {
            const u32 i = k * THREADS + tid;
            if (i < valid) keys_out[i] = key_from_flipped_bits<Key>(tmp.u.keys[S::slot(i)], flip);
        }
        __syncthreads();
    }
};

}  // namespace sortlab
