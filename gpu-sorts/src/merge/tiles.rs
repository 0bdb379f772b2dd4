//! The module of `merge.cu`, the buffers of a sort, and the tile sort both variants start with.

use std::sync::Arc;

use sortlab_primitives::{
    DeviceBuffer, Gpu, Kernel, KernelArgs, KernelSource, LaunchConfig, Module, Result, SortKey,
};

use super::plan::{Plan, Shape};

/// The merge sort kernels: the tile sort, Satish's rank merge, the fast partition and merge.
pub const MERGE_SOURCE: KernelSource = KernelSource::new("merge.cu", include_str!("merge.cu"));

/// The buffers of a sort: the caller's keys and values (device addresses; values 0 for keys
/// only) and the scratch buffer (`None` when the plan needs none), carved by [`Plan::layout`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Addrs<'a> {
    pub keys: u64,
    pub values: u64,
    pub scratch: Option<&'a DeviceBuffer<u8>>,
}

/// A pair of key and value buffers (device addresses; values 0 for keys only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Buffers {
    pub keys: u64,
    pub values: u64,
}

impl Addrs<'_> {
    /// The caller's buffers.
    pub fn caller(&self) -> Buffers {
        Buffers {
            keys: self.keys,
            values: self.values,
        }
    }

    /// The scratch's second buffers under `plan` (the caller's when there is no scratch,
    /// which only a plan without merge levels has).
    pub fn spare(&self, plan: &Plan) -> Buffers {
        match (self.scratch, plan.layout()) {
            (Some(s), Some(l)) => Buffers {
                keys: l.keys.ptr(s).addr(),
                values: if plan.value_size > 0 {
                    l.values.ptr(s).addr()
                } else {
                    0
                },
            },
            _ => self.caller(),
        }
    }
}

/// The compiled `merge.cu` of `plan`'s shape for keys `K`.
pub(crate) fn module<K: SortKey>(gpu: &Gpu, plan: &Plan) -> Result<Arc<Module>> {
    let value = (plan.value_size > 0).then_some(plan.value_size);
    shape_module::<K>(gpu, plan.shape, value)
}

/// The compiled `merge.cu` of `shape` for keys `K` and values of `value` bytes (`None`: keys
/// only); one cache entry with [`module`] of the same shape.
pub(crate) fn shape_module<K: SortKey>(
    gpu: &Gpu,
    shape: Shape,
    value: Option<usize>,
) -> Result<Arc<Module>> {
    gpu.module_keyed(&MERGE_SOURCE, (K::NAME, value, shape), || {
        shape.module_defines::<K>(value)
    })
}

/// The tile sort kernel of `module` and its launch for `plan` (checked against its limits),
/// dependent when `dependent`.
pub(crate) fn tile_launch(
    gpu: &Gpu,
    module: &Module,
    plan: &Plan,
    dependent: bool,
) -> Result<(Kernel, LaunchConfig)> {
    let kernel = module.kernel("merge_sort_tiles")?;
    let tiles = plan.n.div_ceil(plan.shape.sort_tile());
    let smem = plan.shape.sort_shared_bytes(plan.key_size, plan.value_size) as u32;
    let mut cfg =
        LaunchConfig::linear(gpu.grid_blocks(tiles), plan.shape.sort_threads).with_shared(smem);
    if dependent {
        cfg = cfg.dependent();
    }
    kernel.check(&cfg)?;
    Ok((kernel, cfg))
}

/// Sorts every tile of `src` into `dst` (the same buffers: in place) with the checked launch
/// `cfg` of `kernel` from [`tile_launch`].
pub(crate) fn sort_tiles<K: SortKey>(
    kernel: &Kernel,
    cfg: LaunchConfig,
    plan: &Plan,
    src: Buffers,
    dst: Buffers,
    flip: K::Bits,
) -> Result<()> {
    let mut args = KernelArgs::new();
    args.push(src.keys)
        .push(src.values)
        .push(dst.keys)
        .push(dst.values)
        .push(plan.n as u64)
        .push(flip)
        .push(cfg.shared_bytes);
    // SAFETY: arguments match `merge_sort_tiles(const Key*, const Value*, Key*, Value*, u64,
    // Bits, u32)`; src and dst hold n keys (and values; both 0 for keys only, never touched
    // then), the same buffers or disjoint ones; each block reads a whole tile before writing
    // it; the dynamic shared memory is the shape's SORT_SMEM_BYTES (asserted equal to the
    // device's sizeof at compile time, checked again in the kernel); the grid strides over
    // the tiles.
    unsafe { kernel.launch(cfg, &args) }
}
