#include "infercap/calibration/run.hpp"

#include "infercap/calibration/measurement_import.hpp"

#include <algorithm>

namespace infercap::calibration {

Result<RunResult> run_calibration(const Backend& backend, const RunOptions& opt,
                                  const ProgressFn& progress) {
  const double t0 = now_s();
  RunResult out;
  if (backend.available) {
    const Availability a = backend.available();
    if (!a.available) return Error{"backend '" + backend.name + "' is not available: " + a.reason};
  }
  out.machine = probe_machine();
  // The plan sees the cores it may use; the provenance keeps the machine's.
  MachineInfo planned = out.machine;
  if (opt.max_threads > 0) planned.cores = std::min(planned.cores, opt.max_threads);
  if (backend.collect) {
    auto rows = backend.collect(progress);
    if (!rows) return Error{rows.error().message};
    out.rows = std::move(*rows);
  } else {
    const std::vector<KernelSpec> kernels = backend.kernels();
    const std::vector<PlanItem> plan = backend.plan(opt.effort, planned);
    const HarnessOptions hopt =
        backend.harness_options ? backend.harness_options(opt.effort) : HarnessOptions{};
    const int total = static_cast<int>(plan.size());
    for (int i = 0; i < total; ++i) {
      const PlanItem& item = plan[static_cast<size_t>(i)];
      if (progress) progress(i, total, item.kernel);
      const KernelSpec* spec = nullptr;
      for (const auto& k : kernels)
        if (k.name == item.kernel) spec = &k;
      if (spec == nullptr) {
        out.failed.push_back(item.kernel + ": no such kernel in backend " + backend.name);
        continue;
      }
      if (spec->available) {
        const Availability a = spec->available();
        if (!a.available) {
          const std::string line = item.kernel + ": skipped: " + a.reason;
          if (std::find(out.skipped.begin(), out.skipped.end(), line) == out.skipped.end())
            out.skipped.push_back(line);
          continue;
        }
      }
      auto m = measure(backend.name, *spec, item.shape, hopt);
      if (m) {
        out.rows.push_back(std::move(*m));
      } else {
        out.failed.push_back(m.error().message);
      }
    }
    if (progress) progress(total, total, "fit");
  }
  FitOptions fo;
  fo.max_spread = opt.max_spread;
  auto fit =
      fit_profile(out.rows, opt.fit_llc_bytes > 0 ? opt.fit_llc_bytes : out.machine.llc_bytes, fo);
  if (!fit) return Error{fit.error().message};
  out.fit = std::move(*fit);
  out.fit.profile.backend = backend.name;
  if (backend.name != "cpu") as_device_bandwidth(out.fit);  // measurement_import.hpp
  out.fit.profile.provenance = make_provenance(out.machine, opt.command);
  out.fit.profile.provenance.notes += "; max_spread=" + std::to_string(opt.max_spread);
  out.elapsed_s = now_s() - t0;
  return out;
}

}  // namespace infercap::calibration
