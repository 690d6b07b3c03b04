// `infercap calibrate`: measure this machine with the calibration kernels, fit the model's
// parameters, print measured vs datasheet, write a profile that --calibration accepts.
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "calibrate_import.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "exit_codes.hpp"
#include "infercap/calibration/run.hpp"
#include "infercap/spec/atomic_write.hpp"
#include "infercap/spec/catalog.hpp"
#include "infercap/spec/profile_io.hpp"
#include "infercap/units.hpp"
#include "measured_hardware.hpp"

namespace infercap::cli {

namespace {

struct CalibrateArgs {
  std::string backend = "cpu";
  bool quick = false;
  bool full = false;
  bool tiny = false;
  bool list = false;
  std::string output;
  std::string rows;
  std::string hardware;
  std::string hardware_out;  // where a measured entry goes (default: beside the profile)
  std::string data;
  int threads = 0;
  double max_spread = 0.25;
  std::string command;
  bool force = false;  // replace a symbolic link or a read-only file at an output path
};

void progress_bar(int done, int total, const std::string& what) {
  if (total <= 0) return;
  constexpr int kWidth = 30;
  const int filled = done * kWidth / total;
  std::string bar(static_cast<size_t>(filled), '#');
  bar.resize(kWidth, '.');
  fmt::print(stderr, "\r[{}] {:3}/{:<3} {:<34.34}", bar, done, total, what);
  if (done == total) fmt::print(stderr, "\n");
  std::fflush(stderr);
}

std::string rows_csv(const calibration::RunResult& r) {
  std::string out =
      "backend,kernel,kind,isa,weights,compute,threads,numa_node,bytes,m,n,k,bytes_per_call,"
      "flops_per_call,reps,median_s,min_s,p10_s,p90_s,spread,noisy,check_ok,check_error,"
      "bytes_per_s,flops_per_s\n";
  for (const auto& m : r.rows) {
    out += fmt::format(
        "{},{},{},{},{},{},{},{},{:.6g},{},{},{},{:.6g},{:.6g},{},{:.6g},{:.6g},{:.6g},"
        "{:.6g},{:.4f},{},{},{:.3g},{:.6g},{:.6g}\n",
        m.backend, m.kernel, calibration::kernel_kind_name(m.kind), m.isa, dtype_name(m.weights),
        compute_type_name(m.compute), m.shape.threads, m.shape.numa_node, m.shape.bytes, m.shape.m,
        m.shape.n, m.shape.k, m.bytes_per_call, m.flops_per_call, m.reps, m.median_s, m.min_s,
        m.p10_s, m.p90_s, m.spread, m.noisy ? 1 : 0, m.check_ok ? 1 : 0, m.check_error,
        m.bytes_per_s(), m.flops_per_s());
  }
  return out;
}

// The clock /proc/cpuinfo reports for the first CPU (MHz); 0 when it says nothing (non-Linux).
double cpu_mhz_from_proc() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("cpu MHz", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return std::atof(line.c_str() + colon + 1);
    }
  }
  return 0;
}

std::string gb(double v) {
  return v > 0 ? fmt::format("{:.1f} GB/s", v / 1e9) : "-";
}
std::string gf(double v) {
  return v > 0 ? fmt::format("{:.1f} GFLOP/s", v / 1e9) : "-";
}
std::string pct(double a, double b) {
  return a > 0 && b > 0 ? fmt::format("{:.0f}%", 100 * a / b) : "-";
}

void print_vs_datasheet(const CalibrationProfile& p, const HardwareSpec* hw) {
  fmt::print("\n{:<28} {:>16} {:>16} {:>9}\n", "quantity", "measured", "datasheet", "ratio");
  const double ds_bw = hw != nullptr ? hw->memory_bandwidth_bytes_per_s : 0;
  fmt::print("{:<28} {:>16} {:>16} {:>9}\n", "DRAM bandwidth (asymptote)",
             gb(p.bandwidth.asymptote_bytes_per_s), gb(ds_bw),
             pct(p.bandwidth.asymptote_bytes_per_s, ds_bw));
  fmt::print("{:<28} {:>16} {:>16} {:>9}\n", fmt::format("DRAM bandwidth ({} threads)", p.threads),
             gb(p.bandwidth.at(p.threads)), gb(ds_bw), pct(p.bandwidth.at(p.threads), ds_bw));
  for (int c = 0; c < kComputeTypeCount; ++c) {
    const auto t = static_cast<ComputeType>(c);
    const double m = at(p.achieved_flops_per_s, t);
    const double d = hw != nullptr ? at(hw->dense_flops_per_s, t) : 0;
    if (m <= 0 && d <= 0) continue;
    fmt::print("{:<28} {:>16} {:>16} {:>9}\n", fmt::format("GEMM {}", compute_type_name(t)), gf(m),
               gf(d), pct(m, d));
  }
  for (int c = 0; c < kComputeTypeCount; ++c) {
    const auto t = static_cast<ComputeType>(c);
    const double m = at(p.gemv_bandwidth_bytes_per_s, t);
    if (m <= 0) continue;
    fmt::print("{:<28} {:>16} {:>16} {:>9}\n", fmt::format("GEMV {} weights", compute_type_name(t)),
               gb(m), gb(ds_bw), pct(m, ds_bw));
  }
  if (p.cache_bandwidth_bytes_per_s > 0) {
    fmt::print("{:<28} {:>16} {:>16}\n", "cache-resident read", gb(p.cache_bandwidth_bytes_per_s),
               format_quantity(p.cache_bytes, Dim::bytes));
  }
  fmt::print("{:<28} {:>16}\n", "per-call overhead",
             fmt::format("{:.2f} us", p.kernel_overhead_s * 1e6));
  fmt::print("{:<28} {:>16}\n", "fork/join", fmt::format("{:.2f} us", p.fork_join_s * 1e6));
}

void print_backend(const calibration::Backend& b, const std::string& where) {
  const auto a = b.available();
  fmt::print("{}: {} ({}){}\n", b.name, a.available ? "available" : "unavailable", a.reason, where);
  if (!b.kernels) return;
  for (const auto& k : b.kernels()) {
    const auto ka = k.available ? k.available() : calibration::Availability::yes();
    fmt::print("  {:<28} {:<14} {}\n", k.name, calibration::kernel_kind_name(k.kind),
               ka.available ? "available" : "skipped: " + ka.reason);
  }
}

// Built-in backends, then each module: opened here (this is one of the two places that load
// one), or the reason it cannot be.
int list_backends() {
  for (const auto& b : calibration::builtin_registry().all()) print_backend(b, "");
  for (const auto& m : calibration::module_backends()) {
    const auto b = calibration::load_backend(m.name);
    if (b) {
      print_backend(**b, fmt::format(" [module {}]", m.file));
    } else {
      fmt::print("{}: unavailable ({})\n", m.name, b.error().message);
    }
  }
  return kExitOk;
}

int run_calibrate(const CalibrateArgs& a) {
  if (a.list) return list_backends();
  const auto names = calibration::backend_names();
  if (std::find(names.begin(), names.end(), a.backend) == names.end()) {
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
    fmt::print(stderr, "infercap calibrate: unknown backend '{}' (known: {})\n", a.backend, known);
    return kExitUsage;
  }
  if (a.quick && a.full) {
    fmt::print(stderr, "infercap calibrate: --quick and --full exclude each other\n");
    return kExitUsage;
  }
  // An accelerator backend's module is opened here, not at start-up (registry.hpp).
  const auto loaded = calibration::load_backend(a.backend);
  if (!loaded) {
    fmt::print(stderr, "infercap calibrate: {}\n", loaded.error().message);
    return kExitCalibration;
  }
  const calibration::Backend* backend = *loaded;
  // The datasheet to compare with (optional): load before measuring, so a typo fails fast. A
  // name the catalog does not know (and no such file) names the measured machine's new entry.
  std::optional<HardwareSpec> hw;
  std::string new_name;
  if (!a.hardware.empty()) {
    spec::Diagnostics diags;
    const auto catalog = spec::Catalog::load(data_dir_or_default(a.data), diags);
    std::error_code ec;
    if (catalog.find_hardware(a.hardware) == nullptr && !std::filesystem::exists(a.hardware, ec) &&
        a.hardware.find('/') == std::string::npos && !a.hardware.ends_with(".yaml")) {
      new_name = a.hardware;
      std::string near;
      for (const auto& n : catalog.near_hardware(a.hardware))
        near += (near.empty() ? "" : ", ") + n;
      fmt::print(
          stderr,
          "infercap calibrate: '{}' is not in the catalog{}; the measured machine gets a new "
          "hardware entry under that name\n",
          a.hardware, near.empty() ? "" : " (near: " + near + ")");
    } else {
      hw = catalog.resolve_hardware(a.hardware, diags);
      if (!hw) {
        print_diagnostics(diags);
        return kExitSpec;
      }
    }
  }
  // Output paths are checked before measuring: a refusal should not cost a sweep.
  for (const std::string* out : {&a.output, &a.rows, &a.hardware_out}) {
    if (out->empty()) continue;
    if (auto ok = spec::check_output_path(*out, a.force); !ok) {
      fmt::print(stderr, "infercap calibrate: {}\n", ok.error().message);
      return kExitIo;
    }
  }
  calibration::RunOptions opt;
  opt.effort = a.full   ? calibration::Effort::full
               : a.tiny ? calibration::Effort::tiny
                        : calibration::Effort::quick;
  opt.command = a.command;
  opt.max_threads = a.threads;
  opt.max_spread = a.max_spread;
  const bool tty = isatty(STDERR_FILENO) != 0;
  fmt::print(stderr, "infercap calibrate: backend {} ({}), {} sweep\n", backend->name,
             backend->available ? backend->available().reason : "",
             a.full   ? "full"
             : a.tiny ? "tiny"
                      : "quick");
  auto run = calibration::run_calibration(*backend, opt,
                                          [&](int done, int total, const std::string& what) {
                                            if (tty) {
                                              progress_bar(done, total, what);
                                            } else if (done == total) {
                                              fmt::print(stderr, "measured {} points\n", total);
                                            }
                                          });
  if (!run) {
    fmt::print(stderr, "\ninfercap calibrate: no profile written: {}\n", run.error().message);
    return kExitCalibration;
  }
  const auto& r = *run;
  fmt::print("machine: {} ({} cores, {} NUMA node(s), {} memory{})\n", r.machine.cpu_model,
             r.machine.cores, r.machine.numa_nodes,
             format_quantity(r.machine.memory_bytes, Dim::bytes),
             r.machine.virtualized ? ", virtualised" : "");
  // The peak rule the flags imply, and what the probe's FMA rate says against it: the log shows
  // it here, and a measured entry's peak note carries it.
  const PeakRule rule = measured_cpu_peak_rule(r.machine.vendor, r.machine.flags);
  const std::string fma = measured_fma_note(r.machine, rule);
  if (!fma.empty()) fmt::print("  FMA issue rate {}\n", fma);
  fmt::print("measured {} points in {:.1f} s\n", r.rows.size(), r.elapsed_s);
  for (const auto& s : r.skipped) fmt::print("  {}\n", s);
  for (const auto& s : r.failed) fmt::print(stderr, "  failed: {}\n", s);
  for (const auto& s : r.fit.rejected) fmt::print("  rejected: {}\n", s);
  for (const auto& s : r.fit.notes) fmt::print("  {}\n", s);
  CalibrationProfile profile = r.fit.profile;
  if (hw) profile.hardware = hw->name;
  // A machine the catalog does not know gets an entry of its own, every figure measured, so the
  // profile names hardware that validate/predict/plan can use.
  std::string hw_yaml, hw_path;
  if (!hw && backend->name == "cpu") {
    const std::string name =
        new_name.empty() ? measured_hardware_name(r.machine.cpu_model) : new_name;
    const double proc_mhz = cpu_mhz_from_proc();  // read once: the entry and its clock note
    const HardwareSpec measured = measured_cpu_hardware(r, profile, name, proc_mhz);
    // The note follows what the entry holds: derived peaks when it has a clock.
    const std::string peak_note =
        measured.cpu->base_clock_hz > 0
            ? rule.why + (fma.empty() ? "" : "; " + fma)
            : "no base clock in /proc/cpuinfo: the calibration kernels' achieved rates, scaled "
              "from their threads to the socket's cores, stand in for peaks";
    const std::string clock_note =
        r.machine.core_clock_hz > 0
            ? fmt::format(
                  "measured: one thread's clock from a chain of dependent register adds "
                  "(one per cycle on every x86-64 core), checked against a chain of "
                  "multiplies (3 cycles each), {:.3g} GHz; /proc/cpuinfo says "
                  "{:.0f} MHz{}",
                  r.machine.core_clock_hz / 1e9, proc_mhz,
                  r.machine.virtualized ? " (a virtual machine's TSC rate)" : "")
            : "";
    hw_yaml = hardware_to_yaml(measured, profile.provenance, peak_note, clock_note,
                               measured_bandwidth_note(profile));
    hw_path = a.hardware_out;
    if (hw_path.empty() && !a.output.empty()) {
      std::filesystem::path o(a.output);
      // x.profile.yaml -> x.hardware.yaml (not x.profile.hardware.yaml)
      std::string stem = o.stem().string();
      if (stem.size() > 8 && stem.compare(stem.size() - 8, 8, ".profile") == 0)
        stem.resize(stem.size() - 8);
      hw_path = (o.parent_path() / (stem + ".hardware.yaml")).string();
    }
    if (!hw_path.empty()) {
      // The profile names the entry by file, relative to the profile's folder when beside it.
      const auto rel = std::filesystem::path(hw_path).lexically_relative(
          std::filesystem::path(a.output.empty() ? "." : a.output).parent_path());
      profile.hardware = a.output.empty() || rel.empty() ? hw_path : rel.string();
    } else {
      profile.hardware = name;
    }
  }
  print_vs_datasheet(profile, hw ? &*hw : nullptr);
  if (!a.rows.empty()) {
    if (auto w = spec::write_file_atomically(a.rows, rows_csv(r), a.force); !w) {
      fmt::print(stderr, "infercap calibrate: {}\n", w.error().message);
      return kExitIo;
    }
  }
  if (!r.failed.empty()) {
    fmt::print(stderr, "infercap calibrate: {} kernel(s) failed their checks; no profile written\n",
               r.failed.size());
    return kExitCalibration;
  }
  if (!hw_path.empty()) {
    if (auto w = spec::write_file_atomically(hw_path, hw_yaml, a.force); !w) {
      fmt::print(stderr, "infercap calibrate: {}\n", w.error().message);
      return kExitIo;
    }
    fmt::print("wrote {} (hardware entry for this machine; the profile names it)\n", hw_path);
  } else if (!hw_yaml.empty()) {
    fmt::print("\n# hardware entry for this machine (write it with --hardware-out):\n{}", hw_yaml);
  }
  if (!a.output.empty()) {
    auto saved = spec::save_profile(profile, a.output, a.force);
    if (!saved) {
      fmt::print(stderr, "infercap calibrate: {}\n", saved.error().message);
      return kExitIo;
    }
    fmt::print("wrote {}\n", a.output);
  } else {
    fmt::print("\n{}", spec::profile_to_yaml(profile));
  }
  return kExitOk;
}

}  // namespace

Runner register_calibrate(CLI::App& app) {
  auto args = std::make_shared<CalibrateArgs>();
  auto* sub =
      app.add_subcommand("calibrate", "measure this machine and write a calibration profile");
  sub->add_option("--backend,-b", args->backend, "calibration backend (cpu, cuda, opencl; --list)")
      ->capture_default_str();
  sub->add_flag("--quick", args->quick, "the points the profile needs (< 60 s; default)");
  sub->add_flag("--full", args->full, "the whole sweep: sizes, threads, ISAs, batches (< 10 min)");
  sub->add_flag("--tiny", args->tiny, "a few tiny points (tests; not a usable profile)");
  sub->add_option("-o,--output", args->output, "write the profile YAML here (else print it)");
  sub->add_option("--rows", args->rows, "also write every measurement row as CSV");
  sub->add_option("--hardware,-H", args->hardware,
                  "datasheet to compare with: catalog name or YAML");
  sub->add_option("--hardware-out", args->hardware_out,
                  "where to write the measured machine's hardware entry when the catalog does "
                  "not know it (default: beside -o, NAME.hardware.yaml)");
  sub->add_option("--data", args->data, "catalog folder");
  sub->add_option("--threads", args->threads, "use at most this many cores (default: all)");
  sub->add_option("--max-spread", args->max_spread,
                  "reject points whose (p90 - p10) / median exceeds this (noisy machines)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sub->add_flag("--list", args->list, "list backends and kernels with their availability");
  add_force_flag(sub, args->force);
  auto imports = add_import_options(sub);  // --from-benchmarks, --import: calibrate_import.cpp
  return [args, imports] {
    if (imports->active()) {
      imports->force = args->force;
      return run_import(*imports, args->output, args->hardware, args->data);
    }
    // Provenance: the command as typed (argv is not reachable here; rebuild it from the flags).
    std::string cmd = "infercap calibrate --backend " + args->backend +
                      (args->full   ? " --full"
                       : args->tiny ? " --tiny"
                                    : " --quick");
    if (args->threads > 0) cmd += " --threads " + std::to_string(args->threads);
    if (args->max_spread != 0.25) cmd += fmt::format(" --max-spread {}", args->max_spread);
    if (!args->output.empty()) cmd += " -o " + args->output;
    args->command = cmd;
    return run_calibrate(*args);
  };
}

}  // namespace infercap::cli
