//! The GPU runtime (DESIGN.md §2): device handle, NVRTC compilation with a module cache, typed
//! device buffers and page-locked host buffers, checked kernel launches, event timers, and
//! several GPUs through NCCL (a device group, communicators). cudarc is used here and nowhere
//! else in sortlab.

mod buffer;
pub mod cache;
mod compile;
mod device;
mod gpu;
mod graph;
mod group;
mod module;
mod nccl;
mod pinned;
mod ptr;
mod round_trip;
mod scratch;
mod timer;

pub use buffer::DeviceBuffer;
pub use compile::{
    compile, nvrtc_available, nvrtc_version, Compiled, Defines, KernelSource, Policy,
};
pub use device::DeviceInfo;
pub use gpu::Gpu;
pub use graph::Graph;
pub use group::GpuGroup;
pub use module::{Kernel, KernelArgs, KernelScalar, LaunchConfig, Module};
pub use nccl::{nccl_available, nccl_version, Communicator, NcclElement, NcclUniqueId};
pub use pinned::{PinnedBuffer, PinnedWrites};
pub use ptr::DevicePtr;
pub use round_trip::{on_device, on_device_pairs};
pub use scratch::{Region, Scratch, ScratchLayout, SCRATCH_ALIGN};
pub use timer::{median, GpuTimer};
