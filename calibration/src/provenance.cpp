#include "infercap/calibration/provenance.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>

#include "../cpu/clock.hpp"
#include "../cpu/cpuid.hpp"
#include "../cpu/thread_team.hpp"

#ifndef INFERCAP_SOURCE_DIR_FOR_GIT
#define INFERCAP_SOURCE_DIR_FOR_GIT ""
#endif

namespace infercap::calibration {

namespace {

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) s.pop_back();
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

std::string proc_field(const char* path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    if (trim(line.substr(0, colon)) == key) return trim(line.substr(colon + 1));
  }
  return {};
}

double cache_size(hwloc_obj_type_t t) {
  hwloc_obj_t o = hwloc_get_obj_by_type(cpu::topology(), t, 0);
  return o != nullptr && o->attr != nullptr ? static_cast<double>(o->attr->cache.size) : 0;
}

}  // namespace

std::string source_commit(const std::string& dirty_paths) {
  std::string dir = INFERCAP_SOURCE_DIR_FOR_GIT;
  if (dir.empty()) return "unknown";
  const std::string cmd = "git -C '" + dir + "' rev-parse --short=12 HEAD 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return "unknown";
  char buf[64] = {};
  std::string out;
  if (fgets(buf, sizeof buf, p) != nullptr) out = trim(buf);
  pclose(p);
  if (out.empty()) return "unknown";
  // Uncommitted changes to the code that produced the numbers would make the commit a lie.
  const std::string dirty =
      "git -C '" + dir + "' diff --quiet HEAD -- " + dirty_paths + " 2>/dev/null";
  if (std::system(dirty.c_str()) != 0) out += "+dirty";
  return out;
}

MachineInfo probe_machine() {
  MachineInfo m;
  const auto& isa = cpu::isa();
  m.cpu_model = proc_field("/proc/cpuinfo", "model name");
  if (m.cpu_model.empty()) m.cpu_model = isa.brand;
  m.vendor = isa.vendor;
  m.flags = cpu::isa_flags();
  m.virtualized = isa.hypervisor;
  m.core_clock_hz = cpu::measure_core_clock_hz();
  m.fma_bits = isa.avx512f && isa.os_avx512 ? 512 : isa.avx2 && isa.fma && isa.os_avx ? 256 : 0;
  if (m.fma_bits > 0) m.fma_flops_per_s = cpu::measure_fma_flops_per_s(m.fma_bits);
  if (!(m.fma_flops_per_s > 0)) m.fma_bits = 0;
  // 256-bit conversions are F16C (AVX-512F has the 512-bit form).
  if (m.fma_bits == 512 || (m.fma_bits == 256 && isa.f16c))
    m.f16_fma_flops_per_s = cpu::measure_f16_fma_flops_per_s(m.fma_bits);
  hwloc_topology_t t = cpu::topology();
  m.sockets = std::max(1, hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE));
  m.cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
  m.pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
  m.numa_nodes = std::max(1, hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE));
  m.l1d_bytes = cache_size(HWLOC_OBJ_L1CACHE);
  m.l2_bytes = cache_size(HWLOC_OBJ_L2CACHE);
  m.llc_bytes = cache_size(HWLOC_OBJ_L3CACHE);
  if (m.llc_bytes == 0) m.llc_bytes = m.l2_bytes;
  const std::string mem = proc_field("/proc/meminfo", "MemTotal");  // "24576000 kB"
  if (!mem.empty()) m.memory_bytes = std::strtod(mem.c_str(), nullptr) * 1024.0;
  utsname u{};
  if (uname(&u) == 0) {
    m.kernel = std::string(u.sysname) + " " + u.release;
    m.hostname = u.nodename;
  }
  return m;
}

std::string iso_date_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Provenance make_provenance(const MachineInfo& m, const std::string& command) {
  Provenance p;
  p.machine = m.cpu_model;
  p.host = m.hostname;
  p.os = m.kernel;
  p.date = iso_date_utc();
  p.commit = source_commit("calibration");
  p.command = command;
  std::ostringstream n;
  n << "vendor=" << m.vendor << "; sockets=" << m.sockets << "; cores=" << m.cores
    << "; threads=" << m.pus << "; numa_nodes=" << m.numa_nodes
    << "; memory_bytes=" << m.memory_bytes << "; l1d_bytes=" << m.l1d_bytes
    << "; l2_bytes=" << m.l2_bytes << "; llc_bytes=" << m.llc_bytes
    << "; virtualized=" << (m.virtualized ? "yes" : "no") << "; core_clock_hz=" << m.core_clock_hz
    << "; fma_flops_per_s=" << m.fma_flops_per_s << " (" << m.fma_bits << "-bit, one thread)"
    << "; f16_fma_flops_per_s=" << m.f16_fma_flops_per_s << "; flags=" << m.flags;
  p.notes = n.str();
  return p;
}

}  // namespace infercap::calibration
