#include "infercap/calibration/measurement_import.hpp"
#include "infercap/spec/csv.hpp"
#include "infercap/spec/table_key.hpp"
#include "infercap/spec/text_file.hpp"

#include <fmt/core.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

namespace infercap::calibration {

namespace {

std::string trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::optional<double> number(const std::string& s) {
  double v = 0;
  const std::string t = trim(s);
  if (t.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<KernelKind> import_kind(const std::string& s) {
  const std::string k = lower(trim(s));
  for (const auto& spelling : kImportKinds)
    if (k == spelling.name) return spelling.kind;
  return std::nullopt;
}

std::optional<ImportUnit> parse_unit(const std::string& u) {
  const std::string want = lower(trim(u));
  for (const auto& unit : kImportUnits)
    if (want == lower(std::string(unit.name))) return unit;
  return std::nullopt;
}

// "a, b, ... or z".
std::string or_list(const std::vector<std::string_view>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

// A column the reader reads, by name, checked against kImportColumns when this file is compiled
// (table_key.hpp), so the table (and the schema and docs written from it) lists every column read.
using Col = spec::TableKey<kImportColumns>;

const ImportHeaderKey* find_header_key(std::string_view name) {
  for (const auto& k : kImportHeaderKeys)
    if (k.name == name) return &k;
  return nullptr;
}

// One row as read from either format, before it becomes a Measurement.
struct RawRow {
  std::map<std::string, std::string> cells;
  std::map<std::string, std::pair<int, int>> at;  // 1-based line:col of each cell or YAML key
  std::string file;
  int line = 0;
};

Result<Measurement> to_measurement(const RawRow& r, std::string* source) {
  auto get = [&](Col k) {
    const auto it = r.cells.find(std::string(k.name()));
    return it == r.cells.end() ? std::string() : trim(it->second);
  };
  // file:line:col: column: expected vs found, as every other diagnostic of the project.
  auto fail = [&](Col k, const std::string& msg) {
    const std::string col(k.name());
    const auto it = r.at.find(col);
    const auto [l, c] = it != r.at.end() ? it->second : std::pair<int, int>{r.line, 1};
    return Error{fmt::format("{}:{}:{}: {}: {}", r.file, l, c, col, msg)};
  };
  Measurement m;
  m.backend = "import";
  m.isa = "imported";
  m.shape.threads = 1;
  const auto kind = import_kind(get("kind"));
  if (!kind) {
    return fail("kind", fmt::format("expected {}, found '{}'", import_kind_list(), get("kind")));
  }
  m.kind = *kind;
  const std::string src = get("source");
  if (src.empty()) return fail("source", "every row needs its source (profiler run, paper, page)");
  *source = src;
  const bool matmul = m.kind == KernelKind::gemv || m.kind == KernelKind::gemm;
  if (matmul) {
    const auto dt = parse_dtype(get("dtype"));
    if (!dt) return fail("dtype", fmt::format("unknown weight format '{}'", get("dtype")));
    m.weights = *dt;
    // int4 and block formats run on int8 arithmetic on the NPUs that quote an int8 peak.
    m.compute = native_compute_type(*dt).value_or(ComputeType::int8);
    if (!get("compute").empty()) {
      const auto ct = parse_compute_type(get("compute"));
      if (!ct) return fail("compute", fmt::format("unknown compute type '{}'", get("compute")));
      m.compute = *ct;
    }
    int64_t dims[3] = {0, 0, 0};
    const Col names[3] = {"m", "n", "k"};
    for (int i = 0; i < 3; ++i) {
      const auto v = number(get(names[i]));
      // At most 2^31 per dimension: far above any real matrix, and the int64 cast stays defined.
      if (!v || !names[i]->bounds.contains(*v) || *v != std::floor(*v)) {
        return fail(names[i], fmt::format("expected a positive whole number up to 2^31, found '{}'",
                                          get(names[i])));
      }
      dims[i] = static_cast<int64_t>(*v);
    }
    m.shape.m = dims[0];
    m.shape.n = dims[1];
    m.shape.k = dims[2];
    if (m.kind == KernelKind::gemv && m.shape.m > 64)
      return fail("m", fmt::format("a gemv is decode-shaped (m <= 64), found {}", m.shape.m));
    m.bytes_per_call = matmul_bytes(m.weights, m.shape.m, m.shape.n, m.shape.k);
    m.flops_per_call = matmul_flops(m.shape.m, m.shape.n, m.shape.k);
    if (!get("bytes").empty()) {
      const auto b = number(get("bytes"));
      if (!b || !Col("bytes")->bounds.contains(*b))
        return fail("bytes", fmt::format("expected a positive number, found '{}'", get("bytes")));
      m.bytes_per_call = *b;  // the profiler's own count (e.g. with scales) wins
    }
  } else if (m.kind != KernelKind::call_overhead) {
    const auto b = number(get("bytes"));
    if (!b || !Col("bytes")->bounds.contains(*b)) {
      return fail("bytes", fmt::format("a stream row needs the bytes moved per call, found '{}'",
                                       get("bytes")));
    }
    m.bytes_per_call = *b;
    m.shape.bytes = *b;
  }
  // The per-call times, if given, come first: a row may give samples instead of a value.
  const std::string samples = get("samples");
  if (!samples.empty()) {
    std::stringstream ss(samples);
    std::string item;
    while (std::getline(ss, item, ';')) {
      const auto s = number(item);
      if (!s || !Col("samples")->bounds.contains(*s))
        return fail("samples", fmt::format("expected per-call times in seconds, found '{}'", item));
      m.samples_s.push_back(*s);
    }
  }
  if (samples.empty() || !get("value").empty()) {
    const auto value = number(get("value"));
    if (!value || !Col("value")->bounds.contains(*value))
      return fail("value", fmt::format("expected a positive number, found '{}'", get("value")));
    const auto unit = parse_unit(get("unit"));
    if (!unit) {
      return fail("unit", fmt::format("expected {}, found '{}'", import_unit_list(), get("unit")));
    }
    switch (unit->kind) {
      case ImportUnitKind::time:
        m.median_s = *value * unit->scale;
        break;
      case ImportUnitKind::bytes_rate:
        if (m.bytes_per_call <= 0) return fail("unit", "a launch row is a time, not a rate");
        m.median_s = m.bytes_per_call / (*value * unit->scale);
        break;
      case ImportUnitKind::flops_rate:
        if (!matmul) return fail("unit", "a FLOP rate needs a gemv or gemm row");
        m.median_s = m.flops_per_call / (*value * unit->scale);
        break;
    }
  }
  if (m.samples_s.empty()) m.samples_s = {m.median_s};
  m.reps = static_cast<int>(m.samples_s.size());
  std::vector<double> sorted = m.samples_s;
  std::sort(sorted.begin(), sorted.end());
  m.min_s = sorted.front();
  m.p10_s = sorted[sorted.size() / 10];
  m.p90_s = sorted[(sorted.size() * 9) / 10 == sorted.size() ? sorted.size() - 1
                                                             : (sorted.size() * 9) / 10];
  if (!samples.empty() && get("value").empty()) m.median_s = sorted[sorted.size() / 2];
  // Huge values and unit factors can overflow to infinity or underflow to zero after the
  // conversion; a per-call time must be a positive finite number of seconds.
  if (!(std::isfinite(m.median_s) && m.median_s > 0)) {
    return fail("value", fmt::format("expected a value that is a positive finite time per call "
                                     "once converted, found '{}' {}",
                                     get("value"), get("unit")));
  }
  if (!get("spread").empty()) {
    const auto s = number(get("spread"));
    if (!s || !Col("spread")->bounds.contains(*s))
      return fail("spread", fmt::format("expected a fraction, found '{}'", get("spread")));
    m.spread = *s;
  } else {
    m.spread = m.median_s > 0 ? (m.p90_s - m.p10_s) / m.median_s : 0;
  }
  m.kernel = fmt::format("import.{}", kernel_kind_name(m.kind));
  if (matmul) m.kernel += fmt::format(".{}", dtype_name(m.weights));
  m.note = get("note");
  return m;
}

Result<ImportedMeasurements> finish(ImportedMeasurements out, const std::vector<RawRow>& rows,
                                    const std::string& name) {
  if (rows.empty()) {
    return Error{
        fmt::format("{}: expected measurement rows, found none (an empty or header-only "
                    "file)",
                    name)};
  }
  for (const auto& r : rows) {
    std::string src;
    auto m = to_measurement(r, &src);
    if (!m) return Error{m.error().message};
    out.rows.push_back(std::move(*m));
    out.sources.push_back(src);
  }
  return out;
}

bool set_header(ImportedMeasurements& out, const std::string& key, const std::string& value,
                std::string* err) {
  const ImportHeaderKey* known = find_header_key(key);
  if (known == nullptr) {
    std::string names;
    for (const auto& k : kImportHeaderKeys)
      names += (names.empty() ? "" : ", ") + std::string(k.name);
    *err = fmt::format("{}: unknown header key '{}' ({})", key, key, names);
    return false;
  }
  if (key == "hardware") {
    out.hardware = value;
  } else if (key == "cache_bytes") {
    const auto v = number(value);
    if (!v || !known->bounds.contains(*v)) {
      *err = fmt::format("cache_bytes: expected a number of bytes, found '{}'", value);
      return false;
    }
    out.cache_bytes = *v;
  } else if (key == "machine") {
    out.provenance.machine = value;
  } else if (key == "date") {
    out.provenance.date = value;
  } else if (key == "command") {
    out.provenance.command = value;
  } else if (key == "commit") {
    out.provenance.commit = value;
  } else if (key == "host") {
    out.provenance.host = value;
  } else if (key == "notes") {
    out.provenance.notes = value;
  } else {
    // A key of kImportHeaderKeys this function does not store: a reader bug, said as one.
    *err = fmt::format("{}: a header key infercap lists but does not read", key);
    return false;
  }
  return true;
}

bool known_column(std::string_view name) {
  for (const auto& c : kImportColumns)
    if (c.name == name) return true;
  return false;
}

}  // namespace

std::string import_kind_list() {
  std::vector<std::string_view> names;
  for (const auto& k : kImportKinds)
    if (!k.alias) names.push_back(k.name);
  return or_list(names);
}

std::string import_unit_list() {
  std::vector<std::string_view> names;
  for (const auto& u : kImportUnits) names.push_back(u.name);
  return or_list(names);
}

double matmul_bytes(DType weights, int64_t m, int64_t n, int64_t k) {
  const auto md = static_cast<double>(m), nd = static_cast<double>(n), kd = static_cast<double>(k);
  return nd * kd * bytes_per_element(weights) + 2.0 * (md * kd + md * nd);
}

double matmul_flops(int64_t m, int64_t n, int64_t k) {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

Result<ImportedMeasurements> parse_measurement_csv(std::string_view text, const std::string& name) {
  ImportedMeasurements out;
  std::vector<std::string> header;
  std::vector<RawRow> rows;
  // A spreadsheet's UTF-8 byte-order mark is not part of the first cell.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::istringstream in{std::string(text)};
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    const std::string t = trim(line);
    if (t.empty()) continue;
    if (t[0] == '#') {
      const auto colon = t.find(':');
      if (header.empty() && colon != std::string::npos) {
        std::string err;
        if (!set_header(out, trim(t.substr(1, colon - 1)), trim(t.substr(colon + 1)), &err))
          return Error{fmt::format("{}:{}:1: {}", name, lineno, err)};
      }
      continue;
    }
    auto cells = infercap::spec::split_csv_line(line);
    if (header.empty()) {
      for (auto& c : cells) c = lower(trim(c));
      std::map<std::string, size_t> seen;
      for (size_t i = 0; i < cells.size(); ++i) {
        auto [it, fresh] = seen.emplace(cells[i], i);
        if (!fresh) {
          return Error{
              fmt::format("{}:{}:{}: {}: expected each column once, found it again "
                          "(first at column {})",
                          name, lineno, i + 1, cells[i], it->second + 1)};
        }
      }
      for (const auto& column : kImportColumns) {
        if (column.need == ImportNeed::optional) continue;
        const std::string need(column.name);
        if (std::find(cells.begin(), cells.end(), need) == cells.end()) {
          return Error{
              fmt::format("{}:{}:1: {}: the header needs a '{}' column", name, lineno, need, need)};
        }
      }
      for (size_t i = 0; i < cells.size(); ++i) {
        if (!known_column(cells[i]))
          return Error{fmt::format("{}:{}:{}: {}: unknown column '{}'", name, lineno, i + 1,
                                   cells[i], cells[i])};
      }
      header = cells;
      continue;
    }
    if (cells.size() > header.size()) {
      return Error{fmt::format("{}:{}:{}: {}: expected at most {} cells (the header's), found {}",
                               name, lineno, header.size() + 1, "cells", header.size(),
                               cells.size())};
    }
    RawRow r;
    r.file = name;
    r.line = lineno;
    for (size_t i = 0; i < cells.size(); ++i) {
      r.cells[header[i]] = cells[i];
      r.at[header[i]] = {lineno, static_cast<int>(i) + 1};
    }
    rows.push_back(std::move(r));
  }
  if (header.empty()) return Error{fmt::format("{}: no header line", name)};
  return finish(std::move(out), rows, name);
}

Result<ImportedMeasurements> parse_measurement_yaml(std::string_view text,
                                                    const std::string& name) {
  YAML::Node doc;
  try {
    // From the markers, not LoadAll, which can hang on malformed input (text_file.hpp).
    if (auto second = spec::second_yaml_document(text)) {
      return Error{fmt::format("{}:{}:{}: expected one YAML document, found {}", name, second->line,
                               second->col, second->documents)};
    }
    doc = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return Error{fmt::format("{}:{}:{}: malformed YAML: {}", name, e.mark.line + 1,
                             e.mark.column + 1, e.msg)};
  }
  if (!doc.IsMap()) return Error{fmt::format("{}: expected a mapping at the top", name)};
  ImportedMeasurements out;
  std::vector<RawRow> rows;
  auto scalar = [](const YAML::Node& n) { return n.IsScalar() ? n.Scalar() : std::string(); };
  for (const auto& kv : doc) {
    const std::string key = kv.first.Scalar();
    const int line = kv.first.Mark().line + 1;
    const int col = kv.first.Mark().column + 1;
    if (key == "kind") {
      if (scalar(kv.second) != "calibration-measurements") {
        return Error{fmt::format("{}:{}:{}: kind: expected calibration-measurements, found '{}'",
                                 name, line, col, scalar(kv.second))};
      }
    } else if (key == "schema_version") {
      if (scalar(kv.second) != "1") {
        return Error{fmt::format("{}:{}:{}: schema_version: expected 1, found '{}'", name, line,
                                 col, scalar(kv.second))};
      }
    } else if (key == "provenance") {
      if (!kv.second.IsMap())
        return Error{fmt::format("{}:{}:{}: provenance: expected a mapping", name, line, col)};
      for (const auto& p : kv.second) {
        const std::string pk = p.first.Scalar();
        std::string err;
        const ImportHeaderKey* known = find_header_key(pk);
        if ((known != nullptr && !known->provenance) ||
            !set_header(out, pk, scalar(p.second), &err)) {
          return Error{fmt::format("{}:{}:{}: provenance.{}: {}", name, p.first.Mark().line + 1,
                                   p.first.Mark().column + 1, pk,
                                   err.empty() ? "unknown key '" + pk + "'" : err)};
        }
      }
    } else if (key == "measurements") {
      if (!kv.second.IsSequence())
        return Error{fmt::format("{}:{}:{}: measurements: expected a list", name, line, col)};
      for (const auto& item : kv.second) {
        if (!item.IsMap()) {
          return Error{fmt::format("{}:{}:{}: measurements: expected a mapping per row", name,
                                   item.Mark().line + 1, item.Mark().column + 1)};
        }
        RawRow r;
        r.file = name;
        r.line = item.Mark().line + 1;
        for (const auto& c : item) {
          const std::string ck = c.first.Scalar();
          r.at[ck] = {c.first.Mark().line + 1, c.first.Mark().column + 1};
          if (!known_column(ck))
            return Error{fmt::format("{}:{}:{}: {}: unknown key '{}'", name,
                                     c.first.Mark().line + 1, c.first.Mark().column + 1, ck, ck)};
          if (ck == "samples" && c.second.IsSequence()) {
            std::string joined;
            for (const auto& s : c.second) joined += (joined.empty() ? "" : ";") + scalar(s);
            r.cells[ck] = joined;
          } else {
            r.cells[ck] = scalar(c.second);
          }
        }
        rows.push_back(std::move(r));
      }
    } else {
      std::string err;
      if (!set_header(out, key, scalar(kv.second), &err))
        return Error{fmt::format("{}:{}:{}: {}", name, line, col, err)};
    }
  }
  return finish(std::move(out), rows, name);
}

Result<ImportedMeasurements> read_measurement_file(const std::string& path) {
  auto text = infercap::spec::read_text_file(path);
  if (!text) return Error{fmt::format("{}: {}", path, text.error().message)};
  const std::string ext = lower(path.substr(path.find_last_of('.') + 1));
  if (ext == "csv") return parse_measurement_csv(*text, path);
  if (ext == "yaml" || ext == "yml") return parse_measurement_yaml(*text, path);
  return Error{fmt::format("{}: expected a .csv, .yaml or .yml file", path)};
}

Result<ImportedMeasurements> merge_measurements(const std::vector<ImportedMeasurements>& parts,
                                                const std::vector<std::string>& names,
                                                std::vector<std::string>* notes) {
  if (parts.empty()) return Error{"no measurements to merge"};
  const auto name = [&](size_t i) {
    return i < names.size() ? names[i] : fmt::format("#{}", i + 1);
  };
  ImportedMeasurements out;
  size_t hw_from = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const auto& h = parts[i].hardware;
    if (h.empty()) continue;
    if (out.hardware.empty()) {
      out.hardware = h;
      hw_from = i;
    } else if (lower(h) != lower(out.hardware)) {
      return Error{
          fmt::format("{} measures '{}' but {} measures '{}': one profile describes one "
                      "device",
                      name(hw_from), out.hardware, name(i), h)};
    }
    if (out.cache_bytes == 0) out.cache_bytes = parts[i].cache_bytes;
  }
  for (const auto& p : parts) {
    if (out.cache_bytes == 0) out.cache_bytes = p.cache_bytes;
  }
  // Provenance: each field's distinct values, in file order.
  const auto join = [&](std::string Provenance::*field) {
    std::vector<std::string> seen;
    for (const auto& p : parts) {
      const std::string& v = p.provenance.*field;
      if (!v.empty() && std::find(seen.begin(), seen.end(), v) == seen.end()) seen.push_back(v);
    }
    std::string j;
    for (const auto& v : seen) j += (j.empty() ? "" : " + ") + v;
    return j;
  };
  for (auto f : {&Provenance::machine, &Provenance::host, &Provenance::os, &Provenance::date,
                 &Provenance::commit, &Provenance::command, &Provenance::notes}) {
    out.provenance.*f = join(f);
  }
  // Memory streams: the best file's rows per kind (what the fastest kernel reaches); rows of a
  // working set inside the cache are not streams and stay.
  std::map<KernelKind, size_t> best_part;
  for (const KernelKind kind : {KernelKind::stream_read, KernelKind::stream_copy}) {
    double best = 0;
    std::vector<std::string> rates;
    for (size_t i = 0; i < parts.size(); ++i) {
      double sum = 0;
      int n = 0;
      for (const auto& r : parts[i].rows) {
        if (r.kind == kind && r.bytes_per_call > parts[i].cache_bytes && r.bytes_per_s() > 0) {
          sum += r.bytes_per_s();
          ++n;
        }
      }
      if (n == 0) continue;
      rates.push_back(fmt::format("{} {:.1f} GB/s", name(i), sum / n / 1e9));
      if (sum / n > best) {
        best = sum / n;
        best_part[kind] = i;
      }
    }
    if (rates.size() > 1 && notes != nullptr) {
      std::string all;
      for (const auto& r : rates) all += (all.empty() ? "" : ", ") + r;
      notes->push_back(fmt::format("{} rows kept from {} only, the fastest ({})",
                                   kind == KernelKind::stream_read ? "read" : "copy",
                                   name(best_part[kind]), all));
    }
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    for (size_t j = 0; j < parts[i].rows.size(); ++j) {
      const auto& r = parts[i].rows[j];
      const auto b = best_part.find(r.kind);
      if (b != best_part.end() && b->second != i && r.bytes_per_call > parts[i].cache_bytes) {
        continue;
      }
      out.rows.push_back(r);
      out.sources.push_back(j < parts[i].sources.size() ? parts[i].sources[j] : std::string());
    }
  }
  return out;
}

void as_device_bandwidth(FitReport& rep) {
  // With one "thread" count the CPU fit reads the measured rate as 98% of a saturating curve
  // (n0 = 1/4) and reports an asymptote 1/(1 - e^-4) higher, but the model uses a device's
  // asymptote as its bandwidth. Put the measured rate there.
  auto& bw = rep.profile.bandwidth;
  const double k = 1 - std::exp(-4.0);
  bw.asymptote_bytes_per_s *= k;
  bw.ci95_low_bytes_per_s *= k;
  bw.ci95_high_bytes_per_s *= k;
  bw.n0_threads = 1.0 / 64;  // at(1) equals the asymptote to 1e-27
  rep.notes.push_back(
      fmt::format("device bandwidth (no thread axis): {:.1f} GB/s, the measured "
                  "read rate",
                  bw.asymptote_bytes_per_s / 1e9));
}

Result<FitReport> fit_imported(const ImportedMeasurements& m) {
  std::vector<Measurement> rows = m.rows;
  const bool has_read = std::any_of(rows.begin(), rows.end(), [](const Measurement& r) {
    return r.kind == KernelKind::stream_read;
  });
  bool from_copy = false;
  if (!has_read) {
    for (auto& r : rows) {
      if (r.kind == KernelKind::stream_copy) {
        r.kind = KernelKind::stream_read;
        from_copy = true;
      }
    }
  }
  FitOptions opt;
  opt.dram_llc_multiple = 1.0;
  auto fit = fit_profile(rows, m.cache_bytes, opt);
  if (!fit) return Error{fit.error().message};
  FitReport rep = std::move(*fit);
  if (from_copy) {
    rep.notes.push_back(
        "memory bandwidth from copy rows (bytes read + written per call): no read rows imported");
  }
  as_device_bandwidth(rep);
  rep.profile.backend = m.backend;
  rep.profile.provenance = m.provenance;
  rep.profile.hardware = m.hardware;
  rep.profile.threads = 1;
  return rep;
}

}  // namespace infercap::calibration
