//! [`QuickOptions`].

use sortlab_primitives::Order;

use super::variant::QuickVariant;

/// How a quicksort runs: order and variant.
///
/// `Default` sorts ascending with [`QuickVariant::Fast`].
///
/// # Example
/// ```
/// use sortlab_gpu_sorts::quick::{QuickOptions, QuickVariant};
/// use sortlab_primitives::Order;
/// let opts = QuickOptions::default().with_order(Order::Descending);
/// assert_eq!(opts.variant, QuickVariant::Fast);
/// let notes = QuickOptions::default().with_variant(QuickVariant::Notes);
/// assert_eq!(notes.order, Order::Ascending);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct QuickOptions {
    /// Ascending or descending (IEEE total order for floats, as `f32::total_cmp`).
    pub order: Order,
    /// Which sort runs.
    pub variant: QuickVariant,
}

impl QuickOptions {
    /// The same options in `order`.
    pub fn with_order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }
    /// The same options with `variant`.
    pub fn with_variant(mut self, variant: QuickVariant) -> Self {
        self.variant = variant;
        self
    }
}
