//! Typed device memory: owned buffers, raw device pointers, and host transfers.

use std::marker::PhantomData;
use std::ops::{Bound, RangeBounds};

use cudarc::driver::result as cu;
use cudarc::driver::sys::cudaError_enum as CuErr;

use super::gpu::Gpu;
use super::pinned::{PinnedBuffer, PinnedWrites};
pub use super::ptr::DevicePtr;
use crate::error::{Error, Result};
use crate::key::DeviceCopy;

/// An owned, typed allocation of device memory, freed on drop.
///
/// Length-0 buffers allocate nothing. Uploads and downloads go through the owning [`Gpu`]'s
/// stream, so they are ordered with the kernels launched on it.
pub struct DeviceBuffer<T: DeviceCopy> {
    gpu: Gpu,
    addr: u64,
    /// Allocated from the stream-ordered pool (freed with cuMemFreeAsync on the stream).
    pooled: bool,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: DeviceCopy> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("len", &self.len)
            .field("type", &std::any::type_name::<T>())
            .finish()
    }
}

fn resolve(range: impl RangeBounds<usize>, len: usize) -> Result<(usize, usize)> {
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s + 1,
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e + 1,
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    if start > end || end > len {
        return Err(Error::InvalidArgument(format!(
            "range {start}..{end} out of bounds for length {len}"
        )));
    }
    Ok((start, end))
}

impl<T: DeviceCopy> DeviceBuffer<T> {
    /// Allocates `len` elements with unspecified (but valid, since `T: DeviceCopy`) contents.
    ///
    /// Returns [`Error::OutOfMemory`] when the device cannot hold them.
    pub fn alloc(gpu: &Gpu, len: usize) -> Result<Self> {
        let bytes = len.checked_mul(std::mem::size_of::<T>()).ok_or_else(|| {
            Error::InvalidArgument(format!("{len} elements overflow usize bytes"))
        })?;
        let pooled = gpu.inner.device.async_alloc;
        let addr = if bytes == 0 {
            0
        } else {
            gpu.bind()?;
            // SAFETY: the context is current; the allocation is freed in Drop, on the same
            // stream when pooled (stream order makes it valid for all work queued after this).
            let r = unsafe {
                if pooled {
                    cu::malloc_async(gpu.cu_stream(), bytes)
                } else {
                    cu::malloc_sync(bytes)
                }
            };
            match r {
                Ok(p) => p,
                Err(e) if e.0 == CuErr::CUDA_ERROR_OUT_OF_MEMORY => {
                    let free = gpu.memory_info().map(|m| m.0).unwrap_or(0);
                    return Err(Error::OutOfMemory {
                        requested: bytes,
                        free,
                    });
                }
                Err(e) => return Err(Error::driver("cuMemAlloc", e)),
            }
        };
        Ok(DeviceBuffer {
            gpu: gpu.clone(),
            addr,
            pooled,
            len,
            _t: PhantomData,
        })
    }

    /// Allocates `len` elements set to all-zero bytes.
    pub fn zeroed(gpu: &Gpu, len: usize) -> Result<Self> {
        let mut b = Self::alloc(gpu, len)?;
        b.fill_bytes(0)?;
        Ok(b)
    }

    /// Allocates a buffer holding a copy of `host`.
    pub fn from_host(gpu: &Gpu, host: &[T]) -> Result<Self> {
        let mut b = Self::alloc(gpu, host.len())?;
        b.copy_from_host(host)?;
        Ok(b)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.len * std::mem::size_of::<T>()
    }
    /// The `Gpu` that owns the memory.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }
    /// The device address of element 0.
    pub fn ptr(&self) -> DevicePtr<T> {
        DevicePtr::from_addr(self.addr)
    }
    /// The device address of element `range.start`, checked against the length, and the
    /// range's length.
    pub fn ptr_range(&self, range: impl RangeBounds<usize>) -> Result<(DevicePtr<T>, usize)> {
        let (s, e) = resolve(range, self.len)?;
        Ok((self.ptr().offset(s), e - s))
    }

    /// Copies `host` into the start of the buffer (`host.len()` must equal `self.len()`).
    pub fn copy_from_host(&mut self, host: &[T]) -> Result<()> {
        if host.len() != self.len {
            return Err(Error::InvalidArgument(format!(
                "upload of {} elements into a buffer of {}",
                host.len(),
                self.len
            )));
        }
        if self.len == 0 {
            return Ok(());
        }
        self.gpu.bind()?;
        // SAFETY: the destination holds exactly host.len() elements; the stream is synchronised
        // before `host` may be dropped or changed.
        unsafe { cu::memcpy_htod_async(self.addr, host, self.gpu.cu_stream()) }
            .map_err(|e| Error::driver("cuMemcpyHtoDAsync", e))?;
        self.gpu.synchronize()
    }

    /// Copies the buffer into `host` (`host.len()` must equal `self.len()`).
    pub fn copy_to_host(&self, host: &mut [T]) -> Result<()> {
        if host.len() != self.len {
            return Err(Error::InvalidArgument(format!(
                "download of a buffer of {} elements into {}",
                self.len,
                host.len()
            )));
        }
        if self.len == 0 {
            return Ok(());
        }
        self.gpu.bind()?;
        // SAFETY: `host` has room for exactly self.len elements; synchronised before return.
        unsafe { cu::memcpy_dtoh_async(host, self.addr, self.gpu.cu_stream()) }
            .map_err(|e| Error::driver("cuMemcpyDtoHAsync", e))?;
        self.gpu.synchronize()
    }

    /// Downloads the whole buffer.
    pub fn to_host(&self) -> Result<Vec<T>> {
        let mut v = Vec::with_capacity(self.len);
        // SAFETY: `T: DeviceCopy` has no invalid bit patterns, and every element is written by
        // the download below before it can be read (on error the Vec is dropped unread).
        #[allow(clippy::uninit_vec)]
        unsafe {
            v.set_len(self.len)
        };
        self.copy_to_host(&mut v)?;
        Ok(v)
    }

    /// Copies all of `src` (same length) into this buffer, on the device.
    pub fn copy_from_device(&mut self, src: &DeviceBuffer<T>) -> Result<()> {
        if src.len != self.len {
            return Err(Error::InvalidArgument(format!(
                "device copy of {} elements into {}",
                src.len, self.len
            )));
        }
        if self.len == 0 {
            return Ok(());
        }
        self.gpu.bind()?;
        // SAFETY: both ranges hold self.bytes() bytes; ordered on the stream.
        unsafe { cu::memcpy_dtod_async(self.addr, src.addr, self.bytes(), self.gpu.cu_stream()) }
            .map_err(|e| Error::driver("cuMemcpyDtoDAsync", e))
    }

    /// Sets every byte of the buffer to `byte` (asynchronous, on the stream).
    pub fn fill_bytes(&mut self, byte: u8) -> Result<()> {
        if self.len == 0 {
            return Ok(());
        }
        self.gpu.bind()?;
        // SAFETY: the range is this allocation; ordered on the stream.
        unsafe { cu::memset_d8_async(self.addr, byte, self.bytes(), self.gpu.cu_stream()) }
            .map_err(|e| Error::driver("cuMemsetD8Async", e))
    }

    /// Sets every byte of the elements in `range` to `byte` (asynchronous, on the stream).
    pub fn fill_bytes_range(&mut self, range: impl RangeBounds<usize>, byte: u8) -> Result<()> {
        let (s, e) = resolve(range, self.len)?;
        if s == e {
            return Ok(());
        }
        self.gpu.bind()?;
        let size = std::mem::size_of::<T>();
        // SAFETY: elements s..e lie inside this allocation (checked); ordered on the stream.
        unsafe {
            cu::memset_d8_async(
                self.addr + (s * size) as u64,
                byte,
                (e - s) * size,
                self.gpu.cu_stream(),
            )
        }
        .map_err(|e| Error::driver("cuMemsetD8Async", e))
    }

    /// Copies the elements in `range` into `host` (`host.len()` must equal the range's length).
    pub fn copy_range_to_host(&self, range: impl RangeBounds<usize>, host: &mut [T]) -> Result<()> {
        let (s, e) = resolve(range, self.len)?;
        if host.len() != e - s {
            return Err(Error::InvalidArgument(format!(
                "download of {} elements into {}",
                e - s,
                host.len()
            )));
        }
        if s == e {
            return Ok(());
        }
        self.gpu.bind()?;
        let src = self.addr + (s * std::mem::size_of::<T>()) as u64;
        // SAFETY: elements s..e lie inside this allocation and `host` has room for exactly
        // e - s of them; synchronised before return.
        unsafe { cu::memcpy_dtoh_async(host, src, self.gpu.cu_stream()) }
            .map_err(|e| Error::driver("cuMemcpyDtoHAsync", e))?;
        self.gpu.synchronize()
    }

    /// Queues a copy of the elements `src_range` of the pinned host buffer `src` into this
    /// buffer from element `dst_offset` on, on this buffer's stream, and returns at once.
    ///
    /// The copy is ordered after every copy into `src` already queued (on any stream; copies
    /// out of it, which only read, may run at once) and before everything queued later on this
    /// buffer's stream; later copies into `src` and its writable view
    /// ([`PinnedBuffer::as_mut_slice`]) wait for it, so nothing changes the elements while
    /// they are read.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `src_range` is out of `src`'s bounds, the copy would
    /// run past this buffer's end, or `src` belongs to another device; nothing is queued then.
    ///
    /// # Example
    /// See [`PinnedBuffer`].
    pub fn copy_from_pinned_async(
        &mut self,
        dst_offset: usize,
        src: &PinnedBuffer<T>,
        src_range: impl RangeBounds<usize>,
    ) -> Result<()> {
        let (s, e) = resolve(src_range, src.len())?;
        let n = e - s;
        if dst_offset.checked_add(n).is_none_or(|end| end > self.len) {
            return Err(Error::InvalidArgument(format!(
                "copy of {n} pinned elements to offset {dst_offset} of a buffer of {}",
                self.len
            )));
        }
        src.check_context(&self.gpu)?;
        if n == 0 {
            return Ok(());
        }
        self.gpu.bind()?;
        let stream = &self.gpu.inner.device.stream;
        src.order_read(stream)?;
        let dst = self.addr + (dst_offset * std::mem::size_of::<T>()) as u64;
        // SAFETY: elements s..e lie inside `src`'s page-locked allocation, and dst_offset..+n
        // inside this one (both checked). The host memory stays valid and unchanged until the
        // copy ends: `src` waits for the event recorded below before it gives out a writable
        // view or frees the memory.
        let host = unsafe { std::slice::from_raw_parts(src.host_ptr(s) as *const T, n) };
        // SAFETY: as above; ordered on the stream.
        unsafe { cu::memcpy_htod_async(dst, host, stream.cu_stream()) }
            .map_err(|e| Error::driver("cuMemcpyHtoDAsync", e))?;
        src.record_read(stream)
    }

    /// Queues a copy of the elements `src_range` of this buffer into the pinned host buffer
    /// `dst` from element `dst_offset` on, on this buffer's stream, and returns at once.
    ///
    /// The copy is ordered after everything already queued on this buffer's stream (the
    /// kernels that wrote the elements) and after every copy already queued that touches `dst`
    /// (on any stream, in either direction); every later copy that touches `dst` and `dst`'s
    /// views ([`PinnedBuffer::as_slice`]) wait for it.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `src_range` is out of this buffer's bounds, the copy
    /// would run past `dst`'s end, or `dst` belongs to another device; nothing is queued then.
    ///
    /// # Example
    /// See [`PinnedBuffer`].
    pub fn copy_to_pinned_async(
        &self,
        src_range: impl RangeBounds<usize>,
        dst: &mut PinnedBuffer<T>,
        dst_offset: usize,
    ) -> Result<()> {
        dst.check_context(&self.gpu)?;
        let Some((src, n)) = self.span_to_pinned(src_range, dst.len(), dst_offset)? else {
            return Ok(());
        };
        let stream = &self.gpu.inner.device.stream;
        dst.order_write(stream)?;
        // SAFETY: dst_offset..+n lies inside `dst`'s page-locked allocation and the n elements
        // at `src` inside this one (both checked); `&mut dst` excludes host views now, and
        // later views and the free wait for the event recorded below.
        let host = unsafe { std::slice::from_raw_parts_mut(dst.host_ptr(dst_offset), n) };
        // SAFETY: as above; ordered on the stream.
        unsafe { cu::memcpy_dtoh_async(host, src, stream.cu_stream()) }
            .map_err(|e| Error::driver("cuMemcpyDtoHAsync", e))?;
        dst.record_write(stream)
    }

    /// Queues a copy of the elements `src_range` of this buffer into the buffer behind `dst`
    /// from element `dst_offset` on, on this buffer's stream, and returns at once: as
    /// [`DeviceBuffer::copy_to_pinned_async`], but ordered only after the copies before `dst`
    /// was made and the copies through `dst` into elements it overlaps, so that copies into
    /// disjoint parts from several streams run at once (see [`PinnedBuffer::parts_mut`]).
    ///
    /// # Errors
    /// As [`DeviceBuffer::copy_to_pinned_async`]; nothing is queued then.
    ///
    /// # Example
    /// See [`PinnedBuffer::parts_mut`].
    pub fn copy_to_pinned_part_async(
        &self,
        src_range: impl RangeBounds<usize>,
        dst: &PinnedWrites<'_, T>,
        dst_offset: usize,
    ) -> Result<()> {
        dst.check_context(&self.gpu)?;
        let Some((src, n)) = self.span_to_pinned(src_range, dst.len(), dst_offset)? else {
            return Ok(());
        };
        let stream = &self.gpu.inner.device.stream;
        dst.queue(stream, dst_offset..dst_offset + n, |ptr| {
            // SAFETY: `ptr` is element dst_offset of `dst`'s page-locked allocation, which
            // holds dst_offset + n elements (checked), and the n elements at `src` lie inside
            // this one. No host view exists while `dst` borrows the buffer, copies through
            // `dst` into these elements are ordered before this one, and later views and the
            // free wait for it.
            let host = unsafe { std::slice::from_raw_parts_mut(ptr, n) };
            // SAFETY: as above; ordered on the stream.
            unsafe { cu::memcpy_dtoh_async(host, src, stream.cu_stream()) }
                .map_err(|e| Error::driver("cuMemcpyDtoHAsync", e))
        })
    }

    /// Checks a copy of the elements `src_range` of this buffer into a pinned buffer of
    /// `dst_len` elements from element `dst_offset` on, and returns the device address of its
    /// first element and its length, with this buffer's context bound (`None` for an empty
    /// copy: nothing to queue).
    fn span_to_pinned(
        &self,
        src_range: impl RangeBounds<usize>,
        dst_len: usize,
        dst_offset: usize,
    ) -> Result<Option<(u64, usize)>> {
        let (s, e) = resolve(src_range, self.len)?;
        let n = e - s;
        if dst_offset.checked_add(n).is_none_or(|end| end > dst_len) {
            return Err(Error::InvalidArgument(format!(
                "copy of {n} elements to offset {dst_offset} of a pinned buffer of {dst_len}"
            )));
        }
        if n == 0 {
            return Ok(None);
        }
        self.gpu.bind()?;
        Ok(Some((self.addr + (s * std::mem::size_of::<T>()) as u64, n)))
    }

    /// Allocates a copy of this buffer on the device.
    pub fn try_clone(&self) -> Result<Self> {
        let mut b = Self::alloc(&self.gpu, self.len)?;
        b.copy_from_device(self)?;
        Ok(b)
    }
}

impl<T: DeviceCopy> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        if self.addr == 0 || self.gpu.bind().is_err() {
            return;
        }
        if self.pooled {
            // SAFETY: the address came from cuMemAllocAsync and is freed exactly once, in
            // stream order: after every kernel and copy already queued that may use it.
            let _ = unsafe { cu::free_async(self.addr, self.gpu.cu_stream()) };
        } else {
            // Work queued on the stream may still use the memory: wait for it first.
            let _ = self.gpu.synchronize();
            // SAFETY: the address came from cuMemAlloc and is freed exactly once.
            let _ = unsafe { cu::free_sync(self.addr) };
        }
    }
}
