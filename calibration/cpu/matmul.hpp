#pragma once
// Decode/prefill matmuls on the CPU: y[m x n] = x[m x k] * W^T with W stored n x k ("one output
// feature per row", the layout inference engines stream). Weights are packed once (as a model
// loader would); activations are converted inside every call, as a real forward pass must.
//
// Weight formats (bytes counted by `weight_bytes`):
//   fp32: float per weight
//   bf16: uint16 per weight (round to nearest even)
//   int8: uint8 q + 128 per weight, q in [-127, 127], one fp32 scale per row (amax / 127)
//   int4: blocks of 32 weights in 16 bytes (byte i holds q[i] + 8 low, q[i + 16] + 8 high,
//         q in [-8, 7]) and one fp16 scale per block (amax / 7): 4.5 bits per weight
// Unsigned storage with a zero point lets VNNI's u8 x s8 dot product take the weights as its
// unsigned operand; the zero point is removed with the activations' sums.
#include <cstdint>
#include "infercap/calibration/half.hpp"

#include "infercap/precision.hpp"
#include "thread_team.hpp"

namespace infercap::calibration::cpu {

inline constexpr long kInt4Block = 32;
/// K must be a multiple of this for every SIMD kernel (a ZMM of bytes); N of kRowGrain.
inline constexpr long kKGrain = 64;
inline constexpr long kRowGrain = 32;

struct PackedWeights {
  DType dtype = DType::fp32;
  long n = 0, k = 0;
  Buffer data;
  Buffer scales;  ///< int8: float[n]; int4: uint16 fp16[n * k / 32]
  double weight_bytes() const;
};

/// How the kernel consumes activations.
enum class ActFormat : unsigned char {
  f32,   ///< as given
  bf16,  ///< rounded to bf16
  q8,    ///< int8 per row: q = round(x / d), d = amax / 127
};

struct Activations {
  ActFormat fmt = ActFormat::f32;
  long m = 0, k = 0;
  Buffer bf16;  ///< uint16[m * k]
  Buffer q;     ///< int8[m * k]
  Buffer d;     ///< float[m]
  Buffer sum;   ///< int32[m]: sum of q over the row
  /// int32[m * k / 4]: -8 * (sum of each 4 consecutive q): the int4 zero point's share of each
  /// VNNI lane, so a lane's dot product of (q_w + 8) with q_x starts from it.
  Buffer corr4;
  /// AMX only: activations re-laid for tile B, per block of 16 rows (zero padded):
  /// bf16 [k/2][16][2], int8 [k/4][16][4].
  Buffer vnni;
  bool amx = false;
  Activations() = default;
  Activations(ActFormat f, long m_, long k_, bool amx_layout);
};

/// Converts x rows [m_begin, m_end) into `a` (no-op for f32).
void prepare_activations(Activations& a, const float* x, long m_begin, long m_end);

struct MatmulArgs {
  const PackedWeights* w = nullptr;
  const float* x = nullptr;  ///< fp32 activations, m x k
  const Activations* act = nullptr;
  long m = 0;
  float* y = nullptr;  ///< m x n
};
using MatmulFn = void (*)(const MatmulArgs&, long n_begin, long n_end);

/// Packs rows [n_begin, n_end) of fp32 weights w (n x k) into `p` (allocated by `allocate`).
void allocate_weights(PackedWeights& p, DType dt, long n, long k, int numa_node);
void pack_rows(PackedWeights& p, const float* w, long n_begin, long n_end);
/// Packs one row `r` from `src` (k floats).
void pack_row(PackedWeights& p, const float* src, long r);
/// The weight the kernel actually multiplies (after quantisation).
double dequant(const PackedWeights& p, long row, long col);
/// The activation the kernel actually multiplies (after its conversion).
double act_value(const Activations& a, const float* x, long row, long col);

/// Compares y with a double-precision reference over the same quantised inputs; error is
/// max |y - ref| / sum |w x| per output (see KernelSpec's CheckResult).
struct MatmulCheck {
  double error = 0;
  long worst_m = 0, worst_n = 0;
};
MatmulCheck check_matmul(const PackedWeights& w, const Activations& a, const float* x,
                         const float* y, long m);

using infercap::calibration::bf16_to_fp32;
using infercap::calibration::fp16_to_fp32;
using infercap::calibration::fp32_to_bf16;
using infercap::calibration::fp32_to_fp16;

// ISA kernels; each lives in its own translation unit built with that ISA's flags only.
namespace avx512 {
void matmul_f32(const MatmulArgs&, long n_begin, long n_end);
void matmul_bf16(const MatmulArgs&, long n_begin, long n_end);  ///< AVX512_BF16
void matmul_int8(const MatmulArgs&, long n_begin, long n_end);  ///< AVX512_VNNI
void matmul_int4(const MatmulArgs&, long n_begin, long n_end);  ///< AVX512_VNNI
double stream_read(const float* a, long n);
void stream_copy(float* b, const float* a, long n);
void stream_triad(float* a, const float* b, const float* c, float s, long n);
}  // namespace avx512
namespace avx2 {
void matmul_f32(const MatmulArgs&, long n_begin, long n_end);
void matmul_bf16(const MatmulArgs&, long n_begin, long n_end);
void matmul_int8(const MatmulArgs&, long n_begin, long n_end);
void matmul_int4(const MatmulArgs&, long n_begin, long n_end);
double stream_read(const float* a, long n);
void stream_copy(float* b, const float* a, long n);
void stream_triad(float* a, const float* b, const float* c, float s, long n);
}  // namespace avx2
namespace amx {
/// Tiles: 16 weight rows x 64 bytes of k (A), 16 activation rows (B, VNNI layout), fp32/int32
/// accumulators (C). The calling thread must hold AMX permission (amx_available()).
void matmul_bf16(const MatmulArgs&, long n_begin, long n_end);
void matmul_int8(const MatmulArgs&, long n_begin, long n_end);
}  // namespace amx

}  // namespace infercap::calibration::cpu
