#include "infercap/spec/diagnostics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <utility>

namespace infercap::spec {

std::string format(const Diagnostic& d) {
  std::string out;
  if (!d.file.empty()) {
    out += d.file;
    if (d.line > 0) out += fmt::format(":{}:{}", d.line, std::max(d.col, 1));
    out += ": ";
  }
  out += d.severity == Severity::error ? "error: " : "warning: ";
  if (!d.key_path.empty()) {
    // A key path comes from the user's keys: cut like any echoed text (a character boundary).
    if (d.key_path.size() <= 2 * kMaxEchoBytes) {
      out += d.key_path;
    } else {
      std::size_t cut = kMaxEchoBytes;
      while (cut > 0 && (static_cast<unsigned char>(d.key_path[cut]) & 0xC0) == 0x80) --cut;
      out += d.key_path.substr(0, cut) + "...";
    }
    out += ": ";
  }
  out += d.message;
  if (!d.hint.empty()) out += " (" + d.hint + ")";
  return out;
}

void Diagnostics::add(Diagnostic d) {
  if (d.severity == Severity::error) ++errors_;
  // Counted but not kept past the limit: a file with a million bad values must not print (or
  // hold) a million lines.
  if (items_.size() < kMaxDiagnostics) {
    items_.push_back(std::move(d));
  } else if (items_.size() == kMaxDiagnostics) {
    items_.push_back(Diagnostic{
        d.file, 0, 0, "",
        fmt::format("more problems follow; only the first {} are shown", kMaxDiagnostics), "",
        Severity::warning});
  }
}

void Diagnostics::error(std::string file, int line, int col, std::string key_path,
                        std::string message, std::string hint) {
  add(Diagnostic{std::move(file), line, col, std::move(key_path), std::move(message),
                 std::move(hint), Severity::error});
}

void Diagnostics::warning(std::string file, int line, int col, std::string key_path,
                          std::string message, std::string hint) {
  add(Diagnostic{std::move(file), line, col, std::move(key_path), std::move(message),
                 std::move(hint), Severity::warning});
}

std::string Diagnostics::format() const {
  std::string out;
  for (const auto& d : items_) out += spec::format(d) + "\n";
  return out;
}

std::vector<std::string> Diagnostics::lines() const {
  std::vector<std::string> out;
  out.reserve(items_.size());
  for (const auto& d : items_) out.push_back(spec::format(d));
  return out;
}

void Diagnostics::append(const Diagnostics& other) {
  for (const auto& d : other.items_) add(d);
}

void Diagnostics::clear() {
  items_.clear();
  errors_ = 0;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  auto low = [](char c) { return std::tolower(static_cast<unsigned char>(c)); };
  const std::size_t n = a.size();
  const std::size_t m = b.size();
  // Three rows suffice for the transposition rule.
  std::vector<std::size_t> prev2(m + 1), prev(m + 1), cur(m + 1);
  for (std::size_t j = 0; j <= m; ++j) prev[j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = low(a[i - 1]) == low(b[j - 1]) ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && low(a[i - 1]) == low(b[j - 2]) && low(a[i - 2]) == low(b[j - 1]))
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[m];
}

std::string quote_text(std::string_view text) {
  if (text.size() <= kMaxEchoBytes) return "'" + std::string(text) + "'";
  std::size_t cut = kMaxEchoBytes;
  // Back up over UTF-8 continuation bytes (10xxxxxx) so no character is split.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return "'" + std::string(text.substr(0, cut)) + "...' (" + std::to_string(text.size()) +
         " bytes)";
}

std::vector<std::string> did_you_mean(std::string_view word,
                                      const std::vector<std::string>& candidates,
                                      std::size_t max_results) {
  if (word.size() > kMaxSuggestBytes) return {};
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::vector<std::pair<std::size_t, std::size_t>> scored;  // (score, index)
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const std::string& c = candidates[i];
    if (c.empty() || c.size() > kMaxSuggestBytes) continue;
    std::size_t score = edit_distance(word, c);
    // A word that is a (slightly misspelt) start of a candidate: "h100" -> "h100-sxm".
    if (c.size() > word.size() && !word.empty())
      score = std::min(score, edit_distance(word, std::string_view(c).substr(0, word.size())) + 1);
    if (score <= limit) scored.emplace_back(score, i);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (const auto& [score, i] : scored) {
    if (out.size() >= max_results) break;
    if (std::find(out.begin(), out.end(), candidates[i]) == out.end()) out.push_back(candidates[i]);
  }
  return out;
}

std::string did_you_mean_text(const std::vector<std::string>& suggestions) {
  if (suggestions.empty()) return {};
  std::string out = "did you mean ";
  for (std::size_t i = 0; i < suggestions.size(); ++i) {
    if (i > 0) out += ", ";
    out += "'" + suggestions[i] + "'";
  }
  return out + "?";
}

}  // namespace infercap::spec
