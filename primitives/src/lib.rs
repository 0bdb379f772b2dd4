//! # sortlab-primitives
//!
//! The foundation of sortlab:
//! - the GPU runtime ([`Gpu`], NVRTC compilation with a module cache, [`DeviceBuffer`],
//!   checked [`Kernel`] launches, [`GpuTimer`]), the only place cudarc is used;
//! - key types ([`SortKey`] for u32, i32, f32, u64, i64, f64 with the order-preserving bit map),
//!   [`Order`] and value types ([`SortValue`]);
//! - the shared device headers ([`kernels::HEADERS`]) split by thread scope like CUB;
//! - the device key map ([`key_map`]); reduce and scan follow (see the primitives issue).
//!
//! A machine without a CUDA driver or device gets [`Error::NoDevice`] from [`Gpu::new`], never
//! a panic; the CPU engine (`sortlab-cpu-reference`) is then the one to use.
#![deny(missing_docs)]

mod error;
pub mod kernels;
mod key;
pub mod key_map;
pub mod runtime;

pub use error::{Error, Result};
pub use key::{DeviceCopy, KeyBits, KeyType, Order, ParseNameError, SortKey, SortValue};
pub use runtime::{
    Defines, DeviceBuffer, DeviceInfo, DevicePtr, Gpu, GpuTimer, Kernel, KernelArgs, KernelScalar,
    KernelSource, LaunchConfig, Module, Policy,
};
