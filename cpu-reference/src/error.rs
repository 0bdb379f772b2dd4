//! The error types of the CPU engine: [`Error`] for bad arguments to an operation, and
//! [`CheckError`] for a result that a checker rejects.

/// Errors of the CPU engine's operations.
///
/// An operation that returns an error leaves the caller's data as it was.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A key-value operation was given key and value slices of different lengths.
    #[error("keys and values differ in length: {keys} keys, {values} values")]
    LengthMismatch {
        /// Number of keys given.
        keys: usize,
        /// Number of values given.
        values: usize,
    },
    /// An argument is outside what the operation accepts; the text says which and why.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

impl Error {
    /// `Ok` when a key-value operation's `keys` and `values` have the same length, else
    /// [`Error::LengthMismatch`].
    pub(crate) fn check_pairs(keys: usize, values: usize) -> Result<(), Error> {
        if keys == values {
            Ok(())
        } else {
            Err(Error::LengthMismatch { keys, values })
        }
    }
}

/// Why a checker rejected its input: what is wrong, and where.
///
/// Every variant carries the index or details needed to find the fault, and its `Display` is a
/// one-line message. Keys in messages are written as `key [0xBITS]`, with the key's
/// order-preserving bits ([`sortlab_primitives::SortKey::to_ordered_bits`]) in hex, so that
/// NaN payloads and `-0.0` are told apart.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CheckError {
    /// `keys[index]` and `keys[index + 1]` are out of order (the first such pair).
    #[error("not sorted: keys[{index}] and keys[{index} + 1] are out of order")]
    NotSorted {
        /// Index of the first key of the first pair out of order.
        index: usize,
    },
    /// Two slices that should have the same length do not.
    #[error("length mismatch: expected {expected}, got {actual}")]
    LengthMismatch {
        /// The length expected (of the input or the reference).
        expected: usize,
        /// The length found.
        actual: usize,
    },
    /// The output is not a permutation of the input: the multisets of keys differ.
    #[error("not a permutation of the input: {detail}")]
    NotPermutation {
        /// Which key occurs a different number of times in input and output.
        detail: String,
    },
    /// The result differs from the reference, bit for bit, first at `index`.
    #[error("differs from the reference at index {index}: expected {expected}, got {actual}")]
    Differs {
        /// First index where result and reference differ.
        index: usize,
        /// The reference's element there.
        expected: String,
        /// The result's element there.
        actual: String,
    },
    /// The sequence is not `k`-sorted: `i < j - k` and `a[i]` follows `a[j]` in the order.
    #[error("not {k}-sorted: a[{i}] follows a[{j}] but {j} - {i} > {k}")]
    NotKSorted {
        /// The radius that was checked.
        k: usize,
        /// The left index of the witness.
        i: usize,
        /// The right index of the witness.
        j: usize,
    },
    /// A key of interval `interval` follows a key of the next non-empty interval.
    #[error("interval {interval} is out of order with a later interval: {detail}")]
    IntervalOrder {
        /// The earlier of the two intervals out of order.
        interval: usize,
        /// Which keys, at which indices, are out of order.
        detail: String,
    },
    /// The interval boundaries are malformed (empty, not starting at 0, not ending at the
    /// length, or decreasing).
    #[error("bad interval boundaries: {0}")]
    BadBoundaries(String),
    /// Array `array` is not sorted: its elements `index` and `index + 1` (counted from the
    /// array's start) are out of order.
    #[error("array {array} is not sorted: its elements {index} and {index} + 1 are out of order")]
    ArrayNotSorted {
        /// Which array (its position in the offsets).
        array: usize,
        /// Index within the array of the first key of the first pair out of order.
        index: usize,
    },
    /// The array offsets are malformed (empty, not starting at 0, not ending at the length, or
    /// decreasing).
    #[error("bad array offsets: {0}")]
    BadOffsets(String),
    /// Index values did not travel with their keys: the value at `index` is no input position,
    /// names a position already named, names an input key other than its key, or (for a
    /// stable check) breaks the input order of equal keys.
    #[error("values do not follow their keys at index {index}: {detail}")]
    ValuesDoNotFollow {
        /// The first output position at fault.
        index: usize,
        /// What is wrong there.
        detail: String,
    },
}
