// The hardware catalog (data/hardware/*.yaml) checked for internal consistency: every file loads
// cleanly, every hardware name used by the public benchmark files resolves, dense and sparse peaks
// are not mixed, CPU bandwidth follows from the memory configuration, and every GPU carries the
// numbers the roofline needs. A failure here means a value in data/hardware is wrong or missing;
// fix the data and cite the source, not the test.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "catalog_fixture.hpp"
#include "infercap/hardware.hpp"
#include "infercap/precision.hpp"
#include "infercap/spec/catalog.hpp"
#include "infercap/spec/diagnostics.hpp"
#include "infercap/spec/loaders.hpp"

namespace {

namespace fs = std::filesystem;
using infercap::ComputeType;
using infercap::HardwareSpec;
using infercap::HwClass;
using infercap::spec::Catalog;
using infercap::spec::Diagnostics;

const std::string kHardwareDir = INFERCAP_SOURCE_DIR "/data/hardware";
// CI clones the project beside the steering repository, whose shared/ holds the benchmarks.
const std::string kBenchmarkDir = INFERCAP_SOURCE_DIR "/../shared/benchmarks";

const infercap::test::LoadedCatalog& loaded() {
  return infercap::test::project_catalog();
}

const HardwareSpec& hw(const std::string& name) {
  const HardwareSpec* h = loaded().catalog.find_hardware(name);
  INFO("hardware " << name);
  REQUIRE(h != nullptr);
  return *h;
}

double peak(const infercap::ComputeTable& t, ComputeType c) {
  return infercap::at(t, c);
}

std::vector<std::string> hardware_files() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(kHardwareDir)) {
    if (e.path().extension() == ".yaml") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// RFC 4180 rows: fields separated by ',', optionally quoted with '"' (a doubled quote inside).
std::vector<std::vector<std::string>> read_csv(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(field);
      field.clear();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      row.push_back(field);
      field.clear();
      if (!(row.size() == 1 && row[0].empty())) rows.push_back(row);
      row.clear();
    } else {
      field += c;
    }
  }
  if (!field.empty() || !row.empty()) {
    row.push_back(field);
    rows.push_back(row);
  }
  return rows;
}

// The distinct values of the `hardware` column of one benchmark CSV.
std::set<std::string> benchmark_hardware_names(const std::string& file) {
  const auto rows = read_csv(file);
  REQUIRE(!rows.empty());
  const auto& header = rows.front();
  const auto col = std::find(header.begin(), header.end(), "hardware");
  REQUIRE(col != header.end());
  const auto idx = static_cast<std::size_t>(col - header.begin());
  std::set<std::string> names;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    REQUIRE(rows[r].size() > idx);
    names.insert(rows[r][idx]);
  }
  return names;
}

}  // namespace

TEST_CASE("hardware catalog: every file loads with no diagnostics", "[unit]") {
  const auto files = hardware_files();
  REQUIRE(files.size() >= 40);
  for (const auto& f : files) {
    Diagnostics d;
    const auto spec = infercap::spec::load_hardware_file(f, d);
    INFO(f << "\n" << d.format());
    CHECK(d.empty());
    CHECK(spec.has_value());
    // The file name is the entry name, so `infercap catalog` and the files agree.
    if (spec) CHECK(fs::path(f).stem().string() == spec->name);
  }
  // Through the catalog as well: no hardware file may collide with another entry's names.
  const auto& l = loaded();
  std::string hw_diags;
  for (const auto& d : l.diags.items()) {
    if (d.file.find("/hardware/") != std::string::npos) hw_diags += format(d) + "\n";
  }
  INFO(hw_diags);
  CHECK(hw_diags.empty());
  CHECK(l.catalog.hardware().size() == files.size());
}

TEST_CASE("hardware catalog: every benchmark hardware name resolves", "[unit]") {
  if (!fs::is_directory(kBenchmarkDir)) {
    WARN("skipped: no benchmark folder at " << kBenchmarkDir);
    return;
  }
  for (const char* csv : {"llamacpp-gpu-benchmarks.csv", "seed-claims.csv"}) {
    const std::string path = kBenchmarkDir + "/" + csv;
    REQUIRE(fs::exists(path));
    const auto names = benchmark_hardware_names(path);
    CHECK(!names.empty());
    for (const auto& n : names) {
      INFO(csv << ": '" << n << "'");
      CHECK(loaded().catalog.find_hardware(n) != nullptr);
    }
  }
}

TEST_CASE("hardware catalog: benchmark names that state a memory size match the entry", "[unit]") {
  if (!fs::is_directory(kBenchmarkDir)) {
    WARN("skipped: no benchmark folder at " << kBenchmarkDir);
    return;
  }
  // "NVIDIA RTX 3080 10GB" must resolve to a 10 GiB device (vendors' memory GB are binary), so an
  // alias can never point at the 12 GB variant by mistake.
  const std::regex size_re(R"((\d+)GB$)");
  int checked = 0;
  for (const auto& n : benchmark_hardware_names(kBenchmarkDir + "/llamacpp-gpu-benchmarks.csv")) {
    std::smatch m;
    if (!std::regex_search(n, m, size_re)) continue;
    const HardwareSpec* h = loaded().catalog.find_hardware(n);
    INFO(n);
    REQUIRE(h != nullptr);
    CHECK(h->memory_bytes == Approx(std::stod(m[1].str()) * 1024.0 * 1024.0 * 1024.0));
    ++checked;
  }
  CHECK(checked >= 19);
}

TEST_CASE("hardware catalog: aliases resolve regardless of case, spaces, '-', '_' and '.'",
          "[unit]") {
  const HardwareSpec* canonical = loaded().catalog.find_hardware("rtx-4090");
  REQUIRE(canonical != nullptr);
  for (const char* spelling : {"NVIDIA RTX 4090 24GB", "nvidia-rtx-4090-24gb",
                               "NVIDIA_RTX_4090_24GB", "nvidiartx409024gb"}) {
    INFO(spelling);
    CHECK(loaded().catalog.find_hardware(spelling) == canonical);
  }
  // Similar names stay distinct: the Ada workstation card is not the Ampere RTX A6000.
  CHECK(loaded().catalog.find_hardware("NVIDIA RTX 6000 Ada 48GB") == &hw("rtx-6000-ada"));
  CHECK(loaded().catalog.find_hardware("NVIDIA RTX A6000 48GB") == &hw("rtx-a6000"));
  CHECK(loaded().catalog.find_hardware("NVIDIA A100 SXM 80GB") == &hw("a100-sxm-80gb"));
  CHECK(loaded().catalog.find_hardware("NVIDIA A100 PCIe 80GB") == &hw("a100-pcie-80gb"));
  CHECK(loaded().catalog.find_hardware("rtx-9999") == nullptr);
}

TEST_CASE("hardware catalog: aliases are unique after normalisation", "[unit]") {
  std::map<std::string, std::string> owner;
  for (const auto& h : loaded().catalog.hardware()) {
    std::vector<std::string> names = h.aliases;
    names.push_back(h.name);
    for (const auto& a : names) {
      const std::string key = infercap::spec::normalize_name(a);
      INFO(h.name << " alias '" << a << "'");
      const auto it = owner.find(key);
      if (it != owner.end()) CHECK(it->second == h.name);
      owner[key] = h.name;
    }
  }
  CHECK(owner.size() > loaded().catalog.hardware().size());
}

TEST_CASE("hardware catalog: dense and sparse peaks are not mixed", "[unit]") {
  // A 2:4 structured-sparse peak is twice the dense one on every vendor that prints both
  // (NVIDIA marks it with an asterisk). A ratio near 1 means a sparse figure sits under the dense
  // key (or the reverse); vendors round each figure, so the ratio is allowed 1.9 to 2.1.
  int pairs = 0;
  for (const auto& h : loaded().catalog.hardware()) {
    for (int i = 0; i < infercap::kComputeTypeCount; ++i) {
      const auto c = static_cast<ComputeType>(i);
      const double d = peak(h.dense_flops_per_s, c);
      const double s = peak(h.sparse_flops_per_s, c);
      if (s <= 0) continue;
      INFO(h.name << " " << infercap::compute_type_name(c));
      REQUIRE(d > 0);  // a sparse figure alone would leave the roofline with no dense roof
      CHECK(s >= d);
      CHECK(s / d >= 1.9);
      CHECK(s / d <= 2.1);
      ++pairs;
    }
  }
  CHECK(pairs >= 50);
}

TEST_CASE("hardware catalog: CPU bandwidth is channels x MT/s x 8 bytes", "[unit]") {
  // One DDR channel is 64 bits wide: peak bytes/s = channels x transfers/s x 8. Within 1%.
  int cpus = 0;
  for (const auto& h : loaded().catalog.hardware()) {
    if (h.hw_class != HwClass::cpu) continue;
    INFO(h.name);
    REQUIRE(h.cpu.has_value());
    const auto& c = *h.cpu;
    CHECK(c.cores > 0);
    CHECK(c.memory_channels > 0);
    CHECK(c.base_clock_hz > 0);
    CHECK(c.boost_clock_hz >= c.base_clock_hz);
    const double formula = c.memory_channels * c.memory_speed_mt_s * 1e6 * 8.0;
    CHECK(h.memory_bandwidth_bytes_per_s == Approx(formula).epsilon(0.01));
    // The fp32 peak is cores x base clock x FLOP/cycle; FLOP/cycle of an x86 core is 32 (two
    // 256-bit FMA pipes) or 64 (two 512-bit FMA pipes), of an Arm Neoverse N1 core 16 (two
    // 128-bit NEON FMA pipes), so the quotient must be one of those.
    const double fp32 = peak(h.dense_flops_per_s, ComputeType::fp32);
    REQUIRE(fp32 > 0);
    const double per_cycle = fp32 / (c.cores * c.base_clock_hz);
    const bool known_width = std::abs(per_cycle - 16.0) < 0.01 ||
                             std::abs(per_cycle - 32.0) < 0.01 || std::abs(per_cycle - 64.0) < 0.01;
    INFO("fp32 FLOP/cycle/core = " << per_cycle);
    CHECK(known_width);
    ++cpus;
  }
  CHECK(cpus >= 7);
}

TEST_CASE("hardware catalog: server CPUs are sockets of a dual-socket server", "[unit]") {
  for (const char* name :
       {"xeon-8480p", "xeon-8592p", "xeon-6980p", "xeon-8462yp", "epyc-9654", "epyc-9755"}) {
    INFO(name);
    CHECK(hw(name).hw_class == HwClass::cpu);
    CHECK(hw(name).devices_per_server == 2);
  }
  CHECK(hw("ryzen-7950x").devices_per_server == 1);
  // The seed article's unnamed 64-core dual-socket DDR5 server maps to 2 x 32 cores.
  const HardwareSpec* seed =
      loaded().catalog.find_hardware("dual-socket x86 server (64 cores, DDR5, model not named)");
  REQUIRE(seed != nullptr);
  REQUIRE(seed->cpu.has_value());
  CHECK(seed->cpu->cores * seed->devices_per_server == 64);
}

TEST_CASE("hardware catalog: every GPU has a 16-bit peak, memory, bandwidth and TDP", "[unit]") {
  int gpus = 0;
  for (const auto& h : loaded().catalog.hardware()) {
    if (h.hw_class != HwClass::gpu) continue;
    INFO(h.name);
    const double half = std::max(peak(h.dense_flops_per_s, ComputeType::bf16),
                                 peak(h.dense_flops_per_s, ComputeType::fp16));
    CHECK(half > 0);
    CHECK(h.memory_bytes > 0);
    CHECK(h.memory_bandwidth_bytes_per_s > 0);
    CHECK(h.tdp_w > 0);
    CHECK(!h.sources.empty());
    ++gpus;
  }
  CHECK(gpus >= 28);
}

TEST_CASE("hardware catalog: GPU compute units and clock agree with the fp32 peak", "[unit]") {
  // fp32 peak = units x clock x FP32 FLOP per unit per clock. An NVIDIA SM has 64 (Turing,
  // GA100, GH100 counts 128 as 2 x 64) or 128 FP32 lanes, an AMD CDNA3 CU and an Apple GPU core
  // 128: with FMA = 2 FLOP the quotient is 128 or 256. Vendors round peaks and clocks, so 3%.
  int gpus = 0;
  for (const auto& h : loaded().catalog.hardware()) {
    if (h.hw_class != HwClass::gpu || h.compute_units <= 0) continue;
    INFO(h.name);
    REQUIRE(h.clock_hz > 0);
    const double per_clock = peak(h.dense_flops_per_s, ComputeType::fp32) /
                             (static_cast<double>(h.compute_units) * h.clock_hz);
    INFO("fp32 FLOP/clk/unit = " << per_clock);
    CHECK((std::abs(per_clock / 128.0 - 1.0) < 0.03 || std::abs(per_clock / 256.0 - 1.0) < 0.03));
    ++gpus;
  }
  CHECK(gpus >= 28);
  // Every GPU of the benchmark file carries them, so the issue-rate limit can be fitted there.
  if (fs::is_directory(kBenchmarkDir)) {
    for (const auto& n : benchmark_hardware_names(kBenchmarkDir + "/llamacpp-gpu-benchmarks.csv")) {
      const HardwareSpec* h = loaded().catalog.find_hardware(n);
      INFO(n);
      REQUIRE(h != nullptr);
      CHECK(h->compute_units > 0);
      CHECK(h->clock_hz > 0);
    }
  }
}

TEST_CASE("hardware catalog: every entry cites a source with a reference and a date", "[unit]") {
  const std::regex iso(R"(\d{4}-\d{2}-\d{2})");
  for (const auto& h : loaded().catalog.hardware()) {
    INFO(h.name);
    REQUIRE(!h.sources.empty());
    for (const auto& s : h.sources) {
      CHECK(!s.fields.empty());
      CHECK(!s.ref.empty());
      CHECK(std::regex_match(s.date, iso));
    }
  }
}

TEST_CASE("hardware catalog: datasheet halving and unit conversion on known entries", "[unit]") {
  // NVIDIA's H100 SXM datasheet prints BF16 1979 TFLOPS with sparsity; dense is half, 989.5e12.
  CHECK(peak(hw("h100-sxm").dense_flops_per_s, ComputeType::bf16) == Approx(1979e12 / 2));
  CHECK(peak(hw("h100-sxm").sparse_flops_per_s, ComputeType::bf16) == Approx(1979e12));
  // H200 is the same die with 141 GB HBM3e at 4.8 TB/s.
  CHECK(peak(hw("h200").dense_flops_per_s, ComputeType::bf16) ==
        Approx(peak(hw("h100-sxm").dense_flops_per_s, ComputeType::bf16)));
  CHECK(hw("h200").memory_bandwidth_bytes_per_s == Approx(4.8e12));
  // NVLink 4 on H100 SXM: 900 GB/s both directions, 450 GB/s one way; PCIe 4.0 x16: 32 GB/s.
  CHECK(hw("h100-sxm").link_kind == "nvlink");
  CHECK(hw("h100-sxm").link_bandwidth_bytes_per_s == Approx(450e9));
  CHECK(hw("l40s").link_kind == "pcie");
  CHECK(hw("l40s").link_bandwidth_bytes_per_s == Approx(32e9));
  // Xeon 8480+: 56 cores x 2.0 GHz x 64 FLOP/cycle = 7.168 TFLOP/s fp32; 8 x 4800 x 8 B.
  CHECK(peak(hw("xeon-8480p").dense_flops_per_s, ComputeType::fp32) == Approx(56 * 2.0e9 * 64));
  CHECK(hw("xeon-8480p").memory_bandwidth_bytes_per_s == Approx(8 * 4800e6 * 8));
}

TEST_CASE("hardware catalog: the device families the seed articles name are present", "[unit]") {
  for (const char* name : {"t4", "a10", "l4", "a100-sxm-80gb", "a100-pcie-80gb"}) {
    INFO(name);
    CHECK(hw(name).hw_class == HwClass::gpu);
  }
  // Vendors of the domestic NPUs (Ascend, Cambricon, Kunlunxin) and an FPGA card.
  std::set<std::string> npu_vendors;
  int fpgas = 0;
  for (const auto& h : loaded().catalog.hardware()) {
    if (h.hw_class == HwClass::npu) npu_vendors.insert(h.vendor);
    if (h.hw_class == HwClass::fpga) ++fpgas;
  }
  CHECK(npu_vendors.count("huawei") == 1);
  CHECK(npu_vendors.count("cambricon") == 1);
  CHECK(npu_vendors.count("kunlunxin") == 1);
  CHECK(fpgas >= 1);
  CHECK(hw("ascend-310p").hw_class == HwClass::npu);
  CHECK(hw("ascend-910b").hw_class == HwClass::npu);
  // The seed article's unnamed 'A-class datacenter GPU' resolves (by assumption) to an A100.
  CHECK(loaded().catalog.find_hardware("A-class datacenter GPU (model not named)") ==
        &hw("a100-pcie-80gb"));
}

TEST_CASE("hardware catalog: Jetson modules follow their memory bus and tensor-core rates",
          "[unit]") {
  // Jetson memory bandwidth is bus width x data rate: AGX Orin 256-bit LPDDR5-6400
  // (32 B x 6400e6 = 204.8 GB/s), AGX Thor 256-bit LPDDR5X-8533 (32 B x 8533e6 = 273.1 GB/s).
  const HardwareSpec& orin = hw("jetson-agx-orin-64gb");
  const HardwareSpec& thor = hw("jetson-agx-thor");
  CHECK(orin.memory_bandwidth_bytes_per_s == Approx(32.0 * 6400e6));
  CHECK(thor.memory_bandwidth_bytes_per_s == Approx(32.0 * 8533e6).epsilon(0.001));
  // Unified memory, one module per system, no peer link; the catalog alias of the dev kit works.
  for (const HardwareSpec* h : {&orin, &thor}) {
    INFO(h->name);
    CHECK(h->hw_class == HwClass::gpu);
    CHECK(h->devices_per_server == 1);
    CHECK(h->link_kind == "none");
  }
  CHECK(orin.memory_bytes == Approx(64.0 * 1024 * 1024 * 1024));
  CHECK(thor.memory_bytes == Approx(128.0 * 1024 * 1024 * 1024));
  CHECK(loaded().catalog.find_hardware("NVIDIA Jetson AGX Orin 64GB") == &orin);
  CHECK(loaded().catalog.find_hardware("Jetson T5000") == &thor);
  // Orin's GA10B tensor cores are the A100's per SM: dense FP16 per SM per clock on the two
  // entries agrees within 1% (Orin 42.5e12 / (16 x 1.3e9) = 2043, A100 312e12 / (108 x 1.41e9)
  // = 2049), and NVIDIA's 170 sparse INT8 TOPS is twice the dense INT8 and four times dense FP16.
  const HardwareSpec& a100 = hw("a100-sxm-80gb");
  const double orin_per_sm =
      peak(orin.dense_flops_per_s, ComputeType::fp16) / (orin.compute_units * orin.clock_hz);
  const double a100_per_sm =
      peak(a100.dense_flops_per_s, ComputeType::bf16) / (a100.compute_units * a100.clock_hz);
  CHECK(orin_per_sm == Approx(a100_per_sm).epsilon(0.01));
  CHECK(peak(orin.sparse_flops_per_s, ComputeType::int8) == Approx(170e12));
  CHECK(peak(orin.dense_flops_per_s, ComputeType::int8) == Approx(85e12));
  CHECK(peak(orin.dense_flops_per_s, ComputeType::fp16) == Approx(170e12 / 4));
  // Thor, NVIDIA's table: 1035 TFLOPS sparse FP8 / INT8, 517 dense FP8 and sparse FP16. The
  // dense FP16 and INT8 roofs are the sparse figures halved; FP8 is printed dense.
  CHECK(peak(thor.dense_flops_per_s, ComputeType::fp8) == Approx(517e12));
  CHECK(peak(thor.dense_flops_per_s, ComputeType::int8) == Approx(1035e12 / 2));
  CHECK(peak(thor.dense_flops_per_s, ComputeType::fp16) == Approx(517e12 / 2));
  CHECK(peak(thor.dense_flops_per_s, ComputeType::bf16) ==
        Approx(peak(thor.dense_flops_per_s, ComputeType::fp16)));
  // The fp32 roofs are lanes x 2 x max clock: 2048 x 2 x 1.3 GHz and 2560 x 2 x 1.57 GHz.
  CHECK(peak(orin.dense_flops_per_s, ComputeType::fp32) == Approx(2048 * 2 * 1.3e9));
  CHECK(peak(thor.dense_flops_per_s, ComputeType::fp32) == Approx(2560 * 2 * 1.57e9));
}

TEST_CASE("hardware catalog: RTX PRO 6000, Ryzen 9950X, Xeon 6972P and Ascend 910B figures",
          "[unit]") {
  // RTX PRO 6000 Blackwell: a professional GB202 runs FP16/BF16 with FP32 accumulate at the full
  // rate, 1024 dense FLOP per SM per clock (188 x 1024 x 2.617 GHz = 503.8 TFLOP/s), four times
  // its 128-lane fp32 rate; FP8 doubles it, and FP4 with sparsity (2 x FP8 sparse = 4030
  // TFLOP/s) is the datasheet's only tensor figure, "4000 AI TOPS".
  const HardwareSpec& pro = hw("rtx-pro-6000-blackwell");
  CHECK(peak(pro.dense_flops_per_s, ComputeType::bf16) ==
        Approx(188 * 1024 * 2.617e9).epsilon(0.001));
  CHECK(peak(pro.dense_flops_per_s, ComputeType::fp8) ==
        Approx(2 * peak(pro.dense_flops_per_s, ComputeType::bf16)));
  CHECK(2 * peak(pro.sparse_flops_per_s, ComputeType::fp8) == Approx(4000e12).epsilon(0.01));
  CHECK(peak(pro.dense_flops_per_s, ComputeType::fp32) == Approx(125e12));
  // Ryzen 9 9950X: 16 Zen 5 cores with native 512-bit FMA (64 fp32 FLOP/cycle) at 4.3 GHz base,
  // two DDR5-5600 channels (2 x 5600e6 x 8 B = 89.6 GB/s), one socket per desktop.
  const HardwareSpec& r9 = hw("ryzen-9950x");
  REQUIRE(r9.cpu.has_value());
  CHECK(r9.cpu->cores == 16);
  CHECK(peak(r9.dense_flops_per_s, ComputeType::fp32) == Approx(16 * 4.3e9 * 64));
  CHECK(r9.memory_bandwidth_bytes_per_s == Approx(2 * 5600e6 * 8));
  CHECK(r9.devices_per_server == 1);
  // Zen 4 (7950X) double-pumps 512-bit work through 256-bit units: half the FLOP per cycle.
  const HardwareSpec& r7 = hw("ryzen-7950x");
  REQUIRE(r7.cpu.has_value());
  CHECK(peak(r9.dense_flops_per_s, ComputeType::fp32) / (r9.cpu->cores * r9.cpu->base_clock_hz) ==
        Approx(2 * peak(r7.dense_flops_per_s, ComputeType::fp32) /
               (r7.cpu->cores * r7.cpu->base_clock_hz)));
  // Xeon 6972P after launch: 96 cores, 2.4 GHz base, 3.9 GHz max turbo (3.5 GHz is its all-core
  // turbo), 480 MB L3.
  const HardwareSpec& x = hw("xeon-6972p");
  REQUIRE(x.cpu.has_value());
  CHECK(x.cpu->cores == 96);
  CHECK(x.cpu->base_clock_hz == Approx(2.4e9));
  CHECK(x.cpu->boost_clock_hz == Approx(3.9e9));
  CHECK(x.cache_bytes == Approx(480e6));
  // Ascend 910B (the 280 TFLOPS part): BF16 at the FP16 rate, INT8 twice it (560 TOPS).
  const HardwareSpec& a = hw("ascend-910b");
  CHECK(peak(a.dense_flops_per_s, ComputeType::bf16) == Approx(280e12));
  CHECK(peak(a.dense_flops_per_s, ComputeType::int8) ==
        Approx(2 * peak(a.dense_flops_per_s, ComputeType::fp16)));
}
