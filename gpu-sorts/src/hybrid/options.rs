//! [`HybridOptions`].

use sortlab_primitives::Order;

use super::variant::HybridVariant;

/// How the hybrid sort runs: order and variant.
///
/// `Default` sorts ascending with [`HybridVariant::Fast`].
///
/// # Example
/// ```
/// use sortlab_gpu_sorts::hybrid::{HybridOptions, HybridVariant};
/// use sortlab_primitives::Order;
/// let opts = HybridOptions::default().with_order(Order::Descending);
/// assert_eq!(opts.variant, HybridVariant::Fast);
/// let paper = HybridOptions::default().with_variant(HybridVariant::Paper);
/// assert_eq!(paper.order, Order::Ascending);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HybridOptions {
    /// Ascending or descending (IEEE total order for floats, as `f32::total_cmp`).
    pub order: Order,
    /// Which sort runs.
    pub variant: HybridVariant,
}

impl HybridOptions {
    /// The same options in `order`.
    pub fn with_order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }
    /// The same options with `variant`.
    pub fn with_variant(mut self, variant: HybridVariant) -> Self {
        self.variant = variant;
        self
    }
}
