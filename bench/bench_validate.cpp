// Memory of `infercap validate` over a large measurement file (issue 13: 200k rows took ~1.5 GB
// when every row was kept as strings and a mapped BenchCase before any was predicted). validate
// now streams: each row is read, mapped, predicted and reduced to its |error| in the summary
// groups, so its peak resident memory grows with those doubles (and with the per-row table only
// when that table is printed). The figure is the child process's peak RSS (wait4's ru_maxrss),
// a counter here: memory is not noisy the way time is on a shared machine.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

extern char** environ;

namespace {

// A generated file of `rows` rows in the shared/benchmarks schema: llama.cpp decode and prefill
// runs of two catalog models on two catalog GPUs, with made-up measured values (the bench
// measures memory, not the model's accuracy).
const std::string& rows_file(int rows) {
  static std::map<int, std::string> files;
  auto& path = files[rows];
  if (!path.empty()) return path;
  path = (std::filesystem::temp_directory_path() /
          ("infercap-bench-validate-" + std::to_string(::getpid()) + "-" + std::to_string(rows) +
           ".csv"))
             .string();
  std::ofstream out(path);
  out << "id,source,hardware,hw_count,mem_bw_gbs,model,params_b,precision,input_len,output_len,"
         "batch,metric,value,unit,stack,notes\n";
  const char* const hw[] = {"rtx-4090", "h100-sxm"};
  const char* const model[] = {"llama-3.2-1b", "qwen2.5-7b"};
  for (int i = 0; i < rows; ++i) {
    const bool decode = i % 2 == 0;
    out << "GEN-" << i << ",generated," << hw[(i / 2) % 2] << ",1,," << model[(i / 4) % 2]
        << ",,Q4_0," << (decode ? "0,128" : "512,0") << ",1,"
        << (decode ? "decode_throughput_tg128," : "prefill_throughput_pp512,")
        << (decode ? 100 + i % 50 : 5000 + i % 500) << ",tokens/s,llama.cpp CUDA,bench row\n";
  }
  return path;
}

struct Run {
  int rc = -1;
  long max_rss_kib = 0;
};

// Runs the CLI with `args` (stdout and stderr to /dev/null) and returns its exit code and peak
// resident set.
Run run_cli(const std::vector<std::string>& args) {
  std::vector<std::string> all{INFERCAP_CLI_PATH};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  argv.reserve(all.size() + 1);
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string data = std::string("INFERCAP_DATA_DIR=") + INFERCAP_SOURCE_DIR + "/data";
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e) envp.push_back(*e);
  envp.push_back(data.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  Run r;
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), envp.data()) == 0) {
    int status = 0;
    struct rusage ru {};
    if (wait4(pid, &status, 0, &ru) == pid) {
      r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      r.max_rss_kib = ru.ru_maxrss;  // KiB on Linux
    }
  }
  posix_spawn_file_actions_destroy(&fa);
  return r;
}

void report(benchmark::State& st, const Run& r) {
  if (r.rc != 0) st.SkipWithError("infercap validate did not succeed");
  st.counters["rows"] = static_cast<double>(st.range(0));
  st.counters["peak_rss_mib"] = static_cast<double>(r.max_rss_kib) / 1024.0;
}

// The summary only: what memory is left when no per-row table is printed.
void BM_ValidatePeakRss_SummaryOnly(benchmark::State& st) {
  const std::string& file = rows_file(static_cast<int>(st.range(0)));
  Run r;
  for (auto _ : st) r = run_cli({"validate", "-i", file, "--summary-only"});
  report(st, r);
}
BENCHMARK(BM_ValidatePeakRss_SummaryOnly)
    ->Arg(1000)
    ->Arg(200000)
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

// With the per-row table (CSV): the table's cells are kept until it is printed.
void BM_ValidatePeakRss_Table(benchmark::State& st) {
  const std::string& file = rows_file(static_cast<int>(st.range(0)));
  Run r;
  for (auto _ : st) r = run_cli({"validate", "-i", file, "--format", "csv"});
  report(st, r);
}
BENCHMARK(BM_ValidatePeakRss_Table)->Arg(200000)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace
