// infercap catalog list|show: what the catalog holds, with every value's source.
#include <fmt/core.h>
#include <fmt/format.h>

#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "exit_codes.hpp"
#include "output.hpp"

namespace infercap::cli {

namespace {

struct CatalogArgs {
  std::string action;
  std::string name;
  std::string kind;  // models | hardware | stacks | (empty: all)
  std::string format = "table";
  std::string data;
};

ResultTable models_table(const spec::Catalog& c) {
  ResultTable t;
  t.title = "models";
  t.columns = {{"name", Dim::dimensionless},          {"params", Dim::dimensionless},
               {"active_params", Dim::dimensionless}, {"layers", Dim::dimensionless},
               {"hidden", Dim::dimensionless},        {"heads", Dim::dimensionless},
               {"kv_heads", Dim::dimensionless},      {"kv_bytes_per_token_bf16", Dim::bytes},
               {"max_context", Dim::dimensionless},   {"aliases", Dim::dimensionless}};
  for (const auto& m : c.models()) {
    t.add({m.name, total_params(m), active_params(m), static_cast<long long>(m.layers),
           static_cast<long long>(m.hidden), static_cast<long long>(m.heads),
           static_cast<long long>(m.kv_heads), kv_elements_per_token_per_layer(m) * m.layers * 2.0,
           static_cast<long long>(m.max_context), fmt::format("{}", fmt::join(m.aliases, "; "))});
  }
  return t;
}

ResultTable hardware_table(const spec::Catalog& c) {
  ResultTable t;
  t.title = "hardware (one device; CPUs: one socket)";
  t.columns = {{"name", Dim::dimensionless},
               {"class", Dim::dimensionless},
               {"vendor", Dim::dimensionless},
               {"memory_bytes", Dim::bytes},
               {"memory_bandwidth_bytes_per_s", Dim::bytes_per_s},
               {"bf16_dense_flops_per_s", Dim::flops_per_s},
               {"int8_dense_flops_per_s", Dim::flops_per_s},
               {"tdp_w", Dim::watts},
               {"devices_per_server", Dim::dimensionless}};
  for (const auto& h : c.hardware()) {
    double bf16 = at(h.dense_flops_per_s, ComputeType::bf16);
    if (bf16 <= 0) bf16 = at(h.dense_flops_per_s, ComputeType::fp16);
    t.add({h.name, std::string(hw_class_name(h.hw_class)), h.vendor, h.memory_bytes,
           h.memory_bandwidth_bytes_per_s, bf16 > 0 ? Cell{bf16} : Cell{},
           at(h.dense_flops_per_s, ComputeType::int8) > 0
               ? Cell{at(h.dense_flops_per_s, ComputeType::int8)}
               : Cell{},
           h.tdp_w, static_cast<long long>(h.devices_per_server)});
  }
  return t;
}

ResultTable stacks_table(const spec::Catalog& c) {
  ResultTable t;
  t.title = "stacks";
  t.columns = {{"name", Dim::dimensionless},
               {"classes", Dim::dimensionless},
               {"vendors", Dim::dimensionless},
               {"description", Dim::dimensionless}};
  for (const auto& s : c.stacks()) {
    std::vector<std::string> classes;
    for (int i = 0; i < kHwClassCount; ++i) {
      if (s.per_class[static_cast<size_t>(i)].supported) {
        classes.emplace_back(hw_class_name(static_cast<HwClass>(i)));
      }
    }
    // "any": the stack names no vendor, so it runs on every vendor its classes support.
    t.add({s.name, fmt::format("{}", fmt::join(classes, " ")),
           s.vendors.empty() ? std::string("any") : fmt::format("{}", fmt::join(s.vendors, " ")),
           s.description});
  }
  return t;
}

ResultTable sources_table(const std::vector<SourceRef>& sources) {
  ResultTable t;
  t.title = "sources";
  t.columns = {{"fields", Dim::dimensionless},
               {"ref", Dim::dimensionless},
               {"date", Dim::dimensionless},
               {"note", Dim::dimensionless}};
  for (const auto& s : sources) {
    t.add({fmt::format("{}", fmt::join(s.fields, " ")), s.ref, s.date, s.note});
  }
  return t;
}

int run_catalog(const CatalogArgs& a) {
  spec::Diagnostics diags;
  const auto f = parse_format(a.format);
  if (!f) {
    diags.error("", 0, 0, "--format",
                fmt::format("expected {}, found '{}'", kFormatHelp, a.format));
  }
  if (a.action != "list" && a.action != "show") {
    diags.error("", 0, 0, "action",
                fmt::format("expected 'list' or 'show NAME', found '{}'", a.action));
  }
  if (a.action == "show" && a.name.empty())
    diags.error("", 0, 0, "NAME", "expected a name to show");
  if (diags.has_errors()) return print_diagnostics(diags);
  auto catalog = spec::Catalog::load(data_dir_or_default(a.data), diags);
  if (diags.has_errors()) return print_diagnostics(diags);
  if (a.action == "list") {
    const bool all = a.kind.empty();
    if (all || a.kind == "models") fmt::print("{}\n", render(models_table(catalog), *f));
    if (all || a.kind == "hardware") fmt::print("{}\n", render(hardware_table(catalog), *f));
    if (all || a.kind == "stacks") fmt::print("{}\n", render(stacks_table(catalog), *f));
    return kExitOk;
  }
  auto one = [&](const ResultTable& full, const std::string& name) {
    ResultTable t = full;
    t.rows.clear();
    for (const auto& r : full.rows) {
      if (std::get<std::string>(r[0]) == name) t.rows.push_back(r);
    }
    return t;
  };
  if (const auto* m = catalog.find_model(a.name)) {
    fmt::print("{}\n{}", render(one(models_table(catalog), m->name), *f),
               render(sources_table(m->sources), *f));
    return kExitOk;
  }
  if (const auto* h = catalog.find_hardware(a.name)) {
    fmt::print("{}\n", render(one(hardware_table(catalog), h->name), *f));
    ResultTable roofs;
    roofs.title = "dense and sparse peaks";
    roofs.columns = {{"compute", Dim::dimensionless},
                     {"dense_flops_per_s", Dim::flops_per_s},
                     {"sparse_flops_per_s", Dim::flops_per_s}};
    for (int i = 0; i < kComputeTypeCount; ++i) {
      const double d = h->dense_flops_per_s[static_cast<size_t>(i)];
      const double s = h->sparse_flops_per_s[static_cast<size_t>(i)];
      if (d > 0 || s > 0) {
        roofs.add({std::string(compute_type_name(static_cast<ComputeType>(i))),
                   d > 0 ? Cell{d} : Cell{}, s > 0 ? Cell{s} : Cell{}});
      }
    }
    fmt::print("{}\n{}", render(roofs, *f), render(sources_table(h->sources), *f));
    return kExitOk;
  }
  if (const auto* s = catalog.find_stack(a.name)) {
    fmt::print("{}\n{}", render(one(stacks_table(catalog), s->name), *f),
               render(sources_table(s->sources), *f));
    return kExitOk;
  }
  std::vector<std::string> near;
  for (const auto& v :
       {catalog.near_models(a.name), catalog.near_hardware(a.name), catalog.near_stacks(a.name)}) {
    near.insert(near.end(), v.begin(), v.end());
  }
  diags.error("", 0, 0, "NAME", fmt::format("unknown catalog entry '{}'", a.name),
              spec::did_you_mean_text(near));
  return print_diagnostics(diags);
}

}  // namespace

Runner register_catalog(CLI::App& app) {
  auto a = std::make_shared<CatalogArgs>();
  auto* sub = app.add_subcommand("catalog", "List catalog entries or show one with its sources");
  sub->add_option("action", a->action, "list | show")->required();
  sub->add_option("name", a->name, "entry to show");
  sub->add_option("--kind", a->kind, "models | hardware | stacks");
  sub->add_option("--format,-f", a->format, kFormatHelp)->capture_default_str();
  sub->add_option("--data", a->data, "catalog folder");
  return [a] { return run_catalog(*a); };
}

}  // namespace infercap::cli
