#pragma once
// What the tests that drive the built programs share: running a command line and capturing its
// standard output with its exit code, and reading a file whole (byte for byte comparisons).
#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace infercap::test {

/// Runs `cmd` through the shell and returns what it printed on stdout. `rc`, when given, gets
/// the exit code, or -1 when the command was killed by a signal.
inline std::string run_command(const std::string& cmd, int* rc = nullptr) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int st = pclose(p);
  // pclose returns a wait status: the exit code is its second byte (POSIX WEXITSTATUS), written
  // out here because <sys/wait.h>'s macros clash with names in the project's headers.
  if (rc != nullptr) *rc = (st & 0x7f) == 0 ? (st >> 8) & 0xff : -1;
  return out;
}

/// The bytes of a file ("" if it cannot be read).
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace infercap::test
