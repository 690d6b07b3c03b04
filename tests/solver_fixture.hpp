#pragma once
// The solver tests' synthetic world: a tiny model, a test GPU (100 TFLOP/s bf16, 1 TB/s, 300 W
// TDP, 50 W idle, 4 per server) and a price book ($10k a device, $20k a server of 400 W host
// power and 2 U, 10% maintenance, $1000 operations per server-year, 3-year depreciation, PUE 1.5,
// $0.10/kWh), so every expected figure in the tests can be derived by hand.
#include <string>

#include "infercap/perf.hpp"
#include "infercap/solver.hpp"
#include "infercap/units.hpp"

namespace solver_fixture {

using namespace infercap;

inline ModelSpec tiny_model() {
  ModelSpec m;
  m.name = "tiny";
  m.family = "test";
  m.layers = 4;
  m.hidden = 512;
  m.heads = 8;
  m.kv_heads = 8;
  m.head_dim = 64;
  m.ffn_hidden = 2048;
  m.vocab = 1000;
  m.max_context = 8192;
  return m;
}

inline HardwareSpec test_gpu(double memory_bytes = 16 * kGiB) {
  HardwareSpec h;
  h.name = "testgpu";
  h.vendor = "acme";
  h.hw_class = HwClass::gpu;
  at(h.dense_flops_per_s, ComputeType::bf16) = 100e12;
  at(h.dense_flops_per_s, ComputeType::fp16) = 100e12;
  at(h.dense_flops_per_s, ComputeType::int8) = 200e12;
  h.memory_bytes = memory_bytes;
  h.memory_bandwidth_bytes_per_s = 1e12;
  h.link_kind = "nvlink";
  h.link_bandwidth_bytes_per_s = 100e9;
  h.tdp_w = 300;
  h.idle_w = 50;
  h.devices_per_server = 4;
  return h;
}

inline PriceBook test_prices() {
  PriceBook b;
  b.name = "test";
  b.depreciation_years = 3;
  b.electricity_usd_per_kwh = 0.1;
  b.pue = 1.5;
  b.maintenance_fraction_per_year = 0.1;
  b.ops_usd_per_server_year = 1000;
  DevicePricing d;
  d.hardware = "testgpu";
  d.tiers = {{1, 10000}};
  d.server_price_usd = 20000;
  d.server_host_w = 400;
  d.rack_units_per_server = 2;
  d.porting_family = "cuda";
  b.devices.push_back(d);
  b.porting.push_back({"cuda", 0, 0, false});
  return b;
}

inline RequestClass chat(double peak_qps, double mean_qps, double ttft_s = 1.0) {
  RequestClass c;
  c.name = "chat";
  c.model = "tiny";
  c.rate.peak_qps = peak_qps;
  c.rate.mean_qps = mean_qps;
  c.prompt_tokens = *fixed_length(200);
  c.output_tokens = *fixed_length(50);
  c.sla.ttft.limit_s = ttft_s;
  c.sla.ttft.percentile = 99;
  return c;
}

inline PlanInputs inputs(double peak_qps, double mean_qps) {
  PlanInputs in;
  in.name = "test";
  in.models = {tiny_model()};
  Pool p;
  p.name = "tiny";
  p.model = "tiny";
  p.classes = {chat(peak_qps, mean_qps)};
  in.pools = {p};
  in.space.hardware = {test_gpu()};
  in.space.stacks = {ideal_stack()};
  in.space.precisions = {*precision_preset("bf16")};
  in.space.tp = {1};
  in.space.max_seqs = {32};
  in.prices = test_prices();
  in.constraints.horizon_years = 2;
  in.verify_top = 0;
  return in;
}

inline const Constraint* find(const CandidateRow& r, const std::string& name) {
  for (const auto& c : r.constraints)
    if (c.name == name) return &c;
  return nullptr;
}

inline CandidateRow eval(const PlanInputs& in, int tp = 1) {
  return evaluate_candidate(in, in.pools[0], in.models[0], in.space.hardware[0], in.space.stacks[0],
                            in.space.precisions[0], tp, in.space.max_seqs[0]);
}

}  // namespace solver_fixture
