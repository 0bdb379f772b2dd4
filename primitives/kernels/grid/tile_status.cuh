// sortlab/grid/tile_status.cuh: the tile status words of single-pass kernels with decoupled
// look-back (Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back"):
// each block publishes its tile's aggregate, then its inclusive prefix, for the blocks of later
// tiles to combine while they look back.
//
// Layout: status[t] is tile t's status word, 0 (not yet published) at launch. A 4-byte value
// is packed with its kind into that word ((kind << 32) | bits) and published with one 64-bit
// store, which is single-copy atomic, so no fence is needed. An 8-byte value goes to `values`
// (aggregates values[t], inclusive prefixes values[tiles + t], so a value is never rewritten),
// then a __threadfence(), then the status word; the reader fences between reading the status
// and the value.
#pragma once
#include "sortlab/thread/types.cuh"
#include "sortlab/warp/shuffle.cuh"

namespace sortlab {

enum : u32 { TILE_AGGREGATE = 1u, TILE_INCLUSIVE = 2u };

// Whether values of T share their tile's status word.
template <typename T> struct TileStatusPacked {
    static constexpr bool value = sizeof(T) == 4;
};

// T's 32 bits as a word and back (4-byte T only).
template <typename T> union TileWord {
    T value;
    u32 word;
};

// Publishes `value` as the `kind` (TILE_AGGREGATE or TILE_INCLUSIVE) of `tile`.
template <typename T>
__device__ __forceinline__ void tile_publish(u64* status, T* values, u32 tiles, u32 tile, u32 kind, T value) {
    if constexpr (TileStatusPacked<T>::value) {
        TileWord<T> w;
        w.value = value;
        __stcg(status + tile, ((u64)kind << 32) | (u64)w.word);
    } else {
        store_cg(values + (kind == TILE_AGGREGATE ? 0 : (u64)tiles) + tile, value);
        __threadfence();
        *(volatile u64*)(status + tile) = (u64)kind;
    }
}

// Called by every lane of a warp, each for its tile `t` (t < 0: before the first tile, read as
// an inclusive `identity`): waits until every lane's tile has published, then returns the
// lane's value and sets `kind`.
template <typename T>
__device__ __forceinline__ T tile_status_read(const u64* status, const T* values, u32 tiles, i64 t, T identity,
                                              u32& kind) {
    u64 word;
    do {
        word = t >= 0 ? *(const volatile u64*)(status + t) : ((u64)TILE_INCLUSIVE << 32);
    } while (__any_sync(SORTLAB_FULL_WARP, word == 0));
    T v = identity;
    if constexpr (TileStatusPacked<T>::value) {
        kind = (u32)(word >> 32);
        TileWord<T> w;
        w.word = (u32)word;
        if (t >= 0) v = w.value;
    } else {
        kind = t >= 0 ? (u32)word : TILE_INCLUSIVE;
        __threadfence();
        if (t >= 0) v = load_cg(values + (kind == TILE_AGGREGATE ? 0 : (u64)tiles) + t);
    }
    return v;
}

}  // namespace sortlab
