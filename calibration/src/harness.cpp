#include "infercap/calibration/harness.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace infercap::calibration {

namespace {
constexpr double kMinSampleS = 20e-6;
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Quantiles quantiles(std::vector<double> xs) {
  Quantiles q;
  if (xs.empty()) return q;
  std::sort(xs.begin(), xs.end());
  // Linear interpolation between closest ranks (type 7).
  auto at = [&](double p) {
    const double pos = p * static_cast<double>(xs.size() - 1);
    const auto lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(lo + 1, xs.size() - 1);
    return xs[lo] + (pos - static_cast<double>(lo)) * (xs[hi] - xs[lo]);
  };
  q.median = at(0.5);
  q.p10 = at(0.1);
  q.p90 = at(0.9);
  q.min = xs.front();
  return q;
}

Measurement time_instance(KernelInstance& inst, const HarnessOptions& opt,
                          const std::function<double()>& clock_in) {
  const std::function<double()> clock = clock_in ? clock_in : std::function<double()>(now_s);
  Measurement m;
  m.bytes_per_call = inst.bytes_per_call();
  m.flops_per_call = inst.flops_per_call();
  // Warm-up: page faults, caches, frequency ramp; untimed.
  {
    const double t0 = clock();
    int calls = 0;
    while (calls < opt.min_warmup_calls || clock() - t0 < opt.warmup_s) {
      inst.run();
      ++calls;
    }
  }
  // Calls shorter than ~20 us are timed in batches, so clock reads and scheduler jitter do not
  // dominate a sample; a sample is then the batch's mean call time.
  int batch = 1;
  {
    const double a = clock();
    inst.run();
    const double one = clock() - a;
    if (one > 0 && one < kMinSampleS)
      batch = static_cast<int>(std::min(1e4, std::ceil(kMinSampleS / one)));
  }
  Measurement best;
  bool have = false;
  for (int attempt = 0; attempt <= opt.noisy_retries; ++attempt) {
    std::vector<double> samples;
    const double start = clock();
    while (static_cast<int>(samples.size()) < opt.max_reps &&
           (static_cast<int>(samples.size()) < opt.min_reps || clock() - start < opt.budget_s)) {
      const double a = clock();
      for (int i = 0; i < batch; ++i) inst.run();
      const double b = clock();
      samples.push_back((b - a) / batch);
    }
    const Quantiles q = quantiles(samples);
    Measurement cur = m;
    cur.reps = static_cast<int>(samples.size()) * batch;
    cur.median_s = q.median;
    cur.min_s = q.min;
    cur.p10_s = q.p10;
    cur.p90_s = q.p90;
    cur.spread = q.median > 0 ? (q.p90 - q.p10) / q.median : 0;
    cur.samples_s = std::move(samples);
    const bool noisy = cur.spread > opt.max_spread;
    if (!have || cur.spread < best.spread) {
      best = std::move(cur);
      have = true;
    }
    best.noisy = noisy && best.spread > opt.max_spread;
    if (!best.noisy) break;
    best.note = "re-measured " + std::to_string(attempt + 1) + "x for noise";
  }
  return best;
}

Result<Measurement> measure(const std::string& backend, const KernelSpec& spec, const Shape& shape,
                            const HarnessOptions& opt) {
  if (spec.available) {
    const Availability a = spec.available();
    if (!a.available) return Error{spec.name + ": not available: " + a.reason};
  }
  auto inst = spec.prepare(shape);
  if (!inst) return Error{spec.name + ": " + inst.error().message};
  KernelInstance& k = **inst;
  CheckResult chk;
  if (opt.check) {
    k.run();
    chk = k.check();
    if (!chk.ok) {
      return Error{spec.name + ": reference check failed: " + chk.message + " (error " +
                   std::to_string(chk.error) + " > tolerance " + std::to_string(chk.tolerance) +
                   ")"};
    }
  }
  Measurement m = time_instance(k, opt);
  m.backend = backend;
  m.kernel = spec.name;
  m.kind = spec.kind;
  m.isa = spec.isa;
  m.weights = spec.weights;
  m.compute = spec.compute;
  m.shape = shape;
  m.checked = opt.check;
  m.check_ok = chk.ok;
  m.check_error = chk.error;
  return m;
}

}  // namespace infercap::calibration
