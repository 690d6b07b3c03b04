// The closed loop's round trip (SimOptions::closed_loop_round_trip): a benchmark client's next
// request reaches the engine only after the engine has scheduled the step that follows its
// previous request's last token. Expected values are traced step by step in the comments.
#include <catch2/catch.hpp>

#include "infercap/serving.hpp"
#include "serving_doubles.hpp"

using namespace infercap;
using namespace infercap::testing;

TEST_CASE("closed-loop round trip: two staggered clients collide on a prefill", "[model]") {
  // step = a + k x tokens, a = 10 ms, k = 0.1 ms; prompts of P = 100 tokens, L = 3 output
  // tokens (one from the prefill, two decodes), 2 clients, budget 150 tokens, chunked prefill.
  // The start staggers them: step 1 holds A's 100 tokens and 50 of B's, step 2 A's decode and
  // B's last 50, so B's first token comes one step after A's and it finishes one step later.
  //
  // Zero round trip: A's successor A' joins the step that finishes B (B's decode + A' 100 =
  // a + 101k = 20.1 ms), B' the next (A' decode + B' 100, 20.1 ms), then a step of two decodes
  // (10.2 ms): every TTFT is a + (P + 1)k = 20.1 ms, every TPOT (20.1 + 10.2) / 2 ms and each
  // client's cycle is the three steps, 50.4 ms.
  //
  // With the round trip A' misses the step that finishes B (B's decode alone, a + k = 10.1 ms),
  // and runs alone in the next (a + Pk = 20 ms): TTFT 30.1 ms. B' was sent while that step ran,
  // so it waits for all of A''s prefill and then runs with A''s decode (20.1 ms): TTFT
  // 20 + 20.1 = 40.1 ms, the collision. Then A' decode + B' decode (10.2 ms) and B' alone
  // (10.1 ms): the cycle is 20 + 20.1 + 10.2 + 10.1 = 60.4 ms for both. Leaders see TPOT
  // (20.1 + 10.2) / 2 = 15.15 ms, followers (10.2 + 10.1) / 2 = 10.15 ms.
  AffineStep m;
  m.a = 0.01;
  m.k = 1e-4;
  ServingConfig cfg;
  cfg.max_seqs = 2;
  cfg.max_batched_tokens = 150;
  SimOptions opt;
  opt.closed_loop_clients = 2;
  opt.requests = 200;  // even: as many leaders (A's) as followers (B's)
  opt.warmup_requests = 20;
  const auto cls = fixed_class(100, 3);

  auto instant = simulate(m, cfg, {cls}, opt);
  REQUIRE(instant);
  CHECK(instant->all.ttft.p50_s == Approx(0.0201).epsilon(1e-9));
  CHECK(instant->all.ttft.p99_s == Approx(0.0201).epsilon(1e-9));
  // (p50 and p99: the last request, with no partner left, finishes faster and pulls the mean)
  CHECK(instant->all.e2e.p50_s == Approx(0.0504).epsilon(1e-9));
  CHECK(instant->all.e2e.p99_s == Approx(0.0504).epsilon(1e-9));
  CHECK(instant->all.tpot.p99_s == Approx((0.0201 + 0.0102) / 2).epsilon(1e-9));
  CHECK(instant->throughput_rps == Approx(2 / 0.0504).epsilon(0.02));

  opt.closed_loop_round_trip = true;
  auto rt = simulate(m, cfg, {cls}, opt);
  REQUIRE(rt);
  CHECK(rt->all.ttft.p50_s == Approx(0.0301).epsilon(1e-9));  // the leaders
  CHECK(rt->all.ttft.p99_s == Approx(0.0401).epsilon(1e-9));  // the followers
  CHECK(rt->all.ttft.mean_s == Approx((0.0301 + 0.0401) / 2).epsilon(1e-9));
  CHECK(rt->all.tpot.p50_s == Approx(0.01015).epsilon(1e-9));
  CHECK(rt->all.tpot.p99_s == Approx(0.01515).epsilon(1e-9));
  CHECK(rt->all.e2e.p50_s == Approx(0.0604).epsilon(1e-9));
  CHECK(rt->all.e2e.p99_s == Approx(0.0604).epsilon(1e-9));
  CHECK(rt->throughput_rps == Approx(2 / 0.0604).epsilon(0.02));
  CHECK(rt->preemptions == 0);
}

TEST_CASE("closed-loop round trip: an idle engine waits for the next request", "[model]") {
  // One client, or clients that finish together, leave the engine with nothing to run: it waits
  // for their requests, so the round trip costs nothing. One client, P = 100, L = 3:
  // TTFT = a + Pk = 20 ms, e2e = 20 + 2 x (a + k) = 40.2 ms. Eight clients of 1-token prompts
  // in lock step: every step holds 8 tokens (a + 8k = 10.8 ms), TTFT one step, e2e L steps.
  AffineStep m;
  m.a = 0.01;
  m.k = 1e-4;
  for (bool round_trip : {false, true}) {
    INFO("round trip " << round_trip);
    ServingConfig cfg;
    cfg.max_seqs = 8;
    SimOptions opt;
    opt.requests = 100;
    opt.warmup_requests = 8;
    opt.closed_loop_round_trip = round_trip;
    opt.closed_loop_clients = 1;
    auto one = simulate(m, cfg, {fixed_class(100, 3)}, opt);
    REQUIRE(one);
    CHECK(one->all.ttft.mean_s == Approx(0.02).epsilon(1e-9));
    CHECK(one->all.e2e.mean_s == Approx(0.0402).epsilon(1e-9));
    opt.closed_loop_clients = 8;
    auto lock = simulate(m, cfg, {fixed_class(1, 10)}, opt);
    REQUIRE(lock);
    CHECK(lock->all.ttft.p99_s == Approx(0.0108).epsilon(1e-9));
    CHECK(lock->all.e2e.p99_s == Approx(10 * 0.0108).epsilon(1e-9));
    CHECK(lock->utilisation == Approx(1).epsilon(1e-9));
  }
}

TEST_CASE("closed-loop round trip: no effect on an offline run or an open loop", "[model]") {
  // Offline: every request is queued at t = 0, none is sent on a completion. Open loop: arrivals
  // do not depend on completions. Either way the results are identical with and without it.
  AffineStep m;
  ServingConfig cfg;
  cfg.max_seqs = 16;
  SimOptions opt;
  opt.requests = 300;
  opt.warmup_requests = 0;
  opt.closed_loop_clients = 300;
  auto a = simulate(m, cfg, {fixed_class(200, 20)}, opt);
  opt.closed_loop_round_trip = true;
  auto b = simulate(m, cfg, {fixed_class(200, 20)}, opt);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->throughput_rps == b->throughput_rps);
  CHECK(a->all.ttft.mean_s == b->all.ttft.mean_s);
  SimOptions open;
  open.requests = 500;
  open.warmup_requests = 50;
  auto cls = fixed_class(200, 20);
  cls.rate.mean_qps = 20;
  auto c = simulate(m, cfg, {cls}, open);
  open.closed_loop_round_trip = true;
  auto d = simulate(m, cfg, {cls}, open);
  REQUIRE(c);
  REQUIRE(d);
  CHECK(c->all.e2e.mean_s == d->all.e2e.mean_s);
}
