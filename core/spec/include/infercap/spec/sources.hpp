#pragma once
// `sources:` lists, and the rule that every numeric value of a catalog file names its source.
//
//   sources:
//     - fields: [memory_bytes, "dense_flops_per_s.*"]   # key paths; "*" globs; a parent covers
//       ref: https://...datasheet.pdf                   #   its children ("link" covers link.*)
//       date: 2024-11-18                                # ISO date the value was read
//       note: "optional"
#include <string_view>
#include <vector>

#include "infercap/source.hpp"
#include "infercap/spec/reader.hpp"

namespace infercap::spec {

/// Reads the `sources:` list of `r` (each entry: fields and ref required, date required and
/// YYYY-MM-DD, note optional). `required` makes an absent list an error.
std::vector<SourceRef> read_sources(Reader& r, bool required);

/// True when `pattern` covers the key path `path`: equal, a glob match ('*' matches any run of
/// characters, dots included), or a parent of it ("link" covers "link.kind" and "a[0]" paths).
bool source_covers(std::string_view pattern, std::string_view path);

/// Reports (1) every numeric value read through `r` that no entry of `sources` covers, at the
/// value; (2) every non-glob field name that is no key the loader knows, at the `sources` entry.
/// Call after every field has been read.
void check_source_coverage(Reader& r, const std::vector<SourceRef>& sources);

}  // namespace infercap::spec
