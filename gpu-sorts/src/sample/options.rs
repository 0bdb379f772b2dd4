//! [`SampleOptions`].

use sortlab_primitives::Order;

use super::variant::SampleVariant;

/// How a sample sort runs: order and variant.
///
/// `Default` sorts ascending with [`SampleVariant::Fast`].
///
/// # Example
/// ```
/// use sortlab_gpu_sorts::sample::{SampleOptions, SampleVariant};
/// use sortlab_primitives::Order;
/// let opts = SampleOptions::default().with_order(Order::Descending);
/// assert_eq!(opts.variant, SampleVariant::Fast);
/// let notes = SampleOptions::default().with_variant(SampleVariant::Notes);
/// assert_eq!(notes.order, Order::Ascending);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SampleOptions {
    /// Ascending or descending (IEEE total order for floats, as `f32::total_cmp`).
    pub order: Order,
    /// Which sort runs.
    pub variant: SampleVariant,
}

impl SampleOptions {
    /// The same options in `order`.
    pub fn with_order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }
    /// The same options with `variant`.
    pub fn with_variant(mut self, variant: SampleVariant) -> Self {
        self.variant = variant;
        self
    }
}
