#include "infercap/spec/reader.hpp"

#include "infercap/spec/schema.hpp"
#include "infercap/spec/text_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <type_traits>

namespace infercap::spec {

namespace detail {

struct Entry {
  std::string key;
  Position key_pos;
  YAML::Node value;
  bool used = false;
};

struct Shared {
  std::string file;
  Diagnostics* diags = nullptr;
  std::vector<NumericField> numeric;
  std::map<std::string, Position, std::less<>> positions;
  std::vector<std::string> asked;
};

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

}  // namespace detail

namespace {

using detail::Entry;
using detail::Shared;
using detail::State;

Position to_pos(const YAML::Mark& m) {
  if (m.line < 0 || m.column < 0) return {};
  return {m.line + 1, m.column + 1};
}

Position node_pos(const YAML::Node& n) {
  if (!n.IsDefined()) return {};
  return to_pos(n.Mark());
}

std::string join_path(std::string_view parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return fmt::format("{}.{}", parent, key);
}

std::string found_text(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "an empty value";
  if (n.IsMap()) return "a mapping";
  if (n.IsSequence()) return "a list";
  return quote_text(n.Scalar());
}

std::string with_article(std::string_view noun) {
  const bool vowel =
      !noun.empty() && std::string_view("aeiou").find(noun.front()) != std::string_view::npos;
  return fmt::format("{} {}", vowel ? "an" : "a", noun);
}

std::string quantity_what(Dim d) {
  if (d == Dim::dimensionless) return "a number";
  return fmt::format("{} ({})", with_article(dim_name(d)), dim_unit(d));
}

std::string trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

bool parse_integer(std::string_view text, int64_t& out) {
  const std::string s = trimmed(text);
  if (s.empty()) return false;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  if (*b == '+') ++b;
  {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(b, e, v);
    if (ec == std::errc() && p == e) {
      out = v;
      return true;
    }
  }
  // "8.03e9" and "1e3" are integers written in exponent form.
  double d = 0;
  auto [p, ec] = std::from_chars(b, e, d);
  if (ec != std::errc() || p != e || !std::isfinite(d) || d != std::floor(d) ||
      std::fabs(d) > 9.0e18)
    return false;
  out = static_cast<int64_t>(d);
  return true;
}

std::string fmt_bound(double v) {
  return fmt::format("{:g}", v);
}

}  // namespace

// --- Range ---------------------------------------------------------------------------------------

bool Range::contains(double v) const {
  if (std::isnan(v)) return false;
  if (lo_inclusive ? v < lo : v <= lo) return false;
  if (hi_inclusive ? v > hi : v >= hi) return false;
  return true;
}

std::string Range::describe() const {
  const bool has_lo = std::isfinite(lo);
  const bool has_hi = std::isfinite(hi);
  if (has_lo && has_hi) {
    return fmt::format("in {}{}, {}{}", lo_inclusive ? '[' : '(', fmt_bound(lo), fmt_bound(hi),
                       hi_inclusive ? ']' : ')');
  }
  if (has_lo) return fmt::format("{} {}", lo_inclusive ? ">=" : ">", fmt_bound(lo));
  if (has_hi) return fmt::format("{} {}", hi_inclusive ? "<=" : "<", fmt_bound(hi));
  return "any number";
}

// --- parsing -------------------------------------------------------------------------------------

Document parse_text(std::string_view text, std::string file, Diagnostics& diags) {
  Document doc;
  doc.file = std::move(file);
  if (const std::size_t bad = invalid_utf8_at(text); bad != std::string_view::npos) {
    int line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < bad; ++i) {
      if (text[i] == '\n') {
        ++line;
        line_start = i + 1;
      }
    }
    diags.error(doc.file, line, static_cast<int>(bad - line_start) + 1, "",
                fmt::format("expected UTF-8 text, found the byte 0x{:02X}",
                            static_cast<unsigned char>(text[bad])),
                "save the file as UTF-8");
    return doc;
  }
  try {
    // Load silently drops every document after the first, and a second document (a stray
    // `---`) usually means two specs pasted into one file: refused, from the markers (LoadAll
    // can hang on malformed input; text_file.hpp).
    if (auto second = second_yaml_document(text)) {
      diags.error(doc.file, second->line, second->col, "",
                  fmt::format("expected one YAML document, found {} (a second one starts here)",
                              second->documents),
                  "put each spec in its own file");
      return doc;
    }
    const YAML::Node root = YAML::Load(std::string(text));
    doc.root = root;
    doc.ok = true;
  } catch (const YAML::Exception& e) {
    const Position p = to_pos(e.mark);
    diags.error(doc.file, p.line, p.col, "", fmt::format("malformed YAML: {}", e.msg));
  }
  return doc;
}

Document parse_file(const std::string& path, Diagnostics& diags) {
  auto text = read_text_file(path);
  if (!text) {
    diags.error(path, 0, 0, "", text.error().message);
    return Document{path, {}, false};
  }
  return parse_text(*text, path, diags);
}

// --- Reader --------------------------------------------------------------------------------------

namespace {

std::shared_ptr<State> make_state(const YAML::Node& map, std::string path, Position pos,
                                  Shared& shared) {
  auto st = std::make_shared<State>();
  st->path = std::move(path);
  st->pos = pos;
  st->valid = map.IsMap();
  if (!st->valid) return st;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const YAML::Node k = it->first;
    const Position kp = node_pos(k);
    if (!k.IsScalar()) {
      shared.diags->error(shared.file, kp.line, kp.col, st->path,
                          fmt::format("expected a plain key name, found {}", found_text(k)));
      continue;
    }
    const std::string& key = k.Scalar();
    auto [at, fresh] = st->index.emplace(key, st->entries.size());
    if (!fresh) {
      shared.diags->error(shared.file, kp.line, kp.col, join_path(st->path, key),
                          fmt::format("duplicate key (first given at line {})",
                                      st->entries[at->second].key_pos.line));
      continue;
    }
    st->entries.push_back(Entry{key, kp, it->second, false});
  }
  return st;
}

}  // namespace

// --- describe mode -------------------------------------------------------------------------------

namespace {

// Adds `shape` to a key's forms: `any` only stands in until something is known; a choice
// refines a string; a second ask of the same type keeps the first shape (and its object, so a
// mapping asked for twice collects both asks' keys), unless `replace`.
SchemaShape* add_shape(SchemaKey& k, SchemaShape shape, bool replace) {
  auto& v = k.shapes;
  if (shape.type == SchemaType::any) {
    if (v.empty()) v.push_back(std::move(shape));
    return &v.front();
  }
  std::erase_if(v, [](const SchemaShape& s) { return s.type == SchemaType::any; });
  if (shape.type == SchemaType::choice)
    std::erase_if(v, [](const SchemaShape& s) { return s.type == SchemaType::string; });
  if (shape.type == SchemaType::string) {
    for (auto& s : v)
      if (s.type == SchemaType::choice) return &s;
  }
  for (auto& s : v) {
    if (s.type != shape.type) continue;
    for (const auto& value : shape.values) {
      if (std::find(s.values.begin(), s.values.end(), value) == s.values.end())
        s.values.push_back(value);
    }
    if (replace) {
      s = std::move(shape);
    } else if (s.range && shape.range) {
      // Asked twice with different bounds (an exponential mean > 0, a lognormal one >= 1):
      // the schema takes the hull, never stricter than either ask.
      Range& a = *s.range;
      const Range& b = *shape.range;
      if (b.lo < a.lo || (b.lo == a.lo && b.lo_inclusive)) {
        a.lo_inclusive = b.lo < a.lo ? b.lo_inclusive : true;
        a.lo = b.lo;
      }
      if (b.hi > a.hi || (b.hi == a.hi && b.hi_inclusive)) {
        a.hi_inclusive = b.hi > a.hi ? b.hi_inclusive : true;
        a.hi = b.hi;
      }
    } else {
      s.range.reset();
    }
    return &s;
  }
  v.push_back(std::move(shape));
  return &v.back();
}

// Records an ask of `key` in a describing state; nullptr when reading. A key is required only
// if every ask of it is; `required` nullopt leaves that as it is (a new key: not required).
SchemaShape* record(State& st, std::string_view key, SchemaShape shape,
                    std::optional<bool> required, bool replace = false) {
  if (st.schema == nullptr) return nullptr;
  if (st.forms && required) required = false;
  SchemaKey* k = st.schema->find(key);
  if (k == nullptr) {
    st.schema->keys.push_back(SchemaKey{std::string(key), required.value_or(false), {}, {}, {}});
    k = &st.schema->keys.back();
  } else if (required) {
    k->required = k->required && *required;
  }
  return add_shape(*k, std::move(shape), replace);
}

SchemaShape object_shape(SchemaType t) {
  SchemaShape s;
  s.type = t;
  s.object = std::make_shared<SchemaObject>();
  return s;
}

std::string json_quote(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace

SchemaKey* SchemaObject::find(std::string_view name) {
  for (auto& k : keys)
    if (k.name == name) return &k;
  return nullptr;
}

const SchemaKey* SchemaObject::find(std::string_view name) const {
  for (const auto& k : keys)
    if (k.name == name) return &k;
  return nullptr;
}

Reader Reader::describer(SchemaObject& schema, Diagnostics& sink) {
  auto shared = std::make_shared<Shared>();
  shared->file = "(schema)";
  shared->diags = &sink;
  auto st = std::make_shared<State>();
  st->valid = true;
  st->pos = {1, 1};
  st->schema = &schema;
  return Reader(std::move(shared), std::move(st));
}

bool Reader::describing() const {
  return state_->schema != nullptr;
}

void Reader::describe(std::string_view key, const SchemaShape& shape,
                      std::optional<bool> required) {
  record(*state_, key, shape, std::nullopt, true);
  // What the loader states here is the key's whole requirement (it reads the key itself).
  if (required && state_->schema != nullptr) state_->schema->find(key)->required = *required;
}

void Reader::describe_pattern(std::string ecma_regex, const SchemaShape& shape) {
  if (state_->schema == nullptr) return;
  for (auto& [re, sh] : state_->schema->patterns) {
    if (re == ecma_regex) return;
  }
  state_->schema->patterns.emplace_back(std::move(ecma_regex), shape);
}

void Reader::describe_any_of_required(std::vector<std::string> keys) {
  if (state_->schema != nullptr) state_->schema->any_of_required.push_back(std::move(keys));
}

void Reader::describe_required_unless(std::string key) {
  if (state_->schema != nullptr) state_->schema->required_unless = std::move(key);
}

void Reader::describe_forms(bool on) {
  state_->forms = on;
}

void Reader::describe_note(std::string_view key, std::string note) {
  if (state_->schema == nullptr) return;
  if (SchemaKey* k = state_->schema->find(key)) k->note = std::move(note);
}

namespace {

void set_default(State& st, std::string_view key, std::string json) {
  if (st.schema == nullptr) return;
  if (SchemaKey* k = st.schema->find(key)) k->default_json = std::move(json);
}

}  // namespace

void Reader::record_default(std::string_view key, bool v) {
  set_default(*state_, key, v ? "true" : "false");
}
void Reader::record_default(std::string_view key, int v) {
  set_default(*state_, key, std::to_string(v));
}
void Reader::record_default(std::string_view key, int64_t v) {
  set_default(*state_, key, std::to_string(v));
}
void Reader::record_default(std::string_view key, double v) {
  if (std::isfinite(v)) set_default(*state_, key, fmt::format("{}", v));
}
void Reader::record_default(std::string_view key, const std::string& v) {
  // An empty text is "not given" to the loaders, not a value worth offering an editor.
  if (!v.empty()) set_default(*state_, key, json_quote(v));
}
void Reader::record_default(std::string_view key, const std::vector<std::string>& v) {
  if (v.empty()) return;
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i > 0 ? ", " : "") + json_quote(v[i]);
  set_default(*state_, key, out + "]");
}

Reader::Reader(std::shared_ptr<detail::Shared> shared, std::shared_ptr<detail::State> state)
    : shared_(std::move(shared)), state_(std::move(state)) {}

Reader::~Reader() = default;

Reader Reader::root(const Document& doc, Diagnostics& diags) {
  auto shared = std::make_shared<Shared>();
  shared->file = doc.file;
  shared->diags = &diags;
  Position p{1, 1};
  auto st = make_state(doc.root, "", p, *shared);
  if (doc.ok && !st->valid) {
    const Position np = doc.root.IsDefined() && !doc.root.IsNull() ? node_pos(doc.root) : p;
    diags.error(
        doc.file, np.line, np.col, "",
        fmt::format("expected a mapping (key: value lines) at the top of the file, found {}",
                    doc.root.IsNull() ? std::string("an empty document") : found_text(doc.root)));
  }
  return Reader(std::move(shared), std::move(st));
}

namespace {

// Looks a key up, recording that it was asked for (and read, if present).
Entry* lookup(Shared& sh, State& st, std::string_view key) {
  if (std::find(st.asked.begin(), st.asked.end(), key) == st.asked.end()) {
    st.asked.emplace_back(key);
    sh.asked.push_back(join_path(st.path, key));
  }
  if (auto it = st.index.find(key); it != st.index.end()) {
    {
      Entry& e = st.entries[it->second];
      e.used = true;
      // Scalars are located at their value; a mapping or list at its key, where it is named.
      const bool scalar = e.value.IsDefined() && e.value.IsScalar();
      const Position vp = scalar ? node_pos(e.value) : e.key_pos;
      sh.positions[join_path(st.path, key)] = vp.line > 0 ? vp : e.key_pos;
      return &e;
    }
  }
  return nullptr;
}

// lookup() for a key the caller needs: reports a missing required key at the mapping's position.
Entry* lookup_or_report(Shared& sh, State& st, std::string_view key, bool required) {
  Entry* e = lookup(sh, st, key);
  if (e == nullptr && required && st.valid) {
    sh.diags->error(sh.file, st.pos.line, st.pos.col, join_path(st.path, key),
                    "missing required key");
  }
  return e;
}

Position value_pos(const Entry& e) {
  if (e.value.IsDefined() && !e.value.IsNull()) {
    const Position p = node_pos(e.value);
    if (p.line > 0) return p;
  }
  return e.key_pos;
}

}  // namespace

bool Reader::valid() const {
  return state_->valid;
}

bool Reader::has(std::string_view key) const {
  return state_->index.find(key) != state_->index.end();
}

std::vector<std::string> Reader::keys() const {
  std::vector<std::string> out;
  for (const auto& e : state_->entries) out.push_back(e.key);
  return out;
}

void Reader::ignore(std::string_view key) {
  record(*state_, key, SchemaShape{}, std::nullopt);
  lookup(*shared_, *state_, key);
}

YAML::Node Reader::raw(std::string_view key) {
  record(*state_, key, SchemaShape{}, std::nullopt);
  Entry* e = lookup(*shared_, *state_, key);
  return e != nullptr ? e->value : YAML::Node(YAML::NodeType::Undefined);
}

const std::string& Reader::file() const {
  return shared_->file;
}
const std::string& Reader::path() const {
  return state_->path;
}
std::string Reader::path_of(std::string_view key) const {
  return join_path(state_->path, key);
}
Position Reader::position() const {
  return state_->pos;
}

Position Reader::position_of(std::string_view key) const {
  if (auto it = state_->index.find(key); it != state_->index.end())
    return value_pos(state_->entries[it->second]);
  return state_->pos;
}

namespace {

Position locate_in(const std::map<std::string, Position, std::less<>>& at,
                   std::string_view key_path) {
  std::string_view p = key_path;
  while (!p.empty()) {
    auto it = at.find(p);
    if (it != at.end()) return it->second;
    const auto cut = p.find_last_of(".[");
    if (cut == std::string_view::npos) break;
    p = p.substr(0, cut);
  }
  return {};
}

}  // namespace

Position KeyPositions::locate(std::string_view key_path) const {
  return locate_in(at, key_path);
}

Position Reader::locate(std::string_view key_path) const {
  return locate_in(shared_->positions, key_path);
}

KeyPositions Reader::positions() const {
  return KeyPositions{shared_->positions};
}

Diagnostics& Reader::diagnostics() const {
  return *shared_->diags;
}

void Reader::error(std::string_view key, std::string message, std::string hint) const {
  const Position p = position_of(key);
  shared_->diags->error(shared_->file, p.line, p.col, path_of(key), std::move(message),
                        std::move(hint));
}

void Reader::error_here(std::string message, std::string hint) const {
  shared_->diags->error(shared_->file, state_->pos.line, state_->pos.col, state_->path,
                        std::move(message), std::move(hint));
}

void Reader::error_at_path(std::string_view key_path, std::string message, std::string hint) const {
  const Position p = locate(key_path);
  shared_->diags->error(shared_->file, p.line, p.col, std::string(key_path), std::move(message),
                        std::move(hint));
}

const std::vector<NumericField>& Reader::numeric_fields() const {
  return shared_->numeric;
}

void Reader::exempt_from_sources(std::string_view key) {
  const std::string p = path_of(key);
  auto& v = shared_->numeric;
  v.erase(std::remove_if(v.begin(), v.end(), [&](const NumericField& f) { return f.path == p; }),
          v.end());
}

const std::vector<std::string>& Reader::asked_paths() const {
  return shared_->asked;
}

// --- typed values --------------------------------------------------------------------------------

namespace {

// One conversion per type; returns nullopt after reporting. `what` names the expectation.
struct Ctx {
  Shared& sh;
  const std::string& path;
  Position pos;
  void fail(std::string msg) const {
    sh.diags->error(sh.file, pos.line, pos.col, path, std::move(msg));
  }
};

template <class T>
std::optional<T> convert(const Ctx& c, const YAML::Node& n, std::string_view key,
                         const std::optional<Range>& range);

std::optional<int64_t> convert_integer(const Ctx& c, const YAML::Node& n,
                                       const std::optional<Range>& range, int64_t lo, int64_t hi) {
  const std::string what = range ? fmt::format("an integer {}", range->describe()) : "an integer";
  int64_t v = 0;
  if (!n.IsScalar() || !parse_integer(n.Scalar(), v)) {
    c.fail(fmt::format("expected {}, found {}", what, found_text(n)));
    return std::nullopt;
  }
  if (v < lo || v > hi) {
    c.fail(fmt::format("expected {}, found {} (out of range)", what, found_text(n)));
    return std::nullopt;
  }
  c.sh.numeric.push_back({c.path, c.pos});
  if (range && !range->contains(static_cast<double>(v))) {
    c.fail(fmt::format("expected {}, found {}", what, found_text(n)));
    return std::nullopt;
  }
  return v;
}

template <>
std::optional<int64_t> convert<int64_t>(const Ctx& c, const YAML::Node& n, std::string_view,
                                        const std::optional<Range>& range) {
  return convert_integer(c, n, range, std::numeric_limits<int64_t>::min(),
                         std::numeric_limits<int64_t>::max());
}

template <>
std::optional<int> convert<int>(const Ctx& c, const YAML::Node& n, std::string_view,
                                const std::optional<Range>& range) {
  auto v = convert_integer(c, n, range, std::numeric_limits<int>::min(),
                           std::numeric_limits<int>::max());
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}

std::optional<double> convert_quantity(const Ctx& c, const YAML::Node& n, Dim dim,
                                       const std::optional<Range>& range) {
  if (!n.IsScalar()) {
    c.fail(fmt::format("expected {}, found {}", quantity_what(dim), found_text(n)));
    return std::nullopt;
  }
  auto r = parse_quantity(n.Scalar(), dim);
  if (!r.ok()) {
    c.fail(r.error().message);
    return std::nullopt;
  }
  c.sh.numeric.push_back({c.path, c.pos});
  if (range && !range->contains(r.value())) {
    c.fail(fmt::format("expected {} {}, found {}", quantity_what(dim), range->describe(),
                       found_text(n)));
    return std::nullopt;
  }
  return r.value();
}

template <>
std::optional<double> convert<double>(const Ctx& c, const YAML::Node& n, std::string_view key,
                                      const std::optional<Range>& range) {
  return convert_quantity(c, n, dim_from_key(key), range);
}

template <>
std::optional<bool> convert<bool>(const Ctx& c, const YAML::Node& n, std::string_view,
                                  const std::optional<Range>&) {
  if (n.IsScalar()) {
    std::string s = n.Scalar();
    std::transform(s.begin(), s.end(), s.begin(), [](char ch) {
      return static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    });
    if (s == "true") return true;
    if (s == "false") return false;
  }
  c.fail(fmt::format("expected true or false, found {}", found_text(n)));
  return std::nullopt;
}

template <>
std::optional<std::string> convert<std::string>(const Ctx& c, const YAML::Node& n, std::string_view,
                                                const std::optional<Range>&) {
  if (n.IsScalar()) return n.Scalar();
  c.fail(fmt::format("expected a string, found {}", found_text(n)));
  return std::nullopt;
}

template <>
std::optional<std::vector<std::string>> convert<std::vector<std::string>>(
    const Ctx& c, const YAML::Node& n, std::string_view, const std::optional<Range>&) {
  if (!n.IsSequence()) {
    c.fail(fmt::format("expected a list of strings, found {}", found_text(n)));
    return std::nullopt;
  }
  std::vector<std::string> out;
  bool ok = true;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const YAML::Node el = n[i];
    if (el.IsScalar()) {
      // Elements can be pointed at later ("sources[0].fields[2]" names no key).
      const Position ep = node_pos(el);
      if (ep.line > 0) c.sh.positions[fmt::format("{}[{}]", c.path, i)] = ep;
      out.push_back(el.Scalar());
      continue;
    }
    const Position p = node_pos(el).line > 0 ? node_pos(el) : c.pos;
    c.sh.diags->error(c.sh.file, p.line, p.col, fmt::format("{}[{}]", c.path, i),
                      fmt::format("expected a string, found {}", found_text(el)));
    ok = false;
  }
  if (!ok) return std::nullopt;
  return out;
}

template <class T>
SchemaShape shape_of(std::string_view key, const std::optional<Range>& range) {
  SchemaShape s;
  s.range = range;
  if constexpr (std::is_same_v<T, bool>) {
    s.type = SchemaType::boolean;
  } else if constexpr (std::is_same_v<T, int> || std::is_same_v<T, int64_t>) {
    s.type = SchemaType::integer;
  } else if constexpr (std::is_same_v<T, double>) {
    s.type = SchemaType::number;
    s.dim = dim_from_key(key);
  } else if constexpr (std::is_same_v<T, std::string>) {
    s.type = SchemaType::string;
  } else {
    static_assert(std::is_same_v<T, std::vector<std::string>>);
    s.type = SchemaType::string_list;
  }
  return s;
}

template <class T>
std::optional<T> read_value(Shared& sh, State& st, std::string_view key, bool required,
                            const std::optional<Range>& range) {
  record(st, key, shape_of<T>(key, range), required);
  Entry* e = lookup_or_report(sh, st, key, required);
  const std::string path = join_path(st.path, key);
  if (e == nullptr) return std::nullopt;
  return convert<T>(Ctx{sh, path, value_pos(*e)}, e->value, key, range);
}

}  // namespace

template <class T>
std::optional<T> Reader::required(std::string_view key, std::optional<Range> range) {
  return read_value<T>(*shared_, *state_, key, true, range);
}

template <class T>
std::optional<T> Reader::optional(std::string_view key, std::optional<Range> range) {
  return read_value<T>(*shared_, *state_, key, false, range);
}

template std::optional<bool> Reader::required<bool>(std::string_view, std::optional<Range>);
template std::optional<int> Reader::required<int>(std::string_view, std::optional<Range>);
template std::optional<int64_t> Reader::required<int64_t>(std::string_view, std::optional<Range>);
template std::optional<double> Reader::required<double>(std::string_view, std::optional<Range>);
template std::optional<std::string> Reader::required<std::string>(std::string_view,
                                                                  std::optional<Range>);
template std::optional<std::vector<std::string>> Reader::required<std::vector<std::string>>(
    std::string_view, std::optional<Range>);
template std::optional<bool> Reader::optional<bool>(std::string_view, std::optional<Range>);
template std::optional<int> Reader::optional<int>(std::string_view, std::optional<Range>);
template std::optional<int64_t> Reader::optional<int64_t>(std::string_view, std::optional<Range>);
template std::optional<double> Reader::optional<double>(std::string_view, std::optional<Range>);
template std::optional<std::string> Reader::optional<std::string>(std::string_view,
                                                                  std::optional<Range>);
template std::optional<std::vector<std::string>> Reader::optional<std::vector<std::string>>(
    std::string_view, std::optional<Range>);

namespace {

SchemaShape quantity_shape(Dim dim, const std::optional<Range>& range) {
  SchemaShape s;
  s.type = SchemaType::number;
  s.dim = dim;
  s.range = range;
  return s;
}

SchemaShape choice_shape(SchemaType t, const std::vector<std::string>& allowed) {
  SchemaShape s;
  s.type = t;
  s.values = allowed;
  return s;
}

}  // namespace

std::optional<double> Reader::required_quantity(std::string_view key, Dim dim,
                                                std::optional<Range> range) {
  record(*state_, key, quantity_shape(dim, range), true);
  Entry* e = lookup_or_report(*shared_, *state_, key, true);
  const std::string p = path_of(key);
  if (e == nullptr) return std::nullopt;
  return convert_quantity(Ctx{*shared_, p, value_pos(*e)}, e->value, dim, range);
}

std::optional<double> Reader::optional_quantity(std::string_view key, Dim dim,
                                                std::optional<Range> range) {
  record(*state_, key, quantity_shape(dim, range), false);
  Entry* e = lookup(*shared_, *state_, key);
  if (e == nullptr) return std::nullopt;
  const std::string p = path_of(key);
  return convert_quantity(Ctx{*shared_, p, value_pos(*e)}, e->value, dim, range);
}

namespace {

std::string one_of(const std::vector<std::string>& allowed) {
  std::string s = "one of [";
  for (std::size_t i = 0; i < allowed.size(); ++i) {
    if (i > 0) s += ", ";
    s += allowed[i];
  }
  return s + "]";
}

std::optional<std::size_t> match_choice(Shared& sh, const std::string& path, Position pos,
                                        const YAML::Node& n,
                                        const std::vector<std::string>& allowed) {
  if (!n.IsScalar()) {
    sh.diags->error(sh.file, pos.line, pos.col, path,
                    fmt::format("expected {}, found {}", one_of(allowed), found_text(n)));
    return std::nullopt;
  }
  const std::string& s = n.Scalar();
  for (std::size_t i = 0; i < allowed.size(); ++i) {
    if (allowed[i] == s) return i;
  }
  sh.diags->error(sh.file, pos.line, pos.col, path,
                  fmt::format("expected {}, found {}", one_of(allowed), quote_text(s)),
                  did_you_mean_text(did_you_mean(s, allowed)));
  return std::nullopt;
}

}  // namespace

std::optional<std::size_t> Reader::choice(std::string_view key,
                                          const std::vector<std::string>& allowed, bool required) {
  record(*state_, key, choice_shape(SchemaType::choice, allowed), required);
  Entry* e = lookup_or_report(*shared_, *state_, key, required);
  const std::string p = path_of(key);
  if (e == nullptr) return std::nullopt;
  return match_choice(*shared_, p, value_pos(*e), e->value, allowed);
}

std::optional<std::vector<std::size_t>> Reader::choice_list(std::string_view key,
                                                            const std::vector<std::string>& allowed,
                                                            bool required) {
  record(*state_, key, choice_shape(SchemaType::choice_list, allowed), required);
  Entry* e = lookup_or_report(*shared_, *state_, key, required);
  const std::string p = path_of(key);
  if (e == nullptr) return std::nullopt;
  if (!e->value.IsSequence()) {
    const Position vp = value_pos(*e);
    shared_->diags->error(shared_->file, vp.line, vp.col, p,
                          fmt::format("expected a list, found {}", found_text(e->value)));
    return std::nullopt;
  }
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < e->value.size(); ++i) {
    const YAML::Node el = e->value[i];
    const Position ep = node_pos(el).line > 0 ? node_pos(el) : value_pos(*e);
    if (auto idx = match_choice(*shared_, fmt::format("{}[{}]", p, i), ep, el, allowed))
      out.push_back(*idx);
  }
  return out;
}

std::optional<Reader> Reader::child_impl(std::string_view key, bool required) {
  if (SchemaShape* sh = record(*state_, key, object_shape(SchemaType::object), required)) {
    // Describe mode: the mapping is described by a reader over its schema object.
    lookup(*shared_, *state_, key);
    auto st = std::make_shared<State>();
    st->valid = true;
    st->path = path_of(key);
    st->schema = sh->object.get();
    state_->children.push_back(st);
    return Reader(shared_, std::move(st));
  }
  Entry* e = lookup_or_report(*shared_, *state_, key, required);
  const std::string p = path_of(key);
  if (e == nullptr) return std::nullopt;
  if (!e->value.IsMap()) {
    const Position vp = value_pos(*e);
    shared_->diags->error(shared_->file, vp.line, vp.col, p,
                          fmt::format("expected a mapping, found {}", found_text(e->value)));
    return std::nullopt;
  }
  auto st = make_state(e->value, p, e->key_pos, *shared_);
  state_->children.push_back(st);
  return Reader(shared_, std::move(st));
}

std::optional<Reader> Reader::child(std::string_view key) {
  return child_impl(key, false);
}
std::optional<Reader> Reader::required_child(std::string_view key) {
  return child_impl(key, true);
}

std::vector<Reader> Reader::list(std::string_view key, bool required) {
  std::vector<Reader> out;
  if (SchemaShape* sh = record(*state_, key, object_shape(SchemaType::object_list), required)) {
    // Describe mode: one element, described by a reader over the elements' schema object.
    lookup(*shared_, *state_, key);
    auto st = std::make_shared<State>();
    st->valid = true;
    st->path = path_of(key) + "[0]";
    st->schema = sh->object.get();
    state_->children.push_back(st);
    out.push_back(Reader(shared_, std::move(st)));
    return out;
  }
  Entry* e = lookup_or_report(*shared_, *state_, key, required);
  const std::string p = path_of(key);
  if (e == nullptr) return out;
  if (!e->value.IsSequence()) {
    const Position vp = value_pos(*e);
    shared_->diags->error(
        shared_->file, vp.line, vp.col, p,
        fmt::format("expected a list of mappings, found {}", found_text(e->value)));
    return out;
  }
  for (std::size_t i = 0; i < e->value.size(); ++i) {
    const YAML::Node el = e->value[i];
    const std::string ep = fmt::format("{}[{}]", p, i);
    const Position pos = node_pos(el).line > 0 ? node_pos(el) : value_pos(*e);
    if (!el.IsMap()) {
      shared_->diags->error(shared_->file, pos.line, pos.col, ep,
                            fmt::format("expected a mapping, found {}", found_text(el)));
      continue;
    }
    shared_->positions[ep] = pos;
    auto st = make_state(el, ep, pos, *shared_);
    state_->children.push_back(st);
    out.push_back(Reader(shared_, std::move(st)));
  }
  return out;
}

namespace {

void finish_state(Shared& sh, State& st) {
  if (st.finished) return;
  st.finished = true;
  for (const auto& e : st.entries) {
    if (e.used) continue;
    sh.diags->error(sh.file, e.key_pos.line, e.key_pos.col, join_path(st.path, e.key),
                    "unknown key", did_you_mean_text(did_you_mean(e.key, st.asked)));
  }
  for (const auto& c : st.children) finish_state(sh, *c);
}

}  // namespace

void Reader::finish() {
  finish_state(*shared_, *state_);
}

bool check_header(Reader& r, std::string_view expected_kind, int supported) {
  if (!r.valid()) return false;
  bool ok = true;
  if (auto v = r.required<int>("schema_version")) {
    if (*v != supported) {
      r.error(
          "schema_version",
          fmt::format("expected {} (the version this infercap reads), found '{}'", supported, *v));
      ok = false;
    }
  } else {
    ok = false;
  }
  r.exempt_from_sources("schema_version");
  if (auto k = r.required<std::string>("kind")) {
    if (*k != expected_kind) {
      const std::vector<std::string> expected{std::string(expected_kind)};
      r.error("kind", fmt::format("expected '{}', found {}", expected_kind, quote_text(*k)),
              did_you_mean_text(did_you_mean(*k, expected)));
      ok = false;
    }
  } else {
    ok = false;
  }
  // Describe mode: the one version and the one kind this loader reads.
  if (r.describing()) {
    SchemaShape version;
    version.type = SchemaType::integer;
    version.range = Range::between(supported, supported);
    r.describe("schema_version", version);
    SchemaShape kind;
    kind.type = SchemaType::choice;
    kind.values = {std::string(expected_kind)};
    r.describe("kind", kind);
  }
  return ok;
}

std::string peek_kind(const Document& doc) {
  if (!doc.ok || !doc.root.IsMap()) return {};
  const YAML::Node k = doc.root["kind"];
  if (!k.IsDefined() || !k.IsScalar()) return {};
  return k.Scalar();
}

}  // namespace infercap::spec
