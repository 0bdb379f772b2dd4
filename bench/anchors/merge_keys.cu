// merge_sort_keys: DeviceMergeSort::SortKeysCopy (the out-of-place twin of SortKeys) with `<`,
// IEEE total order for floats.
#include "bench.cuh"

template <class T> void bench_merge_keys(const Ctx& c, const PatternSpec& p, uint64_t n) {
  const num_items_t nn = num_items_t(n);
  bench_in_out<T>(
      c, "merge_sort_keys", p, n,
      [&](void* temp, size_t& tb, const T* in, T* out) -> cudaError_t {
        return cub::DeviceMergeSort::SortKeysCopy(temp, tb, in, out, nn, TotalOrderLess{}, c.stream);
      },
      [&](const T* in, T* out) { return ok_flag(sorted_permutation(c, in, out, n, false)); });
}

ANCHOR_DEFS(merge_sort_keys, bench_merge_keys<T>)
