//! The public entry points and options that every comparison sort module of this crate exposes
//! the same way, written once: [`entry_points!`] and [`sort_options!`].

/// Defines the six public entry points of a sort module over the module's private
/// `sort_with(gpu, keys, values: Option<&mut DeviceBuffer<V>>, opts, scratch: Option<&mut
/// DeviceBuffer<u8>>) -> Result<()>`, with their documentation:
/// `sort_keys_with_scratch`, `sort_pairs_with_scratch`, `sort_keys`, `sort_pairs`,
/// `sort_keys_host` and `sort_pairs_host`. The module keeps its own `scratch_bytes` and
/// `scratch_bytes_pairs` (the docs link to them) and its module documentation (the docs point
/// to it for variants, errors and performance).
///
/// - `module`: the module's name, as the examples import it (`"merge"`);
/// - `options`: the module's options type (`Default` gives the fast variant, ascending);
/// - `what`: the sort's name in the docs and in the host conveniences' messages;
/// - `keys_stability`, `pairs_stability`: the Stability sections of `sort_keys` and
///   `sort_pairs`.
macro_rules! entry_points {
    (
        module: $module:literal,
        options: $opts:ident,
        what: $what:literal,
        keys_stability: $kstab:literal,
        pairs_stability: $pstab:literal $(,)?
    ) => {
        /// Sorts `keys` in place with the scratch buffer `scratch` (at least [`scratch_bytes`]
        /// bytes).
        ///
        /// See the [module documentation](self) for the variants, key types, stability, errors
        /// and performance.
        pub fn sort_keys_with_scratch<K: ::sortlab_primitives::SortKey>(
            gpu: &::sortlab_primitives::Gpu,
            keys: &mut ::sortlab_primitives::DeviceBuffer<K>,
            opts: &$opts,
            scratch: &mut ::sortlab_primitives::DeviceBuffer<u8>,
        ) -> ::sortlab_primitives::Result<()> {
            let no_values = None::<&mut ::sortlab_primitives::DeviceBuffer<u32>>;
            sort_with(gpu, keys, no_values, opts, Some(scratch))
        }

        /// Sorts `keys` in place, with `values[i]` moving with `keys[i]`, using the scratch
        /// buffer `scratch` (at least [`scratch_bytes_pairs`] bytes).
        ///
        /// See the [module documentation](self) for the variants, key types, stability, errors
        /// and performance.
        pub fn sort_pairs_with_scratch<
            K: ::sortlab_primitives::SortKey,
            V: ::sortlab_primitives::SortValue,
        >(
            gpu: &::sortlab_primitives::Gpu,
            keys: &mut ::sortlab_primitives::DeviceBuffer<K>,
            values: &mut ::sortlab_primitives::DeviceBuffer<V>,
            opts: &$opts,
            scratch: &mut ::sortlab_primitives::DeviceBuffer<u8>,
        ) -> ::sortlab_primitives::Result<()> {
            sort_with(gpu, keys, Some(values), opts, Some(scratch))
        }

        #[doc = concat!("Sorts `keys` in place on the device by ", $what, ", by the variant of `opts`.")]
        ///
        /// # Overview
        /// Allocates [`scratch_bytes`] bytes of scratch from the stream-ordered pool (none when
        /// that is 0) and runs [`sort_keys_with_scratch`]. See the
        /// [module documentation](self).
        ///
        /// # Key types
        /// `u32`, `i32`, `f32`, `u64`, `i64`, `f64`; IEEE total order for floats; both orders.
        ///
        /// # Stability
        #[doc = $kstab]
        ///
        /// # Performance
        /// See the [module documentation](self).
        ///
        /// # Example
        #[doc = concat!(
            "```no_run\n",
            "use sortlab_gpu_sorts::", $module, "::{self, ", stringify!($opts), "};\n",
            "use sortlab_primitives::{DeviceBuffer, Gpu};\n",
            "let gpu = Gpu::new(0)?;\n",
            "let mut keys = DeviceBuffer::from_host(&gpu, &[3i32, -1, 2])?;\n",
            $module, "::sort_keys(&gpu, &mut keys, &", stringify!($opts), "::default())?;\n",
            "assert_eq!(keys.to_host()?, vec![-1, 2, 3]);\n",
            "# Ok::<(), sortlab_primitives::Error>(())\n",
            "```"
        )]
        pub fn sort_keys<K: ::sortlab_primitives::SortKey>(
            gpu: &::sortlab_primitives::Gpu,
            keys: &mut ::sortlab_primitives::DeviceBuffer<K>,
            opts: &$opts,
        ) -> ::sortlab_primitives::Result<()> {
            let no_values = None::<&mut ::sortlab_primitives::DeviceBuffer<u32>>;
            sort_with(gpu, keys, no_values, opts, None)
        }

        #[doc = concat!("Sorts `keys` in place on the device by ", $what, ", with `values[i]` moving with `keys[i]`.")]
        ///
        /// # Overview
        /// Allocates [`scratch_bytes_pairs`] bytes of scratch from the stream-ordered pool (none
        /// when that is 0) and runs [`sort_pairs_with_scratch`]. See the
        /// [module documentation](self).
        ///
        /// # Key types
        /// Keys: `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, IEEE total order for floats, both
        /// orders. Values: any [`SortValue`](sortlab_primitives::SortValue).
        ///
        /// # Stability
        #[doc = $pstab]
        ///
        /// # Performance
        /// See the [module documentation](self).
        ///
        /// # Example
        #[doc = concat!(
            "```no_run\n",
            "use sortlab_gpu_sorts::", $module, "::{self, ", stringify!($opts), "};\n",
            "use sortlab_primitives::{DeviceBuffer, Gpu};\n",
            "let gpu = Gpu::new(0)?;\n",
            "let mut keys = DeviceBuffer::from_host(&gpu, &[2u32, 1, 3])?;\n",
            "let mut values = DeviceBuffer::from_host(&gpu, &[0u64, 1, 2])?;\n",
            $module, "::sort_pairs(&gpu, &mut keys, &mut values, &", stringify!($opts), "::default())?;\n",
            "assert_eq!(values.to_host()?, vec![1, 0, 2]);\n",
            "# Ok::<(), sortlab_primitives::Error>(())\n",
            "```"
        )]
        pub fn sort_pairs<K: ::sortlab_primitives::SortKey, V: ::sortlab_primitives::SortValue>(
            gpu: &::sortlab_primitives::Gpu,
            keys: &mut ::sortlab_primitives::DeviceBuffer<K>,
            values: &mut ::sortlab_primitives::DeviceBuffer<V>,
            opts: &$opts,
        ) -> ::sortlab_primitives::Result<()> {
            sort_with(gpu, keys, Some(values), opts, None)
        }

        /// Host convenience: uploads `keys`, sorts them with [`sort_keys`], downloads them.
        pub fn sort_keys_host<K: ::sortlab_primitives::SortKey>(
            gpu: &::sortlab_primitives::Gpu,
            keys: &mut [K],
            opts: &$opts,
        ) -> ::sortlab_primitives::Result<()> {
            ::sortlab_primitives::runtime::on_device(gpu, keys, |d| sort_keys(gpu, d, opts))
        }

        /// Host convenience: uploads `keys` and `values`, sorts them with [`sort_pairs`],
        /// downloads them.
        pub fn sort_pairs_host<
            K: ::sortlab_primitives::SortKey,
            V: ::sortlab_primitives::SortValue,
        >(
            gpu: &::sortlab_primitives::Gpu,
            keys: &mut [K],
            values: &mut [V],
            opts: &$opts,
        ) -> ::sortlab_primitives::Result<()> {
            ::sortlab_primitives::runtime::on_device_pairs(gpu, keys, values, $what, |k, v| {
                sort_pairs(gpu, k, v, opts)
            })
        }
    };
}

/// Defines a sort module's options struct: `order` and `variant` fields, `Default` (ascending,
/// the variant enum's default), `with_order` and `with_variant`, with their documentation and a
/// doc test.
///
/// - `options`, `variant`: the struct to define and the module's variant enum;
/// - `module`, `what`: the module's name as the example imports it, and the sort's name;
/// - `other`: a variant other than the default, for the example.
macro_rules! sort_options {
    (
        options: $opts:ident,
        variant: $variant:ident,
        module: $module:literal,
        what: $what:literal,
        other: $other:ident $(,)?
    ) => {
        #[doc = concat!("How the ", $what, " runs: order and variant.")]
        ///
        #[doc = concat!("`Default` sorts ascending with [`", stringify!($variant), "`]'s default.")]
        ///
        /// # Example
        #[doc = concat!(
            "```\n",
            "use sortlab_gpu_sorts::", $module, "::{", stringify!($opts), ", ", stringify!($variant), "};\n",
            "use sortlab_primitives::Order;\n",
            "let opts = ", stringify!($opts), "::default().with_order(Order::Descending);\n",
            "assert_eq!(opts.variant, ", stringify!($variant), "::default());\n",
            "let other = ", stringify!($opts), "::default().with_variant(", stringify!($variant), "::", stringify!($other), ");\n",
            "assert_eq!(other.order, Order::Ascending);\n",
            "```"
        )]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $opts {
            /// Ascending or descending (IEEE total order for floats, as `f32::total_cmp`).
            pub order: ::sortlab_primitives::Order,
            /// Which sort runs.
            pub variant: $variant,
        }

        impl $opts {
            /// The same options in `order`.
            pub fn with_order(mut self, order: ::sortlab_primitives::Order) -> Self {
                self.order = order;
                self
            }
            /// The same options with `variant`.
            pub fn with_variant(mut self, variant: $variant) -> Self {
                self.variant = variant;
                self
            }
        }
    };
}
