// The README and the commands agree (issue 13): every `$B ...` command line in README.md uses
// only options its subcommand's --help lists, and runs to a documented success (exit 0) — all but
// `calibrate`, which measures the machine for minutes and is only checked against its --help.
// The sentence naming the commands that accept `--calibration` is checked against each --help.
#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

// Last: <sys/wait.h> defines macros that clash with names in the headers above.
#include <sys/wait.h>
#include <unistd.h>

namespace {

struct Out {
  int rc = -1;
  std::string text;
};

Out shell(const std::string& cmd) {
  Out o;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) o.text.append(buf.data(), n);
  const int status = pclose(p);
  o.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

std::string cli() {
  return std::string("INFERCAP_DATA_DIR='") + INFERCAP_SOURCE_DIR + "/data' '" + INFERCAP_CLI_PATH +
         "'";
}

std::string readme() {
  std::ifstream in(std::string(INFERCAP_SOURCE_DIR) + "/README.md");
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The `$B ...` lines of the README's shell blocks, as argument lists ("quoted words" kept).
std::vector<std::vector<std::string>> readme_commands() {
  std::vector<std::vector<std::string>> out;
  std::stringstream ss(readme());
  std::string line;
  const std::regex word(R"("[^"]*"|\S+)");
  while (std::getline(ss, line)) {
    if (line.rfind("$B ", 0) != 0) continue;
    std::vector<std::string> args;
    for (auto it = std::sregex_iterator(line.begin() + 3, line.end(), word);
         it != std::sregex_iterator(); ++it) {
      if (it->str()[0] == '#') break;  // a shell comment ends the command
      args.push_back(it->str());
    }
    out.push_back(args);
  }
  return out;
}

}  // namespace

TEST_CASE("every README command uses options its --help lists, and runs", "[golden]") {
  const auto cmds = readme_commands();
  REQUIRE(cmds.size() >= 8);
  const std::string tmp =
      (std::filesystem::temp_directory_path() / ("infercap-readme-" + std::to_string(::getpid())))
          .string();
  std::filesystem::create_directories(tmp);
  for (const auto& args : cmds) {
    const std::string& sub = args.at(0);
    std::string joined;
    for (const auto& a : args) joined += " " + a;
    SECTION(joined) {
      const Out help = shell(cli() + " " + sub + " --help 2>&1");
      REQUIRE(help.rc == 0);
      for (const auto& a : args) {
        if (a.size() < 2 || a[0] != '-') continue;
        // "-o", "--top" as help spells them: "-o,--output", "  --explain".
        const std::string flag = a.substr(0, a.find('='));
        INFO(sub << " " << flag);
        const std::regex listed("(^|[ ,])" + std::regex_replace(flag, std::regex("-"), "\\-") +
                                "([ ,=]|$)");
        CHECK(std::regex_search(help.text, listed));
      }
      if (sub == "calibrate") continue;  // minutes of measurement: checked against --help only
      // Run it from the source tree (its paths are relative to it); outputs go to a temp dir.
      std::string cmd = "cd '" + std::string(INFERCAP_SOURCE_DIR) + "' && " + cli();
      for (size_t i = 0; i < args.size(); ++i) {
        std::string a = args[i];
        if (i > 0 && (args[i - 1] == "-o" || args[i - 1] == "--output") && sub != "predict")
          a = tmp + "/" + a;
        cmd += " " + (a[0] == '"' ? a : "'" + a + "'");
      }
      // validate reads the public measurements beside the checkout; skip it where they are absent.
      if (sub == "validate" && !std::filesystem::exists(std::string(INFERCAP_SOURCE_DIR) +
                                                        "/../shared/benchmarks/seed-claims.csv"))
        continue;
      const Out r = shell(cmd + " >/dev/null 2>&1");
      CHECK(r.rc == 0);
    }
  }
  std::filesystem::remove_all(tmp);
}

TEST_CASE("the commands the README says accept --calibration do, and only those", "[golden]") {
  const std::string text = readme();
  // "... writes a profile that `predict` and `validate` accept with `--calibration`."
  const std::regex sentence(
      R"(profile that ((?:`[a-z]+`(?:,|\s+and)?\s*)+)accept with\s+`--calibration`)");
  std::smatch m;
  REQUIRE(std::regex_search(text, m, sentence));
  std::vector<std::string> named;
  const std::string list = m[1].str();
  const std::regex cmd("`([a-z]+)`");
  for (auto it = std::sregex_iterator(list.begin(), list.end(), cmd); it != std::sregex_iterator();
       ++it)
    named.push_back((*it)[1].str());
  REQUIRE_FALSE(named.empty());
  for (const char* sub : {"predict", "validate", "plan", "report"}) {
    const Out help = shell(cli() + " " + sub + " --help 2>&1");
    REQUIRE(help.rc == 0);
    const bool accepts = help.text.find("--calibration") != std::string::npos;
    const bool said = std::find(named.begin(), named.end(), sub) != named.end();
    INFO(sub);
    CHECK(accepts == said);
  }
}
