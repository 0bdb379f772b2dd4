// cub_anchors: times NVIDIA CUB on the workloads `sortlab bench` uses and prints one JSON object
// per line (JSON Lines) on stdout, in the row schema shared with sortlab's own bench:
//
//   {"tool":"cub","op":OP,"type":T,"value_type":VT|null,"pattern":P,"n":N,"ms":MEDIAN_MS,
//    "keys_per_s":N/(ms/1e3),"gbps":BYTES/(ms/1e3)/1e9,"bytes":BYTES,"device":NAME,
//    "date":"YYYY-MM-DD","ok":true|false|null}
//
// This file holds the command line and the dispatch; each suite has its file (copy.cu,
// reduce_scan.cu, radix_keys.cu, radix_pairs.cu, merge_keys.cu, segmented_keys.cu), and the
// headers hold what they share (common.cuh: errors, key types, memory, timing, rows;
// patterns.cuh: input generation; checks.cuh: result checks; bench.cuh: the generic benchmark
// and the anchor functions). See README.md beside this file for what is measured and how to
// run it. Notes:
//
// * The CUB calls follow the CCCL 3.x headers; there, the two-phase (d_temp_storage,
//   temp_storage_bytes, ...) overloads used here are as in CUB 2.x. Every CUB call passes the
//   stream explicitly, so it can never resolve to one of the newer environment-based overloads
//   (which take fewer arguments).
// * Timing follows sortlab DESIGN section 6: CUDA events recorded on the stream immediately
//   around the one CUB call, warm-up runs first, median of the timed reps, temporary storage
//   sized and allocated once per configuration outside the timed region.
// * Inputs are never modified: the sorts use CUB's out-of-place overloads
//   (DeviceRadixSort::SortKeys/SortPairs with const input, DeviceMergeSort::SortKeysCopy,
//   DeviceSegmentedSort::SortKeys with const input), so every rep sorts pristine data and no
//   restore copy is needed. Those overloads keep their ping-pong buffer inside the temporary
//   storage; the work done is the same as the DoubleBuffer / in-place variants.
// * L2: each configuration keeps K copies ("slots") of its inputs and outputs and rep r uses
//   slot r % K. K is chosen so that K slots span at least 3x the L2 size (K = 1 once one slot
//   is that big), so a rep never finds its input or output lines still in L2 from an earlier
//   rep or from generation. The temporary storage is shared by all reps (as a caller reusing
//   scratch would) and may be L2-resident for small n.
// * "bytes" is the minimal traffic: read + write each element once (2 * n * sizeof(key),
//   plus the same for values). Real radix sorts move more (several passes over the data,
//   plus histograms), so gbps for sorts is a lower bound of the traffic, not CUB's real rate.
// * num_items is passed as `int` unless built with -DCUB_ANCHORS_OFFSET64 (common.cuh).
//
// Build: bench/anchors/build.sh (all the .cu files, the sort suites in parallel parts), or
// nvcc -O3 -std=c++17 -arch=sm_90 -o cub_anchors *.cu

#include "bench.cuh"

// --- dispatch --------------------------------------------------------------------------------

struct TypeEntry {
  TypeId id;
  const char* name;
};
#define TYPE_ENTRY(a, b, tn, T, id) {TypeId::id, #tn},
const TypeEntry kTypes[] = {CUB_ANCHORS_TYPES(TYPE_ENTRY, _, _)};
#undef TYPE_ENTRY

struct OpEntry {
  const char* name;
  std::vector<TypeId> default_types;
  bool all_types;     // false: u32 only (copy)
  AnchorTable fns;    // per key type; copy has none (bench_copy)
};

const std::vector<OpEntry>& ops_table() {
  using T = TypeId;
  static const std::vector<OpEntry> t = {
      {"copy", {T::U32}, false, {}},
      {"reduce_sum", {T::U32, T::F32}, true, ANCHOR_TABLE(reduce_sum)},
      {"reduce_min", {T::U32, T::F32}, true, ANCHOR_TABLE(reduce_min)},
      {"reduce_max", {T::U32, T::F32}, true, ANCHOR_TABLE(reduce_max)},
      {"scan_inclusive_sum", {T::U32, T::F32}, true, ANCHOR_TABLE(scan_inclusive_sum)},
      {"scan_exclusive_sum", {T::U32, T::F32}, true, ANCHOR_TABLE(scan_exclusive_sum)},
      {"radix_sort_keys", {T::U32, T::U64, T::F32, T::F64}, true, ANCHOR_TABLE(radix_sort_keys)},
      {"radix_sort_keys_desc", {T::U32, T::U64, T::F32, T::F64}, true,
       ANCHOR_TABLE(radix_sort_keys_desc)},
      {"radix_sort_pairs", {T::U32, T::U64}, true, ANCHOR_TABLE(radix_sort_pairs)},
      {"merge_sort_keys", {T::U32}, true, ANCHOR_TABLE(merge_sort_keys)},
      {"merge_sort_pairs", {T::U32}, true, ANCHOR_TABLE(merge_sort_pairs)},
      {"segmented_sort_keys", {T::U32}, true, ANCHOR_TABLE(segmented_sort_keys)},
      {"segmented_sort_pairs", {T::U32}, true, ANCHOR_TABLE(segmented_sort_pairs)},
  };
  return t;
}

void run_one(const Ctx& c, const OpEntry& op, TypeId t, const PatternSpec& p, uint64_t n) {
  const AnchorFn fn = op.fns[size_t(t)];
  if (!fn) die("internal: no anchor for op %s", op.name);
  fn(c, p, n);
}

// --- command line ----------------------------------------------------------------------------

const char* kUsage =
    "usage: cub_anchors [options]\n"
    "  --ops LIST        comma list or 'all' (default all): copy, reduce_sum, reduce_min,\n"
    "                    reduce_max, scan_inclusive_sum, scan_exclusive_sum, radix_sort_keys,\n"
    "                    radix_sort_keys_desc, radix_sort_pairs, merge_sort_keys,\n"
    "                    merge_sort_pairs, segmented_sort_keys, segmented_sort_pairs\n"
    "  --types LIST      u32,i32,f32,u64,i64,f64 or 'all' (default per op: copy u32; reduce/scan\n"
    "                    u32,f32; radix keys u32,u64,f32,f64; radix pairs u32,u64; merge and\n"
    "                    segmented u32; pair values: u32 for 4-byte keys, u64 for 8-byte).\n"
    "                    Given types apply to every op except copy, which is always u32.\n"
    "  --sizes LIST      log2 sizes (default 16,20,24,28)\n"
    "  --n LIST          explicit sizes (added to --sizes; given alone, replaces the default)\n"
    "  --patterns LIST   uniform, full-range, gaussian, zipf, few-distinct, all-equal,\n"
    "                    ascending, descending, pipe-organ, saw-short, saw-long, sorted-95,\n"
    "                    k-sorted:K (k-sorted = k-sorted:16), float-specials, segments-1000,\n"
    "                    segments-varying, segments-powerlaw, or 'all' (k-sorted:16,256,4096 and the rest)\n"
    "                    (default uniform). segments-* apply to the segmented sorts only (which\n"
    "                    runs both layouts, uniform keys, when none is given); the others apply\n"
    "                    to every other op. copy runs once per n.\n"
    "  --reps R          timed reps, median reported (default 20)\n"
    "  --warmup W        untimed warm-up runs (default 3)\n"
    "  --seed S          pattern seed (default 0x5EED)\n"
    "  --device D        CUDA device ordinal (default 0)\n"
    "Prints one JSON object per line on stdout; notes and skips go to stderr.\n";

[[noreturn]] void usage_error(const char* fmt, const std::string& arg) {
  std::fprintf(stderr, "cub_anchors: ");
  std::fprintf(stderr, fmt, arg.c_str());
  std::fprintf(stderr, "\n%s", kUsage);
  std::exit(2);
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = s.find(',', start);
    const std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

uint64_t parse_u64(const std::string& s, const char* what) {
  if (s.empty()) usage_error("empty number for %s", what);
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  if (errno != 0 || end == nullptr || *end != '\0' || s[0] == '-')
    usage_error("bad number '%s'", s);
  return v;
}

bool parse_pattern(const std::string& s, PatternSpec* out) {
  static const std::pair<const char*, PatKind> simple[] = {
      {"uniform", PatKind::Uniform},
      {"full-range", PatKind::FullRange},
      {"gaussian", PatKind::Gaussian},
      {"zipf", PatKind::Zipf},
      {"few-distinct", PatKind::FewDistinct},
      {"all-equal", PatKind::AllEqual},
      {"ascending", PatKind::Ascending},
      {"descending", PatKind::Descending},
      {"pipe-organ", PatKind::PipeOrgan},
      {"saw-short", PatKind::SawShort},
      {"saw-long", PatKind::SawLong},
      {"sorted-95", PatKind::Sorted95},
      {"float-specials", PatKind::FloatSpecials},
      {"segments-1000", PatKind::Segments1000},
      {"segments-varying", PatKind::SegmentsVarying},
      {"segments-powerlaw", PatKind::SegmentsPowerLaw}};
  for (const auto& e : simple) {
    if (s == e.first) {
      out->kind = e.second;
      out->k = 0;
      out->name = s;
      return true;
    }
  }
  const std::string prefix = "k-sorted:";
  uint64_t k = 16;  // "k-sorted" alone is k-sorted:16, as in sortlab
  if (s.compare(0, prefix.size(), prefix) == 0) {
    k = parse_u64(s.substr(prefix.size()), "k-sorted:K");
  } else if (s != "k-sorted") {
    return false;
  }
  out->kind = PatKind::KSorted;
  out->k = k;
  out->name = prefix + std::to_string(k);
  return true;
}

bool is_segment_pattern(const PatternSpec& p) {
  return p.kind == PatKind::Segments1000 || p.kind == PatKind::SegmentsVarying ||
         p.kind == PatKind::SegmentsPowerLaw;
}

std::string today_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm tm_utc{};
  gmtime_r(&now, &tm_utc);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm_utc);
  return buf;
}

int main_impl(int argc, char** argv) {
  std::vector<std::string> ops;
  std::vector<TypeId> types;
  bool types_given = false;
  std::vector<uint64_t> sizes;
  bool sizes_given = false;
  std::vector<PatternSpec> patterns;
  Ctx c;
  int device = 0;

  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      const size_t eq = a.find('=');
      if (eq != std::string::npos) return a.substr(eq + 1);
      if (i + 1 >= argc) usage_error("missing value for %s", a);
      return argv[++i];
    };
    const std::string key = a.substr(0, a.find('='));
    if (key == "-h" || key == "--help") {
      std::printf("%s", kUsage);
      return 0;
    } else if (key == "--ops") {
      for (const auto& o : split_list(value())) {
        if (o == "all") {
          for (const auto& e : ops_table()) ops.push_back(e.name);
          continue;
        }
        bool known = false;
        for (const auto& e : ops_table()) known = known || o == e.name;
        if (!known) usage_error("unknown op '%s'", o);
        ops.push_back(o);
      }
    } else if (key == "--types") {
      types_given = true;
      for (const auto& t : split_list(value())) {
        if (t == "all") {
          for (const auto& e : kTypes) types.push_back(e.id);
          continue;
        }
        bool known = false;
        for (const auto& e : kTypes)
          if (t == e.name) {
            types.push_back(e.id);
            known = true;
          }
        if (!known) usage_error("unknown type '%s'", t);
      }
    } else if (key == "--sizes") {
      sizes_given = true;
      for (const auto& s : split_list(value())) {
        const uint64_t lg = parse_u64(s, "--sizes");
        if (lg > 40) usage_error("log2 size too large: %s", s);
        sizes.push_back(uint64_t(1) << lg);
      }
    } else if (key == "--n") {
      sizes_given = true;
      for (const auto& s : split_list(value())) sizes.push_back(parse_u64(s, "--n"));
    } else if (key == "--patterns") {
      for (const auto& s : split_list(value())) {
        if (s == "all") {
          for (const char* name :
               {"uniform", "full-range", "gaussian", "zipf", "few-distinct", "all-equal",
                "ascending", "descending", "pipe-organ", "saw-short", "saw-long", "sorted-95",
                "k-sorted:16", "k-sorted:256", "k-sorted:4096", "float-specials",
                "segments-1000", "segments-varying", "segments-powerlaw"}) {
            PatternSpec p;
            parse_pattern(name, &p);
            patterns.push_back(p);
          }
          continue;
        }
        PatternSpec p;
        if (!parse_pattern(s, &p)) usage_error("unknown pattern '%s'", s);
        patterns.push_back(p);
      }
    } else if (key == "--reps") {
      c.reps = int(parse_u64(value(), "--reps"));
      if (c.reps < 1) usage_error("--reps must be >= 1%s", "");
    } else if (key == "--warmup") {
      c.warmup = int(parse_u64(value(), "--warmup"));
    } else if (key == "--seed") {
      c.seed = parse_u64(value(), "--seed");
    } else if (key == "--device") {
      device = int(parse_u64(value(), "--device"));
    } else {
      usage_error("unknown argument '%s'", a);
    }
  }
  if (ops.empty())
    for (const auto& e : ops_table()) ops.push_back(e.name);
  if (!sizes_given) sizes = {uint64_t(1) << 16, uint64_t(1) << 20, uint64_t(1) << 24, uint64_t(1) << 28};
  std::vector<PatternSpec> key_patterns, seg_patterns;
  for (const auto& p : patterns) (is_segment_pattern(p) ? seg_patterns : key_patterns).push_back(p);
  if (patterns.empty()) {
    PatternSpec p;
    parse_pattern("uniform", &p);
    key_patterns.push_back(p);
  }
  if (seg_patterns.empty()) {
    for (const char* name : {"segments-1000", "segments-varying", "segments-powerlaw"}) {
      PatternSpec p;
      parse_pattern(name, &p);
      seg_patterns.push_back(p);
    }
  }

  // Device set-up.
  int count = 0;
  CK(cudaGetDeviceCount(&count));
  if (device < 0 || device >= count) die("device %d not present (%d devices)", device, count);
  CK(cudaSetDevice(device));
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, device));
  CK(cudaFree(nullptr));  // create the context
  c.sm_count = prop.multiProcessorCount;
  c.l2_bytes = size_t(prop.l2CacheSize);
  c.device = prop.name;
  c.date = today_utc();
  CK(cudaEventCreate(&c.ev_start));
  CK(cudaEventCreate(&c.ev_stop));
  std::fprintf(stderr,
               "cub_anchors: %s (sm_%d%d, %d SMs, L2 %.1f MiB, %.1f GiB), CUB %d.%d.%d, "
               "reps %d, warmup %d\n",
               prop.name, prop.major, prop.minor, prop.multiProcessorCount,
               double(prop.l2CacheSize) / double(1 << 20),
               double(prop.totalGlobalMem) / double(1ull << 30), CUB_VERSION / 100000,
               CUB_VERSION / 100 % 1000, CUB_VERSION % 100, c.reps, c.warmup);

  int rows = 0, skipped = 0;
  for (const auto& op : ops) {
    const OpEntry* entry = nullptr;
    for (const auto& e : ops_table())
      if (op == e.name) entry = &e;
    std::vector<TypeId> op_types;
    if (!entry->all_types) {
      op_types = entry->default_types;
    } else if (types_given) {
      op_types = types;
    } else {
      op_types = entry->default_types;
    }
    const bool segmented = op == "segmented_sort_keys" || op == "segmented_sort_pairs";
    const std::vector<PatternSpec>& pats = segmented ? seg_patterns : key_patterns;
    if (op == "copy") {
      for (uint64_t n : sizes) {
        if (n == 0) continue;
        try {
          bench_copy(c, n);
          ++rows;
        } catch (const SkipConfig& e) {
          ++skipped;
          std::fprintf(stderr, "cub_anchors: skip copy u32 n=%llu: %s\n",
                       static_cast<unsigned long long>(n), e.what());
        }
      }
      continue;
    }
    if (pats.empty()) {
      std::fprintf(stderr, "cub_anchors: note: no pattern applies to %s\n", op.c_str());
      continue;
    }
    for (TypeId t : op_types) {
      const char* tname = "?";
      for (const auto& e : kTypes)
        if (e.id == t) tname = e.name;
      for (const auto& p : pats) {
        for (uint64_t n : sizes) {
          if (n == 0) {
            std::fprintf(stderr, "cub_anchors: skip n=0\n");
            continue;
          }
          try {
            run_one(c, *entry, t, p, n);
            ++rows;
          } catch (const SkipConfig& e) {
            ++skipped;
            std::fprintf(stderr, "cub_anchors: skip %s %s %s n=%llu: %s\n", op.c_str(), tname,
                         p.name.c_str(), static_cast<unsigned long long>(n), e.what());
          }
        }
      }
    }
  }
  CK(cudaEventDestroy(c.ev_start));
  CK(cudaEventDestroy(c.ev_stop));
  std::fprintf(stderr, "cub_anchors: %d rows, %d skipped\n", rows, skipped);
  return 0;
}

int main(int argc, char** argv) { return main_impl(argc, argv); }
