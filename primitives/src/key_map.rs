//! The key bit map over device arrays: the GPU twin of [`SortKey::to_ordered_bits`].

use crate::error::Result;
use crate::key::{Order, SortKey};
use crate::runtime::{Defines, DeviceBuffer, Gpu, KernelArgs, KernelSource, LaunchConfig, Policy};

const SOURCE: KernelSource = KernelSource::new("key_map.cu", include_str!("key_map.cu"));

/// Launch policy of the key map kernels.
#[derive(Clone, Copy, Debug)]
pub struct KeyMapPolicy {
    /// Threads per block.
    pub block_threads: u32,
    /// Blocks per multiprocessor of the grid-stride launch.
    pub blocks_per_sm: u32,
}

impl KeyMapPolicy {
    /// The policy for a device (grid-stride: a few resident blocks per SM saturate bandwidth).
    pub fn for_device(_gpu: &Gpu) -> Self {
        KeyMapPolicy {
            block_threads: 256,
            blocks_per_sm: 8,
        }
    }
}

impl Policy for KeyMapPolicy {
    fn defines(&self) -> Defines {
        Defines::new().set("BLOCK_THREADS", self.block_threads)
    }
}

/// Maps every key to its ordered bits (complemented for [`Order::Descending`]), on the device.
pub fn to_ordered_bits<K: SortKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    order: Order,
) -> Result<DeviceBuffer<K::Bits>> {
    let out = DeviceBuffer::<K::Bits>::alloc(gpu, keys.len())?;
    if keys.is_empty() {
        return Ok(out);
    }
    let p = KeyMapPolicy::for_device(gpu);
    let defines = p.defines().key::<K>();
    let kernel = gpu.module(&SOURCE, &defines)?.kernel("to_ordered_bits")?;
    let mut args = KernelArgs::new();
    args.ptr(keys.ptr())
        .ptr(out.ptr())
        .push(keys.len() as u64)
        .push(order.flip::<K::Bits>());
    // SAFETY: arguments match `to_ordered_bits(const K*, Bits*, u64, Bits)`; both buffers hold
    // keys.len() elements and the kernel touches indices < n only.
    unsafe {
        kernel.launch(
            LaunchConfig::linear(
                gpu.grid_stride_blocks(keys.len(), p.block_threads, p.blocks_per_sm),
                p.block_threads,
            ),
            &args,
        )?
    };
    Ok(out)
}

/// The inverse of [`to_ordered_bits`].
pub fn from_ordered_bits<K: SortKey>(
    gpu: &Gpu,
    bits: &DeviceBuffer<K::Bits>,
    order: Order,
) -> Result<DeviceBuffer<K>> {
    let out = DeviceBuffer::<K>::alloc(gpu, bits.len())?;
    if bits.is_empty() {
        return Ok(out);
    }
    let p = KeyMapPolicy::for_device(gpu);
    let defines = p.defines().key::<K>();
    let kernel = gpu.module(&SOURCE, &defines)?.kernel("from_ordered_bits")?;
    let mut args = KernelArgs::new();
    args.ptr(bits.ptr())
        .ptr(out.ptr())
        .push(bits.len() as u64)
        .push(order.flip::<K::Bits>());
    // SAFETY: arguments match `from_ordered_bits(const Bits*, K*, u64, Bits)`; both buffers
    // hold bits.len() elements.
    unsafe {
        kernel.launch(
            LaunchConfig::linear(
                gpu.grid_stride_blocks(bits.len(), p.block_threads, p.blocks_per_sm),
                p.block_threads,
            ),
            &args,
        )?
    };
    Ok(out)
}
