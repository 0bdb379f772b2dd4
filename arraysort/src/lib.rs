//! # sortlab-arraysort
//!
//! GPU-ArraySort (Awan, Saeed): millions of small arrays sorted in place by sampling,
//! bucketing and a per-bucket sort, beside the tagged stable-sort baseline it is measured
//! against. The CPU twin lives in `sortlab-cpu-reference`.
//!
//! Nothing has landed yet.
#![deny(missing_docs)]
