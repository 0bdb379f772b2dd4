//! [`QuickOptions`].

use super::variant::QuickVariant;

sort_options! {
    options: QuickOptions,
    variant: QuickVariant,
    module: "quick",
    what: "quicksort",
    other: Notes,
}
