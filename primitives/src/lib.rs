//! # sortlab-primitives
//!
//! The foundation of sortlab:
//! - the GPU runtime ([`Gpu`], NVRTC compilation with a module cache, [`DeviceBuffer`],
//!   checked [`Kernel`] launches, [`GpuTimer`], stream capture into a CUDA [`Graph`] with
//!   [`Gpu::capture`]), the only place cudarc is used;
//! - key types ([`SortKey`] for u32, i32, f32, u64, i64, f64 with the order-preserving bit map),
//!   [`Order`] and value types ([`SortValue`]);
//! - the shared device headers ([`kernels::HEADERS`]) split by thread scope like CUB;
//! - the device key map ([`key_map`]);
//! - reductions ([`reduce`]: sum, min, max, min-max) and scans ([`mod@scan`]: inclusive and
//!   exclusive sum, max and min, forward and in reverse), each in its classic variants and a
//!   fast default;
//! - block-level building blocks for the sort crates ([`block`]: tile load/store, radix rank and
//!   sort, bitonic and merge sorts, digit histograms as device headers, and tile sorts over
//!   device buffers).
//!
//! A machine without a CUDA driver or device gets [`Error::NoDevice`] from [`Gpu::new`], never
//! a panic; the CPU engine (`sortlab-cpu-reference`) is then the one to use.
#![deny(missing_docs)]

pub mod block;
mod error;
pub mod kernels;
mod key;
pub mod key_map;
mod names;
pub mod reduce;
pub mod runtime;
pub mod scan;

pub use block::BlockSortAlgo;
pub use error::{Error, Result};
pub use key::{DeviceCopy, KeyBits, KeyType, Order, ParseNameError, SortKey, SortValue};
pub use reduce::{
    reduce_max, reduce_min, reduce_min_max, reduce_sum, ReduceKey, ReduceOp, ReduceVariant,
};
pub use runtime::{
    median, Defines, DeviceBuffer, DeviceInfo, DevicePtr, Gpu, GpuTimer, Graph, Kernel, KernelArgs,
    KernelScalar, KernelSource, LaunchConfig, Module, Policy, Region, Scratch, ScratchLayout,
    SCRATCH_ALIGN,
};
pub use runtime::{Communicator, GpuGroup, NcclUniqueId};
pub use runtime::{PinnedBuffer, PinnedWrites};
pub use scan::{scan, scan_in_place, Direction, ScanKind, ScanOp, ScanVariant};
