//! What the algorithm suites (`radix`, `approxsort`, `roughsort`) share: where one (type,
//! pattern, size) point's rows go, and the point's device buffers.

use sortlab_primitives::{DeviceBuffer, Gpu, Order, SortKey, SortValue};

use crate::backend::check;
use crate::bench::row::{wrong, BenchRow, RowId};
use crate::bench::setup::Run;
use crate::bench::timing::{buffers, gpu_err, time_cpu, time_gpu_slots};
use crate::cmd::say;
use crate::error::CliError;

/// Where rows go, with the point's fixed fields.
pub(super) struct Out<'a> {
    pub(super) ctx: &'a Run,
    pub(super) rows: &'a mut Vec<BenchRow>,
    pub(super) pattern: String,
    pub(super) n: u64,
    /// The device-to-device copy rate of the point's keys (GB/s), the GPU rows' bound.
    pub(super) copy_gbps: Option<f64>,
}

impl Out<'_> {
    /// [`time_cpu`] of `call` on `work`, restored from `input` before each call.
    pub(super) fn time_cpu<K: SortKey>(
        &self,
        input: &[K],
        work: &mut [K],
        call: impl FnMut(&mut [K]),
    ) -> f64 {
        time_cpu(self.ctx.reps, work, |w| w.copy_from_slice(input), call)
    }

    /// Prints and keeps a row of `K` keys (with values of `value_size` bytes for pairs).
    pub(super) fn push<K: SortKey>(
        &mut self,
        algo: String,
        engine: &'static str,
        op: &'static str,
        value_type: Option<&'static str>,
        value_size: usize,
        ms: f64,
    ) {
        let bytes = 2 * self.n * (K::SIZE + value_size) as u64;
        let id = RowId {
            algo,
            engine,
            op,
            key_type: K::NAME,
            value_type,
            pattern: self.pattern.clone(),
        };
        let row = BenchRow::new(id, self.n, ms, bytes, &self.ctx.stamp);
        let frac = match self.copy_gbps {
            Some(c) if engine == "gpu" && c > 0.0 => format!("{:.2}", row.gbps / c),
            _ => "-".into(),
        };
        say(&format!(
            "{:<24} {:<6} {:<17} {:<5} {:<5} {:<15} {:>11} {:>10.4} {:>9.1} {:>8}",
            row.algo,
            row.engine,
            row.op,
            row.key_type,
            row.value_type.unwrap_or("-"),
            row.pattern,
            row.n,
            row.ms,
            row.keys_per_s / 1e6,
            frac
        ));
        self.rows.push(row);
    }
}

/// One point's input on the device, its index values, and the slot counts of its rows.
pub(super) struct GpuPoint<'a, K: SortKey, V: SortValue> {
    pub(super) gpu: &'a Gpu,
    /// The input on the host.
    pub(super) input: &'a [K],
    /// The pristine input on the device.
    pub(super) d_in: &'a DeviceBuffer<K>,
    /// Index values `0..n` on the device.
    pub(super) d_vals: DeviceBuffer<V>,
    /// Context of errors.
    pub(super) what: &'a str,
    /// Bytes of the keys and of the values.
    pub(super) kb: usize,
    pub(super) vb: usize,
    /// Slots of in-place calls on keys alone (`k1`) and on keys and values (`k2`).
    pub(super) k1: usize,
    pub(super) k2: usize,
    /// The value type's name.
    pub(super) vname: &'static str,
}

/// Slots of keys and of values.
type Slots<K, V> = (Vec<DeviceBuffer<K>>, Vec<DeviceBuffer<V>>);

impl<K: SortKey, V: SortValue> GpuPoint<'_, K, V> {
    /// What every GPU row of the point uses: the device, the error context, the order, the
    /// timed repetitions, and the conversion of runtime errors.
    pub(super) fn context(
        &self,
        out: &Out<'_>,
    ) -> (
        &Gpu,
        &str,
        Order,
        u32,
        impl Fn(sortlab_primitives::Error) -> CliError + '_,
    ) {
        (
            self.gpu,
            self.what,
            out.ctx.order,
            out.ctx.reps,
            gpu_err(self.what),
        )
    }

    /// Output slots of in-place sorts: `k1` of keys, `k2` of values (contents unspecified).
    pub(super) fn sort_slots(&self) -> Result<Slots<K, V>, CliError> {
        let n = self.input.len();
        Ok((
            buffers::<K>(self.gpu, n, self.k1, self.what)?,
            buffers::<V>(self.gpu, n, self.k2, self.what)?,
        ))
    }
}

/// An in-place GPU sort of keys alone, as a suite row times it.
pub(super) type SortKeysFn<'a, K> =
    &'a mut dyn FnMut(&mut DeviceBuffer<K>) -> sortlab_primitives::Result<()>;
/// An in-place GPU sort of keys and values, as a suite row times it.
pub(super) type SortPairsFn<'a, K, V> =
    &'a mut dyn FnMut(&mut DeviceBuffer<K>, &mut DeviceBuffer<V>) -> sortlab_primitives::Result<()>;

/// The `sort_keys` and `sort_pairs` rows of one full in-place GPU sort `algo` at point `p`,
/// on the output slots `slots` ([`GpuPoint::sort_slots`]): each timed over rotating slots with
/// the input restored outside the timed region, the last output checked (sorted; pairs: each
/// value the index of an equal input key, and in input order among equal keys if `stable`).
pub(super) fn sort_rows<K: SortKey, V: SortValue + Into<u64>>(
    p: &GpuPoint<'_, K, V>,
    out: &mut Out<'_>,
    slots: &mut Slots<K, V>,
    algo: &str,
    stable: bool,
    sort_keys: SortKeysFn<'_, K>,
    sort_pairs: SortPairsFn<'_, K, V>,
) -> Result<(), CliError> {
    let (gpu, what, order, reps, err) = p.context(out);
    let (keys, values) = slots;
    let (t, last) = time_gpu_slots(gpu, reps, what, p.k1, |s, restore| {
        if restore {
            keys[s].copy_from_device(p.d_in)
        } else {
            sort_keys(&mut keys[s])
        }
    })?;
    let got = keys[last].to_host().map_err(&err)?;
    check_sorted_keys(&got, order, algo)?;
    out.push::<K>(algo.to_string(), "gpu", "sort_keys", None, 0, t);
    let (t, last) = time_gpu_slots(gpu, reps, what, p.k2, |s, restore| {
        if restore {
            keys[s].copy_from_device(p.d_in)?;
            values[s].copy_from_device(&p.d_vals)
        } else {
            sort_pairs(&mut keys[s], &mut values[s])
        }
    })?;
    let (k, v) = (
        keys[last].to_host().map_err(&err)?,
        values[last].to_host().map_err(&err)?,
    );
    check_sorted_keys(&k, order, algo)?;
    check::check_index_values(p.input, &k, &v, stable).map_err(|e| wrong(algo, e))?;
    out.push::<K>(
        algo.to_string(),
        "gpu",
        "sort_pairs",
        Some(p.vname),
        V::SIZE,
        t,
    );
    Ok(())
}

/// Keys sorted in `order`.
pub(super) fn check_sorted_keys<K: SortKey>(
    keys: &[K],
    order: Order,
    what: &str,
) -> Result<(), CliError> {
    check::check_sorted(keys, order).map_err(|e| wrong(what, e))
}
