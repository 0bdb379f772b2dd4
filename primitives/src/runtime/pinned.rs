//! Page-locked ("pinned") host memory: the staging buffers of asynchronous copies between the
//! host and the device.

use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::Arc;

use cudarc::driver::result as cu;
use cudarc::driver::sys::cudaError_enum as CuErr;
use cudarc::driver::{CudaContext, CudaEvent, CudaStream};

use super::gpu::Gpu;
use crate::error::{Error, Result};
use crate::key::DeviceCopy;

/// A buffer of `len` elements of page-locked host memory, the source and destination of
/// asynchronous copies ([`crate::DeviceBuffer::copy_from_pinned_async`],
/// [`crate::DeviceBuffer::copy_to_pinned_async`]).
///
/// # Overview
/// The driver can copy page-locked memory by DMA while the host goes on, so copies from and to
/// it are asynchronous and run at the link's full rate; copies from ordinary (pageable) memory
/// go through a driver staging buffer at a fraction of it and hold the host thread. The
/// buffer is allocated with `cuMemHostAlloc` (plain page-locked memory, not write-combined,
/// so host reads of it are as fast as of ordinary memory) in the context of the [`Gpu`] it is
/// allocated with, and freed on drop.
///
/// Every asynchronous copy that touches the buffer records an event on its stream after the
/// copy, and waits (on the device, not the host) for the copy before it, so that copies on
/// different streams ([`Gpu::fork_stream`]) never overlap on one buffer. The host's views
/// ([`PinnedBuffer::as_slice`], [`PinnedBuffer::as_mut_slice`]) first wait for the last of
/// them: a view never sees a copy in flight, which makes them safe.
///
/// # Errors
/// [`Error::HostOutOfMemory`] when the host cannot page-lock `len` elements (page-locked
/// memory is limited by the host's memory and `ulimit -l`); [`Error::InvalidArgument`] for a
/// size that overflows; [`Error::Driver`] when a wait for a copy reports a failed copy.
///
/// # Performance
/// Page-locking memory costs far more than allocating it (about a second for tens of GiB on
/// current hosts): allocate staging buffers once and reuse them.
///
/// # Example
/// ```no_run
/// use sortlab_primitives::runtime::PinnedBuffer;
/// use sortlab_primitives::{DeviceBuffer, Gpu};
/// let gpu = Gpu::new(0)?;
/// let mut staging = PinnedBuffer::<u32>::alloc(&gpu, 4)?;
/// staging.as_mut_slice()?.copy_from_slice(&[4, 3, 2, 1]);
/// let mut dev = DeviceBuffer::<u32>::alloc(&gpu, 4)?;
/// dev.copy_from_pinned_async(0, &staging, ..)?; // queued; the host goes on
/// dev.copy_to_pinned_async(1..3, &mut staging, 0)?;
/// assert_eq!(staging.as_slice()?, &[3, 2, 2, 1]); // waits for both copies
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
pub struct PinnedBuffer<T: DeviceCopy> {
    ctx: Arc<CudaContext>,
    ptr: NonNull<T>,
    len: usize,
    /// Recorded after the last asynchronous copy that touched the buffer.
    event: CudaEvent,
    _t: PhantomData<T>,
}

// SAFETY: the buffer owns its memory like a Box<[T]>; the host reaches it only through `&self`
// and `&mut self` views that wait for the device's copies first, and the event is thread-safe.
unsafe impl<T: DeviceCopy> Send for PinnedBuffer<T> {}
// SAFETY: as above; shared views are read-only.
unsafe impl<T: DeviceCopy> Sync for PinnedBuffer<T> {}

impl<T: DeviceCopy> std::fmt::Debug for PinnedBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PinnedBuffer")
            .field("len", &self.len)
            .field("type", &std::any::type_name::<T>())
            .finish()
    }
}

impl<T: DeviceCopy> PinnedBuffer<T> {
    /// Allocates `len` elements of page-locked host memory in `gpu`'s context, with
    /// unspecified (but valid, since `T: DeviceCopy`) contents, as [`crate::DeviceBuffer::alloc`]:
    /// the driver's pages as it hands them out (zero-filled by the operating system when
    /// fresh). Write what you read first.
    ///
    /// See the [type documentation](PinnedBuffer) for errors and costs.
    pub fn alloc(gpu: &Gpu, len: usize) -> Result<Self> {
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .filter(|&b| b <= isize::MAX as usize)
            .ok_or_else(|| {
                Error::InvalidArgument(format!("{len} pinned elements overflow usize bytes"))
            })?;
        let ctx = gpu.inner.device.ctx.clone();
        gpu.bind()?;
        let event = ctx
            .new_event(None)
            .map_err(|e| Error::driver("cuEventCreate", e))?;
        let ptr = if bytes == 0 {
            NonNull::dangling()
        } else {
            // SAFETY: the context is current; the memory is freed exactly once, in Drop.
            let raw = match unsafe { cu::malloc_host(bytes, 0) } {
                Ok(p) => p,
                Err(e) if e.0 == CuErr::CUDA_ERROR_OUT_OF_MEMORY => {
                    return Err(Error::HostOutOfMemory { requested: bytes });
                }
                Err(e) => return Err(Error::driver("cuMemHostAlloc", e)),
            };
            let Some(p) = NonNull::new(raw as *mut T) else {
                return Err(Error::Driver {
                    op: "cuMemHostAlloc",
                    message: "returned a null pointer".into(),
                });
            };
            p
        };
        Ok(PinnedBuffer {
            ctx,
            ptr,
            len,
            event,
            _t: PhantomData,
        })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Waits (on the host) until every asynchronous copy queued so far that touches the buffer
    /// has finished.
    pub fn wait(&self) -> Result<()> {
        self.ctx
            .bind_to_thread()
            .map_err(|e| Error::driver("cuCtxSetCurrent", e))?;
        self.event
            .synchronize()
            .map_err(|e| Error::driver("cuEventSynchronize", e))
    }

    /// Whether every asynchronous copy queued so far that touches the buffer has finished
    /// (without waiting).
    pub fn is_idle(&self) -> bool {
        self.event.is_complete()
    }

    /// The elements, after waiting for every copy in flight that touches the buffer.
    pub fn as_slice(&self) -> Result<&[T]> {
        self.wait()?;
        // SAFETY: `ptr` holds `len` elements of memory the driver page-locked (written outside
        // Rust, so initialised bytes, and any bytes are a valid `T: DeviceCopy`), written since
        // only by the host and by copies of valid `T`s; and no copy is in flight: the last one has finished
        // and a new one needs `&mut self` (writes into it) or is a read (copies from it).
        Ok(unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) })
    }

    /// The elements, writable, after waiting for every copy in flight that touches the buffer.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.wait()?;
        // SAFETY: as in `as_slice`; `&mut self` excludes every other view and new copies for
        // the lifetime of the slice.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) })
    }

    /// Checks that `gpu` is in this buffer's context.
    pub(crate) fn check_context(&self, gpu: &Gpu) -> Result<()> {
        if *self.ctx != *gpu.inner.device.ctx {
            return Err(Error::InvalidArgument(
                "a pinned buffer used with a device other than its own".into(),
            ));
        }
        Ok(())
    }

    /// The address of element `offset` (at most `len`).
    pub(crate) fn host_ptr(&self, offset: usize) -> *mut T {
        debug_assert!(offset <= self.len);
        // SAFETY: `offset <= len`, inside (or one past) the allocation.
        unsafe { self.ptr.as_ptr().add(offset) }
    }

    /// Makes `stream` wait for the last copy that touched this buffer (queued on any stream):
    /// called before a new copy is queued on `stream`.
    pub(crate) fn order_before(&self, stream: &CudaStream) -> Result<()> {
        stream
            .wait(&self.event)
            .map_err(|e| Error::driver("cuStreamWaitEvent", e))
    }

    /// Records on `stream` the copy just queued there: views wait for it.
    pub(crate) fn record(&self, stream: &CudaStream) -> Result<()> {
        self.event
            .record(stream)
            .map_err(|e| Error::driver("cuEventRecord", e))
    }
}

impl<T: DeviceCopy> Drop for PinnedBuffer<T> {
    fn drop(&mut self) {
        // A copy still in flight reads or writes the memory: wait for it before freeing. On a
        // failed wait the memory is leaked rather than freed under a copy.
        if self.len == 0 || std::mem::size_of::<T>() == 0 {
            return;
        }
        if self.wait().is_err() {
            return;
        }
        // SAFETY: the pointer came from cuMemHostAlloc and is freed exactly once, after every
        // copy that touches it has finished.
        let _ = unsafe { cu::free_host(self.ptr.as_ptr() as *mut std::ffi::c_void) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DeviceBuffer;

    /// Copies in both directions at offsets, views that wait for them, bounds errors, and
    /// copies of one pinned buffer queued on two streams.
    #[test]
    #[ignore = "needs a CUDA device"]
    fn pinned_copies_are_ordered_and_checked() {
        let gpu = Gpu::new(0).unwrap();
        let n = 1usize << 22;
        let mut p = PinnedBuffer::<u64>::alloc(&gpu, n).unwrap();
        assert_eq!(p.len(), n);
        for (i, x) in p.as_mut_slice().unwrap().iter_mut().enumerate() {
            *x = i as u64;
        }
        let mut d = DeviceBuffer::<u64>::zeroed(&gpu, n + 10).unwrap();
        d.copy_from_pinned_async(10, &p, ..).unwrap();
        let side = gpu.fork_stream().unwrap();
        let mut d2 = DeviceBuffer::<u64>::zeroed(&side, 100).unwrap();
        // On the other stream, after the first copy (ordered through the buffer's event).
        d2.copy_from_pinned_async(0, &p, 5..105).unwrap();
        // Back into the pinned buffer, shifted: waits for both reads of it.
        d.copy_to_pinned_async(0..n, &mut p, 0).unwrap();
        let host = p.as_slice().unwrap();
        assert!(host[..10].iter().all(|&x| x == 0));
        assert!(host[10..].iter().enumerate().all(|(i, &x)| x == i as u64));
        assert_eq!(d2.to_host().unwrap(), (5..105).collect::<Vec<u64>>());
        // Bounds.
        let e = d.copy_from_pinned_async(11, &p, ..);
        assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
        let e = d.copy_from_pinned_async(0, &p, 0..n + 1);
        assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
        let e = d.copy_to_pinned_async(0..n, &mut p, 1);
        assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
        let e = d.copy_to_pinned_async(5..n + 11, &mut p, 0);
        assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
        // Empty copies and an empty buffer.
        let mut empty = PinnedBuffer::<u64>::alloc(&gpu, 0).unwrap();
        d.copy_to_pinned_async(3..3, &mut empty, 0).unwrap();
        assert!(empty.as_slice().unwrap().is_empty());
        // Dropping a buffer with a copy in flight waits for it.
        let mut q = PinnedBuffer::<u64>::alloc(&gpu, n).unwrap();
        d.copy_to_pinned_async(10.., &mut q, 0).unwrap();
        drop(q);
    }
}
