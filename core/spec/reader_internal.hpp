#pragma once
// The Reader's private state, shared by the three files that implement reader.hpp, each of
// which answers one question:
//   reader.cpp           how a YAML tree is walked: documents, mappings, lists, key lookup,
//                        positions, located errors and the unknown-key check of finish();
//   reader_values.cpp    how one scalar becomes a typed value: integers, quantities with units,
//                        booleans, strings, choices, and the "expected X, found Y" messages;
//   reader_describe.cpp  what describe mode records instead (schema.hpp): each ask as a key of
//                        a SchemaObject, with its shape, requirement and default.
// Not installed: only core/spec/*.cpp include it. Nothing here reports to the user by itself
// except lookup_or_report (a missing required key) and make_state (duplicate or non-scalar keys).
#include <yaml-cpp/yaml.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "infercap/spec/reader.hpp"
#include "infercap/spec/schema.hpp"

namespace infercap::spec::detail {

/// One key of a mapping as the file gives it; `used` once a loader asked for it.
struct Entry {
  std::string key;
  Position key_pos;
  YAML::Node value;
  bool used = false;
};

/// What every reader of one document shares: where diagnostics go, and what was read.
struct Shared {
  std::string file;
  Diagnostics* diags = nullptr;
  std::vector<NumericField> numeric;
  std::map<std::string, Position, std::less<>> positions;
  std::vector<std::string> asked;
};

/// One mapping being read (or, in describe mode, described).
struct State {
  bool valid = false;
  std::string path;
  Position pos;
  std::vector<Entry> entries;
  // key -> index into entries: duplicate checks and lookups stay O(log n) per key, so a mapping
  // of 100k keys is read in well under a second.
  std::map<std::string, std::size_t, std::less<>> index;
  std::vector<std::string> asked;  // keys asked of this mapping, in order
  std::vector<std::shared_ptr<State>> children;
  bool finished = false;
  // Describe mode (schema.hpp): where this mapping's keys are recorded; nullptr when reading.
  SchemaObject* schema = nullptr;
  bool forms = false;  // describe_forms(): asks record optional keys
};

// --- the node tree (reader.cpp) -------------------------------------------------------------

/// A yaml-cpp mark as a 1-based position ({} when the mark is unknown).
Position to_pos(const YAML::Mark& m);
/// Where a node starts ({} for an undefined node).
Position node_pos(const YAML::Node& n);
/// "parent.key", or "key" under the root.
std::string join_path(std::string_view parent, std::string_view key);
/// A value as the "found ..." part of a message: "an empty value", "a mapping", "a list", 'x'.
std::string found_text(const YAML::Node& n);
/// Where an entry's value is (its key's position if the value has none).
Position value_pos(const Entry& e);
/// Looks `key` up, recording that it was asked for (and read, with its position, if present).
Entry* lookup(Shared& sh, State& st, std::string_view key);
/// lookup(), and a "missing required key" diagnostic at the mapping when `required` and absent.
Entry* lookup_or_report(Shared& sh, State& st, std::string_view key, bool required);

// --- describe mode (reader_describe.cpp) ----------------------------------------------------

/// Records an ask of `key` in a describing state; nullptr when reading. A key is required only
/// if every ask of it is; `required` nullopt leaves that as it is (a new key: not required).
/// `replace`: the shape replaces one of the same type instead of merging with it.
SchemaShape* record(State& st, std::string_view key, SchemaShape shape,
                    std::optional<bool> required, bool replace = false);
/// A shape of type object or object_list with an empty object to describe its keys into.
SchemaShape object_shape(SchemaType t);

}  // namespace infercap::spec::detail
