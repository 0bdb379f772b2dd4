//! [`HybridVariant`].

/// Which hybrid sort runs: Sintorn and Assarsson's, kept faithful for comparison, and a fast
/// default with buckets sized for shared memory.
///
/// Both variants sort every key type in both orders, with or without values, and give exactly
/// the CPU reference's keys; neither is stable (values stay with their keys).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HybridVariant {
    /// The paper: min and max, a uniform histogram over them from which 1023 pivots are placed
    /// at the ranks j·n/1024 (linear interpolation inside a bin), bucket counts with atomics and
    /// an atomic scatter, then one block per bucket running the vector merge sort (in global
    /// memory through scratch when the bucket exceeds shared memory, as the paper's buckets do
    /// past a few million keys).
    Paper,
    /// The default: pivots from a sorted sample (32 per bucket, jittered regular positions),
    /// about n / 2048 to n / 1024 buckets (half a block's shared capacity each), the same
    /// counts and scatter, and each bucket sorted by the vector merge sort in shared memory.
    #[default]
    Fast,
}

sortlab_primitives::named_variants!(
    HybridVariant,
    "hybrid variant",
    [Paper => "paper", Fast => "fast"]
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for v in HybridVariant::ALL {
            assert_eq!(v.name().parse::<HybridVariant>().unwrap(), v);
            assert_eq!(v.to_string(), v.name());
        }
        assert_eq!(HybridVariant::default(), HybridVariant::Fast);
        let e = "quick".parse::<HybridVariant>().unwrap_err();
        assert!(e.to_string().contains("paper, fast"), "{e}");
    }
}
