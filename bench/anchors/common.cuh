// Shared by every file of cub_anchors: errors, key types, the run context, device memory with
// L2 rotation, timing, and the JSON row. See main.cu for the program and README.md for what
// is measured and how.
#pragma once

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
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

#ifndef CUB_VERSION  // defined by <cub/version.cuh>; only used in the stderr banner
#define CUB_VERSION 0
#endif

// num_items is passed as `int` (the common way CUB is called; 32-bit offsets) unless built with
// -DCUB_ANCHORS_OFFSET64, so n > INT_MAX is skipped with a note in the default build.
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
constexpr int kNumTypes = 6;

// The key types, in TypeId order, as X(a, b, name, C++ type, TypeId member) for each: a and b
// are passed through, so that one list serves declarations, definitions and tables. The 4-byte
// and 8-byte halves are separate so that build.sh can compile them in parallel.
#define CUB_ANCHORS_TYPES_4(X, a, b) \
  X(a, b, u32, uint32_t, U32) X(a, b, i32, int32_t, I32) X(a, b, f32, float, F32)
#define CUB_ANCHORS_TYPES_8(X, a, b) \
  X(a, b, u64, uint64_t, U64) X(a, b, i64, int64_t, I64) X(a, b, f64, double, F64)
#define CUB_ANCHORS_TYPES(X, a, b) CUB_ANCHORS_TYPES_4(X, a, b) CUB_ANCHORS_TYPES_8(X, a, b)

template <class B, bool Float, bool Signed> struct KeyTraits {
  using Bits = B;
  static constexpr bool is_float = Float, is_signed = Signed;
};

template <class T> struct TypeInfo;
#define CUB_ANCHORS_TYPE_INFO(a, b, tn, T, id)                                           \
  template <> struct TypeInfo<T>                                                         \
      : KeyTraits<std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>,                \
                  std::is_floating_point_v<T>, std::is_signed_v<T>> {                    \
    static constexpr const char* name = #tn;                                             \
  };
CUB_ANCHORS_TYPES(CUB_ANCHORS_TYPE_INFO, _, _)
#undef CUB_ANCHORS_TYPE_INFO

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
// Context, device memory, launch sizes
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

// K rotating copies ("slots") of one array of n elements of T.
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

// The slot count for a configuration whose rotated arrays take slot_bytes per slot, after
// checking that the slots and other_bytes (temporary storage) fit in device memory.
inline int plan_slots(const Ctx& c, size_t slot_bytes, size_t other_bytes) {
  const int k = rotation_count(c, slot_bytes);
  require_memory(c, size_t(k) * slot_bytes + other_bytes);
  return k;
}

inline void require_num_items(uint64_t n) {
  if (n > uint64_t(std::numeric_limits<num_items_t>::max()))
    throw SkipConfig("n exceeds the num_items type of this build (rebuild with "
                     "-DCUB_ANCHORS_OFFSET64 for 64-bit num_items)");
}

// Blocks of 256 threads for a grid-stride loop over n items (helpers, not timed).
inline unsigned grid_for(const Ctx& c, uint64_t n) {
  const uint64_t blocks = (n + 255) / 256;
  const uint64_t cap = uint64_t(c.sm_count) * 16;
  return unsigned(std::max<uint64_t>(1, std::min(blocks, cap)));
}

__device__ inline uint64_t grid_start() { return uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ inline uint64_t grid_stride() { return uint64_t(gridDim.x) * blockDim.x; }

// ------------------------------------------------------------------------------------------
// Timing and output
// ------------------------------------------------------------------------------------------

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

// time_median_ms of launch(slot, temp, temp_bytes), with one temporary storage of temp_bytes
// that every run shares (as a caller reusing scratch would).
template <class Launch>
double time_with_temp(const Ctx& c, int k, size_t temp_bytes, Launch&& launch, int* last_slot) {
  DevMem temp(temp_bytes);
  return time_median_ms(
      c, k,
      [&](int s) {
        size_t tb = temp_bytes;
        return launch(s, temp.get(), tb);
      },
      last_slot);
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
