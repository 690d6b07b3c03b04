#include "infercap/spec/prices.hpp"

#include "infercap/spec/schema.hpp"
#include "infercap/spec/sources.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <regex>

namespace infercap::spec {

namespace {

// A money key spelled with either currency: `base_usd` or `base_cny` (both "{cur}" templates).
// Returns dollars. `cny_per_usd` converts yuan.
std::optional<double> money(Reader& r, std::string_view tmpl, double cny_per_usd) {
  const std::string t(tmpl);
  const auto pos = t.find("{cur}");
  const std::string usd = t.substr(0, pos) + "usd" + t.substr(pos + 5);
  const std::string cny = t.substr(0, pos) + "cny" + t.substr(pos + 5);
  if (r.describing()) {
    // Both spellings, each with the other named.
    r.optional<double>(usd, Range::non_negative());
    r.optional<double>(cny, Range::non_negative());
    r.describe_note(usd, fmt::format("Or {} instead (not both).", cny));
    r.describe_note(cny,
                    fmt::format("Yuan, converted at cny_per_usd; or {} instead (not both).", usd));
    return std::nullopt;
  }
  if (r.has(usd) && r.has(cny)) {
    r.error(cny, fmt::format("give '{}' or '{}', not both", usd, cny));
    r.ignore(cny);
  }
  if (r.has(cny)) {
    auto v = r.optional<double>(cny, Range::non_negative());
    if (v) return *v / cny_per_usd;
    return std::nullopt;
  }
  return r.optional<double>(usd, Range::non_negative());
}

void read_tiers(Reader& d, DevicePricing& dp, double rate) {
  auto tiers = d.list("tiers");
  if (tiers.empty()) return;
  dp.tiers.clear();
  for (auto& t : tiers) {
    VolumeTier vt;
    vt.min_units = t.value_or<int>("min_units", 1, Range::at_least(1));
    if (auto p = money(t, "unit_price_{cur}", rate)) {
      vt.unit_price_usd = *p;
    } else if (!t.has("unit_price_usd") && !t.has("unit_price_cny")) {
      t.error_here("a tier needs unit_price_usd (or unit_price_cny)");
    }
    dp.tiers.push_back(vt);
  }
  std::stable_sort(dp.tiers.begin(), dp.tiers.end(), [](const VolumeTier& a, const VolumeTier& b) {
    return a.min_units < b.min_units;
  });
  if (dp.tiers.front().min_units != 1)
    d.error("tiers", "the first tier must start at min_units: 1 (the price of a single unit)");
}

void read_device(Reader& d, DevicePricing& dp, double rate) {
  read_tiers(d, dp, rate);
  if (auto v = money(d, "server_price_{cur}", rate)) dp.server_price_usd = *v;
  if (auto v = d.optional<double>("server_host_w", Range::non_negative())) dp.server_host_w = *v;
  if (auto v = d.optional<int>("rack_units_per_server", Range::at_least(1)))
    dp.rack_units_per_server = *v;
  if (auto v = money(d, "cloud_{cur}_per_device_hour", rate)) dp.cloud_usd_per_device_hour = *v;
  if (auto v = d.optional<std::string>("porting_family")) dp.porting_family = *v;
  if (auto v = d.optional<bool>("estimate")) dp.estimate = *v;
  if (auto v = d.optional<double>("owned_devices", Range::non_negative())) dp.owned_devices = *v;
  if (auto v = d.optional<double>("owned_servers", Range::non_negative())) dp.owned_servers = *v;
  if (d.has("note") || d.describing()) d.ignore("note");
}

// "devices[3].tiers[0].unit_price_usd" -> "devices.<name>.tiers[0].unit_price_usd".
std::string named_path(const std::string& path, const PriceBook& b) {
  static const std::regex re(R"(^(devices|porting)\[(\d+)\](.*)$)");
  std::smatch m;
  if (!std::regex_match(path, m, re)) return path;
  const size_t i = std::stoul(m[2].str());
  std::string name;
  if (m[1] == "devices" && i < b.devices.size()) name = b.devices[i].hardware;
  if (m[1] == "porting" && i < b.porting.size()) name = b.porting[i].family;
  if (name.empty()) return path;
  return fmt::format("{}.{}{}", m[1].str(), name, m[3].str());
}

}  // namespace

void read_price_fields(Reader& r, PriceBook& b, bool is_file) {
  if (auto v = r.optional<std::string>("name")) b.name = *v;
  if (auto c = r.optional_enum<Currency>("display_currency",
                                         {{"USD", Currency::usd}, {"CNY", Currency::cny}}))
    b.display_currency = *c;
  if (auto v = r.optional<double>("cny_per_usd", Range::positive())) b.cny_per_usd = *v;
  const double rate = b.cny_per_usd;
  if (auto v = r.optional<double>("depreciation_years", Range::positive()))
    b.depreciation_years = *v;
  if (auto v = money(r, "electricity_{cur}_per_kwh", rate)) b.electricity_usd_per_kwh = *v;
  if (auto v = r.optional<double>("pue", Range::at_least(1))) b.pue = *v;
  if (auto v = money(r, "hosting_{cur}_per_kw_year", rate)) b.hosting_usd_per_kw_year = *v;
  if (auto v = money(r, "hosting_{cur}_per_rack_unit_year", rate))
    b.hosting_usd_per_rack_unit_year = *v;
  if (auto v = r.optional<double>("maintenance_fraction_per_year", Range::fraction()))
    b.maintenance_fraction_per_year = *v;
  if (auto v = money(r, "ops_{cur}_per_server_year", rate)) b.ops_usd_per_server_year = *v;
  if (auto v = money(r, "engineer_week_{cur}", rate)) b.engineer_week_usd = *v;
  for (auto& d : r.list("devices")) {
    auto name = d.required<std::string>("hardware");
    if (!name && d.describing()) {
      DevicePricing described;
      read_device(d, described, rate);
    }
    if (!name) continue;
    DevicePricing* dp = nullptr;
    for (auto& e : b.devices)
      if (e.hardware == *name) dp = &e;
    if (dp == nullptr) {
      b.devices.push_back(DevicePricing{});
      dp = &b.devices.back();
      dp->hardware = *name;
      if (!d.has("tiers"))
        d.error_here(fmt::format("'{}' is not in the base price book: give its tiers", *name));
    }
    read_device(d, *dp, rate);
  }
  for (auto& p : r.list("porting")) {
    auto fam = p.required<std::string>("family");
    PortingCost described;
    PortingCost* pc = p.describing() ? &described : nullptr;
    if (!fam && pc == nullptr) continue;
    for (auto& e : b.porting)
      if (fam && e.family == *fam) pc = &e;
    if (pc == nullptr) {
      b.porting.push_back(PortingCost{});
      pc = &b.porting.back();
      pc->family = *fam;
    }
    if (auto v = p.optional<double>("first_port_engineer_weeks", Range::non_negative()))
      pc->first_port_engineer_weeks = *v;
    if (auto v = p.optional<double>("per_model_change_engineer_weeks", Range::non_negative()))
      pc->per_model_change_engineer_weeks = *v;
    if (auto v = p.optional<bool>("estimate")) pc->estimate = *v;
  }
  auto sources = read_sources(r, is_file);
  b.sources.insert(b.sources.end(), sources.begin(), sources.end());
  if (!is_file) return;
  r.exempt_from_sources("schema_version");
  for (const auto& f : r.numeric_fields()) {
    if (f.path.find("min_units") != std::string::npos) continue;  // a count, not a price
    const std::string named = named_path(f.path, b);
    bool ok = false;
    for (const auto& s : sources) {
      for (const auto& field : s.fields)
        ok = ok || source_covers(field, named) || source_covers(field, f.path);
    }
    if (!ok) {
      r.diagnostics().error(r.file(), f.pos.line, f.pos.col, f.path,
                            "no sources: entry covers this value",
                            fmt::format("add '{}' to the fields of a source", named));
    }
  }
}

Result<PriceBook> parse_prices(const Document& doc, Diagnostics& diags) {
  const size_t before = diags.error_count();
  PriceBook b;
  Reader r = Reader::root(doc, diags);
  if (!check_header(r, "price")) {
    r.finish();
    return Error{fmt::format("{}: not a price book", doc.file)};
  }
  read_price_fields(r, b, true);
  if (b.name.empty()) r.error("name", "a price book needs a name");
  r.finish();
  for (const auto& m : validate(b)) diags.error(doc.file, 0, 0, "", m);
  if (diags.error_count() > before) {
    return Error{
        fmt::format("{}: {} error(s) in the price book", doc.file, diags.error_count() - before)};
  }
  return b;
}

void describe_prices(SchemaObject& root) {
  Diagnostics sink;
  Reader r = Reader::describer(root, sink);
  check_header(r, "price");
  PriceBook b;
  read_price_fields(r, b, true);
  // parse_prices demands a name of a price-book file (a scenario's prices: block has none).
  r.describe("name", SchemaShape{SchemaType::string, Dim::dimensionless, {}, false, {}, {}}, true);
  r.finish();
}

Result<PriceBook> load_prices(const std::string& path, Diagnostics& diags) {
  Document doc = parse_file(path, diags);
  if (!doc.ok) return Error{fmt::format("{}: could not be read", path)};
  return parse_prices(doc, diags);
}

}  // namespace infercap::spec
