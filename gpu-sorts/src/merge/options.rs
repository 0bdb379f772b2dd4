//! [`MergeOptions`].

use super::variant::MergeVariant;

sort_options! {
    options: MergeOptions,
    variant: MergeVariant,
    module: "merge",
    what: "merge sort",
    other: Satish,
}
