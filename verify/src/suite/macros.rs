//! [`crate::sort_suite!`]: the whole suite on one algorithm, in one line.

/// Generates a test module that runs the whole suite on one algorithm.
///
/// `sort_suite!(name, expr)` makes `mod name` with, for each key type (`key_u32`, `key_i32`,
/// `key_f32`, `key_u64`, `key_i64`, `key_f64`), the `#[test]`s of the table in
/// [`crate::suite`]: `patterns_ascending`, `patterns_descending`, `lengths_ascending`,
/// `lengths_descending`, `pairs_u32_ascending`, `pairs_u32_descending`,
/// `pairs_u64_ascending`, `pairs_u64_descending`, `quickcheck`, and `large` (ignored; in
/// this form it also needs `SORTLAB_LARGE=1`, see [`crate::suite::run_large_if_enabled`]).
/// `expr` must evaluate to a [`SortAlgorithm`](crate::SortAlgorithm); it is evaluated once per test, inside the
/// generated module (which imports everything from the calling module with `use super::*`),
/// so it may construct a device handle.
///
/// `sort_suite!(name, expr, ignore = "reason")` puts `#[ignore = "reason"]` on every
/// generated test (for GPU algorithms: run them with `--include-ignored` on a CUDA machine;
/// `large` then runs without `SORTLAB_LARGE`).
///
/// # Example
/// ```ignore
/// sortlab_verify::sort_suite!(cpu_stable, sortlab_verify::algorithms::CpuStable);
/// sortlab_verify::sort_suite!(gpu_radix, GpuRadix::new(Gpu::new().unwrap()),
///                             ignore = "needs a CUDA device");
/// ```
/// Run one algorithm's suite: `cargo test -p my-crate cpu_stable::`; one key type:
/// `cargo test -p my-crate cpu_stable::key_f32`.
#[macro_export]
macro_rules! sort_suite {
    ($name:ident, $alg:expr $(,)?) => {
        $crate::__sort_suite!(@suite $name, $alg, [],
            [#[ignore = "large inputs: set SORTLAB_LARGE=1 and run with --include-ignored"]],
            run_large_if_enabled);
    };
    ($name:ident, $alg:expr, ignore = $reason:literal $(,)?) => {
        $crate::__sort_suite!(@suite $name, $alg, [#[ignore = $reason]], [#[ignore = $reason]],
            run_large);
    };
}

/// Implementation of [`sort_suite!`]; not a public interface.
#[doc(hidden)]
#[macro_export]
macro_rules! __sort_suite {
    (@suite $name:ident, $alg:expr, [$($attr:tt)*], [$($large:tt)*], $run_large:ident) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            fn algorithm() -> impl $crate::suite::SortAlgorithm {
                $alg
            }

            $crate::__sort_suite!(@key [$($attr)*] [$($large)*] $run_large key_u32 u32);
            $crate::__sort_suite!(@key [$($attr)*] [$($large)*] $run_large key_i32 i32);
            $crate::__sort_suite!(@key [$($attr)*] [$($large)*] $run_large key_f32 f32);
            $crate::__sort_suite!(@key [$($attr)*] [$($large)*] $run_large key_u64 u64);
            $crate::__sort_suite!(@key [$($attr)*] [$($large)*] $run_large key_i64 i64);
            $crate::__sort_suite!(@key [$($attr)*] [$($large)*] $run_large key_f64 f64);
        }
    };
    (@key [$($attr:tt)*] [$($large:tt)*] $run_large:ident $m:ident $K:ty) => {
        mod $m {
            use $crate::suite as s;
            use $crate::Order::{Ascending, Descending};

            fn name(test: &str) -> ::std::string::String {
                ::std::format!("{}::{}", ::std::module_path!(), test)
            }

            $crate::__sort_suite!(@test [$($attr)*] patterns_ascending, run_patterns::<$K, _>, Ascending);
            $crate::__sort_suite!(@test [$($attr)*] patterns_descending, run_patterns::<$K, _>, Descending);
            $crate::__sort_suite!(@test [$($attr)*] lengths_ascending, run_lengths::<$K, _>, Ascending);
            $crate::__sort_suite!(@test [$($attr)*] lengths_descending, run_lengths::<$K, _>, Descending);
            $crate::__sort_suite!(@test [$($attr)*] pairs_u32_ascending, run_pairs::<$K, u32, _>, Ascending);
            $crate::__sort_suite!(@test [$($attr)*] pairs_u32_descending, run_pairs::<$K, u32, _>, Descending);
            $crate::__sort_suite!(@test [$($attr)*] pairs_u64_ascending, run_pairs::<$K, u64, _>, Ascending);
            $crate::__sort_suite!(@test [$($attr)*] pairs_u64_descending, run_pairs::<$K, u64, _>, Descending);
            $crate::__sort_suite!(@test [$($attr)*] quickcheck, run_quickcheck::<$K, _>);
            $crate::__sort_suite!(@test [$($large)*] large, $run_large::<$K, _>);
        }
    };
    // One test: `s::$run(&algorithm(), [order,] &name(test))`.
    (@test [$($attr:tt)*] $test:ident, $run:ident::<$($T:ty),+> $(, $order:ident)?) => {
        #[test]
        $($attr)*
        fn $test() {
            s::$run::<$($T),+>(&super::algorithm(), $($order,)? &name(::std::stringify!($test)));
        }
    };
}
