// The analytic fast path: a queueing approximation of one continuous-batching replica.
// docs/serving.md derives every step; in short:
//   tau(n) = time between a request's tokens with n running, stretched by the prefill work that
//            arrives meanwhile (lambda * prefill time per second);
//   S(n)   = T_prefill + (L - 1) * tau(n), the time a request holds a slot at batch n;
//   N      = requests in the replica, a birth-death chain: up at lambda, down at min(n, c) /
//            S(min(n, c)); its stationary law gives the busy fraction, the batch, P(wait) and Lq;
//   Wq     = Lq / lambda * (ca^2 + cs^2) / 2 * g (Allen-Cunneen with the Kraemer/Langenbach-Belz
//            g; Pollaczek-Khinchine for Poisson arrivals at c = 1).
// Percentiles come from gamma distributions matched to each metric's mean and variance.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "infercap/serving.hpp"
#include "serving_internal.hpp"

namespace infercap {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Regularised lower incomplete gamma P(a, x): series below a + 1, continued fraction above.
double gamma_p(double a, double x, double lga) {
  if (x <= 0) return 0;
  const double front = std::exp(-x + a * std::log(x) - lga);
  if (x < a + 1) {
    double term = 1 / a, sum = term;
    for (int n = 1; n < 500; ++n) {
      term *= x / (a + n);
      sum += term;
      if (term < sum * 1e-15) break;
    }
    return std::min(1.0, sum * front);
  }
  constexpr double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int i = 1; i < 500; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < 1e-15) break;
  }
  return std::max(0.0, 1 - front * h);
}

// Quantile of Gamma(shape k, scale 1) at probability p: Wilson-Hilferty start, then safeguarded
// Newton on P(k, x) = p.
double gamma_quantile_unit(double k, double p) {
  const double lgk = std::lgamma(k);
  double x = 0;
  const double z = normal_quantile(p);
  const double w = 1 - 1 / (9 * k) + z * std::sqrt(1 / (9 * k));
  if (k >= 1 && w > 0) {
    x = k * w * w * w;
  } else {
    // Small x: P(k, x) ~ x^k / Gamma(k + 1).
    x = std::exp((std::log(p) + std::lgamma(k + 1)) / k);
  }
  double lo = 0, hi = kInf;
  for (int it = 0; it < 60; ++it) {
    const double f = gamma_p(k, x, lgk) - p;
    if (f < 0) {
      lo = x;
    } else {
      hi = x;
    }
    const double pdf = std::exp((k - 1) * std::log(x) - x - lgk);
    double nx = pdf > 0 ? x - f / pdf : x;
    if (!(nx > lo && nx < hi)) nx = std::isfinite(hi) ? (lo + hi) / 2 : 2 * x + 1;
    if (std::fabs(nx - x) <= 1e-12 * x) {
      x = nx;
      break;
    }
    x = nx;
  }
  return x;
}

// A non-negative metric known by its mean and variance, read as a gamma distribution.
struct Moments {
  double mean = 0;
  double var = 0;
  double quantile(double percentile) const {
    if (!std::isfinite(mean)) return kInf;
    if (mean <= 0) return 0;
    if (var <= 1e-12 * mean * mean) return mean;
    const double k = mean * mean / var;
    return var / mean * gamma_quantile_unit(k, percentile / 100);
  }
  LatencySummary summary() const {
    return LatencySummary{mean, quantile(50), quantile(90), quantile(99)};
  }
};

// E[X^3] of a length distribution (for the skew of step times).
double third_moment(const LengthDist& d) {
  switch (d.kind) {
    case LengthKind::fixed:
      return d.value_tokens * d.value_tokens * d.value_tokens;
    case LengthKind::exponential:
      return 6 * d.value_tokens * d.value_tokens * d.value_tokens;
    case LengthKind::lognormal:
      return std::exp(3 * d.mu + 4.5 * d.sigma * d.sigma);
    case LengthKind::uniform: {
      double s = 0;  // sum of x^3 over min..max by the closed form of sum k^3
      const auto cube_sum = [](double n) { return n * n * (n + 1) * (n + 1) / 4; };
      s = cube_sum(d.max_tokens) - cube_sum(d.min_tokens - 1);
      return s / (d.max_tokens - d.min_tokens + 1);
    }
    case LengthKind::histogram: {
      double w = 0, s = 0;
      for (size_t i = 0; i < d.bin_tokens.size(); ++i) {
        w += d.bin_weights[i];
        s += d.bin_weights[i] * d.bin_tokens[i] * d.bin_tokens[i] * d.bin_tokens[i];
      }
      return w > 0 ? s / w : 0;
    }
  }
  return 0;
}

struct ClassIn {
  const RequestClass* cls = nullptr;
  double qps = 0, w = 0;
  double p_mean = 0, p_var = 0, o_mean = 0, o_var = 0;
};

// One operating point of the replica for a mean in-service count `a`.
struct Point {
  bool ok = false;    // false: prefill work alone saturates the engine
  double u = 0;       // busy fraction
  double b = 1;       // mean running batch while busy
  double tau = 0;     // time between a request's output tokens
  double t0 = 0;      // bare decode step at batch b
  double k = 0;       // marginal step time per prompt token
  double s_mean = 0;  // slot holding time, mixed over classes
  double s_var = 0;
  double erlang_c = 0;  // probability an arrival waits for a slot
};

class Analyzer {
 public:
  Analyzer(const StepModel& m, const ServingConfig& cfg, const std::vector<RequestClass>& classes)
      : m_(m), cfg_(cfg), classes_(classes) {}

  Result<bool> prepare() {
    auto errs = detail::check_inputs(cfg_, classes_);
    if (!errs.empty()) return Error{errs.front()};
    auto rates = detail::class_rates(classes_, 0);
    if (!rates) return rates.error();
    design_total_ = 0;
    for (double q : *rates) design_total_ += q;
    in_.resize(classes_.size());
    for (size_t i = 0; i < classes_.size(); ++i) {
      ClassIn& c = in_[i];
      c.cls = &classes_[i];
      c.w = (*rates)[i] / design_total_;
      c.p_mean = mean(classes_[i].prompt_tokens);
      c.p_var = variance(classes_[i].prompt_tokens);
      c.o_mean = std::max(1.0, mean(classes_[i].output_tokens));
      c.o_var = variance(classes_[i].output_tokens);
      p_bar_ += c.w * c.p_mean;
      l_bar_ += c.w * c.o_mean;
      ca2_ += c.w * arrival_scv(classes_[i].arrival);
    }
    double wd = 0, wc = 0;
    for (const auto& c : in_) {
      wd += c.w * (c.o_mean - 1);
      wc += c.w * (c.o_mean - 1) * (c.p_mean + c.o_mean / 2);
    }
    ctx_d_ = wd > 0 ? wc / wd : p_bar_;
    for (const auto& c : in_) {
      p2_ += c.w * (c.p_var + c.p_mean * c.p_mean);
      p3_ += c.w * third_moment(c.cls->prompt_tokens);
    }
    const double p1 = std::max(1.0, p_bar_);
    prefill_slope_ = std::max(0.0, (m_.prefill_s(1, 2 * p1, 0) - m_.prefill_s(1, p1, 0)) / p1);
    // KV held by the running sequences, time-averaged: a sequence holds P + L/2 on average over a
    // life proportional to L, so the mix weighs it by L: (E[P L] + E[L^2] / 2) / E[L], plus half
    // a block of rounding. The simulator's 1% admission watermark stays free.
    double fl = 0, l1 = 0;
    for (const auto& c : in_) {
      fl += c.w * (c.p_mean * c.o_mean + (c.o_var + c.o_mean * c.o_mean) / 2);
      l1 += c.w * c.o_mean;
    }
    foot_ = fl / l1 + cfg_.kv_block_tokens / 2.0;
    kv_tokens_ = cfg_.kv_capacity_tokens > 0 ? cfg_.kv_capacity_tokens : m_.kv_capacity_tokens();
    const double kv_slots = std::floor(0.99 * kv_tokens_ / foot_);
    if (!(kv_slots >= 1)) {
      return Error{fmt::format(
          "KV cache holds {:.0f} tokens, less than one average sequence ({:.0f} tokens)",
          kv_tokens_, foot_)};
    }
    c_ = static_cast<int>(std::min<double>(cfg_.max_seqs, kv_slots));
    kv_limited_ = c_ < cfg_.max_seqs;
    return true;
  }

  double design_total() const { return design_total_; }

  ServingResult eval(double total_qps) const;

  /// The QPS at which all c slots are busy: lambda * S(c; lambda) = c, by bisection (S grows
  /// with lambda through the prefill work arriving meanwhile).
  double saturation_qps() const {
    const double a = c_ * (1 - 1e-9);
    const Point p0 = point(0, a);
    if (!p0.ok || !(p0.s_mean > 0)) return 0;
    double lo = 0, hi = c_ / p0.s_mean;
    for (int it = 0; it < 60 && hi - lo > 1e-7 * hi; ++it) {
      const double mid = (lo + hi) / 2;
      const Point p = point(mid, a);
      if (p.ok && mid * p.s_mean < c_) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

 private:
  double dec(double b) const {
    const int b0 = static_cast<int>(std::floor(b));
    const double f = b - b0;
    const double t0 = m_.decode_step_s(std::max(1, b0), ctx_d_);
    if (f <= 1e-12) return t0;
    return t0 * (1 - f) + m_.decode_step_s(b0 + 1, ctx_d_) * f;
  }
  double mix(double p, double pc, double bd) const {
    const int b0 = static_cast<int>(std::floor(bd));
    const double f = bd - b0;
    const double t0 = m_.mixed_step_s(p, pc, b0, ctx_d_);
    if (f <= 1e-12) return t0;
    return t0 * (1 - f) + m_.mixed_step_s(p, pc, b0 + 1, ctx_d_) * f;
  }
  // Time from admission to the first token for a prompt of `prompt` tokens at running batch b
  // (the other prompts sharing its step are added by the caller).
  double prefill_time(double prompt, double b) const {
    const double others = std::max(0.0, b - 1);
    if (!cfg_.chunked_prefill) return m_.prefill_s(1, prompt, 0);
    const double avail = std::max(1.0, cfg_.max_batched_tokens - others);
    const double n = std::ceil(prompt / avail);
    return n * mix(prompt / n, prompt / 2, others);
  }

  Point point(double lambda, double a) const;
  /// Step and holding times with a running batch of b (busy fraction and waiting left unset).
  Point at_batch(double lambda, double b) const;
  struct Chain {
    bool stable = false;
    double u = 0;          // P(N > 0)
    double mean_m = 0;     // E[min(N, c)], requests in service
    double seen_m = 0;     // E[M^2] / E[M], the batch an admitted request sees
    double wait_prob = 0;  // P(N >= c)
    double lq = 0;         // E[(N - c)+]
  };
  Chain birth_death(double lambda) const;

  const StepModel& m_;
  const ServingConfig& cfg_;
  const std::vector<RequestClass>& classes_;
  std::vector<ClassIn> in_;
  double design_total_ = 0;
  double p_bar_ = 0, l_bar_ = 0, ca2_ = 0, foot_ = 0, ctx_d_ = 0, kv_tokens_ = 0;
  double p2_ = 0, p3_ = 0;    // E[P^2], E[P^3] of prompt lengths over the class mix
  double prefill_slope_ = 0;  // unchunked: marginal prefill time per prompt token
  int c_ = 1;
  bool kv_limited_ = false;
};

// Erlang: P(empty) and C (probability of waiting) of M/M/c at offered load a < c, with the
// terms rescaled so large c and a cannot overflow.
void erlang(int c, double a, double& p0, double& wait_prob) {
  double sum = 0, term = 1, scale = 0;
  for (int k = 0; k < c; ++k) {
    sum += term;
    term *= a / (k + 1);
    if (term > 1e200) {
      sum *= 1e-200;
      term *= 1e-200;
      scale += 200;
    }
  }
  const double rho = a / c;
  const double tail = term / (1 - rho);
  wait_prob = tail / (sum + tail);
  p0 = scale > 0 ? 0 : 1 / (sum + tail);
}

Point Analyzer::point(double lambda, double a) const {
  double p0 = 1, wait_prob = 0;
  erlang(c_, a, p0, wait_prob);
  const double u = 1 - p0;
  Point pt = at_batch(lambda, u > 1e-12 ? std::clamp(a / u, 1.0, static_cast<double>(c_)) : 1.0);
  pt.u = u;
  pt.erlang_c = wait_prob;
  return pt;
}

Point Analyzer::at_batch(double lambda, double b) const {
  Point pt;
  pt.b = b;
  pt.t0 = dec(pt.b);
  // Arrivals keep coming at lambda while a request decodes (PASTA), so the prefill work fused
  // into, or interleaved with, its steps is lambda * (prefill work) per second of its life.
  double tau = pt.t0;
  if (cfg_.chunked_prefill) {
    // Each step carries lambda * P * tau prompt tokens; the step grows by k per token.
    const double chunk = std::max(1.0, std::min(p_bar_, cfg_.max_batched_tokens - pt.b));
    const double k = std::max(0.0, (mix(chunk, p_bar_ / 2, pt.b) - pt.t0) / chunk);
    pt.k = k;
    const double load = k * lambda * p_bar_;
    if (load >= 1) return pt;
    tau = pt.t0 / (1 - load);
    if (lambda * p_bar_ * tau > cfg_.max_batched_tokens) return pt;
  } else {
    // Prefill-only steps stall every decoder for lambda * T_prefill of each second.
    double f = 0;
    for (const auto& c : in_) f += lambda * c.w * m_.prefill_s(1, c.p_mean, 0);
    if (f >= 1) return pt;
    pt.k = prefill_slope_;
    tau = pt.t0 / (1 - f);
  }
  pt.tau = tau;
  double s1 = 0, s2 = 0;
  for (const auto& c : in_) {
    const double tp = prefill_time(c.p_mean, pt.b);
    const double s = tp + (c.o_mean - 1) * tau;
    const double tp_var = pt.k * pt.k * c.p_var;
    const double v = tau * tau * c.o_var + tp_var;
    s1 += c.w * s;
    s2 += c.w * (v + s * s);
  }
  pt.s_mean = s1;
  pt.s_var = std::max(0.0, s2 - s1 * s1);
  pt.ok = true;
  return pt;
}

// The number of requests in the replica as a birth-death chain: arrivals at lambda; with n
// admitted (n <= c) each progresses at 1 / S(n), so completions come at mu(n) = n / S(n); above c
// the extra requests wait and completions stay at mu(c). pi(n) ~ prod lambda / mu(k). This keeps
// the feedback a mean-value fixed point loses: a large batch makes steps slow, which keeps the
// batch large. S(n) is computed on a grid (exact to 8, then 2 points per octave) and interpolated.
Analyzer::Chain Analyzer::birth_death(double lambda) const {
  Chain ch;
  std::array<int, 64> grid{};
  std::array<double, 64> s_at{};
  int ng = 0;
  for (int m = 1; m <= std::min(c_, 8); ++m) grid[static_cast<size_t>(ng++)] = m;
  for (double x = 8 * std::sqrt(2.0); x < c_ && ng < 62; x *= std::sqrt(2.0))
    grid[static_cast<size_t>(ng++)] = static_cast<int>(std::round(x));
  if (grid[static_cast<size_t>(ng - 1)] < c_) grid[static_cast<size_t>(ng++)] = c_;
  int c_eff = c_;
  for (int i = 0; i < ng; ++i) {
    const Point p = at_batch(lambda, grid[static_cast<size_t>(i)]);
    if (!p.ok) {  // prefill work alone saturates the engine from this batch on
      c_eff = i == 0 ? 0 : grid[static_cast<size_t>(i) - 1];
      ng = i;
      break;
    }
    s_at[static_cast<size_t>(i)] = p.s_mean;
  }
  if (c_eff < 1) return ch;
  const auto holding = [&](int m, int& gi) {
    while (gi + 1 < ng && grid[static_cast<size_t>(gi) + 1] < m) ++gi;
    const int g0 = grid[static_cast<size_t>(gi)];
    if (m <= g0 || gi + 1 >= ng) return s_at[static_cast<size_t>(gi)];
    const int g1 = grid[static_cast<size_t>(gi) + 1];
    const double f = static_cast<double>(m - g0) / (g1 - g0);
    return s_at[static_cast<size_t>(gi)] * (1 - f) + s_at[static_cast<size_t>(gi) + 1] * f;
  };
  // Terms t_n = pi(n) / pi(0), rescaled together when they grow large.
  double term = 1, z = 1, m1 = 0, m2 = 0, scale = 0;
  int gi = 0;
  for (int n = 1; n <= c_eff; ++n) {
    term *= lambda * holding(n, gi) / n;
    z += term;
    m1 += n * term;
    m2 += static_cast<double>(n) * n * term;
    if (term > 1e200) {
      term *= 1e-200;
      z *= 1e-200;
      m1 *= 1e-200;
      m2 *= 1e-200;
      scale += 200;
    }
  }
  const double rho_c = lambda * s_at[static_cast<size_t>(ng - 1)] / c_eff;
  if (!(rho_c < 1)) return ch;
  // Geometric tail above c_eff: sum_{j>=1} rho^j = rho / (1 - rho), sum j rho^j = rho / (1 -
  // rho)^2.
  const double tail = term * rho_c / (1 - rho_c);
  z += tail;
  m1 += c_eff * tail;
  m2 += static_cast<double>(c_eff) * c_eff * tail;
  ch.stable = true;
  ch.u = scale > 0 ? 1.0 : 1 - 1 / z;
  ch.mean_m = m1 / z;
  ch.seen_m = m1 > 0 ? m2 / m1 : 1;
  ch.wait_prob = term / (1 - rho_c) / z;
  ch.lq = term * rho_c / ((1 - rho_c) * (1 - rho_c)) / z;
  return ch;
}

ServingResult Analyzer::eval(double total_qps) const {
  const double lambda = total_qps > 0 ? total_qps : design_total_;
  ServingResult r;
  r.offered_qps = lambda;
  const Chain ch = birth_death(lambda);
  const bool stable = ch.stable;
  const double a = ch.mean_m;
  Point pt;
  if (stable) {
    pt = at_batch(lambda, std::clamp(ch.seen_m, 1.0, static_cast<double>(c_)));
    pt.u = ch.u;
    pt.erlang_c = ch.wait_prob;
    if (!pt.ok) pt = at_batch(lambda, 1.0);
  }
  if (!stable) {
    r.throughput_rps = saturation_qps();
    const Point sat = point(r.throughput_rps, c_ * (1 - 1e-9));
    r.stable = false;
    r.utilisation = 1;
    r.mean_batch = c_;
    r.output_tokens_per_s = r.throughput_rps * l_bar_;
    r.input_tokens_per_s = r.throughput_rps * p_bar_;
    r.kv_occupancy_mean = r.kv_occupancy_max = std::min(1.0, c_ * foot_ / kv_tokens_);
    r.queue_mean = r.queue_max = kInf;
    r.note = fmt::format(
        "unstable: {:.4g} QPS offered, about {:.4g} QPS is the most {} slots{} can carry", lambda,
        r.throughput_rps, c_, kv_limited_ ? " (KV-cache limited)" : "");
    for (const auto& c : in_) {
      ClassLatency cl;
      cl.name = c.cls->name;
      const LatencySummary inf{kInf, kInf, kInf, kInf};
      cl.ttft = cl.e2e = cl.queue_wait = inf;
      cl.tpot = LatencySummary{sat.tau, sat.tau, sat.tau, sat.tau};
      cl.ttft_at_sla_s = cl.e2e_at_sla_s = kInf;
      cl.tpot_at_sla_s = sat.tau;
      cl.throughput_rps = r.throughput_rps * c.w;
      detail::judge_sla(cl, c.cls->sla, false);
      r.classes.push_back(std::move(cl));
    }
    r.all.name = "all";
    r.all.ttft = r.all.e2e = r.all.queue_wait = LatencySummary{kInf, kInf, kInf, kInf};
    r.all.tpot = LatencySummary{sat.tau, sat.tau, sat.tau, sat.tau};
    r.all.throughput_rps = r.throughput_rps;
    detail::judge_all(r);
    return r;
  }

  // Waiting for a slot: Allen-Cunneen with the Kraemer/Langenbach-Belz correction for
  // non-Poisson arrivals (g = 1 for Poisson, so M/G/1 stays Pollaczek-Khinchine), and an
  // exponential tail behind P(wait) = C.
  const double cs2 = pt.s_mean > 0 ? pt.s_var / (pt.s_mean * pt.s_mean) : 0;
  const double rho = std::min(1.0, lambda * pt.s_mean / c_);
  double klb = 1;
  if (ca2_ < 1 && ca2_ + cs2 > 0) {
    klb = std::exp(-2 * (1 - rho) * (1 - ca2_) * (1 - ca2_) / (3 * rho * (ca2_ + cs2)));
  } else if (ca2_ > 1) {
    klb = std::exp(-(1 - rho) * (ca2_ - 1) / (ca2_ + 4 * cs2));
  }
  const double wait_prob = std::clamp(pt.erlang_c, 1e-300, 1.0);
  // The chain's queue is the M/M/c-like baseline; (ca^2 + cs^2) / 2 carries it to general
  // arrivals and service (Allen-Cunneen; Pollaczek-Khinchine for Poisson at c = 1).
  const double wq = ch.lq / lambda * (ca2_ + cs2) / 2 * klb;
  const double w2 = 2 * wq * wq / wait_prob;
  const Moments wait{wq, std::max(0.0, w2 - wq * wq)};
  const auto wait_quantile = [&](double pct) {
    const double tail = 1 - pct / 100;
    if (wq <= 0 || tail >= wait_prob) return 0.0;
    return wq / wait_prob * std::log(wait_prob / tail);
  };
  // With several slots an admitted request still waits for the running step to end, and shares
  // its first step with the prompts that arrived meanwhile. A busy step is t = t0 + k X with X the
  // prompt tokens in it, compound Poisson over lambda * tau arrivals: Var X = lambda tau E[P^2],
  // third cumulant lambda tau E[P^3]. An arrival lands in a length-biased step, so its residual R
  // has E[R] = u E[t^2] / (2 E[t]), E[R^2] = u E[t^3] / (3 E[t]), and the prompts admitted with
  // it arrived during a step of mean length E[t^2] / E[t]. (At c = 1 the M/G/1 wait covers this.)
  double r1 = 0, r_var = 0, other_mean = 0, other_var = 0;
  if (c_ > 1) {
    const double k = pt.k, et = pt.tau, lt = lambda * pt.tau;
    const double var_x = lt * p2_;
    const double et2 = et * et + k * k * var_x;
    const double et3 = et * et * et + 3 * et * k * k * var_x + k * k * k * lt * p3_;
    r1 = pt.u * et2 / (2 * et);
    r_var = std::max(0.0, pt.u * et3 / (3 * et) - r1 * r1);
    const double tb = et2 / et;
    other_mean = k * lambda * p_bar_ * tb;
    other_var = k * k * lambda * tb * p2_;
  }
  // Everything but the request's own prompt, as a gamma; the own prompt through the step model at
  // the prompt quantile (the roofline is not linear in the prompt); the two excesses over their
  // means add in quadrature.
  const Moments rest{wq + r1 + other_mean, wait.var + r_var + other_var};

  r.stable = true;
  r.utilisation = pt.u;
  r.mean_batch = ch.u > 0 ? std::max(1.0, a / ch.u) : 1.0;
  r.throughput_rps = lambda;
  r.output_tokens_per_s = lambda * l_bar_;
  r.input_tokens_per_s = lambda * p_bar_;
  r.kv_occupancy_mean = std::min(1.0, a * foot_ / kv_tokens_);
  r.kv_occupancy_max =
      std::min(1.0, std::min<double>(c_, a + 3 * std::sqrt(a)) * foot_ / kv_tokens_);
  r.queue_mean = lambda * wq;
  r.queue_max = lambda * wait_quantile(99);
  r.note = kv_limited_ ? fmt::format("batch limited to {} sequences by the KV cache", c_) : "";

  const double dt0_db = pt.b + 1 <= cfg_.max_seqs ? dec(pt.b + 1) - pt.t0 : 0;
  const auto tpot_at = [&](double pct) {
    // The batch a request sees fluctuates like a Poisson count around b (not averaged over the
    // request's life: conservative for long outputs).
    const double z = normal_quantile(pct / 100);
    const double bq = std::clamp(pt.b + z * std::sqrt(pt.b), 1.0, static_cast<double>(c_));
    return pt.tau * std::max(0.0, pt.t0 + dt0_db * (bq - pt.b)) / pt.t0;
  };
  Moments all_ttft, all_e2e;
  double all_ttft2 = 0, all_e2e2 = 0;
  for (const auto& c : in_) {
    ClassLatency cl;
    cl.name = c.cls->name;
    const double tp = prefill_time(c.p_mean, pt.b);
    const double tp_var = pt.k * pt.k * c.p_var;
    const Moments ttft{rest.mean + tp, rest.var + tp_var};
    double memo_pct = -1, memo = 0;  // P99 is usually also the SLA percentile
    const auto ttft_at = [&](double pct) {
      if (pct == memo_pct) return memo;
      auto pq = quantile(c.cls->prompt_tokens, pct);
      const double dy = pq ? prefill_time(*pq, pt.b) - tp : 0;
      const double dx = rest.quantile(pct) - rest.mean;
      const double d = std::sqrt(dx * dx + dy * dy);
      memo_pct = pct;
      memo = std::max(0.0, ttft.mean + (dx + dy < 0 ? -d : d));
      return memo;
    };
    const Moments e2e{ttft.mean + (c.o_mean - 1) * pt.tau,
                      rest.var + tp_var + pt.tau * pt.tau * c.o_var};
    cl.ttft = LatencySummary{ttft.mean, ttft_at(50), ttft_at(90), ttft_at(99)};
    cl.e2e = e2e.summary();
    cl.tpot = c.o_mean > 1 ? LatencySummary{pt.tau, tpot_at(50), tpot_at(90), tpot_at(99)}
                           : LatencySummary{};
    cl.queue_wait = LatencySummary{wq, wait_quantile(50), wait_quantile(90), wait_quantile(99)};
    const Sla& sla = c.cls->sla;
    if (sla.ttft.set()) cl.ttft_at_sla_s = ttft_at(sla.ttft.percentile);
    if (sla.tpot.set()) cl.tpot_at_sla_s = c.o_mean > 1 ? tpot_at(sla.tpot.percentile) : 0;
    if (sla.e2e.set()) cl.e2e_at_sla_s = e2e.quantile(sla.e2e.percentile);
    cl.throughput_rps = lambda * c.w;
    detail::judge_sla(cl, sla, true);
    r.classes.push_back(std::move(cl));
    all_ttft.mean += c.w * ttft.mean;
    all_ttft2 += c.w * (ttft.var + ttft.mean * ttft.mean);
    all_e2e.mean += c.w * e2e.mean;
    all_e2e2 += c.w * (e2e.var + e2e.mean * e2e.mean);
  }
  all_ttft.var = std::max(0.0, all_ttft2 - all_ttft.mean * all_ttft.mean);
  all_e2e.var = std::max(0.0, all_e2e2 - all_e2e.mean * all_e2e.mean);
  r.all.name = "all";
  r.all.ttft = r.classes.size() == 1 ? r.classes[0].ttft : all_ttft.summary();
  r.all.e2e = all_e2e.summary();
  r.all.tpot =
      l_bar_ > 1 ? LatencySummary{pt.tau, tpot_at(50), tpot_at(90), tpot_at(99)} : LatencySummary{};
  r.all.queue_wait = LatencySummary{wq, wait_quantile(50), wait_quantile(90), wait_quantile(99)};
  r.all.throughput_rps = lambda;
  detail::judge_all(r);
  return r;
}

}  // namespace

Result<ServingResult> analyze(const StepModel& m, const ServingConfig& cfg,
                              const std::vector<RequestClass>& classes, double total_qps) {
  if (!std::isfinite(total_qps) || total_qps < 0)
    return Error{fmt::format("total QPS must be >= 0, got {}", total_qps)};
  Analyzer an(m, cfg, classes);
  auto ok = an.prepare();
  if (!ok) return ok.error();
  return an.eval(total_qps);
}

Result<MaxQps> max_qps_within_sla(const StepModel& m, const ServingConfig& cfg,
                                  const std::vector<RequestClass>& classes, double rel_tol) {
  if (!(rel_tol > 0 && rel_tol < 1))
    return Error{fmt::format("relative tolerance must be in (0, 1), got {}", rel_tol)};
  Analyzer an(m, cfg, classes);
  auto ok = an.prepare();
  if (!ok) return ok.error();
  const auto binding = [](const ServingResult& r, MaxQps& out) {
    out.binding_metric = r.all.binding_metric;
    out.binding_class.clear();
    double worst = -1;
    for (const auto& c : r.classes) {
      if (!c.meets_sla && c.binding_ratio > worst) {
        worst = c.binding_ratio;
        out.binding_class = c.name;
        out.binding_metric = c.binding_metric;
      }
    }
    if (!r.stable) out.binding_metric = "stability";
  };
  MaxQps out;
  const double sat = an.saturation_qps();
  if (!(sat > 0)) return Error{"max QPS: the replica cannot serve a single request"};
  double lo = sat * 1e-6;
  ServingResult rlo = an.eval(lo);
  out.floor_ratio = rlo.all.binding_ratio;
  if (!rlo.meets_sla) {
    out.qps = 0;
    out.at_max = std::move(rlo);
    binding(out.at_max, out);
    return out;
  }
  double hi = sat;
  ServingResult rhi = an.eval(hi);
  for (int i = 0; i < 60 && rhi.meets_sla; ++i) {
    lo = hi;
    rlo = std::move(rhi);
    hi *= 2;
    rhi = an.eval(hi);
  }
  while (hi - lo > rel_tol * hi) {
    const double mid = hi > 4 * lo ? std::sqrt(lo * hi) : (lo + hi) / 2;
    ServingResult rm = an.eval(mid);
    if (rm.meets_sla) {
      lo = mid;
      rlo = std::move(rm);
    } else {
      hi = mid;
      rhi = std::move(rm);
    }
  }
  out.qps = lo;
  out.at_max = std::move(rlo);
  binding(rhi, out);
  return out;
}

}  // namespace infercap
