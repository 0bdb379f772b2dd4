// cub_anchors: times NVIDIA CUB on the workloads `sortlab bench` uses and prints one JSON object
// per line (JSON Lines) on stdout, in the row schema shared with sortlab's own bench:
//
//   {"tool":"cub","op":OP,"type":T,"value_type":VT|null,"pattern":P,"n":N,"ms":MEDIAN_MS,
//    "keys_per_s":N/(ms/1e3),"gbps":BYTES/(ms/1e3)/1e9,"bytes":BYTES,"device":NAME,
//    "date":"YYYY-MM-DD","ok":true|false|null}
//
// See README.md beside this file for what is measured and how to run it. Notes and honest
// caveats:
//
// * Written without nvcc at hand: compiled with g++ against stub headers (kernel launches
//   removed), and run as a host emulation (kernels as serial loops, the CUB calls replaced by
//   std::sort & co.) to test the CLI, patterns, rotation, checks and JSON, including that each
//   check reports ok:false on a broken result. Not yet compiled by nvcc. The CUB calls follow
//   the CCCL 3.x headers as read from the public source; CUDA 13.0 ships CCCL 3.0, where the
//   two-phase (d_temp_storage, temp_storage_bytes, ...) overloads used here are as in CUB 2.x.
// * Every CUB call passes the stream explicitly, so it can never resolve to one of the newer
//   environment-based overloads (which take fewer arguments).
// * Timing follows sortlab DESIGN section 6: CUDA events recorded on the stream immediately
//   around the one CUB call, warm-up runs first, median of the timed reps, temporary storage
//   sized and allocated once per configuration outside the timed region.
// * Inputs are never modified: the sorts use CUB's out-of-place overloads
//   (DeviceRadixSort::SortKeys/SortPairs with const input, DeviceMergeSort::SortKeysCopy,
//   DeviceSegmentedSort::SortKeys with const input), so every rep sorts pristine data and no
//   restore copy is needed. Those overloads keep their ping-pong buffer inside the temporary
//   storage; the work done is the same as the DoubleBuffer / in-place variants.
// * L2: each configuration keeps K copies ("slots") of its inputs and outputs and rep r uses
//   slot r % K. K is chosen so that K slots span at least 3x the L2 size (K = 1 once one slot
//   is that big), so a rep never finds its input or output lines still in L2 from an earlier
//   rep or from generation. The temporary storage is shared by all reps (as a caller reusing
//   scratch would) and may be L2-resident for small n.
// * "bytes" is the minimal traffic: read + write each element once (2 * n * sizeof(key),
//   plus the same for values). Real radix sorts move more (several passes over the data,
//   plus histograms), so gbps for sorts is a lower bound of the traffic, not CUB's real rate.
// * num_items is passed as `int` (the common way CUB is called; 32-bit offsets) unless built
//   with -DCUB_ANCHORS_OFFSET64, so n > INT_MAX is skipped with a note in the default build.
//
// Build (see build.sh): nvcc -O3 -std=c++17 -arch=sm_90 -o cub_anchors cub_anchors.cu
// build.sh compiles the same file as several parts in parallel (-DCUB_ANCHORS_PART=k) to cut
// the build time; without CUB_ANCHORS_PART the whole program is one translation unit.

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#ifndef CUB_ANCHORS_PART
#define CUB_ANCHORS_IN_PART(k) 1
#else
#define CUB_ANCHORS_IN_PART(k) (CUB_ANCHORS_PART == (k))
#endif

#ifndef CUB_VERSION  // defined by <cub/version.cuh>; only used in the stderr banner
#define CUB_VERSION 0
#endif

#ifdef CUB_ANCHORS_OFFSET64
using num_items_t = int64_t;
#else
using num_items_t = int;
#endif

// ------------------------------------------------------------------------------------------
// Errors
// ------------------------------------------------------------------------------------------

[[noreturn]] inline void die(const char* fmt, ...) {
  std::fflush(stdout);
  std::fprintf(stderr, "cub_anchors: error: ");
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(stderr, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "\n");
  std::exit(1);
}

#define CK(expr)                                                                        \
  do {                                                                                  \
    cudaError_t ck_err_ = (expr);                                                       \
    if (ck_err_ != cudaSuccess)                                                         \
      die("%s:%d: %s: %s (%s)", __FILE__, __LINE__, #expr, cudaGetErrorName(ck_err_), \
          cudaGetErrorString(ck_err_));                                                 \
  } while (0)

// Thrown for a configuration that cannot run here (device memory, size limits): the
// configuration is skipped with a note on stderr and the run goes on.
struct SkipConfig : std::runtime_error {
  explicit SkipConfig(const std::string& why) : std::runtime_error(why) {}
};

// ------------------------------------------------------------------------------------------
// Key types
// ------------------------------------------------------------------------------------------

enum class TypeId { U32, I32, F32, U64, I64, F64 };

template <class T> struct TypeInfo;
template <> struct TypeInfo<uint32_t> {
  using Bits = uint32_t;
  static constexpr bool is_float = false, is_signed = false;
  static constexpr const char* name = "u32";
};
template <> struct TypeInfo<int32_t> {
  using Bits = uint32_t;
  static constexpr bool is_float = false, is_signed = true;
  static constexpr const char* name = "i32";
};
template <> struct TypeInfo<float> {
  using Bits = uint32_t;
  static constexpr bool is_float = true, is_signed = true;
  static constexpr const char* name = "f32";
};
template <> struct TypeInfo<uint64_t> {
  using Bits = uint64_t;
  static constexpr bool is_float = false, is_signed = false;
  static constexpr const char* name = "u64";
};
template <> struct TypeInfo<int64_t> {
  using Bits = uint64_t;
  static constexpr bool is_float = false, is_signed = true;
  static constexpr const char* name = "i64";
};
template <> struct TypeInfo<double> {
  using Bits = uint64_t;
  static constexpr bool is_float = true, is_signed = true;
  static constexpr const char* name = "f64";
};

template <class T> using bits_t = typename TypeInfo<T>::Bits;

template <class T> __host__ __device__ inline bits_t<T> to_bits(T x) {
  bits_t<T> b;
  memcpy(&b, &x, sizeof(b));
  return b;
}

template <class T> __host__ __device__ inline T from_bits(bits_t<T> b) {
  T x;
  memcpy(&x, &b, sizeof(x));
  return x;
}

// Order-preserving map to unsigned bits, IEEE total order for floats
// (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN), as sortlab's SortKey.
template <class T> __host__ __device__ inline bits_t<T> total_order_bits(T x) {
  using B = bits_t<T>;
  constexpr B sign = B(1) << (sizeof(B) * 8 - 1);
  B b = to_bits(x);
  if constexpr (TypeInfo<T>::is_float) {
    return (b & sign) ? B(~b) : B(b | sign);
  } else if constexpr (TypeInfo<T>::is_signed) {
    return B(b ^ sign);
  } else {
    return b;
  }
}

// The order the sortedness check uses: total order, except that -0.0 and +0.0 compare equal.
// CUB's radix sort has (in some versions) treated the two zeros as equal keys; a check that
// tolerates both behaviours reports on sortedness, not on that detail.
template <class T> __host__ __device__ inline bits_t<T> check_order_bits(T x) {
  using B = bits_t<T>;
  if constexpr (TypeInfo<T>::is_float) {
    constexpr B sign = B(1) << (sizeof(B) * 8 - 1);
    if (to_bits(x) == sign) return total_order_bits(from_bits<T>(B(0)));
  }
  return total_order_bits(x);
}

// Comparator for DeviceMergeSort: plain `<` for integers, IEEE total order for floats (so that
// NaN keys from the full-range pattern still give a strict weak order).
struct TotalOrderLess {
  template <class T> __host__ __device__ bool operator()(const T& a, const T& b) const {
    if constexpr (TypeInfo<T>::is_float) {
      return total_order_bits(a) < total_order_bits(b);
    } else {
      return a < b;
    }
  }
};

// ------------------------------------------------------------------------------------------
// Patterns
// ------------------------------------------------------------------------------------------
// The same patterns as sortlab's generators (verify/src/gen.rs), with the same distributions,
// but computed per element from a counter-based hash on the device (sortlab draws from a
// ChaCha8 stream on the host), so the values are not the same as sortlab's, only alike.

enum class PatKind : int {
  Uniform = 0,      // uniform integers in [0, 2^31), converted to the key type by value
  FullRange,        // random bits (floats: any bit pattern, NaN and inf included)
  Gaussian,         // mean of four uniform values in [0, 2^31)
  Zipf,             // Zipf ranks (s = 1 over n ranks), each rank mapped to a value in [0, 2^31)
  FewDistinct,      // 16 random-bit values, repeated at random
  AllEqual,         // one random-bit value everywhere
  Ascending,        // 0, 1, ..., n-1 (floats past 2^24 / 2^53: the next floats up)
  Descending,       // n-1, ..., 0
  PipeOrgan,        // 0, 1, ..., ~n/2, ..., 1, 0
  SawShort,         // ascending runs of 32 values, each an arithmetic progression from a random start
  SawLong,          // 16 such runs of about n/16 values
  Sorted95,         // ascending, about 5% of positions overwritten with a random value in 0..n
  KSorted,          // distinct ascending values with radius exactly min(K, n-1) (see gen_value)
  FloatSpecials,    // half specials (NaNs, infs, zeros, subnormals... / MIN, MAX...), a quarter
                    // ordinary values in -2^31..2^31, a quarter random bits
  Segments1000,     // segmented sort: segments of 1000 keys (keys: Uniform)
  SegmentsVarying,  // segmented sort: log-uniform lengths in [1, 4096] (keys: Uniform)
};

struct PatternSpec {
  PatKind kind = PatKind::Uniform;
  uint64_t k = 0;
  std::string name;
};

__host__ __device__ inline uint64_t mix64(uint64_t x) {  // splitmix64 finalizer
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__host__ __device__ inline double unit_f64(uint64_t h) {  // [0, 1)
  return double(h >> 11) * (1.0 / 9007199254740992.0);
}

// Key from an f64 value, saturating like Rust's `as` (NaN -> 0 for integers).
template <class T> __host__ __device__ inline T from_f64(double d) {
  if constexpr (TypeInfo<T>::is_float) {
    return static_cast<T>(d);
  } else {
    constexpr int bits = int(sizeof(T) * 8);
    if (!(d == d)) return T(0);
    if constexpr (TypeInfo<T>::is_signed) {
      const double lim = double(uint64_t(1) << (bits - 1));
      if (d >= lim) return from_bits<T>(bits_t<T>(~bits_t<T>(0) >> 1));           // MAX
      if (d < -lim) return from_bits<T>(bits_t<T>(bits_t<T>(1) << (bits - 1)));  // MIN
      return static_cast<T>(d);
    } else {
      const double lim = 2.0 * double(uint64_t(1) << (bits - 1));
      if (d <= 0.0) return T(0);
      if (d >= lim) return T(~T(0));
      return static_cast<T>(d);
    }
  }
}

// Inverse of total_order_bits.
template <class T> __host__ __device__ inline T from_total_order_bits(bits_t<T> o) {
  using B = bits_t<T>;
  constexpr B sign = B(1) << (sizeof(B) * 8 - 1);
  if constexpr (TypeInfo<T>::is_float) {
    return from_bits<T>((o & sign) ? B(o ^ sign) : B(~o));
  } else if constexpr (TypeInfo<T>::is_signed) {
    return from_bits<T>(B(o ^ sign));
  } else {
    return from_bits<T>(o);
  }
}

// The i-th key of a strictly increasing sequence from 0: i while exactly representable, then
// (floats) the following floats.
template <class T> __host__ __device__ inline T ascending_key(uint64_t i) {
  if constexpr (TypeInfo<T>::is_float) {
    constexpr uint64_t limit = uint64_t(1) << (sizeof(T) == 4 ? 24 : 53);
    if (i <= limit) return static_cast<T>(double(i));
    return from_total_order_bits<T>(
        bits_t<T>(total_order_bits(static_cast<T>(double(limit))) + (i - limit)));
  } else {
    return from_f64<T>(double(i));
  }
}

template <class T> __host__ __device__ inline T random_bits_key(uint64_t h) {
  return from_bits<T>(static_cast<bits_t<T>>(h));
}

// sortlab's special values (gen.rs `specials`): 20 for floats, 9 for integers.
template <class T> __host__ __device__ inline uint64_t num_specials() {
  return TypeInfo<T>::is_float ? 20 : 9;
}
template <class T> __host__ __device__ inline T special_key(uint64_t idx) {
  using B = bits_t<T>;
  if constexpr (TypeInfo<T>::is_float) {
    constexpr int bits = int(sizeof(B) * 8), mant = sizeof(B) == 4 ? 23 : 52;
    constexpr B s = B(1) << (bits - 1);
    constexpr B m = (B(1) << mant) - 1;
    constexpr B e = B(s - 1) & B(~m);
    constexpr B q = B(1) << (mant - 1);
    constexpr B one = B((s >> 1) - (B(1) << mant));
    constexpr B min_pos = B(1) << mant;
    const B table[20] = {B(e | q), B(s | e | q), B(e | 1), B(s | e | 1), B(e | m), B(s | e | m),
                         e,        B(s | e),     B(0),     s,           B(1),     B(s | 1),
                         m,        B(s | m),     min_pos,  B(s | min_pos), B(e - 1), B(s | (e - 1)),
                         one,      B(s | one)};
    return from_bits<T>(table[idx % 20]);
  } else {
    const B max = B(~B(0));
    switch (idx % 9) {
      case 0: return from_total_order_bits<T>(B(0));
      case 1: return from_total_order_bits<T>(B(1));
      case 2: return from_total_order_bits<T>(max);
      case 3: return from_total_order_bits<T>(B(max - 1));
      case 4: return from_f64<T>(0.0);
      case 5: return from_f64<T>(1.0);
      case 6: return from_f64<T>(-1.0);
      case 7: return from_f64<T>(2.0);
      default: return from_f64<T>(-2.0);
    }
  }
}

// A uniform value in [0, 2^31) from the low 32 bits of a hash.
__host__ __device__ inline uint64_t u31(uint64_t x) { return uint64_t(uint32_t(x) >> 1); }

__host__ __device__ inline uint64_t gcd_u64(uint64_t a, uint64_t b) {
  while (b) {
    const uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// Value at position i of pattern `kind` (n elements, parameter k, salt from the seed).
template <class T>
__host__ __device__ inline T gen_value(uint64_t i, uint64_t n, PatKind kind, uint64_t k,
                                       uint64_t salt) {
  const uint64_t h = mix64(i ^ salt);
  switch (kind) {
    case PatKind::FullRange:
      return random_bits_key<T>(h);
    case PatKind::Gaussian: {
      const uint64_t sum = u31(h) + u31(h >> 32) + u31(mix64(h)) + u31(mix64(h) >> 32);
      return from_f64<T>(double(sum) / 4.0);
    }
    case PatKind::Zipf: {
      // Rejection-inversion (Hormann and Derflinger 1996) for s = 1, as sortlab's Zipf1.
      const uint64_t nn = n ? n : 1;
      const double t = 1.0 + log(double(nn));
      uint64_t rank = 1;
      for (uint64_t attempt = 0; attempt < 64; ++attempt) {
        const double pt = unit_f64(mix64(h ^ (2 * attempt + 1) * 0xA24BAED4963EE407ull)) * t;
        const double inv_b = pt <= 1.0 ? pt : exp(pt - 1.0);
        const double x = floor(inv_b + 1.0);
        const double ratio = x > 1.0 ? inv_b / x : 1.0;
        if (unit_f64(mix64(h ^ (2 * attempt + 2) * 0xA24BAED4963EE407ull)) < ratio) {
          rank = x < 1.0 ? 1 : (x > double(nn) ? nn : uint64_t(x));
          break;
        }
      }
      return from_f64<T>(double(mix64(rank ^ (salt * 7)) >> 33));
    }
    case PatKind::FewDistinct:
      return random_bits_key<T>(mix64((h & 15u) ^ (salt * 3)));
    case PatKind::AllEqual:
      return random_bits_key<T>(mix64(salt * 5));
    case PatKind::Ascending:
      return ascending_key<T>(i);
    case PatKind::Descending:
      return ascending_key<T>(n - 1 - i);
    case PatKind::PipeOrgan:
      return ascending_key<T>(i < n - 1 - i ? i : n - 1 - i);
    case PatKind::SawShort:
    case PatKind::SawLong: {
      uint64_t run = 32;
      if (kind == PatKind::SawLong) run = (n + 15) / 16 > 0 ? (n + 15) / 16 : 1;
      const uint64_t r = i / run, j = i % run;
      const uint64_t len = (n - r * run) < run ? (n - r * run) : run;
      const uint64_t hr = mix64(r ^ (salt * 11));
      const uint64_t start = u31(hr) >> 1;  // < 2^30
      const uint64_t max_step = ((uint64_t(1) << 30) / len) > 0 ? ((uint64_t(1) << 30) / len) : 1;
      const uint64_t step = 1 + mix64(hr) % max_step;
      return from_f64<T>(double(start + j * step));
    }
    case PatKind::Sorted95:
      if (mix64(h ^ 0x95ull) % 20 == 0) return ascending_key<T>(mix64(h ^ 0x96ull) % n);
      return ascending_key<T>(i);
    case PatKind::KSorted: {
      // As sortlab's k_sorted: ascending, cut into blocks of k+1 positions from a random
      // offset; in a random half of the blocks (and one forced block) the two end elements are
      // swapped and the inner ones permuted (here by an affine permutation, not a uniform
      // shuffle). Every inversion stays in a block and a swapped block has one at distance k.
      const uint64_t kk = n ? (k < n - 1 ? k : n - 1) : 0;
      uint64_t p = i;
      if (kk > 0) {
        const uint64_t block = kk + 1;
        const uint64_t max_off = kk < n - block ? kk : n - block;
        const uint64_t offset = mix64(salt ^ 0x0FF5E7ull) % (max_off + 1);
        const uint64_t blocks = (n - offset) / block;  // >= 1
        const uint64_t forced = mix64(salt ^ 0xF0ACEDull) % blocks;
        if (i >= offset && i < offset + blocks * block) {
          const uint64_t b = (i - offset) / block, l = (i - offset) % block;
          const uint64_t s = offset + b * block;
          const uint64_t hb = mix64(b ^ (salt * 13));
          if (b == forced || (hb & 1)) {
            if (l == 0) {
              p = s + kk;
            } else if (l == kk) {
              p = s;
            } else {
              const uint64_t m = kk - 1;  // inner positions s+1 .. s+kk-1
              uint64_t a = 1;
              if (m > 1 && m < (uint64_t(1) << 31)) {
                a = 1 + mix64(hb) % (m - 1);
                while (gcd_u64(a, m) != 1) a = a + 1 < m ? a + 1 : 1;
              }
              p = s + 1 + (a * (l - 1) + mix64(hb ^ 0xC0DEull) % m) % m;
            }
          }
        }
      }
      return ascending_key<T>(p);
    }
    case PatKind::FloatSpecials: {
      const uint64_t h2 = mix64(h ^ 0x5BEC1A15ull);
      switch (h & 3) {
        case 0:
        case 1: return special_key<T>(h2 % num_specials<T>());
        case 2: return from_f64<T>(double(int32_t(uint32_t(h2 >> 32))));
        default: return random_bits_key<T>(h2);
      }
    }
    default:  // Uniform and the segment layouts (whose keys are uniform)
      return from_f64<T>(double(u31(h)));
  }
}

template <class T>
__global__ void gen_kernel(T* __restrict__ out, uint64_t n, int kind, uint64_t k, uint64_t salt) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = gen_value<T>(i, n, static_cast<PatKind>(kind), k, salt);
}

template <class V> __global__ void iota_kernel(V* __restrict__ out, uint64_t n) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = static_cast<V>(i);
}

// ------------------------------------------------------------------------------------------
// Check kernels (spot checks, outside the timed region)
// ------------------------------------------------------------------------------------------

__device__ inline unsigned long long warp_sum(unsigned long long x) {
  for (int off = 16; off > 0; off >>= 1) x += __shfl_down_sync(0xFFFFFFFFu, x, off);
  return x;
}

// Number of adjacent pairs out of order (ascending, or descending when desc).
template <class T>
__global__ void count_unsorted_kernel(const T* __restrict__ a, uint64_t n, int desc,
                                      unsigned long long* bad) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i + 1 < n; i += stride) {
    const auto x = check_order_bits(a[i]), y = check_order_bits(a[i + 1]);
    if (desc ? (x < y) : (x > y)) atomicAdd(bad, 1ull);
  }
}

// The same within segments: one thread walks one segment (a one-off check, so simple).
template <class T>
__global__ void count_unsorted_segments_kernel(const T* __restrict__ a,
                                               const int* __restrict__ offsets,
                                               uint64_t num_segments, unsigned long long* bad) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t s = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; s < num_segments;
       s += stride) {
    unsigned long long local = 0;
    for (int64_t i = offsets[s]; i + 1 < int64_t(offsets[s + 1]); ++i)
      if (check_order_bits(a[i]) > check_order_bits(a[i + 1])) ++local;
    if (local) atomicAdd(bad, local);
  }
}

// Order-independent checksum of the multiset of bit patterns (wrapping sum of hashes).
template <class T>
__global__ void checksum_kernel(const T* __restrict__ a, uint64_t n, unsigned long long* out) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  unsigned long long local = 0;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    local += mix64(static_cast<uint64_t>(to_bits(a[i])) ^ 0xC0FFEEull);
  local = warp_sum(local);
  if ((threadIdx.x & 31) == 0 && local) atomicAdd(out, local);
}

// Pairs: every output key must equal the input key its value (the input index) points to.
template <class K, class V>
__global__ void check_pairs_kernel(const K* __restrict__ keys_in, const K* __restrict__ keys_out,
                                   const V* __restrict__ vals_out, uint64_t n,
                                   unsigned long long* bad) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint64_t src = static_cast<uint64_t>(vals_out[i]);
    if (src >= n || to_bits(keys_in[src]) != to_bits(keys_out[i])) atomicAdd(bad, 1ull);
  }
}

template <class T>
__global__ void count_mismatch_kernel(const T* __restrict__ a, const T* __restrict__ b, uint64_t n,
                                      unsigned long long* bad) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    if (to_bits(a[i]) != to_bits(b[i])) atomicAdd(bad, 1ull);
}

// Reference reductions for integer types (exact, wrapping like the 64-bit result type).
template <class T>
__global__ void ref_sum_kernel(const T* __restrict__ a, uint64_t n, unsigned long long* out) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  unsigned long long local = 0;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if constexpr (TypeInfo<T>::is_signed)
      local += static_cast<unsigned long long>(static_cast<int64_t>(a[i]));
    else
      local += static_cast<unsigned long long>(a[i]);
  }
  local = warp_sum(local);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, local);
}

template <class T>
__global__ void ref_minmax_kernel(const T* __restrict__ a, uint64_t n, int want_max,
                                  unsigned long long* out) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  unsigned long long local = want_max ? 0ull : ~0ull;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const unsigned long long v = total_order_bits(a[i]);
    local = want_max ? (v > local ? v : local) : (v < local ? v : local);
  }
  if (want_max)
    atomicMax(out, local);
  else
    atomicMin(out, local);
}

// Integer scans: out[i] must be out[i-1] + in[i] (inclusive) or out[i-1] + in[i-1]
// (exclusive), in wrapping arithmetic on the bits.
template <class T>
__global__ void check_scan_kernel(const T* __restrict__ in, const T* __restrict__ out, uint64_t n,
                                  int inclusive, unsigned long long* bad) {
  using B = bits_t<T>;
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    B expect;
    if (i == 0)
      expect = inclusive ? to_bits(in[0]) : B(0);
    else
      expect = B(to_bits(out[i - 1]) + to_bits(inclusive ? in[i] : in[i - 1]));
    if (to_bits(out[i]) != expect) atomicAdd(bad, 1ull);
  }
}

// ------------------------------------------------------------------------------------------
// Context, device memory, timing, output
// ------------------------------------------------------------------------------------------

struct Ctx {
  cudaStream_t stream = nullptr;  // the legacy default stream
  cudaEvent_t ev_start = nullptr, ev_stop = nullptr;
  int sm_count = 1;
  size_t l2_bytes = 0;
  std::string device, date;
  int reps = 20, warmup = 3;
  uint64_t seed = 0x5EEDull;
  size_t mem_margin = size_t(512) << 20;  // left free for CUB's own allocations and the driver
};

class DevMem {
 public:
  DevMem() = default;
  explicit DevMem(size_t bytes) { alloc(bytes); }
  ~DevMem() { release(); }
  DevMem(const DevMem&) = delete;
  DevMem& operator=(const DevMem&) = delete;

  // Always allocates at least 256 bytes: CUB reads a null d_temp_storage as a size query, so
  // a zero-byte temporary storage must still be a real pointer.
  void alloc(size_t bytes) {
    release();
    if (bytes < 256) bytes = 256;
    const cudaError_t e = cudaMalloc(&p_, bytes);
    if (e == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();  // clear it; allocation failure is not sticky
      p_ = nullptr;
      char buf[128];
      std::snprintf(buf, sizeof buf, "cudaMalloc of %.2f GiB failed (out of device memory)",
                    double(bytes) / double(1ull << 30));
      throw SkipConfig(buf);
    }
    CK(e);
    bytes_ = bytes;
  }
  void release() {
    if (p_) cudaFree(p_);
    p_ = nullptr;
    bytes_ = 0;
  }
  void* get() const { return p_; }
  template <class T> T* as() const { return static_cast<T*>(p_); }

 private:
  void* p_ = nullptr;
  size_t bytes_ = 0;
};

inline size_t align_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

// K rotating copies of one array of n elements of T.
template <class T> struct Slots {
  DevMem mem;
  size_t stride = 0;
  int count = 0;
  static size_t stride_for(uint64_t n) { return align_up(std::max<uint64_t>(n, 1) * sizeof(T), 256); }
  void init(uint64_t n, int k) {
    stride = stride_for(n);
    count = k;
    mem.alloc(stride * size_t(k));
  }
  T* operator[](int s) const {
    return reinterpret_cast<T*>(static_cast<char*>(mem.get()) + stride * size_t(s));
  }
};

// Number of slots so that K slots of slot_bytes span >= 3x L2 (1 once a slot is that big).
inline int rotation_count(const Ctx& c, size_t slot_bytes) {
  const size_t target = 3 * c.l2_bytes;
  if (slot_bytes == 0 || slot_bytes >= target) return 1;
  const size_t k = (target + slot_bytes - 1) / slot_bytes;
  return int(std::min<size_t>(k, 4096));
}

inline void require_memory(const Ctx& c, size_t need) {
  size_t free_b = 0, total_b = 0;
  CK(cudaMemGetInfo(&free_b, &total_b));
  if (need + c.mem_margin > free_b) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "needs ~%.2f GiB of device memory, %.2f GiB free",
                  double(need) / double(1ull << 30), double(free_b) / double(1ull << 30));
    throw SkipConfig(buf);
  }
}

inline void require_num_items(uint64_t n) {
  if (n > uint64_t(std::numeric_limits<num_items_t>::max()))
    throw SkipConfig("n exceeds the num_items type of this build (rebuild with "
                     "-DCUB_ANCHORS_OFFSET64 for 64-bit num_items)");
}

inline unsigned grid_for(const Ctx& c, uint64_t n) {
  const uint64_t blocks = (n + 255) / 256;
  const uint64_t cap = uint64_t(c.sm_count) * 16;
  return unsigned(std::max<uint64_t>(1, std::min(blocks, cap)));
}

template <class T> void generate(const Ctx& c, T* dst, uint64_t n, const PatternSpec& p) {
  if (n == 0) return;
  gen_kernel<T><<<grid_for(c, n), 256, 0, c.stream>>>(dst, n, int(p.kind), p.k, mix64(c.seed));
  CK(cudaGetLastError());
}

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

template <class T> uint64_t count_unsorted(const Ctx& c, const T* a, uint64_t n, bool desc) {
  Counter k;
  k.set(c, 0);
  if (n > 1) count_unsorted_kernel<T><<<grid_for(c, n), 256, 0, c.stream>>>(a, n, desc, k.ptr());
  return k.get(c);
}

template <class T> uint64_t checksum(const Ctx& c, const T* a, uint64_t n) {
  Counter k;
  k.set(c, 0);
  if (n > 0) checksum_kernel<T><<<grid_for(c, n), 256, 0, c.stream>>>(a, n, k.ptr());
  return k.get(c);
}

// Runs launch(slot) warmup + reps times, rotating slots, each bracketed by events; returns the
// median of the timed reps in ms and the slot of the last run.
template <class Launch>
double time_median_ms(const Ctx& c, int k, Launch&& launch, int* last_slot) {
  std::vector<float> times;
  times.reserve(size_t(c.reps));
  const int total = c.warmup + c.reps;
  for (int r = 0; r < total; ++r) {
    const int s = r % k;
    CK(cudaEventRecord(c.ev_start, c.stream));
    CK(launch(s));
    CK(cudaEventRecord(c.ev_stop, c.stream));
    CK(cudaEventSynchronize(c.ev_stop));
    CK(cudaGetLastError());
    float ms = 0.f;
    CK(cudaEventElapsedTime(&ms, c.ev_start, c.ev_stop));
    if (r >= c.warmup) times.push_back(ms);
    *last_slot = s;
  }
  std::sort(times.begin(), times.end());
  const size_t m = times.size();
  return (m % 2) ? double(times[m / 2]) : 0.5 * (double(times[m / 2 - 1]) + double(times[m / 2]));
}

inline std::string json_escape(const std::string& s) {
  std::string o;
  for (unsigned char ch : s) {
    if (ch == '"' || ch == '\\') {
      o += '\\';
      o += char(ch);
    } else if (ch < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", ch);
      o += buf;
    } else {
      o += char(ch);
    }
  }
  return o;
}

inline void put_number(double x) {
  if (std::isfinite(x))
    std::printf("%.9g", x);
  else
    std::printf("null");
}

// ok: 1 true, 0 false, -1 null (no check for this op/type).
inline void emit_row(const Ctx& c, const char* op, const char* type, const char* value_type,
                     const std::string& pattern, uint64_t n, double ms, uint64_t bytes, int ok) {
  const double sec = ms / 1e3;
  const double kps = ms > 0 ? double(n) / sec : NAN;
  const double gbps = ms > 0 ? double(bytes) / sec / 1e9 : NAN;
  std::printf("{\"tool\":\"cub\",\"op\":\"%s\",\"type\":\"%s\",\"value_type\":", op, type);
  if (value_type)
    std::printf("\"%s\"", value_type);
  else
    std::printf("null");
  std::printf(",\"pattern\":\"%s\",\"n\":%llu,\"ms\":", json_escape(pattern).c_str(),
              static_cast<unsigned long long>(n));
  put_number(ms);
  std::printf(",\"keys_per_s\":");
  put_number(kps);
  std::printf(",\"gbps\":");
  put_number(gbps);
  std::printf(",\"bytes\":%llu,\"device\":\"%s\",\"date\":\"%s\",\"ok\":%s}\n",
              static_cast<unsigned long long>(bytes), json_escape(c.device).c_str(),
              c.date.c_str(), ok < 0 ? "null" : (ok ? "true" : "false"));
  std::fflush(stdout);
}

inline int ok_flag(bool good) { return good ? 1 : 0; }

// Generic out-of-place keys sort: K slots of (keys_in, keys_out), one temporary storage.
// call(void* temp, size_t& temp_bytes, const T* in, T* out) -> cudaError_t
// verify(const T* in, T* out) -> bool
template <class T, class Call, class Verify>
void bench_keys_sort(const Ctx& c, const char* op, const PatternSpec& p, uint64_t n,
                     size_t extra_bytes, Call&& call, Verify&& verify) {
  require_num_items(n);
  size_t temp_bytes = 0;
  CK(call(nullptr, temp_bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr)));
  const size_t slot_bytes = 2 * Slots<T>::stride_for(n);
  const int k = rotation_count(c, slot_bytes);
  require_memory(c, size_t(k) * slot_bytes + temp_bytes + extra_bytes);
  Slots<T> in, out;
  in.init(n, k);
  out.init(n, k);
  DevMem temp(temp_bytes);
  for (int s = 0; s < k; ++s) generate(c, in[s], n, p);
  CK(cudaStreamSynchronize(c.stream));
  int last = 0;
  const double ms = time_median_ms(
      c, k,
      [&](int s) {
        size_t tb = temp_bytes;
        return call(temp.get(), tb, static_cast<const T*>(in[s]), out[s]);
      },
      &last);
  const bool good = verify(static_cast<const T*>(in[last]), out[last]);
  emit_row(c, op, TypeInfo<T>::name, nullptr, p.name, n, ms, uint64_t(2) * n * sizeof(T),
           ok_flag(good));
}

// ------------------------------------------------------------------------------------------
// The benchmarks, one function per (op, type). Parts let build.sh compile them in parallel.
// ------------------------------------------------------------------------------------------

using AnchorFn = void (*)(const Ctx&, const PatternSpec&, uint64_t);

#define ANCHOR_DECL(op)                                          \
  void anchor_##op##_u32(const Ctx&, const PatternSpec&, uint64_t); \
  void anchor_##op##_i32(const Ctx&, const PatternSpec&, uint64_t); \
  void anchor_##op##_f32(const Ctx&, const PatternSpec&, uint64_t); \
  void anchor_##op##_u64(const Ctx&, const PatternSpec&, uint64_t); \
  void anchor_##op##_i64(const Ctx&, const PatternSpec&, uint64_t); \
  void anchor_##op##_f64(const Ctx&, const PatternSpec&, uint64_t);

ANCHOR_DECL(radix_keys)
ANCHOR_DECL(radix_keys_desc)
ANCHOR_DECL(radix_pairs)
ANCHOR_DECL(merge_keys)
ANCHOR_DECL(segmented_keys)

#define ANCHOR_DEF(op, tn, T, body_template) \
  void anchor_##op##_##tn(const Ctx& c, const PatternSpec& p, uint64_t n) { body_template<T>(c, p, n); }

// --- radix sort keys (parts 1-4) -----------------------------------------------------------

template <class T, bool Desc> void bench_radix_keys(const Ctx& c, const PatternSpec& p, uint64_t n) {
  const num_items_t nn = num_items_t(n);
  constexpr int end_bit = int(sizeof(T) * 8);
  bench_keys_sort<T>(
      c, Desc ? "radix_sort_keys_desc" : "radix_sort_keys", p, n, 0,
      [&](void* temp, size_t& tb, const T* in, T* out) -> cudaError_t {
        if constexpr (Desc)
          return cub::DeviceRadixSort::SortKeysDescending(temp, tb, in, out, nn, 0, end_bit, c.stream);
        else
          return cub::DeviceRadixSort::SortKeys(temp, tb, in, out, nn, 0, end_bit, c.stream);
      },
      [&](const T* in, T* out) {
        return count_unsorted(c, out, n, Desc) == 0 && checksum(c, in, n) == checksum(c, out, n);
      });
}
template <class T> void bench_radix_keys_asc(const Ctx& c, const PatternSpec& p, uint64_t n) {
  bench_radix_keys<T, false>(c, p, n);
}
template <class T> void bench_radix_keys_dsc(const Ctx& c, const PatternSpec& p, uint64_t n) {
  bench_radix_keys<T, true>(c, p, n);
}

#if CUB_ANCHORS_IN_PART(1)
ANCHOR_DEF(radix_keys, u32, uint32_t, bench_radix_keys_asc)
ANCHOR_DEF(radix_keys, i32, int32_t, bench_radix_keys_asc)
ANCHOR_DEF(radix_keys, f32, float, bench_radix_keys_asc)
#endif
#if CUB_ANCHORS_IN_PART(2)
ANCHOR_DEF(radix_keys, u64, uint64_t, bench_radix_keys_asc)
ANCHOR_DEF(radix_keys, i64, int64_t, bench_radix_keys_asc)
ANCHOR_DEF(radix_keys, f64, double, bench_radix_keys_asc)
#endif
#if CUB_ANCHORS_IN_PART(3)
ANCHOR_DEF(radix_keys_desc, u32, uint32_t, bench_radix_keys_dsc)
ANCHOR_DEF(radix_keys_desc, i32, int32_t, bench_radix_keys_dsc)
ANCHOR_DEF(radix_keys_desc, f32, float, bench_radix_keys_dsc)
#endif
#if CUB_ANCHORS_IN_PART(4)
ANCHOR_DEF(radix_keys_desc, u64, uint64_t, bench_radix_keys_dsc)
ANCHOR_DEF(radix_keys_desc, i64, int64_t, bench_radix_keys_dsc)
ANCHOR_DEF(radix_keys_desc, f64, double, bench_radix_keys_dsc)
#endif

// --- radix sort pairs (parts 5-6): values are the input index, u32 for 4-byte keys and u64
// for 8-byte keys -------------------------------------------------------------------------

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
  const size_t slot_bytes = 2 * (Slots<K>::stride_for(n) + Slots<V>::stride_for(n));
  const int k = rotation_count(c, slot_bytes);
  require_memory(c, size_t(k) * slot_bytes + temp_bytes);
  Slots<K> kin, kout;
  Slots<V> vin, vout;
  kin.init(n, k);
  kout.init(n, k);
  vin.init(n, k);
  vout.init(n, k);
  DevMem temp(temp_bytes);
  for (int s = 0; s < k; ++s) {
    generate(c, kin[s], n, p);
    if (n) iota_kernel<V><<<grid_for(c, n), 256, 0, c.stream>>>(vin[s], n);
    CK(cudaGetLastError());
  }
  CK(cudaStreamSynchronize(c.stream));
  int last = 0;
  const double ms = time_median_ms(
      c, k,
      [&](int s) {
        size_t tb = temp_bytes;
        return call(temp.get(), tb, static_cast<const K*>(kin[s]), kout[s],
                    static_cast<const V*>(vin[s]), vout[s]);
      },
      &last);
  bool good = count_unsorted(c, kout[last], n, false) == 0 &&
              checksum(c, vin[last], n) == checksum(c, vout[last], n);
  if (good && n) {
    Counter bad;
    bad.set(c, 0);
    check_pairs_kernel<K, V><<<grid_for(c, n), 256, 0, c.stream>>>(kin[last], kout[last], vout[last],
                                                                   n, bad.ptr());
    good = bad.get(c) == 0;
  }
  emit_row(c, "radix_sort_pairs", TypeInfo<K>::name, TypeInfo<V>::name, p.name, n, ms,
           uint64_t(2) * n * (sizeof(K) + sizeof(V)), ok_flag(good));
}

#if CUB_ANCHORS_IN_PART(5)
ANCHOR_DEF(radix_pairs, u32, uint32_t, bench_radix_pairs)
ANCHOR_DEF(radix_pairs, i32, int32_t, bench_radix_pairs)
ANCHOR_DEF(radix_pairs, f32, float, bench_radix_pairs)
#endif
#if CUB_ANCHORS_IN_PART(6)
ANCHOR_DEF(radix_pairs, u64, uint64_t, bench_radix_pairs)
ANCHOR_DEF(radix_pairs, i64, int64_t, bench_radix_pairs)
ANCHOR_DEF(radix_pairs, f64, double, bench_radix_pairs)
#endif

// --- merge sort keys (part 7): SortKeysCopy, the out-of-place twin of SortKeys -------------

template <class T> void bench_merge_keys(const Ctx& c, const PatternSpec& p, uint64_t n) {
  const num_items_t nn = num_items_t(n);
  bench_keys_sort<T>(
      c, "merge_sort_keys", p, n, 0,
      [&](void* temp, size_t& tb, const T* in, T* out) -> cudaError_t {
        return cub::DeviceMergeSort::SortKeysCopy(temp, tb, in, out, nn, TotalOrderLess{}, c.stream);
      },
      [&](const T* in, T* out) {
        return count_unsorted(c, out, n, false) == 0 && checksum(c, in, n) == checksum(c, out, n);
      });
}

#if CUB_ANCHORS_IN_PART(7)
ANCHOR_DEF(merge_keys, u32, uint32_t, bench_merge_keys)
ANCHOR_DEF(merge_keys, i32, int32_t, bench_merge_keys)
ANCHOR_DEF(merge_keys, f32, float, bench_merge_keys)
ANCHOR_DEF(merge_keys, u64, uint64_t, bench_merge_keys)
ANCHOR_DEF(merge_keys, i64, int64_t, bench_merge_keys)
ANCHOR_DEF(merge_keys, f64, double, bench_merge_keys)
#endif

// --- segmented sort keys (parts 8-9) -------------------------------------------------------

// Segment offsets (num_segments + 1 entries, first 0, last n). "segments-1000": fixed length
// 1000 (the last one shorter). "segments-varying": lengths log-uniform in [1, 4096]
// (floor(2^(12u)), u uniform in [0,1)), mean about 490, deterministic from the seed.
inline std::vector<int> segment_offsets(const Ctx& c, const PatternSpec& p, uint64_t n) {
  std::vector<int> offs;
  offs.push_back(0);
  uint64_t pos = 0, i = 0;
  while (pos < n) {
    uint64_t len;
    if (p.kind == PatKind::Segments1000) {
      len = 1000;
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

template <class T> void bench_segmented_keys(const Ctx& c, const PatternSpec& p, uint64_t n) {
  if (n > uint64_t(INT_MAX)) throw SkipConfig("segmented sort anchor uses int offsets: n > INT_MAX");
  const std::vector<int> offs = segment_offsets(c, p, n);
  const uint64_t num_segments = offs.size() - 1;
  DevMem d_offs(offs.size() * sizeof(int));
  CK(cudaMemcpy(d_offs.get(), offs.data(), offs.size() * sizeof(int), cudaMemcpyHostToDevice));
  const int* begin = d_offs.as<const int>();
  const int* end = begin + 1;
  const num_items_t nn = num_items_t(n);
  const num_items_t ns = num_items_t(num_segments);
  bench_keys_sort<T>(
      c, "segmented_sort_keys", p, n, 0,
      [&](void* temp, size_t& tb, const T* in, T* out) -> cudaError_t {
        return cub::DeviceSegmentedSort::SortKeys(temp, tb, in, out, nn, ns, begin, end, c.stream);
      },
      [&](const T* in, T* out) {
        Counter bad;
        bad.set(c, 0);
        if (num_segments)
          count_unsorted_segments_kernel<T><<<grid_for(c, num_segments), 256, 0, c.stream>>>(
              out, begin, num_segments, bad.ptr());
        return bad.get(c) == 0 && checksum(c, in, n) == checksum(c, out, n);
      });
}

#if CUB_ANCHORS_IN_PART(8)
ANCHOR_DEF(segmented_keys, u32, uint32_t, bench_segmented_keys)
ANCHOR_DEF(segmented_keys, i32, int32_t, bench_segmented_keys)
ANCHOR_DEF(segmented_keys, f32, float, bench_segmented_keys)
#endif
#if CUB_ANCHORS_IN_PART(9)
ANCHOR_DEF(segmented_keys, u64, uint64_t, bench_segmented_keys)
ANCHOR_DEF(segmented_keys, i64, int64_t, bench_segmented_keys)
ANCHOR_DEF(segmented_keys, f64, double, bench_segmented_keys)
#endif

// ------------------------------------------------------------------------------------------
// Part 0: copy, reduce, scan, command line, main
// ------------------------------------------------------------------------------------------
#if CUB_ANCHORS_IN_PART(0)

// cudaMemcpy device-to-device of n u32: the bandwidth reference (bytes = read + write).
void bench_copy(const Ctx& c, uint64_t n) {
  using T = uint32_t;
  const size_t slot_bytes = 2 * Slots<T>::stride_for(n);
  const int k = rotation_count(c, slot_bytes);
  require_memory(c, size_t(k) * slot_bytes);
  Slots<T> in, out;
  in.init(n, k);
  out.init(n, k);
  PatternSpec uniform;
  uniform.name = "uniform";
  for (int s = 0; s < k; ++s) generate(c, in[s], n, uniform);
  CK(cudaStreamSynchronize(c.stream));
  int last = 0;
  const double ms = time_median_ms(
      c, k,
      [&](int s) {
        return cudaMemcpyAsync(out[s], in[s], n * sizeof(T), cudaMemcpyDeviceToDevice, c.stream);
      },
      &last);
  Counter bad;
  bad.set(c, 0);
  if (n) count_mismatch_kernel<T><<<grid_for(c, n), 256, 0, c.stream>>>(in[last], out[last], n, bad.ptr());
  emit_row(c, "copy", "u32", nullptr, "uniform", n, ms, uint64_t(2) * n * sizeof(T),
           ok_flag(bad.get(c) == 0));
}

enum class ReduceKind { Sum, Min, Max };
template <class T> struct SumOut { using type = T; };
template <> struct SumOut<uint32_t> { using type = uint64_t; };  // u32 summed into u64
template <> struct SumOut<int32_t> { using type = int64_t; };

// DeviceReduce::Sum/Min/Max. For Sum, CUB accumulates in the type of `init + input` where init
// is the output value type (CCCL 2.x/3.x: accumulator_t<plus<>, OutputT, InputT>), so u32 input
// with a u64 output sums in u64. The ok check compares with an independent u64 sum, so an
// older CUB that accumulated in u32 would show up as ok:false rather than pass silently.
template <class T, ReduceKind R> void bench_reduce(const Ctx& c, const PatternSpec& p, uint64_t n) {
  using Out = std::conditional_t<R == ReduceKind::Sum, typename SumOut<T>::type, T>;
  require_num_items(n);
  const num_items_t nn = num_items_t(n);
  auto call = [&](void* temp, size_t& tb, const T* in, Out* out) -> cudaError_t {
    if constexpr (R == ReduceKind::Sum)
      return cub::DeviceReduce::Sum(temp, tb, in, out, nn, c.stream);
    else if constexpr (R == ReduceKind::Min)
      return cub::DeviceReduce::Min(temp, tb, in, out, nn, c.stream);
    else
      return cub::DeviceReduce::Max(temp, tb, in, out, nn, c.stream);
  };
  size_t temp_bytes = 0;
  CK(call(nullptr, temp_bytes, static_cast<const T*>(nullptr), static_cast<Out*>(nullptr)));
  const size_t slot_bytes = Slots<T>::stride_for(n);
  const int k = rotation_count(c, slot_bytes);
  require_memory(c, size_t(k) * slot_bytes + temp_bytes);
  Slots<T> in;
  in.init(n, k);
  DevMem out(sizeof(Out)), temp(temp_bytes);
  for (int s = 0; s < k; ++s) generate(c, in[s], n, p);
  CK(cudaStreamSynchronize(c.stream));
  int last = 0;
  const double ms = time_median_ms(
      c, k,
      [&](int s) {
        size_t tb = temp_bytes;
        return call(temp.get(), tb, static_cast<const T*>(in[s]), out.as<Out>());
      },
      &last);
  int ok = -1;  // floats: no check (order of summation; NaN semantics of min/max)
  if constexpr (!TypeInfo<T>::is_float) {
    Out got{};
    CK(cudaMemcpy(&got, out.get(), sizeof(Out), cudaMemcpyDeviceToHost));
    Counter ref;
    if constexpr (R == ReduceKind::Sum) {
      ref.set(c, 0);
      if (n) ref_sum_kernel<T><<<grid_for(c, n), 256, 0, c.stream>>>(in[last], n, ref.ptr());
      ok = ok_flag(static_cast<unsigned long long>(static_cast<uint64_t>(got)) == ref.get(c));
    } else {
      const bool want_max = R == ReduceKind::Max;
      ref.set(c, want_max ? 0ull : ~0ull);
      if (n) ref_minmax_kernel<T><<<grid_for(c, n), 256, 0, c.stream>>>(in[last], n, want_max, ref.ptr());
      ok = ok_flag(static_cast<unsigned long long>(total_order_bits(got)) == ref.get(c));
    }
  }
  const char* op = R == ReduceKind::Sum ? "reduce_sum" : (R == ReduceKind::Min ? "reduce_min" : "reduce_max");
  emit_row(c, op, TypeInfo<T>::name, nullptr, p.name, n, ms, uint64_t(n) * sizeof(T), ok);
}

// DeviceScan::InclusiveSum / ExclusiveSum, output type = input type.
template <class T, bool Inclusive> void bench_scan(const Ctx& c, const PatternSpec& p, uint64_t n) {
  require_num_items(n);
  const num_items_t nn = num_items_t(n);
  auto call = [&](void* temp, size_t& tb, const T* in, T* out) -> cudaError_t {
    if constexpr (Inclusive)
      return cub::DeviceScan::InclusiveSum(temp, tb, in, out, nn, c.stream);
    else
      return cub::DeviceScan::ExclusiveSum(temp, tb, in, out, nn, c.stream);
  };
  size_t temp_bytes = 0;
  CK(call(nullptr, temp_bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr)));
  const size_t slot_bytes = 2 * Slots<T>::stride_for(n);
  const int k = rotation_count(c, slot_bytes);
  require_memory(c, size_t(k) * slot_bytes + temp_bytes);
  Slots<T> in, out;
  in.init(n, k);
  out.init(n, k);
  DevMem temp(temp_bytes);
  for (int s = 0; s < k; ++s) generate(c, in[s], n, p);
  CK(cudaStreamSynchronize(c.stream));
  int last = 0;
  const double ms = time_median_ms(
      c, k,
      [&](int s) {
        size_t tb = temp_bytes;
        return call(temp.get(), tb, static_cast<const T*>(in[s]), out[s]);
      },
      &last);
  int ok = -1;  // floats: no exact check
  if constexpr (!TypeInfo<T>::is_float) {
    Counter bad;
    bad.set(c, 0);
    if (n)
      check_scan_kernel<T><<<grid_for(c, n), 256, 0, c.stream>>>(in[last], out[last], n, Inclusive,
                                                                 bad.ptr());
    ok = ok_flag(bad.get(c) == 0);
  }
  emit_row(c, Inclusive ? "scan_inclusive_sum" : "scan_exclusive_sum", TypeInfo<T>::name, nullptr,
           p.name, n, ms, uint64_t(2) * n * sizeof(T), ok);
}

// --- dispatch --------------------------------------------------------------------------------

struct TypeEntry {
  TypeId id;
  const char* name;
};
const TypeEntry kTypes[] = {{TypeId::U32, "u32"}, {TypeId::I32, "i32"}, {TypeId::F32, "f32"},
                            {TypeId::U64, "u64"}, {TypeId::I64, "i64"}, {TypeId::F64, "f64"}};

template <class F> void with_type(TypeId t, F&& f) {
  switch (t) {
    case TypeId::U32: f(uint32_t{}); break;
    case TypeId::I32: f(int32_t{}); break;
    case TypeId::F32: f(float{}); break;
    case TypeId::U64: f(uint64_t{}); break;
    case TypeId::I64: f(int64_t{}); break;
    case TypeId::F64: f(double{}); break;
  }
}

#define ANCHOR_PICK(op, t)                          \
  switch (t) {                                      \
    case TypeId::U32: return &anchor_##op##_u32;    \
    case TypeId::I32: return &anchor_##op##_i32;    \
    case TypeId::F32: return &anchor_##op##_f32;    \
    case TypeId::U64: return &anchor_##op##_u64;    \
    case TypeId::I64: return &anchor_##op##_i64;    \
    case TypeId::F64: return &anchor_##op##_f64;    \
  }                                                 \
  return nullptr;

AnchorFn pick_radix_keys(TypeId t) { ANCHOR_PICK(radix_keys, t) }
AnchorFn pick_radix_keys_desc(TypeId t) { ANCHOR_PICK(radix_keys_desc, t) }
AnchorFn pick_radix_pairs(TypeId t) { ANCHOR_PICK(radix_pairs, t) }
AnchorFn pick_merge_keys(TypeId t) { ANCHOR_PICK(merge_keys, t) }
AnchorFn pick_segmented_keys(TypeId t) { ANCHOR_PICK(segmented_keys, t) }

struct OpEntry {
  const char* name;
  std::vector<TypeId> default_types;
  bool all_types;  // false: u32 only (copy)
};

const std::vector<OpEntry>& ops_table() {
  using T = TypeId;
  static const std::vector<OpEntry> t = {
      {"copy", {T::U32}, false},
      {"reduce_sum", {T::U32, T::F32}, true},
      {"reduce_min", {T::U32, T::F32}, true},
      {"reduce_max", {T::U32, T::F32}, true},
      {"scan_inclusive_sum", {T::U32, T::F32}, true},
      {"scan_exclusive_sum", {T::U32, T::F32}, true},
      {"radix_sort_keys", {T::U32, T::U64, T::F32, T::F64}, true},
      {"radix_sort_keys_desc", {T::U32, T::U64, T::F32, T::F64}, true},
      {"radix_sort_pairs", {T::U32, T::U64}, true},
      {"merge_sort_keys", {T::U32}, true},
      {"segmented_sort_keys", {T::U32}, true},
  };
  return t;
}

void run_one(const Ctx& c, const std::string& op, TypeId t, const PatternSpec& p, uint64_t n) {
  if (op == "copy") return bench_copy(c, n);
  if (op == "radix_sort_keys") return pick_radix_keys(t)(c, p, n);
  if (op == "radix_sort_keys_desc") return pick_radix_keys_desc(t)(c, p, n);
  if (op == "radix_sort_pairs") return pick_radix_pairs(t)(c, p, n);
  if (op == "merge_sort_keys") return pick_merge_keys(t)(c, p, n);
  if (op == "segmented_sort_keys") return pick_segmented_keys(t)(c, p, n);
  with_type(t, [&](auto tag) {
    using T = decltype(tag);
    if (op == "reduce_sum") bench_reduce<T, ReduceKind::Sum>(c, p, n);
    else if (op == "reduce_min") bench_reduce<T, ReduceKind::Min>(c, p, n);
    else if (op == "reduce_max") bench_reduce<T, ReduceKind::Max>(c, p, n);
    else if (op == "scan_inclusive_sum") bench_scan<T, true>(c, p, n);
    else if (op == "scan_exclusive_sum") bench_scan<T, false>(c, p, n);
    else die("internal: unknown op %s", op.c_str());
  });
}

// --- command line ----------------------------------------------------------------------------

const char* kUsage =
    "usage: cub_anchors [options]\n"
    "  --ops LIST        comma list or 'all' (default all): copy, reduce_sum, reduce_min,\n"
    "                    reduce_max, scan_inclusive_sum, scan_exclusive_sum, radix_sort_keys,\n"
    "                    radix_sort_keys_desc, radix_sort_pairs, merge_sort_keys,\n"
    "                    segmented_sort_keys\n"
    "  --types LIST      u32,i32,f32,u64,i64,f64 or 'all' (default per op: copy u32; reduce/scan\n"
    "                    u32,f32; radix keys u32,u64,f32,f64; pairs u32,u64 (values: u32 for\n"
    "                    4-byte keys, u64 for 8-byte); merge and segmented u32). Given types\n"
    "                    apply to every op except copy, which is always u32.\n"
    "  --sizes LIST      log2 sizes (default 16,20,24,28)\n"
    "  --n LIST          explicit sizes (added to --sizes; given alone, replaces the default)\n"
    "  --patterns LIST   uniform, full-range, gaussian, zipf, few-distinct, all-equal,\n"
    "                    ascending, descending, pipe-organ, saw-short, saw-long, sorted-95,\n"
    "                    k-sorted:K (k-sorted = k-sorted:16), float-specials, segments-1000,\n"
    "                    segments-varying, or 'all' (k-sorted:16,256,4096 and the rest)\n"
    "                    (default uniform). segments-* apply to segmented_sort_keys only (which\n"
    "                    runs both layouts, uniform keys, when none is given); the others apply\n"
    "                    to every other op. copy runs once per n.\n"
    "  --reps R          timed reps, median reported (default 20)\n"
    "  --warmup W        untimed warm-up runs (default 3)\n"
    "  --seed S          pattern seed (default 0x5EED)\n"
    "  --device D        CUDA device ordinal (default 0)\n"
    "Prints one JSON object per line on stdout; notes and skips go to stderr.\n";

[[noreturn]] void usage_error(const char* fmt, const std::string& arg) {
  std::fprintf(stderr, "cub_anchors: ");
  std::fprintf(stderr, fmt, arg.c_str());
  std::fprintf(stderr, "\n%s", kUsage);
  std::exit(2);
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = s.find(',', start);
    const std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

uint64_t parse_u64(const std::string& s, const char* what) {
  if (s.empty()) usage_error("empty number for %s", what);
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  if (errno != 0 || end == nullptr || *end != '\0' || s[0] == '-')
    usage_error("bad number '%s'", s);
  return v;
}

bool parse_pattern(const std::string& s, PatternSpec* out) {
  static const std::pair<const char*, PatKind> simple[] = {
      {"uniform", PatKind::Uniform},
      {"full-range", PatKind::FullRange},
      {"gaussian", PatKind::Gaussian},
      {"zipf", PatKind::Zipf},
      {"few-distinct", PatKind::FewDistinct},
      {"all-equal", PatKind::AllEqual},
      {"ascending", PatKind::Ascending},
      {"descending", PatKind::Descending},
      {"pipe-organ", PatKind::PipeOrgan},
      {"saw-short", PatKind::SawShort},
      {"saw-long", PatKind::SawLong},
      {"sorted-95", PatKind::Sorted95},
      {"float-specials", PatKind::FloatSpecials},
      {"segments-1000", PatKind::Segments1000},
      {"segments-varying", PatKind::SegmentsVarying}};
  for (const auto& e : simple) {
    if (s == e.first) {
      out->kind = e.second;
      out->k = 0;
      out->name = s;
      return true;
    }
  }
  const std::string prefix = "k-sorted:";
  uint64_t k = 16;  // "k-sorted" alone is k-sorted:16, as in sortlab
  if (s.compare(0, prefix.size(), prefix) == 0) {
    k = parse_u64(s.substr(prefix.size()), "k-sorted:K");
  } else if (s != "k-sorted") {
    return false;
  }
  out->kind = PatKind::KSorted;
  out->k = k;
  out->name = prefix + std::to_string(k);
  return true;
}

bool is_segment_pattern(const PatternSpec& p) {
  return p.kind == PatKind::Segments1000 || p.kind == PatKind::SegmentsVarying;
}

std::string today_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm tm_utc{};
  gmtime_r(&now, &tm_utc);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm_utc);
  return buf;
}

int main_impl(int argc, char** argv) {
  std::vector<std::string> ops;
  std::vector<TypeId> types;
  bool types_given = false;
  std::vector<uint64_t> sizes;
  bool sizes_given = false;
  std::vector<PatternSpec> patterns;
  Ctx c;
  int device = 0;

  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      const size_t eq = a.find('=');
      if (eq != std::string::npos) return a.substr(eq + 1);
      if (i + 1 >= argc) usage_error("missing value for %s", a);
      return argv[++i];
    };
    const std::string key = a.substr(0, a.find('='));
    if (key == "-h" || key == "--help") {
      std::printf("%s", kUsage);
      return 0;
    } else if (key == "--ops") {
      for (const auto& o : split_list(value())) {
        if (o == "all") {
          for (const auto& e : ops_table()) ops.push_back(e.name);
          continue;
        }
        bool known = false;
        for (const auto& e : ops_table()) known = known || o == e.name;
        if (!known) usage_error("unknown op '%s'", o);
        ops.push_back(o);
      }
    } else if (key == "--types") {
      types_given = true;
      for (const auto& t : split_list(value())) {
        if (t == "all") {
          for (const auto& e : kTypes) types.push_back(e.id);
          continue;
        }
        bool known = false;
        for (const auto& e : kTypes)
          if (t == e.name) {
            types.push_back(e.id);
            known = true;
          }
        if (!known) usage_error("unknown type '%s'", t);
      }
    } else if (key == "--sizes") {
      sizes_given = true;
      for (const auto& s : split_list(value())) {
        const uint64_t lg = parse_u64(s, "--sizes");
        if (lg > 40) usage_error("log2 size too large: %s", s);
        sizes.push_back(uint64_t(1) << lg);
      }
    } else if (key == "--n") {
      sizes_given = true;
      for (const auto& s : split_list(value())) sizes.push_back(parse_u64(s, "--n"));
    } else if (key == "--patterns") {
      for (const auto& s : split_list(value())) {
        if (s == "all") {
          for (const char* name :
               {"uniform", "full-range", "gaussian", "zipf", "few-distinct", "all-equal",
                "ascending", "descending", "pipe-organ", "saw-short", "saw-long", "sorted-95",
                "k-sorted:16", "k-sorted:256", "k-sorted:4096", "float-specials",
                "segments-1000", "segments-varying"}) {
            PatternSpec p;
            parse_pattern(name, &p);
            patterns.push_back(p);
          }
          continue;
        }
        PatternSpec p;
        if (!parse_pattern(s, &p)) usage_error("unknown pattern '%s'", s);
        patterns.push_back(p);
      }
    } else if (key == "--reps") {
      c.reps = int(parse_u64(value(), "--reps"));
      if (c.reps < 1) usage_error("--reps must be >= 1%s", "");
    } else if (key == "--warmup") {
      c.warmup = int(parse_u64(value(), "--warmup"));
    } else if (key == "--seed") {
      c.seed = parse_u64(value(), "--seed");
    } else if (key == "--device") {
      device = int(parse_u64(value(), "--device"));
    } else {
      usage_error("unknown argument '%s'", a);
    }
  }
  if (ops.empty())
    for (const auto& e : ops_table()) ops.push_back(e.name);
  if (!sizes_given) sizes = {uint64_t(1) << 16, uint64_t(1) << 20, uint64_t(1) << 24, uint64_t(1) << 28};
  std::vector<PatternSpec> key_patterns, seg_patterns;
  for (const auto& p : patterns) (is_segment_pattern(p) ? seg_patterns : key_patterns).push_back(p);
  if (patterns.empty()) {
    PatternSpec p;
    parse_pattern("uniform", &p);
    key_patterns.push_back(p);
  }
  if (seg_patterns.empty()) {
    for (const char* name : {"segments-1000", "segments-varying"}) {
      PatternSpec p;
      parse_pattern(name, &p);
      seg_patterns.push_back(p);
    }
  }

  // Device set-up.
  int count = 0;
  CK(cudaGetDeviceCount(&count));
  if (device < 0 || device >= count) die("device %d not present (%d devices)", device, count);
  CK(cudaSetDevice(device));
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, device));
  CK(cudaFree(nullptr));  // create the context
  c.sm_count = prop.multiProcessorCount;
  c.l2_bytes = size_t(prop.l2CacheSize);
  c.device = prop.name;
  c.date = today_utc();
  CK(cudaEventCreate(&c.ev_start));
  CK(cudaEventCreate(&c.ev_stop));
  std::fprintf(stderr,
               "cub_anchors: %s (sm_%d%d, %d SMs, L2 %.1f MiB, %.1f GiB), CUB %d.%d.%d, "
               "reps %d, warmup %d\n",
               prop.name, prop.major, prop.minor, prop.multiProcessorCount,
               double(prop.l2CacheSize) / double(1 << 20),
               double(prop.totalGlobalMem) / double(1ull << 30), CUB_VERSION / 100000,
               CUB_VERSION / 100 % 1000, CUB_VERSION % 100, c.reps, c.warmup);

  int rows = 0, skipped = 0;
  for (const auto& op : ops) {
    const OpEntry* entry = nullptr;
    for (const auto& e : ops_table())
      if (op == e.name) entry = &e;
    std::vector<TypeId> op_types;
    if (!entry->all_types) {
      op_types = entry->default_types;
    } else if (types_given) {
      op_types = types;
    } else {
      op_types = entry->default_types;
    }
    const bool segmented = op == "segmented_sort_keys";
    const std::vector<PatternSpec>& pats = segmented ? seg_patterns : key_patterns;
    if (op == "copy") {
      for (uint64_t n : sizes) {
        if (n == 0) continue;
        try {
          bench_copy(c, n);
          ++rows;
        } catch (const SkipConfig& e) {
          ++skipped;
          std::fprintf(stderr, "cub_anchors: skip copy u32 n=%llu: %s\n",
                       static_cast<unsigned long long>(n), e.what());
        }
      }
      continue;
    }
    if (pats.empty()) {
      std::fprintf(stderr, "cub_anchors: note: no pattern applies to %s\n", op.c_str());
      continue;
    }
    for (TypeId t : op_types) {
      const char* tname = "?";
      for (const auto& e : kTypes)
        if (e.id == t) tname = e.name;
      for (const auto& p : pats) {
        for (uint64_t n : sizes) {
          if (n == 0) {
            std::fprintf(stderr, "cub_anchors: skip n=0\n");
            continue;
          }
          try {
            run_one(c, op, t, p, n);
            ++rows;
          } catch (const SkipConfig& e) {
            ++skipped;
            std::fprintf(stderr, "cub_anchors: skip %s %s %s n=%llu: %s\n", op.c_str(), tname,
                         p.name.c_str(), static_cast<unsigned long long>(n), e.what());
          }
        }
      }
    }
  }
  CK(cudaEventDestroy(c.ev_start));
  CK(cudaEventDestroy(c.ev_stop));
  std::fprintf(stderr, "cub_anchors: %d rows, %d skipped\n", rows, skipped);
  return 0;
}

int main(int argc, char** argv) { return main_impl(argc, argv); }

#endif  // CUB_ANCHORS_IN_PART(0)
