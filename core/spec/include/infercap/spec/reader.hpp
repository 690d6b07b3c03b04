#pragma once
// A typed, two-phase YAML reader that turns every user error into a Diagnostic (file:line:col,
// key path, expected vs found) instead of an exception. Loaders for every kind of spec use it:
// models, hardware, stacks here; scenarios, prices and calibration profiles elsewhere.
//
// Phase 1: `parse_file` / `parse_text` turn text into a YAML tree. A file that cannot be read or
// is not valid YAML becomes one diagnostic with the parser's line:col.
// Phase 2: a `Reader` walks one mapping of that tree. Each accessor names a key, converts and
// checks its value, and remembers that the key was read. `finish()` then reports every key of
// the mapping (and of every child mapping obtained through it) that nobody read, as
// "unknown key" with a did-you-mean among the keys the loader asked for.
//
//   Document doc = parse_file(path, diags);
//   if (!doc.ok) return;
//   Reader r = Reader::root(doc, diags);
//   auto layers = r.required<int>("layers", Range::positive());
//   auto bw = r.required<double>("memory_bandwidth_bytes_per_s");   // "3.35 TB/s" -> 3.35e12
//   if (auto moe = r.child("moe")) auto experts = moe->required<int>("experts");
//   r.finish();
//
// Conventions:
// - `double` reads take their dimension from the key's name (units.hpp, `dim_from_key`): a key
//   ending in `_bytes` accepts "80 GiB", a key with no unit suffix only plain numbers. Use
//   `quantity(key, dim, ...)` where the dimension comes from elsewhere (a parent key).
// - A key that is present with a bad value gives one diagnostic and an empty optional; callers
//   keep going so that one run reports every problem of the file.
// - Every numeric value read is recorded with its key path and position (`numeric_fields()`), so
//   a loader can demand that a `sources:` entry covers it (sources.hpp).
// - The Reader never throws for a user error; it may throw std::bad_alloc like any code.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "infercap/spec/diagnostics.hpp"
#include "infercap/units.hpp"

namespace infercap::spec {

/// A parsed YAML file. `ok` is false when it could not be read or parsed (a diagnostic says why).
struct Document {
  std::string file;  ///< the name diagnostics print: the path as given
  YAML::Node root;
  bool ok = false;
};

/// Reads and parses a file; a missing file or malformed YAML is a diagnostic, not an exception.
Document parse_file(const std::string& path, Diagnostics& diags);
/// Parses text that claims to come from `file` (for tests and for stdin).
Document parse_text(std::string_view text, std::string file, Diagnostics& diags);

/// 1-based position in a file; 0 = unknown.
struct Position {
  int line = 0;
  int col = 0;
};

/// An interval a numeric value must lie in. Messages print it as "> 0", "in (0, 100)", ...
struct Range {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_inclusive = true;
  bool hi_inclusive = true;

  static Range positive() { return {0, kInf, false, true}; }                   ///< > 0
  static Range non_negative() { return {0, kInf, true, true}; }                ///< >= 0
  static Range at_least(double lo) { return {lo, kInf, true, true}; }          ///< >= lo
  static Range between(double lo, double hi) { return {lo, hi, true, true}; }  ///< [lo, hi]
  static Range fraction() { return {0, 1, true, true}; }                       ///< [0, 1]
  static Range positive_fraction() { return {0, 1, false, true}; }             ///< (0, 1]
  static Range percent() { return {0, 100, false, false}; }                    ///< (0, 100)

  bool contains(double v) const;
  /// "> 0", ">= 0", "in [0, 1]", "in (0, 100)", ">= 2", "<= 5".
  std::string describe() const;

 private:
  static constexpr double kInf = std::numeric_limits<double>::infinity();
};

/// Where each key path read from a document is, kept after the reader is gone so that checks
/// made later (against the catalog, across keys) still point at a line and column.
struct KeyPositions {
  std::map<std::string, Position, std::less<>> at;
  /// The position of `key_path`, else of its nearest recorded parent ("a.b[2].c" -> "a.b[2]"
  /// -> "a.b" -> "a"); {} if none.
  Position locate(std::string_view key_path) const;
};

/// A numeric value that was read: where it is, so a source entry must cover it.
struct NumericField {
  std::string path;
  Position pos;
};

namespace detail {
struct Shared;
struct State;
}  // namespace detail

struct SchemaObject;  // schema.hpp
struct SchemaShape;

class Reader {
 public:
  /// A reader over the document's root, which must be a mapping (else a diagnostic, and the
  /// reader is empty: every read finds nothing and reports nothing).
  static Reader root(const Document& doc, Diagnostics& diags);
  /// A reader in describe mode (schema.hpp): a mapping with no keys, over which a loader runs
  /// to record every key it asks for into `schema`. Every read finds nothing (a value_or gives
  /// its fallback, a child or list gives one describing reader), has() is false, keys() is
  /// empty, and diagnostics go to `sink`. Loaders branch on describing() only where they read
  /// keys through raw() or keys(), to describe those keys instead.
  static Reader describer(SchemaObject& schema, Diagnostics& sink);

  // --- scalar values -------------------------------------------------------------------------
  // T is one of: bool, int, int64_t, double, std::string, std::vector<std::string>.
  // `range` applies to numeric T only. A null value (`key:` with nothing after it) is an error.

  /// The value, or nullopt with a diagnostic if the key is missing or its value is bad.
  template <class T>
  std::optional<T> required(std::string_view key, std::optional<Range> range = {});
  /// The value; nullopt without a diagnostic if the key is absent, with one if it is bad.
  template <class T>
  std::optional<T> optional(std::string_view key, std::optional<Range> range = {});
  /// The value, or `fallback` if the key is absent or bad (a bad value is still reported).
  template <class T>
  T value_or(std::string_view key, T fallback, std::optional<Range> range = {}) {
    auto v = optional<T>(key, range);
    if (describing()) record_default(key, fallback);
    return v ? std::move(*v) : std::move(fallback);
  }

  /// A quantity of an explicit dimension (e.g. entries of `dense_flops_per_s`, whose keys are
  /// compute types). Same presence rules as required/optional.
  std::optional<double> required_quantity(std::string_view key, Dim dim,
                                          std::optional<Range> range = {});
  std::optional<double> optional_quantity(std::string_view key, Dim dim,
                                          std::optional<Range> range = {});

  // --- enumerations --------------------------------------------------------------------------
  template <class E>
  using Spellings = std::initializer_list<std::pair<std::string_view, E>>;

  /// A string that must be one of `allowed` (exact spelling). Unknown values report the allowed
  /// list and a did-you-mean.
  template <class E>
  std::optional<E> required_enum(std::string_view key, Spellings<E> allowed) {
    return enum_impl(key, allowed, true);
  }
  template <class E>
  std::optional<E> optional_enum(std::string_view key, Spellings<E> allowed) {
    return enum_impl(key, allowed, false);
  }
  template <class E>
  E enum_or(std::string_view key, Spellings<E> allowed, E fallback) {
    auto v = enum_impl(key, allowed, false);
    if (describing()) {
      for (const auto& a : allowed) {
        if (a.second == fallback) {
          record_default(key, std::string(a.first));
          break;
        }
      }
    }
    return v ? *v : fallback;
  }
  /// A string that must be one of `allowed`; returns its index in `allowed`.
  std::optional<std::size_t> choice(std::string_view key, const std::vector<std::string>& allowed,
                                    bool required);
  /// Each element of a list of strings checked against `allowed` (e.g. `isa: [avx2, amx]`);
  /// returns the indices of the valid ones. nullopt if absent or not a list.
  std::optional<std::vector<std::size_t>> choice_list(std::string_view key,
                                                      const std::vector<std::string>& allowed,
                                                      bool required);

  // --- nested structure ----------------------------------------------------------------------
  /// The mapping under `key`; nullopt if absent (no diagnostic) or not a mapping (diagnostic).
  std::optional<Reader> child(std::string_view key);
  /// As `child`, but a missing key is a diagnostic.
  std::optional<Reader> required_child(std::string_view key);
  /// A list of mappings under `key` ("key[0]", "key[1]", ... in paths); empty if absent or bad.
  std::vector<Reader> list(std::string_view key, bool required = false);

  // --- introspection and custom checks ------------------------------------------------------
  bool valid() const;                     ///< false for the empty reader of a non-mapping
  bool has(std::string_view key) const;   ///< present in the mapping (read or not)
  std::vector<std::string> keys() const;  ///< keys of the mapping, in file order
  /// Marks `key` as read without converting it (it is handled elsewhere or deliberately ignored).
  void ignore(std::string_view key);
  /// The raw node under `key` (marks it read); an undefined node if absent.
  YAML::Node raw(std::string_view key);

  const std::string& file() const;
  const std::string& path() const;                  ///< "" for the root, "moe", "sources[1]"
  std::string path_of(std::string_view key) const;  ///< path() + "." + key
  Position position() const;                        ///< where this mapping (or its key) starts
  /// Where the value of `key` is (its key's position if the value has none); position() if absent.
  Position position_of(std::string_view key) const;
  /// Position of any key path read so far through this reader tree ("moe.experts"); the
  /// position of the nearest recorded parent path if the path itself was not read; {} if none.
  Position locate(std::string_view key_path) const;
  /// Every key path read so far through this reader tree, with its position.
  KeyPositions positions() const;
  Diagnostics& diagnostics() const;

  /// Reports a custom error at `key`'s value (or at this mapping if the key is absent).
  void error(std::string_view key, std::string message, std::string hint = {}) const;
  /// Reports an error at this mapping, with this reader's own path.
  void error_here(std::string message, std::string hint = {}) const;
  /// Reports an error at an arbitrary key path of the document (located with `locate`).
  void error_at_path(std::string_view key_path, std::string message, std::string hint = {}) const;

  /// Numeric values read anywhere in this document so far (for source coverage).
  const std::vector<NumericField>& numeric_fields() const;
  /// Removes a key from the numeric record (schema_version, or counts that need no source).
  void exempt_from_sources(std::string_view key);
  /// Every key path a loader asked for in this document, present or not (the schema as used).
  const std::vector<std::string>& asked_paths() const;

  // --- describe mode (schema.hpp) -----------------------------------------------------------
  bool describing() const;  ///< a reader made by describer(), or a child of one
  /// Describe mode only (a no-op otherwise): `key` may take `shape` (for a key the loader reads
  /// through raw()). A shape of the same type as one already recorded replaces it. `required`,
  /// when given, is the key's requirement (the loader reads the key itself); nullopt leaves it.
  void describe(std::string_view key, const SchemaShape& shape,
                std::optional<bool> required = std::nullopt);
  /// Describe mode only: keys matching `ecma_regex` take `shape` (keys a loader finds in keys()).
  void describe_pattern(std::string ecma_regex, const SchemaShape& shape);
  /// Describe mode only: at least one of `keys` must be present.
  void describe_any_of_required(std::vector<std::string> keys);
  /// Describe mode only: when `key` is present, nothing else but schema_version and kind is.
  void describe_required_unless(std::string key);
  /// Describe mode only: a sentence about `key` that its type does not say.
  void describe_note(std::string_view key, std::string note);
  /// Describe mode only: while on, this mapping's asks record their keys as optional (a loader
  /// describing several forms of a mapping, each of which requires different keys).
  void describe_forms(bool on);

  /// Reports every key never read in this mapping and in all child mappings, each as
  /// "unknown key" with a did-you-mean among the keys that were asked for. Call once, last.
  void finish();

  Reader(const Reader&) = default;
  Reader& operator=(const Reader&) = default;
  Reader(Reader&&) noexcept = default;
  Reader& operator=(Reader&&) noexcept = default;
  ~Reader();

 private:
  Reader(std::shared_ptr<detail::Shared> shared, std::shared_ptr<detail::State> state);
  // value_or's fallback as the key's default (describe mode).
  void record_default(std::string_view key, bool v);
  void record_default(std::string_view key, int v);
  void record_default(std::string_view key, int64_t v);
  void record_default(std::string_view key, double v);
  void record_default(std::string_view key, const std::string& v);
  void record_default(std::string_view key, const std::vector<std::string>& v);
  template <class E>
  std::optional<E> enum_impl(std::string_view key, Spellings<E> allowed, bool required) {
    std::vector<std::string> names;
    names.reserve(allowed.size());
    for (const auto& a : allowed) names.emplace_back(a.first);
    auto i = choice(key, names, required);
    if (!i) return std::nullopt;
    return (allowed.begin() + static_cast<std::ptrdiff_t>(*i))->second;
  }
  std::optional<Reader> child_impl(std::string_view key, bool required);

  std::shared_ptr<detail::Shared> shared_;
  std::shared_ptr<detail::State> state_;
};

/// Checks `schema_version` (must be present and equal `supported`) and `kind` (must equal
/// `expected_kind`); both keys are marked read and exempt from sources. False on any mismatch.
bool check_header(Reader& r, std::string_view expected_kind, int supported = 1);

/// The `kind:` of a document without reading it otherwise ("" if absent or not a string).
std::string peek_kind(const Document& doc);

}  // namespace infercap::spec
