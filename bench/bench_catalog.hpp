#pragma once
// The project's data/ catalog for the benches, loaded once; a broken catalog stops the bench.
#include <stdexcept>

#include "infercap/spec/catalog.hpp"

namespace infercap::bench {

inline const spec::Catalog& project_catalog() {
  static const spec::Catalog c = [] {
    spec::Diagnostics d;
    auto cat = spec::Catalog::load(INFERCAP_SOURCE_DIR "/data", d);
    if (d.has_errors()) throw std::runtime_error(d.format());
    return cat;
  }();
  return c;
}

}  // namespace infercap::bench
