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
            .record(&self.gpu.inner.stream)
            .map_err(|e| Error::driver("cuEventRecord", e))
    }
    /// Records the stop event, waits for it, and returns the milliseconds since `start`.
    pub fn stop(&self) -> Result<f64> {
        self.stop
            .record(&self.gpu.inner.stream)
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
