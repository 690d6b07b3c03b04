#pragma once
// Writes a whole file or nothing: the text goes to a temporary name beside `path` and is renamed
// over it, so an interrupted or failed write never leaves half a profile, stack or report.
#include <string>
#include <string_view>

#include "infercap/result.hpp"

namespace infercap::spec {

/// Returns `path` on success. On failure the message names `path` itself (never the temporary
/// file) and the operating system's reason, and nothing is left behind. Without `force`, an
/// existing symbolic link or a file the user may not write is refused rather than replaced (a
/// rename would silently swap the link for a file, or replace a file the user made read-only);
/// with `force` it is replaced. A directory is always refused.
Result<std::string> write_file_atomically(const std::string& path, std::string_view text,
                                          bool force = false);

}  // namespace infercap::spec
