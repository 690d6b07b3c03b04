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

std::optional<SecondDocument> second_yaml_document(std::string_view text) {
  SecondDocument found;
  int documents = 0;        // documents begun so far
  bool content = false;     // the current document has content
  bool ended = false;       // a `...` closed the current document
  bool place_next = false;  // document 2 began at a `---`: place it at its first content
  int line = 0;
  auto begin_document = [&](int at_line, int at_col) {
    ++documents;
    if (documents == 2) {
      found.line = at_line;
      found.col = at_col;
    }
    content = false;
    ended = false;
  };
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(pos, end - pos);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    ++line;
    pos = end + 1;
    auto marker = [&](std::string_view m) {
      return l.substr(0, 3) == m && (l.size() == 3 || l[3] == ' ' || l[3] == '\t');
    };
    std::size_t first = 0;  // where this line's content starts, if it has any
    if (marker("---")) {
      // A start marker begins a document (the first one's explicit start, or the next, even if
      // nothing follows it: YAML reads "a: 1\n---\n" as two documents, the second empty).
      begin_document(line + 1, 1);
      place_next = documents == 2;
      first = l.find_first_not_of(" \t", 3);  // `--- value` starts the document on its line
    } else if (marker("...")) {
      ended = documents > 0;
      continue;
    } else if (!l.empty() && l[0] == '%') {
      continue;  // a directive (%YAML, %TAG) belongs to the document that follows
    } else {
      first = l.find_first_not_of(" \t");
    }
    if (first == std::string_view::npos || l[first] == '#') continue;
    const int col = static_cast<int>(first) + 1;
    if (documents == 0 || ended) {
      begin_document(line, col);
    } else if (place_next && !content) {
      found.line = line;
      found.col = col;
    }
    if (documents > 2 || content) place_next = false;
    content = true;
  }
  if (documents < 2) return std::nullopt;
  found.documents = documents;
  return found;
}

}  // namespace infercap::spec
