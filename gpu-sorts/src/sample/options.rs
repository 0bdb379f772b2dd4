//! [`SampleOptions`].

use super::variant::SampleVariant;

sort_options! {
    options: SampleOptions,
    variant: SampleVariant,
    module: "sample",
    what: "sample sort",
    other: Notes,
}
