// infercap schema [--kind KIND] [-o FILE|DIR] [--force]: the JSON Schema (draft 2020-12) of each
// spec kind, generated from the loaders (infercap/spec/schema.hpp) for editors' completion and
// validation; of each import format, and the column table of each CSV format infercap reads,
// generated from their readers' tables (import_schemas.hpp). docs/schema/ holds the output of
// `infercap schema -o docs/schema`.
#include <fmt/core.h>
#include <fmt/format.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "common.hpp"
#include "exit_codes.hpp"
#include "import_schemas.hpp"
#include "infercap/spec/atomic_write.hpp"
#include "infercap/spec/schema.hpp"

namespace infercap::cli {

namespace {

struct SchemaArgs {
  std::string kind;    ///< "" = every kind (then -o is a folder, or the kinds are listed)
  std::string output;  ///< a file (with --kind) or a folder (without)
  bool force = false;
};

// One file `infercap schema` writes: a JSON Schema (a spec kind's, from its loader, or an import
// format's, from its reader's tables) or a CSV format's column table.
struct Output {
  std::string name;   ///< what --kind calls it
  std::string file;   ///< its name in docs/schema/
  std::string title;  ///< one line for the listing
  std::function<std::string()> write;
};

// Every file, in a fixed order: the spec kinds, the import formats, the CSV column tables.
std::vector<Output> outputs() {
  std::vector<Output> out;
  for (const auto* kinds : {&spec::spec_kinds(), &import_kinds()}) {
    for (const auto& k : *kinds) {
      out.push_back(
          {k.kind, spec::schema_file_name(k), k.title, [&k] { return spec::json_schema(k); }});
    }
  }
  for (const auto& t : column_tables()) out.push_back({t.name, t.file, t.title, t.markdown});
  return out;
}

int run_schema(const SchemaArgs& a) {
  const std::vector<Output> all = outputs();
  std::vector<const Output*> chosen;
  if (!a.kind.empty()) {
    std::vector<std::string> names;
    for (const auto& o : all) {
      names.push_back(o.name);
      if (o.name == a.kind) chosen.push_back(&o);
    }
    if (chosen.empty()) {
      spec::Diagnostics diags;
      diags.error("", 0, 0, "--kind",
                  fmt::format("expected one of [{}], found {}", fmt::join(names, ", "),
                              spec::quote_text(a.kind)),
                  spec::did_you_mean_text(spec::did_you_mean(a.kind, names)));
      print_diagnostics(diags);
      return kExitUsage;
    }
  } else {
    for (const auto& o : all) chosen.push_back(&o);
  }
  if (a.output.empty()) {
    if (chosen.size() == 1) {
      fmt::print("{}", chosen.front()->write());
      return kExitOk;
    }
    // Every kind at once is one file each: say which, and how to write them.
    for (const auto* o : chosen) fmt::print("{:<28} {:<38} {}\n", o->name, o->file, o->title);
    fmt::print("write them with: infercap schema -o DIR (or one with --kind KIND)\n");
    return kExitOk;
  }
  const bool folder = a.kind.empty();
  if (folder) {
    std::error_code ec;
    if (!std::filesystem::is_directory(a.output, ec)) {
      fmt::print(stderr,
                 "infercap schema: cannot write into {} (without --kind, -o names an "
                 "existing folder)\n",
                 a.output);
      return kExitIo;
    }
  }
  for (const auto* o : chosen) {
    const std::string path =
        folder ? (std::filesystem::path(a.output) / o->file).string() : a.output;
    if (auto w = spec::write_file_atomically(path, o->write(), a.force); !w) {
      fmt::print(stderr, "infercap schema: {}\n", w.error().message);
      return kExitIo;
    }
    fmt::print(stderr, "wrote {}\n", path);
  }
  return kExitOk;
}

}  // namespace

Runner register_schema(CLI::App& app) {
  auto a = std::make_shared<SchemaArgs>();
  auto* sub = app.add_subcommand(
      "schema", "Write the JSON Schema of each spec kind, for editors (docs/schema/)");
  sub->add_option("--kind,-k", a->kind,
                  "one spec kind (model, hardware, stack, price, scenario, calibration-profile), "
                  "import format (calibration-measurements, llama-bench, vllm-benchmark) or CSV "
                  "column table (measurements-csv, ...); default: all");
  sub->add_option("--output,-o", a->output,
                  "with --kind: the file to write; without: the folder for <kind>.schema.json");
  add_force_flag(sub, a->force);
  return [a] { return run_schema(*a); };
}

}  // namespace infercap::cli
