#pragma once
// Writes a whole file or nothing: the text goes to a temporary name beside `path` and is renamed
// over it, so an interrupted or failed write never leaves half a profile, stack or report.
// Every command that writes a file (-o, --rows, --hardware-out, --write, --residuals-out) goes
// through check_output_path before its work and through write_file_atomically (or the report
// renderer, which uses the same check) for the write itself.
#include <string>
#include <string_view>

#include "infercap/result.hpp"

namespace infercap::spec {

/// Whether `path` may be written. Refused, with a message that names `path` (and a link's
/// target) and the reason: a directory; a folder that does not exist; without `force`, an
/// existing symbolic link (a rename would silently swap the link for a file) or a file whose
/// write bits are cleared or that this user may not write (the owner meant it to stay). With
/// `force` those two are replaced. Returns `path` when it may be written.
Result<std::string> check_output_path(const std::string& path, bool force);

/// Returns `path` on success. Applies check_output_path first. On failure the message names
/// `path` itself (never the temporary file) and the operating system's reason, and nothing is
/// left behind.
Result<std::string> write_file_atomically(const std::string& path, std::string_view text,
                                          bool force = false);

}  // namespace infercap::spec
