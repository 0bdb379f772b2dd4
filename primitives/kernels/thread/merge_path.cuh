// sortlab/thread/merge_path.cuh: the merge-path split (Green, McColl, Bader; Odeh et al.) of two
// sorted runs, the one search every merge in sortlab uses.
//
//   merge_path_by(a, a_len, b, b_len, diag)
//       the number of elements of run A among the first `diag` outputs of the stable merge of A
//       and B (ties take from A first). `a(i)` and `b(j)` return element i of A and j of B (any
//       callable: a padded shared array, a reversed run, global memory); only indices below
//       the runs' lengths are read. A binary search: ceil(log2(min(diag, a_len) + 1)) steps.
//   merge_path_by_wide(a, a_len, b, b_len, diag)
//       merge_path_by with 64-bit lengths and positions (runs in global memory past 2^32 keys).
//   merge_path(a, a_len, b, b_len, diag)
//       the same over two plain arrays.
//   merge_path_bounded(a, b, diag, lo, hi)
//       the same when the answer is known to lie in [lo, hi] (lo <= hi, and every index the
//       search may touch valid): branch-free, a step count that depends on hi - lo only, so
//       the threads of a warp stay converged whatever the keys.
//
// Element comparisons use `<` on whatever the callables return (ordered key bits in sortlab).
// ------------------------------------------------------------------------------------------------
#pragma once
#include "sortlab/thread/types.cuh"

namespace sortlab {

// The search behind merge_path_by and merge_path_by_wide, for either index width.
template <typename Index, typename AtA, typename AtB>
__device__ __forceinline__ Index merge_path_search(AtA a, Index a_len, AtB b, Index b_len, Index diag) {
    Index lo = diag > b_len ? diag - b_len : 0;
    Index hi = diag < a_len ? diag : a_len;
    while (lo < hi) {
        const Index mid = (lo + hi) >> 1;
        if (b(diag - 1 - mid) < a(mid)) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

template <typename AtA, typename AtB>
__device__ __forceinline__ u32 merge_path_by(AtA a, u32 a_len, AtB b, u32 b_len, u32 diag) {
    return merge_path_search<u32>(a, a_len, b, b_len, diag);
}

template <typename AtA, typename AtB>
__device__ __forceinline__ u64 merge_path_by_wide(AtA a, u64 a_len, AtB b, u64 b_len, u64 diag) {
    return merge_path_search<u64>(a, a_len, b, b_len, diag);
}

template <typename Bits>
__device__ __forceinline__ u32 merge_path(const Bits* a, u32 a_len, const Bits* b, u32 b_len, u32 diag) {
    return merge_path_by([a](u32 i) { return a[i]; }, a_len, [b](u32 j) { return b[j]; }, b_len, diag);
}

template <typename AtA, typename AtB>
__device__ __forceinline__ u32 merge_path_bounded(AtA a, AtB b, u32 diag, u32 lo, u32 hi) {
    // The answer lies in [lo, lo + n): keep the top, shrink to ceil(n / 2) a step.
    for (u32 n = hi - lo + 1; n > 1;) {
        const u32 half = n >> 1;
        const u32 mid = lo + half - 1;  // < hi
        lo = b(diag - 1 - mid) < a(mid) ? lo : mid + 1;
        n -= half;
    }
    return lo;
}

}  // namespace sortlab
