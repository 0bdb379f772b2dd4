//! A quick look at the speed of each variant on a few shapes (CUDA events, median of 5 after
//! 3 warm-ups). The measurements of record come from `sortlab bench arraysort`, with CUB and
//! torch in the same run; this example is for a first look while tuning.
//!
//! `cargo run --example arraysort_speed -p sortlab-arraysort`

use sortlab_arraysort::{
    scratch_bytes, scratch_bytes_pairs, sort_keys_with_scratch, sort_pairs_with_scratch,
    ArrayOptions, ArrayVariant, Segments,
};
use sortlab_primitives::{median, DeviceBuffer, Gpu, GpuTimer, Result, SortKey};
use sortlab_verify::{generate, Pattern};

fn time(gpu: &Gpu, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    for _ in 0..3 {
        f()?;
    }
    let t = GpuTimer::new(gpu)?;
    let mut ms = Vec::new();
    for _ in 0..5 {
        t.start()?;
        f()?;
        ms.push(t.stop()?);
    }
    Ok(median(&mut ms))
}

fn shape<K: SortKey>(
    gpu: &Gpu,
    arrays: usize,
    len: usize,
    variants: &[ArrayVariant],
    pairs: bool,
) -> Result<()> {
    let n = arrays * len;
    // A chunk of random keys, repeated (generating billions of keys would dominate the run).
    let chunk: Vec<K> = generate(Pattern::Uniform, n.min(1 << 22), 1);
    let mut input = Vec::with_capacity(n);
    while input.len() < n {
        input.extend_from_slice(&chunk[..chunk.len().min(n - input.len())]);
    }
    let src = DeviceBuffer::from_host(gpu, &input)?;
    let mut keys = DeviceBuffer::<K>::alloc(gpu, n)?;
    let mut values = DeviceBuffer::<u32>::zeroed(gpu, if pairs { n } else { 0 })?;
    let segs = Segments::Fixed { len };
    for &v in variants {
        let opts = ArrayOptions::default().with_variant(v);
        let need = if pairs {
            scratch_bytes_pairs::<K, u32>(n, &segs, &opts)
        } else {
            scratch_bytes::<K>(n, &segs, &opts)
        };
        let mut scratch = DeviceBuffer::<u8>::alloc(gpu, need)?;
        let ms = time(gpu, || {
            keys.copy_from_device(&src)?;
            if pairs {
                sort_pairs_with_scratch(gpu, &mut keys, &mut values, segs, &opts, &mut scratch)?;
            } else {
                sort_keys_with_scratch(gpu, &mut keys, segs, &opts, &mut scratch)?;
            }
            Ok(())
        })?;
        // The copy in each timed run, timed alone, is subtracted.
        let copy = time(gpu, || keys.copy_from_device(&src))?;
        let sort = (ms - copy).max(1e-6);
        println!(
            "{:>7} {} {}{} x {len}: {sort:.3} ms, {:.2} Gkeys/s",
            v.name(),
            K::NAME,
            if pairs { "pairs " } else { "" },
            arrays,
            n as f64 / sort / 1e6
        );
    }
    Ok(())
}

fn main() -> Result<()> {
    let gpu = Gpu::new(0)?;
    println!("{}", gpu.info().name);
    let all = [
        ArrayVariant::Fast,
        ArrayVariant::Paper,
        ArrayVariant::Tagged,
    ];
    shape::<u32>(&gpu, 50_000, 1000, &all, false)?;
    shape::<u32>(&gpu, 50_000, 4000, &all, false)?;
    shape::<u32>(&gpu, 200_000, 1000, &[ArrayVariant::Fast], false)?;
    shape::<u32>(&gpu, 50_000, 5000, &[ArrayVariant::Fast], false)?;
    shape::<f64>(&gpu, 20_000, 5000, &[ArrayVariant::Fast], true)?;
    shape::<f32>(&gpu, 1_000_000, 1000, &[ArrayVariant::Fast], false)?;
    shape::<f32>(&gpu, 1_000_000, 1000, &[ArrayVariant::Fast], true)?;
    shape::<f32>(&gpu, 4_000_000, 20, &[ArrayVariant::Fast], false)?;
    shape::<f32>(
        &gpu,
        100,
        1 << 20,
        &[ArrayVariant::Fast, ArrayVariant::Tagged],
        false,
    )?;
    Ok(())
}
