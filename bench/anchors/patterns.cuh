// Input patterns: the same patterns as sortlab's generators (verify/src/gen.rs), with the same
// distributions, but computed per element from a counter-based hash on the device (sortlab
// draws from a ChaCha8 stream on the host), so the values are not the same as sortlab's, only
// alike.
#pragma once

#include "common.cuh"

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
  SegmentsPowerLaw, // segmented sort: Pareto lengths of mean 1024, at least 512 (keys: Uniform)
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
  for (uint64_t i = grid_start(); i < n; i += grid_stride())
    out[i] = gen_value<T>(i, n, static_cast<PatKind>(kind), k, salt);
}

template <class V> __global__ void iota_kernel(V* __restrict__ out, uint64_t n) {
  for (uint64_t i = grid_start(); i < n; i += grid_stride()) out[i] = static_cast<V>(i);
}

template <class T> void generate(const Ctx& c, T* dst, uint64_t n, const PatternSpec& p) {
  if (n == 0) return;
  gen_kernel<T><<<grid_for(c, n), 256, 0, c.stream>>>(dst, n, int(p.kind), p.k, mix64(c.seed));
  CK(cudaGetLastError());
}

// Fills every slot with pattern p and waits for it.
template <class T>
void generate_slots(const Ctx& c, const Slots<T>& s, uint64_t n, const PatternSpec& p) {
  for (int i = 0; i < s.count; ++i) generate(c, s[i], n, p);
  CK(cudaStreamSynchronize(c.stream));
}
