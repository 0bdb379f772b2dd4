//! Test helpers: run a host slice through a device buffer and back, with errors as the
//! `String`s that [`SortAlgorithm`](crate::SortAlgorithm) returns ([`on_device`],
//! [`on_device_pairs`]), and a keys-only algorithm for tests of the suite ([`KeysOnly`]); what
//! every crate's GPU tests need ([`gpu`], [`require_free_memory`], [`from_raw_bits`],
//! [`offsets_of_lengths`], [`ordered_bits`]); and the
//! NVRTC compile check of a crate's kernel modules ([`compile_failures`]).

use std::cell::RefCell;

use sortlab_cpu_reference::sort;
use sortlab_primitives::runtime::{compile, nvrtc_available};
use sortlab_primitives::{Defines, DeviceBuffer, Gpu, KernelSource, Order, SortKey, SortValue};

/// GPU 0, for a test that needs a CUDA device.
///
/// # Panics
/// Where there is none: a GPU test fails there, it never passes silently.
pub fn gpu() -> Gpu {
    Gpu::new(0).unwrap_or_else(|e| panic!("a CUDA device: {e}"))
}

/// Fails (never skips) when `gpu` has less than `bytes` of free memory: a large test that
/// cannot run must say so.
///
/// # Panics
/// When the device has less free memory, or cannot tell.
pub fn require_free_memory(gpu: &Gpu, bytes: usize) {
    let (free, _) = gpu
        .memory_info()
        .unwrap_or_else(|e| panic!("the device's free memory: {e}"));
    assert!(
        free >= bytes,
        "needs {bytes} bytes of free device memory, the device has {free}"
    );
}

/// The key of `K` whose little-endian bytes are the low bytes of `raw`: any bit pattern (NaN
/// payloads, infinities and -0.0 for floats).
pub fn from_raw_bits<K: SortKey>(raw: u64) -> K {
    K::from_le_slice(&raw.to_le_bytes()[..K::SIZE])
}

/// Key `i` of [`large_input`]: a hash of the index.
pub fn large_input_key(i: u64) -> u32 {
    let x = i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    ((x ^ (x >> 31)) >> 16) as u32
}

/// `n` pseudo-random u32 keys ([`large_input_key`] of every index: no generator state, so
/// inputs past 2^32 keys cost one pass), for the tests past 2^32 keys.
pub fn large_input(n: usize) -> Vec<u32> {
    (0..n as u64).map(large_input_key).collect()
}

/// The wrapping sum and sum of squares of `keys`: equal for permutations of one multiset (a
/// check for inputs too large to sort a reference copy of).
pub fn multiset_digest(keys: &[u32]) -> (u64, u64) {
    keys.iter().fold((0u64, 0u64), |(s, q), &x| {
        let x = x as u64;
        (s.wrapping_add(x), q.wrapping_add(x * x))
    })
}

/// The CSR offsets of consecutive arrays of `lens` keys: `lens.len() + 1` offsets from 0, as
/// the many-arrays sorts take them.
///
/// ```
/// assert_eq!(sortlab_verify::testing::offsets_of_lengths(&[3, 0, 2]), vec![0, 3, 3, 5]);
/// ```
pub fn offsets_of_lengths(lens: &[usize]) -> Vec<u64> {
    let mut o = Vec::with_capacity(lens.len() + 1);
    o.push(0u64);
    for &l in lens {
        o.push(o[o.len() - 1] + l as u64);
    }
    o
}

/// Every key's ordered bits, widened to `u64`: keys compared bit for bit (NaN payloads, -0.0
/// against +0.0), whatever their type.
///
/// ```
/// let b = sortlab_verify::testing::ordered_bits(&[-0.0f32, 0.0]);
/// assert!(b[0] < b[1]);
/// ```
pub fn ordered_bits<K: SortKey>(keys: &[K]) -> Vec<u64> {
    keys.iter()
        .map(|k| sortlab_primitives::KeyBits::to_u64(k.to_ordered_bits()))
        .collect()
}

/// The index values `0, 1, ..., n - 1` of an input of `n` keys, as values of type `V`: the
/// values of the key-value tests, which then show where every key came from.
///
/// # Panics
/// When `n - 1` does not fit `V`.
pub fn index_values<V: SortValue + TryFrom<usize>>(n: usize) -> Vec<V> {
    (0..n)
        .map(|i| V::try_from(i).unwrap_or_else(|_| panic!("index {i} fits the value type")))
        .collect()
}

/// The [`index_values`] of `input` and the stable reference sort of (`input`, those values) in
/// `order`: `(values, expected_keys, expected_values)`, what a stable key-value sort must give.
///
/// ```
/// use sortlab_primitives::Order;
/// let (values, keys, sorted) = sortlab_verify::testing::stable_index_pairs::<u32, u32>(&[2, 1, 2], Order::Ascending);
/// assert_eq!((values, keys, sorted), (vec![0, 1, 2], vec![1, 2, 2], vec![1, 0, 2]));
/// ```
pub fn stable_index_pairs<K: SortKey, V: SortValue + TryFrom<usize>>(
    input: &[K],
    order: Order,
) -> (Vec<V>, Vec<K>, Vec<V>) {
    let values = index_values::<V>(input.len());
    let (mut keys, mut sorted) = (input.to_vec(), values.clone());
    sort::sort_pairs(&mut keys, &mut sorted, order)
        .unwrap_or_else(|e| panic!("the reference sorts pairs of equal lengths: {e}"));
    (values, keys, sorted)
}

/// Compiles every `(source, defines)` of `configs` with NVRTC for every architecture of
/// `archs` (e.g. `"sm_90"`) and returns one message per module that failed or warned (empty:
/// every module compiled clean).
///
/// # Panics
/// When NVRTC cannot be loaded (`scripts/test` installs it), or a compile returns no cubin.
pub fn compile_failures(
    configs: impl IntoIterator<Item = (KernelSource, Defines)>,
    archs: &[&str],
) -> Vec<String> {
    assert!(nvrtc_available(), "NVRTC is not loadable: run scripts/test");
    let mut failures = Vec::new();
    for (src, defines) in configs {
        for &arch in archs {
            match compile(&src, &defines, arch) {
                Ok(c) if c.log.is_empty() => assert!(!c.cubin.is_empty(), "{}: no cubin", src.name),
                Ok(c) => failures.push(format!(
                    "{} {defines:?} ({arch}) warnings:\n{}",
                    src.name, c.log
                )),
                Err(e) => failures.push(format!("{} {defines:?} ({arch}): {e}", src.name)),
            }
        }
    }
    failures
}

/// Uploads `keys` to `gpu`, runs `f` on the device copy, and downloads the result into `keys`
/// (left as they were when `f` fails).
pub fn on_device<K: SortKey>(
    gpu: &Gpu,
    keys: &mut [K],
    f: impl FnOnce(&mut DeviceBuffer<K>) -> Result<(), String>,
) -> Result<(), String> {
    let mut d = DeviceBuffer::from_host(gpu, keys).map_err(|e| e.to_string())?;
    f(&mut d)?;
    d.copy_to_host(keys).map_err(|e| e.to_string())
}

/// [`on_device`] for keys and values: both uploaded, `f` run on the device copies, both
/// downloaded.
pub fn on_device_pairs<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut [K],
    values: &mut [V],
    f: impl FnOnce(&mut DeviceBuffer<K>, &mut DeviceBuffer<V>) -> Result<(), String>,
) -> Result<(), String> {
    let mut dv = DeviceBuffer::from_host(gpu, values).map_err(|e| e.to_string())?;
    on_device(gpu, keys, |dk| f(dk, &mut dv))?;
    dv.copy_to_host(values).map_err(|e| e.to_string())
}

/// The CPU engine's unstable sort as a keys-only algorithm (it has no key-value sort) with one
/// tile size, recording the length of every input it sorts: for tests of the suite's
/// keys-only path and of its tile lengths.
#[derive(Debug, Default)]
pub struct KeysOnly {
    /// The one tile size it reports.
    pub tile: usize,
    /// The length of every input sorted, in order.
    pub seen: RefCell<Vec<usize>>,
}

impl KeysOnly {
    /// A keys-only sort reporting `tile` as its tile size.
    pub fn new(tile: usize) -> Self {
        KeysOnly {
            tile,
            seen: RefCell::default(),
        }
    }
}

crate::sort_algorithm! {
    impl KeysOnly(self) {
        name: "keys-only",
        stable: false,
        supports_pairs: false,
        tiles: vec![self.tile],
        keys(keys, order) {
            self.seen.borrow_mut().push(keys.len());
            sort::sort_unstable(keys, order);
            Ok(())
        }
        pairs(_, _, _) {
            panic!("keys only: the suite must not call sort_pairs")
        }
    }
}
