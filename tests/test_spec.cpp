// The spec reader, loaders and catalog on small inline documents and tests/data/good/.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "infercap/spec/catalog.hpp"
#include "infercap/spec/diagnostics.hpp"
#include "infercap/spec/loaders.hpp"
#include "infercap/spec/reader.hpp"
#include "infercap/spec/sources.hpp"
#include "stack_yaml.hpp"

using namespace infercap;
using namespace infercap::spec;

namespace {

// parse_text into a Document labelled "t.yaml"; the caller builds a Reader over it.
Document doc_of(const char* text, Diagnostics& d) {
  return parse_text(text, "t.yaml", d);
}

const std::string kGood = std::string(INFERCAP_TEST_DATA_DIR) + "/good/";

// A small GPU stack with `top` added among its top-level keys and `gpu` among its gpu class's.
std::optional<StackSpec> tiny_stack(const std::string& top, const std::string& gpu,
                                    Diagnostics& d) {
  const std::string text = R"(schema_version: 1
kind: stack
name: t-stack
)" + top + R"(classes:
  gpu:
    weight_bandwidth_fraction: 0.8
    kv_bandwidth_fraction: 0.6
    gemm_compute_fraction: 0.5
)" + gpu + R"(sources: [{fields: ["*"], ref: fixture, date: 2026-12-06}]
)";
  return load_stack(doc_of(text.c_str(), d), d);
}

// A CPU stack with kernels per instruction family (gemm_compute_fraction 0.5) and `cpu` among
// its cpu class's keys, which start at line 10.
std::optional<StackSpec> isa_cpu_stack(const std::string& cpu, Diagnostics& d) {
  const std::string text = R"(schema_version: 1
kind: stack
name: t-stack
classes:
  cpu:
    weight_bandwidth_fraction: 0.8
    kv_bandwidth_fraction: 0.6
    gemm_compute_fraction: 0.5
    cpu_isa_kernels: true
)" + cpu + R"(sources: [{fields: ["*"], ref: fixture, date: 2026-12-02}]
)";
  return load_stack(doc_of(text.c_str(), d), d);
}

// What `validate --fit --write` does to a stack: write it with the stack writer, read it back.
std::optional<StackSpec> written_back(const StackSpec& s, Diagnostics& d) {
  return load_stack(parse_text(cli::stack_to_yaml(s), "w.yaml", d), d);
}

}  // namespace

TEST_CASE("diagnostic format: every part optional", "[unit]") {
  CHECK(format(Diagnostic{"a.yaml", 3, 5, "moe.experts", "expected an integer", "", {}}) ==
        "a.yaml:3:5: error: moe.experts: expected an integer");
  CHECK(format(Diagnostic{"a.yaml", 3, 5, "hiden", "unknown key", "did you mean 'hidden'?", {}}) ==
        "a.yaml:3:5: error: hiden: unknown key (did you mean 'hidden'?)");
  CHECK(format(Diagnostic{"a.yaml", 0, 0, "", "cannot read the file", "", {}}) ==
        "a.yaml: error: cannot read the file");
  CHECK(format(Diagnostic{"", 0, 0, "--batch", "expected a positive integer, found 0", "", {}}) ==
        "error: --batch: expected a positive integer, found 0");
  CHECK(format(Diagnostic{"b.yaml", 1, 1, "", "odd", "", Severity::warning}) ==
        "b.yaml:1:1: warning: odd");
  Diagnostics d;
  d.warning("w.yaml", 2, 1, "x", "w");
  CHECK_FALSE(d.has_errors());
  d.error("e.yaml", 1, 2, "y", "e");
  CHECK(d.has_errors());
  CHECK(d.error_count() == 1);
  CHECK(d.format() == "w.yaml:2:1: warning: x: w\ne.yaml:1:2: error: y: e\n");
}

TEST_CASE("edit distance and did-you-mean", "[unit]") {
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("hidden", "hiden") == 1);
  CHECK(edit_distance("heads", "haeds") == 1);  // adjacent transposition counts once
  CHECK(edit_distance("GB", "gb") == 0);        // case-insensitive
  const std::vector<std::string> keys{"layers", "hidden", "heads", "kv_heads", "head_dim"};
  CHECK(did_you_mean("hiden", keys) == std::vector<std::string>{"hidden"});
  CHECK(did_you_mean("kv_head", keys) == std::vector<std::string>{"kv_heads"});
  CHECK(did_you_mean("zzzzzz", keys).empty());
  // Prefix rule: "h100" is close to "h100-sxm" though their full distance is 4.
  const std::vector<std::string> hw{"a100-sxm-80gb", "h200", "h100-sxm", "mi300x"};
  CHECK(did_you_mean("h300", hw, 3) == std::vector<std::string>{"h200", "h100-sxm"});
  CHECK(did_you_mean_text({"a", "b"}) == "did you mean 'a', 'b'?");
  CHECK(did_you_mean_text({}).empty());
}

TEST_CASE("reader: typed values, units from key names, defaults", "[unit]") {
  Diagnostics d;
  const Document doc = doc_of(R"(
count: 32
big: 8.03e9
ratio: 0.5
memory_bytes: "80 GiB"
latency_s: "250 ms"
flag: true
name: hello
tags: [a, b]
)",
                              d);
  REQUIRE(doc.ok);
  Reader r = Reader::root(doc, d);
  CHECK(r.required<int>("count") == 32);
  CHECK(r.required<int64_t>("big") == int64_t{8030000000});
  CHECK(r.required<double>("ratio") == Approx(0.5));
  CHECK(r.required<double>("memory_bytes") == Approx(80.0 * 1024 * 1024 * 1024));
  CHECK(r.required<double>("latency_s") == Approx(0.25));
  CHECK(r.required<bool>("flag") == true);
  CHECK(r.required<std::string>("name") == "hello");
  CHECK(r.required<std::vector<std::string>>("tags") == std::vector<std::string>{"a", "b"});
  CHECK_FALSE(r.optional<int>("absent").has_value());
  CHECK(r.value_or<int>("absent", 7) == 7);
  r.finish();
  CHECK(d.empty());
  // Numeric values are recorded with their positions, for source coverage.
  REQUIRE(r.numeric_fields().size() == 5);
  CHECK(r.numeric_fields()[0].path == "count");
  CHECK(r.numeric_fields()[0].pos.line == 2);
  CHECK(r.numeric_fields()[0].pos.col == 8);
  CHECK(r.numeric_fields()[3].path == "memory_bytes");
}

TEST_CASE("reader: ranges, missing keys, wrong types", "[unit]") {
  Diagnostics d;
  const Document doc =
      doc_of("pct: 120\nn: 0\nx: 2.5\nbig: 99999999999\nlist: [1]\nq: '-1 GB'\n", d);
  Reader r = Reader::root(doc, d);
  CHECK_FALSE(r.required<double>("pct", Range::percent()).has_value());
  CHECK_FALSE(r.required<int>("n", Range::positive()).has_value());
  CHECK_FALSE(r.required<int>("x").has_value());
  CHECK_FALSE(r.required<int>("big").has_value());
  CHECK_FALSE(r.required<std::string>("list").has_value());
  CHECK_FALSE(r.required_quantity("q", Dim::bytes, Range::non_negative()).has_value());
  CHECK_FALSE(r.required<int>("layers").has_value());
  CHECK(r.value_or<int>("n", 3, Range::positive()) == 3);  // bad value: fallback, and reported
  CHECK(d.lines() == std::vector<std::string>{
                         "t.yaml:1:6: error: pct: expected a number in (0, 100), found '120'",
                         "t.yaml:2:4: error: n: expected an integer > 0, found '0'",
                         "t.yaml:3:4: error: x: expected an integer, found '2.5'",
                         // NOLINTNEXTLINE(bugprone-suspicious-missing-comma): one message, wrapped
                         "t.yaml:4:6: error: big: expected an integer, found '99999999999' (out of "
                         "range)",
                         "t.yaml:5:7: error: list: expected a string, found a list",
                         "t.yaml:6:4: error: q: expected a size (bytes) >= 0, found '-1 GB'",
                         "t.yaml:1:1: error: layers: missing required key",
                         "t.yaml:2:4: error: n: expected an integer > 0, found '0'",
                     });
}

TEST_CASE("reader: Range describes itself", "[unit]") {
  CHECK(Range::positive().describe() == "> 0");
  CHECK(Range::non_negative().describe() == ">= 0");
  CHECK(Range::percent().describe() == "in (0, 100)");
  CHECK(Range::fraction().describe() == "in [0, 1]");
  CHECK(Range::positive_fraction().describe() == "in (0, 1]");
  CHECK(Range::at_least(2).describe() == ">= 2");
  CHECK(Range::percent().contains(50));
  CHECK_FALSE(Range::percent().contains(0));
  CHECK_FALSE(Range::percent().contains(100));
  CHECK(Range::fraction().contains(1));
  CHECK_FALSE(Range::positive().contains(0));
}

TEST_CASE("reader: children, lists, enums and unknown keys everywhere", "[unit]") {
  Diagnostics d;
  const Document doc = doc_of(R"(top: 1
inner:
  a: 1
  bb: 2
items:
  - {x: 1}
  - {x: 2, y: 3}
mode: fastt
)",
                              d);
  Reader r = Reader::root(doc, d);
  CHECK(r.required<int>("top") == 1);
  auto inner = r.child("inner");
  REQUIRE(inner);
  CHECK(inner->path() == "inner");
  CHECK(inner->required<int>("a") == 1);
  CHECK_FALSE(inner->optional<int>("b").has_value());
  auto items = r.list("items");
  REQUIRE(items.size() == 2);
  CHECK(items[1].path() == "items[1]");
  CHECK(items[0].required<int>("x") == 1);
  CHECK(items[1].required<int>("x") == 2);
  enum class Mode { fast, slow };
  CHECK_FALSE(r.required_enum<Mode>("mode", {{"fast", Mode::fast}, {"slow", Mode::slow}}));
  CHECK_FALSE(r.child("absent").has_value());
  r.finish();
  CHECK(d.lines() ==
        std::vector<std::string>{
            "t.yaml:8:7: error: mode: expected one of [fast, slow], found 'fastt' (did you mean "
            "'fast'?)",
            "t.yaml:4:3: error: inner.bb: unknown key (did you mean 'b'?)",
            "t.yaml:7:12: error: items[1].y: unknown key (did you mean 'x'?)",
        });
  // Positions of everything read can be found again by key path.
  CHECK(r.locate("inner.a").line == 3);
  CHECK(r.locate("items[1].x").line == 7);
  CHECK(r.locate("inner.zzz").line == 2);  // falls back to the parent
}

TEST_CASE("reader: a key that is not a mapping where one is expected", "[unit]") {
  Diagnostics d;
  const Document doc = doc_of("moe: 8\n", d);
  Reader r = Reader::root(doc, d);
  CHECK_FALSE(r.required_child("moe").has_value());
  CHECK_FALSE(r.required_child("mla").has_value());
  CHECK(d.lines() ==
        std::vector<std::string>{"t.yaml:1:6: error: moe: expected a mapping, found '8'",
                                 "t.yaml:1:1: error: mla: missing required key"});
}

TEST_CASE("reader: header checks", "[unit]") {
  Diagnostics d;
  const Document doc = doc_of("schema_version: 1\nkind: hardwear\n", d);
  Reader r = Reader::root(doc, d);
  CHECK_FALSE(check_header(r, "hardware"));
  CHECK(d.lines() == std::vector<std::string>{"t.yaml:2:7: error: kind: expected 'hardware', found "
                                              "'hardwear' (did you mean 'hardware'?)"});
  CHECK(r.numeric_fields().empty());  // schema_version needs no source
  CHECK(peek_kind(doc) == "hardwear");
}

TEST_CASE("source globs", "[unit]") {
  CHECK(source_covers("*", "memory_bytes"));
  CHECK(source_covers("*", "moe.experts"));
  CHECK(source_covers("moe.*", "moe.experts"));
  CHECK_FALSE(source_covers("moe.*", "mla.kv_lora_rank"));
  CHECK(source_covers("link", "link.bandwidth_bytes_per_s"));  // a parent covers its children
  CHECK_FALSE(source_covers("link", "link_bytes"));
  CHECK(source_covers("dense_flops_per_s.*", "dense_flops_per_s.bf16"));
  CHECK(source_covers("memory_bytes", "memory_bytes"));
  CHECK_FALSE(source_covers("memory_bytes", "memory_bandwidth_bytes_per_s"));
  CHECK(source_covers("*_w", "tdp_w"));
  CHECK_FALSE(source_covers("*_w", "tdp_w_max"));
}

TEST_CASE("model loader: defaults and derived head_dim", "[unit]") {
  Diagnostics d;
  const Document doc = doc_of(R"(schema_version: 1
kind: model
name: t-moe
layers: 4
hidden: 512
heads: 8
ffn_hidden: 1024
ffn_kind: gelu
vocab: 32000
max_context: 4096
moe: {experts: 8, active_experts: 2, expert_ffn_hidden: 256}
sources: [{fields: ["*"], ref: fixture, date: 2026-11-29}]
)",
                              d);
  auto m = load_model(doc, d);
  INFO(d.format());
  REQUIRE(m);
  CHECK(m->name == "t-moe");
  CHECK(m->kv_heads == 8);   // MHA when kv_heads is not given
  CHECK(m->head_dim == 64);  // 512 / 8
  CHECK(m->ffn_kind == FfnKind::gelu);
  CHECK(m->arch == ModelArch::decoder);
  CHECK(m->position == PositionKind::rotary);
  CHECK(m->moe.experts == 8);
  CHECK(m->moe.shared_experts == 0);
  CHECK(m->max_context == 4096);
  REQUIRE(m->sources.size() == 1);
  CHECK(m->sources[0].ref == "fixture");
}

TEST_CASE("hardware loader: SI values, cpu block, isa flags", "[unit]") {
  Diagnostics d;
  const Document doc = doc_of(R"(schema_version: 1
kind: hardware
name: t-cpu
class: cpu
dense_flops_per_s: {fp32: "3 TFLOP/s", bf16: "6 TFLOP/s"}
memory_bytes: "256 GiB"
memory_bandwidth_bytes_per_s: "307.2 GB/s"
link: {kind: upi, bandwidth_bytes_per_s: "62.4 GB/s", latency_s: "1 us"}
tdp_w: 350
devices_per_server: 2
cpu:
  cores: 56
  threads_per_core: 2
  memory_channels: 8
  memory_speed_mt_s: 4800
  base_clock_hz: "2.0 GHz"
  isa: [avx2, avx512, amx_bf16, neon]
sources:
  - {fields: ["*"], ref: fixture, date: 2026-11-29}
)",
                              d);
  auto h = load_hardware(doc, d);
  INFO(d.format());
  REQUIRE(h);
  CHECK(h->hw_class == HwClass::cpu);
  CHECK(at(h->dense_flops_per_s, ComputeType::bf16) == Approx(6e12));
  CHECK(at(h->dense_flops_per_s, ComputeType::fp16) == 0);  // not stated
  CHECK(h->memory_bytes == Approx(256.0 * 1073741824.0));
  // 8 channels x 4800 MT/s x 8 B = 307.2 GB/s, as written.
  CHECK(h->memory_bandwidth_bytes_per_s == Approx(8 * 4800e6 * 8));
  CHECK(h->link_kind == "upi");
  CHECK(h->link_latency_s == Approx(1e-6));
  CHECK(h->devices_per_server == 2);
  REQUIRE(h->cpu);
  CHECK(h->cpu->cores == 56);
  CHECK(h->cpu->base_clock_hz == Approx(2e9));
  CHECK(h->cpu->memory_speed_mt_s == Approx(4800));
  CHECK(h->cpu->avx512);
  CHECK(h->cpu->amx);  // amx_bf16 implies the AMX unit
  CHECK_FALSE(h->cpu->avx512_vnni);
}

TEST_CASE("stack loader: unlisted classes unsupported, compute fractions default to gemm",
          "[unit]") {
  Diagnostics d;
  const Document doc = doc_of(R"(schema_version: 1
kind: stack
name: t-stack
memory_reserve_bytes: "1 GiB"
classes:
  gpu:
    weight_bandwidth_fraction: 0.8
    kv_bandwidth_fraction: 0.6
    gemm_compute_fraction: 0.5
    kernel_overhead_s: "4 us"
    fused_attention: false
    attention_score_bytes_per_pair: 24
  npu: {supported: false}
sources: [{fields: ["*"], ref: fixture, date: 2026-11-29}]
)",
                              d);
  auto s = load_stack(doc, d);
  INFO(d.format());
  REQUIRE(s);
  const auto& g = s->for_class(HwClass::gpu);
  CHECK(g.supported);
  CHECK(g.weight_bandwidth_fraction == Approx(0.8));
  CHECK(g.quantised_gemm_compute_fraction == Approx(0.5));
  CHECK(g.attention_compute_fraction == Approx(0.5));
  CHECK(g.fp16_gemm_compute_fraction == Approx(0.5));  // not stated: gemm_compute_fraction
  CHECK(g.kernel_overhead_s == Approx(4e-6));
  CHECK_FALSE(g.fused_attention);
  CHECK(g.attention_score_bytes_per_pair == 24);
  CHECK_FALSE(s->for_class(HwClass::npu).supported);
  CHECK_FALSE(s->for_class(HwClass::cpu).supported);
  CHECK_FALSE(s->for_class(HwClass::fpga).supported);
  CHECK(s->memory_reserve_bytes == Approx(1073741824.0));
}

TEST_CASE("stack loader: CPU fractions with default 1, each in (0, 1], written back as read",
          "[unit]") {
  // cross_socket_compute_fraction and amx_dot_fraction (the AMX buffer's decode GEMV): absent
  // means 1, out of (0, 1] is an error naming the key, and the stack writer keeps the value.
  using Field = double StackEfficiency::*;
  const std::pair<const char*, Field> keys[] = {
      {"cross_socket_compute_fraction", &StackEfficiency::cross_socket_compute_fraction},
      {"amx_dot_fraction", &StackEfficiency::amx_dot_fraction}};
  for (const auto& [key, field] : keys) {
    INFO(key);
    auto load = [key = std::string(key)](const std::string& value, Diagnostics& d) {
      std::string line;
      if (!value.empty()) line.append("    ").append(key).append(": ").append(value).append("\n");
      return isa_cpu_stack(line, d);
    };
    Diagnostics d0;
    auto plain = load("", d0);
    REQUIRE(plain);
    CHECK(plain->for_class(HwClass::cpu).*field == 1);
    Diagnostics d1;
    auto set = load("0.2", d1);
    INFO(d1.format());
    REQUIRE(set);
    CHECK(set->for_class(HwClass::cpu).*field == Approx(0.2));
    Diagnostics d3;
    auto back = written_back(*set, d3);
    INFO(d3.format());
    REQUIRE(back);
    CHECK(back->for_class(HwClass::cpu).*field == Approx(0.2));
    for (const char* bad : {"0", "1.5", "-0.1"}) {
      Diagnostics d2;
      INFO(bad);
      CHECK_FALSE(load(bad, d2));
      CHECK_THAT(d2.format(), Catch::Contains(key));
    }
  }
}

TEST_CASE("fp16_gemm_compute_fraction: gemm_compute_fraction unless stated, written back, bounded",
          "[unit]") {
  const auto load = isa_cpu_stack;
  Diagnostics d0;
  auto plain = load("", d0);
  REQUIRE(plain);
  CHECK(plain->for_class(HwClass::cpu).fp16_gemm_compute_fraction == Approx(0.5));
  Diagnostics d1;
  auto set = load("    fp16_gemm_compute_fraction: 0.57\n", d1);
  INFO(d1.format());
  REQUIRE(set);
  CHECK(set->for_class(HwClass::cpu).fp16_gemm_compute_fraction == Approx(0.57));
  CHECK(set->for_class(HwClass::cpu).gemm_compute_fraction == Approx(0.5));
  Diagnostics d2;
  auto back = written_back(*set, d2);
  INFO(d2.format());
  REQUIRE(back);
  CHECK(back->for_class(HwClass::cpu).fp16_gemm_compute_fraction == Approx(0.57));
  Diagnostics d3;
  CHECK_FALSE(load("    fp16_gemm_compute_fraction: 1.2\n", d3));
  CHECK_THAT(d3.format(), Catch::Contains("fp16_gemm_compute_fraction"));
  CHECK_THAT(d3.format(), Catch::Contains(":10:"));
}

TEST_CASE("a written stack reads back the same: line breaks, tabs and quotes in its text",
          "[unit]") {
  // validate --fit --write rewrites a stack; a raw line break in a quoted description folds to
  // a space when read back, so every rewrite used to add one.
  Diagnostics d;
  const Document doc = doc_of(R"(schema_version: 1
kind: stack
name: t-stack
description: "first line\nsecond\tcolumn \"quoted\" back\\slash\n"
classes:
  cpu:
    weight_bandwidth_fraction: 0.8
    kv_bandwidth_fraction: 0.6
    gemm_compute_fraction: 0.5
sources: [{fields: ["*"], ref: "a ref\nwith a break", date: 2026-12-02}]
)",
                              d);
  auto s = load_stack(doc, d);
  INFO(d.format());
  REQUIRE(s);
  REQUIRE(s->description == "first line\nsecond\tcolumn \"quoted\" back\\slash\n");
  const std::string once = cli::stack_to_yaml(*s);
  Diagnostics d2;
  const Document again = parse_text(once, "w.yaml", d2);
  auto back = load_stack(again, d2);
  INFO(d2.format() << once);
  REQUIRE(back);
  CHECK(back->description == s->description);
  CHECK(back->sources.front().ref == "a ref\nwith a break");
  CHECK(cli::stack_to_yaml(*back) == once);
}

TEST_CASE("a rewritten stack keeps its MoE kernel flags", "[unit]") {
  // validate --fit --write rewrites data/stacks/tensorrt-llm-0.9.yaml; its two mechanism keys
  // (no FP8 experts, experts on mma.sync kernels) are not fitted and must survive the rewrite.
  Diagnostics d;
  auto s = tiny_stack("", "    fp8_expert_gemm: false\n    expert_gemm_mma_sync: true\n", d);
  INFO(d.format());
  REQUIRE(s);
  CHECK_FALSE(s->for_class(HwClass::gpu).fp8_expert_gemm);
  CHECK(s->for_class(HwClass::gpu).expert_gemm_mma_sync);
  Diagnostics d2;
  auto back = written_back(*s, d2);
  INFO(d2.format());
  REQUIRE(back);
  CHECK_FALSE(back->for_class(HwClass::gpu).fp8_expert_gemm);
  CHECK(back->for_class(HwClass::gpu).expert_gemm_mma_sync);
  // A stack that states neither keeps the defaults: FP8 experts, no mma.sync pricing.
  Diagnostics d3;
  auto plain = tiny_stack("", "", d3);
  REQUIRE(plain);
  CHECK(plain->for_class(HwClass::gpu).fp8_expert_gemm);
  CHECK_FALSE(plain->for_class(HwClass::gpu).expert_gemm_mma_sync);
}

TEST_CASE("a rewritten stack keeps its attention score bytes; a negative one is an error",
          "[unit]") {
  // attention_score_bytes_per_pair is read from the stack's kernels' code, not fitted: a stack
  // rewritten by validate --fit --write keeps it, and one that states none writes none (0, read
  // back as the model's 16 B of fp32 scores).
  Diagnostics d;
  auto s =
      tiny_stack("", "    fused_attention: false\n    attention_score_bytes_per_pair: 24\n", d);
  INFO(d.format());
  REQUIRE(s);
  CHECK(s->for_class(HwClass::gpu).attention_score_bytes_per_pair == 24);
  Diagnostics d2;
  auto back = written_back(*s, d2);
  INFO(d2.format());
  REQUIRE(back);
  CHECK(back->for_class(HwClass::gpu).attention_score_bytes_per_pair == 24);
  Diagnostics d3;
  auto plain = tiny_stack("", "", d3);
  REQUIRE(plain);
  CHECK(plain->for_class(HwClass::gpu).attention_score_bytes_per_pair == 0);
  CHECK(cli::stack_to_yaml(*plain).find("attention_score_bytes_per_pair") == std::string::npos);
  Diagnostics d4;
  CHECK_FALSE(tiny_stack("", "    attention_score_bytes_per_pair: -2\n", d4));
  const std::string msg = d4.format();
  INFO(msg);
  CHECK(msg.find("classes.gpu.attention_score_bytes_per_pair") != std::string::npos);
  CHECK(msg.find(">= 0") != std::string::npos);
}

TEST_CASE("a rewritten stack keeps its prompt scheduling; an unknown one is an error", "[unit]") {
  // prompt_schedule is the engine's scheduler, read from its code, not fitted: a stack rewritten
  // by validate --fit --write keeps each non-default value; the default (chunked) is written as
  // nothing.
  for (PromptSchedule want :
       {PromptSchedule::whole_prompt_steps, PromptSchedule::whole_with_decodes}) {
    const std::string name(prompt_schedule_name(want));
    Diagnostics d;
    auto s = tiny_stack("prompt_schedule: " + name + "\n", "", d);
    INFO(name << "\n" << d.format());
    REQUIRE(s);
    CHECK(s->prompt_schedule == want);
    Diagnostics d2;
    auto back = written_back(*s, d2);
    INFO(d2.format());
    REQUIRE(back);
    CHECK(back->prompt_schedule == want);
  }
  Diagnostics d3;
  auto plain = tiny_stack("", "", d3);
  REQUIRE(plain);
  CHECK(plain->prompt_schedule == PromptSchedule::chunked);
  CHECK(cli::stack_to_yaml(*plain).find("prompt_schedule") == std::string::npos);
  Diagnostics d4;
  CHECK_FALSE(tiny_stack("prompt_schedule: whole_prompt_step\n", "", d4));
  const std::string msg = d4.format();
  INFO(msg);
  CHECK(msg.find("prompt_schedule") != std::string::npos);
  CHECK(msg.find("whole_prompt_steps") != std::string::npos);  // the did-you-mean
  // overlap_scheduling (SGLang's one-step-ahead batches) survives the rewrite too; false is the
  // default and written as nothing.
  Diagnostics d6;
  auto ahead = tiny_stack("overlap_scheduling: true\n", "", d6);
  REQUIRE(ahead);
  CHECK(ahead->overlap_scheduling);
  Diagnostics d7;
  auto ahead_back = written_back(*ahead, d7);
  REQUIRE(ahead_back);
  CHECK(ahead_back->overlap_scheduling);
  CHECK_FALSE(plain->overlap_scheduling);
  CHECK(cli::stack_to_yaml(*plain).find("overlap_scheduling") == std::string::npos);
  // vendors survives the rewrite; none is the default and written as nothing.
  Diagnostics d8;
  auto amd_only = tiny_stack("vendors: [\"amd\"]\n", "", d8);
  REQUIRE(amd_only);
  CHECK(amd_only->vendors == std::vector<std::string>{"amd"});
  Diagnostics d9;
  auto amd_back = written_back(*amd_only, d9);
  REQUIRE(amd_back);
  CHECK(amd_back->vendors == amd_only->vendors);
  CHECK(plain->vendors.empty());
  CHECK(cli::stack_to_yaml(*plain).find("vendors") == std::string::npos);
  // The old boolean key is gone: an unknown key, as any other.
  Diagnostics d5;
  CHECK_FALSE(tiny_stack("chunked_prefill: false\n", "", d5));
  CHECK(d5.format().find("chunked_prefill") != std::string::npos);
}

TEST_CASE("a rewritten stack keeps its micro-batch flag, FP4 fraction and GEMM overlap", "[unit]") {
  // pipeline_microbatches (the engine's scheduler), fp4_gemm_compute_fraction and
  // gemm_overlap_norm_p (both from kernel measurements) are not fitted: a stack rewritten by
  // validate --fit --write keeps them; a stack that states none has no micro-batches, prices fp4
  // at its GEMM fraction (0) and combines a GEMM's times as the roofline's max (0).
  Diagnostics d;
  auto s = tiny_stack("pipeline_microbatches: true\n", "", d);
  INFO(d.format());
  REQUIRE(s);
  CHECK(s->pipeline_microbatches);
  s->for_class(HwClass::gpu).fp4_gemm_compute_fraction = 0.5;
  s->for_class(HwClass::gpu).gemm_overlap_norm_p = 1.9;
  Diagnostics d2;
  auto back = written_back(*s, d2);
  INFO(d2.format());
  REQUIRE(back);
  CHECK(back->pipeline_microbatches);
  CHECK(back->for_class(HwClass::gpu).fp4_gemm_compute_fraction == 0.5);
  CHECK(back->for_class(HwClass::gpu).gemm_overlap_norm_p == 1.9);
  Diagnostics d3;
  auto plain = tiny_stack("", "", d3);
  REQUIRE(plain);
  CHECK_FALSE(plain->pipeline_microbatches);
  CHECK(plain->for_class(HwClass::gpu).fp4_gemm_compute_fraction == 0);
  const std::string text = cli::stack_to_yaml(*plain);
  CHECK(text.find("pipeline_microbatches") == std::string::npos);
  CHECK(text.find("fp4_gemm_compute_fraction") == std::string::npos);
  CHECK(plain->for_class(HwClass::gpu).gemm_overlap_norm_p == 0);
  CHECK(text.find("gemm_overlap_norm_p") == std::string::npos);
}

TEST_CASE("catalog: lookup by name and normalised alias, near names", "[unit]") {
  Diagnostics d;
  const Catalog cat = Catalog::load(kGood + "catalog", d);
  INFO(d.format());
  REQUIRE(d.empty());
  REQUIRE(cat.models().size() == 1);
  REQUIRE(cat.hardware().size() == 1);
  REQUIRE(cat.stacks().size() == 2);
  CHECK(cat.stacks()[0].name == "ideal");  // built in, always present
  CHECK(cat.find_stack("ideal")->datasheet_peaks);
  CHECK(cat.find_model("tiny") != nullptr);
  CHECK(cat.find_model("Tiny Model 1B") == cat.find_model("tiny"));
  CHECK(cat.find_model("tiny_model-1b") == cat.find_model("tiny"));
  CHECK(cat.find_model("ORG/TINY-1B") == cat.find_model("tiny"));
  CHECK(cat.find_hardware("tiny gpu 16GB")->name == "tiny-gpu");
  CHECK(cat.find_model("tiny-2") == nullptr);
  CHECK(cat.near_hardware("tiny-gpuu") == std::vector<std::string>{"tiny-gpu"});
  CHECK(cat.near_stacks("ideel") == std::vector<std::string>{"ideal"});
  CHECK(normalize_name("Meta-Llama_3.1 8B") == "metallama318b");
}

TEST_CASE("catalog: resolve names, unknown names, files and preset overrides", "[unit]") {
  Diagnostics d;
  const Catalog cat = Catalog::load(kGood + "catalog", d);
  REQUIRE(d.empty());
  auto h = cat.resolve_hardware("tiny-gpu", d);
  REQUIRE(h);
  CHECK(h->memory_bytes == Approx(16e9));

  CHECK_FALSE(cat.resolve_hardware("tiny-gpx", d).has_value());
  CHECK_FALSE(cat.resolve_model("zzz", d).has_value());
  CHECK(d.lines() == std::vector<std::string>{
                         "error: unknown hardware 'tiny-gpx'; did you mean 'tiny-gpu'?",
                         "error: unknown model 'zzz'",
                     });
  d.clear();

  auto o = cat.resolve_hardware(kGood + "override-tiny-gpu.yaml", d);
  INFO(d.format());
  REQUIRE(o);
  CHECK(o->name == "override-tiny-gpu");  // the file's stem unless the file names it
  CHECK(o->memory_bytes == Approx(24e9));
  CHECK(o->memory_bandwidth_bytes_per_s == Approx(1e12));                // from the preset
  CHECK(at(o->dense_flops_per_s, ComputeType::bf16) == Approx(100e12));  // kept
  CHECK(at(o->dense_flops_per_s, ComputeType::fp8) == Approx(200e12));   // added
  REQUIRE_FALSE(o->sources.empty());
  CHECK(o->sources[0].ref == "override in " + kGood + "override-tiny-gpu.yaml");
  CHECK(o->sources[0].fields == std::vector<std::string>{"dense_flops_per_s.fp8", "memory_bytes"});
  CHECK(o->sources.back().ref == "test fixture");  // the preset's own sources follow

  auto w = cat.resolve_model(kGood + "override-tiny-model.yaml", d);
  INFO(d.format());
  REQUIRE(w);
  CHECK(w->name == "tiny-wide");
  CHECK(w->hidden == 128);
  CHECK(w->head_dim == 32);  // 128 / 4, derived again
  CHECK(w->kv_heads == 2);
  CHECK(w->layers == 2);
  CHECK(w->aliases.empty());

  // A full spec given as a path loads like a catalog file.
  auto m = cat.resolve_model(kGood + "catalog/models/tiny.yaml", d);
  REQUIRE(m);
  CHECK(m->head_dim == 16);  // 64 / 4
}

TEST_CASE("catalog: default data dir honours INFERCAP_DATA_DIR", "[unit]") {
  const char* old = std::getenv("INFERCAP_DATA_DIR");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("INFERCAP_DATA_DIR", "/somewhere/data", 1);
  CHECK(Catalog::default_data_dir() == "/somewhere/data");
  ::unsetenv("INFERCAP_DATA_DIR");
  CHECK(Catalog::default_data_dir() == INFERCAP_DEFAULT_DATA_DIR);
  if (old != nullptr) ::setenv("INFERCAP_DATA_DIR", saved.c_str(), 1);
}

TEST_CASE("the shipped catalog in data/ loads without a single diagnostic", "[unit]") {
  Diagnostics d;
  const Catalog cat = Catalog::load(std::string(INFERCAP_SOURCE_DIR) + "/data", d);
  INFO(d.format());
  CHECK(d.empty());
  CHECK_FALSE(cat.models().empty());
  CHECK_FALSE(cat.hardware().empty());
  // Every entry is found by its own name and by each of its aliases.
  for (const auto& m : cat.models()) {
    CHECK(cat.find_model(m.name) == &m);
    for (const auto& a : m.aliases) CHECK(cat.find_model(a) == &m);
  }
  for (const auto& h : cat.hardware()) {
    CHECK(cat.find_hardware(h.name) == &h);
    for (const auto& a : h.aliases) CHECK(cat.find_hardware(a) == &h);
  }
}

TEST_CASE("hostile YAML never throws, always explains", "[unit]") {
  // Shapes a loader does not expect anywhere: each must become diagnostics, not an exception.
  const char* texts[] = {
      "",
      "~",
      "42",
      "[1, 2, 3]",
      "schema_version: 1\nkind: model\n? [complex, key]\n: 1\n",
      "schema_version: 1\nkind: model\nname: ~\nlayers: .inf\nhidden: -.nan\n",
      "schema_version: 1\nkind: model\nlayers: &a 3\nhidden: *a\nmoe: [1]\nmla: 7\n",
      "schema_version: 1\nkind: model\nsources: 5\n",
      "schema_version: 1\nkind: model\nsources: [1, {fields: 2, ref: [], date: {}}]\n",
      "schema_version: '1'\nkind: [model]\n",
      "schema_version: 1\nkind: hardware\nclass: {gpu: 1}\ndense_flops_per_s: [1]\n",
      "schema_version: 1\nkind: hardware\ncpu: {isa: avx2}\nclass: cpu\nlink: {kind: [x]}\n",
      "schema_version: 1\nkind: stack\nclasses: {gpu: 5, cpu: {supported: maybe}}\n",
      "schema_version: 1\nkind: model\nlayers: 1e400\nheads: 0x10\nvocab: 3 GB\n",
      "schema_version: 1\nkind: model\naliases: [[a], {b: c}]\nname: x\n",
      "{schema_version: 1, kind: model, layers: 1, layers: 2}",
      "schema_version: 1\nkind: model\n\tlayers: 2\n",
  };
  for (const char* t : texts) {
    INFO(t);
    for (int kind = 0; kind < 3; ++kind) {
      Diagnostics d;
      const Document doc = parse_text(t, "h.yaml", d);
      bool loaded = false;
      REQUIRE_NOTHROW([&] {
        if (kind == 0) loaded = load_model(doc, d).has_value();
        if (kind == 1) loaded = load_hardware(doc, d).has_value();
        if (kind == 2) loaded = load_stack(doc, d).has_value();
      }());
      CHECK_FALSE(loaded);
      CHECK(d.has_errors());
    }
  }
}
