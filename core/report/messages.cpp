#include "messages.hpp"

#include <array>

namespace infercap::report {

namespace {

using Lookup = std::array<const char*, kMessageCount>;

Lookup index(const MessageEntry* entries, int n) {
  Lookup t{};
  for (int i = 0; i < n; ++i) t[static_cast<size_t>(entries[i].key)] = entries[i].text;
  return t;
}

constexpr const char* kKeyNames[] = {
#define INFERCAP_X(k) #k,
    INFERCAP_REPORT_MESSAGES(INFERCAP_X)
#undef INFERCAP_X
};

}  // namespace

std::string_view message_key(M m) {
  return kKeyNames[static_cast<size_t>(m)];
}

std::string_view message(Lang lang, M m) {
  static const Lookup en = index(kMessagesEn, kMessagesEnCount);
  static const Lookup zh = index(kMessagesZh, kMessagesZhCount);
  const size_t i = static_cast<size_t>(m);
  if (lang == Lang::zh && zh[i] != nullptr) return zh[i];
  if (en[i] != nullptr) return en[i];
  return kKeyNames[i];
}

M constraint_msg(std::string_view n) {
  if (n == "runs") return M::c_runs;
  if (n == "memory") return M::c_memory;
  if (n == "sla") return M::c_sla;
  if (n == "simulated_sla") return M::c_simulated_sla;
  if (n == "capex_budget") return M::c_capex_budget;
  if (n == "annual_budget") return M::c_annual_budget;
  if (n == "power") return M::c_power;
  if (n == "rack") return M::c_rack;
  if (n == "priced") return M::c_priced;
  if (n == "serving") return M::c_serving;
  return M::c_other;
}

}  // namespace infercap::report
