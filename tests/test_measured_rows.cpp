// [calib] the hardware entry calibrate writes for an unknown machine loads back through the
// catalog loader with every figure sourced; [unit] serving and static-batch rows map to cases;
// residual files round-trip. Expected values are the inputs or formulas stated beside them.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "catalog_fixture.hpp"
#include "infercap/spec/loaders.hpp"
#include "infercap/spec/reader.hpp"
#include "measured_hardware.hpp"
#include "measurements.hpp"
#include "residuals.hpp"
#include "tmp_path.hpp"

using namespace infercap;

namespace {

calibration::RunResult fake_run() {
  calibration::RunResult r;
  r.machine.cpu_model = "Intel(R) Xeon(R) Processor";
  r.machine.vendor = "GenuineIntel";
  r.machine.flags = "avx2 fma avx512f avx512_bf16 avx512_vnni amx_tile amx_int8";
  r.machine.sockets = 1;
  r.machine.cores = 2;
  r.machine.pus = 2;
  r.machine.numa_nodes = 1;
  r.machine.memory_bytes = 24e9;
  r.machine.llc_bytes = 32e6;
  r.machine.hostname = "vm";
  return r;
}

}  // namespace

TEST_CASE("calibrate's entry for an unknown machine loads back, every figure measured", "[calib]") {
  CalibrationProfile p;
  p.threads = 1;
  p.bandwidth.asymptote_bytes_per_s = 18e9;
  p.bandwidth.n0_threads = 4;
  at(p.achieved_flops_per_s, ComputeType::fp32) = 60e9;
  at(p.achieved_flops_per_s, ComputeType::int8) = 250e9;
  p.provenance.command = "infercap calibrate --quick";
  p.provenance.host = "vm";
  p.provenance.date = "2026-12-01T00:00:00Z";
  const HardwareSpec h = cli::measured_cpu_hardware(fake_run(), p, "my-vm", 2600);
  // Peaks derived as a datasheet's: 2 cores x 2.6 GHz x FLOP/cycle. AMX flags: two AVX-512 FMA
  // units (64); no amx_bf16 flag, so bf16 is VDPBF16PS (2 x 64); int8 on AMX tiles (2048).
  CHECK(at(h.dense_flops_per_s, ComputeType::fp32) == Approx(2 * 2.6e9 * 64));
  CHECK(at(h.dense_flops_per_s, ComputeType::bf16) == Approx(2 * 2.6e9 * 128));
  CHECK(at(h.dense_flops_per_s, ComputeType::int8) == Approx(2 * 2.6e9 * 2048));
  CHECK(h.cpu->base_clock_hz == Approx(2.6e9));
  CHECK(h.cpu->amx);
  CHECK(h.cpu->avx512_vnni);
  CHECK(h.cpu->avx512);
  spec::Diagnostics d;
  const std::string note =
      cli::measured_cpu_peak_rule("GenuineIntel", fake_run().machine.flags).why;
  const auto doc =
      spec::parse_text(cli::hardware_to_yaml(h, p.provenance, note), "measured.yaml", d);
  const auto back = spec::load_hardware(doc, d);
  INFO(cli::hardware_to_yaml(h, p.provenance, note));
  REQUIRE_FALSE(d.has_errors());
  REQUIRE(back);
  CHECK(back->name == "my-vm");
  CHECK(back->memory_bandwidth_bytes_per_s == Approx(18e9));
  CHECK(back->cpu->cores == 2);
  // The entry's curve bw (1 - exp(-n per_core / bw)) is the fit's A (1 - exp(-n / n0)):
  // per_core = A / n0 = 18 / 4 = 4.5 GB/s, so at the 2 cores 18 (1 - e^-0.5) = 7.08 GB/s.
  CHECK(back->cpu->per_core_bandwidth_bytes_per_s == Approx(4.5e9));
  const double bw = back->memory_bandwidth_bytes_per_s,
               pc = back->cpu->per_core_bandwidth_bytes_per_s;
  CHECK(bw * (1 - std::exp(-2 * pc / bw)) == Approx(p.bandwidth.at(2)));
  CHECK(p.bandwidth.at(2) == Approx(18e9 * (1 - std::exp(-0.5))));
  CHECK(back->cpu->memory_channels == 0);  // a VM cannot see them: omitted, not invented
  CHECK(cli::measured_hardware_name("Intel(R) Xeon(R) Processor") ==
        "measured-intel-xeon-processor");
  SECTION("a measured core clock replaces /proc/cpuinfo's and is sourced as measured") {
    // A VM's "cpu MHz" is its host's TSC rate (2600); the probe's add chain read 3.6 GHz, so
    // the fp32 peak is 2 cores x 3.6 GHz x 64 FLOP/cycle = 460.8 GFLOP/s, not 332.8.
    calibration::RunResult run = fake_run();
    run.machine.core_clock_hz = 3.6e9;
    const HardwareSpec m = cli::measured_cpu_hardware(run, p, "my-vm", 2600);
    CHECK(m.cpu->base_clock_hz == Approx(3.6e9));
    CHECK(at(m.dense_flops_per_s, ComputeType::fp32) == Approx(2 * 3.6e9 * 64));
    const std::string yaml = cli::hardware_to_yaml(m, p.provenance, note, "measured: 3.6 GHz");
    CHECK(yaml.find("fields: [cpu.base_clock_hz]") != std::string::npos);
    CHECK(yaml.find("measured: 3.6 GHz") != std::string::npos);
    spec::Diagnostics d2;
    const auto back2 = spec::load_hardware(spec::parse_text(yaml, "measured.yaml", d2), d2);
    INFO(yaml);
    REQUIRE_FALSE(d2.has_errors());
    CHECK(back2->cpu->base_clock_hz == Approx(3.6e9));
  }
  SECTION("the probe's FMA issue rate is reported against the rule's FLOP per cycle") {
    // 3.6 GHz x 64 FLOP/cycle = 230.4 GFLOP/s on one thread: the rule's two 512-bit units, no
    // remark. At 75% of that (172.8 GFLOP/s = 48 FLOP/cycle, below 0.9 x 64) the note says the
    // AVX code ran below the scalar clock or the core has fewer units. No rate: no note.
    calibration::MachineInfo m = fake_run().machine;
    const cli::PeakRule rule = cli::measured_cpu_peak_rule("GenuineIntel", m.flags);
    REQUIRE(rule.fp32_flops_per_cycle == 64);
    m.core_clock_hz = 3.6e9;
    CHECK(cli::measured_fma_note(m, rule).empty());
    m.fma_bits = 512;
    m.fma_flops_per_s = 3.6e9 * 64;
    const std::string full = cli::measured_fma_note(m, rule);
    CHECK(full.find("512-bit FMAs at 230.4 GFLOP/s, 64.0 FLOP per cycle") != std::string::npos);
    CHECK(full.find("below the rule") == std::string::npos);
    m.fma_flops_per_s = 3.6e9 * 48;
    CHECK(cli::measured_fma_note(m, rule).find("48.0 FLOP per cycle") != std::string::npos);
    CHECK(cli::measured_fma_note(m, rule).find("below the rule") != std::string::npos);
    // Fed by fp16 conversions at 3/4 of the plain rate: 129.6 GFLOP/s, 75%, at the 512-bit
    // tile's 10 conversions per 24 FMAs; at 256 bits the tile is 7 per 12.
    m.f16_fma_flops_per_s = 0.75 * m.fma_flops_per_s;
    const std::string f16 = cli::measured_fma_note(m, rule);
    CHECK(f16.find("(10 VCVTPH2PS per 24 FMAs): 129.6 GFLOP/s, 75% of that") != std::string::npos);
    m.fma_bits = 256;
    CHECK(cli::measured_fma_note(m, rule).find("(7 VCVTPH2PS per 12 FMAs)") != std::string::npos);
  }
  SECTION("a bandwidth fit that saw no saturation says its asymptote is an extrapolation") {
    // One thread count (the fixture) cannot show saturation or its absence, and n0 = 4 on 2
    // threads is inside the cap 4 x 2 = 8: no note. At the cap the entry's
    // memory_bandwidth_bytes_per_s (the asymptote) was never reached by a run.
    CHECK(cli::measured_bandwidth_note(p).empty());
    CalibrationProfile flat = p;
    flat.threads = 2;
    CHECK(cli::measured_bandwidth_note(flat).empty());
    flat.bandwidth.n0_threads = 8;
    const std::string bw_note = cli::measured_bandwidth_note(flat);
    CHECK(bw_note.find("no saturation seen up to 2 threads") != std::string::npos);
    const HardwareSpec m = cli::measured_cpu_hardware(fake_run(), flat, "my-vm", 2600);
    const std::string yaml = cli::hardware_to_yaml(m, flat.provenance, note, "", bw_note);
    CHECK(yaml.find("curve (no saturation seen up to 2 threads") != std::string::npos);
    spec::Diagnostics d3;
    const auto back3 = spec::load_hardware(spec::parse_text(yaml, "measured.yaml", d3), d3);
    INFO(yaml);
    REQUIRE_FALSE(d3.has_errors());
    REQUIRE(back3);
  }
  SECTION("without a clock the achieved rates stand in, scaled from 1 thread to 2 cores") {
    const HardwareSpec n = cli::measured_cpu_hardware(fake_run(), p, "my-vm", 0);
    CHECK(at(n.dense_flops_per_s, ComputeType::fp32) == Approx(120e9));
    CHECK(at(n.dense_flops_per_s, ComputeType::int8) == Approx(500e9));
  }
}

TEST_CASE("peak FLOP/cycle per core from the CPUID vendor and flags", "[calib]") {
  // Zen 4: AVX-512 on two 256-bit pipes (32), VDPBF16PS 2 x 32, VNNI 4 x 32.
  auto zen4 =
      cli::measured_cpu_peak_rule("AuthenticAMD", "avx2 fma avx512f avx512_bf16 avx512_vnni");
  CHECK(zen4.fp32_flops_per_cycle == 32);
  CHECK(zen4.bf16_flops_per_cycle == 64);
  CHECK(zen4.int8_ops_per_cycle == 128);
  // Zen 5 (VP2INTERSECT): full-width AVX-512, 64.
  CHECK(cli::measured_cpu_peak_rule("AuthenticAMD", "avx2 fma avx512f avx512_vp2intersect")
            .fp32_flops_per_cycle == 64);
  // AVX2 + FMA only: 32, and no bf16 / int8 unit named.
  auto avx2 = cli::measured_cpu_peak_rule("GenuineIntel", "avx2 fma f16c");
  CHECK(avx2.fp32_flops_per_cycle == 32);
  CHECK(avx2.bf16_flops_per_cycle == 0);
  CHECK(avx2.int8_ops_per_cycle == 0);
  // Sapphire Rapids flags: AMX tables 1024 / 2048.
  auto spr = cli::measured_cpu_peak_rule(
      "GenuineIntel", "avx2 fma avx512f avx512_bf16 avx512_vnni amx_tile amx_bf16 amx_int8");
  CHECK(spr.fp32_flops_per_cycle == 64);
  CHECK(spr.bf16_flops_per_cycle == 1024);
  CHECK(spr.int8_ops_per_cycle == 2048);
  CHECK_THAT(spr.why, Catch::Contains("AMX"));
}

TEST_CASE("serving and static-batch rows map to cases with their mode, TP and replicas", "[unit]") {
  const std::string path = infercap::testing::tmp_path("infercap-test-serving-rows.csv");
  {
    std::ofstream f(path);
    f << "id,source,hardware,hw_count,mem_bw_gbs,model,params_b,precision,input_len,output_len,"
         "batch,metric,value,unit,stack,notes,tp,serving_mode,request_rate\n"
      << "S-1,x,h100-sxm,8,,llama-3.1-8b,8,FP8,128,128,64,ttft_mean,120,ms,vLLM,,2,concurrency,\n"
      << "S-2,x,h100-sxm,1,,llama-3.1-8b,8,BF16,32,128,8,e2e_latency,800,ms,vLLM,,1,,\n"
      << "S-3,x,h100-sxm,1,,llama-3.1-8b,8,BF16,128,128,1,ttft_mean,1,s,vLLM,,1,rate,\n"
      << "S-4,x,h100-sxm,1,,llama-3.1-8b,8,BF16,128,128,1,ttft_mean,1,s,vLLM,,1,burst,\n";
  }
  spec::Diagnostics d;
  const auto catalog = spec::Catalog::load(INFERCAP_SOURCE_DIR "/data", d);
  const auto rows = cli::read_measurements(path, d);
  REQUIRE(rows.size() == 4);
  const auto m = cli::map_measurements(rows, catalog);
  REQUIRE(m[0].bench);
  CHECK(m[0].bench->serving == ServingMode::concurrency);
  CHECK(m[0].bench->metric == BenchMetric::serving_ttft_mean_s);
  CHECK(m[0].bench->deployment.tp == 2);
  CHECK(m[0].bench->replicas == 4);              // 8 devices / TP 2
  CHECK(m[0].bench->measured == Approx(0.120));  // ms -> s
  CHECK(m[0].bench->deployment.precision.activations == DType::fp8);
  REQUIRE(m[1].bench);
  CHECK(m[1].bench->metric == BenchMetric::e2e_latency_s);
  CHECK(m[1].bench->serving == ServingMode::none);
  CHECK_FALSE(m[2].bench);  // a fixed-rate row without a rate
  CHECK_THAT(m[2].reason, Catch::Contains("request_rate > 0"));
  CHECK_FALSE(m[3].bench);
  CHECK_THAT(m[3].reason, Catch::Contains("expected concurrency, rate or offline"));
  std::remove(path.c_str());
}

TEST_CASE("residuals: time form, written and read back", "[unit]") {
  BenchCase c;
  c.id = "R-1";
  c.hardware.name = "g";
  c.hardware.hw_class = HwClass::gpu;
  c.metric = BenchMetric::generation_tokens_per_s;
  c.measured = 100;
  // A throughput predicted 10% high means a time predicted 1/1.1: r = -ln(1.1).
  const Residual r = cli::residual_of(c, "s", 110);
  CHECK(r.quantity == ErrorQuantity::decode);
  CHECK(r.log_time_ratio == Approx(-std::log(1.1)));
  c.metric = BenchMetric::ttft_s;
  c.measured = 2;
  Residual t = cli::residual_of(c, "s", 3);
  CHECK(t.quantity == ErrorQuantity::prefill);
  CHECK(t.log_time_ratio == Approx(std::log(1.5)));
  // Serving runs: a throughput is the engine's capacity, a latency its own kind.
  c.metric = BenchMetric::serving_max_rate_output_tokens_per_s;
  CHECK(cli::residual_of(c, "s", 3).quantity == ErrorQuantity::serving_throughput);
  c.metric = BenchMetric::serving_output_tokens_per_s;
  CHECK(cli::residual_of(c, "s", 3).quantity == ErrorQuantity::serving_throughput);
  c.metric = BenchMetric::serving_ttft_p99_s;
  CHECK(cli::residual_of(c, "s", 3).quantity == ErrorQuantity::serving_latency);
  c.metric = BenchMetric::serving_e2e_mean_s;
  const Residual lat = cli::residual_of(c, "s", 3);
  CHECK(lat.quantity == ErrorQuantity::serving_latency);
  CHECK(lat.log_time_ratio == Approx(std::log(1.5)));
  CHECK_FALSE(t.held_out);
  t.held_out = true;  // as validate --fit --cross-validate writes it
  const std::string path = infercap::testing::tmp_path("infercap-test-residuals.csv");
  {
    std::ofstream f(path);
    f << cli::residuals_csv_header("test") << cli::residuals_csv_row(r)
      << cli::residuals_csv_row(t);
  }
  spec::Diagnostics d;
  const auto back = cli::read_residuals(path, d);
  REQUIRE_FALSE(d.has_errors());
  REQUIRE(back.size() == 2);
  CHECK(back[1].log_time_ratio == Approx(std::log(1.5)).epsilon(1e-5));
  CHECK(back[1].quantity == ErrorQuantity::prefill);
  CHECK_FALSE(back[0].held_out);
  CHECK(back[1].held_out);
  // Appends rows to the file and reads all of it again.
  auto append_and_read = [&path](const char* rows, spec::Diagnostics& diags) {
    {
      std::ofstream f(path, std::ios::app);
      f << rows;
    }
    return cli::read_residuals(path, diags);
  };
  {
    // A file of six cells a row (written before the basis column) reads as in sample; a basis
    // that is neither word is refused with its line and key.
    spec::Diagnostics d2;
    const auto more =
        append_and_read("R-4,s,gpu,decode,g,0.1\nR-5,s,gpu,decode,g,0.1,fitted\n", d2);
    REQUIRE(more.size() == 3);
    CHECK_FALSE(more[2].held_out);
    REQUIRE(d2.has_errors());
    CHECK(d2.items().front().line == 6);  // comment, header, R-1, R-2, R-4, then R-5
    CHECK(d2.items().front().key_path == "basis");
    CHECK_THAT(d2.format(), Catch::Contains("expected held_out or in_sample, found 'fitted'"));
  }
  {
    // Both serving kinds read back; the pooled 'serving' of an older file is refused by name.
    spec::Diagnostics d3;
    const auto more =
        append_and_read("R-6,s,gpu,serving_latency,g,0.2\nR-7,s,gpu,serving,g,0.1\n", d3);
    REQUIRE(more.size() == 4);
    CHECK(more[3].quantity == ErrorQuantity::serving_latency);
    REQUIRE(d3.items().size() == 2);  // R-5's basis, then R-7
    CHECK(d3.items()[1].line == 8);
    CHECK(d3.items()[1].key_path == "quantity");
    CHECK_THAT(d3.format(), Catch::Contains("expected serving_throughput or serving_latency"));
  }
  append_and_read("R-3,s,tpu,decode,g,0.1\n", d);
  CHECK(d.has_errors());
  std::remove(path.c_str());
  CHECK(cli::read_residuals("/nonexistent/residuals.csv", d).empty());
}

TEST_CASE("residuals take their hardware's vendor from the catalog", "[unit]") {
  // The bands keep to one vendor's rows (error_band); the file names devices, the catalog their
  // vendors. A device the catalog does not know keeps an empty vendor.
  std::vector<Residual> v(3);
  v[0].hardware = "h200";
  v[1].hardware = "mi300x";
  v[2].hardware = "no-such-device";
  spec::tag_vendors(v, test::project_catalog().catalog);
  CHECK(v[0].vendor == "nvidia");
  CHECK(v[1].vendor == "amd");
  CHECK(v[2].vendor.empty());
}
