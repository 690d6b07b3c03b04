// The evaluation memo (infercap/eval_memo.hpp): keys that hold every input a memoised
// computation reads, bit for bit, and three tables behind one mutex.
#include "infercap/eval_memo.hpp"

#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "solver_internal.hpp"

namespace infercap {

struct EvalMemo::Impl {
  mutable std::mutex mu;
  std::unordered_map<std::string, std::shared_ptr<const Result<plan_detail::Engine>>> engines;
  std::unordered_map<std::string, Result<MaxQps>> max_qps;
  std::unordered_map<std::string, Result<ServingResult>> analyses;
  int64_t hits = 0;
  int64_t misses = 0;
};

EvalMemo::EvalMemo() : impl_(std::make_unique<Impl>()) {}
EvalMemo::~EvalMemo() = default;

EvalMemo::Stats EvalMemo::stats() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return {impl_->hits, impl_->misses};
}

namespace plan_detail {

namespace {

// A byte string of the inputs: doubles by their bits (so -0 and 0, or two NaNs, never meet),
// strings with their length, so no two different input lists write the same key.
class Key {
 public:
  explicit Key(char tag) { s_.push_back(tag); }
  Key& num(double v) {
    char b[sizeof v];
    std::memcpy(b, &v, sizeof v);
    s_.append(b, sizeof v);
    return *this;
  }
  Key& num(int64_t v) {
    char b[sizeof v];
    std::memcpy(b, &v, sizeof v);
    s_.append(b, sizeof v);
    return *this;
  }
  Key& num(int v) { return num(static_cast<int64_t>(v)); }
  Key& str(const std::string& v) {
    num(static_cast<int64_t>(v.size()));
    s_ += v;
    return *this;
  }
  Key& byte(unsigned v) {
    s_.push_back(static_cast<char>(v));
    return *this;
  }
  std::string take() { return std::move(s_); }

 private:
  std::string s_;
};

// Every field is listed: a field added to these structs must be added here, or two inputs that
// differ in it would share an answer. The sizes below trip when one is added (LP64 layouts).
static_assert(sizeof(void*) != 8 || sizeof(LengthDist) == 96,
              "LengthDist changed: add the new field to the memo key (eval_memo.cpp)");
static_assert(sizeof(void*) != 8 || sizeof(ServingConfig) == 48,
              "ServingConfig changed: add the new field to the memo key (eval_memo.cpp)");
static_assert(sizeof(void*) != 8 || sizeof(Sla) == 48,
              "Sla changed: add the new field to the memo key (eval_memo.cpp)");
static_assert(sizeof(void*) != 8 || sizeof(ArrivalProcess) == 16,
              "ArrivalProcess changed: add the new field to the memo key (eval_memo.cpp)");
static_assert(sizeof(void*) != 8 || sizeof(RequestClass) == 368,
              "RequestClass changed: add the new field to the memo key (eval_memo.cpp)");

void put(Key& k, const CandidateId& id) {
  k.str(id.model).str(id.hardware).str(id.stack).str(id.precision).str(id.kv_name);
  k.byte(static_cast<unsigned>(id.dtypes.weights))
      .byte(static_cast<unsigned>(id.dtypes.activations))
      .byte(static_cast<unsigned>(id.dtypes.kv));
  k.num(id.tp).num(id.max_seqs);
}

void put(Key& k, const ServingConfig& c) {
  k.num(c.max_seqs).num(c.max_batched_tokens).byte(static_cast<unsigned>(c.prompt_schedule));
  k.byte(c.reserve_full_sequence ? 1 : 0).byte(c.schedule_one_step_ahead ? 1 : 0);
  k.num(c.request_poll_decode_steps).num(c.prompt_wait_steps).num(c.prompt_wait_tokens);
  k.num(c.kv_block_tokens).num(c.kv_capacity_tokens).num(c.max_context_tokens);
}

void put(Key& k, const LengthDist& d) {
  k.byte(static_cast<unsigned>(d.kind)).num(d.value_tokens).num(d.min_tokens).num(d.max_tokens);
  k.num(d.mu).num(d.sigma);
  k.num(static_cast<int64_t>(d.bin_tokens.size()));
  for (double x : d.bin_tokens) k.num(x);
  k.num(static_cast<int64_t>(d.bin_weights.size()));
  for (double x : d.bin_weights) k.num(x);
}

void put(Key& k, const SlaTarget& t) {
  k.num(t.limit_s).num(t.percentile);
}

// The classes as the analytic model reads them: each class's share of the design load, computed
// as the model computes it (design rate / the sum of design rates, summed in class order), in
// place of the rates themselves. False when a class is invalid: the model's error message
// quotes the rates, so such inputs are never memoised.
bool put_classes(Key& k, const std::vector<RequestClass>& classes) {
  double sum = 0;
  for (const auto& c : classes) {
    if (!validate(c).empty()) return false;
    sum += design_qps(c.rate);
  }
  if (!(sum > 0)) return false;
  k.num(static_cast<int64_t>(classes.size()));
  for (const auto& c : classes) {
    k.str(c.name).str(c.model).num(design_qps(c.rate) / sum);
    k.byte(static_cast<unsigned>(c.arrival.kind)).num(c.arrival.scv);
    put(k, c.prompt_tokens);
    put(k, c.output_tokens);
    put(k, c.sla.ttft);
    put(k, c.sla.tpot);
    put(k, c.sla.e2e);
    k.num(c.priority);
  }
  return true;
}

// Finds `key` in `table` or computes it outside the lock and keeps the first value stored.
template <class V, class F>
V lookup(EvalMemo* memo, std::unordered_map<std::string, V> EvalMemo::Impl::*table, std::string key,
         F compute) {
  EvalMemo::Impl& m = memo->impl();
  {
    std::lock_guard<std::mutex> lock(m.mu);
    auto it = (m.*table).find(key);
    if (it != (m.*table).end()) {
      ++m.hits;
      return it->second;
    }
    ++m.misses;
  }
  V v = compute();
  std::lock_guard<std::mutex> lock(m.mu);
  return (m.*table).emplace(std::move(key), std::move(v)).first->second;
}

}  // namespace

CandidateId candidate_id(const ModelSpec& model, const HardwareSpec& hw, const StackSpec& stack,
                         const PrecisionChoice& prec, int tp, int max_seqs) {
  return {model.name, hw.name, stack.name, prec.name, prec.kv_name, prec.precision, tp, max_seqs};
}

std::shared_ptr<const Result<Engine>> engine_for(EvalMemo* memo, const PlanInputs& in,
                                                 const ModelSpec& model, const HardwareSpec& hw,
                                                 const StackSpec& stack,
                                                 const PrecisionChoice& prec, int tp, int max_seqs,
                                                 double longest) {
  auto make = [&] {
    return std::make_shared<const Result<Engine>>(
        make_engine(in, model, hw, stack, prec, tp, max_seqs, longest));
  };
  if (memo == nullptr) return make();
  Key k('E');
  put(k, candidate_id(model, hw, stack, prec, tp, max_seqs));
  put(k, in.serving);
  k.num(longest);
  return lookup(memo, &EvalMemo::Impl::engines, k.take(), make);
}

Result<MaxQps> max_qps_for(EvalMemo* memo, const CandidateId& id, const StepModel& step,
                           const ServingConfig& cfg, const std::vector<RequestClass>& classes,
                           double rel_tol) {
  auto compute = [&] { return max_qps_within_sla(step, cfg, classes, rel_tol); };
  if (memo == nullptr) return compute();
  Key k('Q');
  put(k, id);
  put(k, cfg);
  if (!put_classes(k, classes)) return compute();
  k.num(rel_tol);
  return lookup(memo, &EvalMemo::Impl::max_qps, k.take(), compute);
}

Result<ServingResult> analyze_for(EvalMemo* memo, const CandidateId& id, const StepModel& step,
                                  const ServingConfig& cfg,
                                  const std::vector<RequestClass>& classes, double total_qps) {
  auto compute = [&] { return analyze(step, cfg, classes, total_qps); };
  // total_qps 0 means "the classes' own rates": then the rates themselves are read.
  if (memo == nullptr || !(total_qps > 0)) return compute();
  Key k('A');
  put(k, id);
  put(k, cfg);
  if (!put_classes(k, classes)) return compute();
  k.num(total_qps);
  return lookup(memo, &EvalMemo::Impl::analyses, k.take(), compute);
}

}  // namespace plan_detail
}  // namespace infercap
