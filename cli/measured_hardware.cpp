#include "measured_hardware.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>

namespace infercap::cli {

namespace {

bool has_flag(const std::string& flags, const std::string& f) {
  return (" " + flags + " ").find(" " + f + " ") != std::string::npos;
}

std::string yaml_quote(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o + "\"";
}

}  // namespace

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
  // The GEMMs ran on the profile's threads; the entry is one socket of all its cores.
  const int socket_cores = std::max(1, m.cores / sockets);
  const double scale = p.threads > 0 ? static_cast<double>(socket_cores) / p.threads : 1.0;
  for (int i = 0; i < kComputeTypeCount; ++i)
    h.dense_flops_per_s[i] = p.achieved_flops_per_s[i] * scale;
  CpuTopology c;
  c.cores = std::max(1, m.cores / sockets);
  c.threads_per_core = m.cores > 0 ? std::max(1, m.pus / m.cores) : 1;
  c.numa_nodes_per_socket = std::max(1, m.numa_nodes / sockets);
  c.base_clock_hz = cpu_mhz * 1e6;
  c.avx2 = has_flag(m.flags, "avx2");
  c.avx512 = has_flag(m.flags, "avx512f");
  c.avx512_bf16 = has_flag(m.flags, "avx512_bf16");
  c.avx512_vnni = has_flag(m.flags, "avx512_vnni");
  c.amx = has_flag(m.flags, "amx_tile");
  h.cpu = c;
  return h;
}

std::string hardware_to_yaml(const HardwareSpec& h, const Provenance& prov) {
  std::string o;
  o +=
      "# Written by `infercap calibrate` for a machine the catalog does not know. Every figure is\n"
      "# measured (see sources); measured rates stand where a datasheet entry has peaks.\n";
  o += "schema_version: 1\nkind: hardware\n";
  o += "name: " + yaml_quote(h.name) + "\n";
  o += "aliases: [";
  for (size_t i = 0; i < h.aliases.size(); ++i) o += (i ? ", " : "") + yaml_quote(h.aliases[i]);
  o += "]\n";
  o += "vendor: " + yaml_quote(h.vendor) + "\nclass: cpu\n";
  o += "description: " + yaml_quote(h.description) + "\n";
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
  o += "  - fields: [\"dense_flops_per_s.*\", memory_bandwidth_bytes_per_s]\n";
  o += "    ref: " +
       yaml_quote(fmt::format("measurement: `{}` on {} ({}), commit {}", prov.command, prov.host,
                              prov.machine, prov.commit)) +
       "\n";
  o += "    date: " + yaml_quote(prov.date.substr(0, 10)) + "\n";
  o += "    note: \"measured: DRAM read asymptote of the bandwidth fit; best GEMM rate per compute "
       "type of the calibration kernels, scaled from the threads they ran on to the socket's "
       "cores (achieved, not datasheet peaks)\"\n";
  o += "  - fields: [memory_bytes, cache_bytes, devices_per_server, cpu.cores, "
       "cpu.threads_per_core, cpu.numa_nodes_per_socket, cpu.base_clock_hz, cpu.isa]\n";
  o += "    ref: " +
       yaml_quote(fmt::format("measurement: machine probe of the same run on {} (/proc/meminfo, "
                              "hwloc, CPUID, /proc/cpuinfo cpu MHz)",
                              prov.host)) +
       "\n";
  o += "    date: " + yaml_quote(prov.date.substr(0, 10)) + "\n";
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
