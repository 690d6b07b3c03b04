#pragma once
// YAML specs of kind model, hardware and stack (docs/spec-reference.md) into core structs.
// A loader reports every problem of a file (see diagnostics.hpp) and returns nullopt if there
// was any error. The checks, in order: schema_version and kind; each key's type, unit and range;
// structure that needs two keys (heads divide hidden when head_dim is absent, dense peaks below
// sparse ones, a cpu block exactly for class cpu); `sources:` and that they cover every numeric
// value; unknown keys; finally core's `validate(...)`, whose messages ("key.path: ...") are placed
// at that key's line:col. Core's checks run only when everything before passed, so one mistake is
// reported once.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "infercap/hardware.hpp"
#include "infercap/model.hpp"
#include "infercap/spec/diagnostics.hpp"
#include "infercap/spec/reader.hpp"
#include "infercap/stack.hpp"

namespace infercap::spec {

struct LoadOptions {
  /// Every numeric value must be covered by a `sources:` entry (catalog files; full specs).
  bool require_sources = true;
};

/// How a file with `preset: NAME` finds its base spec. Without presets, `preset:` is an error.
template <class Spec>
struct Presets {
  std::string kind;                                                ///< "hardware", for messages
  std::function<const Spec*(std::string_view)> find;               ///< nullptr if unknown
  std::function<std::vector<std::string>(std::string_view)> near;  ///< suggestions
};

/// Loads a full spec, or, when `presets` is given and the file has `preset:`, the preset with the
/// file's keys overriding it. Overrides follow the same key rules (types, units, ranges, unknown
/// keys); a name defaults to the file's stem; `sources:` is optional and, when absent, a source
/// "override in FILE" is recorded for the overridden values.
std::optional<ModelSpec> load_model(const Document& doc, Diagnostics& diags,
                                    const LoadOptions& opts = {},
                                    const Presets<ModelSpec>* presets = nullptr);
std::optional<HardwareSpec> load_hardware(const Document& doc, Diagnostics& diags,
                                          const LoadOptions& opts = {},
                                          const Presets<HardwareSpec>* presets = nullptr);
std::optional<StackSpec> load_stack(const Document& doc, Diagnostics& diags,
                                    const LoadOptions& opts = {},
                                    const Presets<StackSpec>* presets = nullptr);

/// parse_file + load_*.
std::optional<ModelSpec> load_model_file(const std::string& path, Diagnostics& diags,
                                         const LoadOptions& opts = {});
std::optional<HardwareSpec> load_hardware_file(const std::string& path, Diagnostics& diags,
                                               const LoadOptions& opts = {});
std::optional<StackSpec> load_stack_file(const std::string& path, Diagnostics& diags,
                                         const LoadOptions& opts = {});

/// Spellings accepted for enum keys (exact, lowercase).
const std::vector<std::string>& hw_class_spellings();   ///< cpu gpu npu fpga
const std::vector<std::string>& link_kind_spellings();  ///< nvlink pcie hccs upi ...
const std::vector<std::string>& cpu_isa_spellings();    ///< avx2 avx512 ... neon sve

/// True for names of the catalog form: lowercase letters, digits, '-', '.', starting with a
/// letter or digit.
bool is_catalog_name(std::string_view name);

}  // namespace infercap::spec
