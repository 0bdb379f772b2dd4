//! The error type of the `sortlab` command.

use std::path::PathBuf;

use sortlab_primitives::KeyType;

/// Everything that can make a `sortlab` command fail before it has a result.
///
/// Each of these ends the process with exit code 2 and the message
/// `sortlab: error: <Display>` on stderr. Errors about a file name the file first. A failed
/// *check* is not an error: `sortlab check` reports it and exits with code 1.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// The command line does not parse (rendered by clap, without its `error: ` prefix).
    #[error("{0}")]
    Usage(String),
    /// An input file could not be opened or read.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// An output file could not be written (nothing was left at its path).
    #[error("{}: cannot write: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// An input file's length is not a whole number of keys.
    #[error(
        "{}: {len} bytes is not a multiple of the {}-byte {key_type} key size",
        path.display(),
        key_type.size()
    )]
    BadLength {
        /// The file.
        path: PathBuf,
        /// Its length in bytes.
        len: u64,
        /// The key type it was read as.
        key_type: KeyType,
    },
    /// A key type name is not one of [`KeyType::ALL`].
    #[error("unknown key type `{given}`; known: {known}")]
    UnknownKeyType {
        /// The name given.
        given: String,
        /// The known names, comma separated.
        known: String,
    },
    /// An input pattern name does not parse; the message (from `sortlab-verify`) lists the
    /// known patterns.
    #[error("{message}")]
    UnknownPattern {
        /// The pattern parser's message.
        message: String,
    },
    /// An algorithm name is not in the registry.
    #[error("unknown algorithm `{given}`; known: {known}")]
    UnknownAlgo {
        /// The name given.
        given: String,
        /// The registered names, comma separated.
        known: String,
    },
    /// A benchmark suite name is not known.
    #[error("unknown bench suite `{given}`; known: {known}")]
    UnknownSuite {
        /// The name given.
        given: String,
        /// The known suites, comma separated.
        known: String,
    },
    /// `--engine gpu` was asked for an algorithm that has no GPU implementation.
    #[error(
        "--engine gpu: algorithm `{algo}` has no GPU implementation (algorithms with one: \
         {with_gpu}); use --engine cpu or --engine auto"
    )]
    NoGpuImplementation {
        /// The algorithm.
        algo: String,
        /// The algorithms that have a GPU implementation, comma separated, or `none yet`.
        with_gpu: String,
    },
    /// `--engine gpu` was asked for and no GPU could be opened.
    #[error("--engine gpu: no CUDA device found ({reason}); use --engine cpu or --engine auto")]
    NoDevice {
        /// Why no device could be opened.
        reason: String,
    },
    /// Offsets or an array length that do not cut the keys into arrays.
    #[error("{what}: {message}")]
    BadArrays {
        /// The offsets file, or the option.
        what: String,
        /// What is wrong.
        message: String,
    },
    /// The GPU runtime failed while running `what`.
    #[error("{what}: {source}")]
    Gpu {
        /// What was running ("sorting FILE with radix on the GPU").
        what: String,
        /// The runtime's error.
        source: sortlab_primitives::Error,
    },
    /// A sort gave a wrong result (found by a benchmark's sanity check).
    #[error("{what} gave a wrong result: {message}")]
    WrongResult {
        /// Which algorithm on which engine.
        what: String,
        /// The checker's message.
        message: String,
    },
    /// The keys asked for do not fit in memory.
    #[error("{n} {key_type} keys ({bytes} bytes) do not fit in memory")]
    TooLarge {
        /// Number of keys.
        n: u64,
        /// Their type.
        key_type: KeyType,
        /// Bytes they would take, saturated at `u128` range.
        bytes: u128,
    },
}
