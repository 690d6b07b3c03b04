// The procurement report (core/report): message catalogues, the document model (goldens for two
// scenarios), the live formulas, the sensitivity function, and each format's safety and shape.
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "catalog_fixture.hpp"
#include "infercap/error_band.hpp"
#include "infercap/report/build.hpp"
#include "infercap/report/export.hpp"
#include "infercap/report/render.hpp"
#include "infercap/sensitivity.hpp"
#include "infercap/spec/residuals.hpp"
#include "infercap/spec/scenario.hpp"
#include "messages.hpp"
#include "process_fixture.hpp"
#include "tmp_path.hpp"

using namespace infercap;
using namespace infercap::report;
using infercap::test::run_command;
using infercap::test::slurp;

namespace {

const std::string kData = INFERCAP_SOURCE_DIR "/data";

struct Solved {
  PlanInputs in;
  Plan plan;
};

Solved solve_example(const std::string& name, Currency cur = Currency::usd) {
  spec::Diagnostics d;
  auto sc = spec::load_scenario(kData + "/examples/" + name + ".yaml", kData, d);
  REQUIRE(sc);
  auto in = spec::to_plan_inputs(*sc, test::project_catalog().catalog, d);
  REQUIRE(in);
  in->prices.display_currency = cur;
  auto plan = solve(*in);
  REQUIRE(plan);
  return {std::move(*in), std::move(*plan)};
}

ReportOptions options(Lang lang) {
  ReportOptions o;
  o.lang = lang;
  o.spec_file = "SPEC.yaml";
  o.accuracy = {0.072, 0.145, "docs/validation.md"};
  return o;
}

const Table* find_table(const Document& d, const std::string& id) {
  for (const auto& s : d.sections) {
    for (const auto& b : s.blocks) {
      if (b.kind == BlockKind::table && b.table.id == id) return &b.table;
    }
  }
  return nullptr;
}

// Placeholders of an fmt string: "{}" counted, or the highest "{n}" + 1.
int placeholders(std::string_view s) {
  int automatic = 0, top = -1;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    if (s[i] != '{') continue;
    if (s[i + 1] == '}') ++automatic;
    if (std::isdigit(static_cast<unsigned char>(s[i + 1]))) top = std::max(top, s[i + 1] - '0');
  }
  return automatic > 0 ? automatic : top + 1;
}

void golden(const std::string& file, const std::string& text) {
  const std::string path = std::string(INFERCAP_SOURCE_DIR) + "/tests/data/report/" + file;
  if (std::getenv("INFERCAP_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path, std::ios::binary) << text;
  }
  const std::string want = slurp(path);
  REQUIRE_FALSE(want.empty());
  // Compare line by line so a failure names the first line that moved.
  std::istringstream a(text), b(want);
  std::string la, lb;
  int line = 0;
  while (true) {
    const bool ga = static_cast<bool>(std::getline(a, la));
    const bool gb = static_cast<bool>(std::getline(b, lb));
    ++line;
    if (!ga && !gb) break;
    INFO(file << " line " << line);
    REQUIRE(la == lb);
  }
}

}  // namespace

TEST_CASE("report messages: every key has English and Chinese text with the same placeholders",
          "[report][unit]") {
  std::set<int> en, zh;
  for (int i = 0; i < kMessagesEnCount; ++i) en.insert(static_cast<int>(kMessagesEn[i].key));
  for (int i = 0; i < kMessagesZhCount; ++i) zh.insert(static_cast<int>(kMessagesZh[i].key));
  CHECK(static_cast<int>(en.size()) == kMessageCount);
  CHECK(static_cast<int>(zh.size()) == kMessageCount);
  CHECK(kMessagesEnCount == kMessageCount);  // no key twice
  CHECK(kMessagesZhCount == kMessageCount);
  for (int i = 0; i < kMessageCount; ++i) {
    const M m = static_cast<M>(i);
    INFO(message_key(m));
    CHECK_FALSE(message(Lang::en, m).empty());
    CHECK(placeholders(message(Lang::en, m)) == placeholders(message(Lang::zh, m)));
  }
  // A Chinese catalogue that is a real translation: its section titles contain CJK text.
  CHECK(message(Lang::zh, M::sec_summary) == "执行摘要");
  CHECK(message(Lang::en, M::sec_summary) == "Executive summary");
  CHECK(constraint_msg("memory") == M::c_memory);
  CHECK(constraint_msg("no-such") == M::c_other);
}

TEST_CASE("report formulas: the expression evaluator does what a spreadsheet does",
          "[report][unit]") {
  Table t;
  t.columns = {{"a", "A", ColType::number, 2, "", false},
               {"b", "B", ColType::number, 2, "", false},
               {"c", "C", ColType::number, 2, "({a}+{b})*2-{a}/4", false},
               {"d", "D", ColType::number, 2, "{c}*{nope}", false}};
  t.add({Cell::num(2), Cell::num(3), Cell::none(), Cell::none()});
  evaluate_formulas(t);
  CHECK(t.rows[0][2].value == Approx((2 + 3) * 2 - 2.0 / 4));  // 9.5
  CHECK(t.rows[0][3].empty);                                   // an unknown id is no number
  CHECK(t.total("a") == 2);
}

TEST_CASE("report document model: golden dumps for two scenarios", "[report][golden]") {
  {
    const Solved s = solve_example("support-bot");
    const Document d = build_document(s.in, s.plan, options(Lang::en));
    golden("support-bot.en.txt", dump(d));
  }
  {
    const Solved s = solve_example("staged-growth", Currency::cny);
    const Document d = build_document(s.in, s.plan, options(Lang::zh));
    golden("staged-growth.zh.txt", dump(d));
  }
}

TEST_CASE("report document model: sections, and money that matches the solver", "[report]") {
  const Solved s = solve_example("staged-growth");
  REQUIRE(s.plan.feasible);
  const Document d = build_document(s.in, s.plan, options(Lang::en));
  std::vector<std::string> ids;
  for (const auto& sec : d.sections) ids.push_back(sec.id);
  CHECK(ids == std::vector<std::string>{"summary", "requirement", "candidates", "bom",
                                        "sensitivity", "risks", "poc", "provenance"});
  // The BOM's formula columns (devices x unit price + servers x server price) add up to the
  // capital the solver spent, purchase by purchase (tco.cpp's rule).
  const Table* bom = find_table(d, "bom");
  REQUIRE(bom != nullptr);
  CHECK(bom->total("total") == Approx(s.plan.recommended.cost.capex_usd).epsilon(1e-9));
  CHECK(bom->total("device_cost") + bom->total("server_cost") ==
        Approx(s.plan.recommended.cost.capex_usd).epsilon(1e-9));
  // One BOM row per purchase, in the years the solver bought (a staged plan buys as load grows).
  std::multiset<double> years, bought;
  for (const auto& r : bom->rows) years.insert(r[static_cast<size_t>(bom->column("year"))].value);
  for (const auto& p : s.plan.recommended.cost.purchases) bought.insert(p.year + 1);
  CHECK(years == bought);
  CHECK_FALSE(years.empty());
  // TCO per finalist: energy = kWh x price and TCO = the sum of its parts, equal to the solver's.
  const Table* tco = find_table(d, "tco");
  REQUIRE(tco != nullptr);
  REQUIRE_FALSE(tco->rows.empty());
  const auto& part = s.plan.recommended.parts.front();
  const auto& row = tco->rows.front();
  CHECK(row[static_cast<size_t>(tco->column("tco"))].value ==
        Approx(part.cost.tco_usd).epsilon(1e-9));
  CHECK(row[static_cast<size_t>(tco->column("energy"))].value ==
        Approx(part.cost.energy_usd).epsilon(1e-9));
  // Load against capacity: the scenario's rate in year 1, growing to the parts' final-year design
  // load; the staged parts' capacities add up to the fleet's in the final year.
  const Table* cap = find_table(d, "capacity");
  REQUIRE(cap != nullptr);
  const double g = s.in.constraints.load_growth_per_year;
  const auto load = static_cast<size_t>(cap->column("load_qps"));
  CHECK(cap->rows.front()[load].value ==
        Approx(design_qps(s.in.pools.front().classes.front().rate)));
  CHECK(cap->rows.back()[load].value == Approx(part.design_qps));
  CHECK(
      cap->rows.back()[load].value ==
      Approx(cap->rows.front()[load].value * std::pow(1 + g, s.in.constraints.horizon_years - 1)));
  double final_capacity = 0;
  for (const auto& p : s.plan.recommended.parts)
    final_capacity += p.replicas * p.max_qps_per_replica;
  CHECK(cap->rows.back()[static_cast<size_t>(cap->column("capacity_qps"))].value ==
        Approx(final_capacity));
  // In CNY every money column is converted at the book's rate.
  const Solved c = solve_example("staged-growth", Currency::cny);
  const Document dz = build_document(c.in, c.plan, options(Lang::zh));
  const Table* bz = find_table(dz, "bom");
  REQUIRE(bz != nullptr);
  CHECK(bz->total("total") == Approx(s.plan.recommended.cost.capex_usd * c.in.prices.cny_per_usd));
  CHECK(dz.currency == "CNY");
  CHECK(dz.sections[0].title == "执行摘要");
}

TEST_CASE("sensitivity: cases as stated, and break-even points where the TCOs meet",
          "[report][solver]") {
  Solved s = solve_example("support-bot");
  REQUIRE(s.plan.feasible);
  SensitivityOptions o;
  o.model_error_fraction = 0.145;
  const Sensitivity sens = sensitivity(s.in, s.plan, o);
  // load -/+, electricity -/+, prices -/+, SLA half/double, horizon -/+, model error.
  REQUIRE(sens.cases.size() == 11);
  // The cases are compared with the unchanged inputs solved the same way (analytic ranking).
  PlanInputs analytic = s.in;
  analytic.verify_top = 0;
  auto base = solve(analytic);
  REQUIRE(base);
  CHECK(sens.base_tco_usd == Approx(base->recommended.cost.tco_usd));
  CHECK(sens.base_choice == fleet_key(base->recommended));
  CHECK(sens.plan_choice == fleet_key(s.plan.recommended));
  for (const auto& c : sens.cases) {
    if (!c.feasible) continue;
    // More load, dearer power or devices, a longer horizon: never cheaper than the base.
    const bool up =
        (c.param == SensitivityParam::load || c.param == SensitivityParam::electricity ||
         c.param == SensitivityParam::device_prices || c.param == SensitivityParam::model_error) &&
        c.factor > 1;
    if (up) CHECK(c.tco_usd >= sens.base_tco_usd * (1 - 1e-9));
    if (c.param == SensitivityParam::horizon && c.factor > 0) CHECK(c.tco_usd > sens.base_tco_usd);
  }
  // Price cases of a single pool are re-priced rather than re-solved: the same answer as solving.
  for (const auto& c : sens.cases) {
    if (c.param != SensitivityParam::electricity && c.param != SensitivityParam::device_prices)
      continue;
    PlanInputs x = s.in;
    x.verify_top = 0;
    if (c.param == SensitivityParam::electricity) x.prices.electricity_usd_per_kwh *= c.factor;
    for (auto& dp : x.prices.devices) {
      for (auto& t : dp.tiers) {
        if (c.param == SensitivityParam::device_prices) t.unit_price_usd *= c.factor;
      }
    }
    auto solved = solve(x);
    REQUIRE(solved);
    INFO(sensitivity_param_name(c.param) << " x" << c.factor);
    CHECK(c.tco_usd == Approx(solved->recommended.cost.tco_usd).epsilon(1e-9));
    CHECK(c.choice == fleet_key(solved->recommended));
  }
  // Electricity: both TCOs are affine in the price; at the break-even they are equal.
  const PoolResult& pr = s.plan.pools.front();
  const CandidateRow* ru = runner_up(s.plan, pr);
  REQUIRE(ru != nullptr);
  const CandidateRow& lead = pr.ranked.front();
  auto tco_of = [&](const PlanInputs& x, const CandidateRow& r, const Pool& p) {
    const HardwareSpec* h = nullptr;
    for (const auto& k : x.space.hardware)
      if (k.name == r.hardware) h = &k;
    const StackSpec* st = nullptr;
    for (const auto& k : x.space.stacks)
      if (k.name == r.stack) st = &k;
    const PrecisionChoice* pc = nullptr;
    for (const auto& k : x.space.precisions)
      if (k.name == r.precision) pc = &k;
    REQUIRE((h && st && pc));
    return evaluate_candidate(x, p, x.models.front(), *h, *st, *pc, r.tp, r.max_seqs).cost.tco_usd;
  };
  for (const auto& b : sens.break_evens) {
    INFO(sensitivity_param_name(b.param));
    CHECK(b.leader == candidate_key(lead));
    CHECK(b.runner_up == candidate_key(*ru));
    if (!b.found) continue;
    if (b.param == SensitivityParam::electricity) {
      PlanInputs x = s.in;
      x.prices.electricity_usd_per_kwh = b.at;
      CHECK(tco_of(x, *ru, s.in.pools.front()) ==
            Approx(tco_of(x, lead, s.in.pools.front())).epsilon(1e-6));
    }
    if (b.param == SensitivityParam::load) {
      // Just past the crossing the runner-up is cheaper; just before it, the leader.
      auto diff = [&](double f) {
        Pool p = s.in.pools.front();
        for (auto& c : p.classes) c = scale_rate(c, f);
        return tco_of(s.in, *ru, p) - tco_of(s.in, lead, p);
      };
      const double before = b.runner_up_wins_beyond ? b.at / 1.002 : b.at * 1.002;
      CHECK(diff(b.at) < 0);
      CHECK(diff(before) >= 0);
    }
  }
  // A one-year horizon has no "one year less" case.
  PlanInputs one = s.in;
  one.constraints.horizon_years = 1;
  auto p1 = solve(one);
  REQUIRE(p1);
  const Sensitivity s1 = sensitivity(one, *p1, {});
  int horizon_cases = 0;
  for (const auto& c : s1.cases) horizon_cases += c.param == SensitivityParam::horizon ? 1 : 0;
  CHECK(horizon_cases == 1);
}

namespace {

// A plan whose user-supplied names try to break out of HTML and Markdown.
Document hostile_document() {
  spec::Diagnostics d;
  auto sc = spec::load_scenario(kData + "/examples/support-bot.yaml", kData, d);
  REQUIRE(sc);
  auto in = spec::to_plan_inputs(*sc, test::project_catalog().catalog, d);
  REQUIRE(in);
  in->name = "<script>alert('x')</script> & co";
  for (auto& p : in->pools) p.name = "tier|a <!-- open";
  auto plan = solve(*in);
  REQUIRE(plan);
  ReportOptions o = options(Lang::en);
  o.description = "| broken | table <!-- never closed *bold _under `tick";
  o.spec_file = "\"quoted\" <b>spec</b>.yaml";
  o.run_sensitivity = false;
  o.knee = false;
  return build_document(*in, *plan, o);
}

}  // namespace

TEST_CASE("HTML report: self-contained, every user string escaped", "[report]") {
  const std::string h = render_html(hostile_document());
  CHECK(h.find("<script") == std::string::npos);
  CHECK(h.find("<!--") == std::string::npos);
  CHECK(h.find("<b>") == std::string::npos);
  CHECK(h.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; co") != std::string::npos);
  CHECK(h.find("tier|a &lt;!-- open") != std::string::npos);
  // Every tag is one the renderer writes; nothing external is requested.
  const std::set<std::string> allowed = {
      "!DOCTYPE", "html",  "head",  "meta",     "title",  "style", "body", "h1",      "h2",
      "h3",       "p",     "nav",   "ol",       "ul",     "li",    "a",    "section", "table",
      "caption",  "thead", "tbody", "tr",       "th",     "td",    "pre",  "code",    "figure",
      "svg",      "rect",  "line",  "polyline", "circle", "text"};
  const std::regex tag("<(/?)([!A-Za-z][A-Za-z0-9]*)");
  for (auto it = std::sregex_iterator(h.begin(), h.end(), tag); it != std::sregex_iterator();
       ++it) {
    INFO((*it)[2].str());
    CHECK(allowed.count((*it)[2].str()) == 1);
  }
  CHECK(h.find("src=") == std::string::npos);
  CHECK(h.find("http://www.w3.org/2000/svg") != std::string::npos);  // a namespace, not a request
  CHECK(h.find("<link") == std::string::npos);
}

TEST_CASE("Markdown report: a | or an unclosed <!-- in a name cannot break it", "[report]") {
  const std::string md = render_markdown(hostile_document());
  CHECK(md.find("<!--") == std::string::npos);
  CHECK(md.find("<script") == std::string::npos);
  CHECK(md.find("tier\\|a &lt;!-- open") != std::string::npos);
  // Every table row has as many unescaped pipes as its header row.
  std::istringstream in(md);
  std::string line;
  int header_pipes = -1, rows = 0;
  auto pipes = [](const std::string& l) {
    int n = 0;
    for (size_t i = 0; i < l.size(); ++i)
      if (l[i] == '|' && (i == 0 || l[i - 1] != '\\')) ++n;
    return n;
  };
  bool in_code = false;
  while (std::getline(in, line)) {
    if (line.rfind("```", 0) == 0) in_code = !in_code;
    if (in_code) continue;
    if (line.empty() || line[0] != '|') {
      header_pipes = -1;
      continue;
    }
    if (header_pipes < 0) {
      header_pipes = pipes(line);
    } else {
      INFO(line);
      CHECK(pipes(line) == header_pipes);
      ++rows;
    }
  }
  CHECK(rows > 10);
  CHECK(markdown_escape("1. not a list") == "1\\. not a list");
  CHECK(markdown_escape("- not a bullet") == "\\- not a bullet");
}

namespace {

struct XCell {
  std::string formula;
  double value = 0;
  bool is_string = false;
};

// Cells of one sheet XML: r="D5" -> formula, cached value.
std::map<std::string, XCell> sheet_cells(const std::string& xml) {
  std::map<std::string, XCell> out;
  const std::regex cell(
      R"re(<c r="([A-Z]+[0-9]+)"([^>]*)>(?:<f>([^<]*)</f>)?(?:<v>([^<]*)</v>)?</c>)re");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), cell); it != std::sregex_iterator();
       ++it) {
    XCell c;
    c.is_string = (*it)[2].str().find("t=\"s\"") != std::string::npos;
    c.formula = (*it)[3].str();
    if ((*it)[4].matched && !c.is_string) c.value = std::stod((*it)[4].str());
    out[(*it)[1].str()] = c;
  }
  return out;
}

}  // namespace

TEST_CASE("XLSX report: BOM and TCO as live formulas whose cached values recompute", "[report]") {
  const Solved s = solve_example("staged-growth");
  ReportOptions o = options(Lang::en);
  o.run_sensitivity = false;
  const Document d = build_document(s.in, s.plan, o);
  const std::string path = infercap::testing::tmp_path("infercap-test-report.xlsx");
  auto w = render_to_path(d, path);
  REQUIRE(w);
  CHECK(*w == Format::xlsx);
  int rc = 0;
  const std::string wb = run_command("unzip -p " + path + " xl/workbook.xml", &rc);
  REQUIRE(rc == 0);
  CHECK(std::regex_search(wb, std::regex("<sheet name=\"4 Bill of materials\"")));
  const auto cells = sheet_cells(run_command("unzip -p " + path + " xl/worksheets/sheet4.xml"));
  // Recompute every formula from the cells it names: "D5*E5", "G5+J5", "SUM(K5:K7)".
  const std::regex product(R"(^([A-Z]+[0-9]+)([*+])([A-Z]+[0-9]+)$)");
  const std::regex sum(R"(^SUM\(([A-Z]+)([0-9]+):([A-Z]+)([0-9]+)\)$)");
  int formulas = 0, sums = 0;
  for (const auto& [ref, c] : cells) {
    if (c.formula.empty()) continue;
    ++formulas;
    std::smatch m;
    INFO(ref << " = " << c.formula);
    if (std::regex_match(c.formula, m, product)) {
      const double a = cells.at(m[1]).value, b = cells.at(m[3]).value;
      CHECK(c.value == Approx(m[2] == "*" ? a * b : a + b));
    } else {
      REQUIRE(std::regex_match(c.formula, m, sum));
      double t = 0;
      for (int r = std::stoi(m[2]); r <= std::stoi(m[4]); ++r)
        t += cells.at(m[1].str() + std::to_string(r)).value;
      CHECK(c.value == Approx(t));
      ++sums;
    }
  }
  // Every summed column of every table on the sheet has its SUM (BOM, footprint, spend per year).
  int expected_sums = 0, formula_cells = 0;
  for (const auto& sec : d.sections) {
    if (sec.id != "bom") continue;
    for (const auto& b : sec.blocks) {
      if (b.kind != BlockKind::table) continue;
      for (const auto& col : b.table.columns) {
        if (col.sum && b.table.total_row) ++expected_sums;
        if (!col.formula.empty()) formula_cells += static_cast<int>(b.table.rows.size());
      }
    }
  }
  CHECK(sums == expected_sums);
  CHECK(formulas == formula_cells + expected_sums);
  CHECK(formula_cells >= 3);  // devices x price, servers x price, their sum: per purchase
  // The purchase total in the spreadsheet is the solver's capital spend.
  double grand = 0;
  for (const auto& [ref, c] : cells)
    if (c.formula.rfind("SUM(K", 0) == 0) grand = c.value;
  CHECK(grand == Approx(s.plan.recommended.cost.capex_usd));
  // Numbers are numbers: on every purchase row (a D*E formula in G) the count and the unit price
  // are numeric cells, not text.
  int purchase_rows = 0;
  for (const auto& [ref, c] : cells) {
    if (ref[0] != 'G' || c.formula.empty() || c.formula.rfind("SUM", 0) == 0) continue;
    const std::string row = ref.substr(1);
    ++purchase_rows;
    CHECK_FALSE(cells.at("D" + row).is_string);
    CHECK_FALSE(cells.at("E" + row).is_string);
    CHECK(cells.at("E" + row).value > 0);
  }
  CHECK(purchase_rows == static_cast<int>(find_table(d, "bom")->rows.size()));
  // The TCO sheet's energy cells multiply kWh by the price per kWh.
  const auto cand = sheet_cells(run_command("unzip -p " + path + " xl/worksheets/sheet3.xml"));
  int energy = 0;
  for (const auto& [ref, c] : cand)
    if (std::regex_match(c.formula, std::regex(R"(^C[0-9]+\*D[0-9]+$)"))) ++energy;
  CHECK(energy >= 1);
  CHECK(run_command("unzip -l " + path).find("xl/charts/chart1.xml") != std::string::npos);
  std::remove(path.c_str());
}

TEST_CASE("PDF report: pages, contents, page numbers, embedded fonts, Chinese text", "[report]") {
  const Solved s = solve_example("support-bot", Currency::cny);
  for (Lang lang : {Lang::en, Lang::zh}) {
    ReportOptions o = options(lang);
    o.run_sensitivity = false;
    const Document d = build_document(s.in, s.plan, o);
    const std::string path = std::string(infercap::testing::tmp_path("infercap-test-report-")) +
                             (lang == Lang::zh ? "zh" : "en") + ".pdf";
    auto pages = write_pdf(d, path);
    REQUIRE(pages);
    CHECK(*pages >= 9);  // a contents page, then every section on its own page(s)
    int rc = 0;
    const std::string info = run_command("pdfinfo " + path, &rc);
    REQUIRE(rc == 0);
    CHECK(std::regex_search(info, std::regex("Pages:\\s+" + std::to_string(*pages) + "\n")));
    const std::string text = run_command("pdftotext -layout " + path + " -");
    if (lang == Lang::en) {
      CHECK(text.find("Contents") != std::string::npos);
      CHECK(text.find("1. Executive summary") != std::string::npos);
      CHECK(text.find("8. Provenance") != std::string::npos);
      CHECK(text.find(fmt::format("Page {} of {}", *pages, *pages)) != std::string::npos);
    } else {
      CHECK(text.find("目录") != std::string::npos);
      CHECK(text.find("1. 执行摘要") != std::string::npos);
      CHECK(text.find("物料清单") != std::string::npos);
      CHECK(text.find(fmt::format("第 {} 页，共 {} 页", *pages, *pages)) != std::string::npos);
      CHECK(text.find("元") != std::string::npos);
    }
    // The contents page's numbers are the pages where the sections start: the summary is on 2.
    const std::string page2 = run_command("pdftotext -f 2 -l 2 " + path + " -");
    CHECK(page2.find(d.sections[0].title) != std::string::npos);
    const std::string fonts = run_command("pdffonts " + path);
    CHECK(fonts.find("NotoSansCJK") != std::string::npos);
    std::istringstream fl(fonts);
    std::string l;
    int rows = 0;
    std::getline(fl, l);
    std::getline(fl, l);
    while (std::getline(fl, l)) {
      INFO(l);
      CHECK(l.find(" yes yes ") != std::string::npos);  // embedded, subset
      ++rows;
    }
    CHECK(rows >= 1);
    std::remove(path.c_str());
  }
}

TEST_CASE("report command: format by extension, language and currency, clear errors",
          "[report][golden]") {
  const std::string cli =
      std::string("INFERCAP_DATA_DIR='") + kData + "' '" + INFERCAP_CLI_PATH + "' ";
  const std::string spec = kData + "/examples/support-bot.yaml";
  int rc = -1;
  const std::string out = infercap::testing::tmp_path("infercap-test-report-cli.html");
  std::remove(out.c_str());
  run_command(cli + "report " + spec + " -o " + out + " --lang zh --no-sensitivity 2>&1", &rc);
  CHECK(rc == 0);
  const std::string h = slurp(out);
  CHECK(h.find("<html lang=\"zh-CN\">") != std::string::npos);
  CHECK(h.find("（元）") != std::string::npos);  // zh defaults to CNY
  std::remove(out.c_str());
  const std::string e1 = run_command(cli + "report " + spec + " -o /tmp/r.docx 2>&1", &rc);
  CHECK(rc == 3);
  CHECK(e1.find("expected an extension .md, .html, .pdf or .xlsx, found '.docx'") !=
        std::string::npos);
  const std::string e2 = run_command(cli + "report " + spec + " -o /tmp/r.md --lang fr 2>&1", &rc);
  CHECK(rc == 3);
  CHECK(e2.find("--lang") != std::string::npos);
  run_command(cli + "report " + spec + " -o /nonexistent-dir/r.pdf --no-sensitivity 2>&1", &rc);
  CHECK(rc == 4);
}

TEST_CASE("report of an infeasible plan: says why and what would fix it, in every format",
          "[report]") {
  spec::Diagnostics d;
  auto sc = spec::load_scenario(kData + "/examples/support-bot.yaml", kData, d);
  REQUIRE(sc);
  auto in = spec::to_plan_inputs(*sc, test::project_catalog().catalog, d);
  REQUIRE(in);
  in->constraints.capex_budget_usd = 100;  // below the price of one server
  auto plan = solve(*in);
  REQUIRE(plan);
  REQUIRE_FALSE(plan->feasible);
  ReportOptions o = options(Lang::en);
  o.run_sensitivity = false;
  const Document doc = build_document(*in, *plan, o);
  REQUIRE(doc.sections.size() == 8);
  REQUIRE_FALSE(doc.sections[0].blocks.empty());
  CHECK(doc.sections[0].blocks[0].text.rfind("No fleet meets every constraint: ", 0) == 0);
  CHECK(doc.sections[0].blocks[0].text.find(plan->infeasible_reason) != std::string::npos);
  CHECK(find_table(doc, "bom") == nullptr);  // nothing to buy
  // In Chinese the reason is said in Chinese from the nearest candidate; the solver is quoted.
  const Document zh = build_document(*in, *plan, [] {
    ReportOptions z = options(Lang::zh);
    z.run_sensitivity = false;
    return z;
  }());
  CHECK(zh.sections[0].blocks[0].text.rfind("没有机群能满足全部约束。最接近可行的候选是 ", 0) == 0);
  REQUIRE(zh.sections[0].blocks.size() >= 3);
  CHECK(zh.sections[0].blocks[2].items.front() == plan->infeasible_reason);
  for (const char* ext : {".md", ".html", ".pdf", ".xlsx"}) {
    const std::string path =
        std::string(infercap::testing::tmp_path("infercap-test-infeasible")) + ext;
    INFO(ext);
    CHECK(render_to_path(doc, path));
    std::remove(path.c_str());
  }
}

TEST_CASE("the report's stated accuracy is the committed held-out residuals' median", "[golden]") {
  // export_options states the llama.cpp GPU fit's median error on a device left out of it
  // (docs/validation.md, "Fitted stacks"). data/validation/residuals.csv holds those held-out
  // rows (written by scripts/validation-report.sh): r = ln(predicted time / measured time), so a
  // rate's error is predicted / measured - 1 = e^-r - 1. After a refit regenerates the file, this
  // fails until the constant is updated with it (stated to three decimals: within 0.0005).
  spec::Diagnostics d;
  const auto rows =
      spec::read_residuals(std::string(INFERCAP_SOURCE_DIR) + "/data/validation/residuals.csv", d);
  INFO(d.format());
  REQUIRE_FALSE(d.has_errors());
  auto median_error = [&](ErrorQuantity q) {
    std::vector<double> e;
    for (const auto& r : rows) {
      if (r.stack == "llama.cpp" && r.hw_class == HwClass::gpu && r.quantity == q && r.held_out)
        e.push_back(std::fabs(std::exp(-r.log_time_ratio) - 1));
    }
    REQUIRE(e.size() >= 20);
    std::sort(e.begin(), e.end());
    const size_t n = e.size();
    return n % 2 ? e[n / 2] : (e[n / 2 - 1] + e[n / 2]) / 2;
  };
  const ReportOptions o = export_options(ExportRequest{});
  CHECK(o.accuracy.decode_median_error == Approx(median_error(ErrorQuantity::decode)).margin(5e-4));
  CHECK(o.accuracy.prefill_median_error ==
        Approx(median_error(ErrorQuantity::prefill)).margin(5e-4));
}
