#include "import_schemas.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string_view>
#include <utility>

#include "bench_import_keys.hpp"
#include "infercap/calibration/measurement_import.hpp"
#include "measurements.hpp"

namespace infercap::cli {

namespace {

using calibration::ImportNeed;
using calibration::ImportValue;
using spec::SchemaKey;
using spec::SchemaObject;
using spec::SchemaShape;
using spec::SchemaType;

bool bounded(const spec::Range& r) {
  return std::isfinite(r.lo) || std::isfinite(r.hi);
}

SchemaShape shape(SchemaType t, const spec::Range& bounds = {}) {
  SchemaShape s;
  s.type = t;
  if (bounded(bounds)) s.range = bounds;
  return s;
}

// Bounds of whole numbers as whole numbers: "in [1, 2147483648]", not Range::describe's 2.1e+09.
std::string whole_bounds(const spec::Range& r) {
  return fmt::format("in [{}, {}]", static_cast<long long>(r.lo), static_cast<long long>(r.hi));
}

// A table's meaning as a sentence of a key's description: capitalised, with a full stop.
std::string sentence(std::string_view text) {
  std::string s(text);
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
  return s + ".";
}

std::string kind_spellings() {
  std::string aliases;
  for (const auto& k : calibration::kImportKinds)
    if (k.alias) aliases += (aliases.empty() ? "" : ", ") + std::string(k.name);
  return fmt::format("one of {} (any letter case; also {})", calibration::import_kind_list(),
                     aliases);
}

std::string unit_spellings() {
  return fmt::format("one of {} (any letter case)", calibration::import_unit_list());
}

// --- calibration-measurements (calibrate --import, YAML) ------------------------------------

// A column or header key of the import format as a schema key.
SchemaKey import_key(std::string_view name, bool required, ImportValue v, const spec::Range& b,
                     std::string_view meaning) {
  SchemaKey k;
  k.name = std::string(name);
  k.required = required;
  k.note = sentence(meaning);
  switch (v) {
    case ImportValue::text:
      k.shapes = {shape(SchemaType::string)};
      break;
    case ImportValue::kind:
      k.shapes = {shape(SchemaType::string)};
      k.note = sentence(fmt::format("{}: {}", kind_spellings(), meaning));
      break;
    case ImportValue::unit:
      k.shapes = {shape(SchemaType::string)};
      k.note = sentence(fmt::format("{}: {}", unit_spellings(), meaning));
      break;
    case ImportValue::number:
      k.shapes = {shape(SchemaType::number, b)};
      break;
    case ImportValue::whole:
      k.shapes = {shape(SchemaType::integer, b)};
      break;
    case ImportValue::samples: {
      SchemaShape list = shape(SchemaType::number_list, b);
      k.shapes = {list, shape(SchemaType::string)};
      k.note = fmt::format("A list of times, or one text of them separated by ';': {}.", meaning);
      break;
    }
  }
  return k;
}

void describe_calibration_measurements(SchemaObject& root) {
  SchemaShape kind;
  kind.type = SchemaType::choice;
  kind.values = {"calibration-measurements"};
  root.keys.push_back(SchemaKey{"kind", false, {kind}, {}, "Checked when given."});
  root.keys.push_back(SchemaKey{"schema_version",
                                false,
                                {shape(SchemaType::integer, spec::Range::between(1, 1))},
                                {},
                                "Checked when given."});
  auto provenance = std::make_shared<SchemaObject>();
  for (const auto& h : calibration::kImportHeaderKeys) {
    root.keys.push_back(import_key(h.name, false, h.value, h.bounds, h.meaning));
    if (h.provenance)
      provenance->keys.push_back(import_key(h.name, false, h.value, h.bounds, h.meaning));
  }
  SchemaShape prov;
  prov.type = SchemaType::object;
  prov.object = provenance;
  root.keys.push_back(SchemaKey{
      "provenance", false, {prov}, {}, "The provenance keys, grouped (the same as at the top)."});
  auto row = std::make_shared<SchemaObject>();
  for (const auto& c : calibration::kImportColumns) {
    row->keys.push_back(
        import_key(c.name, c.need == ImportNeed::always, c.value, c.bounds, c.meaning));
  }
  // A row gives its value, or per-call samples (to_measurement reads samples first).
  row->any_of_required.push_back({"value", "samples"});
  SchemaShape rows;
  rows.type = SchemaType::object_list;
  rows.object = row;
  root.keys.push_back(SchemaKey{"measurements",
                                true,
                                {rows},
                                {},
                                "One measured point a row; a row without samples needs value "
                                "and unit."});
}

// --- llama-bench and vLLM results (calibrate --from-benchmarks, JSON) -------------------------

SchemaKey bench_key(const BenchKey& b) {
  SchemaKey k;
  k.name = std::string(b.name);
  k.required = b.required;
  k.note = sentence(b.meaning);
  switch (b.value) {
    case BenchValue::number:
      k.shapes = {shape(SchemaType::number)};
      break;
    case BenchValue::text:
      k.shapes = {shape(SchemaType::string)};
      break;
    case BenchValue::flag:
      k.shapes = {shape(SchemaType::boolean), shape(SchemaType::number)};
      break;
  }
  return k;
}

void describe_llama_bench(SchemaObject& result) {
  result.open = true;
  for (const auto& b : kLlamaBenchKeys) result.keys.push_back(bench_key(b));
}

void describe_vllm(SchemaObject& root) {
  root.open = true;
  for (const auto& b : kVllmKeys) root.keys.push_back(bench_key(b));
  // What tells the two results apart (parse_vllm_json): a serving or a latency result.
  std::vector<std::string> markers;
  for (const VllmKey k :
       {VllmKey("request_throughput"), VllmKey("mean_ttft_ms"), VllmKey("avg_latency")})
    markers.emplace_back(k.name());
  root.any_of_required.push_back(markers);
}

// --- CSV column tables --------------------------------------------------------------------------

std::string table_head(std::string_view title, std::string_view source, std::string_view intro) {
  return fmt::format(
      "# {}\n\nGenerated by `infercap schema` from {}, the table the reader checks every file "
      "against; do not edit.\n\n{}\n\n",
      title, source, intro);
}

// A Markdown table of `entries` (each with a name and a meaning), a row each: the name, then the
// two cells `cells(entry)` gives (what the second and third header columns say), then the meaning.
template <class Entries, class Cells>
std::string markdown_table(std::string_view first, std::string_view second, std::string_view third,
                           const Entries& entries, Cells cells) {
  std::string out =
      fmt::format("| {} | {} | {} | meaning |\n|---|---|---|---|\n", first, second, third);
  for (const auto& e : entries) {
    const auto [a, b] = cells(e);
    out += fmt::format("| `{}` | {} | {} | {} |\n", e.name, a, b, e.meaning);
  }
  return out;
}

std::string measurement_value(const MeasurementColumn& c) {
  switch (c.value) {
    case CellValue::text:
      return "text";
    case CellValue::number:
      return "a number " + c.bounds.describe();
    case CellValue::count:
      return "a whole number " + whole_bounds(c.bounds) + "; empty: 1";
    case CellValue::whole:
      return "a whole number " + whole_bounds(c.bounds);  // what empty means: the meaning says
  }
  return "";
}

std::string measurement_need(ColumnNeed n) {
  switch (n) {
    case ColumnNeed::header:
      return "in the header";
    case ColumnNeed::cell:
      return "in the header and every row";
    case ColumnNeed::optional:
      return "no";
  }
  return "";
}

std::string measurements_markdown() {
  std::string out = table_head(
      "Measurement CSV columns (`infercap validate`)",
      "`kMeasurementColumns` (cli/measurements.hpp)",
      "One measurement a row, the schema of shared/benchmarks/README.md plus optional columns. "
      "The header names each column once, in any order; columns the table does not list are "
      "ignored. A cell is one CSV field (RFC 4180 quoting).");
  return out + markdown_table("column", "needed", "value", kMeasurementColumns, [](const auto& c) {
           return std::pair{measurement_need(c.need), measurement_value(c)};
         });
}

std::string import_value(ImportValue v, const spec::Range& b) {
  switch (v) {
    case ImportValue::text:
      return "text";
    case ImportValue::kind:
      return kind_spellings();
    case ImportValue::unit:
      return unit_spellings();
    case ImportValue::number:
      return "a number " + b.describe();
    case ImportValue::whole:
      return "a whole number " + whole_bounds(b);
    case ImportValue::samples:
      return "times in seconds, each " + b.describe() + ", separated by ';'";
  }
  return "";
}

std::string import_need(ImportNeed n) {
  switch (n) {
    case ImportNeed::always:
      return "every row";
    case ImportNeed::unless_samples:
      return "every row without samples";
    case ImportNeed::optional:
      return "no";
  }
  return "";
}

std::string import_markdown() {
  std::string out = table_head(
      "Calibration import CSV columns (`infercap calibrate --import FILE.csv`)",
      "`kImportColumns` and `kImportHeaderKeys` "
      "(calibration/import/include/infercap/calibration/measurement_import.hpp)",
      "One measured point a row (docs/calibration.md, \"Accelerators and imports\"). The header "
      "must name every column a row needs (every row, or every row without samples); a column "
      "the table does not list is an error, as is a row with more cells than the header. The "
      "YAML form (docs/schema/calibration-measurements.schema.json) takes the same keys per row "
      "under `measurements:`.");
  out +=
      markdown_table("column", "needed", "value", calibration::kImportColumns, [](const auto& c) {
        return std::pair{import_need(c.need), import_value(c.value, c.bounds)};
      });
  out +=
      "\nLines `# key: value` before the header describe the whole file (in the YAML form, keys "
      "at the top, or under `provenance:` where marked); any other key is an error.\n\n";
  return out + markdown_table("key", "under provenance:", "value", calibration::kImportHeaderKeys,
                              [](const auto& h) {
                                return std::pair{std::string(h.provenance ? "yes" : "no"),
                                                 import_value(h.value, h.bounds)};
                              });
}

std::string bench_value(BenchValue v) {
  switch (v) {
    case BenchValue::number:
      return "a number";
    case BenchValue::text:
      return "text";
    case BenchValue::flag:
      return "true, false, 1 or 0";
  }
  return "";
}

std::string llama_bench_markdown() {
  std::string out = table_head(
      "llama-bench CSV columns (`infercap calibrate --from-benchmarks`)",
      "`kLlamaBenchKeys` (cli/bench_import_keys.hpp)",
      "`llama-bench -o csv` writes one result a row; the header must name the columns marked "
      "needed, and the others llama-bench writes are ignored. `-o json` results take the same "
      "keys (docs/schema/llama-bench.schema.json).");
  return out + markdown_table("column", "needed", "value", kLlamaBenchKeys, [](const auto& b) {
           return std::pair{std::string(b.required ? "in the header" : "no"), bench_value(b.value)};
         });
}

}  // namespace

const std::vector<spec::SpecKind>& import_kinds() {
  static const std::vector<spec::SpecKind> kinds{
      {"calibration-measurements", "infercap calibration measurements (import)",
       "Measurements taken elsewhere (a vendor profiler, a script, a published figure), one "
       "point a row, that `infercap calibrate --import FILE.yaml` fits into a calibration profile "
       "(docs/calibration.md); the CSV form's columns: calibration-measurements.columns.md.",
       describe_calibration_measurements, false},
      {"llama-bench", "llama.cpp llama-bench results (-o json)",
       "The keys `infercap calibrate --from-benchmarks` reads from each result of `llama-bench -o "
       "json`; llama-bench writes more, which are ignored.",
       describe_llama_bench, true},
      {"vllm-benchmark", "vLLM benchmark_serving / benchmark_latency result",
       "The keys `infercap calibrate --from-benchmarks` reads from a vLLM benchmark_serving "
       "(--save-result) or benchmark_latency (--output-json) result; vLLM writes more, which are "
       "ignored.",
       describe_vllm, false},
  };
  return kinds;
}

const std::vector<ColumnTable>& column_tables() {
  static const std::vector<ColumnTable> tables{
      {"measurements-csv", "measurement CSV (validate)", "measurements.columns.md",
       measurements_markdown},
      {"calibration-measurements-csv", "calibration import CSV (calibrate --import)",
       "calibration-measurements.columns.md", import_markdown},
      {"llama-bench-csv", "llama-bench CSV (calibrate --from-benchmarks)", "llama-bench.columns.md",
       llama_bench_markdown},
  };
  return tables;
}

}  // namespace infercap::cli
