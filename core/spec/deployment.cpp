#include "infercap/spec/deployment.hpp"

#include <fmt/core.h>

namespace infercap::spec {

std::optional<Deployment> make_deployment(const DeploymentFlags& f, Diagnostics& diags) {
  Deployment d;
  bool ok = true;
  auto dtype = [&](const std::string& flag, const std::string& v, DType fallback) {
    if (v.empty()) return fallback;
    if (auto t = parse_dtype(v)) return *t;
    diags.error("", 0, 0, flag,
                fmt::format("expected one of fp32 bf16 fp16 fp8 int8 int4 nf4 q8_0 q4_0 q4_k_m, "
                            "found '{}'",
                            v));
    ok = false;
    return fallback;
  };
  d.precision.weights = dtype("--weights", f.weights, DType::bf16);
  d.precision.activations = dtype("--activations", f.activations, DType::bf16);
  d.precision.kv = dtype("--kv", f.kv, d.precision.activations);
  if (!f.compute.empty()) {
    if (auto c = parse_compute_type(f.compute)) {
      d.compute = *c;
    } else {
      diags.error("", 0, 0, "--compute",
                  fmt::format("expected fp32 tf32 bf16 fp16 fp8 int8 int4, found '{}'", f.compute));
      ok = false;
    }
  }
  if (f.tp < 1) {
    diags.error("", 0, 0, "--tp", fmt::format("expected a positive integer, found {}", f.tp));
    ok = false;
  }
  if (f.pp < 1) {
    diags.error("", 0, 0, "--pp", fmt::format("expected a positive integer, found {}", f.pp));
    ok = false;
  }
  if (f.threads < 0) {
    diags.error("", 0, 0, "--threads", fmt::format("expected >= 0, found {}", f.threads));
    ok = false;
  }
  d.tp = f.tp;
  d.pp = f.pp;
  d.cpu.threads_per_socket = f.threads;
  d.cpu.smt = f.smt;
  d.cpu.virtualized = f.virtualized;
  d.cpu.amx = !f.no_amx;
  if (f.numa == "pinned") {
    d.cpu.numa = NumaPolicy::pinned;
  } else if (f.numa == "interleave") {
    d.cpu.numa = NumaPolicy::interleave;
  } else if (f.numa == "single_node" || f.numa == "single-node") {
    d.cpu.numa = NumaPolicy::single_node;
  } else {
    diags.error("", 0, 0, "--numa",
                fmt::format("expected pinned, interleave or single_node, found '{}'", f.numa));
    ok = false;
  }
  if (!ok) return std::nullopt;
  return d;
}

void apply_default_precision(const DeploymentFlags& f, const HardwareSpec& hw, Deployment& d) {
  DType native = DType::bf16;
  if (at(hw.dense_flops_per_s, ComputeType::bf16) <= 0) {
    native = at(hw.dense_flops_per_s, ComputeType::fp16) > 0 ? DType::fp16 : DType::fp32;
  }
  if (hw.hw_class == HwClass::cpu && at(hw.dense_flops_per_s, ComputeType::bf16) <= 0) {
    native = DType::bf16;  // CPUs store bf16 and widen to fp32 for arithmetic
  }
  if (f.activations.empty()) d.precision.activations = native;
  if (f.weights.empty()) d.precision.weights = native;
  if (f.kv.empty()) d.precision.kv = d.precision.activations;
}

std::string default_stack_for(HwClass c) {
  // llama.cpp is the stack with public measurements on CPUs, GPUs and Apple silicon; NPUs and
  // FPGAs run their vendor toolchains.
  switch (c) {
    case HwClass::cpu:
    case HwClass::gpu:
      return "llama.cpp";
    case HwClass::npu:
    case HwClass::fpga:
      return "vendor-sdk";
  }
  return "ideal";
}

}  // namespace infercap::spec
