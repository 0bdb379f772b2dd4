//! Host conveniences of the sorts: a host slice through a device buffer and back.

use crate::error::{Error, Result};
use crate::key::DeviceCopy;

use super::buffer::DeviceBuffer;
use super::gpu::Gpu;

/// Uploads `host` to `gpu`, runs `f` on the device copy, and downloads the result into `host`
/// (left as it was when `f` fails). The `_host` conveniences of the sorts are this around their
/// device entry points.
///
/// # Example
/// ```no_run
/// use sortlab_primitives::runtime::on_device;
/// use sortlab_primitives::Gpu;
/// let gpu = Gpu::new(0)?;
/// let mut keys = [3u32, 1, 2];
/// on_device(&gpu, &mut keys, |d| d.copy_from_host(&[1, 2, 3]))?;
/// assert_eq!(keys, [1, 2, 3]);
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
pub fn on_device<T: DeviceCopy>(
    gpu: &Gpu,
    host: &mut [T],
    f: impl FnOnce(&mut DeviceBuffer<T>) -> Result<()>,
) -> Result<()> {
    let mut d = DeviceBuffer::from_host(gpu, host)?;
    f(&mut d)?;
    d.copy_to_host(host)
}

/// [`on_device`] for keys and values: [`Error::InvalidArgument`] naming `what` when their
/// lengths differ (nothing uploaded), else both uploaded, `f` run on the device copies, both
/// downloaded.
pub fn on_device_pairs<K: DeviceCopy, V: DeviceCopy>(
    gpu: &Gpu,
    keys: &mut [K],
    values: &mut [V],
    what: &str,
    f: impl FnOnce(&mut DeviceBuffer<K>, &mut DeviceBuffer<V>) -> Result<()>,
) -> Result<()> {
    if keys.len() != values.len() {
        return Err(Error::InvalidArgument(format!(
            "{what} of {} keys with {} values",
            keys.len(),
            values.len()
        )));
    }
    let mut dk = DeviceBuffer::from_host(gpu, keys)?;
    let mut dv = DeviceBuffer::from_host(gpu, values)?;
    f(&mut dk, &mut dv)?;
    dk.copy_to_host(keys)?;
    dv.copy_to_host(values)
}
