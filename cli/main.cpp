// infercap: thin shell over infercap::core. Parses the command line, dispatches, maps failures to
// the documented exit codes (exit_codes.hpp).
#include <fmt/core.h>

#include <exception>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "common.hpp"
#include "exit_codes.hpp"

namespace {

int run_main(int argc, char** argv) {
  using namespace infercap::cli;
  CLI::App app{"infercap: which inference hardware to buy for your models, and how many"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "infercap 0.1.0");
  std::vector<std::pair<CLI::App*, Runner>> commands;
  auto add = [&](Runner (*reg)(CLI::App&)) {
    const size_t before = app.get_subcommands({}).size();
    Runner r = reg(app);
    commands.emplace_back(app.get_subcommands({})[before], std::move(r));
  };
  add(register_predict);
  add(register_plan);
  add(register_validate);
  add(register_calibrate);
  add(register_catalog);
  add(register_report);
  add(register_schema);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  try {
    for (auto& [sub, run] : commands) {
      if (sub->parsed()) return run();
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "infercap: internal error: {}\n", e.what());
    return kExitInternal;
  }
  return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  return infercap::cli::run_guarded("infercap", run_main, argc, argv);
}
