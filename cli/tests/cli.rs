//! End-to-end tests of the `sortlab` binary: every case runs the built executable in a
//! temporary directory and looks at its exit code, output and files.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tempfile::TempDir;

const TYPES: [&str; 6] = ["u32", "i32", "f32", "u64", "i64", "f64"];

fn sortlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sortlab"))
        .args(args)
        .output()
        .expect("the sortlab binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[track_caller]
fn assert_code(o: &Output, code: i32) {
    assert_eq!(
        o.status.code(),
        Some(code),
        "exit status\nstdout:\n{}\nstderr:\n{}",
        stdout(o),
        stderr(o)
    );
}

/// Asserts exit code 2, the `sortlab: error:` prefix, and each of `needles` on stderr.
#[track_caller]
fn assert_error(o: &Output, needles: &[&str]) {
    assert_code(o, 2);
    let err = stderr(o);
    assert!(err.starts_with("sortlab: error: "), "stderr: {err}");
    for n in needles {
        assert!(err.contains(n), "stderr lacks {n:?}: {err}");
    }
    assert!(!err.contains("panicked"), "stderr: {err}");
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("temp paths are UTF-8")
}

struct Dir {
    dir: TempDir,
}

impl Dir {
    fn new() -> Dir {
        Dir {
            dir: tempfile::tempdir().expect("a temp dir"),
        }
    }
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    /// Every file name in the directory, sorted (temporary files included).
    fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(self.dir.path())
            .expect("readable temp dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

fn u32_bytes(keys: &[u32]) -> Vec<u8> {
    keys.iter().flat_map(|k| k.to_le_bytes()).collect()
}

#[test]
fn gen_sort_check_round_trip_all_types_both_orders() {
    let d = Dir::new();
    for ty in TYPES {
        let input = d.path(&format!("in-{ty}.bin"));
        let o = sortlab(&[
            "gen",
            "--pattern",
            "uniform",
            "--type",
            ty,
            "--n",
            "3000",
            "--seed",
            "7",
            "-o",
            path_str(&input),
        ]);
        assert_code(&o, 0);
        let size = if ty.ends_with("32") { 4 } else { 8 };
        assert_eq!(fs::metadata(&input).unwrap().len(), 3000 * size);
        for order in ["asc", "desc"] {
            let out = d.path(&format!("out-{ty}-{order}.bin"));
            let seq = d.path(&format!("seq-{ty}-{order}.bin"));
            for (algo, file) in [("reference", &out), ("reference-seq", &seq)] {
                let o = sortlab(&[
                    "sort",
                    "--algo",
                    algo,
                    "--order",
                    order,
                    "--type",
                    ty,
                    "--engine",
                    "cpu",
                    path_str(&input),
                    "-o",
                    path_str(file),
                ]);
                assert_code(&o, 0);
                let err = stderr(&o);
                assert!(err.contains("cpu engine") && err.contains(" ms"), "{err}");
            }
            let out_s = path_str(&out);
            let checks: [&[&str]; 3] = [
                &["check", out_s, "--type", ty, "--order", order, "--sorted"],
                &[
                    "check",
                    out_s,
                    "--type",
                    ty,
                    "--permutation-of",
                    path_str(&input),
                ],
                &["check", out_s, "--type", ty, "--same-as", path_str(&seq)],
            ];
            for args in checks {
                let o = sortlab(args);
                assert_code(&o, 0);
                assert!(stdout(&o).starts_with("ok: "), "{}", stdout(&o));
            }
            // The other order is not satisfied by a sort of uniform keys.
            let other = if order == "asc" { "desc" } else { "asc" };
            let o = sortlab(&["check", out_s, "--type", ty, "--order", other]);
            assert_code(&o, 1);
        }
    }
}

#[test]
fn gen_is_deterministic_in_the_seed() {
    let d = Dir::new();
    let run = |name: &str, seed: &str| {
        let p = d.path(name);
        let o = sortlab(&["gen", "--n", "2^10", "--seed", seed, "-o", path_str(&p)]);
        assert_code(&o, 0);
        fs::read(p).unwrap()
    };
    let a = run("a", "1");
    assert_eq!(a.len(), 4096);
    assert_eq!(a, run("b", "1"));
    assert_ne!(a, run("c", "2"));
}

#[test]
fn check_sorted_fails_on_unsorted_input() {
    let d = Dir::new();
    let f = d.path("unsorted.bin");
    fs::write(&f, u32_bytes(&[1, 3, 2, 4])).unwrap();
    let o = sortlab(&["check", path_str(&f), "--type", "u32", "--sorted"]);
    assert_code(&o, 1);
    let out = stdout(&o);
    assert!(
        out.starts_with("FAIL: ") && out.contains("not sorted"),
        "{out}"
    );
    assert!(out.contains("unsorted.bin"), "{out}");
    // Sorted the other way round passes or fails as it should.
    fs::write(&f, u32_bytes(&[4, 3, 3, 1])).unwrap();
    assert_code(&sortlab(&["check", path_str(&f), "--order", "desc"]), 0);
    assert_code(&sortlab(&["check", path_str(&f)]), 1);
}

#[test]
fn check_k_sorted_and_radius() {
    let d = Dir::new();
    let f = d.path("k.bin");
    // Radius 2: 3 belongs two places left of where it is... (2, 0, 1 -> 0, 1, 2).
    fs::write(&f, u32_bytes(&[2, 0, 1, 3, 5, 4])).unwrap();
    let o = sortlab(&["check", path_str(&f), "--radius"]);
    assert_code(&o, 0);
    assert!(stdout(&o).contains("radius 2"), "{}", stdout(&o));
    assert_code(&sortlab(&["check", path_str(&f), "--k-sorted", "2"]), 0);
    let o = sortlab(&["check", path_str(&f), "--k-sorted", "1"]);
    assert_code(&o, 1);
    assert!(stdout(&o).contains("not 1-sorted"), "{}", stdout(&o));
    // Check modes are exclusive.
    let o = sortlab(&["check", path_str(&f), "--sorted", "--radius"]);
    assert_error(&o, &["cannot be used with"]);
}

#[test]
fn check_same_as_reports_the_difference() {
    let d = Dir::new();
    let (a, b) = (d.path("a"), d.path("b"));
    fs::write(&a, u32_bytes(&[1, 2, 3])).unwrap();
    fs::write(&b, u32_bytes(&[1, 2, 4])).unwrap();
    let o = sortlab(&["check", path_str(&a), "--same-as", path_str(&b)]);
    assert_code(&o, 1);
    assert!(stdout(&o).contains("index 2"), "{}", stdout(&o));
    let o = sortlab(&["check", path_str(&a), "--permutation-of", path_str(&b)]);
    assert_code(&o, 1);
}

#[test]
fn floats_sort_in_total_order() {
    let d = Dir::new();
    let (i, o) = (d.path("f"), d.path("g"));
    let keys = [
        f32::NAN,
        1.0,
        -0.0,
        f32::INFINITY,
        0.0,
        f32::NEG_INFINITY,
        -f32::NAN,
        -1.5,
    ];
    fs::write(
        &i,
        keys.iter()
            .flat_map(|k| k.to_le_bytes())
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    let r = sortlab(&["sort", "--type", "f32", path_str(&i), "-o", path_str(&o)]);
    assert_code(&r, 0);
    let got: Vec<u32> = fs::read(&o)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let mut want = keys;
    want.sort_by(f32::total_cmp);
    assert_eq!(got, want.map(f32::to_bits));
}

#[test]
fn empty_file_and_in_place_sort() {
    let d = Dir::new();
    let e = d.path("empty");
    fs::write(&e, b"").unwrap();
    let o = d.path("empty-out");
    assert_code(&sortlab(&["sort", path_str(&e), "-o", path_str(&o)]), 0);
    assert_eq!(fs::read(&o).unwrap(), b"");
    assert_code(&sortlab(&["check", path_str(&o)]), 0);

    let f = d.path("inplace");
    fs::write(&f, u32_bytes(&[9, 8, 7])).unwrap();
    assert_code(&sortlab(&["sort", path_str(&f), "-o", path_str(&f)]), 0);
    assert_eq!(fs::read(&f).unwrap(), u32_bytes(&[7, 8, 9]));
    assert_eq!(d.names(), ["empty", "empty-out", "inplace"]);
}

#[test]
fn bad_length_is_an_error_and_writes_nothing() {
    let d = Dir::new();
    let f = d.path("ten.bin");
    fs::write(&f, [0u8; 10]).unwrap();
    let out = d.path("out.bin");
    let o = sortlab(&["sort", "--type", "u32", path_str(&f), "-o", path_str(&out)]);
    let msg = format!(
        "{}: 10 bytes is not a multiple of the 4-byte u32 key size",
        f.display()
    );
    assert_error(&o, &[&msg]);
    assert!(!out.exists());
    let o = sortlab(&["check", path_str(&f), "--type", "f64"]);
    assert_error(
        &o,
        &["10 bytes is not a multiple of the 8-byte f64 key size"],
    );
    assert_eq!(d.names(), ["ten.bin"]);
}

#[test]
fn missing_file_is_an_error_and_writes_nothing() {
    let d = Dir::new();
    let missing = d.path("nope.bin");
    let out = d.path("out.bin");
    let o = sortlab(&["sort", path_str(&missing), "-o", path_str(&out)]);
    assert_error(&o, &[path_str(&missing), "cannot read"]);
    assert!(!out.exists());
    let o = sortlab(&["check", path_str(&missing)]);
    assert_error(&o, &[path_str(&missing), "cannot read"]);
    // A missing reference file is named too.
    let present = d.path("present.bin");
    fs::write(&present, u32_bytes(&[1])).unwrap();
    let o = sortlab(&["check", path_str(&present), "--same-as", path_str(&missing)]);
    assert_error(&o, &[path_str(&missing)]);
    // So is an output directory that does not exist.
    let o = sortlab(&[
        "gen",
        "--n",
        "4",
        "-o",
        path_str(&d.path("no/such/dir/x.bin")),
    ]);
    assert_error(&o, &["no/such/dir/x.bin", "cannot write"]);
    assert_eq!(d.names(), ["present.bin"]);
}

#[test]
fn unknown_names_are_errors_listing_the_known_ones() {
    let d = Dir::new();
    let out = d.path("out.bin");
    let input = d.path("in.bin");
    fs::write(&input, u32_bytes(&[2, 1])).unwrap();
    let (i, o) = (path_str(&input), path_str(&out));

    let r = sortlab(&["gen", "--pattern", "no-such-pattern", "--n", "8", "-o", o]);
    assert_error(&r, &["no-such-pattern", "uniform"]);
    let r = sortlab(&["gen", "--type", "u16", "--n", "8", "-o", o]);
    assert_error(
        &r,
        &["unknown key type `u16`", "u32, i32, f32, u64, i64, f64"],
    );
    let r = sortlab(&["sort", "--algo", "bogosort", i, "-o", o]);
    assert_error(
        &r,
        &[
            "unknown algorithm `bogosort`",
            "reference, reference-unstable",
        ],
    );
    let r = sortlab(&["sort", "--type", "u16", i, "-o", o]);
    assert_error(&r, &["unknown key type `u16`"]);
    let r = sortlab(&["check", i, "--type", "u16"]);
    assert_error(&r, &["unknown key type `u16`"]);
    let r = sortlab(&["sort", "--order", "up", i, "-o", o]);
    assert_error(&r, &["unknown order `up`", "asc, desc"]);
    let r = sortlab(&["sort", "--engine", "tpu", i, "-o", o]);
    assert_error(&r, &["tpu", "auto", "cpu", "gpu"]);
    let r = sortlab(&["bench", "nosuite"]);
    assert_error(&r, &["unknown bench suite `nosuite`", "sort"]);
    let r = sortlab(&["bench", "sort", "--algo", "bogosort", "--sizes", "4"]);
    assert_error(&r, &["unknown algorithm `bogosort`"]);
    assert!(!out.exists());
    assert_eq!(d.names(), ["in.bin"]);
}

#[test]
fn too_many_keys_is_an_error_not_an_abort() {
    let d = Dir::new();
    let out = d.path("huge.bin");
    let o = sortlab(&["gen", "--n", "2^62", "--type", "u64", "-o", path_str(&out)]);
    assert_error(
        &o,
        &["4611686018427387904 u64 keys", "do not fit in memory"],
    );
    assert!(!out.exists());
    let o = sortlab(&["gen", "--n", "0", "-o", path_str(&out)]);
    assert_code(&o, 0);
    assert_eq!(fs::read(&out).unwrap(), b"");
}

#[test]
fn failed_sort_leaves_an_existing_output_intact() {
    let d = Dir::new();
    let out = d.path("out.bin");
    fs::write(&out, b"precious").unwrap();
    let bad = d.path("bad.bin");
    fs::write(&bad, [1u8, 2, 3]).unwrap();
    let o = path_str(&out);
    for args in [
        vec!["sort", path_str(&bad), "-o", o],
        vec!["sort", path_str(&d.path("missing")), "-o", o],
        vec!["sort", "--algo", "bogosort", path_str(&bad), "-o", o],
        vec!["gen", "--pattern", "bogus", "--n", "4", "-o", o],
    ] {
        let r = sortlab(&args);
        assert_code(&r, 2);
        assert_eq!(fs::read(&out).unwrap(), b"precious", "{args:?}");
    }
    assert_eq!(d.names(), ["bad.bin", "out.bin"]);
}

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    // No command at all: the help, on stderr, and a usage exit code.
    let none = sortlab(&[]);
    assert_code(&none, 2);
    assert!(
        stderr(&none).contains("Usage: sortlab"),
        "{}",
        stderr(&none)
    );
    assert_error(&sortlab(&["frobnicate"]), &["frobnicate"]);
    assert_error(&sortlab(&["gen", "--n", "lots", "-o", "x"]), &["lots"]);
    assert_error(&sortlab(&["bench", "sort", "--reps", "0"]), &["--reps"]);
    let h = sortlab(&["--help"]);
    assert_code(&h, 0);
    assert!(stdout(&h).contains("bench"), "{}", stdout(&h));
    assert_code(&sortlab(&["sort", "--help"]), 0);
    assert_code(&sortlab(&["--version"]), 0);
}

#[test]
fn info_exits_0_with_or_without_a_gpu() {
    let o = sortlab(&["info"]);
    assert_code(&o, 0);
    let out = stdout(&o);
    assert!(out.contains("NVRTC"), "{out}");
    assert!(out.contains("CPU engine:"), "{out}");
    if !out.starts_with("GPU ") {
        let first = out.lines().next().unwrap_or_default();
        assert!(
            first.starts_with("no CUDA device found (")
                && first.ends_with("); the CPU engine will be used"),
            "{out}"
        );
    }
}

#[test]
fn engine_gpu_fails_clearly_without_a_gpu_or_gpu_implementation() {
    let d = Dir::new();
    let (i, o) = (d.path("in"), d.path("out"));
    fs::write(&i, u32_bytes(&[2, 1])).unwrap();
    let r = sortlab(&["sort", "--engine", "gpu", path_str(&i), "-o", path_str(&o)]);
    assert_error(&r, &["--engine gpu", "--engine cpu"]);
    let err = stderr(&r);
    assert!(
        err.contains("no CUDA device found") || err.contains("has no GPU implementation"),
        "{err}"
    );
    assert!(!o.exists());
    // auto falls back to the CPU.
    let r = sortlab(&["sort", "--engine", "auto", path_str(&i), "-o", path_str(&o)]);
    assert_code(&r, 0);
}

#[test]
fn bench_writes_json_lines_with_the_schema() {
    let d = Dir::new();
    let json = d.path("rows.jsonl");
    let o = sortlab(&[
        "bench",
        "sort",
        "--sizes",
        "10",
        "--reps",
        "1",
        "--json",
        path_str(&json),
    ]);
    assert_code(&o, 0);
    let table = stdout(&o);
    assert!(table.starts_with("algo"), "{table}");
    let keys = [
        "tool",
        "algo",
        "engine",
        "op",
        "type",
        "value_type",
        "pattern",
        "order",
        "n",
        "ms",
        "keys_per_s",
        "gbps",
        "bytes",
        "device",
        "date",
    ];
    let text = fs::read_to_string(&json).unwrap();
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert!(rows.len() >= 4, "{text}");
    for (line, row) in text.lines().zip(&rows) {
        let obj = row.as_object().expect("each row is an object");
        let mut got: Vec<&str> = obj.keys().map(String::as_str).collect();
        let mut want = keys.to_vec();
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want, "{line}");
        // Fields appear in the schema's order.
        let positions: Vec<usize> = keys
            .iter()
            .map(|k| line.find(&format!("\"{k}\":")).unwrap())
            .collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{line}");
        assert_eq!(row["tool"], "sortlab");
        assert_eq!(row["engine"], "cpu");
        assert_eq!(row["op"], "sort_keys");
        assert_eq!(row["type"], "u32");
        assert!(row["value_type"].is_null());
        assert_eq!(row["pattern"], "uniform");
        assert_eq!(row["order"], "asc");
        assert_eq!(row["n"], 1024);
        assert_eq!(row["bytes"], 2 * 1024 * 4);
        assert!(row["ms"].as_f64().unwrap() >= 0.0);
        assert!(row["keys_per_s"].as_f64().unwrap() > 0.0);
        assert!(row["gbps"].as_f64().unwrap() > 0.0);
        assert!(row["device"].as_str().unwrap().starts_with("CPU"));
        let date = row["date"].as_str().unwrap();
        assert!(
            date.len() == 10 && date.as_bytes()[4] == b'-' && date.as_bytes()[7] == b'-',
            "{date}"
        );
    }
    let algos: Vec<&str> = rows.iter().map(|r| r["algo"].as_str().unwrap()).collect();
    assert!(
        algos.contains(&"reference") && algos.contains(&"reference-seq"),
        "{algos:?}"
    );
    assert_eq!(d.names(), ["rows.jsonl"]);
}

#[test]
fn suite_benches_run_only_the_algos_named() {
    // Only CPU rows are named, so no GPU is opened and the rows are the same on any machine.
    let cases: [(&str, &str, &[&str]); 4] = [
        ("radix", "radix", &["radix"]),
        ("approxsort", "approx", &["approx"]),
        ("roughsort", "roughsort-seq", &["roughsort-seq"]),
        (
            "primitives",
            "scan-rayon,reduce-rayon",
            &["reduce-rayon", "scan-rayon"],
        ),
    ];
    for (suite, algo, want) in cases {
        let o = sortlab(&[
            "bench",
            suite,
            "--algo",
            algo,
            "--sizes",
            "8",
            "--reps",
            "1",
            "--pattern",
            "uniform,ascending",
        ]);
        assert_code(&o, 0);
        let table = stdout(&o);
        let rows: Vec<&str> = table.lines().skip(1).collect();
        let algos: Vec<&str> = rows
            .iter()
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert_eq!(algos.len(), 2 * want.len(), "{suite}: {table}");
        assert!(algos.iter().all(|a| want.contains(a)), "{suite}: {table}");
        assert!(
            rows.iter().any(|l| l.contains("ascending")),
            "{suite}: every pattern runs: {table}"
        );
    }
    for suite in ["radix", "approxsort", "roughsort", "primitives"] {
        let o = sortlab(&["bench", suite, "--algo", "bogosort", "--sizes", "4"]);
        assert_error(&o, &["unknown algorithm `bogosort`", "known: "]);
    }
}

#[test]
fn every_suite_refuses_a_json_file_it_could_not_write_before_running() {
    let d = Dir::new();
    let json = d.path("no-such-dir/rows.jsonl");
    for suite in ["sort", "radix", "approxsort", "roughsort", "primitives"] {
        let o = sortlab(&["bench", suite, "--sizes", "4", "--json", path_str(&json)]);
        assert_error(&o, &["no-such-dir", "does not exist"]);
        assert!(stdout(&o).is_empty(), "{suite} ran: {}", stdout(&o));
    }
    assert!(d.names().is_empty());
}

#[test]
fn bench_filters_types_patterns_and_algos() {
    let o = sortlab(&[
        "bench",
        "sort",
        "--sizes",
        "4,6",
        "--reps",
        "2",
        "--type",
        "f64,i32",
        "--algo",
        "reference-seq",
    ]);
    assert_code(&o, 0);
    let table = stdout(&o);
    assert_eq!(table.lines().count(), 1 + 2 * 2, "{table}");
    assert!(table.contains("f64") && table.contains("i32"), "{table}");
}

#[test]
fn arrays_gen_sort_check_round_trip() {
    let d = Dir::new();
    let (keys, offsets) = (d.path("keys.bin"), d.path("offsets.bin"));
    let (k, o) = (path_str(&keys), path_str(&offsets));
    let gen = ["gen", "--type", "f32", "--n", "5000", "-o", k, "--arrays"];
    assert_code(
        &sortlab(&[&gen[..], &["power-law:64", "--offsets", o]].concat()),
        0,
    );
    let m = fs::metadata(&offsets).unwrap().len() / 8 - 1;
    assert!(m > 20, "{m} arrays");
    let check = |file: &Path, extra: &[&str]| {
        let base = ["check", path_str(file), "--type", "f32", "--offsets", o];
        sortlab(&[&base[..], extra].concat())
    };
    // Generated keys are not sorted array by array.
    assert_code(&check(&keys, &["--sorted"]), 1);
    for order in ["asc", "desc"] {
        let out = d.path(&format!("sorted-{order}.bin"));
        let s = sortlab(&[
            "sort",
            "--type",
            "f32",
            "--engine",
            "cpu",
            "--order",
            order,
            "--offsets",
            o,
            k,
            "-o",
            path_str(&out),
        ]);
        assert_code(&s, 0);
        assert!(
            stderr(&s).contains(&format!("sorted {m} arrays")),
            "{}",
            stderr(&s)
        );
        assert_code(&check(&out, &["--sorted", "--order", order]), 0);
        assert_code(&check(&out, &["--permutation-of", k]), 0);
        // Sorted as a whole it is, array by array, no permutation of the input.
        let whole = d.path("whole.bin");
        let s = sortlab(&[
            "sort",
            "--type",
            "f32",
            "--engine",
            "cpu",
            k,
            "-o",
            path_str(&whole),
        ]);
        assert_code(&s, 0);
        assert_code(&check(&whole, &["--permutation-of", k]), 1);
    }
    // Fixed lengths: 5000 keys in arrays of 1000, not of 3000.
    let out = d.path("fixed.bin");
    let fixed = [
        "sort",
        "--type",
        "f32",
        "--engine",
        "cpu",
        k,
        "-o",
        path_str(&out),
    ];
    assert_code(
        &sortlab(&[&fixed[..], &["--array-len", "1000"]].concat()),
        0,
    );
    let c = [
        "check",
        path_str(&out),
        "--type",
        "f32",
        "--array-len",
        "1000",
    ];
    assert_code(&sortlab(&c), 0);
    let e = sortlab(&[&fixed[..], &["--array-len", "3000"]].concat());
    assert_error(&e, &["--array-len 3000"]);
}

#[test]
fn top_k_of_arrays_keeps_the_first_k_of_each() {
    let d = Dir::new();
    let keys = d.path("keys.bin");
    fs::write(&keys, u32_bytes(&[5, 1, 4, 2, 9, 9, 0, 7])).unwrap();
    let u64_bytes = |v: &[u64]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let offsets = d.path("offsets.bin");
    fs::write(&offsets, u64_bytes(&[0, 4, 4, 7, 8])).unwrap();
    let (out, out_offsets) = (d.path("top.bin"), d.path("top-offsets.bin"));
    let (k, o) = (path_str(&keys), path_str(&offsets));
    let s = sortlab(&[
        "sort",
        "--engine",
        "cpu",
        "--order",
        "desc",
        "--offsets",
        o,
        "--top-k",
        "2",
        k,
        "-o",
        path_str(&out),
        "--out-offsets",
        path_str(&out_offsets),
    ]);
    assert_code(&s, 0);
    assert!(stderr(&s).contains("kept the top 2"), "{}", stderr(&s));
    assert_eq!(fs::read(&out).unwrap(), u32_bytes(&[5, 4, 9, 9, 7]));
    assert_eq!(fs::read(&out_offsets).unwrap(), u64_bytes(&[0, 2, 2, 4, 5]));
    // With the kept keys' positions in their arrays (equal keys in input order).
    let idx = d.path("idx.bin");
    let s = sortlab(&[
        "sort",
        "--engine",
        "cpu",
        "--order",
        "desc",
        "--offsets",
        o,
        "--top-k",
        "2",
        k,
        "-o",
        path_str(&out),
        "--indices",
        path_str(&idx),
    ]);
    assert_code(&s, 0);
    assert_eq!(fs::read(&idx).unwrap(), u64_bytes(&[0, 2, 0, 1, 0]));
    let s = sortlab(&[
        "sort",
        "--engine",
        "cpu",
        "--array-len",
        "4",
        "--top-k",
        "3",
        k,
        "-o",
        path_str(&out),
    ]);
    assert_code(&s, 0);
    assert_eq!(fs::read(&out).unwrap(), u32_bytes(&[1, 2, 4, 0, 7, 9]));
    // --top-k needs arrays; --out-offsets needs --top-k: usage errors, nothing written.
    let none = d.path("none.bin");
    let s = sortlab(&["sort", "--top-k", "3", k, "-o", path_str(&none)]);
    assert_code(&s, 2);
    let s = sortlab(&[
        "sort",
        "--array-len",
        "4",
        "--out-offsets",
        path_str(&none),
        k,
        "-o",
        path_str(&none),
    ]);
    assert_code(&s, 2);
    assert!(!none.exists());
}

#[test]
fn bad_offsets_are_errors_and_write_nothing() {
    let d = Dir::new();
    let keys = d.path("keys.bin");
    fs::write(&keys, u32_bytes(&[3, 1, 2, 9])).unwrap();
    let u64_bytes = |v: &[u64]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let out = d.path("out.bin");
    for (name, offsets) in [
        ("decreasing", vec![0u64, 3, 2, 4]),
        ("short-last", vec![0, 2, 3]),
        ("not-zero", vec![1, 4]),
        ("empty", vec![]),
    ] {
        let f = d.path(&format!("{name}.bin"));
        fs::write(&f, u64_bytes(&offsets)).unwrap();
        let o = sortlab(&[
            "sort",
            "--engine",
            "cpu",
            "--offsets",
            path_str(&f),
            path_str(&keys),
            "-o",
            path_str(&out),
        ]);
        assert_error(&o, &[&format!("{name}.bin")]);
        assert!(!out.exists(), "{name}: wrote output");
    }
    let g = sortlab(&[
        "gen",
        "--n",
        "10",
        "-o",
        path_str(&out),
        "--arrays",
        "fixed:0",
        "--offsets",
        "x",
    ]);
    assert_code(&g, 2);
    assert!(stderr(&g).contains("positive length"), "{}", stderr(&g));
}

#[test]
fn gpus_and_device_memory_are_checked_before_anything_is_sorted() {
    let d = Dir::new();
    let (i, o) = (d.path("in"), d.path("out"));
    fs::write(&i, u32_bytes(&[3, 1, 2])).unwrap();
    let (i, o) = (path_str(&i), path_str(&o));
    // Only the radix sort scales.
    let r = sortlab(&["sort", "--algo", "merge", "--gpus", "2", i, "-o", o]);
    assert_error(&r, &["--algo radix", "merge"]);
    // They are GPU options: the CPU engine refuses them and says what it does not do.
    let r = sortlab(&[
        "sort",
        "--engine",
        "cpu",
        "--device-memory",
        "1G",
        i,
        "-o",
        o,
    ]);
    assert_error(&r, &["GPU options", "larger than host memory"]);
    // Bad values and combinations are usage errors.
    let r = sortlab(&["sort", "--gpus", "0", i, "-o", o]);
    assert_code(&r, 2);
    let r = sortlab(&["sort", "--device-memory", "lots", i, "-o", o]);
    assert_error(&r, &["byte count"]);
    let r = sortlab(&["sort", "--gpus", "2", "--device-memory", "1G", i, "-o", o]);
    assert_code(&r, 2);
    assert!(!Path::new(o).exists());
}

#[test]
fn arrays_stream_with_device_memory_or_fall_back_to_the_cpu() {
    let d = Dir::new();
    let (i, o) = (d.path("in"), d.path("out"));
    fs::write(&i, u32_bytes(&[5, 1, 4, 2, 9, 9, 0, 7])).unwrap();
    let (i, o) = (path_str(&i), path_str(&o));
    let r = sortlab(&[
        "sort",
        "--array-len",
        "4",
        "--device-memory",
        "8M",
        i,
        "-o",
        o,
    ]);
    assert_code(&r, 0);
    assert_eq!(fs::read(o).unwrap(), u32_bytes(&[1, 2, 4, 5, 0, 7, 9, 9]));
    let err = stderr(&r);
    assert!(err.contains("sorted 2 arrays"), "{err}");
    fs::remove_file(o).unwrap();
    // A GPU option: refused with --engine cpu; no top-k through a budget.
    let r = sortlab(&[
        "sort",
        "--engine",
        "cpu",
        "--array-len",
        "4",
        "--device-memory",
        "8M",
        i,
        "-o",
        o,
    ]);
    assert_error(&r, &["GPU options"]);
    let r = sortlab(&[
        "sort",
        "--array-len",
        "4",
        "--top-k",
        "2",
        "--device-memory",
        "8M",
        i,
        "-o",
        o,
    ]);
    assert_code(&r, 2);
    assert!(!Path::new(o).exists());
}

#[test]
fn gpus_and_device_memory_sort_where_a_gpu_opens_or_fall_back_to_the_cpu() {
    let d = Dir::new();
    let (i, o) = (d.path("in"), d.path("out"));
    let keys: Vec<u32> = (0..1000u32)
        .map(|x| x.wrapping_mul(2_654_435_761))
        .collect();
    fs::write(&i, u32_bytes(&keys)).unwrap();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    for args in [
        ["--gpus", "1"],
        ["--device-memory", "512M"],
        ["--algo", "radix"],
    ] {
        let mut argv = vec!["sort"];
        argv.extend(args);
        if args[0] == "--algo" {
            argv.extend(["--gpus", "1"]);
        }
        argv.extend([path_str(&i), "-o", path_str(&o)]);
        let r = sortlab(&argv);
        assert_code(&r, 0);
        assert_eq!(fs::read(&o).unwrap(), u32_bytes(&sorted), "{argv:?}");
        let err = stderr(&r);
        assert!(err.contains("sorted 1000 u32 keys"), "{err}");
        assert!(
            err.contains("with radix") || err.contains("using the CPU engine"),
            "{err}"
        );
        fs::remove_file(&o).unwrap();
    }
}
