//! # sortlab-approxsort
//!
//! Interval-based approximate sort on the GPU (Xiao, Chen, Sun, "High Performance Approximate
//! Sort Algorithm Using GPUs"): keys (and values) are scattered into a chosen number of
//! intervals, ordered between intervals and unordered inside one, with the interval boundaries
//! returned so that callers can refine them. Paper and fast variants, equal-width and sampled
//! intervals, ascending and descending, will live here; the CPU twin is
//! `sortlab_cpu_reference::approx`.
//!
//! Nothing has landed yet: see the approxsort issue.
#![deny(missing_docs)]
