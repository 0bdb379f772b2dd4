//! [`ApproxOptions`], [`ApproxVariant`] and [`Intervals`]: one definition for both engines, in
//! `sortlab_cpu_reference::approx`, re-exported here.

use sortlab_primitives::{Error, Result};

pub use sortlab_cpu_reference::approx::{
    ApproxOptions, ApproxVariant, Intervals, DEFAULT_INTERVALS, MAX_INTERVALS,
};

/// [`ApproxOptions::validate`] as this crate's error: [`Error::InvalidArgument`] for 0
/// intervals or more than [`MAX_INTERVALS`].
pub(crate) fn validate(opts: &ApproxOptions) -> Result<()> {
    opts.validate().map_err(|e| match e {
        sortlab_cpu_reference::Error::InvalidArgument(m) => Error::InvalidArgument(m),
        other => Error::InvalidArgument(other.to_string()),
    })
}
