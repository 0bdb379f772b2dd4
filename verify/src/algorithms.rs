//! The CPU engine's sorts as [`SortAlgorithm`](crate::SortAlgorithm)s, so the suite runs them
//! in CI (`tests/cpu_reference_suite.rs`) and so GPU tests can compare engines side by side;
//! and [`crate::sort_algorithm!`], which makes a [`SortAlgorithm`](crate::SortAlgorithm) of a
//! host sort's two functions.

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

/// Implements [`SortAlgorithm`](crate::SortAlgorithm) for a type from a keys-only function and a key-value function
/// (host sorts such as the CPU engine's: `keys(&mut [K], Order)`, whose result is ignored, and
/// `pairs(&mut [K], &mut [V], Order) -> Result<_, E: Display>`), with its name, stability and,
/// optionally, its tile sizes.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::radix;
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
/// ```
#[macro_export]
macro_rules! sort_algorithm {
    ($t:ty, $name:expr, stable = $stable:expr, keys = $keys:path, pairs = $pairs:path
     $(, tiles = $tiles:expr)? $(,)?) => {
        impl $crate::SortAlgorithm for $t {
            fn name(&self) -> ::std::string::String {
                ::std::string::String::from($name)
            }
            fn is_stable(&self) -> bool {
                $stable
            }
            fn sort_keys<K: $crate::SortKey>(
                &self,
                keys: &mut [K],
                order: $crate::Order,
            ) -> ::std::result::Result<(), ::std::string::String> {
                $keys(keys, order);
                ::std::result::Result::Ok(())
            }
            fn sort_pairs<K: $crate::SortKey, V: $crate::SortValue>(
                &self,
                keys: &mut [K],
                values: &mut [V],
                order: $crate::Order,
            ) -> ::std::result::Result<(), ::std::string::String> {
                $pairs(keys, values, order)
                    .map(|_| ())
                    .map_err(|e| ::std::string::ToString::to_string(&e))
            }
            $(
                fn tile_sizes(&self) -> ::std::vec::Vec<usize> {
                    $tiles
                }
            )?
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
