// The Reader's node tree (reader.hpp): a YAML text parsed into a Document, and each mapping of it
// walked by key. Every ask is recorded (the key was asked for, and read if present, with its
// position), so that finish() can report each key nobody asked for, and errors found later can
// still point at a line. How a value is converted: reader_values.cpp; describe mode:
// reader_describe.cpp; the state they share: reader_internal.hpp.
#include "infercap/spec/reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "infercap/spec/schema.hpp"
#include "infercap/spec/text_file.hpp"
#include "reader_internal.hpp"

namespace infercap::spec {

using detail::Entry;
using detail::Shared;
using detail::State;

// --- positions and paths -------------------------------------------------------------------------

namespace detail {

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

Position value_pos(const Entry& e) {
  if (e.value.IsDefined() && !e.value.IsNull()) {
    const Position p = node_pos(e.value);
    if (p.line > 0) return p;
  }
  return e.key_pos;
}

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

Entry* lookup_or_report(Shared& sh, State& st, std::string_view key, bool required) {
  Entry* e = lookup(sh, st, key);
  if (e == nullptr && required && st.valid) {
    sh.diags->error(sh.file, st.pos.line, st.pos.col, join_path(st.path, key),
                    "missing required key");
  }
  return e;
}

}  // namespace detail

using detail::found_text;
using detail::join_path;
using detail::lookup;
using detail::lookup_or_report;
using detail::node_pos;
using detail::to_pos;
using detail::value_pos;

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

// --- introspection and custom errors ------------------------------------------------------------

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
  detail::record(*state_, key, SchemaShape{}, std::nullopt);
  lookup(*shared_, *state_, key);
}

YAML::Node Reader::raw(std::string_view key) {
  detail::record(*state_, key, SchemaShape{}, std::nullopt);
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

// --- nested structure ----------------------------------------------------------------------------

std::optional<Reader> Reader::child_impl(std::string_view key, bool required) {
  if (SchemaShape* sh =
          detail::record(*state_, key, detail::object_shape(SchemaType::object), required)) {
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
  if (SchemaShape* sh =
          detail::record(*state_, key, detail::object_shape(SchemaType::object_list), required)) {
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
