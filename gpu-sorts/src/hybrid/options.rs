//! [`HybridOptions`].

use super::variant::HybridVariant;

sort_options! {
    options: HybridOptions,
    variant: HybridVariant,
    module: "hybrid",
    what: "hybrid sort",
    other: Paper,
}
