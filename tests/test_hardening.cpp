// Hostile numbers and limits (issue 13): values that are finite as written but not once
// converted, counts past their stated ceilings, NaN from files and flags, limits of the model's
// context and the simulator. Each must end in a located diagnostic or an infeasible answer that
// names its binding constraint, never in a wrapped count or a NaN that is "recommended".
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <string>

#include <fstream>
#include "infercap/solver.hpp"
#include "infercap/spec/atomic_write.hpp"
#include "infercap/spec/catalog.hpp"
#include "infercap/spec/csv.hpp"

#include "infercap/spec/diagnostics.hpp"
#include "infercap/spec/scenario.hpp"
#include "infercap/spec/text_file.hpp"
#include "infercap/units.hpp"
#include "output.hpp"

// Last: <unistd.h> (getpid) after the headers above.
#include <unistd.h>

#include "small_scenario.hpp"

using namespace infercap;

namespace {

const std::string kData = std::string(INFERCAP_SOURCE_DIR) + "/data";

const char* const kScenario = testing::kSmallScenario;

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto pos = s.find(from);
  REQUIRE(pos != std::string::npos);
  return s.replace(pos, from.size(), to);
}

// Parses a scenario's text and returns every diagnostic line ("" if none).
std::string diagnose(const std::string& text) {
  spec::Diagnostics d;
  spec::Document doc = spec::parse_text(text, "s.yaml", d);
  if (doc.ok) (void)spec::parse_scenario(doc, kData, d);
  return d.format();
}

const spec::Catalog& catalog() {
  static const spec::Catalog cat = [] {
    spec::Diagnostics d;
    auto c = spec::Catalog::load(kData, d);
    REQUIRE_FALSE(d.has_errors());
    return c;
  }();
  return cat;
}

// Reads and resolves a scenario; the diagnostics go to `d`.
std::optional<PlanInputs> resolve(const std::string& text, spec::Diagnostics& d) {
  spec::Document doc = spec::parse_text(text, "s.yaml", d);
  REQUIRE(doc.ok);
  auto sc = spec::parse_scenario(doc, kData, d);
  if (!sc) return std::nullopt;
  return spec::to_plan_inputs(*sc, catalog(), d);
}

}  // namespace

TEST_CASE("a quantity finite as written but not once converted is refused", "[unit]") {
  // 1e308 is a finite double; times 1e12 (TB/s) it is not.
  auto r = parse_quantity("1e308 TB/s", Dim::bytes_per_s);
  REQUIRE_FALSE(r);
  CHECK(r.error().message ==
        "expected a bandwidth (bytes/s), found '1e308 TB/s' (out of range once converted to "
        "bytes/s)");
  // The same number as a bare SI value is finite and accepted.
  CHECK(parse_quantity("1e308", Dim::bytes_per_s).ok());
  for (const char* s : {"nan GB", "inf s", "-inf W", "NaN", "1e999 B"})
    CHECK_FALSE(parse_quantity(s, dim_from_key(std::string("x_") + "bytes")).ok());
}

TEST_CASE("an over-long value is echoed cut at 80 bytes with its length", "[unit]") {
  const std::string big(100000, 'x');
  auto r = parse_quantity(big, Dim::bytes);
  REQUIRE_FALSE(r);
  CHECK(r.error().message.size() < 200);
  CHECK(r.error().message.find("(100000 bytes)") != std::string::npos);
  CHECK(spec::quote_text("abc") == "'abc'");
  // A cut never splits a UTF-8 character: 79 ASCII bytes then a 2-byte 'é' straddling byte 80.
  const std::string utf = std::string(79, 'a') + "\xC3\xA9" + std::string(10, 'b');
  CHECK(spec::quote_text(utf) == "'" + std::string(79, 'a') + "...' (91 bytes)");
}

TEST_CASE("did-you-mean compares bounded lengths only", "[unit]") {
  const std::vector<std::string> names{"hidden", "layers"};
  CHECK(spec::did_you_mean("hiden", names) == std::vector<std::string>{"hidden"});
  // A 10 MB word gets no suggestion, and costs no edit distance over its length.
  CHECK(spec::did_you_mean(std::string(10'000'000, 'h'), names).empty());
}

TEST_CASE("scenario counts are refused above their stated ceilings", "[unit][solver]") {
  const std::string base = std::string(kScenario) + "constraints:\n  redundancy: 2147483647\n";
  CHECK(diagnose(base) ==
        "s.yaml:20:15: error: constraints.redundancy: expected an integer in [0, 1000], found "
        "'2147483647'\n");
  CHECK(diagnose(std::string(kScenario) + "constraints:\n  model_changes_per_year: 1e300\n") ==
        "s.yaml:20:27: error: constraints.model_changes_per_year: expected a number in [0, 365], "
        "found '1e300'\n");
  CHECK(diagnose(replace(kScenario, "tp: [1]", "tp: [4096]")) ==
        "s.yaml:17:7: error: candidates.tp: element 0: expected a value in [1, 1024], found "
        "4096\n");
  CHECK(diagnose(std::string(kScenario) + "verify:\n  requests: 3000000000\n") ==
        "s.yaml:20:13: error: verify.requests: expected an integer in [100, 1e+06], found "
        "'3000000000'\n");
}

TEST_CASE("a load that needs absurdly many replicas is infeasible: fleet size", "[solver]") {
  // 1e12 req/s: finite, but no fleet of L4s carries it within 100,000 replicas.
  spec::Diagnostics d;
  auto in = resolve(replace(kScenario, "{mean_qps: 2, peak_qps: 5}", "{mean_qps: 1e12}"), d);
  REQUIRE(in);
  auto plan = solve(*in);
  REQUIRE(plan);
  CHECK_FALSE(plan->feasible);
  REQUIRE_FALSE(plan->pools.empty());
  REQUIRE_FALSE(plan->pools[0].rejected.empty());
  const CandidateRow& r = plan->pools[0].rejected[0];
  bool named = false;
  for (const auto& c : r.constraints) named = named || (c.name == "fleet_size" && !c.ok);
  CHECK(named);
  CHECK(r.devices == 0);  // never a wrapped (negative or tiny) count
}

TEST_CASE("growth over the horizon that overflows a count is infeasible, not negative",
          "[solver]") {
  // (1 + 100)^29 times the load: the year-30 design load is ~1e58 req/s.
  spec::Diagnostics d;
  auto in = resolve(
      std::string(kScenario) + "constraints:\n  load_growth_per_year: 100\n  horizon_years: 30\n",
      d);
  REQUIRE(in);
  auto plan = solve(*in);
  REQUIRE(plan);
  CHECK_FALSE(plan->feasible);
  for (const auto& p : plan->pools)
    for (const auto& r : p.rejected) CHECK(r.devices >= 0);
}

TEST_CASE("a request longer than the context, or than max_context_tokens, is located",
          "[unit][solver]") {
  // The class's P99 prompt: a lognormal with P50 400 and P90 1000 has sigma = ln(2.5) / 1.2816
  // = 0.7150, so P99 = 400 * exp(2.3263 * 0.7150) = 2110.7 tokens; plus the output.
  {
    spec::Diagnostics d;
    // qwen2.5-7b has a 131072-token context window: 2110.7 + 200000 does not fit.
    auto in = resolve(replace(kScenario, "output_tokens: 100", "output_tokens: 200000"), d);
    CHECK_FALSE(in);
    CHECK(d.format() ==
          "s.yaml:9:7: error: workload.classes[0].prompt_tokens: expected P99 prompt + output "
          "within qwen2.5-7b's context window of 131072 tokens, found 202111 tokens (shorten the "
          "prompts or choose a model with a longer context)\n");
  }
  {
    spec::Diagnostics d;
    auto in = resolve(std::string(kScenario) + "serving:\n  max_context_tokens: 1000\n", d);
    CHECK_FALSE(in);
    CHECK(d.format() ==
          "s.yaml:20:23: error: serving.max_context_tokens: expected at least the 2211 tokens "
          "(P99 prompt + output) of class 'chat', found 1000 (raise serving.max_context_tokens, "
          "or leave it out to size for the longest request)\n");
  }
}

TEST_CASE("a CSV cell that is NaN or infinite is not a number", "[unit]") {
  CHECK(spec::parse_csv_number("12.5") == 12.5);
  CHECK(spec::parse_csv_number(" +3 ") == 3.0);
  for (const char* s : {"", "nan", "NaN", "inf", "-inf", "1e999", "12 GB", "0x10"})
    CHECK_FALSE(spec::parse_csv_number(s).has_value());
}

TEST_CASE("a NaN or infinite total cost is never recommended", "[solver]") {
  spec::Diagnostics d;
  auto in = resolve(kScenario, d);
  REQUIRE(in);
  // Past the scenario's ceiling (365 a year), as a library caller could still pass it: the
  // porting cost of 1e308 changes a year is not a finite amount.
  in->constraints.model_changes_per_year = 1e308;
  auto plan = solve(*in);
  REQUIRE(plan);
  CHECK_FALSE(plan->feasible);
  CHECK_FALSE(plan->recommended.feasible);
  bool named = false;
  for (const auto& p : plan->pools) {
    for (const auto& r : p.ranked) CHECK(std::isfinite(r.cost.tco_usd));
    for (const auto& r : p.rejected)
      for (const auto& c : r.constraints) named = named || (c.name == "tco" && !c.ok);
  }
  CHECK(named);
}

TEST_CASE("a second YAML document is an error at its start, not ignored", "[unit]") {
  spec::Diagnostics d;
  auto doc = spec::parse_text("a: 1\n---\nb: 2\n", "two.yaml", d);
  CHECK_FALSE(doc.ok);
  CHECK(d.format() ==
        "two.yaml:3:1: error: expected one YAML document, found 2 (a second one starts here) "
        "(put each spec in its own file)\n");
  // One explicit document marker is still one document.
  spec::Diagnostics d2;
  CHECK(spec::parse_text("---\na: 1\n", "one.yaml", d2).ok);
}

TEST_CASE("a mapping of 100k keys is read and its duplicates found", "[unit]") {
  std::string text;
  for (int i = 0; i < 100000; ++i) text += "k" + std::to_string(i) + ": 1\n";
  text += "k7: 2\n";  // line 100001 repeats line 8's key
  spec::Diagnostics d;
  auto doc = spec::parse_text(text, "many.yaml", d);
  REQUIRE(doc.ok);
  auto r = spec::Reader::root(doc, d);
  CHECK(r.has("k99999"));
  CHECK(d.format() == "many.yaml:100001:1: error: k7: duplicate key (first given at line 8)\n");
}

TEST_CASE("printers escape user text for the format it lands in", "[unit]") {
  cli::ResultTable t;
  t.title = "plan <!-- for | ops";
  t.columns = {{"name", Dim::dimensionless}, {"qps", Dim::dimensionless}};
  t.add({std::string("=HYPERLINK(\"http://x\")"), -5.0});
  t.add({std::string("a|b\n<script>"), 2.0});
  t.add({std::string("\xFF\xFEnot utf-8"), 1.0});
  // CSV: a text cell starting with '=' gets an apostrophe (not run as a formula); a number
  // stays a number even when negative; quotes are doubled inside a quoted cell.
  const std::string csv = cli::render(t, cli::Format::csv);
  CHECK(csv.find("\"'=HYPERLINK(\"\"http://x\"\")\",-5\n") != std::string::npos);
  // Markdown: '|' cannot split the cell, '<' cannot open a comment or a tag, no raw newline.
  const std::string md = cli::render(t, cli::Format::md);
  CHECK(md.find("### plan &lt;!-- for \\| ops") != std::string::npos);
  CHECK(md.find("| a\\|b &lt;script&gt; |") != std::string::npos);
  CHECK(md.find("<!--") == std::string::npos);
  // JSON: bytes that are not UTF-8 become U+FFFD instead of an exception.
  std::string json;
  REQUIRE_NOTHROW(json = cli::render(t, cli::Format::json));
  CHECK(json.find("\xEF\xBF\xBD\xEF\xBF\xBDnot utf-8") != std::string::npos);
}

TEST_CASE("a spec or CSV that is not UTF-8 is an error at the byte", "[unit]") {
  spec::Diagnostics d;
  auto doc = spec::parse_text("name: ok\ndescription: caf\xE9\n", "latin1.yaml", d);
  CHECK_FALSE(doc.ok);
  CHECK(d.format() ==
        "latin1.yaml:2:17: error: expected UTF-8 text, found the byte 0xE9 (save the file as "
        "UTF-8)\n");
  CHECK(spec::invalid_utf8_at("caf\xC3\xA9 \xE4\xB8\xAD \xF0\x9F\x98\x80") == std::string::npos);
  CHECK(spec::invalid_utf8_at("\xC0\xAF") == 0);          // overlong '/'
  CHECK(spec::invalid_utf8_at("ab\xED\xA0\x80") == 2);    // a surrogate
  CHECK(spec::invalid_utf8_at("\xF4\x90\x80\x80") == 0);  // above U+10FFFF
  CHECK(spec::invalid_utf8_at("x\xE4\xB8") == 1);         // cut short
}

TEST_CASE("writing over a symlink or a read-only file is refused unless forced", "[unit]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("infercap-aw-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string target = (dir / "target.yaml").string();
  const std::string link = (dir / "link.yaml").string();
  REQUIRE(spec::write_file_atomically(target, "a: 1\n").ok());
  fs::create_symlink(target, link);
  auto w = spec::write_file_atomically(link, "b: 2\n");
  REQUIRE_FALSE(w);
  CHECK(w.error().message == "refusing to replace " + link + ": it is a symbolic link to " +
                                 target +
                                 " (pass --force to replace the link with a file; its target is "
                                 "left alone)");
  CHECK(fs::is_symlink(link));
  CHECK(spec::write_file_atomically(link, "b: 2\n", true).ok());
  CHECK_FALSE(fs::is_symlink(link));
  CHECK(spec::read_text_file(target).value() == "a: 1\n");  // the link's target is untouched
  fs::permissions(target, fs::perms::owner_read);
  auto ro = spec::write_file_atomically(target, "c: 3\n");
  REQUIRE_FALSE(ro);
  CHECK(ro.error().message.rfind("refusing to overwrite " + target + ": the file is read-only",
                                 0) == 0);
  CHECK(spec::write_file_atomically(target, "c: 3\n", true).ok());
  // A failure names the real path and the reason, never the temporary file.
  auto missing = spec::write_file_atomically((dir / "no-such-dir" / "x.yaml").string(), "x");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message == "cannot write " + (dir / "no-such-dir" / "x.yaml").string() +
                                       " (its folder " + (dir / "no-such-dir").string() +
                                       " does not exist)");
  auto folder = spec::write_file_atomically(dir.string(), "x");
  REQUIRE_FALSE(folder);
  CHECK(folder.error().message == "cannot write " + dir.string() + " (it is a directory)");
  // A failure of the write itself names the path and the operating system's reason: /proc's
  // folders take no new files.
  auto os = spec::write_file_atomically("/proc/infercap-test.yaml", "x");
  REQUIRE_FALSE(os);
  CHECK(os.error().message.rfind("cannot write /proc/infercap-test.yaml (", 0) == 0);
  CHECK(os.error().message.find(".tmp.") == std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("formatting a subnormal quantity is finite text (found by fuzz_units)", "[unit]") {
  // 10^(2 + 308) overflows: the value is left unrounded and prints as 0 ns, not NaN.
  const std::string s = format_quantity(1.1e-307, Dim::seconds);
  CHECK(s.find("nan") == std::string::npos);
  CHECK(s == "0 ns");
  CHECK(format_quantity(5e-324, Dim::bytes).find("nan") == std::string::npos);
}

TEST_CASE("documents are counted from their markers, without yaml-cpp's LoadAll", "[unit]") {
  using spec::second_yaml_document;
  CHECK_FALSE(second_yaml_document("a: 1\n"));
  CHECK_FALSE(second_yaml_document("---\na: 1\n"));                // one explicit start
  CHECK_FALSE(second_yaml_document("%YAML 1.2\n---\na: 1\n..."));  // directive, start, end
  // A start marker after content begins a second document, even an empty one (YAML's reading).
  auto empty = second_yaml_document("a: 1\n---\n# only a comment\n");
  REQUIRE(empty);
  CHECK(empty->line == 3);
  CHECK(empty->documents == 2);
  CHECK_FALSE(second_yaml_document("a: |\n  ---\n  text\n"));  // indented: inside the scalar
  CHECK_FALSE(second_yaml_document("a: ----\nb: ...x\n"));     // not markers: more than ---
  auto two = second_yaml_document("a: 1\n---\n\n  b: 2\n");
  REQUIRE(two);
  CHECK(two->line == 4);
  CHECK(two->col == 3);
  CHECK(two->documents == 2);
  auto inline_start = second_yaml_document("a: 1\r\n--- b: 2\r\n...\r\nc: 3\r\n");
  REQUIRE(inline_start);
  CHECK(inline_start->line == 2);
  CHECK(inline_start->col == 5);
  CHECK(inline_start->documents == 3);
  // The fuzzer's finding: yaml-cpp 0.7's LoadAll loops on it; one document is read and checked.
  std::ifstream f(std::string(INFERCAP_SOURCE_DIR) + "/fuzz/findings/yaml-cpp-hang-spec",
                  std::ios::binary);
  REQUIRE(f);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  spec::Diagnostics d;
  (void)spec::parse_text(bytes.substr(1), "hang.yaml", d);  // first byte: the target's selector
  SUCCEED("parse_text returned");
}
