#include "infercap/calibration/registry.hpp"

#include <utility>

namespace infercap::calibration {

#ifdef INFERCAP_HAVE_CUDA
Backend make_cuda_backend();  // calibration/cuda/
#endif
#ifdef INFERCAP_HAVE_OPENCL
Backend make_opencl_backend();  // calibration/opencl/
#endif

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

// One line per backend. CUDA / OpenCL / importers add theirs here, behind their build options.
void register_builtin_backends(Registry& r) {
  r.add(make_cpu_backend());
#ifdef INFERCAP_HAVE_CUDA
  r.add(make_cuda_backend());
#endif
#ifdef INFERCAP_HAVE_OPENCL
  r.add(make_opencl_backend());
#endif
}

const Registry& builtin_registry() {
  static const Registry reg = [] {
    Registry r;
    register_builtin_backends(r);
    return r;
  }();
  return reg;
}

}  // namespace infercap::calibration
