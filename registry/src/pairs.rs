//! Key-value entry points: one function per (key type, value type), keys of the six
//! [`SortKey`] types, values `u32` and `u64` (the index types that make a permutation
//! visible).

use sortlab_primitives::{DeviceBuffer, Gpu, Order, SortKey, SortValue};

use crate::pick::pick;

/// A CPU sort of key-value pairs in place: `values[i]` moves with `keys[i]`. Errors as the
/// CPU twins' (keys and values of different lengths), data then unchanged.
pub type CpuPairsFn<K, V> =
    fn(&mut [K], &mut [V], Order) -> Result<(), sortlab_cpu_reference::Error>;

/// A GPU sort of device-resident key-value pairs in place: `values[i]` moves with `keys[i]`.
pub type GpuPairsFn<K, V> =
    fn(&Gpu, &mut DeviceBuffer<K>, &mut DeviceBuffer<V>, Order) -> sortlab_primitives::Result<()>;

/// Declares a pair table `$table` of `$fn` pointers, one field per `(key, value)` type.
macro_rules! pair_table {
    ($(#[$doc:meta])* $table:ident, $fn:ident, $(($field:ident, $k:ty, $v:ty)),* $(,)?) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub struct $table {
            /// Whether equal keys keep their input order (with their values), in both orders.
            pub stable: bool,
            $(
                #[doc = concat!("The `", stringify!($k), "` keys, `", stringify!($v),
                    "` values instance.")]
                pub $field: $fn<$k, $v>,
            )*
        }

        impl $table {
            /// The instance for keys `K` and values `V`; `None` for a value type other than
            /// `u32` and `u64`.
            pub fn get<K: SortKey, V: SortValue>(&self) -> Option<$fn<K, V>> {
                pick(&[$(&self.$field as &dyn std::any::Any),*])
            }
        }
    };
}

/// Declares both pair tables with the same twelve fields.
macro_rules! pair_tables {
    ($(($field:ident, $k:ty, $v:ty)),* $(,)?) => {
        pair_table!(
            /// One CPU key-value sort per (key, value) type, and its stability.
            CpuPairs, CpuPairsFn, $(($field, $k, $v)),*
        );
        pair_table!(
            /// One GPU key-value sort per (key, value) type, and its stability.
            GpuPairs, GpuPairsFn, $(($field, $k, $v)),*
        );

        /// Builds a pair table (`$table`: [`CpuPairs`] or [`GpuPairs`]) of stability
        /// `$stable` from a generic function.
        macro_rules! per_pair {
            ($table_:ident, $stable:expr, $f:path) => {
                $crate::pairs::$table_ {
                    stable: $stable,
                    $($field: $f,)*
                }
            };
        }
    };
}

pair_tables!(
    (u32_u32, u32, u32),
    (u32_u64, u32, u64),
    (i32_u32, i32, u32),
    (i32_u64, i32, u64),
    (f32_u32, f32, u32),
    (f32_u64, f32, u64),
    (u64_u32, u64, u32),
    (u64_u64, u64, u64),
    (i64_u32, i64, u32),
    (i64_u64, i64, u64),
    (f64_u32, f64, u32),
    (f64_u64, f64, u64),
);

// The path import is what lets `table.rs` name a macro defined by a macro expansion.
#[allow(clippy::single_component_path_imports)]
pub(crate) use per_pair;
