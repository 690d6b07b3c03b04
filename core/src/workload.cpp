#include "infercap/workload.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <string>

#include <fmt/format.h>

namespace infercap {

namespace {

constexpr double kZ90 = 1.2815515655446004;  // standard normal quantile at 0.9

uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t rotl(uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

bool finite_positive(double x) {
  return std::isfinite(x) && x > 0;
}

bool valid_percentile(double p) {
  return std::isfinite(p) && p > 0 && p < 100;
}

Error percentile_error(double p) {
  return Error{fmt::format("percentile {} is outside (0, 100)", p)};
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Rng

Rng::Rng(uint64_t seed) {
  uint64_t x = seed;
  for (auto& s : s_) s = splitmix64(x);
}

uint64_t Rng::next_u64() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform() {
  // 53 random bits, shifted by half an ulp so the result lies in (0, 1).
  return (static_cast<double>(next_u64() >> 11) + 0.5) * 0x1.0p-53;
}

double Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  double u = 0, v = 0, s = 0;
  do {
    u = 2 * uniform() - 1;
    v = 2 * uniform() - 1;
    s = u * u + v * v;
  } while (s >= 1 || s == 0);
  const double f = std::sqrt(-2 * std::log(s) / s);
  spare_ = v * f;
  has_spare_ = true;
  return u * f;
}

double Rng::exponential() {
  return -std::log(uniform());
}

double Rng::gamma(double shape) {
  if (shape < 1) {
    // Gamma(k) = Gamma(k + 1) * U^(1/k).
    const double g = gamma(shape + 1);
    return g * std::pow(uniform(), 1 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1 / std::sqrt(9 * d);
  for (;;) {
    double x = 0, v = 0;
    do {
      x = normal();
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = uniform();
    if (u < 1 - 0.0331 * x * x * x * x) return d * v;
    if (std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v))) return d * v;
  }
}

// ---------------------------------------------------------------------------------------------
// Normal quantile (Acklam), one Halley refinement step against erfc.

double normal_quantile(double p) {
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  constexpr double p_low = 0.02425;
  if (!(p > 0)) return -INFINITY;
  if (!(p < 1)) return INFINITY;
  double x = 0;
  if (p < p_low) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - p_low) {
    const double q = p - 0.5;
    const double r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = std::sqrt(-2 * std::log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
  const double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

// ---------------------------------------------------------------------------------------------
// Length distributions

Result<LengthDist> fixed_length(double tokens) {
  if (!finite_positive(tokens)) {
    return Error{fmt::format("fixed length must be a positive number of tokens, got {}", tokens)};
  }
  LengthDist d;
  d.kind = LengthKind::fixed;
  d.value_tokens = tokens;
  return d;
}

Result<LengthDist> uniform_length(double min_tokens, double max_tokens) {
  if (!std::isfinite(min_tokens) || !std::isfinite(max_tokens) || min_tokens < 1 ||
      max_tokens < min_tokens) {
    return Error{
        fmt::format("uniform length needs 1 <= min <= max, got [{}, {}]", min_tokens, max_tokens)};
  }
  LengthDist d;
  d.kind = LengthKind::uniform;
  d.min_tokens = std::round(min_tokens);
  d.max_tokens = std::max(d.min_tokens, std::round(max_tokens));
  return d;
}

Result<LengthDist> lognormal_length_mean_sigma(double mean_tokens, double sigma) {
  if (!finite_positive(mean_tokens) || !std::isfinite(sigma) || sigma < 0) {
    return Error{
        fmt::format("lognormal length needs mean > 0 and sigma >= 0, got mean {}, sigma {}",
                    mean_tokens, sigma)};
  }
  LengthDist d;
  d.kind = LengthKind::lognormal;
  d.sigma = sigma;
  d.mu = std::log(mean_tokens) - sigma * sigma / 2;
  return d;
}

Result<LengthDist> lognormal_length_p50_p90(double p50_tokens, double p90_tokens) {
  if (!finite_positive(p50_tokens) || !std::isfinite(p90_tokens) || p90_tokens < p50_tokens) {
    return Error{fmt::format("lognormal length needs 0 < p50 <= p90, got p50 {}, p90 {}",
                             p50_tokens, p90_tokens)};
  }
  LengthDist d;
  d.kind = LengthKind::lognormal;
  d.mu = std::log(p50_tokens);
  d.sigma = std::log(p90_tokens / p50_tokens) / kZ90;
  return d;
}

Result<LengthDist> exponential_length(double mean_tokens) {
  if (!finite_positive(mean_tokens)) {
    return Error{fmt::format("exponential length needs a positive mean, got {}", mean_tokens)};
  }
  LengthDist d;
  d.kind = LengthKind::exponential;
  d.value_tokens = mean_tokens;
  return d;
}

Result<LengthDist> histogram_length(std::vector<double> tokens, std::vector<double> weights) {
  LengthDist d;
  d.kind = LengthKind::histogram;
  d.bin_tokens = std::move(tokens);
  d.bin_weights = std::move(weights);
  auto errs = validate(d);
  if (!errs.empty()) return Error{errs.front()};
  return d;
}

std::vector<std::string> validate(const LengthDist& d) {
  std::vector<std::string> out;
  switch (d.kind) {
    case LengthKind::fixed:
      if (!finite_positive(d.value_tokens)) out.push_back("fixed length must be positive");
      break;
    case LengthKind::exponential:
      if (!finite_positive(d.value_tokens)) out.push_back("exponential mean must be positive");
      break;
    case LengthKind::uniform:
      if (!(d.min_tokens >= 1) || !(d.max_tokens >= d.min_tokens) || !std::isfinite(d.max_tokens))
        out.push_back("uniform length needs 1 <= min <= max");
      break;
    case LengthKind::lognormal:
      if (!std::isfinite(d.mu) || !std::isfinite(d.sigma) || d.sigma < 0)
        out.push_back("lognormal length needs finite mu and sigma >= 0");
      break;
    case LengthKind::histogram: {
      if (d.bin_tokens.empty()) {
        out.push_back("histogram length has no bins");
        break;
      }
      if (d.bin_tokens.size() != d.bin_weights.size()) {
        out.push_back(fmt::format("histogram length has {} lengths but {} weights",
                                  d.bin_tokens.size(), d.bin_weights.size()));
        break;
      }
      double total = 0;
      for (size_t i = 0; i < d.bin_tokens.size(); ++i) {
        if (!finite_positive(d.bin_tokens[i])) {
          out.push_back(
              fmt::format("histogram bin {} has non-positive length {}", i, d.bin_tokens[i]));
        }
        if (!std::isfinite(d.bin_weights[i]) || d.bin_weights[i] < 0) {
          out.push_back(
              fmt::format("histogram bin {} has negative weight {}", i, d.bin_weights[i]));
        } else {
          total += d.bin_weights[i];
        }
      }
      if (out.empty() && !(total > 0)) out.push_back("histogram weights are all zero");
      break;
    }
  }
  return out;
}

double mean(const LengthDist& d) {
  switch (d.kind) {
    case LengthKind::fixed:
    case LengthKind::exponential:
      return d.value_tokens;
    case LengthKind::uniform:
      return (d.min_tokens + d.max_tokens) / 2;
    case LengthKind::lognormal:
      return std::exp(d.mu + d.sigma * d.sigma / 2);
    case LengthKind::histogram: {
      double w = 0, s = 0;
      for (size_t i = 0; i < d.bin_tokens.size(); ++i) {
        w += d.bin_weights[i];
        s += d.bin_weights[i] * d.bin_tokens[i];
      }
      return w > 0 ? s / w : 0;
    }
  }
  return 0;
}

double variance(const LengthDist& d) {
  switch (d.kind) {
    case LengthKind::fixed:
      return 0;
    case LengthKind::exponential:
      return d.value_tokens * d.value_tokens;
    case LengthKind::uniform: {
      const double n = d.max_tokens - d.min_tokens + 1;  // discrete uniform on n integers
      return (n * n - 1) / 12;
    }
    case LengthKind::lognormal: {
      const double s2 = d.sigma * d.sigma;
      return std::expm1(s2) * std::exp(2 * d.mu + s2);
    }
    case LengthKind::histogram: {
      const double m = mean(d);
      double w = 0, s = 0;
      for (size_t i = 0; i < d.bin_tokens.size(); ++i) {
        w += d.bin_weights[i];
        s += d.bin_weights[i] * (d.bin_tokens[i] - m) * (d.bin_tokens[i] - m);
      }
      return w > 0 ? s / w : 0;
    }
  }
  return 0;
}

double scv(const LengthDist& d) {
  const double m = mean(d);
  return m > 0 ? variance(d) / (m * m) : 0;
}

Result<double> quantile(const LengthDist& d, double percentile) {
  if (!valid_percentile(percentile)) return percentile_error(percentile);
  auto errs = validate(d);
  if (!errs.empty()) return Error{errs.front()};
  const double p = percentile / 100;
  switch (d.kind) {
    case LengthKind::fixed:
      return d.value_tokens;
    case LengthKind::exponential:
      return -d.value_tokens * std::log1p(-p);
    case LengthKind::uniform: {
      // Smallest integer x with F(x) = (x - min + 1) / n >= p.
      const double n = d.max_tokens - d.min_tokens + 1;
      return d.min_tokens + std::max(0.0, std::ceil(p * n - 1e-12) - 1);
    }
    case LengthKind::lognormal:
      return std::exp(d.mu + d.sigma * normal_quantile(p));
    case LengthKind::histogram: {
      std::vector<size_t> idx(d.bin_tokens.size());
      std::iota(idx.begin(), idx.end(), size_t{0});
      std::sort(idx.begin(), idx.end(),
                [&](size_t a, size_t b) { return d.bin_tokens[a] < d.bin_tokens[b]; });
      const double total = std::accumulate(d.bin_weights.begin(), d.bin_weights.end(), 0.0);
      double acc = 0;
      for (size_t i : idx) {
        acc += d.bin_weights[i];
        if (acc >= p * total * (1 - 1e-12)) return d.bin_tokens[i];
      }
      return d.bin_tokens[idx.back()];
    }
  }
  return 0.0;
}

Result<LengthSampler> LengthSampler::create(const LengthDist& d, int64_t max_tokens) {
  auto errs = validate(d);
  if (!errs.empty()) return Error{errs.front()};
  if (max_tokens < 0) return Error{"length sampler: max_tokens must be >= 0"};
  LengthSampler s;
  s.d_ = d;
  s.max_ = max_tokens;
  if (d.kind == LengthKind::histogram) {
    const double total = std::accumulate(d.bin_weights.begin(), d.bin_weights.end(), 0.0);
    double acc = 0;
    s.cdf_.reserve(d.bin_weights.size());
    for (double w : d.bin_weights) {
      acc += w / total;
      s.cdf_.push_back(acc);
    }
    s.cdf_.back() = 1.0;
  }
  return s;
}

int64_t LengthSampler::operator()(Rng& rng) const {
  double x = 0;
  switch (d_.kind) {
    case LengthKind::fixed:
      x = d_.value_tokens;
      break;
    case LengthKind::exponential:
      x = d_.value_tokens * rng.exponential();
      break;
    case LengthKind::uniform: {
      const double n = d_.max_tokens - d_.min_tokens + 1;
      x = d_.min_tokens + std::min(n - 1, std::floor(rng.uniform() * n));
      break;
    }
    case LengthKind::lognormal:
      x = std::exp(d_.mu + d_.sigma * rng.normal());
      break;
    case LengthKind::histogram: {
      const double u = rng.uniform();
      const auto it = std::lower_bound(cdf_.begin(), cdf_.end(), u);
      const auto i = static_cast<size_t>(std::min<std::ptrdiff_t>(
          it - cdf_.begin(), static_cast<std::ptrdiff_t>(cdf_.size()) - 1));
      x = d_.bin_tokens[i];
      break;
    }
  }
  int64_t n = std::max<int64_t>(1, std::llround(std::min(x, 9e15)));
  if (max_ > 0) n = std::min(n, max_);
  return n;
}

// ---------------------------------------------------------------------------------------------
// Arrivals

double design_qps(const ArrivalRate& r) {
  if (r.peak_qps > 0) return r.peak_qps;
  if (!r.hourly_qps.empty()) return *std::max_element(r.hourly_qps.begin(), r.hourly_qps.end());
  return r.mean_qps;
}

double average_qps(const ArrivalRate& r) {
  if (r.mean_qps > 0) return r.mean_qps;
  if (!r.hourly_qps.empty()) {
    return std::accumulate(r.hourly_qps.begin(), r.hourly_qps.end(), 0.0) /
           static_cast<double>(r.hourly_qps.size());
  }
  return r.peak_qps;
}

Result<ArrivalRate> closed_loop_rate(double users, double think_time_s, double mean_qps) {
  if (!(users > 0)) return Error{fmt::format("concurrent_users: must be > 0, got {}", users)};
  if (!(think_time_s > 0))
    return Error{fmt::format("think_time_s: must be > 0 s, got {}", think_time_s)};
  ArrivalRate r;
  r.peak_qps = users / think_time_s;
  if (mean_qps > r.peak_qps) {
    return Error{fmt::format("mean_qps {} exceeds what {} users thinking {} s can send ({} req/s)",
                             mean_qps, users, think_time_s, r.peak_qps)};
  }
  r.mean_qps = mean_qps > 0 ? mean_qps : r.peak_qps;
  return r;
}

Result<ArrivalRate> batch_job_rate(double documents, double within_hours, double runs_per_day) {
  if (!(documents > 0)) return Error{fmt::format("documents: must be > 0, got {}", documents)};
  if (!(within_hours > 0))
    return Error{fmt::format("within_hours: must be > 0, got {}", within_hours)};
  if (!(runs_per_day > 0))
    return Error{fmt::format("runs_per_day: must be > 0, got {}", runs_per_day)};
  if (within_hours * runs_per_day > 24) {
    return Error{fmt::format("{} runs a day of {} h each overlap (more than 24 h)", runs_per_day,
                             within_hours)};
  }
  ArrivalRate r;
  r.peak_qps = documents / (within_hours * 3600.0);
  r.mean_qps = documents * runs_per_day / 86400.0;
  return r;
}

double arrival_scv(const ArrivalProcess& p) {
  switch (p.kind) {
    case ArrivalKind::poisson:
      return 1;
    case ArrivalKind::deterministic:
      return 0;
    case ArrivalKind::gamma:
    case ArrivalKind::hyperexponential:
      return p.scv;
  }
  return 1;
}

Result<ArrivalSampler> ArrivalSampler::create(const ArrivalProcess& p, double qps) {
  if (!finite_positive(qps))
    return Error{fmt::format("arrival rate must be a positive QPS, got {}", qps)};
  ArrivalSampler s;
  s.kind_ = p.kind;
  s.qps_ = qps;
  s.mean_gap_ = 1 / qps;
  if (p.kind == ArrivalKind::gamma) {
    if (!finite_positive(p.scv))
      return Error{fmt::format("gamma arrivals need scv > 0, got {}", p.scv)};
    s.shape_ = 1 / p.scv;
  } else if (p.kind == ArrivalKind::hyperexponential) {
    if (!std::isfinite(p.scv) || p.scv <= 1)
      return Error{fmt::format("hyperexponential arrivals need scv > 1, got {}", p.scv)};
    // Balanced means: p1 * m1 = p2 * m2 = mean / 2, which pins p1 for the requested SCV.
    s.p1_ = 0.5 * (1 + std::sqrt((p.scv - 1) / (p.scv + 1)));
    s.mean1_ = s.mean_gap_ / (2 * s.p1_);
    s.mean2_ = s.mean_gap_ / (2 * (1 - s.p1_));
  }
  return s;
}

double ArrivalSampler::next_gap_s(Rng& rng) const {
  switch (kind_) {
    case ArrivalKind::poisson:
      return mean_gap_ * rng.exponential();
    case ArrivalKind::deterministic:
      return mean_gap_;
    case ArrivalKind::gamma:
      return mean_gap_ / shape_ * rng.gamma(shape_);
    case ArrivalKind::hyperexponential:
      return (rng.uniform() < p1_ ? mean1_ : mean2_) * rng.exponential();
  }
  return mean_gap_;
}

// ---------------------------------------------------------------------------------------------

namespace {

// Every length multiplied by f > 0 (the family is kept: a lognormal's mu moves by ln f).
LengthDist scaled(LengthDist d, double f) {
  d.value_tokens *= f;
  d.min_tokens *= f;
  d.max_tokens *= f;
  if (d.kind == LengthKind::lognormal) d.mu += std::log(f);
  for (auto& b : d.bin_tokens) b *= f;
  return d;
}

}  // namespace

Result<RequestClass> with_prefix_reuse(RequestClass c, double shared_tokens, double hit_rate) {
  if (!(hit_rate >= 0 && hit_rate <= 1))
    return Error{fmt::format("prefix.hit_rate: must be in [0, 1], got {}", hit_rate)};
  if (!(shared_tokens >= 0))
    return Error{fmt::format("prefix.shared_tokens: must be >= 0, got {}", shared_tokens)};
  const double m = mean(c.prompt_tokens);
  const double saved = hit_rate * shared_tokens;
  if (!(saved < m)) {
    return Error{
        fmt::format("prefix: {} cached tokens per request on average is not below the "
                    "mean prompt of {:.0f} tokens",
                    saved, m)};
  }
  if (saved > 0) c.prompt_tokens = scaled(c.prompt_tokens, 1 - saved / m);
  return c;
}

std::vector<std::string> validate(const RequestClass& c) {
  std::vector<std::string> out;
  const std::string at = fmt::format("classes[{}]", c.name.empty() ? "?" : c.name);
  const auto bad_rate = [](double q) { return !std::isfinite(q) || q < 0; };
  if (bad_rate(c.rate.mean_qps))
    out.push_back(fmt::format("{}.rate.mean_qps: must be >= 0, got {}", at, c.rate.mean_qps));
  if (bad_rate(c.rate.peak_qps))
    out.push_back(fmt::format("{}.rate.peak_qps: must be >= 0, got {}", at, c.rate.peak_qps));
  if (!c.rate.hourly_qps.empty() && c.rate.hourly_qps.size() != 24) {
    out.push_back(
        fmt::format("{}.rate.hourly_qps: needs 24 values, got {}", at, c.rate.hourly_qps.size()));
  }
  for (size_t i = 0; i < c.rate.hourly_qps.size(); ++i) {
    if (bad_rate(c.rate.hourly_qps[i])) {
      out.push_back(
          fmt::format("{}.rate.hourly_qps[{}]: must be >= 0, got {}", at, i, c.rate.hourly_qps[i]));
    }
  }
  if (out.empty() && !(design_qps(c.rate) > 0))
    out.push_back(fmt::format("{}.rate: no positive mean, peak or hourly rate", at));
  if (c.rate.peak_qps > 0 && c.rate.mean_qps > c.rate.peak_qps) {
    out.push_back(fmt::format("{}.rate: mean_qps {} exceeds peak_qps {}", at, c.rate.mean_qps,
                              c.rate.peak_qps));
  }
  if (c.arrival.kind == ArrivalKind::gamma && !finite_positive(c.arrival.scv))
    out.push_back(fmt::format("{}.arrival.scv: gamma needs scv > 0, got {}", at, c.arrival.scv));
  if (c.arrival.kind == ArrivalKind::hyperexponential &&
      (!std::isfinite(c.arrival.scv) || c.arrival.scv <= 1)) {
    out.push_back(
        fmt::format("{}.arrival.scv: hyperexponential needs scv > 1, got {}", at, c.arrival.scv));
  }
  for (const auto& e : validate(c.prompt_tokens))
    out.push_back(fmt::format("{}.prompt_tokens: {}", at, e));
  for (const auto& e : validate(c.output_tokens))
    out.push_back(fmt::format("{}.output_tokens: {}", at, e));
  const auto check = [&](const SlaTarget& t, const char* name) {
    if (!std::isfinite(t.limit_s) || t.limit_s < 0)
      out.push_back(fmt::format("{}.sla.{}: limit must be >= 0 s, got {}", at, name, t.limit_s));
    if (t.set() && !valid_percentile(t.percentile)) {
      out.push_back(
          fmt::format("{}.sla.{}.percentile: {} is outside (0, 100)", at, name, t.percentile));
    }
  };
  check(c.sla.ttft, "ttft");
  check(c.sla.tpot, "tpot");
  check(c.sla.e2e, "e2e");
  return out;
}

}  // namespace infercap
