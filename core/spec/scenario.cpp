#include "infercap/spec/scenario.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <regex>

#include <yaml-cpp/yaml.h>

#include "infercap/spec/prices.hpp"
#include "infercap/spec/schema.hpp"
#include "infercap/units.hpp"

namespace infercap::spec {

namespace {

// Ceilings on counts a scenario may ask for. They keep every replica and device count the solver
// derives from them inside a 32-bit int (kMaxTp x the solver's replica ceiling), and the
// simulator's work and memory bounded; each is far above any real deployment.
constexpr int kMaxTp = 1024;                       // tensor-parallel degree of one replica
constexpr int kMaxBatch = 1'000'000;               // sequences one replica batches
constexpr int kMaxRedundancy = 1000;               // spare replicas per pool
constexpr double kMaxModelChanges = 365;           // model changes per year (one a day)
constexpr int64_t kMaxVerifyRequests = 1'000'000;  // measured requests per simulator check
constexpr int kMaxVerifyTop = 1000;                // finalists re-checked by the simulator
// Token lengths: far above any context window (the longest are a few million tokens).
const Range kLengthRange = Range::between(1, 1e9);

// Arrival processes by name; bursty is the hyperexponential's everyday name.
const std::vector<std::pair<std::string_view, ArrivalKind>> kArrivalKinds = {
    {"poisson", ArrivalKind::poisson},
    {"deterministic", ArrivalKind::deterministic},
    {"gamma", ArrivalKind::gamma},
    {"bursty", ArrivalKind::hyperexponential},
    {"hyperexponential", ArrivalKind::hyperexponential}};

const std::vector<std::pair<std::string_view, HwClass>> kClassNames = {
    {"cpu", HwClass::cpu}, {"gpu", HwClass::gpu}, {"npu", HwClass::npu}, {"fpga", HwClass::fpga}};

// A list of numbers under `key` (plain numbers or quantities of the key's dimension); `whole`
// only says so to the schema (int_list checks it).
std::optional<std::vector<double>> number_list(Reader& r, std::string_view key, Range range,
                                               Dim dim = Dim::dimensionless, bool whole = false) {
  if (r.describing()) {
    r.describe(key, SchemaShape{SchemaType::number_list, dim, range, whole, {}, {}});
    return std::nullopt;
  }
  if (!r.has(key)) {
    r.ignore(key);  // records the key as known, for did-you-mean on typos
    return std::nullopt;
  }
  YAML::Node n = r.raw(key);
  if (!n.IsSequence()) {
    r.error(key, "expected a list of numbers, e.g. [1, 2, 4]");
    return std::nullopt;
  }
  std::vector<double> out;
  bool ok = true;
  for (size_t i = 0; i < n.size(); ++i) {
    const YAML::Node e = n[i];
    if (!e.IsScalar()) {
      r.error(key, fmt::format("element {}: expected a number", i));
      ok = false;
      continue;
    }
    auto v = parse_quantity(e.Scalar(), dim);
    if (!v) {
      r.error(key, fmt::format("element {}: {}", i, v.error().message));
      ok = false;
      continue;
    }
    if (!range.contains(*v)) {
      r.error(key, fmt::format("element {}: expected a value {}, found {}", i, range.describe(),
                               e.Scalar()));
      ok = false;
      continue;
    }
    out.push_back(*v);
  }
  if (!ok) return std::nullopt;
  return out;
}

std::optional<std::vector<int>> int_list(Reader& r, std::string_view key, int lo, int hi) {
  auto v = number_list(r, key, Range::between(lo, hi), Dim::dimensionless, true);
  if (!v) return std::nullopt;
  std::vector<int> out;
  for (double d : *v) {
    if (d != std::floor(d)) {
      r.error(key, fmt::format("expected whole numbers, found {}", d));
      return std::nullopt;
    }
    out.push_back(static_cast<int>(d));
  }
  if (out.empty()) {
    r.error(key, "expected at least one value");
    return std::nullopt;
  }
  return out;
}

std::vector<HwClass> class_list(Reader& r, std::string_view key) {
  std::vector<std::string> names;
  names.reserve(kClassNames.size());
  for (const auto& [n, c] : kClassNames) names.emplace_back(n);
  std::vector<HwClass> out;
  if (auto idx = r.choice_list(key, names, false))
    for (size_t i : *idx) out.push_back(kClassNames[i].second);
  return out;
}

// The keys of one kind of length distribution, in its mapping `c`; `check` reports a
// distribution core refuses.
template <class Check>
std::optional<LengthDist> read_length_of(Reader& c, LengthKind kind, const Check& check) {
  switch (kind) {
    case LengthKind::fixed: {
      auto t = c.required<double>("tokens", kLengthRange);
      return t ? check(fixed_length(*t)) : std::nullopt;
    }
    case LengthKind::uniform: {
      auto lo = c.required<double>("min", kLengthRange);
      auto hi = c.required<double>("max", kLengthRange);
      return lo && hi ? check(uniform_length(*lo, *hi)) : std::nullopt;
    }
    case LengthKind::exponential: {
      auto m = c.required<double>("mean", Range::positive());
      return m ? check(exponential_length(*m)) : std::nullopt;
    }
    case LengthKind::lognormal: {
      // By two percentiles or by mean and sigma (describe mode: both forms).
      const bool by_percentiles = c.has("p50") || c.has("p90");
      std::optional<LengthDist> out;
      if (by_percentiles || c.describing()) {
        auto p50 = c.required<double>("p50", kLengthRange);
        auto p90 = c.required<double>("p90", kLengthRange);
        if (p50 && p90) out = check(lognormal_length_p50_p90(*p50, *p90));
      }
      if (!by_percentiles || c.describing()) {
        auto m = c.required<double>("mean", kLengthRange);
        auto s = c.required<double>("sigma", Range::positive());
        if (m && s) out = check(lognormal_length_mean_sigma(*m, *s));
      }
      return out;
    }
    case LengthKind::histogram: {
      auto t = number_list(c, "tokens", kLengthRange);
      auto w = number_list(c, "weights", Range::non_negative());
      if (!c.has("tokens")) c.error_here("a histogram needs tokens: [...]");
      if (!c.has("weights")) c.error_here("a histogram needs weights: [...]");
      return t && w ? check(histogram_length(*t, *w)) : std::nullopt;
    }
  }
  return std::nullopt;
}

const std::vector<std::pair<std::string_view, LengthKind>> kLengthKinds = {
    {"fixed", LengthKind::fixed},
    {"uniform", LengthKind::uniform},
    {"lognormal", LengthKind::lognormal},
    {"exponential", LengthKind::exponential},
    {"histogram", LengthKind::histogram}};

// A length distribution: a plain number (fixed) or a mapping with `kind`. `required` is for the
// schema: output_tokens may be left out of an encoder's class (read_request_class).
std::optional<LengthDist> read_length(Reader& r, std::string_view key, bool required = true) {
  const SchemaShape count{SchemaType::number, Dim::dimensionless, kLengthRange, true, {}, {}};
  if (r.describing()) {
    r.describe(key, count, required);
  } else if (!r.has(key)) {
    r.error(key, fmt::format("missing '{}': a token count or {{kind: ...}}", key));
    return std::nullopt;
  }
  YAML::Node n = r.raw(key);
  auto check = [&](Result<LengthDist> d) -> std::optional<LengthDist> {
    if (!d) {
      r.error(key, d.error().message);
      return std::nullopt;
    }
    return *d;
  };
  if (n.IsScalar()) {
    auto v = parse_quantity(n.Scalar(), Dim::dimensionless);
    if (!v || !kLengthRange.contains(*v)) {
      r.error(key, fmt::format("expected a token count {} or a mapping with kind:, found {}",
                               kLengthRange.describe(), quote_text(n.Scalar())));
      return std::nullopt;
    }
    return check(fixed_length(*v));
  }
  auto c = r.child(key);
  if (!c) return std::nullopt;
  std::vector<std::string> kind_names;
  kind_names.reserve(kLengthKinds.size());
  for (const auto& [name, k] : kLengthKinds) kind_names.emplace_back(name);
  const auto kind_at = c->choice("kind", kind_names, true);
  if (c->describing()) {
    // Every kind's keys, none required (each kind requires its own).
    c->describe_forms(true);
    for (const auto& [name, k] : kLengthKinds) read_length_of(*c, k, check);
    c->describe_note("kind", "Each kind needs its own keys (docs/spec-reference.md).");
    r.describe(key, count, required);  // the mapping's ask above was an optional one
    return std::nullopt;
  }
  if (!kind_at) return std::nullopt;
  return read_length_of(*c, kLengthKinds[*kind_at].second, check);
}

// SLA keys are `<metric>_p<percentile>_s`, e.g. ttft_p99_s: "500 ms", tpot_p90_s, e2e_p50_s.
constexpr const char* kSlaKey = R"(^(ttft|tpot|e2e)_p([0-9]+(?:\.[0-9]+)?)_s$)";

void read_sla(Reader& s, Sla& sla) {
  static const std::regex re(kSlaKey);
  s.describe_pattern(
      kSlaKey, SchemaShape{SchemaType::number, Dim::seconds, Range::positive(), false, {}, {}});
  for (const auto& key : s.keys()) {
    std::smatch m;
    if (!std::regex_match(key, m, re)) continue;  // finish() reports it as unknown
    // The regex admits any digit string ("p999...9"): parsed without throwing, and a value
    // that is not a number in (0, 100) is reported below like any other bad percentile.
    double pct = std::numeric_limits<double>::quiet_NaN();
    {
      const std::string t = m[2].str();
      double v = 0;
      const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
      if (ec == std::errc() && ptr == t.data() + t.size()) pct = v;
    }
    auto limit = s.required<double>(key, Range::positive());
    if (!(pct > 0 && pct < 100)) {
      s.error(key,
              fmt::format("percentile {} is outside (0, 100)",
                          m[2].str().size() > 12 ? quote_text(m[2].str()) : m[2].str()),
              "write p50, p90, p99 or p99.9");
      continue;
    }
    if (!limit) continue;
    SlaTarget* t = m[1] == "ttft" ? &sla.ttft : m[1] == "tpot" ? &sla.tpot : &sla.e2e;
    if (t->set()) {
      s.error(key, fmt::format("a second {} bound; give one percentile per metric", m[1].str()));
      continue;
    }
    t->limit_s = *limit;
    t->percentile = pct;
  }
  if (!sla.ttft.set() && !sla.tpot.set() && !sla.e2e.set()) {
    s.error_here("an SLA needs at least one bound such as ttft_p99_s: 0.5 or e2e_p90_s: 30",
                 "keys are <ttft|tpot|e2e>_p<percentile>_s");
  }
}

}  // namespace

std::optional<RequestClass> read_request_class(Reader& r, bool* output_omitted) {
  RequestClass c;
  bool ok = true;
  if (auto v = r.required<std::string>("name")) {
    c.name = *v;
  } else {
    ok = false;
  }
  if (auto v = r.required<std::string>("model")) {
    c.model = *v;
  } else {
    ok = false;
  }
  c.priority = r.value_or<int>("priority", 0);
  // A rate (open loop, or a closed loop of users with think time), or a batch job's deadline.
  // Describe mode describes both, and the closed and open forms of a rate.
  const bool batch = r.has("batch");
  r.describe_any_of_required({"rate", "batch"});
  if (batch || r.describing()) {
    if (r.has("rate")) r.error("rate", "give rate or batch, not both");
    if (!r.describing()) r.ignore("rate");
    if (auto b = r.child("batch")) {
      auto docs = b->required<double>("documents", Range::positive());
      auto hours = b->required<double>("within_hours", Range::positive());
      const double runs = b->value_or<double>("runs_per_day", 1, Range::positive());
      if (docs && hours) {
        auto br = batch_job_rate(*docs, *hours, runs);
        if (br) {
          c.rate = *br;
        } else {
          b->error_here(br.error().message);
          ok = false;
        }
      } else {
        ok = false;
      }
    } else {
      ok = false;
    }
  }
  std::optional<Reader> rate;
  if (!batch || r.describing()) {
    rate = r.describing() ? r.child("rate") : r.required_child("rate");
    if (!rate) ok = false;
  }
  if (rate) {
    if (!r.describing()) r.ignore("batch");
    const bool closed = rate->has("concurrent_users") || rate->has("think_time_s");
    rate->describe_forms(true);
    if (closed || rate->describing()) {
      auto users = rate->required<double>("concurrent_users", Range::positive());
      auto think = rate->required_quantity("think_time_s", Dim::seconds, Range::positive());
      const double mean = rate->value_or<double>("mean_qps", 0, Range::non_negative());
      for (const char* k : {"peak_qps", "hourly_qps", "requests_per_day"}) {
        if (rate->has(k)) {
          rate->error(k, "a closed loop's rate follows from its users and think time",
                      "give concurrent_users + think_time_s, or an open-loop rate");
        }
        rate->ignore(k);
      }
      if (users && think) {
        auto cl = closed_loop_rate(*users, *think, mean);
        if (cl) {
          c.rate = *cl;
        } else {
          rate->error_here(cl.error().message);
          ok = false;
        }
      } else {
        ok = false;
      }
    }
    if (!closed || rate->describing()) {
      rate->ignore("concurrent_users");  // known keys, for did-you-mean on typos
      rate->ignore("think_time_s");
      if (auto v = rate->optional<double>("mean_qps", Range::non_negative())) c.rate.mean_qps = *v;
      if (auto v = rate->optional<double>("requests_per_day", Range::non_negative())) {
        if (rate->has("mean_qps"))
          rate->error("requests_per_day", "give mean_qps or requests_per_day, not both");
        c.rate.mean_qps = *v / 86400.0;
      }
      if (auto v = rate->optional<double>("peak_qps", Range::non_negative())) c.rate.peak_qps = *v;
      if (auto v = number_list(*rate, "hourly_qps", Range::non_negative(), Dim::per_s)) {
        if (v->size() != 24)
          rate->error("hourly_qps", fmt::format("expected 24 hourly values, found {}", v->size()));
        c.rate.hourly_qps = *v;
      }
      if (c.rate.mean_qps <= 0 && c.rate.peak_qps <= 0 && c.rate.hourly_qps.empty()) {
        rate->error_here("give mean_qps, requests_per_day, peak_qps or hourly_qps (> 0)");
        ok = false;
      }
      if (c.rate.peak_qps > 0 && c.rate.mean_qps > c.rate.peak_qps) {
        rate->error("peak_qps", fmt::format("peak {} req/s is below the mean {} req/s",
                                            c.rate.peak_qps, c.rate.mean_qps));
      }
    }
  }
  if (!r.has("arrival")) r.ignore("arrival");
  if (r.has("arrival") || r.describing()) {
    // The process alone (`arrival: bursty`) or a mapping with its kind and scv.
    std::vector<std::string> names;
    names.reserve(kArrivalKinds.size());
    for (const auto& [name, k] : kArrivalKinds) names.emplace_back(name);
    r.describe("arrival",
               SchemaShape{SchemaType::choice, Dim::dimensionless, {}, false, names, {}});
    YAML::Node n = r.raw("arrival");
    std::string kind;
    std::optional<Reader> a;
    if (n.IsScalar()) {
      kind = n.Scalar();
    } else {
      a = r.child("arrival");
      if (a) {
        kind = a->value_or<std::string>("kind", "poisson");
        a->describe("kind",
                    SchemaShape{SchemaType::choice, Dim::dimensionless, {}, false, names, {}});
      }
    }
    const auto known = std::find_if(kArrivalKinds.begin(), kArrivalKinds.end(),
                                    [&](const auto& e) { return e.first == kind; });
    if (known != kArrivalKinds.end()) {
      c.arrival.kind = known->second;
    } else {
      r.error("arrival", fmt::format("unknown arrival process '{}'", kind),
              "poisson, deterministic, gamma or bursty");
    }
    if (a) {
      if (auto v = a->optional<double>("scv", Range::positive())) {
        c.arrival.scv = *v;
      } else if (c.arrival.kind == ArrivalKind::hyperexponential) {
        c.arrival.scv = 4;
      }
    } else if (c.arrival.kind == ArrivalKind::hyperexponential) {
      c.arrival.scv = 4;
    }
  }
  if (auto d = read_length(r, "prompt_tokens")) {
    c.prompt_tokens = *d;
  } else {
    ok = false;
  }
  if (!r.has("output_tokens") && output_omitted != nullptr && !r.describing()) {
    // An encoder has no decode phase: its one "output token" is the forward pass that yields the
    // label or embedding. Whether the model is one is known only when resolving.
    r.ignore("output_tokens");
    c.output_tokens = *fixed_length(1);
    *output_omitted = true;
  } else if (auto d = read_length(r, "output_tokens", output_omitted == nullptr)) {
    c.output_tokens = *d;
  } else {
    ok = false;
  }
  if (batch && !r.has("sla")) {
    r.ignore("sla");  // a batch job has a deadline, not a latency SLA: sized for throughput
  } else if (auto s = r.describing() ? r.child("sla") : r.required_child("sla")) {
    read_sla(*s, c.sla);
  } else {
    ok = false;
  }
  r.describe_note("sla", "Required unless the class is a batch job.");
  r.describe_note("output_tokens", "May be left out for an encoder model (one forward pass).");
  if (!ok) return std::nullopt;
  return c;
}

namespace {

// How a class's load was stated, read again from the class's node after read_request_class has
// checked it (so every value here is already valid, or the class was refused).
StatedLoad stated_load(Reader& cr) {
  // Raw nodes: the keys were read (and checked) already; a second child Reader would report
  // them as unknown when it finishes.
  auto number = [](const YAML::Node& n, const char* key, Dim dim, double fallback) {
    if (!n[key]) return fallback;
    auto v = parse_quantity(n[key].as<std::string>(), dim);
    return v ? *v : fallback;
  };
  StatedLoad s;
  if (cr.has("batch")) {
    const YAML::Node b = cr.raw("batch");
    s.form = StatedLoad::Form::batch;
    s.documents = number(b, "documents", Dim::dimensionless, 0);
    s.within_hours = number(b, "within_hours", Dim::dimensionless, 0);
    s.runs_per_day = number(b, "runs_per_day", Dim::dimensionless, 1);
    s.sla_omitted = !cr.has("sla");
  } else if (cr.has("rate")) {
    const YAML::Node r = cr.raw("rate");
    if (r.IsMap() && r["concurrent_users"]) {
      s.form = StatedLoad::Form::closed_loop;
      s.concurrent_users = number(r, "concurrent_users", Dim::dimensionless, 0);
      s.think_time_s = number(r, "think_time_s", Dim::seconds, 0);
      s.mean_qps = number(r, "mean_qps", Dim::dimensionless, 0);
    }
  }
  return s;
}

// Everything of a scenario after its header; `file` places a relative price-book path. Also run
// over a describing reader (describe_scenario), where no price book is loaded.
void read_scenario(Reader& r, const std::string& file, const std::string& data_dir, Scenario& sc) {
  sc.name = r.value_or<std::string>("name", "");
  if (sc.name.empty()) r.error("name", "a scenario needs a name");
  r.describe("name", SchemaShape{SchemaType::string, Dim::dimensionless, {}, false, {}, {}}, true);
  sc.description = r.value_or<std::string>("description", "");

  // Prices first: money in the rest of the file may be in CNY at the book's rate.
  sc.price_file = "default";
  std::optional<Reader> prices = r.child("prices");
  if (prices) sc.price_file = prices->value_or<std::string>("file", "default");
  if (!r.describing()) {
    std::filesystem::path pf = sc.price_file;
    if (pf.extension() != ".yaml") {
      pf = std::filesystem::path(data_dir) / "prices" / (sc.price_file + ".yaml");
    } else if (pf.is_relative()) {
      pf = std::filesystem::path(file).parent_path() / pf;
    }
    auto book = load_prices(pf.string(), r.diagnostics());
    if (book) {
      sc.prices = *book;
    } else {
      r.error("prices", fmt::format("price book '{}' could not be loaded", pf.string()));
    }
  }
  if (prices) read_price_fields(*prices, sc.prices, false);
  const double rate = sc.prices.cny_per_usd;

  if (auto w = r.required_child("workload")) {
    auto classes = w->list("classes", true);
    for (auto& cr : classes) {
      bool omitted = false;
      std::pair<double, double> prefix{0, 0};
      if (auto pr = cr.child("prefix")) {
        prefix.first = pr->required<double>("shared_tokens", Range::non_negative()).value_or(0);
        prefix.second = pr->required<double>("hit_rate", Range::fraction()).value_or(0);
      }
      if (auto c = read_request_class(cr, &omitted)) {
        if (auto check = with_prefix_reuse(*c, prefix.first, prefix.second); !check)
          cr.error("prefix", check.error().message);
        sc.classes.push_back(*c);
        sc.output_tokens_omitted.push_back(omitted);
        sc.prefix_reuse.push_back(prefix);
        sc.stated_loads.push_back(stated_load(cr));
      }
    }
    for (size_t i = 0; i < sc.classes.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (sc.classes[i].name == sc.classes[j].name)
          w->error("classes", fmt::format("two classes named '{}'", sc.classes[i].name));
      }
    }
  }

  if (auto c = r.child("candidates")) {
    CandidateSelection& s = sc.candidates;
    // `all` (also when absent) or a list of hardware names.
    c->describe("hardware",
                SchemaShape{SchemaType::choice, Dim::dimensionless, {}, false, {"all"}, {}});
    c->describe("hardware",
                SchemaShape{SchemaType::string_list, Dim::dimensionless, {}, false, {}, {}});
    if (c->has("hardware")) {
      YAML::Node n = c->raw("hardware");
      if (n.IsScalar() && n.Scalar() == "all") {
        s.all_hardware = true;
      } else if (n.IsSequence()) {
        for (const auto& e : n) {
          if (e.IsScalar()) {
            s.hardware.push_back(e.Scalar());
          } else {
            c->error("hardware", "expected hardware names");
          }
        }
      } else {
        c->error("hardware", "expected 'all' or a list of hardware names");
      }
    } else {
      c->ignore("hardware");
      s.all_hardware = true;
    }
    s.classes = class_list(*c, "classes");
    if (c->has("vendors") && c->has("include_vendors"))
      c->error("vendors", "give include_vendors or vendors (its older spelling), not both");
    if (c->describing()) {
      c->optional<std::vector<std::string>>("vendors");
      c->describe_note("vendors", "The older spelling of include_vendors; give one of them.");
    }
    s.include_vendors_key = c->has("vendors") ? "vendors" : "include_vendors";
    s.vendors = c->value_or<std::vector<std::string>>(s.include_vendors_key, {});
    s.include_vendors_at = c->position_of(s.include_vendors_key);
    if (!c->has("vendors")) c->ignore("vendors");
    if (!c->has("include_vendors")) c->ignore("include_vendors");
    s.exclude_vendors = c->value_or<std::vector<std::string>>("exclude_vendors", {});
    s.exclude_vendors_at = c->position_of("exclude_vendors");
    for (const auto& v : s.vendors) {
      if (std::find(s.exclude_vendors.begin(), s.exclude_vendors.end(), v) !=
          s.exclude_vendors.end()) {
        c->error("exclude_vendors",
                 fmt::format("'{}' is both included and excluded; keep it in one list", v));
      }
    }
    if (auto v = c->optional<std::vector<std::string>>("precisions")) {
      s.precisions = *v;
      const auto known = precision_preset_names();
      for (const auto& p : *v) {
        if (!precision_preset(p)) {
          c->error("precisions", fmt::format("unknown precision '{}'", p),
                   did_you_mean_text(did_you_mean(p, known)));
        }
      }
    }
    if (auto v = c->optional<std::vector<std::string>>("kv_precisions")) {
      s.kv_precisions = *v;
      const auto known = kv_precision_preset_names();
      for (const auto& p : *v) {
        if (auto kv = kv_precision_preset(p); !kv) {
          const auto near = did_you_mean(p, known);
          c->error("kv_precisions", kv.error().message, did_you_mean_text(near));
        }
      }
    }
    s.stacks = c->value_or<std::vector<std::string>>("stacks", {});
    if (auto v = int_list(*c, "tp", 1, kMaxTp)) s.tp = *v;
    if (auto v = int_list(*c, "max_batch", 1, kMaxBatch)) s.max_batch = *v;
    s.mixed_fleet = c->value_or<bool>("mixed_fleet", true);
  } else {
    sc.candidates.all_hardware = true;
  }

  if (auto s = r.child("serving")) {
    sc.serving.max_batched_tokens =
        s->value_or<int>("max_batched_tokens", sc.serving.max_batched_tokens, Range::at_least(1));
    sc.serving.prompt_schedule = s->value_or<bool>("chunked_prefill", true)
                                     ? PromptSchedule::chunked
                                     : PromptSchedule::whole_prompt_steps;
    sc.serving.kv_block_tokens =
        s->value_or<int>("kv_block_tokens", sc.serving.kv_block_tokens, Range::at_least(1));
    sc.serving.max_context_tokens =
        s->value_or<int64_t>("max_context_tokens", 0, Range::non_negative());
  }

  if (auto k = r.child("constraints")) {
    Constraints& c = sc.constraints;
    auto money = [&](const char* usd, const char* cny) -> double {
      if (k->has(cny) || k->describing()) {
        const double yuan = k->value_or<double>(cny, 0, Range::non_negative());
        k->describe_note(cny, fmt::format("Yuan at the price book's rate; or {} instead.", usd));
        if (!k->describing()) return yuan / rate;
      }
      return k->value_or<double>(usd, 0, Range::non_negative());
    };
    c.capex_budget_usd = money("capex_budget_usd", "capex_budget_cny");
    c.annual_budget_usd = money("annual_budget_usd", "annual_budget_cny");
    c.power_cap_w = k->value_or<double>("power_cap_w", 0, Range::non_negative());
    c.rack_units = k->value_or<int>("rack_units", 0, Range::non_negative());
    c.load_growth_per_year =
        k->value_or<double>("load_growth_per_year", 0, Range{-1, 100, false, true});
    c.redundancy = k->value_or<int>("redundancy", 0, Range::between(0, kMaxRedundancy));
    c.horizon_years = k->value_or<int>("horizon_years", 3, Range::between(1, 30));
    c.model_changes_per_year =
        k->value_or<double>("model_changes_per_year", 0, Range::between(0, kMaxModelChanges));
  }

  sc.objective = r.enum_or<Objective>("objective",
                                      {{"min_tco", Objective::min_tco},
                                       {"max_qps_within_budget", Objective::max_qps_within_budget},
                                       {"max_qps_within_power", Objective::max_qps_within_power},
                                       {"max_qps_within_rack", Objective::max_qps_within_rack},
                                       {"min_energy", Objective::min_energy}},
                                      Objective::min_tco);
  {
    // The cap an objective is about must be stated (the solver sizes within every stated one).
    const Constraints& k = sc.constraints;
    if (sc.objective == Objective::max_qps_within_budget && k.capex_budget_usd <= 0 &&
        k.annual_budget_usd <= 0) {
      r.error("objective", "max_qps_within_budget needs a budget",
              "set constraints.capex_budget_usd (or _cny) or annual_budget_usd");
    }
    if (sc.objective == Objective::max_qps_within_power && k.power_cap_w <= 0)
      r.error("objective", "max_qps_within_power needs a power cap", "set constraints.power_cap_w");
    if (sc.objective == Objective::max_qps_within_rack && k.rack_units <= 0)
      r.error("objective", "max_qps_within_rack needs rack space", "set constraints.rack_units");
  }

  if (auto f = r.child("fleet")) {
    sc.fleet.strategy = f->enum_or<FleetStrategy>("strategy",
                                                  {{"single", FleetStrategy::single},
                                                   {"tiered", FleetStrategy::tiered},
                                                   {"burst", FleetStrategy::burst},
                                                   {"staged", FleetStrategy::staged}},
                                                  FleetStrategy::single);
    double sum = 0;
    for (auto& t : f->list("tiers", sc.fleet.strategy == FleetStrategy::tiered)) {
      TierSpec ts;
      ts.name = t.value_or<std::string>("name", "");
      ts.model = t.value_or<std::string>("model", "");
      if (ts.model.empty()) t.error("model", "a tier needs a model");
      if (ts.name.empty()) ts.name = ts.model;
      ts.share = t.value_or<double>("share", 0, Range::positive_fraction());
      sum += ts.share;
      sc.fleet.tiers.push_back(ts);
    }
    if (sc.fleet.strategy == FleetStrategy::tiered && std::fabs(sum - 1) > 1e-6)
      f->error("tiers", fmt::format("tier shares must sum to 1, they sum to {:g}", sum));
    sc.fleet.baseline_model = f->value_or<std::string>("baseline_model", "");
    if (f->has("base_classes") || f->describing())
      sc.fleet.base_classes = class_list(*f, "base_classes");
    if (f->has("buffer_classes") || f->describing())
      sc.fleet.buffer_classes = class_list(*f, "buffer_classes");
    if (auto e = f->child("burst_events")) {
      const double n = e->value_or<double>("per_year", 0, Range::positive());
      const double h = e->value_or<double>("hours", 0, Range::positive());
      if (!e->has("per_year") || !e->has("hours"))
        e->error_here("burst_events needs per_year and hours", "e.g. {per_year: 4, hours: 72}");
      if (n * h > 8760) e->error_here(fmt::format("{} events of {} h are more than a year", n, h));
      sc.fleet.burst_hours_per_year = n * h;
      sc.fleet.burst_events_per_year = n;
      sc.fleet.burst_event_hours = h;
      if (sc.fleet.strategy != FleetStrategy::burst)
        f->error("burst_events", "burst_events applies to strategy: burst");
    }
  }

  if (auto v = r.child("verify")) {
    sc.verify_top = v->value_or<int>("top", sc.verify_top, Range::between(0, kMaxVerifyTop));
    sc.verify_requests = v->value_or<int64_t>("requests", sc.verify_requests,
                                              Range::between(100, kMaxVerifyRequests));
    sc.seed = static_cast<uint64_t>(v->value_or<int64_t>("seed", 1, Range::non_negative()));
  }
  // A scenario's numbers are the user's own statement; sources are welcome but not demanded.
  r.ignore("sources");
}

}  // namespace

Result<Scenario> parse_scenario(const Document& doc, const std::string& data_dir,
                                Diagnostics& diags) {
  const size_t before = diags.error_count();
  Scenario sc;
  sc.file = doc.file;
  Reader r = Reader::root(doc, diags);
  if (!check_header(r, "scenario")) {
    r.finish();
    return Error{fmt::format("{}: not a scenario", doc.file)};
  }
  read_scenario(r, doc.file, data_dir, sc);
  r.finish();
  sc.positions = r.positions();
  if (diags.error_count() > before) {
    return Error{
        fmt::format("{}: {} error(s) in the scenario", doc.file, diags.error_count() - before)};
  }
  return sc;
}

void describe_scenario(SchemaObject& root) {
  Diagnostics sink;
  Reader r = Reader::describer(root, sink);
  check_header(r, "scenario");
  Scenario sc;
  read_scenario(r, "", "", sc);
  r.finish();
}

Result<Scenario> load_scenario(const std::string& path, const std::string& data_dir,
                               Diagnostics& diags) {
  Document doc = parse_file(path, diags);
  if (!doc.ok) return Error{fmt::format("{}: could not be read", path)};
  return parse_scenario(doc, data_dir, diags);
}

}  // namespace infercap::spec
