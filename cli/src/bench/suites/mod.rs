//! One file per benchmark suite; [`algos`] runs the algorithm crates' suites (`radix`,
//! `merge`, `bitonic`, `approxsort`, `roughsort`) over their shared points (`point.rs`);
//! [`arraysort`] runs the many-small-arrays sorts over CUB's segmented layouts; [`scale`] the
//! radix sort past one GPU (several GPUs, streamed) against one GPU.

pub mod algos;
mod approxsort;
pub mod arraysort;
pub mod full;
mod point;
pub mod primitives;
pub(crate) mod roughsort;
pub mod scale;
pub mod sort;
