// radix_sort_pairs: DeviceRadixSort::SortPairs, const input (out of place), all bits; values are
// the input index, u32 for 4-byte keys and u64 for 8-byte keys.
#include "bench.cuh"

template <class K> void bench_radix_pairs(const Ctx& c, const PatternSpec& p, uint64_t n) {
  using V = std::conditional_t<sizeof(K) == 4, uint32_t, uint64_t>;
  require_num_items(n);
  const num_items_t nn = num_items_t(n);
  constexpr int end_bit = int(sizeof(K) * 8);
  auto call = [&](void* temp, size_t& tb, const K* kin, K* kout, const V* vin, V* vout) {
    return cub::DeviceRadixSort::SortPairs(temp, tb, kin, kout, vin, vout, nn, 0, end_bit, c.stream);
  };
  size_t temp_bytes = 0;
  CK(call(nullptr, temp_bytes, static_cast<const K*>(nullptr), static_cast<K*>(nullptr),
          static_cast<const V*>(nullptr), static_cast<V*>(nullptr)));
  const int k = plan_slots(c, 2 * (Slots<K>::stride_for(n) + Slots<V>::stride_for(n)), temp_bytes);
  Slots<K> kin, kout;
  Slots<V> vin, vout;
  kin.init(n, k);
  kout.init(n, k);
  vin.init(n, k);
  vout.init(n, k);
  generate_slots(c, kin, n, p);
  for (int s = 0; s < k; ++s) {
    if (n) iota_kernel<V><<<grid_for(c, n), 256, 0, c.stream>>>(vin[s], n);
    CK(cudaGetLastError());
  }
  CK(cudaStreamSynchronize(c.stream));
  int last = 0;
  const double ms = time_with_temp(
      c, k, temp_bytes,
      [&](int s, void* temp, size_t& tb) {
        return call(temp, tb, static_cast<const K*>(kin[s]), kout[s], static_cast<const V*>(vin[s]),
                    vout[s]);
      },
      &last);
  bool good = count_unsorted(c, kout[last], n, false) == 0 &&
              checksum(c, vin[last], n) == checksum(c, vout[last], n);
  if (good && n)
    good = device_sum(c, n, PairMismatch<K, V>{kin[last], kout[last], vout[last], n}) == 0;
  emit_row(c, "radix_sort_pairs", TypeInfo<K>::name, TypeInfo<V>::name, p.name, n, ms,
           uint64_t(2) * n * (sizeof(K) + sizeof(V)), ok_flag(good));
}

ANCHOR_DEFS(radix_sort_pairs, bench_radix_pairs<T>)
