//! [`MergeOptions`].

use sortlab_primitives::Order;

use super::variant::MergeVariant;

/// How a merge sort runs: order and variant.
///
/// `Default` sorts ascending with [`MergeVariant::Fast`].
///
/// # Example
/// ```
/// use sortlab_gpu_sorts::merge::{MergeOptions, MergeVariant};
/// use sortlab_primitives::Order;
/// let opts = MergeOptions::default().with_order(Order::Descending);
/// assert_eq!(opts.variant, MergeVariant::Fast);
/// let satish = MergeOptions::default().with_variant(MergeVariant::Satish);
/// assert_eq!(satish.order, Order::Ascending);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MergeOptions {
    /// Ascending or descending (IEEE total order for floats, as `f32::total_cmp`).
    pub order: Order,
    /// Which sort runs.
    pub variant: MergeVariant,
}

impl MergeOptions {
    /// The same options in `order`.
    pub fn with_order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }
    /// The same options with `variant`.
    pub fn with_variant(mut self, variant: MergeVariant) -> Self {
        self.variant = variant;
        self
    }
}
