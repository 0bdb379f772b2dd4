//! # sortlab-gpu-sorts
//!
//! Full GPU sorts built on `sortlab-primitives`, one module per algorithm, each with a
//! paper-faithful variant and a fast one selected by an enum (DESIGN.md §4):
//! bitonic (network mapping and shared-memory optimised), radix (CUDPP 1-bit, Satish 4-bit
//! blocked, and a fast Onesweep-class sort), Satish merge sort, Sintorn hybrid bucket/vector
//! merge sort, GPU sample sort and GPU quicksort (Cederman-Tsigas).
//!
//! No algorithm has landed yet: the radix family is the next issue. Every sort will have a CPU
//! twin in `sortlab-cpu-reference` and a property suite in `sortlab-verify`.
#![deny(missing_docs)]
