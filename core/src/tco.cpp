#include "infercap/tco.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace infercap {

namespace {
constexpr double kHoursPerYear = 8760.0;
}  // namespace

std::string_view currency_name(Currency c) {
  return c == Currency::cny ? "CNY" : "USD";
}

double DevicePricing::unit_price_usd(double units) const {
  double price = tiers.empty() ? 0.0 : tiers.front().unit_price_usd;
  for (const auto& t : tiers) {
    if (units >= static_cast<double>(t.min_units)) price = t.unit_price_usd;
  }
  return price;
}

const DevicePricing* PriceBook::find(std::string_view hardware) const {
  for (const auto& d : devices) {
    if (d.hardware == hardware) return &d;
  }
  return nullptr;
}

const PortingCost* PriceBook::porting_for(std::string_view family) const {
  for (const auto& p : porting) {
    if (p.family == family) return &p;
  }
  return nullptr;
}

std::vector<std::string> validate(const PriceBook& p) {
  std::vector<std::string> errs;
  auto nonneg = [&](double v, const std::string& key) {
    if (!(v >= 0) || !std::isfinite(v))
      errs.push_back(fmt::format("{}: must be >= 0, got {}", key, v));
  };
  if (!(p.depreciation_years > 0))
    errs.push_back(fmt::format("depreciation_years: must be > 0, got {}", p.depreciation_years));
  if (!(p.pue >= 1.0) || !std::isfinite(p.pue))
    errs.push_back(fmt::format("pue: must be >= 1 (facility power over IT power), got {}", p.pue));
  if (!(p.cny_per_usd > 0))
    errs.push_back(fmt::format("cny_per_usd: must be > 0, got {}", p.cny_per_usd));
  nonneg(p.electricity_usd_per_kwh, "electricity_usd_per_kwh");
  nonneg(p.hosting_usd_per_kw_year, "hosting_usd_per_kw_year");
  nonneg(p.hosting_usd_per_rack_unit_year, "hosting_usd_per_rack_unit_year");
  nonneg(p.maintenance_fraction_per_year, "maintenance_fraction_per_year");
  nonneg(p.ops_usd_per_server_year, "ops_usd_per_server_year");
  nonneg(p.engineer_week_usd, "engineer_week_usd");
  for (size_t i = 0; i < p.devices.size(); ++i) {
    const auto& d = p.devices[i];
    const std::string at = fmt::format("devices[{}] ({})", i, d.hardware);
    if (d.tiers.empty()) errs.push_back(at + ".tiers: at least one price is needed");
    int last = 0;
    for (size_t t = 0; t < d.tiers.size(); ++t) {
      if (d.tiers[t].min_units <= last) {
        errs.push_back(fmt::format("{}.tiers[{}].min_units: must ascend from 1, got {}", at, t,
                                   d.tiers[t].min_units));
      }
      last = d.tiers[t].min_units;
      nonneg(d.tiers[t].unit_price_usd, fmt::format("{}.tiers[{}].unit_price_usd", at, t));
    }
    if (!d.tiers.empty() && d.tiers.front().min_units != 1)
      errs.push_back(at + ".tiers[0].min_units: the first tier must start at 1 unit");
    nonneg(d.server_price_usd, at + ".server_price_usd");
    nonneg(d.server_host_w, at + ".server_host_w");
    nonneg(d.cloud_usd_per_device_hour, at + ".cloud_usd_per_device_hour");
    nonneg(d.owned_devices, at + ".owned_devices");
    nonneg(d.owned_servers, at + ".owned_servers");
    if (d.rack_units_per_server <= 0) {
      errs.push_back(fmt::format("{}.rack_units_per_server: must be > 0, got {}", at,
                                 d.rack_units_per_server));
    }
  }
  for (size_t i = 0; i < p.porting.size(); ++i) {
    nonneg(p.porting[i].first_port_engineer_weeks,
           fmt::format("porting[{}].first_port_engineer_weeks", i));
    nonneg(p.porting[i].per_model_change_engineer_weeks,
           fmt::format("porting[{}].per_model_change_engineer_weeks", i));
  }
  return errs;
}

CostBreakdown& CostBreakdown::operator+=(const CostBreakdown& o) {
  capex_usd += o.capex_usd;
  capital_usd += o.capital_usd;
  energy_usd += o.energy_usd;
  hosting_usd += o.hosting_usd;
  maintenance_usd += o.maintenance_usd;
  ops_usd += o.ops_usd;
  porting_usd += o.porting_usd;
  tco_usd += o.tco_usd;
  opex_per_year_usd += o.opex_per_year_usd;
  energy_kwh += o.energy_kwh;
  cloud_usd += o.cloud_usd;
  cloud_available = cloud_available || o.cloud_available;
  estimate = estimate || o.estimate;
  purchases.insert(purchases.end(), o.purchases.begin(), o.purchases.end());
  return *this;
}

namespace {

// Everything except porting, which is charged once per family across a whole fleet.
Result<CostBreakdown> price_hardware(const Footprint& f, const PriceBook& book, double* requests,
                                     double* tokens) {
  const DevicePricing* dp = book.find(f.hardware);
  if (dp == nullptr) {
    return Error{
        fmt::format("no price for hardware '{}' in price book '{}'", f.hardware, book.name)};
  }
  CostBreakdown c;
  c.estimate = dp->estimate;
  c.cloud_available = dp->cloud_usd_per_device_hour > 0;
  const double horizon = static_cast<double>(f.years.size());
  double final_devices = 0;
  for (const auto& y : f.years) final_devices = std::max(final_devices, y.devices);
  const double unit = dp->unit_price_usd(final_devices);
  // Owned units count as already installed: only the excess is bought.
  double have_devices = dp->owned_devices;
  double have_servers = dp->owned_servers;
  double installed_value = 0;
  for (size_t i = 0; i < f.years.size(); ++i) {
    const FleetYear& y = f.years[i];
    const double new_devices = std::max(0.0, y.devices - have_devices);
    const double new_servers = std::max(0.0, y.servers - have_servers);
    if (new_devices > 0 || new_servers > 0) {
      const double spend = new_devices * unit + new_servers * dp->server_price_usd;
      c.capex_usd += spend;
      const double remaining = horizon - static_cast<double>(i);
      c.capital_usd += spend * remaining / book.depreciation_years;
      installed_value += spend;
      if (new_devices > 0) c.purchases.push_back({static_cast<int>(i), f.hardware, new_devices});
      have_devices += new_devices;
      have_servers += new_servers;
    }
    const double kwh = y.it_power_w * kHoursPerYear / 1000.0 * book.pue;
    c.energy_kwh += kwh;
    c.energy_usd += kwh * book.electricity_usd_per_kwh;
    // Owned servers are already racked and operated for their current work: the plan adds
    // only the servers beyond them to hosting and operations.
    const double added =
        y.servers > 0 ? std::max(0.0, y.servers - dp->owned_servers) / y.servers : 0;
    c.hosting_usd += added * (y.provisioned_w / 1000.0 * book.hosting_usd_per_kw_year +
                              y.rack_units * book.hosting_usd_per_rack_unit_year);
    c.maintenance_usd += installed_value * book.maintenance_fraction_per_year;
    c.ops_usd += added * y.servers * book.ops_usd_per_server_year;
    c.cloud_usd += y.device_busy_hours * dp->cloud_usd_per_device_hour;
    *requests += y.requests;
    *tokens += y.output_tokens;
  }
  const double opex = c.energy_usd + c.hosting_usd + c.maintenance_usd + c.ops_usd;
  c.opex_per_year_usd = horizon > 0 ? opex / horizon : 0;
  c.tco_usd = c.capital_usd + opex;
  return c;
}

Result<double> porting_usd(const std::string& family, double model_changes, const PriceBook& book,
                           bool* estimate) {
  if (family.empty()) return 0.0;
  const PortingCost* pc = book.porting_for(family);
  if (pc == nullptr) {
    if (book.engineer_week_usd > 0) {
      return Error{fmt::format("no porting entry for hardware family '{}' in price book '{}'",
                               family, book.name)};
    }
    return 0.0;
  }
  *estimate = *estimate || pc->estimate;
  const double weeks =
      pc->first_port_engineer_weeks + model_changes * pc->per_model_change_engineer_weeks;
  return weeks * book.engineer_week_usd;
}

void finish(CostBreakdown& c, double requests, double tokens) {
  c.per_request_usd = requests > 0 ? c.tco_usd / requests : 0;
  c.per_million_tokens_usd = tokens > 0 ? c.tco_usd / tokens * 1e6 : 0;
}

}  // namespace

Result<CostBreakdown> price_footprint(const Footprint& f, const PriceBook& book) {
  return price_fleet({f}, book);
}

Result<CostBreakdown> price_fleet(const std::vector<Footprint>& fleet, const PriceBook& book) {
  CostBreakdown total;
  double requests = 0;
  double tokens = 0;
  // Porting is per family: two CUDA GPUs in one fleet share one port of the model.
  std::map<std::string, double> family_changes;
  for (const auto& f : fleet) {
    auto c = price_hardware(f, book, &requests, &tokens);
    if (!c) return c.error();
    total += *c;
    const DevicePricing* dp = book.find(f.hardware);
    auto [it, fresh] = family_changes.emplace(dp->porting_family, f.model_changes);
    if (!fresh) it->second = std::max(it->second, f.model_changes);
  }
  for (const auto& [family, changes] : family_changes) {
    auto p = porting_usd(family, changes, book, &total.estimate);
    if (!p) return p.error();
    total.porting_usd += *p;
    total.tco_usd += *p;
  }
  std::stable_sort(total.purchases.begin(), total.purchases.end());
  finish(total, requests, tokens);
  return total;
}

double to_currency(double usd, Currency c, const PriceBook& book) {
  return c == Currency::cny ? usd * book.cny_per_usd : usd;
}

}  // namespace infercap
