// Importers (issue 5): NPU measurement files into the calibration fit, llama-bench / vLLM results
// into BenchCases and the stack fit. Sample files in tests/data/import/ are synthetic (README).
#include <unistd.h>
#include <catch2/catch.hpp>
#include <cmath>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "calibrate_import.hpp"
#include "infercap/calibration/measurement_import.hpp"
#include "infercap/spec/catalog.hpp"
#include "infercap/spec/profile_io.hpp"

using namespace infercap;
using namespace infercap::calibration;
using infercap::cli::BenchImportOptions;

namespace {

const std::string kImportDir = std::string(INFERCAP_TEST_DATA_DIR) + "/import/";

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const spec::Catalog& catalog() {
  static const spec::Catalog c = [] {
    spec::Diagnostics d;
    return spec::Catalog::load(std::string(INFERCAP_SOURCE_DIR) + "/data", d);
  }();
  return c;
}

// The sample JSON's single-GPU rows, plus pp1024/tg256 variants, each measured as `truth`
// predicts it.
std::vector<BenchCase> cases_predicted_by(const StackSpec& truth) {
  auto first = cli::parse_llama_bench_json(read_text(kImportDir + "llama-bench.json"), "lb.json",
                                           {}, catalog());
  REQUIRE(first);
  std::vector<BenchCase> cases;
  for (const auto& m : cli::map_imported(*first, catalog())) {
    if (!m.bench || m.row.hw_count != 1) continue;
    for (double scale : {1.0, 2.0}) {
      BenchCase c = *m.bench;
      (c.metric == BenchMetric::prefill_tokens_per_s ? c.prompt_tokens : c.output_tokens) *= scale;
      auto p = predict_case(c, truth);
      REQUIRE(p);
      c.measured = *p;
      cases.push_back(c);
    }
  }
  return cases;
}

}  // namespace

// ---- NPU / profiler measurement import ----------------------------------------------------------

TEST_CASE("matmul bytes and FLOPs of an imported row follow the stated formula", "[calib]") {
  // 4096 x 4096 bf16 weights (2 B) + bf16 activations in (1 x 4096) and out (1 x 4096).
  CHECK(matmul_bytes(DType::bf16, 1, 4096, 4096) == 4096.0 * 4096 * 2 + 2 * (4096 + 4096));
  // int4: the catalog's bits per element (block scales included) / 8 per weight.
  CHECK(matmul_bytes(DType::int4, 2, 256, 128) ==
        256.0 * 128 * bits_per_element(DType::int4) / 8 + 2 * (2 * 128 + 2 * 256));
  CHECK(matmul_flops(8, 16, 32) == 2.0 * 8 * 16 * 32);
}

TEST_CASE("measurement CSV: header keys, units turned into times, samples", "[calib]") {
  auto r = read_measurement_file(kImportDir + "npu-measurements.csv");
  REQUIRE(r);
  CHECK(r->hardware == "ascend-910b");
  CHECK(r->cache_bytes == 201326592.0);
  CHECK(r->provenance.date == "2026-11-29");
  REQUIRE(r->rows.size() == 7);
  const auto& read = r->rows[0];
  CHECK(read.kind == KernelKind::stream_read);
  CHECK(read.bytes_per_call == 4294967296.0);
  CHECK(read.median_s == Approx(4294967296.0 / 1.2e12));  // 1.2 TB/s over 4 GiB
  const auto& sampled = r->rows[1];
  CHECK(sampled.median_s == Approx(0.0036));  // median of 0.0035, 0.0036, 0.0037
  CHECK(sampled.reps == 3);
  CHECK(sampled.spread == Approx((0.0037 - 0.0035) / 0.0036));
  CHECK(r->rows[2].kind == KernelKind::stream_copy);
  CHECK(r->rows[2].median_s == Approx(7.5e-3));
  const auto& gemv = r->rows[3];
  CHECK(gemv.kind == KernelKind::gemv);
  CHECK(gemv.weights == DType::bf16);
  CHECK(gemv.compute == ComputeType::bf16);
  CHECK(gemv.bytes_per_call == matmul_bytes(DType::bf16, 1, 14336, 4096));
  CHECK(gemv.median_s == Approx(gemv.bytes_per_call / 1.0e12));
  CHECK(r->rows[4].median_s == Approx(100e-6));
  const auto& gemm = r->rows[5];
  CHECK(gemm.flops_per_call == 2.0 * 8192 * 8192 * 8192);
  CHECK(gemm.median_s == Approx(gemm.flops_per_call / 200e12));
  CHECK(r->rows[6].kind == KernelKind::call_overhead);
  CHECK(r->rows[6].median_s == Approx(12e-6));
  CHECK(r->sources[0] == "synthetic");
}

TEST_CASE("imported rows fit into a profile with the stated figures", "[calib]") {
  auto r = read_measurement_file(kImportDir + "npu-measurements.csv");
  REQUIRE(r);
  auto fit = fit_imported(*r);
  REQUIRE(fit);
  const auto& p = fit->profile;
  CHECK(p.backend == "import");
  CHECK(p.hardware == "ascend-910b");
  // A device has no thread axis: the bandwidth is the mean rate over the read samples,
  // (1.2e12 + three sampled rates) / 4, and at(1 thread) is the same figure.
  const double b = 4294967296.0;
  const double mean = (1.2e12 + b / 0.0035 + b / 0.0036 + b / 0.0037) / 4;
  CHECK(p.bandwidth.asymptote_bytes_per_s == Approx(mean).epsilon(1e-9));
  CHECK(p.bandwidth.at(1) == Approx(mean).epsilon(1e-9));
  CHECK(p.bandwidth.ci95_low_bytes_per_s < mean);
  CHECK(p.bandwidth.ci95_high_bytes_per_s > mean);
  CHECK(at(p.achieved_flops_per_s, ComputeType::fp16) == Approx(200e12));
  // GEMV rows above the 192 MiB cache count: int8 28672 x 8192 (235 MB) does; bf16 14336 x 4096
  // (117 MB) is below 0.9 x cache and is not a memory-streaming figure.
  CHECK(at(p.gemv_bandwidth_bytes_per_s, ComputeType::int8) ==
        Approx(matmul_bytes(DType::int8, 1, 28672, 8192) / 100e-6));
  CHECK(at(p.gemv_bandwidth_bytes_per_s, ComputeType::bf16) == 0);
  CHECK(p.kernel_overhead_s == Approx(12e-6));
}

TEST_CASE("copy rows stand in for read bandwidth, with a note", "[calib]") {
  const std::string csv =
      "kind,bytes,value,unit,source\n"
      "copy,1e9,2,ms,vendor profiler run 1\n"
      "copy,1e9,2,ms,vendor profiler run 2\n";
  auto r = parse_measurement_csv(csv, "mem.csv");
  REQUIRE(r);
  auto fit = fit_imported(*r);
  REQUIRE(fit);
  CHECK(fit->profile.bandwidth.asymptote_bytes_per_s == Approx(0.5e12));  // 1e9 B / 2 ms
  bool noted = false;
  for (const auto& n : fit->notes) noted = noted || n.find("from copy rows") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("imports of one device from several tools merge, the fastest kernel's figures kept",
          "[calib]") {
  // a.csv: our kernels, read 1e9 B in 1 ms (1 TB/s), GEMV bf16. b.csv: a library, read at
  // 1e9 B / 0.5 ms = 2 TB/s, a GEMM, and a cache-resident read (1 MB < 50 MB cache) that is not a
  // memory stream and stays whichever file streams fastest.
  auto a = parse_measurement_csv(
      "# hardware: h200\n# cache_bytes: 5e7\n# machine: GPU A\n# date: 2026-11-30\n"
      "kind,dtype,m,n,k,bytes,value,unit,source\n"
      "read,,,,,1e9,1,ms,ours\n"
      "gemv,bf16,1,14336,4096,1.2e8,40,us,ours\n",
      "a.csv");
  auto b = parse_measurement_csv(
      "# hardware: H200\n# machine: GPU B\n# date: 2026-11-30\n"
      "kind,dtype,m,n,k,bytes,value,unit,source\n"
      "read,,,,,1e9,0.5,ms,library\n"
      "read,,,,,1e6,0.1,us,library\n"
      "gemm,bf16,8192,8192,8192,,1.5,ms,library\n",
      "b.csv");
  REQUIRE(a);
  REQUIRE(b);
  std::vector<std::string> notes;
  auto m = merge_measurements({*a, *b}, {"a.csv", "b.csv"}, &notes);
  REQUIRE(m);
  CHECK(m->hardware == "h200");
  CHECK(m->cache_bytes == 5e7);
  // a's stream row dropped: 1 (a's GEMV) + 3 (b's rows).
  REQUIRE(m->rows.size() == 4);
  REQUIRE(m->sources.size() == 4);
  CHECK(m->sources[0] == "ours");
  CHECK(m->provenance.machine == "GPU A + GPU B");
  CHECK(m->provenance.date == "2026-11-30");  // equal values are not repeated
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("read rows kept from b.csv only") != std::string::npos);
  auto fit = fit_imported(*m);
  REQUIRE(fit);
  CHECK(fit->profile.bandwidth.asymptote_bytes_per_s == Approx(2e12));
  CHECK(at(fit->profile.gemv_bandwidth_bytes_per_s, ComputeType::bf16) == Approx(1.2e8 / 40e-6));
  CHECK(at(fit->profile.achieved_flops_per_s, ComputeType::bf16) ==
        Approx(2.0 * 8192 * 8192 * 8192 / 1.5e-3));

  auto c = parse_measurement_csv(
      "# hardware: h100-sxm\nkind,bytes,value,unit,source\n"
      "read,1e9,1,ms,x\n",
      "c.csv");
  REQUIRE(c);
  auto bad = merge_measurements({*a, *c}, {"a.csv", "c.csv"}, nullptr);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message ==
        "a.csv measures 'h200' but c.csv measures 'h100-sxm': one profile describes one device");
}

TEST_CASE("measurement import rejects bad rows with the place and the reason", "[calib]") {
  auto err = [](const std::string& csv) {
    auto r = parse_measurement_csv(csv, "x.csv");
    REQUIRE_FALSE(r);
    return r.error().message;
  };
  CHECK_THAT(err("kind,value,unit,source\nsum,1,s,a\n"),
             Catch::Contains("x.csv:2:1: kind: expected read, copy"));
  CHECK_THAT(err("kind,bytes,value,unit,source\nread,100,1,s,\n"),
             Catch::Contains("every row needs its source"));
  CHECK_THAT(err("kind,bytes,value,unit,source\nread,100,1,furlongs,a\n"),
             Catch::Contains("unit: expected s, ms"));
  CHECK_THAT(err("kind,dtype,m,n,k,value,unit,source\ngemv,bf16,512,64,64,1,s,a\n"),
             Catch::Contains("decode-shaped"));
  CHECK_THAT(err("kind,dtype,m,n,k,value,unit,source\ngemm,bf17,64,64,64,1,s,a\n"),
             Catch::Contains("unknown weight format 'bf17'"));
  CHECK_THAT(err("kind,value,unit,source\nlaunch,1,TFLOP/s,a\n"),
             Catch::Contains("a FLOP rate needs a gemv or gemm row"));
  CHECK_THAT(err("kind,value,unit,source,colour\nlaunch,1,us,a,red\n"),
             Catch::Contains("unknown column 'colour'"));
  CHECK_THAT(err("kind,value,unit\nlaunch,1,us\n"), Catch::Contains("needs a 'source' column"));
  CHECK_THAT(err("# wattage: 3\nkind,value,unit,source\nlaunch,1,us,a\n"),
             Catch::Contains("unknown header key 'wattage'"));
  // No read or copy row: the profile has no memory bandwidth and is not written.
  auto r = parse_measurement_csv("kind,value,unit,source\nlaunch,1,us,a\nlaunch,1,us,b\n", "l.csv");
  REQUIRE(r);
  CHECK_FALSE(fit_imported(*r));
}

TEST_CASE("measurement YAML and the worked Ascend example", "[calib]") {
  const std::string yaml = R"(kind: calibration-measurements
schema_version: 1
hardware: gaudi2
cache_bytes: 50331648
provenance: {machine: "test card", date: "2026-11-29"}
measurements:
  - {kind: read, bytes: 2147483648, value: 2.0, unit: TB/s, source: "profiler"}
  - {kind: gemm, dtype: bf16, m: 4096, n: 4096, k: 4096, value: 1, unit: ms, source: "profiler"}
  - {kind: launch, samples: [1.0e-5, 1.2e-5, 1.1e-5], source: "profiler"}
)";
  auto r = parse_measurement_yaml(yaml, "m.yaml");
  REQUIRE(r);
  CHECK(r->hardware == "gaudi2");
  CHECK(r->provenance.machine == "test card");
  REQUIRE(r->rows.size() == 3);
  CHECK(r->rows[1].flops_per_call == 2.0 * 4096 * 4096 * 4096);
  CHECK(r->rows[2].median_s == Approx(1.1e-5));
  auto fit = fit_imported(*r);
  REQUIRE(fit);
  CHECK(at(fit->profile.achieved_flops_per_s, ComputeType::bf16) ==
        Approx(2.0 * 4096 * 4096 * 4096 / 1e-3));
  CHECK_FALSE(parse_measurement_yaml("kind: profile\n", "k.yaml"));

  // The committed worked example reads and fits (its figures are published ones, see the file).
  auto ex = read_measurement_file(std::string(INFERCAP_SOURCE_DIR) +
                                  "/data/calibration/imports/ascend-910-published.yaml");
  REQUIRE(ex);
  CHECK(ex->rows.size() >= 3);
  for (const auto& s : ex->sources) CHECK(s.size() > 20);  // every row names where it is from
  CHECK(fit_imported(*ex));
}

// ---- llama-bench and vLLM importers ------------------------------------------------------------

TEST_CASE("llama-bench JSON: rows, hardware and model from the catalog's aliases", "[calib]") {
  auto r = cli::parse_llama_bench_json(read_text(kImportDir + "llama-bench.json"), "lb.json", {},
                                       catalog());
  REQUIRE(r);
  CHECK(r->format == "llama-bench-json");
  REQUIRE(r->rows.size() == 5);  // the pp512+tg128 result is skipped
  REQUIRE(r->notes.size() == 1);
  CHECK_THAT(r->notes[0], Catch::Contains("pp512+tg128 mixes prefill and decode"));
  const auto& pp = r->rows[0];
  CHECK(pp.hardware == "rtx-4090");
  CHECK(pp.hw_count == 1);
  CHECK(pp.model == "llama-3-8b");
  CHECK(pp.precision == "Q4_K_M");
  CHECK(pp.metric == "prefill_throughput_pp512");
  CHECK(pp.value == 6451.2);
  CHECK(pp.input_len == 512);
  CHECK_THAT(pp.stack, Catch::Contains("llama.cpp") && Catch::Contains("CUDA"));
  CHECK(r->rows[1].metric == "decode_throughput_tg128");
  CHECK(r->rows[1].value == 130.0);
  CHECK(r->rows[2].precision == "F16");
  CHECK(r->rows[4].hw_count == 2);  // "NVIDIA GeForce RTX 4090, NVIDIA GeForce RTX 4090"
  CHECK(r->rows[4].model == "llama-3-70b");
  auto mapped = cli::map_imported(*r, catalog());
  REQUIRE(mapped.size() == 5);
  for (const auto& m : mapped) {
    REQUIRE(m.bench);
    CHECK(m.stack_name == "llama.cpp");
  }
  CHECK(mapped[0].bench->deployment.precision.weights == DType::q4_k_m);
  CHECK(mapped[4].bench->deployment.pp == 2);  // llama.cpp splits layers across the cards
}

TEST_CASE("llama-bench CSV reads the same numbers as JSON", "[calib]") {
  auto csv = cli::parse_llama_bench_csv(read_text(kImportDir + "llama-bench.csv"), "lb.csv", {},
                                        catalog());
  auto json = cli::parse_llama_bench_json(read_text(kImportDir + "llama-bench.json"), "lb.json", {},
                                          catalog());
  REQUIRE(csv);
  REQUIRE(json);
  REQUIRE(csv->rows.size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    CHECK(csv->rows[i].metric == json->rows[i].metric);
    CHECK(csv->rows[i].value == json->rows[i].value);
    CHECK(csv->rows[i].hardware == json->rows[i].hardware);
    CHECK(csv->rows[i].model == json->rows[i].model);
    CHECK(csv->rows[i].precision == json->rows[i].precision);
  }
}

TEST_CASE("llama-bench import: flags override, unknown names are errors that say what to pass",
          "[calib]") {
  BenchImportOptions o;
  o.hardware = "rtx-3090";
  o.model = "llama-3.1-8b";
  auto r = cli::parse_llama_bench_json(read_text(kImportDir + "llama-bench.json"), "lb.json", o,
                                       catalog());
  REQUIRE(r);
  CHECK(r->rows[0].hardware == "rtx-3090");
  CHECK(r->rows[0].model == "llama-3.1-8b");
  const std::string unknown_gpu = R"([{"gpu_info": "Imaginary GPU 9000", "n_gpu_layers": 99,
    "model_filename": "Meta-Llama-3-8B.gguf", "model_type": "llama 8B F16", "n_prompt": 512,
    "n_gen": 0, "avg_ts": 100}])";
  auto e = cli::parse_llama_bench_json(unknown_gpu, "u.json", {}, catalog());
  REQUIRE_FALSE(e);
  CHECK_THAT(e.error().message,
             Catch::Contains("Imaginary GPU 9000") && Catch::Contains("pass --hardware"));
  const std::string unknown_model = R"([{"gpu_info": "NVIDIA GeForce RTX 4090", "n_gpu_layers": 99,
    "model_filename": "mystery.gguf", "model_type": "llama ?B F16", "n_prompt": 512, "n_gen": 0,
    "avg_ts": 100}])";
  auto m = cli::parse_llama_bench_json(unknown_model, "m.json", {}, catalog());
  REQUIRE_FALSE(m);
  CHECK_THAT(m.error().message, Catch::Contains("pass --model"));
  // Token counts name the metric (tg<N>): a count beyond 1e9 or a fraction is refused with the
  // key, not cast to an integer (fuzz_import found n_gen 1.28e91 in a CSV, a UBSan finding).
  for (const char* bad : {"1e91", "12.5", "-1"}) {
    const std::string j = std::string(
                              R"([{"gpu_info": "NVIDIA GeForce RTX 4090", "n_gpu_layers": 99,
      "model_filename": "Meta-Llama-3-8B.gguf", "model_type": "llama 8B F16", "n_prompt": 0,
      "n_gen": )") + bad + R"(, "avg_ts": 100}])";
    auto t = cli::parse_llama_bench_json(j, "t.json", {}, catalog());
    INFO(bad);
    REQUIRE_FALSE(t);
    CHECK_THAT(t.error().message, Catch::Contains("t.json: result 1: n_gen: expected a whole "
                                                  "number of tokens from 0 to 1e9"));
  }
  CHECK_FALSE(cli::parse_llama_bench_json("{\"a\": 1}", "o.json", {}, catalog()));
  CHECK_FALSE(cli::parse_llama_bench_csv("a,b\n1,2\n", "x.csv", {}, catalog()));
}

TEST_CASE("vLLM benchmark_serving: TTFT only at concurrency 1, TPOT as a decode batch", "[calib]") {
  BenchImportOptions o;
  o.hardware = "h100-sxm";
  auto c1 =
      cli::parse_vllm_json(read_text(kImportDir + "vllm-serving-c1.json"), "c1.json", o, catalog());
  REQUIRE(c1);
  CHECK(c1->format == "vllm-serving");
  REQUIRE(c1->rows.size() == 2);
  CHECK(c1->rows[0].metric == "ttft");
  CHECK(c1->rows[0].value == 40.5);
  CHECK(c1->rows[0].unit == "ms");
  CHECK(c1->rows[0].input_len == 1024);  // 102400 input tokens / 100 requests
  CHECK(c1->rows[0].model == "llama-3-8b");
  CHECK(c1->rows[1].metric == "decode_tokens_per_s");
  CHECK(c1->rows[1].value == Approx(1000.0 / 9.6));
  CHECK(c1->rows[1].batch == 1);
  CHECK(c1->rows[1].output_len == 256);
  auto c8 =
      cli::parse_vllm_json(read_text(kImportDir + "vllm-serving-c8.json"), "c8.json", o, catalog());
  REQUIRE(c8);
  REQUIRE(c8->rows.size() == 1);
  CHECK(c8->rows[0].batch == 8);
  CHECK(c8->rows[0].value == Approx(1000.0 / 11.25));
  CHECK_THAT(c8->notes.at(0), Catch::Contains("TTFT skipped"));
  o.devices = 2;
  auto tp =
      cli::parse_vllm_json(read_text(kImportDir + "vllm-serving-c1.json"), "c1.json", o, catalog());
  REQUIRE(tp);
  auto mapped = cli::map_imported(*tp, catalog());
  REQUIRE(mapped[0].bench);
  CHECK(mapped[0].bench->deployment.tp == 2);  // vLLM shards tensors, not layers
  CHECK(mapped[0].bench->deployment.pp == 1);
  CHECK(mapped[0].bench->measured == Approx(0.0405));
  CHECK(mapped[0].stack_name == "vllm");
  BenchImportOptions none;
  CHECK_FALSE(cli::parse_vllm_json(read_text(kImportDir + "vllm-serving-c1.json"), "c1.json", none,
                                   catalog()));  // no --hardware
}

TEST_CASE("vLLM benchmark_latency needs its shape and output_len 1 is a prefill row", "[calib]") {
  BenchImportOptions o;
  o.hardware = "h100-sxm";
  o.model = "llama-3-8b";
  const std::string text = read_text(kImportDir + "vllm-latency.json");
  auto missing = cli::parse_vllm_json(text, "lat.json", o, catalog());
  REQUIRE_FALSE(missing);
  CHECK_THAT(missing.error().message, Catch::Contains("--input-len"));
  o.input_len = 1024;
  o.output_len = 1;
  o.batch = 4;
  auto r = cli::parse_vllm_json(text, "lat.json", o, catalog());
  REQUIRE(r);
  REQUIRE(r->rows.size() == 1);
  CHECK(r->rows[0].metric == "ttft");
  CHECK(r->rows[0].value == 0.1875);
  CHECK(r->rows[0].batch == 4);
  o.output_len = 128;
  auto mixed = cli::parse_vllm_json(text, "lat.json", o, catalog());
  REQUIRE_FALSE(mixed);
  CHECK_THAT(mixed.error().message, Catch::Contains("mixes prefill and decode"));
}

TEST_CASE("import_fit_params: what a file can determine, fewer parameters than rows", "[calib]") {
  BenchCase dec, pre_q, pre_n;
  dec.metric = BenchMetric::generation_tokens_per_s;
  pre_q.metric = BenchMetric::prefill_tokens_per_s;
  pre_q.deployment.precision.weights = DType::q4_k_m;
  pre_n.metric = BenchMetric::prefill_tokens_per_s;
  pre_n.deployment.precision.weights = DType::fp16;
  using P = std::vector<StackParam>;
  CHECK(cli::import_fit_params({dec}).empty());  // one row determines nothing
  CHECK(cli::import_fit_params({dec, dec}) == P{StackParam::weight_bandwidth_fraction});
  CHECK(cli::import_fit_params({dec, pre_q, pre_n}) ==
        P{StackParam::weight_bandwidth_fraction, StackParam::gemm_compute_fraction});
  CHECK(cli::import_fit_params({dec, dec, dec, pre_q, pre_n}) ==
        P{StackParam::weight_bandwidth_fraction, StackParam::gemm_compute_fraction,
          StackParam::quantised_gemm_compute_fraction, StackParam::step_overhead_s});
}

TEST_CASE("a fit on llama-bench rows generated from known stack parameters recovers them",
          "[calib]") {
  // Truth: the catalog's llama.cpp stack with the GPU efficiencies moved to known values. The
  // sample JSON's single-GPU rows are re-generated with the truth's predictions as avg_ts, plus
  // pp1024/tg256 variants, and the fit starts from the catalog stack.
  const StackSpec* base = catalog().find_stack("llama.cpp");
  REQUIRE(base != nullptr);
  // The optional mechanisms (issue-rate limit, power cap) are switched off in both the truth and
  // the start, so the four parameters each move the predictions and are identifiable.
  StackSpec start = *base;
  start.for_class(HwClass::gpu).issue_cycles_per_weight = 0;
  start.for_class(HwClass::gpu).quantised_issue_cycles_per_weight = 0;
  start.for_class(HwClass::gpu).flops_per_watt = 0;
  StackSpec truth = start;
  auto& e = truth.for_class(HwClass::gpu);
  e.weight_bandwidth_fraction = 0.71;
  e.gemm_compute_fraction = 0.42;
  e.quantised_gemm_compute_fraction = 0.27;
  e.step_overhead_s = 4e-4;

  const std::vector<BenchCase> cases = cases_predicted_by(truth);
  REQUIRE(cases.size() == 8);
  const auto params = cli::import_fit_params(cases);
  REQUIRE(params.size() == 4);
  auto fit = fit_stack(start, HwClass::gpu, cases, params);
  REQUIRE(fit);
  const auto& g = fit->stack.for_class(HwClass::gpu);
  CHECK(g.weight_bandwidth_fraction == Approx(0.71).epsilon(0.01));
  CHECK(g.gemm_compute_fraction == Approx(0.42).epsilon(0.01));
  CHECK(g.quantised_gemm_compute_fraction == Approx(0.27).epsilon(0.01));
  CHECK(g.step_overhead_s == Approx(4e-4).epsilon(0.02));
  CHECK(fit->rms_log_error_after < 1e-3);
  CHECK(fit->rms_log_error_before > fit->rms_log_error_after);
}

TEST_CASE("a fit that starts with fractions at their bound of 1 still finds them below it",
          "[calib]") {
  // The forward-difference step of a fraction at 1 is clamped back to 1, so its Jacobian column
  // read zero and the fit could never move it (the CPU stack's weight_bandwidth_fraction and
  // amx_dot_fraction sat at 1 so). Truth as in the recovery test above; the start has both GPU
  // fractions at exactly 1.
  const StackSpec* base = catalog().find_stack("llama.cpp");
  REQUIRE(base != nullptr);
  StackSpec start = *base;
  auto& s = start.for_class(HwClass::gpu);
  s.issue_cycles_per_weight = 0;
  s.quantised_issue_cycles_per_weight = 0;
  s.flops_per_watt = 0;
  StackSpec truth = start;
  truth.for_class(HwClass::gpu).weight_bandwidth_fraction = 0.64;
  truth.for_class(HwClass::gpu).gemm_compute_fraction = 0.38;
  s.weight_bandwidth_fraction = 1;
  s.gemm_compute_fraction = 1;
  std::vector<BenchCase> cases = cases_predicted_by(truth);
  const std::vector<StackParam> params{StackParam::weight_bandwidth_fraction,
                                       StackParam::gemm_compute_fraction};
  auto fit = fit_stack(start, HwClass::gpu, cases, params);
  REQUIRE(fit);
  CHECK(fit->stack.for_class(HwClass::gpu).weight_bandwidth_fraction == Approx(0.64).epsilon(0.01));
  CHECK(fit->stack.for_class(HwClass::gpu).gemm_compute_fraction == Approx(0.38).epsilon(0.01));
  CHECK(fit->rms_log_error_after < 1e-3);

  // Rows that want more than the whole bandwidth (decode measured 25% above a fraction of 1):
  // the fraction stays at its bound and the other parameter still fits.
  StackSpec full = truth;
  full.for_class(HwClass::gpu).weight_bandwidth_fraction = 1;
  for (auto& c : cases) {
    auto p = predict_case(c, full);
    REQUIRE(p);
    c.measured = *p * (c.metric == BenchMetric::prefill_tokens_per_s ? 1.0 : 1.25);
  }
  auto capped = fit_stack(start, HwClass::gpu, cases, params);
  REQUIRE(capped);
  CHECK(capped->stack.for_class(HwClass::gpu).weight_bandwidth_fraction == 1.0);
  CHECK(capped->stack.for_class(HwClass::gpu).gemm_compute_fraction == Approx(0.38).epsilon(0.02));
}

TEST_CASE("calibrate --from-benchmarks writes a stack YAML the catalog loads back", "[calib]") {
  cli::ImportArgs a;
  a.from_benchmarks = {kImportDir + "llama-bench.json"};
  const std::string tmp = (std::filesystem::temp_directory_path() /
                           ("infercap-import-stack-" + std::to_string(::getpid()) + ".yaml"))
                              .string();
  const int rc = cli::run_import(a, tmp, "", std::string(INFERCAP_SOURCE_DIR) + "/data");
  REQUIRE(rc == 0);
  spec::Diagnostics d;
  auto s = catalog().resolve_stack(tmp, d);
  REQUIRE(s);
  CHECK(s->name == "llama.cpp");
  bool has_fit_source = false;
  for (const auto& src : s->sources)
    has_fit_source = has_fit_source || src.ref.find(
                                           "fitted by `infercap calibrate "
                                           "--from-benchmarks") == 0;
  CHECK(has_fit_source);
  std::remove(tmp.c_str());
}

TEST_CASE("parameters no row responds to are not fitted", "[calib]") {
  const StackSpec* base = catalog().find_stack("llama.cpp");
  REQUIRE(base != nullptr);
  auto r = cli::parse_llama_bench_json(read_text(kImportDir + "llama-bench.json"), "lb.json", {},
                                       catalog());
  REQUIRE(r);
  std::vector<BenchCase> cases;
  for (const auto& m : cli::map_imported(*r, catalog()))
    if (m.bench) cases.push_back(*m.bench);
  // Only decode rows: the GEMM fractions cannot move any of them.
  std::vector<BenchCase> decode;
  for (const auto& c : cases)
    if (c.metric == BenchMetric::generation_tokens_per_s) decode.push_back(c);
  std::vector<std::string> dropped;
  const auto kept =
      cli::sensitive_params({StackParam::gemm_compute_fraction, StackParam::step_overhead_s}, *base,
                            HwClass::gpu, decode, &dropped);
  CHECK(kept == std::vector<StackParam>{StackParam::step_overhead_s});
  REQUIRE(dropped.size() == 1);
  CHECK_THAT(dropped[0], Catch::Contains("gemm_compute_fraction moves no prediction"));
}

TEST_CASE("a device profile's bandwidth is the measured rate, not a CPU-curve extrapolation",
          "[calib]") {
  // fit_profile at one thread count writes asymptote = rate / (1 - e^-4); the device form undoes
  // exactly that factor and keeps at(1) equal to the asymptote.
  FitReport rep;
  rep.profile.bandwidth = {1e12 / (1 - std::exp(-4.0)), 0.25, 0.9e12, 1.2e12};
  as_device_bandwidth(rep);
  CHECK(rep.profile.bandwidth.asymptote_bytes_per_s == Approx(1e12));
  CHECK(rep.profile.bandwidth.at(1) == Approx(1e12));
  CHECK(rep.profile.bandwidth.ci95_low_bytes_per_s == Approx(0.9e12 * (1 - std::exp(-4.0))));
  CHECK(rep.notes.size() == 1);
}

TEST_CASE("the committed H200 profile is the fit of the committed H200 rows", "[calib]") {
  const std::string dir = std::string(INFERCAP_SOURCE_DIR) + "/data/calibration/";
  auto rows = read_measurement_file(dir + "imports/h200-cuda-smoke-2026-11-30.csv");
  REQUIRE(rows);
  CHECK(rows->hardware == "h200");
  auto fit = fit_imported(*rows);
  REQUIRE(fit);
  // Read: 4 GiB in 0.929408 ms; bf16 GEMV 14336 x 4096: 117572805 B in 34.45155 us.
  CHECK(fit->profile.bandwidth.asymptote_bytes_per_s == Approx(4294967296.0 / 0.000929408));
  CHECK(at(fit->profile.gemv_bandwidth_bytes_per_s, ComputeType::bf16) ==
        Approx(117572805.0 / 3.445155e-05));
  spec::Diagnostics d;
  auto committed = spec::load_profile(dir + "h200-cuda-smoke.yaml", d);
  REQUIRE(committed);
  CHECK(committed->bandwidth.asymptote_bytes_per_s ==
        Approx(fit->profile.bandwidth.asymptote_bytes_per_s));
  for (auto t : {ComputeType::bf16, ComputeType::fp16, ComputeType::fp8, ComputeType::int8})
    CHECK(at(committed->gemv_bandwidth_bytes_per_s, t) ==
          Approx(at(fit->profile.gemv_bandwidth_bytes_per_s, t)));
  CHECK(at(committed->achieved_flops_per_s, ComputeType::bf16) == 0);  // GEMM not measured

  // The merged profile: our read and GEMV rows with the reference run's cuBLAS GEMMs.
  auto ref = read_measurement_file(dir + "imports/h200-reference-pytorch-2026-11-29.csv");
  REQUIRE(ref);
  auto merged = merge_measurements({*rows, *ref}, {"smoke", "reference"}, nullptr);
  REQUIRE(merged);
  auto mfit = fit_imported(*merged);
  REQUIRE(mfit);
  auto combined = spec::load_profile(dir + "h200-combined.yaml", d);
  REQUIRE(combined);
  // Read: ours (4.62 TB/s beats torch's 4.18); bf16 GEMM: 8192^3 in 1.468991995 ms (cuBLAS).
  CHECK(combined->bandwidth.asymptote_bytes_per_s == Approx(4294967296.0 / 0.000929408));
  CHECK(at(combined->achieved_flops_per_s, ComputeType::bf16) ==
        Approx(2.0 * 8192 * 8192 * 8192 / 1.468991995e-03));
  CHECK(at(combined->gemv_bandwidth_bytes_per_s, ComputeType::bf16) ==
        Approx(at(fit->profile.gemv_bandwidth_bytes_per_s, ComputeType::bf16)));
  for (auto t : {ComputeType::fp32, ComputeType::bf16, ComputeType::fp16, ComputeType::fp8})
    CHECK(at(combined->achieved_flops_per_s, t) ==
          Approx(at(mfit->profile.achieved_flops_per_s, t)));
}
