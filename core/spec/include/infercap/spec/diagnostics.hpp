#pragma once
// Diagnostics: what is wrong with an input file, where, and what was probably meant. Loaders
// collect every problem of a file instead of stopping at the first, and never throw for a user
// error; the caller decides whether to print and which exit code to use.
//
// One diagnostic prints as
//   file:line:col: error: key.path: message (hint)
// with 1-based line and column. Parts that are unknown are left out: no position gives
// "file: error: ...", no file gives "error: ...", no key path gives "...: error: message".
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace infercap::spec {

enum class Severity : unsigned char { error, warning };

struct Diagnostic {
  std::string file;      ///< path as the user gave it; empty for command-line values
  int line = 0;          ///< 1-based; 0 = no position
  int col = 0;           ///< 1-based; 0 = no position
  std::string key_path;  ///< e.g. "moe.experts", "sources[1].fields[0]"; empty if none
  std::string message;   ///< what was expected and what was found
  std::string hint;      ///< e.g. "did you mean 'hidden'?"; empty if none
  Severity severity = Severity::error;
};

/// The one-line form described above.
std::string format(const Diagnostic& d);

/// At most this many diagnostics are kept (and printed); the rest are counted. One more line
/// says that more followed.
inline constexpr std::size_t kMaxDiagnostics = 200;

class Diagnostics {
 public:
  void add(Diagnostic d);
  void error(std::string file, int line, int col, std::string key_path, std::string message,
             std::string hint = {});
  void warning(std::string file, int line, int col, std::string key_path, std::string message,
               std::string hint = {});

  bool has_errors() const { return errors_ > 0; }
  std::size_t error_count() const { return errors_; }
  std::size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  const std::vector<Diagnostic>& items() const { return items_; }
  /// Every diagnostic, one per line, each line ending in '\n'.
  std::string format() const;
  /// The formatted lines, in the order they were added.
  std::vector<std::string> lines() const;
  void append(const Diagnostics& other);
  void clear();

 private:
  std::vector<Diagnostic> items_;
  std::size_t errors_ = 0;
};

/// The longest user text a message echoes, and the longest word did_you_mean compares: no name
/// or value a user means is longer, and a 10 MB typo must neither fill a terminal nor cost an
/// edit distance over its whole length.
inline constexpr std::size_t kMaxEchoBytes = 80;
inline constexpr std::size_t kMaxSuggestBytes = 64;

/// `text` in single quotes for a message; past kMaxEchoBytes it is cut at a character boundary
/// and its length given: 'aaaa...' (10485760 bytes).
std::string quote_text(std::string_view text);

/// Optimal-string-alignment edit distance (insertions, deletions, substitutions and adjacent
/// transpositions each cost 1), case-insensitive.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// Candidates close to `word`, best first, at most `max_results`. A candidate is close when its
/// distance to `word`, or to `word` as a prefix of it (plus 1), is at most max(2, |word| / 3).
/// A word or candidate longer than kMaxSuggestBytes is never close (so the work is bounded).
/// Ties keep the candidates' order. Used for unknown keys, enum values and catalog names.
std::vector<std::string> did_you_mean(std::string_view word,
                                      const std::vector<std::string>& candidates,
                                      std::size_t max_results = 1);

/// "did you mean 'a'?" / "did you mean 'a', 'b'?"; empty when `suggestions` is empty.
std::string did_you_mean_text(const std::vector<std::string>& suggestions);

}  // namespace infercap::spec
