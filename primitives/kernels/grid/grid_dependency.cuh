// sortlab/grid/grid_dependency.cuh: programmatic dependent launch (Hopper and later). A kernel
// launched with LaunchConfig::dependent may start while the kernel before it on the stream is still
// running, so that its launch and block scheduling hide behind that kernel's last blocks instead of
// following them. Such a kernel calls grid_dependency_wait() in every thread before it touches
// memory the previous work writes or reads (in practice: first thing), and may then call
// launch_dependents() to let the next dependent kernel start early in turn. Before sm_90 both are
// no-ops, and the host launches normally.
#pragma once

namespace sortlab {

// Blocks until every kernel before this one on the stream has completed and its memory
// operations are visible. Every thread of every block of a dependent launch calls it, before its
// first access to memory shared with earlier work and before exiting (a block that exits without
// waiting would let the grid complete before its predecessor, breaking the order for later
// kernels).
__device__ __forceinline__ void grid_dependency_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Lets the next kernel on the stream (if launched dependent) begin launching once every block of
// this grid has called this or exited. It orders nothing: the next kernel still waits in
// grid_dependency_wait() for this grid's completion.
__device__ __forceinline__ void launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

// Both, in order: the entry of a kernel that is launched dependent and lets its successor start.
__device__ __forceinline__ void dependent_entry() {
    grid_dependency_wait();
    launch_dependents();
}

}  // namespace sortlab
