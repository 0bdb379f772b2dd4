//! [`RadixOptions`] and their check against a key type.

use sortlab_primitives::{Error, Order, Result, SortKey};

use super::variant::RadixVariant;

/// How a radix sort runs: order, the key bits it sorts by, and the variant.
///
/// `Default` sorts ascending by every bit with [`RadixVariant::Fast`].
///
/// # Example
/// ```
/// use sortlab_gpu_sorts::radix::{RadixOptions, RadixVariant};
/// use sortlab_primitives::Order;
/// let opts = RadixOptions { order: Order::Descending, ..RadixOptions::default() };
/// assert_eq!(opts.variant, RadixVariant::Fast);
/// assert_eq!((opts.begin_bit, opts.end_bit), (0, 64));
/// let low_byte = RadixOptions::default().with_bits(0, 8).with_variant(RadixVariant::Satish);
/// assert_eq!(low_byte.end_bit, 8);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RadixOptions {
    /// Ascending or descending (IEEE total order for floats, as `f32::total_cmp`).
    pub order: Order,
    /// The first bit of the key's ordered bits ([`SortKey::to_ordered_bits`], complemented for
    /// descending order) that the sort looks at. Default 0.
    pub begin_bit: u32,
    /// One past the last bit the sort looks at. Values at or above the key's width (32 or
    /// 64) mean the full width; the default, 64, is the full width of every key type.
    pub end_bit: u32,
    /// Which sort runs.
    pub variant: RadixVariant,
}

impl Default for RadixOptions {
    fn default() -> Self {
        RadixOptions {
            order: Order::Ascending,
            begin_bit: 0,
            end_bit: FULL_WIDTH,
            variant: RadixVariant::Fast,
        }
    }
}

/// The default `end_bit`: the full width of every key type.
pub const FULL_WIDTH: u32 = 64;

impl RadixOptions {
    /// The same options in `order`.
    pub fn with_order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }
    /// The same options sorting by ordered bits `begin_bit .. end_bit`.
    pub fn with_bits(mut self, begin_bit: u32, end_bit: u32) -> Self {
        self.begin_bit = begin_bit;
        self.end_bit = end_bit;
        self
    }
    /// The same options with `variant`.
    pub fn with_variant(mut self, variant: RadixVariant) -> Self {
        self.variant = variant;
        self
    }

    /// The bit range for keys `K`: `Ok(None)` when it is empty (nothing to sort),
    /// [`Error::InvalidArgument`] when `begin_bit > end_bit`.
    pub(crate) fn bit_range<K: SortKey>(&self) -> Result<Option<(u32, u32)>> {
        if self.begin_bit > self.end_bit {
            return Err(Error::InvalidArgument(format!(
                "radix sort bit range {}..{}: begin_bit is past end_bit",
                self.begin_bit, self.end_bit
            )));
        }
        let width = 8 * K::SIZE as u32;
        let end = self.end_bit.min(width);
        Ok((self.begin_bit < end).then_some((self.begin_bit, end)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_ranges() {
        let o = RadixOptions::default();
        assert_eq!(o.bit_range::<u32>().unwrap(), Some((0, 32)));
        assert_eq!(o.bit_range::<f64>().unwrap(), Some((0, 64)));
        assert_eq!(
            o.with_bits(4, 12).bit_range::<i32>().unwrap(),
            Some((4, 12))
        );
        assert_eq!(o.with_bits(8, 8).bit_range::<u64>().unwrap(), None);
        assert_eq!(o.with_bits(40, 64).bit_range::<u32>().unwrap(), None);
        assert!(matches!(
            o.with_bits(9, 8).bit_range::<u32>(),
            Err(Error::InvalidArgument(_))
        ));
    }
}
