//! # sortlab-roughsort
//!
//! Sorting of roughly sorted sequences: the radius of a sequence (via the LR / RL
//! characteristic sequences and the disorder measure DM) and sorting of k-sorted input in
//! O(n log k) (Altman & Igarashi; Altman & Chlebus), on the GPU with the scans, reductions and
//! block sorts of `sortlab-primitives`. The CPU twins (sequential halving algorithm and rayon
//! parallel form) live in `sortlab-cpu-reference`.
//!
//! Nothing has landed yet: see the roughsort issue.
#![deny(missing_docs)]
