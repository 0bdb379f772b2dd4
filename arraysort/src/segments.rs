//! [`Segments`]: where each array starts and ends in the keys buffer.

use sortlab_cpu_reference::arrays::{fixed_array_count, validate_offsets_shape};
use sortlab_primitives::{DeviceBuffer, Error, Gpu, KernelArgs, LaunchConfig, Result};

use crate::kernels::{self, OffsetWidth};

/// The arrays packed back to back in a keys buffer of `n` keys.
///
/// With offsets (CSR), `m + 1` offsets give `m` arrays: array `a` is
/// `keys[offsets[a] .. offsets[a + 1]]`, lengths from 0 up; the offsets must start at 0, end at
/// `n` and never decrease (the rules of `sortlab_cpu_reference::arrays::validate_offsets`). With
/// [`Segments::Fixed`], `n / len` arrays of `len` keys.
///
/// # Trust
/// A sort checks on the host what it can without reading the device (at least one offset,
/// `u32` offsets only for fewer than 2^32 keys, a fixed length that divides `n`) and then
/// trusts the offsets, since reading them back would be a device-to-host copy inside the call.
/// Offsets that break the rules give unspecified (but memory-safe) results: every offset is
/// clamped to `[0, n]` on the device, so no kernel reads or writes outside the call's keys,
/// values and scratch. Call [`Segments::validate`] (a small kernel and one download) where the
/// offsets come from outside.
#[derive(Clone, Copy, Debug)]
pub enum Segments<'a> {
    /// `u32` offsets (fewer than 2^32 keys).
    Offsets32(&'a DeviceBuffer<u32>),
    /// `u64` offsets.
    Offsets64(&'a DeviceBuffer<u64>),
    /// Arrays of one length.
    Fixed {
        /// Keys per array (0 only for an empty keys buffer).
        len: usize,
    },
}

impl Segments<'_> {
    /// The number of arrays in `n` keys, after the host-side checks.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for no offsets, `u32` offsets over 2^32 or more keys, or a
    /// fixed length that does not divide `n`.
    pub fn arrays(&self, n: usize) -> Result<usize> {
        let invalid = |e: sortlab_cpu_reference::Error| Error::InvalidArgument(e.to_string());
        match self {
            Segments::Offsets32(o) => {
                validate_offsets_shape(o.len(), n).map_err(invalid)?;
                if n as u64 > u32::MAX as u64 {
                    return Err(Error::InvalidArgument(format!(
                        "array offsets: u32 offsets cannot end at the key count {n}; use u64 offsets"
                    )));
                }
                Ok(o.len() - 1)
            }
            Segments::Offsets64(o) => {
                validate_offsets_shape(o.len(), n).map_err(invalid)?;
                Ok(o.len() - 1)
            }
            Segments::Fixed { len } => fixed_array_count(n, *len).map_err(invalid),
        }
    }

    /// The offset word of the kernels' module (fixed lengths use the `u64` module with no
    /// offsets).
    pub(crate) fn width(&self) -> OffsetWidth {
        match self {
            Segments::Offsets32(_) => OffsetWidth::U32,
            _ => OffsetWidth::U64,
        }
    }

    /// The device address of the offsets (0 for a fixed length).
    pub(crate) fn offsets_addr(&self) -> u64 {
        match self {
            Segments::Offsets32(o) => o.ptr().addr(),
            Segments::Offsets64(o) => o.ptr().addr(),
            Segments::Fixed { .. } => 0,
        }
    }

    /// The fixed length (0 with offsets).
    pub(crate) fn fixed_len(&self) -> u64 {
        match self {
            Segments::Fixed { len } => *len as u64,
            _ => 0,
        }
    }

    /// Checks every rule for a keys buffer of `n` keys on the device: the host-side checks of
    /// [`Segments::arrays`], then the first and last offset and a kernel that finds the first
    /// decrease, read back with one download (so this call synchronises; the sorts do not call
    /// it).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the first rule broken, with the CPU twin's wording.
    ///
    /// # Example
    /// ```no_run
    /// use sortlab_arraysort::Segments;
    /// use sortlab_primitives::{DeviceBuffer, Gpu};
    /// let gpu = Gpu::new(0)?;
    /// let offsets = DeviceBuffer::from_host(&gpu, &[0u32, 4, 2, 6])?;
    /// assert!(Segments::Offsets32(&offsets).validate(&gpu, 6).is_err());
    /// # Ok::<(), sortlab_primitives::Error>(())
    /// ```
    pub fn validate(&self, gpu: &Gpu, n: usize) -> Result<()> {
        let arrays = self.arrays(n)?;
        let (first, last, count) = match self {
            Segments::Fixed { .. } => return Ok(()),
            Segments::Offsets32(o) => {
                let mut f = [0u32];
                let mut l = [0u32];
                o.copy_range_to_host(0..1, &mut f)?;
                o.copy_range_to_host(arrays..arrays + 1, &mut l)?;
                (f[0] as u64, l[0] as u64, o.len())
            }
            Segments::Offsets64(o) => {
                let mut f = [0u64];
                let mut l = [0u64];
                o.copy_range_to_host(0..1, &mut f)?;
                o.copy_range_to_host(arrays..arrays + 1, &mut l)?;
                (f[0], l[0], o.len())
            }
        };
        let decrease = if count > 1 {
            let mut out = DeviceBuffer::<u64>::alloc(gpu, 1)?;
            out.fill_bytes(0xff)?;
            let k = kernels::helper_module(gpu, self.width())?;
            let kernel = k.module.kernel("find_decrease")?;
            let mut args = KernelArgs::new();
            args.push(self.offsets_addr())
                .push(count as u64)
                .push(out.ptr().addr());
            let threads = k.policy.small_threads;
            let cfg = LaunchConfig::linear(gpu.grid_stride_blocks(count, threads, 8), threads);
            // SAFETY: arguments match `find_decrease(const OFFSET_T*, u64, u64*)` of the module
            // of this offset width; the offsets hold `count` words, `out` one; the kernel reads
            // indices below `count` and writes only `out`.
            unsafe { kernel.launch(cfg, &args)? };
            let i = out.to_host()?[0];
            (i != u64::MAX).then_some(i as usize)
        } else {
            None
        };
        // The CPU twin's rules and wording, on the three facts read back.
        let msg = if first != 0 {
            Some(format!("the first offset is {first}, must be 0"))
        } else if last != n as u64 {
            Some(format!(
                "the last offset is {last}, must be the key count {n}"
            ))
        } else {
            decrease.map(|i| format!("offsets decrease at entry {i}"))
        };
        match msg {
            Some(m) => Err(Error::InvalidArgument(format!("array offsets: {m}"))),
            None => Ok(()),
        }
    }
}
