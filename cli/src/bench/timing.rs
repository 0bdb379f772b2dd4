//! How every benchmark of the command times a call (`sortlab bench` suites and `sortlab
//! reproduce`), DESIGN.md section 6.
//!
//! - CPU: `time_cpu`, the wall clock around the call alone, one warm-up call first.
//! - Several GPUs, or host memory to host memory: `time_wall`, the wall clock around the call
//!   with every GPU synchronised, after `WARMUP_CALLS` untimed calls.
//! - GPU: CUDA events around the device-resident call alone (`time_gpu_slots` and its
//!   forms), after `WARMUP_CALLS` untimed calls, with room reserved in the memory pool first
//!   (`reserve_room`).
//! - Rotating slots, as the CUB anchors do: each row keeps `k` copies ("slots") of what a call
//!   reads and writes, `k` slots spanning at least three times the L2 cache (`slot_count`),
//!   timed call `r` on slot `r % k`. A call then never finds its data still in L2 from an earlier
//!   call or the upload, so a small input is timed from device memory as a large one is. A slot
//!   whose input a call overwrites (an in-place sort) is restored from the pristine copy right
//!   after each use, untimed.
//! - Every form reports the `median` of the timed calls.

use std::time::Instant;

use sortlab_primitives::{DeviceBuffer, DeviceCopy, Gpu, GpuTimer};

use crate::error::CliError;

/// The median of `times` (the primitives' [`sortlab_primitives::median`]).
pub use sortlab_primitives::median;

/// Untimed calls before the timed ones, as CUB's anchors make (`--warmup`, default 3); the first
/// compiles the modules. With room reserved in the pool first ([`reserve_room`]) the timed calls
/// are the steady state a caller sees call after call (cli/README.md has the measurement).
pub(crate) const WARMUP_CALLS: usize = 3;

/// Most slots a row keeps: slots of at least 3 * L2 / MAX_SLOTS bytes (about 37 KiB on a 50 MiB
/// L2) get the full span; smaller ones, whose calls are latency-bound anyway, as many as this.
const MAX_SLOTS: usize = 4096;

/// A [`CliError::Gpu`] maker for runtime errors while running `what`.
pub(crate) fn gpu_err(what: &str) -> impl Fn(sortlab_primitives::Error) -> CliError + '_ {
    move |source| CliError::Gpu {
        what: what.to_string(),
        source,
    }
}

/// Median of `reps` wall-clock-timed `call(state)`, after one untimed warm-up call; `restore`
/// puts the input in place before every call, outside the timed region (a no-op for calls that
/// leave their input as it was).
pub(crate) fn time_cpu<S: ?Sized>(
    reps: u32,
    state: &mut S,
    mut restore: impl FnMut(&mut S),
    mut call: impl FnMut(&mut S),
) -> f64 {
    restore(state);
    call(state);
    let mut t = Vec::with_capacity(reps as usize);
    for _ in 0..reps {
        restore(state);
        let s = Instant::now();
        call(state);
        t.push(s.elapsed().as_secs_f64() * 1e3);
    }
    median(&mut t)
}

/// Median wall-clock milliseconds of `reps` calls of `call`, each after an untimed `restore`,
/// after [`WARMUP_CALLS`] untimed calls; `sync` waits for every GPU the call used. For work on
/// several GPUs or host memory, where no one stream carries the events of [`time_gpu_slots`].
pub(crate) fn time_wall<S>(
    reps: u32,
    state: &mut S,
    mut restore: impl FnMut(&mut S) -> sortlab_primitives::Result<()>,
    mut call: impl FnMut(&mut S) -> sortlab_primitives::Result<()>,
    mut sync: impl FnMut() -> sortlab_primitives::Result<()>,
) -> sortlab_primitives::Result<f64> {
    for _ in 0..WARMUP_CALLS {
        restore(state)?;
        call(state)?;
        sync()?;
    }
    let mut t = Vec::with_capacity(reps as usize);
    for _ in 0..reps {
        restore(state)?;
        sync()?;
        let s = Instant::now();
        call(state)?;
        sync()?;
        t.push(s.elapsed().as_secs_f64() * 1e3);
    }
    Ok(median(&mut t))
}

/// Makes room for `bytes` in the device's memory pool ([`Gpu::reserve_pool`], at most half the
/// free device memory) before a row's buffers are allocated, so that no timed call waits for the
/// driver to map new memory for its scratch buffers.
pub(crate) fn reserve_room(gpu: &Gpu, bytes: usize, what: &str) -> Result<(), CliError> {
    let err = gpu_err(what);
    let (free, _) = gpu.memory_info().map_err(&err)?;
    gpu.reserve_pool(bytes.min(free / 2)).map_err(&err)?;
    Ok(())
}

/// Slots of `slot_bytes` each (what one call reads plus what it writes) that together span at
/// least three times the L2 cache of `gpu`; 1 when one slot already does; at most
/// [`MAX_SLOTS`].
///
/// A 4 MiB slot on a device with a 50 MiB L2 needs 38 slots; a 1 GiB slot needs one.
pub(crate) fn slot_count(gpu: &Gpu, slot_bytes: usize) -> usize {
    slots_for(gpu.info().l2_bytes, slot_bytes)
}

fn slots_for(l2_bytes: usize, slot_bytes: usize) -> usize {
    (3 * l2_bytes)
        .div_ceil(slot_bytes.max(1))
        .clamp(1, MAX_SLOTS)
}

/// `k` device copies of `src`.
pub(crate) fn copies<T: DeviceCopy>(
    gpu: &Gpu,
    src: &DeviceBuffer<T>,
    k: usize,
    what: &str,
) -> Result<Vec<DeviceBuffer<T>>, CliError> {
    (0..k)
        .map(|_| {
            let mut b = DeviceBuffer::<T>::alloc(gpu, src.len())?;
            b.copy_from_device(src)?;
            Ok(b)
        })
        .collect::<sortlab_primitives::Result<_>>()
        .map_err(gpu_err(what))
}

/// `k` device buffers of `len` elements (contents unspecified).
pub(crate) fn buffers<T: DeviceCopy>(
    gpu: &Gpu,
    len: usize,
    k: usize,
    what: &str,
) -> Result<Vec<DeviceBuffer<T>>, CliError> {
    (0..k)
        .map(|_| DeviceBuffer::<T>::alloc(gpu, len))
        .collect::<sortlab_primitives::Result<_>>()
        .map_err(gpu_err(what))
}

/// Median of `reps` event-timed calls `step(slot, false)` over `k` rotating slots (call `r` on
/// slot `r % k`), after [`WARMUP_CALLS`] untimed calls on slots 0, 1, ..., and the slot of the
/// last call (which holds its result). `step(slot, true)` puts the slot's input in place (a
/// no-op for calls that leave their input as it was): before every call, outside the timed
/// region (before the timed calls for every slot, then right after each call but the last).
pub(crate) fn time_gpu_slots(
    gpu: &Gpu,
    reps: u32,
    what: &str,
    k: usize,
    mut step: impl FnMut(usize, bool) -> sortlab_primitives::Result<()>,
) -> Result<(f64, usize), CliError> {
    let err = gpu_err(what);
    let k = k.max(1);
    for w in 0..WARMUP_CALLS {
        step(w % k, true).map_err(&err)?;
        step(w % k, false).map_err(&err)?;
    }
    for s in 0..k {
        step(s, true).map_err(&err)?;
    }
    let timer = GpuTimer::new(gpu).map_err(&err)?;
    let reps = (reps as usize).max(1);
    let mut t = Vec::with_capacity(reps);
    for r in 0..reps {
        let s = r % k;
        timer.start().map_err(&err)?;
        step(s, false).map_err(&err)?;
        t.push(timer.stop().map_err(&err)?);
        if r + 1 < reps {
            step(s, true).map_err(&err)?;
        }
    }
    Ok((median(&mut t), (reps - 1) % k))
}

/// [`time_gpu_slots`] for calls that leave their input as it was (nothing to restore): the
/// median of `reps` timed `call(slot)` and the last call's slot.
pub(crate) fn time_gpu_rotating(
    gpu: &Gpu,
    reps: u32,
    what: &str,
    k: usize,
    mut call: impl FnMut(usize) -> sortlab_primitives::Result<()>,
) -> Result<(f64, usize), CliError> {
    time_gpu_slots(
        gpu,
        reps,
        what,
        k,
        |s, restore| {
            if restore {
                Ok(())
            } else {
                call(s)
            }
        },
    )
}

/// Median time of a device-to-device copy of `src` (the bound of the rows beside it), over
/// rotating input and output slots.
pub(crate) fn time_copy<T: DeviceCopy>(
    gpu: &Gpu,
    reps: u32,
    what: &str,
    src: &DeviceBuffer<T>,
) -> Result<f64, CliError> {
    let k = slot_count(gpu, 2 * src.len() * std::mem::size_of::<T>());
    let ins = InputSlots::new(gpu, src, k, what)?;
    let mut outs = buffers::<T>(gpu, src.len(), k, what)?;
    time_gpu_rotating(gpu, reps, what, k, |s| outs[s].copy_from_device(ins.get(s))).map(|(t, _)| t)
}

/// [`time_gpu_slots`] over slots this function makes, for calls that overwrite their input: `k`
/// slots (as [`slot_count`] of `slot_bytes`, what one call reads plus writes), each made by
/// `make` (its buffers) and put in place by `restore` (the pristine input copied back). Returns
/// the median of `reps` timed `call`s and the last call's slot, which holds its result.
pub(crate) fn time_gpu_made_slots<S>(
    gpu: &Gpu,
    reps: u32,
    what: &str,
    slot_bytes: usize,
    mut make: impl FnMut() -> sortlab_primitives::Result<S>,
    mut restore: impl FnMut(&mut S) -> sortlab_primitives::Result<()>,
    mut call: impl FnMut(&mut S) -> sortlab_primitives::Result<()>,
) -> Result<(f64, S), CliError> {
    let k = slot_count(gpu, slot_bytes);
    let mut slots = (0..k)
        .map(|_| make())
        .collect::<sortlab_primitives::Result<Vec<S>>>()
        .map_err(gpu_err(what))?;
    let (t, last) = time_gpu_slots(gpu, reps, what, k, |s, put| {
        if put {
            restore(&mut slots[s])
        } else {
            call(&mut slots[s])
        }
    })?;
    Ok((t, slots.swap_remove(last)))
}

/// [`time_gpu_made_slots`] for calls that sort one buffer in place: slots of `pristine`'s
/// length, each restored from it; returns the median and the last call's buffer.
pub(crate) fn time_gpu_in_place<T: DeviceCopy>(
    gpu: &Gpu,
    reps: u32,
    what: &str,
    pristine: &DeviceBuffer<T>,
    call: impl FnMut(&mut DeviceBuffer<T>) -> sortlab_primitives::Result<()>,
) -> Result<(f64, DeviceBuffer<T>), CliError> {
    time_gpu_made_slots(
        gpu,
        reps,
        what,
        2 * pristine.len() * std::mem::size_of::<T>(),
        || DeviceBuffer::alloc(gpu, pristine.len()),
        |b| b.copy_from_device(pristine),
        call,
    )
}

/// Slots of an input that calls only read: `k` copies of the pristine buffer, or, when one slot
/// spans the L2 caches already (`k <= 1`), the pristine buffer itself (no copy).
pub(crate) struct InputSlots<'a, T: DeviceCopy> {
    pristine: &'a DeviceBuffer<T>,
    copies: Vec<DeviceBuffer<T>>,
}

impl<'a, T: DeviceCopy> InputSlots<'a, T> {
    /// `k` slots of `pristine`.
    pub(crate) fn new(
        gpu: &Gpu,
        pristine: &'a DeviceBuffer<T>,
        k: usize,
        what: &str,
    ) -> Result<Self, CliError> {
        let copies = if k > 1 {
            copies(gpu, pristine, k, what)?
        } else {
            Vec::new()
        };
        Ok(InputSlots { pristine, copies })
    }

    /// The input of slot `s`.
    pub(crate) fn get(&self, s: usize) -> &DeviceBuffer<T> {
        self.copies.get(s).unwrap_or(self.pristine)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_span_three_l2_caches() {
        let l2 = 50 << 20;
        assert_eq!(slots_for(l2, 4 << 20), 38);
        assert!(38 * (4 << 20) >= 3 * l2 && 37 * (4 << 20) < 3 * l2);
        assert_eq!(slots_for(l2, 150 << 20), 1);
        assert_eq!(slots_for(l2, 1 << 30), 1);
        assert_eq!(slots_for(l2, 8), MAX_SLOTS);
        assert_eq!(slots_for(l2, 0), MAX_SLOTS);
        assert_eq!(slots_for(0, 4096), 1);
    }

    #[test]
    fn cpu_timing_restores_before_every_call() {
        let input = [3u32, 1, 2];
        let mut work = [0u32; 3];
        let mut calls = 0;
        let t = time_cpu(
            4,
            &mut work[..],
            |w| w.copy_from_slice(&input),
            |w| {
                assert_eq!(w, input);
                w.sort();
                calls += 1;
            },
        );
        assert_eq!((calls, work), (5, [1, 2, 3]));
        assert!(t >= 0.0);
    }
}
