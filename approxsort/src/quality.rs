//! [`ApproxResult::quality`]: non-empty intervals, the largest interval, and the radius of the
//! output, computed on the device.

use sortlab_primitives::{DeviceBuffer, Error, Result, SortKey};

use crate::result::{ApproxQuality, ApproxResult};

impl ApproxResult {
    /// The quality report of `keys`, the output this result describes: non-empty intervals
    /// and the largest interval (from the boundaries), and the radius of `keys` in
    /// [`ApproxResult::order`].
    ///
    /// The radius is `sortlab_roughsort::radius` of the output: one read of the keys when no
    /// inversion spans more than a tile (an interval-ordered output's inversions stay inside its
    /// intervals), more passes otherwise.
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
        let radius =
            sortlab_roughsort::radius(keys.gpu(), keys, self.order()).map_err(|e| match e {
                sortlab_roughsort::Error::Gpu(g) => g,
                other => Error::Internal(format!("the radius of an approximate sort: {other}")),
            })?;
        Ok(ApproxQuality {
            non_empty,
            largest,
            radius,
        })
    }
}
