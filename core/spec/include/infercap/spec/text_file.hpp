#pragma once
// Reading a whole input file (a spec, a profile, an imported benchmark result) with the limits
// every reader of the project shares: a directory is refused, and anything that is not a plain
// file (a FIFO, /dev/zero, a socket) is read only up to the size limit, so no input makes
// infercap read forever or exhaust memory.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "infercap/result.hpp"

namespace infercap::spec {

/// The largest spec or import file read whole: far above any real one (the whole catalog is a
/// few hundred KiB), low enough that a mistaken input fails fast.
inline constexpr std::size_t kMaxInputFileBytes = std::size_t{64} << 20;

/// The file's bytes. Errors name the path and the reason: "cannot read the file (No such file or
/// directory)", "expected a file, found a directory", "is larger than the 64 MiB limit ...".
Result<std::string> read_text_file(const std::string& path,
                                   std::size_t max_bytes = kMaxInputFileBytes);

/// The offset of the first byte that is not part of well-formed UTF-8 (overlong forms,
/// surrogates and code points above U+10FFFF included), or npos. Specs and measurement files
/// are UTF-8: a stray Latin-1 byte would otherwise reach the JSON printer, which cannot write it.
std::size_t invalid_utf8_at(std::string_view text);

/// Where a second YAML document starts (its first content line, 1-based line and column) and how
/// many documents with content the text holds, or nullopt for one. Read from the text's document
/// markers: a line beginning `---` or `...` is a document boundary wherever it stands (YAML 1.2
/// forbids both at the start of a line inside a scalar), so no parse is needed. yaml-cpp 0.7's
/// LoadAll, which would count them, can loop forever on a few hundred malformed bytes after the
/// first document (fuzz/findings/), so the readers parse one document with Load and ask this.
struct SecondDocument {
  int line = 0;
  int col = 0;
  int documents = 0;
};
std::optional<SecondDocument> second_yaml_document(std::string_view text);

}  // namespace infercap::spec
