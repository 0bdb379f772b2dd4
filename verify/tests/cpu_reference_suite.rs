//! The property suite on the CPU engine's sorts (runs in CI, no GPU needed).

use sortlab_verify::algorithms::{CpuSeq, CpuStable, CpuUnstable};

sortlab_verify::sort_suite!(cpu_stable, CpuStable);
sortlab_verify::sort_suite!(cpu_unstable, CpuUnstable);
sortlab_verify::sort_suite!(cpu_seq, CpuSeq);
