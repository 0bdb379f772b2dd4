//! Test helpers: run a host slice through a device buffer and back, with errors as the
//! `String`s that [`SortAlgorithm`](crate::SortAlgorithm) returns ([`on_device`],
//! [`on_device_pairs`]), and a keys-only algorithm for tests of the suite ([`KeysOnly`]).

use std::cell::RefCell;

use sortlab_cpu_reference::sort;
use sortlab_primitives::{DeviceBuffer, Gpu, SortKey, SortValue};

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
