// What the suites share: the generic out-of-place benchmark, and the anchor functions that
// main.cu dispatches to, one per (op, key type), defined by the suite files.
#pragma once

#include "checks.cuh"
#include "common.cuh"
#include "patterns.cuh"

// Generic out-of-place benchmark: K slots of (in, out) with in generated from pattern p, one
// temporary storage, bytes = read + write of every element.
// call(void* temp, size_t& temp_bytes, const T* in, T* out) -> cudaError_t (a null temp only
// sizes the temporary storage, as in CUB)
// verify(const T* in, T* out) -> int, as emit_row's ok
template <class T, class Call, class Verify>
void bench_in_out(const Ctx& c, const char* op, const PatternSpec& p, uint64_t n, Call&& call,
                  Verify&& verify) {
  require_num_items(n);
  size_t temp_bytes = 0;
  CK(call(nullptr, temp_bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr)));
  const int k = plan_slots(c, 2 * Slots<T>::stride_for(n), temp_bytes);
  Slots<T> in, out;
  in.init(n, k);
  out.init(n, k);
  generate_slots(c, in, n, p);
  int last = 0;
  const double ms = time_with_temp(
      c, k, temp_bytes,
      [&](int s, void* temp, size_t& tb) {
        return call(temp, tb, static_cast<const T*>(in[s]), out[s]);
      },
      &last);
  const int ok = verify(static_cast<const T*>(in[last]), out[last]);
  emit_row(c, op, TypeInfo<T>::name, nullptr, p.name, n, ms, uint64_t(2) * n * sizeof(T), ok);
}

// Generic out-of-place key-value benchmark: as bench_in_out, with values V = the input index
// (u32 for 4-byte keys, u64 for 8-byte keys) moving with the keys; bytes = read + write of every
// key and value. The check: keys sorted ascending, values a permutation (checksum), and every
// value's input key equal to its output key.
// call(void* temp, size_t& temp_bytes, const K* kin, K* kout, const V* vin, V* vout) -> cudaError_t
template <class K> using PairValue = std::conditional_t<sizeof(K) == 4, uint32_t, uint64_t>;
// sorted(const K* kout) -> bool: whether the output keys are in order (the default: the whole
// array ascending; a segmented sort checks each segment).
template <class K, class Call, class Sorted>
void bench_pairs_in_out(const Ctx& c, const char* op, const PatternSpec& p, uint64_t n,
                        Call&& call, Sorted&& sorted) {
  using V = PairValue<K>;
  require_num_items(n);
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
  bool good = sorted(static_cast<const K*>(kout[last])) &&
              checksum(c, vin[last], n) == checksum(c, vout[last], n);
  if (good && n)
    good = device_sum(c, n, PairMismatch<K, V>{kin[last], kout[last], vout[last], n}) == 0;
  emit_row(c, op, TypeInfo<K>::name, TypeInfo<V>::name, p.name, n, ms,
           uint64_t(2) * n * (sizeof(K) + sizeof(V)), ok_flag(good));
}

// bench_pairs_in_out of a full sort: the output keys ascending over the whole array.
template <class K, class Call>
void bench_pairs_in_out(const Ctx& c, const char* op, const PatternSpec& p, uint64_t n,
                        Call&& call) {
  bench_pairs_in_out<K>(c, op, p, n, call,
                        [&](const K* kout) { return count_unsorted(c, kout, n, false) == 0; });
}

// ------------------------------------------------------------------------------------------
// Anchor functions: anchor_<op>_<type>(ctx, pattern, n), one per op and key type.
// ------------------------------------------------------------------------------------------

using AnchorFn = void (*)(const Ctx&, const PatternSpec&, uint64_t);
using AnchorTable = std::array<AnchorFn, kNumTypes>;  // indexed by TypeId

#define ANCHOR_DECL_ONE(op, unused, tn, T, id) \
  void anchor_##op##_##tn(const Ctx&, const PatternSpec&, uint64_t);
#define ANCHOR_DECL(op) CUB_ANCHORS_TYPES(ANCHOR_DECL_ONE, op, _)

#define ANCHOR_FN_ONE(op, unused, tn, T, id) &anchor_##op##_##tn,
// The AnchorTable of op.
#define ANCHOR_TABLE(op) AnchorTable{{CUB_ANCHORS_TYPES(ANCHOR_FN_ONE, op, _)}}

// ANCHOR_DEFS(op, (bench<T, ...>)) defines anchor_<op>_<type> as a call of the benchmark,
// with T the key type. build.sh compiles each sort suite twice in parallel, with
// -DCUB_ANCHORS_KEY_BYTES=4 and =8 (CUB's sorts are slow to instantiate), and each compile
// defines the anchors of those key types; unset, a file defines them all.
#define ANCHOR_DEF_ONE(op, bench, tn, Type, id)                              \
  void anchor_##op##_##tn(const Ctx& c, const PatternSpec& p, uint64_t n) { \
    using T = Type;                                                          \
    bench(c, p, n);                                                          \
  }
#if !defined(CUB_ANCHORS_KEY_BYTES) || CUB_ANCHORS_KEY_BYTES == 4
#define ANCHOR_DEFS_4(op, bench) CUB_ANCHORS_TYPES_4(ANCHOR_DEF_ONE, op, bench)
#else
#define ANCHOR_DEFS_4(op, bench)
#endif
#if !defined(CUB_ANCHORS_KEY_BYTES) || CUB_ANCHORS_KEY_BYTES == 8
#define ANCHOR_DEFS_8(op, bench) CUB_ANCHORS_TYPES_8(ANCHOR_DEF_ONE, op, bench)
#else
#define ANCHOR_DEFS_8(op, bench)
#endif
#define ANCHOR_DEFS(op, bench) ANCHOR_DEFS_4(op, bench) ANCHOR_DEFS_8(op, bench)

// reduce_scan.cu
ANCHOR_DECL(reduce_sum)
ANCHOR_DECL(reduce_min)
ANCHOR_DECL(reduce_max)
ANCHOR_DECL(scan_inclusive_sum)
ANCHOR_DECL(scan_exclusive_sum)
// radix_keys.cu
ANCHOR_DECL(radix_sort_keys)
ANCHOR_DECL(radix_sort_keys_desc)
// radix_pairs.cu
ANCHOR_DECL(radix_sort_pairs)
// merge_keys.cu
ANCHOR_DECL(merge_sort_keys)
ANCHOR_DECL(merge_sort_pairs)
// segmented_keys.cu
ANCHOR_DECL(segmented_sort_keys)
ANCHOR_DECL(segmented_sort_pairs)

// copy.cu: device-to-device copy of n u32, the bandwidth reference (one type, one pattern).
void bench_copy(const Ctx& c, uint64_t n);
