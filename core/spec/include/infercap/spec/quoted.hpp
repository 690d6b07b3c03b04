#pragma once
// One string literal for every hand-written YAML or JSON file: a JSON string (", \ and control
// characters escaped, \n for a line break, \u00XX for the others), which YAML reads back as the
// same double-quoted scalar. A line break written raw would fold to a space on reading.
#include <string>
#include <string_view>

namespace infercap::spec {

std::string quoted_scalar(std::string_view text);

}  // namespace infercap::spec
