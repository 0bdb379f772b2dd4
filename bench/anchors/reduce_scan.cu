// The primitives: reduce_sum, reduce_min, reduce_max (DeviceReduce::Sum / Min / Max) and
// scan_inclusive_sum, scan_exclusive_sum (DeviceScan::InclusiveSum / ExclusiveSum, output type
// = input type).
#include "bench.cuh"

enum class ReduceKind { Sum, Min, Max };
template <class T> struct SumOut { using type = T; };
template <> struct SumOut<uint32_t> { using type = uint64_t; };  // u32 summed into u64
template <> struct SumOut<int32_t> { using type = int64_t; };

// DeviceReduce::Sum/Min/Max. For Sum, CUB accumulates in the type of `init + input` where init
// is the output value type (CCCL 2.x/3.x: accumulator_t<plus<>, OutputT, InputT>), so u32 input
// with a u64 output sums in u64. The ok check compares with an independent u64 sum, so an
// older CUB that accumulated in u32 would show up as ok:false rather than pass silently.
template <class T, ReduceKind R> void bench_reduce(const Ctx& c, const PatternSpec& p, uint64_t n) {
  using Out = std::conditional_t<R == ReduceKind::Sum, typename SumOut<T>::type, T>;
  require_num_items(n);
  const num_items_t nn = num_items_t(n);
  auto call = [&](void* temp, size_t& tb, const T* in, Out* out) -> cudaError_t {
    if constexpr (R == ReduceKind::Sum)
      return cub::DeviceReduce::Sum(temp, tb, in, out, nn, c.stream);
    else if constexpr (R == ReduceKind::Min)
      return cub::DeviceReduce::Min(temp, tb, in, out, nn, c.stream);
    else
      return cub::DeviceReduce::Max(temp, tb, in, out, nn, c.stream);
  };
  size_t temp_bytes = 0;
  CK(call(nullptr, temp_bytes, static_cast<const T*>(nullptr), static_cast<Out*>(nullptr)));
  const int k = plan_slots(c, Slots<T>::stride_for(n), temp_bytes);
  Slots<T> in;
  in.init(n, k);
  DevMem out(sizeof(Out));
  generate_slots(c, in, n, p);
  int last = 0;
  const double ms = time_with_temp(
      c, k, temp_bytes,
      [&](int s, void* temp, size_t& tb) {
        return call(temp, tb, static_cast<const T*>(in[s]), out.as<Out>());
      },
      &last);
  int ok = -1;  // floats: no check (order of summation; NaN semantics of min/max)
  if constexpr (!TypeInfo<T>::is_float) {
    Out got{};
    CK(cudaMemcpy(&got, out.get(), sizeof(Out), cudaMemcpyDeviceToHost));
    if constexpr (R == ReduceKind::Sum) {
      const uint64_t ref = device_sum(c, n, IntValue<T>{in[last]});
      ok = ok_flag(static_cast<unsigned long long>(static_cast<uint64_t>(got)) == ref);
    } else {
      const uint64_t ref = ref_minmax(c, in[last], n, R == ReduceKind::Max);
      ok = ok_flag(static_cast<unsigned long long>(total_order_bits(got)) == ref);
    }
  }
  const char* op = R == ReduceKind::Sum ? "reduce_sum" : (R == ReduceKind::Min ? "reduce_min" : "reduce_max");
  emit_row(c, op, TypeInfo<T>::name, nullptr, p.name, n, ms, uint64_t(n) * sizeof(T), ok);
}

// DeviceScan::InclusiveSum / ExclusiveSum, output type = input type.
template <class T, bool Inclusive> void bench_scan(const Ctx& c, const PatternSpec& p, uint64_t n) {
  const num_items_t nn = num_items_t(n);
  bench_in_out<T>(
      c, Inclusive ? "scan_inclusive_sum" : "scan_exclusive_sum", p, n,
      [&](void* temp, size_t& tb, const T* in, T* out) -> cudaError_t {
        if constexpr (Inclusive)
          return cub::DeviceScan::InclusiveSum(temp, tb, in, out, nn, c.stream);
        else
          return cub::DeviceScan::ExclusiveSum(temp, tb, in, out, nn, c.stream);
      },
      [&](const T* in, T* out) {
        if constexpr (TypeInfo<T>::is_float) {
          return -1;  // floats: no exact check
        } else {
          return ok_flag(device_sum(c, n, ScanMismatch<T>{in, out, Inclusive}) == 0);
        }
      });
}

ANCHOR_DEFS(reduce_sum, (bench_reduce<T, ReduceKind::Sum>))
ANCHOR_DEFS(reduce_min, (bench_reduce<T, ReduceKind::Min>))
ANCHOR_DEFS(reduce_max, (bench_reduce<T, ReduceKind::Max>))
ANCHOR_DEFS(scan_inclusive_sum, (bench_scan<T, true>))
ANCHOR_DEFS(scan_exclusive_sum, (bench_scan<T, false>))
