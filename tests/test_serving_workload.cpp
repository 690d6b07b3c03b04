// Workload distributions, samplers and validation: closed forms stated beside each check.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "infercap/workload.hpp"

using namespace infercap;

TEST_CASE("normal quantile matches tabulated values", "[model]") {
  // Phi^-1(0.975) = 1.959963984540054, Phi^-1(0.5) = 0, Phi^-1(0.01) = -2.326347874040841.
  CHECK(normal_quantile(0.975) == Approx(1.959963984540054).epsilon(1e-12));
  CHECK(std::fabs(normal_quantile(0.5)) < 1e-14);
  CHECK(normal_quantile(0.01) == Approx(-2.326347874040841).epsilon(1e-12));
  CHECK(normal_quantile(1e-10) == Approx(-6.361340902404056).epsilon(1e-10));
}

TEST_CASE("length distributions: moments and quantiles in closed form", "[model]") {
  SECTION("lognormal through p50 and p90 reproduces both quantiles") {
    auto d = lognormal_length_p50_p90(100, 300);
    REQUIRE(d);
    CHECK(*quantile(*d, 50) == Approx(100).epsilon(1e-9));
    CHECK(*quantile(*d, 90) == Approx(300).epsilon(1e-9));
    // mean = exp(mu + sigma^2 / 2), sigma = ln 3 / z_0.9
    const double sigma = std::log(3.0) / 1.2815515655446004;
    CHECK(mean(*d) == Approx(100 * std::exp(sigma * sigma / 2)).epsilon(1e-9));
  }
  SECTION("lognormal by mean and sigma keeps the mean") {
    auto d = lognormal_length_mean_sigma(512, 0.8);
    REQUIRE(d);
    CHECK(mean(*d) == Approx(512).epsilon(1e-12));
    // variance = (e^{s^2} - 1) mean^2
    CHECK(variance(*d) == Approx(std::expm1(0.64) * 512 * 512).epsilon(1e-12));
  }
  SECTION("discrete uniform on 1..10") {
    auto d = uniform_length(1, 10);
    REQUIRE(d);
    CHECK(mean(*d) == 5.5);
    CHECK(variance(*d) == Approx((100.0 - 1) / 12));  // (n^2 - 1) / 12
    CHECK(*quantile(*d, 50) == 5);                    // F(5) = 0.5
    CHECK(*quantile(*d, 50.1) == 6);
    CHECK(*quantile(*d, 99) == 10);
  }
  SECTION("exponential") {
    auto d = exponential_length(200);
    REQUIRE(d);
    CHECK(*quantile(*d, 99) == Approx(200 * std::log(100.0)));
    CHECK(scv(*d) == Approx(1));
  }
  SECTION("histogram point masses") {
    auto d = histogram_length({200, 100}, {3, 1});
    REQUIRE(d);
    CHECK(mean(*d) == Approx(175));  // (100 + 3 * 200) / 4
    CHECK(variance(*d) == Approx((75.0 * 75 + 3 * 25.0 * 25) / 4));
    CHECK(*quantile(*d, 25) == 100);
    CHECK(*quantile(*d, 26) == 200);
  }
}

TEST_CASE("length distributions reject bad inputs as values", "[model]") {
  CHECK_FALSE(fixed_length(0));
  CHECK_FALSE(fixed_length(-3));
  CHECK_FALSE(fixed_length(NAN));
  CHECK_FALSE(uniform_length(10, 5));
  CHECK_FALSE(uniform_length(0, 5));
  CHECK_FALSE(lognormal_length_mean_sigma(100, -1));
  CHECK_FALSE(lognormal_length_p50_p90(300, 100));
  CHECK_FALSE(exponential_length(0));
  auto empty = histogram_length({}, {});
  REQUIRE_FALSE(empty);
  CHECK(empty.error().message.find("no bins") != std::string::npos);
  CHECK_FALSE(histogram_length({1, 2}, {1}));
  CHECK_FALSE(histogram_length({1, 2}, {0, 0}));
  CHECK_FALSE(histogram_length({1, 2}, {1, -1}));
  auto d = fixed_length(10);
  REQUIRE(d);
  for (double p : {0.0, 100.0, -5.0, 150.0, double(NAN)}) CHECK_FALSE(quantile(*d, p));
}

TEST_CASE("samplers are seeded, deterministic and unbiased", "[model]") {
  auto d = lognormal_length_mean_sigma(300, 0.7);
  REQUIRE(d);
  auto s = LengthSampler::create(*d);
  REQUIRE(s);
  Rng a(42), b(42), c(43);
  std::vector<int64_t> xa, xb, xc;
  for (int i = 0; i < 1000; ++i) {
    xa.push_back((*s)(a));
    xb.push_back((*s)(b));
    xc.push_back((*s)(c));
  }
  CHECK(xa == xb);
  CHECK(xa != xc);

  // Sample mean of n = 200000 draws: standard error = sd / sqrt(n) = 300 * sqrt(e^0.49 - 1) /
  // 447 = 0.53 tokens; 1% of 300 is more than five standard errors.
  Rng r(7);
  double sum = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) sum += static_cast<double>((*s)(r));
  CHECK(sum / n == Approx(300).epsilon(0.01));

  auto capped = LengthSampler::create(*d, 50);
  REQUIRE(capped);
  for (int i = 0; i < 1000; ++i) CHECK((*capped)(r) <= 50);
}

TEST_CASE("arrival processes have the stated mean and SCV", "[model]") {
  const auto check = [](ArrivalProcess p, double want_scv) {
    auto s = ArrivalSampler::create(p, 4.0);  // mean gap 0.25 s
    REQUIRE(s);
    Rng r(11);
    const int n = 400000;
    double m1 = 0, m2 = 0;
    for (int i = 0; i < n; ++i) {
      const double g = s->next_gap_s(r);
      m1 += g;
      m2 += g * g;
    }
    m1 /= n;
    m2 /= n;
    CHECK(m1 == Approx(0.25).epsilon(0.01));
    const double scv_est = (m2 - m1 * m1) / (m1 * m1);
    if (want_scv == 0)
      CHECK(scv_est < 1e-12);
    else
      CHECK(scv_est == Approx(want_scv).epsilon(0.05));
  };
  check({ArrivalKind::poisson, 1}, 1);
  check({ArrivalKind::deterministic, 0}, 0);
  check({ArrivalKind::gamma, 0.25}, 0.25);
  check({ArrivalKind::gamma, 3}, 3);
  check({ArrivalKind::hyperexponential, 4}, 4);
  CHECK_FALSE(ArrivalSampler::create({ArrivalKind::hyperexponential, 0.5}, 1));
  CHECK_FALSE(ArrivalSampler::create({ArrivalKind::gamma, 0}, 1));
  CHECK_FALSE(ArrivalSampler::create({ArrivalKind::poisson, 1}, -1));
}

TEST_CASE("rates: design and average QPS", "[model]") {
  ArrivalRate r;
  r.mean_qps = 2;
  CHECK(design_qps(r) == 2);
  r.hourly_qps.assign(24, 1.0);
  r.hourly_qps[13] = 9;
  CHECK(design_qps(r) == 9);  // busiest hour
  CHECK(average_qps(r) == 2);
  r.mean_qps = 0;
  CHECK(average_qps(r) == Approx((23 + 9) / 24.0));
  r.peak_qps = 12;
  CHECK(design_qps(r) == 12);
}

TEST_CASE("request class validation names the field", "[model]") {
  RequestClass c;
  c.name = std::string("chat");
  c.rate.mean_qps = -1;
  c.prompt_tokens = *fixed_length(100);
  c.output_tokens = *fixed_length(100);
  c.sla.ttft = {0.5, 100};
  c.sla.tpot = {-0.1, 99};
  c.rate.hourly_qps.assign(23, 1.0);
  const auto errs = validate(c);
  const auto has = [&](const char* s) {
    for (const auto& e : errs)
      if (e.find(s) != std::string::npos) return true;
    return false;
  };
  CHECK(has("classes[chat].rate.mean_qps"));
  CHECK(has("hourly_qps: needs 24"));
  CHECK(has("sla.ttft.percentile"));
  CHECK(has("sla.tpot: limit"));

  RequestClass ok;
  ok.name = std::string("ok");
  ok.rate.mean_qps = 1;
  ok.prompt_tokens = *fixed_length(100);
  ok.output_tokens = *fixed_length(100);
  ok.sla.e2e = {2.0, 90};
  CHECK(validate(ok).empty());
  ok.output_tokens.bin_tokens.clear();
  ok.output_tokens.kind = LengthKind::histogram;
  CHECK_FALSE(validate(ok).empty());
}
