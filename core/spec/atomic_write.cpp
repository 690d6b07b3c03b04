#include "infercap/spec/atomic_write.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>

namespace infercap::spec {

Result<std::string> write_file_atomically(const std::string& path, std::string_view text) {
  // The pid keeps two concurrent writers of the same path off each other's temporary file.
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Error{"cannot write " + tmp};
    out << text;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      return Error{"cannot write " + tmp};
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Error{"cannot rename " + tmp + " to " + path};
  }
  return path;
}

}  // namespace infercap::spec
