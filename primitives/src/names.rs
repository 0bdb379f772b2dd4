//! [`named_variants!`](crate::named_variants): the names of an algorithm's variant enum, written
//! once for every crate.

/// Gives a fieldless variant enum its names: `ALL` (every variant, in the order listed),
/// `name` (the short name), `Display` (the name) and `FromStr` (the name back, or a
/// [`ParseNameError`](crate::ParseNameError) that lists the known names), as every sortlab
/// variant enum (`RadixVariant`, `MergeVariant`, `ArrayVariant`, ...) has them.
///
/// `named_variants!(Type, "what", [Variant => "name", ...])`: `what` names the enum in parse
/// errors ("radix variant"); list the published variants first, the fast default last, as the
/// CLI and the reproductions show them in that order.
///
/// # Example
/// ```
/// use sortlab_primitives::named_variants;
///
/// #[derive(Clone, Copy, Debug, PartialEq, Eq)]
/// pub enum Flavour {
///     Plain,
///     Fancy,
/// }
/// named_variants!(Flavour, "flavour", [Plain => "plain", Fancy => "fancy"]);
///
/// assert_eq!(Flavour::ALL, [Flavour::Plain, Flavour::Fancy]);
/// assert_eq!(Flavour::Fancy.name(), "fancy");
/// assert_eq!(Flavour::Plain.to_string(), "plain");
/// assert_eq!("fancy".parse::<Flavour>(), Ok(Flavour::Fancy));
/// let e = "odd".parse::<Flavour>().unwrap_err();
/// assert_eq!(e.to_string(), "unknown flavour `odd`; known: plain, fancy");
/// ```
#[macro_export]
macro_rules! named_variants {
    ($ty:ident, $what:literal, [$($variant:ident => $name:literal),+ $(,)?]) => {
        impl $ty {
            /// Every variant, in listing order: the published ones first, the fast default last.
            pub const ALL: [$ty; [$($name),+].len()] = [$($ty::$variant),+];

            #[doc = concat!("Short name:", $(" `\"", $name, "\"`"),+, ".")]
            pub fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }
        }

        impl ::std::fmt::Display for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl ::std::str::FromStr for $ty {
            type Err = $crate::ParseNameError;
            fn from_str(s: &str) -> ::std::result::Result<Self, Self::Err> {
                $ty::ALL
                    .into_iter()
                    .find(|v| v.name() == s)
                    .ok_or_else(|| $crate::ParseNameError {
                        what: $what,
                        given: s.to_string(),
                        known: $ty::ALL.map(|v| v.name()).join(", "),
                    })
            }
        }
    };
}
