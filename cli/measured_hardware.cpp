#include "measured_hardware.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>

#include "infercap/spec/quoted.hpp"

namespace infercap::cli {

namespace {

bool has_flag(const std::string& flags, const std::string& f) {
  return (" " + flags + " ").find(" " + f + " ") != std::string::npos;
}

}  // namespace

PeakRule measured_cpu_peak_rule(const std::string& vendor, const std::string& flags) {
  PeakRule r;
  const bool amd = vendor.find("AMD") != std::string::npos;
  const bool avx512 = has_flag(flags, "avx512f");
  const bool amx = has_flag(flags, "amx_tile");
  if (avx512 && amd && !has_flag(flags, "avx512_vp2intersect")) {
    r.fp32_flops_per_cycle = 32;
    r.why =
        "fp32: AVX-512 on Zen 4's two 256-bit FMA pipes (no VP2INTERSECT: not Zen 5), 2 x 8 "
        "lanes x 2 = 32 FLOP/cycle";
  } else if (avx512) {
    r.fp32_flops_per_cycle = 64;
    r.why =
        amx ? "fp32: two AVX-512 FMA units (every AMX part, Sapphire Rapids on, has two), 2 x "
              "16 lanes x 2 = 64 FLOP/cycle"
            : "fp32: two AVX-512 FMA units assumed (Xeon Gold 6xxx / Platinum and later, Zen 5; "
              "parts with one unit reach half), 2 x 16 lanes x 2 = 64 FLOP/cycle";
  } else if (has_flag(flags, "avx2") && has_flag(flags, "fma")) {
    r.fp32_flops_per_cycle = 32;
    r.why = "fp32: two 256-bit FMA units, 2 x 8 lanes x 2 = 32 FLOP/cycle";
  } else {
    r.fp32_flops_per_cycle = 8;
    r.why = "fp32: SSE, 4 lanes x 2 = 8 FLOP/cycle";
  }
  if (amx && has_flag(flags, "amx_bf16")) {
    r.bf16_flops_per_cycle = 1024;
    r.why += "; bf16: AMX TMUL 1024 FLOP/cycle";
  } else if (has_flag(flags, "avx512_bf16")) {
    r.bf16_flops_per_cycle = 2 * r.fp32_flops_per_cycle;
    r.why += "; bf16: VDPBF16PS, two products per fp32 lane";
  }
  if (amx && has_flag(flags, "amx_int8")) {
    r.int8_ops_per_cycle = 2048;
    r.why += "; int8: AMX TMUL 2048 OP/cycle";
  } else if (has_flag(flags, "avx512_vnni")) {
    r.int8_ops_per_cycle = 4 * r.fp32_flops_per_cycle;
    r.why += "; int8: VPDPBUSD, four products per fp32 lane";
  }
  return r;
}

std::string measured_fma_note(const calibration::MachineInfo& m, const PeakRule& rule) {
  if (!(m.fma_flops_per_s > 0) || !(m.core_clock_hz > 0) || !(rule.fp32_flops_per_cycle > 0))
    return "";
  const double per_cycle = m.fma_flops_per_s / m.core_clock_hz;
  std::string s = fmt::format(
      "measured on one thread: {}-bit FMAs at {:.1f} GFLOP/s, {:.1f} FLOP per cycle of the timed "
      "clock (the rule: {:.0f})",
      m.fma_bits, m.fma_flops_per_s / 1e9, per_cycle, rule.fp32_flops_per_cycle);
  if (per_cycle < 0.9 * rule.fp32_flops_per_cycle) {
    s += "; below the rule: AVX code runs below the scalar clock here, or the core has fewer FMA "
         "units than the rule assumes";
  }
  if (m.f16_fma_flops_per_s > 0) {
    // What llama.cpp's F16 prefill tile pays for its fp16 -> fp32 conversions on this core.
    s += fmt::format(
        "; fed by fp16 conversions at llama.cpp's F16 tile ratio ({} VCVTPH2PS per {} FMAs): "
        "{:.1f} GFLOP/s, {:.0f}% of that",
        m.fma_bits == 512 ? 10 : 7, m.fma_bits == 512 ? 24 : 12, m.f16_fma_flops_per_s / 1e9,
        100 * m.f16_fma_flops_per_s / m.fma_flops_per_s);
  }
  return s;
}

std::string measured_bandwidth_note(const CalibrationProfile& p) {
  if (!(p.threads > 1) || p.bandwidth.n0_threads < 0.99 * 4 * p.threads) return "";
  return fmt::format(
      "no saturation seen up to {} threads: A is an extrapolation of the curve, not a rate any "
      "run reached; the measured rates are the curve at 1 to {} threads",
      p.threads, p.threads);
}

std::string measured_hardware_name(const std::string& cpu_model) {
  std::string s = cpu_model;
  for (const char* junk : {"(R)", "(r)", "(TM)", "(tm)", "CPU", "@"}) {
    for (auto p = s.find(junk); p != std::string::npos; p = s.find(junk)) s.erase(p, strlen(junk));
  }
  std::string out = "measured";
  bool dash = true;
  for (unsigned char c : s) {
    if (std::isalnum(c)) {
      if (dash) out += '-';
      out += static_cast<char>(std::tolower(c));
      dash = false;
    } else {
      dash = true;
    }
  }
  return out;
}

HardwareSpec measured_cpu_hardware(const calibration::RunResult& run, const CalibrationProfile& p,
                                   const std::string& name, double cpu_mhz) {
  const auto& m = run.machine;
  HardwareSpec h;
  h.name = name;
  h.aliases = {m.cpu_model};
  h.vendor = m.vendor.find("AMD") != std::string::npos     ? "amd"
             : m.vendor.find("Intel") != std::string::npos ? "intel"
                                                           : "unknown";
  h.description = fmt::format("measured by infercap calibrate on {} ({}{})", m.hostname,
                              m.cpu_model, m.virtualized ? ", virtual machine" : "");
  h.hw_class = HwClass::cpu;
  const int sockets = std::max(1, m.sockets);
  h.devices_per_server = sockets;
  h.memory_bytes = m.memory_bytes / sockets;
  h.memory_bandwidth_bytes_per_s = p.bandwidth.asymptote_bytes_per_s;
  h.cache_bytes = m.llc_bytes;
  const int socket_cores = std::max(1, m.cores / sockets);
  CpuTopology c;
  c.cores = std::max(1, m.cores / sockets);
  c.threads_per_core = m.cores > 0 ? std::max(1, m.pus / m.cores) : 1;
  c.numa_nodes_per_socket = std::max(1, m.numa_nodes / sockets);
  // The measured clock where the probe ran (a VM's "cpu MHz" is its host's TSC rate: 2.6 GHz on
  // a Zen 5 guest whose cores run at 3.6), else what /proc/cpuinfo says.
  c.base_clock_hz = m.core_clock_hz > 0 ? m.core_clock_hz : cpu_mhz * 1e6;
  // The model reads a CPU's bandwidth at N threads as bw x (1 - exp(-N x per_core / bw)); with
  // the fit's asymptote as bw, per_core = asymptote / n0 makes that curve the fitted one, so the
  // entry alone predicts the measured read rate at every thread count (on a 2-core VM the
  // asymptote is an extrapolation and only the curve at 1-2 threads is a measurement).
  if (p.bandwidth.n0_threads > 0)
    c.per_core_bandwidth_bytes_per_s = p.bandwidth.asymptote_bytes_per_s / p.bandwidth.n0_threads;
  c.avx2 = has_flag(m.flags, "avx2");
  c.avx512 = has_flag(m.flags, "avx512f");
  c.avx512_bf16 = has_flag(m.flags, "avx512_bf16");
  c.avx512_vnni = has_flag(m.flags, "avx512_vnni");
  c.amx = has_flag(m.flags, "amx_tile");
  h.cpu = c;
  // Peaks, as the catalog states them (cores x base clock x FLOP/cycle of the widest unit), so
  // the stacks' fractions of peak mean the same on this entry as on a datasheet one; what the
  // calibration kernels achieved stays in the profile.
  const PeakRule r = measured_cpu_peak_rule(m.vendor, m.flags);
  const double hz = socket_cores * c.base_clock_hz;
  at(h.dense_flops_per_s, ComputeType::fp32) = hz * r.fp32_flops_per_cycle;
  if (r.bf16_flops_per_cycle > 0)
    at(h.dense_flops_per_s, ComputeType::bf16) = hz * r.bf16_flops_per_cycle;
  if (r.int8_ops_per_cycle > 0)
    at(h.dense_flops_per_s, ComputeType::int8) = hz * r.int8_ops_per_cycle;
  // With no clock the derivation has nothing to multiply: the achieved rates, scaled from the
  // threads they ran on to the socket's cores, are all there is.
  if (!(hz > 0)) {
    const double scale = p.threads > 0 ? static_cast<double>(socket_cores) / p.threads : 1.0;
    for (int i = 0; i < kComputeTypeCount; ++i)
      h.dense_flops_per_s[i] = p.achieved_flops_per_s[i] * scale;
  }
  return h;
}

std::string hardware_to_yaml(const HardwareSpec& h, const Provenance& prov,
                             const std::string& peak_note, const std::string& clock_note,
                             const std::string& bandwidth_note) {
  std::string o;
  o += "# Written by `infercap calibrate` for a machine the catalog does not know. Memory, cache,\n"
       "# topology and bandwidth are measured; the compute peaks are derived from the CPUID flags\n"
       "# and the clock, as a datasheet's are (see sources).\n";
  o += "schema_version: 1\nkind: hardware\n";
  o += "name: " + spec::quoted_scalar(h.name) + "\n";
  o += "aliases: [";
  for (size_t i = 0; i < h.aliases.size(); ++i)
    o += (i ? ", " : "") + spec::quoted_scalar(h.aliases[i]);
  o += "]\n";
  o += "vendor: " + spec::quoted_scalar(h.vendor) + "\nclass: cpu\n";
  o += "description: " + spec::quoted_scalar(h.description) + "\n";
  o += "dense_flops_per_s:\n";
  bool any = false;
  for (int i = 0; i < kComputeTypeCount; ++i) {
    if (h.dense_flops_per_s[i] <= 0) continue;
    o += fmt::format("  {}: {:.6g}\n", compute_type_name(static_cast<ComputeType>(i)),
                     h.dense_flops_per_s[i]);
    any = true;
  }
  if (!any) o += "  {}\n";
  o += fmt::format("memory_bytes: {:.6g}\n", h.memory_bytes);
  o += fmt::format("memory_bandwidth_bytes_per_s: {:.6g}\n", h.memory_bandwidth_bytes_per_s);
  if (h.cache_bytes > 0) o += fmt::format("cache_bytes: {:.6g}\n", h.cache_bytes);
  o += "link:\n  kind: none\n";
  o += fmt::format("devices_per_server: {}\n", h.devices_per_server);
  const CpuTopology& c = *h.cpu;
  o += "cpu:\n";
  o += fmt::format("  cores: {}\n  threads_per_core: {}\n  numa_nodes_per_socket: {}\n", c.cores,
                   c.threads_per_core, c.numa_nodes_per_socket);
  if (c.base_clock_hz > 0) o += fmt::format("  base_clock_hz: {:.6g}\n", c.base_clock_hz);
  if (c.per_core_bandwidth_bytes_per_s > 0) {
    o +=
        fmt::format("  per_core_bandwidth_bytes_per_s: {:.6g}\n", c.per_core_bandwidth_bytes_per_s);
  }
  std::string isa;
  auto add = [&](bool on, const char* n) {
    if (on) isa += (isa.empty() ? "" : ", ") + std::string(n);
  };
  add(c.avx2, "avx2");
  add(c.avx512, "avx512");
  add(c.avx512_bf16, "avx512_bf16");
  add(c.avx512_vnni, "avx512_vnni");
  add(c.amx, "amx");
  o += "  isa: [" + isa + "]\n";
  o += "sources:\n";
  o += "  - fields: [\"dense_flops_per_s.*\", memory_bandwidth_bytes_per_s, "
       "cpu.per_core_bandwidth_bytes_per_s]\n";
  o += "    ref: " +
       spec::quoted_scalar(fmt::format("measurement: `{}` on {} ({}), commit {}", prov.command,
                                       prov.host, prov.machine, prov.commit)) +
       "\n";
  o += "    date: " + spec::quoted_scalar(prov.date.substr(0, 10)) + "\n";
  o += "    note: " +
       spec::quoted_scalar(fmt::format(
           "measured: DRAM read asymptote A of the bandwidth fit bw(n) = A (1 - exp(-n / n0)), "
           "with cpu.per_core_bandwidth_bytes_per_s = A / n0 so the entry reproduces the fitted "
           "curve{}. dense_flops_per_s: derived, not measured: cores x base clock x FLOP/cycle of "
           "the widest unit the CPUID flags name ({}); the calibration kernels' achieved rates "
           "are in the profile",
           bandwidth_note.empty() ? "" : " (" + bandwidth_note + ")", peak_note)) +
       "\n";
  o += "  - fields: [memory_bytes, cache_bytes, devices_per_server, cpu.cores, "
       "cpu.threads_per_core, cpu.numa_nodes_per_socket, cpu.isa]\n";
  o += "    ref: " +
       spec::quoted_scalar(
           fmt::format("measurement: machine probe of the same run on {} (/proc/meminfo, "
                       "hwloc, CPUID)",
                       prov.host)) +
       "\n";
  o += "    date: " + spec::quoted_scalar(prov.date.substr(0, 10)) + "\n";
  o += "  - fields: [cpu.base_clock_hz]\n";
  o += "    ref: " +
       spec::quoted_scalar(
           fmt::format("measurement: machine probe of the same run on {}", prov.host)) +
       "\n";
  o += "    date: " + spec::quoted_scalar(prov.date.substr(0, 10)) + "\n";
  o += "    note: " +
       spec::quoted_scalar(clock_note.empty() ? "/proc/cpuinfo cpu MHz of the first CPU"
                                              : clock_note) +
       "\n";
  return o;
}

std::optional<HardwareSpec> profile_hardware(const spec::Catalog& catalog,
                                             const CalibrationProfile& p,
                                             const std::string& profile_path,
                                             spec::Diagnostics& diags) {
  if (p.hardware.empty()) {
    diags.error(profile_path, 0, 0, "hardware",
                "the profile names no hardware; pass --hardware, or re-run `infercap calibrate`, "
                "which writes an entry for a machine the catalog does not know");
    return std::nullopt;
  }
  if (const HardwareSpec* h = catalog.find_hardware(p.hardware)) return *h;
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string path = p.hardware;
  if (!fs::exists(path, ec)) {
    const fs::path rel = fs::path(profile_path).parent_path() / p.hardware;
    if (fs::exists(rel, ec)) path = rel.string();
  }
  if (!fs::exists(path, ec)) {
    diags.error(profile_path, 0, 0, "hardware",
                fmt::format("expected a catalog hardware name or a hardware YAML file, found "
                            "'{}' (neither in the catalog nor a file here or beside the profile)",
                            p.hardware));
    return std::nullopt;
  }
  return catalog.resolve_hardware(path, diags);
}

}  // namespace infercap::cli
