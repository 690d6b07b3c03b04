// libFuzzer target: the YAML reader and every spec loader (model, hardware, stack, scenario with
// its price book, calibration profile). The first byte picks the loader. None may crash, hang
// or throw; every problem must be a diagnostic.
#include <cstdint>
#include <string>
#include <string_view>

#include "infercap/spec/loaders.hpp"
#include "infercap/spec/profile_io.hpp"
#include "infercap/spec/reader.hpp"
#include "infercap/spec/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  infercap::spec::Diagnostics d;
  const int which = data[0] % 5;
  if (which == 4) {
    (void)infercap::spec::parse_profile(text, "fuzz.yaml", d);
    return 0;
  }
  infercap::spec::Document doc = infercap::spec::parse_text(text, "fuzz.yaml", d);
  if (!doc.ok) return 0;
  switch (which) {
    case 0:
      (void)infercap::spec::load_model(doc, d);
      break;
    case 1:
      (void)infercap::spec::load_hardware(doc, d);
      break;
    case 2:
      (void)infercap::spec::load_stack(doc, d);
      break;
    default:
      (void)infercap::spec::parse_scenario(doc, INFERCAP_SOURCE_DIR "/data", d);
      break;
  }
  (void)d.format();
  return 0;
}
