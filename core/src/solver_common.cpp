// Wording, pool aggregates and feasibility bookkeeping shared by the solver (solver_internal.hpp).

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "infercap/units.hpp"

#include "solver_internal.hpp"

namespace infercap::plan_detail {

std::string gib(double bytes) {
  return fmt::format("{:.1f} GiB", bytes / kGiB);
}

namespace {

// Money in the display currency at `extra` more decimals than the plain form.
std::string money_at(double usd, const PriceBook& book, int extra) {
  const bool cny = book.display_currency == Currency::cny;
  const double v = to_currency(usd, book.display_currency, book);
  const double a = std::fabs(v);
  std::string n;
  if (a >= 1e6) {
    n = fmt::format("{:.{}f}M", v / 1e6, 2 + extra);
  } else if (a >= 1e3) {
    n = fmt::format("{:.{}f}k", v / 1e3, extra);
  } else {
    n = fmt::format("{:.{}f}", v, extra);
  }
  return cny ? n + " CNY" : "$" + n;
}

}  // namespace

std::pair<std::string, std::string> money_apart(double a_usd, double b_usd, const PriceBook& book) {
  for (int extra = 0; extra < 6; ++extra) {
    std::string x = money_at(a_usd, book, extra);
    std::string y = money_at(b_usd, book, extra);
    if (x != y || a_usd == b_usd || extra == 5) return {x, y};
  }
  return {money(a_usd, book), money(b_usd, book)};
}

std::string money(double usd, const PriceBook& book) {
  return money_at(usd, book, 0);
}

std::string seconds(double s) {
  if (s >= 1.0) return fmt::format("{:.3g} s", s);
  return fmt::format("{:.3g} ms", s * 1e3);
}

std::string sig_fixed(double v, int sig) {
  if (v == 0 || !std::isfinite(v)) return fmt::format("{}", v);
  const int mag = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  const int decimals = std::max(0, sig - 1 - mag);
  return fmt::format("{:.{}f}", v, decimals);
}

std::string rate(double qps) {
  return std::fabs(qps) >= 100 ? fmt::format("{:.0f}", qps) : sig_fixed(qps, 3);
}

std::pair<std::string, std::string> apart(double a, double b, int sig) {
  // Whole numbers are never rounded away: 18208 stays 18208 rather than 18200.
  const double big = std::max(std::fabs(a), std::fabs(b));
  if (big >= 1) sig = std::max(sig, 1 + static_cast<int>(std::floor(std::log10(big))));
  for (int s = sig; s <= 12; ++s) {
    std::string x = sig_fixed(a, s);
    std::string y = sig_fixed(b, s);
    if (x != y || a == b || s == 12) return {x, y};
  }
  return {sig_fixed(a, sig), sig_fixed(b, sig)};
}

std::pair<std::string, std::string> seconds_apart(double a_s, double b_s) {
  const bool ms = std::max(a_s, b_s) < 1.0;
  const double f = ms ? 1e3 : 1.0;
  const char* unit = ms ? " ms" : " s";
  auto [x, y] = apart(a_s * f, b_s * f, 3);
  return {x + unit, y + unit};
}

std::pair<std::string, std::string> gib_apart(double a_bytes, double b_bytes) {
  // One decimal ("7.5 GiB"), more only where the two figures would otherwise read equal.
  const double a = a_bytes / kGiB;
  const double b = b_bytes / kGiB;
  for (int d = 1; d <= 6; ++d) {
    std::string x = fmt::format("{:.{}f} GiB", a, d);
    std::string y = fmt::format("{:.{}f} GiB", b, d);
    if (x != y || a == b || d == 6) return {x, y};
  }
  return {gib(a_bytes), gib(b_bytes)};
}

std::string metric_label(const std::string& metric) {
  if (metric == "ttft") return "TTFT";
  if (metric == "tpot") return "TPOT";
  if (metric == "e2e") return "end-to-end latency";
  return metric;
}

const SlaTarget* sla_target(const Sla& sla, const std::string& metric) {
  if (metric == "ttft") return &sla.ttft;
  if (metric == "tpot") return &sla.tpot;
  if (metric == "e2e") return &sla.e2e;
  return nullptr;
}

double at_sla(const ClassLatency& c, const std::string& metric) {
  if (metric == "ttft") return c.ttft_at_sla_s;
  if (metric == "tpot") return c.tpot_at_sla_s;
  if (metric == "e2e") return c.e2e_at_sla_s;
  return 0;
}

double pool_design_qps(const Pool& p) {
  double q = 0;
  for (const auto& c : p.classes) q += design_qps(c.rate);
  return q;
}

double pool_average_qps(const Pool& p) {
  double q = 0;
  for (const auto& c : p.classes) q += average_qps(c.rate);
  return q;
}

// Output tokens per request, weighted by each class's share of the average load.
double pool_mean_output(const Pool& p) {
  double q = 0;
  double t = 0;
  for (const auto& c : p.classes) {
    const double w = average_qps(c.rate);
    q += w;
    t += w * mean(c.output_tokens);
  }
  return q > 0 ? t / q : 0;
}

// The longest sequence the pool must hold: P99 prompt + P99 output of its longest class.
double pool_longest_tokens(const Pool& p) {
  double longest = 0;
  for (const auto& c : p.classes) {
    auto qp = quantile(c.prompt_tokens, 99);
    auto qo = quantile(c.output_tokens, 99);
    longest =
        std::max(longest, (qp ? *qp : mean(c.prompt_tokens)) + (qo ? *qo : mean(c.output_tokens)));
  }
  return std::ceil(longest);
}

double pool_mean_context(const Pool& p) {
  double q = 0;
  double t = 0;
  for (const auto& c : p.classes) {
    const double w = average_qps(c.rate) > 0 ? average_qps(c.rate) : design_qps(c.rate);
    q += w;
    t += w * (mean(c.prompt_tokens) + mean(c.output_tokens));
  }
  return q > 0 ? t / q : 0;
}

bool class_allowed(const std::vector<HwClass>& allowed, HwClass c) {
  return allowed.empty() || std::find(allowed.begin(), allowed.end(), c) != allowed.end();
}

bool class_tries_stack(const SearchSpace& space, HwClass c, const StackSpec& st) {
  const auto cls = static_cast<size_t>(c);
  return cls >= space.stack_per_class.size() || st.name == space.stack_per_class[cls];
}

void add(CandidateRow& r, std::string name, bool ok, double margin, std::string message,
         std::string fix) {
  Constraint c;
  c.name = std::move(name);
  c.ok = ok;
  c.margin = margin;
  c.message = std::move(message);
  c.fix = std::move(fix);
  r.constraints.push_back(std::move(c));
}

void quantify(CandidateRow& r, std::string quantity, double value, double limit) {
  if (r.constraints.empty()) return;
  Constraint& c = r.constraints.back();
  c.quantity = std::move(quantity);
  c.value = value;
  c.limit = limit;
}

void finish_feasibility(CandidateRow& r) {
  r.feasible = true;
  int worst = -1;
  for (size_t i = 0; i < r.constraints.size(); ++i) {
    const auto& c = r.constraints[i];
    if (!c.ok) r.feasible = false;
  }
  // Binding: the most violated failed constraint, else the one with least slack.
  for (size_t i = 0; i < r.constraints.size(); ++i) {
    const auto& c = r.constraints[i];
    if (!r.feasible && c.ok) continue;
    if (worst < 0 || c.margin < r.constraints[static_cast<size_t>(worst)].margin)
      worst = static_cast<int>(i);
  }
  // A feasible row is bound by what set its replica count, not by whichever slack is smallest.
  if (r.feasible && !r.sized_by.empty()) {
    for (size_t i = 0; i < r.constraints.size(); ++i)
      if (r.constraints[i].name == r.sized_by) worst = static_cast<int>(i);
  }
  r.binding = worst;
}

double device_power_w(const HardwareSpec& hw, double utilisation) {
  const double idle = hw.idle_w > 0 ? hw.idle_w : kIdleFractionDefault * hw.tdp_w;
  const double u = std::clamp(utilisation, 0.0, 1.0);
  return idle + u * std::max(0.0, hw.tdp_w - idle);
}

const ModelSpec* find_model(const PlanInputs& in, const std::string& name) {
  for (const auto& m : in.models)
    if (m.name == name) return &m;
  return nullptr;
}

}  // namespace infercap::plan_detail
