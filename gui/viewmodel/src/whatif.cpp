#include "infercap_gui/whatif.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "infercap/spec/atomic_write.hpp"
#include "infercap/spec/prices.hpp"
#include "infercap/spec/scenario_yaml.hpp"
#include "infercap_gui/view_model.hpp"

namespace infercap::gui {

void set_curve_scale(WhatIfInputs& in, const spec::Scenario& loaded, std::size_t i, double factor) {
  if (i >= in.sc.classes.size() || i >= loaded.classes.size() || !(factor > 0)) return;
  if (in.curve_scale.size() < in.sc.classes.size()) in.curve_scale.resize(in.sc.classes.size(), 1);
  const ArrivalRate& from = loaded.classes[i].rate;
  ArrivalRate& to = in.sc.classes[i].rate;
  to.mean_qps = from.mean_qps * factor;
  to.hourly_qps = from.hourly_qps;
  for (double& q : to.hourly_qps) q *= factor;
  // A peak below the scaled mean would be rejected by the reader; lift it with the mean.
  if (to.peak_qps > 0 && to.peak_qps < to.mean_qps) to.peak_qps = to.mean_qps;
  in.curve_scale[i] = factor;
}

void set_peak_qps(WhatIfInputs& in, std::size_t i, double qps) {
  if (i >= in.sc.classes.size() || !(qps >= 0)) return;
  ArrivalRate& r = in.sc.classes[i].rate;
  // The reader needs some rate and a peak no lower than the mean (workload.hpp).
  if (qps <= 0 && r.mean_qps <= 0 && r.hourly_qps.empty()) return;
  r.peak_qps = qps > 0 ? std::max(qps, r.mean_qps) : 0;
}

void set_mean_tokens(LengthDist& d, double mean_tokens) {
  if (!(mean_tokens >= 1)) return;
  const double was = mean(d);
  const double ratio = was > 0 ? mean_tokens / was : 1;
  switch (d.kind) {
    case LengthKind::fixed:
    case LengthKind::exponential:
      d.value_tokens = mean_tokens;
      return;
    case LengthKind::uniform:
      // The reader rounds to whole tokens and needs min >= 1.
      d.min_tokens = std::max(1.0, std::round(d.min_tokens * ratio));
      d.max_tokens = std::max(d.min_tokens, std::round(d.max_tokens * ratio));
      return;
    case LengthKind::lognormal:
      d.mu += std::log(ratio);
      return;
    case LengthKind::histogram:
      for (double& t : d.bin_tokens) t = std::max(1.0, t * ratio);
      return;
  }
}

void set_sla(WhatIfInputs& in, std::size_t i, SlaMetric m, double limit_s) {
  if (i >= in.sc.classes.size() || !(limit_s >= 0)) return;
  Sla& s = in.sc.classes[i].sla;
  SlaTarget& t = m == SlaMetric::ttft ? s.ttft : m == SlaMetric::tpot ? s.tpot : s.e2e;
  // The reader rejects an SLA without any bound: the last one cannot be removed.
  const int set = int(s.ttft.set()) + int(s.tpot.set()) + int(s.e2e.set());
  if (limit_s <= 0 && t.set() && set == 1) return;
  if (!t.set()) t.percentile = 99;
  t.limit_s = limit_s;
}

bool set_device_price(WhatIfInputs& in, const std::string& hardware, double unit_price_usd) {
  for (auto& d : in.sc.prices.devices) {
    if (d.hardware != hardware || d.tiers.empty()) continue;
    if (!(unit_price_usd >= 0)) return false;
    const double first = d.tiers.front().unit_price_usd;
    for (auto& t : d.tiers) {
      t.unit_price_usd = first > 0 ? t.unit_price_usd * unit_price_usd / first : unit_price_usd;
    }
    return true;
  }
  return false;
}

void toggle(std::vector<std::string>& list, const std::string& value) {
  auto it = std::find(list.begin(), list.end(), value);
  if (it != list.end()) {
    list.erase(it);
  } else {
    list.push_back(value);
  }
}

void toggle(std::vector<HwClass>& list, HwClass value) {
  auto it = std::find(list.begin(), list.end(), value);
  if (it != list.end()) {
    list.erase(it);
  } else {
    list.push_back(value);
  }
}

void toggle_hardware(WhatIfInputs& in, const spec::Catalog& cat, const std::string& name) {
  spec::CandidateSelection& c = in.sc.candidates;
  if (c.all_hardware) {
    c.all_hardware = false;
    c.hardware.clear();
    for (const auto& h : cat.hardware()) c.hardware.push_back(h.name);
  }
  toggle(c.hardware, name);
  // Every device listed again is the same question as `all`; none listed is not a question the
  // reader accepts, so it also goes back to `all`.
  if (c.hardware.empty() || c.hardware.size() == cat.hardware().size()) {
    c.all_hardware = true;
    c.hardware.clear();
  }
}

bool matches_search(const std::string& query, const std::string& name,
                    const std::vector<std::string>& aliases) {
  const std::string q = spec::normalize_name(query);
  if (q.empty()) return true;
  if (spec::normalize_name(name).find(q) != std::string::npos) return true;
  for (const auto& a : aliases)
    if (spec::normalize_name(a).find(q) != std::string::npos) return true;
  return false;
}

double to_display(double usd, const PriceBook& b) {
  return to_currency(usd, b.display_currency, b);
}

double from_display(double shown, const PriceBook& b) {
  return b.display_currency == Currency::cny ? shown / b.cny_per_usd : shown;
}

// ---- WhatIf --------------------------------------------------------------------------------

bool WhatIf::open(const std::string& path, const std::string& data_dir) {
  spec::Diagnostics diags;
  auto sc = spec::load_scenario(path, data_dir, diags);
  diagnostics_ = diags.lines();
  path_ = path;
  undo_.clear();
  redo_.clear();
  pending_ = false;
  if (!sc) {
    // Nothing stays selected: a broken file must not leave the previous scenario to be solved.
    loaded_.reset();
    base_book_.reset();
    cur_ = WhatIfInputs{};
    saved_.reset();
    saved_path_.clear();
    error_ = sc.error().message;
    return false;
  }
  error_.clear();
  loaded_ = *sc;
  cur_.sc = *sc;
  cur_.curve_scale.assign(sc->classes.size(), 1.0);
  // The base book as the scenario names it, so save() writes only the entries edited here or
  // overridden in the file. Resolved the way parse_scenario does.
  std::filesystem::path pf = sc->price_file;
  if (pf.extension() != ".yaml") {
    pf = std::filesystem::path(data_dir) / "prices" / (sc->price_file + ".yaml");
  } else if (pf.is_relative()) {
    pf = std::filesystem::path(path).parent_path() / pf;
  }
  spec::Diagnostics book_diags;
  auto book = spec::load_prices(pf.string(), book_diags);
  if (book) base_book_ = *book;
  saved_ = cur_;
  saved_path_ = path;
  pending_ = true;  // a freshly opened scenario is solved once, after the debounce
  last_edit_ = Clock::time_point{};
  return true;
}

void WhatIf::commit(const char* what, WhatIfInputs next, Clock::time_point now) {
  if (!loaded_ || same_question(next, cur_)) {
    cur_.curve_scale = next.curve_scale;  // a display-only difference (e.g. a rounded factor)
    return;
  }
  // A drag sends one edit per frame: edits of the same control within the debounce window are
  // one undo step, so undo reverts the whole drag.
  const bool same_gesture =
      !undo_.empty() && undo_.back().what == what && pending_ && now - last_edit_ < kDebounce;
  if (!same_gesture) undo_.push_back({what, std::move(cur_)});
  redo_.clear();
  cur_ = std::move(next);
  pending_ = true;
  last_edit_ = now;
}

void WhatIf::undo(Clock::time_point now) {
  if (undo_.empty()) return;
  redo_.push_back({undo_.back().what, std::move(cur_)});
  cur_ = std::move(undo_.back().in);
  undo_.pop_back();
  pending_ = true;
  last_edit_ = now;
}

void WhatIf::redo(Clock::time_point now) {
  if (redo_.empty()) return;
  undo_.push_back({redo_.back().what, std::move(cur_)});
  cur_ = std::move(redo_.back().in);
  redo_.pop_back();
  pending_ = true;
  last_edit_ = now;
}

std::string WhatIf::undo_label() const {
  return undo_.empty() ? "" : undo_.back().what;
}
std::string WhatIf::redo_label() const {
  return redo_.empty() ? "" : redo_.back().what;
}

bool WhatIf::solve_due(Clock::time_point now) const {
  return loaded_ && pending_ && now - last_edit_ >= kDebounce;
}

WhatIf::Clock::duration WhatIf::until_due(Clock::time_point now) const {
  if (!loaded_ || !pending_) return Clock::duration::zero();
  const auto left = last_edit_ + kDebounce - now;
  return left > Clock::duration::zero() ? left : Clock::duration::zero();
}

std::string WhatIf::yaml() const {
  if (!loaded_) return "";
  return spec::scenario_to_yaml(cur_.sc, base_book_ ? &*base_book_ : nullptr);
}

bool WhatIf::save(const std::string& path, std::string& error) const {
  if (!loaded_) {
    error = "no scenario is open";
    return false;
  }
  auto r = spec::write_file_atomically(
      path, spec::scenario_to_yaml(cur_.sc, base_book_ ? &*base_book_ : nullptr, path));
  if (!r) {
    error = r.error().message;
    return false;
  }
  saved_ = cur_;
  saved_path_ = path;
  return true;
}

std::string WhatIf::source_label() const {
  if (!loaded_) return "";
  if (saved_ && same_question(*saved_, cur_)) return saved_path_;
  return path_ + " (edited in infercap-gui, not saved)";
}

bool same_question(const WhatIfInputs& a, const WhatIfInputs& b) {
  return spec::scenario_to_yaml(a.sc) == spec::scenario_to_yaml(b.sc);
}

std::string plan_change(const Plan& before, const Plan& after, const PriceBook& prices) {
  std::vector<std::string> parts;
  const auto& a = before.recommended;
  const auto& b = after.recommended;
  if (before.feasible != after.feasible)
    parts.push_back(after.feasible ? "now feasible" : "no longer feasible");
  // Per pool: the hardware (and its precision / TP) of the recommended part.
  auto describe = [](const CandidateRow& r) {
    return fmt::format("{} x{} ({}, TP {})", r.hardware, r.replicas, r.precision, r.tp);
  };
  for (const auto& p : b.parts) {
    const CandidateRow* was = nullptr;
    for (const auto& q : a.parts)
      if (q.pool == p.pool) was = &q;
    if (was == nullptr) {
      parts.push_back(fmt::format("{}: {}", p.pool, describe(p)));
    } else if (describe(*was) != describe(p)) {
      parts.push_back(fmt::format("{}: {} -> {}", p.pool, describe(*was), describe(p)));
    }
  }
  if (a.devices != b.devices)
    parts.push_back(fmt::format("devices {} -> {}", a.devices, b.devices));
  const double ta = a.cost.tco_usd, tb = b.cost.tco_usd;
  if (std::fabs(ta - tb) > 1e-9 * std::max(std::fabs(ta), 1.0)) {
    const std::string cur(currency_name(prices.display_currency));
    std::string pct;
    if (ta > 0) pct = fmt::format(" ({:+.1f}%)", 100 * (tb - ta) / ta);
    parts.push_back(fmt::format("TCO {} -> {} {}{}", fmt_si(to_display(ta, prices), "", 3),
                                fmt_si(to_display(tb, prices), "", 3), cur, pct));
  }
  if (parts.empty()) return "no change in the recommendation";
  std::string out;
  for (const auto& s : parts) out += (out.empty() ? "" : "; ") + s;
  return out;
}

}  // namespace infercap::gui
