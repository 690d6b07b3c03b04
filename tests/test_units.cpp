// The unit table: every spelling the spec reference promises, with its SI factor written out.
#include <catch2/catch.hpp>

#include "infercap/units.hpp"

using infercap::Dim;
using infercap::dim_from_key;
using infercap::format_quantity;
using infercap::parse_quantity;

namespace {
double parsed(const char* text, Dim d) {
  auto r = parse_quantity(text, d);
  INFO(text << " -> " << (r.ok() ? "" : r.error().message));
  REQUIRE(r.ok());
  return r.value();
}
std::string error_of(const char* text, Dim d) {
  auto r = parse_quantity(text, d);
  REQUIRE_FALSE(r.ok());
  return r.error().message;
}
}  // namespace

TEST_CASE("sizes: decimal prefixes are powers of 1000, binary ones of 1024", "[unit]") {
  CHECK(parsed("80 GB", Dim::bytes) == Approx(80e9));
  CHECK(parsed("80 GiB", Dim::bytes) == Approx(80.0 * 1024 * 1024 * 1024));
  CHECK(parsed("50 MiB", Dim::bytes) == Approx(50.0 * 1024 * 1024));
  CHECK(parsed("1 TiB", Dim::bytes) == Approx(1099511627776.0));
  CHECK(parsed("2 TB", Dim::bytes) == Approx(2e12));
  CHECK(parsed("512 KB", Dim::bytes) == Approx(512e3));
  CHECK(parsed("512 kB", Dim::bytes) == Approx(512e3));
  CHECK(parsed("4 KiB", Dim::bytes) == Approx(4096));
  CHECK(parsed("7 B", Dim::bytes) == Approx(7));
  CHECK(parsed("1.5 MB", Dim::bytes) == Approx(1.5e6));
}

TEST_CASE("bare numbers are already SI, with or without exponent", "[unit]") {
  CHECK(parsed("1.2e9", Dim::bytes) == Approx(1.2e9));
  CHECK(parsed("  700 ", Dim::watts) == Approx(700));
  CHECK(parsed("+3", Dim::seconds) == Approx(3));
  CHECK(parsed("-2", Dim::dimensionless) == Approx(-2));
  CHECK(parsed("0", Dim::bytes) == 0);
}

TEST_CASE("bandwidths", "[unit]") {
  CHECK(parsed("3.35 TB/s", Dim::bytes_per_s) == Approx(3.35e12));
  CHECK(parsed("450 GB/s", Dim::bytes_per_s) == Approx(450e9));
  CHECK(parsed("20 GiB/s", Dim::bytes_per_s) == Approx(20.0 * 1073741824.0));
  CHECK(parsed("100 B/s", Dim::bytes_per_s) == Approx(100));
  CHECK(parsed("3.35TB/s", Dim::bytes_per_s) == Approx(3.35e12));  // no space
}

TEST_CASE("compute rates: FLOP/s, FLOPS, TOPS with k/M/G/T/P prefixes", "[unit]") {
  CHECK(parsed("989.4 TFLOP/s", Dim::flops_per_s) == Approx(989.4e12));
  CHECK(parsed("66.9 TFLOPS", Dim::flops_per_s) == Approx(66.9e12));
  CHECK(parsed("1979 TOPS", Dim::flops_per_s) == Approx(1979e12));
  CHECK(parsed("2 PFLOP/s", Dim::flops_per_s) == Approx(2e15));
  CHECK(parsed("3 GFLOP/s", Dim::flops_per_s) == Approx(3e9));
  CHECK(parsed("4 MFLOP/s", Dim::flops_per_s) == Approx(4e6));
  CHECK(parsed("5 kFLOP/s", Dim::flops_per_s) == Approx(5e3));
  CHECK(parsed("6 FLOP/s", Dim::flops_per_s) == Approx(6));
  CHECK(parsed("7 TFLOP", Dim::flops) == Approx(7e12));
}

TEST_CASE("times", "[unit]") {
  CHECK(parsed("250 ms", Dim::seconds) == Approx(0.25));
  CHECK(parsed("3 us", Dim::seconds) == Approx(3e-6));
  CHECK(parsed("3 \xC2\xB5s", Dim::seconds) == Approx(3e-6));
  CHECK(parsed("40 ns", Dim::seconds) == Approx(40e-9));
  CHECK(parsed("2 min", Dim::seconds) == Approx(120));
  CHECK(parsed("1.5 h", Dim::seconds) == Approx(5400));
  CHECK(parsed("0.5 s", Dim::seconds) == Approx(0.5));
}

TEST_CASE("power, energy, frequency, token and request rates", "[unit]") {
  CHECK(parsed("700 W", Dim::watts) == Approx(700));
  CHECK(parsed("10.2 kW", Dim::watts) == Approx(10200));
  CHECK(parsed("5 J", Dim::joules) == Approx(5));
  CHECK(parsed("2 kWh", Dim::joules) == Approx(2 * 3.6e6));
  CHECK(parsed("2.1 GHz", Dim::hertz) == Approx(2.1e9));
  CHECK(parsed("800 MHz", Dim::hertz) == Approx(800e6));
  CHECK(parsed("50 Hz", Dim::hertz) == Approx(50));
  CHECK(parsed("1500 tokens/s", Dim::tokens_per_s) == Approx(1500));
  CHECK(parsed("20 QPS", Dim::per_s) == Approx(20));
  CHECK(parsed("3 /s", Dim::per_s) == Approx(3));
  CHECK(parsed("120 /min", Dim::per_s) == Approx(2));
  CHECK(parsed("7200 /h", Dim::per_s) == Approx(2));
  CHECK(parsed("86400 /day", Dim::per_s) == Approx(1));
}

TEST_CASE("a unit of the wrong dimension says what was expected and what was found", "[unit]") {
  CHECK(error_of("80 GiB", Dim::bytes_per_s) ==
        "expected a bandwidth (bytes/s), found 'GiB' (bytes)");
  CHECK(error_of("700 W", Dim::seconds) == "expected a duration (s), found 'W' (W)");
  CHECK(error_of("3 ms", Dim::bytes) == "expected a size (bytes), found 'ms' (s)");
  CHECK(error_of("1979 TOPS", Dim::bytes_per_s) ==
        "expected a bandwidth (bytes/s), found 'TOPS' (FLOP/s)");
  CHECK(error_of("8 GB", Dim::dimensionless) == "expected a plain number, found 'GB' (bytes)");
  CHECK(error_of("8 GB", Dim::money_per_kwh) ==
        "expected an energy price (currency units/kWh), found 'GB' (bytes)");
}

TEST_CASE("bad numbers and unknown units", "[unit]") {
  CHECK(error_of("fast", Dim::bytes_per_s) == "expected a bandwidth (bytes/s), found 'fast'");
  CHECK(error_of("", Dim::bytes) == "expected a size (bytes), found an empty value");
  CHECK(error_of("   ", Dim::bytes) == "expected a size (bytes), found an empty value");
  CHECK(error_of("3 parsecs", Dim::seconds) ==
        "expected a duration (s), found unknown unit 'parsecs'");
  CHECK(error_of("80 gb", Dim::bytes) ==
        "expected a size (bytes), found unknown unit 'gb' (units are case-sensitive; did you "
        "mean 'GB'?)");
  CHECK(error_of("inf", Dim::bytes) ==
        "expected a size (bytes), found 'inf' (not a finite number)");
  CHECK(error_of("nan W", Dim::watts) ==
        "expected a power (W), found 'nan W' (not a finite number)");
  CHECK(error_of("1e999", Dim::bytes) == "expected a size (bytes), found '1e999' (out of range)");
  CHECK(error_of("+-3", Dim::bytes) == "expected a size (bytes), found '+-3'");
}

TEST_CASE("dimension from key suffix", "[unit]") {
  CHECK(dim_from_key("memory_bandwidth_bytes_per_s") == Dim::bytes_per_s);
  CHECK(dim_from_key("memory_bytes") == Dim::bytes);
  CHECK(dim_from_key("dense_flops_per_s") == Dim::flops_per_s);
  CHECK(dim_from_key("ttft_p99_s") == Dim::seconds);
  CHECK(dim_from_key("latency_s") == Dim::seconds);
  CHECK(dim_from_key("tdp_w") == Dim::watts);
  CHECK(dim_from_key("base_clock_hz") == Dim::hertz);
  CHECK(dim_from_key("arrival_qps") == Dim::per_s);
  CHECK(dim_from_key("arrivals_per_s") == Dim::per_s);
  CHECK(dim_from_key("price_usd") == Dim::money);
  CHECK(dim_from_key("price_cny") == Dim::money);
  CHECK(dim_from_key("electricity_usd_per_kwh") == Dim::money_per_kwh);
  CHECK(dim_from_key("decode_tokens_per_s") == Dim::tokens_per_s);
  CHECK(dim_from_key("total_flops") == Dim::flops);
  CHECK(dim_from_key("energy_j") == Dim::joules);
  // Not seconds: mega-transfers per second is a plain count of the memory speed.
  CHECK(dim_from_key("memory_speed_mt_s") == Dim::dimensionless);
  CHECK(dim_from_key("layers") == Dim::dimensionless);
  CHECK(dim_from_key("kv_heads") == Dim::dimensionless);
  CHECK(dim_from_key("s") == Dim::dimensionless);
}

TEST_CASE("dimension names and units for messages", "[unit]") {
  CHECK(infercap::dim_name(Dim::bytes_per_s) == "bandwidth");
  CHECK(infercap::dim_unit(Dim::bytes_per_s) == "bytes/s");
  CHECK(infercap::dim_unit(Dim::flops_per_s) == "FLOP/s");
  CHECK(infercap::dim_unit(Dim::seconds) == "s");
  CHECK(infercap::dim_name(Dim::watts) == "power");
}

TEST_CASE("format_quantity picks a readable prefix", "[unit]") {
  CHECK(format_quantity(3.35e12, Dim::bytes_per_s) == "3.35 TB/s");
  CHECK(format_quantity(80e9, Dim::bytes) == "80 GB");
  CHECK(format_quantity(989.4e12, Dim::flops_per_s) == "989 TFLOP/s");
  CHECK(format_quantity(989.4e12, Dim::flops_per_s, 4) == "989.4 TFLOP/s");
  CHECK(format_quantity(700, Dim::watts) == "700 W");
  CHECK(format_quantity(0.25, Dim::seconds) == "250 ms");
  CHECK(format_quantity(3e-6, Dim::seconds) == "3 us");
  CHECK(format_quantity(42e-9, Dim::seconds) == "42 ns");
  CHECK(format_quantity(90, Dim::seconds) == "1.5 min");
  CHECK(format_quantity(5400, Dim::seconds) == "1.5 h");
  CHECK(format_quantity(2.1e9, Dim::hertz) == "2.1 GHz");
  CHECK(format_quantity(0, Dim::bytes) == "0 B");
  CHECK(format_quantity(12, Dim::bytes) == "12 B");
  // 999.6 GB rounds to 1000 GB at 3 digits, which prints as 1 TB, not "1e+03 GB".
  CHECK(format_quantity(999.6e9, Dim::bytes) == "1 TB");
  CHECK(format_quantity(-2.5e9, Dim::bytes) == "-2.5 GB");
  CHECK(format_quantity(1234.5, Dim::tokens_per_s) == "1230 tokens/s");
  CHECK(format_quantity(0.125, Dim::dimensionless) == "0.125");
}

TEST_CASE("formatted quantities parse back to the rounded value", "[unit]") {
  const struct {
    double v;
    Dim d;
  } cases[] = {{3.35e12, Dim::bytes_per_s}, {81.92e9, Dim::bytes},    {1.979e15, Dim::flops_per_s},
               {0.0123, Dim::seconds},      {350, Dim::watts},        {3.7e9, Dim::hertz},
               {42.0, Dim::per_s},          {1500, Dim::tokens_per_s}};
  for (const auto& c : cases) {
    const std::string text = format_quantity(c.v, c.d, 6);
    INFO(text);
    auto back = parse_quantity(text, c.d);
    REQUIRE(back.ok());
    CHECK(back.value() == Approx(c.v).epsilon(1e-6));
  }
}
