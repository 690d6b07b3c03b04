// AMX kernels (-mamx-tile -mamx-bf16 -mamx-int8 and AVX-512 on this file only); dispatched only
// after amx_available() confirmed CPUID, XCR0 and the kernel's XTILEDATA permission.
//
// Weights are tile A as stored (16 rows of n, 64 bytes of k, stride = row length), activations
// are tile B in the VNNI layout prepared per call (Activations::vnni), so C = W x^T comes out as
// 16 features x 16 tokens and is transposed into y. Two weight tiles share each activation tile.
#include <immintrin.h>

#include <cstdint>

#include "matmul.hpp"

namespace infercap::calibration::cpu::amx {

namespace {

struct alignas(64) TileConfig {
  uint8_t palette_id = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

// tiles 0,1: C for weight blocks 0,1; 4,5: A (weights); 6: B (activations)
void configure() {
  TileConfig cfg;
  for (int t : {0, 1, 4, 5, 6}) {
    cfg.colsb[t] = 64;
    cfg.rows[t] = 16;
  }
  _tile_loadconfig(&cfg);
}

}  // namespace

void matmul_bf16(const MatmulArgs& a, long n_begin, long n_end) {
  configure();
  const long k = a.w->k, n = a.w->n;
  const uint16_t* w = a.w->data.as<uint16_t>();
  const uint16_t* v = a.act->vnni.as<uint16_t>();
  alignas(64) float c[2][16][16];
  const long mblocks = (a.m + 15) / 16;
  for (long row = n_begin; row + 32 <= n_end; row += 32) {
    for (long mb = 0; mb < mblocks; ++mb) {
      _tile_zero(0);
      _tile_zero(1);
      const uint16_t* vb = v + mb * 16 * k;
      for (long kk = 0; kk < k; kk += 32) {
        _tile_loadd(4, w + row * k + kk, k * 2);
        _tile_loadd(5, w + (row + 16) * k + kk, k * 2);
        _tile_loadd(6, vb + (kk / 2) * 32, 64);
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 5, 6);
      }
      _tile_stored(0, c[0], 64);
      _tile_stored(1, c[1], 64);
      for (long t = 0; t < 16 && mb * 16 + t < a.m; ++t) {
        for (long h = 0; h < 2; ++h)
          for (long i = 0; i < 16; ++i) a.y[(mb * 16 + t) * n + row + h * 16 + i] = c[h][i][t];
      }
    }
  }
  _tile_release();
}

void matmul_int8(const MatmulArgs& a, long n_begin, long n_end) {
  configure();
  const long k = a.w->k, n = a.w->n;
  const uint8_t* w = a.w->data.as<uint8_t>();
  const int8_t* v = a.act->vnni.as<int8_t>();
  const float* ws = a.w->scales.as<float>();
  const float* xd = a.act->d.as<float>();
  const int32_t* xs = a.act->sum.as<int32_t>();
  alignas(64) int32_t c[2][16][16];
  const long mblocks = (a.m + 15) / 16;
  for (long row = n_begin; row + 32 <= n_end; row += 32) {
    for (long mb = 0; mb < mblocks; ++mb) {
      _tile_zero(0);
      _tile_zero(1);
      const int8_t* vb = v + mb * 16 * k;
      for (long kk = 0; kk < k; kk += 64) {
        _tile_loadd(4, w + row * k + kk, k);
        _tile_loadd(5, w + (row + 16) * k + kk, k);
        _tile_loadd(6, vb + (kk / 4) * 64, 64);
        _tile_dpbusd(0, 4, 6);  // u8 (weights + 128) x s8 (activations)
        _tile_dpbusd(1, 5, 6);
      }
      _tile_stored(0, c[0], 64);
      _tile_stored(1, c[1], 64);
      for (long t = 0; t < 16 && mb * 16 + t < a.m; ++t) {
        const long m = mb * 16 + t;
        for (long h = 0; h < 2; ++h) {
          for (long i = 0; i < 16; ++i) {
            const long r = row + h * 16 + i;
            const long s = static_cast<long>(c[h][i][t]) - 128L * xs[m];
            a.y[m * n + r] = static_cast<float>(s) * ws[r] * xd[m];
          }
        }
      }
    }
  }
  _tile_release();
}

}  // namespace infercap::calibration::cpu::amx
