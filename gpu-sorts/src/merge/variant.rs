//! [`MergeVariant`].

/// Which merge sort runs: Satish, Harris and Garland's, kept faithful for comparison, and a fast
/// default with merge-path partitioning.
///
/// Both variants are stable, sort every key type in both orders, with or without values, and
/// give exactly the CPU reference's result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MergeVariant {
    /// Satish, Harris and Garland's merge sort as the course notes describe it: tiles of 1024
    /// keys sorted in shared memory, then one launch per merge level in which every key finds
    /// its rank in the other run of its pair by binary search and goes to (its index in its
    /// run + that rank). The notes assume distinct keys; ties are broken by run (left-run keys
    /// count the right run's keys strictly less, right-run keys those less or equal), which
    /// keeps the sort stable and the positions distinct.
    Satish,
    /// The default: tiles as large as shared memory allows sorted by the block merge sort of
    /// `primitives`, then merge levels in which a partition kernel splits every block's output
    /// range by merge path (Green, McColl and Bader) and each block merges its slices of the
    /// two runs in shared memory, loading and storing coalesced. Inputs of one tile are sorted
    /// by one block.
    #[default]
    Fast,
}

sortlab_primitives::named_variants!(
    MergeVariant,
    "merge variant",
    [Satish => "satish", Fast => "fast"]
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for v in MergeVariant::ALL {
            assert_eq!(v.name().parse::<MergeVariant>().unwrap(), v);
            assert_eq!(v.to_string(), v.name());
        }
        assert_eq!(MergeVariant::default(), MergeVariant::Fast);
        let e = "bottom-up".parse::<MergeVariant>().unwrap_err();
        assert!(e.to_string().contains("satish, fast"), "{e}");
    }
}
