// The one unit table. Every human spelling of a unit maps to (dimension, factor to SI); parsing
// and formatting both read this table, so a spelling accepted in a file is the spelling printed.
#include "infercap/units.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>
#include <vector>

namespace infercap {

namespace {

struct UnitEntry {
  std::string spelling;
  Dim dim;
  double factor;  // multiply the number by this to get SI
};

struct Prefix {
  const char* symbol;
  double factor;
};

constexpr std::array<Prefix, 7> kDecimalPrefixes{
    {{"", 1.0}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"E", 1e18}}};

std::vector<UnitEntry> build_table() {
  std::vector<UnitEntry> t;
  auto add = [&t](std::string s, Dim d, double f) { t.push_back({std::move(s), d, f}); };

  // Sizes and bandwidths: decimal prefixes are powers of 1000 ("KB" is common and means 1000 B
  // here, as in datasheets), binary ones powers of 1024.
  for (const auto& p : kDecimalPrefixes) {
    add(std::string(p.symbol) + "B", Dim::bytes, p.factor);
    add(std::string(p.symbol) + "B/s", Dim::bytes_per_s, p.factor);
  }
  add("KB", Dim::bytes, 1e3);
  add("KB/s", Dim::bytes_per_s, 1e3);
  add("bytes", Dim::bytes, 1.0);
  add("bytes/s", Dim::bytes_per_s, 1.0);
  const std::array<Prefix, 5> binary{
      {{"Ki", kKiB}, {"Mi", kMiB}, {"Gi", kGiB}, {"Ti", kGiB * kKiB}, {"Pi", kGiB * kMiB}}};
  for (const auto& p : binary) {
    add(std::string(p.symbol) + "B", Dim::bytes, p.factor);
    add(std::string(p.symbol) + "B/s", Dim::bytes_per_s, p.factor);
  }

  // Compute. TOPS (integer ops) count as FLOP/s: one op is one FLOP in this model.
  for (const auto& p : kDecimalPrefixes) {
    const std::string s = p.symbol;
    add(s + "FLOP", Dim::flops, p.factor);
    add(s + "FLOP/s", Dim::flops_per_s, p.factor);
    add(s + "FLOPS", Dim::flops_per_s, p.factor);
    add(s + "OP/s", Dim::flops_per_s, p.factor);
    add(s + "OPS", Dim::flops_per_s, p.factor);
  }
  add("FLOPs", Dim::flops, 1.0);

  // Time.
  add("s", Dim::seconds, 1.0);
  add("ms", Dim::seconds, 1e-3);
  add("us", Dim::seconds, 1e-6);
  add("\xC2\xB5s", Dim::seconds, 1e-6);  // U+00B5 MICRO SIGN
  add("\xCE\xBCs", Dim::seconds, 1e-6);  // U+03BC GREEK SMALL LETTER MU
  add("ns", Dim::seconds, 1e-9);
  add("min", Dim::seconds, 60.0);
  add("h", Dim::seconds, 3600.0);

  // Power and energy.
  add("W", Dim::watts, 1.0);
  add("kW", Dim::watts, 1e3);
  add("MW", Dim::watts, 1e6);
  add("J", Dim::joules, 1.0);
  add("kJ", Dim::joules, 1e3);
  add("MJ", Dim::joules, 1e6);
  add("Wh", Dim::joules, 3600.0);
  add("kWh", Dim::joules, 3.6e6);
  add("MWh", Dim::joules, 3.6e9);

  // Frequency.
  add("Hz", Dim::hertz, 1.0);
  add("kHz", Dim::hertz, 1e3);
  add("MHz", Dim::hertz, 1e6);
  add("GHz", Dim::hertz, 1e9);

  // Rates.
  add("tokens/s", Dim::tokens_per_s, 1.0);
  add("token/s", Dim::tokens_per_s, 1.0);
  add("tok/s", Dim::tokens_per_s, 1.0);
  add("QPS", Dim::per_s, 1.0);
  add("qps", Dim::per_s, 1.0);
  add("req/s", Dim::per_s, 1.0);
  add("1/s", Dim::per_s, 1.0);
  add("/s", Dim::per_s, 1.0);
  add("/min", Dim::per_s, 1.0 / 60.0);
  add("/h", Dim::per_s, 1.0 / 3600.0);
  add("/day", Dim::per_s, 1.0 / 86400.0);
  return t;
}

const std::vector<UnitEntry>& table() {
  static const std::vector<UnitEntry> t = build_table();
  return t;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// "a bandwidth", "an energy price": messages read as sentences.
std::string with_article(std::string_view noun) {
  const bool vowel =
      !noun.empty() && std::string_view("aeiou").find(noun.front()) != std::string_view::npos;
  return fmt::format("{} {}", vowel ? "an" : "a", noun);
}

// User text echoed in a message, cut at 80 bytes (a character boundary) with its length given:
// the same rule as spec::quote_text, which core cannot include.
std::string quote_text(std::string_view text) {
  constexpr std::size_t kMax = 80;
  if (text.size() <= kMax) return fmt::format("'{}'", text);
  std::size_t cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return fmt::format("'{}...' ({} bytes)", text.substr(0, cut), text.size());
}

std::string expected_text(Dim d) {
  if (d == Dim::dimensionless) return "a plain number";
  return fmt::format("{} ({})", with_article(dim_name(d)), dim_unit(d));
}

}  // namespace

std::string_view dim_name(Dim d) {
  switch (d) {
    case Dim::dimensionless:
      return "number";
    case Dim::bytes:
      return "size";
    case Dim::bytes_per_s:
      return "bandwidth";
    case Dim::flops:
      return "FLOP count";
    case Dim::flops_per_s:
      return "compute rate";
    case Dim::seconds:
      return "duration";
    case Dim::watts:
      return "power";
    case Dim::joules:
      return "energy";
    case Dim::hertz:
      return "frequency";
    case Dim::tokens_per_s:
      return "token rate";
    case Dim::per_s:
      return "request rate";
    case Dim::money:
      return "amount of money";
    case Dim::money_per_kwh:
      return "energy price";
  }
  return "?";
}

std::string_view dim_unit(Dim d) {
  switch (d) {
    case Dim::dimensionless:
      return "";
    case Dim::bytes:
      return "bytes";
    case Dim::bytes_per_s:
      return "bytes/s";
    case Dim::flops:
      return "FLOP";
    case Dim::flops_per_s:
      return "FLOP/s";
    case Dim::seconds:
      return "s";
    case Dim::watts:
      return "W";
    case Dim::joules:
      return "J";
    case Dim::hertz:
      return "Hz";
    case Dim::tokens_per_s:
      return "tokens/s";
    case Dim::per_s:
      return "1/s";
    case Dim::money:
      return "currency units";
    case Dim::money_per_kwh:
      return "currency units/kWh";
  }
  return "?";
}

Dim dim_from_key(std::string_view key) {
  // Longest suffixes first: "_bytes_per_s" must not be read as "_s".
  struct Rule {
    std::string_view suffix;
    Dim dim;
  };
  static constexpr std::array<Rule, 16> kRules{{
      {"_mt_s", Dim::dimensionless},  // memory speed in mega-transfers/s: a count, not seconds
      {"_bytes_per_s", Dim::bytes_per_s},
      {"_flops_per_s", Dim::flops_per_s},
      {"_tokens_per_s", Dim::tokens_per_s},
      {"_per_kwh", Dim::money_per_kwh},
      {"_per_s", Dim::per_s},
      {"_qps", Dim::per_s},
      {"_bytes", Dim::bytes},
      {"_flops", Dim::flops},
      {"_usd", Dim::money},
      {"_cny", Dim::money},
      {"_eur", Dim::money},
      {"_hz", Dim::hertz},
      {"_s", Dim::seconds},
      {"_w", Dim::watts},
      {"_j", Dim::joules},
  }};
  for (const auto& r : kRules) {
    if (ends_with(key, r.suffix)) return r.dim;
  }
  return Dim::dimensionless;
}

Result<double> parse_quantity(std::string_view text, Dim expected) {
  const std::string_view s = trim(text);
  if (s.empty())
    return Error{fmt::format("expected {}, found an empty value", expected_text(expected))};

  // from_chars takes no leading '+'; YAML authors sometimes write one.
  std::string_view num = s;
  bool plus = false;
  if (num.front() == '+') {
    plus = true;
    num.remove_prefix(1);
  }
  double value = 0;
  const char* begin = num.data();
  const char* end = num.data() + num.size();
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec == std::errc::invalid_argument || ptr == begin ||
      (plus && !num.empty() && num.front() == '-')) {
    return Error{fmt::format("expected {}, found {}", expected_text(expected), quote_text(s))};
  }
  if (ec == std::errc::result_out_of_range) {
    return Error{fmt::format("expected {}, found {} (out of range)", expected_text(expected),
                             quote_text(s))};
  }
  if (!std::isfinite(value)) {
    return Error{fmt::format("expected {}, found {} (not a finite number)", expected_text(expected),
                             quote_text(s))};
  }
  const std::string_view unit = trim(std::string_view(ptr, static_cast<size_t>(end - ptr)));
  if (unit.empty()) return value;  // a bare number is already SI

  const UnitEntry* match = nullptr;
  for (const auto& e : table()) {
    if (e.spelling == unit) {
      match = &e;
      break;
    }
  }
  if (match == nullptr) {
    // Case matters ("Mb" is megabits, "mB" nothing): point at the spelling that was meant.
    std::vector<std::string_view> near;
    for (const auto& e : table()) {
      if (iequal(e.spelling, unit) &&
          std::find(near.begin(), near.end(), e.spelling) == near.end() &&
          (expected == Dim::dimensionless || e.dim == expected))
        near.push_back(e.spelling);
    }
    if (!near.empty()) {
      return Error{fmt::format(
          "expected {}, found unknown unit {} (units are case-sensitive; did you mean '{}'?)",
          expected_text(expected), quote_text(unit), near.front())};
    }
    return Error{fmt::format("expected {}, found unknown unit {}", expected_text(expected),
                             quote_text(unit))};
  }
  if (match->dim != expected) {
    return Error{
        fmt::format("expected {}, found {} ({})", expected_text(expected), quote_text(unit),
                    match->dim == Dim::dimensionless ? "a plain number" : dim_unit(match->dim))};
  }
  // Finiteness is checked again after the unit factor: "1e308 TB/s" is a finite number of a
  // unit whose SI value is not.
  const double si = value * match->factor;
  if (!std::isfinite(si)) {
    return Error{fmt::format("expected {}, found {} (out of range once converted to {})",
                             expected_text(expected), quote_text(s), dim_unit(expected))};
  }
  return si;
}

namespace {

// Rounds to `significant` digits and prints without an exponent or trailing zeros.
std::string plain_number(double v, int significant) {
  if (v == 0) return "0";
  if (!std::isfinite(v)) return fmt::format("{}", v);
  const int digits = std::max(1, significant);
  const int mag = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  // At most 30 decimals: a subnormal (1e-308 s in ns) prints as 0, not 300 zeros.
  const int decimals = std::clamp(digits - 1 - mag, 0, 30);
  std::string s = fmt::format("{:.{}f}", v, decimals);
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

double round_significant(double v, int significant) {
  if (v == 0 || !std::isfinite(v)) return v;
  const int digits = std::max(1, significant);
  const int mag = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  const int shift = digits - 1 - mag;
  // Scale by an exact power of ten in the direction that keeps it >= 1 (1e9 is exact, 1e-9 not).
  if (shift >= 0) {
    // 10^shift overflows for subnormal magnitudes (found by fuzz_units: 1.1e-307 s gave NaN):
    // such a value is left unrounded.
    const double scale = std::pow(10.0, shift);
    if (!std::isfinite(scale)) return v;
    return std::round(v * scale) / scale;
  }
  const double scale = std::pow(10.0, -shift);
  return std::round(v / scale) * scale;
}

std::string with_prefix(double v, int significant, std::string_view base) {
  static constexpr std::array<Prefix, 7> kPrefixes{
      {{"", 1.0}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"E", 1e18}}};
  const double r = round_significant(v, significant);
  size_t i = 0;
  while (i + 1 < kPrefixes.size() && std::fabs(r) >= kPrefixes[i + 1].factor) ++i;
  return fmt::format("{} {}{}", plain_number(r / kPrefixes[i].factor, significant),
                     kPrefixes[i].symbol, base);
}

std::string time_text(double v, int significant) {
  const double r = round_significant(v, significant);
  const double a = std::fabs(r);
  if (a == 0) return "0 s";
  if (a < 1e-6) return fmt::format("{} ns", plain_number(r * 1e9, significant));
  if (a < 1e-3) return fmt::format("{} us", plain_number(r * 1e6, significant));
  if (a < 1.0) return fmt::format("{} ms", plain_number(r * 1e3, significant));
  if (a < 60.0) return fmt::format("{} s", plain_number(r, significant));
  if (a < 3600.0) return fmt::format("{} min", plain_number(r / 60.0, significant));
  return fmt::format("{} h", plain_number(r / 3600.0, significant));
}

}  // namespace

std::string format_quantity(double si_value, Dim d, int significant) {
  if (std::isnan(si_value)) return fmt::format("nan {}", dim_unit(d));
  if (std::isinf(si_value)) return fmt::format("{}inf {}", si_value < 0 ? "-" : "", dim_unit(d));
  switch (d) {
    case Dim::bytes:
      return with_prefix(si_value, significant, "B");
    case Dim::bytes_per_s:
      return with_prefix(si_value, significant, "B/s");
    case Dim::flops:
      return with_prefix(si_value, significant, "FLOP");
    case Dim::flops_per_s:
      return with_prefix(si_value, significant, "FLOP/s");
    case Dim::watts:
      return with_prefix(si_value, significant, "W");
    case Dim::joules:
      return with_prefix(si_value, significant, "J");
    case Dim::hertz:
      return with_prefix(si_value, significant, "Hz");
    case Dim::seconds:
      return time_text(si_value, significant);
    case Dim::tokens_per_s:
      return fmt::format("{} tokens/s",
                         plain_number(round_significant(si_value, significant), significant));
    case Dim::per_s:
      return fmt::format("{} /s",
                         plain_number(round_significant(si_value, significant), significant));
    case Dim::dimensionless:
    case Dim::money:
    case Dim::money_per_kwh:
      return plain_number(round_significant(si_value, significant), significant);
  }
  return plain_number(si_value, significant);
}

}  // namespace infercap
