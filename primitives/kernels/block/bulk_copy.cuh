// sortlab/block/bulk_copy.cuh: whole tiles between global and shared memory by the tensor memory
// accelerator (cp.async.bulk, sm_90+): one thread issues the copy, no registers hold the data, and
// the block goes on while it is in flight. SORTLAB_BULK_COPY is 1 where the hardware has it (and
// the includer did not define it 0), else 0 and none of this is declared.
//
// Protocol of a tile buffer `buf` with barrier `bar` (a __shared__ u64):
//   once:      thread 0 bulk_barrier_init(&bar); then __syncthreads()
//   load:      thread 0 bulk_load(buf, src, bytes, &bar) after every generic access of buf
//              (a __syncthreads() between); every thread bulk_wait(&bar, parity), parity ^= 1
//   store:     generic writes of buf, __syncthreads(), thread 0 bulk_store(dst, buf, bytes);
//              before any later write of buf, thread 0 bulk_store_reads_done() then
//              __syncthreads(); before the block exits, thread 0 bulk_store_drain()
// Addresses: `src` / `dst` 16-byte aligned, `bytes` a multiple of 16, `buf` 16-byte aligned.
#pragma once
#include "sortlab/thread/types.cuh"

#ifndef SORTLAB_BULK_COPY
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define SORTLAB_BULK_COPY 1
#else
#define SORTLAB_BULK_COPY 0
#endif
#endif

#if SORTLAB_BULK_COPY
namespace sortlab {

// Thread 0, once: the barrier that bulk loads complete on (one arrival a phase).
__device__ __forceinline__ void bulk_barrier_init(u64* bar) {
    const u32 b = (u32)__cvta_generic_to_shared(bar);
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(b) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// Thread 0: copies `bytes` from global `src` into shared `dst`, completing the barrier's phase.
__device__ __forceinline__ void bulk_load(void* dst, const void* src, u32 bytes, u64* bar) {
    const u32 d = (u32)__cvta_generic_to_shared(dst);
    const u32 b = (u32)__cvta_generic_to_shared(bar);
    // Generic accesses of dst before (ordered by the caller's barrier) come before the copy.
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(b), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(d),
                 "l"(src), "r"(bytes), "r"(b)
                 : "memory");
}

// Every thread: waits until the barrier's phase `parity` (0, 1, 0, ... one a load) completes;
// the loaded bytes are then visible to the thread.
__device__ __forceinline__ void bulk_wait(u64* bar, u32 parity) {
    const u32 b = (u32)__cvta_generic_to_shared(bar);
    u32 done;
    do {
        asm volatile(
            "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
            : "=r"(done)
            : "r"(b), "r"(parity)
            : "memory");
    } while (!done);
}

// Thread 0: copies `bytes` from shared `src` to global `dst` (after the generic writes of src,
// ordered by the caller's barrier).
__device__ __forceinline__ void bulk_store(void* dst, const void* src, u32 bytes) {
    const u32 s = (u32)__cvta_generic_to_shared(src);
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n" ::"l"(dst), "r"(s), "r"(bytes)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

// Thread 0: waits until every bulk store it issued has read its shared memory.
__device__ __forceinline__ void bulk_store_reads_done() {
    asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}

// Thread 0: waits until every bulk store it issued is complete (before the block exits).
__device__ __forceinline__ void bulk_store_drain() { asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory"); }

}  // namespace sortlab
#endif
