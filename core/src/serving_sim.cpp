// Discrete-event simulator of continuous batching (vLLM-like). One engine step at a time; the
// work per step is O(1) plus the requests that start, finish, or are preempted in it, so a step
// with 256 decodes costs the same as one with 1. docs/serving.md states the scheduler's rules.
#include <algorithm>
#include <cmath>
#include <limits>
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
         std::vector<double> weights, int64_t total_blocks)
      : table_(table),
        cfg_(cfg),
        classes_(classes),
        opt_(opt),
        prompt_s_(std::move(prompt_s)),
        output_s_(std::move(output_s)),
        arrival_s_(std::move(arrival_s)),
        weights_(std::move(weights)),
        rng_(opt.seed),
        n_total_(opt.warmup_requests + opt.requests),
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

 private:
  // --- requests ---
  int32_t new_request(int32_t cls, double t, bool queue_now = true) {
    const int32_t id = static_cast<int32_t>(created_++);
    Req& r = reqs_[static_cast<size_t>(id)];
    r.arrival = t;
    r.cls = cls;
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
    if (id == opt_.warmup_requests) {
      window_start_ = t;
      in_system_at_start_ = created_ - finished_;
    }
    if (created_ == n_total_) {
      window_end_ = t;
      in_system_at_end_ = created_ - finished_;
    }
    if (id >= opt_.warmup_requests) arrivals_in_window_++;
    return id;
  }

  int32_t pick_class() {
    if (cum_weight_.size() == 1) return 0;
    const double u = rng_.uniform();
    const auto it = std::lower_bound(cum_weight_.begin(), cum_weight_.end(), u);
    return static_cast<int32_t>(std::min<std::ptrdiff_t>(
        it - cum_weight_.begin(), static_cast<std::ptrdiff_t>(cum_weight_.size()) - 1));
  }

  // Open loop: earliest pending arrival over the classes.
  double next_arrival_time(int32_t& cls) const {
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
    const bool measured = id >= opt_.warmup_requests;
    if (measured) {
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

  const StepTable& table_;
  const ServingConfig& cfg_;
  const std::vector<RequestClass>& classes_;
  const SimOptions& opt_;
  std::vector<LengthSampler> prompt_s_, output_s_;
  std::vector<ArrivalSampler> arrival_s_;
  std::vector<double> weights_, cum_weight_;
  Rng rng_;
  int64_t n_total_;
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
  int64_t arrivals_in_window_ = 0, completed_in_window_ = 0;
  double out_tokens_in_window_ = 0, in_tokens_in_window_ = 0;
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
};

ServingResult Engine::run() {
  closed_ = opt_.closed_loop_clients > 0;
  round_trip_ = closed_ && opt_.closed_loop_round_trip;
  double t = 0;
  // Index of the next step in which decodes run. Decoder bookkeeping (finish step, block phase)
  // counts these steps only, so prefill-only steps (chunking off) do not advance decoders.
  int64_t dstep = 0;
  bool aborted = false;
  if (closed_) {
    const int64_t n0 = std::min<int64_t>(opt_.closed_loop_clients, n_total_);
    for (int64_t i = 0; i < n0; ++i) new_request(pick_class(), 0);
  } else {
    next_arrival_.resize(classes_.size());
    for (size_t c = 0; c < classes_.size(); ++c) next_arrival_[c] = arrival_s_[c].next_gap_s(rng_);
  }
  const int64_t budget0 = cfg_.max_batched_tokens;

  while (finished_ < n_total_) {
    admit_arrivals_until(t);
    if (running_ == 0 && waiting_.empty()) deliver_in_transit();  // an idle engine waits for them
    if (running_ == 0 && waiting_.empty()) {
      int32_t c = 0;
      const double at = closed_ ? std::numeric_limits<double>::infinity() : next_arrival_time(c);
      if (!std::isfinite(at)) break;  // nothing left to do
      t = at;
      admit_arrivals_until(t);
    }
    if (static_cast<int64_t>(waiting_.size()) > max_waiting_) {
      aborted = true;
      break;
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
        continue;
      }
      // Nothing runs and the head cannot be admitted: cannot happen after length clipping.
      aborted = true;
      break;
    }

    // ---- run it ----
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

  // ---- results ----
  ServingResult res;
  // The measurement window [w0, w1): first measured arrival to last arrival; or [w0, end of the
  // run], closed, when it is open-ended: a run of N requests queued at once is measured as its
  // benchmark measures it (trtllm-bench, MLPerf Offline), N over the makespan, the requests that
  // finish in the last step included.
  const bool open_end = window_open_ended();
  const double w0 = std::max(0.0, window_start_);
  const double w1 = open_end ? t : window_end_;
  const double window = std::max(w1 - w0, 1e-300);
  res.simulated_s = window;
  res.requests_measured = 0;
  res.preemptions = preemptions_;
  res.utilisation = std::min(1.0, busy_ / window);
  res.mean_batch = busy_ > 0 ? batch_time_ / busy_ : 0;
  res.kv_occupancy_mean = kv_time_ / window;
  res.kv_occupancy_max = kv_max_;
  res.queue_max = queue_max_;
  // Completions inside the window, counted once the window is known.
  for (const Req& r : reqs_) {
    if (r.finished_at >= w0 && (r.finished_at < w1 || (open_end && r.finished_at <= w1))) {
      ++completed_in_window_;
      out_tokens_in_window_ += static_cast<double>(r.output);
      in_tokens_in_window_ += static_cast<double>(r.prompt);
    }
  }
  res.throughput_rps = static_cast<double>(completed_in_window_) / window;
  res.output_tokens_per_s = out_tokens_in_window_ / window;
  res.input_tokens_per_s = in_tokens_in_window_ / window;
  res.offered_qps =
      closed_ ? res.throughput_rps : static_cast<double>(arrivals_in_window_) / window;
  // Stability: the number in system grew by less than 5% of the window's arrivals (plus 50
  // requests of slack for noise), and the run was not cut short by the waiting-queue cap.
  bool stable = !aborted;
  if (!closed_ && stable) {
    const double growth = static_cast<double>(in_system_at_end_ - in_system_at_start_);
    stable = growth <= 0.05 * static_cast<double>(arrivals_in_window_) + 50;
  }
  res.stable = stable;
  if (aborted) {
    res.note = fmt::format("unstable: more than {} requests waiting", max_waiting_);
  } else if (!stable) {
    res.note = "unstable: the number of requests in the system kept growing";
  }
  int64_t measured = 0;
  res.classes.resize(classes_.size());
  std::vector<double> all_ttft, all_tpot, all_e2e, all_wait;
  for (size_t c = 0; c < classes_.size(); ++c) {
    ClassLatency& cl = res.classes[c];
    cl.name = classes_[c].name;
    const Sla& sla = classes_[c].sla;
    measured += static_cast<int64_t>(e2e_[c].size());
    all_ttft.insert(all_ttft.end(), ttft_[c].begin(), ttft_[c].end());
    all_tpot.insert(all_tpot.end(), tpot_[c].begin(), tpot_[c].end());
    all_e2e.insert(all_e2e.end(), e2e_[c].begin(), e2e_[c].end());
    all_wait.insert(all_wait.end(), wait_[c].begin(), wait_[c].end());
    if (sla.ttft.set()) cl.ttft_at_sla_s = detail::percentile_of(ttft_[c], sla.ttft.percentile);
    if (sla.tpot.set()) cl.tpot_at_sla_s = detail::percentile_of(tpot_[c], sla.tpot.percentile);
    if (sla.e2e.set()) cl.e2e_at_sla_s = detail::percentile_of(e2e_[c], sla.e2e.percentile);
    cl.ttft = detail::summarise(ttft_[c]);
    cl.tpot = detail::summarise(tpot_[c]);
    cl.e2e = detail::summarise(e2e_[c]);
    cl.queue_wait = detail::summarise(wait_[c]);
    detail::judge_sla(cl, sla, stable);
  }
  res.requests_measured = measured;
  res.queue_mean = wait_sum_ / std::max(window, t - w0);
  res.all.name = "all";
  res.all.ttft = detail::summarise(all_ttft);
  res.all.tpot = detail::summarise(all_tpot);
  res.all.e2e = detail::summarise(all_e2e);
  res.all.queue_wait = detail::summarise(all_wait);
  res.itl = itl_.summary();
  res.all.throughput_rps = res.throughput_rps;
  for (size_t c = 0; c < classes_.size(); ++c) {
    res.classes[c].throughput_rps = res.throughput_rps * static_cast<double>(e2e_[c].size()) /
                                    std::max(1.0, static_cast<double>(measured));
  }
  detail::judge_all(res);
  return res;
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
