// AVX2 + FMA kernels (-mavx2 -mfma -mf16c on this file only). Quantised weights are dequantised
// to fp32 on the fly and multiplied with fp32 activations: AVX2 has no int8 dot product that
// cannot saturate (vpmaddubsw does), and no bf16 arithmetic.
#include <immintrin.h>

#include <algorithm>

#include "matmul.hpp"

namespace infercap::calibration::cpu::avx2 {

namespace {
#include "matmul_blocked.inc"

inline float hsum(__m256 v) {
  const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(t, _mm_movehdup_ps(t)));
}

struct F32 {
  using Acc = __m256;
  using W = __m256;
  using X = __m256;
  static constexpr long kStep = 8;
  static constexpr long kChunkElems = 1024;
  static constexpr long kPrefetchEvery = 16;
  static const char* wptr(const MatmulArgs& a, long row, long kk) {
    return reinterpret_cast<const char*>(a.w->data.as<float>() + row * a.w->k + kk);
  }
  static Acc zero() { return _mm256_setzero_ps(); }
  static W load_w(const MatmulArgs& a, long row, long kk) {
    return _mm256_loadu_ps(a.w->data.as<float>() + row * a.w->k + kk);
  }
  static X load_x(const MatmulArgs& a, long m, long kk) {
    return _mm256_loadu_ps(a.x + m * a.w->k + kk);
  }
  static Acc madd(Acc acc, W w, X x) { return _mm256_fmadd_ps(w, x, acc); }
  static float finish(Acc acc, const MatmulArgs&, long, long, bool) { return hsum(acc); }
};

struct BF16 {
  using Acc = __m256;
  using W = __m256;
  using X = __m256;
  static constexpr long kStep = 8;
  static constexpr long kChunkElems = 2048;
  static constexpr long kPrefetchEvery = 32;
  static const char* wptr(const MatmulArgs& a, long row, long kk) {
    return reinterpret_cast<const char*>(a.w->data.as<uint16_t>() + row * a.w->k + kk);
  }
  static Acc zero() { return _mm256_setzero_ps(); }
  static W load_w(const MatmulArgs& a, long row, long kk) {
    const __m128i h = _mm_loadu_si128(
        reinterpret_cast<const __m128i*>(a.w->data.as<uint16_t>() + row * a.w->k + kk));
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
  }
  static X load_x(const MatmulArgs& a, long m, long kk) {
    return _mm256_loadu_ps(a.x + m * a.w->k + kk);
  }
  static Acc madd(Acc acc, W w, X x) { return _mm256_fmadd_ps(w, x, acc); }
  static float finish(Acc acc, const MatmulArgs&, long, long, bool) { return hsum(acc); }
};

struct Int8 {
  using Acc = __m256;
  using W = __m256;
  using X = __m256;
  static constexpr long kStep = 8;
  static constexpr long kChunkElems = 4096;
  static constexpr long kPrefetchEvery = 64;
  static const char* wptr(const MatmulArgs& a, long row, long kk) {
    return reinterpret_cast<const char*>(a.w->data.as<uint8_t>() + row * a.w->k + kk);
  }
  static Acc zero() { return _mm256_setzero_ps(); }
  static W load_w(const MatmulArgs& a, long row, long kk) {
    const __m128i b = _mm_loadl_epi64(
        reinterpret_cast<const __m128i*>(a.w->data.as<uint8_t>() + row * a.w->k + kk));
    const __m256i q = _mm256_sub_epi32(_mm256_cvtepu8_epi32(b), _mm256_set1_epi32(128));
    return _mm256_cvtepi32_ps(q);
  }
  static X load_x(const MatmulArgs& a, long m, long kk) {
    return _mm256_loadu_ps(a.x + m * a.w->k + kk);
  }
  static Acc madd(Acc acc, W w, X x) { return _mm256_fmadd_ps(w, x, acc); }
  static float finish(Acc acc, const MatmulArgs& a, long row, long, bool) {
    return hsum(acc) * a.w->scales.as<float>()[row];
  }
};

struct Int4 {
  using Acc = __m256;
  struct W {
    __m256 q[4];  // one block of 32 weights, k order, as fp32 (q - 8)
    __m256 scale;
  };
  using X = const float*;
  static constexpr long kStep = 32;
  static constexpr long kChunkElems = 8192;
  static constexpr long kPrefetchEvery = 128;
  static const char* wptr(const MatmulArgs& a, long row, long kk) {
    return reinterpret_cast<const char*>(a.w->data.as<uint8_t>() + (row * a.w->k + kk) / 2);
  }
  static Acc zero() { return _mm256_setzero_ps(); }
  static W load_w(const MatmulArgs& a, long row, long kk) {
    const long k = a.w->k;
    const __m128i packed = _mm_loadu_si128(
        reinterpret_cast<const __m128i*>(a.w->data.as<uint8_t>() + (row * k + kk) / 2));
    const __m128i mask = _mm_set1_epi8(0x0f);
    const __m128i lo = _mm_and_si128(packed, mask);
    const __m128i hi = _mm_and_si128(_mm_srli_epi16(packed, 4), mask);
    const __m256i eight = _mm256_set1_epi32(8);
    W w;
    w.q[0] = _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_cvtepu8_epi32(lo), eight));
    w.q[1] =
        _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_cvtepu8_epi32(_mm_srli_si128(lo, 8)), eight));
    w.q[2] = _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_cvtepu8_epi32(hi), eight));
    w.q[3] =
        _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_cvtepu8_epi32(_mm_srli_si128(hi, 8)), eight));
    const uint16_t h = a.w->scales.as<uint16_t>()[(row * k + kk) / kInt4Block];
    w.scale = _mm256_cvtph_ps(_mm_set1_epi16(static_cast<short>(h)));
    return w;
  }
  static X load_x(const MatmulArgs& a, long m, long kk) { return a.x + m * a.w->k + kk; }
  static Acc madd(Acc acc, const W& w, X x) {
    __m256 blk = _mm256_mul_ps(w.q[0], _mm256_loadu_ps(x));
    blk = _mm256_fmadd_ps(w.q[1], _mm256_loadu_ps(x + 8), blk);
    blk = _mm256_fmadd_ps(w.q[2], _mm256_loadu_ps(x + 16), blk);
    blk = _mm256_fmadd_ps(w.q[3], _mm256_loadu_ps(x + 24), blk);
    return _mm256_fmadd_ps(blk, w.scale, acc);
  }
  static float finish(Acc acc, const MatmulArgs&, long, long, bool) { return hsum(acc); }
};
}  // namespace

void matmul_f32(const MatmulArgs& a, long b, long e) {
  blocked<F32, 2>(a, b, e);
}
void matmul_bf16(const MatmulArgs& a, long b, long e) {
  blocked<BF16, 2>(a, b, e);
}
void matmul_int8(const MatmulArgs& a, long b, long e) {
  blocked<Int8, 2>(a, b, e);
}
void matmul_int4(const MatmulArgs& a, long b, long e) {
  blocked<Int4, 2>(a, b, e);
}

double stream_read(const float* a, long n) {
  __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
  long i = 0;
  for (; i + 32 <= n; i += 32) {
    _mm_prefetch(reinterpret_cast<const char*>(a + i) + 4096, _MM_HINT_T0);
    s0 = _mm256_add_ps(s0, _mm256_load_ps(a + i));
    s1 = _mm256_add_ps(s1, _mm256_load_ps(a + i + 8));
    s2 = _mm256_add_ps(s2, _mm256_load_ps(a + i + 16));
    s3 = _mm256_add_ps(s3, _mm256_load_ps(a + i + 24));
  }
  double s = hsum(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
  for (; i < n; ++i) s += a[i];
  return s;
}

void stream_copy(float* __restrict b, const float* __restrict a, long n) {
  for (long i = 0; i < n; ++i) b[i] = a[i];
}

void stream_triad(float* __restrict a, const float* __restrict b, const float* __restrict c,
                  float s, long n) {
  for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

}  // namespace infercap::calibration::cpu::avx2
