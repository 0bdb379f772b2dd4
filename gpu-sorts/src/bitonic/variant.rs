//! [`BitonicVariant`].

/// Which bitonic sort runs: the two published kernels, kept faithful for comparison, and a
/// fast default.
///
/// Every variant sorts every key type in both orders, with or without values, and is unstable
/// (equal keys may change their order; with values, the values of equal keys may too).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BitonicVariant {
    /// The bitonic sorting report's kernel as published: one launch per (stage, step), thread
    /// `i` finding its pair by the index mapping `map = (i / 2^(t-1)) * 2^t + i mod 2^(t-1)`,
    /// partner `map + 2^(t-1)`, direction `(map / 2^g) mod 2`, and the compare-exchange
    /// `atomicMin(&a[m1], atomicMax(&a[m2], a[m1]))`. Other lengths than powers of two are
    /// padded in scratch memory.
    Mapping,
    /// The course notes' kernel: for `k = 2, 4, ..., N` and `j = k/2, ..., 1`, one launch in
    /// which thread `i` compares `i` with `i ^ j` (if larger), ascending where `i & k == 0`.
    /// Padded like [`BitonicVariant::Mapping`].
    Notes,
    /// The default: tiles sorted in shared memory and registers, the global steps of each
    /// later stage fused several per launch in registers, the last steps of each stage in
    /// shared memory; a network for any length (no padding, no scratch).
    #[default]
    Fast,
}

sortlab_primitives::named_variants!(
    BitonicVariant,
    "bitonic variant",
    [Mapping => "mapping", Notes => "notes", Fast => "fast"]
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for v in BitonicVariant::ALL {
            assert_eq!(v.name().parse::<BitonicVariant>().unwrap(), v);
            assert_eq!(v.to_string(), v.name());
        }
        assert_eq!(BitonicVariant::default(), BitonicVariant::Fast);
        let e = "odd-even".parse::<BitonicVariant>().unwrap_err();
        assert!(e.to_string().contains("mapping, notes, fast"), "{e}");
    }
}
