// copy: cudaMemcpyAsync device-to-device of n u32, the bandwidth reference that scripts/bench-gpu
// puts each row's bytes against (bytes = read + write).
#include "bench.cuh"

void bench_copy(const Ctx& c, uint64_t n) {
  using T = uint32_t;
  const int k = plan_slots(c, 2 * Slots<T>::stride_for(n), 0);
  Slots<T> in, out;
  in.init(n, k);
  out.init(n, k);
  PatternSpec uniform;
  uniform.name = "uniform";
  generate_slots(c, in, n, uniform);
  int last = 0;
  const double ms = time_median_ms(
      c, k,
      [&](int s) {
        return cudaMemcpyAsync(out[s], in[s], n * sizeof(T), cudaMemcpyDeviceToDevice, c.stream);
      },
      &last);
  const bool good = device_sum(c, n, Mismatch<T>{in[last], out[last]}) == 0;
  emit_row(c, "copy", TypeInfo<T>::name, nullptr, uniform.name, n, ms, uint64_t(2) * n * sizeof(T),
           ok_flag(good));
}
