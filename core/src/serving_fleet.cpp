// Replicas behind one dispatcher (SimOptions::replicas > 1): the engines of serving_engine.hpp
// stepped in time order, arrivals handed to them least-loaded or through one shared queue.
// docs/serving.md, "Replicas behind a dispatcher".
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "serving_engine.hpp"

namespace infercap::sim_engine {

// A fleet of `opt.replicas` identical engines behind one dispatcher, at the total load. The
// arrivals are drawn once, in time order; before any engine starts a step at time t, every arrival
// up to t has been dispatched, so an engine's state when a request is handed to it is at most one
// of its steps ahead of the arrival (the harnesses' own counts move as responses come back).
ServingResult simulate_fleet(const StepTable& table, const ServingConfig& cfg,
                             const std::vector<RequestClass>& classes, const SimOptions& opt,
                             const std::vector<LengthSampler>& ps,
                             const std::vector<LengthSampler>& os,
                             const std::vector<ArrivalSampler>& as,
                             const std::vector<double>& rates, int64_t total_blocks) {
  const int n = opt.replicas;
  const int64_t total = opt.warmup_requests + opt.requests;
  // Balanced dispatch hands each engine about total / n; twice that plus slack is its room.
  const int64_t room = std::min<int64_t>(total, 2 * (total / n) + 4096);
  std::vector<SimOptions> opts(static_cast<size_t>(n), opt);
  std::vector<std::unique_ptr<Engine>> own;
  std::vector<Engine*> fleet;
  for (int i = 0; i < n; ++i) {
    // Each engine draws its requests' lengths from its own stream.
    opts[static_cast<size_t>(i)].seed =
        opt.seed + 0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(i + 1);
    own.push_back(std::make_unique<Engine>(table, cfg, classes, opts[static_cast<size_t>(i)], ps,
                                           os, std::vector<ArrivalSampler>{}, rates, total_blocks,
                                           room));
    fleet.push_back(own.back().get());
    fleet.back()->begin();
  }
  Rng rng(opt.seed);
  std::vector<double> next(classes.size());
  for (size_t c = 0; c < classes.size(); ++c) next[c] = as[c].next_gap_s(rng);
  // shared_queue: arrivals wait here until an engine starts a step and takes them.
  struct Queued {
    double t;
    int32_t cls;
    bool measured;
  };
  std::deque<Queued> queue;
  int64_t created = 0;
  int64_t queued_growth = 0;  // shared_queue: how much the queue grew over the window
  size_t queue_max = 0;       // shared_queue: its longest
  bool overflow = false;
  int64_t max_queue =
      opt.max_waiting > 0 ? opt.max_waiting : n * (50 * static_cast<int64_t>(cfg.max_seqs) + 10000);
  if (opt.finite_run) max_queue = std::max(max_queue, total + 1);
  const double inf = std::numeric_limits<double>::infinity();
  while (!overflow) {
    // The engine whose next step starts first, among those with work (shared_queue: an idle
    // engine is free to take the queue's head when it arrives).
    Engine* first = nullptr;
    double t_first = inf;
    for (Engine* e : fleet) {
      if (e->has_work() && e->now() < t_first) {
        first = e;
        t_first = e->now();
      }
    }
    size_t c = 0;
    for (size_t k = 1; k < next.size(); ++k)
      if (next[k] < next[c]) c = k;
    const double a = created < total ? next[c] : inf;
    if (opt.dispatch == Dispatch::shared_queue && !queue.empty()) {
      // The head waits for the first engine to start a step at or after it with a free slot;
      // an idle engine starts one as soon as it is there.
      Engine* taker = nullptr;
      double t_take = inf;
      for (Engine* e : fleet) {
        // A busy engine takes at the start of its next step, so only once that is past the head.
        if (e->free_slots() <= 0 || (e->has_work() && e->now() < queue.front().t)) continue;
        const double t_e = e->has_work() ? e->now() : std::max(e->now(), queue.front().t);
        if (t_e < t_take) {
          taker = e;
          t_take = t_e;
        }
      }
      if (taker != nullptr && t_take <= std::min(a, t_first)) {
        // It takes every request that has arrived by then, up to its free slots.
        for (int64_t k = taker->free_slots(); k > 0 && !queue.empty() && queue.front().t <= t_take;
             --k) {
          overflow =
              overflow || !taker->feed(queue.front().t, queue.front().cls, queue.front().measured);
          queue.pop_front();
        }
        continue;
      }
    }
    if (std::isfinite(a) && a <= t_first) {
      const bool measured = created >= opt.warmup_requests;
      if (opt.dispatch == Dispatch::shared_queue) {
        queue.push_back(Queued{a, static_cast<int32_t>(c), measured});
        queue_max = std::max(queue_max, queue.size());
        if (static_cast<int64_t>(queue.size()) > max_queue) {
          overflow = true;
          break;
        }
      } else {
        // The engine with the fewest requests given and not finished; the first such on ties.
        Engine* to = fleet.front();
        for (Engine* e : fleet)
          if (e->load_at(a) < to->load_at(a)) to = e;
        overflow = !to->feed(a, static_cast<int32_t>(c), measured);
      }
      ++created;
      if (created == opt.warmup_requests + 1) {
        for (Engine* e : fleet) e->mark_window_start(window_start_at(opt, a));
        queued_growth -= static_cast<int64_t>(queue.size());
      }
      if (created == total && !opt.finite_run) {
        for (Engine* e : fleet) e->mark_window_end(a);
        queued_growth += static_cast<int64_t>(queue.size());
      }
      next[c] = a + as[c].next_gap_s(rng);
      continue;
    }
    if (first == nullptr) break;  // nothing runs and nothing is left to arrive
    if (first->step() == Engine::Status::stop && first->aborted()) break;
  }
  ServingResult r = fleet.front()->result(fleet, queued_growth, overflow);
  // The requests waiting ahead of the engines: theirs and, with a shared queue, its own.
  r.queue_max = std::max(r.queue_max, static_cast<double>(queue_max));
  if (overflow) {
    r.note = opt.dispatch == Dispatch::shared_queue && !queue.empty()
                 ? fmt::format("unstable: more than {} requests waiting", max_queue)
                 : fmt::format("unstable: one of {} replicas was handed over {} requests", n, room);
  }
  return r;
}

}  // namespace infercap::sim_engine
