// sortlab/block/block_histogram.cuh: block-wide histogram of small digits in shared memory
// (CUB's BlockHistogram, the shared-atomic variant, plus a warp-aggregated one).
//
// ---- Device API --------------------------------------------------------------------------------
//
// BlockHistogram<Threads, Items, MaxBins, Algo>
//   Threads    threads per block, a multiple of 32 (one-dimensional, all of them call).
//   Items      digits per thread.
//   MaxBins    the number of counters (digits must be < MaxBins).
//   Algo       kHistogramAtomic: one shared atomicAdd per digit.
//              kHistogramWarpAggregated: the lanes of a warp holding the same digit are found
//              with __match_any_sync and add once (their count): much less contention when few
//              digits are distinct (all-equal or sorted tiles), a little more work otherwise.
//
//   TempStorage { u32 bins[MaxBins]; }
//   init(tmp)                                   zero every bin (no __syncthreads)
//   accumulate<Arrangement>(digits, valid, tmp) add the digits whose element index is < valid,
//                                               element index as Arrangement says
//                                               (kBlocked: t * Items + k, kStriped:
//                                               k * Threads + t); no __syncthreads
//   histogram<Arrangement>(digits, valid, tmp)  init, __syncthreads, accumulate, __syncthreads:
//                                               afterwards tmp.bins[d] is the count of digit d
//
//   accumulate may be called many times (one chunk of a larger tile each) between an init and
//   the read; the caller must __syncthreads() between init and accumulate and between
//   accumulate and reading the bins. The counts are exact (32-bit). A digit histogram of keys:
//   digits[k] = sortlab::radix_digit(bits[k], bit, pass_bits) (sortlab/block/block_radix_rank.cuh)
//   on ordered bits; BlockRadixRank's DigitSink gives the same counts as a by-product of ranking.
// ------------------------------------------------------------------------------------------------
#pragma once
#include "sortlab/block/block_load_store.cuh"
#include "sortlab/warp/operators.cuh"
#include "sortlab/warp/shuffle.cuh"

namespace sortlab {

enum HistogramAlgo { kHistogramAtomic = 0, kHistogramWarpAggregated = 1 };

template <int Threads, int Items, int MaxBins, int Algo = kHistogramAtomic> struct BlockHistogram {
    static_assert(Threads >= 32 && Threads <= 1024 && Threads % 32 == 0,
                  "block algorithms need 32 to 1024 threads, a multiple of 32");
    static_assert(MaxBins >= 1, "MaxBins must be positive");

    struct TempStorage {
        u32 bins[MaxBins];
    };

    static __device__ __forceinline__ void init(TempStorage& tmp) {
        for (u32 b = threadIdx.x; b < (u32)MaxBins; b += Threads) tmp.bins[b] = 0;
    }

    template <int A = kBlocked>
    static __device__ __forceinline__ void accumulate(const u32 (&digits)[Items], u32 valid, TempStorage& tmp) {
        const u32 tid = threadIdx.x;
#pragma unroll
        for (int k = 0; k < Items; ++k) {
            const u32 e = A == kStriped ? k * Threads + tid : tid * Items + k;
            const bool ok = e < valid;
            if constexpr (Algo == kHistogramWarpAggregated) {
                // Invalid items match each other only (no digit is ~0u), and add nothing.
                const u32 key = ok ? digits[k] : ~0u;
                const u32 peers = __match_any_sync(SORTLAB_FULL_WARP, key);
                const u32 leader = __ffs(peers) - 1;
                if (ok && lane_id() == leader) atomicAdd(&tmp.bins[digits[k]], (u32)__popc(peers));
            } else {
                if (ok) atomicAdd(&tmp.bins[digits[k]], 1u);
            }
        }
    }

    template <int A = kBlocked>
    static __device__ __forceinline__ void histogram(const u32 (&digits)[Items], u32 valid, TempStorage& tmp) {
        init(tmp);
        __syncthreads();
        accumulate<A>(digits, valid, tmp);
        __syncthreads();
    }
};

}  // namespace sortlab
