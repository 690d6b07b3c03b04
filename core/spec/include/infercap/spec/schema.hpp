#pragma once
// JSON Schema (draft 2020-12) for every spec kind, generated from the loaders themselves so that
// it cannot drift from what they read: each loader runs once over a Reader in *describe mode*
// (Reader::describer), where every accessor it calls (required / optional / value_or, choice,
// child, list, quantity) records the key's name, type, unit, range, default and allowed values
// instead of reading a value. A few keys a loader reads through raw() or keys() (a token count
// or a distribution, SLA keys by pattern) are described by that loader with Reader::describe
// right beside the code that reads them. docs/schema/*.schema.json are this module's output
// (`infercap schema -o docs/schema`); a test regenerates them and compares byte for byte, another
// validates every file in data/ against them, and a third checks that every key path the
// loaders asked for while loading data/ is in the schema.
//
// A schema accepts what the loader accepts with two kinds of exception, both looser: checks that
// need two keys (a cpu block exactly for class cpu, a tier's unit price in USD or CNY but not
// both, a class's fractions unless `supported: false`) are stated in the key's description, not
// enforced; and values are checked by their YAML type (a quoted "8" is a string to an editor,
// where the loader reads the integer 8).
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "infercap/spec/reader.hpp"
#include "infercap/units.hpp"

namespace infercap::spec {

enum class SchemaType {
  any,          ///< read raw by the loader; no constraint stated
  boolean,      ///< true / false
  integer,      ///< a whole number (in range)
  number,       ///< a plain number (SI) or, when `dim` has a unit, a string such as "3.35 TB/s"
  string,       ///< any scalar (the loader takes the text)
  string_list,  ///< a list of scalars
  number_list,  ///< a list of numbers (quantities of `dim`), each in range
  choice,       ///< one of `values`
  choice_list,  ///< a list, each one of `values`
  object,       ///< a mapping, its keys in `object`
  object_list,  ///< a list of mappings, each with the keys in `object`
};

struct SchemaObject;

/// One form a key's value may take.
struct SchemaShape {
  SchemaType type = SchemaType::any;
  Dim dim = Dim::dimensionless;
  std::optional<Range> range;
  bool whole = false;                    ///< number_list: whole numbers only
  std::vector<std::string> values;       ///< choice, choice_list
  std::shared_ptr<SchemaObject> object;  ///< object, object_list
};

/// A key as the loader asks for it. Several shapes: the value may take any of them (a token
/// count or a distribution mapping).
struct SchemaKey {
  std::string name;
  bool required = false;  ///< required by every ask of the loader
  std::vector<SchemaShape> shapes;
  std::optional<std::string> default_json;  ///< value_or's fallback, as JSON text
  std::string note;                         ///< what the loader checks beyond the type
};

/// A mapping's keys, in the order the loader asks for them.
struct SchemaObject {
  std::vector<SchemaKey> keys;
  /// Keys the loader matches by pattern (ECMAScript regex), each with the shape of its value.
  std::vector<std::pair<std::string, SchemaShape>> patterns;
  /// Sets of keys of which at least one must be present ({rate, batch}).
  std::vector<std::vector<std::string>> any_of_required;
  /// A key whose presence lifts every requirement but schema_version and kind (`preset`).
  std::string required_unless;
  /// Keys beyond these are allowed: a format another tool writes, whose other keys infercap's
  /// reader ignores (llama-bench, vLLM results). Every loader of a spec kind refuses them.
  bool open = false;

  SchemaKey* find(std::string_view name);
  const SchemaKey* find(std::string_view name) const;
};

/// One spec kind the loaders accept.
struct SpecKind {
  std::string kind;         ///< the `kind:` value, e.g. "hardware"
  std::string title;        ///< one line for the schema's title
  std::string description;  ///< what a file of this kind holds
  void (*describe)(SchemaObject&);
  /// The file is a JSON array of such objects (llama-bench -o json), not one object.
  bool list = false;
};

/// Every kind the YAML loaders accept, in a fixed order. (Files read by readers of their own, such
/// as calibrate's imports, are described beside those readers: cli/import_schemas.hpp.)
const std::vector<SpecKind>& spec_kinds();
/// The kind named `kind`; nullptr if no loader reads it.
const SpecKind* find_spec_kind(std::string_view kind);

/// The keys of `kind` as its loader asks for them (empty object for an unknown kind).
SchemaObject describe_kind(const SpecKind& kind);

/// The JSON Schema (draft 2020-12) of `kind`: deterministic text ending in a newline, the same
/// bytes on every run (docs/schema/<kind>.schema.json).
std::string json_schema(const SpecKind& kind);
/// The file name json_schema() is committed under: "<kind>.schema.json".
std::string schema_file_name(const SpecKind& kind);

// The loaders' describe entry points (each in the loader's own file).
void describe_model(SchemaObject& root);
void describe_hardware(SchemaObject& root);
void describe_stack(SchemaObject& root);
void describe_prices(SchemaObject& root);
void describe_scenario(SchemaObject& root);
void describe_profile(SchemaObject& root);

}  // namespace infercap::spec
