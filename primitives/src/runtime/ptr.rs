//! [`DevicePtr`]: a typed device address.

use std::marker::PhantomData;

/// A typed device address, passed to kernels through [`crate::KernelArgs::ptr`].
///
/// It carries no lifetime: keep the buffer it points into alive while a kernel uses it.
#[derive(Debug)]
pub struct DevicePtr<T> {
    addr: u64,
    _t: PhantomData<*const T>,
}

impl<T> Clone for DevicePtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for DevicePtr<T> {}

// SAFETY: a device address is an integer; it is only dereferenced by kernels.
unsafe impl<T> Send for DevicePtr<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for DevicePtr<T> {}

impl<T> DevicePtr<T> {
    /// The pointer at raw address `addr`.
    pub(crate) fn from_addr(addr: u64) -> Self {
        DevicePtr {
            addr,
            _t: PhantomData,
        }
    }
    /// The raw address.
    pub fn addr(self) -> u64 {
        self.addr
    }
    /// The address `count` elements further on.
    pub fn offset(self, count: usize) -> Self {
        DevicePtr {
            addr: self.addr + (count * std::mem::size_of::<T>()) as u64,
            _t: PhantomData,
        }
    }
    /// The same address, typed as `U` (carving typed regions out of a byte scratch buffer).
    pub fn cast<U>(self) -> DevicePtr<U> {
        DevicePtr {
            addr: self.addr,
            _t: PhantomData,
        }
    }
}
