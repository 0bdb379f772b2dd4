//! The key word maps the kernels use: ascending ordered bits = raw ^ (top bit of raw ? `neg` :
//! `pos`), and the order as the flip word ([`Order::flip`]) XOR-ed onto them; the kernels fold
//! the flip word into both masks, and derive the inverse map's masks from them.
//!
//! Every key type's order-preserving map (DESIGN.md §3) is an exclusive or with a mask chosen
//! by the sign bit: nothing for unsigned keys, the sign bit for signed keys, every bit of a
//! negative float and the sign bit of a non-negative one. So one kernel per key width serves
//! every key type and both orders, with the masks and the flip word as arguments: fewer
//! modules to compile.

use sortlab_primitives::{KernelArgs, KeyBits, Order, SortKey};

/// A key type's raw word, its ascending map and the order's flip word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct KeySpec {
    /// Bytes per key (4 or 8).
    pub size: usize,
    /// CUDA type of the raw word.
    pub word: &'static str,
    /// Ascending mask of raw words with the top bit set.
    pub neg: u64,
    /// Ascending mask of raw words with the top bit clear.
    pub pos: u64,
    /// The order: `Order::flip` of the key's bits (0 ascending, all ones descending).
    pub flip: u64,
}

/// The key whose raw little-endian bits are the low bytes of `raw`.
fn raw_key<K: SortKey>(raw: u64) -> K {
    K::from_le_slice(&raw.to_le_bytes()[..K::SIZE])
}

/// All ones in the key's width.
fn width_mask(size: usize) -> u64 {
    if size >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * size)) - 1
    }
}

/// The sort bits of `k` in `order`, as a u64.
pub(crate) fn sort_bits<K: SortKey>(k: K, order: Order) -> u64 {
    let b = k.to_ordered_bits().to_u64();
    match order {
        Order::Ascending => b,
        Order::Descending => !b & width_mask(K::SIZE),
    }
}

impl KeySpec {
    /// The maps of key type `K` in `order`.
    pub fn of<K: SortKey>(order: Order) -> Self {
        let top = 1u64 << (8 * K::SIZE - 1);
        KeySpec {
            size: K::SIZE,
            word: K::Bits::CUDA_TYPE,
            neg: sort_bits(raw_key::<K>(top), Order::Ascending) ^ top,
            pos: sort_bits(raw_key::<K>(0), Order::Ascending),
            flip: order.flip::<K::Bits>().to_u64(),
        }
    }

    /// Appends `v` as a kernel argument of the raw word's type.
    fn push(&self, args: &mut KernelArgs, v: u64) {
        if self.size == 4 {
            args.push(v as u32);
        } else {
            args.push(v);
        }
    }

    /// Appends the kernels' `neg, pos, flip` arguments.
    pub fn push_maps(&self, args: &mut KernelArgs) {
        for m in [self.neg, self.pos, self.flip] {
            self.push(args, m);
        }
    }

    /// The order folded into both masks, as every kernel does first.
    #[cfg(test)]
    fn folded(&self) -> (u64, u64) {
        (self.neg ^ self.flip, self.pos ^ self.flip)
    }

    /// The ordered word of raw word `raw` (the kernels' map, for tests).
    #[cfg(test)]
    fn ordered(&self, raw: u64) -> u64 {
        let top = 1u64 << (8 * self.size - 1);
        let (neg, pos) = self.folded();
        raw ^ if raw & top != 0 { neg } else { pos }
    }

    /// The raw word of ordered word `o` (the kernels' inverse map, `inverse_masks` in small.cu
    /// and satish.cu, for tests).
    #[cfg(test)]
    fn raw(&self, o: u64) -> u64 {
        let top = 1u64 << (8 * self.size - 1);
        let (neg, pos) = self.folded();
        let (inv_hi, inv_lo) = if (top ^ neg) & top != 0 {
            (neg, pos)
        } else {
            (pos, neg)
        };
        o ^ if o & top != 0 { inv_hi } else { inv_lo }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<K: SortKey>() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut samples = vec![
            0u64,
            1,
            u64::MAX,
            1 << 31,
            (1 << 31) - 1,
            1 << 63,
            (1 << 63) - 1,
        ];
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            samples.push(x);
        }
        for order in [Order::Ascending, Order::Descending] {
            let spec = KeySpec::of::<K>(order);
            for &s in &samples {
                let raw = s & width_mask(K::SIZE);
                let k = raw_key::<K>(raw);
                assert_eq!(
                    spec.ordered(raw),
                    sort_bits(k, order),
                    "{} {order} raw {raw:#x}",
                    K::NAME
                );
                assert_eq!(spec.raw(spec.ordered(raw)), raw, "{} {order}", K::NAME);
            }
        }
    }

    #[test]
    fn masks_are_the_key_maps() {
        check::<u32>();
        check::<i32>();
        check::<f32>();
        check::<u64>();
        check::<i64>();
        check::<f64>();
        let f = KeySpec::of::<f32>(Order::Ascending);
        assert_eq!((f.neg, f.pos), (0xffff_ffff, 0x8000_0000));
    }
}
