// merge_sort_keys: DeviceMergeSort::SortKeysCopy (the out-of-place twin of SortKeys) with `<`,
// IEEE total order for floats. merge_sort_pairs: DeviceMergeSort::SortPairsCopy, values the
// input index (u32 for 4-byte keys, u64 for 8-byte keys).
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

template <class K> void bench_merge_pairs(const Ctx& c, const PatternSpec& p, uint64_t n) {
  using V = PairValue<K>;
  const num_items_t nn = num_items_t(n);
  bench_pairs_in_out<K>(
      c, "merge_sort_pairs", p, n,
      [&](void* temp, size_t& tb, const K* kin, K* kout, const V* vin, V* vout) {
        return cub::DeviceMergeSort::SortPairsCopy(temp, tb, kin, vin, kout, vout, nn,
                                                   TotalOrderLess{}, c.stream);
      });
}

ANCHOR_DEFS(merge_sort_keys, bench_merge_keys<T>)
ANCHOR_DEFS(merge_sort_pairs, bench_merge_pairs<T>)
