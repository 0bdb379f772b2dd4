// digit_scan.cu: exclusive prefix sum, in place, of the 64-bit per-tile digit counts of the
// classic radix sorts (OneBit, Satish). The counts are laid out digit-major (all tiles' counts of
// digit 0, then of digit 1, ...), so the exclusive scan gives every (digit, tile) its first
// output position: the scan of Satish et al. and of the CUDPP split.
//
// Three kernels, reduce-then-scan: scan_reduce writes each chunk's total, scan_chunk_totals
// scans the totals in one block, scan_apply scans each chunk from its total's prefix.
//
// Defines:
//   SCAN_THREADS   threads per block (a multiple of 32)
//   SCAN_ITEMS     counts per thread; a chunk is SCAN_THREADS * SCAN_ITEMS counts
#include "sortlab/block/block_load_store.cuh"
#include "sortlab/block/block_reduce.cuh"
#include "sortlab/block/block_scan.cuh"

#ifndef SCAN_THREADS
#define SCAN_THREADS 256
#endif
#ifndef SCAN_ITEMS
#define SCAN_ITEMS 8
#endif

#define SCAN_CHUNK (SCAN_THREADS * SCAN_ITEMS)

static_assert((SCAN_THREADS & (SCAN_THREADS - 1)) == 0 && SCAN_THREADS >= 32 && SCAN_THREADS <= 1024,
              "SCAN_THREADS must be a power of two from 32 to 1024 (BlockReduce)");
static_assert(SCAN_ITEMS >= 1, "SCAN_ITEMS must be positive");

typedef sortlab::BlockLoad<u64, SCAN_THREADS, SCAN_ITEMS> Load;
typedef sortlab::BlockStore<u64, SCAN_THREADS, SCAN_ITEMS> Store;
typedef sortlab::BlockScan<u64, SCAN_THREADS> Scan;
typedef sortlab::BlockReduce<u64, SCAN_THREADS> Reduce;

// Elements of chunk c (of length m in all).
__device__ __forceinline__ u32 chunk_valid(u64 c, u64 m) {
    const u64 left = m - c * SCAN_CHUNK;
    return left < SCAN_CHUNK ? (u32)left : (u32)SCAN_CHUNK;
}

// totals[c] = the sum of chunk c of data[0 .. m).
extern "C" __global__ void __launch_bounds__(SCAN_THREADS) scan_reduce(const u64* data, u64 m, u64* totals) {
    __shared__ typename Reduce::TempStorage tmp;
    const u64 chunks = (m + SCAN_CHUNK - 1) / SCAN_CHUNK;
    for (u64 c = blockIdx.x; c < chunks; c += gridDim.x) {
        const u32 valid = chunk_valid(c, m);
        u64 items[SCAN_ITEMS];
        sortlab::load_direct_striped<SCAN_THREADS>(threadIdx.x, data + c * SCAN_CHUNK, items, valid, (u64)0);
        u64 sum = 0;
#pragma unroll
        for (int k = 0; k < SCAN_ITEMS; ++k) sum += items[k];
        sum = Reduce::reduce(sum, sortlab::Sum(), tmp);
        if (threadIdx.x == 0) totals[c] = sum;
        __syncthreads();
    }
}

// Exclusive scan of totals[0 .. chunks) in place, by one block.
extern "C" __global__ void __launch_bounds__(SCAN_THREADS) scan_chunk_totals(u64* totals, u64 chunks) {
    __shared__ typename Scan::TempStorage tmp;
    u64 running = 0;
    for (u64 first = 0; first < chunks; first += SCAN_THREADS) {
        const u64 i = first + threadIdx.x;
        const u64 x = i < chunks ? totals[i] : 0;
        u64 block_total;
        const u64 excl = Scan::exclusive_scan(x, (u64)0, sortlab::Sum(), block_total, tmp);
        if (i < chunks) totals[i] = running + excl;
        running += block_total;
        __syncthreads();
    }
}

// Exclusive scan of each chunk of data[0 .. m) in place, starting from prefixes[c].
extern "C" __global__ void __launch_bounds__(SCAN_THREADS) scan_apply(u64* data, u64 m, const u64* prefixes) {
    __shared__ union {
        typename Load::TempStorage load;
        typename Store::TempStorage store;
        typename Scan::TempStorage scan;
    } tmp;
    const u64 chunks = (m + SCAN_CHUNK - 1) / SCAN_CHUNK;
    for (u64 c = blockIdx.x; c < chunks; c += gridDim.x) {
        const u32 valid = chunk_valid(c, m);
        u64* chunk = data + c * SCAN_CHUNK;
        u64 items[SCAN_ITEMS];
        Load::load(chunk, items, valid, (u64)0, tmp.load);
        u64 sum = 0;
#pragma unroll
        for (int k = 0; k < SCAN_ITEMS; ++k) sum += items[k];
        __syncthreads();
        u64 block_total;
        u64 running = prefixes[c] + Scan::exclusive_scan(sum, (u64)0, sortlab::Sum(), block_total, tmp.scan);
#pragma unroll
        for (int k = 0; k < SCAN_ITEMS; ++k) {
            const u64 x = items[k];
            items[k] = running;
            running += x;
        }
        __syncthreads();
        Store::store(chunk, items, valid, tmp.store);
        __syncthreads();
    }
}
