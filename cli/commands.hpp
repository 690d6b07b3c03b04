#pragma once
// The subcommand table. Each command lives in its own cmd_*.cpp and registers itself here; main
// only dispatches. A command's run function returns an ExitCode and writes nothing half-done.
#include <CLI/CLI.hpp>
#include <functional>

namespace infercap::cli {

/// Registers a subcommand on `app`; returns the callback main runs when it was chosen.
using Runner = std::function<int()>;
Runner register_predict(CLI::App& app);
Runner register_validate(CLI::App& app);
Runner register_catalog(CLI::App& app);
Runner register_plan(CLI::App& app);
Runner register_calibrate(CLI::App& app);
Runner register_report(CLI::App& app);
Runner register_schema(CLI::App& app);

}  // namespace infercap::cli
