//! `sortlab bench radix | merge | bitonic | sample | quick | hybrid`: every variant of one
//! family of full GPU sorts (`gpu-sorts`' [`radix`], [`merge`], [`bitonic`], [`sample`],
//! [`quick`] and [`hybrid`] modules), keys and pairs, and the family's rayon twin on the CPU.
//!
//! Rows are named `FAMILY-VARIANT` (`radix-fast`, `merge-satish`, `bitonic-mapping`, ...) on the
//! GPU and `FAMILY` on the CPU. Radix, merge and sample sorts are stable, and their pairs are
//! checked stable; bitonic, quick and hybrid sorts are not, and their pairs are checked as
//! values following their keys.

use sortlab_gpu_sorts::{bitonic, hybrid, merge, quick, radix, sample};
use sortlab_primitives::{Order, SortValue};

use super::point::{sort_rows, GpuPoint, Out};
use crate::backend::check;
use crate::bench::row::wrong;
use crate::error::CliError;
use crate::key::CliKey;

/// A family of full sorts, each with its variants on the GPU and one CPU twin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// [`radix::RadixVariant`]; CPU twin: the rayon radix sort.
    Radix,
    /// [`merge::MergeVariant`]; CPU twin: the rayon merge sort.
    Merge,
    /// [`bitonic::BitonicVariant`]; CPU twin: the rayon bitonic network.
    Bitonic,
    /// [`sample::SampleVariant`]; CPU twin: the rayon sample sort.
    Sample,
    /// [`quick::QuickVariant`]; CPU twin: rayon's parallel quicksort.
    Quick,
    /// [`hybrid::HybridVariant`]; CPU twin: the rayon sample sort.
    Hybrid,
}

impl Family {
    /// The family's name: its CPU row, and the prefix of its GPU rows.
    pub fn name(self) -> &'static str {
        match self {
            Family::Radix => "radix",
            Family::Merge => "merge",
            Family::Bitonic => "bitonic",
            Family::Sample => "sample",
            Family::Quick => "quick",
            Family::Hybrid => "hybrid",
        }
    }

    /// The GPU rows, in the order they run.
    pub fn gpu_names(self) -> Vec<String> {
        let variants: Vec<&str> = match self {
            Family::Radix => radix::RadixVariant::ALL.map(|v| v.name()).to_vec(),
            Family::Merge => merge::MergeVariant::ALL.map(|v| v.name()).to_vec(),
            Family::Bitonic => bitonic::BitonicVariant::ALL.map(|v| v.name()).to_vec(),
            Family::Sample => sample::SampleVariant::ALL.map(|v| v.name()).to_vec(),
            Family::Quick => quick::QuickVariant::ALL.map(|v| v.name()).to_vec(),
            Family::Hybrid => hybrid::HybridVariant::ALL.map(|v| v.name()).to_vec(),
        };
        variants
            .into_iter()
            .map(|v| format!("{}-{v}", self.name()))
            .collect()
    }

    /// The GPU rows of one point.
    pub(super) fn gpu<K: CliKey, V: SortValue + Into<u64>>(
        self,
        p: &GpuPoint<'_, K, V>,
        out: &mut Out<'_>,
    ) -> Result<(), CliError> {
        let mut slots = p.sort_slots()?;
        let order = out.ctx.order;
        // The rows of every variant of `$module` (options `$opts`, variants `$variant`).
        macro_rules! rows {
            ($module:ident, $opts:ident, $variant:ident, $stable:expr) => {
                for v in $module::$variant::ALL {
                    let algo = format!("{}-{}", self.name(), v.name());
                    if !out.ctx.algos.wants(&algo) {
                        continue;
                    }
                    let opts = $module::$opts::default().with_order(order).with_variant(v);
                    sort_rows(
                        p,
                        out,
                        &mut slots,
                        &algo,
                        $stable,
                        &mut |k| $module::sort_keys(p.gpu, k, &opts),
                        &mut |k, v| $module::sort_pairs(p.gpu, k, v, &opts),
                    )?;
                }
            };
        }
        match self {
            Family::Radix => rows!(radix, RadixOptions, RadixVariant, true),
            Family::Merge => rows!(merge, MergeOptions, MergeVariant, true),
            Family::Bitonic => rows!(bitonic, BitonicOptions, BitonicVariant, false),
            Family::Sample => rows!(sample, SampleOptions, SampleVariant, true),
            Family::Quick => rows!(quick, QuickOptions, QuickVariant, false),
            Family::Hybrid => rows!(hybrid, HybridOptions, HybridVariant, false),
        }
        Ok(())
    }

    /// The CPU row of one point: the family's twin, checked sorted.
    pub(super) fn cpu<K: CliKey>(self, input: &[K], out: &mut Out<'_>) -> Result<(), CliError> {
        let sort: fn(&mut [K], Order) = match self {
            Family::Radix => sortlab_cpu_reference::radix::sort_keys,
            Family::Merge => sortlab_cpu_reference::merge::sort_keys,
            Family::Bitonic => sortlab_cpu_reference::bitonic::sort_keys,
            Family::Sample | Family::Hybrid => sortlab_cpu_reference::sample::sort_keys,
            Family::Quick => sortlab_cpu_reference::sort::sort_unstable,
        };
        let work = &mut input.to_vec()[..];
        let order = out.ctx.order;
        let t = out.time_cpu(input, work, |w| sort(w, order));
        let name = self.name();
        check::check_sorted(work, order).map_err(|e| wrong(&format!("cpu {name}"), e))?;
        out.push::<K>(name.into(), "cpu", "sort_keys", None, 0, t);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_named_by_family_and_variant() {
        assert_eq!(
            Family::Radix.gpu_names(),
            ["radix-onebit", "radix-satish", "radix-fast"]
        );
        assert_eq!(Family::Merge.gpu_names(), ["merge-satish", "merge-fast"]);
        assert_eq!(
            Family::Bitonic.gpu_names(),
            ["bitonic-mapping", "bitonic-notes", "bitonic-fast"]
        );
        assert_eq!(Family::Sample.gpu_names(), ["sample-notes", "sample-fast"]);
        assert_eq!(Family::Quick.gpu_names(), ["quick-notes", "quick-fast"]);
        assert_eq!(Family::Hybrid.gpu_names(), ["hybrid-paper", "hybrid-fast"]);
    }
}
