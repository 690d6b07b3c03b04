// Finding and opening backend modules (registry.hpp): dlopen() on first use, never at start-up.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <system_error>

#include "infercap/calibration/backend_module.hpp"
#include "infercap/calibration/registry.hpp"

// Set by calibration/CMakeLists.txt.
#ifndef INFERCAP_INSTALL_MODULE_DIR
#define INFERCAP_INSTALL_MODULE_DIR ""
#endif
#ifndef INFERCAP_BUILD_MODULE_DIR
#define INFERCAP_BUILD_MODULE_DIR ""
#endif

namespace infercap::calibration {

namespace {

std::string executable_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

void add_unique(std::vector<std::string>& dirs, std::string d) {
  if (d.empty()) return;
  for (const auto& x : dirs)
    if (x == d) return;
  dirs.push_back(std::move(d));
}

std::string join(const std::vector<std::string>& xs, const char* sep) {
  std::string out;
  for (const auto& x : xs) out += (out.empty() ? "" : sep) + x;
  return out;
}

}  // namespace

std::vector<std::string> module_search_dirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("INFERCAP_BACKEND_DIR"); env != nullptr) add_unique(dirs, env);
  const std::string exe = executable_dir();
  if (!exe.empty()) {
    add_unique(dirs, exe);
    add_unique(
        dirs, (std::filesystem::path(exe) / ".." / "lib" / "infercap").lexically_normal().string());
  }
  add_unique(dirs, INFERCAP_INSTALL_MODULE_DIR);
  add_unique(dirs, INFERCAP_BUILD_MODULE_DIR);
  return dirs;
}

Result<std::string> find_backend_module(const ModuleBackend& m,
                                        const std::vector<std::string>& dirs) {
  for (const auto& d : dirs) {
    std::error_code ec;
    const auto p = std::filesystem::path(d) / m.file;
    if (std::filesystem::is_regular_file(p, ec)) return p.string();
  }
  return Error{"the " + m.title + " backend module could not be loaded: " + m.file +
               " was not found in " +
               (dirs.empty() ? std::string("(no directory)") : join(dirs, ", ")) +
               (m.built ? " (set INFERCAP_BACKEND_DIR to its directory)"
                        : " (this build did not make it: configure with -D" + m.option + "=ON)")};
}

Result<const Backend*> load_backend_module(const std::string& path, const std::string& title) {
  const std::string what = "the " + title + " backend module could not be loaded: ";
  // RTLD_LOCAL: the module's symbols (and its CUDA/OpenCL libraries') stay out of the global
  // scope. The handle is never closed: the returned Backend's functions live in the module.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return Error{what + (why != nullptr ? why : path)};
  }
  dlerror();
  void* sym = dlsym(handle, INFERCAP_BACKEND_ENTRY_SYMBOL);
  if (sym == nullptr) {
    // Copied before dlclose, which frees the string dlerror() returned (ASan saw the read).
    const char* err = dlerror();
    const std::string why = err != nullptr ? err : "not a backend module";
    dlclose(handle);  // nothing of it is in use yet
    return Error{what + path + " has no " + INFERCAP_BACKEND_ENTRY_SYMBOL + " (" + why + ")"};
  }
  BackendModuleEntry entry = nullptr;
  static_assert(sizeof(entry) == sizeof(sym));
  std::memcpy(&entry, &sym, sizeof(entry));  // object pointer to function pointer, as POSIX allows
  const std::string host = backend_abi_tag();
  const char* module_abi = nullptr;
  const Backend* b = entry(host.c_str(), &module_abi);
  if (b == nullptr) {
    return Error{what + path + " was built by another compiler or infercap version (module: '" +
                 (module_abi != nullptr ? module_abi : "?") + "', this program: '" + host +
                 "'); rebuild the module with this infercap"};
  }
  return b;
}

Result<const Backend*> load_backend(const std::string& name) {
  if (const Backend* b = builtin_registry().find(name); b != nullptr) return b;
  const ModuleBackend* mod = nullptr;
  for (const auto& m : module_backends())
    if (m.name == name) mod = &m;
  if (mod == nullptr)
    return Error{"unknown backend '" + name + "' (known: " + join(backend_names(), ", ") + ")"};

  // One attempt per process and name: the outcome (a Backend or the message) is kept.
  static std::mutex mu;
  static std::map<std::string, Result<const Backend*>> loaded;
  const std::lock_guard<std::mutex> lock(mu);
  if (auto it = loaded.find(name); it != loaded.end()) return it->second;

  const auto path = find_backend_module(*mod, module_search_dirs());
  Result<const Backend*> r = Error{path ? "" : path.error().message};
  if (path) {
    r = load_backend_module(*path, mod->title);
    if (!r && r.error().message.find("cannot open shared object") != std::string::npos)
      r = Error{r.error().message + " (it needs " + mod->libraries + ")"};
  }
  loaded.emplace(name, r);
  return r;
}

}  // namespace infercap::calibration
