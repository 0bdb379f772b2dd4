// ---- Plain helpers for scratch memory (sub-ranges the runtime cannot memset or copy). ----

// Zeroes three word ranges at once, [p0, p0 + n0), [p1, p1 + n1), [p2, p2 + n2) (one launch for
// a sort's counters instead of one memset each; empty ranges may be null).
extern "C" __global__ void __launch_bounds__(REDUCE_THREADS)
zero_words(u64* __restrict__ p0, u64 n0, u64* __restrict__ p1, u64 n1, u64* __restrict__ p2, u64 n2) {
    sortlab::dependent_entry();
    const u64 stride = (u64)gridDim.x * REDUCE_THREADS;
    const u64 total = n0 + n1 + n2;
    for (u64 i = (u64)blockIdx.x * REDUCE_THREADS + threadIdx.x; i < total; i += stride) {
        if (i < n0) {
            p0[i] = 0;
        } else if (i < n0 + n1) {
            p1[i - n0] = 0;
        } else {
            p2[i - n0 - n1] = 0;
        }
    }
}

// Exclusive sum scans of two small u64 arrays in place, a[0, na) then b[0, nb), by one block of
// SCAN_SMALL_THREADS (scan_words; one launch for both instead of a device-wide scan each, whose
// fixed costs dominate at these lengths).
extern "C" __global__ void __launch_bounds__(SCAN_SMALL_THREADS) scan_small(u64* a, u64 na, u64* b, u64 nb) {
    sortlab::dependent_entry();
    typedef sortlab::BlockScan<u64, SCAN_SMALL_THREADS> Scan;
    __shared__ typename Scan::TempStorage tmp;
    scan_words<SCAN_SMALL_THREADS, 8>(a, na, tmp);
    scan_words<SCAN_SMALL_THREADS, 8>(b, nb, tmp);
}

// dst[0, n) = src[0, n), keys and (with HAS_VALUES) values.
extern "C" __global__ void __launch_bounds__(REDUCE_THREADS)
copy_pairs(const KEY_T* __restrict__ src_k, const Value* __restrict__ src_v, KEY_T* __restrict__ dst_k,
           Value* __restrict__ dst_v, u64 n) {
    sortlab::dependent_entry();
    const u64 stride = (u64)gridDim.x * REDUCE_THREADS;
    for (u64 i = (u64)blockIdx.x * REDUCE_THREADS + threadIdx.x; i < n; i += stride) {
        dst_k[i] = src_k[i];
#if HAS_VALUES
        dst_v[i] = src_v[i];
#endif
    }
}
