#include "infercap/shell/shell.hpp"

#include <fmt/core.h>

#include <cstdio>
#include <exception>

#include "infercap/spec/catalog.hpp"

namespace infercap::shell {

void add_deployment_flags(CLI::App& app, spec::DeploymentFlags& f) {
  app.add_option("--weights", f.weights,
                 "weight format: fp32 bf16 fp16 fp8 int8 int4 nf4 q8_0 q4_0 q4_k_m");
  app.add_option("--activations", f.activations, "activation format (default bf16)");
  app.add_option("--kv", f.kv, "KV-cache format (default: the activation format)");
  app.add_option("--compute", f.compute, "force the compute roof: fp32 tf32 bf16 fp16 fp8 int8");
  app.add_option("--tp", f.tp, "tensor-parallel degree (devices per layer; CPUs: sockets)");
  app.add_option("--pp", f.pp, "pipeline stages (layer split across devices)");
  app.add_option("--threads", f.threads, "CPU threads per socket (default: physical cores)");
  app.add_flag("--smt", f.smt, "CPU: two threads per core (costs bandwidth, seed 000 4.3)");
  app.add_option("--numa", f.numa, "CPU: pinned | interleave | single_node");
  app.add_flag("--vm", f.virtualized, "CPU: a virtual machine rather than bare metal");
  app.add_flag("--no-amx", f.no_amx,
               "CPU: the engine runs without AMX tiles (llama.cpp built with GGML_AMX_*=OFF, or "
               "by a compiler that leaves its AMX path out: clang 14 names the macro __AMXINT8__)");
}

std::string data_dir_or_default(const std::string& flag) {
  return flag.empty() ? spec::Catalog::default_data_dir() : flag;
}

int print_diagnostics(const spec::Diagnostics& diags) {
  if (!diags.empty()) fmt::print(stderr, "{}", diags.format());
  return diags.has_errors() ? kExitSpec : kExitOk;
}

int run_guarded(const char* program, int (*body)(int, char**), int argc, char** argv) {
  try {
    return body(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", program, e.what());
  } catch (...) {
    std::fprintf(stderr, "%s: internal error\n", program);
  }
  return kExitInternal;
}

}  // namespace infercap::shell
