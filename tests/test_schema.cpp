// The JSON Schema of each spec kind (docs/schema/, infercap/spec/schema.hpp): generated from the
// loaders, committed, and checked three ways here: the committed files are byte for byte what
// the loaders generate now (so a loader change without `infercap schema -o docs/schema` fails);
// every YAML file of its kind in data/ validates against its schema; and files the loaders
// refuse for a key's name, type, range or enum are refused by the schema too. The validator
// below implements exactly the keywords the generator emits and refuses any other, so a new
// keyword cannot be silently ignored. The same holds for the import formats' schemas and the
// CSV column tables (cli/import_schemas.hpp), written from their readers' tables: byte for byte,
// the project's own files validate, and each CSV reader refuses a header without a column its
// table says is needed.
#include <fmt/core.h>
#include <yaml-cpp/yaml.h>
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bench_import_keys.hpp"
#include "calibrate_import.hpp"
#include "catalog_fixture.hpp"
#include "import_schemas.hpp"
#include "infercap/calibration/measurement_import.hpp"
#include "infercap/spec/csv.hpp"
#include "infercap/spec/reader.hpp"
#include "infercap/spec/schema.hpp"
#include "infercap/spec/text_file.hpp"
#include "measurements.hpp"
#include "process_fixture.hpp"
#include "small_scenario.hpp"

#include <unistd.h>

using namespace infercap;
using Json = nlohmann::json;

namespace {

namespace fs = std::filesystem;

const std::string kSource = INFERCAP_SOURCE_DIR;

// --- a validator for the subset of draft 2020-12 the generator emits ---------------------------

// A YAML scalar's JSON type under the YAML 1.2 core schema (what yaml-language-server uses): a
// quoted scalar is a string; a plain one is null, a boolean, an integer, a number or a string.
std::string json_type(const YAML::Node& n) {
  if (n.IsMap()) return "object";
  if (n.IsSequence()) return "array";
  if (n.IsNull()) return "null";
  if (n.Tag() == "!") return "string";
  const std::string& s = n.Scalar();
  static const std::regex null_re("^(~|null|Null|NULL)$");
  static const std::regex bool_re("^(true|True|TRUE|false|False|FALSE)$");
  static const std::regex int_re("^([-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$");
  static const std::regex float_re(
      R"(^([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$)");
  if (s.empty() || std::regex_match(s, null_re)) return "null";
  if (std::regex_match(s, bool_re)) return "boolean";
  if (std::regex_match(s, int_re)) return "integer";
  if (std::regex_match(s, float_re)) return "number";
  return "string";
}

double number_of(const YAML::Node& n) {
  const std::string& s = n.Scalar();
  if (s.find("inf") != std::string::npos || s.find("Inf") != std::string::npos ||
      s.find("INF") != std::string::npos)
    return s[0] == '-' ? -INFINITY : INFINITY;
  if (s.find("nan") != std::string::npos || s.find("NaN") != std::string::npos) return NAN;
  if (s.rfind("0x", 0) == 0) return static_cast<double>(std::stoll(s.substr(2), nullptr, 16));
  if (s.rfind("0o", 0) == 0) return static_cast<double>(std::stoll(s.substr(2), nullptr, 8));
  return std::stod(s);
}

bool type_matches(const std::string& want, const YAML::Node& n) {
  const std::string t = json_type(n);
  if (want == t) return true;
  if (want == "number" && t == "integer") return true;
  // Draft 2020-12: an integer is any number with a zero fractional part (8.03e9).
  if (want == "integer" && t == "number") {
    const double v = number_of(n);
    return std::isfinite(v) && v == std::floor(v);
  }
  return false;
}

struct Validator {
  std::vector<std::string> errors;

  void fail(const std::string& path, const std::string& what) {
    errors.push_back((path.empty() ? std::string("(top)") : path) + ": " + what);
  }

  bool valid(const Json& s, const YAML::Node& n) {
    Validator sub;
    sub.check(s, n, "");
    return sub.errors.empty();
  }

  void check(const Json& s, const YAML::Node& n, const std::string& path) {
    static const std::set<std::string> known{"$schema",
                                             "title",
                                             "description",
                                             "default",
                                             "type",
                                             "enum",
                                             "const",
                                             "minimum",
                                             "maximum",
                                             "exclusiveMinimum",
                                             "exclusiveMaximum",
                                             "properties",
                                             "patternProperties",
                                             "additionalProperties",
                                             "required",
                                             "items",
                                             "anyOf",
                                             "allOf"};
    for (auto it = s.begin(); it != s.end(); ++it) {
      if (!known.count(it.key())) fail(path, "the validator does not know '" + it.key() + "'");
    }
    if (s.contains("type")) {
      bool ok = false;
      if (s["type"].is_string()) {
        ok = type_matches(s["type"].get<std::string>(), n);
      } else {
        for (const auto& t : s["type"]) ok = ok || type_matches(t.get<std::string>(), n);
      }
      if (!ok) {
        fail(path, "expected type " + s["type"].dump() + ", found " + json_type(n));
        return;
      }
    }
    const bool scalar = n.IsScalar();
    if (s.contains("const")) {
      if (!scalar || n.Scalar() != s["const"].get<std::string>())
        fail(path, "expected " + s["const"].dump());
    }
    if (s.contains("enum")) {
      bool ok = false;
      for (const auto& v : s["enum"]) ok = ok || (scalar && n.Scalar() == v.get<std::string>());
      if (!ok) fail(path, "expected one of " + s["enum"].dump());
    }
    const std::string t = n.IsDefined() ? json_type(n) : "";
    if (t == "integer" || t == "number") {
      const double v = number_of(n);
      if (s.contains("minimum") && !(v >= s["minimum"].get<double>()))
        fail(path, "below the minimum " + s["minimum"].dump());
      if (s.contains("maximum") && !(v <= s["maximum"].get<double>()))
        fail(path, "above the maximum " + s["maximum"].dump());
      if (s.contains("exclusiveMinimum") && !(v > s["exclusiveMinimum"].get<double>()))
        fail(path, "not above " + s["exclusiveMinimum"].dump());
      if (s.contains("exclusiveMaximum") && !(v < s["exclusiveMaximum"].get<double>()))
        fail(path, "not below " + s["exclusiveMaximum"].dump());
    }
    if (n.IsMap()) {
      for (auto it = n.begin(); it != n.end(); ++it) {
        const std::string key = it->first.Scalar();
        std::string kp = path;
        if (!kp.empty()) kp += ".";
        kp += key;
        bool matched = false;
        if (s.contains("properties") && s["properties"].contains(key)) {
          matched = true;
          check(s["properties"][key], it->second, kp);
        }
        if (s.contains("patternProperties")) {
          for (auto p = s["patternProperties"].begin(); p != s["patternProperties"].end(); ++p) {
            if (std::regex_search(key, std::regex(p.key()))) {
              matched = true;
              check(p.value(), it->second, kp);
            }
          }
        }
        if (!matched && s.contains("additionalProperties") && s["additionalProperties"] == false)
          fail(kp, "unknown key");
      }
      if (s.contains("required")) {
        for (const auto& r : s["required"]) {
          if (!n[r.get<std::string>()]) fail(path, "missing required key " + r.dump());
        }
      }
    }
    if (n.IsSequence() && s.contains("items")) {
      for (std::size_t i = 0; i < n.size(); ++i)
        check(s["items"], n[i], path + "[" + std::to_string(i) + "]");
    }
    if (s.contains("anyOf")) {
      bool ok = false;
      for (const auto& alt : s["anyOf"]) ok = ok || valid(alt, n);
      if (!ok) fail(path, "matches none of anyOf " + s["anyOf"].dump().substr(0, 160));
    }
    if (s.contains("allOf")) {
      for (const auto& alt : s["allOf"]) check(alt, n, path);
    }
  }
};

using infercap::test::run_command;
using infercap::test::slurp;

// A spec kind, or an import format (nullptr if neither).
const spec::SpecKind* any_kind(const std::string& kind) {
  if (const spec::SpecKind* k = spec::find_spec_kind(kind)) return k;
  for (const auto& k : cli::import_kinds())
    if (k.kind == kind) return &k;
  return nullptr;
}

// Every file `infercap schema -o docs/schema` writes, with its text.
std::vector<std::pair<std::string, std::string>> generated_files() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto* kinds : {&spec::spec_kinds(), &cli::import_kinds()})
    for (const auto& k : *kinds) out.emplace_back(spec::schema_file_name(k), spec::json_schema(k));
  for (const auto& t : cli::column_tables()) out.emplace_back(t.file, t.markdown());
  return out;
}

Json schema_of(const std::string& kind) {
  const spec::SpecKind* k = any_kind(kind);
  REQUIRE(k != nullptr);
  return Json::parse(spec::json_schema(*k));
}

std::vector<std::string> validate_text(const std::string& kind, const std::string& yaml) {
  Validator v;
  v.check(schema_of(kind), YAML::Load(yaml), "");
  return v.errors;
}

const std::string kHardware = infercap::testing::kSmallHardware;

std::string with(std::string base, const std::string& old, const std::string& now) {
  const auto at = base.find(old);
  REQUIRE(at != std::string::npos);
  return base.replace(at, old.size(), now);
}

}  // namespace

TEST_CASE("docs/schema holds exactly what the loaders and readers generate, byte for byte",
          "[unit]") {
  std::set<std::string> expected;
  for (const auto& [name, text] : generated_files()) {
    const std::string file = fmt::format("{}/docs/schema/{}", kSource, name);
    INFO(file << ": regenerate with `infercap schema -o docs/schema`");
    REQUIRE(fs::exists(file));
    CHECK(slurp(file) == text);
    expected.insert(name);
  }
  // The spec kinds, three import formats and three CSV tables.
  CHECK(expected.size() == spec::spec_kinds().size() + 6);
  // No schema or table for a kind nothing reads any more.
  for (const auto& e : fs::directory_iterator(kSource + "/docs/schema")) {
    const std::string f = e.path().filename().string();
    if (!f.ends_with(".schema.json") && !f.ends_with(".columns.md")) continue;
    INFO(f);
    CHECK(expected.count(f) == 1);
  }
}

TEST_CASE("the generated schema states each loader's keys, types, units, ranges and enums",
          "[unit]") {
  const Json hw = schema_of("hardware");
  CHECK(hw["$schema"] == "https://json-schema.org/draft/2020-12/schema");
  CHECK(hw["additionalProperties"] == false);
  CHECK(hw["properties"]["kind"]["const"] == "hardware");
  CHECK(hw["properties"]["schema_version"]["minimum"] == 1);
  CHECK(hw["properties"]["schema_version"]["maximum"] == 1);
  // read_hardware: class is a choice of hw_class_spellings(); a bandwidth > 0 takes a unit.
  CHECK(hw["properties"]["class"]["enum"] == Json::array({"cpu", "gpu", "npu", "fpga"}));
  const Json bw = hw["properties"]["memory_bandwidth_bytes_per_s"];
  CHECK(bw["type"] == Json::array({"number", "string"}));
  CHECK(bw["exclusiveMinimum"] == 0);
  CHECK(hw["properties"]["dense_flops_per_s"]["additionalProperties"] == false);
  CHECK(hw["properties"]["dense_flops_per_s"]["properties"].contains("fp8"));
  CHECK(hw["properties"]["cpu"]["properties"]["isa"]["items"]["enum"].size() >= 10);
  // A preset override needs nothing but its header and the preset.
  CHECK(hw["required"] == Json::array({"schema_version", "kind"}));
  REQUIRE(hw["anyOf"].size() == 2);
  CHECK(hw["anyOf"][0]["required"] == Json::array({"preset"}));
  CHECK(hw["anyOf"][1]["required"] ==
        Json::array({"name", "class", "dense_flops_per_s", "memory_bytes",
                     "memory_bandwidth_bytes_per_s", "sources"}));
  // value_or's fallback is the key's default: constraints.horizon_years defaults to 3 in [1, 30].
  const Json sc = schema_of("scenario");
  const Json horizon = sc["properties"]["constraints"]["properties"]["horizon_years"];
  CHECK(horizon["type"] == "integer");
  CHECK(horizon["default"] == 3);
  CHECK(horizon["minimum"] == 1);
  CHECK(horizon["maximum"] == 30);
  CHECK(sc["properties"]["objective"]["default"] == "min_tco");
  // A request class has a rate or a batch; its lengths are a count or a distribution.
  const Json cls = sc["properties"]["workload"]["properties"]["classes"]["items"];
  CHECK(cls["anyOf"] == Json::parse(R"([{"required": ["rate"]}, {"required": ["batch"]}])"));
  CHECK(cls["properties"]["prompt_tokens"]["anyOf"].size() == 2);
  CHECK(cls["properties"]["sla"]["patternProperties"].size() == 1);
  CHECK(cls["required"] == Json::array({"name", "model", "prompt_tokens"}));
}

TEST_CASE("every spec in data/ validates against its kind's schema", "[unit]") {
  std::map<std::string, int> per_kind;
  for (const auto& e : fs::recursive_directory_iterator(kSource + "/data")) {
    if (!e.is_regular_file() || e.path().extension() != ".yaml") continue;
    const std::string path = e.path().string();
    spec::Diagnostics d;
    const spec::Document doc = spec::parse_file(path, d);
    REQUIRE(doc.ok);
    const std::string kind = spec::peek_kind(doc);
    // calibration-measurements (calibrate --import) has its own reader and an import schema.
    INFO(path << ": kind " << kind);
    REQUIRE(any_kind(kind) != nullptr);
    Validator v;
    v.check(schema_of(kind), doc.root, "");
    std::string all;
    for (const auto& err : v.errors) all += err + "\n";
    INFO(path << "\n" << all);
    CHECK(v.errors.empty());
    ++per_kind[kind];
  }
  // Every kind has examples in data/.
  for (const auto& k : spec::spec_kinds()) {
    INFO(k.kind);
    CHECK(per_kind[k.kind] >= 1);
  }
  CHECK(per_kind["calibration-measurements"] >= 1);
  CHECK(per_kind["hardware"] >= 40);
}

TEST_CASE("the schema refuses what the loaders refuse for a key's name, type, range or enum",
          "[unit]") {
  CHECK(validate_text("hardware", kHardware).empty());
  // Each a one-key change of a valid spec, as in tests/data/bad/.
  const std::vector<std::pair<std::string, std::string>> bad{
      {with(kHardware, "tdp_w: 300", "tdp_ww: 300"), "tdp_ww: unknown key"},
      {with(kHardware, "class: gpu", "class: gpuu"), "class: expected one of"},
      {with(kHardware, "tdp_w: 300", "tdp_w: -1"), "tdp_w: below the minimum 0"},
      {with(kHardware, "memory_bytes: \"16 GB\"", "memory_bytes: 0"), "memory_bytes: not above 0"},
      {with(kHardware, "kind: hardware", "kind: hardwear"), "kind: expected \"hardware\""},
      {with(kHardware, "schema_version: 1", "schema_version: 2"), "above the maximum 1"},
      {with(kHardware, "  bf16: \"100 TFLOP/s\"", "  bf16_sparse: 1"), "bf16_sparse: unknown key"},
      {with(kHardware, "tdp_w: 300", "tdp_w: [300]"), "tdp_w: expected type"},
      {with(kHardware, "tdp_w: 300", "devices_per_server: 2.5"),
       "devices_per_server: expected type"},
      {with(kHardware, "name: test-gpu\n", ""), "matches none of anyOf"},
  };
  for (const auto& [text, message] : bad) {
    const auto errs = validate_text("hardware", text);
    INFO(text);
    REQUIRE_FALSE(errs.empty());
    INFO(errs.front());
    CHECK(errs.front().find(message) != std::string::npos);
  }
  // A preset override is valid with only its header and preset.
  CHECK(validate_text("hardware", "schema_version: 1\nkind: hardware\npreset: h100-sxm\n").empty());
  // The library-level bad inputs whose one mistake is a key's name, type, range or enum.
  for (const auto& [file, kind] :
       std::vector<std::pair<std::string, std::string>>{{"unknown-key.yaml", "model"},
                                                        {"nested-unknown-key.yaml", "model"},
                                                        {"unknown-enum.yaml", "model"},
                                                        {"zero-size.yaml", "model"},
                                                        {"zero-fraction.yaml", "stack"},
                                                        {"unknown-isa.yaml", "hardware"},
                                                        {"sparse-key-in-dense.yaml", "hardware"},
                                                        {"unknown-stack-class.yaml", "stack"},
                                                        {"fraction-out-of-range.yaml", "stack"},
                                                        {"wrong-schema-version.yaml", "model"},
                                                        {"top-level-list.yaml", "model"}}) {
    INFO(file);
    const YAML::Node n = YAML::LoadFile(std::string(INFERCAP_TEST_DATA_DIR) + "/bad/" + file);
    Validator v;
    v.check(schema_of(kind), n, "");
    CHECK_FALSE(v.errors.empty());
  }
}

TEST_CASE("infercap schema prints and writes the committed schemas", "[golden]") {
  const std::string cli = std::string("'") + INFERCAP_CLI_PATH + "'";
  int rc = -1;
  CHECK(run_command(cli + " schema --kind stack", &rc) ==
        slurp(kSource + "/docs/schema/stack.schema.json"));
  CHECK(rc == 0);
  CHECK(run_command(cli + " schema --kind measurements-csv", &rc) ==
        slurp(kSource + "/docs/schema/measurements.columns.md"));
  CHECK(rc == 0);
  const fs::path dir =
      fs::temp_directory_path() / ("infercap-schema-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  run_command(cli + " schema -o '" + dir.string() + "' 2>/dev/null", &rc);
  CHECK(rc == 0);
  for (const auto& [name, text] : generated_files()) {
    INFO(name);
    CHECK(slurp((dir / name).string()) == text);
  }
  const std::string err = run_command(cli + " schema --kind hardwear 2>&1 >/dev/null", &rc);
  CHECK(rc == 2);
  CHECK(err.find("--kind: expected one of [model, hardware") != std::string::npos);
  CHECK(err.find("did you mean 'hardware'?") != std::string::npos);
  fs::remove_all(dir);
}

// --- the import formats and CSV tables (cli/import_schemas.hpp) --------------------------------

namespace {

std::vector<std::string> validate_file(const std::string& kind, const std::string& path) {
  Validator v;
  v.check(schema_of(kind), YAML::LoadFile(path), "");
  return v.errors;
}

std::string join(const std::vector<std::string>& cells) {
  std::string out;
  for (size_t i = 0; i < cells.size(); ++i) out += (i > 0 ? "," : "") + cells[i];
  return out;
}

// A header of `names` and one row of `cells`, without column `drop` ("" keeps all).
std::string csv_without(const std::vector<std::string>& names,
                        const std::vector<std::string>& cells, const std::string& drop) {
  std::vector<std::string> h, r;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == drop) continue;
    h.push_back(names[i]);
    r.push_back(cells[i]);
  }
  return join(h) + "\n" + join(r) + "\n";
}

}  // namespace

TEST_CASE("the import formats' schemas state their readers' tables", "[unit][calib]") {
  const Json cm = schema_of("calibration-measurements");
  CHECK(cm["additionalProperties"] == false);
  CHECK(cm["required"] == Json::array({"measurements"}));
  const Json row = cm["properties"]["measurements"]["items"];
  // kImportColumns: kind and source in every row; value or samples; bytes > 0; m in [1, 2^31].
  CHECK(row["required"] == Json::array({"kind", "source"}));
  CHECK(row["anyOf"] == Json::parse(R"([{"required": ["value"]}, {"required": ["samples"]}])"));
  CHECK(row["properties"]["bytes"]["exclusiveMinimum"] == 0);
  CHECK(row["properties"]["m"]["type"] == "integer");
  CHECK(row["properties"]["m"]["maximum"] == 2147483648LL);
  CHECK(row["properties"].size() == std::size(calibration::kImportColumns));
  // Header keys at the top; the provenance ones also under provenance:, hardware not.
  CHECK(cm["properties"].contains("cache_bytes"));
  CHECK(cm["properties"]["provenance"]["properties"].contains("commit"));
  CHECK_FALSE(cm["properties"]["provenance"]["properties"].contains("hardware"));
  // Another tool's results: open objects; llama-bench's file is an array of them.
  const Json lb = schema_of("llama-bench");
  CHECK(lb["type"] == "array");
  CHECK(lb["items"]["additionalProperties"] == true);
  CHECK(lb["items"]["required"] == Json::array({"model_type", "n_prompt", "n_gen", "avg_ts"}));
  const Json vl = schema_of("vllm-benchmark");
  CHECK(vl["additionalProperties"] == true);
  CHECK(vl["anyOf"].size() == 3);
}

TEST_CASE("infercap's own import files validate against the import schemas", "[unit][calib]") {
  const std::string imp = std::string(INFERCAP_TEST_DATA_DIR) + "/import/";
  for (const auto& [file, kind] :
       std::vector<std::pair<std::string, std::string>>{{"llama-bench.json", "llama-bench"},
                                                        {"vllm-serving-c1.json", "vllm-benchmark"},
                                                        {"vllm-serving-c8.json", "vllm-benchmark"},
                                                        {"vllm-latency.json", "vllm-benchmark"}}) {
    INFO(file);
    const auto errs = validate_file(kind, imp + file);
    CHECK(errs.empty());
  }
  // What the readers refuse, the schemas refuse: a vLLM result of neither form, a llama-bench
  // result without its rate, an import row without a source or with a negative byte count.
  CHECK_FALSE(validate_text("vllm-benchmark", R"({"model_id": "m", "completed": 3})").empty());
  CHECK_FALSE(validate_text("llama-bench",
                            R"([{"model_type": "llama 8B F16", "n_prompt": 512, "n_gen": 0}])")
                  .empty());
  const std::string good =
      "kind: calibration-measurements\nschema_version: 1\nhardware: ascend-910b\n"
      "measurements:\n  - {kind: read, bytes: 4294967296, value: 1.2, unit: TB/s, source: s}\n";
  CHECK(validate_text("calibration-measurements", good).empty());
  REQUIRE(calibration::parse_measurement_yaml(good, "good.yaml"));
  for (const auto& [old, now] : std::vector<std::pair<std::string, std::string>>{
           {", source: s}", "}"}, {"bytes: 4294967296", "bytes: -1"}, {"hardware:", "wattage:"}}) {
    const std::string bad = with(good, old, now);
    INFO(bad);
    CHECK_FALSE(validate_text("calibration-measurements", bad).empty());
    CHECK_FALSE(calibration::parse_measurement_yaml(bad, "bad.yaml"));
  }
}

TEST_CASE("each CSV reader refuses a header without a column its table says is needed",
          "[unit][calib]") {
  SECTION("validate's measurement CSV: kMeasurementColumns") {
    std::vector<std::string> names, cells;
    for (const auto& c : cli::kMeasurementColumns) {
      names.emplace_back(c.name);
      // Text is free except kv_precision, which must name a precision, input_len_points and
      // output_len_points, token counts whose mean is input_len / output_len (1 here), and
      // moe_routing, kv_admission, dispatch, chunked_prefill and prefill_cuda_graphs, one of two
      // words each.
      cells.emplace_back(c.name == "kv_precision"          ? "fp8"
                         : c.name == "input_len_points"    ? "1"
                         : c.name == "output_len_points"   ? "1"
                         : c.name == "moe_routing"         ? "uniform"
                         : c.name == "kv_admission"        ? "prompt"
                         : c.name == "dispatch"            ? "least_loaded"
                         : c.name == "chunked_prefill"     ? "false"
                         : c.name == "prefill_cuda_graphs" ? "true"
                         : c.value == cli::CellValue::text ? "x"
                                                           : "1");
    }
    const fs::path file =
        fs::temp_directory_path() / ("infercap-columns-" + std::to_string(::getpid()) + ".csv");
    auto read = [&](const std::string& text, spec::Diagnostics& d) {
      std::ofstream(file, std::ios::binary) << text;
      return cli::read_measurements(file.string(), d);
    };
    {
      spec::Diagnostics d;
      CHECK(read(csv_without(names, cells, ""), d).size() == 1);
      INFO(d.format());
      CHECK(d.empty());
    }
    for (const auto& c : cli::kMeasurementColumns) {
      const std::string name(c.name);
      INFO(name);
      spec::Diagnostics d;
      const auto rows = read(csv_without(names, cells, name), d);
      if (c.need == cli::ColumnNeed::optional) {
        CHECK(rows.size() == 1);
        CHECK(d.empty());
        continue;
      }
      REQUIRE_FALSE(d.empty());
      CHECK(d.items().front().key_path == name);
      CHECK(d.items().front().line == 1);
    }
    // A column every row must fill: an empty cell is refused at that cell.
    for (size_t i = 0; i < names.size(); ++i) {
      if (cli::kMeasurementColumns[i].need != cli::ColumnNeed::cell) continue;
      std::vector<std::string> empty = cells;
      empty[i] = "";
      spec::Diagnostics d;
      CHECK(read(csv_without(names, empty, ""), d).empty());
      REQUIRE(d.size() == 1);
      CHECK(d.items().front().key_path == names[i]);
      CHECK(d.items().front().col == static_cast<int>(i) + 1);
    }
    fs::remove(file);
  }
  SECTION("calibrate --import CSV: kImportColumns") {
    std::vector<std::string> names;
    for (const auto& c : calibration::kImportColumns) names.emplace_back(c.name);
    // A read row: kind, bytes, value, unit and source filled.
    std::vector<std::string> cells(names.size());
    for (size_t i = 0; i < names.size(); ++i) {
      const std::map<std::string, std::string> fill{{"kind", "read"},
                                                    {"bytes", "4294967296"},
                                                    {"value", "1.2"},
                                                    {"unit", "TB/s"},
                                                    {"source", "s"}};
      if (fill.count(names[i])) cells[i] = fill.at(names[i]);
    }
    REQUIRE(calibration::parse_measurement_csv(csv_without(names, cells, ""), "ok.csv"));
    for (const auto& c : calibration::kImportColumns) {
      if (c.need == calibration::ImportNeed::optional) continue;
      const std::string name(c.name);
      INFO(name);
      const auto r = calibration::parse_measurement_csv(csv_without(names, cells, name), "f.csv");
      REQUIRE_FALSE(r);
      CHECK(r.error().message ==
            fmt::format("f.csv:1:1: {0}: the header needs a '{0}' column", name));
    }
    // A column no table lists is refused; an unknown header key names the table's keys.
    names.push_back("wattage");
    cells.push_back("3");
    CHECK_FALSE(calibration::parse_measurement_csv(csv_without(names, cells, ""), "f.csv"));
    names.pop_back();
    cells.pop_back();
    const auto key = calibration::parse_measurement_csv(
        "# wattage: 3\n" + csv_without(names, cells, ""), "f.csv");
    REQUIRE_FALSE(key);
    std::string listed;
    for (const auto& h : calibration::kImportHeaderKeys)
      listed += (listed.empty() ? "" : ", ") + std::string(h.name);
    CHECK(key.error().message ==
          "f.csv:1:1: wattage: unknown header key 'wattage' (" + listed + ")");
  }
  SECTION("calibrate --from-benchmarks llama-bench CSV: kLlamaBenchKeys") {
    const std::string text = slurp(std::string(INFERCAP_TEST_DATA_DIR) + "/import/llama-bench.csv");
    std::istringstream in(text);
    std::string header, row;
    std::getline(in, header);
    std::getline(in, row);
    const auto names = spec::split_csv_line(header);
    const auto cells = spec::split_csv_line(row);
    const auto& catalog = test::project_catalog().catalog;
    REQUIRE(cli::parse_llama_bench_csv(csv_without(names, cells, ""), "lb.csv", {}, catalog));
    int needed = 0;
    for (const auto& k : cli::kLlamaBenchKeys) {
      if (!k.required) continue;
      ++needed;
      const std::string name(k.name);
      INFO(name);
      const auto r =
          cli::parse_llama_bench_csv(csv_without(names, cells, name), "lb.csv", {}, catalog);
      REQUIRE_FALSE(r);
      CHECK(r.error().message.find(fmt::format("lb.csv:1:1: {0}: expected a '{0}' column", name)) ==
            0);
    }
    CHECK(needed == 4);
  }
}
