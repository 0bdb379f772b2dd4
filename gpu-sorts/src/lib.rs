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
//! - [`multi`]: a sort across several GPUs of one host (or several processes) through NCCL:
//!   local radix sorts, sample splitters with ties split by (rank, position), one grouped
//!   all-to-all, merges of the received runs; device-resident shares or host memory, keys and
//!   key-value pairs, every key type, both orders, stable.
//! - [`quick`]: [`quick::QuickVariant::Notes`] (host-planned rounds, the course notes') and
//!   [`quick::QuickVariant::Fast`] (the default, the device schedules itself): Cederman and
//!   Tsigas's two-pass three-way partition, keys and key-value pairs, every key type, both
//!   orders, unstable.
//! - [`radix`]: [`radix::RadixVariant::OneBit`], [`radix::RadixVariant::Satish`] and
//!   [`radix::RadixVariant::Fast`] (the default), keys and key-value pairs, every key type,
//!   both orders, stable.
//! - [`sample`]: [`sample::SampleVariant::Notes`] (the course notes' per-bucket odd-even
//!   transposition sort) and [`sample::SampleVariant::Fast`] (the default, block merge sorts
//!   of the buckets), GPU sample sort with equality buckets, keys and key-value pairs, every
//!   key type, both orders, stable.
//! - [`stream`]: keys and key-value pairs in host memory larger than the device memory the
//!   caller allows, sorted through the device in chunks (sorted runs, then exact buckets
//!   sorted again), copies in both directions overlapped with sorting on three streams, every
//!   key type, both orders, stable.
//!
//! Every sort has a CPU twin in `sortlab-cpu-reference` and a property suite in
//! `sortlab-verify`.
#![deny(missing_docs)]

#[macro_use]
mod entry;

pub mod bitonic;
pub mod hybrid;
pub mod merge;
pub mod multi;
pub mod quick;
pub mod radix;
pub mod sample;
pub mod stream;
