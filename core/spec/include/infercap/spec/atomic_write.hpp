#pragma once
// Writes a whole file or nothing: the text goes to a temporary name beside `path` and is renamed
// over it, so an interrupted or failed write never leaves half a profile, stack or report.
#include <string>
#include <string_view>

#include "infercap/result.hpp"

namespace infercap::spec {

/// Returns `path` on success; on failure the message names the file and nothing is left behind.
Result<std::string> write_file_atomically(const std::string& path, std::string_view text);

}  // namespace infercap::spec
