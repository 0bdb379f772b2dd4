//! CUDA event timing for benchmarks.

use cudarc::driver::CudaEvent;

use super::gpu::Gpu;
use crate::error::{Error, Result};

/// Times work on a [`Gpu`]'s stream with a pair of CUDA events.
///
/// ```no_run
/// use sortlab_primitives::{Gpu, GpuTimer};
/// let gpu = Gpu::new(0)?;
/// let timer = GpuTimer::new(&gpu)?;
/// timer.start()?;
/// // ... launch work on `gpu` ...
/// let ms = timer.stop()?;
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
pub struct GpuTimer {
    gpu: Gpu,
    start: CudaEvent,
    stop: CudaEvent,
}

impl GpuTimer {
    /// Two fresh events on `gpu`.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let ev = || {
            gpu.inner
                .device
                .ctx
                .new_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(|e| Error::driver("cuEventCreate", e))
        };
        Ok(GpuTimer {
            gpu: gpu.clone(),
            start: ev()?,
            stop: ev()?,
        })
    }
    /// Records the start event on the stream.
    pub fn start(&self) -> Result<()> {
        self.start
            .record(&self.gpu.inner.device.stream)
            .map_err(|e| Error::driver("cuEventRecord", e))
    }
    /// Records the stop event, waits for it, and returns the milliseconds since `start`.
    pub fn stop(&self) -> Result<f64> {
        self.stop
            .record(&self.gpu.inner.device.stream)
            .map_err(|e| Error::driver("cuEventRecord", e))?;
        self.stop
            .synchronize()
            .map_err(|e| Error::driver("cuEventSynchronize", e))?;
        self.start
            .elapsed_ms(&self.stop)
            .map(|ms| ms as f64)
            .map_err(|e| Error::driver("cuEventElapsedTime", e))
    }
}

/// The median of `times` (the mean of the middle two for an even count; NaN for none): what
/// sortlab's benchmarks report of their [`GpuTimer`] runs. Sorts `times` in place (IEEE total
/// order).
///
/// ```
/// use sortlab_primitives::median;
/// assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
/// assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
/// ```
pub fn median(times: &mut [f64]) -> f64 {
    if times.is_empty() {
        return f64::NAN;
    }
    times.sort_by(f64::total_cmp);
    let mid = times.len() / 2;
    if times.len() % 2 == 1 {
        times[mid]
    } else {
        (times[mid - 1] + times[mid]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn medians() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&mut [7.0]), 7.0);
        assert!(median(&mut []).is_nan());
    }
}
