#pragma once
// The JSON Schemas and CSV column tables of the files infercap reads through readers of their
// own rather than the spec Reader, each written from the table its reader checks files against
// (so they cannot drift from what is read):
//   calibration-measurements  `calibrate --import FILE.yaml`: kImportColumns, kImportHeaderKeys
//                             (calibration/import/.../measurement_import.hpp);
//   llama-bench               `calibrate --from-benchmarks`, llama-bench -o json: kLlamaBenchKeys;
//   vllm-benchmark            `calibrate --from-benchmarks`, vLLM's result JSON: kVllmKeys
//                             (both in bench_import_keys.hpp);
// and, for CSV (which has no JSON Schema), a Markdown table of the columns of
//   measurements              `validate`'s measurement CSV: kMeasurementColumns (measurements.hpp);
//   calibration-measurements  `calibrate --import FILE.csv`: kImportColumns, kImportHeaderKeys;
//   llama-bench               `calibrate --from-benchmarks`, llama-bench -o csv: kLlamaBenchKeys.
// `infercap schema -o docs/schema` writes them beside the spec kinds' schemas (schema.hpp);
// tests/test_schema.cpp compares the committed files byte for byte.
#include <string>
#include <vector>

#include "infercap/spec/schema.hpp"

namespace infercap::cli {

/// The import formats with a JSON Schema, in a fixed order (json_schema and schema_file_name of
/// schema.hpp take them as they take the spec kinds).
const std::vector<spec::SpecKind>& import_kinds();

/// A CSV format's columns, as a Markdown document.
struct ColumnTable {
  std::string name;           ///< what `infercap schema --kind` calls it, e.g. "measurements-csv"
  std::string title;          ///< one line
  std::string file;           ///< the file name in docs/schema/, e.g. "measurements.columns.md"
  std::string (*markdown)();  ///< deterministic text ending in a newline
};

/// Every CSV format infercap reads, in a fixed order.
const std::vector<ColumnTable>& column_tables();

}  // namespace infercap::cli
