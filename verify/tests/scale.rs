//! The property suite on the sorts past one GPU (ignored without a CUDA device; run with
//! `--include-ignored` on a CUDA machine, e.g. through scripts/gpu-check):
//!
//! - `gpu-sorts::stream` under a device budget of three lanes of [`STREAM_CHUNK`] keys, so the
//!   suite's short inputs take the one-piece path and its longer ones (10^5 and 2^18 + 3 keys)
//!   both passes with many chunks and buckets;
//! - `gpu-sorts::multi` across every GPU of the machine (G = 1 on a one-GPU machine, where it
//!   needs no NCCL; G = 4 on a four-GPU one), host memory to host memory.

use std::sync::OnceLock;

use sortlab_gpu_sorts::multi::{self, MultiOptions};
use sortlab_gpu_sorts::stream::{self, StreamOptions};
use sortlab_primitives::{Gpu, GpuGroup, Order, SortKey};

/// Keys per chunk of the streamed sort under test.
const STREAM_CHUNK: usize = 1 << 14;

/// The streamed sort with a budget of three lanes of [`STREAM_CHUNK`] keys (of the key type
/// and value width sorted).
struct Streamed {
    gpu: Gpu,
}

impl Streamed {
    fn new() -> Self {
        let gpu = Gpu::new(0).expect("a CUDA device (these tests are ignored without one)");
        Streamed { gpu }
    }

    fn options<K: SortKey>(order: Order, value_size: usize) -> StreamOptions {
        StreamOptions::default()
            .with_order(order)
            .with_device_budget(Some(stream::budget_for_chunk::<K>(
                STREAM_CHUNK,
                value_size,
            )))
    }
}

sortlab_verify::sort_algorithm! {
    impl Streamed(self) {
        name: format!("gpu stream (chunks of {STREAM_CHUNK} keys)"),
        stable: true,
        tiles: vec![STREAM_CHUNK, 3 * STREAM_CHUNK],
        keys(keys, order) {
            let opts = Streamed::options::<K>(order, 0);
            stream::sort_keys(&self.gpu, keys, &opts)
                .map(drop)
                .map_err(|e| e.to_string())
        }
        pairs(keys, values, order) {
            let opts = Streamed::options::<K>(order, V::SIZE);
            stream::sort_pairs(&self.gpu, keys, values, &opts)
                .map(drop)
                .map_err(|e| e.to_string())
        }
    }
}

/// Every GPU of the machine, opened once (with its NCCL communicators) for every test.
fn group() -> &'static GpuGroup {
    static GROUP: OnceLock<GpuGroup> = OnceLock::new();
    GROUP.get_or_init(|| {
        GpuGroup::all().unwrap_or_else(|e| panic!("every GPU of the machine, as a group: {e}"))
    })
}

/// The multi-GPU sort across [`group`], host memory to host memory.
struct Multi;

sortlab_verify::sort_algorithm! {
    impl Multi(self) {
        name: format!("gpu multi ({} GPUs)", group().len()),
        stable: true,
        tiles: vec![group().len(), 1 << 12],
        keys(keys, order) {
            let opts = MultiOptions::default().with_order(order);
            multi::sort_keys_host(group(), keys, &opts)
                .map(drop)
                .map_err(|e| e.to_string())
        }
        pairs(keys, values, order) {
            let opts = MultiOptions::default().with_order(order);
            multi::sort_pairs_host(group(), keys, values, &opts)
                .map(drop)
                .map_err(|e| e.to_string())
        }
    }
}

sortlab_verify::sort_suite!(
    gpu_stream_small_budget,
    Streamed::new(),
    ignore = "needs a CUDA device"
);
sortlab_verify::sort_suite!(gpu_multi_all_gpus, Multi, ignore = "needs a CUDA device");

/// The values' width is part of the budget: a key-value sort gets room for its values.
#[test]
fn budgets_grow_with_the_values() {
    let keys = Streamed::options::<u32>(Order::Ascending, 0).device_budget;
    let pairs = Streamed::options::<u32>(Order::Ascending, 8).device_budget;
    assert!(keys < pairs, "{keys:?} {pairs:?}");
}
