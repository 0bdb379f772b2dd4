// sortlab/thread/key_bits.cuh: the order-preserving key <-> unsigned bits map of DESIGN.md §3,
// the device twin of `SortKey::to_ordered_bits` / `from_ordered_bits` in primitives/src/key.rs.
//
// Unsigned keys map to themselves, signed keys flip the sign bit, floats flip every bit of a
// negative number and only the sign bit of a non-negative one (IEEE total order).
#pragma once
#include "sortlab/thread/types.cuh"

namespace sortlab {

template <typename K> struct KeyBits;

template <> struct KeyBits<u32> {
    typedef u32 Bits;
    static __device__ __forceinline__ Bits to_bits(u32 k) { return k; }
    static __device__ __forceinline__ u32 from_bits(Bits b) { return b; }
};
template <> struct KeyBits<u64> {
    typedef u64 Bits;
    static __device__ __forceinline__ Bits to_bits(u64 k) { return k; }
    static __device__ __forceinline__ u64 from_bits(Bits b) { return b; }
};
template <> struct KeyBits<i32> {
    typedef u32 Bits;
    static __device__ __forceinline__ Bits to_bits(i32 k) { return ((u32)k) ^ 0x80000000u; }
    static __device__ __forceinline__ i32 from_bits(Bits b) { return (i32)(b ^ 0x80000000u); }
};
template <> struct KeyBits<i64> {
    typedef u64 Bits;
    static __device__ __forceinline__ Bits to_bits(i64 k) { return ((u64)k) ^ 0x8000000000000000ull; }
    static __device__ __forceinline__ i64 from_bits(Bits b) { return (i64)(b ^ 0x8000000000000000ull); }
};
template <> struct KeyBits<float> {
    typedef u32 Bits;
    static __device__ __forceinline__ Bits to_bits(float k) {
        u32 b = __float_as_uint(k);
        return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
    }
    static __device__ __forceinline__ float from_bits(Bits b) {
        return __uint_as_float((b & 0x80000000u) ? (b ^ 0x80000000u) : ~b);
    }
};
template <> struct KeyBits<double> {
    typedef u64 Bits;
    static __device__ __forceinline__ Bits to_bits(double k) {
        u64 b = (u64)__double_as_longlong(k);
        return (b & 0x8000000000000000ull) ? ~b : (b | 0x8000000000000000ull);
    }
    static __device__ __forceinline__ double from_bits(Bits b) {
        return __longlong_as_double((i64)((b & 0x8000000000000000ull) ? (b ^ 0x8000000000000000ull) : ~b));
    }
};

// The order as every kernel receives it: a flip word of the key's bit width (`Order::flip` on
// the host), 0 for ascending and all ones for descending. Bits of `k` in that order:
template <typename K>
__device__ __forceinline__ typename KeyBits<K>::Bits flip_bits(K k, typename KeyBits<K>::Bits flip) {
    return KeyBits<K>::to_bits(k) ^ flip;
}

// The inverse of flip_bits.
template <typename K>
__device__ __forceinline__ K key_from_flipped_bits(typename KeyBits<K>::Bits b, typename KeyBits<K>::Bits flip) {
    return KeyBits<K>::from_bits(b ^ flip);
}

}  // namespace sortlab
