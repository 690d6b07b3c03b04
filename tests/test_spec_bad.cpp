// Hostile inputs: each file in tests/data/bad/ must give exactly these diagnostics, positions
// included. The files are small variations of a valid fixture, one mistake each (a few show two
// messages on purpose: a nested typo is both a missing and an unknown key).
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "infercap/spec/catalog.hpp"
#include "infercap/spec/loaders.hpp"
#include "infercap/spec/text_file.hpp"

// Last: <sys/wait.h> and <sys/stat.h> define macros that clash with names in the headers above.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace infercap::spec;

namespace {

const std::string kBad = std::string(INFERCAP_TEST_DATA_DIR) + "/bad/";
const std::string kGood = std::string(INFERCAP_TEST_DATA_DIR) + "/good/";

enum class As { model, hardware, stack, override_hw };

struct Case {
  const char* file;
  As as;
  std::vector<std::string> expected;  // each without the leading "<dir>/bad/"
};

std::vector<std::string> run(const Case& c) {
  Diagnostics d;
  const std::string path = kBad + c.file;
  if (c.as == As::override_hw) {
    Diagnostics cd;
    const Catalog cat = Catalog::load(kGood + "catalog", cd);
    REQUIRE(cd.empty());
    CHECK_FALSE(cat.resolve_hardware(path, d).has_value());
  } else {
    Document doc = parse_file(path, d);
    bool loaded = false;
    if (doc.ok) {
      if (c.as == As::model) loaded = load_model(doc, d).has_value();
      if (c.as == As::hardware) loaded = load_hardware(doc, d).has_value();
      if (c.as == As::stack) loaded = load_stack(doc, d).has_value();
    }
    CHECK_FALSE(loaded);
  }
  CHECK(d.has_errors());
  std::vector<std::string> lines = d.lines();
  for (auto& l : lines) {
    REQUIRE(l.rfind(kBad, 0) == 0);
    l = l.substr(kBad.size());
  }
  return lines;
}

const std::vector<Case>& bad_cases() {
  static const std::vector<Case> cases = {
      {"malformed.yaml",
       As::model,
       {"malformed.yaml:4:7: error: malformed YAML: end of sequence flow not found"}},
      {"empty.yaml",
       As::model,
       {"empty.yaml:1:1: error: expected a mapping (key: value lines) at the top of the file, "
        "found an empty document"}},
      {"top-level-list.yaml",
       As::model,
       {"top-level-list.yaml:1:1: error: expected a mapping (key: value lines) at the top of the "
        "file, found a list"}},
      {"unknown-key.yaml",
       As::model,
       {"unknown-key.yaml:11:1: error: qkv_biass: unknown key (did you mean 'qkv_bias'?)"}},
      {"nested-unknown-key.yaml",
       As::model,
       {"nested-unknown-key.yaml:11:1: error: moe.expert_ffn_hidden: missing required key",
        "nested-unknown-key.yaml:14:3: error: moe.expert_ffn_hiden: unknown key (did you mean "
        "'expert_ffn_hidden'?)"}},
      {"missing-required.yaml",
       As::model,
       {"missing-required.yaml:1:1: error: vocab: missing required key"}},
      {"wrong-dimension.yaml",
       As::hardware,
       {"wrong-dimension.yaml:8:31: error: memory_bandwidth_bytes_per_s: expected a bandwidth "
        "(bytes/s), found 'GiB' (bytes)"}},
      {"unit-case.yaml",
       As::hardware,
       {"unit-case.yaml:7:15: error: memory_bytes: expected a size (bytes), found unknown unit "
        "'gb' (units are case-sensitive; did you mean 'GB'?)"}},
      {"zero-size.yaml",
       As::model,
       {"zero-size.yaml:4:9: error: layers: expected an integer > 0, found '0'"}},
      {"negative-size.yaml",
       As::hardware,
       {"negative-size.yaml:7:15: error: memory_bytes: expected a size (bytes) > 0, found '-16 "
        "GB'"}},
      {"mma-sync-fraction-over-one.yaml",
       As::hardware,
       {"mma-sync-fraction-over-one.yaml:9:25: error: mma_sync_peak_fraction: expected a number in "
        "(0, 1], found '1.5'"}},
      {"heads-not-dividing-hidden.yaml",
       As::model,
       {"heads-not-dividing-hidden.yaml:6:8: error: heads: expected a divisor of hidden (64) when "
        "head_dim is not given, found 6 (give head_dim if the heads are not hidden / heads "
        "wide)"}},
      // From core's validate(), placed at the key it names.
      {"kv-heads-not-dividing.yaml",
       As::model,
       {"kv-heads-not-dividing.yaml:7:11: error: kv_heads: expected a divisor of heads (4), found "
        "3"}},
      {"moe-active-over-experts.yaml",
       As::model,
       {"moe-active-over-experts.yaml:13:19: error: moe.active_experts: expected 1..8 "
        "(moe.experts), found 9"}},
      {"unknown-enum.yaml",
       As::hardware,
       {"unknown-enum.yaml:4:8: error: class: expected one of [cpu, gpu, npu, fpga], found 'gpuu' "
        "(did you mean 'gpu'?)"}},
      {"unknown-isa.yaml",
       As::hardware,
       {"unknown-isa.yaml:12:15: error: cpu.isa[1]: expected one of [avx2, avx512, avx512_bf16, "
        "avx512_vnni, amx, amx_bf16, amx_int8, amx_fp16, avx512_fp16, avx_vnni, fma, neon, sve, "
        "sve2, dotprod, i8mm, bf16], found 'avx-512' (did you mean 'avx512'?)"}},
      {"wrong-schema-version.yaml",
       As::model,
       {"wrong-schema-version.yaml:1:17: error: schema_version: expected 1 (the version this "
        "infercap reads), found '2'"}},
      {"wrong-kind.yaml",
       As::model,
       {"wrong-kind.yaml:2:7: error: kind: expected 'model', found 'hardware'"}},
      {"wrong-type.yaml",
       As::model,
       {"wrong-type.yaml:4:9: error: layers: expected an integer > 0, found a list"}},
      {"bool-wrong.yaml",
       As::model,
       {"bool-wrong.yaml:11:18: error: tied_embeddings: expected true or false, found 'no'"}},
      {"duplicate-key.yaml",
       As::model,
       {"duplicate-key.yaml:11:1: error: layers: duplicate key (first given at line 4)"}},
      {"no-source.yaml",
       As::hardware,
       {"no-source.yaml:9:8: error: tdp_w: numeric value without a source (list 'tdp_w' in the "
        "fields of a 'sources:' entry)"}},
      {"missing-sources.yaml",
       As::model,
       {"missing-sources.yaml:1:1: error: sources: missing required key"}},
      {"source-field-typo.yaml",
       As::hardware,
       {"source-field-typo.yaml:7:15: error: memory_bytes: numeric value without a source (list "
        "'memory_bytes' in the fields of a 'sources:' entry)",
        "source-field-typo.yaml:10:37: error: sources[0].fields[1]: expected a key of this file, "
        "found 'memory_byts' (did you mean 'memory_bytes'?)"}},
      {"bad-date.yaml",
       As::model,
       {"bad-date.yaml:14:11: error: sources[0].date: expected an ISO date (YYYY-MM-DD), found "
        "'Nov 2024'"}},
      {"bad-name.yaml",
       As::model,
       {"bad-name.yaml:3:7: error: name: expected a lowercase name (letters, digits, '-', '.'), "
        "found 'Tiny Model' (free-text names belong in aliases)"}},
      {"sparse-under-dense.yaml",
       As::hardware,
       {"sparse-under-dense.yaml:6:9: error: dense_flops_per_s.bf16: expected a dense peak below "
        "the sparse one (100 TFLOP/s), found 100 TFLOP/s (a 2:4 sparse peak is twice the dense "
        "one; is a sparse figure under the dense key?)"}},
      {"sparse-key-in-dense.yaml",
       As::hardware,
       {"sparse-key-in-dense.yaml:7:16: error: dense_flops_per_s.bf16_sparse: sparse peak under a "
        "dense key (sparse peaks go under sparse_flops_per_s, keyed by compute type)"}},
      {"cpu-bandwidth-mismatch.yaml",
       As::hardware,
       {"cpu-bandwidth-mismatch.yaml:8:31: error: memory_bandwidth_bytes_per_s: expected "
        "cpu.memory_channels x cpu.memory_speed_mt_s x 8 B = 307.2 GB/s, found 400 GB/s"}},
      {"cpu-block-on-gpu.yaml",
       As::hardware,
       {"cpu-block-on-gpu.yaml:10:3: error: cpu: expected no cpu block for class gpu, found one "
        "(only class cpu has one)"}},
      {"fraction-out-of-range.yaml",
       As::stack,
       {"fraction-out-of-range.yaml:4:26: error: memory_reserve_fraction: expected a number in "
        "[0, 1), found '1.5'"}},
      {"zero-fraction.yaml",
       As::stack,
       {"zero-fraction.yaml:9:28: error: classes.gpu.gemm_compute_fraction: expected a number in "
        "(0, 1], found '0'"}},
      {"kv-admission-unknown.yaml",
       As::stack,
       {"kv-admission-unknown.yaml:5:15: error: kv_admission: expected one of [prompt, "
        "full_sequence], found 'full_seqeunce' (did you mean 'full_sequence'?)"}},
      {"pipeline-microbatches-not-bool.yaml",
       As::stack,
       {"pipeline-microbatches-not-bool.yaml:5:24: error: pipeline_microbatches: expected true or "
        "false, found 'sometimes'"}},
      {"fp4-fraction-over-one.yaml",
       As::stack,
       {"fp4-fraction-over-one.yaml:10:32: error: classes.gpu.fp4_gemm_compute_fraction: "
        "expected a number in (0, 1], found '1.5'"}},
      {"gemm-overlap-norm-below-one.yaml",
       As::stack,
       {"gemm-overlap-norm-below-one.yaml:10:26: error: classes.gpu.gemm_overlap_norm_p: expected "
        "0 "
        "(not stated: the roofline's max) or a number >= 1 (1 adds compute and memory time), "
        "found 0.5"}},
      {"prefill-launch-negative.yaml",
       As::stack,
       {"prefill-launch-negative.yaml:10:32: error: classes.gpu.prefill_launch_overhead_s: "
        "expected a duration (s) >= 0, found '-1e-5'"}},
      {"fp8-expert-gemm-wrong.yaml",
       As::stack,
       {"fp8-expert-gemm-wrong.yaml:10:22: error: classes.gpu.fp8_expert_gemm: expected true or "
        "false, found 'fp16'"}},
      {"unknown-stack-class.yaml",
       As::stack,
       {"unknown-stack-class.yaml:10:3: error: classes.tpu: unknown key (did you mean 'cpu'?)"}},
      // Catalog entries are full specs: a preset there would hide the real values' sources.
      {"preset-in-catalog.yaml",
       As::hardware,
       {"preset-in-catalog.yaml:3:9: error: preset: expected a full hardware spec here, found a "
        "preset override (presets apply to files given on the command line, not to catalog "
        "entries)"}},
      {"unknown-preset.yaml",
       As::override_hw,
       {"unknown-preset.yaml:3:9: error: preset: unknown hardware 'tiny-gpuu' (did you mean "
        "'tiny-gpu'?)"}},
      {"override-unknown-key.yaml",
       As::override_hw,
       {"override-unknown-key.yaml:4:1: error: memory_byte: unknown key (did you mean "
        "'memory_bytes'?)"}},
  };
  return cases;
}

}  // namespace

TEST_CASE("bad spec files give exact file:line:col diagnostics", "[unit]") {
  for (const auto& c : bad_cases()) {
    SECTION(c.file) {
      CHECK(run(c) == c.expected);
    }
  }
}

TEST_CASE("a missing file is one diagnostic without a position", "[unit]") {
  Diagnostics d;
  const Document doc = parse_file(kBad + "does-not-exist.yaml", d);
  CHECK_FALSE(doc.ok);
  REQUIRE(d.size() == 1);
  CHECK(d.lines()[0] ==
        kBad + "does-not-exist.yaml: error: cannot read the file (No such file or directory)");
}

TEST_CASE("duplicate names and colliding aliases in a catalog are diagnostics", "[unit]") {
  Diagnostics d;
  const std::string dir = kBad + "dup-catalog";
  const Catalog cat = Catalog::load(dir, d);
  REQUIRE(d.size() == 2);
  CHECK(d.lines()[0] ==
        dir + "/models/b.yaml:3:7: error: name: duplicate model name 'tiny' (also in " + dir +
            "/models/a.yaml)");
  CHECK(d.lines()[1] == dir +
                            "/models/c.yaml:4:26: error: aliases[1]: alias 'tiny-1' also names "
                            "model 'tiny' (in " +
                            dir + "/models/a.yaml)");
  // The first definition wins; the colliding alias is dropped, the rest of c.yaml is kept.
  REQUIRE(cat.models().size() == 2);
  CHECK(cat.find_model("tiny-1")->name == "tiny");
  CHECK(cat.find_model("small model")->name == "small");
}

TEST_CASE("a stack's vendors must be vendors of the catalog's hardware", "[unit]") {
  // vendor-catalog: hardware from 'nvidia' and 'amd', a stack for "amd" and a misspelt "nvida".
  // The misspelling is reported at its list element with the nearest vendor, and the stack
  // keeps its list (the check reports, it does not rewrite): 'nvida' then matches no hardware.
  Diagnostics d;
  const std::string dir = kBad + "vendor-catalog";
  const Catalog cat = Catalog::load(dir, d);
  REQUIRE(d.size() == 1);
  CHECK(d.lines()[0] == dir +
                            "/stacks/two-vendors.yaml:4:18: error: vendors[1]: vendor 'nvida' is "
                            "not the vendor of any catalog hardware; did you mean 'nvidia'?");
  const infercap::StackSpec* s = cat.find_stack("two-vendors");
  REQUIRE(s != nullptr);
  CHECK(s->vendors == std::vector<std::string>{"amd", "nvida"});
  CHECK(infercap::stack_runs_on(*s, *cat.find_hardware("red-gpu")));
  CHECK_FALSE(infercap::stack_runs_on(*s, *cat.find_hardware("green-gpu")));
}

TEST_CASE("every file in tests/data/bad is listed above", "[unit]") {
  // A fixture nobody checks would pass for the wrong reason.
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(kBad)) {
    if (e.is_regular_file()) files.push_back(e.path().filename().string());
  }
  CHECK(files.size() >= 20);
  for (const auto& f : files) {
    INFO(f);
    const bool listed = std::any_of(bad_cases().begin(), bad_cases().end(),
                                    [&](const Case& c) { return f == c.file; });
    CHECK(listed);
  }
}

// --- tests/data/bad/cli: hostile inputs through the real commands ------------------------------
// cases.tsv (written by make_cases.py, reviewed by hand) gives for each case its expected exit
// code, what its first diagnostic locates (key: file:line:col and a key or column; file: the
// file alone, for a directory or an empty file; flag: a command-line flag) and that line.

namespace {

const std::string kCli = kBad + "cli/";

struct CliCase {
  std::string name, locates, command, expected;
  int exit = -1;
};

std::vector<CliCase> cli_cases() {
  std::vector<CliCase> out;
  std::ifstream in(kCli + "cases.tsv");
  REQUIRE(in);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, '\t')) f.push_back(cell);
    REQUIRE(f.size() == 5);
    out.push_back({f[0], f[2], f[3], f[4], std::stoi(f[1])});
  }
  return out;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (auto p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
    s.replace(p, from.size(), to);
  return s;
}

// Output-path cases start with a setup word in brackets; OUT in their command is a file in a
// fresh folder (TMP), prepared as the word says (make_cases.py prepares it the same way):
//   [symlink] / [force]  OUT is a symbolic link to TMP/target<ext>, which holds "original\n"
//   [readonly]           OUT holds "original\n" and has its write bits cleared
//   [directory]          OUT is a directory
//   [missing-parent]     OUT is inside TMP/missing, which does not exist
struct Output {
  std::string setup;  ///< "" for an input case
  std::string tmp;    ///< the fresh folder
  std::string ext;    ///< OUT's extension, from the command ("OUT.md" -> ".md")
  std::string stem() const { return tmp + (setup == "missing-parent" ? "/missing/out" : "/out"); }
  std::string out() const { return stem() + ext; }
  std::string target() const { return tmp + "/target" + ext; }
};

Output prepare_output(const CliCase& c, int index) {
  Output o;
  if (c.command.empty() || c.command[0] != '[') return o;
  o.setup = c.command.substr(1, c.command.find(']') - 1);
  const auto at = c.command.find(" OUT");
  REQUIRE(at != std::string::npos);
  const auto end = c.command.find(' ', at + 1);
  o.ext = c.command.substr(at + 4, end == std::string::npos ? std::string::npos : end - at - 4);
  namespace fs = std::filesystem;
  o.tmp = (fs::temp_directory_path() /
           ("infercap-bad-out-" + std::to_string(::getpid()) + "-" + std::to_string(index)))
              .string();
  fs::remove_all(o.tmp);
  fs::create_directories(o.tmp);
  auto write = [](const std::string& path) {
    std::ofstream f(path);
    f << "original\n";
  };
  if (o.setup == "symlink" || o.setup == "force") {
    write(o.target());
    fs::create_symlink(o.target(), o.out());
  } else if (o.setup == "readonly") {
    write(o.out());
    fs::permissions(o.out(),
                    fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  } else if (o.setup == "directory") {
    fs::create_directories(o.out());
  } else {
    REQUIRE(o.setup == "missing-parent");
  }
  return o;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs one case's command; returns (exit code, stderr). FILE is the case's input, SRC the source
// tree, OUT the prepared output (an output case).
std::pair<int, std::string> run_cli(const CliCase& c, const Output& o) {
  std::string args;
  std::stringstream ss(c.command);
  std::string a;
  while (ss >> a) {
    if (a[0] == '[') continue;  // the setup word
    if (a == "FILE") a = kCli + c.name;
    if (a.rfind("SRC/", 0) == 0) a = INFERCAP_SOURCE_DIR + a.substr(3);
    if (a.rfind("OUT", 0) == 0) a = o.out();
    args += " '" + a + "'";
  }
  const std::string cmd = std::string("INFERCAP_DATA_DIR='") + INFERCAP_SOURCE_DIR + "/data' '" +
                          INFERCAP_CLI_PATH + "'" + args + " 2>&1 >/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string err;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) err.append(buf.data(), n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, err};
}

}  // namespace

TEST_CASE("every hostile input in tests/data/bad/cli gets its exit code and located message",
          "[golden]") {
  const auto cases = cli_cases();
  // The issue's bar: at least 150 hostile inputs in tests/data/bad/ (this folder and the
  // library-level cases above).
  CHECK(cases.size() + bad_cases().size() >= 150);
  // The message shapes, checked independently of the recorded text.
  const std::regex key_line(
      R"(^(infercap [a-z]+: )?FILE:[1-9][0-9]*:[1-9][0-9]*: (error: )?[A-Za-z_][^ :]*: .+)");
  const std::regex file_line(R"(^(infercap [a-z]+: )?FILE(:[0-9]+:[0-9]+)?: (error: )?.+)");
  const std::regex flag_line(R"(^error: --[a-z-]+: .+)");
  // An output path: the command, then the path it refused and why (OUT = the prepared path,
  // TMP = its folder); or, with --force, the line saying it was written.
  const std::regex output_line(
      R"(^infercap [a-z]+: (refusing to (replace|overwrite)|cannot write) OUT[^ ]*[: ] ?.+)");
  const std::regex written_line(R"(^wrote OUT[^ ]*( .*)?$)");
  size_t whole_file = 0, outputs = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const CliCase& c = cases[i];
    SECTION(c.name) {
      const Output o = prepare_output(c, static_cast<int>(i));
      const auto [rc, err] = run_cli(c, o);
      INFO(c.command << "\n" << err);
      CHECK(rc == c.exit);
      std::string expected =
          replace_all(replace_all(c.expected, "FILE", kCli + c.name), "SRC", INFERCAP_SOURCE_DIR);
      if (!o.setup.empty())
        expected = replace_all(replace_all(expected, "OUT", o.stem()), "TMP", o.tmp);
      CHECK(err.find(expected) != std::string::npos);
      if (o.setup == "force") {
        // The one success: the link was replaced by a file, and its target left alone.
        CHECK(rc == 0);
        CHECK(c.locates == "written");
        CHECK(std::regex_match(c.expected, written_line));
        CHECK_FALSE(std::filesystem::is_symlink(o.out()));
        CHECK(std::filesystem::is_regular_file(o.out()));
        CHECK(slurp(o.out()) != "original\n");
        CHECK(slurp(o.target()) == "original\n");
      } else {
        // Never an internal error, a crash or a success on a hostile input.
        CHECK(rc != 0);
        CHECK(rc != 1);
      }
      if (!o.setup.empty() && o.setup != "force") {
        // Nothing was written: a refused link still points at its untouched target, a read-only
        // file keeps its text, no temporary file is left in the folder.
        if (o.setup == "symlink") {
          CHECK(std::filesystem::is_symlink(o.out()));
          CHECK(slurp(o.target()) == "original\n");
        }
        if (o.setup == "readonly") CHECK(slurp(o.out()) == "original\n");
        size_t entries = 0;
        for (const auto& e : std::filesystem::directory_iterator(o.tmp)) {
          (void)e;
          ++entries;
        }
        CHECK(entries == (o.setup == "symlink" ? 2u : o.setup == "missing-parent" ? 0u : 1u));
      }
      if (c.locates == "key") {
        CHECK(std::regex_match(c.expected, key_line));
      } else if (c.locates == "flag") {
        CHECK(std::regex_match(c.expected, flag_line));
      } else if (c.locates == "output") {
        CHECK_FALSE(o.setup.empty());
        CHECK(std::regex_match(c.expected, output_line));
      } else if (c.locates != "written") {
        REQUIRE(c.locates == "file");
        CHECK(std::regex_match(c.expected, file_line));
      }
      if (!o.tmp.empty()) {
        std::error_code ec;
        std::filesystem::permissions(o.tmp, std::filesystem::perms::owner_all,
                                     std::filesystem::perm_options::add, ec);
        std::filesystem::remove_all(o.tmp, ec);
      }
    }
    if (c.locates == "file") ++whole_file;
    if (c.locates == "output" || c.locates == "written") ++outputs;
  }
  // Each output-path refusal (symlink, read-only, directory, missing folder) and the --force
  // success is a case.
  CHECK(outputs >= 5);
  // Only whole-file problems (a directory, an empty file, JSON without a position) go
  // without a line and column.
  CHECK(whole_file <= 8);
}

TEST_CASE("every input in tests/data/bad/cli is a case of cases.tsv", "[unit]") {
  const auto cases = cli_cases();
  for (const auto& e : std::filesystem::directory_iterator(kCli)) {
    const std::string f = e.path().filename().string();
    if (f == "cases.tsv" || f == "make_cases.py") continue;
    INFO(f);
    CHECK(std::any_of(cases.begin(), cases.end(), [&](const CliCase& c) { return c.name == f; }));
  }
}

TEST_CASE("a FIFO or a device read as a spec stops at the size limit", "[unit]") {
  // /dev/zero never ends: the read stops at the limit with a message, not an allocation failure.
  auto z = read_text_file("/dev/zero", 1 << 20);
  REQUIRE_FALSE(z);
  CHECK(z.error().message ==
        "expected at most 1 MiB, found more (not a regular file, or still growing); stopped "
        "reading at the limit");
  Diagnostics d;
  const Document doc = parse_file("/dev/null", d);  // a device that is empty: an empty document
  CHECK(doc.ok);
  // A directory is refused before any read.
  auto dir = read_text_file(kBad);
  REQUIRE_FALSE(dir);
  CHECK(dir.error().message == "expected a file, found a directory");
  // A FIFO fed more than the limit by another thread.
  const std::string fifo = "/tmp/infercap-test-fifo-" + std::to_string(::getpid());
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::thread writer([&] {
    std::FILE* w = std::fopen(fifo.c_str(), "wb");
    if (w == nullptr) return;
    const std::string chunk(65536, 'a');
    for (int i = 0; i < 32; ++i)  // 2 MiB, or until the reader stops
      if (std::fwrite(chunk.data(), 1, chunk.size(), w) != chunk.size()) break;
    std::fclose(w);
  });
  ::signal(SIGPIPE, SIG_IGN);
  auto f = read_text_file(fifo, 1 << 20);
  writer.join();
  ::unlink(fifo.c_str());
  REQUIRE_FALSE(f);
  CHECK(f.error().message.rfind("expected at most 1 MiB", 0) == 0);
}
