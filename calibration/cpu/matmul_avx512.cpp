// AVX-512 kernels. Built with -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512bf16
// -mavx512vnni -mfma -mf16c on this file only; called only after avx512*_available().
#include <immintrin.h>

#include <algorithm>

#include "matmul.hpp"

namespace infercap::calibration::cpu::avx512 {

namespace {
#include "matmul_blocked.inc"

struct F32 {
  using Acc = __m512;
  using W = __m512;
  using X = __m512;
  static constexpr long kStep = 16;
  static constexpr long kChunkElems = 1024;  // 4 rows x 4 KiB
  static constexpr long kPrefetchEvery = 16;
  static const char* wptr(const MatmulArgs& a, long row, long kk) {
    return reinterpret_cast<const char*>(a.w->data.as<float>() + row * a.w->k + kk);
  }
  static Acc zero() { return _mm512_setzero_ps(); }
  static W load_w(const MatmulArgs& a, long row, long kk) {
    return _mm512_loadu_ps(a.w->data.as<float>() + row * a.w->k + kk);
  }
  static X load_x(const MatmulArgs& a, long m, long kk) {
    return _mm512_loadu_ps(a.x + m * a.w->k + kk);
  }
  static Acc madd(Acc acc, W w, X x) { return _mm512_fmadd_ps(w, x, acc); }
  static float finish(Acc acc, const MatmulArgs&, long, long, bool) {
    return _mm512_reduce_add_ps(acc);
  }
};

struct BF16 {
  using Acc = __m512;
  using W = __m512i;
  using X = __m512i;
  static constexpr long kStep = 32;
  static constexpr long kChunkElems = 2048;
  static constexpr long kPrefetchEvery = 32;
  static const char* wptr(const MatmulArgs& a, long row, long kk) {
    return reinterpret_cast<const char*>(a.w->data.as<uint16_t>() + row * a.w->k + kk);
  }
  static Acc zero() { return _mm512_setzero_ps(); }
  static W load_w(const MatmulArgs& a, long row, long kk) {
    return _mm512_loadu_si512(a.w->data.as<uint16_t>() + row * a.w->k + kk);
  }
  static X load_x(const MatmulArgs& a, long m, long kk) {
    return _mm512_loadu_si512(a.act->bf16.as<uint16_t>() + m * a.w->k + kk);
  }
  static Acc madd(Acc acc, W w, X x) {
    return _mm512_dpbf16_ps(acc, reinterpret_cast<__m512bh&>(w), reinterpret_cast<__m512bh&>(x));
  }
  static float finish(Acc acc, const MatmulArgs&, long, long, bool) {
    return _mm512_reduce_add_ps(acc);
  }
};

struct Int8 {
  using Acc = __m512i;
  using W = __m512i;
  using X = __m512i;
  static constexpr long kStep = 64;
  static constexpr long kChunkElems = 4096;
  static constexpr long kPrefetchEvery = 64;
  static const char* wptr(const MatmulArgs& a, long row, long kk) {
    return reinterpret_cast<const char*>(a.w->data.as<uint8_t>() + row * a.w->k + kk);
  }
  static Acc zero() { return _mm512_setzero_si512(); }
  static W load_w(const MatmulArgs& a, long row, long kk) {
    return _mm512_loadu_si512(a.w->data.as<uint8_t>() + row * a.w->k + kk);
  }
  static X load_x(const MatmulArgs& a, long m, long kk) {
    return _mm512_loadu_si512(a.act->q.as<int8_t>() + m * a.w->k + kk);
  }
  // u8 (weights + 128) x s8 (activations), four products per 32-bit lane.
  static Acc madd(Acc acc, W w, X x) { return _mm512_dpbusd_epi32(acc, w, x); }
  static float finish(Acc acc, const MatmulArgs& a, long row, long m, bool first) {
    long s = _mm512_reduce_add_epi32(acc);
    if (first) s -= 128L * a.act->sum.as<int32_t>()[m];  // the zero point, once per row
    return static_cast<float>(s) * a.w->scales.as<float>()[row] * a.act->d.as<float>()[m];
  }
};

struct Int4 {
  using Acc = __m512;
  struct W {
    __m512i q;     // 64 unsigned nibbles widened to bytes, k order
    __m512 scale;  // lanes 0-7: block 0's scale, 8-15: block 1's
  };
  struct X {
    __m512i q;
    __m512i corr;  // -8 * sum of each lane's 4 activations
  };
  static constexpr long kStep = 64;
  static constexpr long kChunkElems = 8192;
  static constexpr long kPrefetchEvery = 128;
  static const char* wptr(const MatmulArgs& a, long row, long kk) {
    return reinterpret_cast<const char*>(a.w->data.as<uint8_t>() + (row * a.w->k + kk) / 2);
  }
  static Acc zero() { return _mm512_setzero_ps(); }
  static W load_w(const MatmulArgs& a, long row, long kk) {
    const long k = a.w->k;
    const uint8_t* p = a.w->data.as<uint8_t>() + (row * k + kk) / 2;
    const __m256i packed = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i mask = _mm256_set1_epi8(0x0f);
    const __m256i lo = _mm256_and_si256(packed, mask);  // [b0 0..15 | b1 0..15]
    const __m256i hi =
        _mm256_and_si256(_mm256_srli_epi16(packed, 4), mask);  // [b0 16..31 | b1 16..31]
    const __m512i both = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
    const __m512i order = _mm512_set_epi64(7, 6, 3, 2, 5, 4, 1, 0);
    W w;
    w.q = _mm512_permutexvar_epi64(order, both);  // [b0 0..15, b0 16..31, b1 0..15, b1 16..31]
    const uint16_t* sc = a.w->scales.as<uint16_t>() + (row * k + kk) / kInt4Block;
    int two = 0;
    __builtin_memcpy(&two, sc, 4);
    const __m128 s2 = _mm_cvtph_ps(_mm_cvtsi32_si128(two));
    const __m512i idx = _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0);
    w.scale = _mm512_permutexvar_ps(idx, _mm512_castps128_ps512(s2));
    return w;
  }
  static X load_x(const MatmulArgs& a, long m, long kk) {
    const long k = a.w->k;
    X x;
    x.q = _mm512_loadu_si512(a.act->q.as<int8_t>() + m * k + kk);
    x.corr = _mm512_loadu_si512(a.act->corr4.as<int32_t>() + (m * k + kk) / 4);
    return x;
  }
  static Acc madd(Acc acc, const W& w, const X& x) {
    const __m512i dot = _mm512_dpbusd_epi32(x.corr, w.q, x.q);
    return _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), w.scale, acc);
  }
  static float finish(Acc acc, const MatmulArgs& a, long, long m, bool) {
    return _mm512_reduce_add_ps(acc) * a.act->d.as<float>()[m];
  }
};
}  // namespace

void matmul_f32(const MatmulArgs& a, long b, long e) {
  blocked<F32, 4>(a, b, e);
}
void matmul_bf16(const MatmulArgs& a, long b, long e) {
  blocked<BF16, 4>(a, b, e);
}
void matmul_int8(const MatmulArgs& a, long b, long e) {
  blocked<Int8, 4>(a, b, e);
}
void matmul_int4(const MatmulArgs& a, long b, long e) {
  blocked<Int4, 4>(a, b, e);
}

double stream_read(const float* a, long n) {
  __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
  long i = 0;
  for (; i + 64 <= n; i += 64) {
    _mm_prefetch(reinterpret_cast<const char*>(a + i) + 4096, _MM_HINT_T0);
    s0 = _mm512_add_ps(s0, _mm512_load_ps(a + i));
    s1 = _mm512_add_ps(s1, _mm512_load_ps(a + i + 16));
    s2 = _mm512_add_ps(s2, _mm512_load_ps(a + i + 32));
    s3 = _mm512_add_ps(s3, _mm512_load_ps(a + i + 48));
  }
  double s = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
  for (; i < n; ++i) s += a[i];
  return s;
}

// Full 64-byte lines per store: CPUs that skip the read-for-ownership of a line written whole
// (Intel's SpecI2M) only do so for aligned 512-bit stores. Callers pass 64-byte aligned chunks.
void stream_copy(float* __restrict b, const float* __restrict a, long n) {
  long i = 0;
  for (; i + 16 <= n; i += 16) _mm512_store_ps(b + i, _mm512_load_ps(a + i));
  for (; i < n; ++i) b[i] = a[i];
}

void stream_triad(float* __restrict a, const float* __restrict b, const float* __restrict c,
                  float s, long n) {
  const __m512 sv = _mm512_set1_ps(s);
  long i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_store_ps(a + i, _mm512_fmadd_ps(sv, _mm512_load_ps(c + i), _mm512_load_ps(b + i)));
  for (; i < n; ++i) a[i] = b[i] + s * c[i];
}

}  // namespace infercap::calibration::cpu::avx512
