// Discrete-event simulator of continuous batching (vLLM-like). One engine step at a time; the
// work per step is O(1) plus the requests that start, finish, or are preempted in it, so a step
// with 256 decodes costs the same as one with 1. docs/serving.md states the scheduler's rules.
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <memory>
#include <queue>

#include <fmt/format.h>

#include "infercap/serving.hpp"
#include "serving_internal.hpp"

namespace infercap {

// ---------------------------------------------------------------------------------------------
// Simulator

namespace {

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
    max_len_ =
        cfg.max_context_tokens > 0 ? cfg.max_context_tokens : std::numeric_limits<int64_t>::max();
    watermark_ = total_blocks_ / 100;
    max_len_ = std::min(max_len_, (total_blocks_ - watermark_) * block_);
    if (!cfg.chunked_prefill) max_len_ = std::min<int64_t>(max_len_, cfg.max_batched_tokens);
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
    r.prompt = std::min(prompt_s_[static_cast<size_t>(cls)](rng_), max_len_ - 1);
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
      window_start_ = t;
      in_system_at_start_ = created_ - finished_;
    }
    if (!fed_mode_ && created_ == n_total_) {
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
  void deliver_in_transit() {
    for (int32_t id : in_transit_) waiting_.push_back(id);
    in_transit_.clear();
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
  int64_t max_waiting_ = 0;
  int64_t watermark_ = 0;  // blocks kept free at admission (vLLM: 1% of the cache)
  bool closed_ = false;
  bool reserve_ = false;             // cfg.reserve_full_sequence
  bool round_trip_ = false;          // opt.closed_loop_round_trip
  std::vector<int32_t> in_transit_;  // closed loop: sent, not yet at the engine

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
  // Index of the next step in which decodes run. Decoder bookkeeping (finish step, block phase)
  // counts these steps only, so prefill-only steps (chunking off) do not advance decoders.
  int64_t dstep_ = 0;
  bool aborted_ = false;
  int64_t finished_in_last_step_ = 0;  // requests the last step finished (at its end, t_)
};

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
    admit_arrivals_until(t);
    if (running_ == 0 && waiting_.empty()) deliver_in_transit();  // an idle engine waits for them
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
    if (!cfg_.chunked_prefill && !waiting_.empty()) {
      // vLLM v0 without chunking: a step of whole prompts, prioritised over decodes.
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
        if (r.admitted < 0) r.admitted = t;
        list_push_back(id);
        step_prefills_.push_back(Chunk{id, r.total});
        prefill_tokens += static_cast<double>(r.total);
        prefill_ctx_weighted += static_cast<double>(r.total) * static_cast<double>(r.total) / 2;
      }
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
      if (cfg_.chunked_prefill) {
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
        while (!preempted && budget > 0 && !waiting_.empty() && running_ < cfg_.max_seqs) {
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
      if (cfg_.chunked_prefill)
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
  const int64_t max_queue =
      opt.max_waiting > 0 ? opt.max_waiting : n * (50 * static_cast<int64_t>(cfg.max_seqs) + 10000);
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
        for (Engine* e : fleet) e->mark_window_start(a);
        queued_growth -= static_cast<int64_t>(queue.size());
      }
      if (created == total) {
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

}  // namespace

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
