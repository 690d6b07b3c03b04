#pragma once
// The traffic a deployment must serve: request classes with an arrival rate and process, prompt
// and output length distributions, an SLA and a priority. Plain structs (the YAML reader lives in
// spec/), closed-form moments and quantiles, and seeded samplers for the serving simulator.
//
// Units: rates in requests per second (QPS), lengths in tokens, times in seconds.
// Percentiles are written as in an SLA: 99 means P99; valid range is the open interval (0, 100).
#include <cstdint>
#include <string>
#include <vector>

#include "infercap/result.hpp"

namespace infercap {

// ---------------------------------------------------------------------------------------------
// Random numbers. xoshiro256** seeded through splitmix64: small, fast and fully specified, so a
// seed gives the same stream on every platform (std:: distributions are not portable, so the
// samplers below derive every variate from `next_u64` themselves).
class Rng {
 public:
  explicit Rng(uint64_t seed = 1);
  uint64_t next_u64();
  /// Uniform on the open interval (0, 1): never 0, so log() is always finite.
  double uniform();
  /// Standard normal (Marsaglia polar method; the spare value is cached).
  double normal();
  /// Exponential with mean 1.
  double exponential();
  /// Gamma with shape k > 0 and scale 1 (Marsaglia-Tsang; k < 1 by the boost U^(1/k)).
  double gamma(double shape);

 private:
  uint64_t s_[4];
  double spare_ = 0;
  bool has_spare_ = false;
};

// ---------------------------------------------------------------------------------------------
// Token-length distributions. Samples are whole tokens, at least 1. The moments below are those
// of the continuous (or discrete, for histograms) distribution before rounding; rounding moves a
// mean by well under one token.
enum class LengthKind : unsigned char {
  fixed,        ///< always `value_tokens`
  uniform,      ///< integers in [min_tokens, max_tokens], equally likely
  lognormal,    ///< exp(N(mu, sigma^2)); built from mean + sigma or from p50 + p90
  exponential,  ///< exponential with mean `value_tokens` (queueing tests: exponential service)
  histogram,    ///< point masses `bin_tokens[i]` with weights `bin_weights[i]`
};

struct LengthDist {
  LengthKind kind = LengthKind::fixed;
  double value_tokens = 0;          ///< fixed: the length; exponential: the mean
  double min_tokens = 0;            ///< uniform
  double max_tokens = 0;            ///< uniform
  double mu = 0;                    ///< lognormal: mean of ln(length)
  double sigma = 0;                 ///< lognormal: standard deviation of ln(length)
  std::vector<double> bin_tokens;   ///< histogram: lengths
  std::vector<double> bin_weights;  ///< histogram: relative weights (any positive scale)
};

Result<LengthDist> fixed_length(double tokens);
Result<LengthDist> uniform_length(double min_tokens, double max_tokens);
/// Lognormal whose *mean* is `mean_tokens` and whose log has standard deviation `sigma`
/// (mu = ln(mean) - sigma^2 / 2).
Result<LengthDist> lognormal_length_mean_sigma(double mean_tokens, double sigma);
/// Lognormal through two quantiles: mu = ln(p50), sigma = ln(p90 / p50) / z_0.9 (z_0.9 = 1.28155).
Result<LengthDist> lognormal_length_p50_p90(double p50_tokens, double p90_tokens);
Result<LengthDist> exponential_length(double mean_tokens);
/// Errors on an empty histogram, mismatched sizes, non-positive lengths or negative / all-zero
/// weights.
Result<LengthDist> histogram_length(std::vector<double> tokens, std::vector<double> weights);

/// Messages for a malformed distribution (empty if valid); the factories above never make one.
std::vector<std::string> validate(const LengthDist& d);

double mean(const LengthDist& d);
double variance(const LengthDist& d);
/// Squared coefficient of variation, variance / mean^2.
double scv(const LengthDist& d);
/// Quantile at `percentile` in (0, 100), in closed form (lognormal via the normal quantile,
/// uniform and exponential directly, histogram by the cumulative weights).
Result<double> quantile(const LengthDist& d, double percentile);

/// A precomputed sampler (cumulative table for histograms); sampling does not allocate.
class LengthSampler {
 public:
  static Result<LengthSampler> create(const LengthDist& d, int64_t max_tokens = 0);
  /// One sample in whole tokens, in [1, max_tokens] when max_tokens > 0.
  int64_t operator()(Rng& rng) const;
  const LengthDist& dist() const { return d_; }

 private:
  LengthDist d_;
  std::vector<double> cdf_;
  int64_t max_ = 0;
};

/// Standard normal quantile (Acklam's rational approximation refined by one Halley step;
/// |error| < 1e-12). `p` in (0, 1).
double normal_quantile(double p);

// ---------------------------------------------------------------------------------------------
// Arrival rate and process.

/// How fast requests come. Give at least one of the three. `design_qps` is what capacity is
/// sized for: the peak if stated, else the busiest hour of the curve, else the mean.
struct ArrivalRate {
  double mean_qps = 0;
  double peak_qps = 0;
  std::vector<double> hourly_qps;  ///< 24 values, hour 0..23 (a daily load curve), or empty
};
double design_qps(const ArrivalRate& r);
/// Long-run average rate: the mean if stated, else the mean of the curve, else the peak.
double average_qps(const ArrivalRate& r);

/// A closed loop as a buyer states it: `users` people, each sending the next request
/// `think_time_s` after the previous answer. They offer X = users / (think + response) req/s;
/// sized for the upper bound users / think (a faster answer only raises the rate toward it). The
/// mean is `mean_qps` when given (people are not all active all day), else the same bound.
/// Errors on users <= 0 or think time <= 0.
Result<ArrivalRate> closed_loop_rate(double users, double think_time_s, double mean_qps = 0);

/// A batch job with a deadline: `documents` requests within `within_hours`, `runs_per_day` times
/// a day. The job must run at documents / (within_hours x 3600) req/s (the design rate); the
/// day's average is documents x runs_per_day / 86400, so energy follows the hours it runs.
/// Errors on non-positive inputs or runs that overlap (within_hours x runs_per_day > 24).
Result<ArrivalRate> batch_job_rate(double documents, double within_hours, double runs_per_day = 1);

enum class ArrivalKind : unsigned char {
  poisson,           ///< exponential inter-arrival times, SCV 1
  deterministic,     ///< evenly spaced, SCV 0
  gamma,             ///< gamma inter-arrivals with SCV `scv` (shape 1/scv): < 1 smooth, > 1 bursty
  hyperexponential,  ///< two-phase balanced-means H2 with SCV `scv` > 1: bursty
};

struct ArrivalProcess {
  ArrivalKind kind = ArrivalKind::poisson;
  double scv = 1;  ///< squared coefficient of variation of inter-arrival times (gamma, H2)
};
/// The inter-arrival SCV the process implies (poisson 1, deterministic 0, else `scv`).
double arrival_scv(const ArrivalProcess& p);

/// Draws inter-arrival gaps with the given process and mean rate; no allocation.
class ArrivalSampler {
 public:
  static Result<ArrivalSampler> create(const ArrivalProcess& p, double qps);
  double next_gap_s(Rng& rng) const;
  double qps() const { return qps_; }

 private:
  ArrivalKind kind_ = ArrivalKind::poisson;
  double qps_ = 0;
  double mean_gap_ = 0;
  double shape_ = 1;                         ///< gamma shape
  double p1_ = 0.5, mean1_ = 0, mean2_ = 0;  ///< H2 branch probability and means
};

// ---------------------------------------------------------------------------------------------
// Service-level agreement.

/// One latency bound at a percentile. `limit_s` <= 0 means "no bound on this metric".
struct SlaTarget {
  double limit_s = 0;
  double percentile = 99;
  bool set() const { return limit_s > 0; }
};

/// TTFT: arrival to first output token. TPOT: a request's mean time between output tokens
/// ((finish - first token) / (output - 1)). End-to-end: arrival to last token.
struct Sla {
  SlaTarget ttft;
  SlaTarget tpot;
  SlaTarget e2e;
};

struct RequestClass {
  std::string name;
  std::string model;  ///< model name as in the catalog
  ArrivalRate rate;
  ArrivalProcess arrival;
  LengthDist prompt_tokens;
  LengthDist output_tokens;
  Sla sla;
  int priority = 0;  ///< higher = more important; the simulator's scheduler is FCFS (see docs)
};

/// Prefix reuse (vLLM's automatic prefix caching): a `shared_tokens` prefix (a system prompt,
/// earlier turns) whose KV is already cached for a fraction `hit_rate` of requests. Those tokens
/// are neither prefilled again nor stored again per sequence, so the class's prompt lengths are
/// what is left to compute: scaled by 1 - hit_rate x shared_tokens / mean prompt (a scale keeps
/// every length family; the mean drops by exactly hit_rate x shared_tokens). Attention over the
/// cached prefix is not charged: a slight underestimate for long prefixes. Errors on a hit rate
/// outside [0, 1], negative shared tokens, or a prefix longer than the mean prompt.
Result<RequestClass> with_prefix_reuse(RequestClass c, double shared_tokens, double hit_rate);

/// Checks rates (non-negative, at least one positive, 24 hourly values if a curve is given),
/// arrival SCVs (gamma > 0, H2 > 1), length distributions, SLA percentiles in (0, 100) and
/// non-negative limits. Messages name the field ("classes[chat].sla.ttft.percentile: ...").
std::vector<std::string> validate(const RequestClass& c);

}  // namespace infercap
