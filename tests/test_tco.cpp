// TCO arithmetic against figures worked out by hand in the comments.
#include <catch2/catch.hpp>

#include "infercap/tco.hpp"

using namespace infercap;

namespace {

PriceBook test_book() {
  PriceBook b;
  b.name = "test";
  b.depreciation_years = 4;
  b.electricity_usd_per_kwh = 0.10;
  b.pue = 1.5;
  b.hosting_usd_per_kw_year = 1000;
  b.hosting_usd_per_rack_unit_year = 100;
  b.maintenance_fraction_per_year = 0.10;
  b.ops_usd_per_server_year = 500;
  b.engineer_week_usd = 5000;
  DevicePricing x;
  x.hardware = "x";
  x.tiers = {{1, 1000}, {10, 800}};
  x.server_price_usd = 5000;
  x.server_host_w = 200;
  x.rack_units_per_server = 2;
  x.cloud_usd_per_device_hour = 2;
  x.porting_family = "cuda";
  b.devices.push_back(x);
  DevicePricing n = x;
  n.hardware = "npu";
  n.porting_family = "ascend";
  n.cloud_usd_per_device_hour = 0;
  n.estimate = true;
  b.devices.push_back(n);
  b.porting.push_back({"cuda", 0, 0, false});
  b.porting.push_back({"ascend", 2, 1, true});
  return b;
}

FleetYear year(double devices, double servers, double w, double prov_w, double req, double tok) {
  FleetYear y;
  y.devices = devices;
  y.servers = servers;
  y.rack_units = servers * 2;
  y.it_power_w = w;
  y.provisioned_w = prov_w;
  y.device_busy_hours = devices * 8760;
  y.requests = req;
  y.output_tokens = tok;
  return y;
}

}  // namespace

TEST_CASE("volume tiers pick the highest tier reached", "[unit][solver]") {
  const PriceBook b = test_book();
  const DevicePricing* x = b.find("x");
  REQUIRE(x != nullptr);
  CHECK(x->unit_price_usd(1) == 1000);
  CHECK(x->unit_price_usd(9) == 1000);
  CHECK(x->unit_price_usd(10) == 800);
  CHECK(x->unit_price_usd(1000) == 800);
  CHECK(b.find("nope") == nullptr);
}

TEST_CASE("a two-year growing fleet is priced line by line", "[unit][solver]") {
  const PriceBook b = test_book();
  Footprint f;
  f.hardware = "x";
  f.years = {year(4, 1, 1000, 1500, 1e6, 1e8), year(12, 2, 2000, 3000, 2e6, 2e8)};
  auto r = price_footprint(f, b);
  REQUIRE(r.ok());
  const CostBreakdown& c = *r;
  // 12 devices at the end reach the 10-unit tier: $800 each.
  // Year 0: 4*800 + 1 server*5000 = 8200, consumed 2 of 4 years -> 4100.
  // Year 1: 8*800 + 1*5000 = 11400, consumed 1 of 4 years -> 2850.
  CHECK(c.capex_usd == Approx(19600));
  CHECK(c.capital_usd == Approx(6950));
  // Energy: (1000 W + 2000 W) * 8760 h / 1000 * PUE 1.5 = 39420 kWh at $0.10.
  CHECK(c.energy_kwh == Approx(39420));
  CHECK(c.energy_usd == Approx(3942));
  // Hosting: 1.5 kW*1000 + 2 RU*100 = 1700; 3 kW*1000 + 4 RU*100 = 3400.
  CHECK(c.hosting_usd == Approx(5100));
  // Maintenance: 10% of the installed value each year: 820 + 1960.
  CHECK(c.maintenance_usd == Approx(2780));
  CHECK(c.ops_usd == Approx(1500));
  CHECK(c.porting_usd == Approx(0));
  CHECK(c.opex_per_year_usd == Approx((3942 + 5100 + 2780 + 1500) / 2.0));
  CHECK(c.tco_usd == Approx(6950 + 3942 + 5100 + 2780 + 1500));
  CHECK(c.per_request_usd == Approx(20272.0 / 3e6));
  CHECK(c.per_million_tokens_usd == Approx(20272.0 / 3e8 * 1e6));
  // Cloud: (4 + 12) devices * 8760 h * $2.
  CHECK(c.cloud_available);
  CHECK(c.cloud_usd == Approx(280320));
  REQUIRE(c.purchases.size() == 2);
  CHECK(c.purchases[0].year == 0);
  CHECK(c.purchases[0].devices == 4);
  CHECK(c.purchases[1].year == 1);
  CHECK(c.purchases[1].devices == 8);
  CHECK_FALSE(c.estimate);
}

TEST_CASE("a horizon longer than the depreciation life pays for the refresh", "[unit][solver]") {
  PriceBook b = test_book();
  b.depreciation_years = 2;
  Footprint f;
  f.hardware = "x";
  f.years = {year(1, 1, 0, 0, 0, 0), year(1, 1, 0, 0, 0, 0), year(1, 1, 0, 0, 0, 0),
             year(1, 1, 0, 0, 0, 0)};
  auto r = price_footprint(f, b);
  REQUIRE(r.ok());
  // 1000 + 5000 bought once, 4 years over a 2-year life: twice the purchase.
  CHECK(r->capex_usd == Approx(6000));
  CHECK(r->capital_usd == Approx(12000));
  CHECK(r->per_request_usd == 0);  // no requests: no per-unit figure, no division by zero
}

TEST_CASE("porting is charged once per family, again per model change", "[unit][solver]") {
  const PriceBook b = test_book();
  Footprint a;
  a.hardware = "npu";
  a.years = {year(1, 1, 0, 0, 1, 1)};
  a.model_changes = 12;
  Footprint a2 = a;
  a2.model_changes = 3;
  // Ascend: 2 weeks first + 12 changes * 1 week = 14 weeks * $5000. The second footprint of the
  // same family shares the port (the larger change count stands).
  auto r = price_fleet({a, a2}, b);
  REQUIRE(r.ok());
  CHECK(r->porting_usd == Approx(70000));
  CHECK(r->estimate);
  CHECK_FALSE(r->cloud_available);
  // The hardware part is priced twice (two footprints), porting once.
  auto one = price_footprint(a, b);
  REQUIRE(one.ok());
  CHECK(r->tco_usd == Approx(2 * (one->tco_usd - 70000) + 70000));
}

TEST_CASE("a missing price is an error naming the hardware", "[unit][solver]") {
  const PriceBook b = test_book();
  Footprint f;
  f.hardware = "h100-sxm";
  f.years = {year(1, 1, 0, 0, 0, 0)};
  auto r = price_footprint(f, b);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("h100-sxm") != std::string::npos);
}

TEST_CASE("price book validation names the bad key", "[unit][solver]") {
  PriceBook b = test_book();
  CHECK(validate(b).empty());
  b.pue = 0.9;
  b.devices[0].tiers = {{1, 1000}, {1, 900}};
  b.engineer_week_usd = -1;
  const auto errs = validate(b);
  REQUIRE(errs.size() == 3);
  CHECK(errs[0].find("pue") != std::string::npos);
  CHECK(errs[1].find("engineer_week_usd") != std::string::npos);
  CHECK(errs[2].find("tiers[1].min_units") != std::string::npos);
}

TEST_CASE("CNY display uses the stated exchange rate", "[unit][solver]") {
  PriceBook b = test_book();
  b.cny_per_usd = 7.1;
  CHECK(to_currency(100, Currency::cny, b) == Approx(710));
  CHECK(to_currency(100, Currency::usd, b) == Approx(100));
  CHECK(currency_name(Currency::cny) == "CNY");
}

TEST_CASE("owned devices and servers are not bought again", "[unit][solver]") {
  PriceBook b = test_book();
  b.devices[0].owned_devices = 2;
  b.devices[0].owned_servers = 1;
  Footprint f;
  f.hardware = "x";
  f.years = {year(4, 1, 1000, 1500, 0, 0)};
  auto r = price_footprint(f, b);
  REQUIRE(r.ok());
  // 4 devices needed, 2 on hand: 2 * $1000 bought; the one server is on hand.
  CHECK(r->capex_usd == Approx(2000));
  // Energy is still paid on all of them: 1000 W * 8760 h * 1.5 / 1000 * $0.10.
  CHECK(r->energy_usd == Approx(1314));
  // The only server is owned and already operated: no hosting, operations or maintenance added.
  CHECK(r->ops_usd == Approx(0));
  CHECK(r->hosting_usd == Approx(0));
  CHECK(r->maintenance_usd == Approx(200));  // 10% of the $2000 actually bought
  // Two servers needed, one owned: half of the hosting and operations are added.
  f.years[0].servers = 2;
  f.years[0].rack_units = 4;
  auto r2 = price_footprint(f, b);
  REQUIRE(r2.ok());
  CHECK(r2->ops_usd == Approx(500));
  CHECK(r2->hosting_usd == Approx(0.5 * (1.5 * 1000 + 4 * 100)));
}
