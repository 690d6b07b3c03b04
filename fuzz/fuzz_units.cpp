// libFuzzer target: the unit parser. The first byte picks the dimension the key would imply; the
// rest is the value's text. A parsed quantity is finite, and formatting it never throws.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "infercap/units.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto dim = static_cast<infercap::Dim>(data[0] % 13);
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  auto r = infercap::parse_quantity(text, dim);
  if (r) {
    if (!std::isfinite(*r)) std::abort();  // the contract: SI values are finite
    (void)infercap::format_quantity(*r, dim);
  } else if (r.error().message.size() > 1000) {
    std::abort();  // echoed text is cut at 80 bytes
  }
  return 0;
}
