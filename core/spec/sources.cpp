#include "infercap/spec/sources.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>

namespace infercap::spec {

namespace {

bool is_iso_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (std::size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u}) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  const int month = (s[5] - '0') * 10 + (s[6] - '0');
  const int day = (s[8] - '0') * 10 + (s[9] - '0');
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

bool glob(std::string_view pat, std::string_view s) {
  // Iterative wildcard match with backtracking to the last '*'.
  std::size_t p = 0, i = 0, star = std::string_view::npos, mark = 0;
  while (i < s.size()) {
    if (p < pat.size() && pat[p] == '*') {
      star = p++;
      mark = i;
    } else if (p < pat.size() && pat[p] == s[i]) {
      ++p;
      ++i;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      i = ++mark;
    } else {
      return false;
    }
  }
  while (p < pat.size() && pat[p] == '*') ++p;
  return p == pat.size();
}

}  // namespace

bool source_covers(std::string_view pattern, std::string_view path) {
  if (pattern == path) return true;
  if (pattern.find('*') != std::string_view::npos) return glob(pattern, path);
  return path.size() > pattern.size() && path.substr(0, pattern.size()) == pattern &&
         (path[pattern.size()] == '.' || path[pattern.size()] == '[');
}

std::vector<SourceRef> read_sources(Reader& r, bool required) {
  std::vector<SourceRef> out;
  if (!r.has("sources") && !r.describing()) {
    if (required) {
      r.list("sources", true);
    } else {
      r.ignore("sources");
    }
    return out;
  }
  for (Reader& e : r.list("sources", required)) {
    SourceRef s;
    if (auto f = e.required<std::vector<std::string>>("fields")) {
      s.fields = std::move(*f);
      if (s.fields.empty())
        e.error("fields", "expected at least one key path, found an empty list");
    }
    if (auto ref = e.required<std::string>("ref")) s.ref = std::move(*ref);
    if (auto d = e.required<std::string>("date")) {
      if (!is_iso_date(*d))
        e.error("date", fmt::format("expected an ISO date (YYYY-MM-DD), found '{}'", *d));
      s.date = std::move(*d);
    }
    s.note = e.value_or<std::string>("note", "");
    out.push_back(std::move(s));
  }
  return out;
}

void check_source_coverage(Reader& r, const std::vector<SourceRef>& sources) {
  for (const auto& f : r.numeric_fields()) {
    const bool covered = std::any_of(sources.begin(), sources.end(), [&](const SourceRef& s) {
      return std::any_of(s.fields.begin(), s.fields.end(),
                         [&](const std::string& p) { return source_covers(p, f.path); });
    });
    if (!covered) {
      r.diagnostics().error(r.file(), f.pos.line, f.pos.col, f.path,
                            "numeric value without a source",
                            fmt::format("list '{}' in the fields of a 'sources:' entry", f.path));
    }
  }
  // A misspelt field name would silently cover nothing: it must name a key the loader knows.
  const auto& known = r.asked_paths();
  for (std::size_t i = 0; i < sources.size(); ++i) {
    for (std::size_t j = 0; j < sources[i].fields.size(); ++j) {
      const std::string& p = sources[i].fields[j];
      if (p.find('*') != std::string::npos) continue;
      const bool exists = std::any_of(known.begin(), known.end(),
                                      [&](const std::string& k) { return source_covers(p, k); });
      if (exists) continue;
      const std::string where = fmt::format("sources[{}].fields[{}]", i, j);
      r.error_at_path(where, fmt::format("expected a key of this file, found '{}'", p),
                      did_you_mean_text(did_you_mean(p, known)));
    }
  }
}

}  // namespace infercap::spec
