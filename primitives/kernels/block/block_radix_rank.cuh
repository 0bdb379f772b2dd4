// sortlab/block/block_radix_rank.cuh: block-wide stable ranking of keys by one radix digit
// (CUB's BlockRadixRank, the packed shared-memory counter variant of Merrill & Grimshaw).
//
// ---- Device API --------------------------------------------------------------------------------
//
// BlockRadixRank<Bits, Threads, Items, RadixBits>
//   Bits       u32 or u64: ordered key bits (sortlab::KeyBits<K>::Bits, complemented for a
//              descending sort: sortlab::flip_bits(key, flip)).
//   Threads    threads per block, a multiple of 32 (one-dimensional blocks, all of them call).
//   Items      keys per thread, in the blocked arrangement (thread t holds tile elements
//              t * Items .. t * Items + Items - 1). Threads * Items <= 65535 (16-bit counters).
//   RadixBits  1..8: the largest digit ranked in one pass (kDigits = 1 << RadixBits counters).
//
//   TempStorage
//   rank_keys(keys, ranks, bit, pass_bits, tmp[, sink])
//       digit(key) = (key >> bit) & ((1 << pass_bits) - 1), with pass_bits <= RadixBits and
//       bit < 8 * sizeof(Bits). ranks[k] gets the position of keys[k] in the tile stably sorted
//       by digit: every key of a smaller digit comes first, equal digits keep their blocked
//       order. The ranks are a permutation of 0 .. Threads * Items - 1.
//   DigitSink { u32* offsets; u32* counts; u32 valid; }   (either pointer may be null)
//       When given, rank_keys also writes, for every digit d < kDigits, among the tile's first
//       `valid` elements in rank order (the real keys of a partial tile whose elements >= valid
//       were filled with sortlab::max_bits<Bits>(), which rank last):
//         offsets[d] = min(first rank of digit d, valid)       (the digit's exclusive prefix)
//         counts[d]  = the number of those keys with digit d   (the tile's digit histogram)
//       This is the per-tile digit count and offset of Satish et al.'s radix sort. Pointers may
//       be shared or global memory; the writes are visible to the block after the caller's
//       next __syncthreads() (BlockRadixSort holds one before it returns).
//
// Rules: every thread of the block calls rank_keys; it holds three __syncthreads() plus the
// block scan's two, and the caller must __syncthreads() before the same TempStorage (or memory
// aliasing it) is used again.
// TempStorage of a large tile may exceed the 48 KiB a kernel can declare `__shared__` statically:
// carve it from dynamic shared memory (`extern __shared__` plus a launch's shared bytes, as
// primitives/src/block/block.cu does, which reports sizeof() to the host).
// ------------------------------------------------------------------------------------------------
#pragma once
#include "sortlab/block/block_scan.cuh"
#include "sortlab/thread/type_traits.cuh"

namespace sortlab {

// Where a ranking pass writes the tile's digit offsets and counts (see the API above).
struct DigitSink {
    u32* offsets = nullptr;
    u32* counts = nullptr;
    u32 valid = 0;
};

// The `pass_bits`-wide digit of `key` at `bit`.
template <typename Bits> __device__ __forceinline__ u32 radix_digit(Bits key, u32 bit, u32 pass_bits) {
    return (u32)(key >> bit) & ((1u << pass_bits) - 1u);
}

template <typename Bits, int Threads, int Items, int RadixBits> struct BlockRadixRank {
    static_assert(RadixBits >= 1 && RadixBits <= 8, "RadixBits must be 1 to 8");
    static_assert(Threads >= 32 && Threads <= 1024 && Threads % 32 == 0,
                  "block algorithms need 32 to 1024 threads, a multiple of 32");
    static_assert(Items >= 1, "Items must be positive");
    static_assert(Threads * Items <= 65535, "BlockRadixRank counts in 16 bits: at most 65535 keys per tile");

    enum {
        kTileItems = Threads * Items,
        kDigits = 1 << RadixBits,
        // Two 16-bit counters per 32-bit word: digit d counts in lane d % kLanes, half d / kLanes.
        kPacking = 2,
        kLanes = kDigits / kPacking,
        kLogLanes = Log2<kLanes>::value,
        // One spare lane keeps each thread's raking segment (kPaddedLanes words) odd: no bank
        // conflicts while raking.
        kPaddedLanes = kLanes + 1,
    };

    typedef BlockScan<u32, Threads> Scan;

    struct TempStorage {
        union Counters {
            unsigned short digit[kPaddedLanes][Threads][kPacking];
            u32 raking[Threads][kPaddedLanes];
        } counters;
        typename Scan::TempStorage scan;
    };

    // The 16-bit counter of `digit` for thread `t`, as an index into the flat counter array.
    static __device__ __forceinline__ u32 counter_index(u32 digit, u32 t) {
        const u32 half = digit >> kLogLanes;
        const u32 lane = digit & (kLanes - 1);
        return (lane * Threads + t) * kPacking + half;
    }

    static __device__ __forceinline__ void rank_keys(const Bits (&keys)[Items], u32 (&ranks)[Items], u32 bit,
                                                     u32 pass_bits, TempStorage& tmp, DigitSink sink = DigitSink()) {
        const u32 tid = threadIdx.x;
        unsigned short* counters = &tmp.counters.digit[0][0][0];

#pragma unroll
        for (int s = 0; s < kPaddedLanes; ++s) tmp.counters.raking[tid][s] = 0;
        __syncthreads();

        // Count this thread's keys per digit; each key remembers how many keys of its digit this
        // thread held before it.
        u32 slot[Items];
        u32 before[Items];
#pragma unroll
        for (int k = 0; k < Items; ++k) {
            slot[k] = counter_index(radix_digit(keys[k], bit, pass_bits), tid);
            before[k] = counters[slot[k]];
            counters[slot[k]] = (unsigned short)(before[k] + 1);
        }
        __syncthreads();

        // Exclusive scan of every counter in (lane, thread) order: raked per thread, one block
        // scan of the thread totals, then the total of the low halves is carried into the high
        // halves (every high-half digit follows every low-half digit).
        u32 partial = 0;
#pragma unroll
        for (int s = 0; s < kPaddedLanes; ++s) partial += tmp.counters.raking[tid][s];
        u32 aggregate;
        u32 prefix = Scan::exclusive_scan(partial, 0u, Sum(), aggregate, tmp.scan);
        prefix += aggregate << 16;
#pragma unroll
        for (int s = 0; s < kPaddedLanes; ++s) {
            const u32 c = tmp.counters.raking[tid][s];
            tmp.counters.raking[tid][s] = prefix;
            prefix += c;
        }
        __syncthreads();

#pragma unroll
        for (int k = 0; k < Items; ++k) ranks[k] = before[k] + counters[slot[k]];

        if (sink.offsets != nullptr || sink.counts != nullptr) {
            for (u32 d = tid; d < (u32)kDigits; d += Threads) {
                const u32 first = counters[counter_index(d, 0)];
                const u32 next = d + 1 < (u32)kDigits ? (u32)counters[counter_index(d + 1, 0)] : (u32)kTileItems;
                const u32 lo = min(first, sink.valid);
                const u32 hi = min(next, sink.valid);
                if (sink.offsets != nullptr) sink.offsets[d] = lo;
                if (sink.counts != nullptr) sink.counts[d] = hi - lo;
            }
        }
    }
};

}  // namespace sortlab
