#pragma once
// The catalog: every model, hardware and stack spec under a data folder (data/models,
// data/hardware, data/stacks), looked up by name or alias, plus the built-in `ideal` stack.
//
// Lookup: an exact name first, then names and aliases compared after normalisation (lowercase,
// spaces, '-', '_' and '.' removed), so "Meta-Llama-3.1-8B" and "llama 3.1 8b" find llama-3.1-8b.
// resolve_* also accept a YAML file path: a full spec, or `preset: NAME` plus overriding keys:
//   {schema_version: 1, kind: hardware, preset: h100-sxm, memory_bytes: "94 GB"}
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "infercap/hardware.hpp"
#include "infercap/model.hpp"
#include "infercap/spec/diagnostics.hpp"
#include "infercap/stack.hpp"

namespace infercap::spec {

/// The form names and aliases are compared in: lowercase without spaces, '-', '_' and '.'.
std::string normalize_name(std::string_view s);

class Catalog {
 public:
  /// Loads every *.yaml / *.yml of data_dir/{models,hardware,stacks}, in file-name order. Errors
  /// in a file (including duplicate names and aliases that collide with another entry's name or
  /// alias) are diagnostics; the entries that loaded cleanly are kept. A missing data_dir is an
  /// error; a missing sub-folder is an empty one.
  static Catalog load(const std::string& data_dir, Diagnostics& diags);
  /// $INFERCAP_DATA_DIR if set and non-empty, else the build's INFERCAP_DEFAULT_DATA_DIR.
  static std::string default_data_dir();

  /// An empty catalog that holds only the built-in `ideal` stack.
  Catalog();

  const ModelSpec* find_model(std::string_view name_or_alias) const;
  const HardwareSpec* find_hardware(std::string_view name_or_alias) const;
  const StackSpec* find_stack(std::string_view name_or_alias) const;

  /// Up to `max` entry names close to `name` (edit distance over normalised names and aliases).
  std::vector<std::string> near_models(std::string_view name, std::size_t max = 3) const;
  std::vector<std::string> near_hardware(std::string_view name, std::size_t max = 3) const;
  std::vector<std::string> near_stacks(std::string_view name, std::size_t max = 3) const;

  /// A catalog name/alias, or a path to a YAML file (full spec or preset + overrides). An unknown
  /// name is the diagnostic "unknown hardware 'h300'; did you mean 'h200', 'h100-sxm'?".
  std::optional<ModelSpec> resolve_model(std::string_view name_or_path, Diagnostics& diags) const;
  std::optional<HardwareSpec> resolve_hardware(std::string_view name_or_path,
                                               Diagnostics& diags) const;
  std::optional<StackSpec> resolve_stack(std::string_view name_or_path, Diagnostics& diags) const;

  const std::vector<ModelSpec>& models() const { return models_; }
  const std::vector<HardwareSpec>& hardware() const { return hardware_; }
  const std::vector<StackSpec>& stacks() const { return stacks_; }  ///< `ideal` first
  /// The file each entry came from ("<built-in>" for ideal), parallel to the vectors above.
  const std::vector<std::string>& model_files() const { return model_files_; }
  const std::vector<std::string>& hardware_files() const { return hardware_files_; }
  const std::vector<std::string>& stack_files() const { return stack_files_; }
  const std::string& data_dir() const { return data_dir_; }

 private:
  std::string data_dir_;
  std::vector<ModelSpec> models_;
  std::vector<HardwareSpec> hardware_;
  std::vector<StackSpec> stacks_;
  std::vector<std::string> model_files_, hardware_files_, stack_files_;
};

}  // namespace infercap::spec
