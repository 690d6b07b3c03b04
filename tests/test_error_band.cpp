// [unit] tests of the error band (error_band.hpp): p10-p90 of measured/predicted time over
// validation residuals, and the replica count across it. Expected values by hand.
#include <catch2/catch.hpp>
#include <cmath>

#include "infercap/answer_bands.hpp"
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
  CHECK_THAT(b.note, !Catch::Contains("held out"));  // none of the five is
}

TEST_CASE("error band: the note says how many of its rows were held out", "[unit]") {
  std::vector<Residual> v = five();
  v[0].held_out = true;
  v[3].held_out = true;
  const ErrorBand some = error_band(v, "s", HwClass::gpu, ErrorQuantity::decode);
  CHECK_THAT(some.note, Catch::Contains("5 validation rows (2 held out"));
  for (auto& r : v) r.held_out = true;
  const ErrorBand all = error_band(v, "s", HwClass::gpu, ErrorQuantity::decode);
  CHECK_THAT(all.note, Catch::Contains("5 validation rows (each held out"));
  // The band itself does not depend on the flag: the same five factors.
  CHECK(all.time_factor_p10 == Approx(0.84));
  CHECK(all.time_factor_p90 == Approx(1.16));
}

TEST_CASE("error band: another stack, class or quantity, or too few rows, has no band", "[unit]") {
  CHECK_FALSE(error_band(five(), "t", HwClass::gpu, ErrorQuantity::decode).available);
  CHECK_FALSE(error_band(five(), "s", HwClass::cpu, ErrorQuantity::decode).available);
  const ErrorBand p = error_band(five(), "s", HwClass::gpu, ErrorQuantity::prefill);
  CHECK_FALSE(p.available);
  CHECK_THAT(p.note, Catch::Contains("no band: 0 validation row(s)"));
  // The stack is not unvalidated: the note counts its rows of the other kinds (five decode rows
  // here; plus two serving-run rows below), and names none for a stack with no rows at all.
  CHECK_THAT(p.note, Catch::EndsWith("(prefill); 5 decode row(s) validate it"));
  auto with_serving = five();
  for (int i = 0; i < 2; ++i) {
    Residual r = with_serving.front();
    r.quantity = ErrorQuantity::serving_throughput;
    with_serving.push_back(r);
  }
  CHECK_THAT(
      error_band(with_serving, "s", HwClass::gpu, ErrorQuantity::prefill).note,
      Catch::EndsWith("; 5 decode row(s) validate it; 2 serving_throughput row(s) validate it"));
  CHECK_THAT(error_band(five(), "t", HwClass::gpu, ErrorQuantity::decode).note,
             Catch::EndsWith("for stack t on gpu (decode)"));
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

TEST_CASE("error bands: a prediction's figures within the measured error, or no rows", "[unit]") {
  Prediction p;
  p.ttft_s = 0.2;
  p.tpot_s = 0.01;
  p.e2e_s = 1.5;
  p.total_decode_tokens_per_s = 1600;
  p.decode_tokens_per_s = 100;
  p.prefill_tokens_per_s = 5000;
  const auto b = prediction_bands(p, five(), "s", HwClass::gpu, false);
  REQUIRE(b.size() == 6);
  CHECK(b[0].quantity == "TTFT");
  CHECK_FALSE(b[0].band.available);  // no prefill rows
  CHECK_THAT(b[0].band.note, Catch::Contains("no band"));
  CHECK(b[1].quantity == "TPOT");
  REQUIRE(b[1].band.available);
  CHECK(b[1].low() == Approx(0.01 * 0.84));
  CHECK(b[1].high() == Approx(0.01 * 1.16));
  CHECK(b[5].quantity == "decode tok/s");
  CHECK(b[5].rate);
  CHECK(b[5].low() == Approx(1600 / 1.16));  // a rate divides by the time factors
  CHECK(b[5].high() == Approx(1600 / 0.84));
  CHECK(b[4].low() == Approx(100 / 1.16));  // per sequence
  CHECK(b[3].quantity == "prefill tok/s");
  CHECK_FALSE(b[3].band.available);  // prefill rows
  // Another stack or class: no band anywhere.
  for (const auto& x : prediction_bands(p, five(), "s", HwClass::npu, false))
    CHECK_FALSE(x.band.available);
  // An encoder: no decode figures.
  const auto e = prediction_bands(p, five(), "s", HwClass::gpu, true);
  REQUIRE(e.size() == 3);
  CHECK(e[1].quantity == "E2E");
  CHECK(e[1].predicted == 0.2);  // its forward pass
}

TEST_CASE("error bands: the recommended fleet's devices across the measured error", "[unit]") {
  FleetChoice f;
  CandidateRow r;
  r.pool = "chat";
  r.hardware = "h";
  r.stack = "s";
  r.hw_class = HwClass::gpu;
  r.design_qps = 10;
  r.max_qps_per_replica = 3;
  r.replicas = 4;  // ceil(10 / 3), no spare
  r.devices = 8;   // TP 2
  f.parts.push_back(r);
  r.pool = "batch";
  r.stack = "other";
  f.parts.push_back(r);
  const auto b = fleet_error_band(f, five());
  REQUIRE(b.size() == 2);
  // Decode rows (no serving rows): replicas ceil(10/3 x 0.84) = 3 and ceil(10/3 x 1.16) = 4,
  // two devices each.
  REQUIRE(b[0].available);
  CHECK(b[0].low == 6);
  CHECK(b[0].high == 8);
  CHECK(describe(b[0]).rfind("chat: 8 devices on h; 6-8 within the model's measured error (", 0) ==
        0);
  CHECK_FALSE(b[1].available);
  CHECK_FALSE(b[1].has_rows);
  CHECK_THAT(describe(b[1]), Catch::Contains("no band"));
  CHECK(fleet_error_band_lines(f, five()) == describe(b[0]) + "\n" + describe(b[1]) + "\n");

  SECTION("a part of a shared pool (staged growth) moves its own count, not the pool's") {
    FleetChoice g;
    CandidateRow part = f.parts[0];
    part.design_qps = 100;  // the pool's load; this part's 4 replicas carry 4 x 3 = 12 of it
    g.parts.push_back(part);
    const auto s = fleet_error_band(g, five());
    REQUIRE(s[0].available);
    // Carried 12 req/s at 3 per replica: ceil(4 x 0.84) = 4 and ceil(4 x 1.16) = 5, 2 devices each
    // (sizing the pool's 100 req/s would say 56-78).
    CHECK(s[0].low == 8);
    CHECK(s[0].high == 10);
  }

  SECTION("serving runs: their throughputs band the count, their latencies do not") {
    // Stack "s" gets five serving-throughput rows (measured / predicted time 0.9, 0.95, 1.0,
    // 1.05, 1.1: p10 0.92, p90 1.08) and five latency rows far off (2x and 0.5x), as a latency
    // read near saturation is. Replicas: ceil(10/3 x 0.92) = 4 and ceil(10/3 x 1.08) = 4, two
    // devices each; pooled with the latencies the band would run from ceil(10/3 x 0.5) = 2
    // to ceil(10/3 x 2) = 7 replicas.
    std::vector<Residual> v;
    for (double t : {0.9, 0.95, 1.0, 1.05, 1.1}) {
      Residual x = five().front();
      x.quantity = ErrorQuantity::serving_throughput;
      x.log_time_ratio = -std::log(t);
      v.push_back(x);
      x.quantity = ErrorQuantity::serving_latency;
      x.log_time_ratio = -std::log(t < 1 ? 0.5 : 2.0);
      v.push_back(x);
    }
    FleetChoice g;
    g.parts.push_back(f.parts[0]);
    const auto s = fleet_error_band(g, v);
    REQUIRE(s[0].available);
    CHECK(s[0].low == 8);
    CHECK(s[0].high == 8);
    CHECK_THAT(s[0].note, Catch::Contains("p10-p90 of 5 validation rows"));
    CHECK_THAT(s[0].note, Catch::Contains("(serving_throughput)"));
  }
}

TEST_CASE("error band: a vendor's own rows when it has enough, else every vendor's", "[unit]") {
  // five() on "nvidia" hardware (factors 0.8 .. 1.2) and five rows on "amd" hardware whose
  // measured time is twice the predicted (factor 2). For nvidia: five() alone, p10-p90
  // 0.84-1.16. For amd: 2-2. For a vendor with no rows, or none asked: all ten, sorted
  // 0.8 0.9 1 1.1 1.2 2 2 2 2 2: p10 at position 0.9 -> 0.89, p90 at 8.1 -> 2.
  std::vector<Residual> v = five();
  for (auto& r : v) r.vendor = "nvidia";
  for (int i = 0; i < 5; ++i) {
    Residual r = v.front();
    r.vendor = "amd";
    r.hardware = "m";
    r.log_time_ratio = -std::log(2.0);
    v.push_back(r);
  }
  const auto nv = error_band(v, "s", HwClass::gpu, ErrorQuantity::decode, 3, "nvidia");
  REQUIRE(nv.available);
  CHECK(nv.rows == 5);
  CHECK(nv.time_factor_p10 == Approx(0.84));
  CHECK(nv.time_factor_p90 == Approx(1.16));
  CHECK_THAT(nv.note, Catch::Contains("nvidia hardware only"));
  const auto amd = error_band(v, "s", HwClass::gpu, ErrorQuantity::decode, 3, "amd");
  CHECK(amd.rows == 5);
  CHECK(amd.time_factor_p10 == Approx(2.0));
  CHECK(amd.time_factor_p90 == Approx(2.0));
  for (const char* vendor : {"intel", ""}) {
    INFO("vendor '" << vendor << "'");
    const auto all = error_band(v, "s", HwClass::gpu, ErrorQuantity::decode, 3, vendor);
    CHECK(all.rows == 10);
    CHECK(all.time_factor_p10 == Approx(0.89));
    CHECK(all.time_factor_p90 == Approx(2.0));
  }
  CHECK_THAT(error_band(v, "s", HwClass::gpu, ErrorQuantity::decode, 3, "intel").note,
             Catch::Contains("every vendor's rows (fewer than 3 on intel hardware)"));
  // Four amd rows, min_rows 5: too few of its own, so every vendor's.
  v.pop_back();
  CHECK(error_band(v, "s", HwClass::gpu, ErrorQuantity::decode, 5, "amd").rows == 9);
}
