#pragma once
// A memo of what a candidate's evaluation computes that the size of the load, the prices, the
// constraints and the horizon leave unchanged: the engine (the roofline PerfModel and its step
// model) and the analytic serving answers (the largest load one replica carries within the SLA,
// and the analytic result at one per-replica load). Related solves share one: the simulator
// re-checks of a solve re-evaluate its finalists, and sensitivity()'s re-solves move one input at
// a time, so most of their candidates ask the same questions again.
//
// Contract (tests/test_eval_memo.cpp checks each point):
// * Bit-identical. An entry is reused only when every input the memoised computation reads is
//   the same, doubles compared bit for bit; a solve with a memo returns the same Plan, to the
//   last bit, as the same solve without one. The analytic model reads the request classes'
//   rates only as shares of the load plus the total asked of it, so a workload scaled by a
//   factor reuses an answer exactly when its shares come out bit-equal (always for one class).
// * Scope. Candidates are identified by the *names* of their model, hardware, stack and
//   precision, so one memo may only serve solves whose models, hardware, stacks and serving
//   config are the same under those names: copies of one PlanInputs that differ in pools (rates,
//   SLA), constraints, prices, objective, strategy or verification settings. solve() makes its
//   own memo for the call unless given one; sensitivity() makes one per call. Nothing is global,
//   nothing outlives its owner.
// * Thread-safe. Concurrent solves may share a memo (sensitivity's re-solves run on several
//   threads). A lookup holds a mutex only to find or insert; two threads missing the same key
//   both compute it (the same value) and the first stored is kept.
// * Bounded by its owner's question: a few entries per candidate and workload shape.
#include <cstdint>
#include <memory>

namespace infercap {

class EvalMemo {
 public:
  EvalMemo();
  ~EvalMemo();
  EvalMemo(const EvalMemo&) = delete;
  EvalMemo& operator=(const EvalMemo&) = delete;

  /// Lookups answered from the memo and lookups that computed (engines and serving answers
  /// together): what the tests and the benches read.
  struct Stats {
    int64_t hits = 0;
    int64_t misses = 0;
  };
  Stats stats() const;

  struct Impl;  ///< the tables (core/src/eval_memo_internal.hpp)
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace infercap
