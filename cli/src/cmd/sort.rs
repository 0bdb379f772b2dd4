//! `sortlab sort`: sort a file with a registered algorithm.

use std::time::Instant;

use sortlab_registry::Algo;

use super::{ms, note};
use crate::algo::find_algo;
use crate::args::SortArgs;
use crate::engine::{choose_engine, sort_on};
use crate::error::CliError;
use crate::io::{read_keys, write_keys};
use crate::key::{parse_key_type, CliKey};
use crate::progress;
use crate::with_key_type;

/// Reads `args.input`, sorts it with `args.algo` on the chosen engine, writes `args.output`
/// (atomically) and reports the engine and the sort's time on stderr.
pub fn run(args: &SortArgs) -> Result<(), CliError> {
    let algo = find_algo(&args.algo)?;
    let key_type = parse_key_type(&args.key_type)?;
    with_key_type!(key_type, K => sort_typed::<K>(args, algo))
}

fn sort_typed<K: CliKey>(args: &SortArgs, algo: &Algo) -> Result<(), CliError> {
    let (engine, fallback) = choose_engine(args.engine, algo)?;
    let mut keys = read_keys::<K>(&args.input)?;
    let bytes = (keys.len() * K::SIZE) as u64;
    let spin = progress::spinner(bytes, &format!("sorting with {}", algo.name));
    let start = Instant::now();
    sort_on(&engine, algo, &mut keys, args.order)?;
    let elapsed = start.elapsed();
    spin.finish_and_clear();
    write_keys(&args.output, &keys)?;
    if let Some(why) = fallback {
        note(&format!("note: {why}; using the CPU engine"));
    }
    let transfers = if engine.name() == "gpu" {
        " (with transfers)"
    } else {
        ""
    };
    note(&format!(
        "sorted {} {} keys ({}) with {} on the {} engine [{}] in {:.3} ms{transfers}",
        keys.len(),
        K::NAME,
        args.order,
        algo.name,
        engine.name(),
        engine.device(),
        ms(elapsed)
    ));
    Ok(())
}
