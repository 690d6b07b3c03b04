#include "infercap_gui/report_job.hpp"

#include <fmt/core.h>

namespace infercap::gui {

report::ExportRequest report_request(const PlanOutcome& o, std::string path, report::Lang lang,
                                     std::string spec_file) {
  report::ExportRequest r;
  r.path = std::move(path);
  r.lang = lang;
  r.description = o.description;
  r.spec_file = std::move(spec_file);
  return r;  // currency "", top 5, sensitivity on: `infercap report`'s defaults
}

ReportExport export_plan_report(const PlanOutcome& o, const report::ExportRequest& r) {
  ReportExport e;
  e.path = r.path;
  const auto t0 = std::chrono::steady_clock::now();
  auto fail = [&](const std::string& why) {
    e.state = JobState::failed;
    e.message = "report not written: " + why;
    return e;
  };
  if (o.state != JobState::done || !o.plan || !o.inputs)
    return fail("'" + r.path + "': there is no solved plan to export");
  Result<report::Format> w = Error{""};
  try {
    w = report::export_report(*o.inputs, *o.plan, r);
  } catch (const std::exception& ex) {
    return fail("cannot write '" + r.path + "': internal error: " + ex.what());
  }
  e.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!w) return fail(w.error().message);
  static const char* kNames[] = {"Markdown", "HTML", "PDF", "XLSX"};
  e.state = JobState::done;
  e.message = fmt::format("wrote {} ({} report, {:.1f} s)", r.path, kNames[static_cast<int>(*w)],
                          e.elapsed_s);
  return e;
}

ReportJob::~ReportJob() {
  if (worker_.joinable()) worker_.join();
}

bool ReportJob::start(const PlanOutcome& o, report::ExportRequest r) {
  std::lock_guard<std::mutex> lock(mu_);
  if (out_.state == JobState::running) return false;
  if (worker_.joinable()) worker_.join();  // finished; its result is published
  if (o.state != JobState::done || !o.plan || !o.inputs) {
    out_ = export_plan_report(o, r);  // fails at once with the reason
    ++version_;
    return false;
  }
  out_ = ReportExport{};
  out_.state = JobState::running;
  out_.path = r.path;
  out_.message = "writing " + r.path + " ...";
  ++version_;
  // The worker owns its copies: the outcome may be replaced by a re-solve meanwhile.
  worker_ = std::thread([this, o, r = std::move(r)] {
    ReportExport e = export_plan_report(o, r);
    {
      std::lock_guard<std::mutex> l(mu_);
      out_ = std::move(e);
      ++version_;
    }
    if (on_done_) on_done_();
  });
  return true;
}

bool ReportJob::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return out_.state == JobState::running;
}

ReportExport ReportJob::snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return out_;
}

unsigned ReportJob::version() const {
  std::lock_guard<std::mutex> lock(mu_);
  return version_;
}

void ReportJob::wait() {
  if (worker_.joinable()) worker_.join();
}

}  // namespace infercap::gui
