// Call overheads of the CUDA backend (cuda_instances.hpp): one empty kernel enqueued without
// waiting (launch.cuda: the harness batches such short calls, so its figure is the steady-state
// cost per kernel in a stream, launch throughput), one launch waited for (launch_sync.cuda), and
// the replay of a captured graph of 64 empty kernels (graph64.cuda).
#include <cuda_runtime.h>

#include <memory>

#include "cuda_device.hpp"
#include "cuda_instances.hpp"

namespace infercap::calibration::cuda_host {

namespace {

constexpr int kGraphKernels = 64;

class LaunchInstance : public KernelInstance {
 public:
  explicit LaunchInstance(LaunchMode mode) : mode_(mode) {
    if (mode == LaunchMode::graph) {
      cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
      cudaGraph_t g = nullptr;
      cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal);
      for (int i = 0; i < kGraphKernels; ++i) cudak::launch_empty(stream_);
      cudaStreamEndCapture(stream_, &g);
      if (g != nullptr && cudaGraphInstantiate(&exec_, g, 0) != cudaSuccess) exec_ = nullptr;
      if (g != nullptr) cudaGraphDestroy(g);
    }
  }
  ~LaunchInstance() override {
    if (exec_) cudaGraphExecDestroy(exec_);
    if (stream_) cudaStreamDestroy(stream_);
  }
  LaunchInstance(const LaunchInstance&) = delete;
  LaunchInstance& operator=(const LaunchInstance&) = delete;
  bool ok() const { return mode_ != LaunchMode::graph || exec_ != nullptr; }
  void run() override {
    switch (mode_) {
      case LaunchMode::stream:
        cudak::launch_empty(nullptr);
        break;
      case LaunchMode::sync:
        cudak::launch_empty(nullptr);
        sync();
        break;
      case LaunchMode::graph:
        cudaGraphLaunch(exec_, stream_);
        cudaStreamSynchronize(stream_);
        break;
    }
  }
  CheckResult check() override {
    const cudaError_t e = cudaDeviceSynchronize();
    CheckResult r;
    r.ok = e == cudaSuccess;
    if (!r.ok) r.message = cudaGetErrorString(e);
    return r;
  }
  double bytes_per_call() const override { return 0; }
  double flops_per_call() const override { return 0; }

 private:
  LaunchMode mode_;
  cudaStream_t stream_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace

Prepared prepare_launch(LaunchMode mode) {
  if (!device().ok) return no_device();
  auto p = std::make_unique<LaunchInstance>(mode);
  if (!p->ok()) return Error{"CUDA graph: capture or instantiation failed"};
  return std::unique_ptr<KernelInstance>(std::move(p));
}

}  // namespace infercap::calibration::cuda_host
