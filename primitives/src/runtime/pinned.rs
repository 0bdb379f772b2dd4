//! Page-locked ("pinned") host memory: the staging buffers of asynchronous copies between the
//! host and the device.

use std::marker::PhantomData;
use std::ops::Range;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex, PoisonError};

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
/// Copies are ordered as readers and writers: a copy out of the buffer (a read) waits (on the
/// device, not the host) for the last copy into it; a copy into it (a write) waits for that
/// and for every read queued since, on every stream ([`Gpu::fork_stream`]). So reads on
/// several streams run at once, and a write never overlaps another copy that touches the
/// buffer. The host's views wait first: [`PinnedBuffer::as_slice`] for the copies into the
/// buffer, [`PinnedBuffer::as_mut_slice`] for every copy. A view never sees a copy in flight
/// that could change what it reads, or read what it writes, which makes them safe. Copies
/// into disjoint parts of the buffer from several streams at once go through
/// [`PinnedBuffer::parts_mut`].
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
    /// The copies in flight that touch the buffer.
    copies: Mutex<Copies>,
    _t: PhantomData<T>,
}

/// What orders a pinned buffer's copies: the last copy into it, and the reads since, one event
/// per stream (each holding its stream, so that no other stream takes its handle while the
/// event tracks it).
struct Copies {
    /// Recorded after the last copy into the buffer (never recorded: complete).
    written: CudaEvent,
    /// Per stream, recorded after the last copy out of the buffer queued there since the last
    /// copy into it.
    reads: Vec<(Arc<CudaStream>, CudaEvent)>,
    /// Copies into parts of the buffer through [`PinnedWrites`] since the last copy into all
    /// of it: each part's elements, with the stream and event of its copy.
    parts: Vec<(Range<usize>, Arc<CudaStream>, CudaEvent)>,
    /// Events of copies a write has already waited for, kept for the next copies.
    spare: Vec<CudaEvent>,
}

// SAFETY: the buffer owns its memory like a Box<[T]>; the host reaches it only through `&self`
// and `&mut self` views that wait for the device's copies first, and the events (behind a
// mutex) are thread-safe.
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
            copies: Mutex::new(Copies {
                written: event,
                reads: Vec::new(),
                parts: Vec::new(),
                spare: Vec::new(),
            }),
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
        self.wait_for(true)
    }

    /// Waits for the copies into the buffer, and with `reads` for the copies out of it too.
    fn wait_for(&self, reads: bool) -> Result<()> {
        self.ctx
            .bind_to_thread()
            .map_err(|e| Error::driver("cuCtxSetCurrent", e))?;
        let copies = self.copies();
        let sync = |e: &CudaEvent| {
            e.synchronize()
                .map_err(|e| Error::driver("cuEventSynchronize", e))
        };
        sync(&copies.written)?;
        for (_, _, e) in &copies.parts {
            sync(e)?;
        }
        if reads {
            for (_, e) in &copies.reads {
                sync(e)?;
            }
        }
        Ok(())
    }

    /// Whether every asynchronous copy queued so far that touches the buffer has finished
    /// (without waiting).
    pub fn is_idle(&self) -> bool {
        let copies = self.copies();
        copies.written.is_complete()
            && copies.reads.iter().all(|(_, e)| e.is_complete())
            && copies.parts.iter().all(|(_, _, e)| e.is_complete())
    }

    /// The elements, after waiting for every copy in flight into the buffer (copies out of it,
    /// which only read, may go on).
    pub fn as_slice(&self) -> Result<&[T]> {
        self.wait_for(false)?;
        // SAFETY: `ptr` holds `len` elements of memory the driver page-locked (written outside
        // Rust, so initialised bytes, and any bytes are a valid `T: DeviceCopy`), written since
        // only by the host and by copies of valid `T`s; and no copy into it is in flight: the
        // last one has finished and a new one needs `&mut self`. Copies out of it only read.
        Ok(unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) })
    }

    /// The elements, writable, after waiting for every copy in flight that touches the buffer.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.wait()?;
        // SAFETY: as in `as_slice`, and no copy out of it is in flight either; `&mut self`
        // excludes every other view and new copies for the lifetime of the slice.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) })
    }

    /// The ordering state (a panic while it was held left it consistent: every change to it is
    /// a push, a drain or a record).
    fn copies(&self) -> std::sync::MutexGuard<'_, Copies> {
        self.copies.lock().unwrap_or_else(PoisonError::into_inner)
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

    /// Makes `stream` wait for the last copy into this buffer (queued on any stream), and
    /// readies `stream`'s read event: called before a copy out of it is queued on `stream`.
    pub(crate) fn order_read(&self, stream: &Arc<CudaStream>) -> Result<()> {
        let mut copies = self.copies();
        let copies = &mut *copies;
        wait_on(stream, &copies.written)?;
        for (_, s, e) in &copies.parts {
            if !same(s, stream) {
                wait_on(stream, e)?;
            }
        }
        if !copies.reads.iter().any(|(s, _)| same(s, stream)) {
            let event = copies.event(&self.ctx)?;
            copies.reads.push((stream.clone(), event));
        }
        Ok(())
    }

    /// Records on `stream` the copy out of this buffer just queued there (after
    /// [`PinnedBuffer::order_read`] on it): the next copy into the buffer and the host's
    /// writable views wait for it.
    pub(crate) fn record_read(&self, stream: &CudaStream) -> Result<()> {
        let copies = self.copies();
        let Some((_, event)) = copies.reads.iter().find(|(s, _)| same(s, stream)) else {
            return Err(Error::Driver {
                op: "cuEventRecord",
                message: "a read of a pinned buffer recorded without its order".into(),
            });
        };
        event
            .record(stream)
            .map_err(|e| Error::driver("cuEventRecord", e))
    }

    /// Makes `stream` wait for every copy that touches this buffer (the last copy into it and
    /// the reads since, on every stream): called before a copy into it is queued on `stream`.
    pub(crate) fn order_write(&mut self, stream: &CudaStream) -> Result<()> {
        let copies = self
            .copies
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        copies.order_write(stream, None)
    }

    /// Records on `stream` the copy into this buffer just queued there (after
    /// [`PinnedBuffer::order_write`] on it): every later copy and the host's views wait for it.
    /// The reads before it are ordered before it, so its event stands for them from now on.
    pub(crate) fn record_write(&mut self, stream: &CudaStream) -> Result<()> {
        let copies = self
            .copies
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        copies
            .written
            .record(stream)
            .map_err(|e| Error::driver("cuEventRecord", e))?;
        copies.spare.extend(copies.reads.drain(..).map(|(_, e)| e));
        copies
            .spare
            .extend(copies.parts.drain(..).map(|(_, _, e)| e));
        Ok(())
    }

    /// A handle through which copies on several streams write disjoint parts of the buffer at
    /// once ([`crate::DeviceBuffer::copy_to_pinned_part_async`]).
    ///
    /// A copy into the whole buffer ([`crate::DeviceBuffer::copy_to_pinned_async`]) waits for
    /// every copy that touches the buffer, so copies into it from several streams take turns
    /// even where they write different elements. A copy through the handle waits only for the
    /// copies before the handle and for the copies through it into elements it overlaps; its
    /// views and every later copy wait for all of them. The handle holds the buffer borrowed
    /// mutably, so no view exists while it lives, and it is `Sync`: threads that each drive a
    /// stream share it.
    ///
    /// # Example
    /// ```no_run
    /// use sortlab_primitives::runtime::PinnedBuffer;
    /// use sortlab_primitives::{DeviceBuffer, Gpu};
    /// let gpu = Gpu::new(0)?;
    /// let (a, b) = (gpu.fork_stream()?, gpu.fork_stream()?);
    /// let lo = DeviceBuffer::from_host(&a, &[1u32, 2])?;
    /// let hi = DeviceBuffer::from_host(&b, &[3u32, 4])?;
    /// let mut out = PinnedBuffer::<u32>::alloc(&gpu, 4)?;
    /// {
    ///     let parts = out.parts_mut();
    ///     lo.copy_to_pinned_part_async(.., &parts, 0)?; // on stream a
    ///     hi.copy_to_pinned_part_async(.., &parts, 2)?; // on stream b, at the same time
    /// }
    /// assert_eq!(out.as_slice()?, &[1, 2, 3, 4]); // waits for both
    /// # Ok::<(), sortlab_primitives::Error>(())
    /// ```
    pub fn parts_mut(&mut self) -> PinnedWrites<'_, T> {
        PinnedWrites { buf: self }
    }
}

impl Copies {
    /// Makes `stream` wait for the last copy into the whole buffer and every read since, and for
    /// the copies into parts since: all of them, or with `range` those into elements that
    /// overlap it (a copy queued on `stream` itself is ordered by the stream).
    fn order_write(&self, stream: &CudaStream, range: Option<&Range<usize>>) -> Result<()> {
        wait_on(stream, &self.written)?;
        for (s, e) in &self.reads {
            if !same(s, stream) {
                wait_on(stream, e)?;
            }
        }
        for (r, s, e) in &self.parts {
            let overlaps = range.is_none_or(|range| r.start < range.end && range.start < r.end);
            if overlaps && !same(s, stream) {
                wait_on(stream, e)?;
            }
        }
        Ok(())
    }

    /// An event for a new copy: a spare one, or a new one in `ctx`.
    fn event(&mut self, ctx: &Arc<CudaContext>) -> Result<CudaEvent> {
        match self.spare.pop() {
            Some(e) => Ok(e),
            None => ctx
                .new_event(None)
                .map_err(|e| Error::driver("cuEventCreate", e)),
        }
    }
}

/// Copies into disjoint parts of a [`PinnedBuffer`] from several streams at once: see
/// [`PinnedBuffer::parts_mut`].
pub struct PinnedWrites<'a, T: DeviceCopy> {
    buf: &'a mut PinnedBuffer<T>,
}

impl<T: DeviceCopy> std::fmt::Debug for PinnedWrites<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PinnedWrites")
            .field("buf", &self.buf)
            .finish()
    }
}

/// Parts in flight past which a new copy through [`PinnedWrites`] first forgets the finished
/// ones (so a long-lived handle's list stays short).
const PARTS_KEPT: usize = 64;

impl<T: DeviceCopy> PinnedWrites<'_, T> {
    /// Number of elements of the buffer.
    pub fn len(&self) -> usize {
        self.buf.len
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.buf.len == 0
    }

    /// Checks that `gpu` is in the buffer's context.
    pub(crate) fn check_context(&self, gpu: &Gpu) -> Result<()> {
        self.buf.check_context(gpu)
    }

    /// Queues on `stream` the copy `copy` into elements `range` (checked to lie in the buffer,
    /// and not empty) of the buffer, given their address, ordered after the copies it must
    /// follow, and records it.
    pub(crate) fn queue(
        &self,
        stream: &Arc<CudaStream>,
        range: Range<usize>,
        copy: impl FnOnce(*mut T) -> Result<()>,
    ) -> Result<()> {
        debug_assert!(range.start < range.end && range.end <= self.buf.len);
        // Held while the copy is queued: copies into overlapping parts from two threads are
        // ordered one after the other.
        let mut copies = self.buf.copies();
        let copies = &mut *copies;
        if copies.parts.len() >= PARTS_KEPT {
            for part in std::mem::take(&mut copies.parts) {
                if part.2.is_complete() {
                    copies.spare.push(part.2);
                } else {
                    copies.parts.push(part);
                }
            }
        }
        copies.order_write(stream, Some(&range))?;
        let event = copies.event(&self.buf.ctx)?;
        if let Err(e) = copy(self.buf.host_ptr(range.start)) {
            copies.spare.push(event);
            return Err(e);
        }
        if let Err(e) = event.record(stream) {
            // The copy is queued but cannot be tracked: wait for it here, so that no view or
            // free runs under it.
            let _ = stream.synchronize();
            return Err(Error::driver("cuEventRecord", e));
        }
        copies.parts.push((range, stream.clone(), event));
        Ok(())
    }
}

/// Whether two handles name one stream.
fn same(a: &CudaStream, b: &CudaStream) -> bool {
    a.cu_stream() == b.cu_stream()
}

/// Makes `stream` wait (on the device) for the work recorded in `event`.
fn wait_on(stream: &CudaStream, event: &CudaEvent) -> Result<()> {
    stream
        .wait(event)
        .map_err(|e| Error::driver("cuStreamWaitEvent", e))
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
        // On the other stream: a read too, which may run beside the first.
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

    /// Reads of one buffer on two streams, then a write into it on a third, over rounds: the
    /// reads see the buffer as it was before the write, the write lands after them, and the
    /// host's views wait as they should.
    #[test]
    #[ignore = "needs a CUDA device"]
    fn a_write_waits_for_the_reads_of_every_stream() {
        let gpu = Gpu::new(0).unwrap();
        let n = 1usize << 24;
        let mut p = PinnedBuffer::<u32>::alloc(&gpu, n).unwrap();
        let (a, b, c) = (
            gpu.fork_stream().unwrap(),
            gpu.fork_stream().unwrap(),
            gpu.fork_stream().unwrap(),
        );
        let mut da = DeviceBuffer::<u32>::zeroed(&a, n).unwrap();
        let mut db = DeviceBuffer::<u32>::zeroed(&b, n).unwrap();
        let mut dc = DeviceBuffer::<u32>::zeroed(&c, n).unwrap();
        for round in 0..3u32 {
            let value = |i: usize| (i as u32).wrapping_mul(2654435761).wrapping_add(round);
            for (i, x) in p.as_mut_slice().unwrap().iter_mut().enumerate() {
                *x = value(i);
            }
            // The next round's contents on the device, for the write.
            let next: Vec<u32> = (0..n).map(|i| value(i).wrapping_add(1 << 31)).collect();
            dc.copy_from_host(&next).unwrap();
            // Reads on two streams, in halves, then a view that only reads (it waits for no read).
            da.copy_from_pinned_async(0, &p, ..n / 2).unwrap();
            db.copy_from_pinned_async(0, &p, ..).unwrap();
            da.copy_from_pinned_async(n / 2, &p, n / 2..).unwrap();
            assert_eq!(p.as_slice().unwrap()[n - 1], value(n - 1));
            // The write, on a third stream: after both streams' reads.
            dc.copy_to_pinned_async(.., &mut p, 0).unwrap();
            let want: Vec<u32> = (0..n).map(value).collect();
            assert!(
                da.to_host().unwrap() == want,
                "round {round}: stream a read the write"
            );
            assert!(
                db.to_host().unwrap() == want,
                "round {round}: stream b read the write"
            );
            assert!(p.as_slice().unwrap() == next.as_slice(), "round {round}");
            assert!(p.is_idle());
        }
    }

    /// Copies into disjoint parts from two streams, then into a part that overlaps both from a
    /// third: the last lands over the first two; views, reads and bounds errors after them.
    #[test]
    #[ignore = "needs a CUDA device"]
    fn parts_are_written_from_several_streams() {
        let gpu = Gpu::new(0).unwrap();
        let n = 1usize << 24;
        let (a, b, c) = (
            gpu.fork_stream().unwrap(),
            gpu.fork_stream().unwrap(),
            gpu.fork_stream().unwrap(),
        );
        let half = |base: u32| (0..n as u32 / 2).map(|i| base + i).collect::<Vec<u32>>();
        let da = DeviceBuffer::<u32>::from_host(&a, &half(1 << 28)).unwrap();
        let db = DeviceBuffer::<u32>::from_host(&b, &half(2 << 28)).unwrap();
        let dc = DeviceBuffer::<u32>::from_host(&c, &half(3 << 28)).unwrap();
        let mut p = PinnedBuffer::<u32>::alloc(&gpu, n).unwrap();
        for round in 0..3 {
            p.as_mut_slice().unwrap().fill(0);
            {
                let parts = p.parts_mut();
                assert_eq!(parts.len(), n);
                da.copy_to_pinned_part_async(.., &parts, 0).unwrap();
                db.copy_to_pinned_part_async(.., &parts, n / 2).unwrap();
                // Overlaps both: after them.
                dc.copy_to_pinned_part_async(.., &parts, n / 4).unwrap();
                let e = da.copy_to_pinned_part_async(.., &parts, n / 2 + 1);
                assert!(matches!(e, Err(Error::InvalidArgument(_))), "{e:?}");
                da.copy_to_pinned_part_async(3..3, &parts, n).unwrap();
            }
            // A read of the buffer on stream a waits for every part.
            let mut back = DeviceBuffer::<u32>::zeroed(&a, n).unwrap();
            back.copy_from_pinned_async(0, &p, ..).unwrap();
            let want: Vec<u32> = (0..n)
                .map(|i| match i {
                    i if i < n / 4 => (1 << 28) + i as u32,
                    i if i < 3 * n / 4 => (3 << 28) + (i - n / 4) as u32,
                    i => (2 << 28) + (i - n / 2) as u32,
                })
                .collect();
            assert!(back.to_host().unwrap() == want, "round {round}: read");
            assert!(p.as_slice().unwrap() == want.as_slice(), "round {round}");
        }
    }
}
