// OpenCL calibration backend: stream read/copy, decode GEMV (fp32, fp16, bf16, int8, int4
// weights) and the per-enqueue overhead, through whatever OpenCL driver is installed (PoCL on a
// CPU here; vendor drivers on GPUs, NPUs and FPGAs that ship one). Kernels are compiled by the
// driver at first use, so this backend costs nothing at build time. Each call is enqueue + finish:
// the harness times what a host-driven inference step sees.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <fmt/core.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <vector>

#include "infercap/calibration/backend_module.hpp"
#include "infercap/calibration/half.hpp"

namespace infercap::calibration {

namespace {

const char* kSource = R"CL(
__kernel void read_sum(__global const float4* a, ulong n4, __global float* partial) {
  __local float acc[256];
  float4 s = (float4)(0.0f);
#ifdef CPU_LAYOUT
  const ulong per = (n4 + get_global_size(0) - 1) / get_global_size(0);
  const ulong e = min(n4, (get_global_id(0) + 1) * per);
  for (ulong i = get_global_id(0) * per; i < e; ++i) s += a[i];
#else
  for (ulong i = get_global_id(0); i < n4; i += get_global_size(0)) s += a[i];
#endif
  const size_t l = get_local_id(0);
  acc[l] = s.x + s.y + s.z + s.w;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t w = get_local_size(0) / 2; w > 0; w /= 2) {
    if (l < w) acc[l] += acc[l + w];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) partial[get_group_id(0)] = acc[0];
}
__kernel void copy(__global const float4* a, __global float4* b, ulong n4) {
#ifdef CPU_LAYOUT
  const ulong per = (n4 + get_global_size(0) - 1) / get_global_size(0);
  const ulong e = min(n4, (get_global_id(0) + 1) * per);
  for (ulong i = get_global_id(0) * per; i < e; ++i) b[i] = a[i];
#else
  for (ulong i = get_global_id(0); i < n4; i += get_global_size(0)) b[i] = a[i];
#endif
}
__kernel void empty(__global float* out) {
  if (get_global_id(0) == 0x7fffffff) out[0] = 0.0f;
}
// GPUs: one work-group per output feature, neighbouring work-items read neighbouring weights
// (coalescing), a tree reduction in local memory. CPU drivers run a group's work-items one after
// another, so there one work-item computes one output feature over a contiguous row instead.
// M <= 8 rows of activations.
#ifdef CPU_LAYOUT
// One row at a time through vector loads (PoCL does not vectorise the scalar loop across
// work-items that walk different rows). With k a multiple of 32: 16 weights a step into two
// independent float16 sums, since one float4 sum is a chain of dependent FMAs that held every
// format to ~1 FMA instruction a cycle (~2.3 ms for 4096 x 4096 whatever the bytes); else 4.
#define GEMV_BODY4(LOAD, LOAD4, LOAD16)                          \
  const int row = get_global_id(0);                              \
  if (row >= n) return;                                          \
  if (m == 1 && (k & 31) == 0) {                                 \
    float16 a16 = (float16)(0.0f), b16 = (float16)(0.0f);        \
    for (int j = 0; j < k; j += 32) {                            \
      a16 += (LOAD16) * vload16(j >> 4, x);                      \
      j += 16;                                                   \
      b16 += (LOAD16) * vload16(j >> 4, x);                      \
      j -= 16;                                                   \
    }                                                            \
    a16 += b16;                                                  \
    const float8 s8 = a16.lo + a16.hi;                           \
    const float4 s4 = s8.lo + s8.hi;                             \
    y[row] = (s4.x + s4.y + s4.z + s4.w) * SCALE;                \
    return;                                                      \
  }                                                              \
  if (m == 1 && (k & 3) == 0) {                                  \
    float4 a4 = (float4)(0.0f);                                  \
    for (int j = 0; j < k; j += 4) a4 += (LOAD4) * vload4(j >> 2, x); \
    y[row] = (a4.x + a4.y + a4.z + a4.w) * SCALE;               \
    return;                                                      \
  }                                                              \
  GEMV_REST(LOAD)
#define GEMV_REST(LOAD)                                       \
  if (m == 1) {                                               \
    float a0 = 0.0f;                                          \
    for (int j = 0; j < k; ++j) a0 += (LOAD) * x[j];          \
    y[row] = a0 * SCALE;                                      \
    return;                                                   \
  }                                                           \
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};                   \
  for (int j = 0; j < k; ++j) {                              \
    const float w = LOAD;                                    \
    for (int r = 0; r < m; ++r) acc[r] += w * x[r * k + j];  \
  }                                                          \
  for (int r = 0; r < m; ++r) y[r * n + row] = acc[r] * SCALE;
#else
#define GEMV_BODY4(LOAD, LOAD4, LOAD16) GEMV_BODY(LOAD)
#define GEMV_BODY(LOAD)                                                              \
  __local float red[8][64];                                                          \
  const int row = get_group_id(0);                                                   \
  const int l = get_local_id(0);                                                     \
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};                                          \
  for (int j = l; j < k; j += get_local_size(0)) {                                  \
    const float w = LOAD;                                                           \
    for (int r = 0; r < m; ++r) acc[r] += w * x[r * k + j];                         \
  }                                                                                 \
  for (int r = 0; r < m; ++r) red[r][l] = acc[r];                                   \
  barrier(CLK_LOCAL_MEM_FENCE);                                                     \
  for (int w2 = get_local_size(0) / 2; w2 > 0; w2 /= 2) {                           \
    if (l < w2)                                                                     \
      for (int r = 0; r < m; ++r) red[r][l] += red[r][l + w2];                      \
    barrier(CLK_LOCAL_MEM_FENCE);                                                   \
  }                                                                                 \
  if (l == 0)                                                                       \
    for (int r = 0; r < m; ++r) y[r * n + row] = red[r][0] * SCALE;
#endif
// 16 weights from 8 bytes, low nibble first: element 2i is byte i's low nibble.
float16 int4x16(__global const uchar* p) {
  const int8 v = convert_int8(vload8(0, p));
  return shuffle2(convert_float8((v & 15) - 8), convert_float8((v >> 4) - 8),
                  (uint16)(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15));
}
float4 int4x4(__global const uchar* p) {
  const int b0 = p[0], b1 = p[1];
  return (float4)((float)((b0 & 15) - 8), (float)((b0 >> 4) - 8), (float)((b1 & 15) - 8),
                  (float)((b1 >> 4) - 8));
}
#define AT(j) ((size_t)row * k + (j))
#define SCALE 1.0f
__kernel void gemv_fp32(__global const float* W, __global const float* x, __global float* y,
                        int m, int n, int k) {
  GEMV_BODY4(W[AT(j)], vload4(0, W + AT(j)), vload16(0, W + AT(j)))
}
__kernel void gemv_fp16(__global const half* W, __global const float* x, __global float* y,
                        int m, int n, int k) {
  GEMV_BODY4(vload_half(AT(j), W), vload_half4(AT(j) >> 2, W), vload_half16(AT(j) >> 4, W))
}
__kernel void gemv_bf16(__global const ushort* W, __global const float* x, __global float* y,
                        int m, int n, int k) {
  GEMV_BODY4(as_float(((uint)W[AT(j)]) << 16), as_float4(convert_uint4(vload4(0, W + AT(j))) << 16),
             as_float16(convert_uint16(vload16(0, W + AT(j))) << 16))
}
#undef SCALE
#define SCALE scale[row]
__kernel void gemv_int8(__global const char* W, __global const float* scale,
                        __global const float* x, __global float* y, int m, int n, int k) {
  GEMV_BODY4((float)W[AT(j)], convert_float4(vload4(0, W + AT(j))),
             convert_float16(vload16(0, W + AT(j))))
}
// Two weights per byte, low nibble first, stored offset by 8 (0..15 -> -8..7).
__kernel void gemv_int4(__global const uchar* W, __global const float* scale,
                        __global const float* x, __global float* y, int m, int n, int k) {
  GEMV_BODY4((float)((int)((W[AT(j) / 2] >> ((j & 1) * 4)) & 15) - 8), int4x4(W + AT(j) / 2),
             int4x16(W + AT(j) / 2))
}
)CL";

// The device, context, queue and program, set up once per process.
struct Ctx {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_program program = nullptr;
  std::string description;
  std::string error;
  size_t max_wg = 1;
  cl_uint compute_units = 1;
  bool cpu_layout = false;  ///< a CPU device: the kernels use their contiguous variants
};

std::string device_string(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  clGetDeviceInfo(d, what, 0, nullptr, &n);
  std::string s(n, '\0');
  clGetDeviceInfo(d, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

Ctx& context_state() {
  static std::once_flag once;
  static Ctx ctx;
  std::call_once(once, [] {
    cl_uint np = 0;
    if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0) {
      ctx.error = "no OpenCL platform (install an ICD, e.g. pocl-opencl-icd)";
      return;
    }
    std::vector<cl_platform_id> ps(np);
    clGetPlatformIDs(np, ps.data(), nullptr);
    // INFERCAP_OPENCL_DEVICE=P:D picks a device; else the first GPU/accelerator, else the first.
    int want_p = -1, want_d = -1;
    if (const char* e = std::getenv("INFERCAP_OPENCL_DEVICE"))
      std::sscanf(e, "%d:%d", &want_p, &want_d);
    cl_device_id fallback = nullptr;
    cl_platform_id fallback_p = nullptr;
    for (cl_uint p = 0; p < np && ctx.device == nullptr; ++p) {
      cl_uint nd = 0;
      if (clGetDeviceIDs(ps[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS) continue;
      std::vector<cl_device_id> ds(nd);
      clGetDeviceIDs(ps[p], CL_DEVICE_TYPE_ALL, nd, ds.data(), nullptr);
      for (cl_uint d = 0; d < nd; ++d) {
        if (want_p >= 0) {
          if (static_cast<int>(p) == want_p && static_cast<int>(d) == want_d) {
            ctx.platform = ps[p];
            ctx.device = ds[d];
            break;
          }
          continue;
        }
        cl_device_type t = 0;
        clGetDeviceInfo(ds[d], CL_DEVICE_TYPE, sizeof t, &t, nullptr);
        if ((t & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR)) != 0) {
          ctx.platform = ps[p];
          ctx.device = ds[d];
          break;
        }
        if (fallback == nullptr) {
          fallback = ds[d];
          fallback_p = ps[p];
        }
      }
    }
    if (ctx.device == nullptr && want_p < 0) {
      ctx.device = fallback;
      ctx.platform = fallback_p;
    }
    if (ctx.device == nullptr) {
      ctx.error = want_p >= 0 ? "INFERCAP_OPENCL_DEVICE names no device" : "no OpenCL device";
      return;
    }
    cl_int err = 0;
    ctx.context = clCreateContext(nullptr, 1, &ctx.device, nullptr, nullptr, &err);
    if (err != CL_SUCCESS) {
      ctx.error = fmt::format("clCreateContext failed ({})", err);
      return;
    }
    ctx.queue = clCreateCommandQueue(ctx.context, ctx.device, 0, &err);
    if (err != CL_SUCCESS) {
      ctx.error = fmt::format("clCreateCommandQueue failed ({})", err);
      return;
    }
    const char* src = kSource;
    ctx.program = clCreateProgramWithSource(ctx.context, 1, &src, nullptr, &err);
    cl_device_type type = 0;
    clGetDeviceInfo(ctx.device, CL_DEVICE_TYPE, sizeof type, &type, nullptr);
    ctx.cpu_layout = (type & CL_DEVICE_TYPE_CPU) != 0;
    // INFERCAP_OPENCL_LAYOUT=gpu|cpu forces a layout: the GPU kernels' indexing and local-memory
    // reductions are then checked on a CPU driver too (a second ctest run does so on PoCL).
    if (const char* e = std::getenv("INFERCAP_OPENCL_LAYOUT")) {
      if (std::strcmp(e, "gpu") == 0) ctx.cpu_layout = false;
      if (std::strcmp(e, "cpu") == 0) ctx.cpu_layout = true;
    }
    const char* opts = ctx.cpu_layout ? "-DCPU_LAYOUT" : "";
    if (err == CL_SUCCESS)
      err = clBuildProgram(ctx.program, 1, &ctx.device, opts, nullptr, nullptr);
    if (err != CL_SUCCESS) {
      size_t n = 0;
      clGetProgramBuildInfo(ctx.program, ctx.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
      std::string log(n, '\0');
      clGetProgramBuildInfo(ctx.program, ctx.device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
      ctx.error = fmt::format("the OpenCL kernels did not build ({}): {}", err, log);
      return;
    }
    clGetDeviceInfo(ctx.device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof ctx.max_wg, &ctx.max_wg,
                    nullptr);
    clGetDeviceInfo(ctx.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof ctx.compute_units,
                    &ctx.compute_units, nullptr);
    ctx.description =
        fmt::format("{} ({}, {} compute units)", device_string(ctx.device, CL_DEVICE_NAME),
                    device_string(ctx.device, CL_DEVICE_VERSION), ctx.compute_units);
  });
  return ctx;
}

Ctx* context() {
  Ctx& c = context_state();
  return c.error.empty() ? &c : nullptr;
}

Availability opencl_available() {
  const Ctx& c = context_state();
  return c.error.empty() ? Availability::yes(c.description) : Availability::no(c.error);
}

// RAII for a device buffer.
struct Buffer {
  cl_mem mem = nullptr;
  size_t bytes = 0;
  Buffer() = default;
  Buffer(Ctx& c, size_t n, const void* host) : bytes(n) {
    cl_int err = 0;
    mem = clCreateBuffer(c.context, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), n,
                         const_cast<void*>(host), &err);
    if (err != CL_SUCCESS) mem = nullptr;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept : mem(o.mem), bytes(o.bytes) { o.mem = nullptr; }
  Buffer& operator=(Buffer&& o) noexcept {
    std::swap(mem, o.mem);
    std::swap(bytes, o.bytes);
    return *this;
  }
  ~Buffer() {
    if (mem) clReleaseMemObject(mem);
  }
};

struct Kernel {
  cl_kernel k = nullptr;
  Kernel(Ctx& c, const char* name) {
    cl_int err = 0;
    k = clCreateKernel(c.program, name, &err);
    if (err != CL_SUCCESS) k = nullptr;
  }
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;
  ~Kernel() {
    if (k) clReleaseKernel(k);
  }
  template <class T>
  void arg(cl_uint i, const T& v) {
    // T is often cl_mem, a pointer to an opaque struct: OpenCL wants the handle's own size.
    clSetKernelArg(k, i, sizeof(T), &v);  // NOLINT(bugprone-sizeof-expression)
  }
};

void read_back(Ctx& c, const Buffer& b, void* dst, size_t n) {
  clEnqueueReadBuffer(c.queue, b.mem, CL_TRUE, 0, n, dst, 0, nullptr, nullptr);
}

std::vector<float> random_floats(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

// ---- streams -------------------------------------------------------------------------------

class ReadInstance : public KernelInstance {
 public:
  ReadInstance(Ctx& c, size_t n4) : c_(c), n4_(n4), kernel_(c, "read_sum") {
    host_ = random_floats(n4 * 4, 7, 0.f, 1.f);
    a_ = Buffer(c, host_.size() * 4, host_.data());
    groups_ = std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(c.compute_units) * 4, 1024));
    local_ = std::min<size_t>(256, c.max_wg);
    local_ = local_ >= 2 ? size_t{1} << static_cast<int>(std::floor(std::log2(local_))) : 1;
    partial_ = Buffer(c, groups_ * 4, nullptr);
  }
  bool ok() const { return a_.mem && partial_.mem && kernel_.k; }
  void run() override {
    kernel_.arg(0, a_.mem);
    kernel_.arg(1, static_cast<cl_ulong>(n4_));
    kernel_.arg(2, partial_.mem);
    const size_t global = groups_ * local_;
    clEnqueueNDRangeKernel(c_.queue, kernel_.k, 1, nullptr, &global, &local_, 0, nullptr, nullptr);
    clFinish(c_.queue);
  }
  CheckResult check() override {
    std::vector<float> part(groups_);
    read_back(c_, partial_, part.data(), groups_ * 4);
    double got = 0, ref = 0;
    for (float p : part) got += p;
    for (float v : host_) ref += v;
    CheckResult r;
    r.error = std::fabs(got - ref) / ref;
    r.tolerance = 1e-4;  // float partial sums over millions of values in [0, 1)
    r.ok = r.error <= r.tolerance;
    if (!r.ok) r.message = fmt::format("sum {} vs reference {}", got, ref);
    return r;
  }
  double bytes_per_call() const override { return static_cast<double>(n4_) * 16; }
  double flops_per_call() const override { return static_cast<double>(n4_) * 4; }

 private:
  Ctx& c_;
  size_t n4_;
  Kernel kernel_;
  std::vector<float> host_;
  Buffer a_, partial_;
  size_t groups_ = 1, local_ = 1;
};

class CopyInstance : public KernelInstance {
 public:
  CopyInstance(Ctx& c, size_t n4) : c_(c), n4_(n4), kernel_(c, "copy") {
    host_ = random_floats(n4 * 4, 11, -1.f, 1.f);
    a_ = Buffer(c, host_.size() * 4, host_.data());
    b_ = Buffer(c, host_.size() * 4, nullptr);
  }
  bool ok() const { return a_.mem && b_.mem && kernel_.k; }
  void run() override {
    kernel_.arg(0, a_.mem);
    kernel_.arg(1, b_.mem);
    kernel_.arg(2, static_cast<cl_ulong>(n4_));
    const size_t global = std::min<size_t>(n4_, size_t{c_.compute_units} * 4096);
    clEnqueueNDRangeKernel(c_.queue, kernel_.k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr);
    clFinish(c_.queue);
  }
  CheckResult check() override {
    std::vector<float> out(host_.size());
    read_back(c_, b_, out.data(), out.size() * 4);
    CheckResult r;
    r.ok = std::memcmp(out.data(), host_.data(), out.size() * 4) == 0;
    r.error = r.ok ? 0 : 1;
    if (!r.ok) r.message = "the copy differs from its source";
    return r;
  }
  double bytes_per_call() const override { return static_cast<double>(n4_) * 32; }
  double flops_per_call() const override { return 0; }

 private:
  Ctx& c_;
  size_t n4_;
  Kernel kernel_;
  std::vector<float> host_;
  Buffer a_, b_;
};

class EmptyInstance : public KernelInstance {
 public:
  explicit EmptyInstance(Ctx& c) : c_(c), kernel_(c, "empty"), out_(c, 4, nullptr) {}
  bool ok() const { return out_.mem && kernel_.k; }
  void run() override {
    kernel_.arg(0, out_.mem);
    const size_t global = 1;
    clEnqueueNDRangeKernel(c_.queue, kernel_.k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr);
    clFinish(c_.queue);
  }
  CheckResult check() override { return {true, 0, 0, {}}; }
  double bytes_per_call() const override { return 0; }
  double flops_per_call() const override { return 0; }

 private:
  Ctx& c_;
  Kernel kernel_;
  Buffer out_;
};

// ---- GEMV ----------------------------------------------------------------------------------

class GemvInstance : public KernelInstance {
 public:
  GemvInstance(Ctx& c, DType w, int m, int n, int k)
      : c_(c), w_(w), m_(m), n_(n), k_(k), kernel_(c, kernel_name(w)) {
    const size_t nk = static_cast<size_t>(n) * static_cast<size_t>(k);
    const auto wf = random_floats(nk, 3, -1.f, 1.f);
    x_ = random_floats(static_cast<size_t>(m) * static_cast<size_t>(k), 5, -1.f, 1.f);
    wq_.resize(nk);  // dequantised weights the device sees, for the reference
    scale_.assign(static_cast<size_t>(n), 1.f);
    std::vector<unsigned char> bytes;
    switch (w) {
      case DType::fp32:
        wq_ = wf;
        bytes.resize(nk * 4);
        std::memcpy(bytes.data(), wf.data(), nk * 4);
        break;
      case DType::fp16:
      case DType::bf16: {
        std::vector<uint16_t> h(nk);
        for (size_t i = 0; i < nk; ++i) {
          h[i] = w == DType::fp16 ? fp32_to_fp16(wf[i]) : fp32_to_bf16(wf[i]);
          wq_[i] = w == DType::fp16 ? fp16_to_fp32(h[i]) : bf16_to_fp32(h[i]);
        }
        bytes.resize(nk * 2);
        std::memcpy(bytes.data(), h.data(), nk * 2);
        break;
      }
      case DType::int8:
      case DType::int4: {
        const int qmax = w == DType::int8 ? 127 : 7;
        bytes.assign(w == DType::int8 ? nk : (nk + 1) / 2, 0);
        for (int r = 0; r < n; ++r) {
          float amax = 0;
          for (int j = 0; j < k; ++j)
            amax = std::max(amax, std::fabs(wf[static_cast<size_t>(r) * k + j]));
          const float s = amax > 0 ? amax / static_cast<float>(qmax) : 1.f;
          scale_[static_cast<size_t>(r)] = s;
          for (int j = 0; j < k; ++j) {
            const size_t i = static_cast<size_t>(r) * k + j;
            const int q = std::clamp(static_cast<int>(std::lround(wf[i] / s)), -qmax, qmax);
            wq_[i] = static_cast<float>(q) * s;
            if (w == DType::int8) {
              bytes[i] = static_cast<unsigned char>(static_cast<signed char>(q));
            } else {
              bytes[i / 2] = static_cast<unsigned char>(bytes[i / 2] | ((q + 8) << ((i & 1) * 4)));
            }
          }
        }
        break;
      }
      default:
        break;
    }
    weight_bytes_ = static_cast<double>(bytes.size());
    w_buf_ = Buffer(c, bytes.size(), bytes.data());
    s_buf_ = Buffer(c, scale_.size() * 4, scale_.data());
    x_buf_ = Buffer(c, x_.size() * 4, x_.data());
    y_buf_ = Buffer(c, static_cast<size_t>(m) * static_cast<size_t>(n) * 4, nullptr);
    local_ = std::min<size_t>(64, c.max_wg);
    local_ = local_ >= 2 ? size_t{1} << static_cast<int>(std::floor(std::log2(local_))) : 1;
  }
  static const char* kernel_name(DType w) {
    switch (w) {
      case DType::fp16:
        return "gemv_fp16";
      case DType::bf16:
        return "gemv_bf16";
      case DType::int8:
        return "gemv_int8";
      case DType::int4:
        return "gemv_int4";
      default:
        return "gemv_fp32";
    }
  }
  bool ok() const { return w_buf_.mem && x_buf_.mem && y_buf_.mem && kernel_.k; }
  void run() override {
    cl_uint i = 0;
    kernel_.arg(i++, w_buf_.mem);
    if (w_ == DType::int8 || w_ == DType::int4) kernel_.arg(i++, s_buf_.mem);
    kernel_.arg(i++, x_buf_.mem);
    kernel_.arg(i++, y_buf_.mem);
    kernel_.arg(i++, static_cast<cl_int>(m_));
    kernel_.arg(i++, static_cast<cl_int>(n_));
    kernel_.arg(i++, static_cast<cl_int>(k_));
    const size_t global = static_cast<size_t>(n_) * (c_.cpu_layout ? 1 : local_);
    clEnqueueNDRangeKernel(c_.queue, kernel_.k, 1, nullptr, &global,
                           c_.cpu_layout ? nullptr : &local_, 0, nullptr, nullptr);
    clFinish(c_.queue);
  }
  CheckResult check() override {
    std::vector<float> y(static_cast<size_t>(m_) * static_cast<size_t>(n_));
    read_back(c_, y_buf_, y.data(), y.size() * 4);
    CheckResult r;
    r.tolerance = 1e-5;  // fp32 accumulation, relative to sum |w| |x|
    for (int b = 0; b < m_; ++b) {
      for (int o = 0; o < n_; ++o) {
        double ref = 0, mag = 0;
        for (int j = 0; j < k_; ++j) {
          const double w = wq_[static_cast<size_t>(o) * k_ + j];
          const double x = x_[static_cast<size_t>(b) * k_ + j];
          ref += w * x;
          mag += std::fabs(w * x);
        }
        const double e = std::fabs(y[static_cast<size_t>(b) * n_ + o] - ref) / std::max(mag, 1e-30);
        r.error = std::max(r.error, e);
      }
    }
    r.ok = r.error <= r.tolerance;
    if (!r.ok) r.message = fmt::format("GEMV error {:.3g} > {:.1g}", r.error, r.tolerance);
    return r;
  }
  double bytes_per_call() const override {
    const double mk = static_cast<double>(m_) * k_, mn = static_cast<double>(m_) * n_;
    const double scales = (w_ == DType::int8 || w_ == DType::int4) ? 4.0 * n_ : 0;
    return weight_bytes_ + scales + 4 * (mk + mn);
  }
  double flops_per_call() const override { return 2.0 * m_ * static_cast<double>(n_) * k_; }

 private:
  Ctx& c_;
  DType w_;
  int m_, n_, k_;
  Kernel kernel_;
  std::vector<float> x_, wq_, scale_;
  double weight_bytes_ = 0;
  Buffer w_buf_, s_buf_, x_buf_, y_buf_;
  size_t local_ = 64;
};

template <class T>
Result<std::unique_ptr<KernelInstance>> finish_instance(std::unique_ptr<T> p) {
  if (!p->ok()) return Error{"OpenCL: could not allocate the buffers or create the kernel"};
  return std::unique_ptr<KernelInstance>(std::move(p));
}

Availability need_context() {
  return opencl_available();
}

std::vector<KernelSpec> opencl_kernels() {
  std::vector<KernelSpec> ks;
  auto stream = [&](const char* name, KernelKind kind) {
    KernelSpec s;
    s.name = name;
    s.kind = kind;
    s.isa = "opencl";
    s.available = need_context;
    s.prepare = [kind](const Shape& sh) -> Result<std::unique_ptr<KernelInstance>> {
      Ctx* c = context();
      if (c == nullptr) return Error{"OpenCL: no device"};
      const double per = kind == KernelKind::stream_copy ? 32.0 : 16.0;
      const auto n4 = static_cast<size_t>(sh.bytes / per);
      if (n4 < 1024) return Error{"OpenCL stream: working set under 16 KiB"};
      if (kind == KernelKind::stream_copy)
        return finish_instance(std::make_unique<CopyInstance>(*c, n4));
      return finish_instance(std::make_unique<ReadInstance>(*c, n4));
    };
    ks.push_back(s);
  };
  stream("read.opencl", KernelKind::stream_read);
  stream("copy.opencl", KernelKind::stream_copy);
  for (DType w : {DType::fp32, DType::fp16, DType::bf16, DType::int8, DType::int4}) {
    KernelSpec s;
    s.name = fmt::format("gemv.opencl.{}", dtype_name(w));
    s.kind = KernelKind::gemv;
    s.isa = "opencl";
    s.weights = w;
    s.compute = ComputeType::fp32;
    s.available = need_context;
    s.prepare = [w](const Shape& sh) -> Result<std::unique_ptr<KernelInstance>> {
      Ctx* c = context();
      if (c == nullptr) return Error{"OpenCL: no device"};
      if (sh.m < 1 || sh.m > 8) return Error{"OpenCL GEMV: m must be 1..8 (decode batches)"};
      if (sh.n < 1 || sh.k < 2 || sh.k % 2 != 0 || sh.n > INT32_MAX / 2 || sh.k > INT32_MAX / 2)
        return Error{"OpenCL GEMV: n >= 1 and an even k >= 2 needed"};
      return finish_instance(std::make_unique<GemvInstance>(
          *c, w, static_cast<int>(sh.m), static_cast<int>(sh.n), static_cast<int>(sh.k)));
    };
    ks.push_back(s);
  }
  KernelSpec e;
  e.name = "launch.opencl";
  e.kind = KernelKind::call_overhead;
  e.isa = "opencl";
  e.available = need_context;
  e.prepare = [](const Shape&) -> Result<std::unique_ptr<KernelInstance>> {
    Ctx* c = context();
    if (c == nullptr) return Error{"OpenCL: no device"};
    return finish_instance(std::make_unique<EmptyInstance>(*c));
  };
  ks.push_back(e);
  return ks;
}

std::vector<PlanItem> opencl_plan(Effort effort, const MachineInfo&) {
  std::vector<PlanItem> p;
  const double mib = 1024.0 * 1024.0;
  std::vector<double> sizes;
  int64_t n = 4096, k = 4096;
  switch (effort) {
    case Effort::tiny:
      sizes = {8 * mib};
      n = 256;
      k = 1024;
      break;
    case Effort::quick:
      sizes = {4 * mib, 512 * mib};
      break;
    case Effort::full:
      sizes = {1 * mib, 4 * mib, 16 * mib, 64 * mib, 256 * mib, 1024 * mib};
      k = 14336;
      break;
  }
  for (double b : sizes) {
    p.push_back({"read.opencl", Shape{1, -1, b, 0, 0, 0}});
    p.push_back({"copy.opencl", Shape{1, -1, b, 0, 0, 0}});
  }
  for (const char* w : {"fp32", "fp16", "bf16", "int8", "int4"}) {
    for (int64_t m :
         effort == Effort::full ? std::vector<int64_t>{1, 4, 8} : std::vector<int64_t>{1})
      p.push_back({fmt::format("gemv.opencl.{}", w), Shape{1, -1, 0, m, n, k}});
  }
  p.push_back({"launch.opencl", Shape{1, -1, 0, 0, 0, 0}});
  return p;
}

HarnessOptions opencl_harness(Effort e) {
  HarnessOptions o;
  if (e == Effort::tiny) {
    o.warmup_s = 0.002;
    o.budget_s = 0.02;
    o.min_reps = 3;
    o.noisy_retries = 0;
    o.max_spread = 1.0;
  } else if (e == Effort::quick) {
    o.budget_s = 0.2;
  } else {
    o.budget_s = 0.5;
  }
  return o;
}

}  // namespace

// The backend this module offers; the entry point below hands it to the host.
Backend make_opencl_backend() {
  Backend b;
  b.name = "opencl";
  b.description = "OpenCL kernels: stream read/copy, GEMV fp32/fp16/bf16/int8/int4, enqueue cost";
  b.available = opencl_available;
  b.kernels = opencl_kernels;
  b.plan = opencl_plan;
  b.harness_options = opencl_harness;
  return b;
}

}  // namespace infercap::calibration

// The module's entry point (backend_module.hpp): libinfercap-backend-opencl.so.
INFERCAP_DEFINE_BACKEND_MODULE(infercap::calibration::make_opencl_backend)
