// Serving over pipeline stages: an engine that keeps one micro-batch per stage in flight
// (TensorRT-LLM, vLLM: the stack's pipeline_microbatches) is simulated as pp interleaved engines,
// each with the engine's sequence slots, 1/pp of the KV cache and the step of its own micro-batch
// through every stage. Rows on other stacks are refused where they are predicted (and where
// they are mapped: tests/test_mlperf_rows.cpp).
#include <catch2/catch.hpp>

#include "catalog_fixture.hpp"
#include "infercap/perf.hpp"
#include "infercap/stack_fit.hpp"

using namespace infercap;

namespace {

const spec::Catalog& catalog() {
  REQUIRE_FALSE(infercap::test::project_catalog().diags.has_errors());
  return infercap::test::project_catalog().catalog;
}

// Llama 3.1 8B in bf16 over two H100 stages: 32 requests per micro-batch of 8 prompt and 256
// output tokens, all queued at once (offline), the KV cache far from full.
BenchCase offline_case(int pp, int64_t requests) {
  BenchCase c;
  c.id = "PP-1";
  c.model = *catalog().find_model("llama-3.1-8b");
  c.hardware = *catalog().find_hardware("h100-sxm");
  c.deployment.precision = {DType::bf16, DType::bf16, DType::bf16};
  c.deployment.pp = pp;
  c.metric = BenchMetric::serving_output_tokens_per_s;
  c.serving = ServingMode::offline;
  c.prompt_tokens = 8;
  c.output_tokens = 256;
  c.max_seqs = 32;
  c.requests = requests;
  return c;
}

}  // namespace

TEST_CASE("pipeline micro-batches: each micro-batch's token costs one pass through every stage",
          "[model]") {
  // Formula: with S stages and a micro-batch per stage in flight, S micro-batches of B
  // sequences each get one token per pass T(B) through all S stages (the step PerfModel prices
  // for pp = S: every layer, one stage after another), so N = S x B requests of L output tokens
  // queued at once finish in one wave: makespan = prefill(B, P) + sum over k = 1 .. L-1 of
  // T(B, P + k), and output tokens/s = S x B x L / makespan. One replica over two stages thus
  // produces twice what its single stream of micro-batches would.
  const StackSpec* trt = catalog().find_stack("tensorrt-llm");
  REQUIRE(trt != nullptr);
  REQUIRE(trt->pipeline_microbatches);
  const int S = 2, B = 32;
  const double P = 8, L = 256;
  const BenchCase c = offline_case(S, int64_t{S} * B);
  auto perf = PerfModel::create(c.model, c.hardware, *trt, c.deployment);
  REQUIRE(perf);
  double makespan = perf->prefill_s(B, P, 0);
  for (int k = 1; k < static_cast<int>(L); ++k) makespan += perf->decode_step_s(B, P + k);
  const double expected = S * B * L / makespan;
  const auto got = predict_case(c, *trt);
  REQUIRE(got);
  // The simulator reads step times from its interpolated table, hence the tolerance.
  CHECK(*got == Approx(expected).epsilon(0.03));
  // Twice the requests: two waves, the same rate (the per-wave ramp and drain are the same).
  const auto twice = predict_case(offline_case(S, int64_t{2} * S * B), *trt);
  REQUIRE(twice);
  CHECK(*twice == Approx(*got).epsilon(0.01));
}

TEST_CASE("pipeline micro-batches: a stack stepping its whole batch through the stages is refused",
          "[unit]") {
  // A serving run over stages is predicted only on a stack that states its engine overlaps
  // micro-batches; elsewhere predict_case says why rather than halving the run's throughput.
  StackSpec plain = *catalog().find_stack("tensorrt-llm");
  plain.pipeline_microbatches = false;
  const auto r = predict_case(offline_case(2, 64), plain);
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().message, Catch::Contains("pipeline_microbatches"));
  CHECK_THAT(r.error().message, Catch::Contains("2 pipeline stages"));
  // One stage is the ordinary engine, whatever the flag says.
  CHECK(predict_case(offline_case(1, 64), plain));
  // The catalog: TensorRT-LLM and vLLM overlap micro-batches; llama.cpp's layer split does not.
  CHECK(catalog().find_stack("vllm")->pipeline_microbatches);
  CHECK_FALSE(catalog().find_stack("llama.cpp")->pipeline_microbatches);
}
