//! The rows every benchmark writes (`sortlab bench` suites and `sortlab reproduce`), their JSON
//! Lines file, and the errors of a wrong result.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;
use sortlab_primitives::{Gpu, Order};

use crate::engine::cpu_description;
use crate::error::CliError;
use crate::io::write_atomic;

/// One benchmark result, as written to the JSON Lines file (field order is the schema's).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BenchRow {
    /// Always `"sortlab"`.
    pub tool: &'static str,
    /// Algorithm name (the registry's, or the suite's row name).
    pub algo: String,
    /// `"cpu"` or `"gpu"`.
    pub engine: &'static str,
    /// The operation timed (`"sort_keys"`, `"sort_pairs"`, `"reduce_sum"`, ...).
    pub op: &'static str,
    /// Key type name.
    #[serde(rename = "type")]
    pub key_type: &'static str,
    /// Value type name for key-value sorts; `null` for keys only.
    pub value_type: Option<&'static str>,
    /// Input pattern name.
    pub pattern: String,
    /// Sort order of the run, `"asc"` or `"desc"` (the anchors' scripts match descending rows
    /// with descending anchors).
    pub order: &'static str,
    /// Number of keys.
    pub n: u64,
    /// Median time in milliseconds.
    pub ms: f64,
    /// Keys per second at the median time.
    pub keys_per_s: f64,
    /// `bytes` per second at the median time, in GB/s (10^9 bytes).
    pub gbps: f64,
    /// Bytes the operation must move at least (a sort: every key read once and written once).
    pub bytes: u64,
    /// The GPU's name, or the CPU's description.
    pub device: String,
    /// The date of the run, `YYYY-MM-DD` (UTC).
    pub date: String,
}

/// What a row measured: the fields that name it.
#[derive(Clone, Debug)]
pub struct RowId {
    /// Algorithm name.
    pub algo: String,
    /// `"cpu"` or `"gpu"`.
    pub engine: &'static str,
    /// The operation timed.
    pub op: &'static str,
    /// Key type name.
    pub key_type: &'static str,
    /// Value type name for key-value operations.
    pub value_type: Option<&'static str>,
    /// Input pattern name.
    pub pattern: String,
}

/// Where and when a run's rows were measured.
#[derive(Clone, Debug)]
pub struct Stamp {
    /// The date of the run, `YYYY-MM-DD` (UTC).
    pub date: String,
    /// The CPU's description ([`cpu_description`]).
    pub cpu: String,
    /// The GPU's name, where the run has one.
    pub gpu: Option<String>,
    /// The run's sort order.
    pub order: Order,
}

impl Stamp {
    /// Today, this CPU, `gpu` where there is one, and the run's `order`.
    pub fn new(gpu: Option<&Gpu>, order: Order) -> Self {
        Stamp {
            order,
            date: today(),
            cpu: cpu_description(),
            gpu: gpu.map(|g| g.info().name.clone()),
        }
    }

    /// The device of a row on `engine`: the GPU's name for `"gpu"`, else the CPU's.
    pub fn device(&self, engine: &str) -> String {
        match (engine, &self.gpu) {
            ("gpu", Some(g)) => g.clone(),
            _ => self.cpu.clone(),
        }
    }
}

impl BenchRow {
    /// The row of `id`: `n` keys in a median of `ms` milliseconds, `bytes` moved.
    pub fn new(id: RowId, n: u64, ms: f64, bytes: u64, stamp: &Stamp) -> Self {
        let secs = (ms / 1e3).max(f64::MIN_POSITIVE);
        BenchRow {
            tool: "sortlab",
            device: stamp.device(id.engine),
            algo: id.algo,
            engine: id.engine,
            op: id.op,
            key_type: id.key_type,
            value_type: id.value_type,
            pattern: id.pattern,
            order: stamp.order.name(),
            n,
            ms,
            keys_per_s: n as f64 / secs,
            gbps: gbps(bytes, ms),
            bytes,
            date: stamp.date.clone(),
        }
    }
}

/// GB/s (10^9 bytes a second) of `bytes` moved in `ms` milliseconds.
pub fn gbps(bytes: u64, ms: f64) -> f64 {
    bytes as f64 / (ms / 1e3).max(f64::MIN_POSITIVE) / 1e9
}

/// Writes `rows` as JSON Lines to `path`, atomically.
pub fn write_jsonl(path: &Path, rows: &[BenchRow]) -> Result<(), CliError> {
    write_atomic(path, |w| {
        for row in rows {
            serde_json::to_writer(&mut *w, row)?;
            w.write_all(b"\n")?;
        }
        Ok(())
    })
}

/// A [`CliError::WrongResult`] for `what`: a benchmark of a wrong result is worthless.
pub(crate) fn wrong(what: &str, message: impl std::fmt::Display) -> CliError {
    CliError::WrongResult {
        what: what.to_string(),
        message: message.to_string(),
    }
}

/// Today's date (UTC) as `YYYY-MM-DD`.
pub fn today() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Days since 1970-01-01 to a proleptic Gregorian (year, month, day) (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(20_454), (2026, 1, 1));
        assert_eq!(today().len(), 10);
    }

    #[test]
    fn rows_derive_their_rates() {
        let stamp = Stamp {
            date: "2026-01-01".into(),
            cpu: "CPU: x (2 threads)".into(),
            gpu: Some("H100".into()),
            order: Order::Descending,
        };
        let id = RowId {
            algo: "radix".into(),
            engine: "gpu",
            op: "sort_keys",
            key_type: "u32",
            value_type: None,
            pattern: "uniform".into(),
        };
        let r = BenchRow::new(id.clone(), 1000, 1.0, 8000, &stamp);
        assert_eq!(
            (r.keys_per_s, r.gbps, r.device.as_str()),
            (1e6, 8e-3, "H100")
        );
        let cpu = BenchRow::new(
            RowId {
                engine: "cpu",
                ..id
            },
            1,
            0.0,
            1,
            &stamp,
        );
        assert!(cpu.keys_per_s.is_finite() && cpu.device.starts_with("CPU"));
    }
}
