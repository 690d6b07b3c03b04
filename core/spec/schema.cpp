#include "infercap/spec/schema.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

namespace infercap::spec {

namespace {

using Json = nlohmann::ordered_json;

const char* const kDraft = "https://json-schema.org/draft/2020-12/schema";

// A bound as JSON: whole numbers as integers, so "minimum": 1 and not 1.0.
Json number(double v) {
  if (std::fabs(v) < 9e15 && v == std::floor(v)) return static_cast<int64_t>(v);
  return v;
}

void add_range(Json& j, const std::optional<Range>& r) {
  if (!r) return;
  if (std::isfinite(r->lo)) j[r->lo_inclusive ? "minimum" : "exclusiveMinimum"] = number(r->lo);
  if (std::isfinite(r->hi)) j[r->hi_inclusive ? "maximum" : "exclusiveMaximum"] = number(r->hi);
}

// What the loader takes as text: any scalar (a YAML number or boolean is read as its text).
Json scalar_text() {
  return Json{{"type", Json::array({"string", "number", "boolean"})}};
}

Json object_schema(const SchemaObject& o);

Json shape_schema(const SchemaShape& s) {
  Json j = Json::object();
  switch (s.type) {
    case SchemaType::any:
      break;
    case SchemaType::boolean:
      j["type"] = "boolean";
      break;
    case SchemaType::integer:
      j["type"] = "integer";
      add_range(j, s.range);
      break;
    case SchemaType::number:
      // With a unit, a string such as "3.35 TB/s" is converted by the unit table; the bounds
      // apply to plain numbers (SI) here and to every value in the loader.
      if (s.dim == Dim::dimensionless) {
        j["type"] = "number";
      } else {
        j["type"] = Json::array({"number", "string"});
      }
      add_range(j, s.range);
      break;
    case SchemaType::string:
      j = scalar_text();
      break;
    case SchemaType::string_list:
      j["type"] = "array";
      j["items"] = scalar_text();
      break;
    case SchemaType::number_list: {
      j["type"] = "array";
      SchemaShape item;
      item.type = s.whole ? SchemaType::integer : SchemaType::number;
      item.dim = s.dim;
      item.range = s.range;
      j["items"] = shape_schema(item);
      break;
    }
    case SchemaType::choice:
      if (s.values.size() == 1) {
        j["const"] = s.values.front();
      } else {
        j["enum"] = s.values;
      }
      break;
    case SchemaType::choice_list:
      j["type"] = "array";
      j["items"] = Json{{"enum", s.values}};
      break;
    case SchemaType::object:
      j = object_schema(*s.object);
      break;
    case SchemaType::object_list:
      j["type"] = "array";
      j["items"] = object_schema(*s.object);
      break;
  }
  return j;
}

// A value of each dimension to show its spelling with a unit (format_quantity's text is what
// parse_quantity reads back).
double typical(Dim d) {
  switch (d) {
    case Dim::bytes:
      return 80e9;
    case Dim::bytes_per_s:
      return 3.35e12;
    case Dim::flops_per_s:
      return 989e12;
    case Dim::seconds:
      return 0.25;
    case Dim::watts:
      return 700;
    case Dim::hertz:
      return 2.1e9;
    default:
      return 1;
  }
}

// A sentence for editors' hover text, from what the loader asked: type, unit, range, default.
std::string describe_shape(const SchemaShape& s) {
  const std::string range = s.range ? " " + s.range->describe() : "";
  switch (s.type) {
    case SchemaType::any:
      return "any value (read by the loader itself)";
    case SchemaType::boolean:
      return "true or false";
    case SchemaType::integer:
      return "a whole number" + range;
    case SchemaType::number:
      if (s.dim == Dim::dimensionless) return "a number" + range;
      return fmt::format("a {} in {}{}, or a string with a unit such as \"{}\"", dim_name(s.dim),
                         dim_unit(s.dim), range, format_quantity(typical(s.dim), s.dim));
    case SchemaType::string:
      return "a text";
    case SchemaType::string_list:
      return "a list of texts";
    case SchemaType::number_list:
      if (s.dim == Dim::dimensionless)
        return fmt::format("a list of {}{}", s.whole ? "whole numbers" : "numbers", range);
      return fmt::format("a list of {} values in {}{}", dim_name(s.dim), dim_unit(s.dim), range);
    case SchemaType::choice:
      return s.values.size() == 1 ? fmt::format("'{}'", s.values.front())
                                  : fmt::format("one of {}", fmt::join(s.values, ", "));
    case SchemaType::choice_list:
      return fmt::format("a list, each one of {}", fmt::join(s.values, ", "));
    case SchemaType::object:
      return "a mapping";
    case SchemaType::object_list:
      return "a list of mappings";
  }
  return "";
}

// `unless`: the key whose presence lifts this key's requirement ("" if none).
Json key_schema(const SchemaKey& k, const std::string& unless) {
  Json j = Json::object();
  std::string text;
  if (k.shapes.size() == 1) {
    j = shape_schema(k.shapes.front());
    text = describe_shape(k.shapes.front());
  } else {
    Json any = Json::array();
    std::vector<std::string> forms;
    for (const auto& s : k.shapes) {
      any.push_back(shape_schema(s));
      forms.push_back(describe_shape(s));
    }
    j["anyOf"] = any;
    text = fmt::format("{}", fmt::join(forms, "; or "));
  }
  const std::string req = !k.required      ? "Optional: "
                          : unless.empty() ? "Required: "
                                           : "Required unless " + unless + " is given: ";
  text = req + text + ".";
  if (!k.note.empty()) text += " " + k.note;
  // Keep the schema keywords first and the human text after them (stable, readable diffs).
  Json out = Json::object();
  out["description"] = text;
  for (auto it = j.begin(); it != j.end(); ++it) out[it.key()] = it.value();
  if (k.default_json) out["default"] = Json::parse(*k.default_json);
  return out;
}

Json object_schema(const SchemaObject& o) {
  Json j = Json::object();
  j["type"] = "object";
  Json props = Json::object();
  for (const auto& k : o.keys) {
    const bool header = k.name == "schema_version" || k.name == "kind";
    props[k.name] = key_schema(k, header ? std::string() : o.required_unless);
  }
  j["properties"] = props;
  if (!o.patterns.empty()) {
    Json pats = Json::object();
    for (const auto& [re, shape] : o.patterns) {
      Json p = shape_schema(shape);
      Json out = Json::object();
      out["description"] = describe_shape(shape) + ".";
      for (auto it = p.begin(); it != p.end(); ++it) out[it.key()] = it.value();
      pats[re] = out;
    }
    j["patternProperties"] = pats;
  }
  // Unknown keys are errors in every loader; only another tool's format is open.
  j["additionalProperties"] = o.open;
  std::vector<std::string> always, lifted;
  for (const auto& k : o.keys) {
    if (!k.required) continue;
    const bool header = k.name == "schema_version" || k.name == "kind";
    (o.required_unless.empty() || header ? always : lifted).push_back(k.name);
  }
  if (!always.empty()) j["required"] = always;
  Json groups = Json::array();
  if (!o.required_unless.empty() && !lifted.empty()) {
    groups.push_back(Json::array(
        {Json{{"required", Json::array({o.required_unless})}}, Json{{"required", lifted}}}));
  }
  for (const auto& g : o.any_of_required) {
    Json alt = Json::array();
    for (const auto& k : g) alt.push_back(Json{{"required", Json::array({k})}});
    groups.push_back(alt);
  }
  if (groups.size() == 1) {
    j["anyOf"] = groups.front();
  } else if (groups.size() > 1) {
    Json all = Json::array();
    for (const auto& g : groups) all.push_back(Json{{"anyOf", g}});
    j["allOf"] = all;
  }
  return j;
}

}  // namespace

const std::vector<SpecKind>& spec_kinds() {
  static const std::vector<SpecKind> kinds{
      {"model", "infercap model spec",
       "A transformer's shape: layers, widths, heads, feed-forward, MoE and MLA blocks "
       "(docs/spec-reference.md, kind: model). A file given on the command line may instead "
       "name a catalog entry with preset: and override some of its keys.",
       describe_model},
      {"hardware", "infercap hardware spec",
       "One device (for CPUs one socket): dense and sparse peaks per compute type, memory, link, "
       "power, and for class cpu its topology (docs/spec-reference.md, kind: hardware).",
       describe_hardware},
      {"stack", "infercap serving-stack spec",
       "A serving stack as fractions of the hardware's peaks and fixed overheads, per hardware "
       "class (docs/spec-reference.md, kind: stack).",
       describe_stack},
      {"price", "infercap price book",
       "Prices that turn devices, watts and engineer-weeks into money, in USD or CNY "
       "(docs/spec-reference.md, kind: price).",
       describe_prices},
      {"scenario", "infercap scenario (plan and report input)",
       "A workload of request classes with SLAs, the candidates to consider, constraints and an "
       "objective: what `infercap plan` and `infercap report` read (docs/plan.md).",
       describe_scenario},
      {"calibration-profile", "infercap calibration profile",
       "What `infercap calibrate` measured on one machine, accepted by --calibration "
       "(docs/calibration.md).",
       describe_profile},
  };
  return kinds;
}

const SpecKind* find_spec_kind(std::string_view kind) {
  for (const auto& k : spec_kinds())
    if (k.kind == kind) return &k;
  return nullptr;
}

SchemaObject describe_kind(const SpecKind& kind) {
  SchemaObject root;
  kind.describe(root);
  return root;
}

std::string schema_file_name(const SpecKind& kind) {
  return kind.kind + ".schema.json";
}

std::string json_schema(const SpecKind& kind) {
  const SchemaObject root = describe_kind(kind);
  Json j = Json::object();
  j["$schema"] = kDraft;
  j["title"] = kind.title;
  j["description"] =
      kind.description + " Generated from infercap's loader by `infercap schema`; do not edit.";
  const Json body = object_schema(root);
  if (kind.list) {
    j["type"] = "array";
    j["items"] = body;
  } else {
    for (auto it = body.begin(); it != body.end(); ++it) j[it.key()] = it.value();
  }
  return j.dump(2) + "\n";
}

}  // namespace infercap::spec
