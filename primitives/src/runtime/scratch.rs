//! Scratch memory: typed regions laid out back to back in one byte buffer ([`ScratchLayout`],
//! [`Region`]) and the buffer of one call, the caller's or a fresh one ([`Scratch`]).
//!
//! Every algorithm that needs temporary device memory plans it with a [`ScratchLayout`]: its
//! `scratch_bytes(n)` is the layout's [`ScratchLayout::bytes`], and its `..._with_scratch` entry
//! point hands the caller's buffer to [`Scratch::get`]. Callers never add raw addresses.

use std::marker::PhantomData;

use super::buffer::{DeviceBuffer, DevicePtr};
use super::gpu::Gpu;
use crate::error::{Error, Result};
use crate::key::DeviceCopy;

/// Alignment of every region of a [`ScratchLayout`]: 256 bytes, the driver's own allocation
/// alignment, so a region is as aligned as a fresh allocation (16-byte vector loads, bulk copies
/// and 8-byte atomics included).
pub const SCRATCH_ALIGN: usize = 256;

/// A plan of typed regions in one scratch buffer, each aligned to [`SCRATCH_ALIGN`].
///
/// Sizes that overflow `usize` are remembered and reported by [`ScratchLayout::bytes`], so a
/// layout is planned with plain calls and checked once.
///
/// ```
/// use sortlab_primitives::ScratchLayout;
///
/// let mut layout = ScratchLayout::new();
/// let counts = layout.region::<u32>(1000);
/// let keys = layout.region::<u64>(10);
/// assert_eq!(counts.offset(), 0);
/// assert_eq!(keys.offset(), 4096); // 4000 bytes rounded up to 256
/// assert_eq!(layout.bytes().unwrap(), 4096 + 80);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct ScratchLayout {
    end: usize,
    overflow: bool,
}

/// A region of `len` elements of `T` at a byte offset of a scratch buffer (see
/// [`ScratchLayout`]).
#[derive(Debug)]
pub struct Region<T> {
    offset: usize,
    len: usize,
    _t: PhantomData<fn() -> T>,
}

impl<T> Clone for Region<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Region<T> {}

/// An empty region at offset 0 (a placeholder for a region a plan does not use).
impl<T> Default for Region<T> {
    fn default() -> Self {
        Region {
            offset: 0,
            len: 0,
            _t: PhantomData,
        }
    }
}

impl ScratchLayout {
    /// An empty layout.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reserves `len` elements of `T` after the regions taken so far.
    pub fn region<T: DeviceCopy>(&mut self, len: usize) -> Region<T> {
        let bytes = len.checked_mul(std::mem::size_of::<T>());
        let offset = self.end.checked_next_multiple_of(SCRATCH_ALIGN);
        match (
            offset,
            bytes.and_then(|b| offset.and_then(|o| o.checked_add(b))),
        ) {
            (Some(offset), Some(end)) if !self.overflow => {
                self.end = end;
                Region {
                    offset,
                    len,
                    _t: PhantomData,
                }
            }
            _ => {
                self.overflow = true;
                Region {
                    offset: 0,
                    len: 0,
                    _t: PhantomData,
                }
            }
        }
    }

    /// Bytes of scratch the layout needs (0 for an empty one).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if a region's size overflowed `usize`.
    pub fn bytes(&self) -> Result<usize> {
        if self.overflow {
            Err(Error::InvalidArgument(
                "the scratch layout's size overflows usize".into(),
            ))
        } else {
            Ok(self.end)
        }
    }
}

impl<T> Region<T> {
    /// Byte offset from the start of the scratch buffer.
    pub fn offset(&self) -> usize {
        self.offset
    }
    /// Elements of `T` in the region.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether the region holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Bytes of the region.
    pub fn bytes(&self) -> usize {
        self.len * std::mem::size_of::<T>()
    }
    /// The region's bytes in the scratch buffer, as a range (for byte-wise fills and copies of
    /// a `DeviceBuffer<u8>`).
    pub fn byte_range(&self) -> std::ops::Range<usize> {
        self.offset..self.offset + self.bytes()
    }
    /// The region's device address inside `scratch`, a buffer of at least the layout's bytes.
    pub fn ptr(&self, scratch: &DeviceBuffer<u8>) -> DevicePtr<T> {
        scratch.ptr().offset(self.offset).cast()
    }
}

impl<T: DeviceCopy> Region<T> {
    /// Copies all of `src` into this region of `scratch`, on the device (asynchronous, on the
    /// scratch buffer's stream, as [`DeviceBuffer::copy_from_device`] orders on its
    /// destination's): a copy into a typed piece of a call's scratch.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the region holds fewer elements than `src` or leaves
    /// `scratch`.
    pub fn copy_from(&self, scratch: &mut DeviceBuffer<u8>, src: &DeviceBuffer<T>) -> Result<()> {
        if self.len < src.len() || self.byte_range().end > scratch.len() {
            return Err(Error::InvalidArgument(format!(
                "device copy of {} elements into a scratch region of {} (bytes {:?} of {})",
                src.len(),
                self.len,
                self.byte_range(),
                scratch.len()
            )));
        }
        if src.is_empty() {
            return Ok(());
        }
        let gpu = scratch.gpu();
        gpu.bind()?;
        let dst = self.ptr(scratch).addr();
        // SAFETY: the region holds at least src.bytes() bytes inside `scratch` (checked above);
        // ordered on the scratch buffer's stream.
        unsafe {
            cudarc::driver::result::memcpy_dtod_async(
                dst,
                src.ptr().addr(),
                src.bytes(),
                gpu.cu_stream(),
            )
        }
        .map_err(|e| Error::driver("cuMemcpyDtoDAsync", e))
    }
}

/// The scratch buffer of one call: the caller's (checked against the bytes needed) or a fresh
/// allocation from the device's pool.
#[derive(Debug)]
pub enum Scratch<'a> {
    /// The caller's buffer.
    Borrowed(&'a mut DeviceBuffer<u8>),
    /// A buffer allocated for this call.
    Owned(DeviceBuffer<u8>),
}

impl<'a> Scratch<'a> {
    /// `given`, if it holds at least `needed` bytes, or a new buffer of `needed` bytes.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] (naming `what`) if `given` is too small, before anything is
    /// written; [`Error::OutOfMemory`] if the allocation fails.
    pub fn get(
        gpu: &Gpu,
        given: Option<&'a mut DeviceBuffer<u8>>,
        needed: usize,
        what: &str,
    ) -> Result<Self> {
        match given {
            Some(s) if s.len() < needed => Err(Error::InvalidArgument(format!(
                "{what} needs a scratch buffer of {needed} bytes; the one given has {}",
                s.len()
            ))),
            Some(s) => Ok(Scratch::Borrowed(s)),
            None => Ok(Scratch::Owned(DeviceBuffer::alloc(gpu, needed)?)),
        }
    }

    /// The buffer.
    pub fn buffer(&self) -> &DeviceBuffer<u8> {
        match self {
            Scratch::Borrowed(b) => b,
            Scratch::Owned(b) => b,
        }
    }

    /// The buffer, mutably (for fills and copies).
    pub fn buffer_mut(&mut self) -> &mut DeviceBuffer<u8> {
        match self {
            Scratch::Borrowed(b) => b,
            Scratch::Owned(b) => b,
        }
    }

    /// The device address of `region` in this buffer.
    pub fn ptr<T>(&self, region: Region<T>) -> DevicePtr<T> {
        region.ptr(self.buffer())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_are_aligned_and_back_to_back() {
        let mut l = ScratchLayout::new();
        let a = l.region::<u8>(1);
        let b = l.region::<u64>(3);
        let c = l.region::<u32>(0);
        let d = l.region::<u32>(64);
        assert_eq!(
            (a.offset(), b.offset(), c.offset(), d.offset()),
            (0, 256, 512, 512)
        );
        assert_eq!((b.len(), b.bytes()), (3, 24));
        assert_eq!(l.bytes().unwrap(), 512 + 256);
        assert_eq!(ScratchLayout::new().bytes().unwrap(), 0);
    }

    #[test]
    fn overflow_is_an_error_not_a_wrap() {
        let mut l = ScratchLayout::new();
        let _ = l.region::<u64>(usize::MAX / 4);
        let small = l.region::<u8>(1);
        assert!(small.is_empty());
        assert!(matches!(l.bytes(), Err(Error::InvalidArgument(_))));
    }
}
