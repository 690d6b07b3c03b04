// The model catalog (data/models/*.yaml) checked against published parameter counts and against
// counts derived by hand from each model's config. A failure here means a shape in data/ is wrong
// (or the parameter arithmetic in core/src/model.cpp changed); fix the data, cite the source.
#include <catch2/catch.hpp>

#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "catalog_fixture.hpp"
#include "infercap/model.hpp"
#include "infercap/spec/catalog.hpp"
#include "infercap/spec/diagnostics.hpp"

namespace {

using infercap::ModelSpec;
using infercap::spec::Catalog;
using infercap::spec::Diagnostics;

const infercap::test::LoadedCatalog& loaded() {
  return infercap::test::project_catalog();
}

const ModelSpec& model(const std::string& name) {
  const ModelSpec* m = loaded().catalog.find_model(name);
  INFO("model " << name);
  REQUIRE(m != nullptr);
  return *m;
}

double rel_dev(double value, double reference) {
  return std::abs(value / reference - 1.0);
}

}  // namespace

TEST_CASE("model catalog loads with no diagnostics", "[model]") {
  const auto& l = loaded();
  INFO(l.diags.format());
  CHECK(l.diags.empty());
  // The entries the rest of the project (seed rows, benchmarks, examples) relies on.
  for (const char* name :
       {"llama-2-7b",   "llama-2-13b",   "llama-2-70b",    "llama-3-8b",      "llama-3-70b",
        "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "llama-3.2-1b",    "llama-3.2-3b",
        "qwen2.5-0.5b", "qwen2.5-7b",    "qwen2.5-14b",    "qwen2.5-72b",     "qwen2-7b",
        "qwen3-8b",     "qwen3-30b-a3b", "mistral-7b",     "mistral-7b-v0.3", "mixtral-8x7b",
        "deepseek-v3",  "gpt-j-6b",      "bert-base"}) {
    INFO(name);
    CHECK(l.catalog.find_model(name) != nullptr);
  }
}

TEST_CASE("every model is valid and within 2% of its published parameter count", "[model]") {
  const auto& models = loaded().catalog.models();
  CHECK(models.size() >= 23);
  const std::regex name_form("[a-z0-9]+([.-][a-z0-9]+)*");
  for (const ModelSpec& m : models) {
    INFO("model " << m.name);
    CHECK(std::regex_match(m.name, name_form));
    CHECK(infercap::validate(m).empty());
    CHECK(infercap::active_params(m) <= infercap::total_params(m));
    // No alias is shadowed by another entry (the loader drops colliding aliases with an error).
    for (const std::string& a : m.aliases) {
      const ModelSpec* hit = loaded().catalog.find_model(a);
      INFO("alias " << a);
      REQUIRE(hit != nullptr);
      CHECK(hit->name == m.name);
    }
    if (m.published_params > 0) {
      INFO("total " << infercap::total_params(m) << " published " << m.published_params);
      CHECK(rel_dev(infercap::total_params(m), m.published_params) <= 0.02);
    }
  }
}

TEST_CASE("dense parameter counts derived by hand from the configs", "[model]") {
  SECTION("llama-3.1-8b: untied, GQA, RMSNorm") {
    // embeddings 2*V*h = 2*128256*4096 = 1,050,673,152
    // per layer: q,o 2*h*h = 33,554,432; k,v 2*h*(8*128) = 8,388,608;
    //            swiglu 3*h*14336 = 176,160,768; two norms 2*h = 8,192  -> 218,112,000
    // 32 layers = 6,979,584,000; final norm 4,096
    // total 8,030,261,248 (the safetensors count of the released weights)
    CHECK(infercap::total_params(model("llama-3.1-8b")) == Approx(8030261248.0).epsilon(1e-12));
  }
  SECTION("qwen2.5-7b: untied, GQA, q/k/v biases") {
    // embeddings 2*152064*3584 = 1,089,994,752
    // per layer: q,o 2*3584^2 = 25,690,112; k,v 2*3584*512 = 3,670,016; biases 3584+2*512 = 4,608
    //            swiglu 3*3584*18944 = 203,685,888; norms 7,168 -> 233,057,792
    // 28 layers = 6,525,618,176 (the card's 6.53B non-embedding); final norm 3,584
    // total 7,615,616,512 (the card's 7.61B)
    CHECK(infercap::total_params(model("qwen2.5-7b")) == Approx(7615616512.0).epsilon(1e-12));
    // Qwen2-7B has the same shape.
    CHECK(infercap::total_params(model("qwen2-7b")) ==
          Approx(infercap::total_params(model("qwen2.5-7b"))).epsilon(1e-12));
  }
  SECTION("tied embeddings count the vocabulary matrix once") {
    // llama-3.2-1b: V*h = 128256*2048 = 262,668,288 shared by input and output.
    const ModelSpec& m = model("llama-3.2-1b");
    CHECK(m.tied_embeddings);
    ModelSpec untied = m;
    untied.tied_embeddings = false;
    CHECK(infercap::total_params(untied) - infercap::total_params(m) ==
          Approx(262668288.0).epsilon(1e-12));
  }
  SECTION("dense models touch every parameter per token") {
    for (const char* name : {"llama-2-7b", "llama-3.1-70b", "qwen3-8b", "gpt-j-6b"}) {
      INFO(name);
      CHECK(infercap::active_params(model(name)) == Approx(infercap::total_params(model(name))));
    }
  }
}

TEST_CASE("KV-cache elements per token per layer", "[model]") {
  // 2 (K and V) * kv_heads * head_dim
  CHECK(infercap::kv_elements_per_token_per_layer(model("llama-3.1-8b")) == 2 * 8 * 128);  // 2048
  CHECK(infercap::kv_elements_per_token_per_layer(model("llama-2-7b")) == 2 * 32 * 128);   // MHA
  CHECK(infercap::kv_elements_per_token_per_layer(model("llama-2-70b")) == 2 * 8 * 128);   // GQA
  CHECK(infercap::kv_elements_per_token_per_layer(model("qwen2.5-7b")) == 2 * 4 * 128);  // 3584/28
  CHECK(infercap::kv_elements_per_token_per_layer(model("qwen3-8b")) == 2 * 8 * 128);    // explicit
  CHECK(infercap::kv_elements_per_token_per_layer(model("llama-3.2-1b")) ==
        2 * 8 * 64);  // explicit
  CHECK(infercap::kv_elements_per_token_per_layer(model("gpt-j-6b")) == 2 * 16 * 256);
  CHECK(infercap::kv_elements_per_token_per_layer(model("mixtral-8x7b")) == 2 * 8 * 128);
  // MLA caches the compressed latent plus the shared rope key: kv_lora_rank + qk_rope_head_dim.
  CHECK(infercap::kv_elements_per_token_per_layer(model("deepseek-v3")) == 512 + 64);
}

TEST_CASE("MoE models: routed experts, active parameters", "[model]") {
  SECTION("mixtral-8x7b: 8 experts, 2 active, every layer MoE") {
    const ModelSpec& m = model("mixtral-8x7b");
    CHECK(infercap::moe_layer_count(m) == 32);
    // Announcement: 12.9B parameters used per token.
    CHECK(rel_dev(infercap::active_params(m), 12.9e9) <= 0.03);
    // The 6 idle experts in each of 32 layers: 32 * 6 * 3*4096*14336 = 33,822,867,456.
    CHECK(infercap::total_params(m) - infercap::active_params(m) ==
          Approx(33822867456.0).epsilon(1e-12));
  }
  SECTION("qwen3-30b-a3b: 128 experts, 8 active, no shared expert") {
    const ModelSpec& m = model("qwen3-30b-a3b");
    CHECK(infercap::moe_layer_count(m) == 48);
    // Model card: 3.3B activated.
    CHECK(rel_dev(infercap::active_params(m), 3.3e9) <= 0.03);
    // 48 layers * 120 idle experts * 3*2048*768 = 27,179,089,920.
    CHECK(infercap::total_params(m) - infercap::active_params(m) ==
          Approx(27179089920.0).epsilon(1e-12));
  }
  SECTION("deepseek-v3: 3 dense layers, 1 shared + 8 of 256 routed experts, MLA") {
    const ModelSpec& m = model("deepseek-v3");
    CHECK(m.moe.first_dense_layers == 3);
    CHECK(m.moe.shared_experts == 1);
    CHECK(infercap::moe_layer_count(m) == 61 - 3);
    // Technical report: 37B activated per token (main model, without the MTP module).
    CHECK(rel_dev(infercap::active_params(m), 37e9) <= 0.05);
    // 58 MoE layers * 248 idle routed experts * 3*7168*2048 = 633,474,121,728.
    CHECK(infercap::total_params(m) - infercap::active_params(m) ==
          Approx(633474121728.0).epsilon(1e-12));
  }
}

TEST_CASE("encoder and GELU-era shapes", "[model]") {
  SECTION("bert-base: encoder, learned positions, GELU, MHA, about 110M") {
    const ModelSpec& m = model("bert-base");
    CHECK(m.arch == infercap::ModelArch::encoder);
    CHECK(m.position == infercap::PositionKind::learned);
    CHECK(m.ffn_kind == infercap::FfnKind::gelu);
    CHECK(m.kv_heads == m.heads);
    // Devlin et al. 2018: BERT-BASE total parameters 110M.
    CHECK(rel_dev(infercap::total_params(m), 110e6) <= 0.02);
  }
  SECTION("gpt-j-6b: GELU, parallel attention, untied, head_dim 256") {
    const ModelSpec& m = model("gpt-j-6b");
    CHECK(m.parallel_attention);
    CHECK_FALSE(m.tied_embeddings);
    CHECK(m.head_dim == 4096 / 16);
    // Model card: n_parameters 6,053,381,344.
    CHECK(rel_dev(infercap::total_params(m), 6053381344.0) <= 0.02);
  }
}

TEST_CASE("names used by benchmark files and seed articles resolve", "[model]") {
  const Catalog& c = loaded().catalog;
  auto resolves_to = [&](const std::string& text, const std::string& name) {
    const ModelSpec* m = c.find_model(text);
    INFO("'" << text << "' should resolve to " << name);
    REQUIRE(m != nullptr);
    CHECK(m->name == name);
  };
  // shared/benchmarks/llamacpp-gpu-benchmarks.csv, column `model`.
  resolves_to("Meta-Llama-3-8B", "llama-3-8b");
  resolves_to("Meta-Llama-3-70B", "llama-3-70b");
  // shared/benchmarks/seed-claims.csv: unnamed models, mapped by assumption (see the YAML note).
  resolves_to("open-source 7B LLM", "llama-2-7b");
  resolves_to("open-source 13B LLM", "llama-2-13b");
  // Seed article 004 names these.
  resolves_to("Llama3-8B", "llama-3-8b");
  resolves_to("Qwen2-7B", "qwen2-7b");
  // Common Hugging Face ids.
  resolves_to("meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b");
  resolves_to("Qwen/Qwen2.5-72B-Instruct", "qwen2.5-72b");
  resolves_to("deepseek-ai/DeepSeek-V3", "deepseek-v3");
  resolves_to("mistralai/Mixtral-8x7B-v0.1", "mixtral-8x7b");
  // Matching ignores case, spaces, '-', '_' and '.'.
  resolves_to("META_LLAMA 3-8b", "llama-3-8b");
  resolves_to("LLAMA 3.1 8B", "llama-3.1-8b");
  // Llama 3 and Llama 3.1 stay different entries even with the dot removed (38b vs 318b).
  CHECK(c.find_model("llama-3.1-70b") != c.find_model("llama-3-70b"));
  CHECK(c.find_model("no-such-model-13b") == nullptr);
  CHECK(c.find_model("") == nullptr);
}
