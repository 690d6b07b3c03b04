// How a run reaches the engine and what it counts: finite benchmark runs (open loop and closed
// loop, every request measured over the run's wall time), batches formed one step ahead, and
// engines that take in new requests only every few decode steps. Each against a schedule worked
// out by hand on constant-time steps.
#include <catch2/catch.hpp>
#include <cmath>
#include <tuple>
#include <utility>

#include "infercap/serving.hpp"
#include "serving_doubles.hpp"

using namespace infercap;
using namespace infercap::testing;

TEST_CASE("a finite run: every request counted, over the run's wall time", "[model]") {
  // N = 500 one-step requests (10 ms each, one at a time) arriving at 1000/s, ten times what the
  // server clears: after the first arrival a_0 the server never idles (w.h.p.), so request i
  // finishes at a_0 + (i + 1) s. Over the window [0, a_0 + N s]: throughput N / (a_0 + N s), and
  // mean e2e = a_0 + s (N + 1) / 2 - mean(a_i), with mean(a_i) - a_0 = (N - 1) / (2 lambda) for
  // Poisson arrivals (sd sqrt(N / 12) / lambda ~ 6.5 ms), a_0 ~ 1 ms.
  ConstStep m;
  const int n = 500;
  const double s = m.s, lambda = 1000;
  const auto cls = make_class(lambda, *fixed_length(1), *fixed_length(1));
  SimOptions opt;
  opt.requests = n;
  opt.warmup_requests = 0;
  opt.finite_run = true;
  auto r = simulate(m, single_server(), {cls}, opt);
  REQUIRE(r);
  CHECK(r->requests_measured == n);
  // The window is the whole run: a_0 + N s, a_0 within a few ms.
  CHECK(r->simulated_s == Approx(n * s).margin(0.01));
  CHECK(r->throughput_rps * r->simulated_s == Approx(n).epsilon(1e-9));
  const double e2e_mean = s * (n + 1) / 2.0 - (n - 1) / (2 * lambda);
  CHECK(r->all.e2e.mean_s == Approx(e2e_mean).margin(0.03));
  // The last request waited for all before it: about N s - N / lambda.
  CHECK(r->all.e2e.p99_s > 0.9 * (n * s - n / lambda));
  // The same arrivals as a steady-state run would have been cut short or called unstable; the
  // finite run is neither cut short nor an error.
  CHECK(r->note.find("more than") == std::string::npos);
  // A finite run measures everything: a warm-up is an error, as a value.
  SimOptions warm = opt;
  warm.warmup_requests = 10;
  auto w = simulate(m, single_server(), {cls}, warm);
  REQUIRE_FALSE(w);
  CHECK(w.error().message.find("finite run") != std::string::npos);
}

TEST_CASE("a finite closed-loop run: N clients, R requests, ramp and drain counted", "[model]") {
  // benchmark_serving --max-concurrency N --num-prompts R --request-rate inf. Steps of s = 10 ms
  // whatever they hold, N = 4 slots, requests of a 1-token prompt and o = 20 output tokens: the
  // prefill step gives the first token, so a request is o steps. The clients start together and
  // run in waves of o s each (a wave's requests finish together, so the next wave, sent on
  // completion, starts at once, round trip or not). R requests take ceil(R / N) waves:
  //   makespan = ceil(R / N) o s,  throughput = R / makespan,
  // and every request's e2e is o s and TTFT s. A steady-state closed loop reports N / (o s),
  // 20 requests/s; R = 5 reports 5 / 0.4 s = 12.5 and R = 10, 10 / 0.6 s = 16.7: the last wave
  // running part full is what a short benchmark measures.
  ConstStep m;
  const double s = m.s;
  const int n = 4, o = 20;
  ServingConfig cfg = single_server();
  cfg.max_seqs = n;
  const auto cls = make_class(1, *fixed_length(1), *fixed_length(o));
  for (const bool round_trip : {false, true}) {
    for (const int64_t reqs : {int64_t{4}, int64_t{5}, int64_t{10}, int64_t{40}}) {
      SimOptions opt;
      opt.requests = reqs;
      opt.warmup_requests = 0;
      opt.finite_run = true;
      opt.closed_loop_clients = n;
      opt.closed_loop_round_trip = round_trip;
      auto r = simulate(m, cfg, {cls}, opt);
      REQUIRE(r);
      INFO("R = " << reqs << ", round trip " << round_trip);
      const double waves = static_cast<double>((reqs + n - 1) / n);
      CHECK(r->requests_measured == reqs);
      CHECK(r->simulated_s == Approx(waves * o * s).epsilon(1e-9));
      const double rps = static_cast<double>(reqs) / (waves * o * s);
      CHECK(r->throughput_rps == Approx(rps).epsilon(1e-9));
      CHECK(r->output_tokens_per_s == Approx(rps * o).epsilon(1e-9));
      CHECK(r->all.e2e.mean_s == Approx(o * s).epsilon(1e-9));
      CHECK(r->all.ttft.mean_s == Approx(s).epsilon(1e-9));
    }
  }
}

namespace {

// Three requests of a 1-token prompt and 1000 output tokens, arriving deterministically at
// 2.4 s, 4.8 s and 7.2 s for steps of s, in a finite run that counts each.
std::pair<RequestClass, SimOptions> three_arrivals(double s) {
  RequestClass cls = make_class(1 / (2.4 * s), *fixed_length(1), *fixed_length(1000));
  cls.arrival.kind = ArrivalKind::deterministic;
  SimOptions opt;
  opt.requests = 3;
  opt.warmup_requests = 0;
  opt.finite_run = true;
  return {cls, opt};
}

}  // namespace

TEST_CASE("an engine that polls every N decode steps takes arrivals in only then", "[model]") {
  // SGLang's --scheduler-recv-interval N: a busy engine takes in new requests when N decode-only
  // steps have run since it last did, or right after a step with prompt tokens; an idle one at
  // once. Steps of s whatever they hold; requests of a 1-token prompt and 1000 output tokens
  // arrive at 2.4 s, 4.8 s and 7.2 s (a deterministic rate of 1 / 2.4 s), three in all.
  //  every step (N = 1): the first finds the engine idle: prefill [2.4, 3.4) s, TTFT s; decode
  //    steps then start at 3.4 s, 4.4 s, ...: the second is taken in at 5.4 s and its first token
  //    comes at 6.4 s (TTFT 1.6 s), the third at 7.4 s (TTFT 1.2 s); mean 3.8 s / 3.
  //  N = 5: the prefill step lets the engine poll at 3.4 s (nothing new); then five decode steps
  //    [3.4, 8.4) s pass before the next poll, so the second and third are both taken in at
  //    8.4 s: TTFTs 4.6 s and 2.2 s; mean 7.8 s / 3 (medians 1.2 s and 2.2 s).
  ConstStep m;
  const double s = m.s;
  // Named references, not a structured binding: clang 14 cannot capture one in a lambda.
  const auto arrivals = three_arrivals(s);
  const RequestClass& cls = arrivals.first;
  const SimOptions& opt = arrivals.second;
  auto run = [&](int poll) {
    ServingConfig cfg = single_server();
    cfg.max_seqs = 4;
    cfg.request_poll_decode_steps = poll;
    return simulate(m, cfg, {cls}, opt);
  };
  auto every = run(1);
  auto five = run(5);
  REQUIRE(every);
  REQUIRE(five);
  CHECK(every->all.ttft.mean_s == Approx(3.8 * s / 3).epsilon(1e-9));
  CHECK(every->all.ttft.p50_s == Approx(1.2 * s).epsilon(1e-9));
  CHECK(five->all.ttft.mean_s == Approx(7.8 * s / 3).epsilon(1e-9));
  CHECK(five->all.ttft.p50_s == Approx(2.2 * s).epsilon(1e-9));
  // Once in, decoding is the same: every request still takes 1000 steps.
  CHECK(five->all.tpot.mean_s == Approx(s).epsilon(1e-9));
  ServingConfig bad = single_server();
  bad.request_poll_decode_steps = 0;
  CHECK_FALSE(simulate(m, bad, {cls}, opt));
}

TEST_CASE("batch waiting holds prompts for W steps, or until the token level", "[model]") {
  // TensorRT-LLM's batch_wait_timeout_iters W and batch_wait_max_tokens_ratio: while sequences
  // decode, waiting prompts stay out of the steps until they have been held W steps, or until
  // their tokens plus the step's decodes reach the level; an idle engine takes them at once.
  // Steps of s; 1-token prompts, 1000 output tokens, arriving at 2.4 s, 4.8 s and 7.2 s.
  //  no waiting: TTFTs s, 1.6 s, 1.2 s, as in the polling case above (mean 3.8 s / 3).
  //  W = 3, no level: the first finds the engine idle (TTFT s). The second is held at the steps
  //    starting 5.4 s, 6.4 s and 7.4 s and let in at 8.4 s with the third: TTFTs 4.6 s and
  //    2.2 s; mean 7.8 s / 3.
  //  W = 10, level 3 tokens: the second alone makes 1 decode + 1 = 2 tokens and is held; at
  //    7.4 s the third has come, 1 + 2 = 3 reach the level and both go in: TTFTs 3.6 s and
  //    1.2 s; mean 5.8 s / 3.
  ConstStep m;
  const double s = m.s;
  // Named references, not a structured binding: clang 14 cannot capture one in a lambda.
  const auto arrivals = three_arrivals(s);
  const RequestClass& cls = arrivals.first;
  const SimOptions& opt = arrivals.second;
  auto run = [&](int steps, int tokens) {
    ServingConfig cfg = single_server();
    cfg.max_seqs = 4;
    cfg.prompt_wait_steps = steps;
    cfg.prompt_wait_tokens = tokens;
    return simulate(m, cfg, {cls}, opt);
  };
  for (const auto& [steps, tokens, mean_s] :
       {std::tuple{0, 0, 3.8 * s / 3}, std::tuple{3, 0, 7.8 * s / 3},
        std::tuple{10, 3, 5.8 * s / 3}, std::tuple{10, 2, 3.8 * s / 3}}) {
    CAPTURE(steps, tokens);
    auto r = run(steps, tokens);
    REQUIRE(r);
    CHECK(r->all.ttft.mean_s == Approx(mean_s).epsilon(1e-9));
    CHECK(r->all.tpot.mean_s == Approx(s).epsilon(1e-9));
  }
  ServingConfig bad = single_server();
  bad.prompt_wait_steps = -1;
  CHECK_FALSE(simulate(m, bad, {cls}, opt));
  bad = single_server();
  bad.prompt_wait_tokens = -1;
  CHECK_FALSE(simulate(m, bad, {cls}, opt));
}

TEST_CASE("scheduled one step ahead: an arrival during a step waits one step more", "[model]") {
  // Steps of s = 10 ms whatever they hold; requests of a 1-token prompt and 20 output tokens
  // (200 ms in the engine) arrive evenly every 2 sqrt(2) s, so after the first the engine is never
  // idle and, the ratio being irrational, arrivals fall evenly over the step they land in. Formed
  // when its step starts, a batch takes a request after the rest r of the step it arrived in:
  // TTFT = r + s, mean 1.5 s, max 2 s. Formed one step ahead (SGLang v0.4, TensorRT-LLM's overlap
  // scheduler) the batch a request can join is the one formed at or after its arrival, the step
  // after the next: TTFT = r + 2 s, mean 2.5 s, one step more for every request. Throughput and
  // TPOT do not move (the engine stays busy).
  ConstStep m;
  const double s = m.s;
  RequestClass cls = make_class(1 / (2 * std::sqrt(2.0) * s), *fixed_length(1), *fixed_length(20));
  cls.arrival.kind = ArrivalKind::deterministic;
  const SimOptions opt = run_of(4000, 100);
  const auto [now, ahead] = now_and_ahead();
  auto a = simulate(m, now, {cls}, opt);
  auto b = simulate(m, ahead, {cls}, opt);
  REQUIRE(a);
  REQUIRE(b);
  // Equidistributed rests: the mean within 1% of a step, the max just under a step.
  CHECK(a->all.ttft.mean_s == Approx(1.5 * s).margin(0.01 * s));
  CHECK(b->all.ttft.mean_s == Approx(2.5 * s).margin(0.01 * s));
  CHECK(b->all.ttft.mean_s - a->all.ttft.mean_s == Approx(s).margin(1e-9));
  CHECK(a->all.ttft.p99_s <= 2 * s + 1e-9);
  CHECK(a->all.ttft.p99_s > 1.95 * s);
  CHECK(b->all.tpot.mean_s == Approx(a->all.tpot.mean_s).margin(1e-12));
  CHECK(b->throughput_rps == Approx(a->throughput_rps).epsilon(1e-3));
  // An idle engine forms its batch at once: requests 100 ms apart, each done in 20 ms, keep
  // TTFT = s either way.
  RequestClass sparse = make_class(10, *fixed_length(1), *fixed_length(2));
  sparse.arrival.kind = ArrivalKind::deterministic;
  auto c = simulate(m, ahead, {sparse}, opt);
  REQUIRE(c);
  CHECK(c->all.ttft.mean_s == Approx(s).margin(1e-9));
}
