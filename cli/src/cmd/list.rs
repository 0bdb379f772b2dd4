//! `sortlab list`: the registries.

use sortlab_primitives::KeyType;

use sortlab_registry::ALGOS;

use super::say;
use crate::backend::patterns::Pattern;
use crate::bench::SUITES;

/// Prints the algorithms, key types, patterns and bench suites.
pub fn run() {
    say("algorithms:");
    for a in ALGOS {
        let engines = if a.has_gpu() { "cpu, gpu" } else { "cpu" };
        let stable = if a.stable { "stable" } else { "unstable" };
        say(&format!(
            "  {:<24} {:<9} {:<9} {}",
            a.name, stable, engines, a.description
        ));
    }
    say(&format!(
        "key types: {}",
        KeyType::ALL.map(|t| t.name()).join(", ")
    ));
    let patterns: Vec<&str> = Pattern::ALL
        .iter()
        .map(|p| match p {
            Pattern::KSorted(_) => "k-sorted[:K]",
            p => p.name(),
        })
        .collect();
    say(&format!("patterns: {}", patterns.join(", ")));
    say(&format!("bench suites: {}", SUITES.join(", ")));
    say("experiments (sortlab reproduce):");
    for (name, what) in super::reproduce::PAPERS {
        say(&format!("  {name:<12} {what}"));
    }
}
