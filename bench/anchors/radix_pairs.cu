// radix_sort_pairs: DeviceRadixSort::SortPairs, const input (out of place), all bits; values are
// the input index, u32 for 4-byte keys and u64 for 8-byte keys.
#include "bench.cuh"

template <class K> void bench_radix_pairs(const Ctx& c, const PatternSpec& p, uint64_t n) {
  using V = PairValue<K>;
  const num_items_t nn = num_items_t(n);
  constexpr int end_bit = int(sizeof(K) * 8);
  bench_pairs_in_out<K>(
      c, "radix_sort_pairs", p, n,
      [&](void* temp, size_t& tb, const K* kin, K* kout, const V* vin, V* vout) {
        return cub::DeviceRadixSort::SortPairs(temp, tb, kin, kout, vin, vout, nn, 0, end_bit,
                                               c.stream);
      });
}

ANCHOR_DEFS(radix_sort_pairs, bench_radix_pairs<T>)
