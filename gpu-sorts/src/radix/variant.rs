//! [`RadixVariant`].

/// Which radix sort runs: the two of Satish, Harris and Garland's paper, kept faithful for
/// comparison, and a fast default of the Onesweep kind.
///
/// Every variant is stable, sorts every key type in both orders, with or without values, and
/// gives exactly the CPU reference's result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RadixVariant {
    /// CUDPP's radix sort built on the split primitive: one bit per pass from the least
    /// significant; per tile a count of the keys whose bit is 0, a scan of the counts, and a
    /// split (block scan of the bit flags, scatter). 32 passes for 4-byte keys, 64 for 8-byte.
    OneBit,
    /// Satish, Harris and Garland's blocked radix sort: 4-bit digits; each tile sorted by the
    /// digit in shared memory (the block radix sort of `primitives`), per-tile digit counts, a
    /// scan over them, and a coalesced scatter. 8 passes for 4-byte keys, 16 for 8-byte.
    Satish,
    /// The default: an Onesweep-class sort (Adinets and Merrill, 2022). One histogram pass
    /// counts the 8-bit digits of every pass; each pass then ranks tiles with warp-level
    /// multi-split and finds their output offsets by decoupled look-back, in one kernel.
    /// Passes whose digit is the same for every key are skipped (on the device, without a
    /// round trip to the host), and inputs of one tile are sorted by one block.
    #[default]
    Fast,
}

sortlab_primitives::named_variants!(
    RadixVariant,
    "radix variant",
    [OneBit => "onebit", Satish => "satish", Fast => "fast"]
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for v in RadixVariant::ALL {
            assert_eq!(v.name().parse::<RadixVariant>().unwrap(), v);
            assert_eq!(v.to_string(), v.name());
        }
        assert_eq!(RadixVariant::default(), RadixVariant::Fast);
        let e = "lsd".parse::<RadixVariant>().unwrap_err();
        assert!(e.to_string().contains("onebit, satish, fast"), "{e}");
    }
}
