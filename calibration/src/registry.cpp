#include "infercap/calibration/registry.hpp"

#include <string_view>
#include <utility>

// Set by calibration/CMakeLists.txt: the module backends this build configured, separated by
// ',' (e.g. "opencl,cuda"), empty when none.
#ifndef INFERCAP_BACKEND_MODULES_BUILT
#define INFERCAP_BACKEND_MODULES_BUILT ""
#endif

namespace infercap::calibration {

void Registry::add(Backend b) {
  for (auto& existing : backends_) {
    if (existing.name == b.name) {
      existing = std::move(b);
      return;
    }
  }
  backends_.push_back(std::move(b));
}

const Backend* Registry::find(const std::string& name) const {
  for (const auto& b : backends_)
    if (b.name == name) return &b;
  return nullptr;
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> out;
  for (const auto& b : backends_) out.push_back(b.name);
  return out;
}

// Backends compiled into the program: one line each. Accelerators are modules (below).
void register_builtin_backends(Registry& r) {
  r.add(make_cpu_backend());
}

const Registry& builtin_registry() {
  static const Registry reg = [] {
    Registry r;
    register_builtin_backends(r);
    return r;
  }();
  return reg;
}

namespace {

bool built_here(std::string_view name) {
  std::string_view list = INFERCAP_BACKEND_MODULES_BUILT;
  while (!list.empty()) {
    const auto semi = list.find(',');
    if (list.substr(0, semi) == name) return true;
    if (semi == std::string_view::npos) break;
    list.remove_prefix(semi + 1);
  }
  return false;
}

ModuleBackend module_entry(std::string name, std::string title, std::string libraries,
                           std::string option) {
  ModuleBackend m;
  m.file = "libinfercap-backend-" + name + ".so";
  m.built = built_here(name);
  m.name = std::move(name);
  m.title = std::move(title);
  m.libraries = std::move(libraries);
  m.option = std::move(option);
  return m;
}

}  // namespace

// Module backends: one line each (the folder's CMake builds libinfercap-backend-NAME.so).
const std::vector<ModuleBackend>& module_backends() {
  static const std::vector<ModuleBackend> all = {
      module_entry(
          "cuda", "CUDA",
          "libcudart, libcublas and libcublasLt of CUDA 13, and an NVIDIA driver of the 580 "
          "series or newer",
          "INFERCAP_WITH_CUDA"),
      module_entry("opencl", "OpenCL", "libOpenCL (an ICD loader) and an OpenCL driver",
                   "INFERCAP_WITH_OPENCL"),
  };
  return all;
}

std::vector<std::string> backend_names() {
  std::vector<std::string> out = builtin_registry().names();
  for (const auto& m : module_backends()) out.push_back(m.name);
  return out;
}

}  // namespace infercap::calibration
