// Spot checks of a result, made after timing on the last run's output (outside the timed
// region): a device sum over the elements of a per-element function (counts of bad elements,
// order-independent checksums, exact integer sums), and an exact min/max.
#pragma once

#include "common.cuh"
#include "patterns.cuh"

// Small device counter for the check kernels.
struct Counter {
  DevMem mem{256};
  unsigned long long* ptr() const { return mem.as<unsigned long long>(); }
  void set(const Ctx& c, unsigned long long v) {
    CK(cudaMemcpyAsync(ptr(), &v, sizeof v, cudaMemcpyHostToDevice, c.stream));
    CK(cudaStreamSynchronize(c.stream));
  }
  unsigned long long get(const Ctx& c) const {
    unsigned long long v = 0;
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(&v, ptr(), sizeof v, cudaMemcpyDeviceToHost, c.stream));
    CK(cudaStreamSynchronize(c.stream));
    return v;
  }
};

__device__ inline unsigned long long warp_sum(unsigned long long x) {
  for (int off = 16; off > 0; off >>= 1) x += __shfl_down_sync(0xFFFFFFFFu, x, off);
  return x;
}

// *out += f(0) + ... + f(n-1), wrapping (f is a device functor of the index).
template <class F>
__global__ void sum_kernel(uint64_t n, F f, unsigned long long* out) {
  unsigned long long local = 0;
  for (uint64_t i = grid_start(); i < n; i += grid_stride()) local += f(i);
  local = warp_sum(local);
  if ((threadIdx.x & 31) == 0 && local) atomicAdd(out, local);
}

// f(0) + ... + f(n-1) on the device, wrapping at 64 bits.
template <class F> uint64_t device_sum(const Ctx& c, uint64_t n, F f) {
  Counter k;
  k.set(c, 0);
  if (n > 0) sum_kernel<F><<<grid_for(c, n), 256, 0, c.stream>>>(n, f, k.ptr());
  return k.get(c);
}

// --- per-element functions ------------------------------------------------------------------

// 1 where the pair (i, i+1) is out of order (ascending, or descending when desc).
template <class T> struct OutOfOrder {
  const T* a;
  bool desc;
  __device__ unsigned long long operator()(uint64_t i) const {
    const auto x = check_order_bits(a[i]), y = check_order_bits(a[i + 1]);
    return (desc ? (x < y) : (x > y)) ? 1 : 0;
  }
};

// The number of adjacent pairs out of order in segment s: one thread walks one segment (a
// one-off check, so simple).
template <class T> struct SegmentOutOfOrder {
  const T* a;
  const int* offsets;
  __device__ unsigned long long operator()(uint64_t s) const {
    unsigned long long bad = 0;
    for (int64_t i = offsets[s]; i + 1 < int64_t(offsets[s + 1]); ++i)
      if (check_order_bits(a[i]) > check_order_bits(a[i + 1])) ++bad;
    return bad;
  }
};

// A hash of the bit pattern: summed, an order-independent checksum of the multiset.
template <class T> struct BitsHash {
  const T* a;
  __device__ unsigned long long operator()(uint64_t i) const {
    return mix64(static_cast<uint64_t>(to_bits(a[i])) ^ 0xC0FFEEull);
  }
};

// 1 where a[i] and b[i] differ in bits.
template <class T> struct Mismatch {
  const T* a;
  const T* b;
  __device__ unsigned long long operator()(uint64_t i) const {
    return to_bits(a[i]) != to_bits(b[i]) ? 1 : 0;
  }
};

// Pairs: 1 where output key i differs from the input key its value (the input index) points to.
template <class K, class V> struct PairMismatch {
  const K* keys_in;
  const K* keys_out;
  const V* vals_out;
  uint64_t n;
  __device__ unsigned long long operator()(uint64_t i) const {
    const uint64_t src = static_cast<uint64_t>(vals_out[i]);
    return (src >= n || to_bits(keys_in[src]) != to_bits(keys_out[i])) ? 1 : 0;
  }
};

// The value of an integer key as a wrapping 64-bit sum term (signed keys sign-extended).
template <class T> struct IntValue {
  const T* a;
  __device__ unsigned long long operator()(uint64_t i) const {
    if constexpr (TypeInfo<T>::is_signed)
      return static_cast<unsigned long long>(static_cast<int64_t>(a[i]));
    else
      return static_cast<unsigned long long>(a[i]);
  }
};

// Integer scans: 1 where out[i] is not out[i-1] + in[i] (inclusive) or out[i-1] + in[i-1]
// (exclusive), in wrapping arithmetic on the bits.
template <class T> struct ScanMismatch {
  const T* in;
  const T* out;
  bool inclusive;
  __device__ unsigned long long operator()(uint64_t i) const {
    using B = bits_t<T>;
    B expect;
    if (i == 0)
      expect = inclusive ? to_bits(in[0]) : B(0);
    else
      expect = B(to_bits(out[i - 1]) + to_bits(inclusive ? in[i] : in[i - 1]));
    return to_bits(out[i]) != expect ? 1 : 0;
  }
};

// --- the checks -----------------------------------------------------------------------------

template <class T> uint64_t count_unsorted(const Ctx& c, const T* a, uint64_t n, bool desc) {
  return device_sum(c, n > 1 ? n - 1 : 0, OutOfOrder<T>{a, desc});
}

template <class T> uint64_t checksum(const Ctx& c, const T* a, uint64_t n) {
  return device_sum(c, n, BitsHash<T>{a});
}

// Sorted (ascending, or descending when desc) and the same multiset as the input.
template <class T>
bool sorted_permutation(const Ctx& c, const T* in, const T* out, uint64_t n, bool desc) {
  return count_unsorted(c, out, n, desc) == 0 && checksum(c, in, n) == checksum(c, out, n);
}

// Reference min/max of integer keys, as total_order_bits (exact).
template <class T>
__global__ void ref_minmax_kernel(const T* __restrict__ a, uint64_t n, int want_max,
                                  unsigned long long* out) {
  unsigned long long local = want_max ? 0ull : ~0ull;
  for (uint64_t i = grid_start(); i < n; i += grid_stride()) {
    const unsigned long long v = total_order_bits(a[i]);
    local = want_max ? (v > local ? v : local) : (v < local ? v : local);
  }
  if (want_max)
    atomicMax(out, local);
  else
    atomicMin(out, local);
}

template <class T> uint64_t ref_minmax(const Ctx& c, const T* a, uint64_t n, bool want_max) {
  Counter ref;
  ref.set(c, want_max ? 0ull : ~0ull);
  if (n) ref_minmax_kernel<T><<<grid_for(c, n), 256, 0, c.stream>>>(a, n, want_max, ref.ptr());
  return ref.get(c);
}
