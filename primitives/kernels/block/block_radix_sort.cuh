// sortlab/block/block_radix_sort.cuh: block-wide stable LSD radix sort of a tile of ordered key
// bits, with or without values (CUB's BlockRadixSort over sortlab/block/block_radix_rank.cuh).
//
// ---- Device API --------------------------------------------------------------------------------
//
// BlockRadixSort<Bits, Value, Threads, Items, RadixBits>
//   Bits       u32 or u64: ordered key bits, ascending. For keys K use
//              sortlab::flip_bits(key, flip) before and
//              sortlab::key_from_flipped_bits<K>(bits, flip) after: a descending sort is
//              the ascending sort of complemented bits, so it is stable too.
//   Value      the value type carried with each key (any plain type), or sortlab::NullValue for
//              keys only.
//   Threads    threads per block, a multiple of 32; Items keys per thread; Threads * Items <=
//              65535. RadixBits: 1..8 bits per pass (4 is Satish et al.'s digit).
//
//   TempStorage
//   sort(keys, tmp, valid, begin_bit, end_bit[, sink])
//   sort(keys, values, tmp, valid, begin_bit, end_bit[, sink])
//       keys (and values) blocked in, blocked out: thread t's item k is sorted element
//       t * Items + k.
//   sort_blocked_to_striped(keys, tmp, valid, begin_bit, end_bit[, sink])
//   sort_blocked_to_striped(keys, values, tmp, valid, begin_bit, end_bit[, sink])
//       blocked in, striped out (item k of thread t is sorted element k * Threads + t): ready
//       for a coalesced store_direct_striped, with no extra exchange.
//
//   Sorts by bits [begin_bit, end_bit) of the key, least significant digit first, RadixBits per
//   pass (the last pass may be narrower); keys equal in those bits keep their blocked order
//   (stable). begin_bit >= end_bit sorts nothing (only the arrangement changes).
//   valid: the tile's element count; elements >= valid (blocked index) are partial-tile
//   padding: their keys are set to sortlab::max_bits<Bits>() and they end up after every real
//   key, so the first `valid` sorted elements are exactly the real ones, sorted. Pass
//   Threads * Items for a full tile.
//   sink (a DigitSink, see block_radix_rank.cuh): the digit offsets and counts of the *last*
//   pass (bits [end_bit - last pass width, end_bit)) over the first `valid` keys, visible to
//   the whole block when sort returns (with no bits to sort, every key has digit 0). Satish et al.'s per-tile step is one call with
//   end_bit = begin_bit + 4 and a sink.
//
// Rules: every thread of the block calls; the caller must __syncthreads() before the same
// TempStorage (or memory aliasing it) is used again.
// TempStorage of a large tile may exceed the 48 KiB a kernel can declare `__shared__` statically:
// carve it from dynamic shared memory (`extern __shared__` plus a launch's shared bytes, as
// primitives/src/block/block.cu does, which reports sizeof() to the host).
// ------------------------------------------------------------------------------------------------
#pragma once
#include "sortlab/block/block_load_store.cuh"
#include "sortlab/block/block_radix_rank.cuh"

namespace sortlab {

template <typename Bits, typename Value, int Threads, int Items, int RadixBits> struct BlockRadixSort {
    typedef BlockRadixRank<Bits, Threads, Items, RadixBits> Rank;
    typedef BlockExchange<Bits, Threads, Items> KeyExchange;
    static constexpr bool kPairs = !IsSame<Value, NullValue>::value;
    typedef BlockExchange<typename Conditional<kPairs, Value, u32>::Type, Threads, Items> ValueExchange;
    enum { kTileItems = Threads * Items };

    struct PairExchangeStorage {
        typename KeyExchange::TempStorage keys;
        typename ValueExchange::TempStorage values;
    };
    struct KeyExchangeStorage {
        typename KeyExchange::TempStorage keys;
    };
    typedef typename Conditional<kPairs, PairExchangeStorage, KeyExchangeStorage>::Type ExchangeStorage;

    struct TempStorage {
        union Phases {
            typename Rank::TempStorage rank;
            ExchangeStorage exchange;
        } u;
    };

    static __device__ __forceinline__ void sort(Bits (&keys)[Items], TempStorage& tmp, u32 valid, int begin_bit,
                                                int end_bit, DigitSink sink = DigitSink()) {
        NullValue none[Items];
        run<false, false>(keys, none, tmp, valid, begin_bit, end_bit, sink);
    }

    static __device__ __forceinline__ void sort(Bits (&keys)[Items], Value (&values)[Items], TempStorage& tmp,
                                                u32 valid, int begin_bit, int end_bit, DigitSink sink = DigitSink()) {
        static_assert(kPairs, "sort(keys, values, ...) needs a Value type other than NullValue");
        run<false, true>(keys, values, tmp, valid, begin_bit, end_bit, sink);
    }

    static __device__ __forceinline__ void sort_blocked_to_striped(Bits (&keys)[Items], TempStorage& tmp, u32 valid,
                                                                   int begin_bit, int end_bit,
                                                                   DigitSink sink = DigitSink()) {
        NullValue none[Items];
        run<true, false>(keys, none, tmp, valid, begin_bit, end_bit, sink);
    }

    static __device__ __forceinline__ void sort_blocked_to_striped(Bits (&keys)[Items], Value (&values)[Items],
                                                                   TempStorage& tmp, u32 valid, int begin_bit,
                                                                   int end_bit, DigitSink sink = DigitSink()) {
        static_assert(kPairs, "sort_blocked_to_striped(keys, values, ...) needs a Value type other than NullValue");
        run<true, true>(keys, values, tmp, valid, begin_bit, end_bit, sink);
    }

  private:
    // Moves keys (and values) to `ranks` (a permutation), read back blocked or striped; one
    // __syncthreads() for both arrays.
    template <bool Striped, bool WithValues, typename V>
    static __device__ __forceinline__ void exchange(Bits (&keys)[Items], V (&values)[Items], const u32 (&ranks)[Items],
                                                    ExchangeStorage& ex) {
        const u32 tid = threadIdx.x;
#pragma unroll
        for (int k = 0; k < Items; ++k) {
            ex.keys.buf[KeyExchange::slot(ranks[k])] = keys[k];
            if constexpr (WithValues) ex.values.buf[ValueExchange::slot(ranks[k])] = values[k];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < Items; ++k) {
            const u32 e = Striped ? k * Threads + tid : tid * Items + k;
            keys[k] = ex.keys.buf[KeyExchange::slot(e)];
            if constexpr (WithValues) values[k] = ex.values.buf[ValueExchange::slot(e)];
        }
    }

    template <bool Striped, bool WithValues, typename V>
    static __device__ __forceinline__ void run(Bits (&keys)[Items], V (&values)[Items], TempStorage& tmp, u32 valid,
                                               int begin_bit, int end_bit, DigitSink sink) {
        const u32 tid = threadIdx.x;
        if (valid < (u32)kTileItems) {
#pragma unroll
            for (int k = 0; k < Items; ++k) {
                if (tid * Items + k >= valid) keys[k] = max_bits<Bits>();
            }
        }
        if (begin_bit >= end_bit) {
            // No bits: every key has the empty digit 0.
            for (u32 d = tid; d < (u32)Rank::kDigits; d += Threads) {
                if (sink.offsets != nullptr) sink.offsets[d] = d == 0 ? 0 : sink.valid;
                if (sink.counts != nullptr) sink.counts[d] = d == 0 ? sink.valid : 0;
            }
            if constexpr (Striped) {
                u32 ranks[Items];
#pragma unroll
                for (int k = 0; k < Items; ++k) ranks[k] = tid * Items + k;
                exchange<true, WithValues>(keys, values, ranks, tmp.u.exchange);
            } else {
                __syncthreads();  // the sink's writes are visible on return
            }
            return;
        }
        for (int bit = begin_bit;;) {
            const int pass_bits = min(RadixBits, end_bit - bit);
            const bool last = bit + pass_bits >= end_bit;
            u32 ranks[Items];
            Rank::rank_keys(keys, ranks, (u32)bit, (u32)pass_bits, tmp.u.rank, last ? sink : DigitSink());
            __syncthreads();  // the exchange reuses the rank's shared memory
            if (last && Striped) {
                exchange<true, WithValues>(keys, values, ranks, tmp.u.exchange);
            } else {
                exchange<false, WithValues>(keys, values, ranks, tmp.u.exchange);
            }
            bit += pass_bits;
            if (bit >= end_bit) break;
            __syncthreads();  // the next rank reuses the exchange's shared memory
        }
    }
};

}  // namespace sortlab
