// The analytic fast path: a queueing approximation of one continuous-batching replica.
// docs/serving.md derives every step; in short:
//   tau(n) = time between a request's tokens with n running: the least fixed point of
//            tau = step(lambda * P * tau prompt tokens beside n decodes), so the prefill work that
//            arrives meanwhile stretches the step through the step model itself;
//   S(n)   = T_prefill + (L - 1) * tau(n), the time a request holds a slot at batch n;
//   N      = requests in the replica, a birth-death chain: up at lambda, down at min(n, c) /
//            S(min(n, c)); its stationary law gives the busy fraction, the batch, P(wait) and Lq;
//            stable iff every slot can run (tau(c) finite) and rho = lambda * S(c) / c < 1;
//   Wq     = Lq / lambda * (ca^2 + cs^2) / 2 * g (Allen-Cunneen with the Kraemer/Langenbach-Belz
//            g; Pollaczek-Khinchine for Poisson arrivals at c = 1).
// Percentiles: a shifted-exponential tail read from each part's mean and standard deviation,
// m + h(p) * sd with h(p) >= 0 (Moments below), and the request's own prompt through the step
// model at the prompt's quantile; parts combine so that a percentile never falls when a part's
// mean or quantile rises (combine() below). Every input of these (step times, the chain's
// occupancy, the wait's scale) is non-increasing in the device's speed, so no percentile rises
// on faster hardware at the same load.
#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "infercap/serving.hpp"
#include "serving_internal.hpp"

namespace infercap {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// h(p) = max(z_p, -ln(1 - p) - 1), z_p the standard normal quantile: the larger of the normal
// and the shifted-exponential multipliers of the standard deviation. h(p) >= 0 for p >= 50%
// (h(50) = 0, h(90) = 1.303, h(95) = 1.996, h(99) = 3.605, h(99.9) = 5.908).
double tail_multiplier(double percentile) {
  const double p = percentile / 100;
  return std::max(normal_quantile(p), -std::log1p(-p) - 1);
}

// A non-negative metric known by its mean m and variance v, read through a shifted exponential,
// X = (m - sd) + Exp(sd) with sd = sqrt(v):
//   Q(p) = max(0, m + h(p) * sd),  h(p) = max(z_p, -ln(1 - p) - 1).
// Exact for a constant (sd = 0) and for an exponential (sd = m: Q = -m ln(1 - p) for p >= 89%,
// e.g. the M/M/1 sojourn), and never below the normal quantile. For p >= 50% h(p) >= 0, so Q is
// non-decreasing in both m and sd: a metric whose mean and spread both fall never gets a larger
// percentile. (A moment-matched gamma does not have this property: at a fixed variance a lower
// mean lowers its shape and lengthens its tail, so a faster device could read a larger P99.)
// Below the median h < 0 and Q falls with the spread; SLA percentiles below 50% are unusual.
struct Moments {
  double mean = 0;
  double var = 0;
  double quantile(double percentile) const {
    if (!std::isfinite(mean)) return kInf;
    if (mean <= 0) return 0;
    return std::max(0.0, mean + tail_multiplier(percentile) * std::sqrt(std::max(0.0, var)));
  }
};

// A percentile of a sum of independent parts, each known by its mean E_i and its own value Q_i at
// the percentile: means add, and the excesses d_i = Q_i - E_i add in quadrature, the positive and
// negative ones apart:
//   Q = max(0, sum E_i + sqrt(sum_{d_i > 0} d_i^2) - sqrt(sum_{d_i < 0} d_i^2)).
// Exact for one part, and for normal parts when all excesses share a sign. Q is non-decreasing in
// every E_i and Q_i: dQ/dQ_i = |d_i| / norm of its group and dQ/dE_i = 1 - |d_i| / norm, both in
// [0, 1]; a d_i crossing 0 moves between the groups continuously.
struct Part {
  double mean = 0;
  double value = 0;
};
double combine(std::initializer_list<Part> parts) {
  double e = 0, pos = 0, neg = 0;
  for (const Part& x : parts) {
    if (!std::isfinite(x.mean) || !std::isfinite(x.value)) return kInf;
    e += x.mean;
    const double d = x.value - x.mean;
    (d > 0 ? pos : neg) += d * d;
  }
  return std::max(0.0, e + std::sqrt(pos) - std::sqrt(neg));
}

struct ClassIn {
  const RequestClass* cls = nullptr;
  double qps = 0, w = 0;
  double p_mean = 0, p_var = 0, o_mean = 0, o_var = 0;
};

// One operating point of the replica at a running batch b.
struct Point {
  bool ok = false;      // false: the prompts alone saturate the engine at this batch
  double b = 1;         // running batch
  double tau = 0;       // time between a request's output tokens
  double t0 = 0;        // bare decode step at batch b
  double x = 0;         // prompt tokens a step carries on average (lambda * P * tau)
  double t_biased = 0;  // mean length of the step (or prefill) an arrival lands in
  double s_mean = 0;    // slot holding time, mixed over classes
  double s_var = 0;
  double s_tail = 0;  // sum over S's parts of Var / mean (>= Var S / S), monotone in speed
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
    // KV held by the running sequences, time-averaged: a sequence holds P + L/2 on average over a
    // life proportional to L, so the mix weighs it by L: (E[P L] + E[L^2] / 2) / E[L], plus half
    // a block of rounding. An engine that reserves the whole sequence at admission
    // (reserve_full_sequence) holds P + L from start to end: (E[P L] + E[L^2]) / E[L]. The
    // simulator's 1% admission watermark stays free.
    const double out_share = cfg_.reserve_full_sequence ? 1.0 : 0.5;
    double fl = 0, l1 = 0;
    for (const auto& c : in_) {
      fl += c.w * (c.p_mean * c.o_mean + (c.o_var + c.o_mean * c.o_mean) * out_share);
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
    dec_env_.assign(static_cast<size_t>(c_) + 2, 0.0);
    for (int n = 1; n <= c_ + 1; ++n) {
      dec_env_[static_cast<size_t>(n)] =
          std::max(dec_env_[static_cast<size_t>(n) - 1], m_.decode_step_s(n, ctx_d_));
    }
    return true;
  }

  double design_total() const { return design_total_; }

  ServingResult eval(double total_qps) const;

  /// The one stability condition every path uses: all c slots can run (the prompts arriving at
  /// lambda leave the steps at full batch a finite length) and the utilisation of the slots,
  /// rho = lambda * S(c; lambda) / c, is below 1. Both parts are monotone: tau and S grow with
  /// lambda and shrink on a faster device, so a stable load stays stable when lowered or served by
  /// faster hardware.
  bool stable_at(double lambda) const {
    const Point top = at_batch(lambda, c_);
    return top.ok && lambda * top.s_mean < c_;
  }

  /// The largest load stable_at() accepts, by bisection (stable_at is monotone in lambda). At
  /// lambda -> 0, S(c; 0) is the shortest holding time, so c / S(c; 0) bounds it from above.
  double saturation_qps() const {
    const Point p0 = at_batch(0, c_);
    if (!p0.ok || !(p0.s_mean > 0)) return 0;
    double lo = 0, hi = c_ / p0.s_mean;
    for (int it = 0; it < 100 && hi - lo > 1e-9 * hi; ++it) {
      const double mid = (lo + hi) / 2;
      (stable_at(mid) ? lo : hi) = mid;
    }
    return lo;
  }

 private:
  // The decode step at a fractional batch b, interpolated on the running maximum of the step
  // model over batches 1..n (dec_env_): a step model need not be monotone in the batch (kernel
  // tiles, efficiency curves), and with a dip at n + 1 the interpolation fell as b rose, so a
  // smaller batch on a faster device could read a longer step (TPOT P99 up by 5e-4 relative).
  // A maximum of step times is still non-increasing in the device's speed.
  double dec_at(int n) const {
    if (n >= 1 && static_cast<size_t>(n) < dec_env_.size()) return dec_env_[static_cast<size_t>(n)];
    return m_.decode_step_s(std::max(1, n), ctx_d_);
  }
  double dec(double b) const {
    const int b0 = std::max(1, static_cast<int>(std::floor(b)));
    const double f = std::max(0.0, b - b0);
    const double t0 = dec_at(b0);
    if (f <= 1e-12) return t0;
    return t0 * (1 - f) + dec_at(b0 + 1) * f;
  }
  double mix(double p, double pc, double bd) const {
    const int b0 = static_cast<int>(std::floor(bd));
    const double f = bd - b0;
    const double t0 = m_.mixed_step_s(p, pc, b0, ctx_d_);
    if (f <= 1e-12) return t0;
    return t0 * (1 - f) + m_.mixed_step_s(p, pc, b0 + 1, ctx_d_) * f;
  }
  // Time from admission to the first token for a prompt of `prompt` tokens at running batch b,
  // its first step also carrying `extra` prompt tokens of other requests. Each term is a step
  // time at fixed token counts, so the whole is non-increasing in the device's speed.
  double first_token_time(double prompt, double b, double extra = 0) const {
    const double others = std::max(0.0, b - 1);
    if (!cfg_.chunked()) return m_.prefill_s(1, prompt + extra, 0);
    const double avail = std::max(1.0, cfg_.max_batched_tokens - others);
    const double n = std::ceil(prompt / avail);
    const double chunk = prompt / n;
    return (n - 1) * mix(chunk, prompt / 2, others) + mix(chunk + extra, prompt / 2, others);
  }
  /// The time between a request's tokens at running batch b, or false when the prompts arriving
  /// at lambda saturate the engine there.
  bool decode_interval(double lambda, double b, Point& pt) const;
  /// Step and holding times with a running batch of b.
  Point at_batch(double lambda, double b) const;
  struct Chain {
    bool stable = false;
    double u = 0;          // P(N > 0)
    double mean_m = 0;     // E[min(N, c)], requests in service
    double seen_m = 0;     // E[M^2] / E[M], the batch an admitted request sees
    double wait_prob = 0;  // P(N >= c)
    double lq = 0;         // E[(N - c)+]
    double rho_c = 0;      // lambda * S(c) / c, the utilisation with every slot busy
    double s_c = 0;        // S(c) and Var S(c): the holding time while requests wait
    double s_var_c = 0;
    double s_tail_c = 0;  // Point::s_tail at c
  };
  Chain birth_death(double lambda) const;

  const StepModel& m_;
  const ServingConfig& cfg_;
  const std::vector<RequestClass>& classes_;
  std::vector<ClassIn> in_;
  double design_total_ = 0;
  std::vector<double> dec_env_;  // [n]: max over k <= n of decode_step_s(k), n = 1..c + 1
  double p_bar_ = 0, l_bar_ = 0, ca2_ = 0, foot_ = 0, ctx_d_ = 0, kv_tokens_ = 0;
  int c_ = 1;
  bool kv_limited_ = false;
};

bool Analyzer::decode_interval(double lambda, double b, Point& pt) const {
  pt.t0 = dec(b);
  if (!cfg_.chunked()) {
    // Prefill-only steps stall every decoder for lambda * T_prefill of each second.
    double f = 0;
    for (const auto& c : in_) f += lambda * c.w * m_.prefill_s(1, c.p_mean, 0);
    if (!(f < 1)) return false;
    pt.tau = pt.t0 / (1 - f);
    pt.x = lambda * p_bar_ * pt.tau;
    // The activity an arrival lands in, length-biased: decode steps fill 1 - f of the time,
    // each prompt's prefill lambda w_i T_i; T = (1 - f) t0 + sum lambda w_i T_i^2 (non-decreasing
    // in t0 and, as T_i >= t0 / 2, in each T_i).
    pt.t_biased = (1 - f) * pt.t0;
    for (const auto& c : in_) {
      const double tp = m_.prefill_s(1, c.p_mean, 0);
      pt.t_biased += lambda * c.w * tp * tp;
    }
    pt.t_biased = std::max(pt.t_biased, pt.t0);
    return true;
  }
  // Arrivals keep coming at lambda while a request decodes (PASTA), so each step carries the
  // prompts that arrived during the previous one, q = r tau / u0 chunks of u0 = min(P, budget - b)
  // tokens (r = lambda P tokens per second). Prompts come whole (a chunk at a time), so a step
  // carries n0 = floor(q) or n0 + 1 chunks, with probabilities 1 - f and f (f = q - n0):
  //   tau = g(tau) = (1 - f) mix(n0 u0) + f mix((n0 + 1) u0)   (mix at batch b).
  // For q <= 1 this is t0 + k r tau with k the chord of mix over one chunk (t0 + k X, the
  // marginal cost of a prompt token); above one chunk per step it follows the step model instead
  // of extrapolating the chord. g is increasing in tau and, a convex combination of step times at
  // fixed token counts, pointwise smaller on a faster device, so its least fixed point (the limit
  // of tau <- g(tau) from t0) is smaller there and larger for a larger lambda. It is found by
  // secant steps from below: the step model is convex in the prompt tokens (a sum of maxima of
  // affine roofline terms), so the chord through two iterates, extended, lies below g and never
  // passes the fixed point. A chord of slope >= 1 means no fixed point (the prompts alone
  // saturate the engine), as does a mean above the budget - b tokens a step has beside its
  // decodes.
  const double r = lambda * p_bar_;
  const double cap = cfg_.max_batched_tokens - b;
  if (r > 0 && !(cap >= 1)) return false;
  const double u0 = std::max(1.0, std::min(p_bar_, cap));
  double f_last = 0, m0_last = pt.t0, m1_last = pt.t0;
  const auto g = [&](double tau) {
    const double q = r * tau / u0;
    const double n0 = std::floor(q);
    f_last = q - n0;
    m0_last = n0 > 0 ? mix(std::min(n0 * u0, cap), p_bar_ / 2, b) : pt.t0;
    m1_last = mix(std::min((n0 + 1) * u0, cap), p_bar_ / 2, b);
    return (1 - f_last) * m0_last + f_last * m1_last;
  };
  double tau = pt.t0;
  if (r > 0) {
    // The longest step the budget allows: past tau_cap a step's arrivals overflow the tokens it
    // has beside its decodes. g is increasing, so a fixed point at or below tau_cap exists when
    // g(tau_cap) <= tau_cap (iterating from t0 stays below it); that, not an iterate's position,
    // decides saturation. An extrapolated secant step can overshoot tau_cap, and a kink of the
    // step model (a tile count, a roof changing) can make one chord steeper than 1 short of the
    // fixed point: answered "saturated" from the iterate, stability flickered with lambda
    // (stable at 1206 and 1208 req/s, not at 1207, seed 3001849 of the property test) and a
    // replica sized within its bisected capacity could read an infinite latency.
    const double tau_cap = cap / r;
    const auto bisect = [&](double lo, double hi) {  // g(lo) > lo, g(hi) <= hi
      for (int j = 0; j < 200 && hi - lo > 1e-13 * hi; ++j) {
        const double mid = (lo + hi) / 2;
        (g(mid) > mid ? lo : hi) = mid;
      }
      return hi;
    };
    double t_prev = pt.t0, g_prev = g(pt.t0);
    tau = std::max(pt.t0, g_prev);
    for (int it = 0; it < 200; ++it) {
      if (tau > tau_cap) {
        if (g(tau_cap) > tau_cap) return false;
        tau = bisect(t_prev, tau_cap);
        break;
      }
      const double gt = g(tau);
      const double phi = gt - tau;
      if (std::fabs(phi) <= 1e-13 * tau) break;
      if (phi < 0) {
        // Past a fixed point (a step model not convex in the prompt tokens): bisect back to it
        // between the last iterate below it and this one.
        tau = bisect(t_prev, tau);
        break;
      }
      const double slope = tau > t_prev ? (gt - g_prev) / (tau - t_prev) : 0;
      if (!(slope < 1)) {
        if (g(tau_cap) > tau_cap) return false;
        tau = bisect(tau, tau_cap);
        break;
      }
      t_prev = tau;
      g_prev = gt;
      tau += phi / (1 - slope);
    }
    g(tau);
  }
  pt.tau = tau;
  pt.x = r * tau;
  // The step an arrival lands in, length-biased: E[t^2] / E[t]. With at most one chunk per step,
  // chunk steps (m1) take the fraction r / u0 * m1 of the time and bare steps (m0 = t0) the rest,
  //   T = (1 - r m1 / u0) m0 + (r / u0) m1^2,
  // non-decreasing in m0, m1 (m1 >= m0) and lambda; above one chunk per step the two-point form
  // ((1 - f) m0^2 + f m1^2) / tau.
  if (r <= 0) {
    pt.t_biased = pt.t0;
  } else if (r * tau <= u0) {
    const double frac = std::min(1.0, r / u0 * m1_last);
    pt.t_biased = (1 - frac) * m0_last + frac * m1_last;
  } else {
    pt.t_biased = ((1 - f_last) * m0_last * m0_last + f_last * m1_last * m1_last) / tau;
  }
  return true;
}

Point Analyzer::at_batch(double lambda, double b) const {
  Point pt;
  pt.b = b;
  if (!decode_interval(lambda, b, pt)) return pt;
  double s1 = 0, s2 = 0, u1 = 0, v1 = 0;
  for (const auto& c : in_) {
    const double tp = first_token_time(c.p_mean, pt.b);
    const double s = tp + (c.o_mean - 1) * pt.tau;
    // The prompt's share of the spread, reading its time as proportional to its length,
    // tp(P) ~ tp(P_mean) P / P_mean: sd = tp cv_P. A step time at fixed tokens over a fixed
    // count, so it never grows on a faster device; the marginal cost per token (the chord of the
    // step model used before) can: a weight-bound prefill turns compute-bound when the weights
    // read faster, steepening the chord, and Var S then rose with bandwidth. The proportional
    // read errs long for a weight-bound prompt (its fixed cost counted as spread) and short where
    // attention's quadratic term dominates.
    const double tp_var = tp * tp * c.p_var / std::max(1.0, c.p_mean * c.p_mean);
    const double v = pt.tau * pt.tau * c.o_var + tp_var;
    v1 += c.w * v;
    s1 += c.w * s;
    s2 += c.w * (v + s * s);
    // Var / mean of each part, against a share of S no larger than S: the output's
    // tau^2 Var L / ((L - 1) tau + min(tp, tau)) (= tau Var L / L when the first token takes at
    // least a step, exact for a 1-token prompt), the prompt's tp_var / tp. Each is a step time
    // times a fixed count (non-increasing in speed; the output's when tp >= tau), and their sum
    // bounds Var S / S from above.
    const double out_d = (c.o_mean - 1) * pt.tau + std::min(tp, pt.tau);
    u1 += c.w * ((out_d > 0 ? pt.tau * pt.tau * c.o_var / out_d : 0) +
                 tp * c.p_var / std::max(1.0, c.p_mean * c.p_mean));
  }
  pt.s_mean = s1;
  pt.s_var = std::max(0.0, s2 - s1 * s1);
  // The classes' spread between them, (s2 - s1^2) - sum w Var_i, read against S (not proven
  // monotone for several classes; zero for one).
  pt.s_tail = u1 + (s1 > 0 ? std::max(0.0, pt.s_var - v1) / s1 : 0);
  pt.ok = true;
  return pt;
}

// The number of requests in the replica as a birth-death chain: arrivals at lambda; with n
// admitted (n <= c) each progresses at 1 / S(n), so completions come at mu(n) = n / S(n); above c
// the extra requests wait and completions stay at mu(c). pi(n) ~ prod lambda / mu(k). This keeps
// the feedback a mean-value fixed point loses: a large batch makes steps slow, which keeps the
// batch large. S(n) is computed on a grid (exact to 8, then 2 points per octave) and interpolated.
// Shorter holding times at every n (a faster device) make the chain stochastically smaller, so
// P(N > 0), P(N >= c) and Lq all fall.
Analyzer::Chain Analyzer::birth_death(double lambda) const {
  Chain ch;
  const Point top = at_batch(lambda, c_);
  if (!top.ok || !(lambda * top.s_mean < c_)) return ch;  // stable_at(lambda) is false
  std::array<int, 64> grid{};
  std::array<double, 64> s_at{};
  int ng = 0;
  for (int m = 1; m <= std::min(c_, 8); ++m) grid[static_cast<size_t>(ng++)] = m;
  for (double x = 8 * std::sqrt(2.0); x < c_ && ng < 62; x *= std::sqrt(2.0))
    grid[static_cast<size_t>(ng++)] = static_cast<int>(std::round(x));
  if (grid[static_cast<size_t>(ng - 1)] < c_) grid[static_cast<size_t>(ng++)] = c_;
  for (int i = 0; i < ng; ++i) {
    const int n = grid[static_cast<size_t>(i)];
    // A batch below c saturates only if the step model is not monotone in the batch; then the
    // full-batch holding time stands in.
    const Point p = n == c_ ? top : at_batch(lambda, n);
    s_at[static_cast<size_t>(i)] = p.ok ? p.s_mean : top.s_mean;
  }
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
  for (int n = 1; n <= c_; ++n) {
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
  const double rho_c = lambda * top.s_mean / c_;
  // Geometric tail above c: sum_{j>=1} rho^j = rho / (1 - rho), sum j rho^j = rho / (1 - rho)^2.
  const double tail = term * rho_c / (1 - rho_c);
  z += tail;
  m1 += c_ * tail;
  m2 += static_cast<double>(c_) * c_ * tail;
  ch.stable = true;
  ch.u = scale > 0 ? 1.0 : 1 - 1 / z;
  ch.mean_m = m1 / z;
  ch.seen_m = m1 > 0 ? m2 / m1 : 1;
  ch.wait_prob = term / (1 - rho_c) / z;
  ch.lq = term * rho_c / ((1 - rho_c) * (1 - rho_c)) / z;
  ch.rho_c = rho_c;
  ch.s_c = top.s_mean;
  ch.s_var_c = top.s_var;
  ch.s_tail_c = top.s_tail;
  return ch;
}

ServingResult Analyzer::eval(double total_qps) const {
  const double lambda = total_qps > 0 ? total_qps : design_total_;
  ServingResult r;
  r.offered_qps = lambda;
  const Chain ch = birth_death(lambda);
  const double a = ch.mean_m;
  Point pt;
  if (ch.stable) {
    pt = at_batch(lambda, std::clamp(ch.seen_m, 1.0, static_cast<double>(c_)));
    if (!pt.ok) pt = at_batch(lambda, 1.0);
  }
  if (!ch.stable || !pt.ok) {
    r.throughput_rps = saturation_qps();
    const Point sat = at_batch(r.throughput_rps, c_);
    const double sat_tau = sat.ok ? sat.tau : kInf;
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
      cl.tpot = LatencySummary{sat_tau, sat_tau, sat_tau, sat_tau};
      cl.ttft_at_sla_s = cl.e2e_at_sla_s = kInf;
      cl.tpot_at_sla_s = sat_tau;
      cl.throughput_rps = r.throughput_rps * c.w;
      detail::judge_sla(cl, c.cls->sla, false);
      r.classes.push_back(std::move(cl));
    }
    r.all.name = "all";
    r.all.ttft = r.all.e2e = r.all.queue_wait = LatencySummary{kInf, kInf, kInf, kInf};
    r.all.tpot = LatencySummary{sat_tau, sat_tau, sat_tau, sat_tau};
    r.all.throughput_rps = r.throughput_rps;
    detail::judge_all(r);
    return r;
  }

  // Waiting for a slot: Allen-Cunneen with the Kraemer/Langenbach-Belz correction g for
  // non-Poisson arrivals (g = 1 for Poisson, so M/G/1 stays Pollaczek-Khinchine), and an
  // exponential tail behind P(wait) = C. A request waits only while all c slots are busy, so the
  // service it waits on is the full-batch holding time S(c) (mean S, variance V), and rho is the
  // chain's rho_c = lambda S / c. Written out,
  //   Wq = Lq / lambda * (ca^2 + cs^2) / 2 * g = [C / (rho (1 - rho))] * lambda / c^2 * F / 2,
  //   F = (ca^2 S^2 + V) * g,  cs^2 = V / S^2,
  // (Lq = C rho / (1 - rho) for the chain's geometric tail) and every factor is non-decreasing in
  // S(n), V and lambda, so the wait never grows on faster hardware even though cs^2 itself can
  // (S falls faster than its spread):
  //  - C / rho = 1 / (R - rho (R - 1)), R = sum_{n<c} pi(n) / pi(c-1) >= 1 falling in every S(n);
  //  - ca^2 > 1: F rises in S^2 (d ln F / dS^2 >= 0 as K' = (1 - rho)(ca^2 - 1) < 4 ca^2), in V
  //    and in rho;
  //  - ca^2 < 1: F / V = a exp(-K (a - 1) / (ca^2 a)), a = 1 + ca^2 S^2 / V, K = 2 (1 - rho)
  //    (1 - ca^2)^2 / (3 rho), falls then rises in a, so its smallest non-decreasing majorant in
  //    S^2 is max(V, F) (F = V at S = 0): the correction never takes the wait below the service
  //    variability's share alone, F = max(V, (ca^2 S^2 + V) g), i.e. max(cs^2, (ca^2 + cs^2) g).
  const double rho = std::clamp(ch.rho_c, 1e-300, 1.0);
  const auto scv_factor = [&](double cs2) {  // (ca^2 + cs^2) g, with the majorant above
    double f = ca2_ + cs2;
    if (ca2_ < 1 && f > 0) {
      f = std::max(cs2, f * std::exp(-2 * (1 - rho) * (1 - ca2_) * (1 - ca2_) / (3 * rho * f)));
    } else if (ca2_ > 1) {
      f *= std::exp(-(1 - rho) * (ca2_ - 1) / (ca2_ + 4 * cs2));
    }
    return f;
  };
  const double cs2 = ch.s_c > 0 ? ch.s_var_c / (ch.s_c * ch.s_c) : 0;
  const double wait_prob = std::clamp(ch.wait_prob, 1e-300, 1.0);
  // The chain's queue is the M/M/c-like baseline; (ca^2 + cs^2) / 2 carries it to general
  // arrivals and service (Allen-Cunneen; Pollaczek-Khinchine for Poisson at c = 1).
  const double wq = ch.lq / lambda * scv_factor(cs2) / 2;
  // W = 0 with probability 1 - C, else exponential with mean theta = Wq / C: Var W = theta^2 C
  // (2 - C), non-decreasing in both theta and C.
  // The tail's scale. Wq / C = S (ca^2 + cs^2) g / (2 c (1 - rho)) (Lq = C rho / (1 - rho)), whose
  // S cs^2 = Var S / S can grow on faster hardware (S falls faster than its spread), and with it
  // the P99 although Wq and C fall. The scale is read with Var S / S replaced by its upper bound
  // s_tail (Point::s_tail): S (ca^2 + s_tail / S) g = ca^2 S + s_tail under g, non-decreasing in
  // S, s_tail and rho by the same argument as F, and never below Wq / C. So the tail errs long by
  // at most the bound's slack (none for one part, e.g. a fixed prompt and L >> 1: L / (L - 1)).
  const double theta_tail =
      ch.s_c > 0 ? ch.s_c * scv_factor(ch.s_tail_c / ch.s_c) / (2 * c_ * (1 - rho)) : 0;
  const double theta = std::max(wq / wait_prob, theta_tail);
  const Moments wait{wq, theta * theta * wait_prob * (2 - wait_prob)};
  const auto wait_quantile = [&](double pct) {
    const double tail = 1 - pct / 100;
    if (wq <= 0 || tail >= wait_prob) return 0.0;
    return theta * std::log(wait_prob / tail);
  };
  // With several slots an admitted request still waits for the running step to end, and shares
  // its first step with the prompts that arrived meanwhile. An arrival lands in a length-biased
  // step of mean length T (pt.t_biased). The residual R is 0 while the engine is idle
  // (probability 1 - u), else uniform on [0, T]: E R = u T / 2 and Var R = T^2 (u/3 - u^2/4),
  // whose smallest non-decreasing majorant in u, T^2 v(u) with v = u/3 - u^2/4 up to u = 2/3 and
  // 1/9 above, is used (a busier engine never reads a narrower residual). The prompts admitted
  // with it, lambda P T tokens, join its first step. (At c = 1 the M/G/1 wait covers both.)
  double r1 = 0, r_var = 0, extra = 0;
  double extra_sd = 0;
  if (c_ > 1) {
    double t_biased = pt.t_biased;
    const double cap = cfg_.max_batched_tokens - pt.b;
    if (cfg_.chunked() && pt.x <= std::max(1.0, std::min(p_bar_, cap))) {
      // At most one chunk per step: each class's prompt takes n_i steps of m_i = mix(P_i / n_i),
      // the fraction lambda w_i n_i m_i of the time; T = (1 - sum) t0 + sum fraction_i m_i, which
      // is non-decreasing in t0 and every m_i (m_i >= t0), as above but per class (long prompts
      // weigh by their own step length).
      double frac = 0, tb = 0;
      for (const auto& c : in_) {
        const double n = std::ceil(c.p_mean / std::max(1.0, cap));
        const double mi = std::max(pt.t0, mix(c.p_mean / n, c.p_mean / 2, pt.b));
        frac += lambda * c.w * n * mi;
        tb += lambda * c.w * n * mi * mi;
      }
      t_biased = std::max(0.0, 1 - std::min(1.0, frac)) * pt.t0 + tb;
    }
    t_biased = std::max(pt.tau, t_biased);
    const double u = std::clamp(ch.u, 0.0, 1.0);
    r1 = u * t_biased / 2;
    r_var = t_biased * t_biased * (u <= 2.0 / 3 ? u / 3 - u * u / 4 : 1.0 / 9);
    extra = lambda * p_bar_ * t_biased;
    // Those prompts are a compound Poisson count over lambda T arrivals: sd sqrt(lambda T E[P^2]).
    double p2 = 0;
    for (const auto& c : in_) p2 += c.w * (c.p_var + c.p_mean * c.p_mean);
    extra_sd = std::sqrt(lambda * t_biased * p2);
  }
  // Scheduled one step ahead (ServingConfig::schedule_one_step_ahead), an arrival at a busy engine
  // (probability u) also waits out the next step, formed before it came: a mean step, tau (the
  // interval decoders see), so + u tau, variance u (1 - u) tau^2 from the Bernoulli.
  double ahead = 0, ahead_var = 0;
  if (cfg_.schedule_one_step_ahead) {
    const double u = std::clamp(ch.u, 0.0, 1.0);
    ahead = u * pt.tau;
    ahead_var = u * (1 - u) * pt.tau * pt.tau;
  }
  // Everything but the request's own prompt and output: W + R (+ the step ahead).
  const Moments rest{wq + r1 + ahead, wait.var + r_var + ahead_var};

  r.stable = true;
  r.utilisation = ch.u;
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

  const auto tpot_at = [&](double pct) {
    // The batch a request sees fluctuates like a Poisson count around b (not averaged over the
    // request's life: conservative for long outputs); tau there is again the step model's.
    const double z = normal_quantile(pct / 100);
    const double bq = std::clamp(pt.b + z * std::sqrt(pt.b), 1.0, static_cast<double>(c_));
    const Point q = at_batch(lambda, bq);
    return q.ok ? q.tau : pt.tau;
  };
  const LatencySummary tpot{pt.tau, tpot_at(50), tpot_at(90), tpot_at(99)};
  // Per class: TTFT = rest + own first step (prompt at its quantile, through the step model: the
  // roofline is not linear in the prompt); E2E = rest + own first step + (L - 1) tau, the output
  // read at its moments (tau^2 Var L). combine() adds them.
  struct ClassQuantiles {
    double w = 0;
    LatencySummary ttft, e2e;
  };
  std::vector<ClassQuantiles> per;
  per.reserve(in_.size());
  for (const auto& c : in_) {
    ClassLatency cl;
    cl.name = c.cls->name;
    const double tp = first_token_time(c.p_mean, pt.b, extra);
    const double dec_mean = (c.o_mean - 1) * pt.tau;
    const Moments run{rest.mean + dec_mean, rest.var + pt.tau * pt.tau * c.o_var};
    // The own prompt at its quantile, the others' tokens read at extra + h(p) sd (both through
    // the step model; the two taken together, which errs long).
    const auto own_prompt = [&](double pct) {
      auto pq = quantile(c.cls->prompt_tokens, pct);
      const double xq = std::max(0.0, extra + tail_multiplier(pct) * extra_sd);
      return Part{tp, first_token_time(pq ? *pq : c.p_mean, pt.b, xq)};
    };
    const auto ttft_at = [&](double pct) {
      return combine({Part{rest.mean, rest.quantile(pct)}, own_prompt(pct)});
    };
    const auto e2e_at = [&](double pct) {
      return combine({Part{run.mean, run.quantile(pct)}, own_prompt(pct)});
    };
    cl.ttft = LatencySummary{rest.mean + tp, ttft_at(50), ttft_at(90), ttft_at(99)};
    cl.e2e = LatencySummary{run.mean + tp, e2e_at(50), e2e_at(90), e2e_at(99)};
    cl.tpot = c.o_mean > 1 ? tpot : LatencySummary{};
    cl.queue_wait = LatencySummary{wq, wait_quantile(50), wait_quantile(90), wait_quantile(99)};
    const Sla& sla = c.cls->sla;
    if (sla.ttft.set()) cl.ttft_at_sla_s = ttft_at(sla.ttft.percentile);
    if (sla.tpot.set()) cl.tpot_at_sla_s = c.o_mean > 1 ? tpot_at(sla.tpot.percentile) : 0;
    if (sla.e2e.set()) cl.e2e_at_sla_s = e2e_at(sla.e2e.percentile);
    cl.throughput_rps = lambda * c.w;
    detail::judge_sla(cl, sla, true);
    per.push_back({c.w, cl.ttft, cl.e2e});
    r.classes.push_back(std::move(cl));
  }
  // All classes: each figure the class-weighted mean of the class figures (for quantiles, the
  // quantile average: monotone in every class's value, exact for one class).
  const auto average = [&](LatencySummary ClassQuantiles::*f) {
    LatencySummary s;
    for (const auto& q : per) {
      s.mean_s += q.w * (q.*f).mean_s;
      s.p50_s += q.w * (q.*f).p50_s;
      s.p90_s += q.w * (q.*f).p90_s;
      s.p99_s += q.w * (q.*f).p99_s;
    }
    return s;
  };
  r.all.name = "all";
  r.all.ttft = r.classes.size() == 1 ? r.classes[0].ttft : average(&ClassQuantiles::ttft);
  r.all.e2e = r.classes.size() == 1 ? r.classes[0].e2e : average(&ClassQuantiles::e2e);
  r.all.tpot = l_bar_ > 1 ? tpot : LatencySummary{};
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
