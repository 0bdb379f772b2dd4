// sortlab/warp/shuffle.cuh: warp shuffles of any plain type whose size is a multiple of 4 bytes
// (u32, u64, float, double, and small structs of them), moved as 32-bit words, like CUB's
// ShuffleUp / ShuffleDown / ShuffleIndex.
//
// Every function must be called by all lanes named in `mask` (the full warp by default).
#pragma once
#include "sortlab/thread/types.cuh"

namespace sortlab {

// The full-warp participation mask.
#define SORTLAB_FULL_WARP 0xffffffffu

template <typename T> struct ShuffleWords {
    static_assert(sizeof(T) % 4 == 0, "shuffled types must be a multiple of 4 bytes");
    enum { kWords = sizeof(T) / 4 };
    union Words {
        T value;
        u32 word[kWords];
    };
};

// Applies `shuffle` (one of the __shfl_*_sync intrinsics, wrapped) to every 32-bit word of `x`.
template <typename T, typename Shuffle>
__device__ __forceinline__ T shfl_words(T x, Shuffle shuffle) {
    typename ShuffleWords<T>::Words w;
    w.value = x;
#pragma unroll
    for (int i = 0; i < ShuffleWords<T>::kWords; ++i) w.word[i] = shuffle(w.word[i]);
    return w.value;
}

// The value of lane (lane - delta); lanes below `delta` get their own value back.
template <typename T>
__device__ __forceinline__ T shfl_up(T x, unsigned delta, unsigned mask = SORTLAB_FULL_WARP) {
    return shfl_words(x, [=](u32 v) { return __shfl_up_sync(mask, v, delta); });
}

// The value of lane (lane + delta); lanes past the end get their own value back.
template <typename T>
__device__ __forceinline__ T shfl_down(T x, unsigned delta, unsigned mask = SORTLAB_FULL_WARP) {
    return shfl_words(x, [=](u32 v) { return __shfl_down_sync(mask, v, delta); });
}

// The value of lane (lane ^ lane_mask).
template <typename T>
__device__ __forceinline__ T shfl_xor(T x, int lane_mask, unsigned mask = SORTLAB_FULL_WARP) {
    return shfl_words(x, [=](u32 v) { return __shfl_xor_sync(mask, v, lane_mask); });
}

// The value of lane `src`.
template <typename T>
__device__ __forceinline__ T shfl_idx(T x, int src, unsigned mask = SORTLAB_FULL_WARP) {
    return shfl_words(x, [=](u32 v) { return __shfl_sync(mask, v, src); });
}

// Loads `*p` through L2 only (ld.global.cg), word by word: the way to read values that other
// blocks of the same grid published behind a __threadfence(), never a stale L1 line.
template <typename T> __device__ __forceinline__ T load_cg(const T* p) {
    typename ShuffleWords<T>::Words w;
    const u32* src = reinterpret_cast<const u32*>(p);
#pragma unroll
    for (int i = 0; i < ShuffleWords<T>::kWords; ++i) w.word[i] = __ldcg(src + i);
    return w.value;
}

// Stores `x` to `*p` through L2 only (st.global.cg), word by word.
template <typename T> __device__ __forceinline__ void store_cg(T* p, T x) {
    typename ShuffleWords<T>::Words w;
    w.value = x;
    u32* dst = reinterpret_cast<u32*>(p);
#pragma unroll
    for (int i = 0; i < ShuffleWords<T>::kWords; ++i) __stcg(dst + i, w.word[i]);
}

}  // namespace sortlab
