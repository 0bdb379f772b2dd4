//! [`ApproxResult::quality`]: non-empty intervals, the largest interval, and the radius of the
//! output, computed on the device.

use sortlab_primitives::scan::{scan, Direction, ScanKind, ScanOp, ScanVariant};
use sortlab_primitives::{DeviceBuffer, Error, KernelArgs, KeyBits, Result, SortKey};

use crate::kernels::Kernels;
use crate::policy::ApproxPolicy;
use crate::result::{ApproxQuality, ApproxResult};

impl ApproxResult {
    /// The quality report of `keys`, the output this result describes: non-empty intervals
    /// and the largest interval (from the boundaries), and the radius of `keys` in
    /// [`ApproxResult::order`].
    ///
    /// The radius comes from the prefix maxima `LR` and suffix minima `RL` of the output (two
    /// scans of sortlab's) and a kernel that finds, for every `i`, the first `j` with
    /// `LR[j] > RL[i]`: `max(i - j)`. It reads and writes about 6 n keys and allocates 2 n.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `keys` does not have the result's length;
    /// [`Error::OutOfMemory`].
    pub fn quality<K: SortKey>(&self, keys: &DeviceBuffer<K>) -> Result<ApproxQuality> {
        let n = keys.len();
        if n != self.len {
            return Err(Error::InvalidArgument(format!(
                "quality of {n} keys for a result of {}",
                self.len
            )));
        }
        let (non_empty, largest) = self.interval_stats()?;
        if n < 2 {
            return Ok(ApproxQuality {
                non_empty,
                largest,
                radius: 0,
            });
        }
        let gpu = keys.gpu();
        let asc = !self.order().is_descending();
        let (lr_op, rl_op) = if asc {
            (ScanOp::Max, ScanOp::Min)
        } else {
            (ScanOp::Min, ScanOp::Max)
        };
        let mut lr = DeviceBuffer::<K>::alloc(gpu, n)?;
        let mut rl = DeviceBuffer::<K>::alloc(gpu, n)?;
        let v = ScanVariant::Fast;
        scan(
            gpu,
            keys,
            &mut lr,
            lr_op,
            ScanKind::Inclusive,
            Direction::Forward,
            v,
        )?;
        scan(
            gpu,
            keys,
            &mut rl,
            rl_op,
            ScanKind::Inclusive,
            Direction::Reverse,
            v,
        )?;
        let result = DeviceBuffer::<u64>::zeroed(gpu, 1)?;
        let kern = Kernels::new::<K>(gpu, None, n, ApproxPolicy::for_device(gpu, K::SIZE, 0))?;
        let p = &kern.policy;
        let mut args = KernelArgs::new();
        args.ptr(lr.ptr())
            .ptr(rl.ptr())
            .push(n as u64)
            .push(self.order().flip::<K::Bits>().to_u64())
            .ptr(result.ptr());
        // SAFETY: `radius_distances(const KEY_T*, const KEY_T*, u64, Bits, u64*)`: lr and rl
        // hold n keys, reads stay in 0..=i; result is one zeroed word.
        unsafe {
            kern.launch_over(
                "radius_distances",
                n,
                p.reduce_threads,
                p.reduce_blocks_per_sm,
                &args,
            )?
        };
        let radius = result.to_host()?.first().copied().unwrap_or(0) as usize;
        Ok(ApproxQuality {
            non_empty,
            largest,
            radius,
        })
    }
}
