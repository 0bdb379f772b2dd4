// sortlab/thread/merge_path_keys.cuh: the merge-path split of two sorted runs of keys, read as
// their ordered bits: merge_path.cuh's search over key_bits.cuh's map, with 64-bit positions
// (runs in global memory past 2^32 keys).
//
//   merge_path_keys(a, a_len, b, b_len, diag, flip)
//       the number of keys of run A (a[0 .. a_len)) among the first `diag` outputs of the
//       stable merge of A and B (b[0 .. b_len)) in the order of `flip` (the flip word of
//       key_bits.cuh: keys compared as flip_bits(key, flip); ties take from A first). Only
//       indices below the runs' lengths are read. K: any key type of KeyBits.
// ------------------------------------------------------------------------------------------------
#pragma once
#include "sortlab/thread/key_bits.cuh"
#include "sortlab/thread/merge_path.cuh"

namespace sortlab {

template <typename K>
__device__ __forceinline__ u64 merge_path_keys(const K* a, u64 a_len, const K* b, u64 b_len, u64 diag,
                                               typename KeyBits<K>::Bits flip) {
    return merge_path_by_wide([&](u64 i) { return flip_bits(a[i], flip); }, a_len,
                              [&](u64 j) { return flip_bits(b[j], flip); }, b_len, diag);
}

}  // namespace sortlab
