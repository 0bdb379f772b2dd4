//! [`SampleVariant`].

/// Which sample sort runs: the course notes' per-bucket sort, kept for the reproduction, and a
/// fast default.
///
/// Both variants bucket the same way (sampled splitters in an implicit search tree, equality
/// buckets, a stable scatter), are stable, sort every key type in both orders, with or without
/// values, and give exactly the CPU reference's result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SampleVariant {
    /// The course notes: buckets of at most 1024 keys sorted each by one block with an odd-even
    /// transposition sort in shared memory (as many rounds as keys; stable). Slow by design:
    /// it measures what the notes' bucket sort costs next to a block merge sort.
    Notes,
    /// The default: buckets of at most one tile (8192 keys of 4 bytes, 4096 of 8) sorted each
    /// by one block with the block merge sort of `primitives`. Inputs of one tile are sorted by
    /// one block, in place, without scratch.
    #[default]
    Fast,
}

sortlab_primitives::named_variants!(
    SampleVariant,
    "sample variant",
    [Notes => "notes", Fast => "fast"]
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for v in SampleVariant::ALL {
            assert_eq!(v.name().parse::<SampleVariant>().unwrap(), v);
            assert_eq!(v.to_string(), v.name());
        }
        assert_eq!(SampleVariant::default(), SampleVariant::Fast);
        let e = "quick".parse::<SampleVariant>().unwrap_err();
        assert!(e.to_string().contains("notes, fast"), "{e}");
    }
}
