#include "infercap_gui/uncertainty.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace infercap::gui {

double TornadoBar::span() const {
  double s = 0;
  for (const TornadoEnd* e : {&down, &up}) {
    if (!e->present) continue;
    s = std::max(s, e->feasible ? std::fabs(e->tco_change) : 1.0);
  }
  return s;
}

namespace {

const char* param_words(SensitivityParam p) {
  switch (p) {
    case SensitivityParam::load:
      return "load";
    case SensitivityParam::electricity:
      return "electricity price";
    case SensitivityParam::device_prices:
      return "device prices";
    case SensitivityParam::sla:
      return "SLA limits";
    case SensitivityParam::horizon:
      return "horizon";
    case SensitivityParam::model_error:
      return "model error";
  }
  return "?";
}

std::string case_words(const SensitivityCase& k) {
  if (k.param == SensitivityParam::horizon) return fmt::format("horizon {:+.0f} year", k.factor);
  if (k.param == SensitivityParam::sla) return k.factor < 1 ? "SLA halved" : "SLA doubled";
  return fmt::format("{} {:+.0f}%", param_words(k.param), (k.factor - 1) * 100);
}

}  // namespace

std::vector<TornadoBar> tornado(const Sensitivity& s, const report::Section* table) {
  const report::Table* t = nullptr;
  if (table != nullptr) {
    for (const auto& b : table->blocks) {
      if (b.kind == report::BlockKind::table) {
        t = &b.table;
        break;
      }
    }
  }
  const bool words_from_table = t != nullptr && t->rows.size() == s.cases.size();
  std::vector<TornadoBar> bars;
  for (std::size_t i = 0; i < s.cases.size(); ++i) {
    const SensitivityCase& k = s.cases[i];
    auto it = std::find_if(bars.begin(), bars.end(),
                           [&](const TornadoBar& b) { return b.param == k.param; });
    if (it == bars.end()) {
      bars.push_back({k.param, param_words(k.param), {}, {}});
      it = bars.end() - 1;
    }
    const bool down = k.param == SensitivityParam::horizon ? k.factor < 0 : k.factor < 1;
    TornadoEnd& e = down ? it->down : it->up;
    e.present = true;
    e.words = words_from_table && !t->rows[i].empty() ? t->rows[i][0].text : case_words(k);
    e.factor = k.factor;
    e.feasible = k.feasible;
    e.same_choice = k.same_choice;
    e.choice = k.choice;
    e.tco_usd = k.tco_usd;
    e.tco_change = k.tco_change;
    e.infeasible = k.infeasible_reason;
  }
  std::stable_sort(bars.begin(), bars.end(),
                   [](const TornadoBar& a, const TornadoBar& b) { return a.span() > b.span(); });
  return bars;
}

}  // namespace infercap::gui
