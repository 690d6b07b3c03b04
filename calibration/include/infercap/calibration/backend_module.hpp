#pragma once
// The one C entry point of a backend module (libinfercap-backend-NAME.so, see registry.hpp).
//
//   extern "C" const Backend* infercap_calibration_backend_v1(const char* host_abi,
//                                                             const char** module_abi);
//
// The host passes its ABI tag; the module stores its own in *module_abi and returns its Backend
// (a static that lives as long as the module stays mapped, which is the life of the process), or
// nullptr when the tags differ. Backend holds std::string and std::function, so host and module
// must agree on the C++ ABI: the tag names the compiler and the sizes of the structs that cross
// the boundary, and a module from another build is refused with both tags in the message rather
// than crashing. A module is compiled with hidden visibility; only this symbol is exported.
#include <string>

#include "infercap/calibration/registry.hpp"

#define INFERCAP_BACKEND_ENTRY_SYMBOL "infercap_calibration_backend_v1"

namespace infercap::calibration {

using BackendModuleEntry = const Backend* (*)(const char* host_abi, const char** module_abi);

/// The tag both sides compute from the same header; equal tags mean the same compiler and the
/// same layouts of Backend, KernelSpec, Measurement and HarnessOptions.
inline std::string backend_abi_tag() {
  return std::string("infercap-backend-1 ") + __VERSION__ + " " + std::to_string(sizeof(Backend)) +
         "/" + std::to_string(sizeof(KernelSpec)) + "/" + std::to_string(sizeof(Measurement)) +
         "/" + std::to_string(sizeof(HarnessOptions)) + "/" + std::to_string(sizeof(std::string));
}

}  // namespace infercap::calibration

/// Defines the module's entry point from a function returning its Backend. One use per module.
#define INFERCAP_DEFINE_BACKEND_MODULE(make_backend)                                        \
  extern "C" __attribute__((visibility("default"))) const ::infercap::calibration::Backend* \
  infercap_calibration_backend_v1(const char* host_abi, const char** module_abi) {          \
    static const std::string tag = ::infercap::calibration::backend_abi_tag();              \
    if (module_abi != nullptr) *module_abi = tag.c_str();                                   \
    if (host_abi == nullptr || tag != host_abi) return nullptr;                             \
    static const ::infercap::calibration::Backend backend = make_backend();                 \
    return &backend;                                                                        \
  }
