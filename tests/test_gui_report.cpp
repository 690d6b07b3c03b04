// [gui] The Plan tab's report export, sensitivity and error bands through the view model: an
// edited scenario exported in every format is the document `infercap report` writes for the YAML
// the desk saves (the same bytes in Markdown and HTML; the same text in the PDF, the same cells
// in the XLSX), the sensitivity follows the plan on the worker and is the report's table, and
// the tornado bars hold what the cases say.
#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "catalog_fixture.hpp"
#include "gui_desk_fixture.hpp"
#include "infercap/report/export.hpp"
#include "infercap_gui/plan_job.hpp"
#include "infercap_gui/report_job.hpp"
#include "infercap_gui/uncertainty.hpp"
#include "infercap_gui/whatif.hpp"
#include "process_fixture.hpp"

using namespace infercap;
using namespace infercap::gui;
namespace fs = std::filesystem;
using infercap::test::run_command;
using infercap::test::slurp;

namespace {

const std::string& kData = infercap::test::kDataDir;
using infercap::test::catalog;

// The cell content of a workbook: every sheet's XML and the shared strings (docProps, which
// hold the creation time, are left out).
std::string xlsx_content(const fs::path& p) {
  int rc = 0;
  const std::string list = run_command("unzip -Z1 '" + p.string() + "'", &rc);
  REQUIRE(rc == 0);
  std::string out;
  std::istringstream names(list);
  for (std::string n; std::getline(names, n);) {
    if (n.rfind("xl/worksheets/", 0) != 0 && n != "xl/sharedStrings.xml") continue;
    out += "== " + n + "\n" + run_command("unzip -p '" + p.string() + "' '" + n + "'");
  }
  return out;
}

// A small, quick question: chat-service on three devices, two precisions, edited as a user
// would (more load, fp8 only), saved where `infercap report` reads it.
WhatIf edited_desk(const fs::path& yaml) {
  WhatIf w = infercap::test::small_chat_desk();
  w.edit("load", [&](WhatIfInputs& in) { set_curve_scale(in, w.original(), 0, 1.5); });
  w.edit("electricity", [](WhatIfInputs& in) { in.sc.prices.electricity_usd_per_kwh = 0.21; });
  std::string err;
  REQUIRE(w.save(yaml.string(), err));
  return w;
}

}  // namespace

TEST_CASE("report export: every format from an edited scenario is what `infercap report` writes",
          "[gui][report]") {
  const fs::path dir = fs::temp_directory_path() / "infercap-gui-report";
  fs::create_directories(dir);
  const fs::path yaml = dir / "chat-edited.yaml";
  WhatIf w = edited_desk(yaml);
  // Saved and unchanged since: the report names the file the CLI is given.
  CHECK(w.source_label() == yaml.string());
  const PlanOutcome o = solve_loaded(catalog(), w.inputs().sc);
  REQUIRE(o.state == JobState::done);
  REQUIRE(o.inputs);
  const int want_rc = o.plan->feasible ? 0 : 5;

  struct Case {
    const char* ext;
    report::Lang lang;
  };
  for (const Case& c : {Case{".md", report::Lang::en}, Case{".html", report::Lang::en},
                        Case{".pdf", report::Lang::en}, Case{".xlsx", report::Lang::en},
                        Case{".md", report::Lang::zh}, Case{".pdf", report::Lang::zh}}) {
    const std::string lang = c.lang == report::Lang::zh ? "zh" : "en";
    const fs::path gui = dir / ("gui-" + lang + c.ext);
    const fs::path cli = dir / ("cli-" + lang + c.ext);
    fs::remove(gui);
    fs::remove(cli);
    INFO(gui.string());
    const ReportExport e =
        export_plan_report(o, report_request(o, gui.string(), c.lang, w.source_label()));
    INFO(e.message);
    REQUIRE(e.state == JobState::done);
    CHECK(e.message.find("wrote " + gui.string()) == 0);
    int rc = -1;
    run_command("'" INFERCAP_CLI_PATH "' report '" + yaml.string() + "' -o '" + cli.string() +
                    "' --lang " + lang + " --data '" + kData + "' 2>&1",
                &rc);
    CHECK(rc == want_rc);
    REQUIRE(fs::exists(gui));
    REQUIRE(fs::exists(cli));
    const std::string ext = c.ext;
    if (ext == ".md" || ext == ".html") {
      const std::string g = slurp(gui);
      CHECK(g == slurp(cli));                             // byte for byte
      CHECK(g.find(yaml.string()) != std::string::npos);  // the provenance names the saved file
      if (c.lang == report::Lang::zh) CHECK(g.find("CNY") != std::string::npos);
    } else if (ext == ".pdf") {
      const std::string g = run_command("pdftotext -layout '" + gui.string() + "' -");
      CHECK(g.size() > 1000);
      CHECK(g == run_command("pdftotext -layout '" + cli.string() + "' -"));
      CHECK(run_command("pdfinfo '" + gui.string() + "' | grep Pages") ==
            run_command("pdfinfo '" + cli.string() + "' | grep Pages"));
    } else {
      const std::string g = xlsx_content(gui);
      CHECK(g.find("<f>") != std::string::npos);  // live formulas, as the CLI writes them
      CHECK(g == xlsx_content(cli));
    }
  }

  // Through the worker, as the Export report button does: the same file as the synchronous call.
  ReportJob job;
  const fs::path threaded = dir / "threaded.md";
  REQUIRE(job.start(o, report_request(o, threaded.string(), report::Lang::en, w.source_label())));
  CHECK_FALSE(job.start(o, report_request(o, (dir / "second.md").string(), report::Lang::en, "")));
  job.wait();
  CHECK(job.snapshot().state == JobState::done);
  CHECK(slurp(threaded) == slurp(dir / "gui-en.md"));
  fs::remove_all(dir);
}

TEST_CASE("report export: failures name the path and the reason; nothing half-written",
          "[gui][report]") {
  const fs::path dir = fs::temp_directory_path() / "infercap-gui-report-bad";
  fs::create_directories(dir);
  WhatIf w = edited_desk(dir / "s.yaml");
  const PlanOutcome o = solve_loaded(catalog(), w.inputs().sc);
  REQUIRE(o.state == JobState::done);

  const std::string missing = "/nonexistent-infercap-dir/report.html";
  ReportExport e = export_plan_report(o, report_request(o, missing, report::Lang::en, "s.yaml"));
  CHECK(e.state == JobState::failed);
  CHECK_THAT(e.message, Catch::Contains("report not written") && Catch::Contains(missing));
  CHECK_FALSE(fs::exists(missing));

  const std::string docx = (dir / "report.docx").string();
  e = export_plan_report(o, report_request(o, docx, report::Lang::en, "s.yaml"));
  CHECK(e.state == JobState::failed);
  CHECK_THAT(e.message, Catch::Contains(docx) && Catch::Contains("expected an extension"));
  CHECK_FALSE(fs::exists(docx));

  // No plan: refused at once, with the reason in the job's snapshot.
  ReportJob job;
  CHECK_FALSE(job.start(PlanOutcome{}, report_request(PlanOutcome{}, docx, report::Lang::en, "")));
  CHECK(job.snapshot().state == JobState::failed);
  CHECK_THAT(job.snapshot().message, Catch::Contains("no solved plan"));
  fs::remove_all(dir);
}

TEST_CASE("report export: the scenario file named is the saved one only while it is unchanged",
          "[gui]") {
  const fs::path dir = fs::temp_directory_path() / "infercap-gui-label";
  fs::create_directories(dir);
  WhatIf w;
  REQUIRE(w.open(kData + "/examples/chat-service.yaml", kData));
  CHECK(w.source_label() == kData + "/examples/chat-service.yaml");  // as opened
  w.edit("redundancy", [](WhatIfInputs& in) { in.sc.constraints.redundancy = 2; });
  CHECK(w.source_label() ==
        kData + "/examples/chat-service.yaml (edited in infercap-gui, not saved)");
  std::string err;
  REQUIRE(w.save((dir / "a.yaml").string(), err));
  CHECK(w.source_label() == (dir / "a.yaml").string());
  // (Another control's name: edits of one control within the debounce are one undo step.)
  w.edit("spares", [](WhatIfInputs& in) { in.sc.constraints.redundancy = 3; });
  CHECK_THAT(w.source_label(), Catch::EndsWith("(edited in infercap-gui, not saved)"));
  w.undo();  // back to what a.yaml holds
  CHECK(w.source_label() == (dir / "a.yaml").string());
  fs::remove_all(dir);
}

TEST_CASE("plan job: the sensitivity follows the plan on the worker and is the report's table",
          "[gui]") {
  WhatIf w = edited_desk(fs::temp_directory_path() / "infercap-gui-sens.yaml");
  PlanJob job;
  const unsigned v0 = job.version();
  auto cat = std::make_shared<const spec::Catalog>(catalog());
  REQUIRE(job.start(cat, w.inputs().sc));
  CHECK(job.busy());
  CHECK_FALSE(job.start(cat, w.inputs().sc));  // one at a time, sensitivity included
  job.wait();
  CHECK_FALSE(job.busy());
  // begin, the plan, the plan with its sensitivity: three versions.
  CHECK(job.version() == v0 + 3);
  const PlanOutcome o = job.snapshot();
  REQUIRE(o.state == JobState::done);
  REQUIRE(o.sensitivity_state == JobState::done);
  REQUIRE(o.sensitivity.has_value());
  REQUIRE(o.sensitivity_table.has_value());
  // The same computation as the report's (build_document with `infercap report`'s options).
  const report::ReportOptions opt = report::export_options(report::ExportRequest{});
  const Sensitivity want = sensitivity(*o.inputs, *o.plan, report::sensitivity_options(opt));
  REQUIRE(o.sensitivity->cases.size() == want.cases.size());
  CHECK(o.sensitivity->base_choice == want.base_choice);
  for (std::size_t i = 0; i < want.cases.size(); ++i) {
    CHECK(o.sensitivity->cases[i].choice == want.cases[i].choice);
    CHECK(o.sensitivity->cases[i].tco_usd == Approx(want.cases[i].tco_usd).epsilon(1e-12));
  }
  // Load, electricity and device prices down and up, SLA half and double, horizon -1 and +1
  // (a 3-year horizon), and the model's error (14.5%, the larger median): 11 cases.
  CHECK(want.cases.size() == 11);
  const report::Document d = report::build_document(*o.inputs, *o.plan, opt);
  const report::Section* rs = nullptr;
  for (const auto& s : d.sections)
    if (s.id == "sensitivity") rs = &s;
  REQUIRE(rs != nullptr);
  CHECK(report::dump(report::Document{report::Lang::en, "", "", "", "", "", "", {*rs}}) ==
        report::dump(
            report::Document{report::Lang::en, "", "", "", "", "", "", {*o.sensitivity_table}}));
  // Its tornado: one bar per parameter, every case placed.
  const auto bars = tornado(*o.sensitivity, &*o.sensitivity_table);
  CHECK(bars.size() == 6);
  std::size_t ends = 0;
  for (const auto& b : bars) ends += (b.down.present ? 1 : 0) + (b.up.present ? 1 : 0);
  CHECK(ends == want.cases.size());
}

TEST_CASE("tornado: bars widest first, each case on its side, the report's words", "[gui]") {
  Sensitivity s;
  s.base_choice = "chat: h100-sxm fp8 vllm TP1";
  s.base_tco_usd = 1e6;
  auto add = [&](SensitivityParam p, double f, bool ok, double change, bool same) {
    SensitivityCase k;
    k.param = p;
    k.factor = f;
    k.feasible = ok;
    k.tco_change = change;
    k.tco_usd = 1e6 * (1 + change);
    k.same_choice = same;
    k.choice = same ? s.base_choice : "chat: l40s fp8 vllm TP1";
    s.cases.push_back(k);
  };
  add(SensitivityParam::load, 0.5, true, -0.20, true);
  add(SensitivityParam::load, 1.5, true, 0.30, false);
  add(SensitivityParam::electricity, 0.5, true, -0.02, true);
  add(SensitivityParam::electricity, 1.5, true, 0.02, true);
  add(SensitivityParam::sla, 0.5, false, 0, false);
  add(SensitivityParam::sla, 2, true, -0.05, true);
  add(SensitivityParam::horizon, -1, true, -0.25, true);
  add(SensitivityParam::model_error, 1.145, true, 0.10, true);
  auto bars = tornado(s);
  REQUIRE(bars.size() == 5);
  // Spans: SLA 1 (an infeasible case counts as 100%), load 0.30, horizon 0.25, model error
  // 0.10, electricity 0.02.
  CHECK(bars[0].param == SensitivityParam::sla);
  CHECK(bars[1].param == SensitivityParam::load);
  CHECK(bars[2].param == SensitivityParam::horizon);
  CHECK(bars[3].param == SensitivityParam::model_error);
  CHECK(bars[4].param == SensitivityParam::electricity);
  CHECK(bars[0].span() == 1.0);
  CHECK(bars[1].span() == Approx(0.30));
  CHECK_FALSE(bars[0].down.feasible);  // SLA halved: no answer
  CHECK(bars[0].up.tco_change == Approx(-0.05));
  CHECK(bars[1].down.tco_change == Approx(-0.20));
  CHECK_FALSE(bars[1].up.same_choice);
  CHECK(bars[1].up.choice == "chat: l40s fp8 vllm TP1");
  CHECK(bars[2].down.present);  // a year less is the lowered side
  CHECK_FALSE(bars[2].up.present);
  CHECK(bars[3].up.present);  // the model overestimating capacity is a raised load
  CHECK_FALSE(bars[3].down.present);
  CHECK(bars[1].up.words == "load +50%");
  CHECK(bars[0].down.words == "SLA halved");
  CHECK(bars[2].down.words == "horizon -1 year");

  // With the report's table, the words are its first column, row for row.
  report::Section sec;
  report::Block b;
  b.kind = report::BlockKind::table;
  b.table.columns = {{"change", "变化", report::ColType::text, 0, "", false}};
  for (std::size_t i = 0; i < s.cases.size(); ++i)
    b.table.add({report::Cell::str("row " + std::to_string(i))});
  sec.blocks.push_back(b);
  bars = tornado(s, &sec);
  CHECK(bars[1].down.words == "row 0");
  CHECK(bars[1].up.words == "row 1");
  CHECK(bars[0].down.words == "row 4");
}
