//! [`ArrayOptions`] and [`ArrayVariant`].

use sortlab_primitives::Order;

/// Which many-arrays sort runs: the paper's GPU-ArraySort and the tagged baseline it is
/// measured against, kept faithful for comparison, and a fast segmented sort, the default.
///
/// Every variant sorts every key type in both orders, keys alone or with values, and gives
/// exactly the CPU twin's result (`sortlab_cpu_reference::arrays`) for keys, and for pairs
/// with `stable`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ArrayVariant {
    /// GPU-ArraySort (Awan and Saeed): one block per array; a regular 10% sample, sorted, gives
    /// p - 1 splitters (p = floor(n / 20) buckets); every key goes to its bucket by binary
    /// search, the array is rewritten bucket by bucket, and each bucket is insertion sorted.
    /// Keys equal to a splitter are kept (the paper's strict test drops them).
    Paper,
    /// The tagged baseline (STA) of the paper: one stable device-wide sort by key carrying each
    /// key's position, then one stable sort by array tag (`sortlab_gpu_sorts::radix`), then a
    /// gather. Uses the most memory ([`crate::memory_bytes`]).
    Tagged,
    /// The default: size classes chosen per array on the device (several short arrays per
    /// warp in registers, one block per array up to a shared-memory tile, runs of a tile merged
    /// pairwise over the whole device beyond), with no host round trip.
    #[default]
    Fast,
}

sortlab_primitives::named_variants!(
    ArrayVariant,
    "arraysort variant",
    [Paper => "paper", Tagged => "tagged", Fast => "fast"]
);

/// How the arrays are sorted: order, stability of pairs, and the variant.
///
/// `Default`: ascending, stable, [`ArrayVariant::Fast`].
///
/// # Example
/// ```
/// use sortlab_arraysort::{ArrayOptions, ArrayVariant};
/// use sortlab_primitives::Order;
/// let o = ArrayOptions::default().with_order(Order::Descending).with_variant(ArrayVariant::Paper);
/// assert!(o.stable);
/// assert_eq!(o.variant.name(), "paper");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ArrayOptions {
    /// Ascending or descending (IEEE total order for floats, as `f32::total_cmp`).
    pub order: Order,
    /// Pairs: equal keys keep their input order, with their values. Every variant is stable
    /// (see the crate docs), so this costs nothing today; `false` allows a future faster
    /// unstable path.
    pub stable: bool,
    /// Which sort runs.
    pub variant: ArrayVariant,
}

impl Default for ArrayOptions {
    fn default() -> Self {
        ArrayOptions {
            order: Order::Ascending,
            stable: true,
            variant: ArrayVariant::Fast,
        }
    }
}

impl ArrayOptions {
    /// The same options in `order`.
    pub fn with_order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }
    /// The same options with `stable`.
    pub fn with_stable(mut self, stable: bool) -> Self {
        self.stable = stable;
        self
    }
    /// The same options with `variant`.
    pub fn with_variant(mut self, variant: ArrayVariant) -> Self {
        self.variant = variant;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for v in ArrayVariant::ALL {
            assert_eq!(v.name().parse::<ArrayVariant>().unwrap(), v);
        }
        let e = "cub".parse::<ArrayVariant>().unwrap_err();
        assert!(e.to_string().contains("paper, tagged, fast"), "{e}");
        assert_eq!(ArrayOptions::default().variant, ArrayVariant::Fast);
    }
}
