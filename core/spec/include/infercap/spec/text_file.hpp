#pragma once
// Reading a whole input file (a spec, a profile, an imported benchmark result) with the limits
// every reader of the project shares: a directory is refused, and anything that is not a plain
// file (a FIFO, /dev/zero, a socket) is read only up to the size limit, so no input makes
// infercap read forever or exhaust memory.
#include <cstddef>
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

}  // namespace infercap::spec
