//! Compiled modules, their kernels, and checked launches.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex};

use cudarc::driver::sys::CUfunction_attribute as FnAttr;
use cudarc::driver::{CudaFunction, CudaModule};

use super::device::Device;
use super::ptr::DevicePtr;
use crate::error::{Error, Result};

/// A module compiled for one device: the kernels of one `.cu` file under one set of defines.
pub struct Module {
    device: Arc<Device>,
    file: &'static str,
    module: Arc<CudaModule>,
    kernels: Mutex<HashMap<String, Arc<KernelInner>>>,
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module").field("file", &self.file).finish()
    }
}

struct KernelInner {
    func: CudaFunction,
    name: String,
    max_threads: u32,
    static_shared: usize,
    dynamic_shared_set: Mutex<usize>,
}

/// One `extern "C" __global__` function of a [`Module`]. Cheap to clone.
#[derive(Clone)]
pub struct Kernel {
    device: Arc<Device>,
    inner: Arc<KernelInner>,
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kernel")
            .field("name", &self.inner.name)
            .finish()
    }
}

impl Module {
    pub(crate) fn new(device: Arc<Device>, file: &'static str, module: Arc<CudaModule>) -> Self {
        Module {
            device,
            file,
            module,
            kernels: Mutex::new(HashMap::new()),
        }
    }

    /// The kernel named `name` (an `extern "C"` symbol).
    pub fn kernel(&self, name: &str) -> Result<Kernel> {
        let mut map = self.kernels.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(k) = map.get(name) {
            return Ok(Kernel {
                device: self.device.clone(),
                inner: k.clone(),
            });
        }
        let func = self.module.load_function(name).map_err(|e| Error::Driver {
            op: "cuModuleGetFunction",
            message: format!("`{name}` in {}: {e}", self.file),
        })?;
        let get = |a: FnAttr| {
            func.get_attribute(a)
                .map_err(|e| Error::driver("cuFuncGetAttribute", e))
        };
        let inner = Arc::new(KernelInner {
            max_threads: get(FnAttr::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)? as u32,
            static_shared: get(FnAttr::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)? as usize,
            func,
            name: name.to_string(),
            dynamic_shared_set: Mutex::new(0),
        });
        map.insert(name.to_string(), inner.clone());
        Ok(Kernel {
            device: self.device.clone(),
            inner,
        })
    }
}

/// Grid, block and dynamic shared memory of a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in x, y, z.
    pub grid: (u32, u32, u32),
    /// Threads per block in x, y, z.
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: u32,
    /// Programmatic dependent launch ([`LaunchConfig::dependent`]).
    pub dependent: bool,
}

impl LaunchConfig {
    /// A one-dimensional launch of `blocks` blocks of `threads` threads.
    pub fn linear(blocks: u32, threads: u32) -> Self {
        LaunchConfig {
            grid: (blocks, 1, 1),
            block: (threads, 1, 1),
            shared_bytes: 0,
            dependent: false,
        }
    }
    /// The same launch with `bytes` of dynamic shared memory.
    pub fn with_shared(mut self, bytes: u32) -> Self {
        self.shared_bytes = bytes;
        self
    }
    /// The same launch as a programmatic dependent launch (compute capability 9.0 and later,
    /// where [`Gpu::dependent_launch`](crate::Gpu::dependent_launch) is on; elsewhere an
    /// ordinary launch): the kernel may be scheduled while the kernel before it on the stream
    /// is still running, which hides its launch behind that kernel's last blocks (a few
    /// microseconds a launch). The kernel must
    /// call `sortlab::grid_dependency_wait()` (`sortlab/grid/grid_dependency.cuh`) in every
    /// thread before it touches memory that earlier work uses, and before exiting: that is part
    /// of the safety contract of [`Kernel::launch`].
    ///
    /// ```
    /// use sortlab_primitives::LaunchConfig;
    /// let cfg = LaunchConfig::linear(4, 256).dependent();
    /// assert!(cfg.dependent && !LaunchConfig::linear(4, 256).dependent);
    /// ```
    pub fn dependent(mut self) -> Self {
        self.dependent = true;
        self
    }
}

/// Kernel arguments, each an 8-byte slot (pointers and scalars of at most 8 bytes).
///
/// ```
/// use sortlab_primitives::KernelArgs;
/// let mut args = KernelArgs::new();
/// args.push(7u32).push(1u64 << 40).push(0.5f32);
/// assert_eq!(args.len(), 3);
/// ```
#[derive(Clone, Debug, Default)]
pub struct KernelArgs {
    slots: Vec<u64>,
}

/// A scalar that can be passed by value to a kernel.
pub trait KernelScalar: Copy {
    /// The value's bytes in the low bytes of an 8-byte slot.
    fn to_slot(self) -> u64;
}

macro_rules! scalar {
    ($($t:ty => |$v:ident| $e:expr),*) => {
        $( impl KernelScalar for $t { #[inline] fn to_slot(self) -> u64 { let $v = self; $e } } )*
    };
}
scalar!(u32 => |v| v as u64, i32 => |v| v as u32 as u64, u64 => |v| v, i64 => |v| v as u64,
        f32 => |v| v.to_bits() as u64, f64 => |v| v.to_bits(), u8 => |v| v as u64);

impl KernelArgs {
    /// No arguments.
    pub fn new() -> Self {
        KernelArgs::default()
    }
    /// Appends a scalar argument.
    pub fn push<T: KernelScalar>(&mut self, v: T) -> &mut Self {
        self.slots.push(v.to_slot());
        self
    }
    /// Appends a device pointer argument.
    pub fn ptr<T>(&mut self, p: DevicePtr<T>) -> &mut Self {
        self.slots.push(p.addr());
        self
    }
    /// Number of arguments.
    pub fn len(&self) -> usize {
        self.slots.len()
    }
    /// Whether there are no arguments.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
}

impl Kernel {
    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The largest block this kernel can be launched with (register use may lower it below the
    /// device's limit).
    pub fn max_threads_per_block(&self) -> u32 {
        self.inner.max_threads
    }

    /// Checks `cfg` against the device's and this kernel's limits.
    pub fn check(&self, cfg: &LaunchConfig) -> Result<()> {
        let info = &self.device.info;
        let fail = |what: String| {
            Err(Error::LaunchLimit {
                kernel: self.inner.name.clone(),
                what,
            })
        };
        let (bx, by, bz) = cfg.block;
        let (gx, gy, gz) = cfg.grid;
        let threads = bx as u64 * by as u64 * bz as u64;
        if threads == 0 || gx == 0 || gy == 0 || gz == 0 {
            return fail(format!(
                "empty launch: grid {:?}, block {:?}",
                cfg.grid, cfg.block
            ));
        }
        if threads > self.inner.max_threads as u64 {
            return fail(format!(
                "{threads} threads per block, this kernel allows {}",
                self.inner.max_threads
            ));
        }
        if gx > info.max_grid_x || gy > info.max_grid_yz || gz > info.max_grid_yz {
            return fail(format!(
                "grid {:?} exceeds ({}, {}, {})",
                cfg.grid, info.max_grid_x, info.max_grid_yz, info.max_grid_yz
            ));
        }
        let shared = cfg.shared_bytes as usize + self.inner.static_shared;
        if shared > info.shared_per_block_optin {
            return fail(format!(
                "{shared} bytes of shared memory, the device allows {}",
                info.shared_per_block_optin
            ));
        }
        Ok(())
    }

    /// Launches the kernel on its `Gpu`'s stream after checking `cfg` (see [`Kernel::check`]).
    /// Dynamic shared memory above the default 48 KiB is opted into automatically.
    ///
    /// # Safety
    /// `args` must match the kernel's parameter list in number and types, and every pointer
    /// must be valid for all the accesses the kernel makes with these arguments. With
    /// [`LaunchConfig::dependent`], every thread of the kernel must call
    /// `sortlab::grid_dependency_wait()` before touching memory earlier work uses and before
    /// exiting.
    pub unsafe fn launch(&self, cfg: LaunchConfig, args: &KernelArgs) -> Result<()> {
        self.check(&cfg)?;
        self.device.bind()?;
        let dynamic = cfg.shared_bytes as usize;
        if dynamic + self.inner.static_shared > self.device.info.shared_per_block {
            let mut set = self
                .inner
                .dynamic_shared_set
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            if *set < dynamic {
                self.inner
                    .func
                    .set_attribute(
                        FnAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                        dynamic as i32,
                    )
                    .map_err(|e| Error::driver("cuFuncSetAttribute", e))?;
                *set = dynamic;
            }
        }
        let mut slots = args.slots.clone();
        let mut params: Vec<*mut c_void> = slots
            .iter_mut()
            .map(|s| s as *mut u64 as *mut c_void)
            .collect();
        let fail = |op: &'static str, e: cudarc::driver::DriverError| Error::Driver {
            op,
            message: format!("`{}`: {e}", self.inner.name),
        };
        if cfg.dependent && self.device.dependent_launch {
            // SAFETY: as below; the caller guarantees the kernel waits on its predecessor
            // (grid_dependency_wait) before using memory earlier work uses.
            return unsafe { self.launch_dependent(&cfg, &mut params) }
                .map_err(|e| fail("cuLaunchKernelEx", e));
        }
        // SAFETY: the caller guarantees the arguments match the kernel; each parameter points
        // to an 8-byte slot whose low bytes hold the value (little endian), alive for the call.
        unsafe {
            cudarc::driver::result::launch_kernel(
                self.inner.func.cu_function(),
                cfg.grid,
                cfg.block,
                cfg.shared_bytes,
                self.device.cu_stream(),
                &mut params,
            )
        }
        .map_err(|e| fail("cuLaunchKernel", e))
    }

    /// `cuLaunchKernelEx` with the programmatic stream serialization attribute.
    ///
    /// # Safety
    /// As [`Kernel::launch`] with [`LaunchConfig::dependent`]; `params` point to the
    /// arguments.
    unsafe fn launch_dependent(
        &self,
        cfg: &LaunchConfig,
        params: &mut [*mut c_void],
    ) -> std::result::Result<(), cudarc::driver::DriverError> {
        use cudarc::driver::sys;
        // SAFETY: an all-zero launch attribute is a valid (ignored) value of the C union.
        let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
        attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        attr.value.programmaticStreamSerializationAllowed = 1;
        let config = sys::CUlaunchConfig {
            gridDimX: cfg.grid.0,
            gridDimY: cfg.grid.1,
            gridDimZ: cfg.grid.2,
            blockDimX: cfg.block.0,
            blockDimY: cfg.block.1,
            blockDimZ: cfg.block.2,
            sharedMemBytes: cfg.shared_bytes,
            hStream: self.device.cu_stream(),
            attrs: &mut attr,
            numAttrs: 1,
        };
        // SAFETY: `config` and `attr` live for the call; the function belongs to the current
        // context (bound by the caller); the caller guarantees the parameters.
        unsafe {
            sys::cuLaunchKernelEx(
                &config,
                self.inner.func.cu_function(),
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        }
        .result()
    }
}
