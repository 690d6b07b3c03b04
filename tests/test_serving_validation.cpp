// Serving rows as validate predicts them: the per-token inter-token latency the simulator now
// reports beside the per-request TPOT, the serving metrics and columns a measurement row can
// carry, and identities the serving cases must keep (engine batch limits, data-parallel
// replicas). Expected values are closed forms stated beside each check.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "catalog_fixture.hpp"
#include "infercap/serving.hpp"
#include "infercap/spec/catalog.hpp"
#include "infercap/stack_fit.hpp"
#include "measurements.hpp"
#include "serving_doubles.hpp"
#include "tmp_path.hpp"

using namespace infercap;
using namespace infercap::testing;

namespace {

// A measurement file's header: the columns every row has, then `extra` (comma-separated).
std::string header(const std::string& extra) {
  return "id,source,hardware,hw_count,mem_bw_gbs,model,params_b,precision,input_len,output_len,"
         "batch,metric,value,unit,stack,notes," +
         extra + "\n";
}

// Writes `csv` to `path` and reads it as a measurement file whose rows are all refused: nothing
// comes back, and the diagnostics are returned for the caller's line, column and key checks.
spec::Diagnostics refusal(const std::string& path, const std::string& csv) {
  std::ofstream(path) << csv;
  spec::Diagnostics bad;
  CHECK(cli::read_measurements(path, bad).empty());
  REQUIRE(bad.has_errors());
  return bad;
}

// The first of `bad`'s diagnostics points at the cell (`line`, `col`) of column `key`, and its
// report says `message`.
void check_refused_at(const spec::Diagnostics& bad, int line, int col, const std::string& key,
                      const std::string& message) {
  INFO(bad.format());
  CHECK(bad.items().front().line == line);
  CHECK(bad.items().front().col == col);
  CHECK(bad.items().front().key_path == key);
  CHECK_THAT(bad.format(), Catch::Contains(message));
}

// Writes `csv` to `path`, reads it as a measurement file whose rows all read, and maps them
// against the project's catalog.
std::vector<cli::MappedRow> mapped(const std::string& path, const std::string& csv) {
  std::ofstream(path) << csv;
  spec::Diagnostics d;
  const auto rows = cli::read_measurements(path, d);
  REQUIRE_FALSE(d.has_errors());
  return cli::map_measurements(rows, test::project_catalog().catalog);
}

}  // namespace

TEST_CASE("per-token ITL: equal gaps give the step time exactly", "[model]") {
  // Every step takes s: every gap between two tokens is s, so mean, P50 and P99 are s (each
  // histogram bin reports the mean of what fell in it, exact for equal values).
  ConstStep m;
  m.s = 0.0123;
  ServingConfig cfg;
  cfg.max_seqs = 8;
  SimOptions opt;
  opt.closed_loop_clients = 8;
  opt.requests = 400;
  opt.warmup_requests = 40;
  auto r = simulate(m, cfg, {fixed_class(1, 20)}, opt);
  REQUIRE(r);
  CHECK(r->itl.mean_s == Approx(m.s).epsilon(1e-12));
  CHECK(r->itl.p50_s == Approx(m.s).epsilon(1e-12));
  CHECK(r->itl.p99_s == Approx(m.s).epsilon(1e-12));
  CHECK(r->all.tpot.p99_s == Approx(m.s).epsilon(1e-9));
}

TEST_CASE("per-token ITL: its mean is the per-request TPOT mean; its P99 sees prefill chunks",
          "[model]") {
  // With one fixed output length L, each request's TPOT is (its L - 1 gaps summed) / (L - 1), so
  // the mean of TPOT over requests equals the mean over all pooled gaps (each request weighs
  // L - 1 gaps): ITL mean = TPOT mean, up to the measurement window's edges. A prompt chunk fused
  // into a step lengthens that step's gap for every decoder (step = a + k x tokens); TPOT spreads
  // it over L - 1 gaps, ITL keeps it, so ITL P99 >= TPOT P99. Without chunking, prefill-only
  // steps stall the decoders and the stall belongs to their next gap: the identity must hold too.
  AffineStep m;
  m.a = 0.008;
  m.k = 2e-5;
  for (bool chunked : {true, false}) {
    ServingConfig cfg;
    cfg.max_seqs = 32;
    cfg.max_batched_tokens = 2048;
    cfg.prompt_schedule = chunked ? PromptSchedule::chunked : PromptSchedule::whole_prompt_steps;
    SimOptions opt;
    opt.closed_loop_clients = 24;
    opt.requests = 3000;
    opt.warmup_requests = 300;
    auto r = simulate(m, cfg, {fixed_class(1500, 64)}, opt);
    REQUIRE(r);
    INFO("chunked prefill " << chunked);
    CHECK(r->itl.mean_s == Approx(r->all.tpot.mean_s).epsilon(0.01));
    CHECK(r->itl.p99_s >= r->all.tpot.p99_s);
    // A gap is at least a decode-only step of one sequence; with chunking every step holds every
    // decoder, so a gap is one step, at most the whole token budget: a + k x 2048.
    CHECK(r->itl.p50_s >= m.a + m.k);
    if (chunked) CHECK(r->itl.p99_s <= m.a + m.k * 2048 + 1e-12);
  }
}

TEST_CASE("serving rows: metric names, engine limits, KV format and beams map as stated",
          "[unit]") {
  const std::string path = infercap::testing::tmp_path("infercap-test-serving-validation.csv");
  const auto m = mapped(
      path,
      header("tp,serving_mode,request_rate,kv_precision,max_batch,beams,requests") +
          "V-1,x,h100-sxm,1,,llama-3.1-8b,,FP8,1000,100,16,itl_mean,9,ms,vLLM,,1,concurrency,,,,,\n"
          "V-2,x,h100-sxm,1,,llama-3.1-8b,,FP8,1000,100,16,tpot_mean,9,ms,vLLM,,1,"
          "concurrency,,,,,\n"
          "V-3,x,h100-sxm,1,,llama-3.1-8b,,FP8,1000,100,16,itl_p99,30,ms,vLLM,,1,concurrency,,FP8,"
          "64,,\n"
          "V-4,x,h100-sxm,1,,llama-3.1-8b,,FP8,1000,100,,ttft_median,90,ms,vLLM,,1,rate,2,,,,\n"
          "V-5,x,h100-sxm,1,,gpt-j-6b,,FP8,800,100,,requests_per_s,13,requests/s,TensorRT-LLM,,1,"
          "offline,,,,4,\n"
          "V-7,x,h100-sxm,1,,llama-3.1-8b,,FP8,1000,100,,e2e_latency_p99,2,s,vLLM,,1,rate,2,,,1,\n"
          "V-8,x,h200,1,,llama-3.1-8b,,FP8,128,128,,offline_output_tokens_per_s,27911,tokens/s,"
          "TensorRT-LLM,,1,offline,,,,,30000\n");
  REQUIRE(m.size() == 7);
  REQUIRE(m[0].bench);
  CHECK(m[0].bench->metric == BenchMetric::serving_itl_mean_s);  // vLLM's pooled ITL
  CHECK(m[0].bench->measured == Approx(0.009));
  CHECK(m[0].bench->max_seqs == 0);  // not stated: the defaults
  REQUIRE(m[1].bench);
  CHECK(m[1].bench->metric == BenchMetric::serving_tpot_mean_s);  // per request
  REQUIRE(m[2].bench);
  CHECK(m[2].bench->metric == BenchMetric::serving_itl_p99_s);
  CHECK(m[2].bench->deployment.precision.kv == DType::fp8);
  CHECK(m[2].bench->max_seqs == 64);
  CHECK(m[1].bench->deployment.precision.kv == DType::bf16);  // unstated: 16-bit
  REQUIRE(m[3].bench);
  CHECK(m[3].bench->metric == BenchMetric::serving_ttft_p50_s);
  CHECK(m[3].bench->serving == ServingMode::rate);
  CHECK(m[3].bench->request_rate_qps == 2);
  CHECK_FALSE(m[4].bench);
  CHECK_THAT(m[4].reason, Catch::Contains("beam search (4 beams)"));
  REQUIRE(m[5].bench);  // one beam is greedy decoding
  CHECK(m[5].bench->metric == BenchMetric::serving_e2e_p99_s);
  CHECK(is_latency_metric(m[5].bench->metric));
  CHECK(is_serving_metric(BenchMetric::serving_itl_p99_s));
  CHECK(bench_metric_name(BenchMetric::serving_e2e_p99_s) == "serving_e2e_p99_s");
  REQUIRE(m[6].bench);
  CHECK(m[6].bench->serving == ServingMode::offline);
  CHECK(m[6].bench->requests == 30000);
  CHECK(m[0].bench->requests == 0);
  // An unknown KV format is refused where it is read: file, line, column and key.
  const spec::Diagnostics bad = refusal(
      path, header("kv_precision") +
                "V-6,x,h100-sxm,1,,llama-3.1-8b,,FP8,1000,100,16,itl_mean,9,ms,vLLM,,FP7\n");
  check_refused_at(bad, 2, 17, "kv_precision", "found 'FP7'");
  // So is an admission policy the simulator does not know.
  const spec::Diagnostics bad_admission = refusal(
      path, header("kv_admission") +
                "V-9,x,h100-sxm,1,,llama-3.1-8b,,FP8,1000,100,16,itl_mean,9,ms,vLLM,,max_util\n");
  check_refused_at(bad_admission, 2, 17, "kv_admission",
                   "expected prompt or full_sequence, found 'max_util'");
  std::remove(path.c_str());
}

TEST_CASE("requests on a rate row: a finite run, never with a duration or P99 limits", "[unit]") {
  // sglang.bench_serving and benchmark_serving send N Poisson arrivals and count them all: a rate
  // row's `requests` says so. A run length in seconds (duration_s) or P99 limits (a search for
  // the rate) describe another run: each is kept with its reason, not predicted. On a
  // concurrency row `requests` is the closed loop's count (benchmark_serving --num-prompts with
  // --max-concurrency), at least one a client.
  const std::string path = infercap::testing::tmp_path("infercap-test-finite-run.csv");
  const std::string head =
      header("tp,serving_mode,request_rate,requests,duration_s,ttft_p99_limit_s");
  const std::string row = "x,h200,1,,llama-3.1-8b,,FP8,500,200,,e2e_latency_mean,5,s,vLLM,,1,";
  const std::string closed = "x,h200,1,,llama-3.1-8b,,FP8,500,200,4,e2e_latency_mean,5,s,vLLM,,1,";
  const auto m = mapped(path, head + "F-1," + row + "rate,2,300,,\n" +  // finite
                                  "F-2," + row + "rate,2,,,\n" +        // steady state
                                  "F-3," + row + "rate,2,300,600,\n" + "F-4," + row +
                                  "rate,2,300,,2\n" + "F-5," + closed + "concurrency,,40,,\n" +
                                  "F-6," + closed + "concurrency,,3,,\n");
  REQUIRE(m.size() == 6);
  REQUIRE(m[0].bench);
  CHECK(m[0].bench->requests == 300);
  CHECK(m[0].reason.empty());
  REQUIRE(m[1].bench);
  CHECK(m[1].bench->requests == 0);
  CHECK(m[2].reason.find("not both") != std::string::npos);
  CHECK(m[3].reason.find("P99 limits") != std::string::npos);
  REQUIRE(m[4].bench);
  CHECK(m[4].reason.empty());
  CHECK(m[4].bench->requests == 40);
  CHECK(m[5].reason.find("expected at least one request a client") != std::string::npos);
  std::remove(path.c_str());
}

TEST_CASE("memory_fraction column: the engine's memory share replaces the stack's reserve",
          "[model]") {
  // A row stating memory_fraction f (SGLang mem_fraction_static, vLLM gpu_memory_utilization) is
  // predicted as the stack with memory_reserve_fraction 1 - f: identical to editing the stack.
  // An offline run of 70B FP8 on one H100 is KV-bound (about 44 GB for weights of 70 GB), so a
  // smaller share holds fewer sequences and is slower; out of [0, 1] is refused at its cell.
  const std::string path = infercap::testing::tmp_path("infercap-test-memory-fraction.csv");
  const std::string head = header("tp,serving_mode,requests,memory_fraction");
  const std::string row =
      "x,h100-sxm,1,,llama-3.1-70b,,FP8,2000,300,,offline_output_tokens_per_s,1000,tokens/s,"
      "vLLM,,1,offline,200,";
  const auto m =
      mapped(path, head + "M-1," + row + "0.95\n" + "M-2," + row + "0.9\n" + "M-3," + row + "\n");
  REQUIRE(m.size() == 3);
  REQUIRE(m[0].bench);
  REQUIRE(m[1].bench);
  REQUIRE(m[2].bench);
  CHECK(m[0].bench->memory_fraction == 0.95);
  CHECK(m[2].bench->memory_fraction == 0);
  const StackSpec* vllm = test::project_catalog().catalog.find_stack("vllm");
  REQUIRE(vllm != nullptr);
  StackSpec edited = *vllm;
  edited.memory_reserve_fraction = 1 - 0.95;
  const auto stated = predict_case(*m[0].bench, *vllm);
  const auto by_stack = predict_case(*m[2].bench, edited);
  const auto less = predict_case(*m[1].bench, *vllm);
  REQUIRE(stated);
  REQUIRE(by_stack);
  REQUIRE(less);
  CHECK(*stated == Approx(*by_stack).epsilon(1e-12));
  CHECK(*less < *stated);
  const spec::Diagnostics bad = refusal(path, head + "M-4," + row + "1.2\n");
  check_refused_at(bad, 2, 20, "memory_fraction", "expected a number in [0, 1], found '1.2'");
  std::remove(path.c_str());
}

TEST_CASE("request_poll_steps column: the engine's polling interval, a whole number >= 1",
          "[unit]") {
  // SGLang's --scheduler-recv-interval as a row states it reaches the simulator's engine; an
  // empty cell polls every step; 0 or a fraction is refused at its cell.
  const std::string path = infercap::testing::tmp_path("infercap-test-request-poll.csv");
  const std::string head = header("tp,serving_mode,request_rate,request_poll_steps");
  const std::string row = "x,h200,1,,llama-3.1-8b,,FP8,1000,100,,ttft_mean,0.2,s,SGLang,,1,rate,4,";
  const auto m = mapped(path, head + "Q-1," + row + "30\n" + "Q-2," + row + "\n");
  REQUIRE(m.size() == 2);
  REQUIRE(m[0].bench);
  REQUIRE(m[1].bench);
  CHECK(m[0].bench->request_poll_decode_steps == 30);
  CHECK(m[1].bench->request_poll_decode_steps == 1);
  // Polling every 30 decode steps, a Poisson arrival waits for the next poll: TTFT grows.
  const StackSpec* sglang = test::project_catalog().catalog.find_stack("sglang");
  REQUIRE(sglang != nullptr);
  const auto slow = predict_case(*m[0].bench, *sglang);
  const auto fast = predict_case(*m[1].bench, *sglang);
  REQUIRE(slow);
  REQUIRE(fast);
  CHECK(*slow > *fast);
  check_refused_at(refusal(path, head + "Q-3," + row + "0\n"), 2, 20, "request_poll_steps",
                   "found '0'");
  check_refused_at(refusal(path, head + "Q-4," + row + "2.5\n"), 2, 20, "request_poll_steps",
                   "found '2.5'");
  std::remove(path.c_str());
}

TEST_CASE("chunked_prefill column: the row's prompt scheduling over the stack's", "[unit]") {
  // Both serving stacks chunk by default (trtllm-bench's long-prompt rows need it); a row that
  // states `false` (MLPerf v4.1's harness) runs whole prompts behind the decodes; an empty cell
  // keeps the stack's; any other word is refused at its cell.
  const std::string path = infercap::testing::tmp_path("infercap-test-chunked-prefill.csv");
  const std::string head = header("tp,serving_mode,chunked_prefill");
  const auto m = mapped(
      path, head +
                "C-1,x,h100-sxm,1,,llama-3.1-8b,,FP8,1000,100,16,ttft_mean,0.2,s,TensorRT-LLM,,1,"
                "concurrency,false\n"
                "C-2,x,h100-sxm,1,,llama-3.1-8b,,FP8,1000,100,16,ttft_mean,0.2,s,TensorRT-LLM,,1,"
                "concurrency,\n"
                "C-3,x,h100-sxm,1,,llama-3.1-8b,,FP8,1000,100,16,ttft_mean,0.2,s,vLLM,,1,"
                "concurrency,true\n");
  REQUIRE(m.size() == 3);
  REQUIRE(m[0].bench);
  REQUIRE(m[1].bench);
  REQUIRE(m[2].bench);
  CHECK(m[0].bench->prompt_schedule == PromptSchedule::whole_with_decodes);
  CHECK(m[1].bench->prompt_schedule == PromptSchedule::chunked);
  CHECK(m[2].bench->prompt_schedule == PromptSchedule::chunked);
  const spec::Diagnostics bad = refusal(
      path, head +
                "C-4,x,h100-sxm,1,,llama-3.1-8b,,FP8,1000,100,16,ttft_mean,0.2,s,TensorRT-LLM,,1,"
                "concurrency,no\n");
  check_refused_at(bad, 2, 19, "chunked_prefill", "expected true or false, found 'no'");
  std::remove(path.c_str());
}

TEST_CASE("prefill_cuda_graphs and batch-waiting columns reach the case", "[unit]") {
  // A row states piecewise prompt graphs (true; false or empty: eager) and TensorRT-LLM's
  // batch waiting (steps and token level; empty: none); another word, or a negative count, is
  // refused at its cell.
  const std::string path = infercap::testing::tmp_path("infercap-test-prefill-graphs.csv");
  const std::string head =
      header("tp,serving_mode,prefill_cuda_graphs,prompt_wait_steps,prompt_wait_tokens");
  const std::string row =
      "G-1,x,b200,8,,deepseek-v3,,FP8,1000,100,16,ttft_mean,0.2,s,TensorRT-LLM,,8,concurrency,";
  const auto m = mapped(path, head + row + "true,40,6554\n" + row + ",,\n");
  REQUIRE(m.size() == 2);
  REQUIRE(m[0].bench);
  REQUIRE(m[1].bench);
  CHECK(m[0].bench->deployment.prefill_cuda_graphs);
  CHECK(m[0].bench->prompt_wait_steps == 40);
  CHECK(m[0].bench->prompt_wait_tokens == 6554);
  CHECK_FALSE(m[1].bench->deployment.prefill_cuda_graphs);
  CHECK(m[1].bench->prompt_wait_steps == 0);
  CHECK(m[1].bench->prompt_wait_tokens == 0);
  check_refused_at(refusal(path, head + row + "yes,,\n"), 2, 19, "prefill_cuda_graphs",
                   "expected true or false, found 'yes'");
  check_refused_at(refusal(path, head + row + ",-1,\n"), 2, 20, "prompt_wait_steps", "-1");
  std::remove(path.c_str());
}

TEST_CASE("duration_s column: a rate row's run length, and the requests it simulates", "[unit]") {
  // A rate row states how long its run was (MLPerf Server's min_duration); a row of another
  // serving mode cannot (it is kept, not predicted, with the reason); a negative length or one
  // past a day is refused at its cell.
  const std::string path = infercap::testing::tmp_path("infercap-test-duration.csv");
  const std::string head = header("tp,serving_mode,request_rate,duration_s");
  const auto m = mapped(
      path, head +
                "D-1,x,h100-sxm,1,,llama-3.1-8b,,FP8,1000,100,,ttft_mean,0.2,s,vLLM,,1,rate,4,"
                "2400\n"
                "D-2,x,h100-sxm,1,,llama-3.1-8b,,FP8,1000,100,,ttft_mean,0.2,s,vLLM,,1,rate,4,\n"
                "D-3,x,h100-sxm,1,,llama-3.1-8b,,FP8,1000,100,16,ttft_mean,0.2,s,vLLM,,1,"
                "concurrency,,600\n");
  REQUIRE(m.size() == 3);
  REQUIRE(m[0].bench);
  REQUIRE(m[1].bench);
  CHECK(m[0].bench->duration_s == 2400);
  CHECK(m[1].bench->duration_s == 0);
  CHECK_FALSE(m[2].bench);
  CHECK_THAT(m[2].reason, Catch::Contains("duration_s"));
  check_refused_at(
      refusal(path, head + "D-4,x,h100-sxm,1,,llama-3.1-8b,,FP8,1000,100,,ttft_mean,0.2,"
                           "s,vLLM,,1,rate,4,-1\n"),
      2, 20, "duration_s", "duration_s");
  check_refused_at(
      refusal(path, head + "D-5,x,h100-sxm,1,,llama-3.1-8b,,FP8,1000,100,,ttft_mean,0.2,"
                           "s,vLLM,,1,rate,4,90000\n"),
      2, 20, "duration_s", "duration_s");

  // The run: ceil(rate x duration) requests, never fewer than the defaults' count; unchanged
  // without a duration; refused past 2^24 requests.
  BenchCase c = *m[0].bench;
  SimOptions opt;
  opt.requests = 20480;
  auto run = rate_run_options(c, opt, 44.62);
  REQUIRE(run);
  CHECK(run->requests == 107088);  // ceil(44.62 x 2400) = ceil(107088.0)
  auto longer = rate_run_options(c, opt, 364.33);
  REQUIRE(longer);
  CHECK(longer->requests == 874392);  // 364.33 x 2400 = 874392
  auto short_run = rate_run_options(c, opt, 2.0);
  REQUIRE(short_run);
  CHECK(short_run->requests == 20480);  // 4800 < the default's 20480
  c.duration_s = 0;
  auto none = rate_run_options(c, opt, 44.62);
  REQUIRE(none);
  CHECK(none->requests == 20480);
  c.duration_s = 86400;
  auto huge = rate_run_options(c, opt, 1000);
  REQUIRE_FALSE(huge);
  CHECK_THAT(huge.error().message, Catch::Contains("2^24"));
  std::remove(path.c_str());
}

TEST_CASE("output_len_points column: outputs sampled from the row's spread", "[model]") {
  // One closed-loop client (no queueing), 256-token prompts, outputs 64 tokens long or spread
  // over two equal shares of 32 and 96 (mean 64). A request takes TTFT + (L - 1) x TPOT, linear
  // in L, so the spread keeps the mean end to end (to the small growth of the context) and its
  // P99 is a 96-token request's: TTFT + 95 x TPOT, with TTFT and TPOT the fixed rows' own.
  const std::string path = infercap::testing::tmp_path("infercap-test-output-points.csv");
  const std::string head = header("tp,serving_mode,output_len_points");
  auto row = [](const std::string& id, const std::string& metric, const std::string& points) {
    return id + ",x,h100-sxm,1,,llama-3.1-8b,,BF16,256,64,1," + metric +
           ",1,s,vLLM,,1,concurrency," + points + "\n";
  };
  const auto m = mapped(path, head + row("O-1", "ttft_mean", "") + row("O-2", "tpot_mean", "") +
                                  row("O-3", "e2e_latency_mean", "") +
                                  row("O-4", "e2e_latency_mean", "32;96") +
                                  row("O-5", "e2e_latency_p99", "32;96"));
  REQUIRE(m.size() == 5);
  for (const auto& r : m) REQUIRE(r.bench);
  CHECK(m[0].bench->output_len_points.empty());
  CHECK(m[4].bench->output_len_points == std::vector<double>{32, 96});
  const StackSpec* stack = test::project_catalog().catalog.find_stack("vllm");
  REQUIRE(stack);
  std::vector<double> v;
  for (const auto& r : m) {
    auto p = predict_case(*r.bench, *stack);
    REQUIRE(p);
    v.push_back(*p);
  }
  const double ttft = v[0], tpot = v[1];
  CHECK(v[2] == Approx(ttft + 63 * tpot).epsilon(0.02));
  CHECK(v[3] == Approx(v[2]).epsilon(0.02));
  CHECK(v[4] == Approx(ttft + 95 * tpot).epsilon(0.03));
  // Points that do not average to output_len are refused at their cell.
  const spec::Diagnostics bad = refusal(path, head + row("O-6", "ttft_mean", "32;64"));
  check_refused_at(bad, 2, 19, "output_len_points",
                   "expected points whose mean is output_len (64), found a mean of 48.00 over 2 "
                   "points");
  std::remove(path.c_str());
}

TEST_CASE("dispatch column: a rate row's replicas run behind their dispatcher", "[model]") {
  // Two rows of one fixed-rate setting on two replicas (hw_count 2, tp 1): without a dispatch
  // column each replica is simulated at its Poisson half and its throughput doubled; with
  // least_loaded both are simulated together at the whole rate and the fleet's throughput is
  // returned as it is. Either way, a stable run delivers what arrives: 4 req/s x 64 tokens = 256
  // tokens/s, not twice that. A spelling the simulator does not know is refused at its cell.
  const std::string path = infercap::testing::tmp_path("infercap-test-dispatch.csv");
  const std::string head = header("tp,serving_mode,request_rate,dispatch");
  const auto m =
      mapped(path, head +
                       "D-1,x,h100-sxm,2,,llama-3.1-8b,,BF16,256,64,,output_tokens_per_s,256,"
                       "tokens/s,vLLM,,1,rate,4,\n"
                       "D-2,x,h100-sxm,2,,llama-3.1-8b,,BF16,256,64,,output_tokens_per_s,256,"
                       "tokens/s,vLLM,,1,rate,4,least_loaded\n"
                       "D-3,x,h100-sxm,2,,llama-3.1-8b,,BF16,256,64,,output_tokens_per_s,256,"
                       "tokens/s,vLLM,,1,rate,4,shared_queue\n");
  const spec::Catalog& catalog = test::project_catalog().catalog;
  REQUIRE(m.size() == 3);
  REQUIRE(m[0].bench);
  REQUIRE(m[1].bench);
  REQUIRE(m[2].bench);
  CHECK_FALSE(m[0].bench->dispatch);
  REQUIRE(m[1].bench->dispatch);
  CHECK(*m[1].bench->dispatch == Dispatch::least_loaded);
  REQUIRE(m[2].bench->dispatch);
  CHECK(*m[2].bench->dispatch == Dispatch::shared_queue);
  const StackSpec* stack = catalog.find_stack("vllm");
  REQUIRE(stack);
  for (const auto& row : m) {
    CHECK(row.bench->replicas == 2);
    auto v = predict_case(*row.bench, *stack);
    REQUIRE(v);
    CHECK(*v == Approx(256).epsilon(0.03));
  }
  const spec::Diagnostics bad =
      refusal(path, head +
                        "D-4,x,h100-sxm,2,,llama-3.1-8b,,BF16,256,64,,output_tokens_per_s,256,"
                        "tokens/s,vLLM,,1,rate,4,round_robin\n");
  check_refused_at(bad, 2, 20, "dispatch",
                   "expected least_loaded or shared_queue, found 'round_robin'");
  std::remove(path.c_str());
}

TEST_CASE("moe_routing column: same_experts reaches the deployment; bad values are refused",
          "[unit]") {
  const std::string path = infercap::testing::tmp_path("infercap-test-moe-routing.csv");
  const std::string head = header("tp,moe_routing");
  const std::string rows =
      "R-1,x,h200,2,,mixtral-8x7b,,FP8,128,1,1,ttft,12.1,ms,tensorrt-llm-0.9,,2,same_experts\n"
      "R-2,x,h200,2,,mixtral-8x7b,,FP8,128,1,1,ttft,12.1,ms,tensorrt-llm-0.9,,2,uniform\n"
      "R-3,x,h200,2,,mixtral-8x7b,,FP8,128,1,1,ttft,12.1,ms,tensorrt-llm-0.9,,2,\n"
      "R-4,x,h200,1,,llama-3.1-8b,,FP8,128,1,1,ttft,12.1,ms,tensorrt-llm-0.9,,1,same_experts\n";
  const auto m = mapped(path, head + rows);
  REQUIRE(m.size() == 4);
  const spec::Catalog& catalog = test::project_catalog().catalog;
  REQUIRE(m[0].bench);
  CHECK(m[0].bench->deployment.moe_routing == MoeRouting::same_experts);
  REQUIRE(m[1].bench);
  CHECK(m[1].bench->deployment.moe_routing == MoeRouting::uniform);
  REQUIRE(m[2].bench);
  CHECK(m[2].bench->deployment.moe_routing == MoeRouting::uniform);  // empty: uniform
  // The collapsed routing reads 2 of 8 experts where 128 prompt tokens touch all 8: faster.
  const StackSpec* stack = catalog.find_stack("tensorrt-llm-0.9");
  REQUIRE(stack != nullptr);
  const auto same = predict_case(*m[0].bench, *stack);
  const auto spread = predict_case(*m[1].bench, *stack);
  REQUIRE(same);
  REQUIRE(spread);
  CHECK(*same < *spread);
  // A dense model has no router: the row is kept, not predicted, and says why.
  CHECK_FALSE(m[3].bench);
  CHECK_THAT(m[3].reason, Catch::Contains("has no experts"));
  const spec::Diagnostics bad =
      refusal(path, head +
                        "R-5,x,h200,2,,mixtral-8x7b,,FP8,128,1,1,ttft,12.1,ms,tensorrt-llm-0.9,,2,"
                        "random\n");
  check_refused_at(bad, 2, 18, "moe_routing", "expected uniform or same_experts, found 'random'");
  std::remove(path.c_str());
}

TEST_CASE("serving cases: a batch limit of one serialises; replicas split the load", "[model]") {
  // Identities of the serving case, whatever the step times: (1) with the engine limited to one
  // running sequence, N closed-loop clients get the single-stream throughput, each waiting for
  // the others: throughput(N = 4) = throughput(N = 1), and a request waits for the 3 ahead of it
  // (FIFO): TTFT(4) = 3 x e2e(1) + TTFT(1). (2) Two data-parallel replicas at 2N clients are two
  // replicas at N each: throughput doubles, per-request latencies are unchanged.
  spec::Diagnostics d;
  const auto catalog = spec::Catalog::load(INFERCAP_SOURCE_DIR "/data", d);
  REQUIRE_FALSE(d.has_errors());
  const StackSpec* stack = catalog.find_stack("vllm");
  REQUIRE(stack);
  BenchCase c;
  c.id = "ID-1";
  c.model = *catalog.find_model("llama-3.1-8b");
  c.hardware = *catalog.find_hardware("h100-sxm");
  c.deployment.precision = {DType::bf16, DType::bf16, DType::bf16};
  c.serving = ServingMode::concurrency;
  c.prompt_tokens = 256;
  c.output_tokens = 64;
  c.max_seqs = 1;
  auto at = [&](BenchMetric metric, int clients, int replicas) {
    BenchCase k = c;
    k.metric = metric;
    k.batch = clients;
    k.replicas = replicas;
    auto v = predict_case(k, *stack);
    REQUIRE(v);
    return *v;
  };
  const double x1 = at(BenchMetric::serving_output_tokens_per_s, 1, 1);
  const double x4 = at(BenchMetric::serving_output_tokens_per_s, 4, 1);
  CHECK(x4 == Approx(x1).epsilon(0.01));
  const double e2e1 = at(BenchMetric::serving_e2e_mean_s, 1, 1);
  const double ttft1 = at(BenchMetric::serving_ttft_mean_s, 1, 1);
  CHECK(at(BenchMetric::serving_ttft_mean_s, 4, 1) == Approx(3 * e2e1 + ttft1).epsilon(0.01));
  c.max_seqs = 0;  // the defaults again
  const double one = at(BenchMetric::serving_output_tokens_per_s, 8, 1);
  CHECK(at(BenchMetric::serving_output_tokens_per_s, 16, 2) == Approx(2 * one).epsilon(1e-9));
  CHECK(at(BenchMetric::serving_itl_p99_s, 16, 2) ==
        Approx(at(BenchMetric::serving_itl_p99_s, 8, 1)).epsilon(1e-9));
}

TEST_CASE("offline run: N requests queued at once, measured over the makespan", "[model]") {
  // Constant 10 ms steps, room for 10 sequences, 1-token prompts and 5 output tokens. N = 10:
  // one step prefills all ten (token 1), four decode steps finish them together at 5 steps =
  // 50 ms: 10 / 0.05 = 200 requests/s and 50 / 0.05 = 1000 tokens/s, the ten that finish in the
  // last step included. N = 20: the second ten are admitted in step 6, finish at step 10: the
  // same rates over 100 ms, TTFT mean (10 x 10 ms + 10 x 60 ms) / 20 = 35 ms.
  ConstStep m;
  m.s = 0.01;
  ServingConfig cfg;
  cfg.max_seqs = 10;
  for (int n : {10, 20}) {
    SimOptions opt;
    opt.requests = n;
    opt.warmup_requests = 0;
    opt.closed_loop_clients = n;
    auto r = simulate(m, cfg, {fixed_class(1, 5)}, opt);
    REQUIRE(r);
    INFO("N = " << n);
    CHECK(r->requests_measured == n);
    CHECK(r->simulated_s == Approx(n / 10.0 * 0.05));  // n / 10 waves of 50 ms
    CHECK(r->throughput_rps == Approx(200));
    CHECK(r->output_tokens_per_s == Approx(1000));
    CHECK(r->all.ttft.mean_s == Approx(n == 10 ? 0.01 : 0.035));
    CHECK(r->utilisation == Approx(1));
    CHECK(r->itl.mean_s == Approx(0.01));
  }
}

TEST_CASE("KV admission: reserving whole sequences runs fewer at once and never preempts",
          "[model]") {
  // 16 blocks of 16 tokens; requests of 16 prompt + 48 output tokens need 64 tokens = 4 blocks
  // each at full length. Reserving at admission (TensorRT-LLM's GUARANTEED_NO_EVICT) admits
  // 16 / 4 = 4 at a time, which run in lock step: 1 prefill step + 47 decode steps = 48 steps of
  // 10 ms per wave of 4, so 4 / 0.48 s = 8.33 requests/s, no preemption, the cache full. On-demand
  // blocks (vLLM) admit all 8 clients on their 1-block prompts and must preempt as they grow.
  ConstStep m;
  m.s = 0.01;
  ServingConfig cfg;
  cfg.max_seqs = 8;
  cfg.kv_capacity_tokens = 256;
  SimOptions opt;
  opt.closed_loop_clients = 8;
  opt.requests = 400;
  opt.warmup_requests = 40;
  cfg.reserve_full_sequence = true;
  auto r = simulate(m, cfg, {fixed_class(16, 48)}, opt);
  REQUIRE(r);
  CHECK(r->preemptions == 0);
  CHECK(r->throughput_rps == Approx(4 / 0.48).epsilon(0.02));
  CHECK(r->mean_batch == Approx(4).epsilon(1e-9));
  CHECK(r->kv_occupancy_max == Approx(1));
  CHECK(r->all.tpot.p99_s == Approx(m.s).epsilon(1e-9));
  cfg.reserve_full_sequence = false;
  auto v = simulate(m, cfg, {fixed_class(16, 48)}, opt);
  REQUIRE(v);
  CHECK(v->preemptions > 0);
  CHECK(v->requests_measured == 400);
}

TEST_CASE("analytic KV slots: a whole-sequence reservation holds P + L; on-demand blocks P + L/2",
          "[model]") {
  // 2560 KV tokens, requests of 16 prompt + 48 output tokens, 16-token blocks (half a block of
  // rounding each). On demand a sequence holds P + L/2 + 8 = 48 tokens on average over its
  // life: floor(0.99 x 2560 / 48) = 52 slots. Reserved at admission it holds P + L + 8 = 72:
  // floor(0.99 x 2560 / 72) = 35. At a load no replica carries, the analytic result reports
  // the full batch, the slot count.
  ConstStep m;
  ServingConfig cfg;
  cfg.max_seqs = 256;
  cfg.kv_capacity_tokens = 2560;
  cfg.kv_block_tokens = 16;
  for (bool reserve : {false, true}) {
    cfg.reserve_full_sequence = reserve;
    auto r = analyze(m, cfg, {fixed_class(16, 48)}, 1e6);
    REQUIRE(r);
    CHECK_FALSE(r->stable);
    CHECK(r->mean_batch == (reserve ? 35 : 52));
  }
}

TEST_CASE("serving rows: TensorRT-LLM FP8 rows without a KV format get ModelOpt's FP8 KV cache",
          "[unit]") {
  // ModelOpt FP8 checkpoints export kv_cache_quant_algo FP8 beside quant_algo FP8 and
  // TensorRT-LLM applies it, so an FP8 TensorRT-LLM row that states no KV format runs an FP8
  // cache; a stated format wins; 16-bit rows and other stacks keep a 16-bit cache.
  const std::string path = infercap::testing::tmp_path("infercap-test-serving-trt-kv.csv");
  const auto m = mapped(
      path,
      header("tp,serving_mode,request_rate,kv_precision") +
          "T-1,x,h100-sxm,2,,llama-3.1-70b,,FP8,5000,500,5,ttft_mean,400,ms,NIM (TensorRT-LLM "
          "backend),,2,concurrency,,\n"
          "T-2,x,h100-sxm,2,,llama-3.1-70b,,FP8,5000,500,5,ttft_mean,400,ms,TensorRT-LLM,,2,"
          "concurrency,,BF16\n"
          "T-3,x,h100-sxm,2,,llama-3.1-70b,,BF16,5000,500,5,ttft_mean,400,ms,TensorRT-LLM,,2,"
          "concurrency,,\n"
          "T-4,x,h100-sxm,2,,llama-3.1-70b,,FP8,5000,500,5,ttft_mean,400,ms,vLLM,,2,"
          "concurrency,,\n");
  const spec::Catalog& catalog = test::project_catalog().catalog;
  REQUIRE(m.size() == 4);
  for (const auto& x : m) REQUIRE(x.bench);
  CHECK(m[0].stack_name == "tensorrt-llm");
  CHECK(m[0].bench->deployment.precision.kv == DType::fp8);
  CHECK(m[0].bench->reserve_full_sequence);
  CHECK(m[1].bench->deployment.precision.kv == DType::bf16);  // stated
  CHECK(m[2].bench->deployment.precision.kv == DType::bf16);  // 16-bit checkpoint
  CHECK(m[3].bench->deployment.precision.kv == DType::bf16);  // vLLM: unstated stays 16-bit
  // The admission policy is the stack's kv_admission key: full_sequence in tensorrt-llm.yaml
  // (GUARANTEED_NO_EVICT), the default (prompt) for vLLM.
  CHECK(m[2].bench->reserve_full_sequence);
  CHECK_FALSE(m[3].bench->reserve_full_sequence);
  BenchCase probe;
  cli::apply_engine_settings(catalog.find_stack("tensorrt-llm"), cli::MeasurementRow{}, probe);
  CHECK(probe.reserve_full_sequence);
  cli::apply_engine_settings(catalog.find_stack("vllm"), cli::MeasurementRow{}, probe);
  CHECK_FALSE(probe.reserve_full_sequence);
  cli::apply_engine_settings(catalog.find_stack("no-such-stack"), cli::MeasurementRow{}, probe);
  CHECK_FALSE(probe.reserve_full_sequence);
  // What the format means for a NIM-like closed loop (Llama 3.1 70B: 80 layers x 8 KV heads x
  // 128 x (K, V) = 163840 values per token): 2 x 80 GB less the 70.6 GB of FP8 weights leaves
  // < 90 GB, room for < 90e9 / (163840 x 2 B x 5500) = 50 BF16 sequences of 5000 + 500 tokens,
  // but about twice that in FP8. With 100 clients the engine holding whole sequences runs more
  // at once in FP8, so every request's decode steps are longer and the queue shorter: TPOT rises
  // and TTFT falls against BF16.
  auto fp8 = *m[0].bench, bf16 = *m[1].bench;
  fp8.batch = bf16.batch = 100;
  fp8.metric = bf16.metric = BenchMetric::serving_tpot_mean_s;
  const auto* stack = catalog.find_stack("tensorrt-llm");
  REQUIRE(stack != nullptr);
  const auto t8 = predict_case(fp8, *stack), t16 = predict_case(bf16, *stack);
  REQUIRE(t8);
  REQUIRE(t16);
  CHECK(*t8 > *t16);
  fp8.metric = bf16.metric = BenchMetric::serving_ttft_mean_s;
  const auto q8 = predict_case(fp8, *stack), q16 = predict_case(bf16, *stack);
  REQUIRE(q8);
  REQUIRE(q16);
  CHECK(*q8 < *q16);
  std::remove(path.c_str());
}
