#pragma once
// The Plan tab's what-if desk, without ImGui: a scenario loaded from YAML, the user's edits to
// its inputs (each one a named, undoable step), the debounce that decides when to re-solve, and
// what moved between two answers. The panel draws these inputs as widgets and calls the edit
// functions below; the [gui] tests call the same functions and check the re-solved plan against
// the CLI on the YAML the desk saves (spec::scenario_to_yaml).
//
// Units as everywhere: SI and USD inside. Money a control shows is in the scenario's display
// currency (to_display / from_display), so one currency is on screen at a time.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "infercap/solver.hpp"
#include "infercap/spec/catalog.hpp"
#include "infercap/spec/scenario.hpp"

namespace infercap::gui {

/// Everything the what-if controls edit: the scenario itself (what is solved and saved) plus,
/// per request class, the factor its loaded rate (mean and hourly curve) is scaled by.
struct WhatIfInputs {
  spec::Scenario sc;
  std::vector<double> curve_scale;  ///< per class; 1 = as loaded
};

enum class SlaMetric { ttft, tpot, e2e };

// ---- Edits: each changes one input of `in` the way one control does ------------------------
// `loaded` is the scenario as read from the file, for edits relative to it.

/// Scales class `i`'s mean rate and hourly curve by `factor` (> 0) relative to the loaded file;
/// an explicit peak is left to set_peak_qps.
void set_curve_scale(WhatIfInputs& in, const spec::Scenario& loaded, std::size_t i, double factor);
/// Class `i`'s peak rate in requests/s; 0 removes it (the design load comes from the curve or
/// the mean).
void set_peak_qps(WhatIfInputs& in, std::size_t i, double qps);
/// Moves a length distribution's mean to `mean_tokens` (>= 1) keeping its shape: fixed and
/// exponential take the value, uniform and histogram scale their tokens, lognormal shifts mu by
/// ln(ratio) (sigma, hence the spread in log space, unchanged).
void set_mean_tokens(LengthDist& d, double mean_tokens);
/// A class's SLA bound in seconds at its current percentile (P99 when it had none); 0 removes
/// the bound.
void set_sla(WhatIfInputs& in, std::size_t i, SlaMetric m, double limit_s);
/// The unit price of a device in the price book, in USD: every volume tier is scaled by the same
/// factor so the discount structure stays. False when the book has no entry for it.
bool set_device_price(WhatIfInputs& in, const std::string& hardware, double unit_price_usd);
/// Toggles membership of `value` in a filter list (empty list = no filter).
void toggle(std::vector<std::string>& list, const std::string& value);
void toggle(std::vector<HwClass>& list, HwClass value);
/// Restricts the candidate devices to a list (toggling one device of `all` starts from the whole
/// catalog minus that device), or back to the whole catalog.
void toggle_hardware(WhatIfInputs& in, const spec::Catalog& cat, const std::string& name);

/// Whether a search box's text picks an entry: empty matches all; otherwise the query, normalised
/// as catalog names are (lowercase, no spaces, '-', '_', '.'), is a substring of the normalised
/// name or of one alias ("H100" finds h100-sxm, "昇腾" an entry aliased so).
bool matches_search(const std::string& query, const std::string& name,
                    const std::vector<std::string>& aliases = {});

/// Money of a control in the display currency and back (USD inside).
double to_display(double usd, const PriceBook& b);
double from_display(double shown, const PriceBook& b);

// ---- The desk ------------------------------------------------------------------------------

class WhatIf {
 public:
  using Clock = std::chrono::steady_clock;
  /// The pause after the last edit before a re-solve starts: dragging a slider re-solves once
  /// when the hand stops, not every frame.
  static constexpr std::chrono::milliseconds kDebounce{350};

  /// Loads a scenario. On failure nothing stays selected: `loaded()` is false, the inputs are
  /// cleared and `diagnostics()` holds the reader's lines (file:line:col). The base price book
  /// is read as well, so saving writes only the price entries the user changed.
  bool open(const std::string& path, const std::string& data_dir);
  bool loaded() const { return loaded_.has_value(); }
  const std::string& path() const { return path_; }
  const std::vector<std::string>& diagnostics() const { return diagnostics_; }
  const std::string& error() const { return error_; }
  const spec::Scenario& original() const { return *loaded_; }
  const WhatIfInputs& inputs() const { return cur_; }

  /// Applies one edit as one undo step (a no-op edit adds no step) and marks the inputs changed
  /// at `now`. `what` names the control for the undo list; edits of the same control less than
  /// kDebounce apart (one drag of a slider) are one step.
  template <class F>
  void edit(const char* what, F&& f, Clock::time_point now = Clock::now()) {
    WhatIfInputs next = cur_;
    f(next);
    commit(what, std::move(next), now);
  }
  /// Replaces the inputs as one undo step.
  void commit(const char* what, WhatIfInputs next, Clock::time_point now = Clock::now());
  bool can_undo() const { return !undo_.empty(); }
  bool can_redo() const { return !redo_.empty(); }
  void undo(Clock::time_point now = Clock::now());
  void redo(Clock::time_point now = Clock::now());
  /// The label of the step undo / redo would revert / reapply ("" if none).
  std::string undo_label() const;
  std::string redo_label() const;

  /// True once edits are pending and the inputs have been still for kDebounce: time to solve.
  bool solve_due(Clock::time_point now) const;
  /// How long until solve_due turns true (zero when due or nothing pending): the frame loop
  /// sleeps this long at most instead of polling.
  Clock::duration until_due(Clock::time_point now) const;
  bool pending() const { return pending_; }
  /// The solve of the current inputs has started; edits after this make it pending again.
  void mark_solving() { pending_ = false; }

  /// The inputs as the YAML the CLI reads.
  std::string yaml() const;
  /// Writes yaml() to `path` (atomically); false with `error` set when it cannot. Remembers
  /// the file and the inputs it holds (source_label).
  bool save(const std::string& path, std::string& error) const;
  /// The scenario file a report of the current inputs names: the file last saved (or the one
  /// opened) while the inputs are still the ones it holds, so the GUI's report of a saved YAML
  /// names the file `infercap report` is given; otherwise the opened file marked as edited.
  std::string source_label() const;

 private:
  struct Step {
    std::string what;
    WhatIfInputs in;
  };
  std::optional<spec::Scenario> loaded_;
  std::optional<PriceBook> base_book_;
  std::string path_;
  std::vector<std::string> diagnostics_;
  std::string error_;
  WhatIfInputs cur_;
  // What source_label() compares with: the file last written or opened, and its inputs.
  mutable std::string saved_path_;
  mutable std::optional<WhatIfInputs> saved_;
  std::vector<Step> undo_, redo_;
  bool pending_ = false;
  Clock::time_point last_edit_{};
};

/// Whether two input sets would ask the solver the same question (the saved YAML is equal).
bool same_question(const WhatIfInputs& a, const WhatIfInputs& b);

/// "changed since last solve": what moved in the recommended fleet between two answers, in the
/// display currency of `prices`: device per pool ("chat: h100-sxm -> l40s"), device count
/// ("devices 12 -> 20"), TCO ("TCO 1.23 M -> 0.98 M USD (-20%)"), and feasibility. "no change
/// in the recommendation" when none of these moved.
std::string plan_change(const Plan& before, const Plan& after, const PriceBook& prices);

}  // namespace infercap::gui
