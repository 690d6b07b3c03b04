#pragma once
// What the GUI tests of the Plan tab share: the project's data folder and catalog, and one small,
// quick question to edit in the what-if desk: data/examples/chat-service.yaml narrowed to three
// devices (h100-sxm, l40s, a100-sxm-80gb), bf16 and fp8, TP 1 and 2, and a short simulator
// check of the top candidate, so each re-solve takes well under a second.
#include <catch2/catch.hpp>

#include <string>

#include "catalog_fixture.hpp"
#include "infercap_gui/whatif.hpp"

namespace infercap::test {

inline const std::string kDataDir = INFERCAP_SOURCE_DIR "/data";

inline const spec::Catalog& catalog() {
  return project_catalog().catalog;
}

/// chat-service.yaml opened in a desk, with one edit ("trim") that narrows its candidates.
inline gui::WhatIf small_chat_desk() {
  gui::WhatIf w;
  REQUIRE(w.open(kDataDir + "/examples/chat-service.yaml", kDataDir));
  w.edit("trim", [&](gui::WhatIfInputs& in) {
    in.sc.candidates.all_hardware = false;
    in.sc.candidates.hardware = {"h100-sxm", "l40s", "a100-sxm-80gb"};
    in.sc.candidates.precisions = {"bf16", "fp8"};
    in.sc.candidates.tp = {1, 2};
    in.sc.verify_top = 1;
    in.sc.verify_requests = 400;
  });
  return w;
}

}  // namespace infercap::test
