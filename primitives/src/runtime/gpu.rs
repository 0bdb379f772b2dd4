//! The `Gpu` handle: one device, its context, a stream, and the module cache.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

use cudarc::driver::{CudaContext, CudaModule};
use cudarc::nvrtc::Ptx;

use super::cache;
use super::compile::{self, Defines, KernelSource};
use super::device::{keep_pool_memory, read_info, Device, DeviceInfo};
use super::module::Module;
use crate::error::{Error, Result};

/// Memory-cache key: source address and length, and the defines.
type ModuleKey = (usize, usize, Defines);

/// The modules loaded into the context, shared by a `Gpu` and its forks
/// ([`Gpu::fork_stream`]): a module is a context-level object, so a fork wraps the loaded one
/// for its own stream instead of loading (or compiling) it again.
type LoadedModules = Arc<Mutex<HashMap<ModuleKey, Arc<CudaModule>>>>;

/// The caller-keyed cache of [`Gpu::module_keyed`]: source address and length, the key's type
/// and hash, then every key of that hash with its module.
type KeyedModules =
    HashMap<(usize, usize, TypeId, u64), Vec<(Box<dyn Any + Send + Sync>, Arc<Module>)>>;

pub(crate) struct GpuInner {
    pub(crate) device: Arc<Device>,
    nvrtc: Mutex<Option<(u32, u32)>>,
    modules: Mutex<HashMap<ModuleKey, Arc<Module>>>,
    keyed: Mutex<KeyedModules>,
    loaded: LoadedModules,
    disk_cache: Option<std::path::PathBuf>,
}

/// A CUDA device, its context, its stream and its module cache. Cheap to clone; `Send + Sync`.
///
/// All work a `Gpu` launches goes to its one stream, in order. Host-visible results (downloads)
/// synchronise that stream.
///
/// # Example
/// ```no_run
/// use sortlab_primitives::{DeviceBuffer, Gpu};
/// let gpu = Gpu::new(0)?;
/// let buf = DeviceBuffer::from_host(&gpu, &[3u32, 1, 2])?;
/// assert_eq!(buf.to_host()?, vec![3, 1, 2]);
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
#[derive(Clone)]
pub struct Gpu {
    pub(crate) inner: Arc<GpuInner>,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu")
            .field("info", &self.inner.device.info)
            .finish()
    }
}

fn driver_present() -> bool {
    // SAFETY: only tries to dlopen libcuda's candidate names; no symbol is called.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

impl Gpu {
    /// Number of CUDA devices; `Err(Error::NoDevice)` when there is no driver.
    pub fn device_count() -> Result<usize> {
        if !driver_present() {
            return Err(Error::NoDevice {
                reason: "the CUDA driver library (libcuda) is not installed".into(),
            });
        }
        CudaContext::device_count()
            .map(|n| n.max(0) as usize)
            .map_err(|e| Error::NoDevice {
                reason: format!("the CUDA driver found no usable device ({e})"),
            })
    }

    /// Opens device `ordinal`.
    ///
    /// Returns [`Error::NoDevice`] when there is no driver, no device, or no device with that
    /// ordinal: a machine without a GPU gets an error to match on, never a panic.
    pub fn new(ordinal: usize) -> Result<Gpu> {
        let count = Gpu::device_count()?;
        if count == 0 {
            return Err(Error::NoDevice {
                reason: "the CUDA driver reports no device".into(),
            });
        }
        if ordinal >= count {
            return Err(Error::NoDevice {
                reason: format!("device {ordinal} requested, {count} present"),
            });
        }
        let ctx = CudaContext::new(ordinal).map_err(|e| Error::NoDevice {
            reason: format!("device {ordinal} could not be opened ({e})"),
        })?;
        // One stream per Gpu: ordering is the stream's, so cudarc's cross-stream event
        // tracking is pure overhead.
        // SAFETY: no CudaSlice of this context exists yet.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx
            .new_stream()
            .map_err(|e| Error::driver("cuStreamCreate", e))?;
        let info = read_info(&ctx, ordinal)?;
        let dependent_launch = info.compute_capability.0 >= 9
            && std::env::var_os("SORTLAB_DEPENDENT_LAUNCH").is_none_or(|v| v != "0");
        let async_alloc = ctx.has_async_alloc() && keep_pool_memory(&ctx);
        Ok(Gpu {
            inner: Arc::new(GpuInner {
                device: Arc::new(Device {
                    ctx,
                    stream,
                    info,
                    async_alloc,
                    dependent_launch,
                }),
                nvrtc: Mutex::new(None),
                modules: Mutex::new(HashMap::new()),
                keyed: Mutex::new(HashMap::new()),
                loaded: Arc::new(Mutex::new(HashMap::new())),
                disk_cache: cache::disk_cache_dir(),
            }),
        })
    }

    /// The device's properties.
    pub fn info(&self) -> &DeviceInfo {
        &self.inner.device.info
    }

    /// `blocks` clamped to the device's grid limit in x, and at least 1: the grid of a kernel
    /// that loops (grid-stride) when it gets fewer blocks than it has tiles.
    pub fn grid_blocks(&self, blocks: usize) -> u32 {
        blocks.clamp(1, self.inner.device.info.max_grid_x as usize) as u32
    }

    /// The grid of a grid-stride launch over `items` items with `threads` threads a block: one
    /// block per `threads` items, at most `per_sm` blocks per multiprocessor, within the grid
    /// limit, and at least 1.
    pub fn grid_stride_blocks(&self, items: usize, threads: u32, per_sm: u32) -> u32 {
        let resident = self.inner.device.info.multiprocessors as usize * per_sm as usize;
        self.grid_blocks(items.div_ceil(threads.max(1) as usize).min(resident.max(1)))
    }

    /// Exactly `blocks` blocks, for a kernel that needs one block per tile.
    ///
    /// # Errors
    /// [`Error::Unsupported`] (naming `what`) if `blocks` is 0 or past the device's grid limit.
    pub fn exact_grid(&self, blocks: usize, what: &str) -> Result<u32> {
        let max = self.inner.device.info.max_grid_x as usize;
        if blocks == 0 || blocks > max {
            return Err(Error::Unsupported(format!(
                "{what} needs {blocks} blocks; the device allows 1 to {max}"
            )));
        }
        Ok(blocks as u32)
    }

    /// Whether launches marked [`crate::LaunchConfig::dependent`] go out as programmatic
    /// dependent launches: on devices of compute capability 9.0 and later, unless the
    /// environment variable `SORTLAB_DEPENDENT_LAUNCH` was `0` when the `Gpu` was created (to
    /// measure what they save, or to rule them out).
    pub fn dependent_launch(&self) -> bool {
        self.inner.device.dependent_launch
    }

    /// Free and total device memory in bytes.
    pub fn memory_info(&self) -> Result<(usize, usize)> {
        self.bind()?;
        cudarc::driver::result::mem_get_info().map_err(|e| Error::driver("cuMemGetInfo", e))
    }

    /// Makes the device's memory pool, where [`crate::DeviceBuffer`]s come from, hold at least
    /// `bytes` of room beyond what its live buffers use, and returns the room it then has (0
    /// where buffers do not come from a pool: a device or driver without stream-ordered
    /// allocation, where this does nothing).
    ///
    /// The pool keeps freed memory for later buffers, but a buffer that finds no room in it
    /// makes the driver map new device memory, in the host's part of the call that asks for the
    /// buffer (about a millisecond per GiB on an H100: `primitives/README.md`). Calls whose
    /// scratch buffers outgrow the pool (a sort of 2^28 key-value pairs takes 2 GiB of scratch
    /// each call) pay that in their first few calls, until the pool has grown to what they use.
    /// Reserve once, before timed or latency-critical work, what the calls' scratch buffers and
    /// the buffers still to be allocated will take.
    ///
    /// Returns [`Error::OutOfMemory`] when the device cannot hold `bytes` more; the pool then
    /// keeps what it had.
    ///
    /// ```no_run
    /// # use sortlab_primitives::Gpu;
    /// let gpu = Gpu::new(0)?;
    /// // Before timing sorts of 2^28 u32/u32 pairs in place: room for their 2 GiB of scratch.
    /// let room = gpu.reserve_pool(2 << 30)?;
    /// println!("the pool has {} MiB free", room >> 20);
    /// # Ok::<(), sortlab_primitives::Error>(())
    /// ```
    pub fn reserve_pool(&self, bytes: usize) -> Result<usize> {
        let room = |(held, used): (usize, usize)| held.saturating_sub(used);
        if !self.inner.device.async_alloc {
            return Ok(0);
        }
        if room(self.pool_memory()?) < bytes {
            // One buffer of `bytes`, freed at once: the pool keeps its memory (the release
            // threshold set at creation) and serves later buffers from it.
            drop(crate::DeviceBuffer::<u8>::alloc(self, bytes)?);
            self.synchronize()?;
        }
        Ok(room(self.pool_memory()?))
    }

    /// The memory pool that [`crate::DeviceBuffer`]s come from: the bytes of device memory it
    /// holds and the bytes of those its live buffers use (`(0, 0)` where they do not come from
    /// a pool); see [`Gpu::reserve_pool`].
    pub fn pool_memory(&self) -> Result<(usize, usize)> {
        use cudarc::driver::sys;
        if !self.inner.device.async_alloc {
            return Ok((0, 0));
        }
        self.bind()?;
        let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
        let mut held: u64 = 0;
        let mut used: u64 = 0;
        // SAFETY: the context is current; `pool`, `held` and `used` are valid for the calls,
        // and both attributes are cuuint64_t.
        let r = unsafe {
            let mut r =
                sys::cuDeviceGetDefaultMemPool(&mut pool, self.inner.device.ctx.cu_device());
            let get = |attr, out: &mut u64| {
                sys::cuMemPoolGetAttribute(pool, attr, out as *mut u64 as *mut std::ffi::c_void)
            };
            if r == sys::CUresult::CUDA_SUCCESS {
                r = get(
                    sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT,
                    &mut held,
                );
            }
            if r == sys::CUresult::CUDA_SUCCESS {
                r = get(
                    sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_USED_MEM_CURRENT,
                    &mut used,
                );
            }
            r
        };
        if r != sys::CUresult::CUDA_SUCCESS {
            return Err(Error::driver(
                "cuMemPoolGetAttribute",
                cudarc::driver::DriverError(r),
            ));
        }
        Ok((held as usize, used as usize))
    }

    /// Waits for all work queued on this `Gpu`'s stream.
    pub fn synchronize(&self) -> Result<()> {
        self.inner
            .device
            .stream
            .synchronize()
            .map_err(|e| Error::driver("cuStreamSynchronize", e))
    }

    /// A `Gpu` on the same device and context with a stream of its own, so that work queued on
    /// the two (copies on one, kernels on the other, for example) may run at the same time.
    ///
    /// # Overview
    /// Everything a `Gpu` queues (kernels, copies, allocations and frees of
    /// [`crate::DeviceBuffer`]s) goes to its one stream, in order; two `Gpu`s from
    /// `fork_stream` are two streams, with no order between them. The fork shares the device's
    /// context, so device memory of either is valid for both, and it shares the modules loaded
    /// into the context: a kernel the original (or any fork of it) has compiled and loaded is
    /// wrapped for the fork's stream, never compiled or loaded again. The fork's own caches
    /// ([`Gpu::module`], [`Gpu::module_keyed`]) start empty and fill from that shared set.
    ///
    /// Ordering between the streams is the caller's to keep: a buffer written on one stream
    /// and read on another must be synchronised in between ([`Gpu::synchronize`] on the
    /// writer, or copies through a [`crate::runtime::PinnedBuffer`], whose copies wait for
    /// each other across streams). A [`crate::DeviceBuffer`] is allocated and freed on the
    /// stream of the `Gpu` it was allocated with; use it on that stream.
    ///
    /// # Errors
    /// [`Error::Driver`] when the driver cannot create a stream.
    ///
    /// # Performance
    /// Creating a stream costs a few microseconds; it is destroyed when the last clone of the
    /// fork (and the last buffer or module of it) is dropped.
    ///
    /// # Example
    /// ```no_run
    /// use sortlab_primitives::{DeviceBuffer, Gpu};
    /// let gpu = Gpu::new(0)?;
    /// let side = gpu.fork_stream()?;
    /// // Two independent uploads, one on each stream.
    /// let a = DeviceBuffer::from_host(&gpu, &[1u32, 2, 3])?;
    /// let b = DeviceBuffer::from_host(&side, &[4u32, 5])?;
    /// side.synchronize()?;
    /// assert_eq!((a.to_host()?, b.to_host()?), (vec![1, 2, 3], vec![4, 5]));
    /// # Ok::<(), sortlab_primitives::Error>(())
    /// ```
    pub fn fork_stream(&self) -> Result<Gpu> {
        let device = &self.inner.device;
        device.bind()?;
        let stream = device
            .ctx
            .new_stream()
            .map_err(|e| Error::driver("cuStreamCreate", e))?;
        let nvrtc = *self.inner.nvrtc.lock().unwrap_or_else(|p| p.into_inner());
        Ok(Gpu {
            inner: Arc::new(GpuInner {
                device: Arc::new(Device {
                    ctx: device.ctx.clone(),
                    stream,
                    info: device.info.clone(),
                    async_alloc: device.async_alloc,
                    dependent_launch: device.dependent_launch,
                }),
                nvrtc: Mutex::new(nvrtc),
                modules: Mutex::new(HashMap::new()),
                keyed: Mutex::new(HashMap::new()),
                loaded: self.inner.loaded.clone(),
                disk_cache: self.inner.disk_cache.clone(),
            }),
        })
    }

    /// Whether `self` and `other` queue work on the same stream (clones of one `Gpu`), as
    /// opposed to forks ([`Gpu::fork_stream`]) or different devices.
    pub fn same_stream(&self, other: &Gpu) -> bool {
        Arc::ptr_eq(&self.inner.device, &other.inner.device)
    }

    /// The NVRTC version `(major, minor)`.
    pub fn nvrtc_version(&self) -> Result<(u32, u32)> {
        let mut slot = self.inner.nvrtc.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(v) = *slot {
            return Ok(v);
        }
        let v = compile::nvrtc_version()?;
        *slot = Some(v);
        Ok(v)
    }

    /// The module compiled from `src` with `defines` for this device, from the memory cache,
    /// else the disk cache, else NVRTC.
    ///
    /// A repeated request costs one hash of the defines: sources are `&'static str`, so the
    /// memory cache is keyed by the source's address, and the content hash (which the disk
    /// cache needs) is computed only on the first request.
    pub fn module(&self, src: &KernelSource, defines: &Defines) -> Result<Arc<Module>> {
        let fast_key = (src.code.as_ptr() as usize, src.code.len(), defines.clone());
        if let Some(m) = self.lock_modules().get(&fast_key) {
            return Ok(m.clone());
        }
        let shared = self.lock_loaded().get(&fast_key).cloned();
        let loaded = match shared {
            Some(m) => m,
            None => {
                let arch = self.inner.device.info.arch();
                let key = cache::module_key(src, defines, &arch, self.nvrtc_version()?);
                let m = self.load_or_compile(src, defines, &arch, key)?;
                self.lock_loaded().insert(fast_key.clone(), m.clone());
                m
            }
        };
        let module = Arc::new(Module::new(self.inner.device.clone(), src.name, loaded));
        self.lock_modules().insert(fast_key, module.clone());
        Ok(module)
    }

    /// [`Gpu::module`] looked up by a key of the caller's instead of the defines: `defines` is
    /// called only the first time a (source, key) pair is seen. For launch paths where building
    /// and hashing the defines would cost more than the work queued (a few microseconds on
    /// every call); `key` must determine the defines.
    ///
    /// # Example
    /// ```no_run
    /// use sortlab_primitives::{Defines, Gpu, KernelSource};
    /// static SRC: KernelSource = KernelSource::new(
    ///     "double_it.cu",
    ///     r#"extern "C" __global__ void double_it(unsigned* x) { x[threadIdx.x] *= SCALE; }"#,
    /// );
    /// let gpu = Gpu::new(0)?;
    /// let scale = 2u32;
    /// let m = gpu.module_keyed(&SRC, scale, || Defines::new().set("SCALE", scale))?;
    /// assert!(std::sync::Arc::ptr_eq(&m, &gpu.module_keyed(&SRC, scale, || unreachable!())?));
    /// # Ok::<(), sortlab_primitives::Error>(())
    /// ```
    pub fn module_keyed<Q: Hash + Eq + Send + Sync + 'static>(
        &self,
        src: &KernelSource,
        key: Q,
        defines: impl FnOnce() -> Defines,
    ) -> Result<Arc<Module>> {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        key.hash(&mut h);
        let slot = (
            src.code.as_ptr() as usize,
            src.code.len(),
            TypeId::of::<Q>(),
            h.finish(),
        );
        let lock = || self.inner.keyed.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(list) = lock().get(&slot) {
            if let Some((_, m)) = list
                .iter()
                .find(|(k, _)| k.downcast_ref::<Q>() == Some(&key))
            {
                return Ok(m.clone());
            }
        }
        let module = self.module(src, &defines())?;
        lock()
            .entry(slot)
            .or_default()
            .push((Box::new(key), module.clone()));
        Ok(module)
    }

    fn lock_loaded(&self) -> std::sync::MutexGuard<'_, HashMap<ModuleKey, Arc<CudaModule>>> {
        self.inner.loaded.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_modules(&self) -> std::sync::MutexGuard<'_, HashMap<ModuleKey, Arc<Module>>> {
        self.inner.modules.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn load_or_compile(
        &self,
        src: &KernelSource,
        defines: &Defines,
        arch: &str,
        key: u64,
    ) -> Result<Arc<CudaModule>> {
        if let Some(dir) = &self.inner.disk_cache {
            if let Some(cubin) = cache::load(dir, src, key) {
                // A stale or corrupt file is recompiled below, never trusted.
                if let Ok(m) = self.load_cubin(cubin) {
                    return Ok(m);
                }
            }
        }
        let compiled = compile::compile(src, defines, arch)?;
        if let Some(dir) = &self.inner.disk_cache {
            cache::store(dir, src, key, &compiled.cubin);
        }
        self.load_cubin(compiled.cubin)
    }

    fn load_cubin(&self, cubin: Vec<u8>) -> Result<Arc<CudaModule>> {
        self.inner
            .device
            .ctx
            .load_module(Ptx::from_binary(cubin))
            .map_err(|e| Error::driver("cuModuleLoadData", e))
    }

    /// Makes this device's context current on the calling thread.
    pub(crate) fn bind(&self) -> Result<()> {
        self.inner.device.bind()
    }

    pub(crate) fn cu_stream(&self) -> cudarc::driver::sys::CUstream {
        self.inner.device.cu_stream()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_device_is_an_error_not_a_panic() {
        // On a machine without a GPU this must be NoDevice; with one, it must succeed.
        match Gpu::new(0) {
            Ok(gpu) => assert!(!gpu.info().name.is_empty()),
            Err(e) => assert!(matches!(e, Error::NoDevice { .. }), "{e}"),
        }
        match Gpu::new(10_000) {
            Err(Error::NoDevice { .. }) => {}
            other => panic!("expected NoDevice, got {other:?}"),
        }
    }

    static FORK_KERNEL: KernelSource = KernelSource::new(
        "fork_test.cu",
        r#"extern "C" __global__ void add_to(unsigned* x, unsigned long long n, unsigned v) {
            unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
            if (i < n) x[i] += v + OFFSET;
        }"#,
    );

    /// A fork runs kernels on its own stream with the module the original loaded (nothing
    /// compiled or loaded again), and its work is ordered with its own copies.
    #[test]
    #[ignore = "needs a CUDA device"]
    fn fork_shares_modules_and_has_its_own_stream() {
        use crate::{DeviceBuffer, KernelArgs, LaunchConfig};
        let gpu = Gpu::new(0).unwrap();
        let defines = Defines::new().set("OFFSET", 1);
        let m = gpu.module(&FORK_KERNEL, &defines).unwrap();
        let loaded = gpu.lock_loaded().len();
        let fork = gpu.fork_stream().unwrap();
        assert!(!fork.same_stream(&gpu) && gpu.same_stream(&gpu.clone()));
        assert_ne!(fork.cu_stream(), gpu.cu_stream());
        let fm = fork.module(&FORK_KERNEL, &defines).unwrap();
        assert!(
            !Arc::ptr_eq(&m, &fm),
            "the fork's module wraps its own stream"
        );
        assert_eq!(fork.lock_loaded().len(), loaded, "nothing loaded again");
        assert!(Arc::ptr_eq(&fork.inner.loaded, &gpu.inner.loaded));
        let n = 1usize << 20;
        let run = |g: &Gpu, module: &Module, v: u32| {
            let mut buf = DeviceBuffer::<u32>::zeroed(g, n).unwrap();
            let mut args = KernelArgs::new();
            args.ptr(buf.ptr()).push(n as u64).push(v);
            let k = module.kernel("add_to").unwrap();
            // SAFETY: add_to(u32*, u64, u32) touches x[0..n), which `buf` holds.
            unsafe { k.launch(LaunchConfig::linear(n.div_ceil(256) as u32, 256), &args) }.unwrap();
            let out = buf.to_host().unwrap();
            buf.fill_bytes(0).unwrap();
            out
        };
        assert!(run(&fork, &fm, 5).iter().all(|&x| x == 6));
        assert!(run(&gpu, &m, 2).iter().all(|&x| x == 3));
        // A fork of a fork shares the same set.
        let fork2 = fork.fork_stream().unwrap();
        let m2 = fork2.module(&FORK_KERNEL, &defines).unwrap();
        assert!(run(&fork2, &m2, 7).iter().all(|&x| x == 8));
        assert_eq!(gpu.lock_loaded().len(), loaded);
    }
}
