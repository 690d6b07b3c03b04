// Discrete-event simulator of continuous batching (vLLM-like). One engine step at a time; the
// work per step is O(1) plus the requests that start, finish, or are preempted in it, so a step
// with 256 decodes costs the same as one with 1. docs/serving.md states the scheduler's rules.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "infercap/serving.hpp"
#include "serving_engine.hpp"
#include "serving_internal.hpp"

namespace infercap {

// ---------------------------------------------------------------------------------------------
// Simulator: the engine's loop and results (its state: serving_engine.hpp)

namespace sim_engine {

void Engine::begin() {
  closed_ = opt_.closed_loop_clients > 0;
  round_trip_ = closed_ && opt_.closed_loop_round_trip;
  t_ = 0;
  dstep_ = 0;
  aborted_ = false;
  if (closed_) {
    const int64_t n0 = std::min<int64_t>(opt_.closed_loop_clients, n_total_);
    for (int64_t i = 0; i < n0; ++i) new_request(pick_class(), 0);
  } else if (!fed_mode_) {
    next_arrival_.resize(classes_.size());
    for (size_t c = 0; c < classes_.size(); ++c) next_arrival_[c] = arrival_s_[c].next_gap_s(rng_);
  }
}

void Engine::admit_whole_prompts(int64_t& budget, double t, double& tokens, double& ctx_weighted) {
  while (!waiting_.empty() && running_ < cfg_.max_seqs) {
    const int32_t id = waiting_.front();
    Req& r = reqs_[static_cast<size_t>(id)];
    const int64_t need = admission_blocks(r);
    if (r.total > budget || need + watermark_ > free_blocks_) break;
    waiting_.pop_front();
    free_blocks_ -= need;
    if (reserve_) r.reserved = need;
    budget -= r.total;
    r.st = St::prefilling;
    r.done = 0;
    if (r.admitted < 0) r.admitted = t;
    list_push_back(id);
    step_prefills_.push_back(Chunk{id, r.total});
    tokens += static_cast<double>(r.total);
    ctx_weighted += static_cast<double>(r.total) * static_cast<double>(r.total) / 2;
  }
}

bool Engine::hold_prompts(int decodes) {
  if (cfg_.prompt_wait_steps <= 0 || decodes <= 0 || waiting_.empty()) return false;
  // TensorRT-LLM's _waiting_requests: the waiting prompts' tokens and the step's decodes, against
  // batch_wait_max_tokens_ratio x max_num_tokens; counted only as far as the level.
  bool below = true;
  if (cfg_.prompt_wait_tokens > 0) {
    int64_t tokens = decodes;
    for (size_t i = 0; i < waiting_.size(); ++i) {
      tokens += reqs_[static_cast<size_t>(waiting_.at(i))].total;
      if (tokens >= cfg_.prompt_wait_tokens) break;
    }
    below = tokens < cfg_.prompt_wait_tokens;
  }
  const bool hold = below && prompt_wait_count_ < cfg_.prompt_wait_steps;
  prompt_wait_count_ = hold ? prompt_wait_count_ + 1 : 0;
  return hold;
}

ServingResult Engine::run() {
  begin();
  while (step() == Status::ran) {
  }
  return result({this});
}

// One pass of the engine loop: admit what has arrived, schedule a step, run it. `stop` when the
// run is over (every request finished, nothing left to arrive, or aborted); `idle` (fleet only)
// when the engine has nothing to do until the dispatcher hands it a request.
Engine::Status Engine::step() {
  if (!fed_mode_ && finished_ >= n_total_) return Status::stop;
  double& t = t_;
  int64_t& dstep = dstep_;
  const int64_t budget0 = cfg_.max_batched_tokens;
  {
    // Scheduled one step ahead, this step's batch was formed when the last one started: what
    // arrived since waits a step more. An engine with nothing running forms it now.
    const bool ahead = cfg_.schedule_one_step_ahead && running_ > 0 && last_step_start_ >= 0;
    // A busy engine that polls for requests every few decode steps takes them in only then.
    if (running_ == 0 || poll_count_ >= cfg_.request_poll_decode_steps) {
      poll_count_ = 0;
      take_in_inbox();
      admit_arrivals_until(ahead ? last_step_start_ : t);
    }
    if (running_ == 0 && waiting_.empty()) {  // an idle engine waits for them
      deliver_in_transit();
      take_in_inbox();
    }
    if (running_ == 0 && waiting_.empty()) {
      int32_t c = 0;
      const double at = closed_ ? std::numeric_limits<double>::infinity() : next_arrival_time(c);
      if (!std::isfinite(at)) return fed_mode_ ? Status::idle : Status::stop;  // nothing to do
      t = at;
      admit_arrivals_until(t);
    }
    if (static_cast<int64_t>(waiting_.size()) > max_waiting_) {
      aborted_ = true;
      return Status::stop;
    }
    queue_max_ = std::max(queue_max_, static_cast<double>(waiting_.size()));

    // ---- schedule one step ----
    step_prefills_.clear();
    int64_t budget = budget0;
    double prefill_tokens = 0, prefill_ctx_weighted = 0;
    bool prefill_only = false;
    if (cfg_.prompt_schedule == PromptSchedule::whole_prompt_steps && !waiting_.empty()) {
      // vLLM v0 without chunking: a step of whole prompts, prioritised over decodes.
      admit_whole_prompts(budget, t, prefill_tokens, prefill_ctx_weighted);
      prefill_only = !step_prefills_.empty();
    }
    int decodes = 0;
    if (!prefill_only) {
      // Decodes first: each needs a block when its next token starts a new one.
      const auto ph = static_cast<size_t>(dstep % block_);
      const int64_t preempted_before = preemptions_;
      while (phase_count_[ph] > free_blocks_ && running_ > 0) preempt_tail(dstep);
      const bool preempted = preemptions_ != preempted_before;
      free_blocks_ -= phase_count_[ph];
      decodes = decoding_;
      budget -= decodes;
      const bool hold = hold_prompts(decodes);
      if (cfg_.chunked()) {
        // Continue partial prefills, then admit new requests, within the token budget.
        for (size_t i = 0; i < prefilling_.size() && budget > 0; ++i) {
          const int32_t id = prefilling_[i];
          Req& r = reqs_[static_cast<size_t>(id)];
          int64_t chunk = std::min(r.total - r.done, budget);
          if (!reserve_) {  // reserved requests hold their blocks already
            const int64_t have = ceil_div(r.done, block_);
            chunk = std::min(chunk, (have + free_blocks_) * block_ - r.done);
            if (chunk <= 0) break;
            free_blocks_ -= ceil_div(r.done + chunk, block_) - have;
          }
          budget -= chunk;
          step_prefills_.push_back(Chunk{id, chunk});
        }
        // New requests only in a step without preemption (vLLM v1), and only when the whole
        // prompt's blocks fit above the watermark (vLLM's can_allocate): admitting into a full
        // cache would only be preempted again.
        while (!preempted && !hold && budget > 0 && !waiting_.empty() && running_ < cfg_.max_seqs) {
          const int32_t id = waiting_.front();
          Req& r = reqs_[static_cast<size_t>(id)];
          const int64_t need = admission_blocks(r);
          if (need + watermark_ > free_blocks_) break;
          const int64_t chunk = std::min(r.total, budget);
          waiting_.pop_front();
          if (reserve_) {
            free_blocks_ -= need;
            r.reserved = need;
          } else {
            free_blocks_ -= ceil_div(chunk, block_);
          }
          budget -= chunk;
          r.st = St::prefilling;
          r.done = 0;
          if (r.admitted < 0) r.admitted = t;
          list_push_back(id);
          prefilling_.push_back(id);
          step_prefills_.push_back(Chunk{id, chunk});
        }
        for (const auto& ch : step_prefills_) {
          const Req& r = reqs_[static_cast<size_t>(ch.id)];
          prefill_tokens += static_cast<double>(ch.tokens);
          prefill_ctx_weighted +=
              static_cast<double>(ch.tokens) *
              (static_cast<double>(r.done) + static_cast<double>(ch.tokens) / 2);
        }
      } else if (cfg_.prompt_schedule == PromptSchedule::whole_with_decodes) {
        // Whole prompts behind the decodes, in arrival order, while the budget holds each; the
        // first that does not fit stops the step's admissions (TensorRT-LLM, no chunked context).
        if (!preempted && !hold) {
          admit_whole_prompts(budget, t, prefill_tokens, prefill_ctx_weighted);
        }
      }
    }
    deliver_in_transit();
    if (decodes == 0 && step_prefills_.empty()) {
      // Only partial prefills that cannot get a block: free memory by preempting the newest.
      if (running_ > 0) {
        preempt_tail(dstep);
        return Status::ran;
      }
      // Nothing runs and the head cannot be admitted: cannot happen after length clipping.
      aborted_ = true;
      return Status::stop;
    }

    // ---- run it ----
    finished_in_last_step_ = 0;
    const double ctx = (prefill_ctx_weighted + dec_ctx_sum_) / (prefill_tokens + decodes);
    const double dt = table_.step_s(prefill_tokens, decodes, ctx);
    if (in_window(t)) {
      busy_ += dt;
      batch_time_ += dt * running_;
      const double occ =
          static_cast<double>(total_blocks_ - free_blocks_) / static_cast<double>(total_blocks_);
      kv_time_ += dt * occ;
      kv_max_ = std::max(kv_max_, occ);
    }
    if (prefill_only) {
      if (cohorts_.empty() && decoding_ > 0) cohorts_.push_back(Cohort{decoding_, 0});
      for (auto& c : cohorts_) c.waited_s += dt;
    } else if (decodes > 0) {
      // Each decoder's token comes dt after its last one, plus what it waited in prefill-only
      // steps. Counted for steps that start in the measurement window.
      if (in_window(t)) {
        int left = decodes;
        for (const auto& c : cohorts_) {
          const int n = std::min(c.count, left);
          itl_.add(dt + c.waited_s, n);
          left -= n;
        }
        itl_.add(dt, left);
      }
      cohorts_.clear();
    }
    const int decoding_before = decoding_;
    poll_count_ = prefill_tokens > 0 ? cfg_.request_poll_decode_steps : poll_count_ + 1;
    last_step_start_ = t;
    t += dt;
    const int64_t this_step = dstep;
    if (!prefill_only) {
      ++dstep;
      dec_ctx_sum_ += decodes;
    }

    // Prefill chunks that complete produce a token.
    for (const auto& ch : step_prefills_) {
      Req& r = reqs_[static_cast<size_t>(ch.id)];
      r.done += ch.tokens;
      if (r.done < r.total) continue;
      if (cfg_.chunked())
        prefilling_.erase(std::find(prefilling_.begin(), prefilling_.end(), ch.id));
      r.generated += 1;
      if (r.first_token < 0) r.first_token = t;
      if (r.generated >= r.output) {
        free_blocks_ += reserve_ ? release(r) : ceil_div(r.total, block_);
        finish(ch.id, t);
      } else {
        start_decoding(ch.id, dstep);
      }
    }
    if (prefill_only && decoding_ > decoding_before) {
      if (cohorts_.empty()) cohorts_.push_back(Cohort{decoding_before, 0});
      cohorts_.push_back(Cohort{decoding_ - decoding_before, 0});
    }
    // Decoders whose last token came out of this step.
    while (!prefill_only && !heap_.empty() && heap_.top().step <= this_step) {
      const HeapEntry e = heap_.top();
      heap_.pop();
      Req& r = reqs_[static_cast<size_t>(e.id)];
      if (r.st != St::decoding || r.version != e.version) continue;  // preempted meanwhile
      stop_decoding(e.id, dstep);
      finish(e.id, t);
    }
  }
  return Status::ran;
}

ServingResult Engine::result(const std::vector<Engine*>& fleet, int64_t queued_growth,
                             bool overflow) {
  ServingResult res;
  // The measurement window [w0, w1): first measured arrival to last arrival; or [w0, end of the
  // run], closed, when it is open-ended: a run of N requests queued at once is measured as its
  // benchmark measures it (trtllm-bench, MLPerf Offline), N over the makespan, the requests that
  // finish in the last step included. A fleet's dispatcher sets the same window on every engine.
  const bool open_end = window_open_ended();
  double t_end = 0;
  for (const Engine* e : fleet) t_end = std::max(t_end, e->t_);
  const double w0 = std::max(0.0, window_start_);
  const double w1 = open_end ? t_end : window_end_;
  const double window = std::max(w1 - w0, 1e-300);
  const auto engines = static_cast<double>(fleet.size());
  res.simulated_s = window;
  res.requests_measured = 0;
  double busy = 0, batch_time = 0, kv_time = 0, wait_sum = 0;
  int64_t completed = 0, arrivals = 0;
  double out_tokens = 0, in_tokens = 0;
  bool aborted = overflow;
  int64_t growth_all = queued_growth;
  res.preemptions = 0;
  res.kv_occupancy_max = 0;
  res.queue_max = 0;
  for (const Engine* e : fleet) {
    res.preemptions += e->preemptions_;
    busy += e->busy_;
    batch_time += e->batch_time_;
    kv_time += e->kv_time_;
    wait_sum += e->wait_sum_;
    res.kv_occupancy_max = std::max(res.kv_occupancy_max, e->kv_max_);
    res.queue_max = std::max(res.queue_max, e->queue_max_);
    arrivals += e->arrivals_in_window_;
    growth_all += e->in_system_at_end_ - e->in_system_at_start_;
    aborted = aborted || e->aborted_;
    // Completions inside the window, counted once the window is known.
    for (int64_t i = 0; i < e->created_; ++i) {
      const Req& r = e->reqs_[static_cast<size_t>(i)];
      if (r.finished_at >= w0 && (r.finished_at < w1 || (open_end && r.finished_at <= w1))) {
        ++completed;
        out_tokens += static_cast<double>(r.output);
        in_tokens += static_cast<double>(r.prompt);
      }
    }
  }
  res.utilisation = std::min(1.0, busy / (engines * window));
  res.mean_batch = busy > 0 ? batch_time / busy : 0;
  res.kv_occupancy_mean = kv_time / (engines * window);
  res.throughput_rps = static_cast<double>(completed) / window;
  res.output_tokens_per_s = out_tokens / window;
  res.input_tokens_per_s = in_tokens / window;
  res.offered_qps = closed_ ? res.throughput_rps : static_cast<double>(arrivals) / window;
  // Stability: the number in system grew by less than 5% of the window's arrivals (plus 50
  // requests of slack an engine for noise), and the run was not cut short by the waiting-queue
  // cap.
  bool stable = !aborted;
  if (!closed_ && stable) {
    stable = static_cast<double>(growth_all) <= 0.05 * static_cast<double>(arrivals) + 50 * engines;
  }
  res.stable = stable;
  if (aborted && !overflow) {
    res.note = fmt::format("unstable: more than {} requests waiting", max_waiting_);
  } else if (!stable) {
    res.note = "unstable: the number of requests in the system kept growing";
  }
  int64_t measured = 0;
  res.classes.resize(classes_.size());
  std::vector<double> all_ttft, all_tpot, all_e2e, all_wait;
  GapHistogram itl;
  for (const Engine* e : fleet) itl.merge(e->itl_);
  std::vector<std::vector<double>> ttft(classes_.size()), tpot(classes_.size()),
      e2e(classes_.size()), wait(classes_.size());
  for (size_t c = 0; c < classes_.size(); ++c) {
    for (const Engine* e : fleet) {
      ttft[c].insert(ttft[c].end(), e->ttft_[c].begin(), e->ttft_[c].end());
      tpot[c].insert(tpot[c].end(), e->tpot_[c].begin(), e->tpot_[c].end());
      e2e[c].insert(e2e[c].end(), e->e2e_[c].begin(), e->e2e_[c].end());
      wait[c].insert(wait[c].end(), e->wait_[c].begin(), e->wait_[c].end());
    }
    ClassLatency& cl = res.classes[c];
    cl.name = classes_[c].name;
    const Sla& sla = classes_[c].sla;
    measured += static_cast<int64_t>(e2e[c].size());
    all_ttft.insert(all_ttft.end(), ttft[c].begin(), ttft[c].end());
    all_tpot.insert(all_tpot.end(), tpot[c].begin(), tpot[c].end());
    all_e2e.insert(all_e2e.end(), e2e[c].begin(), e2e[c].end());
    all_wait.insert(all_wait.end(), wait[c].begin(), wait[c].end());
    if (sla.ttft.set()) cl.ttft_at_sla_s = detail::percentile_of(ttft[c], sla.ttft.percentile);
    if (sla.tpot.set()) cl.tpot_at_sla_s = detail::percentile_of(tpot[c], sla.tpot.percentile);
    if (sla.e2e.set()) cl.e2e_at_sla_s = detail::percentile_of(e2e[c], sla.e2e.percentile);
    cl.ttft = detail::summarise(ttft[c]);
    cl.tpot = detail::summarise(tpot[c]);
    cl.e2e = detail::summarise(e2e[c]);
    cl.queue_wait = detail::summarise(wait[c]);
    detail::judge_sla(cl, sla, stable);
  }
  res.requests_measured = measured;
  res.queue_mean = wait_sum / std::max(window, t_end - w0);
  res.all.name = "all";
  res.all.ttft = detail::summarise(all_ttft);
  res.all.tpot = detail::summarise(all_tpot);
  res.all.e2e = detail::summarise(all_e2e);
  res.all.queue_wait = detail::summarise(all_wait);
  res.itl = itl.summary();
  res.all.throughput_rps = res.throughput_rps;
  for (size_t c = 0; c < classes_.size(); ++c) {
    res.classes[c].throughput_rps = res.throughput_rps * static_cast<double>(e2e[c].size()) /
                                    std::max(1.0, static_cast<double>(measured));
  }
  detail::judge_all(res);
  return res;
}

}  // namespace sim_engine

using sim_engine::Engine;
using sim_engine::simulate_fleet;

Result<ServingResult> simulate(const StepTable& table, const ServingConfig& cfg,
                               const std::vector<RequestClass>& classes, const SimOptions& opt) {
  auto errs = detail::check_inputs(cfg, classes);
  if (!errs.empty()) return Error{errs.front()};
  if (opt.requests < 1)
    return Error{fmt::format("simulate: requests must be >= 1, got {}", opt.requests)};
  if (opt.warmup_requests < 0) {
    return Error{
        fmt::format("simulate: warmup_requests must be >= 0, got {}", opt.warmup_requests)};
  }
  if (opt.closed_loop_clients < 0) {
    return Error{
        fmt::format("simulate: closed_loop_clients must be >= 0, got {}", opt.closed_loop_clients)};
  }
  if (opt.replicas < 1)
    return Error{fmt::format("simulate: replicas must be >= 1, got {}", opt.replicas)};
  if (opt.finite_run && opt.warmup_requests > 0) {
    return Error{fmt::format(
        "simulate: a finite run measures every request: expected warmup_requests 0, got {}",
        opt.warmup_requests)};
  }
  if (opt.replicas > 1 && opt.closed_loop_clients > 0)
    return Error{"simulate: a fleet of replicas behind a dispatcher is simulated open loop only"};
  if (opt.warmup_requests + opt.requests > (int64_t{1} << 31) - 2)
    return Error{"simulate: at most 2^31 - 2 requests per run"};
  auto rates = detail::class_rates(classes, opt.total_qps);
  if (!rates) return rates.error();
  const double kv_tokens =
      cfg.kv_capacity_tokens > 0 ? cfg.kv_capacity_tokens : table.kv_capacity_tokens();
  const int64_t total_blocks = static_cast<int64_t>(std::floor(kv_tokens / cfg.kv_block_tokens));
  if (total_blocks < 2) {
    return Error{fmt::format(
        "KV cache holds {:.0f} tokens: fewer than two {}-token blocks, so no request fits",
        kv_tokens, cfg.kv_block_tokens)};
  }
  std::vector<LengthSampler> ps, os;
  std::vector<ArrivalSampler> as;
  for (size_t c = 0; c < classes.size(); ++c) {
    auto p = LengthSampler::create(classes[c].prompt_tokens);
    if (!p) return p.error();
    auto o = LengthSampler::create(classes[c].output_tokens);
    if (!o) return o.error();
    ps.push_back(std::move(*p));
    os.push_back(std::move(*o));
    if (opt.closed_loop_clients == 0) {
      auto a = ArrivalSampler::create(classes[c].arrival, (*rates)[c]);
      if (!a) return a.error();
      as.push_back(*a);
    }
  }
  if (opt.replicas > 1)
    return simulate_fleet(table, cfg, classes, opt, ps, os, as, *rates, total_blocks);
  Engine e(table, cfg, classes, opt, std::move(ps), std::move(os), std::move(as), *rates,
           total_blocks);
  return e.run();
}

Result<ServingResult> simulate(const StepModel& m, const ServingConfig& cfg,
                               const std::vector<RequestClass>& classes, const SimOptions& opt) {
  auto errs = detail::check_inputs(cfg, classes);
  if (!errs.empty()) return Error{errs.front()};
  // The longest context: a high quantile of prompt + output, bounded by the engine's limits.
  double max_ctx = 1;
  for (const auto& c : classes) {
    auto p = quantile(c.prompt_tokens, 99.99);
    auto o = quantile(c.output_tokens, 99.99);
    if (!p) return p.error();
    if (!o) return o.error();
    max_ctx = std::max(max_ctx, *p + *o + 1);
  }
  if (cfg.max_context_tokens > 0)
    max_ctx = std::min(max_ctx, static_cast<double>(cfg.max_context_tokens));
  auto table = StepTable::build(m, cfg, max_ctx);
  if (!table) return table.error();
  return simulate(*table, cfg, classes, opt);
}

}  // namespace infercap
