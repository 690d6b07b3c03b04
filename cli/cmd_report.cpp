// Placeholder until its issue lands: the command exists so the table is complete, and says so.
#include <fmt/core.h>

#include "commands.hpp"
#include "exit_codes.hpp"

namespace infercap::cli {

Runner register_report(CLI::App& app) {
  auto* sub = app.add_subcommand("report", "(not yet available)");
  sub->allow_extras();
  return [] {
    fmt::print(stderr, "infercap report: not implemented yet\n");
    return kExitUsage;
  };
}

}  // namespace infercap::cli
