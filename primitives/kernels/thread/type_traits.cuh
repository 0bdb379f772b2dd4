// sortlab/thread/type_traits.cuh: the few compile-time helpers the block algorithms need
// (NVRTC ships no <type_traits>), like CUB's util_type.cuh.
//
//   sortlab::NullValue                  the value type of keys-only block sorts
//   sortlab::IsSame<A, B>::value        whether two types are the same
//   sortlab::Conditional<C, A, B>::Type A if C else B
//   sortlab::Log2<N>::value             floor(log2(N)) for N >= 1
//   sortlab::NextPow2<N>::value         the smallest power of two >= N (N >= 1)
//   sortlab::IsPow2<N>::value           whether N is a power of two
//   sortlab::max_bits<Bits>()           all ones: the largest ordered-bits word (the fill of a
//                                       partial tile, which sorts last)
#pragma once
#include "sortlab/thread/types.cuh"

namespace sortlab {

// The value type of a keys-only sort: an empty placeholder, never loaded or stored.
struct NullValue {};

template <typename A, typename B> struct IsSame {
    static constexpr bool value = false;
};
template <typename A> struct IsSame<A, A> {
    static constexpr bool value = true;
};

template <bool C, typename A, typename B> struct Conditional {
    typedef A Type;
};
template <typename A, typename B> struct Conditional<false, A, B> {
    typedef B Type;
};

template <int N> struct Log2 {
    static_assert(N >= 1, "Log2 of a non-positive number");
    static constexpr int value = N == 1 ? 0 : 1 + Log2<(N > 1 ? N / 2 : 1)>::value;
};
template <> struct Log2<1> {
    static constexpr int value = 0;
};

template <int N> struct IsPow2 {
    static constexpr bool value = N > 0 && (N & (N - 1)) == 0;
};

template <int N> struct NextPow2 {
    static_assert(N >= 1, "NextPow2 of a non-positive number");
    static constexpr int value = IsPow2<N>::value ? N : (2 << Log2<N>::value);
};

// Every bit set: the largest ordered-bits word, which sorts after every key in ascending order.
template <typename Bits> __device__ __forceinline__ Bits max_bits() { return (Bits)~(Bits)0; }

}  // namespace sortlab
