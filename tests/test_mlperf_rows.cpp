// MLPerf Llama 2 70B rows: a dataset's prompt-length spread as equal-weight points
// (`input_len_points`), pipeline-parallel rows (`pp`: stages on stacks with micro-batches, kept
// with a reason elsewhere), and the committed
// MLPerf files mapping as their notes say. Expected values are closed forms or identities stated
// beside each check.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>

#include "catalog_fixture.hpp"
#include "infercap/perf.hpp"
#include "infercap/serving.hpp"
#include "infercap/spec/catalog.hpp"
#include "infercap/stack_fit.hpp"
#include "measurements.hpp"
#include "tmp_path.hpp"

using namespace infercap;

namespace {

const std::string kHeader =
    "id,source,hardware,hw_count,mem_bw_gbs,model,params_b,precision,input_len,output_len,batch,"
    "metric,value,unit,stack,notes,tp,serving_mode,request_rate,max_batch,input_len_points,pp\n";

std::vector<cli::MeasurementRow> read_rows(const std::string& body, spec::Diagnostics& d) {
  const std::string path = infercap::testing::tmp_path("infercap-test-mlperf-rows.csv");
  {
    std::ofstream f(path);
    f << kHeader << body;
  }
  auto rows = cli::read_measurements(path, d);
  std::remove(path.c_str());
  return rows;
}

}  // namespace

TEST_CASE("input_len_points: read as tokens whose mean must be input_len", "[unit]") {
  spec::Diagnostics d;
  // (100 + 300 + 500) / 3 = 300 = input_len; spaces around a point are allowed.
  const auto rows = read_rows(
      "P-1,x,h100-sxm,8,,llama-2-70b,,FP8,300,290,,offline_output_tokens_per_s,1,tokens/s,"
      "TensorRT-LLM,,2,offline,,896,100; 300 ;500,\n",
      d);
  REQUIRE_FALSE(d.has_errors());
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].input_len_points == std::vector<double>{100, 300, 500});
  spec::Catalog catalog = [] {
    spec::Diagnostics cd;
    return spec::Catalog::load(INFERCAP_SOURCE_DIR "/data", cd);
  }();
  const auto m = cli::map_measurement(rows[0], catalog);
  REQUIRE(m.bench);
  CHECK(m.bench->prompt_len_points == std::vector<double>{100, 300, 500});
  CHECK(m.bench->prompt_tokens == 300);
  CHECK(m.bench->replicas == 4);  // 8 devices / TP2

  SECTION("a mean that is not input_len is refused where it is written") {
    // (100 + 400) / 2 = 250, 50 tokens from input_len 300: more than half a token.
    spec::Diagnostics bad;
    CHECK(read_rows("P-2,x,h100-sxm,8,,llama-2-70b,,FP8,300,290,,offline_output_tokens_per_s,1,"
                    "tokens/s,TensorRT-LLM,,2,offline,,896,100;400,\n",
                    bad)
              .empty());
    REQUIRE(bad.has_errors());
    CHECK(bad.items().front().line == 2);
    CHECK(bad.items().front().col == 21);  // input_len_points is the 21st column
    CHECK(bad.items().front().key_path == "input_len_points");
    CHECK_THAT(bad.format(), Catch::Contains("mean of 250.00 over 2 points"));
  }
  SECTION("half a token of rounding is accepted, more is not") {
    // (222 + 223) / 2 = 222.5: 0.5 from 222, 0.6 from 221.9.
    spec::Diagnostics ok;
    read_rows(
        "P-3,x,h100-sxm,1,,llama-2-70b,,FP8,222,290,,requests_per_s,1,requests/s,"
        "TensorRT-LLM,,1,offline,,,222;223,\n",
        ok);
    CHECK_FALSE(ok.has_errors());
    spec::Diagnostics off;
    read_rows(
        "P-4,x,h100-sxm,1,,llama-2-70b,,FP8,221.9,290,,requests_per_s,1,requests/s,"
        "TensorRT-LLM,,1,offline,,,222;223,\n",
        off);
    CHECK(off.has_errors());
  }
  SECTION("a point that is not a token count is named") {
    for (const char* cell : {"100;;500", "100;0;500", "100;abc", "100;-3"}) {
      INFO(cell);
      spec::Diagnostics bad;
      CHECK(read_rows(std::string("P-5,x,h100-sxm,1,,llama-2-70b,,FP8,300,290,,requests_per_s,1,"
                                  "requests/s,TensorRT-LLM,,1,offline,,,") +
                          cell + ",\n",
                      bad)
                .empty());
      REQUIRE(bad.has_errors());
      CHECK(bad.items().front().key_path == "input_len_points");
      CHECK_THAT(bad.format(), Catch::Contains("as point 2"));
    }
  }
}

TEST_CASE("pp: the pp column reaches the deployment; rows the stages cannot run are kept",
          "[unit]") {
  // On TensorRT-LLM (pipeline_microbatches) 8 devices as TP1 x PP2 are 4 replicas of two
  // stages, and one stage is no pipeline. The same row on a stack without micro-batches
  // (PyTorch) is kept, not predicted, with the reason; pp beyond the model's layers is refused,
  // and so is a static-batch row over stages (it would be read as one device's step).
  spec::Diagnostics d;
  const auto rows = read_rows(
      "P-6,x,h100-sxm,8,,llama-2-70b,,FP8,300,290,,offline_output_tokens_per_s,1,tokens/s,"
      "TensorRT-LLM,,1,offline,,1024,,2\n"
      "P-7,x,h100-sxm,8,,llama-2-70b,,FP8,300,290,,offline_output_tokens_per_s,1,tokens/s,"
      "TensorRT-LLM,,1,offline,,1024,,1\n"
      "P-8,x,h100-sxm,8,,llama-2-70b,,BF16,300,290,,offline_output_tokens_per_s,1,tokens/s,"
      "PyTorch,,1,offline,,1024,,2\n"
      "P-9,x,h100-sxm,96,,llama-2-70b,,FP8,300,290,,offline_output_tokens_per_s,1,tokens/s,"
      "TensorRT-LLM,,1,offline,,1024,,96\n"
      "P-10,x,h100-sxm,2,,llama-2-70b,,FP8,300,290,8,tpot,30,ms,TensorRT-LLM,,1,,,,,2\n",
      d);
  REQUIRE_FALSE(d.has_errors());
  REQUIRE(rows.size() == 5);
  const auto m = cli::map_measurements(rows, infercap::test::project_catalog().catalog);
  REQUIRE(m[0].bench);
  CHECK(m[0].bench->deployment.pp == 2);
  CHECK(m[0].bench->replicas == 4);  // 8 devices / (TP1 x PP2)
  REQUIRE(m[1].bench);
  CHECK(m[1].bench->deployment.pp == 1);
  CHECK(m[1].bench->replicas == 8);
  CHECK_FALSE(m[2].bench);
  CHECK_THAT(m[2].reason, Catch::Contains("pipeline parallelism (2 stages)"));
  CHECK_THAT(m[2].reason, Catch::Contains("pipeline_microbatches"));
  CHECK_FALSE(m[3].bench);
  CHECK_THAT(m[3].reason, Catch::Contains("pp 96: expected at most the model's 80 layers"));
  CHECK_FALSE(m[4].bench);
  CHECK_THAT(m[4].reason, Catch::Contains("on a static-batch row is not modelled"));
}

TEST_CASE("max-rate rows: a Poisson run with at least one limit, the stated rate not needed",
          "[unit]") {
  const std::string head =
      "id,source,hardware,hw_count,mem_bw_gbs,model,params_b,precision,input_len,output_len,"
      "batch,metric,value,unit,stack,notes,tp,serving_mode,request_rate,ttft_p99_limit_s,"
      "tpot_p99_limit_s\n";
  const std::string row =
      "x,h100-sxm,8,,llama-2-70b,,FP8,300,290,,max_rate_output_tokens_per_s,"
      "21605,tokens/s,TensorRT-LLM,,2,";
  const std::string path = infercap::testing::tmp_path("infercap-test-mlperf-max-rate.csv");
  {
    std::ofstream f(path);
    f << head << "R-1," << row << "rate,,2,0.2\n"  // no rate: searched
      << "R-2," << row << "rate,75.1,,0.2\n"       // a TPOT limit alone is enough
      << "R-3," << row << "rate,75.1,,\n"          // no limit: nothing to search for
      << "R-4," << row << "offline,,2,0.2\n";      // not a Poisson run
  }
  spec::Diagnostics d;
  const auto catalog = spec::Catalog::load(INFERCAP_SOURCE_DIR "/data", d);
  const auto rows = cli::read_measurements(path, d);
  std::remove(path.c_str());
  REQUIRE_FALSE(d.has_errors());
  const auto m = cli::map_measurements(rows, catalog);
  REQUIRE(m.size() == 4);
  REQUIRE(m[0].bench);
  CHECK(m[0].bench->metric == BenchMetric::serving_max_rate_output_tokens_per_s);
  CHECK(m[0].bench->ttft_p99_limit_s == 2);
  CHECK(m[0].bench->tpot_p99_limit_s == 0.2);
  REQUIRE(m[1].bench);
  CHECK(m[1].bench->ttft_p99_limit_s == 0);
  CHECK_FALSE(m[2].bench);
  CHECK_THAT(m[2].reason, Catch::Contains("needs ttft_p99_limit_s or tpot_p99_limit_s"));
  CHECK_FALSE(m[3].bench);
  CHECK_THAT(m[3].reason, Catch::Contains("expected serving_mode rate"));
}

TEST_CASE("prompt points reach the simulator: alone, each request is its own length", "[model]") {
  // At a vanishing rate (one request every 100 s) no two requests overlap, so each one's TTFT
  // and TPOT are those of its own prompt length served alone: with points {100, 900} the TTFT
  // P99 is the 900-token run's TTFT (half the requests, well above the 99th percentile) and the
  // mean is their average up to the binomial share of
  // each length among the simulated requests (10 x the 256-sequence batch cap = 2560, the
  // defaults' 1500 at least: standard deviation sqrt(0.25 / 2560) = 1.0% of the difference, so
  // 5% of the mean is far outside it).
  spec::Diagnostics d;
  const auto catalog = spec::Catalog::load(INFERCAP_SOURCE_DIR "/data", d);
  REQUIRE_FALSE(d.has_errors());
  const StackSpec* stack = catalog.find_stack("tensorrt-llm");
  REQUIRE(stack);
  BenchCase c;
  c.id = "P-8";
  c.model = *catalog.find_model("llama-2-70b");
  c.hardware = *catalog.find_hardware("h100-sxm");
  c.deployment.precision = {DType::fp8, DType::fp8, DType::fp8};
  c.deployment.tp = 2;
  c.serving = ServingMode::rate;
  c.request_rate_qps = 0.01;
  c.output_tokens = 32;
  auto at = [&](BenchMetric metric, double prompt, std::vector<double> points) {
    BenchCase k = c;
    k.metric = metric;
    k.prompt_tokens = prompt;
    k.prompt_len_points = std::move(points);
    auto v = predict_case(k, *stack);
    REQUIRE(v);
    return *v;
  };
  const double t100 = at(BenchMetric::serving_ttft_mean_s, 100, {});
  const double t900 = at(BenchMetric::serving_ttft_mean_s, 900, {});
  REQUIRE(t900 > t100);  // a longer prompt takes longer to prefill
  CHECK(at(BenchMetric::serving_ttft_p99_s, 500, {100, 900}) == Approx(t900).epsilon(1e-3));
  CHECK(at(BenchMetric::serving_ttft_mean_s, 500, {100, 900}) ==
        Approx((t100 + t900) / 2).epsilon(0.05));
  // One point is one fixed length: the same run as without points, up to the arrival times
  // (the sampler's draws shift the random stream, and a request's TTFT depends a little on when
  // in a step it arrives: 0.03% here).
  CHECK(at(BenchMetric::serving_ttft_mean_s, 900, {900}) == Approx(t900).epsilon(1e-3));
}

TEST_CASE("the committed MLPerf rows map as their notes say", "[unit]") {
  // serving-mlperf.csv: the Llama 2 70B rows carry the dataset's 32 points (mean 222.3 within
  // half a token), 4 replicas of TP2 on 8 H100, the Offline rows the samples their runs generated
  // (the dataset's 24,576 repeated over 2400 s) and gpu_batch_size 896, the Server rows 1024
  // at 75.1 qps (8 TP1 H200s: 806 and 896), each with the FP8 KV cache its notes state; GPT-J stays
  // unpredicted for its 4 beams. The v5.0 file: H100 as TP1 x PP2 replicas, B200 as NVFP4 weights
  // and activations.
  spec::Diagnostics d;
  const auto catalog = spec::Catalog::load(INFERCAP_SOURCE_DIR "/data", d);
  const auto rows =
      cli::read_measurements(INFERCAP_SOURCE_DIR "/data/measurements/serving-mlperf.csv", d);
  const auto v5 = cli::read_measurements(
      INFERCAP_SOURCE_DIR "/data/measurements/serving-mlperf-v5-judge.csv", d);
  REQUIRE_FALSE(d.has_errors());
  std::map<std::string, cli::MappedRow> by_id;
  for (const auto* file : {&rows, &v5})
    for (const auto& m : cli::map_measurements(*file, catalog)) by_id.emplace(m.row.id, m);
  for (const char* id : {"MLP-004", "MLP-006", "MLP-012", "MLP5-001", "MLP5-005"}) {
    INFO(id);
    REQUIRE(by_id.count(id));
    REQUIRE(by_id.at(id).bench);
    CHECK(by_id.at(id).bench->prompt_len_points.size() == 32);
  }
  const BenchCase& off = *by_id.at("MLP-004").bench;
  CHECK(off.replicas == 4);
  CHECK(off.requests == 200640);  // the run's generated_samples_per_query, not the dataset's 24,576
  CHECK(off.max_seqs == 896);
  CHECK(off.deployment.precision.kv == DType::fp8);  // kv_precision: the README's quantisation
  const BenchCase& srv = *by_id.at("MLP-006").bench;
  CHECK(srv.request_rate_qps == 75.1);
  CHECK(srv.max_seqs == 1024);
  CHECK(by_id.at("MLP5-001").bench->replicas == 8);  // 8 x TP1
  CHECK_THAT(by_id.at("MLP-001").reason, Catch::Contains("beam search (4 beams)"));
  // v5.0 on 8 x H100: 4 replicas of TP1 x PP2 (TensorRT-LLM's pipeline micro-batches).
  for (const char* id : {"MLP5-003", "MLP5-004"}) {
    INFO(id);
    REQUIRE(by_id.at(id).bench);
    CHECK(by_id.at(id).bench->deployment.pp == 2);
    CHECK(by_id.at(id).bench->replicas == 4);
  }
  // v5.0 on B200: NVFP4 weights and activations (W4A4 on the fp4 roof), the FP8 KV as configured.
  REQUIRE(by_id.at("MLP5-007").bench);
  CHECK(by_id.at("MLP5-007").bench->deployment.precision.weights == DType::nvfp4);
  CHECK(by_id.at("MLP5-007").bench->deployment.precision.activations == DType::nvfp4);
  CHECK(by_id.at("MLP5-007").bench->deployment.precision.kv == DType::fp8);
  // v4.1's B200 preview: FP4 as reported, no KV format stated, so the 16-bit rule holds.
  REQUIRE(by_id.at("MLP-012").bench);
  CHECK(by_id.at("MLP-012").bench->deployment.precision.weights == DType::nvfp4);
  CHECK(by_id.at("MLP-012").bench->deployment.precision.activations == DType::nvfp4);
  CHECK(by_id.at("MLP-012").bench->deployment.precision.kv == DType::bf16);
  const BenchCase& max_rate = *by_id.at("MLP-013").bench;  // MLP-006's result, MLPerf's reading
  CHECK(max_rate.metric == BenchMetric::serving_max_rate_output_tokens_per_s);
  CHECK(max_rate.ttft_p99_limit_s == 2);
  CHECK(max_rate.tpot_p99_limit_s == 0.2);
  // v4.1 on 8 x H200: 8 replicas of TP1, Offline at gpu_batch_size 806, Server 896 at 101.25 qps.
  for (const char* id : {"MLP-014", "MLP-015", "MLP-018", "MLP-021"}) {
    INFO(id);
    REQUIRE(by_id.at(id).bench);
    CHECK(by_id.at(id).bench->replicas == 8);
    CHECK(by_id.at(id).bench->deployment.tp == 1);
    CHECK(by_id.at(id).bench->hardware.name == "h200");
  }
  CHECK(by_id.at("MLP-014").bench->max_seqs == 806);
  CHECK(by_id.at("MLP-015").bench->request_rate_qps == 101.25);
  CHECK(by_id.at("MLP-018").bench->max_seqs == 896);
  CHECK(by_id.at("MLP-018").bench->deployment.precision.kv == DType::fp8);
  CHECK(by_id.at("MLP-018").bench->metric == BenchMetric::serving_tpot_mean_s);
  CHECK(by_id.at("MLP-018").bench->measured == Approx(0.123263268));  // ms in the file
  REQUIRE(by_id.at("MLP5-002").bench);  // v5.0 Server: no rate stated, the search finds one
  CHECK(by_id.at("MLP5-002").bench->request_rate_qps == 0);
  // v5.0 Server latencies from the runs' own log summaries: ms in the file, seconds in the case,
  // the P99 limits kept (read at the model's highest rate within them), the run's own output
  // mean (33,071.46 / 113.04 = 292.6 tokens), and H100's 4 x TP1 x PP2 at 1024 per micro-batch.
  const BenchCase& v5_tpot = *by_id.at("MLP5-011").bench;
  CHECK(v5_tpot.metric == BenchMetric::serving_tpot_mean_s);
  CHECK(v5_tpot.measured == Approx(0.169962807));
  CHECK(v5_tpot.output_tokens == Approx(33071.46 / 113.04).epsilon(1e-3));
  CHECK(v5_tpot.replicas == 8);
  CHECK(v5_tpot.ttft_p99_limit_s == 2);
  CHECK(v5_tpot.tpot_p99_limit_s == 0.2);
  const BenchCase& v5_h100 = *by_id.at("MLP5-016").bench;
  CHECK(v5_h100.deployment.pp == 2);
  CHECK(v5_h100.replicas == 4);
  CHECK(v5_h100.max_seqs == 1024);
  CHECK(by_id.at("MLP5-004").bench->max_seqs == 1024);
  CHECK(by_id.at("MLP5-030").bench->deployment.precision.weights == DType::nvfp4);
  // Each configuration class's max_num_tokens reaches the case; a row that states none keeps 0.
  CHECK(v5_tpot.max_batched_tokens == 1536);
  CHECK(v5_h100.max_batched_tokens == 1024);
  CHECK(by_id.at("MLP5-030").bench->max_batched_tokens == 3584);
  CHECK(by_id.at("MLP-006").bench->max_batched_tokens == 4096);
  CHECK(by_id.at("MLP-012").bench->max_batched_tokens == 0);
  // v4.1's harness runs MAX_UTILIZATION (admission on the prompt), which the rows state; so do
  // the v5.0 rows, inferred from their own logs (next test case).
  CHECK_FALSE(by_id.at("MLP-006").bench->reserve_full_sequence);
  CHECK_FALSE(by_id.at("MLP-014").bench->reserve_full_sequence);
  for (const auto& m : cli::map_measurements(v5, catalog)) {
    INFO(m.row.id);
    REQUIRE(m.bench);
    CHECK_FALSE(m.bench->reserve_full_sequence);
  }
  // Every Server (rate) row states its run's length, the summary's min_duration: 2400 s for
  // Llama 2 70B, 3600 s in NVIDIA's v5.0 H100 runs, 600 s for v3.1's GPT-J; Offline rows none.
  for (const auto* file : {&rows, &v5}) {
    for (const auto& r : *file) {
      INFO(r.id);
      if (r.serving_mode != "rate") {
        CHECK(r.duration_s == 0);
        continue;
      }
      const bool gptj = r.model == "gpt-j-6b";
      const bool v5_on_h100 = r.id.rfind("MLP5-", 0) == 0 && r.hardware == "h100-sxm";
      CHECK(r.duration_s == (gptj ? 600 : v5_on_h100 ? 3600 : 2400));
    }
  }
}

TEST_CASE("MLPerf v5.0 Server: more sequences in flight than whole-request reservations allow",
          "[model]") {
  // Why the v5.0 rows state prompt admission. GUARANTEED_NO_EVICT admits a request only with KV
  // for its prompt plus its maximum output (1024 tokens in the benchmark) reserved, so a replica
  // holds at most floor(KV tokens / (mean prompt + 1024)) sequences; Little's law on each
  // Server log (in flight = scheduled samples/s per replica x mean latency) holds about twice
  // that, which only admission on the prompt (MAX_UTILIZATION) allows.
  REQUIRE_FALSE(test::project_catalog().diags.has_errors());
  const spec::Catalog& catalog = test::project_catalog().catalog;
  spec::Diagnostics d;
  const auto v5 = cli::read_measurements(
      INFERCAP_SOURCE_DIR "/data/measurements/serving-mlperf-v5-judge.csv", d);
  REQUIRE_FALSE(d.has_errors());
  const StackSpec* stack = catalog.find_stack("tensorrt-llm");
  REQUIRE(stack);
  int checked = 0;
  for (const auto& m : cli::map_measurements(v5, catalog)) {
    if (!m.bench || m.bench->metric != BenchMetric::serving_e2e_mean_s) continue;
    const BenchCase& c = *m.bench;
    INFO(c.id);
    auto perf = PerfModel::create(c.model, c.hardware, *stack, c.deployment);
    REQUIRE(perf);
    const PerfStepModel step(*perf, static_cast<double>(c.max_batched_tokens));
    const double reserved_max = std::floor(step.kv_capacity_tokens() / (c.prompt_tokens + 1024));
    const double in_flight = c.request_rate_qps / c.replicas * c.measured;
    CHECK(in_flight > 1.5 * reserved_max);
    // H200 x8: 114.56 / 8 x 49.879 s = 714 a GPU.
    if (c.id == "MLP5-013") CHECK(in_flight == Approx(114.56 / 8 * 49.87918926));
    ++checked;
  }
  CHECK(checked == 5);  // H200 x8, H100 4 x PP2, GH200, B200, B200 x8
}

TEST_CASE("max_num_tokens: a step budget below the batch limit caps the sequences at once",
          "[model]") {
  // TensorRT-LLM schedules every step within max_num_tokens, decodes included, so a budget of T
  // tokens lets at most T sequences decode together: (max_seqs 64, budget 16) is the engine
  // (max_seqs 16, budget 16), and both carry less than 64 sequences without a budget would.
  REQUIRE_FALSE(test::project_catalog().diags.has_errors());
  const spec::Catalog& catalog = test::project_catalog().catalog;
  const StackSpec* stack = catalog.find_stack("vllm");
  REQUIRE(stack);
  BenchCase c;
  c.id = "B-1";
  c.model = *catalog.find_model("llama-3.1-8b");
  c.hardware = *catalog.find_hardware("h100-sxm");
  c.serving = ServingMode::concurrency;
  c.metric = BenchMetric::serving_output_tokens_per_s;
  c.batch = 64;
  c.prompt_tokens = 8;
  c.output_tokens = 256;
  auto run = [&](int max_seqs, int budget) {
    BenchCase k = c;
    k.max_seqs = max_seqs;
    k.max_batched_tokens = budget;
    auto r = predict_case(k, *stack);
    REQUIRE(r);
    return *r;
  };
  const double capped = run(64, 16);
  CHECK(capped == Approx(run(16, 16)).epsilon(1e-12));
  CHECK(capped < run(64, 0));
  // A budget above the batch limit changes nothing the 8-token prompts notice.
  CHECK(run(64, 4096) == Approx(run(64, 0)).epsilon(0.02));
}

TEST_CASE("max-rate rows: the search keeps its limits and scales with replicas", "[model]") {
  // Identities of MLPerf Server's reading (the largest Poisson rate within P99 limits, its
  // output tokens/s): a looser limit never gives less; two replicas take twice the rate at the
  // same per-replica latencies, so exactly twice the tokens/s (the same seeded runs). With one
  // output length L the answer is R x L for the rate R found (a stable run completes what
  // arrives), so R = answer / L: at R / 2 both limits hold, at 2 R one breaks (the search stopped
  // below it). A TTFT limit below one prefill alone is met by no rate: an error.
  spec::Diagnostics d;
  const auto catalog = spec::Catalog::load(INFERCAP_SOURCE_DIR "/data", d);
  REQUIRE_FALSE(d.has_errors());
  const StackSpec* stack = catalog.find_stack("tensorrt-llm");
  REQUIRE(stack);
  BenchCase c;
  c.id = "P-9";
  c.model = *catalog.find_model("llama-2-70b");
  c.hardware = *catalog.find_hardware("h200");
  c.deployment.precision = {DType::fp8, DType::fp8, DType::fp8};
  c.serving = ServingMode::rate;
  c.metric = BenchMetric::serving_max_rate_output_tokens_per_s;
  c.prompt_tokens = 500;
  c.output_tokens = 200;
  c.max_seqs = 256;
  c.reserve_full_sequence = true;
  c.tpot_p99_limit_s = 0.2;
  auto at = [&](double ttft_limit_s, int replicas) {
    BenchCase k = c;
    k.ttft_p99_limit_s = ttft_limit_s;
    k.replicas = replicas;
    return predict_case(k, *stack);
  };
  auto tight = at(0.5, 1), loose = at(2, 1), two = at(2, 2);
  REQUIRE(tight);
  REQUIRE(loose);
  REQUIRE(two);
  CHECK(*loose >= *tight);
  CHECK(*two == Approx(2 * *loose).epsilon(1e-12));
  const double rate = *loose / c.output_tokens;
  auto fixed = [&](BenchMetric metric, double qps) {
    BenchCase k = c;
    k.metric = metric;
    k.request_rate_qps = qps;
    k.ttft_p99_limit_s = k.tpot_p99_limit_s = 0;  // a fixed-rate row states no limits
    auto v = predict_case(k, *stack);
    REQUIRE(v);
    return *v;
  };
  CHECK(fixed(BenchMetric::serving_ttft_p99_s, rate / 2) <= 2);
  CHECK(fixed(BenchMetric::serving_tpot_p99_s, rate / 2) <= 0.2);
  CHECK((fixed(BenchMetric::serving_ttft_p99_s, 2 * rate) > 2 ||
         fixed(BenchMetric::serving_tpot_p99_s, 2 * rate) > 0.2));
  // A latency row that states the limits was measured at the highest rate within them (MLPerf
  // Server): it reads the run at the rate the search found, R = answer / L, the same run a
  // fixed-rate row at R makes (same seed, same requests; the search builds its step table once
  // and a fixed-rate run its own, and their cells differ slightly: 1e-3).
  {
    BenchCase k = c;
    k.ttft_p99_limit_s = 2;
    k.metric = BenchMetric::serving_tpot_p99_s;
    k.request_rate_qps = 1;  // the submitter's rate: not used
    auto v = predict_case(k, *stack);
    REQUIRE(v);
    CHECK(*v <= 0.2);
    CHECK(*v == Approx(fixed(BenchMetric::serving_tpot_p99_s, rate)).epsilon(1e-3));
  }
  auto floor = at(1e-6, 1);
  REQUIRE_FALSE(floor);
  CHECK_THAT(floor.error().message, Catch::Contains("keeps the P99 limits"));
  BenchCase none = c;
  none.tpot_p99_limit_s = 0;
  auto no_limit = predict_case(none, *stack);
  REQUIRE_FALSE(no_limit);
  CHECK_THAT(no_limit.error().message, Catch::Contains("needs a TTFT or TPOT P99 limit"));
}
