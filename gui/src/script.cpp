// A scripted session for the real window (--script FILE): one command a line, run between
// frames, driving the same view-model calls the widgets make. Used by
// scripts/gui_screenshots.sh to change inputs, wait for the re-solve, export and take
// screenshots under Xvfb.
#include <fmt/core.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "app.hpp"
#include "infercap/spec/atomic_write.hpp"
#include "infercap_gui/plan_export.hpp"

namespace infercap::gui {

bool ScriptRunner::load(const std::string& path, std::string& why) {
  std::ifstream in(path);
  if (!in) {
    why = path + ": cannot be read";
    return false;
  }
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    std::istringstream ws(line);
    std::vector<std::string> words;
    for (std::string w; ws >> w;) words.push_back(w);
    if (!words.empty()) cmds_.push_back({n, std::move(words)});
  }
  file_ = path;
  return true;
}

std::string ScriptRunner::step(App& app) {
  if (wait_frames_ > 0) {
    --wait_frames_;
    return "";
  }
  if (waiting_report_) {
    if (app.report_job.running() || app.report_version != app.report_job.version()) return "";
    waiting_report_ = false;
    if (app.report.state == JobState::failed) {
      error = fmt::format("{}: export-report: {}", file_, app.report.message);
      done = true;
      return "";
    }
    wait_frames_ = 2;
    return "";
  }
  if (waiting_) {
    if (app.plan_job.busy() || app.whatif.pending() || app.plan_solving) return "";
    waiting_ = false;
    wait_frames_ = 2;  // let the panels lay the new answer out
    return "";
  }
  while (next_ < cmds_.size()) {
    const Cmd& c = cmds_[next_++];
    const auto& w = c.words;
    auto arg = [&](std::size_t i) { return i < w.size() ? w[i] : std::string(); };
    auto number = [&](std::size_t i) { return std::stod(arg(i)); };
    auto fail = [&](const std::string& why) {
      error = fmt::format("{}:{}: {}", file_, c.line, why);
      done = true;
      return std::string();
    };
    try {
      WhatIf& wi = app.whatif;
      const std::string& op = w[0];
      if (op == "tab") {
        const std::string t = arg(1);
        app.request_tab = t == "compare"   ? Tab::compare
                          : t == "plan"    ? Tab::plan
                          : t == "catalog" ? Tab::catalog
                                           : Tab::predict;
        app.tab_requested = true;
        wait_frames_ = 2;
        return "";
      }
      if (op == "open") {
        std::string path = arg(1);
        for (const auto& s : app.scenarios)
          if (s.name == path) path = s.path;
        open_scenario(app, path);
        continue;
      }
      if (op == "model" || op == "hardware") {
        (op == "model" ? app.sel.model : app.sel.hardware) = arg(1);
        app.inputs_changed = app.compare_dirty = true;
        continue;
      }
      if (op == "search") {
        app.catalog_search = arg(1);
        continue;
      }
      if (op == "batch") {
        app.work.batch = std::stoi(arg(1));
        app.inputs_changed = app.compare_dirty = true;
        continue;
      }
      if (op == "wait") {
        waiting_ = true;
        return "";
      }
      if (op == "frames") {
        wait_frames_ = std::stoi(arg(1));
        return "";
      }
      if (op == "screenshot") {
        wait_frames_ = 1;
        return arg(1);
      }
      if (op == "export-csv") {
        const std::string csv = plan_csv(app.plan);
        if (csv.empty()) return fail("export-csv: no plan to export");
        auto r = spec::write_file_atomically(arg(1), csv);
        if (!r) return fail(r.error().message);
        app.plan_status = "exported " + arg(1);
        continue;
      }
      if (op == "export-report") {
        // The Export report button's call, on the report worker; the frames go on meanwhile.
        const report::Lang lang = arg(2) == "zh" ? report::Lang::zh : report::Lang::en;
        app.report_lang = lang == report::Lang::zh ? 1 : 0;
        if (!start_report_export(app, arg(1), lang))
          return fail("export-report: " + app.report.message);
        waiting_report_ = true;
        return "";
      }
      if (op == "show") {
        if (arg(1) != "sensitivity") return fail("show: expected 'sensitivity'");
        app.scroll_to_sensitivity = true;
        wait_frames_ = 2;
        return "";
      }
      if (op == "save") {
        std::string err;
        if (!wi.save(arg(1), err)) return fail(err);
        continue;
      }
      if (op == "undo" || op == "redo") {
        op == "undo" ? wi.undo() : wi.redo();
        continue;
      }
      if (op == "quit") {
        done = true;
        return "";
      }
      // `set KEY [CLASS] VALUE`: the what-if inputs, through the controls' edit functions.
      if (op == "set") {
        if (!wi.loaded()) return fail("set: no scenario is open");
        const std::string key = arg(1);
        const std::size_t cls = 0;
        if (key == "load_scale") {
          wi.edit("load scale",
                  [&](WhatIfInputs& in) { set_curve_scale(in, wi.original(), cls, number(2)); });
        } else if (key == "peak_qps") {
          wi.edit("peak rate", [&](WhatIfInputs& in) { set_peak_qps(in, cls, number(2)); });
        } else if (key == "ttft_ms" || key == "tpot_ms" || key == "e2e_s") {
          const SlaMetric m = key == "ttft_ms"   ? SlaMetric::ttft
                              : key == "tpot_ms" ? SlaMetric::tpot
                                                 : SlaMetric::e2e;
          const double unit = key == "e2e_s" ? 1 : 1e-3;
          wi.edit(key.c_str(), [&](WhatIfInputs& in) { set_sla(in, cls, m, number(2) * unit); });
        } else if (key == "capex") {
          wi.edit("capex budget", [&](WhatIfInputs& in) {
            in.sc.constraints.capex_budget_usd = from_display(number(2), in.sc.prices);
          });
        } else if (key == "power_kw") {
          wi.edit("power cap",
                  [&](WhatIfInputs& in) { in.sc.constraints.power_cap_w = number(2) * 1e3; });
        } else if (key == "growth") {
          wi.edit("growth",
                  [&](WhatIfInputs& in) { in.sc.constraints.load_growth_per_year = number(2); });
        } else if (key == "redundancy") {
          wi.edit("redundancy",
                  [&](WhatIfInputs& in) { in.sc.constraints.redundancy = std::stoi(arg(2)); });
        } else if (key == "electricity") {
          wi.edit("electricity", [&](WhatIfInputs& in) {
            in.sc.prices.electricity_usd_per_kwh = from_display(number(2), in.sc.prices);
          });
        } else if (key == "currency") {
          wi.edit("currency", [&](WhatIfInputs& in) {
            in.sc.prices.display_currency = arg(2) == "CNY" ? Currency::cny : Currency::usd;
          });
        } else if (key == "vendor") {
          wi.edit("vendor filter",
                  [&](WhatIfInputs& in) { toggle(in.sc.candidates.vendors, arg(2)); });
        } else if (key == "precisions") {
          std::vector<std::string> p(w.begin() + 2, w.end());
          wi.edit("precisions", [&](WhatIfInputs& in) { in.sc.candidates.precisions = p; });
        } else {
          return fail("set: unknown input '" + key + "'");
        }
        continue;
      }
      return fail("unknown command '" + op + "'");
    } catch (const std::exception& e) {
      return fail(std::string("bad number: ") + e.what());
    }
  }
  done = true;
  return "";
}

}  // namespace infercap::gui
