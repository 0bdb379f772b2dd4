//! Many small arrays on the command line: the arrays of `sortlab sort` and `sortlab check`
//! (`--offsets FILE`: `m + 1` little-endian `u64` offsets, array `a` being `keys[o[a]..o[a +
//! 1]]`, as `sortlab gen --arrays` writes them; or `--array-len N`: arrays of `N` keys).

use std::path::{Path, PathBuf};

use sortlab_arraysort::stream::{self, StreamArraysOptions};
use sortlab_arraysort::{self as arraysort, ArrayOptions, ArrayVariant, Segments, TopKOptions};
use sortlab_cpu_reference::arrays;
use sortlab_cpu_reference::top_k::{self, TopK};
use sortlab_primitives::{DeviceBuffer, Order};

use crate::engine::Engine;
use crate::error::CliError;
use crate::io::read_keys;
use crate::key::CliKey;

/// Where a sort's or check's arrays come from: `--offsets FILE` or `--array-len N`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArraysArg {
    /// An offsets file.
    Offsets(PathBuf),
    /// One length.
    Len(u64),
}

impl ArraysArg {
    /// The arrays of `--offsets` / `--array-len`, if either was given.
    pub fn from_args(offsets: Option<&Path>, array_len: Option<u64>) -> Option<ArraysArg> {
        offsets
            .map(|p| ArraysArg::Offsets(p.to_path_buf()))
            .or(array_len.map(ArraysArg::Len))
    }

    /// The offsets over `n` keys, checked (non-decreasing, first 0, last `n`; a length that
    /// divides `n`): a clear error naming the file otherwise.
    pub fn offsets(&self, n: usize) -> Result<Vec<u64>, CliError> {
        match self {
            ArraysArg::Offsets(path) => {
                let offsets = read_keys::<u64>(path)?;
                arrays::validate_offsets(&offsets, n).map_err(|e| CliError::BadArrays {
                    what: path.display().to_string(),
                    message: e.to_string(),
                })?;
                Ok(offsets)
            }
            ArraysArg::Len(len) => {
                let len = *len as usize;
                let m = arrays::fixed_array_count(n, len).map_err(|e| CliError::BadArrays {
                    what: format!("--array-len {len}"),
                    message: e.to_string(),
                })?;
                Ok((0..=m as u64).map(|a| a * len as u64).collect())
            }
        }
    }
}

/// Sorts every array of `keys` (cut by the checked `offsets`) in `order` on `engine`: the rayon
/// twin on the CPU, [`ArrayVariant::Fast`] on the GPU (upload, sort, download; `keys`
/// unchanged if the GPU fails), or with a device-memory `budget` streamed through the GPU in
/// jobs of whole arrays (`arraysort::stream`).
pub fn sort_arrays_on<K: CliKey>(
    engine: &Engine,
    keys: &mut [K],
    offsets: &[u64],
    order: Order,
    budget: Option<u64>,
) -> Result<(), CliError> {
    let bad = |e: sortlab_cpu_reference::Error| CliError::BadArrays {
        what: "the arrays".into(),
        message: e.to_string(),
    };
    match engine {
        Engine::Cpu => arrays::sort_arrays(keys, offsets, order).map_err(bad),
        Engine::Gpu(gpu) => {
            let gpu_err = |source| CliError::Gpu {
                what: "sorting arrays on the GPU".into(),
                source,
            };
            if let Some(b) = budget {
                let opts = StreamArraysOptions::default()
                    .with_order(order)
                    .with_device_budget(Some(usize::try_from(b).unwrap_or(usize::MAX)));
                return stream::sort_keys_streamed(gpu, keys, offsets, &opts)
                    .map(drop)
                    .map_err(gpu_err);
            }
            let d_offsets = DeviceBuffer::from_host(gpu, offsets).map_err(gpu_err)?;
            let opts = ArrayOptions::default()
                .with_order(order)
                .with_variant(ArrayVariant::Fast);
            let mut d = DeviceBuffer::from_host(gpu, keys).map_err(gpu_err)?;
            arraysort::sort_keys(gpu, &mut d, Segments::Offsets64(&d_offsets), &opts)
                .map_err(gpu_err)?;
            d.copy_to_host(keys).map_err(gpu_err)
        }
    }
}

/// The first `k` keys of every array of `keys` (cut by the checked `offsets`) in `order`,
/// compacted with their own offsets, on `engine`: the rayon twin on the CPU, arraysort's top-k
/// on the GPU. With `indices`, each kept key's position in its array comes along as its value
/// (equal keys in input order); without, the values are empty.
pub fn top_k_on<K: CliKey>(
    engine: &Engine,
    keys: &[K],
    offsets: &[u64],
    k: usize,
    order: Order,
    indices: bool,
) -> Result<TopK<K, u64>, CliError> {
    let bad = |e: sortlab_cpu_reference::Error| CliError::BadArrays {
        what: "the arrays".into(),
        message: e.to_string(),
    };
    let gpu_err = |source| CliError::Gpu {
        what: "the top-k of arrays on the GPU".into(),
        source,
    };
    if indices {
        let positions = positions_in_arrays(offsets);
        return match engine {
            Engine::Cpu => top_k::top_k_pairs(keys, &positions, offsets, k, order).map_err(bad),
            Engine::Gpu(gpu) => {
                let opts = TopKOptions::new(k).with_order(order);
                arraysort::top_k_pairs_host(gpu, keys, &positions, offsets, &opts).map_err(gpu_err)
            }
        };
    }
    let t = match engine {
        Engine::Cpu => top_k::top_k(keys, offsets, k, order).map_err(bad)?,
        Engine::Gpu(gpu) => {
            let opts = TopKOptions::new(k).with_order(order);
            arraysort::top_k_keys_host(gpu, keys, offsets, &opts).map_err(gpu_err)?
        }
    };
    Ok(TopK {
        keys: t.keys,
        values: Vec::new(),
        offsets: t.offsets,
    })
}

/// Every key's position in its array (the arrays cut by the checked `offsets`).
fn positions_in_arrays(offsets: &[u64]) -> Vec<u64> {
    offsets.windows(2).flat_map(|w| 0..w[1] - w[0]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_args_are_checked() {
        let a = ArraysArg::Len(3);
        assert_eq!(a.offsets(9).unwrap(), vec![0, 3, 6, 9]);
        assert!(matches!(a.offsets(10), Err(CliError::BadArrays { .. })));
        assert_eq!(ArraysArg::from_args(None, None), None);
        assert_eq!(ArraysArg::from_args(None, Some(4)), Some(ArraysArg::Len(4)));
    }

    #[test]
    fn cpu_engine_sorts_each_array() {
        let mut keys = [3u32, 1, 2, 9, 8];
        sort_arrays_on(&Engine::Cpu, &mut keys, &[0, 3, 5], Order::Ascending, None).unwrap();
        assert_eq!(positions_in_arrays(&[0, 3, 3, 5]), vec![0, 1, 2, 0, 1]);
        let top = top_k_on(
            &Engine::Cpu,
            &[5u32, 1, 4, 2, 2],
            &[0, 3, 5],
            2,
            Order::Descending,
            true,
        )
        .unwrap();
        assert_eq!((top.keys, top.values), (vec![5, 4, 2, 2], vec![0, 2, 0, 1]));
        assert_eq!(keys, [1, 2, 3, 8, 9]);
    }
}
