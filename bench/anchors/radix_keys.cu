// radix_sort_keys, radix_sort_keys_desc: DeviceRadixSort::SortKeys / SortKeysDescending, const
// input (out of place), all bits.
#include "bench.cuh"

template <class T, bool Desc> void bench_radix_keys(const Ctx& c, const PatternSpec& p, uint64_t n) {
  const num_items_t nn = num_items_t(n);
  constexpr int end_bit = int(sizeof(T) * 8);
  bench_in_out<T>(
      c, Desc ? "radix_sort_keys_desc" : "radix_sort_keys", p, n,
      [&](void* temp, size_t& tb, const T* in, T* out) -> cudaError_t {
        if constexpr (Desc)
          return cub::DeviceRadixSort::SortKeysDescending(temp, tb, in, out, nn, 0, end_bit, c.stream);
        else
          return cub::DeviceRadixSort::SortKeys(temp, tb, in, out, nn, 0, end_bit, c.stream);
      },
      [&](const T* in, T* out) { return ok_flag(sorted_permutation(c, in, out, n, Desc)); });
}

ANCHOR_DEFS(radix_sort_keys, (bench_radix_keys<T, false>))
ANCHOR_DEFS(radix_sort_keys_desc, (bench_radix_keys<T, true>))
