//! The property suite on the radix sorts: the rayon twin in `cpu-reference` (runs in CI) and
//! each GPU variant of `sortlab_gpu_sorts::radix` (ignored without a CUDA device; run with
//! `--include-ignored` on a CUDA machine, e.g. through scripts/gpu-check).

use sortlab_cpu_reference::radix as cpu_radix;
use sortlab_gpu_sorts::radix::{self, RadixOptions, RadixVariant};
use sortlab_primitives::{Gpu, Order};

/// `sortlab_cpu_reference::radix`: the rayon radix sort.
struct CpuRadix;

// Past one rayon chunk (2^15 keys), the twin scatters chunks in parallel.
sortlab_verify::sort_algorithm!(
    CpuRadix,
    "cpu-reference radix (rayon LSD)",
    stable = true,
    keys = cpu_radix::sort_keys,
    pairs = cpu_radix::sort_pairs,
    tiles = vec![1 << 15],
);

/// One GPU radix variant, through the host conveniences (upload, sort, download).
struct GpuRadix {
    gpu: Gpu,
    variant: RadixVariant,
}

impl GpuRadix {
    fn new(variant: RadixVariant) -> Self {
        let gpu = Gpu::new(0).expect("a CUDA device (these tests are ignored without one)");
        GpuRadix { gpu, variant }
    }
    fn options(&self, order: Order) -> RadixOptions {
        RadixOptions {
            order,
            variant: self.variant,
            ..RadixOptions::default()
        }
    }
}

sortlab_verify::sort_algorithm! {
    impl GpuRadix(self) {
        name: format!("gpu radix ({})", self.variant),
        stable: true,
        tiles: radix::edge_lengths(self.variant),
        keys(keys, order) {
            radix::sort_keys_host(&self.gpu, keys, &self.options(order)).map_err(|e| e.to_string())
        }
        pairs(keys, values, order) {
            radix::sort_pairs_host(&self.gpu, keys, values, &self.options(order))
                .map_err(|e| e.to_string())
        }
    }
}

sortlab_verify::sort_suite!(cpu_radix_suite, CpuRadix);
sortlab_verify::sort_suite!(
    gpu_radix_onebit,
    GpuRadix::new(RadixVariant::OneBit),
    ignore = "needs a CUDA device"
);
sortlab_verify::sort_suite!(
    gpu_radix_satish,
    GpuRadix::new(RadixVariant::Satish),
    ignore = "needs a CUDA device"
);
sortlab_verify::sort_suite!(
    gpu_radix_fast,
    GpuRadix::new(RadixVariant::Fast),
    ignore = "needs a CUDA device"
);
