#pragma once
// "Export report" for the GUI: the current plan written as the procurement report (HTML, PDF,
// XLSX or Markdown by the file's extension, English or Chinese) through the report library, on
// a worker thread so a frame never waits for the document (its sensitivity re-solves and the
// PDF's layout take a second or two). The same call as `infercap report`
// (report::export_report), so the files agree with the CLI's for the same saved YAML.
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "infercap/report/export.hpp"
#include "infercap_gui/plan_job.hpp"

namespace infercap::gui {

struct ReportExport {
  JobState state = JobState::idle;
  std::string path;
  /// "wrote PATH (html, 1.2 s)" when done; "report not written: cannot write 'PATH': why" when
  /// failed (the path and the reason).
  std::string message;
  double elapsed_s = 0;
};

/// The request for a done outcome: its scenario's description, `spec_file` as the scenario
/// file the report names (WhatIf::source_label), the currency as `infercap report` without
/// --currency (the scenario's, CNY for zh).
report::ExportRequest report_request(const PlanOutcome& o, std::string path, report::Lang lang,
                                     std::string spec_file);

/// What the worker does, synchronously: export_report of the outcome's inputs and plan.
ReportExport export_plan_report(const PlanOutcome& o, const report::ExportRequest& r);

class ReportJob {
 public:
  ReportJob() = default;
  ReportJob(const ReportJob&) = delete;
  ReportJob& operator=(const ReportJob&) = delete;
  ~ReportJob();

  /// Starts writing the report of `o` (copied: the panel may replace its plan meanwhile).
  /// False, starting nothing, while an export runs or when `o` has no plan (then the snapshot
  /// says why).
  bool start(const PlanOutcome& o, report::ExportRequest r);
  /// Called on the worker thread after the result is published (wakes the frame loop).
  void set_on_done(std::function<void()> f) { on_done_ = std::move(f); }
  bool running() const;
  ReportExport snapshot() const;
  unsigned version() const;
  void wait();

 private:
  std::function<void()> on_done_;
  mutable std::mutex mu_;
  ReportExport out_;
  unsigned version_ = 0;
  std::thread worker_;
};

}  // namespace infercap::gui
