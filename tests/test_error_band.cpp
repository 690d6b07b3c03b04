// [unit] tests of the error band (error_band.hpp): p10-p90 of measured/predicted time over
// validation residuals, and the replica count across it. Expected values by hand.
#include <catch2/catch.hpp>
#include <cmath>

#include "infercap/error_band.hpp"

using namespace infercap;

namespace {

// Residuals r = ln(predicted / measured time) such that measured/predicted = exp(-r) takes the
// values 0.8, 0.9, 1.0, 1.1, 1.2 for stack "s" on GPUs (decode).
std::vector<Residual> five() {
  std::vector<Residual> v;
  for (double f : {0.8, 0.9, 1.0, 1.1, 1.2}) {
    Residual r;
    r.stack = "s";
    r.hw_class = HwClass::gpu;
    r.quantity = ErrorQuantity::decode;
    r.hardware = f < 1 ? "a" : "b";
    r.log_time_ratio = -std::log(f);
    v.push_back(r);
  }
  return v;
}

}  // namespace

TEST_CASE("error band: p10 and p90 of measured / predicted time", "[unit]") {
  const ErrorBand b = error_band(five(), "s", HwClass::gpu, ErrorQuantity::decode);
  REQUIRE(b.available);
  CHECK(b.rows == 5);
  // Sorted factors 0.8 .. 1.2; p10 at position 0.4 -> 0.8 + 0.4 x 0.1 = 0.84; p90 at 3.6 -> 1.16.
  CHECK(b.time_factor_p10 == Approx(0.84));
  CHECK(b.time_factor_p90 == Approx(1.16));
  CHECK(b.time_low(10.0) == Approx(8.4));
  CHECK(b.time_high(10.0) == Approx(11.6));
  // A rate is the inverse: 100 tokens/s -> 100 / 1.16 .. 100 / 0.84.
  CHECK(b.rate_low(100.0) == Approx(100 / 1.16));
  CHECK(b.rate_high(100.0) == Approx(100 / 0.84));
  CHECK_THAT(b.note, Catch::Contains("2 device(s)"));
}

TEST_CASE("error band: another stack, class or quantity, or too few rows, has no band", "[unit]") {
  CHECK_FALSE(error_band(five(), "t", HwClass::gpu, ErrorQuantity::decode).available);
  CHECK_FALSE(error_band(five(), "s", HwClass::cpu, ErrorQuantity::decode).available);
  const ErrorBand p = error_band(five(), "s", HwClass::gpu, ErrorQuantity::prefill);
  CHECK_FALSE(p.available);
  CHECK_THAT(p.note, Catch::Contains("no band: 0 validation row(s)"));
  auto two = five();
  two.resize(2);
  CHECK_FALSE(error_band(two, "s", HwClass::gpu, ErrorQuantity::decode).available);
  CHECK(error_band(two, "s", HwClass::gpu, ErrorQuantity::decode, 2).available);
}

TEST_CASE("replica band: replicas scale with the time factor, redundancy kept", "[unit]") {
  const ErrorBand b = error_band(five(), "s", HwClass::gpu, ErrorQuantity::decode);
  // 10 req/s at 1.3 per replica: 7.69 -> 8 replicas (+1 redundancy = 9 planned).
  // p10: 7.69 x 0.84 = 6.46 -> 7 (+1 = 8); p90: 7.69 x 1.16 = 8.92 -> 9 (+1 = 10).
  const ReplicaBand r = replica_band(10, 1.3, 9, b);
  REQUIRE(r.available);
  CHECK(r.low == 8);
  CHECK(r.high == 10);
  // Never fewer than one replica; no band without one, or without a load.
  CHECK(replica_band(0.01, 1.3, 1, b).low == 1);
  CHECK_FALSE(replica_band(10, 1.3, 9, ErrorBand{}).available);
  CHECK_FALSE(replica_band(0, 1.3, 9, b).available);
}
