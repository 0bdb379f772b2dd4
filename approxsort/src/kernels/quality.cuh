// ---- Quality: the radius from LR (prefix maxima) and RL (suffix minima) in sort order. ----
// D[i] = i - (the smallest j <= i with LR[j] > RL[i]), 0 if none; radius = max D. LR is
// nondecreasing, and in an interval-ordered output j lies in i's interval, so an exponential
// search back from i finds it in O(log(interval)) reads. result[0] must be 0 before the launch.
extern "C" __global__ void __launch_bounds__(REDUCE_THREADS)
radius_distances(const KEY_T* __restrict__ lr, const KEY_T* __restrict__ rl, u64 n, Bits flip, u64* result) {
    sortlab::dependent_entry();
    const u64 stride = (u64)gridDim.x * REDUCE_THREADS;
    u64 best = 0;
    for (u64 i = (u64)blockIdx.x * REDUCE_THREADS + threadIdx.x; i < n; i += stride) {
        const Bits r = sortlab::flip_bits(rl[i], flip);
        if (sortlab::flip_bits(lr[i], flip) <= r) continue;
        u64 hi = i;  // LR[hi] > r
        u64 d = 1;
        while (d <= i && sortlab::flip_bits(lr[i - d], flip) > r) {
            hi = i - d;
            d <<= 1;
        }
        u64 lo = d <= i ? i - d + 1 : 0;  // LR[lo - 1] <= r (or lo = 0); answer in [lo, hi]
        while (lo < hi) {
            const u64 mid = lo + (hi - lo) / 2;
            if (sortlab::flip_bits(lr[mid], flip) > r) hi = mid; else lo = mid + 1;
        }
        if (i - lo > best) best = i - lo;
    }
    typedef sortlab::BlockReduce<u64, REDUCE_THREADS> Reduce;
    __shared__ typename Reduce::TempStorage tmp;
    const u64 total = Reduce::reduce(best, sortlab::Max(), tmp);
    if (threadIdx.x == 0 && total) atomicMax((unsigned long long*)result, (unsigned long long)total);
}

