//! # sortlab-cpu-reference
//!
//! The CPU engine: reference sorts and the checkers the whole project uses.
#![deny(missing_docs)]
