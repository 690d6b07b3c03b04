#pragma once
// Total cost of ownership: turns the solver's physical results (devices, servers, rack units,
// watts at the planned load, engineer-weeks of porting, year by year) into money with a price
// book. The split follows Timeloop/Accelergy: the solver counts, the price book prices, so prices
// change without touching the model.
//
// All money inside is US dollars; `Currency::cny` only changes how a caller displays it, through
// the price book's stated exchange rate (`cny_per_usd`).
//
// Capital is charged straight-line: a device bought in year y of an H-year horizon contributes
// price * (H - y) / depreciation_years to the horizon's TCO (its consumed share; past one life
// this is the cost of refreshing it). `capex_usd` is the cash actually spent on purchases.
#include <string>
#include <string_view>
#include <vector>

#include "infercap/result.hpp"
#include "infercap/source.hpp"

namespace infercap {

enum class Currency : unsigned char { usd, cny };
std::string_view currency_name(Currency c);

/// Unit price from `min_units` devices upward (a volume discount tier).
struct VolumeTier {
  int min_units = 1;
  double unit_price_usd = 0;
};

/// What one catalog hardware entry costs, and the server it is bought in. The server's host
/// power and height are here because they describe the configuration one buys, not the chip.
struct DevicePricing {
  std::string hardware;           ///< catalog name (one device: a card, or one CPU socket)
  std::vector<VolumeTier> tiers;  ///< ascending by min_units; the first has min_units 1
  double server_price_usd = 0;    ///< host chassis, CPUs of a GPU box, DRAM, NIC, disks; per server
  double server_host_w = 0;       ///< host power apart from the devices, at any load, per server
  int rack_units_per_server = 2;
  double cloud_usd_per_device_hour = 0;  ///< on-demand price of one device in the cloud; 0 = none
  std::string porting_family;  ///< key into PriceBook::porting ("cuda", "x86", "ascend", ...)
  bool estimate = false;       ///< any of the above is an estimate rather than a quote
  /// Devices and servers already on hand and in service (sunk cost): the first `owned_devices`
  /// devices and `owned_servers` servers of a fleet cost nothing to buy, maintain, host or
  /// operate (their current use pays for that); the energy the plan puts through them is still
  /// charged. Seed 000 keeps existing CPU servers as a burst buffer this way.
  double owned_devices = 0;
  double owned_servers = 0;
  std::vector<SourceRef> sources;

  /// Unit price at a purchase of `units` devices (the highest tier whose min_units <= units).
  double unit_price_usd(double units) const;
};

/// Engineering to make this model run well on a hardware family: operator mapping, precision
/// alignment, stack integration (seed 004: a PyTorch OCR model took two weeks on Ascend 310).
struct PortingCost {
  std::string family;
  double first_port_engineer_weeks = 0;        ///< one-off, at the first deployment
  double per_model_change_engineer_weeks = 0;  ///< again each time the served model changes
  bool estimate = false;
};

struct PriceBook {
  std::string name;
  Currency display_currency = Currency::usd;
  double cny_per_usd = 7.2;  ///< exchange rate used when displaying CNY; stated in the file
  double depreciation_years = 4;
  double electricity_usd_per_kwh = 0.10;
  double pue = 1.4;                             ///< facility power / IT power
  double hosting_usd_per_kw_year = 0;           ///< colocation charged on provisioned IT kW
  double hosting_usd_per_rack_unit_year = 0;    ///< colocation charged per rack unit
  double maintenance_fraction_per_year = 0.10;  ///< of purchase price, each year in service
  double ops_usd_per_server_year = 0;           ///< operations labour attributable to one server
  double engineer_week_usd = 0;                 ///< loaded cost of one engineer-week (porting)
  std::vector<DevicePricing> devices;
  std::vector<PortingCost> porting;
  std::vector<SourceRef> sources;

  const DevicePricing* find(std::string_view hardware) const;
  const PortingCost* porting_for(std::string_view family) const;
};

/// Checks ranges: positive depreciation and PUE >= 1, non-negative prices, tiers ascending.
/// Messages name the key path.
std::vector<std::string> validate(const PriceBook& p);

/// A fleet of one hardware kind in one year of the horizon (physical only).
struct FleetYear {
  double devices = 0;  ///< installed at the start of the year (never decreases)
  double servers = 0;
  double rack_units = 0;
  double it_power_w = 0;         ///< average IT power at the planned load, devices + hosts
  double provisioned_w = 0;      ///< nameplate IT power (TDP + hosts), what colocation bills per kW
  double device_busy_hours = 0;  ///< device-hours a cloud deployment would rent (all devices)
  double requests = 0;
  double output_tokens = 0;
};

/// One hardware kind's part in a plan over the horizon. `years.size()` is the horizon.
struct Footprint {
  std::string hardware;
  std::string role;  ///< "fleet", "base", "burst", "tier 7b", ... for display
  std::vector<FleetYear> years;
  /// Times the served model changes during the horizon (each costs a re-port on this family).
  double model_changes = 0;
};

struct Purchase {
  int year = 0;  ///< 0 = at the start of the horizon
  std::string hardware;
  double devices = 0;
  bool operator<(const Purchase& o) const { return year < o.year; }
};

struct CostBreakdown {
  double capex_usd = 0;    ///< cash spent on devices and servers over the horizon
  double capital_usd = 0;  ///< straight-line share of capex consumed within the horizon
  double energy_usd = 0;
  double hosting_usd = 0;
  double maintenance_usd = 0;
  double ops_usd = 0;
  double porting_usd = 0;        ///< one-off and per-model-change engineering
  double tco_usd = 0;            ///< capital + energy + hosting + maintenance + ops + porting
  double opex_per_year_usd = 0;  ///< (energy + hosting + maintenance + ops) / horizon years
  double energy_kwh = 0;         ///< facility energy (IT x PUE) over the horizon
  double cloud_usd = 0;          ///< the same device-hours rented on demand; 0 if not offered
  bool cloud_available = false;
  double per_request_usd = 0;         ///< tco / requests served over the horizon (0 if none)
  double per_million_tokens_usd = 0;  ///< tco / output tokens * 1e6
  bool estimate = false;              ///< some price used is marked as an estimate
  /// Purchases in year order, for the staged-growth story.
  std::vector<Purchase> purchases;

  CostBreakdown& operator+=(const CostBreakdown& o);
};

/// Prices one footprint. Fails, naming the missing entry, when the price book has no price for
/// the hardware (or no porting entry for its family while engineer time is priced).
Result<CostBreakdown> price_footprint(const Footprint& f, const PriceBook& book);

/// Prices several footprints (a mixed fleet) and sums them; per-unit figures use the totals.
Result<CostBreakdown> price_fleet(const std::vector<Footprint>& fleet, const PriceBook& book);

/// Converts dollars for display in `c` with the book's exchange rate.
double to_currency(double usd, Currency c, const PriceBook& book);

}  // namespace infercap
