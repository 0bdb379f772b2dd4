//! # sortlab-verify
//!
//! Generators, checkers and the property suite.
#![deny(missing_docs)]
