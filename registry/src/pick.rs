//! Look-up of one function in a table of function pointers by its type.

use std::any::Any;

/// The function of type `F` among a table's (`F`: the function type for the wanted key, or
/// key and value, types); `None` if the table has none of that type.
pub(crate) fn pick<F: Copy + 'static>(each: &[&dyn Any]) -> Option<F> {
    each.iter().find_map(|f| f.downcast_ref::<F>().copied())
}
