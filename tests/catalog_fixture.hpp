#pragma once
// The project's own data/ catalog, loaded once per test binary (it is read-only), with the
// diagnostics of the load kept for the tests that assert there are none.
#include "infercap/spec/catalog.hpp"

namespace infercap::test {

struct LoadedCatalog {
  spec::Diagnostics diags;
  spec::Catalog catalog;
};

inline const LoadedCatalog& project_catalog() {
  static const LoadedCatalog l = [] {
    LoadedCatalog x;
    x.catalog = spec::Catalog::load(INFERCAP_SOURCE_DIR "/data", x.diags);
    return x;
  }();
  return l;
}

}  // namespace infercap::test
