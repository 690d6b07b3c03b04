#pragma once
// Price books as YAML (`kind: price`, docs/plan.md): device prices with volume tiers, servers,
// electricity, PUE, hosting, maintenance, operations, porting effort and cloud prices. Money keys
// carry their currency in the name: `unit_price_usd`, or `unit_price_cny` converted at the file's
// `cny_per_usd`. Every numeric value must be covered by a `sources:` entry, whose `fields` may
// name devices and porting entries by name ("devices.h100-sxm.*", "porting.ascend.*").
#include <string>

#include "infercap/result.hpp"
#include "infercap/spec/diagnostics.hpp"
#include "infercap/spec/reader.hpp"
#include "infercap/tco.hpp"

namespace infercap::spec {

/// Reads a whole price document. Errors are collected in `diags`; the Error is a summary.
Result<PriceBook> parse_prices(const Document& doc, Diagnostics& diags);
Result<PriceBook> load_prices(const std::string& path, Diagnostics& diags);

/// Reads price fields from mapping `r` onto `book`: scalars present replace the book's, device
/// and porting entries replace those of the same name (or are added). Used for whole files
/// (`is_file` true: `sources:` required and checked) and for a scenario's `prices:` override.
void read_price_fields(Reader& r, PriceBook& book, bool is_file);

}  // namespace infercap::spec
