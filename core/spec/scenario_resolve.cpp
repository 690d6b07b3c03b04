#include "infercap/spec/scenario.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

namespace infercap::spec {

std::string plan_stack_for(HwClass c) {
  // Serving planning assumes a continuous-batching server where one exists: vLLM on GPUs,
  // llama.cpp on CPUs (the stack with public CPU measurements), vendor SDKs on NPUs and FPGAs.
  switch (c) {
    case HwClass::gpu:
      return "vllm";
    case HwClass::cpu:
      return "llama.cpp";
    case HwClass::npu:
    case HwClass::fpga:
      return "vendor-sdk";
  }
  return "ideal";
}

namespace {

// A relative YAML path in a scenario (a hardware, model or stack file with overrides) means a
// file beside the scenario, not one in whatever folder the command was started from.
std::string beside_scenario(const std::string& scenario_file, const std::string& name) {
  const std::filesystem::path p(name);
  if ((p.extension() == ".yaml" || p.extension() == ".yml") && p.is_relative())
    return (std::filesystem::path(scenario_file).parent_path() / p).string();
  return name;
}

}  // namespace

std::optional<PlanInputs> to_plan_inputs(const Scenario& sc, const Catalog& cat,
                                         Diagnostics& diags) {
  const size_t before = diags.error_count();
  // Every check here comes after reading: it is placed at the key it names (or its parent).
  auto error_at = [&](const std::string& key_path, std::string message, std::string hint = {}) {
    const Position p = sc.positions.locate(key_path);
    diags.error(sc.file, p.line, p.col, key_path, std::move(message), std::move(hint));
  };
  auto place = [&](Diagnostic d, const std::string& key_path) {
    const Position p = sc.positions.locate(key_path);
    d.file = sc.file;
    d.key_path = key_path;
    d.line = p.line;
    d.col = p.col;
    diags.add(std::move(d));
  };
  PlanInputs in;
  in.name = sc.name;
  in.serving = sc.serving;
  in.constraints = sc.constraints;
  in.objective = sc.objective;
  in.strategy = sc.fleet.strategy;
  in.burst_base_classes = sc.fleet.base_classes;
  in.burst_buffer_classes = sc.fleet.buffer_classes;
  in.burst_hours_per_year = sc.fleet.burst_hours_per_year;
  in.prices = sc.prices;
  in.verify_top = sc.verify_top;
  in.verify_requests = sc.verify_requests;
  in.seed = sc.seed;

  // Models: resolve every name the workload and fleet use to its catalog entry.
  std::map<std::string, std::string> canonical;
  auto model = [&](const std::string& name, const std::string& where) -> std::string {
    auto it = canonical.find(name);
    if (it != canonical.end()) return it->second;
    Diagnostics local;
    auto m = cat.resolve_model(beside_scenario(sc.file, name), local);
    if (!m) {
      for (const auto& d : local.items()) place(d, where);
      canonical[name] = "";
      return "";
    }
    bool have = false;
    for (const auto& x : in.models) have = have || x.name == m->name;
    if (!have) in.models.push_back(*m);
    canonical[name] = m->name;
    return m->name;
  };
  std::vector<RequestClass> classes = sc.classes;
  for (size_t i = 0; i < classes.size(); ++i)
    classes[i].model = model(classes[i].model, fmt::format("workload.classes[{}].model", i));

  // The context-window check below reads the classes as stated; the pools serve what is left to
  // compute after prefix reuse.
  std::vector<RequestClass> served = classes;
  for (size_t i = 0; i < served.size() && i < sc.prefix_reuse.size(); ++i) {
    const auto [shared, hit] = sc.prefix_reuse[i];
    if (auto c = with_prefix_reuse(served[i], shared, hit)) served[i] = *c;
  }
  if (sc.fleet.strategy == FleetStrategy::tiered) {
    std::vector<TierSpec> tiers = sc.fleet.tiers;
    for (size_t i = 0; i < tiers.size(); ++i)
      tiers[i].model = model(tiers[i].model, fmt::format("fleet.tiers[{}].model", i));
    auto pools = tiered_pools(served, tiers);
    if (!pools) {
      error_at("fleet.tiers", pools.error().message);
    } else {
      in.pools = *pools;
    }
    std::string base = sc.fleet.baseline_model.empty()
                           ? (tiers.empty() ? "" : tiers.back().model)
                           : model(sc.fleet.baseline_model, "fleet.baseline_model");
    if (!base.empty()) {
      auto bp = tiered_pools(served, {{"baseline " + base, base, 1.0}});
      if (bp) in.baseline_pools = *bp;
    }
  } else {
    // One pool per model: a replica serves one model.
    for (const auto& c : served) {
      auto it = std::find_if(in.pools.begin(), in.pools.end(),
                             [&](const Pool& p) { return p.model == c.model; });
      if (it == in.pools.end()) {
        Pool p;
        p.name = c.model;
        p.model = c.model;
        in.pools.push_back(p);
        it = in.pools.end() - 1;
      }
      it->classes.push_back(c);
    }
  }

  // Hardware: names, or the whole catalog; then the class and vendor filters.
  const auto& sel = sc.candidates;
  std::vector<HardwareSpec> hw;
  if (sel.all_hardware) {
    hw = cat.hardware();
  } else {
    for (size_t i = 0; i < sel.hardware.size(); ++i) {
      Diagnostics local;
      auto h = cat.resolve_hardware(beside_scenario(sc.file, sel.hardware[i]), local);
      if (!h) {
        for (const auto& d : local.items()) place(d, fmt::format("candidates.hardware[{}]", i));
        continue;
      }
      hw.push_back(*h);
    }
  }
  // Vendor filters name catalog vendors: a typo in an exclude list would otherwise let the
  // vendor's devices back in without a word.
  std::vector<std::string> vendors;
  for (const auto& h : cat.hardware())
    if (std::find(vendors.begin(), vendors.end(), h.vendor) == vendors.end())
      vendors.push_back(h.vendor);
  std::sort(vendors.begin(), vendors.end());
  auto check_vendors = [&](const std::vector<std::string>& list, const std::string& key,
                           Position at) {
    for (size_t i = 0; i < list.size(); ++i) {
      if (std::find(vendors.begin(), vendors.end(), list[i]) != vendors.end()) continue;
      std::string hint = did_you_mean_text(did_you_mean(list[i], vendors));
      hint += fmt::format("{}the catalog's vendors: {}", hint.empty() ? "" : " ",
                          fmt::join(vendors, ", "));
      diags.error(sc.file, at.line, at.col, fmt::format("candidates.{}[{}]", key, i),
                  fmt::format("no catalog device is made by '{}'", list[i]), hint);
    }
  };
  check_vendors(sel.vendors, sel.include_vendors_key, sel.include_vendors_at);
  check_vendors(sel.exclude_vendors, "exclude_vendors", sel.exclude_vendors_at);
  auto listed = [](const std::vector<std::string>& l, const std::string& v) {
    return std::find(l.begin(), l.end(), v) != l.end();
  };
  int by_class = 0;
  int by_vendor = 0;
  for (const auto& h : hw) {
    if (!sel.classes.empty() &&
        std::find(sel.classes.begin(), sel.classes.end(), h.hw_class) == sel.classes.end()) {
      ++by_class;
      continue;
    }
    if ((!sel.vendors.empty() && !listed(sel.vendors, h.vendor)) ||
        listed(sel.exclude_vendors, h.vendor)) {
      ++by_vendor;
      continue;
    }
    in.space.hardware.push_back(h);
  }
  if (in.space.hardware.empty() && diags.error_count() == before) {
    error_at("candidates",
             fmt::format("no hardware left: the class filter removed {} and the vendor filters "
                         "{} of {} candidates",
                         by_class, by_vendor, hw.size()));
  }

  for (const auto& p : sel.precisions) {
    auto pc = precision_preset(p);
    if (pc) in.space.precisions.push_back(*pc);
  }
  if (sel.stacks.empty()) {
    std::set<std::string> names;
    for (int c = 0; c < kHwClassCount; ++c) {
      const std::string n = plan_stack_for(static_cast<HwClass>(c));
      in.space.stack_per_class.push_back(n);
      names.insert(n);
    }
    for (const auto& n : names)
      if (const StackSpec* s = cat.find_stack(n)) in.space.stacks.push_back(*s);
  } else {
    for (size_t i = 0; i < sel.stacks.size(); ++i) {
      Diagnostics local;
      auto s = cat.resolve_stack(beside_scenario(sc.file, sel.stacks[i]), local);
      if (!s) {
        for (const auto& d : local.items()) place(d, fmt::format("candidates.stacks[{}]", i));
        continue;
      }
      in.space.stacks.push_back(*s);
    }
  }
  in.space.kv_precisions = sel.kv_precisions;
  in.space.tp = sel.tp;
  in.space.max_seqs = sel.max_batch;
  in.space.allow_mixed = sel.mixed_fleet;

  // Encoders (BERT-like classifiers, embedders) have no decode phase: no output lengths beyond
  // their one pass, no TPOT. Decoders need their output lengths stated.
  for (size_t i = 0; i < classes.size(); ++i) {
    const bool omitted = i < sc.output_tokens_omitted.size() && sc.output_tokens_omitted[i];
    for (const auto& m : in.models) {
      if (m.name != classes[i].model) continue;
      const std::string at = fmt::format("workload.classes[{}]", i);
      if (m.arch == ModelArch::encoder) {
        const auto& o = classes[i].output_tokens;
        if (!omitted && !(o.kind == LengthKind::fixed && o.value_tokens == 1)) {
          error_at(at + ".output_tokens",
                   fmt::format("{} is an encoder: it has no decode phase", m.name),
                   "omit output_tokens (or give 1)");
        }
        if (classes[i].sla.tpot.set()) {
          error_at(at + ".sla", fmt::format("{} is an encoder: TPOT does not apply", m.name),
                   "bound its latency with e2e_p99_s (or ttft_p99_s)");
        }
      } else if (omitted) {
        error_at(at + ".output_tokens",
                 fmt::format("missing 'output_tokens': {} generates text", m.name),
                 "a token count or {kind: ...}");
      }
    }
  }

  // A request longer than the model's context window, or than the server's configured context
  // (serving.max_context_tokens), is a spec error naming the limit, not a rejection.
  const int64_t served_context = sc.serving.max_context_tokens;
  for (size_t i = 0; i < classes.size(); ++i) {
    const std::string where = fmt::format("workload.classes[{}].prompt_tokens", i);
    auto qp = quantile(classes[i].prompt_tokens, 99);
    auto qo = quantile(classes[i].output_tokens, 99);
    const double longest = (qp ? *qp : 0) + (qo ? *qo : 0);
    for (const auto& m : in.models) {
      if (m.name != classes[i].model || m.max_context <= 0) continue;
      if (longest > static_cast<double>(m.max_context)) {
        error_at(where,
                 fmt::format("expected P99 prompt + output within {}'s context window of {} "
                             "tokens, found {:.7g} tokens",
                             m.name, m.max_context, std::ceil(longest)),
                 "shorten the prompts or choose a model with a longer context");
      }
    }
    if (served_context > 0 && longest > static_cast<double>(served_context)) {
      error_at("serving.max_context_tokens",
               fmt::format("expected at least the {:.7g} tokens (P99 prompt + output) of class "
                           "'{}', found {}",
                           std::ceil(longest), classes[i].name, served_context),
               "raise serving.max_context_tokens, or leave it out to size for the longest request");
    }
  }
  if (diags.error_count() > before) return std::nullopt;
  for (const auto& m : validate(in)) error_at("", m);
  if (diags.error_count() > before) return std::nullopt;
  return in;
}

}  // namespace infercap::spec
