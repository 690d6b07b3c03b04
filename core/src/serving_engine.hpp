#pragma once
// The simulator's engine: one replica of continuous batching, stepped by its own loop
// (Engine::run) or by a fleet's dispatcher (simulate_fleet). Shared by serving_sim.cpp (the
// engine's loop and results, simulate()) and serving_fleet.cpp (replicas behind a dispatcher).
// Not public.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <queue>
#include <vector>

#include "infercap/serving.hpp"
#include "serving_internal.hpp"

namespace infercap::sim_engine {

enum class St : unsigned char { waiting, prefilling, decoding, done };

struct Req {
  double arrival = 0;
  double admitted = -1;     // first time scheduled
  double first_token = -1;  // end of the step that produced token 1
  double finished_at = -1;
  int64_t prompt = 0;
  int64_t output = 0;
  int64_t generated = 0;
  int64_t total = 0;             // tokens to (re)compute in prefill: prompt + generated (recompute)
  int64_t done = 0;              // prefill tokens computed so far
  int64_t k0 = 0;                // decoding: index of its first decode step
  int32_t prev = -1, next = -1;  // running list, admission order
  uint32_t version = 0;
  int32_t phase = 0;     // decoding: step index mod block at which it needs a new block
  int64_t reserved = 0;  // reserve_full_sequence: blocks held from admission to finish
  int32_t cls = 0;
  St st = St::waiting;
  bool measured = false;  // past the warm-up: its latencies count
};

struct HeapEntry {
  int64_t step;
  int32_t id;
  uint32_t version;
  bool operator>(const HeapEntry& o) const { return step != o.step ? step > o.step : id > o.id; }
};

// A ring buffer deque of request ids with room for every request: no allocation while running.
class IdDeque {
 public:
  explicit IdDeque(size_t cap) : buf_(cap + 1) {}
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  int32_t front() const { return buf_[head_]; }
  /// The i-th id from the front, i < size().
  int32_t at(size_t i) const {
    const size_t k = head_ + i;
    return buf_[k >= buf_.size() ? k - buf_.size() : k];
  }
  void pop_front() {
    head_ = head_ + 1 == buf_.size() ? 0 : head_ + 1;
    --size_;
  }
  void push_back(int32_t v) {
    size_t tail = head_ + size_;
    if (tail >= buf_.size()) tail -= buf_.size();
    buf_[tail] = v;
    ++size_;
  }
  void push_front(int32_t v) {
    head_ = head_ == 0 ? buf_.size() - 1 : head_ - 1;
    buf_[head_] = v;
    ++size_;
  }

 private:
  std::vector<int32_t> buf_;
  size_t head_ = 0, size_ = 0;
};

inline int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// Weighted samples in log-spaced bins of 0.2% from 1 ns to 1e4 s (outside: the end bins), each
// bin keeping its weight and weighted sum so it reports the mean of what fell in it (exact when
// they were all equal, within 0.2% otherwise). Memory is fixed whatever the number of steps.
class GapHistogram {
 public:
  GapHistogram() : w_(kBins, 0.0), wx_(kBins, 0.0) {}
  void add(double x, double weight) {
    if (!(weight > 0) || !std::isfinite(x)) return;
    const double pos = std::log(std::max(x, kLo) / kLo) / kLogRatio;
    const auto i = static_cast<size_t>(std::clamp(pos, 0.0, static_cast<double>(kBins - 1)));
    w_[i] += weight;
    wx_[i] += weight * x;
    total_w_ += weight;
    total_wx_ += weight * x;
  }
  // Nearest rank, as detail::percentile_of: the bin holding the ceil(p/100 * W)-th unit of weight.
  double percentile(double p) const {
    const double target = std::max(p / 100 * total_w_, std::numeric_limits<double>::min());
    double acc = 0;
    for (size_t i = 0; i < kBins; ++i) {
      acc += w_[i];
      if (w_[i] > 0 && acc >= target * (1 - 1e-12)) return wx_[i] / w_[i];
    }
    return 0;
  }
  void merge(const GapHistogram& o) {
    for (size_t i = 0; i < kBins; ++i) {
      w_[i] += o.w_[i];
      wx_[i] += o.wx_[i];
    }
    total_w_ += o.total_w_;
    total_wx_ += o.total_wx_;
  }
  LatencySummary summary() const {
    LatencySummary s;
    if (!(total_w_ > 0)) return s;
    s.mean_s = total_wx_ / total_w_;
    s.p50_s = percentile(50);
    s.p90_s = percentile(90);
    s.p99_s = percentile(99);
    return s;
  }

 private:
  static constexpr double kLo = 1e-9;
  static constexpr size_t kBins = 15000;  // ln(1e13) / ln(1.002) = 14979
  static inline const double kLogRatio = std::log(1.002);
  std::vector<double> w_, wx_;
  double total_w_ = 0, total_wx_ = 0;
};

// Where the measurement window opens once the first measured request arrives at t: a finite run
// measures from t = 0 (SimOptions::finite_run), a steady-state run from that arrival. One rule
// for a lone engine and for a fleet's dispatcher.
inline double window_start_at(const SimOptions& opt, double t) {
  return opt.finite_run ? 0.0 : t;
}

class Engine {
 public:
  Engine(const StepTable& table, const ServingConfig& cfg, const std::vector<RequestClass>& classes,
         const SimOptions& opt, std::vector<LengthSampler> prompt_s,
         std::vector<LengthSampler> output_s, std::vector<ArrivalSampler> arrival_s,
         std::vector<double> weights, int64_t total_blocks, int64_t fed_capacity = 0)
      : table_(table),
        cfg_(cfg),
        classes_(classes),
        opt_(opt),
        prompt_s_(std::move(prompt_s)),
        output_s_(std::move(output_s)),
        arrival_s_(std::move(arrival_s)),
        weights_(std::move(weights)),
        rng_(opt.seed),
        n_total_(fed_capacity > 0 ? fed_capacity : opt.warmup_requests + opt.requests),
        fed_mode_(fed_capacity > 0),
        reqs_(static_cast<size_t>(n_total_)),
        waiting_(static_cast<size_t>(n_total_)),
        block_(cfg.kv_block_tokens),
        total_blocks_(total_blocks),
        free_blocks_(total_blocks),
        phase_count_(static_cast<size_t>(cfg.kv_block_tokens), 0),
        reserve_(cfg.reserve_full_sequence) {
    prefilling_.reserve(static_cast<size_t>(cfg.max_seqs));
    step_prefills_.reserve(static_cast<size_t>(cfg.max_seqs));
    in_transit_.reserve(static_cast<size_t>(std::max(0, opt.closed_loop_clients)));
    std::vector<HeapEntry> storage;
    storage.reserve(static_cast<size_t>(cfg.max_seqs) * 2 + 16);
    heap_ = decltype(heap_)(std::greater<HeapEntry>(), std::move(storage));
    const size_t nc = classes.size();
    ttft_.resize(nc);
    tpot_.resize(nc);
    e2e_.resize(nc);
    wait_.resize(nc);
    for (size_t c = 0; c < nc; ++c) {
      const auto n = static_cast<size_t>(opt.requests / static_cast<int64_t>(nc) + 16);
      ttft_[c].reserve(n);
      tpot_[c].reserve(n);
      e2e_[c].reserve(n);
      wait_[c].reserve(n);
    }
    cum_weight_.resize(nc);
    double acc = 0, sum = 0;
    for (double w : weights_) sum += w;
    for (size_t c = 0; c < nc; ++c) {
      acc += weights_[c] / sum;
      cum_weight_[c] = acc;
    }
    cum_weight_.back() = 1;
    max_waiting_ =
        opt.max_waiting > 0 ? opt.max_waiting : 50 * static_cast<int64_t>(cfg.max_seqs) + 10000;
    if (opt.finite_run) max_waiting_ = std::max(max_waiting_, opt.requests + 1);
    max_len_ =
        cfg.max_context_tokens > 0 ? cfg.max_context_tokens : std::numeric_limits<int64_t>::max();
    watermark_ = total_blocks_ / 100;
    max_len_ = std::min(max_len_, (total_blocks_ - watermark_) * block_);
    // Without chunking a prompt must fit one step's budget: vLLM v0 bounds the whole sequence
    // by it (max_model_len <= max_num_batched_tokens), TensorRT-LLM only the prompt.
    if (cfg.prompt_schedule == PromptSchedule::whole_prompt_steps)
      max_len_ = std::min<int64_t>(max_len_, cfg.max_batched_tokens);
    max_prompt_ = cfg.prompt_schedule == PromptSchedule::whole_with_decodes
                      ? std::min<int64_t>(max_len_ - 1, cfg.max_batched_tokens)
                      : max_len_ - 1;
  }

  ServingResult run();

  // --- one engine of a fleet behind a dispatcher (simulate_fleet) ---
  enum class Status : unsigned char { ran, idle, stop };
  void begin();
  Status step();
  /// The result of the engines in `fleet` (this one among them) over the window the dispatcher
  /// set on all of them: throughputs add up, latency samples pool.
  /// `queued_growth`: requests a shared queue ahead of the engines gained over the window;
  /// `overflow`: the dispatcher gave up (the run is unstable).
  ServingResult result(const std::vector<Engine*>& fleet, int64_t queued_growth = 0,
                       bool overflow = false);
  double now() const { return t_; }
  bool has_work() const { return running_ > 0 || !waiting_.empty() || !fed_.empty(); }
  bool aborted() const { return aborted_; }
  /// Requests given to this engine and not finished: NVIDIA's harness's transactions in flight.
  int64_t load() const { return created_ + static_cast<int64_t>(fed_.size()) - finished_; }
  /// The same as of time `t`, which may fall inside the step the engine has already run (the
  /// fleet steps each engine ahead to its step's end): those that finish at that end still count.
  int64_t load_at(double t) const { return load() + (t < t_ ? finished_in_last_step_ : 0); }
  /// Free sequence slots: what TensorRT-LLM's batch manager asks its request callback for.
  int64_t free_slots() const {
    return std::max<int64_t>(0, cfg_.max_seqs - running_ - static_cast<int64_t>(waiting_.size()) -
                                    static_cast<int64_t>(fed_.size()));
  }
  /// Hands the engine a request that arrived at `t` (at or before its next step).
  bool feed(double t, int32_t cls, bool measured) {
    if (created_ + static_cast<int64_t>(fed_.size()) >= n_total_) return false;
    fed_.push_back(Fed{t, cls, measured});
    return true;
  }
  void mark_window_start(double t) {
    window_start_ = t;
    in_system_at_start_ = load_at(t);
  }
  void mark_window_end(double t) {
    window_end_ = t;
    in_system_at_end_ = load_at(t);
  }

 private:
  // --- requests ---
  // `measured` < 0: by its place in the run (past the warm-up); a fleet's dispatcher decides it.
  int32_t new_request(int32_t cls, double t, bool queue_now = true, int measured = -1) {
    const int32_t id = static_cast<int32_t>(created_++);
    Req& r = reqs_[static_cast<size_t>(id)];
    r.arrival = t;
    r.cls = cls;
    r.measured = measured < 0 ? id >= opt_.warmup_requests : measured > 0;
    r.prompt = std::min(prompt_s_[static_cast<size_t>(cls)](rng_), max_prompt_);
    r.output = std::min(output_s_[static_cast<size_t>(cls)](rng_), max_len_ - r.prompt);
    r.prompt = std::max<int64_t>(1, r.prompt);
    r.output = std::max<int64_t>(1, r.output);
    r.total = r.prompt;
    if (queue_now) {
      waiting_.push_back(id);
    } else {
      in_transit_.push_back(id);
    }
    if (!fed_mode_ && id == opt_.warmup_requests) {
      window_start_ = window_start_at(opt_, t);
      in_system_at_start_ = created_ - finished_;
    }
    if (!fed_mode_ && created_ == n_total_ && !opt_.finite_run) {
      window_end_ = t;
      in_system_at_end_ = created_ - finished_;
    }
    if (r.measured) arrivals_in_window_++;
    return id;
  }

  int32_t pick_class() {
    if (cum_weight_.size() == 1) return 0;
    const double u = rng_.uniform();
    const auto it = std::lower_bound(cum_weight_.begin(), cum_weight_.end(), u);
    return static_cast<int32_t>(std::min<std::ptrdiff_t>(
        it - cum_weight_.begin(), static_cast<std::ptrdiff_t>(cum_weight_.size()) - 1));
  }

  // Open loop: earliest pending arrival over the classes (in a fleet: the earliest handed over).
  double next_arrival_time(int32_t& cls) const {
    if (fed_mode_) {
      if (fed_.empty()) return std::numeric_limits<double>::infinity();
      cls = fed_.front().cls;
      return fed_.front().t;
    }
    double best = std::numeric_limits<double>::infinity();
    for (size_t c = 0; c < next_arrival_.size(); ++c) {
      if (next_arrival_[c] < best) {
        best = next_arrival_[c];
        cls = static_cast<int32_t>(c);
      }
    }
    return best;
  }

  void admit_arrivals_until(double t) {
    if (closed_) return;
    if (fed_mode_) {
      while (!fed_.empty() && fed_.front().t <= t) {
        const Fed f = fed_.front();
        fed_.pop_front();
        new_request(f.cls, f.t, true, f.measured ? 1 : 0);
      }
      return;
    }
    while (created_ < n_total_) {
      int32_t c = 0;
      const double at = next_arrival_time(c);
      if (at > t) break;
      new_request(c, at);
      next_arrival_[static_cast<size_t>(c)] =
          at + arrival_s_[static_cast<size_t>(c)].next_gap_s(rng_);
    }
  }

  // --- running list ---
  void list_push_back(int32_t id) {
    Req& r = reqs_[static_cast<size_t>(id)];
    r.prev = tail_;
    r.next = -1;
    if (tail_ >= 0) {
      reqs_[static_cast<size_t>(tail_)].next = id;
    } else {
      head_ = id;
    }
    tail_ = id;
    ++running_;
  }
  void list_remove(int32_t id) {
    Req& r = reqs_[static_cast<size_t>(id)];
    if (r.prev >= 0) {
      reqs_[static_cast<size_t>(r.prev)].next = r.next;
    } else {
      head_ = r.next;
    }
    if (r.next >= 0) {
      reqs_[static_cast<size_t>(r.next)].prev = r.prev;
    } else {
      tail_ = r.prev;
    }
    r.prev = r.next = -1;
    --running_;
  }

  // --- KV blocks ---
  /// Whole waiting prompts, in arrival order, into the step being scheduled while the budget,
  /// max_seqs and the blocks above the watermark hold each; the first that does not fit stops
  /// it. Adds each prompt's tokens and its tokens x mean context to the step's sums.
  void admit_whole_prompts(int64_t& budget, double t, double& tokens, double& ctx_weighted);
  /// Batch waiting (ServingConfig::prompt_wait_steps): whether this step, with `decodes`
  /// sequences decoding, holds the waiting prompts back; counts the held steps.
  bool hold_prompts(int decodes);
  // What admitting r takes: its prompt's blocks (vLLM: allocated on demand as tokens arrive), or
  // with reserve_full_sequence every block its prompt and remaining output will fill (TensorRT-LLM
  // GUARANTEED_NO_EVICT: a request is admitted only if it can run to its end without eviction).
  int64_t admission_blocks(const Req& r) const {
    return reserve_ ? ceil_div(r.total + (r.output - r.generated), block_)
                    : ceil_div(r.total, block_);
  }
  // Returns a reservation's blocks (reserve mode) and clears it.
  int64_t release(Req& r) {
    const int64_t b = r.reserved;
    r.reserved = 0;
    return b;
  }

  // --- decoders: O(1) aggregate bookkeeping ---
  // KV tokens stored by decoder r before step n: total + (n - k0).
  int64_t decoder_blocks(const Req& r, int64_t n) const {
    return ceil_div(r.total + (n - r.k0), block_);
  }
  void start_decoding(int32_t id, int64_t next_step) {
    Req& r = reqs_[static_cast<size_t>(id)];
    r.st = St::decoding;
    r.k0 = next_step;
    const int64_t ph = ((r.k0 - r.total) % block_ + block_) % block_;
    r.phase = static_cast<int32_t>(ph);
    // With the whole sequence reserved at admission a decoder never asks for a block.
    if (!reserve_) phase_count_[static_cast<size_t>(ph)]++;
    ++decoding_;
    dec_ctx_sum_ += static_cast<double>(r.total + 1);
    ++r.version;
    // Finishes in the step that produces token `output`: k0 + (output - generated) - 1.
    heap_.push(HeapEntry{r.k0 + (r.output - r.generated) - 1, id, r.version});
  }
  // Removes decoder `id` as seen before step n runs.
  void stop_decoding(int32_t id, int64_t n) {
    Req& r = reqs_[static_cast<size_t>(id)];
    if (!reserve_) phase_count_[static_cast<size_t>(r.phase)]--;
    --decoding_;
    dec_ctx_sum_ -= static_cast<double>(r.total + (n - r.k0) + 1);
    free_blocks_ += reserve_ ? release(r) : decoder_blocks(r, n);
    r.generated += n - r.k0;
    ++r.version;
  }

  void preempt_tail(int64_t n) {
    const int32_t id = tail_;
    Req& r = reqs_[static_cast<size_t>(id)];
    if (r.st == St::decoding) {
      stop_decoding(id, n);
    } else {  // prefilling
      free_blocks_ += reserve_ ? release(r) : ceil_div(r.done, block_);
      prefilling_.erase(std::find(prefilling_.begin(), prefilling_.end(), id));
    }
    list_remove(id);
    r.st = St::waiting;
    r.total = r.prompt + r.generated;  // recompute everything it had
    r.done = 0;
    waiting_.push_front(id);
    ++preemptions_;
  }

  void finish(int32_t id, double t) {
    Req& r = reqs_[static_cast<size_t>(id)];
    r.st = St::done;
    list_remove(id);
    ++finished_;
    ++finished_in_last_step_;
    if (r.measured) {
      const auto c = static_cast<size_t>(r.cls);
      ttft_[c].push_back(r.first_token - r.arrival);
      e2e_[c].push_back(t - r.arrival);
      wait_[c].push_back(r.admitted - r.arrival);
      if (r.output > 1) tpot_[c].push_back((t - r.first_token) / static_cast<double>(r.output - 1));
      wait_sum_ += r.admitted - r.arrival;
    }
    r.finished_at = t;
    // Closed loop: the client sends its next request at once; with a round trip it reaches the
    // engine after the next step has been scheduled (deliver_in_transit).
    if (closed_ && created_ < n_total_) new_request(pick_class(), t, !round_trip_);
  }

  // Closed loop with a round trip: requests sent at the end of the last step reach the queue
  // once the next step is scheduled, or at once when the engine has nothing else to run.
  // They reach the engine's inbox; a poll (take_in) moves them to the queue.
  void deliver_in_transit() {
    inbox_.insert(inbox_.end(), in_transit_.begin(), in_transit_.end());
    in_transit_.clear();
  }
  void take_in_inbox() {
    for (int32_t id : inbox_) waiting_.push_back(id);
    inbox_.clear();
  }

  // The window ends at the last arrival, unless that came no later than the first measured one
  // (every request queued at t = 0, as an offline run has them) or never came (a run cut short):
  // then it runs to the end of the simulation.
  bool window_open_ended() const { return !(window_end_ > window_start_); }
  bool in_window(double t) const {
    return window_start_ >= 0 && t >= window_start_ && (window_open_ended() || t < window_end_);
  }

  struct Fed {
    double t;
    int32_t cls;
    bool measured;
  };

  const StepTable& table_;
  const ServingConfig& cfg_;
  const std::vector<RequestClass>& classes_;
  const SimOptions& opt_;
  std::vector<LengthSampler> prompt_s_, output_s_;
  std::vector<ArrivalSampler> arrival_s_;
  std::vector<double> weights_, cum_weight_;
  Rng rng_;
  int64_t n_total_;  // requests of the run; in a fleet, the most this engine may be handed
  bool fed_mode_;    // arrivals come from a dispatcher (feed), not from this engine's samplers
  std::deque<Fed> fed_;
  std::vector<Req> reqs_;
  IdDeque waiting_;
  std::vector<int32_t> prefilling_;  // running requests still in prefill, admission order
  struct Chunk {
    int32_t id;
    int64_t tokens;
  };
  std::vector<Chunk> step_prefills_;
  std::priority_queue<HeapEntry, std::vector<HeapEntry>, std::greater<HeapEntry>> heap_;
  std::vector<double> next_arrival_;
  int64_t block_;
  int64_t total_blocks_, free_blocks_;
  std::vector<int64_t> phase_count_;
  int64_t max_len_ = 0;
  int64_t max_prompt_ = 0;  // longest prompt: max_len_ - 1, or one step's budget (see ctor)
  int64_t max_waiting_ = 0;
  int64_t watermark_ = 0;  // blocks kept free at admission (vLLM: 1% of the cache)
  bool closed_ = false;
  bool reserve_ = false;             // cfg.reserve_full_sequence
  bool round_trip_ = false;          // opt.closed_loop_round_trip
  std::vector<int32_t> in_transit_;  // closed loop: sent, not yet at the engine
  std::vector<int32_t> inbox_;       // closed loop: at the engine, not yet taken in (a poll)
  // Decode-only steps since the engine last took in requests (request_poll_decode_steps); a
  // step with prompt tokens sets it to the interval, so the next step takes them in.
  int64_t poll_count_ = 0;
  // Steps waiting prompts have been held out by batch waiting (ServingConfig::prompt_wait_steps).
  int64_t prompt_wait_count_ = 0;

  int32_t head_ = -1, tail_ = -1;
  int running_ = 0, decoding_ = 0;
  double dec_ctx_sum_ = 0;
  int64_t created_ = 0, finished_ = 0, preemptions_ = 0;

  double window_start_ = -1, window_end_ = -1;
  int64_t arrivals_in_window_ = 0;
  double busy_ = 0, batch_time_ = 0, kv_time_ = 0, kv_max_ = 0, queue_max_ = 0;
  double wait_sum_ = 0;
  int64_t in_system_at_start_ = 0, in_system_at_end_ = 0;
  std::vector<std::vector<double>> ttft_, tpot_, e2e_, wait_;
  GapHistogram itl_;
  // Without chunking, prefill-only steps hold the decoders back. Since the last decode step:
  // cohorts of decoders, oldest first, each with the prefill-only time it has waited (those
  // decoding before the first such step, then those each step started); the wait belongs to
  // their next gap. Preemption takes the newest, so surplus is trimmed from the back.
  struct Cohort {
    int count;
    double waited_s;
  };
  std::vector<Cohort> cohorts_;

  // Loop state between steps.
  double t_ = 0;
  double last_step_start_ = -1;  // when the step that ended at t_ started (-1: none yet)
  // Index of the next step in which decodes run. Decoder bookkeeping (finish step, block phase)
  // counts these steps only, so prefill-only steps (chunking off) do not advance decoders.
  int64_t dstep_ = 0;
  bool aborted_ = false;
  int64_t finished_in_last_step_ = 0;  // requests the last step finished (at its end, t_)
};

/// `opt.replicas` engines behind `opt.dispatch` at the total load (serving_fleet.cpp); `ps`, `os`
/// and `as` are the classes' samplers, `as` at the total rates.
ServingResult simulate_fleet(const StepTable& table, const ServingConfig& cfg,
                             const std::vector<RequestClass>& classes, const SimOptions& opt,
                             const std::vector<LengthSampler>& ps,
                             const std::vector<LengthSampler>& os,
                             const std::vector<ArrivalSampler>& as,
                             const std::vector<double>& rates, int64_t total_blocks);

}  // namespace infercap::sim_engine
