#include "thread_team.hpp"

#include <immintrin.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>

namespace infercap::calibration::cpu {

namespace {
struct Topo {
  hwloc_topology_t t = nullptr;
  Topo() {
    hwloc_topology_init(&t);
    hwloc_topology_load(t);
  }
  ~Topo() { hwloc_topology_destroy(t); }
};

inline void cpu_relax() {
  _mm_pause();
}
}  // namespace

hwloc_topology_t topology() {
  static Topo topo;
  return topo.t;
}

std::vector<unsigned> pick_pus(int threads, int numa_node) {
  hwloc_topology_t t = topology();
  hwloc_obj_t root = hwloc_get_root_obj(t);
  if (numa_node >= 0) {
    hwloc_obj_t node =
        hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(numa_node));
    if (node != nullptr) {
      // The node's cpuset as a root: the smallest object covering it.
      root = hwloc_get_obj_covering_cpuset(t, node->cpuset);
      if (root == nullptr) root = hwloc_get_root_obj(t);
    }
  }
  const int ncores = hwloc_get_nbobjs_inside_cpuset_by_type(t, root->cpuset, HWLOC_OBJ_CORE);
  std::vector<unsigned> out;
  if (ncores <= 0) {
    for (int i = 0; i < threads; ++i) out.push_back(0);
    return out;
  }
  // Fewer threads than cores: spread them over the topology (packages, NUMA nodes, caches)
  // with hwloc_distrib, so n threads get the memory paths n spread cores have, not those of
  // n neighbours. More threads than cores wrap around, one per core each round.
  const int n = std::min(threads, ncores);
  // hwloc_distrib allocates every output set itself (hwloc_bitmap_dup into each slot): slots
  // allocated beforehand were overwritten and leaked, one per thread (LeakSanitizer). The slots
  // start empty and what it returns is owned here, freed on every path out.
  struct BitmapFree {
    void operator()(hwloc_bitmap_t b) const { hwloc_bitmap_free(b); }
  };
  std::vector<hwloc_cpuset_t> sets(static_cast<size_t>(n), nullptr);
  hwloc_distrib(t, &root, 1, sets.data(), static_cast<unsigned>(n),
                hwloc_get_type_depth(t, HWLOC_OBJ_CORE), 0);
  std::vector<std::unique_ptr<hwloc_bitmap_s, BitmapFree>> owned;
  owned.reserve(sets.size());
  for (auto& c : sets) {
    if (c == nullptr) c = hwloc_bitmap_dup(root->cpuset);  // not filled: the whole root
    owned.emplace_back(c);
  }
  std::vector<unsigned> pus;
  for (auto& c : sets) {
    // Each set holds at least one core: take the first PU of its first core.
    hwloc_obj_t core = hwloc_get_next_obj_inside_cpuset_by_type(t, c, HWLOC_OBJ_CORE, nullptr);
    const int pu = hwloc_bitmap_first(core != nullptr ? core->cpuset : c);
    pus.push_back(static_cast<unsigned>(pu < 0 ? 0 : pu));
  }
  // Two threads on one PU would make every fork/join wait a scheduler slice: never allow it.
  std::vector<unsigned> sorted = pus;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    pus.clear();
    for (int c = 0; c < n; ++c) {
      hwloc_obj_t core = hwloc_get_obj_inside_cpuset_by_type(t, root->cpuset, HWLOC_OBJ_CORE,
                                                             static_cast<unsigned>(c));
      pus.push_back(static_cast<unsigned>(std::max(0, hwloc_bitmap_first(core->cpuset))));
    }
  }
  for (int i = 0; i < threads; ++i) out.push_back(pus[static_cast<size_t>(i) % pus.size()]);
  return out;
}

namespace {
void bind_current_thread(unsigned pu) {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  hwloc_bitmap_only(set, pu);
  hwloc_set_cpubind(topology(), set, HWLOC_CPUBIND_THREAD);
  hwloc_bitmap_free(set);
}
}  // namespace

ThreadTeam::ThreadTeam(int threads, int numa_node, bool pin) : n_(threads < 1 ? 1 : threads) {
  const std::vector<unsigned> pus = pick_pus(n_, numa_node);
  if (pin) {
    saved_binding_ = hwloc_bitmap_alloc();
    if (hwloc_get_cpubind(topology(), saved_binding_, HWLOC_CPUBIND_THREAD) != 0) {
      hwloc_bitmap_free(saved_binding_);
      saved_binding_ = nullptr;
    }
    bind_current_thread(pus[0]);
  }
  for (int i = 1; i < n_; ++i) {
    workers_.emplace_back([this, i, pin, pu = pus[static_cast<size_t>(i)]] {
      if (pin) bind_current_thread(pu);
      worker(i);
    });
  }
}

ThreadTeam::~ThreadTeam() {
  stop_.store(true);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  for (auto& w : workers_) w.join();
  if (saved_binding_ != nullptr) {
    hwloc_set_cpubind(topology(), saved_binding_, HWLOC_CPUBIND_THREAD);
    hwloc_bitmap_free(saved_binding_);
  }
}

void ThreadTeam::worker(int tid) {
  unsigned seen = 0;
  for (;;) {
    // Spin briefly (a calibration issues runs back to back), then sleep in the kernel so an idle
    // team costs nothing on a shared machine.
    unsigned g = generation_.load(std::memory_order_acquire);
    for (int spins = 0; g == seen && spins < 200000; ++spins) {
      cpu_relax();
      g = generation_.load(std::memory_order_acquire);
    }
    while (g == seen) {
      generation_.wait(seen, std::memory_order_acquire);
      g = generation_.load(std::memory_order_acquire);
    }
    seen = g;
    if (stop_.load()) return;
    (*fn_)(tid, n_);
    done_.fetch_add(1, std::memory_order_acq_rel);
  }
}

void ThreadTeam::run(const Fn& fn) {
  if (n_ == 1) {
    fn(0, 1);
    return;
  }
  fn_ = &fn;
  done_.store(0, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  fn(0, n_);
  while (done_.load(std::memory_order_acquire) != n_ - 1) cpu_relax();
}

void ThreadTeam::barrier() {
  if (n_ == 1) return;
  const unsigned sense = barrier_sense_.load(std::memory_order_acquire);
  if (barrier_count_.fetch_add(1, std::memory_order_acq_rel) == n_ - 1) {
    barrier_count_.store(0, std::memory_order_relaxed);
    barrier_sense_.store(sense + 1, std::memory_order_release);
  } else {
    while (barrier_sense_.load(std::memory_order_acquire) == sense) cpu_relax();
  }
}

Buffer::Buffer(std::size_t bytes, int numa_node) : bytes_(bytes) {
  const std::size_t rounded = (bytes + 63) / 64 * 64;
  if (numa_node >= 0) {
    hwloc_obj_t node =
        hwloc_get_obj_by_type(topology(), HWLOC_OBJ_NUMANODE, static_cast<unsigned>(numa_node));
    if (node != nullptr) {
      p_ = hwloc_alloc_membind(topology(), rounded, node->nodeset, HWLOC_MEMBIND_BIND,
                               HWLOC_MEMBIND_BYNODESET);
      hwloc_ = p_ != nullptr;
    }
  }
  if (p_ == nullptr) p_ = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
  if (p_ == nullptr) throw std::bad_alloc();
}

void Buffer::release() {
  if (p_ == nullptr) return;
  if (hwloc_) {
    hwloc_free(topology(), p_, (bytes_ + 63) / 64 * 64);
  } else {
    std::free(p_);
  }
  p_ = nullptr;
}

Buffer::~Buffer() {
  release();
}
Buffer::Buffer(Buffer&& o) noexcept : p_(o.p_), bytes_(o.bytes_), hwloc_(o.hwloc_) {
  o.p_ = nullptr;
}
Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    release();
    p_ = o.p_;
    bytes_ = o.bytes_;
    hwloc_ = o.hwloc_;
    o.p_ = nullptr;
  }
  return *this;
}

}  // namespace infercap::calibration::cpu
