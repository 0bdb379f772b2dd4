//! Key types, their order-preserving bit maps, sort order and value types (DESIGN.md §3).
//!
//! Every key type maps to an unsigned integer of the same width whose natural order is the key's
//! order: unsigned keys map to themselves, signed keys flip the sign bit, and floats flip every
//! bit of a negative number and only the sign bit of a non-negative one. For floats this is IEEE
//! total order, exactly as [`f32::total_cmp`]:
//! `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`.
//!
//! The same maps exist as device functions in `primitives/kernels/thread/key_bits.cuh`, so a
//! kernel and the host agree bit for bit.

use std::cmp::Ordering;
use std::fmt;
use std::hash::Hash;
use std::str::FromStr;

use crate::runtime::KernelScalar;

mod sealed {
    pub trait Sealed {}
}

/// Plain data that may be copied to and from the device byte for byte.
///
/// # Safety
/// Implementors must be `Copy`, have no padding and no invalid bit patterns, so that any bytes
/// written by a kernel form a valid value.
pub unsafe trait DeviceCopy: Copy + Send + Sync + 'static {}

macro_rules! device_copy {
    ($($t:ty),*) => { $( unsafe impl DeviceCopy for $t {} )* };
}
device_copy!(u8, i8, u16, i16, u32, i32, f32, u64, i64, f64);

/// The unsigned word a key maps to: `u32` for 4-byte keys, `u64` for 8-byte keys.
pub trait KeyBits:
    sealed::Sealed + DeviceCopy + KernelScalar + Ord + Hash + fmt::Debug + fmt::LowerHex + Default
{
    /// Width of the word in bits (32 or 64).
    const BITS: u32;
    /// CUDA C type of the word (`unsigned int` or `unsigned long long`).
    const CUDA_TYPE: &'static str;
    /// The word as a `u64` (zero-extended).
    fn to_u64(self) -> u64;
    /// The low `Self::BITS` bits of `v`.
    fn from_u64(v: u64) -> Self;
    /// The `bits`-wide digit starting at bit `shift` (`bits <= 32`).
    #[inline]
    fn digit(self, shift: u32, bits: u32) -> usize {
        ((self.to_u64() >> shift) & ((1u64 << bits) - 1)) as usize
    }
}

impl KeyBits for u32 {
    const BITS: u32 = 32;
    const CUDA_TYPE: &'static str = "unsigned int";
    #[inline]
    fn to_u64(self) -> u64 {
        self as u64
    }
    #[inline]
    fn from_u64(v: u64) -> Self {
        v as u32
    }
}

impl KeyBits for u64 {
    const BITS: u32 = 64;
    const CUDA_TYPE: &'static str = "unsigned long long";
    #[inline]
    fn to_u64(self) -> u64 {
        self
    }
    #[inline]
    fn from_u64(v: u64) -> Self {
        v
    }
}

/// A key that sortlab can sort: `u32`, `i32`, `f32`, `u64`, `i64` or `f64`.
///
/// # Example
/// ```
/// use sortlab_primitives::SortKey;
/// assert!((-0.0f32).to_ordered_bits() < 0.0f32.to_ordered_bits());
/// assert!(f32::NEG_INFINITY.to_ordered_bits() < (-1.0f32).to_ordered_bits());
/// assert_eq!(f64::from_ordered_bits((-2.5f64).to_ordered_bits()), -2.5);
/// assert_eq!(i32::MIN.to_ordered_bits(), 0);
/// ```
pub trait SortKey:
    sealed::Sealed + DeviceCopy + PartialEq + PartialOrd + fmt::Debug + fmt::Display
{
    /// The unsigned word of the same width whose order is this key's order.
    type Bits: KeyBits;
    /// Short name used on the command line and in kernel defines (`"u32"`, `"f64"`, ...).
    const NAME: &'static str;
    /// CUDA C type name (`"unsigned int"`, `"float"`, ...).
    const CUDA_TYPE: &'static str;
    /// Size in bytes.
    const SIZE: usize;
    /// Whether the type is a float (has NaN, infinities and -0.0).
    const IS_FLOAT: bool;
    /// The smallest key in total order (`MIN` for integers, a negative NaN for floats).
    const LOWEST: Self;
    /// The largest key in total order (`MAX` for integers, a positive NaN for floats).
    const HIGHEST: Self;

    /// The order-preserving map to unsigned bits.
    fn to_ordered_bits(self) -> Self::Bits;
    /// The inverse of [`SortKey::to_ordered_bits`].
    fn from_ordered_bits(bits: Self::Bits) -> Self;
    /// Total order of keys, the order every sortlab sort uses (as `f32::total_cmp` for floats).
    #[inline]
    fn total_cmp(&self, other: &Self) -> Ordering {
        self.to_ordered_bits().cmp(&other.to_ordered_bits())
    }
    /// Reads one key from exactly `Self::SIZE` little-endian bytes.
    fn from_le_slice(bytes: &[u8]) -> Self;
    /// Appends the key's little-endian bytes to `out`.
    fn write_le(self, out: &mut Vec<u8>);
    /// Converts from `f64`, saturating for integers (used by generators).
    fn from_f64(v: f64) -> Self;
    /// Converts to `f64`, possibly rounding (used for statistics and projections).
    fn to_f64(self) -> f64;
}

/// The byte and `f64` conversions every key type implements the same way.
macro_rules! key_io {
    ($t:ty) => {
        #[inline]
        fn from_le_slice(bytes: &[u8]) -> Self {
            let mut b = [0u8; std::mem::size_of::<$t>()];
            b.copy_from_slice(bytes);
            <$t>::from_le_bytes(b)
        }
        #[inline]
        fn write_le(self, out: &mut Vec<u8>) {
            out.extend_from_slice(&self.to_le_bytes());
        }
        #[inline]
        fn from_f64(v: f64) -> Self {
            v as $t
        }
        #[inline]
        fn to_f64(self) -> f64 {
            self as f64
        }
    };
}

/// One key type: its bit word, names, range, and the order-preserving map to its bits and back.
macro_rules! impl_key {
    ($t:ty => $u:ty, $name:literal, $cuda:literal, float: $float:literal,
     lowest: $lo:expr, highest: $hi:expr,
     to_bits: |$k:ident| $to:expr, from_bits: |$b:ident| $from:expr) => {
        impl sealed::Sealed for $t {}
        impl SortKey for $t {
            type Bits = $u;
            const NAME: &'static str = $name;
            const CUDA_TYPE: &'static str = $cuda;
            const SIZE: usize = std::mem::size_of::<$t>();
            const IS_FLOAT: bool = $float;
            const LOWEST: Self = $lo;
            const HIGHEST: Self = $hi;
            #[inline]
            fn to_ordered_bits(self) -> $u {
                let $k = self;
                $to
            }
            #[inline]
            fn from_ordered_bits($b: $u) -> Self {
                $from
            }
            key_io!($t);
        }
    };
}

/// Unsigned keys are their own bits.
macro_rules! impl_unsigned {
    ($t:ty, $name:literal, $cuda:literal) => {
        impl_key!($t => $t, $name, $cuda, float: false, lowest: <$t>::MIN, highest: <$t>::MAX,
                  to_bits: |k| k, from_bits: |b| b);
    };
}

/// Signed keys flip the sign bit.
macro_rules! impl_signed {
    ($t:ty, $u:ty, $name:literal, $cuda:literal) => {
        impl_key!($t => $u, $name, $cuda, float: false, lowest: <$t>::MIN, highest: <$t>::MAX,
                  to_bits: |k| (k as $u) ^ (1 << (<$u>::BITS - 1)),
                  from_bits: |b| (b ^ (1 << (<$u>::BITS - 1))) as $t);
    };
}

/// Floats flip every bit of a negative number and the sign bit of a non-negative one (IEEE
/// total order; the lowest key is -NaN with every payload bit set, the highest +NaN).
macro_rules! impl_float {
    ($t:ty, $u:ty, $name:literal, $cuda:literal) => {
        impl_key!($t => $u, $name, $cuda, float: true,
                  lowest: <$t>::from_bits(<$u>::MAX), highest: <$t>::from_bits(<$u>::MAX >> 1),
                  to_bits: |k| {
                      let sign: $u = 1 << (<$u>::BITS - 1);
                      let b = k.to_bits();
                      if b & sign != 0 { !b } else { b | sign }
                  },
                  from_bits: |b| {
                      let sign: $u = 1 << (<$u>::BITS - 1);
                      <$t>::from_bits(if b & sign != 0 { b ^ sign } else { !b })
                  });
    };
}

impl_unsigned!(u32, "u32", "unsigned int");
impl_unsigned!(u64, "u64", "unsigned long long");
impl_signed!(i32, u32, "i32", "int");
impl_signed!(i64, u64, "i64", "long long");
impl_float!(f32, u32, "f32", "float");
impl_float!(f64, u64, "f64", "double");

/// The key types sortlab supports, as a value (for command lines and dispatch tables).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyType {
    /// `u32`
    U32,
    /// `i32`
    I32,
    /// `f32`
    F32,
    /// `u64`
    U64,
    /// `i64`
    I64,
    /// `f64`
    F64,
}

impl KeyType {
    /// Every key type, in a fixed order.
    pub const ALL: [KeyType; 6] = [
        KeyType::U32,
        KeyType::I32,
        KeyType::F32,
        KeyType::U64,
        KeyType::I64,
        KeyType::F64,
    ];
    /// Short name (`"u32"`, ...), the same as [`SortKey::NAME`].
    pub fn name(self) -> &'static str {
        match self {
            KeyType::U32 => u32::NAME,
            KeyType::I32 => i32::NAME,
            KeyType::F32 => f32::NAME,
            KeyType::U64 => u64::NAME,
            KeyType::I64 => i64::NAME,
            KeyType::F64 => f64::NAME,
        }
    }
    /// Size of one key in bytes.
    pub fn size(self) -> usize {
        match self {
            KeyType::U32 | KeyType::I32 | KeyType::F32 => 4,
            KeyType::U64 | KeyType::I64 | KeyType::F64 => 8,
        }
    }
}

impl fmt::Display for KeyType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error of parsing a [`KeyType`] or an [`Order`] from a string.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} `{given}`; known: {known}")]
pub struct ParseNameError {
    /// What was being parsed ("key type", "order").
    pub what: &'static str,
    /// The string given.
    pub given: String,
    /// The accepted names, comma separated.
    pub known: String,
}

impl FromStr for KeyType {
    type Err = ParseNameError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        KeyType::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| ParseNameError {
                what: "key type",
                given: s.to_string(),
                known: KeyType::ALL.map(|t| t.name()).join(", "),
            })
    }
}

/// Sort order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Order {
    /// Smallest key first (total order of [`SortKey::total_cmp`]).
    #[default]
    Ascending,
    /// Largest key first.
    Descending,
}

impl Order {
    /// Compares two keys in this order: `Less` means `a` goes first.
    #[inline]
    pub fn cmp_keys<K: SortKey>(self, a: &K, b: &K) -> Ordering {
        match self {
            Order::Ascending => a.total_cmp(b),
            Order::Descending => b.total_cmp(a),
        }
    }
    /// Whether this is [`Order::Descending`].
    #[inline]
    pub fn is_descending(self) -> bool {
        self == Order::Descending
    }
    /// The order as device code receives it: a flip word of the key's bit width, XOR-ed onto a
    /// key's ordered bits (all ones for [`Order::Descending`], so that descending is ascending
    /// on the complement; 0 for [`Order::Ascending`]). Every kernel takes the order this way
    /// (`sortlab/thread/key_bits.cuh`: `flip_bits`, `key_from_flipped_bits`).
    ///
    /// ```
    /// use sortlab_primitives::Order;
    /// assert_eq!(Order::Descending.flip::<u32>(), u32::MAX);
    /// assert_eq!(Order::Ascending.flip::<u64>(), 0);
    /// ```
    #[inline]
    pub fn flip<B: KeyBits>(self) -> B {
        match self {
            Order::Ascending => B::from_u64(0),
            Order::Descending => B::from_u64(u64::MAX >> (64 - B::BITS)),
        }
    }
    /// Name on the command line (`"asc"` / `"desc"`).
    pub fn name(self) -> &'static str {
        match self {
            Order::Ascending => "asc",
            Order::Descending => "desc",
        }
    }
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Order {
    type Err = ParseNameError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "asc" | "ascending" => Ok(Order::Ascending),
            "desc" | "descending" => Ok(Order::Descending),
            _ => Err(ParseNameError {
                what: "order",
                given: s.to_string(),
                known: "asc, desc".to_string(),
            }),
        }
    }
}

/// A value carried with a key in key-value sorts: 4- or 8-byte plain data.
///
/// Values are moved, never compared. Every [`SortKey`] type is also a value type, so an index
/// (`u32` or `u64`) can ride along to make any sort's permutation visible.
pub trait SortValue: DeviceCopy + PartialEq + fmt::Debug {
    /// CUDA C type that moves the value (`unsigned int` or `unsigned long long`: values are
    /// moved as raw bits).
    const CUDA_TYPE: &'static str;
    /// Size in bytes (4 or 8).
    const SIZE: usize;
}

macro_rules! impl_value {
    ($($t:ty => $cuda:literal),*) => {
        $( impl SortValue for $t {
            const CUDA_TYPE: &'static str = $cuda;
            const SIZE: usize = std::mem::size_of::<$t>();
        } )*
    };
}
impl_value!(u32 => "unsigned int", i32 => "unsigned int", f32 => "unsigned int",
            u64 => "unsigned long long", i64 => "unsigned long long", f64 => "unsigned long long");

#[cfg(test)]
mod tests {
    use super::*;

    fn check_monotone<K: SortKey>(sorted_by_total_cmp: &[K]) {
        for w in sorted_by_total_cmp.windows(2) {
            assert!(
                w[0].to_ordered_bits() <= w[1].to_ordered_bits(),
                "{:?} {:?}",
                w[0],
                w[1]
            );
        }
        for &k in sorted_by_total_cmp {
            assert_eq!(
                K::from_ordered_bits(k.to_ordered_bits()).to_ordered_bits(),
                k.to_ordered_bits()
            );
        }
    }

    #[test]
    fn float_map_is_total_order() {
        let mut v = vec![
            f32::NAN,
            -f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.0,
            -0.0,
            1.0,
            -1.0,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            1e-45,
            -1e-45,
            f32::MAX,
            f32::MIN,
        ];
        v.sort_by(|a, b| a.total_cmp(b));
        check_monotone(&v);
        for a in &v {
            for b in &v {
                assert_eq!(SortKey::total_cmp(a, b), f32::total_cmp(a, b));
            }
        }
        let mut d = vec![
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            -0.0,
            0.0,
            -5e-324,
            5e-324,
            f64::MIN,
        ];
        d.sort_by(|a, b| a.total_cmp(b));
        check_monotone(&d);
        assert_eq!(f32::LOWEST.to_ordered_bits(), 0);
        assert_eq!(f64::HIGHEST.to_ordered_bits(), u64::MAX);
    }

    #[test]
    fn signed_map_is_order() {
        check_monotone(&[i32::MIN, -1, 0, 1, i32::MAX]);
        check_monotone(&[i64::MIN, -1, 0, 1, i64::MAX]);
        assert_eq!(i64::from_ordered_bits(0), i64::MIN);
    }

    #[test]
    fn names_parse() {
        for t in KeyType::ALL {
            assert_eq!(t.name().parse::<KeyType>().unwrap(), t);
        }
        let e = "u16".parse::<KeyType>().unwrap_err();
        assert!(e.to_string().contains("u32, i32, f32, u64, i64, f64"));
        assert_eq!("desc".parse::<Order>().unwrap(), Order::Descending);
        assert!("up".parse::<Order>().is_err());
    }
}
