//! The CPU engine's sorts as [`SortAlgorithm`](crate::SortAlgorithm)s, so the suite runs them
//! in CI (`tests/cpu_reference_suite.rs`) and so GPU tests can compare engines side by side;
//! and [`crate::sort_algorithm!`], which makes a [`SortAlgorithm`](crate::SortAlgorithm) of a
//! host sort's two functions, or of two bodies.

use sortlab_cpu_reference::sort;

/// The CPU engine's parallel stable sort: `cpu_reference::sort::{sort, sort_pairs}`.
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuStable;

/// The CPU engine's parallel unstable sort:
/// `cpu_reference::sort::{sort_unstable, sort_pairs_unstable}`.
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuUnstable;

/// The CPU engine's sequential stable sort: `cpu_reference::sort::{sort_seq, sort_pairs_seq}`.
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuSeq;

/// Implements [`SortAlgorithm`](crate::SortAlgorithm) for a type, in one of two forms.
///
/// **From two host functions** (sorts such as the CPU engine's): a keys-only function
/// `keys(&mut [K], Order)`, whose result is ignored, and a key-value function
/// `pairs(&mut [K], &mut [V], Order) -> Result<_, E: Display>`, with the name, stability and,
/// optionally, the tile sizes.
///
/// **With bodies** (any algorithm, a device handle or state in `self` included): `impl
/// Type(self) { ... }` names the receiver `self` for the expressions and bodies inside, and
/// lists, in this order, `name:` (an expression turned into a `String`), `stable:`, optionally
/// `supports_pairs:` and `tiles:`, then `keys(keys, order) { ... }` and
/// `pairs(keys, values, order) { ... }`, bodies returning `Result<(), String>` (the argument
/// names are the caller's; `_` ignores one). The key and value types are `K` and `V`.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::{radix, sort};
///
/// /// The CPU radix sort.
/// struct CpuRadix;
///
/// sortlab_verify::sort_algorithm!(
///     CpuRadix,
///     "cpu-reference radix",
///     stable = true,
///     keys = radix::sort_keys,
///     pairs = radix::sort_pairs,
///     tiles = vec![1 << 15],
/// );
/// sortlab_verify::check_keys::<u64, _>(
///     &CpuRadix,
///     sortlab_verify::Pattern::FullRange,
///     1000,
///     sortlab_verify::Order::Descending,
///     1,
/// );
///
/// /// The CPU sort on keys only, with a tile of `self.0` keys.
/// struct KeysOnly(usize);
///
/// sortlab_verify::sort_algorithm! {
///     impl KeysOnly(self) {
///         name: format!("keys only, tile {}", self.0),
///         stable: true,
///         supports_pairs: false,
///         tiles: vec![self.0],
///         keys(keys, order) {
///             sort::sort(keys, order);
///             Ok(())
///         }
///         pairs(_, _, _) {
///             Err("keys only".into())
///         }
///     }
/// }
/// sortlab_verify::check_keys::<f32, _>(
///     &KeysOnly(700),
///     sortlab_verify::Pattern::FloatSpecials,
///     1000,
///     sortlab_verify::Order::Ascending,
///     1,
/// );
/// ```
#[macro_export]
macro_rules! sort_algorithm {
    (impl $t:ident($s:ident) {
        name: $name:expr,
        stable: $stable:expr,
        $(supports_pairs: $supports_pairs:expr,)?
        $(tiles: $tiles:expr,)?
        keys($k:pat_param, $o:pat_param) $keys:block
        pairs($pk:pat_param, $pv:pat_param, $po:pat_param) $pairs:block
    }) => {
        impl $crate::SortAlgorithm for $t {
            fn name(&$s) -> ::std::string::String {
                ::std::string::String::from($name)
            }
            fn is_stable(&$s) -> bool {
                $stable
            }
            $(
                fn supports_pairs(&$s) -> bool {
                    $supports_pairs
                }
            )?
            fn sort_keys<K: $crate::SortKey>(
                &$s,
                $k: &mut [K],
                $o: $crate::Order,
            ) -> ::std::result::Result<(), ::std::string::String> $keys
            fn sort_pairs<K: $crate::SortKey, V: $crate::SortValue>(
                &$s,
                $pk: &mut [K],
                $pv: &mut [V],
                $po: $crate::Order,
            ) -> ::std::result::Result<(), ::std::string::String> $pairs
            $(
                fn tile_sizes(&$s) -> ::std::vec::Vec<usize> {
                    $tiles
                }
            )?
        }
    };
    ($t:ident, $name:expr, stable = $stable:expr, keys = $keys:path, pairs = $pairs:path
     $(, tiles = $tiles:expr)? $(,)?) => {
        $crate::sort_algorithm! {
            impl $t(self) {
                name: $name,
                stable: $stable,
                $(tiles: $tiles,)?
                keys(keys, order) {
                    $keys(keys, order);
                    ::std::result::Result::Ok(())
                }
                pairs(keys, values, order) {
                    $pairs(keys, values, order)
                        .map(|_| ())
                        .map_err(|e| ::std::string::ToString::to_string(&e))
                }
            }
        }
    };
}

crate::sort_algorithm!(
    CpuStable,
    "cpu-reference sort (stable, parallel)",
    stable = true,
    keys = sort::sort,
    pairs = sort::sort_pairs,
);
crate::sort_algorithm!(
    CpuUnstable,
    "cpu-reference sort_unstable (parallel)",
    stable = false,
    keys = sort::sort_unstable,
    pairs = sort::sort_pairs_unstable,
);
crate::sort_algorithm!(
    CpuSeq,
    "cpu-reference sort_seq (stable, sequential)",
    stable = true,
    keys = sort::sort_seq,
    pairs = sort::sort_pairs_seq,
);
