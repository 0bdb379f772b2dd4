//! The sibling crates this command drives, in one place: the CPU engine's checkers
//! (`sortlab-cpu-reference`) and the input patterns and generator (`sortlab-verify`).

pub(crate) use sortlab_cpu_reference::check;
pub(crate) use sortlab_verify::{gen, patterns};
