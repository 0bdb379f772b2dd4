// segmented_sort_keys: DeviceSegmentedSort::SortKeys, const input (out of place), n keys in all,
// segments laid out by the pattern (segments-1000 or segments-varying; keys uniform).
// segmented_sort_pairs: DeviceSegmentedSort::SortPairs on the same layouts, values the input
// index (u32 for 4-byte keys, u64 for 8-byte keys).
#include "bench.cuh"

// Segment offsets (num_segments + 1 entries, first 0, last n). "segments-1000": fixed length
// 1000 (the last one shorter). "segments-varying": lengths log-uniform in [1, 4096]
// (floor(2^(12u)), u uniform in [0,1)), mean about 490, deterministic from the seed.
// "segments-powerlaw": Pareto lengths of mean 1024 (ceil(512 / sqrt(u)), u uniform in (0,1]),
// as sortlab's bench draws them.
static std::vector<int> segment_offsets(const Ctx& c, const PatternSpec& p, uint64_t n) {
  std::vector<int> offs;
  offs.push_back(0);
  uint64_t pos = 0, i = 0;
  while (pos < n) {
    uint64_t len;
    if (p.kind == PatKind::Segments1000) {
      len = 1000;
    } else if (p.kind == PatKind::SegmentsPowerLaw) {
      const double u = double((mix64(c.seed ^ (0x507E4Aull + i)) >> 11) + 1) * (1.0 / 9007199254740992.0);
      len = uint64_t(std::ceil(512.0 / std::sqrt(u)));
    } else {
      const double u = double(mix64(c.seed ^ (0xABCDEFull + i)) >> 11) * (1.0 / 9007199254740992.0);
      len = std::max<uint64_t>(1, uint64_t(std::floor(std::exp2(12.0 * u))));
    }
    pos = std::min<uint64_t>(n, pos + len);
    offs.push_back(int(pos));
    ++i;
  }
  return offs;
}

// The layout's segments on the device: offsets[0 .. count] (int), begin = offsets, end =
// offsets + 1, as DeviceSegmentedSort takes them.
struct DeviceSegments {
  DevMem offsets;
  uint64_t count = 0;
  num_items_t num = 0;
  DeviceSegments(const Ctx& c, const PatternSpec& p, uint64_t n) {
    if (n > uint64_t(INT_MAX)) throw SkipConfig("segmented sort anchor uses int offsets: n > INT_MAX");
    const std::vector<int> offs = segment_offsets(c, p, n);
    count = offs.size() - 1;
    num = num_items_t(count);
    offsets.alloc(offs.size() * sizeof(int));
    CK(cudaMemcpy(offsets.get(), offs.data(), offs.size() * sizeof(int), cudaMemcpyHostToDevice));
  }
  const int* begin() const { return offsets.as<const int>(); }
  const int* end() const { return begin() + 1; }
};

template <class T> void bench_segmented_keys(const Ctx& c, const PatternSpec& p, uint64_t n) {
  const DeviceSegments seg(c, p, n);
  const num_items_t nn = num_items_t(n);
  bench_in_out<T>(
      c, "segmented_sort_keys", p, n,
      [&](void* temp, size_t& tb, const T* in, T* out) -> cudaError_t {
        return cub::DeviceSegmentedSort::SortKeys(temp, tb, in, out, nn, seg.num, seg.begin(), seg.end(),
                                                  c.stream);
      },
      [&](const T* in, T* out) {
        const bool good = device_sum(c, seg.count, SegmentOutOfOrder<T>{out, seg.begin()}) == 0 &&
                          checksum(c, in, n) == checksum(c, out, n);
        return ok_flag(good);
      });
}

template <class K> void bench_segmented_pairs(const Ctx& c, const PatternSpec& p, uint64_t n) {
  using V = PairValue<K>;
  const DeviceSegments seg(c, p, n);
  const num_items_t nn = num_items_t(n);
  bench_pairs_in_out<K>(
      c, "segmented_sort_pairs", p, n,
      [&](void* temp, size_t& tb, const K* kin, K* kout, const V* vin, V* vout) {
        return cub::DeviceSegmentedSort::SortPairs(temp, tb, kin, kout, vin, vout, nn, seg.num, seg.begin(),
                                                   seg.end(), c.stream);
      },
      [&](const K* kout) { return device_sum(c, seg.count, SegmentOutOfOrder<K>{kout, seg.begin()}) == 0; });
}

ANCHOR_DEFS(segmented_sort_keys, bench_segmented_keys<T>)
ANCHOR_DEFS(segmented_sort_pairs, bench_segmented_pairs<T>)
