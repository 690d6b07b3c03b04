// The serving simulator and the analytic fast path against queueing closed forms, exact
// lock-step schedules, and each other. Step models are test doubles with closed-form step times.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "infercap/perf.hpp"
#include "infercap/serving.hpp"
#include "serving_doubles.hpp"

using namespace infercap;
using namespace infercap::testing;

namespace {

// A roofline-shaped double for Llama-3-8B (bf16) on an H100-SXM-like device, hand-derived:
// weights 16.06e9 B over 2.68e12 B/s (80% of 3.35 TB/s) = 5.99 ms per step; compute 2 * 8.03e9
// FLOP per token at 593 TFLOP/s (60% of 989) = 27.1 us per token; KV 131072 B per token
// (2 * 8 kv heads * 128 * 32 layers * 2 B) read at 2.68e12 B/s = 48.9 ns per token of context;
// prefill attention 4 * 32 * 4096 * ctx FLOP per token at the same compute rate; 0.5 ms overhead.
struct RooflineStep final : StepModel {
  double weights_s = 16.06e9 / 2.68e12;
  double per_token_s = 2 * 8.03e9 / 593e12;
  double kv_per_ctx_s = 131072 / 2.68e12;
  double attn_per_ctx_s = 4.0 * 32 * 4096 / 593e12;
  double overhead_s = 0.5e-3;
  double kv = (80e9 - 16.06e9 - 8e9) / 131072;  // 8 GB reserve and activations
  double mixed_step_s(double p, double pc, int d, double dc) const override {
    const double linear = std::max(weights_s, per_token_s * (p + d));
    return linear + kv_per_ctx_s * d * dc + attn_per_ctx_s * p * pc + overhead_s;
  }
  double prefill_s(int b, double prompt, double past) const override {
    return mixed_step_s(b * prompt, past + prompt / 2, 0, 0);
  }
  double decode_step_s(int b, double ctx) const override { return mixed_step_s(0, 0, b, ctx); }
  double kv_capacity_tokens() const override { return kv; }
};

}  // namespace

TEST_CASE("M/D/1: batch-1 constant service matches Pollaczek-Khinchine", "[model]") {
  // One 1-token prompt and one output token: each request is exactly one step of s = 10 ms.
  // Poisson arrivals at 70/s: rho = 0.7, mu = 100/s. P-K: Wq = rho / (2 mu (1 - rho)) = 11.667 ms.
  ConstStep m;
  const auto cls = make_class(70, *fixed_length(1), *fixed_length(1));
  const double rho = 0.7, mu = 100;
  const double wq = rho / (2 * mu * (1 - rho));
  for (bool chunked : {true, false}) {
    ServingConfig cfg = single_server();
    cfg.prompt_schedule = chunked ? PromptSchedule::chunked : PromptSchedule::whole_prompt_steps;
    SimOptions opt;
    opt.requests = 300000;
    opt.warmup_requests = 5000;
    auto r = simulate(m, cfg, {cls}, opt);
    REQUIRE(r);
    // Sampling error of a mean wait over 3e5 correlated M/D/1 waits at rho = 0.7 is about 1%.
    CHECK(r->all.queue_wait.mean_s == Approx(wq).epsilon(0.04));
    CHECK(r->all.e2e.mean_s == Approx(wq + 0.01).epsilon(0.03));
    CHECK(r->utilisation == Approx(rho).epsilon(0.02));
    CHECK(r->throughput_rps == Approx(70).epsilon(0.02));
    CHECK(r->stable);

    auto a = analyze(m, cfg, {cls});
    REQUIRE(a);
    CHECK(a->all.queue_wait.mean_s == Approx(wq).epsilon(1e-6));
    CHECK(a->utilisation == Approx(rho).epsilon(1e-6));
    CHECK(a->all.ttft.mean_s == Approx(wq + 0.01).epsilon(1e-6));
  }
}

TEST_CASE("M/M/1: batch-1 exponential service matches the closed forms", "[model]") {
  // 1-token prompt, exponential output of mean 20 tokens, every step 1 ms: service = L * 1 ms,
  // exponential with mean 20 ms (mu = 50/s). Poisson at 25/s (rho = 0.5):
  //   mean wait Wq = rho / (mu - lambda) = 20 ms; sojourn ~ Exp(mu - lambda): P99 = ln(100) / 25.
  ConstStep m;
  m.s = 1e-3;
  const auto cls = make_class(25, *fixed_length(1), *exponential_length(20));
  const double lambda = 25, mu = 50, rho = 0.5;
  const double wq = rho / (mu - lambda);
  const double p99 = std::log(100.0) / (mu - lambda);

  auto a = analyze(m, single_server(), {cls});
  REQUIRE(a);
  CHECK(a->all.queue_wait.mean_s == Approx(wq).epsilon(1e-6));
  CHECK(a->all.e2e.mean_s == Approx(1 / (mu - lambda)).epsilon(1e-6));
  CHECK(a->all.e2e.p99_s == Approx(p99).epsilon(1e-6));
  // The wait is 0 with probability 1 - rho and Exp(mu - lambda) otherwise:
  // P90 of the wait = ln(rho / 0.1) / (mu - lambda).
  CHECK(a->all.queue_wait.p90_s == Approx(std::log(rho / 0.1) / (mu - lambda)).epsilon(1e-9));

  SimOptions opt;
  opt.requests = 500000;
  opt.warmup_requests = 5000;
  auto r = simulate(m, single_server(), {cls}, opt);
  REQUIRE(r);
  // Lengths are whole tokens (rounded, at least 1): the service mean moves by 0.1%. Over four
  // seeds of 1e6 requests the P99 landed within 1.3% of ln(100) / 25 and the mean wait within
  // 1.1%; 5e5 requests roughly double that spread, hence 3% and 5%.
  CHECK(r->all.queue_wait.mean_s == Approx(wq).epsilon(0.05));
  CHECK(r->all.e2e.mean_s == Approx(1 / (mu - lambda)).epsilon(0.03));
  CHECK(r->all.e2e.p99_s == Approx(p99).epsilon(0.03));
  CHECK(r->utilisation == Approx(rho).epsilon(0.03));
}

TEST_CASE("analytic P99: the shifted-exponential read, falling with bandwidth", "[model]") {
  // A memory-bound device: every step (prefill of the 1-token prompt or decode) streams the
  // weights, s = 1 ms at bandwidth x1 and s / f at x f. Fixed 10-token outputs on one slot:
  // service S = 10 s, deterministic (M/D/1), Poisson arrivals at lambda = 50/s.
  // Hand-derived, per analyze's formulas (docs/serving.md):
  //   rho = lambda S; Pollaczek-Khinchine Wq = lambda S^2 / (2 (1 - rho)); P(wait) C = rho;
  //   the wait is 0 w.p. 1 - C, else exponential of mean theta = Wq / C, so
  //   Var W = theta^2 C (2 - C);
  //   E2E = W + own first step s + 9 decode steps s: mean Wq + S, sd sqrt(Var W);
  //   TTFT = W + s: mean Wq + s, the same sd;
  //   a percentile p reads m + h(p) sd with h(p) = max(z_p, -ln(1 - p) - 1), h(99) = ln 100 - 1.
  // At x1: rho = 0.5, Wq = 5 ms, theta = 10 ms, sd = 10 sqrt(0.75) = 8.660 ms, so
  //   E2E P99 = 15 + 3.60517 * 8.660 = 46.22 ms and TTFT P99 = 6 + 31.22 = 37.22 ms;
  // at x2: rho = 0.25, Wq = 0.8333 ms, theta = 3.333 ms, sd = 3.333 sqrt(0.4375) = 2.205 ms,
  //   E2E P99 = 5.833 + 7.949 = 13.78 ms.
  // The queue-wait P99 is the exponential tail itself: theta ln(C / 0.01) (10 ln 50 = 39.12 ms).
  const double lambda = 50, h99 = std::log(100.0) - 1;
  const auto cls = make_class(lambda, *fixed_length(1), *fixed_length(10));
  const auto hand = [&](double f) {
    const double s = 1e-3 / f, S = 10 * s, rho = lambda * S;
    const double wq = lambda * S * S / (2 * (1 - rho)), theta = wq / rho;
    const double sd = theta * std::sqrt(rho * (2 - rho));
    struct {
      double e2e_p99, ttft_p99, wait_p99;
    } out{wq + S + h99 * sd, wq + s + h99 * sd, theta * std::log(rho / 0.01)};
    return out;
  };
  CHECK(hand(1).e2e_p99 == Approx(46.22e-3).epsilon(1e-3));
  CHECK(hand(2).e2e_p99 == Approx(13.78e-3).epsilon(1e-3));
  double last_e2e = 1, last_ttft = 1, last_wait = 1;
  for (double f : {1.0, 1.25, 1.5, 2.0, 3.0, 4.0}) {
    ConstStep m;
    m.s = 1e-3 / f;
    auto a = analyze(m, single_server(), {cls});
    REQUIRE(a);
    REQUIRE(a->stable);
    INFO("bandwidth x" << f);
    const auto want = hand(f);
    CHECK(a->all.e2e.p99_s == Approx(want.e2e_p99).epsilon(1e-9));
    CHECK(a->all.ttft.p99_s == Approx(want.ttft_p99).epsilon(1e-9));
    CHECK(a->all.queue_wait.p99_s == Approx(want.wait_p99).epsilon(1e-9));
    // Faster is never slower, at every percentile the summary reports.
    CHECK(a->all.e2e.p99_s < last_e2e);
    CHECK(a->all.ttft.p99_s < last_ttft);
    CHECK(a->all.queue_wait.p99_s < last_wait);
    last_e2e = a->all.e2e.p99_s;
    last_ttft = a->all.ttft.p99_s;
    last_wait = a->all.queue_wait.p99_s;
  }
}

TEST_CASE("GI/M/1: bursty and smooth arrivals against the exact root", "[model]") {
  // Exponential service of mean 20 ms (as in the M/M/1 case), renewal arrivals with Laplace
  // transform A*(s). GI/M/1: sigma = A*(mu (1 - sigma)) (solved by iteration below), P(wait) =
  // sigma, Wq = sigma / (mu (1 - sigma)), sojourn ~ Exp(mu (1 - sigma)): P99 = ln(100) / (mu (1 -
  // sigma)). Balanced H2 with SCV c2: A*(s) = p1 / (1 + s m1) + p2 / (1 + s m2); gamma with shape
  // k: A*(s) = (1 + s / (k lambda))^-k.
  ConstStep m;
  m.s = 1e-3;
  const double mu = 50;
  struct Case {
    ArrivalProcess arrival;
    double lambda;
  };
  for (const Case k :
       {Case{{ArrivalKind::hyperexponential, 4}, 25}, Case{{ArrivalKind::gamma, 0.25}, 40}}) {
    const double mean_gap = 1 / k.lambda, c2 = k.arrival.scv;
    const auto lst = [&](double s) {
      if (k.arrival.kind == ArrivalKind::gamma) return std::pow(1 + s * mean_gap * c2, -1 / c2);
      const double p1 = 0.5 * (1 + std::sqrt((c2 - 1) / (c2 + 1)));
      const double m1 = mean_gap / (2 * p1), m2 = mean_gap / (2 * (1 - p1));
      return p1 / (1 + s * m1) + (1 - p1) / (1 + s * m2);
    };
    double sigma = 0.5;
    for (int i = 0; i < 5000; ++i) sigma = lst(mu * (1 - sigma));
    const double wq = sigma / (mu * (1 - sigma));
    const double p99 = std::log(100.0) / (mu * (1 - sigma));
    auto cls = make_class(k.lambda, *fixed_length(1), *exponential_length(20));
    cls.arrival = k.arrival;
    SimOptions opt;
    opt.requests = 300000;
    opt.warmup_requests = 5000;
    auto r = simulate(m, single_server(), {cls}, opt);
    REQUIRE(r);
    INFO("c2 " << c2 << " sigma " << sigma);
    // Observed 0.3-3% on the mean wait and 0.3-2.3% on the P99 (3e5 requests).
    CHECK(r->all.queue_wait.mean_s == Approx(wq).epsilon(0.05));
    CHECK(r->all.e2e.p99_s == Approx(p99).epsilon(0.04));
    // The analytic path uses Kingman with the Kraemer/Langenbach-Belz correction (observed within
    // 7% of the exact Wq on these two cases and two more at other loads).
    auto a = analyze(m, single_server(), {cls});
    REQUIRE(a);
    CHECK(a->all.queue_wait.mean_s == Approx(wq).epsilon(0.1));
  }
}

TEST_CASE("closed loop lock-step: exact latency and throughput", "[model]") {
  // B clients, 1-token prompts, L = 10 output tokens, step = a + k * tokens with B tokens in every
  // step: all B requests run in lock step, so e2e = L * (a + k B), TTFT = TPOT = a + k B and
  // throughput = B / e2e.
  AffineStep m;
  const int B = 8;
  const double step = m.a + m.k * B;
  for (bool chunked : {true, false}) {
    ServingConfig cfg;
    cfg.max_seqs = B;
    cfg.prompt_schedule = chunked ? PromptSchedule::chunked : PromptSchedule::whole_prompt_steps;
    SimOptions opt;
    opt.closed_loop_clients = B;
    opt.requests = 800;
    opt.warmup_requests = 80;
    auto r = simulate(m, cfg, {make_class(1, *fixed_length(1), *fixed_length(10))}, opt);
    REQUIRE(r);
    CHECK(r->all.e2e.p99_s == Approx(10 * step).epsilon(1e-9));
    CHECK(r->all.e2e.p50_s == Approx(10 * step).epsilon(1e-9));
    CHECK(r->all.ttft.mean_s == Approx(step).epsilon(1e-9));
    CHECK(r->all.tpot.p99_s == Approx(step).epsilon(1e-9));
    CHECK(r->throughput_rps == Approx(B / (10 * step)).epsilon(1e-9));
    CHECK(r->output_tokens_per_s == Approx(10 * B / (10 * step)).epsilon(1e-9));
    CHECK(r->mean_batch == Approx(B).epsilon(1e-12));
    CHECK(r->utilisation == Approx(1).epsilon(1e-9));
    CHECK(r->preemptions == 0);
  }
}

TEST_CASE("chunked prefill splits a long prompt over the token budget", "[model]") {
  // A lone 1000-token prompt with a 256-token budget takes ceil(1000 / 256) = 4 steps before its
  // first token; with a constant 10 ms step TTFT = 40 ms. Without chunking the budget must cover
  // the prompt, so lengths are clipped to it and TTFT is one step.
  ConstStep m;
  ServingConfig cfg;
  cfg.max_seqs = 4;
  cfg.max_batched_tokens = 256;
  SimOptions opt;
  opt.requests = 50;
  opt.warmup_requests = 0;
  opt.closed_loop_clients = 1;
  const auto cls = make_class(1, *fixed_length(1000), *fixed_length(5));
  auto r = simulate(m, cfg, {cls}, opt);
  REQUIRE(r);
  CHECK(r->all.ttft.p50_s == Approx(0.04));
  CHECK(r->all.e2e.p50_s == Approx(0.08));  // 4 prefill steps + 4 decode steps
  cfg.prompt_schedule = PromptSchedule::whole_prompt_steps;
  auto u = simulate(m, cfg, {cls}, opt);
  REQUIRE(u);
  CHECK(u->all.ttft.p50_s == Approx(0.01));
  CHECK(u->input_tokens_per_s == Approx(255 * u->throughput_rps));  // prompt clipped to 255
}

TEST_CASE("whole prompts behind the decodes against chunked prefill", "[model]") {
  // Two closed-loop clients, 100-token prompts, 3 output tokens (the prompt's step makes the
  // first, two decode steps the rest), a 100-token budget and a constant 10 ms step: the
  // lock-step schedules can be written out by hand.
  //  * Whole prompts behind the decodes (TensorRT-LLM without chunked context): a prompt fits
  //    only a step without decodes (100 + 1 > 100), so requests run one at a time. A request
  //    arrives as the other client's request is prefilled and waits its two decode steps: prompt
  //    step ends 10 + 20 + 10 = 40 ms after it arrived; e2e = 40 + 2 x 10 = 60 ms.
  //  * Chunked: 99 of its tokens ride beside the other request's decode and the last one beside
  //    the next: TTFT 20 ms, e2e 40 ms.
  ConstStep m;
  ServingConfig cfg;
  cfg.max_seqs = 8;
  cfg.max_batched_tokens = 100;
  SimOptions opt;
  opt.requests = 200;
  opt.warmup_requests = 20;
  opt.closed_loop_clients = 2;
  const auto cls = make_class(1, *fixed_length(100), *fixed_length(3));
  struct Mode {
    PromptSchedule schedule;
    double ttft_s, e2e_s;
  };
  for (const Mode k : {Mode{PromptSchedule::whole_with_decodes, 0.040, 0.060},
                       Mode{PromptSchedule::chunked, 0.020, 0.040}}) {
    cfg.prompt_schedule = k.schedule;
    auto r = simulate(m, cfg, {cls}, opt);
    REQUIRE(r);
    INFO("prompt schedule " << static_cast<int>(k.schedule));
    CHECK(r->all.ttft.mean_s == Approx(k.ttft_s).epsilon(1e-6));
    CHECK(r->all.ttft.p99_s == Approx(k.ttft_s).epsilon(0.003));
    CHECK(r->all.e2e.mean_s == Approx(k.e2e_s).epsilon(1e-6));
  }
}

TEST_CASE("KV blocks: preemption by recompute when the cache runs out", "[model]") {
  // 64 blocks of 16 tokens = 1024 tokens of KV for up to 32 sequences of 100 + 200 tokens: the
  // cache cannot hold them all at full length, so the engine must preempt; with room for all of
  // them (32 * 300 = 9600 tokens < 1e9) it never does.
  AffineStep m;
  ServingConfig cfg;
  cfg.max_seqs = 32;
  cfg.kv_capacity_tokens = 1024;
  SimOptions opt;
  opt.requests = 3000;
  opt.warmup_requests = 300;
  opt.closed_loop_clients = 32;
  const auto cls = make_class(1, *fixed_length(100), *fixed_length(200));
  auto tight = simulate(m, cfg, {cls}, opt);
  REQUIRE(tight);
  CHECK(tight->preemptions > 0);
  CHECK(tight->kv_occupancy_max <= 1.0);
  CHECK(tight->kv_occupancy_max > 0.9);
  CHECK(tight->requests_measured == 3000);  // every request still completes
  cfg.kv_capacity_tokens = 0;               // the step model's 1e9 tokens
  auto roomy = simulate(m, cfg, {cls}, opt);
  REQUIRE(roomy);
  CHECK(roomy->preemptions == 0);
  // Lock step again: 32 sequences each occupying ceil(300 / 16) = 19 blocks at most, of 62.5M.
  CHECK(roomy->kv_occupancy_max == Approx(32.0 * 19 / std::floor(1e9 / 16)).epsilon(1e-9));
  CHECK(tight->throughput_rps < roomy->throughput_rps);
}

TEST_CASE("simulator is deterministic for a seed", "[model]") {
  RooflineStep m;
  auto cls = make_class(20, *lognormal_length_mean_sigma(500, 0.6),
                        *lognormal_length_mean_sigma(200, 0.8));
  cls.arrival = {ArrivalKind::hyperexponential, 3};
  ServingConfig cfg;
  SimOptions opt;
  opt.requests = 3000;
  opt.warmup_requests = 300;
  auto a = simulate(m, cfg, {cls}, opt);
  auto b = simulate(m, cfg, {cls}, opt);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->all.e2e.p99_s == b->all.e2e.p99_s);
  CHECK(a->all.ttft.mean_s == b->all.ttft.mean_s);
  CHECK(a->throughput_rps == b->throughput_rps);
  CHECK(a->kv_occupancy_mean == b->kv_occupancy_mean);
  opt.seed = 2;
  auto c = simulate(m, cfg, {cls}, opt);
  REQUIRE(c);
  CHECK(c->all.e2e.p99_s != a->all.e2e.p99_s);
}

TEST_CASE("overload is reported as unstable, not as an error", "[model]") {
  // rho = 120 / 100 = 1.2 on the M/D/1 setup.
  ConstStep m;
  const auto cls = make_class(120, *fixed_length(1), *fixed_length(1));
  SimOptions opt;
  opt.requests = 20000;
  opt.warmup_requests = 1000;
  auto r = simulate(m, single_server(), {cls}, opt);
  REQUIRE(r);
  CHECK_FALSE(r->stable);
  CHECK_FALSE(r->meets_sla);
  CHECK(r->throughput_rps == Approx(100).epsilon(0.02));  // the server's rate, 1 / 10 ms
  auto a = analyze(m, single_server(), {cls});
  REQUIRE(a);
  CHECK_FALSE(a->stable);
  CHECK(a->throughput_rps == Approx(100).epsilon(1e-6));
  CHECK(a->note.find("unstable") != std::string::npos);
}

TEST_CASE("bad inputs are errors as values", "[model]") {
  ConstStep m;
  const auto good = make_class(1, *fixed_length(10), *fixed_length(10));
  ServingConfig cfg;
  SimOptions opt;
  opt.requests = 10;
  auto neg = good;
  neg.rate.mean_qps = -2;
  CHECK_FALSE(simulate(m, cfg, {neg}, opt));
  CHECK_FALSE(analyze(m, cfg, {neg}));
  auto pct = good;
  pct.sla.ttft = {0.5, 100};
  CHECK_FALSE(analyze(m, cfg, {pct}));
  pct.sla.ttft = {0.5, 0};
  CHECK_FALSE(simulate(m, cfg, {pct}, opt));
  auto hist = good;
  hist.prompt_tokens.kind = LengthKind::histogram;
  CHECK_FALSE(analyze(m, cfg, {hist}));
  CHECK_FALSE(analyze(m, cfg, {}));
  CHECK_FALSE(analyze(m, cfg, {good}, -5));
  ServingConfig bad = cfg;
  bad.max_seqs = 0;
  CHECK_FALSE(simulate(m, bad, {good}, opt));
  bad = cfg;
  bad.max_batched_tokens = 16;  // below max_seqs = 256
  CHECK_FALSE(analyze(m, bad, {good}));
  bad = cfg;
  bad.kv_capacity_tokens = 8;  // not even one 16-token block
  CHECK_FALSE(simulate(m, bad, {good}, opt));
  CHECK_FALSE(analyze(m, bad, {good}));
  opt.requests = 0;
  CHECK_FALSE(simulate(m, cfg, {good}, opt));
}

TEST_CASE("analytic path agrees with the simulator on a realistic LLM case", "[model]") {
  // Llama-3-8B-like roofline, Poisson chat traffic: prompts lognormal mean 512 (sigma 0.6),
  // outputs lognormal mean 256 (sigma 0.6), vLLM defaults (256 seqs, 8192 tokens, chunked).
  // Tolerances: the analytic path replaces the batch-size dynamics by its mean (Little's law on an
  // Erlang occupancy) and the latency distributions by gamma fits, so batch, TPOT and E2E means
  // agree within 15%, TTFT means within 20% and P99s within 35% (docs/serving.md: observed 2-13%
  // on means, up to 29% on the TTFT P99, which the analytic path underestimates).
  RooflineStep m;
  const auto prompt = *lognormal_length_mean_sigma(512, 0.6);
  const auto output = *lognormal_length_mean_sigma(256, 0.6);
  // The replica saturates near 34 QPS (analytic); the simulator agrees to a few percent up to
  // 30 QPS in both scheduler modes (docs/serving.md has the table).
  struct Case {
    double qps;
    bool chunked;
  };
  for (const Case k : {Case{5, true}, Case{25, true}, Case{20, false}}) {
    ServingConfig cfg;
    cfg.prompt_schedule = k.chunked ? PromptSchedule::chunked : PromptSchedule::whole_prompt_steps;
    const double qps = k.qps;
    auto cls = make_class(qps, prompt, output);
    SimOptions opt;
    opt.requests = 20000;
    opt.warmup_requests = 2000;
    auto s = simulate(m, cfg, {cls}, opt);
    auto a = analyze(m, cfg, {cls});
    REQUIRE(s);
    REQUIRE(a);
    INFO("qps " << qps << " sim batch " << s->mean_batch << " analytic batch " << a->mean_batch);
    INFO("sim tpot " << s->all.tpot.mean_s << " analytic " << a->all.tpot.mean_s);
    INFO("sim e2e " << s->all.e2e.mean_s << " p99 " << s->all.e2e.p99_s << " analytic "
                    << a->all.e2e.mean_s << " p99 " << a->all.e2e.p99_s);
    INFO("sim ttft " << s->all.ttft.mean_s << " p99 " << s->all.ttft.p99_s << " analytic "
                     << a->all.ttft.mean_s << " p99 " << a->all.ttft.p99_s);
    INFO("sim util " << s->utilisation << " analytic " << a->utilisation);
    CHECK(s->stable);
    CHECK(a->stable);
    CHECK(a->all.tpot.mean_s == Approx(s->all.tpot.mean_s).epsilon(0.15));
    CHECK(a->all.e2e.mean_s == Approx(s->all.e2e.mean_s).epsilon(0.15));
    CHECK(a->all.e2e.p99_s == Approx(s->all.e2e.p99_s).epsilon(0.35));
    CHECK(a->all.ttft.mean_s == Approx(s->all.ttft.mean_s).epsilon(0.2));
    CHECK(a->all.ttft.p99_s == Approx(s->all.ttft.p99_s).epsilon(0.35));
    CHECK(a->mean_batch == Approx(s->mean_batch).epsilon(0.15));
    CHECK(a->throughput_rps == Approx(s->throughput_rps).epsilon(0.05));
  }
}

TEST_CASE("analytic path follows one-step-ahead scheduling as the simulator does", "[model]") {
  // The realistic case above at 25 QPS, batches formed one step ahead: an arrival at a busy
  // engine (probability u) waits one more step. Analytic: TTFT and E2E grow by u tau (tau the
  // mean decode interval); the simulator by the step after the one it lands in. The two paths
  // agree within the tolerances above, and each grows by about u tau (within 30%).
  RooflineStep m;
  auto cls = make_class(25, *lognormal_length_mean_sigma(512, 0.6),
                        *lognormal_length_mean_sigma(256, 0.6));
  const SimOptions opt = run_of(20000, 2000);
  const auto [now, ahead] = now_and_ahead();
  auto s0 = simulate(m, now, {cls}, opt);
  auto s1 = simulate(m, ahead, {cls}, opt);
  auto a0 = analyze(m, now, {cls});
  auto a1 = analyze(m, ahead, {cls});
  REQUIRE(s0);
  REQUIRE(s1);
  REQUIRE(a0);
  REQUIRE(a1);
  const double step = a1->utilisation * a1->all.tpot.mean_s;
  INFO("u tau " << step << " sim +" << s1->all.ttft.mean_s - s0->all.ttft.mean_s << " analytic +"
                << a1->all.ttft.mean_s - a0->all.ttft.mean_s);
  CHECK(a1->all.ttft.mean_s - a0->all.ttft.mean_s == Approx(step).epsilon(1e-9));
  CHECK(s1->all.ttft.mean_s - s0->all.ttft.mean_s == Approx(step).epsilon(0.3));
  CHECK(a1->all.ttft.mean_s == Approx(s1->all.ttft.mean_s).epsilon(0.2));
  CHECK(a1->all.e2e.mean_s == Approx(s1->all.e2e.mean_s).epsilon(0.15));
  CHECK(a1->all.tpot.mean_s == Approx(a0->all.tpot.mean_s).epsilon(1e-12));
}

TEST_CASE("step table: exact for bilinear step times, close on a roofline", "[model]") {
  // Trilinear interpolation reproduces any function affine in tokens and batch and bilinear in
  // (batch, context), so AffineStep is exact everywhere; the roofline's max(weights, compute)
  // kink costs at most a few percent between grid points (4 points per octave of tokens).
  ServingConfig cfg;
  AffineStep aff;
  RooflineStep roof;
  auto ta = StepTable::build(aff, cfg, 16384);
  auto tr = StepTable::build(roof, cfg, 16384);
  REQUIRE(ta);
  REQUIRE(tr);
  Rng rng(3);
  double worst_aff = 0, worst_roof = 0;
  for (int i = 0; i < 20000; ++i) {
    const double p =
        rng.uniform() < 0.5 ? 0 : std::floor(std::exp(rng.uniform() * std::log(8192.0)));
    int d = static_cast<int>(rng.uniform() * 257);
    if (p == 0 && d == 0) d = 1;
    const double c = std::exp(rng.uniform() * std::log(16384.0));
    const double ea = aff.mixed_step_s(p, c, d, c);
    const double er = roof.mixed_step_s(p, c, d, c);
    worst_aff = std::max(worst_aff, std::fabs(ta->step_s(p, d, c) - ea) / ea);
    worst_roof = std::max(worst_roof, std::fabs(tr->step_s(p, d, c) - er) / er);
  }
  CHECK(worst_aff < 1e-12);
  CHECK(worst_roof < 0.05);
  CHECK(tr->step_s(0, 1, 1) == Approx(roof.decode_step_s(1, 1)).epsilon(1e-12));  // a grid point
  ServingConfig bad;
  bad.max_seqs = 0;
  CHECK_FALSE(StepTable::build(aff, bad, 100));
  CHECK_FALSE(StepTable::build(aff, cfg, 0));
  // A step model returning a negative or non-finite time is caught by the build's coarse check.
  struct BadStep final : StepModel {
    double prefill_s(int, double, double) const override { return -1; }
    double decode_step_s(int, double) const override { return NAN; }
    double mixed_step_s(double p, double, int, double) const override { return p > 0 ? -1 : NAN; }
    double kv_capacity_tokens() const override { return 1e6; }
  } badm;
  CHECK_FALSE(StepTable::build(badm, cfg, 1000));
  SimOptions opt;
  opt.requests = 10;
  CHECK_FALSE(simulate(badm, cfg, {make_class(1, *fixed_length(10), *fixed_length(10))}, opt));
}

TEST_CASE("PerfStepModel adapts the roofline PerfModel", "[model]") {
  // Llama-3.1-8B shape (data/models/llama-3.1-8b.yaml) on an H100-SXM-like device, ideal stack.
  ModelSpec md;
  md.name = std::string("llama-3.1-8b");
  md.layers = 32;
  md.hidden = 4096;
  md.heads = 32;
  md.kv_heads = 8;
  md.head_dim = 128;
  md.ffn_hidden = 14336;
  md.vocab = 128256;
  md.max_context = 131072;
  HardwareSpec hw;
  hw.name = std::string("h100-like");
  hw.hw_class = HwClass::gpu;
  at(hw.dense_flops_per_s, ComputeType::bf16) = 989.4e12;
  hw.memory_bytes = 80e9;
  hw.memory_bandwidth_bytes_per_s = 3.35e12;
  hw.link_bandwidth_bytes_per_s = 450e9;
  auto perf = PerfModel::create(md, hw, ideal_stack(), Deployment{});
  REQUIRE(perf);
  PerfStepModel step(*perf, 8192);
  // KV capacity = (memory - weights - activations - reserve) / KV bytes per token.
  const MemoryReport mem = perf->memory(1, 0, 8192);
  CHECK(step.kv_capacity_tokens() == std::floor((mem.capacity_bytes - mem.weights_bytes -
                                                 mem.activation_bytes - mem.reserve_bytes) /
                                                mem.kv_bytes_per_token));
  // 2 (K, V) * 8 kv heads * 128 * 32 layers * 2 bytes = 131072 bytes per token.
  CHECK(mem.kv_bytes_per_token == Approx(131072));
  CHECK(step.decode_step_s(8, 1000) == perf->decode_step_s(8, 1000));
  CHECK(step.mixed_step_s(100, 50, 8, 1000) == perf->mixed_step_s(100, 50, 8, 1000));

  // Simulator and analytic path on it, at half the analytic saturation (same tolerances as the
  // roofline double above).
  auto cls =
      make_class(1, *lognormal_length_mean_sigma(512, 0.6), *lognormal_length_mean_sigma(256, 0.6));
  ServingConfig cfg;
  auto cap = max_qps_within_sla(step, cfg, {cls});
  REQUIRE(cap);
  REQUIRE(cap->binding_metric == "stability");
  SimOptions opt;
  opt.total_qps = cap->qps / 2;
  opt.requests = 10000;
  opt.warmup_requests = 1000;
  auto s = simulate(step, cfg, {cls}, opt);
  auto a = analyze(step, cfg, {cls}, opt.total_qps);
  REQUIRE(s);
  REQUIRE(a);
  CHECK(s->stable);
  CHECK(a->all.tpot.mean_s == Approx(s->all.tpot.mean_s).epsilon(0.15));
  CHECK(a->all.e2e.mean_s == Approx(s->all.e2e.mean_s).epsilon(0.15));
  CHECK(a->mean_batch == Approx(s->mean_batch).epsilon(0.15));
}

TEST_CASE("two classes share a replica: shares, ordering, and agreement", "[model]") {
  // Chat (lognormal 512 / 256 tokens) at 3x the rate of summarisation (3000-token prompts,
  // 50..150 outputs) at 60% of the analytic saturation of the mix, FCFS. Per-class throughput
  // follows the 3 : 1 mix (binomial sampling error of 2e4 requests < 1%); the long prompts wait
  // longer for their first token; analytic and simulated per-class means agree as in the single-
  // class case (observed within 13%; above ~80% load the analytic path is optimistic by 10-30%).
  RooflineStep m;
  auto chat =
      make_class(3, *lognormal_length_mean_sigma(512, 0.6), *lognormal_length_mean_sigma(256, 0.6));
  auto summ = make_class(1, *fixed_length(3000), *uniform_length(50, 150));
  chat.name = std::string("chat");
  summ.name = std::string("summ");
  ServingConfig cfg;
  auto cap = max_qps_within_sla(m, cfg, {chat, summ});
  REQUIRE(cap);
  SimOptions opt;
  opt.total_qps = 0.6 * cap->qps;
  auto s = simulate(m, cfg, {chat, summ}, opt);
  auto a = analyze(m, cfg, {chat, summ}, opt.total_qps);
  REQUIRE(s);
  REQUIRE(a);
  REQUIRE(s->classes.size() == 2);
  CHECK(s->classes[0].name == "chat");
  CHECK(s->offered_qps == Approx(opt.total_qps).epsilon(0.03));
  CHECK(s->classes[0].throughput_rps / s->classes[1].throughput_rps == Approx(3).epsilon(0.05));
  CHECK(s->classes[1].ttft.mean_s > s->classes[0].ttft.mean_s);
  CHECK(a->classes[1].ttft.mean_s > a->classes[0].ttft.mean_s);
  for (size_t i = 0; i < 2; ++i) {
    INFO("class " << i);
    CHECK(a->classes[i].e2e.mean_s == Approx(s->classes[i].e2e.mean_s).epsilon(0.15));
    CHECK(a->classes[i].ttft.mean_s == Approx(s->classes[i].ttft.mean_s).epsilon(0.3));
  }
  CHECK(a->mean_batch == Approx(s->mean_batch).epsilon(0.15));
}

namespace {

// A step whose cost per prompt token falls past 300 tokens (steep, then nearly flat): a concave
// kink, as the step budget's clamp and the roofline's change of roof make in the analytic
// model's decode interval. step = t0 + k min(p, 300) + k2 max(0, p - 300).
struct KinkStep final : StepModel {
  double t0 = 1e-3, k = 2e-5, k2 = 1e-7;
  double mixed_step_s(double p, double, int, double) const override {
    return t0 + k * std::min(p, 300.0) + k2 * std::max(0.0, p - 300.0);
  }
  double prefill_s(int b, double prompt, double) const override {
    return mixed_step_s(b * prompt, 0, 0, 0);
  }
  double decode_step_s(int, double) const override { return t0; }
  double kv_capacity_tokens() const override { return 1e9; }
};

}  // namespace

TEST_CASE(
    "analytic decode interval: a chord steeper than 1 short of the fixed point is not "
    "saturation",
    "[model]") {
  // 100-token prompts at lambda = 600 req/s: r = 6e4 prompt tokens/s, u0 = 100-token chunks,
  // q = r tau / u0 = 600 tau chunks per step. Below 3 chunks the interval map
  // g(tau) = (1 - f) mix(n0 u0) + f mix((n0 + 1) u0) rises with slope k r = 1.2 (the chord from
  // t0 is steeper than 1), past 3 chunks with slope k2 r = 0.006. On the flat part
  //   g(tau) = t0 + 300 k + k2 (r tau - 300) = 7 ms - 3e-5 s + 0.006 tau,
  // so the fixed point is tau = (6.97e-3) / 0.994 = 7.0121 ms (q = 4.2 chunks, inside the
  // 2048 - b token budget). The map was declared saturated at its first chord: unstable wherever
  // k r >= 1, lambda >= 1 / (k p) = 500 req/s, though one replica carries more.
  KinkStep m;
  ServingConfig cfg;
  cfg.max_seqs = 64;
  cfg.max_batched_tokens = 2048;
  const auto cls = make_class(600, *fixed_length(100), *fixed_length(10));
  auto a = analyze(m, cfg, {cls}, 600);
  REQUIRE(a);
  CHECK(a->stable);
  CHECK(a->all.tpot.mean_s == Approx(6.97e-3 / 0.994).epsilon(1e-9));
  // Stability is one threshold in lambda: a stable load stays stable when lowered.
  bool seen_unstable = false;
  int stable_count = 0;
  for (double qps = 50; qps <= 1500; qps += 5) {
    auto r = analyze(m, cfg, {cls}, qps);
    REQUIRE(r);
    if (!r->stable) seen_unstable = true;
    CHECK_FALSE((seen_unstable && r->stable));
    stable_count += r->stable ? 1 : 0;
  }
  CHECK(seen_unstable);  // the holding time, about 10 tau, saturates 64 slots near 900 req/s
  CHECK(stable_count > 100);
}
