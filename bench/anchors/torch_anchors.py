#!/usr/bin/env python3
"""torch anchors for the many-arrays rows: torch.sort / torch.topk along the last dimension.

Reads sortlab's benchmark rows (JSON Lines, as scripts/bench-gpu collects them), and for every
arraysort row whose layout has one length (`segments-1000`, `rows-32768`) times the torch call
that does the same work on a (rows x length) tensor on the same device, printing one JSON row
per workload in the schema of cub_anchors (tool "torch"):

  sortlab op          torch op        call
  sort_arrays         sort_rows       torch.sort(x, dim=1)                      (keys)
  sort_arrays_pairs   argsort_rows    torch.sort(x, dim=1, stable=True)         (keys + indices)
  top_k, top_k_pairs  topk_rows       torch.topk(x, 64, dim=1, sorted=True)     (keys + indices)

rows = n // length (torch has no ragged rows; the sortlab layout's last short array is left
out), so `keys` can be a little below `n`; keys_per_s counts the keys torch sorted. Descending
rows (field "order") use descending / largest. Times are CUDA-event medians over --reps calls
after --warmup, inputs uniform (torch.rand / randint) on the device. Types torch cannot sort are
skipped with a note on stderr. Exit 0 with no rows when torch is missing (a note says so).

  torch_anchors.py --rows RESULTS.jsonl [--reps 20] [--warmup 3] [--device cuda]
"""
import argparse
import json
import statistics
import sys
import time

LENGTHS = {"segments-1000": 1000, "rows-32768": 32768}
OPS = {"sort_arrays": "sort_rows", "sort_arrays_pairs": "argsort_rows",
       "top_k": "topk_rows", "top_k_pairs": "topk_rows"}
TOP_K = 64
DTYPES = {"f32": "float32", "f64": "float64", "i32": "int32", "i64": "int64",
          "u32": "uint32", "u64": "uint64"}
SIZES = {"f32": 4, "f64": 8, "i32": 4, "i64": 8, "u32": 4, "u64": 8}


def note(msg):
    print(f"torch_anchors: {msg}", file=sys.stderr)


def workloads(rows):
    """(torch op, type, pattern, n, descending) for every sortlab row torch can match."""
    want = set()
    for r in rows:
        if r.get("tool", "sortlab") != "sortlab" or r.get("engine") not in (None, "gpu"):
            continue
        op, p, n, t = r.get("op"), r.get("pattern"), r.get("n"), r.get("type")
        if op not in OPS or p not in LENGTHS or not isinstance(n, int) or t not in DTYPES:
            continue
        if n < LENGTHS[p]:
            continue
        desc = str(r.get("order", "")).lower() in ("desc", "descending")
        want.add((OPS[op], t, p, n, desc))
    return sorted(want)


def make_input(torch, t, shape, device):
    dtype = getattr(torch, DTYPES[t])
    if t in ("f32", "f64"):
        return torch.rand(shape, dtype=dtype, device=device)
    hi = 2**31 - 1
    return torch.randint(0, hi, shape, device=device, dtype=torch.int64).to(dtype)


def call_for(torch, op, desc):
    if op == "sort_rows":
        return lambda x: torch.sort(x, dim=1, descending=desc)
    if op == "argsort_rows":
        return lambda x: torch.sort(x, dim=1, descending=desc, stable=True)
    return lambda x: torch.topk(x, TOP_K, dim=1, largest=desc, sorted=True)


def timed(torch, fn, x, reps, warmup, device):
    for _ in range(warmup):
        out = fn(x)
    times = []
    if device.startswith("cuda"):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for _ in range(reps):
            start.record()
            out = fn(x)
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop))
    else:
        for _ in range(reps):
            t0 = time.perf_counter()
            out = fn(x)
            times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), out


def check(torch, op, x, out, desc):
    """The output sorted along the rows (and for top-k equal to the sorted prefix)."""
    vals, idx = out
    a, b = vals[:, :-1], vals[:, 1:]
    if x.dtype.is_floating_point:
        a, b = a.double(), b.double()
    else:
        a, b = a.long(), b.long()
    ordered = bool(torch.all(a >= b) if desc else torch.all(a <= b))
    picked = bool(torch.equal(torch.gather(x, 1, idx), vals))
    if op == "topk_rows":
        ref = torch.sort(x[:8], dim=1, descending=desc).values[:, :TOP_K]
        return ordered and picked and bool(torch.equal(ref, vals[:8]))
    return ordered and picked


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", required=True, help="sortlab rows (JSON Lines)")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--device", default="cuda")
    a = ap.parse_args()
    try:
        import torch
    except ImportError:
        note("no torch in this Python: no torch rows")
        return 0
    rows = []
    with open(a.rows) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    rows.append(json.loads(line))
                except ValueError:
                    pass
    device_name = (torch.cuda.get_device_name() if a.device.startswith("cuda")
                   else "cpu")
    for op, t, p, n, desc in workloads(rows):
        length = LENGTHS[p]
        shape = (n // length, length)
        keys = shape[0] * shape[1]
        try:
            x = make_input(torch, t, shape, a.device)
            ms, out = timed(torch, call_for(torch, op, desc), x, a.reps, a.warmup, a.device)
            ok = check(torch, op, x, out, desc)
        except (RuntimeError, TypeError, NotImplementedError) as e:
            note(f"{op} {t} {shape}: {str(e).splitlines()[0]}: skipped")
            continue
        finally:
            x = out = None
            if a.device.startswith("cuda"):
                torch.cuda.empty_cache()
        value_type = None if op == "sort_rows" else "i64"
        moved = keys * SIZES[t] * 2 + (0 if value_type is None else keys * 8)
        row = {"tool": "torch", "op": op, "type": t, "value_type": value_type, "pattern": p,
               "n": n, "keys": keys, "ms": ms, "keys_per_s": keys / (ms * 1e-3),
               "gbps": moved / (ms * 1e-3) / 1e9, "bytes": moved,
               "order": "desc" if desc else "asc", "device": device_name,
               "date": time.strftime("%Y-%m-%d", time.gmtime()), "ok": ok,
               "torch": torch.__version__}
        print(json.dumps(row, separators=(",", ":")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
