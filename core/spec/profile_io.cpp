#include "infercap/spec/profile_io.hpp"

#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "infercap/spec/atomic_write.hpp"
#include "infercap/spec/reader.hpp"
#include "infercap/spec/schema.hpp"
#include "infercap/spec/sources.hpp"
#include "infercap/spec/text_file.hpp"

namespace infercap::spec {

namespace {

constexpr ComputeType kTypes[] = {ComputeType::fp32, ComputeType::tf32, ComputeType::bf16,
                                  ComputeType::fp16, ComputeType::fp8,  ComputeType::int8,
                                  ComputeType::int4, ComputeType::fp4};

void emit_table(YAML::Emitter& out, const char* key, const ComputeTable& t) {
  bool any = false;
  for (double v : t) any = any || v > 0;
  if (!any) return;
  out << YAML::Key << key << YAML::Value << YAML::BeginMap;
  for (ComputeType c : kTypes) {
    if (at(t, c) > 0)
      out << YAML::Key << std::string(compute_type_name(c)) << YAML::Value << at(t, c);
  }
  out << YAML::EndMap;
}

void read_table(Reader& r, const char* key, ComputeTable& t) {
  auto child = r.child(key);
  if (!child) return;
  std::vector<std::string> names;
  for (ComputeType c : kTypes) names.emplace_back(compute_type_name(c));
  const Dim dim = std::string(key).ends_with("_flops_per_s") ? Dim::flops_per_s : Dim::bytes_per_s;
  if (child->describing()) {
    // The keys are compute types, read from keys() below.
    for (const auto& n : names) child->optional_quantity(n, dim, Range::non_negative());
    return;
  }
  for (const std::string& k : child->keys()) {
    const auto c = parse_compute_type(k);
    if (!c) {
      child->error(k, "unknown compute type '" + k + "'",
                   did_you_mean_text(did_you_mean(k, names)));
      child->ignore(k);
      continue;
    }
    if (auto v = child->optional_quantity(k, dim, Range::non_negative())) at(t, *c) = *v;
  }
}

// The keys of a profile after its header (parse_profile; describe_profile runs it over a
// describing reader).
void read_profile(Reader& r, CalibrationProfile& p) {
  p.hardware = r.value_or<std::string>("hardware", "");
  p.backend = r.value_or<std::string>("backend", "");
  p.threads = r.value_or<int>("threads", 0, Range::non_negative());
  r.exempt_from_sources("threads");
  if (auto bw = r.required_child("bandwidth")) {
    p.bandwidth.asymptote_bytes_per_s =
        bw->required<double>("asymptote_bytes_per_s", Range::positive()).value_or(0);
    p.bandwidth.n0_threads = bw->value_or<double>("n0_threads", 1, Range::positive());
    p.bandwidth.ci95_low_bytes_per_s =
        bw->value_or<double>("ci95_low_bytes_per_s", 0, Range::non_negative());
    p.bandwidth.ci95_high_bytes_per_s =
        bw->value_or<double>("ci95_high_bytes_per_s", 0, Range::non_negative());
  }
  p.cache_bandwidth_bytes_per_s =
      r.value_or<double>("cache_bandwidth_bytes_per_s", 0, Range::non_negative());
  p.cache_bytes = r.value_or<double>("cache_bytes", 0, Range::non_negative());
  read_table(r, "achieved_flops_per_s", p.achieved_flops_per_s);
  read_table(r, "gemv_bandwidth_bytes_per_s", p.gemv_bandwidth_bytes_per_s);
  {
    std::vector<std::string> names;
    for (ComputeType c : kTypes) names.emplace_back(compute_type_name(c));
    for (Reader& g : r.list("gemv_by_k")) {
      GemvPoint pt;
      const auto t = g.choice("type", names, true);
      const auto k = g.required<double>("k", Range::positive());
      const auto bw = g.required<double>("bandwidth_bytes_per_s", Range::positive());
      if (t && k && bw) {
        pt.type = kTypes[*t];
        pt.k = *k;
        pt.bytes_per_s = *bw;
        p.gemv_by_k.push_back(pt);
      }
    }
  }
  p.kernel_overhead_s = r.value_or<double>("kernel_overhead_s", 0, Range::non_negative());
  p.fork_join_s = r.value_or<double>("fork_join_s", 0, Range::non_negative());
  if (auto pv = r.child("provenance")) {
    Provenance& v = p.provenance;
    v.machine = pv->value_or<std::string>("machine", "");
    v.host = pv->value_or<std::string>("host", "");
    v.os = pv->value_or<std::string>("os", "");
    v.date = pv->value_or<std::string>("date", "");
    v.commit = pv->value_or<std::string>("commit", "");
    v.command = pv->value_or<std::string>("command", "");
    v.notes = pv->value_or<std::string>("notes", "");
  }
}

}  // namespace

std::string profile_to_yaml(const CalibrationProfile& p) {
  YAML::Emitter out;
  out.SetDoublePrecision(17);
  out << YAML::BeginMap;
  out << YAML::Key << "schema_version" << YAML::Value << p.schema_version;
  out << YAML::Key << "kind" << YAML::Value << "calibration-profile";
  if (!p.hardware.empty()) out << YAML::Key << "hardware" << YAML::Value << p.hardware;
  out << YAML::Key << "backend" << YAML::Value << p.backend;
  out << YAML::Key << "threads" << YAML::Value << p.threads;
  out << YAML::Key << "bandwidth" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "asymptote_bytes_per_s" << YAML::Value << p.bandwidth.asymptote_bytes_per_s;
  out << YAML::Key << "n0_threads" << YAML::Value << p.bandwidth.n0_threads;
  out << YAML::Key << "ci95_low_bytes_per_s" << YAML::Value << p.bandwidth.ci95_low_bytes_per_s;
  out << YAML::Key << "ci95_high_bytes_per_s" << YAML::Value << p.bandwidth.ci95_high_bytes_per_s;
  out << YAML::EndMap;
  out << YAML::Key << "cache_bandwidth_bytes_per_s" << YAML::Value << p.cache_bandwidth_bytes_per_s;
  out << YAML::Key << "cache_bytes" << YAML::Value << p.cache_bytes;
  emit_table(out, "achieved_flops_per_s", p.achieved_flops_per_s);
  emit_table(out, "gemv_bandwidth_bytes_per_s", p.gemv_bandwidth_bytes_per_s);
  if (!p.gemv_by_k.empty()) {
    out << YAML::Key << "gemv_by_k" << YAML::Value << YAML::BeginSeq;
    for (const GemvPoint& g : p.gemv_by_k) {
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "type" << YAML::Value
          << std::string(compute_type_name(g.type)) << YAML::Key << "k" << YAML::Value << g.k
          << YAML::Key << "bandwidth_bytes_per_s" << YAML::Value << g.bytes_per_s << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  out << YAML::Key << "kernel_overhead_s" << YAML::Value << p.kernel_overhead_s;
  out << YAML::Key << "fork_join_s" << YAML::Value << p.fork_join_s;
  const Provenance& v = p.provenance;
  out << YAML::Key << "provenance" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "machine" << YAML::Value << v.machine;
  out << YAML::Key << "host" << YAML::Value << v.host;
  out << YAML::Key << "os" << YAML::Value << v.os;
  out << YAML::Key << "date" << YAML::Value << v.date;
  out << YAML::Key << "commit" << YAML::Value << v.commit;
  out << YAML::Key << "command" << YAML::Value << v.command;
  out << YAML::Key << "notes" << YAML::Value << v.notes;
  out << YAML::EndMap;
  // Every number above is a measurement of this run: one source entry covers them all.
  const std::string day = v.date.size() >= 10 ? v.date.substr(0, 10) : "1970-01-01";
  out << YAML::Key << "sources" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  out << YAML::Key << "fields" << YAML::Value << YAML::Flow << YAML::BeginSeq << "*"
      << YAML::EndSeq;
  // Empty parts (an import from another tool has no host or commit of ours) are left out.
  std::string ref = "measurement: `" +
                    (v.command.empty() ? std::string("infercap calibrate") : v.command) + "` on " +
                    v.machine;
  if (!v.host.empty()) ref += " (" + v.host + ")";
  if (!v.commit.empty()) ref += ", commit " + v.commit;
  out << YAML::Key << "ref" << YAML::Value << ref;
  out << YAML::Key << "date" << YAML::Value << day;
  out << YAML::EndMap << YAML::EndSeq;
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

Result<CalibrationProfile> parse_profile(std::string_view yaml_text, const std::string& file,
                                         Diagnostics& diags) {
  const std::size_t before = diags.error_count();
  Document doc = parse_text(yaml_text, file, diags);
  CalibrationProfile p;
  if (doc.ok) {
    Reader r = Reader::root(doc, diags);
    if (r.valid() && check_header(r, "calibration-profile")) {
      read_profile(r, p);
      const std::vector<SourceRef> sources = read_sources(r, true);
      check_source_coverage(r, sources);
      r.finish();
    }
  }
  if (diags.error_count() > before) {
    return Error{file + ": " + std::to_string(diags.error_count() - before) +
                 " error(s) in calibration profile"};
  }
  return p;
}

void describe_profile(SchemaObject& root) {
  Diagnostics sink;
  Reader r = Reader::describer(root, sink);
  check_header(r, "calibration-profile");
  CalibrationProfile p;
  read_profile(r, p);
  read_sources(r, true);
  r.finish();
}

Result<CalibrationProfile> load_profile(const std::string& path, Diagnostics& diags) {
  auto text = read_text_file(path);
  if (!text) {
    diags.error(path, 0, 0, "", "calibration profile: " + text.error().message);
    return Error{path + ": cannot read calibration profile"};
  }
  return parse_profile(*text, path, diags);
}

Result<std::string> save_profile(const CalibrationProfile& p, const std::string& path, bool force) {
  return write_file_atomically(path, profile_to_yaml(p), force);
}

}  // namespace infercap::spec
