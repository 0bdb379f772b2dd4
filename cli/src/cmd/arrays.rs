//! Many small arrays on the command line: the lengths `sortlab gen --arrays` draws, and the
//! arrays of `sortlab sort` and `sortlab check` (`--offsets FILE`: `m + 1` little-endian `u64`
//! offsets, array `a` being `keys[o[a]..o[a + 1]]`; or `--array-len N`: arrays of `N` keys).

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use sortlab_arraysort::{self as arraysort, ArrayOptions, ArrayVariant, Segments};
use sortlab_cpu_reference::arrays;
use sortlab_primitives::{DeviceBuffer, Order};

use crate::engine::Engine;
use crate::error::CliError;
use crate::io::read_keys;
use crate::key::CliKey;

/// How `sortlab gen --arrays` draws the array lengths; the arrays are drawn until they hold
/// the `--n` keys (the last one cut short).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ArrayLengths {
    /// `fixed:N`: every array `N` keys.
    Fixed(u64),
    /// `uniform:MIN..MAX`: lengths uniform in `MIN..=MAX`.
    Uniform {
        /// The shortest length.
        min: u64,
        /// The longest length.
        max: u64,
    },
    /// `power-law:MEAN`: Pareto lengths of exponent 2 (`ceil(MEAN / 2 / sqrt(u))`, `u`
    /// uniform in `(0, 1]`), mean about `MEAN`: many short arrays and a few very long ones.
    PowerLaw {
        /// The mean length.
        mean: u64,
    },
}

impl FromStr for ArrayLengths {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "`{s}` is not an array layout: write fixed:N, uniform:MIN..MAX or power-law:MEAN"
            )
        };
        let num = |x: &str| x.trim().parse::<u64>().map_err(|_| bad());
        let (kind, arg) = s.split_once(':').ok_or_else(bad)?;
        let lengths = match kind {
            "fixed" => ArrayLengths::Fixed(num(arg)?),
            "uniform" => {
                let (lo, hi) = arg.split_once("..").ok_or_else(bad)?;
                ArrayLengths::Uniform {
                    min: num(lo)?,
                    max: num(hi)?,
                }
            }
            "power-law" => ArrayLengths::PowerLaw { mean: num(arg)? },
            _ => return Err(bad()),
        };
        match lengths {
            ArrayLengths::Fixed(0) | ArrayLengths::PowerLaw { mean: 0 } => {
                Err(format!("`{s}`: arrays need a positive length"))
            }
            ArrayLengths::Uniform { min, max } if max == 0 || min > max => {
                Err(format!("`{s}`: need MIN <= MAX and MAX > 0"))
            }
            l => Ok(l),
        }
    }
}

impl fmt::Display for ArrayLengths {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArrayLengths::Fixed(n) => write!(f, "fixed:{n}"),
            ArrayLengths::Uniform { min, max } => write!(f, "uniform:{min}..{max}"),
            ArrayLengths::PowerLaw { mean } => write!(f, "power-law:{mean}"),
        }
    }
}

/// The splitmix64 step: the `i`-th draw of stream `seed`.
fn draw(seed: u64, i: u64) -> u64 {
    let mut x = seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

impl ArrayLengths {
    /// The offsets (arrays + 1, first 0, last `n`) of arrays drawn with `seed` over `n` keys.
    pub fn offsets(self, n: u64, seed: u64) -> Vec<u64> {
        let mut offsets = vec![0u64];
        let (mut pos, mut i) = (0u64, 0u64);
        while pos < n {
            let r = draw(seed, i);
            let len = match self {
                ArrayLengths::Fixed(len) => len,
                ArrayLengths::Uniform { min, max } => min + r % (max - min + 1),
                ArrayLengths::PowerLaw { mean } => {
                    // u in (0, 1]: never 0, so the length is finite.
                    let u = ((r >> 11) + 1) as f64 / (1u64 << 53) as f64;
                    (mean as f64 / 2.0 / u.sqrt()).ceil() as u64
                }
            };
            // Empty arrays (uniform:0..M) are arrays too.
            pos = (pos + len).min(n);
            offsets.push(pos);
            i += 1;
        }
        offsets
    }
}

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
/// unchanged if the GPU fails).
pub fn sort_arrays_on<K: CliKey>(
    engine: &Engine,
    keys: &mut [K],
    offsets: &[u64],
    order: Order,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_parse_and_print() {
        for s in [
            "fixed:1000",
            "uniform:1..64",
            "power-law:1024",
            "uniform:0..8",
        ] {
            assert_eq!(s.parse::<ArrayLengths>().unwrap().to_string(), s);
        }
        for s in [
            "fixed:0",
            "uniform:9..3",
            "uniform:0..0",
            "zipf:3",
            "fixed",
            "power-law:x",
        ] {
            assert!(s.parse::<ArrayLengths>().is_err(), "{s}");
        }
    }

    #[test]
    fn offsets_cover_the_keys() {
        let fixed = ArrayLengths::Fixed(1000).offsets(2500, 1);
        assert_eq!(fixed, vec![0, 1000, 2000, 2500]);
        let n = 1 << 20;
        for l in ["uniform:1..64", "power-law:1024", "uniform:0..4"] {
            let o = l.parse::<ArrayLengths>().unwrap().offsets(n, 7);
            assert_eq!((o[0], *o.last().unwrap()), (0, n), "{l}");
            assert!(o.windows(2).all(|w| w[0] <= w[1]), "{l}");
            arrays::validate_offsets(&o, n as usize).unwrap();
        }
        let o = ArrayLengths::Uniform { min: 1, max: 64 }.offsets(n, 7);
        assert!(o
            .windows(2)
            .all(|w| (1..=64).contains(&(w[1] - w[0])) || w[1] == n));
        assert_eq!(ArrayLengths::Fixed(5).offsets(0, 1), vec![0]);
    }

    #[test]
    fn power_law_has_its_mean_and_a_long_tail() {
        let n = 1 << 26;
        let o = ArrayLengths::PowerLaw { mean: 1024 }.offsets(n, 3);
        let lens: Vec<u64> = o.windows(2).map(|w| w[1] - w[0]).collect();
        let mean = n as f64 / lens.len() as f64;
        assert!((800.0..1300.0).contains(&mean), "mean {mean}");
        let max = *lens.iter().max().unwrap();
        assert!(max > 20 * 1024, "longest {max}");
        assert!(lens.iter().filter(|&&l| l <= 1024).count() * 2 > lens.len());
    }

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
        sort_arrays_on(&Engine::Cpu, &mut keys, &[0, 3, 5], Order::Ascending).unwrap();
        assert_eq!(keys, [1, 2, 3, 8, 9]);
    }
}
