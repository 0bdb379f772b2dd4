//! The `sortlab` command.
fn main() {}
