#pragma once
// A persistent team of threads pinned one per physical core (hwloc), with a fork/join `run` and
// an in-region barrier. Calibration kernels run inside it so thread start-up never pollutes a
// timing; the fork/join kernel measures what one `run` costs.
#include <hwloc.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace infercap::calibration::cpu {

/// The machine's hwloc topology, loaded once.
hwloc_topology_t topology();

/// PU os-indices to pin `threads` threads to: one PU per physical core of `numa_node` (all nodes
/// when -1), spread over the topology by hwloc_distrib when there are fewer threads than cores;
/// more threads than cores wrap around.
std::vector<unsigned> pick_pus(int threads, int numa_node);

class ThreadTeam {
 public:
  using Fn = std::function<void(int tid, int nthreads)>;
  /// Starts threads-1 workers; the calling thread is member 0 and is pinned while the team lives
  /// (its previous binding is restored on destruction). `pin` false leaves placement to the OS.
  ThreadTeam(int threads, int numa_node, bool pin = true);
  ~ThreadTeam();
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;

  int size() const { return n_; }
  /// Runs fn(tid, n) on every member and returns when all have finished.
  void run(const Fn& fn);
  /// Inside `run` only: waits until every member has arrived.
  void barrier();

 private:
  void worker(int tid);
  int n_;
  std::vector<std::thread> workers_;
  const Fn* fn_ = nullptr;
  alignas(64) std::atomic<unsigned> generation_{0};
  alignas(64) std::atomic<int> done_{0};
  alignas(64) std::atomic<int> barrier_count_{0};
  alignas(64) std::atomic<unsigned> barrier_sense_{0};
  std::atomic<bool> stop_{false};
  hwloc_bitmap_t saved_binding_ = nullptr;
};

/// Memory for a kernel: 64-byte aligned; bound to `numa_node` when >= 0 (hwloc), otherwise
/// placed by first touch. Not zeroed.
class Buffer {
 public:
  Buffer() = default;
  Buffer(std::size_t bytes, int numa_node);
  ~Buffer();
  Buffer(Buffer&& o) noexcept;
  Buffer& operator=(Buffer&& o) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void release();
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
  bool hwloc_ = false;
};

/// Splits [0, total) in `parts` ranges aligned to `grain`; returns [begin, end) of part `i`.
inline std::pair<long, long> split_range(long total, int parts, int i, long grain = 1) {
  const long units = (total + grain - 1) / grain;
  const long per = units / parts, rem = units % parts;
  const long b = per * i + (i < rem ? i : rem);
  const long e = b + per + (i < rem ? 1 : 0);
  return {std::min(total, b * grain), std::min(total, e * grain)};
}

}  // namespace infercap::calibration::cpu
