// infercap schema [--kind KIND] [-o FILE|DIR] [--force]: the JSON Schema (draft 2020-12) of each
// spec kind, generated from the loaders (infercap/spec/schema.hpp) for editors' completion and
// validation. docs/schema/ holds the output of `infercap schema -o docs/schema`.
#include <fmt/core.h>
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "common.hpp"
#include "exit_codes.hpp"
#include "infercap/spec/atomic_write.hpp"
#include "infercap/spec/schema.hpp"

namespace infercap::cli {

namespace {

struct SchemaArgs {
  std::string kind;    ///< "" = every kind (then -o is a folder, or the kinds are listed)
  std::string output;  ///< a file (with --kind) or a folder (without)
  bool force = false;
};

int run_schema(const SchemaArgs& a) {
  std::vector<const spec::SpecKind*> kinds;
  if (!a.kind.empty()) {
    const spec::SpecKind* k = spec::find_spec_kind(a.kind);
    if (k == nullptr) {
      std::vector<std::string> names;
      for (const auto& s : spec::spec_kinds()) names.push_back(s.kind);
      spec::Diagnostics diags;
      diags.error("", 0, 0, "--kind",
                  fmt::format("expected one of [{}], found {}", fmt::join(names, ", "),
                              spec::quote_text(a.kind)),
                  spec::did_you_mean_text(spec::did_you_mean(a.kind, names)));
      print_diagnostics(diags);
      return kExitUsage;
    }
    kinds.push_back(k);
  } else {
    for (const auto& s : spec::spec_kinds()) kinds.push_back(&s);
  }
  if (a.output.empty()) {
    if (kinds.size() == 1) {
      fmt::print("{}", spec::json_schema(*kinds.front()));
      return kExitOk;
    }
    // Every kind at once is one file each: say which, and how to write them.
    for (const auto* k : kinds)
      fmt::print("{:<20} {:<32} {}\n", k->kind, spec::schema_file_name(*k), k->title);
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
  for (const auto* k : kinds) {
    const std::string path =
        folder ? (std::filesystem::path(a.output) / spec::schema_file_name(*k)).string() : a.output;
    if (auto w = spec::write_file_atomically(path, spec::json_schema(*k), a.force); !w) {
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
                  "model | hardware | stack | price | scenario | calibration-profile (default: "
                  "all)");
  sub->add_option("--output,-o", a->output,
                  "with --kind: the file to write; without: the folder for <kind>.schema.json");
  add_force_flag(sub, a->force);
  return [a] { return run_schema(*a); };
}

}  // namespace infercap::cli
