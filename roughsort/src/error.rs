//! The error type of `sortlab-roughsort`.

/// Errors of the roughsort functions.
///
/// Every function that returns an error leaves the caller's data as it was, except where its
/// documentation says otherwise.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A failure of the GPU runtime or a bad argument ([`sortlab_primitives::Error`]): no
    /// device, out of device memory, a kernel that does not compile, keys and values of
    /// different lengths ([`sortlab_primitives::Error::InvalidArgument`]), ...
    #[error(transparent)]
    Gpu(#[from] sortlab_primitives::Error),
    /// [`crate::rough_sort_with_radius`] (or its pairs form) was given a radius `k` smaller
    /// than the radius of the keys, with [`crate::OnWrongRadius::Error`]. The keys (and
    /// values) were left exactly as they were, so they are still a permutation of the input.
    #[error(
        "the keys are not {k}-sorted (their radius is larger than {k}); they were left as they were"
    )]
    RadiusTooSmall {
        /// The radius that was given.
        k: usize,
    },
}

/// Result with the roughsort [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
