//! [`HybridVariant`].

use std::fmt;
use std::str::FromStr;

use sortlab_primitives::ParseNameError;

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

impl HybridVariant {
    /// Every variant, the paper's first.
    pub const ALL: [HybridVariant; 2] = [HybridVariant::Paper, HybridVariant::Fast];

    /// Short name: `"paper"`, `"fast"`.
    pub fn name(self) -> &'static str {
        match self {
            HybridVariant::Paper => "paper",
            HybridVariant::Fast => "fast",
        }
    }
}

impl fmt::Display for HybridVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for HybridVariant {
    type Err = ParseNameError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        HybridVariant::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| ParseNameError {
                what: "hybrid variant",
                given: s.to_string(),
                known: HybridVariant::ALL.map(|v| v.name()).join(", "),
            })
    }
}

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
