#pragma once
// Where a catalog value came from. Every number in data/ carries one, so a report can cite it.
#include <string>
#include <vector>

namespace infercap {

struct SourceRef {
  std::vector<std::string> fields;  ///< key paths this source covers; "*" or "a.*" globs allowed
  std::string ref;                  ///< URL, paper, or measurement provenance
  std::string date;                 ///< ISO date the value was read or measured
  std::string note;                 ///< e.g. "estimate", "datasheet silent on idle power"
};

}  // namespace infercap
