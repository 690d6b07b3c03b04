#include "infercap/spec/catalog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "infercap/spec/loaders.hpp"
#include "infercap/spec/reader.hpp"

#ifndef INFERCAP_DEFAULT_DATA_DIR
#define INFERCAP_DEFAULT_DATA_DIR "data"
#endif

namespace infercap::spec {

namespace fs = std::filesystem;

std::string normalize_name(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == ' ' || c == '-' || c == '_' || c == '.' || c == '\t') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

namespace {

constexpr const char* kBuiltIn = "<built-in>";

std::vector<std::string> yaml_files(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const auto ext = e.path().extension().string();
    if ((ext == ".yaml" || ext == ".yml") && e.is_regular_file(ec))
      out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Position node_position(const YAML::Node& n) {
  if (!n.IsDefined()) return {};
  const auto m = n.Mark();
  if (m.line < 0) return {};
  return {m.line + 1, m.column + 1};
}

// Adds `spec` unless its name is taken; reports aliases that would make lookups ambiguous.
template <class Spec>
void add_entry(Spec spec, const Document& doc, std::string_view kind, std::vector<Spec>& entries,
               std::vector<std::string>& files, Diagnostics& diags) {
  const YAML::Node& root = doc.root;
  const std::string key = normalize_name(spec.name);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const bool same = entries[i].name == spec.name || normalize_name(entries[i].name) == key;
    if (!same) continue;
    const Position p = node_position(root["name"]);
    diags.error(doc.file, p.line, p.col, "name",
                fmt::format("duplicate {} name '{}' (also in {})", kind, spec.name, files[i]));
    return;
  }
  std::vector<std::string> kept;
  const YAML::Node aliases = root["aliases"];
  for (std::size_t a = 0; a < spec.aliases.size(); ++a) {
    const std::string ak = normalize_name(spec.aliases[a]);
    bool clash = false;
    for (std::size_t i = 0; i < entries.size() && !clash; ++i) {
      const auto& other = entries[i];
      bool hit = normalize_name(other.name) == ak;
      for (const auto& oa : other.aliases) hit = hit || normalize_name(oa) == ak;
      if (!hit) continue;
      clash = true;
      const Position p = aliases.IsDefined() && aliases.IsSequence() && a < aliases.size()
                             ? node_position(aliases[a])
                             : Position{};
      diags.error(doc.file, p.line, p.col, fmt::format("aliases[{}]", a),
                  fmt::format("alias '{}' also names {} '{}' (in {})", spec.aliases[a], kind,
                              other.name, files[i]));
    }
    if (!clash) kept.push_back(spec.aliases[a]);
  }
  spec.aliases = std::move(kept);
  entries.push_back(std::move(spec));
  files.push_back(doc.file);
}

template <class Spec>
const Spec* find_in(const std::vector<Spec>& entries, std::string_view q) {
  for (const auto& e : entries) {
    if (e.name == q) return &e;
  }
  const std::string k = normalize_name(q);
  if (k.empty()) return nullptr;
  for (const auto& e : entries) {
    if (normalize_name(e.name) == k) return &e;
    for (const auto& a : e.aliases) {
      if (normalize_name(a) == k) return &e;
    }
  }
  return nullptr;
}

template <class Spec>
std::vector<std::string> near_in(const std::vector<Spec>& entries, std::string_view q,
                                 std::size_t max) {
  // Score every normalised name and alias, then report each entry once, by its name.
  std::vector<std::string> keys;
  std::vector<std::size_t> owner;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    keys.push_back(normalize_name(entries[i].name));
    owner.push_back(i);
    for (const auto& a : entries[i].aliases) {
      keys.push_back(normalize_name(a));
      owner.push_back(i);
    }
  }
  const auto close = did_you_mean(normalize_name(q), keys, keys.size());
  std::vector<std::string> out;
  for (const auto& c : close) {
    for (std::size_t j = 0; j < keys.size(); ++j) {
      if (keys[j] != c) continue;
      const std::string& n = entries[owner[j]].name;
      if (std::find(out.begin(), out.end(), n) == out.end() && out.size() < max) out.push_back(n);
    }
  }
  return out;
}

// The vendors the catalog's hardware names, each once, in catalog order.
std::vector<std::string> hardware_vendors(const std::vector<HardwareSpec>& hardware) {
  std::vector<std::string> known;
  for (const auto& h : hardware) {
    if (!h.vendor.empty() && std::find(known.begin(), known.end(), h.vendor) == known.end())
      known.push_back(h.vendor);
  }
  return known;
}

// A stack's `vendors` must be among `known` (hardware_vendors): a misspelt one would turn away
// every device without a word at load time.
void check_stack_vendors(const StackSpec& s, const Document& doc,
                         const std::vector<std::string>& known, Diagnostics& diags) {
  const YAML::Node list = doc.root["vendors"];
  for (std::size_t i = 0; i < s.vendors.size(); ++i) {
    if (std::find(known.begin(), known.end(), s.vendors[i]) != known.end()) continue;
    const Position p = list.IsDefined() && list.IsSequence() && i < list.size()
                           ? node_position(list[i])
                           : node_position(list);
    std::string msg = fmt::format("vendor {} is not the vendor of any catalog hardware",
                                  quote_text(s.vendors[i]));
    const auto near = did_you_mean(s.vendors[i], known, 3);
    msg += near.empty() ? fmt::format(" (expected one of: {})", fmt::join(known, ", "))
                        : "; " + did_you_mean_text(near);
    diags.error(doc.file, p.line, p.col, fmt::format("vendors[{}]", i), msg);
  }
}

bool looks_like_file(std::string_view s) {
  if (s.find('/') != std::string_view::npos) return true;
  auto ends = [&](std::string_view suf) {
    return s.size() >= suf.size() && s.substr(s.size() - suf.size()) == suf;
  };
  if (ends(".yaml") || ends(".yml")) return true;
  std::error_code ec;
  return fs::is_regular_file(fs::path(std::string(s)), ec);
}

template <class Spec, class LoadFn>
std::optional<Spec> resolve_in(const std::vector<Spec>& entries, std::string_view kind,
                               std::string_view q, Diagnostics& diags, LoadFn load) {
  if (const Spec* s = find_in(entries, q)) return *s;
  if (looks_like_file(q)) {
    Document doc = parse_file(std::string(q), diags);
    if (!doc.ok) return std::nullopt;
    Presets<Spec> presets;
    presets.kind = std::string(kind);
    presets.find = [&entries](std::string_view n) { return find_in(entries, n); };
    presets.near = [&entries](std::string_view n) { return near_in(entries, n, 3); };
    return load(doc, diags, LoadOptions{}, &presets);
  }
  const auto near = near_in(entries, q, 3);
  std::string msg = fmt::format("unknown {} {}", kind, quote_text(q));
  if (!near.empty()) msg += "; " + did_you_mean_text(near);
  diags.error("", 0, 0, "", msg);
  return std::nullopt;
}

}  // namespace

Catalog::Catalog() {
  stacks_.push_back(ideal_stack());
  stack_files_.emplace_back(kBuiltIn);
}

std::string Catalog::default_data_dir() {
  const char* env = std::getenv("INFERCAP_DATA_DIR");
  if (env != nullptr && *env != '\0') return env;
  return INFERCAP_DEFAULT_DATA_DIR;
}

Catalog Catalog::load(const std::string& data_dir, Diagnostics& diags) {
  Catalog c;
  c.data_dir_ = data_dir;
  std::error_code ec;
  if (!fs::is_directory(data_dir, ec)) {
    diags.error(data_dir, 0, 0, "", "cannot read the catalog folder (not a directory)");
    return c;
  }
  const fs::path root(data_dir);
  for (const auto& f : yaml_files(root / "models")) {
    Document doc = parse_file(f, diags);
    if (auto m = load_model(doc, diags))
      add_entry(std::move(*m), doc, "model", c.models_, c.model_files_, diags);
  }
  for (const auto& f : yaml_files(root / "hardware")) {
    Document doc = parse_file(f, diags);
    if (auto h = load_hardware(doc, diags))
      add_entry(std::move(*h), doc, "hardware", c.hardware_, c.hardware_files_, diags);
  }
  const std::vector<std::string> vendors = hardware_vendors(c.hardware_);
  for (const auto& f : yaml_files(root / "stacks")) {
    Document doc = parse_file(f, diags);
    if (auto s = load_stack(doc, diags)) {
      check_stack_vendors(*s, doc, vendors, diags);
      add_entry(std::move(*s), doc, "stack", c.stacks_, c.stack_files_, diags);
    }
  }
  return c;
}

const ModelSpec* Catalog::find_model(std::string_view n) const {
  return find_in(models_, n);
}
const HardwareSpec* Catalog::find_hardware(std::string_view n) const {
  return find_in(hardware_, n);
}
const StackSpec* Catalog::find_stack(std::string_view n) const {
  return find_in(stacks_, n);
}

std::vector<std::string> Catalog::near_models(std::string_view n, std::size_t max) const {
  return near_in(models_, n, max);
}
std::vector<std::string> Catalog::near_hardware(std::string_view n, std::size_t max) const {
  return near_in(hardware_, n, max);
}
std::vector<std::string> Catalog::near_stacks(std::string_view n, std::size_t max) const {
  return near_in(stacks_, n, max);
}

std::optional<ModelSpec> Catalog::resolve_model(std::string_view q, Diagnostics& d) const {
  return resolve_in(models_, "model", q, d, load_model);
}
std::optional<HardwareSpec> Catalog::resolve_hardware(std::string_view q, Diagnostics& d) const {
  return resolve_in(hardware_, "hardware", q, d, load_hardware);
}
std::optional<StackSpec> Catalog::resolve_stack(std::string_view q, Diagnostics& d) const {
  return resolve_in(stacks_, "stack", q, d, load_stack);
}

}  // namespace infercap::spec
