//! [`QuickVariant`].

/// Which GPU quicksort runs: the course notes' host-driven one, kept for comparison, and a fast
/// default that schedules itself on the device.
///
/// Both run the same kernels (Cederman and Tsigas's two-pass three-way partition, then one
/// block per small sequence), sort every key type in both orders, with or without values, and
/// are unstable.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum QuickVariant {
    /// The course notes' version: one partition round per host iteration; after planning each
    /// round the host copies the list length and chunk total back (a device-to-host copy and a
    /// stream synchronisation per round, and one more for the task count) and sizes the next
    /// launches exactly from them; it stops as soon as a round has no sequence left.
    Notes,
    /// The default: the host launches a fixed number of rounds computed from n (1.5 times the
    /// rounds of perfect pivots plus 4), every one grid-strided over counts the device keeps
    /// itself, so nothing comes back to the host; rounds after the work runs out cost three
    /// near-empty launches each.
    #[default]
    Fast,
}

sortlab_primitives::named_variants!(
    QuickVariant,
    "quicksort variant",
    [Notes => "notes", Fast => "fast"]
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for v in QuickVariant::ALL {
            assert_eq!(v.name().parse::<QuickVariant>().unwrap(), v);
            assert_eq!(v.to_string(), v.name());
        }
        assert_eq!(QuickVariant::default(), QuickVariant::Fast);
        let e = "hoare".parse::<QuickVariant>().unwrap_err();
        assert!(e.to_string().contains("notes, fast"), "{e}");
    }
}
