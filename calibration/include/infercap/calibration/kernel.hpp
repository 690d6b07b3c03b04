#pragma once
// A calibration kernel: a small real workload whose bytes and FLOPs per call are known exactly,
// so a timing turns into an achieved rate. Backends (cpu/, later cuda/, opencl/) describe their
// kernels with KernelSpec; the harness (harness.hpp) prepares an instance for one Shape, checks
// it against a reference once, and times it.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "infercap/precision.hpp"
#include "infercap/result.hpp"

namespace infercap::calibration {

/// What a kernel measures; the fit (fit.hpp) picks rows by kind.
enum class KernelKind : unsigned char {
  stream_read,    ///< sum over an array: read bandwidth
  stream_copy,    ///< b[i] = a[i]
  stream_triad,   ///< a[i] = b[i] + s * c[i] (STREAM triad)
  gemv,           ///< decode-shaped matmul: M (batch) small, weights streamed once per call
  gemm,           ///< prefill-shaped matmul: M large, compute bound
  call_overhead,  ///< a tiny kernel: per-call cost of the backend
  fork_join,      ///< an empty parallel region: thread-team fork/join cost
};
inline constexpr int kKernelKindCount = 7;
std::string_view kernel_kind_name(KernelKind k);
std::optional<KernelKind> parse_kernel_kind(std::string_view s);

/// The point of a sweep one instance is prepared for. Stream kernels use `bytes` (the total
/// working set over all arrays); matmuls use m (rows of activations: batch or tokens), n (output
/// features) and k (input features): y[m x n] = x[m x k] * W^T, W stored n x k in `weights`.
struct Shape {
  int threads = 1;
  int numa_node = -1;  ///< -1: threads and memory spread over all nodes; else bound to this node
  double bytes = 0;
  int64_t m = 0, n = 0, k = 0;
};

/// Whether something can run here, and if not, why (shown to the user as is).
struct Availability {
  bool available = false;
  std::string reason;  ///< why not; or, when available, what was detected (e.g. "AVX-512 BF16")
  static Availability yes(std::string what = {}) { return {true, std::move(what)}; }
  static Availability no(std::string why) { return {false, std::move(why)}; }
};

/// Outcome of checking one instance against its scalar reference.
struct CheckResult {
  bool ok = false;
  /// max |y - ref| / (sum |w| |x|) over outputs for matmuls (the scale of a dot product's
  /// rounding error); max relative error for streams; 0 when exact.
  double error = 0;
  double tolerance = 0;
  std::string message;
};

/// One prepared problem: buffers allocated, first-touched by the threads that will use them,
/// inputs filled with reproducible pseudo-random values. `run` is the only timed part.
class KernelInstance {
 public:
  virtual ~KernelInstance() = default;
  /// One call. Must do the full declared work every time (no result caching).
  virtual void run() = 0;
  /// Compares the last run's output with a scalar reference. Called once, after a run.
  virtual CheckResult check() = 0;
  /// Bytes moved to or from memory by one call (weights + activations + outputs for matmuls).
  virtual double bytes_per_call() const = 0;
  /// Floating-point (or integer multiply-add) operations per call; multiply-add = 2.
  virtual double flops_per_call() const = 0;
};

/// A kernel a backend offers. `name` is unique within the backend, e.g. "gemv.avx512.bf16".
struct KernelSpec {
  std::string name;
  KernelKind kind = KernelKind::stream_read;
  std::string isa;  ///< "scalar", "avx2", "avx512", "avx512_bf16", "avx512_vnni", "amx", ...
  DType weights = DType::fp32;              ///< matmuls: weight storage format
  ComputeType compute = ComputeType::fp32;  ///< matmuls: the roof the arithmetic runs on
  std::function<Availability()> available;  ///< CPUID / OS permission / device present
  /// Builds an instance for `shape`; fails with a message for unsupported shapes.
  std::function<Result<std::unique_ptr<KernelInstance>>(const Shape&)> prepare;
};

}  // namespace infercap::calibration
