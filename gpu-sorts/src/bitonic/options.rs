//! [`BitonicOptions`] and their check.

use sortlab_primitives::{Error, Order, Result};

use super::variant::BitonicVariant;

/// The smallest block [`BitonicOptions::threads_per_block`] accepts.
pub const MIN_THREADS_PER_BLOCK: u32 = 32;
/// The largest block [`BitonicOptions::threads_per_block`] accepts.
pub const MAX_THREADS_PER_BLOCK: u32 = 1024;

/// How a bitonic sort runs: order, variant, and the block size of the published kernels.
///
/// `Default` sorts ascending with [`BitonicVariant::Fast`] and each kernel's own block size.
///
/// # Example
/// ```
/// use sortlab_gpu_sorts::bitonic::{BitonicOptions, BitonicVariant};
/// use sortlab_primitives::Order;
/// let opts = BitonicOptions::default()
///     .with_variant(BitonicVariant::Mapping)
///     .with_threads_per_block(Some(512))
///     .with_order(Order::Descending);
/// assert_eq!(opts.threads_per_block, Some(512));
/// assert_eq!(BitonicOptions::default().variant, BitonicVariant::Fast);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BitonicOptions {
    /// Ascending or descending (IEEE total order for floats, as `f32::total_cmp`).
    pub order: Order,
    /// Which sort runs.
    pub variant: BitonicVariant,
    /// Threads per block of the [`BitonicVariant::Mapping`] and [`BitonicVariant::Notes`]
    /// launches (the report's threads-per-block experiment): a power of two from 32 to 1024;
    /// `None` for the default, [`super::NETWORK_THREADS`]. The fast sort's blocks are fixed by
    /// its policy and ignore it (it is still checked).
    pub threads_per_block: Option<u32>,
}

impl BitonicOptions {
    /// The same options in `order`.
    pub fn with_order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }
    /// The same options with `variant`.
    pub fn with_variant(mut self, variant: BitonicVariant) -> Self {
        self.variant = variant;
        self
    }
    /// The same options with `threads` threads per block for the published kernels.
    pub fn with_threads_per_block(mut self, threads: Option<u32>) -> Self {
        self.threads_per_block = threads;
        self
    }

    /// [`Error::InvalidArgument`] unless `threads_per_block` is `None` or a power of two from
    /// 32 to 1024.
    pub fn validate(&self) -> Result<()> {
        match self.threads_per_block {
            Some(t)
                if !t.is_power_of_two()
                    || !(MIN_THREADS_PER_BLOCK..=MAX_THREADS_PER_BLOCK).contains(&t) =>
            {
                Err(Error::InvalidArgument(format!(
                    "bitonic sort with {t} threads per block: a power of two from \
                     {MIN_THREADS_PER_BLOCK} to {MAX_THREADS_PER_BLOCK} is needed"
                )))
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_per_block_is_checked() {
        let o = BitonicOptions::default();
        assert!(o.validate().is_ok());
        for t in [32, 64, 256, 1024] {
            assert!(o.with_threads_per_block(Some(t)).validate().is_ok(), "{t}");
        }
        for t in [0, 1, 16, 33, 96, 2048] {
            assert!(
                matches!(
                    o.with_threads_per_block(Some(t)).validate(),
                    Err(Error::InvalidArgument(_))
                ),
                "{t}"
            );
        }
    }
}
