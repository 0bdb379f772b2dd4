//! Compiled modules, their kernels, and checked launches.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex};

use cudarc::driver::sys::CUfunction_attribute as FnAttr;
use cudarc::driver::{CudaFunction, CudaModule};

use super::buffer::DevicePtr;
use super::gpu::Gpu;
use crate::error::{Error, Result};

/// A module compiled for one device: the kernels of one `.cu` file under one set of defines.
pub struct Module {
    gpu: Gpu,
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
    gpu: Gpu,
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
    pub(crate) fn new(gpu: Gpu, file: &'static str, module: Arc<CudaModule>) -> Self {
        Module {
            gpu,
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
                gpu: self.gpu.clone(),
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
            gpu: self.gpu.clone(),
            inner,
        })
    }
}

/// Grid, block, dynamic shared memory and thread-block cluster of a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in x, y, z.
    pub grid: (u32, u32, u32),
    /// Threads per block in x, y, z.
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: u32,
    /// Blocks per thread-block cluster along x (1: no clusters). Clusters need compute
    /// capability 9.0 or later and a grid whose x dimension is a multiple of it; more than 8
    /// (at most 16) is the non-portable cluster size, opted into at launch.
    pub cluster: u32,
}

impl LaunchConfig {
    /// A one-dimensional launch of `blocks` blocks of `threads` threads.
    pub fn linear(blocks: u32, threads: u32) -> Self {
        LaunchConfig {
            grid: (blocks, 1, 1),
            block: (threads, 1, 1),
            shared_bytes: 0,
            cluster: 1,
        }
    }
    /// The same launch with `bytes` of dynamic shared memory.
    pub fn with_shared(mut self, bytes: u32) -> Self {
        self.shared_bytes = bytes;
        self
    }
    /// The same launch in clusters of `blocks` blocks along x (1: no clusters).
    ///
    /// ```
    /// use sortlab_primitives::LaunchConfig;
    /// let cfg = LaunchConfig::linear(64, 1024).with_cluster(8);
    /// assert_eq!((cfg.grid.0, cfg.cluster), (64, 8));
    /// ```
    pub fn with_cluster(mut self, blocks: u32) -> Self {
        self.cluster = blocks;
        self
    }
}

/// The largest thread-block cluster a launch may ask for (the non-portable size of Hopper).
pub const MAX_CLUSTER_BLOCKS: u32 = 16;
/// The largest cluster every cluster-capable device supports.
const PORTABLE_CLUSTER_BLOCKS: u32 = 8;

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
        let info = self.gpu.info();
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
        if cfg.cluster != 1 {
            if cfg.cluster == 0 || cfg.cluster > MAX_CLUSTER_BLOCKS {
                return fail(format!(
                    "clusters of {} blocks (1 to {MAX_CLUSTER_BLOCKS})",
                    cfg.cluster
                ));
            }
            if info.compute_capability < (9, 0) {
                return fail(format!(
                    "clusters need compute capability 9.0, the device has {}.{}",
                    info.compute_capability.0, info.compute_capability.1
                ));
            }
            if gx % cfg.cluster != 0 {
                return fail(format!(
                    "grid x {gx} is not a multiple of the cluster's {} blocks",
                    cfg.cluster
                ));
            }
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
    /// must be valid for all the accesses the kernel makes with these arguments.
    pub unsafe fn launch(&self, cfg: LaunchConfig, args: &KernelArgs) -> Result<()> {
        self.check(&cfg)?;
        self.gpu.bind()?;
        self.prepare(&cfg)?;
        let mut slots = args.slots.clone();
        let mut params: Vec<*mut c_void> = slots
            .iter_mut()
            .map(|s| s as *mut u64 as *mut c_void)
            .collect();
        let failed = |e: String| Error::Driver {
            op: if cfg.cluster > 1 {
                "cuLaunchKernelEx"
            } else {
                "cuLaunchKernel"
            },
            message: format!("`{}`: {e}", self.inner.name),
        };
        if cfg.cluster > 1 {
            let mut attr = cluster_attribute(cfg.cluster);
            let config = self.driver_config(&cfg, &mut attr);
            // SAFETY: as below; `config` and its one attribute live across the call.
            return unsafe {
                cudarc::driver::sys::cuLaunchKernelEx(
                    &config,
                    self.inner.func.cu_function(),
                    params.as_mut_ptr(),
                    std::ptr::null_mut(),
                )
            }
            .result()
            .map_err(|e| failed(e.to_string()));
        }
        // SAFETY: the caller guarantees the arguments match the kernel; each parameter points
        // to an 8-byte slot whose low bytes hold the value (little endian), alive for the call.
        unsafe {
            cudarc::driver::result::launch_kernel(
                self.inner.func.cu_function(),
                cfg.grid,
                cfg.block,
                cfg.shared_bytes,
                self.gpu.cu_stream(),
                &mut params,
            )
        }
        .map_err(|e| failed(e.to_string()))
    }

    /// How many clusters of `cfg.cluster` blocks (with `cfg`'s block and shared memory) can be
    /// resident on the device at once: the grid of a persistent cluster kernel. 0 when one
    /// cluster does not fit.
    pub fn max_active_clusters(&self, cfg: &LaunchConfig) -> Result<u32> {
        self.check(cfg)?;
        self.gpu.bind()?;
        self.prepare(cfg)?;
        let mut attr = cluster_attribute(cfg.cluster);
        let config = self.driver_config(cfg, &mut attr);
        let mut clusters: std::ffi::c_int = 0;
        // SAFETY: `config` and its attribute live across the call; the function is loaded.
        unsafe {
            cudarc::driver::sys::cuOccupancyMaxActiveClusters(
                &mut clusters,
                self.inner.func.cu_function(),
                &config,
            )
        }
        .result()
        .map_err(|e| Error::driver("cuOccupancyMaxActiveClusters", e))?;
        Ok(clusters.max(0) as u32)
    }

    /// Sets the function attributes `cfg` needs: dynamic shared memory above the default, and
    /// the non-portable cluster size.
    fn prepare(&self, cfg: &LaunchConfig) -> Result<()> {
        let dynamic = cfg.shared_bytes as usize;
        let mut set = self
            .inner
            .dynamic_shared_set
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if dynamic + self.inner.static_shared > self.gpu.info().shared_per_block && *set < dynamic {
            self.inner
                .func
                .set_attribute(
                    FnAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    dynamic as i32,
                )
                .map_err(|e| Error::driver("cuFuncSetAttribute", e))?;
            *set = dynamic;
        }
        if cfg.cluster > PORTABLE_CLUSTER_BLOCKS {
            self.inner
                .func
                .set_attribute(
                    FnAttr::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                    1,
                )
                .map_err(|e| Error::driver("cuFuncSetAttribute", e))?;
        }
        Ok(())
    }

    /// The driver's launch configuration of `cfg` on this kernel's stream, with `attr`.
    fn driver_config(
        &self,
        cfg: &LaunchConfig,
        attr: &mut cudarc::driver::sys::CUlaunchAttribute,
    ) -> cudarc::driver::sys::CUlaunchConfig {
        cudarc::driver::sys::CUlaunchConfig {
            gridDimX: cfg.grid.0,
            gridDimY: cfg.grid.1,
            gridDimZ: cfg.grid.2,
            blockDimX: cfg.block.0,
            blockDimY: cfg.block.1,
            blockDimZ: cfg.block.2,
            sharedMemBytes: cfg.shared_bytes,
            hStream: self.gpu.cu_stream(),
            attrs: attr,
            numAttrs: 1,
        }
    }
}

/// The launch attribute of clusters of `blocks` blocks along x.
fn cluster_attribute(blocks: u32) -> cudarc::driver::sys::CUlaunchAttribute {
    use cudarc::driver::sys::{
        CUlaunchAttribute, CUlaunchAttributeID, CUlaunchAttributeValue,
        CUlaunchAttributeValue_union__bindgen_ty_1 as ClusterDim,
    };
    // SAFETY: a plain-data union; every member is valid when zeroed.
    let mut value: CUlaunchAttributeValue = unsafe { std::mem::zeroed() };
    value.clusterDim = ClusterDim {
        x: blocks,
        y: 1,
        z: 1,
    };
    CUlaunchAttribute {
        id: CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
        pad: [0; 4],
        value,
    }
}
