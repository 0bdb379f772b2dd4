//! The device under a [`crate::Gpu`]: its context, its stream and what the runtime read of it.
//! Modules and kernels hold this, not the `Gpu`, so the runtime's files import downwards only.

use std::sync::Arc;

use cudarc::driver::sys::CUdevice_attribute as Attr;
use cudarc::driver::{CudaContext, CudaStream};

use crate::error::{Error, Result};

/// What the runtime knows about the device it opened.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceInfo {
    /// Device ordinal.
    pub ordinal: usize,
    /// Marketing name ("NVIDIA H100 80GB HBM3").
    pub name: String,
    /// Compute capability `(major, minor)`.
    pub compute_capability: (u32, u32),
    /// Global memory in bytes.
    pub total_memory: usize,
    /// Number of streaming multiprocessors.
    pub multiprocessors: u32,
    /// Largest block, in threads.
    pub max_threads_per_block: u32,
    /// Largest grid dimension x.
    pub max_grid_x: u32,
    /// Largest grid dimensions y and z.
    pub max_grid_yz: u32,
    /// Shared memory a block may use without opting in, in bytes.
    pub shared_per_block: usize,
    /// Shared memory a block may use after opting in, in bytes.
    pub shared_per_block_optin: usize,
    /// L2 cache size in bytes.
    pub l2_bytes: usize,
    /// Peak memory bandwidth from the memory clock and bus width, in bytes per second (a
    /// datasheet figure; benchmarks measure the copy rate instead).
    pub peak_bandwidth: f64,
}

impl DeviceInfo {
    /// The NVRTC architecture name of the device (`"sm_90"`).
    pub fn arch(&self) -> String {
        format!(
            "sm_{}{}",
            self.compute_capability.0, self.compute_capability.1
        )
    }
}

/// A device's context and stream, shared by a [`crate::Gpu`] and everything it compiled.
pub(crate) struct Device {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) stream: Arc<CudaStream>,
    pub(crate) info: DeviceInfo,
    /// Whether buffers come from the device's stream-ordered memory pool (cuMemAllocAsync).
    pub(crate) async_alloc: bool,
    /// Whether launches asked to be dependent are (see [`crate::Gpu::dependent_launch`]).
    pub(crate) dependent_launch: bool,
}

impl Device {
    /// Makes the context current on the calling thread.
    pub(crate) fn bind(&self) -> Result<()> {
        self.ctx
            .bind_to_thread()
            .map_err(|e| Error::driver("cuCtxSetCurrent", e))
    }

    pub(crate) fn cu_stream(&self) -> cudarc::driver::sys::CUstream {
        self.stream.cu_stream()
    }
}

/// Makes the device's default memory pool keep freed memory for reuse instead of returning it
/// to the driver at every synchronisation, so that temporary buffers cost microseconds rather
/// than a cuMemAlloc/cuMemFree pair each (about 80 us, H200).
/// Returns whether the pool is usable.
pub(crate) fn keep_pool_memory(ctx: &Arc<CudaContext>) -> bool {
    use cudarc::driver::sys;
    if ctx.bind_to_thread().is_err() {
        return false;
    }
    let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
    let mut threshold: u64 = u64::MAX;
    // SAFETY: the context is current; `pool` and `threshold` are valid for the calls.
    unsafe {
        sys::cuDeviceGetDefaultMemPool(&mut pool, ctx.cu_device()) == sys::CUresult::CUDA_SUCCESS
            && sys::cuMemPoolSetAttribute(
                pool,
                sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                &mut threshold as *mut u64 as *mut std::ffi::c_void,
            ) == sys::CUresult::CUDA_SUCCESS
    }
}

pub(crate) fn read_info(ctx: &Arc<CudaContext>, ordinal: usize) -> Result<DeviceInfo> {
    let attr = |a: Attr| -> Result<i64> {
        ctx.attribute(a)
            .map(|v| v as i64)
            .map_err(|e| Error::driver("cuDeviceGetAttribute", e))
    };
    let (major, minor) = ctx
        .compute_capability()
        .map_err(|e| Error::driver("cuDeviceGetAttribute", e))?;
    let mem_clock_khz = attr(Attr::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)? as f64;
    let bus_bits = attr(Attr::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)? as f64;
    Ok(DeviceInfo {
        ordinal,
        name: ctx
            .name()
            .map_err(|e| Error::driver("cuDeviceGetName", e))?,
        compute_capability: (major as u32, minor as u32),
        total_memory: ctx
            .total_mem()
            .map_err(|e| Error::driver("cuDeviceTotalMem", e))?,
        multiprocessors: attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32,
        max_threads_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)? as u32,
        max_grid_x: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)? as u32,
        max_grid_yz: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)? as u32,
        shared_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)? as usize,
        shared_per_block_optin: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?
            as usize,
        l2_bytes: attr(Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as usize,
        // DDR: two transfers per clock.
        peak_bandwidth: 2.0 * mem_clock_khz * 1e3 * bus_bits / 8.0,
    })
}
