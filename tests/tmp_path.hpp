#pragma once
// A scratch file name unique to this test process: the system's temporary directory, the given
// name, and the process id, so that two test runs at once (two build folders, CI beside a
// developer) never write or remove each other's files.
#include <filesystem>
#include <string>
#include <string_view>

#include <unistd.h>

namespace infercap::testing {

inline std::string tmp_path(std::string_view name) {
  const std::string n(name);
  const auto dot = n.rfind('.');
  const std::string stem = dot == std::string::npos ? n : n.substr(0, dot);
  const std::string ext = dot == std::string::npos ? "" : n.substr(dot);
  return (std::filesystem::temp_directory_path() / (stem + "-" + std::to_string(::getpid()) + ext))
      .string();
}

}  // namespace infercap::testing
