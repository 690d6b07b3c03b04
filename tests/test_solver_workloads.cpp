// Workloads as buyers state them: memory at the concurrency the plan runs at, the KV cache as
// what sets a replica count. The world is solver_fixture.hpp's (tiny model: 4 layers, 8 KV heads
// of 64, bf16 KV = 2 x 4 x 8 x 64 x 2 B = 8192 B per token; chat class: 200 prompt + 50 output
// tokens, so one sequence holds 250 tokens = 2 MB of KV).
#include <fmt/core.h>
#include <catch2/catch.hpp>
#include <cmath>

#include "solver_fixture.hpp"

using namespace infercap;
using namespace solver_fixture;

namespace {

MemoryReport memory_of(const PlanInputs& in, const HardwareSpec& hw, int batch, double context) {
  Deployment dep;
  dep.precision = precision_preset("bf16")->precision;
  auto perf = PerfModel::create(in.models[0], hw, ideal_stack(), dep);
  REQUIRE(perf.ok());
  return perf->memory(batch, context, in.serving.max_batched_tokens);
}

}  // namespace

TEST_CASE("memory is checked for every sequence in flight at the design load", "[unit][solver]") {
  PlanInputs in = inputs(20000, 8000);
  const CandidateRow r = eval(in);
  REQUIRE(r.feasible);
  // Little's law: in flight per replica = design load per replica x mean end-to-end latency; the
  // engine holds at most its 32-sequence cap (16 GiB holds thousands of 2 MB sequences).
  CHECK(r.context_tokens == Approx(250));
  REQUIRE(r.sequences_in_flight > 1);
  const int inflight = std::min(32, static_cast<int>(std::ceil(r.sequences_in_flight)));
  const MemoryReport m = memory_of(in, in.space.hardware[0], inflight, 250);
  CHECK(m.kv_bytes == Approx(inflight * 250.0 * 8192));
  const Constraint* c = find(r, "memory");
  REQUIRE(c != nullptr);
  CHECK(c->ok);
  CHECK(c->value == Approx(m.total_bytes));
  CHECK(c->limit == Approx(m.capacity_bytes));
  CHECK(c->margin == Approx((m.capacity_bytes - m.total_bytes) / m.capacity_bytes));
  CHECK(c->message.find(fmt::format("for the {} sequences in flight per replica", inflight)) !=
        std::string::npos);
}

TEST_CASE("a KV cache that caps the batch sets the replica count", "[unit][solver]") {
  PlanInputs in = inputs(20000, 8000);
  // Room for 4 sequences of 250 tokens beside the weights, activations and reserve: the
  // engine's 32-sequence cap is never reached; the queue behind the small batch is what breaks
  // the TTFT, so memory sets the count (with room for 32, one replica carries clearly more).
  const MemoryReport one = memory_of(in, in.space.hardware[0], 1, 250);
  HardwareSpec small = test_gpu();
  small.memory_bytes =
      in.space.hardware[0].memory_bytes - (one.capacity_bytes - one.total_bytes) + 3 * 250.0 * 8192;
  in.space.hardware = {small};
  const CandidateRow r = eval(in);
  INFO((r.binding_constraint() ? r.binding_constraint()->message : std::string("none")));
  REQUIRE(r.feasible);
  // The memory check counts min(Little's law, what the KV cache holds) sequences.
  Deployment dep;
  dep.precision = precision_preset("bf16")->precision;
  auto perf = PerfModel::create(in.models[0], small, ideal_stack(), dep);
  REQUIRE(perf.ok());
  const int fit = perf->max_batch(250, in.serving.max_batched_tokens);
  CHECK(fit < 32);
  const int held = std::min(fit, static_cast<int>(std::ceil(r.sequences_in_flight - 1e-9)));
  const Constraint* c = find(r, "memory");
  REQUIRE(c != nullptr);
  CHECK(c->value == Approx(memory_of(in, small, held, 250).total_bytes));
  CHECK(r.sized_by == "memory");
  REQUIRE(r.binding_constraint() != nullptr);
  CHECK(r.binding_constraint()->name == "memory");
  // More memory, same device otherwise: more sequences per replica, fewer replicas.
  const CandidateRow roomy = eval(inputs(20000, 8000));
  CHECK(roomy.replicas < r.replicas);
}

TEST_CASE("KV-cache precision is a search dimension; fp8 KV halves each sequence's cache",
          "[unit][solver]") {
  auto fp8 = kv_precision_preset("fp8");
  REQUIRE(fp8.ok());
  CHECK(*fp8 == DType::fp8);
  auto bad = kv_precision_preset("fp4");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message ==
        "unknown KV-cache precision 'fp4'; expected one of bf16, fp16, fp8, int8, q8_0, q4_0");
  // A long prompt: 8000 + 50 tokens. One sequence's KV: 8050 x 8192 B in bf16, half in fp8.
  PlanInputs in = inputs(10, 5);
  in.pools[0].classes[0].prompt_tokens = *fixed_length(8000);
  auto bf16 = precision_preset("bf16");
  auto kv8 = with_kv_precision(*bf16, "fp8");
  REQUIRE(kv8.ok());
  CHECK(kv8->precision.weights == DType::bf16);
  CHECK(kv8->precision.kv == DType::fp8);
  Deployment dep;
  dep.precision = kv8->precision;
  auto perf8 = PerfModel::create(in.models[0], test_gpu(), ideal_stack(), dep);
  REQUIRE(perf8.ok());
  const MemoryReport m8 = perf8->memory(1, 8050, in.serving.max_batched_tokens);
  CHECK(m8.kv_bytes == Approx(8050 * 4096.0));
  // A device with room for the weights and one fp8 sequence (+ 10 MB), not one bf16 sequence:
  // the search finds the fp8 KV cache, the bf16 one is rejected by memory.
  HardwareSpec dev = test_gpu();
  dev.memory_bytes = test_gpu().memory_bytes - (m8.capacity_bytes - m8.total_bytes) + 10e6;
  in.space.hardware = {dev};
  in.space.kv_precisions = {"bf16", "fp8"};
  auto plan = solve(in);
  REQUIRE(plan.ok());
  REQUIRE(plan->feasible);
  CHECK(plan->recommended.parts.front().kv_precision == "fp8");
  REQUIRE(plan->pools[0].rejected.size() == 1);
  CHECK(plan->pools[0].rejected[0].kv_precision == "bf16");
  CHECK(plan->pools[0].rejected[0].binding_constraint()->name == "memory");
  in.space.kv_precisions = {"fp4"};
  CHECK(validate(in).at(0).find("expected one of bf16, fp16, fp8") != std::string::npos);
}

TEST_CASE("a closed loop of users and a batch job with a deadline become rates", "[unit][solver]") {
  // 50 users, 10 s of thought between answers: at most 50 / 10 = 5 req/s.
  auto cl = closed_loop_rate(50, 10, 2);
  REQUIRE(cl.ok());
  CHECK(cl->peak_qps == Approx(5));
  CHECK(cl->mean_qps == Approx(2));
  CHECK(closed_loop_rate(50, 10)->mean_qps == Approx(5));
  CHECK_FALSE(closed_loop_rate(50, 0).ok());
  CHECK_FALSE(closed_loop_rate(50, 10, 6).ok());  // more than 50 users can send
  // 100k documents within 6 h once a night: 100000 / 21600 = 4.63 req/s while it runs, a day's
  // average of 100000 / 86400 = 1.157 req/s.
  auto job = batch_job_rate(100000, 6, 1);
  REQUIRE(job.ok());
  CHECK(job->peak_qps == Approx(100000.0 / 21600));
  CHECK(job->mean_qps == Approx(100000.0 / 86400));
  auto overlap = batch_job_rate(1000, 6, 5);
  REQUIRE_FALSE(overlap.ok());
  CHECK(overlap.error().message == "5 runs a day of 6 h each overlap (more than 24 h)");
}

TEST_CASE("a batch job is sized for throughput and billed energy for the hours it runs",
          "[unit][solver]") {
  PlanInputs in = inputs(1, 1);
  const double q_sla = eval(in).max_qps_per_replica;
  // No latency SLA: one replica's capacity is its throughput (stability), at least the
  // TTFT-bound one.
  in.pools[0].classes[0].sla = Sla{};
  const double q = eval(in).max_qps_per_replica;
  CHECK(q >= q_sla);
  // 3q documents per second for 8 hours a night: 3 replicas; average 3q x 8 / 24 = q.
  in.pools[0].classes[0].rate = *batch_job_rate(3 * q * 8 * 3600, 8, 1);
  const CandidateRow r = eval(in);
  REQUIRE(r.feasible);
  CHECK(r.limited_by == "stability");
  CHECK(r.replicas == 3);
  CHECK(r.utilisation_average == Approx(q / (3 * q)));
  // 3 devices at 50 + (1/3) x 250 W, one 400 W host: 800 W on average (vs 1300 W nameplate).
  CHECK(r.power_w == Approx(3 * (50 + 250.0 / 3) + 400));
  CHECK(r.provisioned_w == Approx(3 * 300 + 400));
}

TEST_CASE("a burst pool rented in the cloud for the burst hours is compared with owning it",
          "[unit][solver]") {
  PlanInputs in = inputs(1, 1);
  const double q = eval(in).max_qps_per_replica;
  // Everyday 0.5q (1 replica carries q); promotions at 3q: the burst pool carries 3q - q = 2q on
  // 2 devices. Rented at $2.00 an hour for 100 h a year over the 2-year horizon:
  // 2 x 2.00 x 100 x 2 = $800, against buying 2 devices + 1 server ($40k capex) or sizing the
  // base for 3q.
  in.pools[0].classes[0].rate.peak_qps = 3 * q;
  in.pools[0].classes[0].rate.mean_qps = 0.5 * q;
  in.prices.devices[0].cloud_usd_per_device_hour = 2;
  in.strategy = FleetStrategy::burst;
  in.burst_base_classes = {HwClass::gpu};
  in.burst_buffer_classes = {HwClass::gpu};
  in.burst_hours_per_year = 100;
  auto plan = solve(in);
  REQUIRE(plan.ok());
  REQUIRE(plan->feasible);
  const FleetChoice& f = plan->recommended;
  INFO(f.note);
  CHECK(f.label == "base + cloud on demand for the burst hours");
  REQUIRE(f.parts.size() == 2);
  CHECK(f.parts[1].devices == 2);
  CHECK(f.parts[1].cost.tco_usd == Approx(800));
  CHECK(f.cost.tco_usd == Approx(f.parts[0].cost.tco_usd + 800));
  CHECK(
      f.note.find("2 x testgpu rented 100 h a year at $2.00 per device-hour: $800 over 2 years") !=
      std::string::npos);
  CHECK(f.note.find("against sizing the base hardware for the peak") != std::string::npos);
  // The owned buffer and the peak-sized fleet are the alternatives, dearer.
  REQUIRE(plan->alternatives.size() == 2);
  for (const auto& a : plan->alternatives) CHECK(a.cost.tco_usd > f.cost.tco_usd);
}

TEST_CASE("prefix reuse removes the cached share of each prompt from prefill and KV",
          "[unit][solver]") {
  // 1000-token prompts of which an 800-token system prompt is cached for 90% of requests:
  // 0.9 x 800 = 720 tokens a request are not recomputed, 280 are.
  PlanInputs in = inputs(100, 50);
  in.pools[0].classes[0].prompt_tokens = *fixed_length(1000);
  auto reused = with_prefix_reuse(in.pools[0].classes[0], 800, 0.9);
  REQUIRE(reused.ok());
  CHECK(mean(reused->prompt_tokens) == Approx(280));
  // A lognormal keeps its family and shape; its mean drops by the same 720 tokens.
  RequestClass ln = in.pools[0].classes[0];
  ln.prompt_tokens = *lognormal_length_mean_sigma(1500, 0.6);
  auto ln2 = with_prefix_reuse(ln, 800, 0.9);
  REQUIRE(ln2.ok());
  CHECK(ln2->prompt_tokens.kind == LengthKind::lognormal);
  CHECK(mean(ln2->prompt_tokens) == Approx(1500 - 720));
  CHECK(ln2->prompt_tokens.sigma == Approx(0.6));
  CHECK_FALSE(with_prefix_reuse(in.pools[0].classes[0], 800, 1.5).ok());
  CHECK_FALSE(with_prefix_reuse(in.pools[0].classes[0], 1200, 1.0).ok());  // longer than the prompt
  // Less to prefill: one replica carries more within the same TTFT SLA.
  const CandidateRow whole = eval(in);
  PlanInputs cached = in;
  cached.pools[0].classes[0] = *reused;
  const CandidateRow part = eval(cached);
  REQUIRE(whole.feasible);
  REQUIRE(part.feasible);
  CHECK(part.max_qps_per_replica > whole.max_qps_per_replica);
  CHECK(part.context_tokens == Approx(280 + 50));
}
