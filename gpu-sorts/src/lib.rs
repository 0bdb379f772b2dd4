//! # sortlab-gpu-sorts
//!
//! Full GPU sorts built on `sortlab-primitives`, one module per algorithm, each with a
//! paper-faithful variant and a fast one selected by an enum (DESIGN.md §4):
//! bitonic (network mapping and shared-memory optimised), radix (CUDPP 1-bit, Satish 4-bit
//! blocked, and a fast Onesweep-class sort), Satish merge sort, Sintorn hybrid bucket/vector
//! merge sort, GPU sample sort and GPU quicksort (Cederman-Tsigas).
//!
//! - [`bitonic`]: [`bitonic::BitonicVariant::Mapping`] (the report's index mapping),
//!   [`bitonic::BitonicVariant::Notes`] and [`bitonic::BitonicVariant::Fast`] (the default,
//!   any length without padding), keys and key-value pairs, every key type, both orders,
//!   unstable.
//! - [`hybrid`]: [`hybrid::HybridVariant::Paper`] (Sintorn and Assarsson: 1024 buckets from
//!   refined histogram pivots, a vector merge sort per bucket) and
//!   [`hybrid::HybridVariant::Fast`] (the default: sample pivots, buckets sorted in shared
//!   memory), keys and key-value pairs, every key type, both orders, unstable.
//! - [`merge`]: [`merge::MergeVariant::Satish`] (rank merges) and [`merge::MergeVariant::Fast`]
//!   (the default, merge-path merges), keys and key-value pairs, every key type, both orders,
//!   stable.
//! - [`radix`]: [`radix::RadixVariant::OneBit`], [`radix::RadixVariant::Satish`] and
//!   [`radix::RadixVariant::Fast`] (the default), keys and key-value pairs, every key type,
//!   both orders, stable.
//!
//! Every sort has a CPU twin in `sortlab-cpu-reference` and a property suite in
//! `sortlab-verify`.
#![deny(missing_docs)]

pub mod bitonic;
pub mod hybrid;
pub mod merge;
pub mod radix;
