// Placeholder until its issue lands: the command exists so the table is complete, and says so.
#include <fmt/core.h>

#include "commands.hpp"
#include "exit_codes.hpp"

namespace infercap::cli {

Runner register_calibrate(CLI::App& app) {
  auto* sub = app.add_subcommand("calibrate", "(not yet available)");
  sub->allow_extras();
  return [] {
    fmt::print(stderr, "infercap calibrate: not implemented yet\n");
    return kExitUsage;
  };
}

}  // namespace infercap::cli
