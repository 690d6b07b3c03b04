#include "infercap/spec/text_file.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace infercap::spec {

Result<std::string> read_text_file(const std::string& path, std::size_t max_bytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    return Error{fmt::format("cannot read the file ({})", std::strerror(err))};
  }
  if (S_ISDIR(st.st_mode)) return Error{"expected a file, found a directory"};
  // Checked up front for a plain file; a FIFO or device reports no size, so the read below
  // stops at the limit instead.
  if (S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) > max_bytes) {
    return Error{fmt::format("expected a file of at most {} MiB, found {} bytes", max_bytes >> 20,
                             static_cast<long long>(st.st_size))};
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    const int err = errno;
    return Error{fmt::format("cannot read the file ({})", std::strerror(err))};
  }
  std::string text;
  char buf[65536];
  std::size_t n = 0;
  bool too_big = false;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    if (text.size() + n > max_bytes) {
      too_big = true;
      break;
    }
    text.append(buf, n);
  }
  const bool failed = !too_big && std::ferror(f) != 0;
  std::fclose(f);
  if (too_big) {
    return Error{
        fmt::format("expected at most {} MiB, found more (not a regular file, or still "
                    "growing); stopped reading at the limit",
                    max_bytes >> 20)};
  }
  if (failed) return Error{"cannot read the file (read error)"};
  return text;
}

std::size_t invalid_utf8_at(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    unsigned lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;  // no overlong forms
      if (c == 0xED) hi = 0x9F;  // no surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
    } else {
      return i;
    }
    if (i + len > n) return i;
    if (p[i + 1] < lo || p[i + 1] > hi) return i;
    for (std::size_t k = 2; k < len; ++k)
      if (p[i + k] < 0x80 || p[i + k] > 0xBF) return i;
    i += len;
  }
  return std::string_view::npos;
}

}  // namespace infercap::spec
