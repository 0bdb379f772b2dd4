// network.cu: BitonicVariant::Mapping and BitonicVariant::Notes, the two published bitonic
// kernels, one launch per step of the network, and the copies that pad the input to a power of
// two and back.
//
// Both kernels sort a work array of N = 2^m ordered-bits words (sortlab::flip_bits of the keys,
// so the network always sorts ascending words; the order is in the flip word) in the classic
// alternating-direction network: stage g = 1 .. m merges blocks of 2^g elements, ascending
// where bit g of the element's index is 0, in steps of partner distance 2^(g-1), ..., 1.
//
// The work array is the caller's key buffer itself when n is a power of two (converted in place
// by bitonic_pad, back by bitonic_unpad), else a scratch array whose elements n .. N-1 are all
// ones, the largest word. With values, the caller's values move with the keys when n is a power
// of two; otherwise every element carries its input index (padding: its position, >= n), pairs
// compare by (word, index), so padding sorts after every real key even where a key is all ones,
// and bitonic_unpad_indexed gathers the values once at the end.
//
// Defines:
//   KEY_T, KEY_BITS_T, HAS_VALUES, VALUE_T   the shared vocabulary (sortlab/thread/key_defines.cuh)
// Block size: any power of two up to 1024, chosen at launch (BitonicOptions::threads_per_block);
// the kernels use blockDim.x. Indices are 64-bit throughout.
#include "sortlab/thread/key_defines.cuh"
#include "sortlab/thread/type_traits.cuh"

typedef KEY_T Key;
typedef KEY_BITS_T Bits;
typedef VALUE_T Value;

__device__ __forceinline__ u64 thread_index() { return (u64)blockIdx.x * blockDim.x + threadIdx.x; }

// ---- Compare-exchange of w[lo] and w[hi] (lo < hi): ascending puts the smaller word at lo. ----

// The report's: the larger of the two goes to hi by atomicMax, which returns hi's old word; the
// smaller of that and lo's goes to lo by atomicMin. Correct only because no other thread reads
// or writes lo or hi during the launch (each pair belongs to exactly one thread of a step).
__device__ __forceinline__ void exchange_atomic(Bits* w, u64 lo, u64 hi, bool up) {
    if (up) {
        atomicMin(&w[lo], atomicMax(&w[hi], w[lo]));
    } else {
        atomicMin(&w[hi], atomicMax(&w[lo], w[hi]));
    }
}

// The plain one: two loads, and two stores where the pair is out of order.
__device__ __forceinline__ void exchange_plain(Bits* w, u64 lo, u64 hi, bool up) {
    const Bits a = w[lo];
    const Bits b = w[hi];
    if (up ? b < a : a < b) {
        w[lo] = b;
        w[hi] = a;
    }
}

#if HAS_VALUES
// Keys and the caller's values (n a power of two): compared by word, values moved along.
__device__ __forceinline__ void exchange_values(Bits* w, Value* v, u64 lo, u64 hi, bool up) {
    const Bits a = w[lo];
    const Bits b = w[hi];
    if (up ? b < a : a < b) {
        w[lo] = b;
        w[hi] = a;
        const Value t = v[lo];
        v[lo] = v[hi];
        v[hi] = t;
    }
}
#endif

// Keys and their input indices (padded pairs): compared by (word, index).
__device__ __forceinline__ void exchange_indexed(Bits* w, u64* x, u64 lo, u64 hi, bool up) {
    const Bits a = w[lo];
    const Bits b = w[hi];
    const u64 ia = x[lo];
    const u64 ib = x[hi];
    const bool b_less = b < a || (b == a && ib < ia);
    const bool a_less = a < b || (a == b && ia < ib);
    if (up ? b_less : a_less) {
        w[lo] = b;
        w[hi] = a;
        x[lo] = ib;
        x[hi] = ia;
    }
}

// ---- The report's index mapping: one thread per pair, one launch per (stage g, step t). ----

// Pair `i` (of N/2) of step t (partner distance 2^(t-1)) of stage g: map = (i / 2^(t-1)) * 2^t
// + i mod 2^(t-1) (as shifts and a mask), partner map + 2^(t-1), ascending where
// (map / 2^g) mod 2 == 0.
struct MappedPair {
    u64 lo;
    u64 hi;
    bool up;
};
__device__ __forceinline__ MappedPair mapped_pair(u64 i, u32 g, u32 t) {
    const u64 half = 1ull << (t - 1);
    const u64 map = ((i >> (t - 1)) << t) + (i & (half - 1));
    return MappedPair{map, map + half, ((map >> g) & 1) == 0};
}

extern "C" __global__ void __launch_bounds__(1024) bitonic_mapping_atomic(Bits* w, u64 pairs, u32 g, u32 t) {
    const u64 i = thread_index();
    if (i >= pairs) return;
    const MappedPair p = mapped_pair(i, g, t);
    exchange_atomic(w, p.lo, p.hi, p.up);
}

extern "C" __global__ void __launch_bounds__(1024) bitonic_mapping_plain(Bits* w, u64 pairs, u32 g, u32 t) {
    const u64 i = thread_index();
    if (i >= pairs) return;
    const MappedPair p = mapped_pair(i, g, t);
    exchange_plain(w, p.lo, p.hi, p.up);
}

extern "C" __global__ void __launch_bounds__(1024) bitonic_mapping_indexed(Bits* w, u64* x, u64 pairs, u32 g, u32 t) {
    const u64 i = thread_index();
    if (i >= pairs) return;
    const MappedPair p = mapped_pair(i, g, t);
    exchange_indexed(w, x, p.lo, p.hi, p.up);
}

#if HAS_VALUES
extern "C" __global__ void __launch_bounds__(1024) bitonic_mapping_values(Bits* w, Value* v, u64 pairs, u32 g, u32 t) {
    const u64 i = thread_index();
    if (i >= pairs) return;
    const MappedPair p = mapped_pair(i, g, t);
    exchange_values(w, v, p.lo, p.hi, p.up);
}
#endif

// ---- The course notes' kernel: one thread per element, one launch per (k, j). ----
// Thread i compares i with i ^ j where that is larger, ascending where i & k == 0.

extern "C" __global__ void __launch_bounds__(1024) bitonic_notes_keys(Bits* w, u64 len, u64 j, u64 k) {
    const u64 i = thread_index();
    if (i >= len) return;
    const u64 ixj = i ^ j;
    if (ixj > i) exchange_plain(w, i, ixj, (i & k) == 0);
}

extern "C" __global__ void __launch_bounds__(1024) bitonic_notes_indexed(Bits* w, u64* x, u64 len, u64 j, u64 k) {
    const u64 i = thread_index();
    if (i >= len) return;
    const u64 ixj = i ^ j;
    if (ixj > i) exchange_indexed(w, x, i, ixj, (i & k) == 0);
}

#if HAS_VALUES
extern "C" __global__ void __launch_bounds__(1024) bitonic_notes_values(Bits* w, Value* v, u64 len, u64 j, u64 k) {
    const u64 i = thread_index();
    if (i >= len) return;
    const u64 ixj = i ^ j;
    if (ixj > i) exchange_values(w, v, i, ixj, (i & k) == 0);
}
#endif

// ---- The copies in and out (grid-stride). ----

// w[i] = the ordered bits of keys[i] in the order of `flip` for i < n, all ones for n <= i <
// len. keys and w may be the same buffer (n == len: the conversion in place).
extern "C" __global__ void __launch_bounds__(1024) bitonic_pad(const Key* keys, Bits* w, u64 n, u64 len, Bits flip) {
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = thread_index(); i < len; i += stride) {
        w[i] = i < n ? sortlab::flip_bits(keys[i], flip) : sortlab::max_bits<Bits>();
    }
}

// keys[i] = the key of w[i], for i < n. w and keys may be the same buffer.
extern "C" __global__ void __launch_bounds__(1024) bitonic_unpad(const Bits* w, Key* keys, u64 n, Bits flip) {
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = thread_index(); i < n; i += stride) keys[i] = sortlab::key_from_flipped_bits<Key>(w[i], flip);
}

#if HAS_VALUES
// bitonic_pad with the input indices x[i] = i (i < len) and a copy of the values (i < n).
extern "C" __global__ void __launch_bounds__(1024)
bitonic_pad_indexed(const Key* keys, const Value* values, Bits* w, u64* x, Value* spare, u64 n, u64 len, Bits flip) {
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = thread_index(); i < len; i += stride) {
        w[i] = i < n ? sortlab::flip_bits(keys[i], flip) : sortlab::max_bits<Bits>();
        x[i] = i;
        if (i < n) spare[i] = values[i];
    }
}

// bitonic_unpad with the values gathered by index: values[i] = spare[x[i]] (every x[i] < n for
// i < n, since padding sorts last).
extern "C" __global__ void __launch_bounds__(1024)
bitonic_unpad_indexed(const Bits* w, const u64* x, const Value* spare, Key* keys, Value* values, u64 n, Bits flip) {
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = thread_index(); i < n; i += stride) {
        keys[i] = sortlab::key_from_flipped_bits<Key>(w[i], flip);
        values[i] = spare[x[i]];
    }
}
#endif
