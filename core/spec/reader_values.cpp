// How one YAML scalar becomes a typed value (reader.hpp's required / optional / value_or,
// quantities, choices): integers (also in exponent form, "8.03e9"), quantities through the unit
// table (units.hpp: "3.35 TB/s" -> 3.35e12), booleans, strings, string lists and choices, each
// bad value one "expected X, found Y" diagnostic at the value. Every numeric value read is
// recorded for source coverage (sources.hpp). Also Range, the interval a number must lie in.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <type_traits>

#include "infercap/spec/reader.hpp"
#include "infercap/spec/schema.hpp"
#include "reader_internal.hpp"

namespace infercap::spec {

using detail::Entry;
using detail::found_text;
using detail::join_path;
using detail::lookup;
using detail::lookup_or_report;
using detail::node_pos;
using detail::record;
using detail::Shared;
using detail::State;
using detail::value_pos;

namespace {

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

}  // namespace infercap::spec
