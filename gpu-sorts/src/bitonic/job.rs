//! What every variant's launcher shares: the sort's length, widths and order word, and the
//! buffers it works on.

use sortlab_primitives::{Defines, DeviceBuffer, KernelArgs, KeyBits, Order, SortKey};

/// One sort: n keys of `key_size` bytes (and values of `value` bytes) in the order of `flip`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Job {
    pub n: usize,
    pub key_size: usize,
    /// Bytes per value (4 or 8); `None` for keys only.
    pub value: Option<usize>,
    /// The order's flip word (`Order::flip`), zero-extended.
    pub flip: u64,
}

impl Job {
    /// The job of `n` keys `K` (with values of `value` bytes) in `order`.
    pub fn of<K: SortKey>(n: usize, value: Option<usize>, order: Order) -> Job {
        Job {
            n,
            key_size: K::SIZE,
            value,
            flip: order.flip::<K::Bits>().to_u64(),
        }
    }

    /// Bytes per value, 0 for keys only.
    pub fn value_size(&self) -> usize {
        self.value.unwrap_or(0)
    }

    /// Pushes the flip word as the kernels' `KEY_BITS_T` argument.
    pub fn push_flip(&self, args: &mut KernelArgs) {
        if self.key_size == 4 {
            args.push(self.flip as u32);
        } else {
            args.push(self.flip);
        }
    }
}

/// `KEY_T`, `KEY_BITS_T`, `HAS_VALUES` and `VALUE_T` of keys `K` with values of `value` bytes.
pub(crate) fn word_defines<K: SortKey>(value: Option<usize>) -> Defines {
    Defines::new().key::<K>().value_size(value)
}

/// The buffers of a sort: the caller's keys and values (device addresses; 0 for keys only)
/// and the scratch buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Addrs<'a> {
    pub keys: u64,
    pub values: u64,
    pub scratch: &'a DeviceBuffer<u8>,
}
