//! The error type of `primitives` and of everything that runs on the GPU runtime.

/// Errors of the GPU runtime and the primitives built on it.
///
/// Every failure a caller may want to react to has its own variant, so that "no GPU here" can be
/// matched and answered with the CPU engine:
/// ```
/// use sortlab_primitives::{Error, Gpu};
/// match Gpu::new(0) {
///     Ok(gpu) => println!("running on {}", gpu.info().name),
///     Err(Error::NoDevice { reason }) => println!("CPU engine: {reason}"),
///     Err(e) => println!("GPU unusable: {e}"),
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No CUDA driver or no CUDA device is present.
    #[error("no CUDA device: {reason}")]
    NoDevice {
        /// Why no device could be opened.
        reason: String,
    },
    /// The NVRTC library could not be loaded, so kernels cannot be compiled.
    #[error("NVRTC is not available: {reason}")]
    NvrtcUnavailable {
        /// Why NVRTC could not be loaded.
        reason: String,
    },
    /// A CUDA driver call failed.
    #[error("CUDA driver error in {op}: {message}")]
    Driver {
        /// The operation that failed.
        op: &'static str,
        /// The driver's description.
        message: String,
    },
    /// NVRTC rejected a kernel source.
    #[error("NVRTC failed to compile {file}:\n{log}")]
    Compile {
        /// The source file's name.
        file: String,
        /// The compiler log.
        log: String,
    },
    /// A launch would exceed a device limit (block size, grid size, shared memory).
    #[error("launch of `{kernel}` exceeds a device limit: {what}")]
    LaunchLimit {
        /// The kernel's name.
        kernel: String,
        /// Which limit, and by how much.
        what: String,
    },
    /// A device allocation failed.
    #[error("out of device memory: {requested} bytes requested, {free} bytes free")]
    OutOfMemory {
        /// Bytes asked for.
        requested: usize,
        /// Bytes free on the device when the allocation failed.
        free: usize,
    },
    /// A host allocation failed (page-locked staging memory, or the host-side temporary of a
    /// sort streamed through the device).
    #[error("out of host memory: {requested} bytes requested")]
    HostOutOfMemory {
        /// Bytes asked for.
        requested: usize,
    },
    /// An argument is invalid (mismatched lengths, an empty range, zero intervals, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The operation is not supported for these arguments or on this device.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// The NCCL library could not be loaded (or lacks a symbol sortlab needs), so nothing can
    /// run across several GPUs; one-GPU paths are unaffected.
    #[error("NCCL is not available: {reason}")]
    NcclUnavailable {
        /// Why NCCL could not be loaded.
        reason: String,
    },
    /// An NCCL call failed (or a peer rank of a collective operation failed).
    #[error("NCCL error in {call}: {message}")]
    Nccl {
        /// The NCCL call (or sortlab operation) that failed.
        call: &'static str,
        /// NCCL's description of the failure.
        message: String,
    },
    /// An internal invariant of sortlab did not hold: a bug, never a consequence of the input.
    #[error("internal error (a sortlab bug, please report it): {0}")]
    Internal(String),
}

/// Result with the runtime's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Wraps a cudarc driver error with the name of the failing operation.
    pub(crate) fn driver(op: &'static str, e: cudarc::driver::DriverError) -> Self {
        Error::Driver {
            op,
            message: e.to_string(),
        }
    }
}
